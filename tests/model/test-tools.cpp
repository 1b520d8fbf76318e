// The model tools end to end: the synthetic generator reproduces the layouts of the synthetic
// models of every architecture; libllama loads what it writes and decodes with it; quantized copies
// (Q8_0, Q4_0, Q4_K_M) load, run, and give logits close to the unquantized model's.
#include "../../examples/gguf-synth/gguf-synth.h"
#include "gguf.h"
#include "llama.h"
#include "test-common.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using testing_util::data_path;

namespace {

void quiet_log(ggml_log_level, const char *, void *) {}

std::string temp_path(const std::string & stem) {
    std::string p = testing_util::write_temp_file(stem, {});
    remove(p.c_str());
    return p;
}

struct temp_file {
    std::string path;
    explicit temp_file(const std::string & stem) : path(temp_path(stem)) {}
    ~temp_file() { remove(path.c_str()); }
};

// Every key (name and type) and every tensor (name, type, shape, size) in order, as text.
std::string layout_of(const std::string & path) {
    gguf_context * g = gguf_init_from_file(path.c_str(), {true});
    if (!g) {
        return "(unreadable)";
    }
    std::string s;
    for (int64_t i = 0; i < gguf_get_n_kv(g); i++) {
        s += std::string(gguf_get_key(g, i)) + " " + gguf_type_name(gguf_get_kv_type(g, i)) + "\n";
    }
    for (int64_t i = 0; i < gguf_get_n_tensors(g); i++) {
        int64_t ne[4];
        gguf_get_tensor_shape(g, i, ne);
        char b[256];
        snprintf(b, sizeof(b), "%s %s [%lld %lld %lld %lld] %zu\n", gguf_get_tensor_name(g, i),
                 ggml_type_name(gguf_get_tensor_type(g, i)), (long long) ne[0], (long long) ne[1], (long long) ne[2],
                 (long long) ne[3], gguf_get_tensor_size(g, i));
        s += b;
    }
    gguf_free(g);
    return s;
}

synth::params tiny_llama(ggml_type type) {
    synth::params p;
    synth::apply_preset("tiny", p);  // 256 wide, 4 layers, n_ff 768: every K-quant fits
    p.type      = type;
    p.n_threads = 2;
    return p;
}

// Logits of a fixed prompt, then of 3 single-token steps with fixed tokens (not greedy: a quantized
// model may pick another token and the runs would no longer be comparable), concatenated.
std::vector<float> run_model(const std::string & path, std::string & err) {
    llama_model_params mp    = llama_model_default_params();
    llama_model *      model = llama_model_load_from_file(path.c_str(), mp);
    if (!model) {
        err = std::string("load failed: ") + llama_last_error();
        return {};
    }
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx                = 64;
    cp.n_threads = cp.n_threads_batch = 2;
    llama_context *    ctx            = llama_init_from_model(model, cp);
    std::vector<float> out;
    if (!ctx) {
        err = std::string("context failed: ") + llama_last_error();
        llama_model_free(model);
        return {};
    }
    const int                n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(model));
    std::vector<llama_token> prompt  = {1, 300, 301, 302, 400, 17, 99, 260};
    llama_token              steps[] = {5, 77, 123};
    for (int step = 0; step < 4; step++) {
        llama_token tok = step > 0 ? steps[step - 1] : 0;
        const int   rc  = step == 0 ? llama_decode(ctx, llama_batch_get_one(prompt.data(), (int) prompt.size()))
                                    : llama_decode(ctx, llama_batch_get_one(&tok, 1));
        if (rc != 0) {
            err = "decode failed: " + std::to_string(rc) + " " + llama_last_error();
            break;
        }
        const float * l = llama_get_logits_ith(ctx, -1);
        if (!l) {
            err = "no logits";
            break;
        }
        out.insert(out.end(), l, l + n_vocab);
    }
    llama_free(ctx);
    llama_model_free(model);
    return out;
}

// Correlation of two logit vectors (1 = same up to scale and offset).
double correlation(const std::vector<float> & a, const std::vector<float> & b) {
    double ma = 0, mb = 0;
    for (size_t i = 0; i < a.size(); i++) {
        ma += a[i], mb += b[i];
    }
    ma /= a.size(), mb /= b.size();
    double sab = 0, saa = 0, sbb = 0;
    for (size_t i = 0; i < a.size(); i++) {
        sab += (a[i] - ma) * (b[i] - mb), saa += (a[i] - ma) * (a[i] - ma), sbb += (b[i] - mb) * (b[i] - mb);
    }
    return sab / std::sqrt(saa * sbb);
}

struct ToolsTest : ::testing::Test {
    void SetUp() override { llama_log_set(quiet_log, nullptr); }
    void TearDown() override { llama_log_set(nullptr, nullptr); }
};

}  // namespace

