// End-to-end agreement with the reference engine for every registered decoder architecture (the list
// comes from the registry, plus the generator's llama-moe variant) on their synthetic micro models
// (gemma3 and gpt-oss run past their sliding windows): the prompt's tokens, the greedy token of every
// step and every logit within 1% of the row RMS, with plain and with flash attention. Also checks
// that a multi-token batch gives the same rows as decoding token by token (the KV-cache path), and
// that nemotron_h_moe's experts with identity latent projections equal its experts without any.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "../../examples/gguf-synth/gguf-synth.h"
#include "ggml-backend.h"
#include "gguf.h"
#include "llama-arch.h"
#include "llama.h"
#include "micro-model-bounds.h"
#include "test-common.h"
#include "test-llama-util.h"
#include "test-synth-model.h"

using namespace llama_test_util;
using testing_util::data_path;
using testing_util::read_file;

namespace {

void quiet_log(ggml_log_level, const char *, void *) {}

// A reference run of tests/data/reference with its logits rows.
struct arch_reference : reference {
    std::vector<float> logits;  // one n_vocab row per step
};

arch_reference load_arch_reference(const std::string & name) {
    arch_reference r;
    static_cast<reference &>(r) = load_reference("reference/" + name + ".once.jsonl");
    r.logits                    = load_logits("reference/" + name + ".once.logits.f32");
    return r;
}

// Decodes toks as one batch of sequence 0 at positions 0..n-1, with logits for the rows where
// want(i) holds; llama_decode's result.
template <typename Want>
int decode_in_one_batch(llama_context * ctx, const std::vector<llama_token> & toks, Want want) {
    owned_batch b((int) toks.size(), 1);
    for (size_t i = 0; i < toks.size(); i++) {
        b.add(toks[i], (llama_pos) i, {0}, want(i));
    }
    return llama_decode(ctx, b.b);
}

// A micro model of tests/data/models/synthetic in F16 (nullptr when it does not load).
model_ptr load_micro_f16(const std::string & name) {
    const std::string path = data_path("models/synthetic/" + name + "-micro-f16.gguf");
    return model_ptr(llama_model_load_from_file(path.c_str(), llama_model_default_params()));
}

llama_context_params ctx_params(llama_flash_attn_type fa) {
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx                = 512;
    cp.n_batch              = 512;
    cp.n_threads            = 2;
    cp.n_threads_batch      = 2;
    cp.flash_attn_type      = fa;
    return cp;
}

// The micro models to check: every registered decoder architecture (test-arch-registry makes sure each
// has its model and reference), then the generator's variants of them (llama-moe).
std::vector<std::string> micro_models() {
    std::vector<std::string> names;
    for (int a = 0; a < (int) LLM_ARCH_COUNT; a++) {
        const std::string n = llm_arch_name((llm_arch) a);
        if (!synth::is_encoder_arch(n)) {
            names.push_back(n);
        }
    }
    for (const std::string & f : synth::micro_model_files()) {
        if (llm_arch_from_string(f) == LLM_ARCH_UNKNOWN) {
            names.push_back(f);
        }
    }
    return names;
}

// The micro models with experts.
std::vector<std::string> moe_micro_models() {
    std::vector<std::string> names;
    for (const std::string & f : micro_models()) {
        synth::params p;
        if (synth::apply_micro_model(f, p) && p.n_expert > 0) {
            names.push_back(f);
        }
    }
    return names;
}

class ArchE2E : public ::testing::TestWithParam<std::string> {
protected:
    static void SetUpTestSuite() {
        llama_log_set(quiet_log, nullptr);
        llama_backend_init();
    }
    std::string name() const { return GetParam() + "-micro-f16"; }
    model_ptr   load() const {
          return model_ptr(llama_model_load_from_file(data_path("models/synthetic/" + name() + ".gguf").c_str(),
                                                      llama_model_default_params()));
    }
};

}  // namespace

TEST_P(ArchE2E, MatchesReference) {
    model_ptr m = load();
    ASSERT_NE(m, nullptr) << llama_last_error();
    char desc[128];
    llama_model_desc(m.get(), desc, sizeof desc);
    // the variants: llama with experts, deepseek2 with a fused attn_kv_b or fused expert gate and up
    const std::string arch = GetParam() == "llama-moe"                                       ? "llama"
                             : GetParam() == "deepseek2-kvb" || GetParam() == "deepseek2-gu" ? "deepseek2"
                                                                                             : GetParam();
    EXPECT_EQ(std::string(desc).rfind(arch + " ", 0), 0u) << desc;

    const arch_reference r  = load_arch_reference(name());
    const int            nv = llama_vocab_n_tokens(llama_model_get_vocab(m.get()));
    ASSERT_FALSE(r.greedy.empty());
    ASSERT_EQ(r.logits.size(), r.greedy.size() * (size_t) nv);
    EXPECT_EQ(tokenize(m.get(), "Once upon a time"), r.prompt);

    for (llama_flash_attn_type fa : {LLAMA_FLASH_ATTN_TYPE_DISABLED, LLAMA_FLASH_ATTN_TYPE_ENABLED}) {
        ctx_ptr ctx(llama_init_from_model(m.get(), ctx_params(fa)));
        ASSERT_NE(ctx, nullptr) << llama_last_error();
        std::vector<llama_token> out;
        std::vector<float>       rows;
        run_greedy(ctx.get(), r.prompt, (int) r.greedy.size(), out, rows);
        EXPECT_EQ(out, r.greedy) << "flash_attn " << fa;
        ASSERT_EQ(rows.size(), r.logits.size());
        // the bounds per model, with what justifies them: tests/common/micro-model-bounds.h
        const micro_bounds::bounds & b     = micro_bounds::of(GetParam());
        double                       worst = 0;
        for (size_t s = 0; s < r.greedy.size(); s++) {
            const double e = max_err_rel_rms(rows.data() + s * nv, r.logits.data() + s * nv, nv);
            EXPECT_LT(e, b.ref_step) << name() << " flash_attn " << fa << " step " << s;
            worst = std::max(worst, e);
        }
        printf("%s flash_attn=%d: %zu steps, max |logit error| / row RMS = %.2e\n", name().c_str(), (int) fa,
               r.greedy.size(), worst);
        EXPECT_LT(worst, b.ref_worst) << name() << " flash_attn " << fa;
    }
}

