// LoRA / aLoRA adapters and control vectors (llama_adapter_*, llama_set_adapters_lora,
// llama_set_adapter_cvec) on a synthetic F32 model with synthetic adapters written by
// examples/gguf-synth/gguf-synth-adapter.h:
// - base + adapter at scale s gives the logits of the merged-weights model (W + k B A), for one
//   and for two adapters, token_embd and output included; scale 0 and removal give the base logits;
// - set / clear between decodes, freeing an adapter that is still set;
// - a control vector equals the definition (the base run with the direction added to the layer's
//   output by an eval-callback hook), for all layers and for an il range;
// - aLoRA: invocation tokens, the activation position, and the activated run equals base KV for the
//   prefix + merged weights for the rest;
// - metadata queries; malformed adapters (not an adapter, wrong architecture, wrong shapes, a
//   missing pair, truncated files, bad keys) give NULL and an error, never a crash.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <unistd.h>

#include "../../examples/gguf-synth/gguf-synth-adapter.h"
#include "ggml-backend.h"
#include "llama-adapter.h"
#include "llama-model.h"
#include "llama.h"
#include "test-compat.h"
#include "test-llama-util.h"

using namespace llama_test_util;

// CPU_REPACK offered at the arm64 NEON level too (not by default there: ggml_repack_offered), so
// RepackedWeightsGetPlainCpuFactors finds packed weights on every CPU; read once, so set first.
static const bool k_repack_neon = (setenv("GGML_CPU_REPACK_NEON", "1", 0), true);

namespace {

void quiet_log(ggml_log_level, const char *, void *) {}

const int k_n_layer = 3;

std::string tmp(const std::string & name) {
    return testing::TempDir() + "test-adapters-" + std::to_string(getpid()) + "-" + name;
}

struct files {
    std::string base, lora_a, lora_b, merged_a, merged_ab, alora, merged_alora, cvec;
};

const files & F() {
    static files f = [] {
        files         r;
        std::string   err;
        synth::params p;
        synth::apply_preset("micro", p);
        p.n_layer   = k_n_layer;
        p.type      = GGML_TYPE_F32;
        p.tied      = false;  // an output.weight of its own, so output and token_embd are adapted apart
        p.n_threads = 2;
        r.base      = tmp("base.gguf");
        EXPECT_TRUE(synth::write_model(p, r.base, err)) << err;

        synth::lora_params a;
        a.model_path = r.base;
        a.rank       = 4;
        a.alpha      = 8.0f;
        a.seed       = 11;
        a.targets    = {"attn_q", "attn_k",   "attn_v",     "attn_output", "ffn_gate",
                        "ffn_up", "ffn_down", "token_embd", "output"};
        r.lora_a     = tmp("lora-a.gguf");
        EXPECT_TRUE(synth::write_lora(a, r.lora_a, err)) << err;

        synth::lora_params b;  // no alpha: k = user scale; F16 factors; a subset of the weights
        b.model_path = r.base;
        b.rank       = 2;
        b.seed       = 12;
        b.type       = GGML_TYPE_F16;
        b.targets    = {"attn_v", "ffn_down"};
        r.lora_b     = tmp("lora-b.gguf");
        EXPECT_TRUE(synth::write_lora(b, r.lora_b, err)) << err;

        synth::lora_params al = a;
        al.seed               = 13;
        al.invocation_tokens  = {5, 6, 7};
        r.alora               = tmp("alora.gguf");
        EXPECT_TRUE(synth::write_lora(al, r.alora, err)) << err;

        r.merged_a     = tmp("merged-a.gguf");
        r.merged_ab    = tmp("merged-ab.gguf");
        r.merged_alora = tmp("merged-alora.gguf");
        EXPECT_TRUE(synth::write_merged(r.base, {{r.lora_a, 0.5f}}, r.merged_a, err)) << err;
        EXPECT_TRUE(synth::write_merged(r.base, {{r.lora_a, 0.5f}, {r.lora_b, -1.5f}}, r.merged_ab, err)) << err;
        EXPECT_TRUE(synth::write_merged(r.base, {{r.alora, 1.0f}}, r.merged_alora, err)) << err;

        r.cvec = tmp("cvec.gguf");
        EXPECT_TRUE(synth::write_cvec(r.base, 21, 0.5f, r.cvec, err)) << err;
        return r;
    }();
    return f;
}

model_ptr load(const std::string & path) {
    llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers       = 0;
    model_ptr m(llama_model_load_from_file(path.c_str(), mp));
    EXPECT_NE(m, nullptr) << path << ": " << llama_last_error();
    return m;
}

ctx_ptr make_ctx(llama_model * m, ggml_backend_sched_eval_callback cb = nullptr, void * cb_data = nullptr) {
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx                = 256;
    cp.n_batch              = 64;
    cp.n_ubatch             = 64;
    cp.n_threads            = 2;
    cp.n_threads_batch      = 2;
    cp.type_k               = GGML_TYPE_F32;  // the comparisons are between F32 runs
    cp.type_v               = GGML_TYPE_F32;
    cp.cb_eval              = cb;
    cp.cb_eval_user_data    = cb_data;
    ctx_ptr c(llama_init_from_model(m, cp));
    EXPECT_NE(c, nullptr) << llama_last_error();
    return c;
}

const std::vector<llama_token> k_prompt = {1, 40, 5, 6, 7, 99, 300, 5, 6, 7, 12, 77, 250, 3};

int n_vocab(llama_context * c) {
    return llama_vocab_n_tokens(llama_model_get_vocab(llama_get_model(c)));
}

// Decodes toks at positions pos0.. with logits for every token; returns all rows.
std::vector<float> decode_all(llama_context * c, const std::vector<llama_token> & toks, llama_pos pos0 = 0) {
    owned_batch b((int) toks.size());
    for (size_t i = 0; i < toks.size(); i++) {
        b.add(toks[i], pos0 + (llama_pos) i, {0}, true);
    }
    EXPECT_EQ(llama_decode(c, b.b), 0) << llama_last_error();
    const float * lg = llama_get_logits(c);
    EXPECT_NE(lg, nullptr);
    return lg ? std::vector<float>(lg, lg + toks.size() * (size_t) n_vocab(c)) : std::vector<float>();
}

void clear(llama_context * c) {
    llama_memory_clear(llama_get_memory(c), true);
}

// Largest |a - b| over the RMS of b.
double rel_err(const std::vector<float> & a, const std::vector<float> & b) {
    EXPECT_EQ(a.size(), b.size());
    if (a.size() != b.size() || b.empty()) {
        return 1e9;
    }
    return max_err_rel_rms(a.data(), b.data(), (int) a.size());
}

const double k_tol = 2e-5;  // F32 weights, caches and factors: only summation order differs (~1e-6)

std::vector<float> base_logits() {
    static std::vector<float> l = [] {
        model_ptr m = load(F().base);
        ctx_ptr   c = make_ctx(m.get());
        return decode_all(c.get(), k_prompt);
    }();
    return l;
}

std::vector<float> logits_of_model(const std::string & path) {
    model_ptr m = load(path);
    ctx_ptr   c = make_ctx(m.get());
    return decode_all(c.get(), k_prompt);
}

struct adapter_deleter {
    void operator()(llama_adapter_lora * a) const { llama_adapter_lora_free(a); }
};
using adapter_ptr = std::unique_ptr<llama_adapter_lora, adapter_deleter>;

}  // namespace

