// Every tokenizer.ggml.pre name upstream llama.cpp accepts (commit 4df29be4, llama_vocab::load) loads,
// with the rule set of its upstream pre-tokenizer type; an unknown name is refused and named.
#include "llama-vocab-pretok.h"
#include "llama-vocab.h"

#include <gtest/gtest.h>

#include <set>

namespace {

struct expected_name {
    const char * name;
    const char * rule_set;  // llama_pretok_name of the type it maps to
};

// upstream's names, grouped by the expression list their type uses there
const expected_name upstream_names[] = {
    {"default", "default"},
    {"gpt-2", "gpt-2"},
    {"phi-2", "gpt-2"},
    {"mpt", "gpt-2"},
    {"olmo", "gpt-2"},
    {"jais", "gpt-2"},
    {"jina-es", "gpt-2"},
    {"jina-de", "gpt-2"},
    {"jina-v1-en", "gpt-2"},
    {"jina-v2-es", "gpt-2"},
    {"jina-v2-de", "gpt-2"},
    {"jina-v2-code", "gpt-2"},
    {"gigachat", "gpt-2"},
    {"roberta-bpe", "gpt-2"},
    {"trillion", "gpt-2"},
    {"granite-docling", "gpt-2"},
    {"a.x-4.0", "gpt-2"},
    {"mellum", "gpt-2"},
    {"modern-bert", "gpt-2"},
    {"exaone4", "gpt-2"},
    {"llama-bpe", "llama-bpe"},
    {"llama3", "llama-bpe"},
    {"llama-v3", "llama-bpe"},
    {"falcon3", "llama-bpe"},
    {"falcon-h1", "llama-bpe"},
    {"pixtral", "llama-bpe"},
    {"midm-2.0", "llama-bpe"},
    {"lfm2", "llama-bpe"},
    {"jina-v5-nano", "llama-bpe"},
    {"dbrx", "llama-bpe"},
    {"smaug-bpe", "llama-bpe"},
    {"qwen2", "qwen2"},
    {"deepseek-r1-qwen", "qwen2"},
    {"kormo", "qwen2"},
    {"f2llmv2", "qwen2"},
    {"megrez", "qwen2"},
    {"stablelm2", "qwen2"},
    {"hunyuan", "qwen2"},
    {"solar-open", "qwen2"},
    {"grok-2", "qwen2"},
    {"deepseek-llm", "deepseek-llm"},
    {"deepseek-coder", "deepseek-coder"},
    {"falcon", "falcon"},
    {"starcoder", "starcoder"},
    {"refact", "starcoder"},
    {"command-r", "starcoder"},
    {"smollm", "starcoder"},
    {"codeshell", "starcoder"},
    {"exaone", "starcoder"},
    {"minerva-7b", "starcoder"},
    {"mellum2", "starcoder"},
    {"chatglm-bpe", "llama-bpe"},
    {"glm4", "llama-bpe"},
    {"jais-2", "jais-2"},
    {"deepseek-v3", "deepseek-v3"},
    {"hunyuan-dense", "deepseek-v3"},
    {"joyai-llm", "deepseek-v3"},
    {"youtu", "youtu"},
    {"qwen35", "qwen35"},
    {"bloom", "bloom"},
    {"poro-chat", "bloom"},
    {"gpt3-finnish", "bloom"},
    {"viking", "viking"},
    {"tekken", "tekken"},
    {"chameleon", "chameleon"},
    {"gpt-4o", "gpt-4o"},
    {"llama4", "gpt-4o"},
    {"kanana2", "gpt-4o"},
    {"talkie", "gpt-4o"},
    {"minimax-m2", "gpt-4o"},
    {"granite-embed-multi-97m", "granite-embed-multi-97m"},
    {"tiny_aya", "tiny_aya"},
    {"cohere2moe", "tiny_aya"},
    {"kimi-k2", "kimi-k2"},
    {"superbpe", "superbpe"},
    {"bailingmoe", "bailingmoe"},
    {"bailingmoe2", "bailingmoe"},
    {"llada-moe", "bailingmoe"},
    {"seed-coder", "seed-coder"},
    {"afmoe", "afmoe"},
    {"laguna", "laguna"},
    {"exaone-moe", "exaone-moe"},
    {"gemma4", "gemma4"},
    {"granite-embed-multi-311m", "gemma4"},
    {"sarvam-moe", "gemma4"},
    {"minicpm5", "minicpm5"},
    {"whitespace", "whitespace"},
};

}  // namespace