TEST_P(ArchE2E, BatchedPrefillMatchesTokenByToken) {
    model_ptr m = load();
    ASSERT_NE(m, nullptr) << llama_last_error();
    const int                nv   = llama_vocab_n_tokens(llama_model_get_vocab(m.get()));
    std::vector<llama_token> toks = tokenize(m.get(), "Once upon a time there was a little dog");
    ASSERT_GT(toks.size(), 4u);

    ctx_ptr a(llama_init_from_model(m.get(), ctx_params(LLAMA_FLASH_ATTN_TYPE_DISABLED)));
    ASSERT_EQ(decode_in_one_batch(a.get(), toks, [](size_t) { return true; }), 0) << llama_last_error();
    const std::vector<float> batched(llama_get_logits(a.get()), llama_get_logits(a.get()) + toks.size() * nv);

    ctx_ptr c(llama_init_from_model(m.get(), ctx_params(LLAMA_FLASH_ATTN_TYPE_DISABLED)));
    for (size_t i = 0; i < toks.size(); i++) {
        ASSERT_EQ(llama_decode(c.get(), llama_batch_get_one(&toks[i], 1)), 0) << llama_last_error();
        const float * lg = llama_get_logits_ith(c.get(), -1);
        EXPECT_LT(max_err_rel_rms(lg, batched.data() + i * nv, nv), 1e-2) << name() << " position " << i;
    }
}

// RMS of (a - b) relative to b's RMS: the typical error (the max over a 32000-logit row of a
// quantized random model is a 4-5 sigma outlier).
double rms_err_rel_rms(const float * a, const float * b, int n) {
    double e2 = 0, r2 = 0;
    for (int i = 0; i < n; i++) {
        e2 += (double) (a[i] - b[i]) * (a[i] - b[i]);
        r2 += (double) b[i] * b[i];
    }
    return r2 > 0 ? std::sqrt(e2 / r2) : 1.0;
}

// Quantized copies (Q8_0, Q4_0) against the F16 reference, teacher-forced with the reference's tokens
// (one batch: prompt + greedy tokens), so a flipped near-tie cannot derail the later rows; the bounds per
// model (tests/common/micro-model-bounds.h) leave ~2x over the measured error, while a wrong quantized
// path (e.g. experts read from the wrong rows) gives ~100%. MXFP4_MOE puts the experts (llama-moe,
// qwen3moe, gpt-oss) in MXFP4 and the rest in Q8_0.
TEST_P(ArchE2E, QuantizedStaysNearReference) {
    const arch_reference         r = load_arch_reference(name());
    const micro_bounds::bounds & b = micro_bounds::of(GetParam());
    struct qcase {
        llama_ftype ft;
        double      bound;  // 0: not checked
    };
    for (const qcase qc : {qcase{LLAMA_FTYPE_MOSTLY_Q8_0, b.q8_0}, qcase{LLAMA_FTYPE_MOSTLY_Q4_0, b.q4_0},
                           qcase{LLAMA_FTYPE_MOSTLY_MXFP4_MOE, b.mxfp4_moe}}) {
        if (qc.bound <= 0) {
            continue;
        }
        const std::string           out = testing_util::write_temp_file(name() + "-q.gguf", {});
        llama_model_quantize_params qp  = llama_model_quantize_default_params();
        qp.ftype                        = qc.ft;
        qp.nthread                      = 2;
        const std::string in            = data_path("models/synthetic/" + name() + ".gguf");
        ASSERT_EQ(llama_model_quantize(in.c_str(), out.c_str(), &qp), 0u) << llama_last_error();
        model_ptr m(llama_model_load_from_file(out.c_str(), llama_model_default_params()));
        remove(out.c_str());
        ASSERT_NE(m, nullptr) << llama_last_error();
        const int                nv   = llama_vocab_n_tokens(llama_model_get_vocab(m.get()));
        std::vector<llama_token> toks = r.prompt;
        toks.insert(toks.end(), r.greedy.begin(), r.greedy.end() - 1);
        ctx_ptr ctx(llama_init_from_model(m.get(), ctx_params(LLAMA_FLASH_ATTN_TYPE_DISABLED)));
        ASSERT_EQ(decode_in_one_batch(ctx.get(), toks, [&](size_t i) { return i + 1 >= r.prompt.size(); }), 0)
            << llama_last_error();
        double worst = 0;
        for (size_t s = 0; s < r.greedy.size(); s++) {
            const float * lg = llama_get_logits_ith(ctx.get(), (int) (r.prompt.size() - 1 + s));
            ASSERT_NE(lg, nullptr);
            worst = std::max(worst, rms_err_rel_rms(lg, r.logits.data() + s * nv, nv));
        }
        const char * ft_name = qc.ft == LLAMA_FTYPE_MOSTLY_Q8_0   ? "Q8_0"
                               : qc.ft == LLAMA_FTYPE_MOSTLY_Q4_0 ? "Q4_0"
                                                                  : "MXFP4_MOE";
        printf("%s %s: RMS of the logit error / row RMS = %.2e\n", name().c_str(), ft_name, worst);
        EXPECT_LT(worst, qc.bound) << name() << " ftype " << qc.ft;
    }
}

INSTANTIATE_TEST_SUITE_P(Synthetic, ArchE2E, ::testing::ValuesIn(micro_models()),
                         [](const ::testing::TestParamInfo<std::string> & info) {
                             std::string n = info.param;
                             std::replace(n.begin(), n.end(), '-', '_');
                             return n;
                         });