class Adapters : public testing::Test {
protected:
    static void SetUpTestSuite() { llama_log_set(quiet_log, nullptr); }
    static void TearDownTestSuite() {
        const files & f = F();
        for (const std::string * p :
             {&f.base, &f.lora_a, &f.lora_b, &f.merged_a, &f.merged_ab, &f.alora, &f.merged_alora, &f.cvec}) {
            remove(p->c_str());
        }
    }
};

TEST_F(Adapters, LoraMatchesMergedModel) {
    model_ptr m = load(F().base);
    ASSERT_NE(m, nullptr);
    llama_adapter_lora * a = llama_adapter_lora_init(m.get(), F().lora_a.c_str());
    ASSERT_NE(a, nullptr) << llama_last_error();
    ctx_ptr c     = make_ctx(m.get());
    float   scale = 0.5f;
    ASSERT_EQ(llama_set_adapters_lora(c.get(), &a, 1, &scale), 0) << llama_last_error();
    const std::vector<float> got    = decode_all(c.get(), k_prompt);
    const std::vector<float> merged = logits_of_model(F().merged_a);
    EXPECT_LT(rel_err(got, merged), k_tol);
    EXPECT_GT(rel_err(base_logits(), merged), 1e-2)
        << "the adapter must change the logits for this test to mean anything";
    // a is freed with the model
}

TEST_F(Adapters, TwoAdaptersMatchMergedModel) {
    model_ptr m = load(F().base);
    ASSERT_NE(m, nullptr);
    llama_adapter_lora * ab[2] = {llama_adapter_lora_init(m.get(), F().lora_a.c_str()),
                                  llama_adapter_lora_init(m.get(), F().lora_b.c_str())};
    ASSERT_NE(ab[0], nullptr) << llama_last_error();
    ASSERT_NE(ab[1], nullptr) << llama_last_error();
    ctx_ptr c         = make_ctx(m.get());
    float   scales[2] = {0.5f, -1.5f};
    ASSERT_EQ(llama_set_adapters_lora(c.get(), ab, 2, scales), 0) << llama_last_error();
    const std::vector<float> got = decode_all(c.get(), k_prompt);
    EXPECT_LT(rel_err(got, logits_of_model(F().merged_ab)), k_tol);
    EXPECT_GT(rel_err(got, logits_of_model(F().merged_a)), 1e-3);  // the second adapter counts
}

