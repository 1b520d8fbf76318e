// The prompt-cache file format of the tools (tools/common/prompt-cache.*) on its own: a round trip,
// and each kind of damage or mismatch rejected with its kind and reason (every truncation length,
// every single-bit flip, another model, cache type, RoPE settings, adapters, format version, token
// ids outside the vocabulary), and the atomic file writes. Saving and restoring a real context's
// sequence is tests/model/test-prompt-cache-state.cpp.
#include <gtest/gtest.h>

#ifdef LLAMA_TEST_PROMPT_CACHE

#    include <unistd.h>

#    include <cstdio>
#    include <filesystem>
#    include <fstream>
#    include <random>

#    include "prompt-cache.h"

namespace pc = prompt_cache;

namespace {

constexpr int32_t k_vocab = 512;

pc::fingerprint fp0() {
    pc::fingerprint fp;
    fp.model  = 0x1234567890abcdefull;
    fp.type_k = 1;  // GGML_TYPE_F16
    fp.type_v = 1;
    fp.rope   = 42;
    return fp;
}

struct sample {
    std::vector<llama_token> tokens;
    std::vector<uint8_t>     state;
    std::vector<uint8_t>     bytes;
};

sample make_sample(size_t n_tok = 37, size_t n_state = 301) {
    sample       s;
    std::mt19937 rng(7);
    for (size_t i = 0; i < n_tok; i++) {
        s.tokens.push_back((llama_token) (rng() % k_vocab));
    }
    for (size_t i = 0; i < n_state; i++) {
        s.state.push_back((uint8_t) rng());
    }
    s.bytes = pc::encode(fp0(), s.tokens, s.state.data(), s.state.size());
    return s;
}

pc::error parse(const std::vector<uint8_t> & b, const pc::fingerprint & fp = fp0(), int32_t n_vocab = k_vocab) {
    pc::header h;
    return pc::parse(b, fp, n_vocab, h);
}

std::string tmp_path(const std::string & name) {
    return testing::TempDir() + "test-prompt-cache-" + std::to_string(getpid()) + "-" + name;
}

}  // namespace

TEST(PromptCache, RoundTrip) {
    const sample s = make_sample();
    ASSERT_EQ(s.bytes.size(), pc::HEADER_SIZE + 4 * s.tokens.size() + s.state.size() + 8);
    pc::header h;
    const auto e = pc::parse(s.bytes, fp0(), k_vocab, h);
    ASSERT_TRUE(e.ok()) << e.reason;
    EXPECT_EQ(h.tokens, s.tokens);
    EXPECT_TRUE(h.fp == fp0());
    ASSERT_EQ(h.state_size, s.state.size());
    EXPECT_TRUE(std::equal(s.state.begin(), s.state.end(), s.bytes.begin() + (long) pc::state_offset(h)));
    EXPECT_EQ(h.file_size, s.bytes.size());
    // no tokens, no state: still a valid file
    const auto empty = pc::encode(fp0(), {}, nullptr, 0);
    EXPECT_TRUE(parse(empty).ok());
    // the checksum is computed in pieces (header, then state): every alignment of the state's start
    // and end against the 8-byte words agrees with the reader's one pass
    for (size_t n_tok = 0; n_tok < 4; n_tok++) {
        for (size_t n_state = 0; n_state < 20; n_state++) {
            const sample t = make_sample(n_tok, n_state);
            EXPECT_TRUE(parse(t.bytes).ok()) << n_tok << " " << n_state;
        }
    }
}

TEST(PromptCache, EveryTruncationIsDamage) {
    const sample s = make_sample();
    for (size_t n = 0; n < s.bytes.size(); n++) {
        const std::vector<uint8_t> cut(s.bytes.begin(), s.bytes.begin() + (long) n);
        const auto                 e = parse(cut);
        ASSERT_EQ(e.kind, pc::error::damaged) << n << ": " << e.reason;
        if (n == 0) {
            EXPECT_EQ(e.reason, "empty file");
        } else if (n < pc::HEADER_SIZE) {
            EXPECT_EQ(e.reason, "truncated header") << n;
        } else {
            EXPECT_NE(e.reason.find("truncated: " + std::to_string(n) + " bytes, the header says"), std::string::npos)
                << e.reason;
        }
    }
    std::vector<uint8_t> longer = s.bytes;
    longer.push_back(0);
    EXPECT_EQ(parse(longer).reason, "1 unexpected bytes after the end");
}