// The synthetic gemma2's attention barely moves its logits (even uniform attention changes them by
// < 0.1% of the RMS), so the reference cannot see the attention soft-cap. These tests check it
// directly: the eval callback captures layer 0's scores before and after capping, with the caps
// overridden to small values where tanh saturates.
struct captured {
    std::vector<float> kq, kq_capped;
};

bool capture_cb(ggml_tensor * t, bool ask, void * ud) {
    const std::string name = ggml_get_name(t);
    const bool        want = name == "kq-0" || name == "kq_softcap-0";
    if (ask || !want) {
        return want || ask == false;
    }
    auto &             c = *(captured *) ud;
    std::vector<float> v(ggml_nelements(t));
    ggml_backend_tensor_get(t, v.data(), 0, v.size() * sizeof(float));
    (name == "kq-0" ? c.kq : c.kq_capped) = v;
    return true;
}

model_ptr load_gemma2(float attn_cap, float final_cap) {
    llama_model_kv_override kvo[3] = {};
    kvo[0].tag                     = LLAMA_KV_OVERRIDE_TYPE_FLOAT;
    snprintf(kvo[0].key, sizeof kvo[0].key, "gemma2.attn_logit_softcapping");
    kvo[0].val_f64 = attn_cap;
    kvo[1].tag     = LLAMA_KV_OVERRIDE_TYPE_FLOAT;
    snprintf(kvo[1].key, sizeof kvo[1].key, "gemma2.final_logit_softcapping");
    kvo[1].val_f64        = final_cap;
    llama_model_params mp = llama_model_default_params();
    mp.kv_overrides       = kvo;
    return model_ptr(llama_model_load_from_file(data_path("models/synthetic/gemma2-micro-f16.gguf").c_str(), mp));
}

std::vector<float> last_row(llama_model * m, llama_flash_attn_type fa, captured * cap = nullptr) {
    llama_context_params cp = ctx_params(fa);
    if (cap) {
        cp.cb_eval           = capture_cb;
        cp.cb_eval_user_data = cap;
    }
    ctx_ptr                  ctx(llama_init_from_model(m, cp));
    std::vector<llama_token> toks = tokenize(m, "Once upon a time there was a little dog");
    EXPECT_EQ(llama_decode(ctx.get(), llama_batch_get_one(toks.data(), (int) toks.size())), 0);
    const int     nv = llama_vocab_n_tokens(llama_model_get_vocab(m));
    const float * lg = llama_get_logits_ith(ctx.get(), -1);
    return lg ? std::vector<float>(lg, lg + nv) : std::vector<float>();
}

// Largest |(a - a0) - (b - b0)| relative to the largest |b - b0|: how well two paths agree on the
// change a setting makes (their common rounding differences cancel).
double delta_mismatch(const std::vector<float> & a, const std::vector<float> & a0, const std::vector<float> & b,
                      const std::vector<float> & b0) {
    double worst = 0, ref = 0;
    for (size_t i = 0; i < a.size(); i++) {
        worst = std::max(worst, (double) std::fabs((a[i] - a0[i]) - (b[i] - b0[i])));
        ref   = std::max(ref, (double) std::fabs(b[i] - b0[i]));
    }
    return ref > 0 ? worst / ref : 1.0;
}

TEST(ArchE2EGemma2, AttentionScoresAreSoftCapped) {
    llama_log_set(quiet_log, nullptr);
    const float scale = 1.0f / 4.0f;  // 1/sqrt(head_dim 16)
    model_ptr   m50   = load_gemma2(50.0f, 30.0f);
    ASSERT_NE(m50, nullptr) << llama_last_error();
    captured c50;
    last_row(m50.get(), LLAMA_FLASH_ATTN_TYPE_DISABLED, &c50);
    ASSERT_FALSE(c50.kq.empty());
    float max_score = 0;
    for (float x : c50.kq) {
        max_score = std::max(max_score, std::fabs(x * scale));
    }
    ASSERT_GT(max_score, 0.0f);

    // a cap at a quarter of the largest score: tanh bends the large ones hard
    const float cap = max_score / 4;
    model_ptr   m   = load_gemma2(cap, 30.0f);
    ASSERT_NE(m, nullptr) << llama_last_error();
    captured c;
    last_row(m.get(), LLAMA_FLASH_ATTN_TYPE_DISABLED, &c);
    ASSERT_EQ(c.kq.size(), c.kq_capped.size());
    int saturated = 0;
    for (size_t i = 0; i < c.kq.size(); i++) {
        const float want = cap * std::tanh(c.kq[i] * scale / cap);
        ASSERT_NEAR(c.kq_capped[i], want, 1e-3f * cap) << i;
        saturated += std::fabs(c.kq[i] * scale) > 2 * cap;
    }
    EXPECT_GT(saturated, 0) << "the cap never bent a score: the check would not see a missing tanh";

    // flash attention applies the cap inside the fused op: it must move the logits the way the
    // plain path does
    const std::vector<float> plain  = last_row(m.get(), LLAMA_FLASH_ATTN_TYPE_DISABLED);
    const std::vector<float> flash  = last_row(m.get(), LLAMA_FLASH_ATTN_TYPE_ENABLED);
    const std::vector<float> plain0 = last_row(m50.get(), LLAMA_FLASH_ATTN_TYPE_DISABLED);
    const std::vector<float> flash0 = last_row(m50.get(), LLAMA_FLASH_ATTN_TYPE_ENABLED);
    ASSERT_EQ(plain.size(), flash.size());
    const double mism = delta_mismatch(flash, flash0, plain, plain0);
    printf("attn cap %g: |capped - uncapped| %.2e of the row RMS; flash vs plain on that change: %.2e\n", cap,
           max_err_rel_rms(plain.data(), plain0.data(), (int) plain.size()), mism);
    EXPECT_LT(mism, 0.3);  // ~0.1 from F16 rounding; a flash path without the cap gives ~1
}

