// The i-quant mixes (src/llama-quant-mix.cpp): the type every tensor of a synthetic model gets, recipe
// then block-size fallback, against the types llama.cpp's llama-quantize (4df29be4, --dry-run, no imatrix)
// chose for the same models. The models were made with
//   llama-gguf-synth --arch llama --n-layer 16 --n-embd 256 --n-ff 512 --n-head 8 --n-head-kv 2 --n-vocab 1000
//   llama-gguf-synth --arch llama --n-layer 16 --n-embd 256 --n-ff 768 --n-head 4 --n-head-kv 4 --n-vocab 1000 --tied
//   llama-gguf-synth --arch llama --n-layer 8 --n-embd 384 --n-head 6 --n-head-kv 2 --n-vocab 1000 --n-expert 8
//                    --n-expert-used 2 --n-ff-exp 512
// (model_cfg below lists the same shapes). Table lines: "kind type*layers ...|kind ...". One deliberate
// difference is edited in: a Q2_K tensor whose rows do not fit 256 falls back to IQ4_NL here (llama.cpp:
// Q4_0, same size), as in our other mixes (moe8 token_embd).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "../../examples/gguf-synth/gguf-synth.h"
#include "ggml.h"
#include "gguf.h"
#include "llama-model.h"
#include "llama-quant.h"
#include "llama.h"
#include "test-common.h"
#include "test-synth-model.h"

