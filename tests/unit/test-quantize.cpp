// llama_model_quantize: per-tensor recipes, block-size fallbacks, the GGUF it writes (types, data
// close to the originals, metadata copied, general.file_type), thread-count independence, errors.
// Models come from the synthetic generator (examples/gguf-synth/gguf-synth.h) with F32 weights.
#include "../../examples/gguf-synth/gguf-synth.h"
#include "ggml.h"
#include "gguf.h"
#include "llama-model.h"
#include "llama-quant.h"
#include "llama.h"
#include "test-common.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

void quiet_log(ggml_log_level, const char *, void *) {}

struct QuantizeTest : ::testing::Test {
    std::vector<std::string> files;

    void SetUp() override { llama_log_set(quiet_log, nullptr); }
    void TearDown() override {
        for (auto & f : files) {
            remove(f.c_str());
        }
        llama_log_set(nullptr, nullptr);
    }
    std::string temp(const std::string & stem) {
        std::string p = testing_util::write_temp_file(stem, {});
        remove(p.c_str());
        files.push_back(p);
        return p;
    }
    // A small llama with F32 weights: 256-wide so K-quants apply; n_ff chosen per test.
    std::string make_model(int64_t n_ff = 512, ggml_type type = GGML_TYPE_F32, int64_t n_layer = 2) {
        synth::params p;
        p.n_embd         = 256;
        p.n_layer        = n_layer;
        p.n_ff           = n_ff;
        p.n_head         = 4;
        p.n_head_kv      = 1;
        p.n_vocab        = 320;
        p.tied           = false;
        p.type           = type;
        p.n_threads      = 2;
        std::string path = temp("synth.gguf"), err;
        EXPECT_TRUE(synth::write_model(p, path, err)) << err;
        return path;
    }
};

struct gguf_file {
    gguf_context * g = nullptr;
    explicit gguf_file(const std::string & path) { g = gguf_init_from_file(path.c_str(), {false}); }
    ~gguf_file() { gguf_free(g); }

    int64_t            tensor(const std::string & name) const { return gguf_find_tensor(g, name.c_str()); }
    ggml_type          type(const std::string & name) const { return gguf_get_tensor_type(g, tensor(name)); }
    std::vector<float> values(const std::string & name) const {
        const int64_t id = tensor(name);
        int64_t       ne[4];
        gguf_get_tensor_shape(g, id, ne);
        std::vector<float> out((size_t) (ne[0] * ne[1] * ne[2] * ne[3]));
        const ggml_type    t  = gguf_get_tensor_type(g, id);
        const uint8_t *    d  = (const uint8_t *) gguf_get_tensor_data(g, id);
        const size_t       rs = ggml_row_size(t, ne[0]);
        for (int64_t r = 0; r < (int64_t) out.size() / ne[0]; r++) {
            EXPECT_TRUE(ggml_dequantize_row(t, d + r * rs, out.data() + r * ne[0], ne[0]));
        }
        return out;
    }
    uint32_t u32(const char * key) const {
        const int64_t id = gguf_find_key(g, key);
        return id < 0 ? UINT32_MAX : gguf_get_val_u32(g, id);
    }
};

double rel_rmse(const std::vector<float> & a, const std::vector<float> & b) {
    double err = 0, ref = 0;
    for (size_t i = 0; i < a.size(); i++) {
        err += (double) (a[i] - b[i]) * (a[i] - b[i]);
        ref += (double) a[i] * a[i];
    }
    return std::sqrt(err / std::max(ref, 1e-30));
}