TEST_F(Adapters, ScaleZeroRemovalAndSwitchingBetweenDecodes) {
    model_ptr m = load(F().base);
    ASSERT_NE(m, nullptr);
    llama_adapter_lora * a = llama_adapter_lora_init(m.get(), F().lora_a.c_str());
    ASSERT_NE(a, nullptr) << llama_last_error();
    ctx_ptr                  c      = make_ctx(m.get());
    const std::vector<float> merged = logits_of_model(F().merged_a);

    float zero = 0.0f;
    ASSERT_EQ(llama_set_adapters_lora(c.get(), &a, 1, &zero), 0);
    EXPECT_EQ(decode_all(c.get(), k_prompt), base_logits());  // no adapter nodes at all: bit-identical

    float half = 0.5f;
    for (int round = 0; round < 2; round++) {
        clear(c.get());
        ASSERT_EQ(llama_set_adapters_lora(c.get(), &a, 1, &half), 0);
        EXPECT_LT(rel_err(decode_all(c.get(), k_prompt), merged), k_tol) << "round " << round;
        clear(c.get());
        ASSERT_EQ(llama_set_adapters_lora(c.get(), nullptr, 0, nullptr), 0);
        EXPECT_EQ(decode_all(c.get(), k_prompt), base_logits()) << "round " << round;
    }
    // a different scale takes effect at the next decode (the graph is rebuilt)
    clear(c.get());
    float one = 1.0f;
    ASSERT_EQ(llama_set_adapters_lora(c.get(), &a, 1, &one), 0);
    EXPECT_GT(rel_err(decode_all(c.get(), k_prompt), merged), 1e-3);

    // freeing an adapter that is still set: the next decode runs without it
    llama_adapter_lora_free(a);
    clear(c.get());
    EXPECT_EQ(decode_all(c.get(), k_prompt), base_logits());
    // and it can no longer be set
    EXPECT_EQ(llama_set_adapters_lora(c.get(), &a, 1, &one), -1);
    EXPECT_NE(std::string(llama_last_error()), "");
}

TEST_F(Adapters, InvalidSetCalls) {
    model_ptr m     = load(F().base);
    model_ptr other = load(F().base);
    ASSERT_TRUE(m && other);
    llama_adapter_lora * a = llama_adapter_lora_init(other.get(), F().lora_a.c_str());
    ASSERT_NE(a, nullptr) << llama_last_error();
    ctx_ptr c     = make_ctx(m.get());
    float   scale = 1.0f;
    EXPECT_EQ(llama_set_adapters_lora(c.get(), &a, 1, &scale), -1);  // another model's adapter
    EXPECT_EQ(llama_set_adapters_lora(c.get(), &a, 1, nullptr), -1);
    EXPECT_EQ(llama_set_adapters_lora(c.get(), nullptr, 1, &scale), -1);
    EXPECT_EQ(llama_set_adapters_lora(nullptr, nullptr, 0, nullptr), -1);
    EXPECT_EQ(llama_adapter_lora_init(nullptr, F().lora_a.c_str()), nullptr);
    EXPECT_EQ(llama_adapter_lora_init(m.get(), nullptr), nullptr);
    llama_adapter_lora_free(nullptr);
    EXPECT_EQ(decode_all(c.get(), k_prompt), base_logits());  // nothing was set
}

// ---- control vectors ----------------------------------------------------------------------------

namespace {

// The definition: after layer il in [il0, il1], add data's row il - 1 to the layer output.
struct cvec_hook {
    std::vector<float> data;
    int64_t            n_embd = 0;
    int                il0 = 0, il1 = -1;
    int                n_hit = 0;
};

bool hook_cb(ggml_tensor * t, bool ask, void * ud) {
    cvec_hook * h = (cvec_hook *) ud;
    int         il;
    if (sscanf(ggml_get_name(t), "l_out-%d", &il) != 1 || il < 1 || il < h->il0 || il > h->il1 ||
        (size_t) il * h->n_embd > h->data.size()) {
        return ask ? false : true;
    }
    if (ask) {
        return true;
    }
    std::vector<float> v((size_t) ggml_nelements(t));
    ggml_backend_tensor_get(t, v.data(), 0, ggml_nbytes(t));
    for (size_t i = 0; i < v.size(); i++) {
        v[i] += h->data[(size_t) (il - 1) * h->n_embd + i % h->n_embd];
    }
    ggml_backend_tensor_set(t, v.data(), 0, ggml_nbytes(t));
    h->n_hit++;
    return true;
}

}  // namespace

