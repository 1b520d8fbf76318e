// The tokenizer.ggml.pre names upstream llama.cpp accepts (commit 4df29be4, llama_vocab::load), each
// mapped to the rule set its pre-tokenizer type uses there. Names whose upstream types share one
// expression list share a rule set here. An unknown name is refused by the caller, named in the error.
#include "llama-vocab-pretok.h"

namespace {

struct pretok_alias {
    const char *      name;
    llama_pretok_type type;
};

const pretok_alias pretok_aliases[] = {
    {"default", llama_pretok_type::DEFAULT},
    {"gpt-2", llama_pretok_type::GPT2},
    {"phi-2", llama_pretok_type::GPT2},
    {"mpt", llama_pretok_type::GPT2},
    {"olmo", llama_pretok_type::GPT2},
    {"jais", llama_pretok_type::GPT2},
    {"jina-es", llama_pretok_type::GPT2},
    {"jina-de", llama_pretok_type::GPT2},
    {"jina-v1-en", llama_pretok_type::GPT2},
    {"jina-v2-es", llama_pretok_type::GPT2},
    {"jina-v2-de", llama_pretok_type::GPT2},
    {"jina-v2-code", llama_pretok_type::GPT2},
    {"gigachat", llama_pretok_type::GPT2},
    {"roberta-bpe", llama_pretok_type::GPT2},
    {"trillion", llama_pretok_type::GPT2},
    {"granite-docling", llama_pretok_type::GPT2},
    {"a.x-4.0", llama_pretok_type::GPT2},
    {"mellum", llama_pretok_type::GPT2},
    {"modern-bert", llama_pretok_type::GPT2},
    {"exaone4", llama_pretok_type::GPT2},
    {"llama-bpe", llama_pretok_type::LLAMA3},
    {"llama3", llama_pretok_type::LLAMA3},
    {"llama-v3", llama_pretok_type::LLAMA3},
    {"falcon3", llama_pretok_type::LLAMA3},
    {"falcon-h1", llama_pretok_type::LLAMA3},
    {"pixtral", llama_pretok_type::LLAMA3},
    {"midm-2.0", llama_pretok_type::LLAMA3},
    {"lfm2", llama_pretok_type::LLAMA3},
    {"jina-v5-nano", llama_pretok_type::LLAMA3},
    {"dbrx", llama_pretok_type::LLAMA3},
    {"smaug-bpe", llama_pretok_type::LLAMA3},
    {"qwen2", llama_pretok_type::QWEN2},
    {"deepseek-r1-qwen", llama_pretok_type::QWEN2},
    {"kormo", llama_pretok_type::QWEN2},
    {"f2llmv2", llama_pretok_type::QWEN2},
    {"megrez", llama_pretok_type::QWEN2},
    {"stablelm2", llama_pretok_type::QWEN2},
    {"hunyuan", llama_pretok_type::QWEN2},
    {"solar-open", llama_pretok_type::QWEN2},
    {"grok-2", llama_pretok_type::QWEN2},
    {"deepseek-llm", llama_pretok_type::DEEPSEEK_LLM},
    {"deepseek-coder", llama_pretok_type::DEEPSEEK_CODER},
    {"falcon", llama_pretok_type::FALCON},
    {"starcoder", llama_pretok_type::STARCODER},
    {"refact", llama_pretok_type::STARCODER},
    {"command-r", llama_pretok_type::STARCODER},
    {"smollm", llama_pretok_type::STARCODER},
    {"codeshell", llama_pretok_type::STARCODER},
    {"exaone", llama_pretok_type::STARCODER},
    {"minerva-7b", llama_pretok_type::STARCODER},
    {"mellum2", llama_pretok_type::STARCODER},
    {"chatglm-bpe", llama_pretok_type::CHATGLM4},
    {"glm4", llama_pretok_type::CHATGLM4},
    {"jais-2", llama_pretok_type::JAIS2},
    {"deepseek-v3", llama_pretok_type::DEEPSEEK3},
    {"hunyuan-dense", llama_pretok_type::DEEPSEEK3},
    {"joyai-llm", llama_pretok_type::DEEPSEEK3},
    {"youtu", llama_pretok_type::YOUTU},
    {"qwen35", llama_pretok_type::QWEN35},
    {"bloom", llama_pretok_type::BLOOM},
    {"poro-chat", llama_pretok_type::BLOOM},
    {"gpt3-finnish", llama_pretok_type::BLOOM},
    {"viking", llama_pretok_type::VIKING},
    {"tekken", llama_pretok_type::TEKKEN},
    {"chameleon", llama_pretok_type::CHAMELEON},
    {"gpt-4o", llama_pretok_type::GPT4O},
    {"llama4", llama_pretok_type::GPT4O},
    {"kanana2", llama_pretok_type::GPT4O},
    {"talkie", llama_pretok_type::GPT4O},
    {"minimax-m2", llama_pretok_type::GPT4O},
    {"granite-embed-multi-97m", llama_pretok_type::GRANITE_EMB_MULTI},
    {"tiny_aya", llama_pretok_type::TINY_AYA},
    {"cohere2moe", llama_pretok_type::TINY_AYA},
    {"kimi-k2", llama_pretok_type::KIMI_K2},
    {"superbpe", llama_pretok_type::SUPERBPE},
    {"bailingmoe", llama_pretok_type::BAILINGMOE},
    {"bailingmoe2", llama_pretok_type::BAILINGMOE},
    {"llada-moe", llama_pretok_type::BAILINGMOE},
    {"seed-coder", llama_pretok_type::SEED_CODER},
    {"afmoe", llama_pretok_type::AFMOE},
    {"laguna", llama_pretok_type::LAGUNA},
    {"exaone-moe", llama_pretok_type::EXAONE_MOE},
    {"gemma4", llama_pretok_type::NEWLINES},
    {"granite-embed-multi-311m", llama_pretok_type::NEWLINES},
    {"sarvam-moe", llama_pretok_type::NEWLINES},
    {"minicpm5", llama_pretok_type::MINICPM5},
    {"whitespace", llama_pretok_type::WHITESPACE},
};

}  // namespace

bool llama_pretok_from_name(const std::string & name, llama_pretok_type & type) {
    for (const auto & a : pretok_aliases) {
        if (name == a.name) {
            type = a.type;
            return true;
        }
    }
    return false;
}

std::vector<std::string> llama_pretok_names() {
    std::vector<std::string> v;
    for (const auto & a : pretok_aliases) {
        v.emplace_back(a.name);
    }
    return v;
}