// Relative RMSE bounds for N(0, s) data (measured values in docs/quants.md, with margin).
double bound(ggml_type t) {
    switch (t) {
        case GGML_TYPE_F32:
            return 1e-7;
        case GGML_TYPE_F16:
            return 1e-3;
        case GGML_TYPE_BF16:
            return 5e-3;
        case GGML_TYPE_Q8_0:
            return 0.01;
        case GGML_TYPE_Q6_K:
            return 0.03;
        case GGML_TYPE_Q5_0:
        case GGML_TYPE_Q5_1:
        case GGML_TYPE_Q5_K:
            return 0.06;
        case GGML_TYPE_Q4_0:
        case GGML_TYPE_Q4_1:
        case GGML_TYPE_Q4_K:
        case GGML_TYPE_IQ4_NL:
            return 0.11;
        case GGML_TYPE_Q3_K:
        case GGML_TYPE_MXFP4:
            return 0.2;
        case GGML_TYPE_TQ1_0:
        case GGML_TYPE_TQ2_0:
            return 0.6;  // ternary: meant for weights trained ternary, lossy on Gaussian ones
        default:
            return 0.35;
    }
}

llama_model_quantize_params qparams(llama_ftype ft, int nthread = 2) {
    llama_model_quantize_params p = llama_model_quantize_default_params();
    p.ftype                       = ft;
    p.nthread                     = nthread;
    return p;
}

}  // namespace

// ---- recipes ------------------------------------------------------------------------------------

TEST(QuantizeRecipe, Q4KMSpendsBitsWhereLlamaCppDoes) {
    llama_quant_model_info info;
    info.n_layer    = 22;
    info.n_gqa      = 8;
    info.has_output = true;
    const auto p    = qparams(LLAMA_FTYPE_MOSTLY_Q4_K_M);
    EXPECT_EQ(llama_quant_recipe_type("output.weight", info, p), GGML_TYPE_Q6_K);
    EXPECT_EQ(llama_quant_recipe_type("token_embd.weight", info, p), GGML_TYPE_Q4_K);
    EXPECT_EQ(llama_quant_recipe_type("blk.5.attn_q.weight", info, p), GGML_TYPE_Q4_K);
    EXPECT_EQ(llama_quant_recipe_type("blk.5.ffn_up.weight", info, p), GGML_TYPE_Q4_K);
    // use_more_bits(i, 22): i < 2, i >= 19, or (i - 2) % 3 == 2
    const std::vector<int> more = {0, 1, 4, 7, 10, 13, 16, 19, 20, 21};
    for (int il = 0; il < 22; il++) {
        const bool        m    = std::find(more.begin(), more.end(), il) != more.end();
        const ggml_type   want = m ? GGML_TYPE_Q6_K : GGML_TYPE_Q4_K;
        const std::string b    = "blk." + std::to_string(il) + ".";
        EXPECT_EQ(llama_quant_recipe_type(b + "attn_v.weight", info, p), want) << il;
        EXPECT_EQ(llama_quant_recipe_type(b + "ffn_down.weight", info, p), want) << il;
    }
}

