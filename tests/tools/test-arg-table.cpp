// The option table llama-cli and llama-server share (examples/common/arg-table.h): llama.cpp's
// spellings reach the right field, environment variables fill what argv leaves, argv wins, ranges
// hold, and unknown, other-tool and unsupported llama.cpp flags fail with one line naming them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "arg-table.h"
#include "test-compat.h"

namespace {

struct run {
    tool::params                       p;
    tool::parse_result                 r;
    std::map<std::string, std::string> env;

    run & parse(tool::tool_id tool, std::vector<std::string> argv) {
        argv.insert(argv.begin(), "prog");
        std::vector<char *> ptrs;
        for (std::string & a : argv) {
            ptrs.push_back(&a[0]);
        }
        r = tool::parse_args(tool, (int) ptrs.size(), ptrs.data(), p, [this](const char * name) -> const char * {
            auto it = env.find(name);
            return it == env.end() ? nullptr : it->second.c_str();
        });
        return *this;
    }
};

tool::params parsed(tool::tool_id tool, const std::vector<std::string> & argv) {
    run x;
    x.parse(tool, argv);
    EXPECT_TRUE(x.r.ok) << x.r.error;
    return x.p;
}

std::string error_of(tool::tool_id tool, const std::vector<std::string> & argv) {
    run x;
    x.parse(tool, argv);
    EXPECT_FALSE(x.r.ok);
    return x.r.error;
}

std::string temp_file(const char * name, const std::string & text) {
    const std::string path = testing::TempDir() + name;
    FILE *            f    = fopen(path.c_str(), "wb");
    fwrite(text.data(), 1, text.size(), f);
    fclose(f);
    return path;
}

}  // namespace

TEST(ArgTable, ModelFlagsReachTheirFields) {
    const auto p = parsed(tool::TOOL_SERVER, {"-m", "a.gguf", "-ngl", "33", "-sm", "row", "-mg", "1", "-ts", "3,1",
                                              "-dev", "CUDA0,CUDA1", "--no-mmap", "--mlock"});
    EXPECT_EQ(p.model, "a.gguf");
    EXPECT_EQ(p.n_gpu_layers, 33);
    EXPECT_EQ(p.split_mode, LLAMA_SPLIT_MODE_ROW);
    EXPECT_EQ(p.main_gpu, 1);
    EXPECT_EQ(p.tensor_split, (std::vector<float>{3.0f, 1.0f}));
    EXPECT_EQ(p.devices, (std::vector<std::string>{"CUDA0", "CUDA1"}));
    EXPECT_FALSE(p.use_mmap);
    EXPECT_TRUE(p.use_mlock);
    EXPECT_EQ(parsed(tool::TOOL_CLI, {"--n-gpu-layers", "all"}).n_gpu_layers, -1);
    EXPECT_EQ(parsed(tool::TOOL_CLI, {"--gpu-layers", "0"}).n_gpu_layers, 0);
    EXPECT_EQ(parsed(tool::TOOL_CLI, {"--split-mode", "none"}).split_mode, LLAMA_SPLIT_MODE_NONE);
    EXPECT_EQ(parsed(tool::TOOL_CLI, {"--tensor-split", "1/2/1"}).tensor_split.size(), 3u);
}

