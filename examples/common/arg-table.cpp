// The rows of the option table (arg-table.h): one per option, spelled as llama.cpp spells it.
#include <cstring>
#include <stdexcept>

#include "arg-parse.h"
#include "arg-table.h"
#include "console.h"

namespace tool {

// Comma-separated items, empty ones dropped (upstream's parse_csv_row without quoting).
std::vector<std::string> split(const std::string & s, const char * seps) {
    std::vector<std::string> out;
    std::string              cur;
    for (char c : s) {
        if (strchr(seps, c)) {
            if (!cur.empty()) {
                out.push_back(cur);
            }
            cur.clear();
        } else {
            cur += c;
        }
    }
    if (!cur.empty()) {
        out.push_back(cur);
    }
    return out;
}

// The KV cache types upstream accepts for -ctk / -ctv.
ggml_type cache_type(const std::string & s) {
    static const ggml_type allowed[] = {GGML_TYPE_F32,    GGML_TYPE_F16,  GGML_TYPE_BF16,
                                        GGML_TYPE_Q8_0,   GGML_TYPE_Q4_0, GGML_TYPE_Q4_1,
                                        GGML_TYPE_IQ4_NL, GGML_TYPE_Q5_0, GGML_TYPE_Q5_1};
    for (ggml_type t : allowed) {
        if (s == ggml_type_name(t)) {
            return t;
        }
    }
    throw std::invalid_argument("expected one of f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1");
}

namespace {

using names_t = std::vector<std::string>;

option flag(names_t names, names_t neg, const char * env, unsigned tools, const char * help,
            void (*set)(params &, bool)) {
    return {std::move(names),
            std::move(neg),
            "",
            env,
            tools,
            value_kind::flag,
            0,
            0,
            help,
            [set](params & p, const arg_value & v) { set(p, v.b); }};
}

option integer(names_t names, const char * vn, const char * env, unsigned tools, int64_t lo, int64_t hi,
               const char * help, void (*set)(params &, int64_t)) {
    return {
        std::move(names),    {},          vn,          env,  tools,
        value_kind::integer, (double) lo, (double) hi, help, [set](params & p, const arg_value & v) { set(p, v.i); }};
}

option number(names_t names, const char * vn, const char * env, unsigned tools, double lo, double hi, const char * help,
              void (*set)(params &, double)) {
    return {std::move(names),   {}, vn, env,  tools,
            value_kind::number, lo, hi, help, [set](params & p, const arg_value & v) { set(p, v.f); }};
}

option text(names_t names, const char * vn, const char * env, unsigned tools, const char * help,
            void (*set)(params &, const std::string &)) {
    return {std::move(names), {}, vn, env,  tools,
            value_kind::text, 0,  0,  help, [set](params & p, const arg_value & v) { set(p, v.text); }};
}

std::string file_text(const std::string & path) {
    std::string out, why;
    if (!read_file(path, out, why)) {
        throw std::invalid_argument("cannot read " + path + ": " + why);
    }
    return out;
}

float float_of(const std::string & s, const char * what) {
    char *       end = nullptr;
    const double v   = strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0' || !(v >= -1e6 && v <= 1e6)) {
        throw std::invalid_argument(std::string("expected ") + what);
    }
    return (float) v;
}

void add_constraint(params & p, std::string grammar, std::string schema) {
    p.grammar     = std::move(grammar);
    p.json_schema = std::move(schema);
    p.n_constraints++;
}

std::vector<option> build() {
    std::vector<option> t;
    // ---- model
    t.push_back(text({"-m", "--model"}, "FNAME", "LLAMA_ARG_MODEL", TOOL_BOTH, "GGUF model to load (required)",
                     [](params & p, const std::string & v) { p.model = v; }));
    t.push_back(text({"-ngl", "--gpu-layers", "--n-gpu-layers"}, "N", "LLAMA_ARG_N_GPU_LAYERS", TOOL_BOTH,
                     "layers to store in GPU memory: a number, 'auto' or 'all' (default: auto = all that fit)",
                     [](params & p, const std::string & v) {
                         int64_t n = 0;
                         if (v == "auto" || v == "all") {
                             p.n_gpu_layers = -1;
                         } else if (parse_int(v, -1, 1 << 20, n)) {
                             p.n_gpu_layers = (int32_t) n;
                         } else {
                             throw std::invalid_argument("expected a number in [-1, 1048576], 'auto' or 'all'");
                         }
                     }));
    t.push_back(text({"-sm", "--split-mode"}, "{none,layer,row}", "LLAMA_ARG_SPLIT_MODE", TOOL_BOTH,
                     "how to split the model across GPUs: none (one GPU), layer (default), row",
                     [](params & p, const std::string & v) {
                         if (v == "none") {
                             p.split_mode = LLAMA_SPLIT_MODE_NONE;
                         } else if (v == "layer") {
                             p.split_mode = LLAMA_SPLIT_MODE_LAYER;
                         } else if (v == "row") {
                             p.split_mode = LLAMA_SPLIT_MODE_ROW;
                         } else {
                             throw std::invalid_argument("expected none, layer or row");
                         }
                     }));
    t.push_back(integer({"-mg", "--main-gpu"}, "INDEX", "LLAMA_ARG_MAIN_GPU", TOOL_BOTH, 0, 255,
                        "the GPU for the whole model with -sm none (default 0)",
                        [](params & p, int64_t v) { p.main_gpu = (int32_t) v; }));
    t.push_back(text(
        {"-ts", "--tensor-split"}, "N0,N1,...", "LLAMA_ARG_TENSOR_SPLIT", TOOL_BOTH,
        "proportion of the model per GPU, e.g. 3,1 (default: by free memory)", [](params & p, const std::string & v) {
            p.tensor_split.clear();
            for (const std::string & s : split(v, ",/")) {
                const float f = float_of(s, "comma-separated proportions");
                if (f < 0) {
                    throw std::invalid_argument("proportions cannot be negative");
                }
                p.tensor_split.push_back(f);
            }
            if (p.tensor_split.empty() || p.tensor_split.size() > llama_max_devices()) {
                throw std::invalid_argument("expected 1 to " + std::to_string(llama_max_devices()) + " proportions");
            }
        }));
    t.push_back(text({"-dev", "--device"}, "DEV1,DEV2,...", "LLAMA_ARG_DEVICE", TOOL_BOTH,
                     "devices to offload to, by name (none = CPU only; default: every GPU)",
                     [](params & p, const std::string & v) {
                         p.devices = split(v, ",");
                         if (p.devices.empty()) {
                             throw std::invalid_argument("expected device names or none");
                         }
                     }));
    t.push_back(flag({"--list-devices"}, {}, "", TOOL_BOTH, "print the devices -dev can name and exit",
                     [](params & p, bool v) { p.list_devices = v; }));
    t.push_back(flag({"--mmap"}, {"--no-mmap"}, "LLAMA_ARG_MMAP", TOOL_BOTH,
                     "map the model file (default) or read it into memory",
                     [](params & p, bool v) { p.use_mmap = v; }));
    t.push_back(flag({"--mlock"}, {}, "LLAMA_ARG_MLOCK", TOOL_BOTH, "keep the model in RAM (no swapping)",
                     [](params & p, bool v) { p.use_mlock = v; }));
    t.push_back(text({"--lora"}, "FNAME", "", TOOL_BOTH,
                     "LoRA adapter applied for the whole run (repeatable, comma-separated for several)",
                     [](params & p, const std::string & v) {
                         for (const std::string & f : split(v, ",")) {
                             p.lora.push_back({f, 1.0f});
                         }
                     }));
    t.push_back(text({"--lora-scaled"}, "FNAME:SCALE,...", "", TOOL_BOTH, "LoRA adapters with a scale each",
                     [](params & p, const std::string & v) {
                         for (const std::string & item : split(v, ",")) {
                             const size_t colon = item.rfind(':');
                             if (colon == std::string::npos || colon == 0) {
                                 throw std::invalid_argument("expected FNAME:SCALE");
                             }
                             p.lora.push_back({item.substr(0, colon), float_of(item.substr(colon + 1), "FNAME:SCALE")});
                         }
                     }));
    // ---- context
    t.push_back(integer({"-c", "--ctx-size"}, "N", "LLAMA_ARG_CTX_SIZE", TOOL_BOTH, 0, 1 << 22,
                        "context size in tokens, 0 = the model's (default 4096); llama-server: shared by the slots",
                        [](params & p, int64_t v) {
                            if (v != 0 && v < 16) {
                                throw std::invalid_argument("expected 0 (the model's) or at least 16");
                            }
                            p.n_ctx = (int32_t) v;
                        }));
    t.push_back(integer({"-b", "--batch-size"}, "N", "LLAMA_ARG_BATCH", TOOL_BOTH, 16, 65536,
                        "most tokens per decode call (default 512)",
                        [](params & p, int64_t v) { p.n_batch = (int32_t) v; }));
    t.push_back(integer({"-ub", "--ubatch-size"}, "N", "LLAMA_ARG_UBATCH", TOOL_BOTH, 1, 65536,
                        "most tokens per compute step (default 512)",
                        [](params & p, int64_t v) { p.n_ubatch = (int32_t) v; }));
    t.push_back(integer({"-t", "--threads"}, "N", "LLAMA_ARG_THREADS", TOOL_BOTH, -1, 512,
                        "CPU threads; <= 0 = the machine's physical cores (default)",
                        [](params & p, int64_t v) { p.n_threads = v <= 0 ? -1 : (int32_t) v; }));
    t.push_back(integer({"-tb", "--threads-batch"}, "N", "", TOOL_BOTH, -1, 512,
                        "CPU threads for prompts (default: as -t)",
                        [](params & p, int64_t v) { p.n_threads_batch = v <= 0 ? -1 : (int32_t) v; }));
    t.push_back(text({"-fa", "--flash-attn"}, "[on|off|auto]", "LLAMA_ARG_FLASH_ATTN", TOOL_BOTH,
                     "fused attention kernel (default auto)", [](params & p, const std::string & v) {
                         if (v == "on" || v == "enabled" || v == "1" || v == "true") {
                             p.flash_attn = LLAMA_FLASH_ATTN_TYPE_ENABLED;
                         } else if (v == "off" || v == "disabled" || v == "0" || v == "false") {
                             p.flash_attn = LLAMA_FLASH_ATTN_TYPE_DISABLED;
                         } else if (v == "auto" || v == "-1") {
                             p.flash_attn = LLAMA_FLASH_ATTN_TYPE_AUTO;
                         } else {
                             throw std::invalid_argument("expected on, off or auto");
                         }
                     }));
    t.push_back(text({"-ctk", "--cache-type-k"}, "TYPE", "LLAMA_ARG_CACHE_TYPE_K", TOOL_BOTH,
                     "KV cache type of K: f32, f16 (default), bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1",
                     [](params & p, const std::string & v) { p.type_k = cache_type(v); }));
    t.push_back(text({"-ctv", "--cache-type-v"}, "TYPE", "LLAMA_ARG_CACHE_TYPE_V", TOOL_BOTH,
                     "KV cache type of V (as -ctk)",
                     [](params & p, const std::string & v) { p.type_v = cache_type(v); }));
    // ---- chat template
    t.push_back(text({"--chat-template"}, "TEMPLATE", "LLAMA_ARG_CHAT_TEMPLATE", TOOL_BOTH,
                     "template name or Jinja source (default: the model's, else chatml)",
                     [](params & p, const std::string & v) { p.chat_template = v; }));
    t.push_back(text({"--chat-template-file"}, "FNAME", "LLAMA_ARG_CHAT_TEMPLATE_FILE", TOOL_BOTH,
                     "the Jinja chat template in a file",
                     [](params & p, const std::string & v) { p.chat_template = file_text(v); }));
    t.push_back(flag({"--jinja"}, {"--no-jinja"}, "LLAMA_ARG_JINJA", TOOL_BOTH,
                     "run the Jinja template as written: tools, reasoning (default: on; off: built-in formats)",
                     [](params & p, bool v) { p.jinja = v; }));
    t.push_back(flag({"-v", "--verbose", "--log-verbose"}, {}, "", TOOL_BOTH, "show the library's log",
                     [](params & p, bool v) { p.verbose = v; }));
    return t;
}

}  // namespace