TEST(QuantizeRecipe, OtherMixes) {
    llama_quant_model_info info;
    info.n_layer    = 16;
    info.has_output = true;
    auto t = [&](llama_ftype ft, const char * name) { return llama_quant_recipe_type(name, info, qparams(ft)); };
    EXPECT_EQ(t(LLAMA_FTYPE_MOSTLY_Q4_0, "output.weight"), GGML_TYPE_Q6_K);
    EXPECT_EQ(t(LLAMA_FTYPE_MOSTLY_Q4_0, "blk.0.attn_v.weight"), GGML_TYPE_Q4_0);
    EXPECT_EQ(t(LLAMA_FTYPE_MOSTLY_Q8_0, "output.weight"), GGML_TYPE_Q8_0);
    EXPECT_EQ(t(LLAMA_FTYPE_MOSTLY_Q3_K_M, "blk.0.attn_v.weight"), GGML_TYPE_Q5_K);
    EXPECT_EQ(t(LLAMA_FTYPE_MOSTLY_Q3_K_M, "blk.5.attn_v.weight"), GGML_TYPE_Q4_K);
    EXPECT_EQ(t(LLAMA_FTYPE_MOSTLY_Q3_K_M, "blk.5.attn_output.weight"), GGML_TYPE_Q4_K);
    EXPECT_EQ(t(LLAMA_FTYPE_MOSTLY_Q3_K_M, "blk.5.attn_q.weight"), GGML_TYPE_Q3_K);
    EXPECT_EQ(t(LLAMA_FTYPE_MOSTLY_Q3_K_L, "blk.5.ffn_down.weight"), GGML_TYPE_Q5_K);
    EXPECT_EQ(t(LLAMA_FTYPE_MOSTLY_Q2_K, "blk.5.ffn_down.weight"), GGML_TYPE_Q3_K);
    EXPECT_EQ(t(LLAMA_FTYPE_MOSTLY_Q4_K_S, "blk.1.attn_v.weight"), GGML_TYPE_Q5_K);
    EXPECT_EQ(t(LLAMA_FTYPE_MOSTLY_Q4_K_S, "blk.9.attn_v.weight"), GGML_TYPE_Q4_K);
    EXPECT_EQ(t(LLAMA_FTYPE_MOSTLY_Q5_K_M, "blk.0.ffn_down.weight"), GGML_TYPE_Q6_K);
    EXPECT_EQ(t(LLAMA_FTYPE_MOSTLY_Q6_K, "blk.0.ffn_down.weight"), GGML_TYPE_Q6_K);
    EXPECT_EQ(t(LLAMA_FTYPE_MOSTLY_F16, "output.weight"), GGML_TYPE_F16);
    EXPECT_EQ(t(LLAMA_FTYPE_MOSTLY_BF16, "blk.0.ffn_up.weight"), GGML_TYPE_BF16);
    EXPECT_EQ(t((llama_ftype) 99, "blk.0.ffn_up.weight"), GGML_TYPE_COUNT);
    // ternary: 4-bit embeddings, Q6_K head (as llama.cpp)
    EXPECT_EQ(t(LLAMA_FTYPE_MOSTLY_TQ1_0, "blk.0.ffn_up.weight"), GGML_TYPE_TQ1_0);
    EXPECT_EQ(t(LLAMA_FTYPE_MOSTLY_TQ2_0, "blk.3.attn_v.weight"), GGML_TYPE_TQ2_0);
    EXPECT_EQ(t(LLAMA_FTYPE_MOSTLY_TQ2_0, "token_embd.weight"), GGML_TYPE_Q4_K);
    EXPECT_EQ(t(LLAMA_FTYPE_MOSTLY_TQ1_0, "output.weight"), GGML_TYPE_Q6_K);
    // MXFP4_MOE: experts in MXFP4, everything else Q8_0
    EXPECT_EQ(t(LLAMA_FTYPE_MOSTLY_MXFP4_MOE, "blk.0.ffn_up_exps.weight"), GGML_TYPE_MXFP4);
    EXPECT_EQ(t(LLAMA_FTYPE_MOSTLY_MXFP4_MOE, "blk.0.ffn_down_exps.weight"), GGML_TYPE_MXFP4);
    EXPECT_EQ(t(LLAMA_FTYPE_MOSTLY_MXFP4_MOE, "blk.0.attn_q.weight"), GGML_TYPE_Q8_0);
    EXPECT_EQ(t(LLAMA_FTYPE_MOSTLY_MXFP4_MOE, "output.weight"), GGML_TYPE_Q8_0);
    EXPECT_EQ(t(LLAMA_FTYPE_MOSTLY_MXFP4_MOE, "token_embd.weight"), GGML_TYPE_Q8_0);

    // tied embeddings: token_embd is the LM head and gets its bits
    info.has_output = false;
    EXPECT_EQ(t(LLAMA_FTYPE_MOSTLY_Q4_K_M, "token_embd.weight"), GGML_TYPE_Q6_K);

    // pure and the explicit overrides
    info.has_output = true;
    auto p          = qparams(LLAMA_FTYPE_MOSTLY_Q4_K_M);
    p.pure          = true;
    EXPECT_EQ(llama_quant_recipe_type("output.weight", info, p), GGML_TYPE_Q4_K);
    EXPECT_EQ(llama_quant_recipe_type("blk.0.attn_v.weight", info, p), GGML_TYPE_Q4_K);
    p.output_tensor_type   = GGML_TYPE_Q8_0;
    p.token_embedding_type = GGML_TYPE_F16;
    EXPECT_EQ(llama_quant_recipe_type("output.weight", info, p), GGML_TYPE_Q8_0);
    EXPECT_EQ(llama_quant_recipe_type("token_embd.weight", info, p), GGML_TYPE_F16);
    p                        = qparams(LLAMA_FTYPE_MOSTLY_Q4_0);
    p.quantize_output_tensor = false;
    EXPECT_EQ(llama_quant_recipe_type("output.weight", info, p), GGML_TYPE_COUNT);  // keep input type
}

