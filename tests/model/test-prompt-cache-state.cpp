// Prompt-cache files (tools/common/prompt-cache.*) with a real context (stories260K): a sequence
// saved, restored into a fresh context and continued gives bit-identical logits; the fingerprint
// tells models, cache types and RoPE settings apart; a file for another cache type, one with more
// tokens than allowed, or one damaged after the header check leaves the destination sequence as it
// was. The format alone is tests/unit/test-prompt-cache.cpp.
#include <gtest/gtest.h>

#ifdef LLAMA_TEST_PROMPT_CACHE

#    include <unistd.h>

#    include <cstring>
#    include <filesystem>
#    include <fstream>

#    include "llama.h"
#    include "prompt-cache.h"
#    include "test-common.h"
#    include "test-llama-util.h"

using namespace llama_test_util;
using testing_util::data_path;
using testing_util::source_path;
namespace pc = prompt_cache;

namespace {

void quiet_log(ggml_log_level, const char *, void *) {}

llama_context_params params(ggml_type tk = GGML_TYPE_F16) {
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx                = 256;
    cp.n_batch              = 256;
    cp.n_threads            = 2;
    cp.n_threads_batch      = 2;
    cp.type_k               = tk;
    return cp;
}

model_ptr load(const std::string & path) {
    llama_log_set(quiet_log, nullptr);
    return model_ptr(llama_model_load_from_file(path.c_str(), llama_model_default_params()));
}

// Decodes toks at positions pos0.. of sequence 0 and returns the last row of logits.
std::vector<float> decode(llama_context * ctx, const std::vector<llama_token> & toks, llama_pos pos0) {
    owned_batch b((int) toks.size());
    for (size_t i = 0; i < toks.size(); i++) {
        b.add(toks[i], pos0 + (llama_pos) i, {0}, i + 1 == toks.size());
    }
    EXPECT_EQ(llama_decode(ctx, b.b), 0) << llama_last_error();
    const int     nv = llama_vocab_n_tokens(llama_model_get_vocab(llama_get_model(ctx)));
    const float * lg = llama_get_logits_ith(ctx, -1);
    return lg ? std::vector<float>(lg, lg + nv) : std::vector<float>();
}

std::string tmp_path(const std::string & name) {
    return testing::TempDir() + "test-prompt-cache-state-" + std::to_string(getpid()) + "-" + name;
}

}  // namespace

TEST(PromptCacheState, SaveRestoreContinueIsBitIdentical) {
    model_ptr m = load(source_path("models/stories260K.gguf"));
    ASSERT_TRUE(m);
    const llama_context_params     cp   = params();
    const pc::fingerprint          fp   = pc::make_fingerprint(m.get(), cp);
    const std::vector<llama_token> toks = tokenize(m.get(), "Once upon a time there was a little dog named Tom");
    const std::vector<llama_token> next = {tokenize(m.get(), " who", false)[0]};
    ctx_ptr                        a(llama_init_from_model(m.get(), cp));
    ASSERT_TRUE(a);
    decode(a.get(), toks, 0);
    const std::string path    = tmp_path("a.pcache");
    size_t            n_bytes = 0;
    auto              e       = pc::save(a.get(), 0, fp, toks, path, &n_bytes);
    ASSERT_TRUE(e.ok()) << e.reason;
    EXPECT_EQ(n_bytes, std::filesystem::file_size(path));
    const std::vector<float> want = decode(a.get(), next, (llama_pos) toks.size());

    ctx_ptr b(llama_init_from_model(m.get(), cp));
    ASSERT_TRUE(b);
    std::vector<llama_token> got;
    e = pc::load(b.get(), 0, fp, path, toks.size(), got);
    ASSERT_TRUE(e.ok()) << e.reason;
    EXPECT_EQ(got, toks);
    EXPECT_EQ(llama_memory_seq_pos_max(llama_get_memory(b.get()), 0) + 1, (llama_pos) toks.size());
    const std::vector<float> have = decode(b.get(), next, (llama_pos) toks.size());
    ASSERT_EQ(have.size(), want.size());
    EXPECT_EQ(memcmp(have.data(), want.data(), want.size() * sizeof(float)), 0);

    // too many tokens for the caller: refused, the sequence untouched
    e = pc::load(b.get(), 0, fp, path, toks.size() - 1, got);
    EXPECT_EQ(e.kind, pc::error::refused) << e.reason;
    EXPECT_EQ(llama_memory_seq_pos_max(llama_get_memory(b.get()), 0), (llama_pos) toks.size());

    // a byte of the state flipped: the header still reads, the load is refused before the context
    std::vector<char> raw(std::filesystem::file_size(path));
    std::ifstream(path, std::ios::binary).read(raw.data(), (std::streamsize) raw.size());
    raw[raw.size() - 20] ^= 1;
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(raw.data(), (std::streamsize) raw.size());
    pc::header h;
    EXPECT_TRUE(pc::read_header(path, fp, 1 << 20, h).ok());
    e = pc::load(b.get(), 0, fp, path, 1000, got);
    EXPECT_EQ(e.kind, pc::error::damaged);
    EXPECT_EQ(e.reason, "checksum mismatch");
    EXPECT_EQ(llama_memory_seq_pos_max(llama_get_memory(b.get()), 0), (llama_pos) toks.size());
    std::filesystem::remove(path);
}

TEST(PromptCacheState, FingerprintTellsModelsAndCachesApart) {
    model_ptr m  = load(source_path("models/stories260K.gguf"));
    model_ptr m2 = load(source_path("models/stories260K.gguf"));
    model_ptr o  = load(data_path("models/synthetic/llama-micro-f16.gguf"));
    ASSERT_TRUE(m && m2 && o);
    const pc::fingerprint f = pc::make_fingerprint(m.get(), params());
    EXPECT_TRUE(f == pc::make_fingerprint(m2.get(), params()));  // the same file loaded twice
    EXPECT_FALSE(f.model == pc::make_fingerprint(o.get(), params()).model);
    const pc::fingerprint q = pc::make_fingerprint(m.get(), params(GGML_TYPE_Q8_0));
    EXPECT_TRUE(q.model == f.model && q.type_k != f.type_k);
    llama_context_params rope = params();
    rope.rope_freq_base       = 5000.0f;
    EXPECT_FALSE(pc::make_fingerprint(m.get(), rope).rope == f.rope);
    EXPECT_FALSE(pc::make_fingerprint(m.get(), params(), "lora.gguf:1") == f);

    // a file of the F16 cache offered to a context that says Q8_0: refused before the state is read
    const std::vector<llama_token> toks = tokenize(m.get(), "Once upon a time");
    ctx_ptr                        a(llama_init_from_model(m.get(), params()));
    decode(a.get(), toks, 0);
    const std::string path = tmp_path("b.pcache");
    ASSERT_TRUE(pc::save(a.get(), 0, f, toks, path).ok());
    std::vector<llama_token> got;
    const auto               e = pc::load(a.get(), 0, q, path, 1000, got);
    EXPECT_EQ(e.kind, pc::error::mismatch);
    EXPECT_EQ(e.reason, "KV cache is f16/f16, this context's is q8_0/f16");
    std::filesystem::remove(path);
}

#else

TEST(PromptCacheState, NeedsTheToolsModule) {
    GTEST_SKIP() << "tools/common/prompt-cache.cpp is not built (no llama library)";
}

#endif
