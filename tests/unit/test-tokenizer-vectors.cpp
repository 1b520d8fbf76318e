// Every vocab in tests/data/vocab with a .inp/.out pair: each case (separated by "\n__ggml_vocab_test__\n")
// tokenized with add_special = false, parse_special = false must equal the reference ids exactly.
// Byte-level BPE vocabs must also round-trip every case through detokenize.
#include "gguf.h"
#include "llama-vocab.h"
#include "test-common.h"

#include <gtest/gtest.h>

#include <memory>
#include <sstream>

namespace {

std::string as_text(const std::vector<uint8_t> & b) {
    return std::string(b.begin(), b.end());
}

std::string ids_str(const std::vector<llama_token> & v) {
    std::string s;
    for (llama_token t : v) {
        s += " " + std::to_string(t);
    }
    return s;
}

class VocabVectors : public ::testing::TestWithParam<const char *> {};

TEST_P(VocabVectors, AllCasesEqual) {
    const std::string name = GetParam();
    const std::string path = testing_util::data_path("vocab/ggml-vocab-" + name + ".gguf");
    gguf_init_params  params{/*no_alloc =*/true};
    std::unique_ptr<gguf_context, decltype(&gguf_free)> g(gguf_init_from_file(path.c_str(), params), gguf_free);
    ASSERT_NE(g, nullptr) << path;
    llama_vocab vocab;
    ASSERT_NO_THROW(vocab.load(g.get()));

    const auto inputs   = testing_util::vocab_test_cases(as_text(testing_util::read_file(path + ".inp")));
    const auto expected = testing_util::vocab_test_ids(as_text(testing_util::read_file(path + ".out")));
    ASSERT_EQ(inputs.size(), 46u);
    ASSERT_EQ(expected.size(), inputs.size());
    int passed = 0;
    for (size_t i = 0; i < inputs.size(); ++i) {
        const auto got = vocab.tokenize(inputs[i], false, false);
        EXPECT_EQ(ids_str(got), ids_str(expected[i])) << name << " case " << i << ": '" << inputs[i] << "'";
        passed += got == expected[i];
        if (vocab.get_type() == LLAMA_VOCAB_TYPE_BPE) {
            // byte-level BPE is lossless; llama_detokenize then cleans spaces where upstream does
            const std::string want =
                vocab.get_clean_spaces() ? testing_util::upstream_clean_spaces(inputs[i]) : inputs[i];
            EXPECT_EQ(vocab.detokenize(got, false, false), want) << name << " round trip, case " << i;
        }
    }
    RecordProperty("passed", passed);
    std::printf("[ vocab    ] %-16s %s %d/%zu\n", name.c_str(), vocab.type_name().c_str(), passed, inputs.size());
}

INSTANTIATE_TEST_SUITE_P(Shared, VocabVectors,
                         ::testing::Values("llama-spm", "phi-3", "bert-bge", "gpt-2", "llama-bpe", "qwen2",
                                           "deepseek-coder", "deepseek-llm", "falcon", "starcoder", "refact", "mpt"),
                         [](const ::testing::TestParamInfo<const char *> & info) {
                             std::string s = info.param;
                             for (char & c : s) {
                                 if (c == '-') {
                                     c = '_';
                                 }
                             }
                             return s;
                         });

}  // namespace
