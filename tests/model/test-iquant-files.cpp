// Model files whose weight matrices are i-quants (IQ2_XXS ... IQ1_M) load and run on the CPU. We cannot
// quantize into these types yet, so the test writes random i-quant blocks (scaled to a weight-like RMS)
// into a copy of a synthetic llama, and a second copy holding the same weights dequantized to F32; both
// are decoded with the same prompt and their logits must agree up to the activation quantization (q8_K)
// of the i-quant path. This exercises get_rows (token_embd), mul_mat (every projection and the LM head)
// and the loader for each type; the dequantization itself is pinned by test-quants-kat.
#include "../../examples/gguf-synth/gguf-synth.h"
#include "llama.h"
#include "test-common.h"
#include "test-iquant-blocks.h"
#include "test-llama-util.h"
#include "test-synth-model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace llama_test_util;

namespace {

void quiet_log(ggml_log_level, const char *, void *) {}

std::vector<float> prompt_logits(const std::string & path, int n_tok, int & n_vocab) {
    model_ptr m(llama_model_load_from_file(path.c_str(), llama_model_default_params()));
    EXPECT_NE(m, nullptr) << llama_last_error();
    if (!m) {
        return {};
    }
    n_vocab                 = llama_vocab_n_tokens(llama_model_get_vocab(m.get()));
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx                = 64;
    cp.n_threads            = 2;
    cp.n_threads_batch      = 2;
    ctx_ptr     ctx(llama_init_from_model(m.get(), cp));
    llama_batch b = llama_batch_init(n_tok, 0, 1);
    for (int i = 0; i < n_tok; i++) {
        b.token[i]     = (llama_token) (3 + 37 * i % (n_vocab - 3));
        b.pos[i]       = i;
        b.n_seq_id[i]  = 1;
        b.seq_id[i][0] = 0;
        b.logits[i]    = 1;
    }
    b.n_tokens = n_tok;
    EXPECT_EQ(llama_decode(ctx.get(), b), 0) << llama_last_error();
    llama_batch_free(b);
    std::vector<float> out;
    for (int i = 0; i < n_tok; i++) {
        const float * lg = llama_get_logits_ith(ctx.get(), i);
        EXPECT_NE(lg, nullptr);
        if (lg) {
            out.insert(out.end(), lg, lg + n_vocab);
        }
    }
    return out;
}

class IquantFiles : public ::testing::TestWithParam<ggml_type> {};

TEST_P(IquantFiles, LoadAndRunLikeTheirF32Values) {
    const ggml_type t = GetParam();
    llama_log_set(quiet_log, nullptr);
    const synth::params p   = llama_test_util::superblock_llama();
    const std::string   src = testing_util::write_temp_file("iq-src.gguf", {});
    const std::string   fq  = testing_util::write_temp_file("iq-q.gguf", {});
    const std::string   ff  = testing_util::write_temp_file("iq-f.gguf", {});
    std::string         err;
    ASSERT_TRUE(synth::write_model(p, src, err)) << err;
    ASSERT_TRUE(iquant_blocks::write_pair(src, t, fq, ff));
    int        nv_q = 0, nv_f = 0;
    const auto lq = prompt_logits(fq, 6, nv_q);
    const auto lf = prompt_logits(ff, 6, nv_f);
    remove(src.c_str());
    remove(fq.c_str());
    remove(ff.c_str());
    llama_log_set(nullptr, nullptr);
    ASSERT_EQ(nv_q, nv_f);
    ASSERT_EQ(lq.size(), lf.size());
    ASSERT_FALSE(lq.empty());
    double e2 = 0, r2 = 0;
    for (size_t i = 0; i < lq.size(); i++) {
        ASSERT_TRUE(std::isfinite(lq[i])) << i;
        e2 += ((double) lq[i] - lf[i]) * ((double) lq[i] - lf[i]);
        r2 += (double) lf[i] * lf[i];
    }
    const double rel = std::sqrt(e2 / r2);
    printf("  %s: logits RMS error / RMS = %.2e\n", ggml_type_name(t), rel);
    EXPECT_LT(rel, 0.06) << ggml_type_name(t);  // measured 2.1e-2..3.1e-2; a wrong decoding gives ~1
    EXPECT_GT(r2, 0.0);
}

INSTANTIATE_TEST_SUITE_P(Types, IquantFiles,
                         ::testing::Values(GGML_TYPE_IQ2_XXS, GGML_TYPE_IQ2_XS, GGML_TYPE_IQ2_S, GGML_TYPE_IQ3_XXS,
                                           GGML_TYPE_IQ3_S, GGML_TYPE_IQ1_S, GGML_TYPE_IQ1_M),
                         [](const ::testing::TestParamInfo<ggml_type> & i) {
                             return std::string(ggml_type_name(i.param));
                         });

}  // namespace
