// End-to-end agreement with the reference engine for the architectures beyond llama (qwen2, phi3,
// gemma, gemma2) on their synthetic micro models: the prompt's tokens, the greedy token of every
// step and every logit within 1% of the row RMS, with plain and with flash attention. Also checks
// that a multi-token batch gives the same rows as decoding token by token (the KV-cache path).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ggml-backend.h"
#include "llama.h"
#include "test-common.h"

using testing_util::read_file;
using testing_util::shared_path;

namespace {

void quiet_log(ggml_log_level, const char *, void *) {}

struct reference {
    std::vector<llama_token> prompt;
    std::vector<llama_token> greedy;  // top token of each step
    std::vector<float>       logits;  // one n_vocab row per step
};

std::vector<int> parse_ints(const std::string & s, size_t from, char end) {
    std::vector<int> out;
    size_t           i = from;
    while (i < s.size() && s[i] != end) {
        if (s[i] == '-' || isdigit((unsigned char) s[i])) {
            size_t n = 0;
            out.push_back(std::stoi(s.substr(i), &n));
            i += n;
        } else {
            i++;
        }
    }
    return out;
}

reference load_reference(const std::string & name) {
    reference                  r;
    const std::vector<uint8_t> bytes = read_file(shared_path("reference/" + name + ".once.jsonl"));
    const std::string          all(bytes.begin(), bytes.end());
    size_t                     pos = 0;
    while (pos < all.size()) {
        size_t eol = all.find('\n', pos);
        if (eol == std::string::npos) {
            eol = all.size();
        }
        const std::string line = all.substr(pos, eol - pos);
        pos                    = eol + 1;
        if (line.rfind("{\"prompt_tokens\":[", 0) == 0) {
            for (int t : parse_ints(line, 18, ']')) {
                r.prompt.push_back(t);
            }
        } else if (line.rfind("{\"step\":", 0) == 0) {
            const size_t top = line.find("\"top\":[[");
            r.greedy.push_back(parse_ints(line, top + 8, ',').at(0));
        }
    }
    const std::vector<uint8_t> lg = read_file(shared_path("reference/" + name + ".once.logits.f32"));
    r.logits.resize(lg.size() / sizeof(float));
    memcpy(r.logits.data(), lg.data(), r.logits.size() * sizeof(float));
    return r;
}

// Largest |a - b| relative to the RMS of b.
double max_err_rel_rms(const float * a, const float * b, int n) {
    double sq = 0, worst = 0;
    for (int i = 0; i < n; i++) {
        sq += (double) b[i] * b[i];
        worst = std::max(worst, (double) std::fabs(a[i] - b[i]));
    }
    const double rms = std::sqrt(sq / n);
    return worst / (rms > 0 ? rms : 1);
}

struct model_deleter {
    void operator()(llama_model * m) const { llama_model_free(m); }
};
struct ctx_deleter {
    void operator()(llama_context * c) const { llama_free(c); }
};
using model_ptr = std::unique_ptr<llama_model, model_deleter>;
using ctx_ptr   = std::unique_ptr<llama_context, ctx_deleter>;

llama_context_params ctx_params(llama_flash_attn_type fa) {
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx                = 512;
    cp.n_batch              = 512;
    cp.n_threads            = 2;
    cp.n_threads_batch      = 2;
    cp.flash_attn_type      = fa;
    return cp;
}

std::vector<llama_token> tokenize(const llama_model * m, const std::string & text) {
    const llama_vocab *      v = llama_model_get_vocab(m);
    const int                n = -llama_tokenize(v, text.c_str(), (int) text.size(), nullptr, 0, true, true);
    std::vector<llama_token> out(std::max(n, 0));
    EXPECT_EQ(llama_tokenize(v, text.c_str(), (int) text.size(), out.data(), n, true, true), n);
    return out;
}

// Prefill + greedy steps like the reference probe; every step's last-position logits row.
void run_greedy(llama_context * ctx, std::vector<llama_token> prompt, int n_steps, std::vector<llama_token> & out,
                std::vector<float> & rows) {
    const llama_vocab * vocab   = llama_model_get_vocab(llama_get_model(ctx));
    const int           n_vocab = llama_vocab_n_tokens(vocab);
    llama_batch         batch   = llama_batch_get_one(prompt.data(), (int) prompt.size());
    llama_token         tok     = 0;
    for (int step = 0; step < n_steps; step++) {
        ASSERT_EQ(llama_decode(ctx, batch), 0) << llama_last_error();
        const float * lg = llama_get_logits_ith(ctx, -1);
        ASSERT_NE(lg, nullptr);
        rows.insert(rows.end(), lg, lg + n_vocab);
        tok = (llama_token) (std::max_element(lg, lg + n_vocab) - lg);
        out.push_back(tok);
        if (llama_vocab_is_eog(vocab, tok)) {
            break;
        }
        batch = llama_batch_get_one(&tok, 1);
    }
}

class ArchE2E : public ::testing::TestWithParam<const char *> {
protected:
    static void SetUpTestSuite() {
        llama_log_set(quiet_log, nullptr);
        llama_backend_init();
    }
    std::string name() const { return std::string(GetParam()) + "-micro-f16"; }
    model_ptr   load() const {
          return model_ptr(llama_model_load_from_file(shared_path("models/synthetic/" + name() + ".gguf").c_str(),
                                                      llama_model_default_params()));
    }
};

}  // namespace