TEST(ArgTable, ContextFlags) {
    auto p = parsed(tool::TOOL_CLI, {"-c", "0", "-b", "256", "-ub", "128", "-t", "3", "-tb", "5", "-fa", "on", "-ctk",
                                     "q8_0", "-ctv", "q4_0"});
    EXPECT_EQ(p.n_ctx, 0);
    EXPECT_EQ(p.n_batch, 256);
    EXPECT_EQ(p.n_ubatch, 128);
    EXPECT_EQ(p.n_threads, 3);
    EXPECT_EQ(p.n_threads_batch, 5);
    EXPECT_EQ(p.flash_attn, LLAMA_FLASH_ATTN_TYPE_ENABLED);
    EXPECT_EQ(p.type_k, GGML_TYPE_Q8_0);
    EXPECT_EQ(p.type_v, GGML_TYPE_Q4_0);
    p = parsed(tool::TOOL_CLI,
               {"--ctx-size", "8192", "--flash-attn", "off", "--cache-type-k", "f32", "--threads", "-1"});
    EXPECT_EQ(p.n_ctx, 8192);
    EXPECT_EQ(p.flash_attn, LLAMA_FLASH_ATTN_TYPE_DISABLED);
    EXPECT_EQ(p.type_k, GGML_TYPE_F32);
    EXPECT_EQ(p.n_threads, -1);  // the physical cores, resolved when the context is made
    EXPECT_EQ(parsed(tool::TOOL_CLI, {"-fa", "auto"}).flash_attn, LLAMA_FLASH_ATTN_TYPE_AUTO);
    EXPECT_GE(tool::physical_cores(), 1);
}

TEST(ArgTable, ChatAndCliFlags) {
    const std::string tmpl = temp_file("arg-table-tmpl.jinja", "{{ messages[0].content }}");
    const std::string text = temp_file("arg-table-prompt.txt", "from a file\n");
    auto p = parsed(tool::TOOL_CLI, {"--chat-template-file", tmpl, "--no-jinja", "-f", text, "-sys", "be brief",
                                     "-no-cnv", "-n", "-1", "--temp", "0", "-s", "42"});
    EXPECT_EQ(p.chat_template, "{{ messages[0].content }}");
    EXPECT_FALSE(p.jinja);
    EXPECT_EQ(p.prompt, "from a file");  // one final newline dropped, as upstream
    EXPECT_TRUE(p.prompt_given);
    EXPECT_EQ(p.system_prompt, "be brief");
    EXPECT_FALSE(p.conversation);
    EXPECT_EQ(p.n_predict, -1);
    EXPECT_EQ(p.sampling.temp, 0.0f);
    EXPECT_EQ(p.sampling.seed, 42u);
    p = parsed(tool::TOOL_CLI, {"--jinja", "-cnv", "--predict", "7", "-p", "hi"});
    EXPECT_TRUE(p.jinja);
    EXPECT_TRUE(p.conversation);
    EXPECT_EQ(p.n_predict, 7);
    EXPECT_EQ(p.prompt, "hi");
    p = parsed(tool::TOOL_CLI, {"--lora", "a.gguf,b.gguf", "--lora-scaled", "c.gguf:0.5"});
    ASSERT_EQ(p.lora.size(), 3u);
    EXPECT_EQ(p.lora[1].path, "b.gguf");
    EXPECT_EQ(p.lora[2].path, "c.gguf");
    EXPECT_FLOAT_EQ(p.lora[2].scale, 0.5f);
}

