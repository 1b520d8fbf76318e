// The option table llama-cli and llama-server share: one row per option (every spelling, its
// LLAMA_ARG_* environment variable, value kind and range, help text, the tools that take it, and a
// setter into tool::params). Both tools parse argv and the environment with it (argv wins) and
// print --help from it. Spellings, aliases and environment names are llama.cpp's (common/arg.cpp);
// a llama.cpp option this build does not implement is refused with one line naming it.
//
//   tool::params p;
//   p.n_predict = 512;                                  // a tool's own defaults first
//   tool::parse_or_exit(tool::TOOL_CLI, "llama-cli", argc, argv, p, intro);
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "llama.h"

namespace tool {

// Which tools take an option (a bit mask).
enum tool_id : unsigned {
    TOOL_CLI    = 1u,
    TOOL_SERVER = 2u,
};
constexpr unsigned TOOL_BOTH = TOOL_CLI | TOOL_SERVER;

// The sampler flags (defaults as llama.cpp's).
struct sampling_params {
    float                    temp                  = 0.8f;  // <= 0: greedy
    int32_t                  top_k                 = 40;
    float                    top_p                 = 0.95f;
    float                    min_p                 = 0.05f;
    float                    typical_p             = 1.0f;
    float                    dynatemp_range        = 0.0f;
    float                    dynatemp_exp          = 1.0f;
    int32_t                  repeat_last_n         = 64;
    float                    repeat_penalty        = 1.0f;
    float                    presence_penalty      = 0.0f;
    float                    frequency_penalty     = 0.0f;
    float                    top_n_sigma           = -1.0f;  // <= 0: off
    float                    xtc_probability       = 0.0f;   // 0: off
    float                    xtc_threshold         = 0.1f;
    int32_t                  mirostat              = 0;  // 1 or 2: replaces top-k/p, min-p, typical, xtc, top-n-sigma
    float                    mirostat_tau          = 5.0f;
    float                    mirostat_eta          = 0.1f;
    float                    dry_multiplier        = 0.0f;  // 0: off
    float                    dry_base              = 1.75f;
    int32_t                  dry_allowed_length    = 2;
    int32_t                  dry_penalty_last_n    = -1;  // -1: the context size
    std::vector<std::string> dry_sequence_breakers = {"\n", ":", "\"", "*"};
    uint32_t                 seed                  = LLAMA_DEFAULT_SEED;
};

// Speculative decoding (llama-speculative.h; docs/speculative.md): a draft model or n-gram drafting.
struct spec_params {
    std::string model;              // -md: the draft model
    std::string type;               // --spec-type: "none", "draft", "ngram" or "mtp"; empty: draft with -md, else none
    int32_t     n_max        = 16;  // --draft-max
    int32_t     n_min        = 0;   // --draft-min
    float       p_min        = 0.75f;  // --draft-p-min
    int32_t     n_gpu_layers = -1;     // -ngld: -1 every layer that fits a GPU
    int32_t     n_ctx        = 0;      // -cd: 0 = the target's context size
    // the draft model's placement and context; empty / GGML_TYPE_COUNT / 0: as the target's
    std::vector<std::string> devices;                            // -devd (as -dev)
    ggml_type                type_k          = GGML_TYPE_COUNT;  // -ctkd
    ggml_type                type_v          = GGML_TYPE_COUNT;  // -ctvd
    int32_t                  n_threads       = 0;                // -td
    int32_t                  n_threads_batch = 0;                // -tbd
};

struct lora_arg {
    std::string path;
    float       scale = 1.0f;
};

// Everything either tool can be told. Defaults are the tools' unless a comment says otherwise.
struct params {
    // model (llama_model_params)
    std::string              model;
    int32_t                  n_gpu_layers = -1;  // -1: every layer that fits a GPU ("auto", "all")
    llama_split_mode         split_mode   = LLAMA_SPLIT_MODE_LAYER;
    int32_t                  main_gpu     = 0;
    std::vector<float>       tensor_split;  // empty: by free memory
    std::vector<std::string> devices;       // empty: every GPU; {"none"}: CPU only
    bool                     use_mmap     = true;
    bool                     use_mlock    = false;
    bool                     list_devices = false;  // --list-devices: print them and exit
    std::vector<lora_arg>    lora;                  // applied to the context for the whole run

    // context (llama_context_params)
    int32_t               n_ctx           = 4096;  // 0: the model's training context
    int32_t               n_batch         = 512;
    int32_t               n_ubatch        = 512;
    int32_t               n_threads       = -1;  // -1: the machine's physical cores
    int32_t               n_threads_batch = -1;  // -1: n_threads
    llama_flash_attn_type flash_attn      = LLAMA_FLASH_ATTN_TYPE_AUTO;
    ggml_type             type_k          = GGML_TYPE_F16;
    ggml_type             type_v          = GGML_TYPE_F16;

