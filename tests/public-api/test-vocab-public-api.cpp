// The tokenizers through the public C API only (llama.h, linked against the shared libllama, not the
// internal archive): every vocab in tests/data/vocab loads with vocab_only = true whatever its
// general.architecture (gpt2, falcon, mpt, bert, ... are not runnable here), and every one with an
// .inp/.out pair reproduces its vectors (cases separated by "\n__ggml_vocab_test__\n", tokenized
// with add_special = false, parse_special = false). Also: a full load of such a file still fails
// with a clear reason, and malformed vocabs / GGUF files put the real reason in llama_last_error().
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gguf.h"
#include "llama.h"
#include "test-common.h"
#include "test-gguf-builder.h"

namespace {

std::string text_of(const std::string & path) {
    const std::vector<uint8_t> b = testing_util::read_file(path);
    return std::string(b.begin(), b.end());
}

std::string ids_str(const std::vector<llama_token> & v) {
    std::string s;
    for (llama_token t : v) {
        s += " " + std::to_string(t);
    }
    return s;
}

// ---- the public API, wrapped for the tests ----

struct model_ptr {
    llama_model * m = nullptr;
    explicit model_ptr(llama_model * p) : m(p) {}
    ~model_ptr() { llama_model_free(m); }
    model_ptr(const model_ptr &)             = delete;
    model_ptr & operator=(const model_ptr &) = delete;
};

llama_model * load(const std::string & path, bool vocab_only = true) {
    llama_model_params p = llama_model_default_params();
    p.vocab_only         = vocab_only;
    p.n_gpu_layers       = 0;
    return llama_model_load_from_file(path.c_str(), p);
}

std::vector<llama_token> tokenize(const llama_vocab * vocab, const std::string & text) {
    std::vector<llama_token> toks(text.size() + 8);
    int32_t                  n =
        llama_tokenize(vocab, text.data(), (int32_t) text.size(), toks.data(), (int32_t) toks.size(), false, false);
    if (n < 0 && n != INT32_MIN) {  // buffer too small: -n is the count needed
        toks.resize((size_t) -n);
        n = llama_tokenize(vocab, text.data(), (int32_t) text.size(), toks.data(), (int32_t) toks.size(), false, false);
    }
    EXPECT_GE(n, 0) << "llama_tokenize failed: " << llama_last_error();
    toks.resize((size_t) std::max(n, 0));
    return toks;
}

std::string detokenize(const llama_vocab * vocab, const std::vector<llama_token> & toks) {
    std::string text(toks.size() * 4 + 16, '\0');
    int32_t     n =
        llama_detokenize(vocab, toks.data(), (int32_t) toks.size(), &text[0], (int32_t) text.size(), false, false);
    if (n < 0 && n != INT32_MIN) {
        text.resize((size_t) -n);
        n = llama_detokenize(vocab, toks.data(), (int32_t) toks.size(), &text[0], (int32_t) text.size(), false, false);
    }
    EXPECT_GE(n, 0) << "llama_detokenize failed: " << llama_last_error();
    text.resize((size_t) std::max(n, 0));
    return text;
}

// The pieces of toks concatenated (llama_token_to_piece, lstrip 0, special false).
std::string pieces(const llama_vocab * vocab, const std::vector<llama_token> & toks) {
    std::string out;
    for (llama_token t : toks) {
        char    buf[256];
        int32_t n = llama_token_to_piece(vocab, t, buf, sizeof(buf), 0, false);
        EXPECT_GE(n, 0) << "token " << t;
        out.append(buf, (size_t) std::max(n, 0));
    }
    return out;
}

std::string arch_of(const llama_model * m) {
    char buf[64] = {};
    llama_model_meta_val_str(m, "general.architecture", buf, sizeof(buf));
    return buf;
}

// Every vocab file in tests/data/vocab ("gpt-2" for ggml-vocab-gpt-2.gguf), found by listing the folder
// so that a vocab added there is tested without touching this file.
std::vector<std::string> vocab_names(bool with_vectors_only) {
    std::vector<std::string> out;
    const std::string        prefix = "ggml-vocab-", suffix = ".gguf";
    for (const auto & e : std::filesystem::directory_iterator(testing_util::data_path("vocab"))) {
        const std::string f = e.path().filename().string();
        if (f.size() <= prefix.size() + suffix.size() || f.compare(0, prefix.size(), prefix) != 0 ||
            f.compare(f.size() - suffix.size(), suffix.size(), suffix) != 0) {
            continue;
        }
        const bool has_vectors =
            std::filesystem::exists(e.path().string() + ".inp") && std::filesystem::exists(e.path().string() + ".out");
        if (!with_vectors_only || has_vectors) {
            out.push_back(f.substr(prefix.size(), f.size() - prefix.size() - suffix.size()));
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::string vocab_path(const std::string & name) {
    return testing_util::data_path("vocab/ggml-vocab-" + name + ".gguf");
}

// Errors only, kept for the assertions; the load's info lines are dropped.
std::string g_log_errors;

void quiet_log(ggml_log_level level, const char * text, void *) {
    if (level == GGML_LOG_LEVEL_ERROR) {
        g_log_errors += text;
    }
}

class PublicApi : public ::testing::Test {
protected:
    void SetUp() override {
        g_log_errors.clear();
        llama_log_set(quiet_log, nullptr);
    }
    void TearDown() override { llama_log_set(nullptr, nullptr); }
};

// ---- the vectors ----

TEST_F(PublicApi, EveryVocabWithVectorsPassesThem) {
    const std::vector<std::string> names = vocab_names(true);
    ASSERT_GE(names.size(), 12u) << "tests/data/vocab lost its vectors";
    std::set<std::string> archs;
    for (const std::string & name : names) {
        SCOPED_TRACE(name);
        const std::string path = vocab_path(name);
        model_ptr         model(load(path));
        ASSERT_NE(model.m, nullptr) << llama_last_error();
        const llama_vocab * vocab = llama_model_get_vocab(model.m);
        ASSERT_NE(vocab, nullptr);
        archs.insert(arch_of(model.m));

        const auto inputs   = testing_util::vocab_test_cases(text_of(path + ".inp"));
        const auto expected = testing_util::vocab_test_ids(text_of(path + ".out"));
        ASSERT_FALSE(inputs.empty());
        ASSERT_EQ(expected.size(), inputs.size());
        const bool bpe    = llama_vocab_type(vocab) == LLAMA_VOCAB_TYPE_BPE;
        int        passed = 0;
        for (size_t i = 0; i < inputs.size(); i++) {
            const std::vector<llama_token> got = tokenize(vocab, inputs[i]);
            EXPECT_EQ(ids_str(got), ids_str(expected[i])) << "case " << i << ": '" << inputs[i] << "'";
            passed += got == expected[i];
            // byte-level BPE is lossless (as the internal vector test states): both ways back give the input
            if (bpe) {
                // llama_detokenize cleans spaces as upstream does, except for the names that keep them
                const bool keeps = name == "qwen2" || name == "deepseek-coder" || name == "deepseek-llm";
                EXPECT_EQ(detokenize(vocab, got), keeps ? inputs[i] : testing_util::upstream_clean_spaces(inputs[i]))
                    << "detokenize, case " << i;
                EXPECT_EQ(pieces(vocab, got), inputs[i]) << "token_to_piece, case " << i;
            }
        }
        std::printf("[ vocab    ] %-16s %-8s %d/%zu\n", name.c_str(), arch_of(model.m).c_str(), passed, inputs.size());
    }
    // the point of vocab-only: architectures this library cannot run are among them
    for (const char * arch : {"gpt2", "falcon", "mpt", "bert", "refact", "starcoder2"}) {
        EXPECT_TRUE(archs.count(arch)) << arch << " is no longer among the tested vocabs";
    }
}

TEST_F(PublicApi, EveryVocabFileLoadsVocabOnly) {
    const std::vector<std::string> names = vocab_names(false);
    ASSERT_GE(names.size(), 14u);
    for (const std::string & name : names) {
        SCOPED_TRACE(name);
        model_ptr model(load(vocab_path(name)));
        ASSERT_NE(model.m, nullptr) << llama_last_error();
        const llama_vocab * vocab = llama_model_get_vocab(model.m);
        EXPECT_NE(llama_vocab_type(vocab), LLAMA_VOCAB_TYPE_NONE);
        EXPECT_GT(llama_vocab_n_tokens(vocab), 1000);
        // the description names the file's architecture, runnable or not
        char desc[128];
        ASSERT_GT(llama_model_desc(model.m, desc, sizeof(desc)), 0);
        EXPECT_EQ(std::string(desc).rfind(arch_of(model.m) + " ", 0), 0u) << desc;
    }
}

// gpt-neox and baichuan have no vectors: their round trip is the check
TEST_F(PublicApi, VocabsWithoutVectorsRoundTrip) {
    for (const char * name : {"gpt-neox", "baichuan"}) {
        SCOPED_TRACE(name);
        model_ptr model(load(vocab_path(name)));
        ASSERT_NE(model.m, nullptr) << llama_last_error();
        const llama_vocab * vocab = llama_model_get_vocab(model.m);
        for (const std::string text :
             {"Hello world\n\tx", "Hello, world! 12345", "a  b   c", "caf\xc3\xa9 \xe4\xbd\xa0\xe5\xa5\xbd"}) {
            const std::vector<llama_token> toks = tokenize(vocab, text);
            EXPECT_FALSE(toks.empty());
            EXPECT_LT(toks.size(), text.size()) << "merges are applied: '" << text << "'";
            EXPECT_EQ(detokenize(vocab, toks), testing_util::upstream_clean_spaces(text));
        }
    }
}

// ---- what must still fail, with the reason in llama_last_error() ----

TEST_F(PublicApi, FullLoadOfAnUnknownArchitectureFails) {
    for (const char * name : {"gpt-2", "falcon"}) {
        SCOPED_TRACE(name);
        model_ptr model(load(vocab_path(name), /*vocab_only =*/false));
        EXPECT_EQ(model.m, nullptr);
        const std::string err = llama_last_error();
        EXPECT_NE(err.find("unknown model architecture"), std::string::npos) << err;
        EXPECT_NE(err.find("vocab_only"), std::string::npos) << "the message says what would work: " << err;
    }
    // bert is a known architecture: its vocab-only file fails for lack of weights
    model_ptr model(load(vocab_path("bert-bge"), /*vocab_only =*/false));
    EXPECT_EQ(model.m, nullptr);
    EXPECT_NE(std::string(llama_last_error()).find("missing tensor"), std::string::npos) << llama_last_error();
}

// A copy of a vocab file's metadata with `edit` applied, written with the public gguf API.
std::string edited_copy(const std::string & name, void (*edit)(gguf_context *)) {
    gguf_context * g = gguf_init_from_file(vocab_path(name).c_str(), gguf_init_params{true});
    EXPECT_NE(g, nullptr);
    if (!g) {
        return {};
    }
    edit(g);
    const std::string out = testing_util::write_temp_file("vocab-" + name + ".gguf", {});
    EXPECT_TRUE(gguf_write_to_file(g, out.c_str(), /*only_meta =*/true));
    gguf_free(g);
    return out;
}

TEST_F(PublicApi, BpeVocabWithoutMergesIsRefused) {
    // control: the same copy with merges kept loads, so the write is not what fails
    const std::string intact = edited_copy("gpt-2", [](gguf_context *) {});
    {
        model_ptr model(load(intact));
        EXPECT_NE(model.m, nullptr) << llama_last_error();
    }
    std::remove(intact.c_str());

    const std::string no_merges =
        edited_copy("gpt-2", [](gguf_context * g) { gguf_remove_key(g, "tokenizer.ggml.merges"); });
    model_ptr model(load(no_merges));
    EXPECT_EQ(model.m, nullptr);
    const std::string err = llama_last_error();
    EXPECT_NE(err.find("tokenizer.ggml.merges"), std::string::npos) << err;
    EXPECT_NE(g_log_errors.find("tokenizer.ggml.merges"), std::string::npos) << "and it is logged: " << g_log_errors;
    std::remove(no_merges.c_str());

    const std::string empty_merges =
        edited_copy("qwen2", [](gguf_context * g) { gguf_set_arr_str(g, "tokenizer.ggml.merges", nullptr, 0); });
    model_ptr empty(load(empty_merges));
    EXPECT_EQ(empty.m, nullptr);
    EXPECT_NE(std::string(llama_last_error()).find("no merges"), std::string::npos) << llama_last_error();
    std::remove(empty_merges.c_str());
}

TEST_F(PublicApi, MalformedGgufReasonReachesLastError) {
    using gguf_test::builder;
    struct bad_file {
        const char * what;
        builder      b;
        const char * reason;
    };
    const bad_file files[] = {
        {"non-ASCII key", builder().header(0, 2).kv_str("general.architecture", "llama").kv_u32("n\xc3\xa4me", 1),
         "outside ASCII"},
        {"bool 2", builder().header(0, 1).str("tokenizer.ggml.add_bos_token").u32(GGUF_TYPE_BOOL).u8(2),
         "only 0 and 1"},
        {"key of 65536 bytes", builder().header(0, 1).kv_u32(std::string(65536, 'k'), 1), "exceeds the limit of 65535"},
    };
    for (const bad_file & f : files) {
        SCOPED_TRACE(f.what);
        const std::string path = testing_util::write_temp_file("bad.gguf", f.b.b);
        model_ptr         model(load(path));
        EXPECT_EQ(model.m, nullptr);
        const std::string err = llama_last_error();
        EXPECT_NE(err.find(f.reason), std::string::npos) << err;
        EXPECT_NE(err.find("not a valid GGUF file"), std::string::npos) << err;
        std::remove(path.c_str());
    }
}

TEST_F(PublicApi, NonAsciiKvOverrideKeyIsRefused) {
    llama_model_kv_override kvo[2] = {};
    snprintf(kvo[0].key, sizeof(kvo[0].key), "%s", "general.n\xc3\xa4me");
    kvo[0].tag           = LLAMA_KV_OVERRIDE_TYPE_INT;
    kvo[0].val_i64       = 1;
    llama_model_params p = llama_model_default_params();
    p.vocab_only         = true;
    p.kv_overrides       = kvo;
    model_ptr model(llama_model_load_from_file(vocab_path("gpt-2").c_str(), p));
    EXPECT_EQ(model.m, nullptr);
    EXPECT_NE(std::string(llama_last_error()).find("must be ASCII"), std::string::npos) << llama_last_error();
    // the same override with an ASCII key is applied
    snprintf(kvo[0].key, sizeof(kvo[0].key), "%s", "general.answer");
    model_ptr ok(llama_model_load_from_file(vocab_path("gpt-2").c_str(), p));
    ASSERT_NE(ok.m, nullptr) << llama_last_error();
    char buf[16] = {};
    EXPECT_GT(llama_model_meta_val_str(ok.m, "general.answer", buf, sizeof(buf)), 0);
    EXPECT_STREQ(buf, "1");
}

}  // namespace