TEST(ArgTable, ServerFlags) {
    const std::string keys = temp_file("arg-table-keys.txt", "# comment\nk3\r\n\nk4\n");
    auto              p    = parsed(tool::TOOL_SERVER, {"--host",
                                                        "0.0.0.0",
                                                        "--port",
                                                        "9000",
                                                        "-np",
                                                        "2",
                                                        "-kvu",
                                                        "--cont-batching",
                                                        "--api-key",
                                                        "k1,k2",
                                                        "--api-key-file",
                                                        keys,
                                                        "--ssl-key-file",
                                                        "k.pem",
                                                        "--ssl-cert-file",
                                                        "c.pem",
                                                        "--cors-origins",
                                                        "localhost",
                                                        "--no-cors-credentials",
                                                        "-a",
                                                        "name"});
    EXPECT_EQ(p.host, "0.0.0.0");
    EXPECT_EQ(p.port, 9000);
    EXPECT_EQ(p.n_parallel, 2);
    EXPECT_EQ(p.kv_unified, 1);
    EXPECT_EQ(p.api_keys, (std::vector<std::string>{"k1", "k2", "k3", "k4"}));
    EXPECT_EQ(p.ssl_key_file, "k.pem");
    EXPECT_EQ(p.ssl_cert_file, "c.pem");
    EXPECT_EQ(p.cors_origins, "localhost");
    EXPECT_FALSE(p.cors_credentials);
    EXPECT_EQ(p.alias, "name");
    EXPECT_EQ(parsed(tool::TOOL_SERVER, {"--no-kv-unified"}).kv_unified, 0);
    EXPECT_EQ(parsed(tool::TOOL_SERVER, {"-n", "-1"}).n_predict, -1);  // the server's cap: none
    p = parsed(tool::TOOL_SERVER, {"--embedding", "--pooling", "cls"});
    EXPECT_TRUE(p.embeddings_only);
    EXPECT_EQ(p.pooling, LLAMA_POOLING_TYPE_CLS);
    EXPECT_EQ(parsed(tool::TOOL_SERVER, {"--pooling", "none"}).pooling, LLAMA_POOLING_TYPE_NONE);
    EXPECT_EQ(parsed(tool::TOOL_SERVER, {"--pooling", "rank"}).pooling, LLAMA_POOLING_TYPE_RANK);
    EXPECT_EQ(parsed(tool::TOOL_SERVER, {}).pooling, LLAMA_POOLING_TYPE_UNSPECIFIED);  // the model's
    EXPECT_NE(error_of(tool::TOOL_SERVER, {"--pooling", "max"}).find("none, mean, cls, last or rank"),
              std::string::npos);
    for (const char * spelling : {"--reranking", "--rerank"}) {
        p = parsed(tool::TOOL_SERVER, {spelling});
        EXPECT_TRUE(p.embeddings_only) << spelling;
        EXPECT_EQ(p.pooling, LLAMA_POOLING_TYPE_RANK) << spelling;
    }
    EXPECT_EQ(error_of(tool::TOOL_CLI, {"--reranking"}), "error: --reranking is a llama-server option");
    EXPECT_EQ(error_of(tool::TOOL_CLI, {"--embeddings"}), "error: --embeddings is a llama-server option");
    EXPECT_EQ(parsed(tool::TOOL_SERVER, {}).kv_unified, -1);  // auto
    EXPECT_EQ(parsed(tool::TOOL_SERVER, {"--api-key", "a", "--api-key", "b"}).api_keys.size(), 2u);
    EXPECT_NE(error_of(tool::TOOL_SERVER, {"--api-key-file", "/nonexistent/keys"}).find("cannot read"),
              std::string::npos);
    EXPECT_NE(error_of(tool::TOOL_SERVER, {"-nocb"}).find("-nocb"), std::string::npos);

    // the page and router mode
    EXPECT_FALSE(parsed(tool::TOOL_SERVER, {"--no-ui"}).webui);
    EXPECT_FALSE(parsed(tool::TOOL_SERVER, {"--no-webui"}).webui);
    EXPECT_TRUE(parsed(tool::TOOL_SERVER, {"--no-ui", "--webui"}).webui);
    p = parsed(tool::TOOL_SERVER, {"--models-dir", "/m", "--models-preset", "p.ini", "--models-max", "2",
                                   "--no-models-autoload", "--sleep-idle-seconds", "30", "--models-memory-max", "8G"});
    EXPECT_EQ(p.models_dir, "/m");
    EXPECT_EQ(p.models_preset, "p.ini");
    EXPECT_EQ(p.models_max, 2);
    EXPECT_FALSE(p.models_autoload);
    EXPECT_EQ(p.sleep_idle_seconds, 30);
    EXPECT_EQ(p.models_memory_max, "8G");
    EXPECT_NE(error_of(tool::TOOL_SERVER, {"--models-max", "-1"}).find("--models-max"), std::string::npos);
    EXPECT_EQ(error_of(tool::TOOL_CLI, {"--models-dir", "x"}), "error: --models-dir is a llama-server option");
    run r;
    r.env = {{"LLAMA_ARG_MODELS_DIR", "/env-models"}, {"LLAMA_ARG_UI", "0"}};
    r.parse(tool::TOOL_SERVER, {});
    ASSERT_TRUE(r.r.ok) << r.r.error;
    EXPECT_EQ(r.p.models_dir, "/env-models");
    EXPECT_FALSE(r.p.webui);
}