TEST(QuantizeRecipe, WeightMatricesOnly) {
    EXPECT_TRUE(llama_quant_is_weight_matrix("blk.0.attn_q.weight", 2));
    EXPECT_FALSE(llama_quant_is_weight_matrix("blk.0.attn_norm.weight", 1));
    EXPECT_FALSE(llama_quant_is_weight_matrix("blk.0.attn_norm.weight", 2));
    EXPECT_FALSE(llama_quant_is_weight_matrix("blk.0.attn_q.bias", 1));
    EXPECT_FALSE(llama_quant_is_weight_matrix("blk.0.attn_q.weight", 1));
}

TEST(QuantizeRecipe, BlockSizeFallbacks) {
    EXPECT_EQ(llama_quant_fallback_type(GGML_TYPE_Q4_K, 512), GGML_TYPE_Q4_K);
    EXPECT_EQ(llama_quant_fallback_type(GGML_TYPE_Q4_K, 96), GGML_TYPE_Q5_0);
    EXPECT_EQ(llama_quant_fallback_type(GGML_TYPE_Q5_K, 96), GGML_TYPE_Q5_1);
    EXPECT_EQ(llama_quant_fallback_type(GGML_TYPE_Q6_K, 96), GGML_TYPE_Q8_0);
    EXPECT_EQ(llama_quant_fallback_type(GGML_TYPE_Q2_K, 64), GGML_TYPE_IQ4_NL);
    EXPECT_EQ(llama_quant_fallback_type(GGML_TYPE_Q3_K, 64), GGML_TYPE_IQ4_NL);
    EXPECT_EQ(llama_quant_fallback_type(GGML_TYPE_Q4_K, 100), GGML_TYPE_F16);
    EXPECT_EQ(llama_quant_fallback_type(GGML_TYPE_Q4_0, 48), GGML_TYPE_F16);
    EXPECT_EQ(llama_quant_fallback_type(GGML_TYPE_Q4_0, 64), GGML_TYPE_Q4_0);
    EXPECT_EQ(llama_quant_fallback_type(GGML_TYPE_F16, 7), GGML_TYPE_F16);
    EXPECT_EQ(llama_quant_fallback_type(GGML_TYPE_TQ1_0, 96), GGML_TYPE_Q4_0);
    EXPECT_EQ(llama_quant_fallback_type(GGML_TYPE_TQ2_0, 256), GGML_TYPE_TQ2_0);
    EXPECT_EQ(llama_quant_fallback_type(GGML_TYPE_MXFP4, 96), GGML_TYPE_MXFP4);
}

// ---- whole files --------------------------------------------------------------------------------