TEST(ArchE2EGemma2, FinalLogitsAreSoftCapped) {
    llama_log_set(quiet_log, nullptr);
    model_ptr m50 = load_gemma2(50.0f, 30.0f);
    ASSERT_NE(m50, nullptr) << llama_last_error();
    const std::vector<float> base = last_row(m50.get(), LLAMA_FLASH_ATTN_TYPE_DISABLED);
    float                    mx   = 0;
    for (float x : base) {
        mx = std::max(mx, std::fabs(x));
    }
    ASSERT_GT(mx, 0.0f);
    const float cap = mx / 4;
    model_ptr   m   = load_gemma2(50.0f, cap);
    ASSERT_NE(m, nullptr) << llama_last_error();
    const std::vector<float> capped = last_row(m.get(), LLAMA_FLASH_ATTN_TYPE_DISABLED);
    ASSERT_EQ(capped.size(), base.size());
    int bent = 0;
    for (size_t i = 0; i < base.size(); i++) {
        // base's own cap (30) is the identity at these magnitudes
        ASSERT_LE(std::fabs(capped[i]), cap) << i;
        ASSERT_NEAR(capped[i], cap * std::tanh(base[i] / cap), 1e-3f * cap) << i;
        bent += std::fabs(base[i]) > 2 * cap;
    }
    EXPECT_GT(bent, 0);
}

// Sliding window: gemma2's even layers attend over the last n_swa positions only. With the window
// overridden to 4, layer 0's attention probabilities (captured by the eval callback) must be exactly
// zero for cells 4 or more positions back and positive inside the window, while layer 1 (global)
// keeps weight on every earlier position.
struct captured_probs {
    std::vector<float>   p0, p1;
    std::vector<int64_t> ne0;
};

bool capture_probs_cb(ggml_tensor * t, bool ask, void * ud) {
    const std::string name = ggml_get_name(t);
    const bool        want = name == "kq_soft_max-0" || name == "kq_soft_max-1";
    if (ask || !want) {
        return want || ask == false;
    }
    auto &             c = *(captured_probs *) ud;
    std::vector<float> v(ggml_nelements(t));
    ggml_backend_tensor_get(t, v.data(), 0, v.size() * sizeof(float));
    if (name == "kq_soft_max-0") {
        c.p0  = v;
        c.ne0 = {t->ne[0], t->ne[1], t->ne[2]};
    } else {
        c.p1 = v;
    }
    return true;
}

TEST(ArchE2ESwa, Gemma2LocalLayersMaskPastTheWindow) {
    llama_log_set(quiet_log, nullptr);
    const int n_swa = 4;
    model_ptr m     = load_with_override(data_path("models/synthetic/gemma2-micro-f16.gguf"),
                                         "gemma2.attention.sliding_window", n_swa);
    ASSERT_NE(m, nullptr) << llama_last_error();
    EXPECT_EQ(llama_model_n_swa(m.get()), n_swa);

    llama_context_params cp = ctx_params(LLAMA_FLASH_ATTN_TYPE_DISABLED);
    captured_probs       c;
    cp.cb_eval           = capture_probs_cb;
    cp.cb_eval_user_data = &c;
    ctx_ptr                  ctx(llama_init_from_model(m.get(), cp));
    std::vector<llama_token> toks = tokenize(m.get(), "Once upon a time there was a little dog");
    const int                n    = (int) toks.size();
    ASSERT_GT(n, 2 * n_swa);
    ASSERT_EQ(llama_decode(ctx.get(), llama_batch_get_one(toks.data(), n)), 0) << llama_last_error();
    ASSERT_EQ(c.ne0.size(), 3u);
    ASSERT_EQ(c.p0.size(), c.p1.size());
    const int64_t n_kv = c.ne0[0], n_rows = c.ne0[1], n_head = c.ne0[2];
    ASSERT_GE(n_kv, n);
    ASSERT_GE(n_rows, n);
    int masked = 0;
    for (int64_t h = 0; h < n_head; h++) {
        for (int t = 0; t < n; t++) {
            const float * r0 = c.p0.data() + (h * n_rows + t) * n_kv;
            const float * r1 = c.p1.data() + (h * n_rows + t) * n_kv;
            for (int j = 0; j <= t; j++) {
                if (t - j >= n_swa) {
                    EXPECT_EQ(r0[j], 0.0f) << "head " << h << " token " << t << " cell " << j;
                    EXPECT_GT(r1[j], 0.0f) << "the global layer lost cell " << j;
                    masked++;
                } else {
                    EXPECT_GT(r0[j], 0.0f) << "head " << h << " token " << t << " cell " << j;
                }
            }
        }
    }
    EXPECT_GT(masked, 0);
}

// The gemma3 and gpt-oss references run past their 8-token windows: with the window widened beyond
// the context (the local layers then attend over everything) the logits must move far from the
// reference, so MatchesReference checks the window.
TEST(ArchE2ESwa, ReferencesSeeTheWindow) {
    llama_log_set(quiet_log, nullptr);
    for (const char * arch : {"gemma3", "gpt-oss"}) {
        SCOPED_TRACE(arch);
        const std::string name = std::string(arch) + "-micro-f16";
        model_ptr         m    = load_with_override(data_path("models/synthetic/" + name + ".gguf"),
                                                    std::string(arch) + ".attention.sliding_window", 4096);
        ASSERT_NE(m, nullptr) << llama_last_error();
        const arch_reference r  = load_arch_reference(name);
        const int            nv = llama_vocab_n_tokens(llama_model_get_vocab(m.get()));
        ctx_ptr              ctx(llama_init_from_model(m.get(), ctx_params(LLAMA_FLASH_ATTN_TYPE_DISABLED)));
        ASSERT_NE(ctx, nullptr) << llama_last_error();
        std::vector<llama_token> out;
        std::vector<float>       rows;
        run_greedy(ctx.get(), r.prompt, (int) r.greedy.size(), out, rows);
        ASSERT_EQ(rows.size(), r.logits.size());
        double worst = 0;
        for (size_t s = 0; s < r.greedy.size(); s++) {
            worst = std::max(worst, max_err_rel_rms(rows.data() + s * nv, r.logits.data() + s * nv, nv));
        }
        printf("%s without its window: max |logit error| / row RMS = %.2e\n", arch, worst);
        EXPECT_GT(worst, 0.1);
    }
}