// The long spellings and aliases land where the short ones do.
// llama-server takes llama.cpp's sampler flags as request defaults; dynamic temperature and the
// constraint flags stay llama-cli's (the server's requests carry their own grammar).
TEST(ArgTable, ServerSamplingFlags) {
    const std::vector<std::string> argv = {"--temp",
                                           "0.25",
                                           "--top-k",
                                           "7",
                                           "--top-p",
                                           "0.5",
                                           "--min-p",
                                           "0.125",
                                           "--typical",
                                           "0.75",
                                           "--repeat-penalty",
                                           "1.5",
                                           "--repeat-last-n",
                                           "32",
                                           "--presence-penalty",
                                           "0.5",
                                           "--frequency-penalty",
                                           "-0.5",
                                           "--seed",
                                           "1234",
                                           "--mirostat",
                                           "2",
                                           "--mirostat-lr",
                                           "0.25",
                                           "--mirostat-ent",
                                           "3",
                                           "--dry-multiplier",
                                           "0.5",
                                           "--dry-base",
                                           "2",
                                           "--dry-allowed-length",
                                           "3",
                                           "--dry-penalty-last-n",
                                           "16",
                                           "--dry-sequence-breaker",
                                           "|",
                                           "--xtc-probability",
                                           "0.5",
                                           "--xtc-threshold",
                                           "0.25",
                                           "--top-nsigma",
                                           "1.5"};
    for (tool::tool_id t : {tool::TOOL_SERVER, tool::TOOL_CLI}) {
        const tool::sampling_params s = parsed(t, argv).sampling;
        EXPECT_EQ(s.temp, 0.25f);
        EXPECT_EQ(s.top_k, 7);
        EXPECT_EQ(s.top_p, 0.5f);
        EXPECT_EQ(s.min_p, 0.125f);
        EXPECT_EQ(s.typical_p, 0.75f);
        EXPECT_EQ(s.repeat_penalty, 1.5f);
        EXPECT_EQ(s.repeat_last_n, 32);
        EXPECT_EQ(s.presence_penalty, 0.5f);
        EXPECT_EQ(s.frequency_penalty, -0.5f);
        EXPECT_EQ(s.seed, 1234u);
        EXPECT_EQ(s.mirostat, 2);
        EXPECT_EQ(s.mirostat_eta, 0.25f);
        EXPECT_EQ(s.mirostat_tau, 3.0f);
        EXPECT_EQ(s.dry_multiplier, 0.5f);
        EXPECT_EQ(s.dry_base, 2.0f);
        EXPECT_EQ(s.dry_allowed_length, 3);
        EXPECT_EQ(s.dry_penalty_last_n, 16);
        EXPECT_EQ(s.dry_sequence_breakers, std::vector<std::string>{"|"});
        EXPECT_EQ(s.xtc_probability, 0.5f);
        EXPECT_EQ(s.xtc_threshold, 0.25f);
        EXPECT_EQ(s.top_n_sigma, 1.5f);
    }
    EXPECT_EQ(parsed(tool::TOOL_SERVER, {"--temperature", "0", "-s", "7"}).sampling.temp, 0.0f);
    EXPECT_EQ(error_of(tool::TOOL_SERVER, {"--dynatemp-range", "1"}), "error: --dynatemp-range is a llama-cli option");
    EXPECT_EQ(error_of(tool::TOOL_SERVER, {"--grammar", "root ::= \"a\""}), "error: --grammar is a llama-cli option");
    EXPECT_NE(error_of(tool::TOOL_SERVER, {"--top-p", "2"}).find("--top-p"), std::string::npos);
}