// Quantizes the model with each mix and checks every tensor against the plan and the original.
TEST_F(QuantizeTest, MixesRoundTripWithinBounds) {
    const std::string src = make_model();
    gguf_file         in(src);
    ASSERT_NE(in.g, nullptr);

    const llama_ftype mixes[] = {LLAMA_FTYPE_MOSTLY_Q8_0,     LLAMA_FTYPE_MOSTLY_Q4_0,  LLAMA_FTYPE_MOSTLY_Q4_K_M,
                                 LLAMA_FTYPE_MOSTLY_F16,      LLAMA_FTYPE_MOSTLY_TQ1_0, LLAMA_FTYPE_MOSTLY_TQ2_0,
                                 LLAMA_FTYPE_MOSTLY_MXFP4_MOE};
    for (llama_ftype ft : mixes) {
        SCOPED_TRACE(llama_model_ftype_name(ft));
        const std::string dst = temp("q.gguf");
        const auto        p   = qparams(ft);
        ASSERT_EQ(llama_model_quantize(src.c_str(), dst.c_str(), &p), 0u) << llama_last_error();
        gguf_file out(dst);
        ASSERT_NE(out.g, nullptr);

        // metadata: every input key copied (same type), file type and quantization version set
        ASSERT_EQ(gguf_get_n_tensors(out.g), gguf_get_n_tensors(in.g));
        for (int64_t k = 0; k < gguf_get_n_kv(in.g); k++) {
            const char *  key = gguf_get_key(in.g, k);
            const int64_t id  = gguf_find_key(out.g, key);
            ASSERT_GE(id, 0) << key;
            EXPECT_EQ(gguf_get_kv_type(out.g, id), gguf_get_kv_type(in.g, k)) << key;
        }
        EXPECT_STREQ(gguf_get_val_str(out.g, gguf_find_key(out.g, "general.name")), "synthetic-llama");
        EXPECT_EQ(gguf_get_arr_n(out.g, gguf_find_key(out.g, "tokenizer.ggml.tokens")), 320u);
        EXPECT_EQ(out.u32("general.file_type"), (uint32_t) ft);
        EXPECT_EQ(out.u32("general.quantization_version"), 2u);

        llama_quant_model_info info;
        info.n_layer = 2, info.n_gqa = 4, info.has_output = true;
        for (int64_t i = 0; i < gguf_get_n_tensors(in.g); i++) {
            const std::string name = gguf_get_tensor_name(in.g, i);
            SCOPED_TRACE(name);
            int64_t ne_in[4], ne_out[4];
            gguf_get_tensor_shape(in.g, i, ne_in);
            gguf_get_tensor_shape(out.g, out.tensor(name), ne_out);
            EXPECT_EQ(std::vector<int64_t>(ne_in, ne_in + 4), std::vector<int64_t>(ne_out, ne_out + 4));
            const ggml_type want = gguf_get_tensor_n_dims(in.g, i) == 1
                                       ? GGML_TYPE_F32
                                       : llama_quant_fallback_type(llama_quant_recipe_type(name, info, p), ne_in[0]);
            EXPECT_EQ(out.type(name), want);
            EXPECT_LT(rel_rmse(in.values(name), out.values(name)), bound(want));
        }
    }
}

TEST_F(QuantizeTest, Q4KMTypesOnDisk) {
    const std::string src = make_model(512, GGML_TYPE_F32, 8);
    const std::string dst = temp("q4km.gguf");
    const auto        p   = qparams(LLAMA_FTYPE_MOSTLY_Q4_K_M, 3);
    ASSERT_EQ(llama_model_quantize(src.c_str(), dst.c_str(), &p), 0u) << llama_last_error();
    gguf_file out(dst);
    ASSERT_NE(out.g, nullptr);
    EXPECT_EQ(out.type("output.weight"), GGML_TYPE_Q6_K);
    EXPECT_EQ(out.type("token_embd.weight"), GGML_TYPE_Q4_K);
    EXPECT_EQ(out.type("output_norm.weight"), GGML_TYPE_F32);
    // 8 layers: use_more_bits for 0, 3, 6, 7 (i < 1, i >= 7, (i - 1) % 3 == 2)
    for (int il = 0; il < 8; il++) {
        const bool        more = il == 0 || il == 3 || il == 6 || il == 7;
        const std::string b    = "blk." + std::to_string(il) + ".";
        EXPECT_EQ(out.type(b + "attn_v.weight"), more ? GGML_TYPE_Q6_K : GGML_TYPE_Q4_K) << il;
        EXPECT_EQ(out.type(b + "ffn_down.weight"), more ? GGML_TYPE_Q6_K : GGML_TYPE_Q4_K) << il;
        EXPECT_EQ(out.type(b + "attn_q.weight"), GGML_TYPE_Q4_K);
        EXPECT_EQ(out.type(b + "ffn_norm.weight"), GGML_TYPE_F32);
    }
}