    // generation and chat
    int32_t         n_predict = 512;  // -1: until end of generation
    sampling_params sampling;
    bool            custom_breakers = false;  // a --dry-sequence-breaker was given: the defaults are gone
    std::string     grammar;                  // GBNF text (--grammar, --grammar-file)
    std::string     json_schema;              // schema text (-j, -jf); converted by the tool
    int             n_constraints = 0;        // how many of the four constraint flags were given
    std::string     chat_template;            // name or Jinja source (--chat-template-file: the file's text)
    bool            jinja = true;
    std::string     system_prompt;
    std::string     prompt;
    bool            prompt_given = false;  // -p or -f
    bool            conversation = true;   // -no-cnv: plain completion of the prompt
    std::string     prompt_cache;
    spec_params     spec;
    bool            prompt_cache_all = false;  // also save the generated tokens
    bool            prompt_cache_ro  = false;  // use the file, never write it
    bool            json             = false;
    bool            verbose          = false;

    // server
    std::string              host       = "127.0.0.1";
    int                      port       = 8080;
    int32_t                  n_parallel = -1;  // -1: auto (4 slots sharing one unified cache)
    int                      kv_unified = -1;  // -1: auto (on when n_parallel is auto), 0 off, 1 on
    std::vector<std::string> api_keys;
    std::string              ssl_key_file, ssl_cert_file;
    std::string              cors_origins     = "*";
    std::string              cors_methods     = "GET, POST, DELETE, OPTIONS";
    std::string              cors_headers     = "*";
    bool                     cors_credentials = true;
    int64_t                  max_body         = 1 << 20;
    int32_t                  max_tokens       = 4096;
    int32_t                  timeout_s        = 600;
    int32_t                  queue_limit      = 64;
    int32_t                  http_threads     = 64;
    int32_t                  grace_s          = 30;
    std::string              alias;
    bool                     embeddings_only = false;                           // --embeddings
    enum llama_pooling_type  pooling         = LLAMA_POOLING_TYPE_UNSPECIFIED;  // the model's, else mean
    bool                     webui           = true;                            // the chat page at /
    std::string              slot_save_path;                   // POST /slots/{id}?action=save|restore; empty: off
    bool                     lora_init_without_apply = false;  // --lora adapters start at global scale 0
    std::string              prompt_cache_dir;                 // slots' caches kept on disk; empty: off
    int64_t                  prompt_cache_max_mib = 4096;      // cap on that folder's prompt-cache files
    // router mode (no -m): several models, one instance process each (tools/server/server-router.h)
    std::string models_dir, models_preset;
    int32_t     models_max = 4;     // 0: no limit
    std::string models_memory_max;  // a size ("8G"); empty: no limit
    bool        models_autoload    = true;
    int32_t     sleep_idle_seconds = -1;  // -1: never
};

enum class value_kind { flag, integer, number, text };

// One parsed value handed to a setter: `b` for flags (false for a negated spelling), `i` for
// integers, `f` for numbers, `text` always (what was written).
struct arg_value {
    std::string text;
    int64_t     i = 0;
    double      f = 0;
    bool        b = true;
};

struct option {
    std::vector<std::string> names;       // every spelling; the first short, as upstream lists them
    std::vector<std::string> negations;   // flags only: spellings that set false (--no-mmap)
    std::string              value_name;  // "N", "FNAME"; empty for flags
    std::string              env;         // LLAMA_ARG_*; empty: none
    unsigned                 tools;       // TOOL_* mask
    value_kind               kind;
    double                   lo, hi;  // integer and number: the accepted range
    std::string              help;
    // Stores the value; throws std::invalid_argument with the reason for a value it refuses.
    std::function<void(params &, const arg_value &)> set;
};

// The whole table (built once).
const std::vector<option> & options();

// Every spelling llama.cpp knows (sorted).
const std::vector<std::string> & upstream_names();

// Looks up the environment (getenv in the tools; a map in the tests).
using env_lookup = std::function<const char *(const char *)>;

struct parse_result {
    bool        ok   = true;
    bool        help = false;  // -h / --help was given
    std::string error;         // when !ok: one line, without the program name
};

// Parses argv[1..argc) into p for `tool`, then the environment variables of options argv did not
// give. Nothing is printed. Unknown flags, other-tool flags, unsupported llama.cpp flags, missing or
// invalid values are errors naming the flag.
parse_result parse_args(tool_id tool, int argc, char ** argv, params & p, const env_lookup & env);

// Writes the options of `tool` (names, value, help, environment variable) to out.
void print_options(tool_id tool, FILE * out);

// The tools' entry point: parse_args with getenv on the UTF-8 command line (console_init); --help
// prints `usage` (its text, then the options) and exits 0; an error prints "PROG: LINE" (plus a hint
// to --help for usage errors) and exits 1.
void parse_or_exit(tool_id tool, const char * prog, int argc, char ** argv, params & p, const char * usage);

// The machine's physical cores (hardware threads when that cannot be told), at least 1.
int physical_cores();

// Value helpers of the row files: items of s separated by any of seps, empty ones dropped
// (upstream's parse_csv_row without quoting); a KV cache type name as -ctk takes (throws
// std::invalid_argument naming the choices).
std::vector<std::string> split(const std::string & s, const char * seps);
ggml_type                cache_type(const std::string & s);

}  // namespace tool