TEST_F(Adapters, ControlVectorMatchesDefinition) {
    int64_t            n_embd = 0;
    std::vector<float> data;
    std::string        err;
    ASSERT_TRUE(synth::read_cvec(F().cvec, n_embd, data, err)) << err;
    ASSERT_EQ(data.size(), (size_t) (k_n_layer - 1) * n_embd);

    model_ptr m = load(F().base);
    ASSERT_NE(m, nullptr);
    for (auto range : {std::make_pair(1, k_n_layer - 1), std::make_pair(2, 2), std::make_pair(0, 1)}) {
        ctx_ptr c = make_ctx(m.get());
        ASSERT_EQ(
            llama_set_adapter_cvec(c.get(), data.data(), data.size(), (int32_t) n_embd, range.first, range.second), 0)
            << llama_last_error();
        const std::vector<float> got = decode_all(c.get(), k_prompt);

        cvec_hook h;
        h.data                       = data;
        h.n_embd                     = n_embd;
        h.il0                        = range.first;
        h.il1                        = range.second;
        ctx_ptr                  hc  = make_ctx(m.get(), hook_cb, &h);
        const std::vector<float> ref = decode_all(hc.get(), k_prompt);
        EXPECT_GT(h.n_hit, 0);
        EXPECT_LT(rel_err(got, ref), k_tol) << "layers " << range.first << ".." << range.second;
        EXPECT_GT(rel_err(got, base_logits()), 1e-3) << "layers " << range.first << ".." << range.second;

        // clearing restores the base
        clear(c.get());
        ASSERT_EQ(llama_set_adapter_cvec(c.get(), nullptr, 0, 0, 0, 0), 0);
        EXPECT_EQ(decode_all(c.get(), k_prompt), base_logits());
    }
    // a range that touches no layer, rows missing (len too short): no change
    ctx_ptr c = make_ctx(m.get());
    ASSERT_EQ(llama_set_adapter_cvec(c.get(), data.data(), data.size(), (int32_t) n_embd, 10, 20), 0);
    EXPECT_EQ(decode_all(c.get(), k_prompt), base_logits());
    clear(c.get());
    ASSERT_EQ(llama_set_adapter_cvec(c.get(), data.data(), (size_t) n_embd - 1, (int32_t) n_embd, 0, 100), 0);
    EXPECT_EQ(decode_all(c.get(), k_prompt), base_logits());
    // wrong width
    EXPECT_EQ(llama_set_adapter_cvec(c.get(), data.data(), data.size(), (int32_t) n_embd + 1, 0, 100), -1);
    EXPECT_NE(std::string(llama_last_error()), "");
    EXPECT_EQ(llama_set_adapter_cvec(nullptr, data.data(), data.size(), (int32_t) n_embd, 0, 100), -1);
}

// ---- aLoRA ----------------------------------------------------------------------------------------

TEST_F(Adapters, AloraInvocationTokensAndStart) {
    model_ptr m = load(F().base);
    ASSERT_NE(m, nullptr);
    adapter_ptr al(llama_adapter_lora_init(m.get(), F().alora.c_str()));
    adapter_ptr a(llama_adapter_lora_init(m.get(), F().lora_a.c_str()));
    ASSERT_TRUE(al && a) << llama_last_error();
    ASSERT_EQ(llama_adapter_get_alora_n_invocation_tokens(al.get()), 3u);
    const llama_token * inv = llama_adapter_get_alora_invocation_tokens(al.get());
    ASSERT_NE(inv, nullptr);
    EXPECT_EQ(std::vector<llama_token>(inv, inv + 3), (std::vector<llama_token>{5, 6, 7}));
    EXPECT_EQ(llama_adapter_get_alora_n_invocation_tokens(a.get()), 0u);
    EXPECT_EQ(llama_adapter_get_alora_invocation_tokens(a.get()), nullptr);
    EXPECT_EQ(llama_adapter_get_alora_n_invocation_tokens(nullptr), 0u);

    // the last complete occurrence: k_prompt has 5 6 7 at 2 and at 7
    EXPECT_EQ(llama_adapter_alora_invocation_start(al.get(), k_prompt.data(), (int32_t) k_prompt.size()), 7);
    EXPECT_EQ(llama_adapter_alora_invocation_start(al.get(), k_prompt.data(), 9), 2);  // 5 6 at the end: partial
    const std::vector<llama_token> none = {1, 5, 6, 8, 7, 5};
    EXPECT_EQ(llama_adapter_alora_invocation_start(al.get(), none.data(), (int32_t) none.size()), -1);
    EXPECT_EQ(llama_adapter_alora_invocation_start(al.get(), k_prompt.data(), 2), -1);
    EXPECT_EQ(llama_adapter_alora_invocation_start(a.get(), k_prompt.data(), (int32_t) k_prompt.size()), -1);
    EXPECT_EQ(llama_adapter_alora_invocation_start(nullptr, k_prompt.data(), 5), -1);
    EXPECT_EQ(llama_adapter_alora_invocation_start(al.get(), nullptr, 5), -1);
}