TEST(ArgTable, AliasesAgree) {
    auto p = parsed(tool::TOOL_SERVER, {"--model",
                                        "m.gguf",
                                        "--main-gpu",
                                        "2",
                                        "--device",
                                        "none",
                                        "--batch-size",
                                        "64",
                                        "--ubatch-size",
                                        "32",
                                        "--threads-batch",
                                        "4",
                                        "--cache-type-v",
                                        "bf16",
                                        "--n-predict",
                                        "9",
                                        "--parallel",
                                        "3",
                                        "--no-kv-unified",
                                        "--alias",
                                        "x",
                                        "--timeout",
                                        "5",
                                        "--threads-http",
                                        "8",
                                        "--log-verbose",
                                        "--embedding"});
    EXPECT_EQ(p.model, "m.gguf");
    EXPECT_EQ(p.main_gpu, 2);
    EXPECT_EQ(p.devices, (std::vector<std::string>{"none"}));
    EXPECT_EQ(p.n_batch, 64);
    EXPECT_EQ(p.n_ubatch, 32);
    EXPECT_EQ(p.n_threads_batch, 4);
    EXPECT_EQ(p.type_v, GGML_TYPE_BF16);
    EXPECT_EQ(p.n_predict, 9);
    EXPECT_EQ(p.n_parallel, 3);
    EXPECT_EQ(p.kv_unified, 0);
    EXPECT_EQ(p.alias, "x");
    EXPECT_EQ(p.timeout_s, 5);
    EXPECT_EQ(p.http_threads, 8);
    EXPECT_TRUE(p.verbose);
    EXPECT_TRUE(p.embeddings_only);
    const std::string text = temp_file("arg-table-sys.txt", "system text");
    p                      = parsed(tool::TOOL_CLI,
                                    {"--system-prompt-file", text, "--no-conversation", "--file", text, "--prompt-cache", "c.bin",
                                     "--temperature", "0.5", "--top-n-sigma", "2", "--typical-p", "0.9", "--json-schema", "{}"});
    EXPECT_EQ(p.system_prompt, "system text");
    EXPECT_FALSE(p.conversation);
    EXPECT_EQ(p.prompt, "system text");
    EXPECT_EQ(p.prompt_cache, "c.bin");
    EXPECT_FLOAT_EQ(p.sampling.temp, 0.5f);
    EXPECT_FLOAT_EQ(p.sampling.top_n_sigma, 2.0f);
    EXPECT_FLOAT_EQ(p.sampling.typical_p, 0.9f);
    EXPECT_EQ(p.json_schema, "{}");
    EXPECT_EQ(p.n_constraints, 1);
    EXPECT_EQ(parsed(tool::TOOL_CLI, {"--raw", "--conversation"}).conversation, true);  // the last one wins
    EXPECT_EQ(parsed(tool::TOOL_CLI, {"--grammar", "root ::= \"a\"", "-j", "{}"}).n_constraints, 2);
}

