// Context state save/load (llama_state_*, llama_state_seq_*): save -> free -> new context -> load
// -> continue gives bit-identical logits to never having stopped (whole context and one sequence,
// through memory and files, every KV cache type, plain and flash attention, KV on a Vulkan device);
// and every corrupt, truncated or mismatched state is rejected with the context left unchanged.
#include <gtest/gtest.h>
#include "test-compat.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "../../examples/gguf-synth/gguf-synth.h"
#include "ggml-backend.h"
#include "llama-state-io.h"
#include "llama.h"
#include "test-common.h"
#include "test-llama-suite.h"
#include "test-llama-util.h"

using namespace llama_test_util;
using testing_util::data_path;

namespace {

// lavapipe (a CPU-type Vulkan device) is hidden unless asked for; only the Vulkan test offloads.
const bool k_allow_cpu_devices = [] {
    setenv("GGML_VK_ALLOW_CPU_DEVICES", "1", 0);
    return true;
}();

using bytes = std::vector<uint8_t>;

// The synthetic micro models have 16-wide heads; a Q8_0 cache needs heads a multiple of 32 wide,
// so those cases use a micro model written here with 2 heads of 32 ("synth:<arch>").
std::string synth_path(const std::string & arch) {
    const std::string path = testing::TempDir() + "test-state-" + std::to_string(getpid()) + "-" + arch + ".gguf";
    FILE *            f    = fopen(path.c_str(), "rb");
    if (f) {
        fclose(f);
        return path;
    }
    synth::params p;
    synth::apply_preset("micro", p);
    p.arch      = arch;
    p.n_head    = 2;
    p.n_head_kv = 1;
    p.n_threads = 2;
    std::string err;
    EXPECT_TRUE(synth::write_model(p, path, err)) << err;
    return path;
}

model_ptr load_model(const std::string & rel, int n_gpu_layers = 0) {
    llama_model_params mp  = llama_model_default_params();
    mp.n_gpu_layers        = n_gpu_layers;
    const std::string path = rel.rfind("synth:", 0) == 0 ? synth_path(rel.substr(6)) : data_path(rel);
    return model_ptr(llama_model_load_from_file(path.c_str(), mp));
}

struct ctx_opts {
    ggml_type             type_k    = GGML_TYPE_F16;
    ggml_type             type_v    = GGML_TYPE_F16;
    llama_flash_attn_type fa        = LLAMA_FLASH_ATTN_TYPE_ENABLED;
    uint32_t              n_ctx     = 256;
    uint32_t              n_seq_max = 1;
};

ctx_ptr make_ctx(llama_model * m, const ctx_opts & o = {}) {
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx                = o.n_ctx;
    cp.n_batch              = o.n_ctx;
    cp.n_threads            = 2;
    cp.n_threads_batch      = 2;
    cp.n_seq_max            = o.n_seq_max;
    cp.type_k               = o.type_k;
    cp.type_v               = o.type_v;
    cp.flash_attn_type      = o.fa;
    return ctx_ptr(llama_init_from_model(m, cp));
}

int n_vocab_of(llama_context * ctx) {
    return llama_vocab_n_tokens(llama_model_get_vocab(llama_get_model(ctx)));
}

// Deterministic prompt of n tokens (skipping the first ids, which are often control tokens).
std::vector<llama_token> prompt_tokens(llama_context * ctx, int n, unsigned seed) {
    std::mt19937             rng(seed);
    const int                nv = n_vocab_of(ctx);
    std::vector<llama_token> t(n);
    for (auto & x : t) {
        x = 3 + (llama_token) (rng() % (unsigned) (nv - 3));
    }
    return t;
}

bytes get_state(llama_context * ctx) {
    bytes b(llama_state_get_size(ctx));
    EXPECT_GT(b.size(), 0u) << llama_last_error();
    EXPECT_EQ(llama_state_get_data(ctx, b.data(), b.size()), b.size()) << llama_last_error();
    return b;
}

bytes get_seq_state(llama_context * ctx, llama_seq_id seq) {
    bytes b(llama_state_seq_get_size(ctx, seq));
    EXPECT_GT(b.size(), 0u) << llama_last_error();
    EXPECT_EQ(llama_state_seq_get_data(ctx, b.data(), b.size(), seq), b.size()) << llama_last_error();
    return b;
}

std::string tmp_path(const std::string & name) {
    return testing::TempDir() + "test-state-" + std::to_string(getpid()) + "-" + name;
}

bool same_bits(const std::vector<float> & a, const std::vector<float> & b) {
    return a.size() == b.size() && memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

class State : public quiet_llama_suite<> {
protected:
    // the synthetic models synth_path wrote (written again if a later suite needs them)
    static void TearDownTestSuite() {
        for (const char * arch : {"llama", "qwen2", "phi3", "gemma", "gemma2"}) {
            std::remove((testing::TempDir() + "test-state-" + std::to_string(getpid()) + "-" + arch + ".gguf").c_str());
        }
    }
};

// ---- whole context ---------------------------------------------------------------------------

struct whole_case {
    const char *          model;
    ggml_type             type;
    llama_flash_attn_type fa;
    bool                  via_file;
};

void PrintTo(const whole_case & c, std::ostream * os) {
    *os << c.model << " " << ggml_type_name(c.type) << (c.fa == LLAMA_FLASH_ATTN_TYPE_ENABLED ? " fa" : " nofa")
        << (c.via_file ? " file" : " memory");
}

class StateWhole : public State, public ::testing::WithParamInterface<whole_case> {};

TEST_P(StateWhole, SaveFreeLoadContinueIsBitIdentical) {
    const whole_case & c = GetParam();
    model_ptr          m = load_model(c.model);
    ASSERT_NE(m, nullptr) << llama_last_error();
    ctx_opts o;
    o.type_k = o.type_v = c.type;
    o.fa                = c.fa;

    ctx_ptr a = make_ctx(m.get(), o);
    ASSERT_NE(a, nullptr) << llama_last_error();
    const std::vector<llama_token> prompt = prompt_tokens(a.get(), 40, 1);
    // two batches, so the cache holds the cells of more than one decode
    decode_into(a.get(), std::vector<llama_token>(prompt.begin(), prompt.begin() + 25), 0, 0);
    decode_into(a.get(), std::vector<llama_token>(prompt.begin() + 25, prompt.end()), 25, 0);

    const std::string path  = tmp_path("whole.session");
    bytes             saved = get_state(a.get());
    if (c.via_file) {
        ASSERT_TRUE(llama_state_save_file(a.get(), path.c_str(), prompt.data(), prompt.size())) << llama_last_error();
    }
    const std::vector<float> want = continue_greedy(a.get(), 0, 40, 6);
    a.reset();

    ctx_ptr b = make_ctx(m.get(), o);
    ASSERT_NE(b, nullptr);
    if (c.via_file) {
        std::vector<llama_token> toks(100, -7);
        size_t                   n = 0;
        ASSERT_TRUE(llama_state_load_file(b.get(), path.c_str(), toks.data(), toks.size(), &n)) << llama_last_error();
        ASSERT_EQ(n, prompt.size());
        EXPECT_TRUE(std::equal(prompt.begin(), prompt.end(), toks.begin()));
        EXPECT_EQ(toks[n], -7);  // nothing written past the count
        std::remove(path.c_str());
    } else {
        ASSERT_EQ(llama_state_set_data(b.get(), saved.data(), saved.size()), saved.size()) << llama_last_error();
    }
    EXPECT_EQ(llama_memory_seq_pos_max(llama_get_memory(b.get()), 0), 39);
    EXPECT_EQ(get_state(b.get()), saved);  // restored exactly (cells, data, outputs)
    const std::vector<float> got = continue_greedy(b.get(), 0, 40, 6);
    EXPECT_TRUE(same_bits(got, want)) << "continuation after load differs";
}

std::vector<whole_case> whole_cases() {
    std::vector<whole_case> v;
    for (bool file : {false, true}) {
        v.push_back({"models/stories260K.gguf", GGML_TYPE_F16, LLAMA_FLASH_ATTN_TYPE_ENABLED, file});
        v.push_back({"models/stories260K.gguf", GGML_TYPE_F16, LLAMA_FLASH_ATTN_TYPE_DISABLED, file});
    }
    for (const char * arch : {"llama", "qwen2", "phi3", "gemma", "gemma2"}) {
        const std::string               p = std::string("models/synthetic/") + arch + "-micro-f16.gguf";
        static std::vector<std::string> keep;  // the case holds a const char *
        keep.reserve(32);
        keep.push_back(p);
        v.push_back({keep.back().c_str(), GGML_TYPE_F16, LLAMA_FLASH_ATTN_TYPE_ENABLED, false});
        keep.push_back(std::string("synth:") + arch);
        v.push_back({keep.back().c_str(), GGML_TYPE_Q8_0, LLAMA_FLASH_ATTN_TYPE_ENABLED, false});
        v.push_back({keep.back().c_str(), GGML_TYPE_Q8_0, LLAMA_FLASH_ATTN_TYPE_ENABLED, true});
    }
    // every other KV cache type, with flash attention and without (a quantized V is then kept by rows
    // and widened in the graph: docs/kv-cache.md)
    for (ggml_type t : {GGML_TYPE_BF16, GGML_TYPE_Q4_0, GGML_TYPE_Q4_1, GGML_TYPE_Q5_0, GGML_TYPE_Q5_1,
                        GGML_TYPE_IQ4_NL, GGML_TYPE_Q8_0}) {
        for (llama_flash_attn_type fa : {LLAMA_FLASH_ATTN_TYPE_ENABLED, LLAMA_FLASH_ATTN_TYPE_DISABLED}) {
            if (t == GGML_TYPE_Q8_0 && fa == LLAMA_FLASH_ATTN_TYPE_ENABLED)
                continue;  // above
            v.push_back({"synth:llama", t, fa, fa == LLAMA_FLASH_ATTN_TYPE_DISABLED});
        }
    }
    return v;
}

INSTANTIATE_TEST_SUITE_P(Cases, StateWhole, ::testing::ValuesIn(whole_cases()));

// A state saved with flash attention (V stored by rows) loads into a context without it (V
// transposed): the serialized rows do not depend on the layout.
TEST_F(State, LoadsAcrossFlashAttentionLayouts) {
    model_ptr m = load_model("models/stories260K.gguf");
    ASSERT_NE(m, nullptr);
    ctx_opts fa, nofa;
    nofa.fa   = LLAMA_FLASH_ATTN_TYPE_DISABLED;
    ctx_ptr a = make_ctx(m.get(), fa);
    decode_into(a.get(), prompt_tokens(a.get(), 20, 2), 0, 0);
    const bytes s = get_state(a.get());
    ctx_ptr     b = make_ctx(m.get(), nofa);
    ASSERT_EQ(llama_state_set_data(b.get(), s.data(), s.size()), s.size()) << llama_last_error();
    EXPECT_EQ(get_state(b.get()), s);
}

// ---- one sequence of several -----------------------------------------------------------------

TEST_F(State, SequenceFromOneContextIntoSeq3OfAnother) {
    model_ptr m = load_model("models/stories260K.gguf");
    ASSERT_NE(m, nullptr);
    ctx_opts o;
    o.n_seq_max = 4;
    for (bool via_file : {false, true}) {
        SCOPED_TRACE(via_file ? "file" : "memory");
        ctx_ptr a = make_ctx(m.get(), o);
        ASSERT_NE(a, nullptr) << llama_last_error();
        const auto p0 = prompt_tokens(a.get(), 12, 10);
        const auto p1 = prompt_tokens(a.get(), 17, 11);
        const auto p2 = prompt_tokens(a.get(), 9, 12);
        decode_into(a.get(), p0, 0, 0);
        decode_into(a.get(), p2, 0, 2);
        decode_into(a.get(), p1, 0, 1);  // last, so its continuation follows its own cells

        const std::string path = tmp_path("seq.state");
        const bytes       s    = get_seq_state(a.get(), 1);
        if (via_file) {
            const size_t n = llama_state_seq_save_file(a.get(), path.c_str(), 1, p1.data(), p1.size());
            ASSERT_GT(n, s.size()) << llama_last_error();
        }
        const std::vector<float> want = continue_greedy(a.get(), 1, 17, 5);
        a.reset();

        ctx_ptr b = make_ctx(m.get(), o);
        decode_into(b.get(), p0, 0, 0);  // another sequence already there
        if (via_file) {
            std::vector<llama_token> toks(64);
            size_t                   n = 0;
            // count only: nothing restored
            EXPECT_EQ(llama_state_seq_load_file(b.get(), path.c_str(), 3, nullptr, 0, &n), 12u);
            EXPECT_EQ(n, p1.size());
            EXPECT_EQ(llama_memory_seq_pos_max(llama_get_memory(b.get()), 3), -1);
            EXPECT_GT(llama_state_seq_load_file(b.get(), path.c_str(), 3, toks.data(), toks.size(), &n), 0u)
                << llama_last_error();
            ASSERT_EQ(n, p1.size());
            EXPECT_TRUE(std::equal(p1.begin(), p1.end(), toks.begin()));
            std::remove(path.c_str());
        } else {
            ASSERT_EQ(llama_state_seq_set_data(b.get(), s.data(), s.size(), 3), s.size()) << llama_last_error();
        }
        llama_memory_t mem = llama_get_memory(b.get());
        EXPECT_EQ(llama_memory_seq_pos_min(mem, 3), 0);
        EXPECT_EQ(llama_memory_seq_pos_max(mem, 3), 16);
        EXPECT_EQ(llama_memory_seq_pos_max(mem, 0), 11);  // untouched
        EXPECT_EQ(llama_memory_seq_pos_max(mem, 1), -1);
        // the last decode of b was seq 0's prompt; continue seq 3 from the restored sequence
        decode_into(b.get(), {(llama_token) argmax(want.data(), n_vocab_of(b.get()))}, 17, 3);
        const int                nv  = n_vocab_of(b.get());
        const std::vector<float> got = continue_greedy(b.get(), 3, 18, 4);
        const std::vector<float> want_tail(want.begin() + nv, want.end());
        EXPECT_TRUE(same_bits(got, want_tail)) << "sequence continuation after load differs";

        // PARTIAL_ONLY round trip (this cache has no partial part: the whole sequence) and flag checks
        bytes sp(llama_state_seq_get_size_ext(b.get(), 3, LLAMA_STATE_SEQ_FLAGS_PARTIAL_ONLY));
        ASSERT_EQ(llama_state_seq_get_data_ext(b.get(), sp.data(), sp.size(), 3, LLAMA_STATE_SEQ_FLAGS_PARTIAL_ONLY),
                  sp.size());
        EXPECT_EQ(llama_state_seq_set_data(b.get(), sp.data(), sp.size(), 2), 0u);         // flags differ
        EXPECT_EQ(llama_state_seq_set_data_ext(b.get(), sp.data(), sp.size(), 2, 2), 0u);  // unknown flag
        EXPECT_EQ(llama_state_seq_set_data_ext(b.get(), sp.data(), sp.size(), 2, LLAMA_STATE_SEQ_FLAGS_PARTIAL_ONLY),
                  sp.size());
        EXPECT_EQ(llama_memory_seq_pos_max(mem, 2), llama_memory_seq_pos_max(mem, 3));
    }
}

// ---- rejection leaves the context unchanged ----------------------------------------------------

// Runs load on ctx, expects failure with a message, and that ctx's state is still `before`.
#define EXPECT_REJECTED(call, ctx, before)                                \
    do {                                                                  \
        EXPECT_EQ((size_t) (call), 0u);                                   \
        EXPECT_NE(std::string(llama_last_error()), "");                   \
        EXPECT_TRUE(get_state(ctx) == (before)) << "the context changed"; \
    } while (0)

TEST_F(State, CorruptTruncatedOrMismatchedStatesAreRejected) {
    model_ptr m = load_model("models/stories260K.gguf");
    ASSERT_NE(m, nullptr);
    ctx_opts o;
    o.n_seq_max = 2;
    ctx_ptr c   = make_ctx(m.get(), o);
    decode_into(c.get(), prompt_tokens(c.get(), 3, 20), 0, 0);
    const bytes s = get_state(c.get());

    // the context under test holds a different state, which every failed load must keep
    ctx_ptr victim = make_ctx(m.get(), o);
    decode_into(victim.get(), prompt_tokens(c.get(), 5, 21), 0, 1);
    const bytes              before = get_state(victim.get());
    const std::vector<float> want   = [&] {
        ctx_ptr r = make_ctx(m.get(), o);
        EXPECT_EQ(llama_state_set_data(r.get(), before.data(), before.size()), before.size());
        return continue_greedy(r.get(), 1, 5, 2);
    }();

    for (size_t len = 0; len < s.size(); len++) {
        ASSERT_EQ(llama_state_set_data(victim.get(), s.data(), len), 0u) << "truncated to " << len;
    }
    EXPECT_EQ(get_state(victim.get()), before);

    std::mt19937 rng(7);
    for (int i = 0; i < 2000; i++) {
        bytes  bad = s;
        size_t at  = rng() % bad.size();
        bad[at] ^= (uint8_t) (1 + rng() % 255);
        ASSERT_EQ(llama_state_set_data(victim.get(), bad.data(), bad.size()), 0u) << "byte flip at " << at;
    }
    EXPECT_EQ(get_state(victim.get()), before);
    EXPECT_REJECTED(llama_state_set_data(victim.get(), nullptr, 100), victim.get(), before);

    // a sequence state is not a full state and the reverse
    const bytes seq = get_seq_state(c.get(), 0);
    EXPECT_REJECTED(llama_state_set_data(victim.get(), seq.data(), seq.size()), victim.get(), before);
    EXPECT_REJECTED(llama_state_seq_set_data(victim.get(), s.data(), s.size(), 0), victim.get(), before);
    // sequence ids outside [0, n_seq_max)
    EXPECT_REJECTED(llama_state_seq_set_data(victim.get(), seq.data(), seq.size(), 2), victim.get(), before);
    EXPECT_REJECTED(llama_state_seq_set_data(victim.get(), seq.data(), seq.size(), -1), victim.get(), before);
    {
        ctx_opts o4  = o;
        o4.n_seq_max = 4;
        ctx_ptr w    = make_ctx(m.get(), o4);
        decode_into(w.get(), prompt_tokens(c.get(), 3, 22), 0, 3);
        const bytes s3 = get_state(w.get());
        EXPECT_REJECTED(llama_state_set_data(victim.get(), s3.data(), s3.size()), victim.get(), before);
        EXPECT_NE(std::string(llama_last_error()).find("n_seq_max"), std::string::npos) << llama_last_error();
    }

    // another model
    {
        model_ptr   other = load_model("models/synthetic/llama-micro-f16.gguf");
        ctx_ptr     oc    = make_ctx(other.get(), o);
        const bytes os    = get_state(oc.get());
        EXPECT_REJECTED(llama_state_set_data(victim.get(), os.data(), os.size()), victim.get(), before);
        EXPECT_NE(std::string(llama_last_error()).find("different model"), std::string::npos) << llama_last_error();
        EXPECT_EQ(llama_state_set_data(oc.get(), s.data(), s.size()), 0u);
    }
    // another KV type (on a model whose heads a Q8_0 cache fits), and a type only for V
    {
        model_ptr sm = load_model("synth:llama");
        ctx_opts  oq = o;
        oq.type_k = oq.type_v = GGML_TYPE_Q8_0;
        ctx_ptr q             = make_ctx(sm.get(), oq);
        ctx_ptr f             = make_ctx(sm.get(), o);
        oq.type_k             = GGML_TYPE_F16;
        ctx_ptr qv            = make_ctx(sm.get(), oq);
        ASSERT_TRUE(q && f && qv) << llama_last_error();
        decode_into(q.get(), prompt_tokens(q.get(), 4, 25), 0, 0);
        const bytes qs = get_state(q.get()), fs = get_state(f.get());
        EXPECT_EQ(llama_state_set_data(f.get(), qs.data(), qs.size()), 0u);
        EXPECT_NE(std::string(llama_last_error()).find("KV cache"), std::string::npos) << llama_last_error();
        EXPECT_EQ(get_state(f.get()), fs);
        EXPECT_EQ(llama_state_set_data(qv.get(), qs.data(), qs.size()), 0u);
        EXPECT_EQ(
            llama_state_seq_set_data(f.get(), get_seq_state(q.get(), 0).data(), get_seq_state(q.get(), 0).size(), 0),
            0u);
        EXPECT_EQ(get_state(f.get()), fs);
        // a Q8_0 cache on 8-wide heads (stories260K) is refused at creation, with a reason
        ctx_opts bad = o;
        bad.type_k = bad.type_v = GGML_TYPE_Q8_0;
        EXPECT_EQ(make_ctx(m.get(), bad), nullptr);
        EXPECT_NE(std::string(llama_last_error()).find("block size"), std::string::npos) << llama_last_error();
    }
    // n_ctx too small: 300 cells into a 256-cell cache (a state of fewer cells would fit)
    {
        ctx_opts big = o;
        big.n_ctx    = 768;
        ctx_ptr l    = make_ctx(m.get(), big);
        decode_into(l.get(), prompt_tokens(l.get(), 300, 23), 0, 0);
        decode_into(l.get(), prompt_tokens(l.get(), 254, 24), 0, 1);
        const bytes ls = get_state(l.get());
        EXPECT_REJECTED(llama_state_set_data(victim.get(), ls.data(), ls.size()), victim.get(), before);
        EXPECT_NE(std::string(llama_last_error()).find("n_ctx too small"), std::string::npos) << llama_last_error();
        // a sequence that does not fit beside the others
        const bytes lseq = get_seq_state(l.get(), 1);  // 254 cells: fit the cache, not its 251 free cells
        EXPECT_REJECTED(llama_state_seq_set_data(victim.get(), lseq.data(), lseq.size(), 0), victim.get(), before);
    }
    // destination too small for get_data
    {
        bytes small(s.size() - 1);
        EXPECT_EQ(llama_state_get_data(c.get(), small.data(), small.size()), 0u);
    }

    // files: missing, wrong magic, truncated, too little token capacity
    {
        const std::string        path = tmp_path("bad.session");
        std::vector<llama_token> toks(8, -5);
        size_t                   n = 99;
        EXPECT_FALSE(llama_state_load_file(victim.get(), "/nonexistent/x.session", toks.data(), toks.size(), &n));
        std::vector<llama_token> pr = {1, 2, 3};
        ASSERT_TRUE(llama_state_save_file(c.get(), path.c_str(), pr.data(), pr.size())) << llama_last_error();
        EXPECT_FALSE(llama_state_load_file(victim.get(), path.c_str(), toks.data(), 2, &n));  // capacity
        EXPECT_EQ(llama_state_seq_load_file(victim.get(), path.c_str(), 0, toks.data(), toks.size(), &n), 0u);
        bytes f;
        {
            FILE * fp = fopen(path.c_str(), "rb");
            ASSERT_NE(fp, nullptr);
            int ch;
            while ((ch = fgetc(fp)) != EOF) {
                f.push_back((uint8_t) ch);
            }
            fclose(fp);
        }
        for (size_t len : {(size_t) 0, (size_t) 11, (size_t) 20, f.size() / 2, f.size() - 1}) {
            FILE * fp = fopen(path.c_str(), "wb");
            fwrite(f.data(), 1, len, fp);
            fclose(fp);
            EXPECT_FALSE(llama_state_load_file(victim.get(), path.c_str(), toks.data(), toks.size(), &n)) << len;
        }
        bytes trailing = f;
        trailing.push_back(0);
        FILE * fp = fopen(path.c_str(), "wb");
        fwrite(trailing.data(), 1, trailing.size(), fp);
        fclose(fp);
        EXPECT_FALSE(llama_state_load_file(victim.get(), path.c_str(), toks.data(), toks.size(), &n));
        EXPECT_EQ(get_state(victim.get()), before);  // the trailing byte is found before restoring
        EXPECT_EQ(n, 99u);
        EXPECT_EQ(toks, std::vector<llama_token>(8, -5));  // untouched by every failed load
        std::remove(path.c_str());
    }

    EXPECT_EQ(get_state(victim.get()), before);
    EXPECT_TRUE(same_bits(continue_greedy(victim.get(), 1, 5, 2), want)) << "the context no longer decodes the same";
}

// Mutated states with a recomputed checksum (so they get past it) through the real API: each is
// refused with the context unchanged, or accepted and the context still decodes (no crash, a
// documented return code). The parser alone is fuzzed by tests/fuzz/fuzz-state.cpp.
TEST_F(State, MutatedStatesThroughTheApi) {
    model_ptr m = load_model("models/stories260K.gguf");
    ASSERT_NE(m, nullptr);
    ctx_opts o;
    o.n_seq_max = 4;
    ctx_ptr src = make_ctx(m.get(), o);
    decode_into(src.get(), prompt_tokens(src.get(), 3, 50), 0, 0);
    llama_memory_seq_cp(llama_get_memory(src.get()), 0, 2, -1, -1);
    const bytes full = get_state(src.get()), seq = get_seq_state(src.get(), 0);

    ctx_ptr      c = make_ctx(m.get(), o);
    std::mt19937 rng(99);
    int          n_accepted = 0;
    for (int i = 0; i < 1500; i++) {
        const bool is_seq = i % 2;
        bytes      b      = is_seq ? seq : full;
        for (int k = 0; k < 1 + (int) (rng() % 3); k++) {
            const size_t at = 16 + rng() % (b.size() - 24);  // past magic/version/size, not the checksum
            if (rng() % 2) {
                b[at] ^= (uint8_t) (1u << (rng() % 8));
            } else if (at + 4 <= b.size() - 8) {
                static const uint32_t vals[] = {0, 1, 2, 3, 4, 255, 256, 0x7fffffffu, 0x80000000u, 0xffffffffu};
                memcpy(b.data() + at, &vals[rng() % 10], 4);
            }
        }
        const uint64_t sum = llama_state_io::checksum(b.data(), b.size() - 8);
        memcpy(b.data() + b.size() - 8, &sum, 8);

        const bytes  before = get_state(c.get());
        const size_t got    = is_seq ? llama_state_seq_set_data(c.get(), b.data(), b.size(), 1)
                                     : llama_state_set_data(c.get(), b.data(), b.size());
        if (got == 0) {
            ASSERT_EQ(get_state(c.get()), before) << "a refused state changed the context, mutation " << i;
            continue;
        }
        ASSERT_EQ(got, b.size());
        n_accepted++;
        // decode one token after sequence 1's last position: any documented code, no crash
        const llama_pos p = llama_memory_seq_pos_max(llama_get_memory(c.get()), 1) + 1;
        owned_batch     bt(1);
        bt.add(5, p, {1});
        const int32_t rc = llama_decode(c.get(), bt.b);
        EXPECT_TRUE(rc == 0 || rc == 1 || rc == -1) << rc << " " << llama_last_error();
        llama_memory_clear(llama_get_memory(c.get()), true);
    }
    EXPECT_GT(n_accepted, 0);  // some mutations (K/V bytes, logits) are valid states
}

// Writes seeds for the state fuzzer (tests/fuzz/seeds-state) when LLAMA_TEST_WRITE_STATE_SEEDS
// names a folder: one control byte (0x01: the harness recomputes the checksum) + the state.
TEST_F(State, WriteFuzzSeeds) {
    const char * dir = getenv("LLAMA_TEST_WRITE_STATE_SEEDS");
    if (!dir) {
        GTEST_SKIP() << "set LLAMA_TEST_WRITE_STATE_SEEDS=<dir> to write fuzzer seeds";
    }
    model_ptr m = load_model("models/stories260K.gguf");
    ctx_opts  o;
    o.n_seq_max = 2;
    ctx_ptr c   = make_ctx(m.get(), o);
    auto    put = [&](const char * name, const bytes & s) {
        FILE * f = fopen((std::string(dir) + "/" + name).c_str(), "wb");
        ASSERT_NE(f, nullptr);
        fputc(1, f);
        fwrite(s.data(), 1, s.size(), f);
        fclose(f);
    };
    put("empty-full", get_state(c.get()));
    decode_into(c.get(), prompt_tokens(c.get(), 2, 30), 0, 0);
    llama_memory_seq_cp(llama_get_memory(c.get()), 0, 1, -1, -1);
    put("two-cells-full", get_state(c.get()));
    put("two-cells-seq", get_seq_state(c.get(), 1));
    llama_memory_seq_add(llama_get_memory(c.get()), 1, 0, -1, 3);  // a pending shift
    put("shifted-seq", get_seq_state(c.get(), 1));
}

// ---- cross-device: KV of offloaded layers in Vulkan buffers --------------------------------------

ggml_backend_dev_t vk_dev0() {
    ggml_backend_reg_t reg = ggml_backend_reg_by_name("Vulkan");
    return reg && ggml_backend_reg_dev_count(reg) > 0 ? ggml_backend_reg_dev_get(reg, 0) : nullptr;
}

TEST_F(State, KvOnVulkanRoundTripsAndCrossesDevices) {
    if (!vk_dev0()) {
        const char * req = getenv("LLAMA_TEST_REQUIRE_VULKAN");
        if (req && req[0] == '1') {
            FAIL() << "LLAMA_TEST_REQUIRE_VULKAN=1 but no Vulkan device";
        }
        GTEST_SKIP() << "no Vulkan device (build without Vulkan or no driver)";
    }
    model_ptr gpu = load_model("models/stories260K.gguf", 3);  // 3 of 5 layers (and their KV) on Vulkan
    model_ptr cpu = load_model("models/stories260K.gguf", 0);
    ASSERT_NE(gpu, nullptr) << llama_last_error();
    ctx_opts o;
    ctx_ptr  a = make_ctx(gpu.get(), o);
    ASSERT_NE(a, nullptr) << llama_last_error();
    decode_into(a.get(), prompt_tokens(a.get(), 30, 40), 0, 0);
    const bytes              s    = get_state(a.get());
    const std::vector<float> want = continue_greedy(a.get(), 0, 30, 4);
    a.reset();

    ctx_ptr b = make_ctx(gpu.get(), o);
    ASSERT_EQ(llama_state_set_data(b.get(), s.data(), s.size()), s.size()) << llama_last_error();
    EXPECT_EQ(get_state(b.get()), s);
    EXPECT_TRUE(same_bits(continue_greedy(b.get(), 0, 30, 4), want)) << "continuation on Vulkan differs";

    // saved on the CPU, restored into Vulkan-resident layers and read back: the same bytes; and
    // the reverse
    ctx_ptr cc = make_ctx(cpu.get(), o);
    decode_into(cc.get(), prompt_tokens(cc.get(), 30, 41), 0, 0);
    const bytes cs = get_state(cc.get());
    ctx_ptr     g  = make_ctx(gpu.get(), o);
    ASSERT_EQ(llama_state_set_data(g.get(), cs.data(), cs.size()), cs.size()) << llama_last_error();
    EXPECT_EQ(get_state(g.get()), cs);
    ctx_ptr c2 = make_ctx(cpu.get(), o);
    ASSERT_EQ(llama_state_set_data(c2.get(), s.data(), s.size()), s.size());
    EXPECT_EQ(get_state(c2.get()), s);
}

}  // namespace