// Activated from the invocation start: the prefix's K/V are the base model's, the rest is computed
// with the adapter. Reference: the base model's sequence state after the prefix, loaded into a
// context of the merged model, which then decodes the rest.
TEST_F(Adapters, AloraActivationPosition) {
    const int32_t start = 7;
    ASSERT_EQ(start, [&] {
        model_ptr   m = load(F().base);
        adapter_ptr al(llama_adapter_lora_init(m.get(), F().alora.c_str()));
        return llama_adapter_alora_invocation_start(al.get(), k_prompt.data(), (int32_t) k_prompt.size());
    }());
    const std::vector<llama_token> prefix(k_prompt.begin(), k_prompt.begin() + start);
    const std::vector<llama_token> rest(k_prompt.begin() + start, k_prompt.end());

    model_ptr m = load(F().base);
    ASSERT_NE(m, nullptr);
    llama_adapter_lora * al = llama_adapter_lora_init(m.get(), F().alora.c_str());
    ASSERT_NE(al, nullptr) << llama_last_error();
    ctx_ptr c = make_ctx(m.get());
    decode_all(c.get(), prefix);
    std::vector<uint8_t> state(llama_state_seq_get_size(c.get(), 0));
    ASSERT_EQ(llama_state_seq_get_data(c.get(), state.data(), state.size(), 0), state.size());
    float one = 1.0f;
    ASSERT_EQ(llama_set_adapters_lora(c.get(), &al, 1, &one), 0);
    const std::vector<float> got = decode_all(c.get(), rest, start);

    model_ptr mm = load(F().merged_alora);
    ASSERT_NE(mm, nullptr);
    ctx_ptr mc = make_ctx(mm.get());
    ASSERT_EQ(llama_state_seq_set_data(mc.get(), state.data(), state.size(), 0), state.size()) << llama_last_error();
    const std::vector<float> ref = decode_all(mc.get(), rest, start);
    EXPECT_LT(rel_err(got, ref), k_tol);

    // the prefix mattered: with the adapter over the whole prompt the rows differ
    const std::vector<float> full = logits_of_model(F().merged_alora);
    const size_t             nv   = (size_t) n_vocab(c.get());
    const std::vector<float> full_rest(full.begin() + (size_t) start * nv, full.end());
    EXPECT_GT(rel_err(got, full_rest), 1e-3);
}

// ---- metadata ---------------------------------------------------------------------------------------

TEST_F(Adapters, Metadata) {
    model_ptr m = load(F().base);
    ASSERT_NE(m, nullptr);
    adapter_ptr a(llama_adapter_lora_init(m.get(), F().lora_a.c_str()));
    ASSERT_NE(a, nullptr) << llama_last_error();
    const int32_t n = llama_adapter_meta_count(a.get());
    EXPECT_EQ(n, 5);  // general.type, general.architecture, general.name, adapter.type, adapter.lora.alpha
    char buf[128];
    EXPECT_EQ(llama_adapter_meta_val_str(a.get(), "general.type", buf, sizeof(buf)), 7);
    EXPECT_STREQ(buf, "adapter");
    EXPECT_GT(llama_adapter_meta_val_str(a.get(), "adapter.lora.alpha", buf, sizeof(buf)), 0);
    EXPECT_FLOAT_EQ(strtof(buf, nullptr), 8.0f);
    bool seen_arch = false;
    for (int32_t i = 0; i < n; i++) {
        char key[128], val[128];
        ASSERT_GT(llama_adapter_meta_key_by_index(a.get(), i, key, sizeof(key)), 0);
        ASSERT_GE(llama_adapter_meta_val_str_by_index(a.get(), i, val, sizeof(val)), 0);
        char again[128];
        EXPECT_EQ(llama_adapter_meta_val_str(a.get(), key, again, sizeof(again)), (int32_t) strlen(val));
        EXPECT_STREQ(again, val);
        seen_arch |= strcmp(key, "general.architecture") == 0 && strcmp(val, "llama") == 0;
    }
    EXPECT_TRUE(seen_arch);
    // truncation: the full length is returned, buf holds a NUL-terminated prefix
    char small[4];
    EXPECT_EQ(llama_adapter_meta_val_str(a.get(), "general.type", small, sizeof(small)), 7);
    EXPECT_STREQ(small, "ada");
    // failures clear buf
    strcpy(buf, "x");
    EXPECT_EQ(llama_adapter_meta_val_str(a.get(), "no.such.key", buf, sizeof(buf)), -1);
    EXPECT_STREQ(buf, "");
    strcpy(buf, "x");
    EXPECT_EQ(llama_adapter_meta_key_by_index(a.get(), n, buf, sizeof(buf)), -1);
    EXPECT_STREQ(buf, "");
    EXPECT_EQ(llama_adapter_meta_val_str_by_index(a.get(), -1, buf, sizeof(buf)), -1);
    EXPECT_EQ(llama_adapter_meta_count(nullptr), 0);
    EXPECT_EQ(llama_adapter_meta_val_str(nullptr, "general.type", buf, sizeof(buf)), -1);
}