TEST(ArgTable, EnvironmentFillsWhatArgvLeaves) {
    run x;
    x.env = {{"LLAMA_ARG_CTX_SIZE", "1234"}, {"LLAMA_ARG_MODEL", "env.gguf"}, {"LLAMA_ARG_N_PARALLEL", "3"},
             {"LLAMA_ARG_MMAP", "false"},    {"LLAMA_ARG_JINJA", "off"},      {"LLAMA_API_KEY", "e1,e2"},
             {"LLAMA_ARG_PORT", "7000"}};
    x.parse(tool::TOOL_SERVER, {"--port", "7001"});
    ASSERT_TRUE(x.r.ok) << x.r.error;
    EXPECT_EQ(x.p.n_ctx, 1234);
    EXPECT_EQ(x.p.model, "env.gguf");
    EXPECT_EQ(x.p.n_parallel, 3);
    EXPECT_FALSE(x.p.use_mmap);
    EXPECT_FALSE(x.p.jinja);
    EXPECT_EQ(x.p.api_keys, (std::vector<std::string>{"e1", "e2"}));
    EXPECT_EQ(x.p.port, 7001);  // argv wins

    run y;  // a negated spelling on argv also wins over the variable
    y.env = {{"LLAMA_ARG_MMAP", "1"}};
    y.parse(tool::TOOL_CLI, {"--no-mmap"});
    EXPECT_TRUE(y.r.ok);
    EXPECT_FALSE(y.p.use_mmap);

    run z;  // a bad value in the environment names the variable
    z.env = {{"LLAMA_ARG_CTX_SIZE", "lots"}};
    z.parse(tool::TOOL_CLI, {});
    EXPECT_FALSE(z.r.ok);
    EXPECT_NE(z.r.error.find("LLAMA_ARG_CTX_SIZE"), std::string::npos);

    run v;  // upstream's reranking variable
    v.env = {{"LLAMA_ARG_RERANKING", "1"}, {"LLAMA_ARG_POOLING", "rank"}};
    v.parse(tool::TOOL_SERVER, {});
    ASSERT_TRUE(v.r.ok) << v.r.error;
    EXPECT_TRUE(v.p.embeddings_only);
    EXPECT_EQ(v.p.pooling, LLAMA_POOLING_TYPE_RANK);

    run w;  // a server variable means nothing to llama-cli
    w.env = {{"LLAMA_ARG_PORT", "nonsense"}};
    w.parse(tool::TOOL_CLI, {});
    EXPECT_TRUE(w.r.ok);
}

TEST(ArgTable, RangesAndBadValues) {
    EXPECT_EQ(error_of(tool::TOOL_CLI, {"-c", "8"}),
              "error: invalid value '8' for -c: expected 0 (the model's) or at least 16");
    EXPECT_NE(error_of(tool::TOOL_CLI, {"-n", "0"}).find("-n"), std::string::npos);
    EXPECT_NE(error_of(tool::TOOL_CLI, {"-n", "-2"}).find("[-1, 1048576]"), std::string::npos);
    EXPECT_NE(error_of(tool::TOOL_CLI, {"--top-p", "1.5"}).find("--top-p"), std::string::npos);
    EXPECT_NE(error_of(tool::TOOL_CLI, {"-ngl", "many"}).find("'auto' or 'all'"), std::string::npos);
    EXPECT_NE(error_of(tool::TOOL_CLI, {"-fa", "maybe"}).find("on, off or auto"), std::string::npos);
    EXPECT_NE(error_of(tool::TOOL_CLI, {"-ctk", "q3_k"}).find("-ctk"), std::string::npos);
    EXPECT_NE(error_of(tool::TOOL_CLI, {"-sm", "diagonal"}).find("-sm"), std::string::npos);
    EXPECT_NE(error_of(tool::TOOL_CLI, {"-ts", "1,x"}).find("-ts"), std::string::npos);
    EXPECT_NE(error_of(tool::TOOL_CLI, {"--lora-scaled", "a.gguf"}).find("FNAME:SCALE"), std::string::npos);
    EXPECT_NE(error_of(tool::TOOL_SERVER, {"--port", "65536"}).find("[0, 65535]"), std::string::npos);
    EXPECT_NE(error_of(tool::TOOL_SERVER, {"-np", "0"}).find("-np"), std::string::npos);
    EXPECT_EQ(error_of(tool::TOOL_CLI, {"-m"}), "error: -m needs a value");
}