// The generator's micro preset, with the vocab copied from the stored model, reproduces each stored
// synthetic model's keys and tensors exactly (names, order, types, shapes, sizes).
TEST_F(ToolsTest, GeneratorMatchesSharedSyntheticLayouts) {
    for (const std::string & file : synth::micro_model_files()) {
        SCOPED_TRACE(file);
        const std::string ref = data_path("models/synthetic/" + file + "-micro-f16.gguf");
        synth::params     p;
        ASSERT_TRUE(synth::apply_micro_model(file, p));
        p.vocab_path = ref;
        temp_file   f("micro.gguf");
        std::string err;
        ASSERT_TRUE(synth::write_model(p, f.path, err)) << err;
        EXPECT_EQ(layout_of(f.path), layout_of(ref));
    }
}

TEST_F(ToolsTest, GeneratorIsDeterministic) {
    temp_file     a("a.gguf"), b("b.gguf"), c("c.gguf");
    synth::params p = tiny_llama(GGML_TYPE_F16);
    std::string   err;
    ASSERT_TRUE(synth::write_model(p, a.path, err)) << err;
    p.n_threads = 1;  // the thread count must not matter
    ASSERT_TRUE(synth::write_model(p, b.path, err)) << err;
    p.seed = 7;
    ASSERT_TRUE(synth::write_model(p, c.path, err)) << err;
    const auto fa = testing_util::read_file(a.path), fb = testing_util::read_file(b.path),
               fc = testing_util::read_file(c.path);
    EXPECT_TRUE(fa == fb);
    EXPECT_EQ(fa.size(), fc.size());
    EXPECT_FALSE(fa == fc);
    p.arch = "mamba";
    EXPECT_FALSE(synth::write_model(p, c.path, err));
}

// What a file of an architecture cannot say is refused, not written as a model its loader rejects:
// llama's experts are n_ff wide (no expert_feed_forward_length), sliding-window flags are per layer.
TEST_F(ToolsTest, GeneratorRefusesKeysTheArchitectureDoesNotRead) {
    temp_file     f("x.gguf");
    synth::params p = tiny_llama(GGML_TYPE_F16);
    std::string   err;
    p.n_expert = 4, p.n_ff_exp = 32;
    EXPECT_FALSE(synth::write_model(p, f.path, err));
    EXPECT_NE(err.find("--n-ff-exp"), std::string::npos) << err;
    p.n_ff_exp = 0;
    ASSERT_TRUE(synth::write_model(p, f.path, err)) << err;  // Mixtral layout: experts of n_ff
    p.n_expert = 0, p.swa_flags.assign((size_t) p.n_layer, true);
    EXPECT_FALSE(synth::write_model(p, f.path, err));
    EXPECT_NE(err.find("gemma3"), std::string::npos) << err;
    p.arch = "gemma3";
    EXPECT_TRUE(synth::write_model(p, f.path, err)) << err;
    // latent attention only where the layout has it, and there always
    p.swa_flags.clear(), p.n_lora_kv = 32;
    EXPECT_FALSE(synth::write_model(p, f.path, err));
    EXPECT_NE(err.find("deepseek2"), std::string::npos) << err;
    p.arch = "deepseek2", p.n_lora_kv = 0, p.n_expert = 4;
    EXPECT_FALSE(synth::write_model(p, f.path, err));
    EXPECT_NE(err.find("latent attention"), std::string::npos) << err;
    // NextN blocks only where the layout has them, and fewer than the blocks
    p.arch = "llama", p.n_nextn = 1;
    EXPECT_FALSE(synth::write_model(p, f.path, err));
    EXPECT_NE(err.find("glm4moe"), std::string::npos) << err;
    p.arch = "glm4moe", p.n_nextn = p.n_layer;
    EXPECT_FALSE(synth::write_model(p, f.path, err));
    EXPECT_NE(err.find("--n-nextn"), std::string::npos) << err;
    // fused expert gate and up only where the layout has them
    p.arch = "llama", p.n_nextn = 0, p.exps_gate_up_fused = true;
    EXPECT_FALSE(synth::write_model(p, f.path, err));
    EXPECT_NE(err.find("--exps-gate-up"), std::string::npos) << err;
}