// ---- malformed adapters -----------------------------------------------------------------------------

namespace {

// Rewrites src with edit(kv context, tensor name -> keep?) applied.
template <typename EditKv, typename KeepTensor>
std::string rewrite(const std::string & src, const std::string & name, EditKv edit_kv, KeepTensor keep) {
    synth::gguf_ptr in(gguf_init_from_file(src.c_str(), {false}));
    EXPECT_NE(in, nullptr);
    synth::gguf_ptr out(gguf_init_empty());
    gguf_set_kv(out.get(), in.get());
    edit_kv(out.get());
    for (int64_t i = 0; i < gguf_get_n_tensors(in.get()); i++) {
        const char * tn = gguf_get_tensor_name(in.get(), i);
        if (!keep(std::string(tn))) {
            continue;
        }
        int64_t ne[4];
        gguf_get_tensor_shape(in.get(), i, ne);
        gguf_add_tensor_info(out.get(), tn, gguf_get_tensor_type(in.get(), i),
                             (int) gguf_get_tensor_n_dims(in.get(), i), ne, gguf_get_tensor_data(in.get(), i));
    }
    const std::string path = tmp(name);
    EXPECT_TRUE(gguf_write_to_file(out.get(), path.c_str(), false));
    return path;
}

void expect_rejected(llama_model * m, const std::string & path, const char * why) {
    llama_adapter_lora * a = llama_adapter_lora_init(m, path.c_str());
    EXPECT_EQ(a, nullptr) << why;
    EXPECT_NE(std::string(llama_last_error()), "") << why;
    llama_adapter_lora_free(a);
}

}  // namespace