// The speculative decoding rows: every spelling in llama-cli, upstream's type names, refusals; llama-server
// (which does not speculate) refuses them by name.
TEST(ArgTable, SpeculativeFlags) {
    {
        const tool::params p =
            parsed(tool::TOOL_CLI, {"-md", "d.gguf", "--draft", "4", "--draft-min", "2", "--draft-p-min", "0.5",
                                    "--spec-type", "ngram-simple", "-ngld", "7", "-cd", "256"});
        EXPECT_EQ(p.spec.model, "d.gguf");
        EXPECT_EQ(p.spec.n_max, 4);
        EXPECT_EQ(p.spec.n_min, 2);
        EXPECT_FLOAT_EQ(p.spec.p_min, 0.5f);
        EXPECT_EQ(p.spec.type, "ngram");
        EXPECT_EQ(p.spec.n_gpu_layers, 7);
        EXPECT_EQ(p.spec.n_ctx, 256);
    }
    EXPECT_EQ(parsed(tool::TOOL_CLI, {"--spec-draft-n-max", "9"}).spec.n_max, 9);
    EXPECT_EQ(parsed(tool::TOOL_CLI, {"--draft-n", "3"}).spec.n_max, 3);
    EXPECT_EQ(parsed(tool::TOOL_CLI, {"--spec-type", "draft-simple"}).spec.type, "draft");
    EXPECT_EQ(parsed(tool::TOOL_CLI, {"--spec-type", "none"}).spec.type, "none");
    EXPECT_EQ(parsed(tool::TOOL_CLI, {"--model-draft", "x.gguf", "--gpu-layers-draft", "all"}).spec.n_gpu_layers, -1);
    EXPECT_NE(error_of(tool::TOOL_CLI, {"--spec-type", "draft-eagle3"}).find("draft-eagle3"), std::string::npos);
    EXPECT_NE(error_of(tool::TOOL_CLI, {"--spec-type", "ngram,draft-simple"}).find("one type"), std::string::npos);
    EXPECT_NE(error_of(tool::TOOL_CLI, {"--spec-type", "fast"}).find("unknown type"), std::string::npos);
    EXPECT_NE(error_of(tool::TOOL_CLI, {"--draft-max", "0"}).find("--draft-max"), std::string::npos);
    EXPECT_NE(error_of(tool::TOOL_CLI, {"--draft-max", "65"}).find("--draft-max"), std::string::npos);
    EXPECT_NE(error_of(tool::TOOL_CLI, {"--draft-p-min", "2"}).find("--draft-p-min"), std::string::npos);
    EXPECT_NE(error_of(tool::TOOL_CLI, {"-cd", "8"}).find("-cd"), std::string::npos);
    {
        // the draft model's own placement, cache types and threads (default: the target's)
        const tool::params d = parsed(tool::TOOL_SERVER, {"-devd", "none", "-ctkd", "q8_0", "--cache-type-v-draft",
                                                          "q4_0", "-td", "3", "--threads-batch-draft", "5"});
        EXPECT_EQ(d.spec.devices, std::vector<std::string>{"none"});
        EXPECT_EQ(d.spec.type_k, GGML_TYPE_Q8_0);
        EXPECT_EQ(d.spec.type_v, GGML_TYPE_Q4_0);
        EXPECT_EQ(d.spec.n_threads, 3);
        EXPECT_EQ(d.spec.n_threads_batch, 5);
        const tool::params plain = parsed(tool::TOOL_CLI, {});
        EXPECT_TRUE(plain.spec.devices.empty());
        EXPECT_EQ(plain.spec.type_k, GGML_TYPE_COUNT);
        EXPECT_EQ(plain.spec.n_threads, 0);
        EXPECT_NE(error_of(tool::TOOL_CLI, {"-ctkd", "q2_k"}).find("-ctkd"), std::string::npos);
        EXPECT_NE(error_of(tool::TOOL_CLI, {"-devd", ","}).find("-devd"), std::string::npos);
    }
    run e;
    e.env["LLAMA_ARG_DRAFT_MAX"] = "5";
    e.env["LLAMA_ARG_SPEC_TYPE"] = "ngram";
    e.parse(tool::TOOL_CLI, {});
    EXPECT_TRUE(e.r.ok) << e.r.error;
    EXPECT_EQ(e.p.spec.n_max, 5);
    EXPECT_EQ(e.p.spec.type, "ngram");
    // llama-server takes the same rows (its slots speculate, docs/server.md)
    EXPECT_EQ(parsed(tool::TOOL_SERVER, {"-md", "d.gguf", "--draft-max", "4"}).spec.model, "d.gguf");
    EXPECT_EQ(parsed(tool::TOOL_SERVER, {"--spec-type", "ngram"}).spec.type, "ngram");
    EXPECT_EQ(parsed(tool::TOOL_SERVER, {"-cd", "512", "-ngld", "0"}).spec.n_ctx, 512);
    EXPECT_NE(error_of(tool::TOOL_SERVER, {"--draft-max", "65"}).find("--draft-max"), std::string::npos);
}