std::vector<option> build_cli_rows();
std::vector<option> build_server_rows();
std::vector<option> build_spec_rows();

const std::vector<option> & options() {
    static const std::vector<option> table = [] {
        std::vector<option> t = build();
        for (auto * more : {build_cli_rows, build_server_rows, build_spec_rows}) {
            for (option & o : more()) {
                t.push_back(std::move(o));
            }
        }
        return t;
    }();
    return table;
}

// Rows llama-cli takes (prompt, conversation, sampling, constraints, output).
std::vector<option> build_cli_rows() {
    std::vector<option> t;
    t.push_back(text({"-p", "--prompt"}, "PROMPT", "", TOOL_CLI, "one-shot: answer PROMPT and exit",
                     [](params & p, const std::string & v) {
                         p.prompt       = v;
                         p.prompt_given = true;
                     }));
    t.push_back(text({"-f", "--file"}, "FNAME", "", TOOL_CLI,
                     "one-shot: the prompt from a file (one final newline dropped)",
                     [](params & p, const std::string & v) {
                         p.prompt = file_text(v);
                         if (!p.prompt.empty() && p.prompt.back() == '\n') {
                             p.prompt.pop_back();
                         }
                         p.prompt_given = true;
                     }));
    t.push_back(text({"-sys", "--system-prompt"}, "PROMPT", "", TOOL_CLI, "system message at the start of the chat",
                     [](params & p, const std::string & v) { p.system_prompt = v; }));
    t.push_back(text({"-sysf", "--system-prompt-file"}, "FNAME", "", TOOL_CLI, "the system message from a file",
                     [](params & p, const std::string & v) { p.system_prompt = file_text(v); }));
    t.push_back(flag({"-cnv", "--conversation"}, {"-no-cnv", "--no-conversation"}, "", TOOL_CLI,
                     "chat with the template (default); -no-cnv: continue -p/-f text as is, no template",
                     [](params & p, bool v) { p.conversation = v; }));
    t.push_back(
        flag({"--raw"}, {}, "", TOOL_CLI, "the same as -no-cnv", [](params & p, bool) { p.conversation = false; }));
    t.push_back(integer({"-n", "--predict", "--n-predict"}, "N", "LLAMA_ARG_N_PREDICT", TOOL_BOTH, -1, 1 << 20,
                        "most tokens per reply, -1 = until the model ends it (llama-cli default 512; "
                        "llama-server: the cap on a request's max_tokens, as --max-tokens)",
                        [](params & p, int64_t v) {
                            if (v == 0) {
                                throw std::invalid_argument("expected -1 or a count of at least 1");
                            }
                            p.n_predict = (int32_t) v;
                        }));
    t.push_back(text({"--prompt-cache"}, "FNAME", "", TOOL_CLI,
                     "with -p: reuse the prompt prefix saved in FNAME, save this prompt's state (the format "
                     "of llama-server --prompt-cache-dir)",
                     [](params & p, const std::string & v) { p.prompt_cache = v; }));
    t.push_back(flag({"--prompt-cache-all"}, {}, "", TOOL_CLI, "with --prompt-cache: save the generated tokens too",
                     [](params & p, bool v) { p.prompt_cache_all = v; }));
    t.push_back(flag({"--prompt-cache-ro"}, {}, "", TOOL_CLI, "with --prompt-cache: use the file, never update it",
                     [](params & p, bool v) { p.prompt_cache_ro = v; }));
    t.push_back(flag({"--json"}, {}, "", TOOL_CLI, "each reply as one JSON line (content, finish_reason, counts)",
                     [](params & p, bool v) { p.json = v; }));
    // sampling: llama-server takes these as the defaults of every request (a request's own field wins)
    auto S = [](names_t n, double lo, double hi, const char * help, void (*set)(params &, double)) {
        return number(std::move(n), "X", "", TOOL_BOTH, lo, hi, help, set);
    };
    t.push_back(S({"--temp", "--temperature"}, 0, 100, "temperature, 0 = greedy (default 0.8)",
                  [](params & p, double v) { p.sampling.temp = (float) v; }));
    t.push_back(integer({"--top-k"}, "N", "LLAMA_ARG_TOP_K", TOOL_BOTH, 0, 1 << 20,
                        "keep the N most likely, 0 = off (default 40)",
                        [](params & p, int64_t v) { p.sampling.top_k = (int32_t) v; }));
    t.push_back(S({"--top-p"}, 0, 1, "nucleus sampling (default 0.95)",
                  [](params & p, double v) { p.sampling.top_p = (float) v; }));
    t.push_back(S({"--min-p"}, 0, 1, "minimum probability relative to the best (default 0.05)",
                  [](params & p, double v) { p.sampling.min_p = (float) v; }));
    t.push_back(S({"--typical", "--typical-p"}, 0, 1, "locally typical sampling, 1 = off",
                  [](params & p, double v) { p.sampling.typical_p = (float) v; }));
    // llama-server's sampler chain has no dynamic temperature: these two stay llama-cli's
    t.push_back(number({"--dynatemp-range"}, "X", "", TOOL_CLI, 0, 100, "dynamic temperature range, 0 = off",
                       [](params & p, double v) { p.sampling.dynatemp_range = (float) v; }));
    t.push_back(number({"--dynatemp-exp"}, "X", "", TOOL_CLI, 0, 100, "dynamic temperature exponent (default 1)",
                       [](params & p, double v) { p.sampling.dynatemp_exp = (float) v; }));
    t.push_back(integer({"--repeat-last-n"}, "N", "", TOOL_BOTH, -1, 1 << 20,
                        "tokens the penalties look at, -1 = context (default 64)",
                        [](params & p, int64_t v) { p.sampling.repeat_last_n = (int32_t) v; }));
    t.push_back(S({"--repeat-penalty"}, 0, 100, "repetition penalty, 1 = off",
                  [](params & p, double v) { p.sampling.repeat_penalty = (float) v; }));
    t.push_back(S({"--presence-penalty"}, -100, 100, "presence penalty, 0 = off",
                  [](params & p, double v) { p.sampling.presence_penalty = (float) v; }));
    t.push_back(S({"--frequency-penalty"}, -100, 100, "frequency penalty, 0 = off",
                  [](params & p, double v) { p.sampling.frequency_penalty = (float) v; }));
    t.push_back(S({"--top-nsigma", "--top-n-sigma"}, -1, 100, "keep logits within X standard deviations, <= 0 = off",
                  [](params & p, double v) { p.sampling.top_n_sigma = (float) v; }));
    t.push_back(S({"--xtc-probability"}, 0, 1, "XTC: chance of removing the top choices, 0 = off",
                  [](params & p, double v) { p.sampling.xtc_probability = (float) v; }));
    t.push_back(S({"--xtc-threshold"}, 0, 1, "XTC: probability a choice needs to be removed (default 0.1)",
                  [](params & p, double v) { p.sampling.xtc_threshold = (float) v; }));
    t.push_back(integer({"--mirostat"}, "N", "", TOOL_BOTH, 0, 2, "0 off, 1 Mirostat, 2 Mirostat 2.0",
                        [](params & p, int64_t v) { p.sampling.mirostat = (int32_t) v; }));
    t.push_back(S({"--mirostat-lr"}, 0, 1, "Mirostat learning rate eta (default 0.1)",
                  [](params & p, double v) { p.sampling.mirostat_eta = (float) v; }));
    t.push_back(S({"--mirostat-ent"}, 0, 100, "Mirostat target entropy tau (default 5)",
                  [](params & p, double v) { p.sampling.mirostat_tau = (float) v; }));
    t.push_back(S({"--dry-multiplier"}, 0, 100, "DRY penalty strength, 0 = off",
                  [](params & p, double v) { p.sampling.dry_multiplier = (float) v; }));
    t.push_back(S({"--dry-base"}, 1, 100, "DRY base (default 1.75)",
                  [](params & p, double v) { p.sampling.dry_base = (float) v; }));
    t.push_back(integer({"--dry-allowed-length"}, "N", "", TOOL_BOTH, 1, 1 << 20,
                        "DRY: repeats up to N tokens are free (default 2)",
                        [](params & p, int64_t v) { p.sampling.dry_allowed_length = (int32_t) v; }));
    t.push_back(integer({"--dry-penalty-last-n"}, "N", "", TOOL_BOTH, -1, 1 << 20,
                        "DRY: tokens looked at, -1 = context",
                        [](params & p, int64_t v) { p.sampling.dry_penalty_last_n = (int32_t) v; }));
    t.push_back(text({"--dry-sequence-breaker"}, "STRING", "", TOOL_BOTH,
                     "DRY sequence breaker (repeatable; replaces the defaults; \"none\" for none)",
                     [](params & p, const std::string & v) {
                         if (!p.custom_breakers) {
                             p.sampling.dry_sequence_breakers.clear();  // the first one replaces the defaults
                             p.custom_breakers = true;
                         }
                         if (v.empty()) {
                             throw std::invalid_argument("empty breaker");
                         }
                         if (v != "none") {
                             p.sampling.dry_sequence_breakers.push_back(v);
                         }
                     }));
    t.push_back(text({"-s", "--seed"}, "SEED", "", TOOL_BOTH, "sampling seed, 0 to 4294967295 (default: random)",
                     [](params & p, const std::string & v) {
                         uint64_t s = 0;
                         if (!parse_uint(v, 0, UINT32_MAX, s)) {
                             throw std::invalid_argument("expected an integer in [0, 4294967295]");
                         }
                         p.sampling.seed = (uint32_t) s;
                     }));
    t.push_back(text({"--grammar"}, "GRAMMAR", "", TOOL_CLI, "constrain every reply to a GBNF grammar",
                     [](params & p, const std::string & v) { add_constraint(p, v, ""); }));
    t.push_back(text({"--grammar-file"}, "FNAME", "", TOOL_CLI, "the grammar from a file",
                     [](params & p, const std::string & v) { add_constraint(p, file_text(v), ""); }));
    t.push_back(text({"-j", "--json-schema"}, "SCHEMA", "", TOOL_CLI, "constrain every reply to a JSON schema",
                     [](params & p, const std::string & v) { add_constraint(p, "", v); }));
    t.push_back(text({"-jf", "--json-schema-file"}, "FNAME", "", TOOL_CLI, "the schema from a file",
                     [](params & p, const std::string & v) { add_constraint(p, "", file_text(v)); }));
    return t;
}

}  // namespace tool