TEST_F(Adapters, MalformedAdaptersAreRejected) {
    model_ptr m = load(F().base);
    ASSERT_NE(m, nullptr);
    auto                     none = [](gguf_context *) {};
    auto                     all  = [](const std::string &) { return true; };
    std::vector<std::string> made;

    expect_rejected(m.get(), F().base, "a model, not an adapter");
    expect_rejected(m.get(), F().cvec, "a control vector, not a LoRA");
    expect_rejected(m.get(), tmp("does-not-exist.gguf"), "missing file");

    made.push_back(rewrite(
        F().lora_a, "wrong-arch.gguf", [](gguf_context * g) { gguf_set_val_str(g, "general.architecture", "qwen2"); },
        all));
    expect_rejected(m.get(), made.back(), "wrong architecture");
    made.push_back(rewrite(
        F().lora_a, "wrong-type.gguf", [](gguf_context * g) { gguf_set_val_str(g, "adapter.type", "ia3"); }, all));
    expect_rejected(m.get(), made.back(), "adapter.type not lora");
    made.push_back(rewrite(
        F().lora_a, "bad-alpha.gguf", [](gguf_context * g) { gguf_set_val_str(g, "adapter.lora.alpha", "8"); }, all));
    expect_rejected(m.get(), made.back(), "alpha of the wrong type");
    made.push_back(rewrite(
        F().alora, "bad-invocation.gguf",
        [](gguf_context * g) {
            const int32_t t[2] = {5, 6};
            gguf_set_arr_data(g, "adapter.alora.invocation_tokens", GGUF_TYPE_INT32, t, 2);
        },
        all));
    expect_rejected(m.get(), made.back(), "invocation tokens of the wrong type");
    made.push_back(rewrite(F().lora_a, "missing-b.gguf", none,
                           [](const std::string & n) { return n != "blk.1.attn_v.weight.lora_b"; }));
    expect_rejected(m.get(), made.back(), "a pair without lora_b");
    made.push_back(rewrite(F().lora_a, "no-tensors.gguf", none, [](const std::string &) { return false; }));
    expect_rejected(m.get(), made.back(), "no tensors");

    // a tensor the model does not have; a stray suffix
    {
        synth::gguf_ptr in(gguf_init_from_file(F().lora_a.c_str(), {false}));
        synth::gguf_ptr out(gguf_init_empty());
        gguf_set_kv(out.get(), in.get());
        const int64_t      ne_a[2] = {64, 4}, ne_b[2] = {4, 64};
        std::vector<float> z(256, 0.0f);
        gguf_add_tensor_info(out.get(), "blk.9.attn_q.weight.lora_a", GGML_TYPE_F32, 2, ne_a, z.data());
        gguf_add_tensor_info(out.get(), "blk.9.attn_q.weight.lora_b", GGML_TYPE_F32, 2, ne_b, z.data());
        made.push_back(tmp("unknown-weight.gguf"));
        ASSERT_TRUE(gguf_write_to_file(out.get(), made.back().c_str(), false));
        expect_rejected(m.get(), made.back(), "adapts a weight the model lacks");

        synth::gguf_ptr out2(gguf_init_empty());
        gguf_set_kv(out2.get(), in.get());
        gguf_add_tensor_info(out2.get(), "blk.0.attn_q.weight.delta", GGML_TYPE_F32, 2, ne_a, z.data());
        made.push_back(tmp("stray.gguf"));
        ASSERT_TRUE(gguf_write_to_file(out2.get(), made.back().c_str(), false));
        expect_rejected(m.get(), made.back(), "a tensor that is neither lora_a nor lora_b");

        // transposed / mismatched ranks
        synth::gguf_ptr out3(gguf_init_empty());
        gguf_set_kv(out3.get(), in.get());
        const int64_t ne_bad[2] = {4, 64};
        gguf_add_tensor_info(out3.get(), "blk.0.attn_q.weight.lora_a", GGML_TYPE_F32, 2, ne_bad, z.data());
        gguf_add_tensor_info(out3.get(), "blk.0.attn_q.weight.lora_b", GGML_TYPE_F32, 2, ne_b, z.data());
        made.push_back(tmp("transposed.gguf"));
        ASSERT_TRUE(gguf_write_to_file(out3.get(), made.back().c_str(), false));
        expect_rejected(m.get(), made.back(), "lora_a transposed");
    }

    // an adapter for a narrower model of the same architecture: shapes do not match
    {
        synth::params p;
        synth::apply_preset("micro", p);
        p.n_embd    = 32;
        p.n_ff      = 96;
        p.n_layer   = k_n_layer;
        p.type      = GGML_TYPE_F32;
        p.n_threads = 2;
        std::string err;
        made.push_back(tmp("narrow.gguf"));
        ASSERT_TRUE(synth::write_model(p, made.back(), err)) << err;
        synth::lora_params lp;
        lp.model_path = made.back();
        made.push_back(tmp("narrow-lora.gguf"));
        ASSERT_TRUE(synth::write_lora(lp, made.back(), err)) << err;
        expect_rejected(m.get(), made.back(), "dims of another model");
    }

    // truncated at many points: header, key/values, tensor infos, data
    {
        FILE * f = fopen(F().lora_a.c_str(), "rb");
        ASSERT_NE(f, nullptr);
        std::vector<uint8_t> bytes;
        uint8_t              chunk[4096];
        size_t               n;
        while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
            bytes.insert(bytes.end(), chunk, chunk + n);
        }
        fclose(f);
        const std::string path = tmp("truncated.gguf");
        for (size_t cut : {(size_t) 0, (size_t) 3, (size_t) 24, (size_t) 100, bytes.size() / 8, bytes.size() / 4,
                           bytes.size() / 2, bytes.size() - 5, bytes.size() - 1}) {
            FILE * o = fopen(path.c_str(), "wb");
            ASSERT_NE(o, nullptr);
            fwrite(bytes.data(), 1, cut, o);
            fclose(o);
            llama_adapter_lora * a = llama_adapter_lora_init(m.get(), path.c_str());
            EXPECT_EQ(a, nullptr) << "cut at " << cut << " of " << bytes.size();
            llama_adapter_lora_free(a);
        }
        made.push_back(path);
    }
    for (const std::string & p : made) {
        remove(p.c_str());
    }
    // the model still works and has no adapter left over
    ctx_ptr c = make_ctx(m.get());
    EXPECT_EQ(decode_all(c.get(), k_prompt), base_logits());
}

// ---- placement --------------------------------------------------------------------------------------

namespace {

std::vector<float> q8_run(const std::string & path, bool extra_bufts, const std::string & lora, std::string & buft,
                          std::string & weight_buft) {
    llama_model_params mp = llama_model_default_params();
    mp.use_extra_bufts    = extra_bufts;
    model_ptr m(llama_model_load_from_file(path.c_str(), mp));
    EXPECT_NE(m, nullptr) << llama_last_error();
    if (!m) {
        return {};
    }
    const ggml_tensor * wq = m->get_tensor("blk.0.attn_q.weight");
    EXPECT_NE(wq, nullptr);
    weight_buft            = wq ? ggml_backend_buft_name(ggml_backend_buffer_get_type(wq->buffer)) : "";
    llama_adapter_lora * a = lora.empty() ? nullptr : llama_adapter_lora_init(m.get(), lora.c_str());
    if (!lora.empty()) {
        EXPECT_NE(a, nullptr) << llama_last_error();
        if (!a) {
            return {};
        }
        // where the factors of blk.0.attn_q went
        const llama_adapter_lora_weight & w = a->ab_map.at("blk.0.attn_q.weight");
        buft                                = ggml_backend_buft_name(ggml_backend_buffer_get_type(w.a->buffer));
    }
    ctx_ptr c     = make_ctx(m.get());
    float   scale = 0.5f;
    EXPECT_EQ(llama_set_adapters_lora(c.get(), &a, a ? 1 : 0, &scale), 0);
    return decode_all(c.get(), k_prompt);
}

}  // namespace