TEST(ArgTable, UnknownOtherToolAndUnsupported) {
    EXPECT_EQ(error_of(tool::TOOL_SERVER, {"--mmproj", "x"}),
              "--mmproj is a llama.cpp option this build does not support");
    EXPECT_EQ(error_of(tool::TOOL_CLI, {"-hf", "x"}), "-hf is a llama.cpp option this build does not support");
    EXPECT_EQ(error_of(tool::TOOL_CLI, {"--port", "1"}), "error: --port is a llama-server option");
    EXPECT_EQ(error_of(tool::TOOL_SERVER, {"-sys", "x"}), "error: -sys is a llama-cli option");
    EXPECT_EQ(error_of(tool::TOOL_CLI, {"--no-such-flag"}), "error: unknown argument: --no-such-flag");
    EXPECT_EQ(error_of(tool::TOOL_CLI, {"stray"}), "error: unexpected argument: stray");
    run h;
    h.parse(tool::TOOL_CLI, {"-c", "64", "--help"});
    EXPECT_TRUE(h.r.help);
}

// Every spelling in the table is unique, and every llama.cpp spelling the table uses means the
// same option upstream (the table's names are a subset of upstream's, except libllama's own and -cd,
// which llama.cpp had before 4df29be4).
TEST(ArgTable, SpellingsUniqueAndUpstreams) {
    const std::set<std::string> ours_only = {
        "--raw",   "--json",          "--max-body",          "--max-tokens",       "--queue-limit",
        "--grace", "--http-threads",  "--models-memory-max", "--prompt-cache-dir", "--prompt-cache-max-mib",
        "-cd",     "--ctx-size-draft"};
    std::set<std::string> seen;
    const auto &          up = tool::upstream_names();
    EXPECT_TRUE(std::is_sorted(up.begin(), up.end()));
    for (const tool::option & o : tool::options()) {
        std::vector<std::string> all = o.names;
        all.insert(all.end(), o.negations.begin(), o.negations.end());
        for (const std::string & n : all) {
            EXPECT_TRUE(seen.insert(n).second) << n << " appears twice";
            if (!ours_only.count(n)) {
                EXPECT_TRUE(std::binary_search(up.begin(), up.end(), n)) << n << " is not a llama.cpp spelling";
            }
        }
        EXPECT_TRUE(o.tools != 0 && !o.help.empty()) << o.names[0];
        EXPECT_TRUE(o.env.empty() || o.env.compare(0, 6, "LLAMA_") == 0) << o.env;
    }
}

TEST(ArgTable, HelpListsEachToolsOptions) {
    FILE * f = tmpfile();
    ASSERT_NE(f, nullptr);
    tool::print_options(tool::TOOL_SERVER, f);
    std::string text(4096 * 4, '\0');
    rewind(f);
    text.resize(fread(&text[0], 1, text.size(), f));
    fclose(f);
    EXPECT_NE(text.find("--api-key-file FNAME"), std::string::npos);
    EXPECT_NE(text.find("(env: LLAMA_ARG_CTX_SIZE)"), std::string::npos);
    EXPECT_EQ(text.find("--system-prompt"), std::string::npos);  // llama-cli's
}