// The architecture keys the newer micro models carry change their references far beyond the
// MatchesReference bound when dropped or reset to a plain value, so that test checks each one:
// granite's multipliers and its rope switch, mistral3's attention temperature, exaone4's window,
// deepseek2's and glm4moe's routing, glm4moe's partial rotary and its NextN block left out.
TEST(ArchE2EKeys, ReferencesSeeTheArchitectureKeys) {
    llama_log_set(quiet_log, nullptr);
    struct key_case {
        const char *                 model;
        const char *                 key;
        llama_model_kv_override_type tag;
        double                       value;
    };
    const key_case cases[] = {
        {"granite", "granite.embedding_scale", LLAMA_KV_OVERRIDE_TYPE_FLOAT, 1.0},
        {"granite", "granite.residual_scale", LLAMA_KV_OVERRIDE_TYPE_FLOAT, 1.0},
        {"granite", "granite.attention.scale", LLAMA_KV_OVERRIDE_TYPE_FLOAT, 0.25},  // 1/sqrt(head size)
        {"granite", "granite.logit_scale", LLAMA_KV_OVERRIDE_TYPE_FLOAT, 1.0},
        {"granitemoe", "granitemoe.residual_scale", LLAMA_KV_OVERRIDE_TYPE_FLOAT, 1.0},
        {"granitehybrid", "granitehybrid.embedding_scale", LLAMA_KV_OVERRIDE_TYPE_FLOAT, 1.0},
        {"granitehybrid", "granitehybrid.residual_scale", LLAMA_KV_OVERRIDE_TYPE_FLOAT, 1.0},
        {"granitehybrid", "granitehybrid.attention.scale", LLAMA_KV_OVERRIDE_TYPE_FLOAT, 0.25},
        {"granitehybrid", "granitehybrid.logit_scale", LLAMA_KV_OVERRIDE_TYPE_FLOAT, 1.0},
        {"mistral3", "mistral3.attention.temperature_scale", LLAMA_KV_OVERRIDE_TYPE_FLOAT, 0.0},
        {"exaone4", "exaone4.attention.sliding_window", LLAMA_KV_OVERRIDE_TYPE_INT, 4096},
        // deepseek2: one group (no group masking), softmax scores, unscaled weights, no mscale_all_dim
        {"deepseek2", "deepseek2.expert_group_count", LLAMA_KV_OVERRIDE_TYPE_INT, 1},
        {"deepseek2", "deepseek2.expert_gating_func", LLAMA_KV_OVERRIDE_TYPE_INT, 1},
        {"deepseek2", "deepseek2.expert_weights_scale", LLAMA_KV_OVERRIDE_TYPE_FLOAT, 1.0},
        {"deepseek2", "deepseek2.rope.scaling.yarn_log_multiplier", LLAMA_KV_OVERRIDE_TYPE_FLOAT, 0.0},
        // glm4moe: softmax scores, unscaled and not renormalised weights, every head dim rotated, and
        // the NextN block run as a fourth decoder block
        {"glm4moe", "glm4moe.expert_gating_func", LLAMA_KV_OVERRIDE_TYPE_INT, 1},
        {"glm4moe", "glm4moe.expert_weights_scale", LLAMA_KV_OVERRIDE_TYPE_FLOAT, 1.0},
        {"glm4moe", "glm4moe.expert_weights_norm", LLAMA_KV_OVERRIDE_TYPE_BOOL, 0},
        {"glm4moe", "glm4moe.rope.dimension_count", LLAMA_KV_OVERRIDE_TYPE_INT, 32},
        {"glm4moe", "glm4moe.nextn_predict_layers", LLAMA_KV_OVERRIDE_TYPE_INT, 0},
    };
    for (const key_case & c : cases) {
        SCOPED_TRACE(c.key);
        const std::string name = std::string(c.model) + "-micro-f16";
        model_ptr m = load_with_override(data_path("models/synthetic/" + name + ".gguf"), c.key, c.tag, c.value);
        ASSERT_NE(m, nullptr) << llama_last_error();
        const arch_reference r  = load_arch_reference(name);
        const int            nv = llama_vocab_n_tokens(llama_model_get_vocab(m.get()));
        ctx_ptr              ctx(llama_init_from_model(m.get(), ctx_params(LLAMA_FLASH_ATTN_TYPE_DISABLED)));
        ASSERT_NE(ctx, nullptr) << llama_last_error();
        std::vector<llama_token> out;
        std::vector<float>       rows;
        run_greedy(ctx.get(), r.prompt, (int) r.greedy.size(), out, rows);
        ASSERT_EQ(rows.size(), r.logits.size());
        double worst = 0;
        for (size_t s = 0; s < r.greedy.size(); s++) {
            worst = std::max(worst, max_err_rel_rms(rows.data() + s * nv, r.logits.data() + s * nv, nv));
        }
        printf("%s with %s reset: max |logit error| / row RMS = %.2e\n", c.model, c.key, worst);
        EXPECT_GT(worst, 2e-2);
    }
}