// Q8_0 weights repacked for the CPU (CPU_REPACK): the factors get a plain CPU buffer, and the run
// matches the one without repacking.
TEST_F(Adapters, RepackedWeightsGetPlainCpuFactors) {
    const std::string           q  = tmp("q8.gguf");
    llama_model_quantize_params qp = llama_model_quantize_default_params();
    qp.ftype                       = LLAMA_FTYPE_MOSTLY_Q8_0;
    qp.nthread                     = 2;
    ASSERT_EQ(llama_model_quantize(F().base.c_str(), q.c_str(), &qp), 0u) << llama_last_error();
    std::string              buft_on, buft_off, w_on, w_off, unused, unused_w;
    const std::vector<float> on   = q8_run(q, true, F().lora_a, buft_on, w_on);
    const std::vector<float> off  = q8_run(q, false, F().lora_a, buft_off, w_off);
    const std::vector<float> base = q8_run(q, true, "", unused, unused_w);
    remove(q.c_str());
    EXPECT_EQ(w_on, "CPU_REPACK");  // else this test checks nothing
    EXPECT_NE(w_off, "CPU_REPACK");
    EXPECT_EQ(buft_on, "CPU");
    EXPECT_EQ(buft_off, "CPU");
    EXPECT_LT(rel_err(on, off), 1e-3);  // repacked kernels: only the accumulation order differs
    EXPECT_GT(rel_err(on, base), 1e-2);
}

// ---- other architectures --------------------------------------------------------------------------

// Every architecture's graph sends its projections through build_lora_mm and its layer outputs
// through build_cvec: qwen2 (biases), qwen3 (q/k norms), gemma2 (post-norms, soft-caps), phi3 (fused
// QKV and gate/up, its own graph).
class AdaptersArch : public testing::TestWithParam<const char *> {};

TEST_P(AdaptersArch, LoraMatchesMergedAndCvecMatchesDefinition) {
    llama_log_set(quiet_log, nullptr);
    const std::string arch = GetParam();
    std::string       err;
    synth::params     p;
    synth::apply_preset("micro", p);
    p.arch                 = arch;
    p.n_layer              = k_n_layer;
    p.type                 = GGML_TYPE_F32;
    p.n_threads            = 2;
    const std::string base = tmp(arch + "-base.gguf"), lora = tmp(arch + "-lora.gguf"),
                      merged = tmp(arch + "-merged.gguf");
    ASSERT_TRUE(synth::write_model(p, base, err)) << err;
    synth::lora_params lp;
    lp.model_path = base;
    lp.alpha      = 2.0f;
    lp.targets.push_back("attn_qkv");  // phi3
    ASSERT_TRUE(synth::write_lora(lp, lora, err)) << err;
    ASSERT_TRUE(synth::write_merged(base, {{lora, 1.0f}}, merged, err)) << err;

    model_ptr m = load(base);
    ASSERT_NE(m, nullptr);
    llama_adapter_lora * a = llama_adapter_lora_init(m.get(), lora.c_str());
    ASSERT_NE(a, nullptr) << llama_last_error();
    ctx_ptr c = make_ctx(m.get());
    ASSERT_NE(c, nullptr);
    const std::vector<float> plain = decode_all(c.get(), k_prompt);
    clear(c.get());
    float one = 1.0f;
    ASSERT_EQ(llama_set_adapters_lora(c.get(), &a, 1, &one), 0);
    const std::vector<float> got = decode_all(c.get(), k_prompt);
    const std::vector<float> ref = logits_of_model(merged);
    EXPECT_LT(rel_err(got, ref), k_tol);
    EXPECT_GT(rel_err(got, plain), 1e-3);

    // control vector on layers 1..2 against the hook
    clear(c.get());
    ASSERT_EQ(llama_set_adapters_lora(c.get(), nullptr, 0, nullptr), 0);
    cvec_hook h;
    h.n_embd = p.n_embd;
    h.data   = synth::detail::normal((k_n_layer - 1) * p.n_embd, 5, 0.5f);
    h.il0    = 1;
    h.il1    = k_n_layer - 1;
    ASSERT_EQ(llama_set_adapter_cvec(c.get(), h.data.data(), h.data.size(), (int32_t) p.n_embd, h.il0, h.il1), 0);
    const std::vector<float> cv   = decode_all(c.get(), k_prompt);
    ctx_ptr                  hc   = make_ctx(m.get(), hook_cb, &h);
    const std::vector<float> cref = decode_all(hc.get(), k_prompt);
    EXPECT_EQ(h.n_hit, k_n_layer - 1);
    EXPECT_LT(rel_err(cv, cref), k_tol);
    EXPECT_GT(rel_err(cv, plain), 1e-3);

    for (const std::string * f : {&base, &lora, &merged}) {
        remove(f->c_str());
    }
}

INSTANTIATE_TEST_SUITE_P(Archs, AdaptersArch, testing::Values("qwen2", "qwen3", "gemma2", "phi3"));