// Each bit of the file flipped: refused, with the kind the field says.
TEST(PromptCache, EveryBitFlipIsRefused) {
    const sample s = make_sample(9, 40);
    for (size_t i = 0; i < s.bytes.size(); i++) {
        for (int bit = 0; bit < 8; bit++) {
            std::vector<uint8_t> b = s.bytes;
            b[i] ^= (uint8_t) (1u << bit);
            const auto e = parse(b);
            ASSERT_FALSE(e.ok()) << "byte " << i << " bit " << bit;
            if (i < 4) {
                EXPECT_EQ(e.reason, "not a prompt-cache file (bad magic)");
            } else if (i < 8) {
                EXPECT_EQ(e.kind, pc::error::mismatch);
                EXPECT_EQ(e.reason.rfind("format version ", 0), 0u) << e.reason;
            } else if (i >= pc::HEADER_SIZE + 4 * s.tokens.size() + s.state.size()) {
                EXPECT_EQ(e.reason, "checksum mismatch");  // the checksum itself
            } else {
                // sizes, fingerprint, header checksum, tokens, state: damage (the fingerprint is
                // covered by the header checksum, so a flipped one is damage, not another model)
                EXPECT_EQ(e.kind, pc::error::damaged) << i << ": " << e.reason;
            }
        }
    }
}

TEST(PromptCache, MismatchesNameWhatDiffers) {
    const sample    s  = make_sample();
    pc::fingerprint fp = fp0();
    fp.model++;
    EXPECT_EQ(parse(s.bytes, fp).kind, pc::error::mismatch);
    EXPECT_EQ(parse(s.bytes, fp).reason, "written with another model");
    fp        = fp0();
    fp.type_k = 8;  // GGML_TYPE_Q8_0
    EXPECT_EQ(parse(s.bytes, fp).reason, "KV cache is f16/f16, this context's is q8_0/f16");
    fp      = fp0();
    fp.rope = 43;
    EXPECT_EQ(parse(s.bytes, fp).reason, "written with other RoPE settings");
    fp          = fp0();
    fp.adapters = 1;
    EXPECT_EQ(parse(s.bytes, fp).reason, "written with other LoRA adapters");
    EXPECT_EQ(parse(s.bytes, fp0(), 100).kind, pc::error::damaged);  // ids past a smaller vocabulary
    const std::vector<llama_token> bad = {1, 2, -3};
    const auto                     neg = pc::encode(fp0(), bad, nullptr, 0);
    EXPECT_EQ(parse(neg).reason, "token id -3 outside the vocabulary");
    std::vector<uint8_t> v2 = s.bytes;
    v2[4]                   = 2;
    EXPECT_EQ(parse(v2).reason, "format version 2, expected 1");
}

TEST(PromptCache, HugeCountsAreDamageNotAllocations) {
    sample s = make_sample();
    for (size_t at : {(size_t) 40, (size_t) 44}) {  // n_tokens, state_size
        std::vector<uint8_t> b = s.bytes;
        for (size_t k = 0; k < 4; k++) {
            b[at + k] = 0xff;
        }
        const auto e = parse(b);
        EXPECT_EQ(e.kind, pc::error::damaged) << e.reason;
    }
}

TEST(PromptCache, FilesAreWrittenAtomicallyAndHeadersReadAlone) {
    const sample      s    = make_sample(100, 5000);
    const std::string path = tmp_path("a.pcache");
    auto              e    = pc::write_file(path, s.bytes);
    ASSERT_TRUE(e.ok()) << e.reason;
    EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
    pc::header h;
    e = pc::read_header(path, fp0(), k_vocab, h);
    ASSERT_TRUE(e.ok()) << e.reason;
    EXPECT_EQ(h.tokens, s.tokens);
    EXPECT_EQ(h.file_size, s.bytes.size());
    // a second write replaces the file
    const sample t = make_sample(3, 10);
    ASSERT_TRUE(pc::write_file(path, t.bytes).ok());
    ASSERT_TRUE(pc::read_header(path, fp0(), k_vocab, h).ok());
    EXPECT_EQ(h.tokens, t.tokens);
    // a truncated file: the header reader sees it from the size alone
    std::filesystem::resize_file(path, t.bytes.size() - 1);
    e = pc::read_header(path, fp0(), k_vocab, h);
    EXPECT_EQ(e.kind, pc::error::damaged);
    std::filesystem::resize_file(path, 0);
    EXPECT_EQ(pc::read_header(path, fp0(), k_vocab, h).reason, "empty file");
    std::filesystem::remove(path);
    EXPECT_EQ(pc::read_header(path, fp0(), k_vocab, h).kind, pc::error::io);
    EXPECT_EQ(pc::write_file(tmp_path("no-such-dir/x.pcache"), s.bytes).kind, pc::error::io);
    // written in parts: the same file
    const size_t cut = pc::HEADER_SIZE + 4 * s.tokens.size() + 3;
    ASSERT_TRUE(pc::write_parts(path, {{s.bytes.data(), cut}, {s.bytes.data() + cut, s.bytes.size() - cut}}).ok());
    std::vector<uint8_t> back(s.bytes.size());
    std::ifstream(path, std::ios::binary).read((char *) back.data(), (std::streamsize) back.size());
    EXPECT_EQ(back, s.bytes);
    std::filesystem::remove(path);
}

#else

TEST(PromptCache, NeedsTheToolsModule) {
    GTEST_SKIP() << "tools/common/prompt-cache.cpp is not built (no llama library)";
}

#endif
