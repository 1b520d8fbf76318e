// The rows of the option table (arg-table.h) only llama-server takes: listening, slots, API keys,
// TLS, CORS and the server's limits.
#include <filesystem>
#include <stdexcept>

#include "arg-table.h"
#include "console.h"

namespace tool {

namespace {

using names_t = std::vector<std::string>;

option srv_text(names_t names, const char * vn, const char * env, const char * help,
                void (*set)(params &, const std::string &)) {
    return {std::move(names), {}, vn, env,  TOOL_SERVER,
            value_kind::text, 0,  0,  help, [set](params & p, const arg_value & v) { set(p, v.text); }};
}

option srv_int(names_t names, const char * vn, const char * env, int64_t lo, int64_t hi, const char * help,
               void (*set)(params &, int64_t)) {
    return {
        std::move(names),    {},          vn,          env,  TOOL_SERVER,
        value_kind::integer, (double) lo, (double) hi, help, [set](params & p, const arg_value & v) { set(p, v.i); }};
}

option srv_flag(names_t names, names_t neg, const char * env, const char * help, void (*set)(params &, bool)) {
    return {std::move(names),
            std::move(neg),
            "",
            env,
            TOOL_SERVER,
            value_kind::flag,
            0,
            0,
            help,
            [set](params & p, const arg_value & v) { set(p, v.b); }};
}

// Keys separated by commas (upstream's --api-key), empty ones dropped.
void add_keys(params & p, const std::string & v) {
    std::string cur;
    for (size_t i = 0; i <= v.size(); i++) {
        if (i == v.size() || v[i] == ',') {
            if (!cur.empty()) {
                p.api_keys.push_back(cur);
            }
            cur.clear();
        } else {
            cur += v[i];
        }
    }
}

}  // namespace

std::vector<option> build_server_rows() {
    std::vector<option> t;
    t.push_back(srv_text({"--host"}, "HOST", "LLAMA_ARG_HOST", "address to listen on (default 127.0.0.1)",
                         [](params & p, const std::string & v) { p.host = v; }));
    t.push_back(srv_int({"--port"}, "PORT", "LLAMA_ARG_PORT", 0, 65535,
                        "port, 0 = any free port (default 8080); the chosen one is printed",
                        [](params & p, int64_t v) { p.port = (int) v; }));
    t.push_back(srv_int({"-np", "--parallel"}, "N", "LLAMA_ARG_N_PARALLEL", -1, 256,
                        "slots: requests decoded together; -1 = auto: 4 slots with a unified cache (default)",
                        [](params & p, int64_t v) {
                            if (v == 0) {
                                throw std::invalid_argument("expected -1 (auto) or 1 to 256");
                            }
                            p.n_parallel = (int32_t) v;
                        }));
    t.push_back(srv_flag({"-kvu", "--kv-unified"}, {"-no-kvu", "--no-kv-unified"}, "LLAMA_ARG_KV_UNIFIED",
                         "every slot may use the whole context (one shared cache); off: each slot gets -c / -np "
                         "(default: on when -np is auto)",
                         [](params & p, bool v) { p.kv_unified = v ? 1 : 0; }));
    t.push_back(srv_flag({"-cb", "--cont-batching"}, {"-nocb", "--no-cont-batching"}, "LLAMA_ARG_CONT_BATCHING",
                         "continuous batching: new requests join the running batch (always on here)",
                         [](params &, bool v) {
                             if (!v) {
                                 throw std::invalid_argument("this server always batches continuously");
                             }
                         }));
    t.push_back(srv_text({"--api-key"}, "KEY", "LLAMA_API_KEY",
                         "require 'Authorization: Bearer KEY' (or X-Api-Key: KEY); repeatable, comma-separated",
                         add_keys));
    t.push_back(srv_text({"--api-key-file"}, "FNAME", "LLAMA_ARG_API_KEY_FILE",
                         "API keys from a file, one per line ('#' starts a comment line)",
                         [](params & p, const std::string & v) {
                             std::string text, why;
                             if (!read_file(v, text, why)) {
                                 throw std::invalid_argument("cannot read " + v + ": " + why);
                             }
                             size_t start = 0;
                             while (start < text.size()) {
                                 size_t end = text.find('\n', start);
                                 if (end == std::string::npos) {
                                     end = text.size();
                                 }
                                 std::string key = text.substr(start, end - start);
                                 if (!key.empty() && key.back() == '\r') {
                                     key.pop_back();
                                 }
                                 if (!key.empty() && key[0] != '#') {
                                     p.api_keys.push_back(key);
                                 }
                                 start = end + 1;
                             }
                         }));
    t.push_back(srv_text({"--ssl-key-file"}, "FNAME", "LLAMA_ARG_SSL_KEY_FILE", "PEM private key: serve HTTPS",
                         [](params & p, const std::string & v) { p.ssl_key_file = v; }));
    t.push_back(srv_text({"--ssl-cert-file"}, "FNAME", "LLAMA_ARG_SSL_CERT_FILE", "PEM certificate: serve HTTPS",
                         [](params & p, const std::string & v) { p.ssl_cert_file = v; }));
    t.push_back(srv_text({"--cors-origins"}, "ORIGINS", "LLAMA_ARG_CORS_ORIGINS",
                         "allowed origins for CORS (default *; 'localhost': only localhost origins are echoed)",
                         [](params & p, const std::string & v) { p.cors_origins = v; }));
    t.push_back(srv_text({"--cors-methods"}, "METHODS", "LLAMA_ARG_CORS_METHODS",
                         "allowed methods for CORS (default GET, POST, DELETE, OPTIONS)",
                         [](params & p, const std::string & v) { p.cors_methods = v; }));
    t.push_back(srv_text({"--cors-headers"}, "HEADERS", "LLAMA_ARG_CORS_HEADERS",
                         "allowed headers for CORS (default *)",
                         [](params & p, const std::string & v) { p.cors_headers = v; }));
    t.push_back(srv_flag({"--cors-credentials"}, {"--no-cors-credentials"}, "LLAMA_ARG_CORS_CREDENTIALS",
                         "allow credentials (default on; with origins * the request's Origin is echoed)",
                         [](params & p, bool v) { p.cors_credentials = v; }));
    t.push_back(srv_text({"-a", "--alias"}, "NAME", "LLAMA_ARG_ALIAS", "model id in the API (default: the file name)",
                         [](params & p, const std::string & v) { p.alias = v; }));
    t.push_back(srv_int({"-to", "--timeout"}, "N", "LLAMA_ARG_TIMEOUT", 1, 86400,
                        "seconds a request may take, queue included (default 600)",
                        [](params & p, int64_t v) { p.timeout_s = (int32_t) v; }));
    t.push_back(srv_int({"--threads-http"}, "N", "LLAMA_ARG_THREADS_HTTP", 2, 4096,
                        "connections served at once (default 64)",
                        [](params & p, int64_t v) { p.http_threads = (int32_t) v; }));
    t.push_back(srv_flag({"--embedding", "--embeddings"}, {}, "LLAMA_ARG_EMBEDDINGS",
                         "serve only /v1/embeddings (completion and chat endpoints answer 501)",
                         [](params & p, bool v) { p.embeddings_only = v; }));
    t.push_back(
        srv_flag({"--rerank", "--reranking"}, {}, "LLAMA_ARG_RERANKING",
                 "serve /v1/rerank with a reranker (a model with a classifier head): --embeddings --pooling rank",
                 [](params & p, bool v) {
                     if (v) {
                         p.embeddings_only = true;
                         p.pooling         = LLAMA_POOLING_TYPE_RANK;
                     }
                 }));
    t.push_back(srv_text({"--pooling"}, "{none,mean,cls,last,rank}", "LLAMA_ARG_POOLING",
                         "how embeddings pool the token vectors (default: the model's, else mean); rank: reranking",
                         [](params & p, const std::string & v) {
                             if (v == "none") {
                                 p.pooling = LLAMA_POOLING_TYPE_NONE;
                             } else if (v == "mean") {
                                 p.pooling = LLAMA_POOLING_TYPE_MEAN;
                             } else if (v == "cls") {
                                 p.pooling = LLAMA_POOLING_TYPE_CLS;
                             } else if (v == "last") {
                                 p.pooling = LLAMA_POOLING_TYPE_LAST;
                             } else if (v == "rank") {
                                 p.pooling = LLAMA_POOLING_TYPE_RANK;
                             } else {
                                 throw std::invalid_argument("expected none, mean, cls, last or rank");
                             }
                         }));
    t.push_back(srv_flag({"--lora-init-without-apply"}, {}, "",
                         "load the --lora adapters with global scale 0 (set later by POST /lora-adapters or a "
                         "request's lora field)",
                         [](params & p, bool v) { p.lora_init_without_apply = v; }));
    // no environment variable, as upstream
    t.push_back(srv_text({"--slot-save-path"}, "PATH", "",
                         "folder of the slot files of POST /slots/{id}?action=save|restore (default: off)",
                         [](params & p, const std::string & v) {
                             std::error_code ec;
                             if (!std::filesystem::is_directory(v, ec)) {
                                 throw std::invalid_argument("not a directory: " + v);
                             }
                             p.slot_save_path = v;
                         }));
    // libllama's own (upstream keeps its prompt cache in RAM only: --cache-ram)
    t.push_back(srv_text({"--prompt-cache-dir"}, "DIR", "LLAMA_ARG_PROMPT_CACHE_DIR",
                         "keep each slot's cache in DIR (created if missing) when a request ends, and restore it "
                         "by prompt prefix, also after a restart (default: off)",
                         [](params & p, const std::string & v) {
                             std::error_code ec;
                             if (v.empty() ||
                                 (std::filesystem::exists(v, ec) && !std::filesystem::is_directory(v, ec))) {
                                 throw std::invalid_argument("not a directory: " + v);
                             }
                             p.prompt_cache_dir = v;
                         }));
    t.push_back(srv_int({"--prompt-cache-max-mib"}, "N", "LLAMA_ARG_PROMPT_CACHE_MAX_MIB", 0, (int64_t) 1 << 30,
                        "most MiB of --prompt-cache-dir files; the least recently used go first, 0 = no cap "
                        "(default 4096)",
                        [](params & p, int64_t v) { p.prompt_cache_max_mib = v; }));
    t.push_back(srv_flag({"--ui", "--webui"}, {"--no-ui", "--no-webui"}, "LLAMA_ARG_UI",
                         "serve the chat page at / (default on)", [](params & p, bool v) { p.webui = v; }));
    t.push_back(srv_text({"--models-dir"}, "PATH", "LLAMA_ARG_MODELS_DIR",
                         "router mode (no -m): serve the *.gguf files (and folders of them) in PATH",
                         [](params & p, const std::string & v) { p.models_dir = v; }));
    t.push_back(srv_text({"--models-preset"}, "PATH", "LLAMA_ARG_MODELS_PRESET",
                         "router mode: INI file of [id] sections (model = PATH, instance flags)",
                         [](params & p, const std::string & v) { p.models_preset = v; }));
    t.push_back(srv_int({"--models-max"}, "N", "LLAMA_ARG_MODELS_MAX", 0, 1024,
                        "router: models loaded at once, 0 = no limit (default 4)",
                        [](params & p, int64_t v) { p.models_max = (int32_t) v; }));
    t.push_back(srv_flag({"--models-autoload"}, {"--no-models-autoload"}, "LLAMA_ARG_MODELS_AUTOLOAD",
                         "router: load a model when a request names it (default on)",
                         [](params & p, bool v) { p.models_autoload = v; }));
    t.push_back(srv_int({"--sleep-idle-seconds"}, "N", "", -1, 1 << 24,
                        "router: unload a model after N seconds without requests (default -1: never)",
                        [](params & p, int64_t v) { p.sleep_idle_seconds = (int32_t) v; }));
    // libllama's own (not in llama.cpp)
    t.push_back(srv_text({"--models-memory-max"}, "SIZE", "",
                         "router: total size of the loaded model files, e.g. 8G (default: no limit)",
                         [](params & p, const std::string & v) { p.models_memory_max = v; }));
    t.push_back(srv_int({"--http-threads"}, "N", "", 2, 4096, "the same as --threads-http",
                        [](params & p, int64_t v) { p.http_threads = (int32_t) v; }));
    t.push_back(srv_int({"--max-body"}, "N", "", 64, (int64_t) 1 << 32,
                        "largest request body in bytes (default 1048576)",
                        [](params & p, int64_t v) { p.max_body = v; }));
    t.push_back(srv_int({"--max-tokens"}, "N", "", 1, 1 << 22,
                        "most tokens a request may generate per choice (default 4096)",
                        [](params & p, int64_t v) { p.max_tokens = (int32_t) v; }));
    t.push_back(srv_int({"--queue-limit"}, "N", "", 0, 1 << 20,
                        "requests waiting for a slot before 503 + Retry-After (default 64)",
                        [](params & p, int64_t v) { p.queue_limit = (int32_t) v; }));
    t.push_back(srv_int({"--grace"}, "N", "", 0, 86400, "seconds to finish in-flight requests on SIGTERM (default 30)",
                        [](params & p, int64_t v) { p.grace_s = (int32_t) v; }));
    return t;
}

}  // namespace tool