namespace {

struct model_cfg {
    const char * name;
    int          n_layer;
    int64_t      n_embd, n_ff, n_vocab;
    int          n_head, n_head_kv, n_expert;
    bool         tied;
};

const model_cfg k_models[] = {
    {"gqa4", 16, 256, 512, 1000, 8, 2, 0, false},
    {"tied", 16, 256, 768, 1000, 4, 4, 0, true},
    {"moe8", 8, 384, 512, 1000, 6, 2, 8, false},
};

struct mix_row {
    const char * model;
    llama_ftype  ftype;
    const char * types;
};

// clang-format off
const mix_row k_table[] = {
        {"gqa4", LLAMA_FTYPE_MOSTLY_IQ2_XXS, "output q5_K|token_embd q2_K|attn_k iq2_xxs*16|attn_output iq2_xxs*16|attn_q iq2_xxs*16|attn_v q4_K*16|ffn_down q2_K*2 iq2_xxs*14|ffn_gate iq2_xxs*16|ffn_up iq2_xxs*16"},
        {"gqa4", LLAMA_FTYPE_MOSTLY_IQ2_XS, "output q5_K|token_embd q2_K|attn_k iq2_xs*16|attn_output iq2_xs*16|attn_q iq2_xs*16|attn_v q4_K*16|ffn_down q2_K*2 iq2_xs*14|ffn_gate iq2_xs*16|ffn_up iq2_xs*16"},
        {"gqa4", LLAMA_FTYPE_MOSTLY_IQ2_S, "output q5_K|token_embd iq3_s|attn_k iq2_xs*16|attn_output iq3_s*16|attn_q iq2_xs*16|attn_v q4_K*16|ffn_down iq3_s*2 iq2_xs*14|ffn_gate iq2_xs*16|ffn_up iq2_xs*16"},
        {"gqa4", LLAMA_FTYPE_MOSTLY_IQ2_M, "output q5_K|token_embd iq3_s|attn_k iq2_s*16|attn_output iq3_s*16|attn_q iq2_s*16|attn_v q4_K*16|ffn_down iq3_s*2 iq2_s*14|ffn_gate iq2_s*16|ffn_up iq2_s*16"},
        {"gqa4", LLAMA_FTYPE_MOSTLY_IQ1_S, "output q5_K|token_embd q2_K|attn_k iq1_s*16|attn_output iq2_xxs*16|attn_q iq1_s*16|attn_v q4_K*16|ffn_down q2_K*2 iq1_s*14|ffn_gate iq1_s*16|ffn_up iq1_s*16"},
        {"gqa4", LLAMA_FTYPE_MOSTLY_IQ1_M, "output q5_K|token_embd q2_K|attn_k iq1_m*16|attn_output iq2_xxs*16|attn_q iq1_m*16|attn_v q4_K*16|ffn_down q2_K*2 iq1_m*14|ffn_gate iq1_m*16|ffn_up iq1_m*16"},
        {"gqa4", LLAMA_FTYPE_MOSTLY_IQ3_XXS, "output q5_K|token_embd iq3_s|attn_k iq2_s*16|attn_output iq3_s*16|attn_q iq2_s*16|attn_v q4_K*16|ffn_down q4_K*2 q3_K*14|ffn_gate iq3_xxs*16|ffn_up iq3_xxs*16"},
        {"gqa4", LLAMA_FTYPE_MOSTLY_IQ3_XS, "output q6_K|token_embd iq3_s|attn_k iq3_xxs*16|attn_output iq3_s*16|attn_q iq3_xxs*16|attn_v q4_K*16|ffn_down iq3_s*16|ffn_gate iq3_s*2 iq3_xxs*12 iq3_s*2|ffn_up iq3_s*2 iq3_xxs*12 iq3_s*2"},
        {"gqa4", LLAMA_FTYPE_MOSTLY_IQ3_S, "output q6_K|token_embd iq3_s|attn_k iq3_s*16|attn_output iq3_s*16|attn_q iq3_s*16|attn_v q4_K*16|ffn_down iq3_s*16|ffn_gate iq3_s*16|ffn_up iq3_s*16"},
        {"gqa4", LLAMA_FTYPE_MOSTLY_IQ3_M, "output q6_K|token_embd iq3_s|attn_k iq3_s*16|attn_output q4_K*16|attn_q iq3_s*16|attn_v q4_K*16|ffn_down q4_K*2 iq3_s*14|ffn_gate iq3_s*16|ffn_up iq3_s*16"},
        {"tied", LLAMA_FTYPE_MOSTLY_IQ2_XXS, "token_embd q5_K|attn_k iq2_xxs*16|attn_output iq2_xxs*16|attn_q iq2_xxs*16|attn_v q2_K*16|ffn_down q2_K*2 iq2_xxs*14|ffn_gate iq2_xxs*16|ffn_up iq2_xxs*16"},
        {"tied", LLAMA_FTYPE_MOSTLY_IQ2_XS, "token_embd q5_K|attn_k iq2_xs*16|attn_output iq2_xs*16|attn_q iq2_xs*16|attn_v q2_K*16|ffn_down q2_K*2 iq2_xs*14|ffn_gate iq2_xs*16|ffn_up iq2_xs*16"},
        {"tied", LLAMA_FTYPE_MOSTLY_IQ2_S, "token_embd q5_K|attn_k iq2_xs*16|attn_output iq3_s*16|attn_q iq2_xs*16|attn_v iq3_s*16|ffn_down iq3_s*2 iq2_xs*14|ffn_gate iq2_xs*16|ffn_up iq2_xs*16"},
        {"tied", LLAMA_FTYPE_MOSTLY_IQ2_M, "token_embd q5_K|attn_k iq2_s*16|attn_output iq3_s*16|attn_q iq2_s*16|attn_v iq3_s*16|ffn_down iq3_s*2 iq2_s*14|ffn_gate iq2_s*16|ffn_up iq2_s*16"},
        {"tied", LLAMA_FTYPE_MOSTLY_IQ1_S, "token_embd q5_K|attn_k iq1_s*16|attn_output iq2_xxs*16|attn_q iq1_s*16|attn_v q2_K*16|ffn_down q2_K*2 iq1_s*14|ffn_gate iq1_s*16|ffn_up iq1_s*16"},
        {"tied", LLAMA_FTYPE_MOSTLY_IQ1_M, "token_embd q5_K|attn_k iq1_m*16|attn_output iq2_xxs*16|attn_q iq1_m*16|attn_v q2_K*16|ffn_down q2_K*2 iq1_m*14|ffn_gate iq1_m*16|ffn_up iq1_m*16"},
        {"tied", LLAMA_FTYPE_MOSTLY_IQ3_XXS, "token_embd q5_K|attn_k iq2_s*16|attn_output iq3_s*16|attn_q iq2_s*16|attn_v iq3_s*16|ffn_down q4_K*2 q3_K*14|ffn_gate iq3_xxs*16|ffn_up iq3_xxs*16"},
        {"tied", LLAMA_FTYPE_MOSTLY_IQ3_XS, "token_embd q6_K|attn_k iq3_xxs*16|attn_output iq3_s*16|attn_q iq3_xxs*16|attn_v iq3_s*16|ffn_down iq3_s*16|ffn_gate iq3_s*2 iq3_xxs*12 iq3_s*2|ffn_up iq3_s*2 iq3_xxs*12 iq3_s*2"},
        {"tied", LLAMA_FTYPE_MOSTLY_IQ3_S, "token_embd q6_K|attn_k iq3_s*16|attn_output iq3_s*16|attn_q iq3_s*16|attn_v iq3_s*16|ffn_down iq3_s*16|ffn_gate iq3_s*16|ffn_up iq3_s*16"},
        {"tied", LLAMA_FTYPE_MOSTLY_IQ3_M, "token_embd q6_K|attn_k iq3_s*16|attn_output q4_K*16|attn_q iq3_s*16|attn_v q4_K*16|ffn_down q4_K*2 iq3_s*14|ffn_gate iq3_s*16|ffn_up iq3_s*16"},
        {"moe8", LLAMA_FTYPE_MOSTLY_IQ2_XXS, "output q8_0|token_embd iq4_nl|attn_k q5_0*8|attn_output q5_1*8|attn_q iq4_nl*8|attn_v q5_0*8|ffn_down_exps q2_K*1 iq2_xxs*7|ffn_gate_exps iq4_nl*8|ffn_up_exps iq4_nl*8"},
        {"moe8", LLAMA_FTYPE_MOSTLY_IQ2_XS, "output q8_0|token_embd iq4_nl|attn_k q5_0*8|attn_output q5_1*8|attn_q iq4_nl*8|attn_v q5_0*8|ffn_down_exps q2_K*1 iq2_xs*7|ffn_gate_exps iq4_nl*8|ffn_up_exps iq4_nl*8"},
        {"moe8", LLAMA_FTYPE_MOSTLY_IQ2_S, "output q8_0|token_embd iq4_nl|attn_k q5_0*8|attn_output q5_1*8|attn_q iq4_nl*8|attn_v q5_0*8|ffn_down_exps iq3_s*1 iq2_xs*7|ffn_gate_exps iq4_nl*8|ffn_up_exps iq4_nl*8"},
        {"moe8", LLAMA_FTYPE_MOSTLY_IQ2_M, "output q8_0|token_embd iq4_nl|attn_k q5_0*8|attn_output q5_1*8|attn_q iq4_nl*8|attn_v q5_0*8|ffn_down_exps iq3_s*1 iq2_s*7|ffn_gate_exps iq4_nl*8|ffn_up_exps iq4_nl*8"},
        {"moe8", LLAMA_FTYPE_MOSTLY_IQ1_S, "output q8_0|token_embd iq4_nl|attn_k q5_0*8|attn_output q5_1*8|attn_q iq4_nl*8|attn_v q5_0*8|ffn_down_exps q2_K*1 iq1_s*7|ffn_gate_exps iq4_nl*8|ffn_up_exps iq4_nl*8"},
        {"moe8", LLAMA_FTYPE_MOSTLY_IQ1_M, "output q8_0|token_embd iq4_nl|attn_k q5_0*8|attn_output q5_1*8|attn_q iq4_nl*8|attn_v q5_0*8|ffn_down_exps q2_K*1 iq1_m*7|ffn_gate_exps iq4_nl*8|ffn_up_exps iq4_nl*8"},
        {"moe8", LLAMA_FTYPE_MOSTLY_IQ3_XXS, "output q8_0|token_embd iq4_nl|attn_k q8_0*8|attn_output q5_1*8|attn_q iq4_nl*8|attn_v q8_0*8|ffn_down_exps q4_K*1 q3_K*7|ffn_gate_exps iq4_nl*8|ffn_up_exps iq4_nl*8"},
        {"moe8", LLAMA_FTYPE_MOSTLY_IQ3_XS, "output q8_0|token_embd iq4_nl|attn_k q8_0*8|attn_output q5_1*8|attn_q iq4_nl*8|attn_v q8_0*8|ffn_down_exps iq3_s*8|ffn_gate_exps iq4_nl*8|ffn_up_exps iq4_nl*8"},
        {"moe8", LLAMA_FTYPE_MOSTLY_IQ3_S, "output q8_0|token_embd iq4_nl|attn_k q8_0*8|attn_output q5_1*8|attn_q iq4_nl*8|attn_v q8_0*8|ffn_down_exps iq3_s*8|ffn_gate_exps iq4_nl*8|ffn_up_exps iq4_nl*8"},
        {"moe8", LLAMA_FTYPE_MOSTLY_IQ3_M, "output q8_0|token_embd iq4_nl|attn_k q8_0*8|attn_output q5_1*8|attn_q iq4_nl*8|attn_v q8_0*8|ffn_down_exps q4_K*1 iq3_s*2 q4_K*1 iq3_s*2 q4_K*2|ffn_gate_exps iq4_nl*8|ffn_up_exps iq4_nl*8"},
};
// clang-format on

struct tensor {
    std::string name;
    int64_t     ne0;
};

std::vector<tensor> tensors_of(const model_cfg & m) {
    std::vector<tensor> t = {{"token_embd.weight", m.n_embd}};
    if (!m.tied) {
        t.push_back({"output.weight", m.n_embd});
    }
    for (int il = 0; il < m.n_layer; il++) {
        const std::string b = "blk." + std::to_string(il) + ".";
        for (const char * k : {"attn_q", "attn_k", "attn_v", "attn_output"}) {
            t.push_back({b + k + ".weight", m.n_embd});
        }
        const char * sfx = m.n_expert > 0 ? "_exps.weight" : ".weight";
        t.push_back({b + "ffn_gate" + sfx, m.n_embd});
        t.push_back({b + "ffn_up" + sfx, m.n_embd});
        t.push_back({b + "ffn_down" + sfx, m.n_ff});
    }
    return t;
}

// "attn_v q4_K*2 iq2_xs*14|output q5_K" -> name -> type for every tensor of the model
std::map<std::string, std::string> expand(const std::string & table) {
    std::map<std::string, std::string> out;
    std::stringstream                  kinds(table);
    std::string                        part;
    while (std::getline(kinds, part, '|')) {
        std::stringstream ss(part);
        std::string       kind, run;
        ss >> kind;
        int il = 0;
        while (ss >> run) {
            const size_t star = run.find('*');
            if (star == std::string::npos) {
                out[kind + ".weight"] = run;
                continue;
            }
            const int n = std::stoi(run.substr(star + 1));
            for (int k = 0; k < n; k++, il++) {
                out["blk." + std::to_string(il) + "." + kind + ".weight"] = run.substr(0, star);
            }
        }
    }
    return out;
}

ggml_type chosen(const tensor & t, const llama_quant_model_info & info, const llama_model_quantize_params & p) {
    return llama_quant_fallback_type(llama_quant_recipe_type(t.name, info, p, t.ne0), t.ne0);
}

llama_quant_model_info info_of(const model_cfg & m) {
    llama_quant_model_info info;
    info.n_layer    = m.n_layer;
    info.n_gqa      = m.n_head / m.n_head_kv;
    info.has_output = !m.tied;
    info.n_expert   = m.n_expert;
    return info;
}

}  // namespace