TEST(PretokNames, EveryUpstreamNameMapsToItsRuleSet) {
    static_assert(sizeof(upstream_names) / sizeof(upstream_names[0]) == 87, "upstream 4df29be4 has 87 names");
    std::set<std::string> seen;
    for (const auto & e : upstream_names) {
        EXPECT_TRUE(seen.insert(e.name).second) << "listed twice: " << e.name;
        llama_pretok_type t;
        ASSERT_TRUE(llama_pretok_from_name(e.name, t)) << e.name;
        EXPECT_STREQ(llama_pretok_name(t), e.rule_set) << e.name;
    }
    // and the library accepts nothing else
    const auto names = llama_pretok_names();
    EXPECT_EQ(names.size(), seen.size());
    for (const auto & n : names) {
        EXPECT_TRUE(seen.count(n)) << "not an upstream name: " << n;
    }
}

// the names upstream gives vocab defaults of their own (ignore_merges, add_bos, escaped spaces, the
// gemma4 rules); all others have none
TEST(PretokNames, PerNameVocabDefaults) {
    const std::set<std::string> ignore_merges = {"llama3",
                                                 "llama-v3",
                                                 "llama-bpe",
                                                 "falcon3",
                                                 "falcon-h1",
                                                 "pixtral",
                                                 "midm-2.0",
                                                 "lfm2",
                                                 "jina-v5-nano",
                                                 "minicpm5",
                                                 "youtu",
                                                 "tekken",
                                                 "granite-embed-multi-97m"};
    const std::set<std::string> add_bos = {"llama3",   "llama-v3", "llama-bpe",    "falcon3", "falcon-h1", "pixtral",
                                           "midm-2.0", "lfm2",     "jina-v5-nano", "tekken",  "chameleon"};
    for (const auto & e : upstream_names) {
        llama_pretok_info info;
        ASSERT_TRUE(llama_pretok_from_name(e.name, info)) << e.name;
        EXPECT_EQ(info.ignore_merges, ignore_merges.count(e.name) == 1) << e.name;
        EXPECT_EQ(info.add_bos, add_bos.count(e.name) == 1) << e.name;
        // raw-UTF-8 BPE escaping spaces as U+2581, and upstream's GEMMA4 type among those
        const bool escape = e.name == std::string("gemma4") || e.name == std::string("sarvam-moe") ||
                            e.name == std::string("granite-embed-multi-311m");
        EXPECT_EQ(info.escape_ws, escape) << e.name;
        EXPECT_EQ(info.gemma4, escape && e.name != std::string("sarvam-moe")) << e.name;
    }
}

// Every name loads, the raw-UTF-8 ones (gemma4, sarvam-moe, granite-embed-multi-311m, whitespace)
// included; their tokenizing is tested in test-tokenizer-raw-bpe.
TEST(PretokNames, EveryNameLoadsAsAVocab) {
    for (const auto & e : upstream_names) {
        llama_vocab_data d;
        d.model  = "gpt2";
        d.pre    = e.name;
        d.tokens = {"a", "b", "ab"};
        d.merges = {"a b"};
        llama_vocab v;
        EXPECT_NO_THROW(v.load(d)) << e.name;
        EXPECT_EQ(v.pre_name(), e.name);
        llama_pretok_info info;
        ASSERT_TRUE(llama_pretok_from_name(e.name, info));
        // no add_bos_token key in this vocab; the gemma4 type always adds one
        EXPECT_EQ(v.get_add_bos(), info.add_bos || info.gemma4) << e.name;
        EXPECT_EQ(v.tokenize("ab", false, false), (std::vector<llama_token>{2})) << e.name;
    }
}

TEST(PretokNames, UnknownNameIsRefusedByName) {
    llama_pretok_type t;
    EXPECT_FALSE(llama_pretok_from_name("gpt-5-imaginary", t));
    EXPECT_FALSE(llama_pretok_from_name("", t));
    EXPECT_FALSE(llama_pretok_from_name("GPT-2", t));  // names are case-sensitive, as upstream
    llama_vocab_data d;
    d.model  = "gpt2";
    d.pre    = "gpt-5-imaginary";
    d.tokens = {"a", "b", "ab"};
    d.merges = {"a b"};
    llama_vocab v;
    try {
        v.load(d);
        FAIL() << "expected an error";
    } catch (const std::runtime_error & e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("unknown pre-tokenizer 'gpt-5-imaginary'"), std::string::npos) << msg;
        EXPECT_NE(msg.find("tokenizer.ggml.pre"), std::string::npos) << msg;
    }
}