TEST_F(QuantizeTest, RowsThatDoNotFitFallBack) {
    // ffn_down rows of 96 (fits 32, not 256) and of 100 (fits neither)
    for (int64_t n_ff : {96, 100}) {
        SCOPED_TRACE(n_ff);
        const std::string src = make_model(n_ff);
        const std::string dst = temp("fb.gguf");
        const auto        p   = qparams(LLAMA_FTYPE_MOSTLY_Q4_K_M);
        ASSERT_EQ(llama_model_quantize(src.c_str(), dst.c_str(), &p), 0u) << llama_last_error();
        gguf_file in(src), out(dst);
        ASSERT_NE(out.g, nullptr);
        // layer 0 is planned Q4_K (-> Q5_0), layer 1 (the last eighth) Q6_K (-> Q8_0); rows of 100 -> F16
        const ggml_type want[2] = {n_ff == 96 ? GGML_TYPE_Q5_0 : GGML_TYPE_F16,
                                   n_ff == 96 ? GGML_TYPE_Q8_0 : GGML_TYPE_F16};
        for (int il = 0; il < 2; il++) {
            const std::string name = "blk." + std::to_string(il) + ".ffn_down.weight";
            EXPECT_EQ(out.type(name), want[il]) << name;
            EXPECT_LT(rel_rmse(in.values(name), out.values(name)), bound(want[il])) << name;
        }
        EXPECT_EQ(out.type("blk.0.ffn_up.weight"), GGML_TYPE_Q4_K);  // rows of 256 still fit
        const auto p0 = qparams(LLAMA_FTYPE_MOSTLY_Q4_0);
        ASSERT_EQ(llama_model_quantize(src.c_str(), dst.c_str(), &p0), 0u) << llama_last_error();
        gguf_file out0(dst);
        EXPECT_EQ(out0.type("blk.0.ffn_down.weight"), n_ff == 96 ? GGML_TYPE_Q4_0 : GGML_TYPE_F16);
    }
}

// Rows are split over the threads (and the I/O pipelined): the bytes must not depend on either. The
// FFN matrices (256 x 1024) are big enough for up to four threads to share them.
TEST_F(QuantizeTest, SameBytesWhateverTheThreadCount) {
    const std::string src = make_model(1024, GGML_TYPE_F16);
    for (llama_ftype ft : {LLAMA_FTYPE_MOSTLY_Q4_0, LLAMA_FTYPE_MOSTLY_Q4_K_M, LLAMA_FTYPE_MOSTLY_Q5_1}) {
        SCOPED_TRACE(llama_model_ftype_name(ft));
        const std::string a  = temp("t1.gguf");
        const auto        p1 = qparams(ft, 1);
        ASSERT_EQ(llama_model_quantize(src.c_str(), a.c_str(), &p1), 0u) << llama_last_error();
        const auto fa = testing_util::read_file(a);
        EXPECT_FALSE(fa.empty());
        for (int nt : {2, 3, 4}) {
            const std::string b  = temp("tn.gguf");
            const auto        pn = qparams(ft, nt);
            ASSERT_EQ(llama_model_quantize(src.c_str(), b.c_str(), &pn), 0u) << llama_last_error();
            EXPECT_TRUE(fa == testing_util::read_file(b)) << nt << " threads";
        }
    }
}