// Keys whose values the graph cannot use are refused at load with a message, not run: granite's logit
// divisor 0, mistral3's attention temperature without an original context length to step it by,
// NextN layers (glm4, exaone4) the block count would include, a gating function glm4moe does not have.
TEST(ArchE2EKeys, UnusableKeyValuesAreRefused) {
    llama_log_set(quiet_log, nullptr);
    struct bad_case {
        const char *                 model;
        const char *                 key;
        llama_model_kv_override_type tag;
        const char *                 message;
    };
    const bad_case cases[] = {
        {"granite", "granite.logit_scale", LLAMA_KV_OVERRIDE_TYPE_FLOAT, "logit_scale"},
        {"mistral3", "mistral3.rope.scaling.original_context_length", LLAMA_KV_OVERRIDE_TYPE_INT, "original context"},
        {"glm4", "glm4.nextn_predict_layers", LLAMA_KV_OVERRIDE_TYPE_INT, "NextN"},
        {"exaone4", "exaone4.nextn_predict_layers", LLAMA_KV_OVERRIDE_TYPE_INT, "NextN"},
        {"deepseek2", "deepseek2.attention.key_length_mla", LLAMA_KV_OVERRIDE_TYPE_INT, "latent attention"},
        {"deepseek2", "deepseek2.expert_group_used_count", LLAMA_KV_OVERRIDE_TYPE_INT, "expert groups"},
        {"glm4moe", "glm4moe.expert_gating_func", LLAMA_KV_OVERRIDE_TYPE_INT, "expert_gating_func"},
    };
    for (const bad_case & c : cases) {
        SCOPED_TRACE(c.key);
        // 3: a gating function other than softmax (1) and sigmoid (2; 0 means it for glm4moe)
        const std::string msg   = c.message;
        const double      value = msg == "NextN" ? 1 : msg == "expert_gating_func" ? 3 : 0;
        const std::string path  = data_path("models/synthetic/" + std::string(c.model) + "-micro-f16.gguf");
        expect_refused(load_with_override(path, c.key, c.tag, value), c.message);
    }
}

// glm4moe's NextN blocks: counted in block_count, not run (llama_model_n_layer excludes them, as
// upstream's); as many as the blocks, nothing would be left to run.
TEST(ArchE2EKeys, Glm4moeNextNBlocksAreNotRun) {
    llama_log_set(quiet_log, nullptr);
    const std::string path = data_path("models/synthetic/glm4moe-micro-f16.gguf");
    model_ptr         m(llama_model_load_from_file(path.c_str(), llama_model_default_params()));
    ASSERT_NE(m, nullptr) << llama_last_error();
    EXPECT_EQ(llama_model_n_layer(m.get()), 3);
    EXPECT_EQ(llama_model_n_layer_nextn(m.get()), 1);
    expect_refused(load_with_override(path, "glm4moe.nextn_predict_layers", 4), "nextn_predict_layers");
}

// deepseek2's NextN blocks likewise (run only as an MTP head, test-speculative-mtp): the micro model's
// last block declared a NextN block leaves two decoder blocks; all three, none.
TEST(ArchE2EKeys, Deepseek2NextNBlocksAreCountedApart) {
    llama_log_set(quiet_log, nullptr);
    const std::string path = data_path("models/synthetic/deepseek2-micro-f16.gguf");
    model_ptr         m    = load_with_override(path, "deepseek2.nextn_predict_layers", 1);
    ASSERT_NE(m, nullptr) << llama_last_error();
    EXPECT_EQ(llama_model_n_layer(m.get()), 2);
    EXPECT_EQ(llama_model_n_layer_nextn(m.get()), 1);
    expect_refused(load_with_override(path, "deepseek2.nextn_predict_layers", 3), "nextn_predict_layers");
}

// Bytes a sequence's saved state grows by per token (the cache rows plus the cell's own record).
size_t state_bytes_per_token(llama_model * m) {
    ctx_ptr ctx(llama_init_from_model(m, ctx_params(LLAMA_FLASH_ATTN_TYPE_DISABLED)));
    EXPECT_NE(ctx, nullptr) << llama_last_error();
    if (!ctx) {
        return 0;
    }
    std::vector<llama_token> toks = {1, 9038, 2501, 263, 931, 263, 2501, 9038};
    EXPECT_EQ(llama_decode(ctx.get(), llama_batch_get_one(toks.data(), 4)), 0);
    const size_t s4 = llama_state_seq_get_size(ctx.get(), 0);
    EXPECT_EQ(llama_decode(ctx.get(), llama_batch_get_one(toks.data() + 4, 4)), 0);
    const size_t s8 = llama_state_seq_get_size(ctx.get(), 0);
    EXPECT_EQ((s8 - s4) % 4, 0u);
    return (s8 - s4) / 4;
}

size_t meta_u32(llama_model * m, const char * k) {
    char buf[64] = {};
    EXPECT_GT(llama_model_meta_val_str(m, k, buf, sizeof buf), 0) << k;
    return (size_t) atoll(buf);
}