TEST(QuantMix, EveryTensorAsLlamaCppChooses) {
    int n_checked = 0;
    for (const mix_row & row : k_table) {
        const model_cfg * m = nullptr;
        for (const auto & c : k_models) {
            m = std::string(c.name) == row.model ? &c : m;
        }
        ASSERT_NE(m, nullptr) << row.model;
        const llama_quant_model_info info = info_of(*m);
        llama_model_quantize_params  p    = llama_model_quantize_default_params();
        p.ftype                           = row.ftype;
        const auto want                   = expand(row.types);
        for (const tensor & t : tensors_of(*m)) {
            const auto it = want.find(t.name);
            ASSERT_NE(it, want.end()) << row.model << " " << t.name;
            EXPECT_EQ(ggml_type_name(chosen(t, info, p)), it->second)
                << row.model << " " << llama_model_ftype_name(row.ftype) << " " << t.name;
            n_checked++;
        }
    }
    EXPECT_EQ(n_checked, 10 * (2 + 16 * 7 + 1 + 16 * 7 + 2 + 8 * 7));  // 10 mixes x 3 models, all tensors
}

// With an importance matrix IQ3_XXS keeps attn_v (no GQA) and ffn_down in IQ3_XXS; without one it spends
// more bits there (IQ3_S; Q4_K in the first eighth of the layers, Q3_K after), as llama.cpp.
TEST(QuantMix, Iq3XxsSpendsBitsWithoutImatrix) {
    const model_cfg &              m       = k_models[1];
    const llama_quant_model_info   info    = info_of(m);
    llama_model_quantize_params    p       = llama_model_quantize_default_params();
    const llama_model_imatrix_data none[1] = {};
    p.ftype                                = LLAMA_FTYPE_MOSTLY_IQ3_XXS;
    const tensor v{"blk.5.attn_v.weight", 256}, d0{"blk.0.ffn_down.weight", 768}, d5{"blk.5.ffn_down.weight", 768};
    EXPECT_EQ(chosen(v, info, p), GGML_TYPE_IQ3_S);
    EXPECT_EQ(chosen(d0, info, p), GGML_TYPE_Q4_K);
    EXPECT_EQ(chosen(d5, info, p), GGML_TYPE_Q3_K);
    p.imatrix = none;
    EXPECT_EQ(chosen(v, info, p), GGML_TYPE_IQ3_XXS);
    EXPECT_EQ(chosen(d0, info, p), GGML_TYPE_IQ3_XXS);
    EXPECT_EQ(chosen(d5, info, p), GGML_TYPE_IQ3_XXS);
}