TEST_F(QuantizeTest, F16AndBF16Inputs) {
    for (ggml_type t : {GGML_TYPE_F16, GGML_TYPE_BF16}) {
        SCOPED_TRACE(ggml_type_name(t));
        const std::string src = make_model(512, t);
        const std::string dst = temp("in16.gguf");
        auto              p   = qparams(LLAMA_FTYPE_MOSTLY_Q8_0);
        ASSERT_EQ(llama_model_quantize(src.c_str(), dst.c_str(), &p), 0u) << llama_last_error();
        gguf_file in(src), out(dst);
        EXPECT_EQ(out.type("blk.1.ffn_up.weight"), GGML_TYPE_Q8_0);
        EXPECT_LT(rel_rmse(in.values("blk.1.ffn_up.weight"), out.values("blk.1.ffn_up.weight")), 0.01);
        // ALL_F32 widens exactly
        p = qparams(LLAMA_FTYPE_ALL_F32);
        ASSERT_EQ(llama_model_quantize(src.c_str(), dst.c_str(), &p), 0u) << llama_last_error();
        gguf_file f32(dst);
        EXPECT_EQ(f32.type("blk.1.ffn_up.weight"), GGML_TYPE_F32);
        EXPECT_EQ(in.values("blk.1.ffn_up.weight"), f32.values("blk.1.ffn_up.weight"));
    }
}

TEST_F(QuantizeTest, RequantizeOnlyWhenAllowed) {
    const std::string src = make_model();
    const std::string q4 = temp("q4.gguf"), q8 = temp("q8.gguf");
    auto              p = qparams(LLAMA_FTYPE_MOSTLY_Q4_0);
    ASSERT_EQ(llama_model_quantize(src.c_str(), q4.c_str(), &p), 0u);
    p = qparams(LLAMA_FTYPE_MOSTLY_Q8_0);
    EXPECT_NE(llama_model_quantize(q4.c_str(), q8.c_str(), &p), 0u);
    EXPECT_NE(std::string(llama_last_error()).find("requantiz"), std::string::npos) << llama_last_error();
    EXPECT_TRUE(testing_util::read_file(q8).empty());  // no partial output left behind
    p.allow_requantize = true;
    ASSERT_EQ(llama_model_quantize(q4.c_str(), q8.c_str(), &p), 0u) << llama_last_error();
    gguf_file a(q4), b(q8);
    EXPECT_EQ(b.type("blk.0.attn_q.weight"), GGML_TYPE_Q8_0);
    EXPECT_LT(rel_rmse(a.values("blk.0.attn_q.weight"), b.values("blk.0.attn_q.weight")), 0.01);
}

TEST_F(QuantizeTest, CopyAndOverrides) {
    const std::string       src   = make_model();
    const std::string       dst   = temp("copy.gguf");
    llama_model_kv_override kv[3] = {};
    snprintf(kv[0].key, sizeof(kv[0].key), "general.name");
    kv[0].tag = LLAMA_KV_OVERRIDE_TYPE_STR;
    snprintf(kv[0].val_str, sizeof(kv[0].val_str), "renamed");
    snprintf(kv[1].key, sizeof(kv[1].key), "test.answer");
    kv[1].tag      = LLAMA_KV_OVERRIDE_TYPE_INT;
    kv[1].val_i64  = 42;
    auto p         = qparams(LLAMA_FTYPE_MOSTLY_Q4_0);
    p.only_copy    = true;
    p.kv_overrides = kv;
    ASSERT_EQ(llama_model_quantize(src.c_str(), dst.c_str(), &p), 0u) << llama_last_error();
    gguf_file in(src), out(dst);
    EXPECT_STREQ(gguf_get_val_str(out.g, gguf_find_key(out.g, "general.name")), "renamed");
    EXPECT_EQ(gguf_get_val_i32(out.g, gguf_find_key(out.g, "test.answer")), 42);
    EXPECT_EQ(out.u32("general.file_type"), 0u);  // the input's (F32)
    for (int64_t i = 0; i < gguf_get_n_tensors(in.g); i++) {
        const int64_t j = out.tensor(gguf_get_tensor_name(in.g, i));
        ASSERT_EQ(gguf_get_tensor_type(out.g, j), gguf_get_tensor_type(in.g, i));
        ASSERT_EQ(gguf_get_tensor_size(out.g, j), gguf_get_tensor_size(in.g, i));
        EXPECT_EQ(memcmp(gguf_get_tensor_data(out.g, j), gguf_get_tensor_data(in.g, i), gguf_get_tensor_size(in.g, i)),
                  0);
    }
}