// deepseek2's latent attention caches per token and layer the normed latent and the rope part in K
// (kv_lora_rank + rope), F16, and nothing else (V is read as the latent prefix of K): a sequence's
// saved state grows by that plus the cell's record (measured on llama-micro, whose K/V rows are
// known), far less than the n_head (key_length_mla + value_length_mla) of plain attention.
TEST(ArchE2EMla, CacheHoldsTheLatentPerToken) {
    llama_log_set(quiet_log, nullptr);
    model_ptr llama = load_micro_f16("llama");
    model_ptr m     = load_micro_f16("deepseek2");
    ASSERT_NE(llama, nullptr) << llama_last_error();
    ASSERT_NE(m, nullptr) << llama_last_error();
    const size_t llama_kv =
        meta_u32(llama.get(), "llama.block_count") * 2 * meta_u32(llama.get(), "llama.attention.head_count_kv") *
        (meta_u32(llama.get(), "llama.embedding_length") / meta_u32(llama.get(), "llama.attention.head_count")) * 2;
    const size_t cell = state_bytes_per_token(llama.get()) - llama_kv;

    const size_t rank    = meta_u32(m.get(), "deepseek2.attention.kv_lora_rank");
    const size_t rope    = meta_u32(m.get(), "deepseek2.rope.dimension_count");
    const size_t n_layer = meta_u32(m.get(), "deepseek2.block_count");
    const size_t n_head  = meta_u32(m.get(), "deepseek2.attention.head_count");
    const size_t k_mla   = meta_u32(m.get(), "deepseek2.attention.key_length_mla");
    const size_t v_mla   = meta_u32(m.get(), "deepseek2.attention.value_length_mla");
    const size_t kv      = state_bytes_per_token(m.get()) - cell;
    printf("deepseek2-micro: %zu bytes of K/V per token (%zu of cell record); plain attention: %zu\n", kv, cell,
           n_layer * n_head * (k_mla + v_mla) * 2);
    EXPECT_EQ(kv, n_layer * (rank + rope) * 2);
    EXPECT_LT(kv, n_layer * n_head * (k_mla + v_mla) * 2 / 4);

    // the same model as an older file (fused attn_kv_b) decompresses per head: the full cache
    model_ptr kvb = load_micro_f16("deepseek2-kvb");
    ASSERT_NE(kvb, nullptr) << llama_last_error();
    EXPECT_EQ(state_bytes_per_token(kvb.get()) - cell, n_layer * n_head * (k_mla + v_mla) * 2);
}

// Decodes toks at positions p0.. of sequence 0, the last one an output; its logits row.
std::vector<float> decode_at(llama_context * ctx, const std::vector<llama_token> & toks, llama_pos p0) {
    llama_batch b = llama_batch_init((int32_t) toks.size(), 0, 1);
    for (size_t i = 0; i < toks.size(); i++) {
        b.token[i]     = toks[i];
        b.pos[i]       = p0 + (llama_pos) i;
        b.n_seq_id[i]  = 1;
        b.seq_id[i][0] = 0;
        b.logits[i]    = i + 1 == toks.size();
    }
    b.n_tokens = (int32_t) toks.size();
    EXPECT_EQ(llama_decode(ctx, b), 0);
    llama_batch_free(b);
    const float * lg = llama_get_logits_ith(ctx, -1);
    const int     nv = llama_vocab_n_tokens(llama_model_get_vocab(llama_get_model(ctx)));
    return lg ? std::vector<float>(lg, lg + nv) : std::vector<float>();
}

// Shifting a latent-attention cache re-rotates only the rope part of each cached key (the latent
// is position-free): the shifted cache gives what decoding at the new positions gives, absorbed and
// decompressed alike (rotating the first n_rot columns instead moves these logits by 40-50% of RMS).
// kimi-linear's latent attention has no positions: its shift rotates nothing (a shift graph that ropes
// with its rope type NONE fails the next decode, -3).
TEST(ArchE2EMla, ShiftedCacheMatchesDecodingThere) {
    llama_log_set(quiet_log, nullptr);
    const std::vector<llama_token> head = {1, 9038, 2501, 263, 931, 2501}, tail = {263, 9038};
    for (const char * name : {"deepseek2", "deepseek2-kvb", "kimi-linear"}) {
        SCOPED_TRACE(name);
        model_ptr m = load_micro_f16(name);
        ASSERT_NE(m, nullptr) << llama_last_error();
        ctx_ptr a(llama_init_from_model(m.get(), ctx_params(LLAMA_FLASH_ATTN_TYPE_DISABLED)));
        ctx_ptr b(llama_init_from_model(m.get(), ctx_params(LLAMA_FLASH_ATTN_TYPE_DISABLED)));
        ASSERT_NE(a, nullptr) << llama_last_error();
        ASSERT_NE(b, nullptr) << llama_last_error();
        decode_at(a.get(), head, 0);
        llama_memory_t mem = llama_get_memory(a.get());
        ASSERT_TRUE(llama_memory_can_shift(mem));
        llama_memory_seq_add(mem, 0, 0, -1, 10);
        const std::vector<float> got = decode_at(a.get(), tail, 16);
        decode_at(b.get(), head, 10);
        const std::vector<float> want = decode_at(b.get(), tail, 16);
        ASSERT_EQ(got.size(), want.size());
        EXPECT_LT(max_err_rel_rms(got.data(), want.data(), (int) got.size()), 1e-2);
    }
}

// Mixture of experts with ubatches smaller than the prompt: every row matches one whole-prompt ubatch
// (the routing is per token, so splitting must not change it).
TEST(ArchE2EMoe, SmallUbatchesMatchOneUbatch) {
    llama_log_set(quiet_log, nullptr);
    const std::vector<std::string> moe = moe_micro_models();
    ASSERT_GE(moe.size(), 3u);  // llama-moe, qwen3moe, gpt-oss at least
    for (const std::string & name : moe) {
        SCOPED_TRACE(name);
        model_ptr m = load_micro_f16(name);
        ASSERT_NE(m, nullptr) << llama_last_error();
        const int                nv   = llama_vocab_n_tokens(llama_model_get_vocab(m.get()));
        std::vector<llama_token> toks = tokenize(m.get(), "Once upon a time there was a little dog");
        const int                n    = (int) toks.size();
        std::vector<float>       rows[2];
        for (int pass = 0; pass < 2; pass++) {
            llama_context_params cp = ctx_params(LLAMA_FLASH_ATTN_TYPE_DISABLED);
            cp.n_ubatch             = pass == 0 ? 512 : 3;
            ctx_ptr ctx(llama_init_from_model(m.get(), cp));
            ASSERT_EQ(decode_in_one_batch(ctx.get(), toks, [](size_t) { return true; }), 0) << llama_last_error();
            rows[pass].assign(llama_get_logits(ctx.get()), llama_get_logits(ctx.get()) + (size_t) n * nv);
        }
        for (int i = 0; i < n; i++) {
            EXPECT_LT(max_err_rel_rms(rows[1].data() + (size_t) i * nv, rows[0].data() + (size_t) i * nv, nv), 1e-3)
                << "position " << i;
        }
    }
}