// A generated llama loads in libllama with the requested shape and decodes with finite, varied logits;
// its quantized copies stay close to it.
TEST_F(ToolsTest, GeneratedModelLoadsRunsAndQuantizes) {
    temp_file   f32("f32.gguf");
    std::string err;
    ASSERT_TRUE(synth::write_model(tiny_llama(GGML_TYPE_F32), f32.path, err)) << err;

    {
        llama_model * model = llama_model_load_from_file(f32.path.c_str(), llama_model_default_params());
        ASSERT_NE(model, nullptr) << "libllama could not load the generated model: " << llama_last_error();
        EXPECT_EQ(llama_model_n_embd(model), 256);
        EXPECT_EQ(llama_model_n_layer(model), 4);
        EXPECT_EQ(llama_model_n_head(model), 8);
        EXPECT_EQ(llama_model_n_head_kv(model), 4);
        EXPECT_EQ(llama_vocab_n_tokens(llama_model_get_vocab(model)), 512);
        llama_model_free(model);
    }
    const std::vector<float> ref = run_model(f32.path, err);
    ASSERT_FALSE(ref.empty()) << err;
    double sum = 0, sum2 = 0;
    for (float x : ref) {
        ASSERT_TRUE(std::isfinite(x));
        sum += x, sum2 += (double) x * x;
    }
    const double sd = std::sqrt(sum2 / ref.size() - (sum / ref.size()) * (sum / ref.size()));
    EXPECT_GT(sd, 1e-3);  // weights std 0.02: logits spread ~0.3, not collapsed, not exploding
    EXPECT_LT(sd, 10.0);

    struct mix {
        llama_ftype ft;
        double      min_corr;
    };
    for (const mix m : {mix{LLAMA_FTYPE_MOSTLY_F16, 0.9999}, mix{LLAMA_FTYPE_MOSTLY_Q8_0, 0.999},
                        mix{LLAMA_FTYPE_MOSTLY_Q4_K_M, 0.96}, mix{LLAMA_FTYPE_MOSTLY_Q4_0, 0.94}}) {
        SCOPED_TRACE(m.ft);
        temp_file                   q("q.gguf");
        llama_model_quantize_params qp = llama_model_quantize_default_params();
        qp.ftype                       = m.ft;
        qp.nthread                     = 2;
        ASSERT_EQ(llama_model_quantize(f32.path.c_str(), q.path.c_str(), &qp), 0u) << llama_last_error();
        const std::vector<float> got = run_model(q.path, err);
        ASSERT_EQ(got.size(), ref.size()) << err;
        EXPECT_GT(correlation(ref, got), m.min_corr);
    }
}

// With the tokenizer of a real vocab file the generated model tokenizes text like that vocab.
TEST_F(ToolsTest, GeneratedModelCarriesTheVocab) {
    temp_file     f("v.gguf");
    synth::params p = tiny_llama(GGML_TYPE_F16);
    p.n_layer       = 1;
    p.n_vocab       = 0;
    p.vocab_path    = data_path("vocab/ggml-vocab-llama-spm.gguf");
    std::string err;
    ASSERT_TRUE(synth::write_model(p, f.path, err)) << err;
    llama_model * model = llama_model_load_from_file(f.path.c_str(), llama_model_default_params());
    ASSERT_NE(model, nullptr) << llama_last_error();
    const llama_vocab * vocab = llama_model_get_vocab(model);
    EXPECT_EQ(llama_vocab_n_tokens(vocab), 32000);
    EXPECT_EQ(llama_vocab_bos(vocab), 1);
    llama_token toks[16];
    const int   n = llama_tokenize(vocab, "Hello world", 11, toks, 16, true, false);
    ASSERT_GE(n, 3);
    EXPECT_EQ(toks[0], 1);
    char        buf[64];
    std::string text;
    for (int i = 1; i < n; i++) {
        const int k = llama_token_to_piece(vocab, toks[i], buf, sizeof(buf), 0, false);
        ASSERT_GT(k, 0);
        text.append(buf, k);
    }
    EXPECT_EQ(text, " Hello world");
    llama_model_free(model);
}

// Every decoder architecture the generator writes, with its defaults (head size, window, experts where
// required), loads in libllama and decodes to finite logits.
TEST_F(ToolsTest, GeneratedDecodersLoadAndRun) {
    for (const synth::arch_info & ai : synth::arch_table()) {
        if (ai.encoder) {
            continue;
        }
        SCOPED_TRACE(ai.name);
        synth::params p;
        synth::apply_preset("micro", p);
        p.arch    = ai.name;
        p.n_vocab = 512;
        if (ai.needs_experts) {
            p.n_expert = 4;
        }
        // latent attention (deepseek2, kimi-linear), experts after leading dense layers and NextN blocks
        // (glm4moe), the delta-net hybrids (qwen3next, qwen35, qwen35moe: both layer kinds, the experts a
        // shared one), nemotron_h_moe (a shared expert): the micro shape
        if (ai.layout->has(LLM_TL_KV_SPLIT) || ai.layout->has(LLM_TL_NEXTN) || synth::delta_net_layout(*ai.layout) ||
            synth::ffn_blocks_are_experts(*ai.layout) || synth::kda_layout(*ai.layout)) {
            ASSERT_TRUE(synth::apply_micro_model(ai.name, p));
            p.n_vocab = 512;
        }
        temp_file   f("dec.gguf");
        std::string err;
        ASSERT_TRUE(synth::write_model(p, f.path, err)) << err;
        const std::vector<float> logits = run_model(f.path, err);
        ASSERT_FALSE(logits.empty()) << err;
        for (float x : logits) {
            ASSERT_TRUE(std::isfinite(x));
        }
    }
}