TEST_F(QuantizeTest, ErrorsAreReturnedNotThrown) {
    const std::string src = make_model();
    const std::string dst = temp("err.gguf");
    auto              p   = qparams(LLAMA_FTYPE_MOSTLY_Q4_0);
    EXPECT_NE(llama_model_quantize("/nonexistent/model.gguf", dst.c_str(), &p), 0u);
    EXPECT_TRUE(testing_util::read_file(dst).empty());
    EXPECT_NE(llama_model_quantize(src.c_str(), src.c_str(), &p), 0u);  // would truncate the input
    EXPECT_NE(llama_model_quantize(nullptr, dst.c_str(), &p), 0u);
    EXPECT_NE(llama_model_quantize(src.c_str(), "/nonexistent/dir/out.gguf", &p), 0u);
    p = qparams((llama_ftype) 99);
    EXPECT_NE(llama_model_quantize(src.c_str(), dst.c_str(), &p), 0u);
    // a corrupt input: truncated file
    auto bytes = testing_util::read_file(src);
    bytes.resize(bytes.size() / 2);
    const std::string bad = testing_util::write_temp_file("trunc.gguf", bytes);
    files.push_back(bad);
    p = qparams(LLAMA_FTYPE_MOSTLY_Q4_0);
    EXPECT_NE(llama_model_quantize(bad.c_str(), dst.c_str(), &p), 0u);
    EXPECT_TRUE(testing_util::read_file(dst).empty());
}

TEST(QuantizeChunk, PublicEntryPointsMatchRowSizes) {
    std::vector<float> x(2 * 256);
    synth::fill_normal(x.data(), (int64_t) x.size(), 7, 1.0f);
    for (ggml_type t : {GGML_TYPE_Q4_0, GGML_TYPE_Q8_0, GGML_TYPE_Q4_K, GGML_TYPE_Q6_K, GGML_TYPE_F16, GGML_TYPE_MXFP4,
                        GGML_TYPE_TQ1_0, GGML_TYPE_TQ2_0}) {
        std::vector<uint8_t> q(ggml_row_size(t, 256) * 2);
        // the second row alone, addressed by `start`, lands at the second row's offset
        EXPECT_EQ(ggml_quantize_chunk(t, x.data(), q.data(), 256, 1, 256, nullptr), ggml_row_size(t, 256));
        std::vector<float> y(256);
        ASSERT_TRUE(ggml_dequantize_row(t, q.data() + ggml_row_size(t, 256), y.data(), 256));
        EXPECT_LT(rel_rmse(std::vector<float>(x.begin() + 256, x.end()), y), bound(t)) << ggml_type_name(t);
    }
    llama_log_set(quiet_log, nullptr);
    std::vector<uint8_t> q(1024);
    EXPECT_EQ(ggml_quantize_chunk(GGML_TYPE_Q4_K, x.data(), q.data(), 0, 1, 100, nullptr), 0u);  // 100 % 256
    EXPECT_EQ(ggml_quantize_chunk(GGML_TYPE_I32, x.data(), q.data(), 0, 1, 256, nullptr), 0u);
    // IQ2_XXS cannot be quantized into without an importance matrix (test-quantize-iq2.cpp has the rest)
    EXPECT_EQ(ggml_quantize_chunk(GGML_TYPE_IQ2_XXS, x.data(), q.data(), 0, 1, 256, nullptr), 0u);
    EXPECT_TRUE(ggml_quantize_requires_imatrix(GGML_TYPE_IQ2_XXS));
    EXPECT_FALSE(ggml_quantize_requires_imatrix(GGML_TYPE_TQ1_0));
    EXPECT_TRUE(ggml_dequantize_row(GGML_TYPE_IQ3_S, q.data(), x.data(), 256));
    EXPECT_FALSE(ggml_dequantize_row(GGML_TYPE_Q4_0, q.data(), x.data(), 33));
    llama_log_set(nullptr, nullptr);
}