TEST_P(ArchE2E, MatchesReference) {
    model_ptr m = load();
    ASSERT_NE(m, nullptr) << llama_last_error();
    char desc[128];
    llama_model_desc(m.get(), desc, sizeof desc);
    EXPECT_EQ(std::string(desc).rfind(GetParam(), 0), 0u) << desc;

    const reference r  = load_reference(name());
    const int       nv = llama_vocab_n_tokens(llama_model_get_vocab(m.get()));
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
        double worst = 0;
        for (size_t s = 0; s < r.greedy.size(); s++) {
            const double e = max_err_rel_rms(rows.data() + s * nv, r.logits.data() + s * nv, nv);
            EXPECT_LT(e, 0.01) << name() << " flash_attn " << fa << " step " << s;
            worst = std::max(worst, e);
        }
        printf("%s flash_attn=%d: %zu steps, max |logit error| / row RMS = %.2e\n", name().c_str(), (int) fa,
               r.greedy.size(), worst);
        // all four measure 1.3e-3..1.8e-3 (F16 KV and summation order); the README's 1% bound is loose
        // enough to let small graph errors through (qwen2 without its K bias: 4.7e-3), so also hold
        // the measured level
        EXPECT_LT(worst, 3e-3) << name() << " flash_attn " << fa;
    }
}

TEST_P(ArchE2E, BatchedPrefillMatchesTokenByToken) {
    model_ptr m = load();
    ASSERT_NE(m, nullptr) << llama_last_error();
    const int                nv   = llama_vocab_n_tokens(llama_model_get_vocab(m.get()));
    std::vector<llama_token> toks = tokenize(m.get(), "Once upon a time there was a little dog");
    ASSERT_GT(toks.size(), 4u);

    ctx_ptr     a(llama_init_from_model(m.get(), ctx_params(LLAMA_FLASH_ATTN_TYPE_DISABLED)));
    llama_batch b = llama_batch_init((int) toks.size(), 0, 1);
    for (size_t i = 0; i < toks.size(); i++) {
        b.token[i]     = toks[i];
        b.pos[i]       = (llama_pos) i;
        b.n_seq_id[i]  = 1;
        b.seq_id[i][0] = 0;
        b.logits[i]    = true;
    }
    b.n_tokens = (int) toks.size();
    ASSERT_EQ(llama_decode(a.get(), b), 0) << llama_last_error();
    const std::vector<float> batched(llama_get_logits(a.get()), llama_get_logits(a.get()) + toks.size() * nv);
    llama_batch_free(b);

    ctx_ptr c(llama_init_from_model(m.get(), ctx_params(LLAMA_FLASH_ATTN_TYPE_DISABLED)));
    for (size_t i = 0; i < toks.size(); i++) {
        ASSERT_EQ(llama_decode(c.get(), llama_batch_get_one(&toks[i], 1)), 0) << llama_last_error();
        const float * lg = llama_get_logits_ith(c.get(), -1);
        EXPECT_LT(max_err_rel_rms(lg, batched.data() + i * nv, nv), 1e-2) << name() << " position " << i;
    }
}

INSTANTIATE_TEST_SUITE_P(Synthetic, ArchE2E, ::testing::Values("qwen2", "phi3", "gemma", "gemma2"),
                         [](const ::testing::TestParamInfo<const char *> & info) { return std::string(info.param); });

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
    return model_ptr(llama_model_load_from_file(shared_path("models/synthetic/gemma2-micro-f16.gguf").c_str(), mp));
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
