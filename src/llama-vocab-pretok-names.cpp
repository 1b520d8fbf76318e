// The tokenizer.ggml.pre names upstream llama.cpp accepts (commit 4df29be4, llama_vocab::load), each
// mapped to the rule set its pre-tokenizer type uses there (names whose upstream types share one
// expression list share a rule set here) and to the vocab defaults upstream sets for that name before
// the GGUF's own keys (tokenizer.ggml.add_bos_token) override them. An unknown name is refused by the
// caller, named in the error.
#include "llama-vocab-pretok.h"

namespace {

// IM: ignore_merges (a piece that is a whole token is not merged); BOS: add_bos
constexpr bool IM  = true;
constexpr bool BOS = true;

struct pretok_alias {
    const char *      name;
    llama_pretok_type type;
    bool              ignore_merges;
    bool              add_bos;
};

const pretok_alias pretok_aliases[] = {
    {"default", llama_pretok_type::DEFAULT, false, false},
    {"gpt-2", llama_pretok_type::GPT2, false, false},
    {"phi-2", llama_pretok_type::GPT2, false, false},
    {"mpt", llama_pretok_type::GPT2, false, false},
    {"olmo", llama_pretok_type::GPT2, false, false},
    {"jais", llama_pretok_type::GPT2, false, false},
    {"jina-es", llama_pretok_type::GPT2, false, false},
    {"jina-de", llama_pretok_type::GPT2, false, false},
    {"jina-v1-en", llama_pretok_type::GPT2, false, false},
    {"jina-v2-es", llama_pretok_type::GPT2, false, false},
    {"jina-v2-de", llama_pretok_type::GPT2, false, false},
    {"jina-v2-code", llama_pretok_type::GPT2, false, false},
    {"gigachat", llama_pretok_type::GPT2, false, false},
    {"roberta-bpe", llama_pretok_type::GPT2, false, false},
    {"trillion", llama_pretok_type::GPT2, false, false},
    {"granite-docling", llama_pretok_type::GPT2, false, false},
    {"a.x-4.0", llama_pretok_type::GPT2, false, false},
    {"mellum", llama_pretok_type::GPT2, false, false},
    {"modern-bert", llama_pretok_type::GPT2, false, false},
    {"exaone4", llama_pretok_type::GPT2, false, false},
    {"llama-bpe", llama_pretok_type::LLAMA3, IM, BOS},
    {"llama3", llama_pretok_type::LLAMA3, IM, BOS},
    {"llama-v3", llama_pretok_type::LLAMA3, IM, BOS},
    {"falcon3", llama_pretok_type::LLAMA3, IM, BOS},
    {"falcon-h1", llama_pretok_type::LLAMA3, IM, BOS},
    {"pixtral", llama_pretok_type::LLAMA3, IM, BOS},
    {"midm-2.0", llama_pretok_type::LLAMA3, IM, BOS},
    {"lfm2", llama_pretok_type::LLAMA3, IM, BOS},
    {"jina-v5-nano", llama_pretok_type::LLAMA3, IM, BOS},
    {"dbrx", llama_pretok_type::LLAMA3, false, false},
    {"smaug-bpe", llama_pretok_type::LLAMA3, false, false},
    {"qwen2", llama_pretok_type::QWEN2, false, false},
    {"deepseek-r1-qwen", llama_pretok_type::QWEN2, false, false},
    {"kormo", llama_pretok_type::QWEN2, false, false},
    {"f2llmv2", llama_pretok_type::QWEN2, false, false},
    {"megrez", llama_pretok_type::QWEN2, false, false},
    {"stablelm2", llama_pretok_type::QWEN2, false, false},
    {"hunyuan", llama_pretok_type::QWEN2, false, false},
    {"solar-open", llama_pretok_type::QWEN2, false, false},
    {"grok-2", llama_pretok_type::QWEN2, false, false},
    {"deepseek-llm", llama_pretok_type::DEEPSEEK_LLM, false, false},
    {"deepseek-coder", llama_pretok_type::DEEPSEEK_CODER, false, false},
    {"falcon", llama_pretok_type::FALCON, false, false},
    {"starcoder", llama_pretok_type::STARCODER, false, false},
    {"refact", llama_pretok_type::STARCODER, false, false},
    {"command-r", llama_pretok_type::STARCODER, false, false},
    {"smollm", llama_pretok_type::STARCODER, false, false},
    {"codeshell", llama_pretok_type::STARCODER, false, false},
    {"exaone", llama_pretok_type::STARCODER, false, false},
    {"minerva-7b", llama_pretok_type::STARCODER, false, false},
    {"mellum2", llama_pretok_type::STARCODER, false, false},
    {"chatglm-bpe", llama_pretok_type::LLAMA3, false, false},
    {"glm4", llama_pretok_type::LLAMA3, false, false},
    {"jais-2", llama_pretok_type::JAIS2, false, false},
    {"deepseek-v3", llama_pretok_type::DEEPSEEK3, false, false},
    {"hunyuan-dense", llama_pretok_type::DEEPSEEK3, false, false},
    {"joyai-llm", llama_pretok_type::DEEPSEEK3, false, false},
    {"youtu", llama_pretok_type::YOUTU, IM, false},
    {"qwen35", llama_pretok_type::QWEN35, false, false},
    {"bloom", llama_pretok_type::BLOOM, false, false},
    {"poro-chat", llama_pretok_type::BLOOM, false, false},
    {"gpt3-finnish", llama_pretok_type::BLOOM, false, false},
    {"viking", llama_pretok_type::VIKING, false, false},
    {"tekken", llama_pretok_type::TEKKEN, IM, BOS},
    {"chameleon", llama_pretok_type::CHAMELEON, false, BOS},
    {"gpt-4o", llama_pretok_type::GPT4O, false, false},
    {"llama4", llama_pretok_type::GPT4O, false, false},
    {"kanana2", llama_pretok_type::GPT4O, false, false},
    {"talkie", llama_pretok_type::GPT4O, false, false},
    {"minimax-m2", llama_pretok_type::GPT4O, false, false},
    {"granite-embed-multi-97m", llama_pretok_type::GRANITE_EMB_MULTI, IM, false},
    {"tiny_aya", llama_pretok_type::TINY_AYA, false, false},
    {"cohere2moe", llama_pretok_type::TINY_AYA, false, false},
    {"kimi-k2", llama_pretok_type::KIMI_K2, false, false},
    {"superbpe", llama_pretok_type::SUPERBPE, false, false},
    {"bailingmoe", llama_pretok_type::BAILINGMOE, false, false},
    {"bailingmoe2", llama_pretok_type::BAILINGMOE, false, false},
    {"llada-moe", llama_pretok_type::BAILINGMOE, false, false},
    {"seed-coder", llama_pretok_type::SEED_CODER, false, false},
    {"afmoe", llama_pretok_type::AFMOE, false, false},
    {"laguna", llama_pretok_type::LAGUNA, false, false},
    {"exaone-moe", llama_pretok_type::EXAONE_MOE, false, false},
    {"gemma4", llama_pretok_type::NEWLINES, false, false},
    {"granite-embed-multi-311m", llama_pretok_type::NEWLINES, false, false},
    {"sarvam-moe", llama_pretok_type::NEWLINES, false, false},
    {"minicpm5", llama_pretok_type::MINICPM5, IM, false},
    {"whitespace", llama_pretok_type::WHITESPACE, false, false},
};

// The raw-UTF-8 names whose upstream vocab escapes spaces as U+2581 (escape_whitespaces = true);
// gemma4: upstream gives them its GEMMA4 type (granite-embed-multi-311m shares it, sarvam-moe has a
// type of its own with the same expression). "whitespace" escapes nothing.
struct pretok_escape {
    const char * name;
    bool         gemma4;
};

const pretok_escape pretok_escapes[] = {
    {"gemma4", true},
    {"granite-embed-multi-311m", true},
    {"sarvam-moe", false},
};

// The names whose upstream vocab keeps the spaces before punctuation when detokenizing
// (clean_spaces = false); every other BPE name cleans them (upstream's default for BPE vocabs).
const char * const pretok_keep_spaces[] = {
    "deepseek-llm", "deepseek-coder",   "deepseek-v3",
    "youtu",        "sarvam-moe",       "command-r",
    "qwen2",        "deepseek-r1-qwen", "kormo",
    "f2llmv2",      "qwen35",           "poro-chat",
    "viking",       "tekken",           "smollm",
    "chameleon",    "gpt-4o",           "llama4",
    "kanana2",      "talkie",           "granite-embed-multi-97m",
    "tiny_aya",     "cohere2moe",       "superbpe",
    "trillion",     "granite-docling",  "bailingmoe",
    "bailingmoe2",  "llada-moe",        "seed-coder",
    "hunyuan",      "hunyuan-dense",    "joyai-llm",
    "kimi-k2",      "grok-2",           "afmoe",
    "laguna",       "minimax-m2",       "solar-open",
};

}  // namespace

bool llama_pretok_from_name(const std::string & name, llama_pretok_info & info) {
    for (const auto & a : pretok_aliases) {
        if (name == a.name) {
            info               = llama_pretok_info{};
            info.type          = a.type;
            info.ignore_merges = a.ignore_merges;
            info.add_bos       = a.add_bos;
            info.clean_spaces  = true;
            for (const char * k : pretok_keep_spaces) {
                if (name == k) {
                    info.clean_spaces = false;
                }
            }
            for (const auto & e : pretok_escapes) {
                if (name == e.name) {
                    info.escape_ws = true;
                    info.gemma4    = e.gemma4;
                }
            }
            return true;
        }
    }
    return false;
}

bool llama_pretok_from_name(const std::string & name, llama_pretok_type & type) {
    llama_pretok_info info;
    if (!llama_pretok_from_name(name, info)) {
        return false;
    }
    type = info.type;
    return true;
}

std::vector<std::string> llama_pretok_names() {
    std::vector<std::string> v;
    for (const auto & a : pretok_aliases) {
        v.emplace_back(a.name);
    }
    return v;
}