TEST(QuantMix, BaseTypesAndPure) {
    EXPECT_EQ(llama_quant_base_type(LLAMA_FTYPE_MOSTLY_IQ2_S), GGML_TYPE_IQ2_XS);
    EXPECT_EQ(llama_quant_base_type(LLAMA_FTYPE_MOSTLY_IQ2_M), GGML_TYPE_IQ2_S);
    EXPECT_EQ(llama_quant_base_type(LLAMA_FTYPE_MOSTLY_IQ3_M), GGML_TYPE_IQ3_S);
    EXPECT_EQ(llama_quant_base_type(LLAMA_FTYPE_MOSTLY_IQ1_M), GGML_TYPE_IQ1_M);
    llama_model_quantize_params p = llama_model_quantize_default_params();
    p.ftype                       = LLAMA_FTYPE_MOSTLY_IQ2_M;
    p.pure                        = true;
    EXPECT_EQ(llama_quant_recipe_type("output.weight", info_of(k_models[0]), p, 256), GGML_TYPE_IQ2_S);
    EXPECT_EQ(llama_quant_fallback_type(GGML_TYPE_IQ2_XXS, 384), GGML_TYPE_IQ4_NL);
    EXPECT_EQ(llama_quant_fallback_type(GGML_TYPE_IQ1_M, 48), GGML_TYPE_F16);
}