// Ubatches that produce no output (only the prompt's last token asks for logits): the last layer then
// runs on zero rows, which the expert sum must accept; the last row equals a run with all outputs.
TEST(ArchE2EMoe, UbatchesWithoutOutputs) {
    llama_log_set(quiet_log, nullptr);
    for (const std::string & name : moe_micro_models()) {
        SCOPED_TRACE(name);
        model_ptr m = load_micro_f16(name);
        ASSERT_NE(m, nullptr) << llama_last_error();
        const int                nv   = llama_vocab_n_tokens(llama_model_get_vocab(m.get()));
        std::vector<llama_token> toks = tokenize(m.get(), "Once upon a time there was a little dog");
        const int                n    = (int) toks.size();
        std::vector<float>       last[2];
        for (int pass = 0; pass < 2; pass++) {
            llama_context_params cp = ctx_params(LLAMA_FLASH_ATTN_TYPE_DISABLED);
            cp.n_ubatch             = 3;
            ctx_ptr    ctx(llama_init_from_model(m.get(), cp));
            const auto want = [&](size_t i) { return pass == 0 || (int) i == n - 1; };
            ASSERT_EQ(decode_in_one_batch(ctx.get(), toks, want), 0) << llama_last_error();
            const float * lg = llama_get_logits_ith(ctx.get(), n - 1);
            ASSERT_NE(lg, nullptr);
            last[pass].assign(lg, lg + nv);
        }
        EXPECT_LT(max_err_rel_rms(last[1].data(), last[0].data(), nv), 1e-4);
    }
}

namespace {

// Logits of every position of toks decoded as one batch by a fresh context of the model at path.
std::vector<float> all_rows(const std::string & path, const std::vector<llama_token> & toks) {
    model_ptr m(llama_model_load_from_file(path.c_str(), llama_model_default_params()));
    EXPECT_NE(m, nullptr) << llama_last_error();
    if (!m) {
        return {};
    }
    ctx_ptr ctx(llama_init_from_model(m.get(), ctx_params(LLAMA_FLASH_ATTN_TYPE_DISABLED)));
    EXPECT_EQ(decode_in_one_batch(ctx.get(), toks, [](size_t) { return true; }), 0) << llama_last_error();
    const int nv = llama_vocab_n_tokens(llama_model_get_vocab(m.get()));
    return std::vector<float>(llama_get_logits(ctx.get()), llama_get_logits(ctx.get()) + toks.size() * nv);
}

// Overwrites every F16 [n, n] ffn_latent_down / ffn_latent_up of the file with the identity.
void make_latents_identity(const std::string & path) {
    gguf_context * g = gguf_init_from_file(path.c_str(), gguf_init_params{true});
    ASSERT_NE(g, nullptr);
    FILE * f = fopen(path.c_str(), "r+b");
    ASSERT_NE(f, nullptr);
    int n_patched = 0;
    for (int64_t t = 0; t < gguf_get_n_tensors(g); t++) {
        if (!strstr(gguf_get_tensor_name(g, t), "ffn_latent_")) {
            continue;
        }
        ASSERT_EQ(gguf_get_tensor_type(g, t), GGML_TYPE_F16);
        const int64_t            n = (int64_t) std::sqrt((double) (gguf_get_tensor_size(g, t) / 2));
        std::vector<ggml_fp16_t> id((size_t) (n * n), ggml_fp32_to_fp16(0.0f));
        for (int64_t i = 0; i < n; i++) {
            id[(size_t) (i * n + i)] = ggml_fp32_to_fp16(1.0f);
        }
        ASSERT_EQ(fseek(f, (long) (gguf_get_data_offset(g) + gguf_get_tensor_offset(g, t)), SEEK_SET), 0);
        ASSERT_EQ(fwrite(id.data(), sizeof(ggml_fp16_t), id.size(), f), id.size());
        n_patched++;
    }
    fclose(f);
    gguf_free(g);
    EXPECT_EQ(n_patched, 4);  // two expert blocks, each down and up
}

}  // namespace

// nemotron_h_moe's two expert forms agree: with latent projections that are the identity (latent width
// = n_embd) the experts see what they see without any (the generator seeds each tensor by its name, so
// both files hold the same experts); with the random projections the output is far off.
TEST(NemotronHMoe, IdentityLatentEqualsNoLatent) {
    llama_log_set(quiet_log, nullptr);
    synth::params p;
    ASSERT_TRUE(synth::apply_micro_model("nemotron_h_moe", p));
    p.n_vocab = 320, p.n_threads = 2;
    synth::params with = p, without = p;
    with.n_moe_latent    = p.n_embd;
    without.n_moe_latent = 0;
    const temp_model               a(with, "nh-latent.gguf"), b(without, "nh-plain.gguf");
    const std::vector<llama_token> toks  = {1, 17, 42, 99, 3, 64, 127, 8};
    const std::vector<float>       plain = all_rows(b.path, toks), random = all_rows(a.path, toks);
    make_latents_identity(a.path);
    const std::vector<float> ident = all_rows(a.path, toks);
    ASSERT_EQ(plain.size(), toks.size() * 320);
    ASSERT_EQ(ident.size(), plain.size());
    ASSERT_EQ(random.size(), plain.size());
    double worst = 0, random_best = 1e9;
    for (size_t i = 0; i < toks.size(); i++) {
        worst       = std::max(worst, max_err_rel_rms(ident.data() + i * 320, plain.data() + i * 320, 320));
        random_best = std::min(random_best, max_err_rel_rms(random.data() + i * 320, plain.data() + i * 320, 320));
    }
    printf("identity latent vs none: %.2e of row RMS; random latent vs none: at least %.2e\n", worst, random_best);
    EXPECT_LT(worst, 1e-2);
    EXPECT_GT(random_best, 5e-2);
    llama_log_set(nullptr, nullptr);
}