// End to end through llama_model_quantize: IQ2_M with "pure" puts every weight matrix in IQ2_S (which
// llama_model_quantize, as llama.cpp, refuses without an importance matrix: a uniform one is given); the
// file reads back within IQ2_S's error.
TEST(QuantMix, PureIq2MWritesIq2S) {
    const synth::params sp  = llama_test_util::superblock_llama();
    std::string         src = testing_util::write_temp_file("iq2m-src.gguf", {}), err;
    std::string         dst = testing_util::write_temp_file("iq2m-dst.gguf", {});
    ASSERT_TRUE(synth::write_model(sp, src, err)) << err;
    llama_model_quantize_params p = llama_model_quantize_default_params();
    p.ftype                       = LLAMA_FTYPE_MOSTLY_IQ2_M;
    p.pure                        = true;
    p.nthread                     = 2;
    EXPECT_NE(llama_model_quantize(src.c_str(), dst.c_str(), &p), 0u) << "IQ2_S needs an importance matrix";
    gguf_context *                        in = gguf_init_from_file(src.c_str(), {false});
    std::vector<std::string>              names;
    std::vector<std::vector<float>>       ones;
    std::vector<llama_model_imatrix_data> im;
    ASSERT_NE(in, nullptr);
    for (int64_t i = 0; i < gguf_get_n_tensors(in); i++) {
        int64_t ne[4];
        gguf_get_tensor_shape(in, i, ne);
        names.emplace_back(gguf_get_tensor_name(in, i));
        ones.emplace_back((size_t) (ne[0] * ne[2]), 1.0f);
    }
    for (size_t i = 0; i < names.size(); i++) {
        im.push_back({names[i].c_str(), ones[i].data(), ones[i].size()});
    }
    im.push_back({nullptr, nullptr, 0});
    p.imatrix = im.data();
    ASSERT_EQ(llama_model_quantize(src.c_str(), dst.c_str(), &p), 0u) << llama_last_error();
    gguf_context * out = gguf_init_from_file(dst.c_str(), {false});
    ASSERT_NE(out, nullptr);
    int n_iq2 = 0;
    for (int64_t i = 0; i < gguf_get_n_tensors(in); i++) {
        const char *  name = gguf_get_tensor_name(in, i);
        const int64_t o    = gguf_find_tensor(out, name);
        ASSERT_GE(o, 0) << name;
        if (gguf_get_tensor_n_dims(in, i) < 2) {
            continue;
        }
        ASSERT_EQ(gguf_get_tensor_type(out, o), GGML_TYPE_IQ2_S) << name;
        int64_t ne[4];
        gguf_get_tensor_shape(in, i, ne);
        const int64_t      n = ne[0] * ne[1] * ne[2] * ne[3];
        std::vector<float> y((size_t) n);
        const auto *       q = (const uint8_t *) gguf_get_tensor_data(out, o);
        for (int64_t r = 0; r < n / ne[0]; r++) {
            ASSERT_TRUE(ggml_dequantize_row(GGML_TYPE_IQ2_S, q + r * ggml_row_size(GGML_TYPE_IQ2_S, ne[0]),
                                            y.data() + r * ne[0], ne[0]));
        }
        const float * x   = (const float *) gguf_get_tensor_data(in, i);
        double        see = 0, sxx = 0;
        for (int64_t k = 0; k < n; k++) {
            see += ((double) x[k] - y[(size_t) k]) * ((double) x[k] - y[(size_t) k]);
            sxx += (double) x[k] * x[k];
        }
        EXPECT_LT(std::sqrt(see / sxx), 0.30) << name;
        n_iq2++;
    }
    EXPECT_EQ(n_iq2, 2 + 2 * 7);
    gguf_free(in);
    gguf_free(out);
    remove(src.c_str());
    remove(dst.c_str());
}
