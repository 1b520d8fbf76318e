// deepseek2's latent cache (absorbed MLA) keeps V as the first kv_lora_rank values of each K row
// (no V storage): its state round-trips bit-identically (whole context and one sequence, flash
// attention on and off, across the two layouts) without V rows; a state of the older layout (V rows
// saved apart) is refused with a reason and the context left unchanged; a quantized latent cache
// (every block KV type, on a latent whose width the blocks divide) stays within its type's bound of
// the F16 cache's logits on both attention paths, and the paths agree; a latent the type's blocks
// do not divide is refused at creation; a shifted quantized latent cache stays within that bound of
// the F16 cache and of decoding at the shifted positions. LLAMA_TEST_KV_PRINT=1 prints the errors.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <unistd.h>

#include "../../examples/gguf-synth/gguf-synth.h"
#include "llama-state-io.h"
#include "llama.h"
#include "test-common.h"
#include "test-llama-suite.h"
#include "test-llama-util.h"

using namespace llama_test_util;
using testing_util::data_path;

namespace {

using bytes = std::vector<uint8_t>;

model_ptr load_path(const std::string & path) {
    return model_ptr(llama_model_load_from_file(path.c_str(), llama_model_default_params()));
}

uint32_t meta_u32(const llama_model * m, const char * key) {
    char buf[64] = {0};
    EXPECT_GT(llama_model_meta_val_str(m, key, buf, sizeof buf), 0) << key;
    return (uint32_t) strtoul(buf, nullptr, 10);
}

// The widths of a deepseek2 latent cache row and the layer count, from the model's metadata.
struct latent_dims {
    uint32_t rank;  // kv_lora_rank: the latent (V) part of a K row
    uint32_t rope;  // the rope part after it
    uint32_t n_layer;
};
latent_dims latent_dims_of(const llama_model * m) {
    return {meta_u32(m, "deepseek2.attention.kv_lora_rank"), meta_u32(m, "deepseek2.rope.dimension_count"),
            meta_u32(m, "deepseek2.block_count")};
}

ctx_ptr make_ctx(llama_model * m, llama_flash_attn_type fa, ggml_type type_k = GGML_TYPE_F16,
                 ggml_type type_v = GGML_TYPE_F16, uint32_t n_seq_max = 1) {
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx                = 256;
    cp.n_batch              = 256;
    cp.n_threads            = 2;
    cp.n_threads_batch      = 2;
    cp.n_seq_max            = n_seq_max;
    cp.type_k               = type_k;
    cp.type_v               = type_v;
    cp.flash_attn_type      = fa;
    return ctx_ptr(llama_init_from_model(m, cp));
}

const std::vector<llama_token> k_prompt = {1, 38, 250, 263, 31, 201, 263, 38, 17, 42, 5, 77};

bytes seq_state(llama_context * ctx, llama_seq_id seq) {
    bytes b(llama_state_seq_get_size(ctx, seq));
    EXPECT_EQ(llama_state_seq_get_data(ctx, b.data(), b.size(), seq), b.size()) << llama_last_error();
    return b;
}

bytes full_state(llama_context * ctx) {
    bytes b(llama_state_get_size(ctx));
    EXPECT_EQ(llama_state_get_data(ctx, b.data(), b.size()), b.size()) << llama_last_error();
    return b;
}

bool same_bits(const std::vector<float> & a, const std::vector<float> & b) {
    return a.size() == b.size() && memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// deepseek2 micro model with a latent and rope part wide enough for 32-value blocks (K 64 + 32, V the
// first 64), written here
std::string wide_latent_model() {
    const std::string path = testing::TempDir() + "test-mla-cache-" + std::to_string(getpid()) + ".gguf";
    synth::params     p;
    EXPECT_TRUE(synth::apply_micro_model("deepseek2", p));
    p.n_lora_kv = 64, p.n_rot = 32, p.n_threads = 2;
    std::string err;
    EXPECT_TRUE(synth::write_model(p, path, err)) << err;
    return path;
}

class MlaCache : public quiet_llama_suite<> {
protected:
    static void TearDownTestSuite() {
        std::remove((testing::TempDir() + "test-mla-cache-" + std::to_string(getpid()) + ".gguf").c_str());
    }
};

}  // namespace

// save -> new context -> load -> continue gives the bits of never having stopped, on both attention
// layouts and across them, for the whole context and for one sequence moved into another slot.
TEST_F(MlaCache, StateRoundTripsWithoutVRows) {
    model_ptr m = load_path(data_path("models/synthetic/deepseek2-micro-f16.gguf"));
    ASSERT_NE(m, nullptr) << llama_last_error();
    const latent_dims d = latent_dims_of(m.get());
    for (llama_flash_attn_type fa_src : {LLAMA_FLASH_ATTN_TYPE_ENABLED, LLAMA_FLASH_ATTN_TYPE_DISABLED}) {
        for (llama_flash_attn_type fa_dst : {LLAMA_FLASH_ATTN_TYPE_ENABLED, LLAMA_FLASH_ATTN_TYPE_DISABLED}) {
            SCOPED_TRACE(std::string("from fa ") + (fa_src == LLAMA_FLASH_ATTN_TYPE_ENABLED ? "on" : "off") +
                         " into fa " + (fa_dst == LLAMA_FLASH_ATTN_TYPE_ENABLED ? "on" : "off"));
            ctx_ptr a = make_ctx(m.get(), fa_src);
            ASSERT_NE(a, nullptr) << llama_last_error();
            decode_into(a.get(), k_prompt, 0, 0);
            const bytes whole = full_state(a.get());
            const bytes seq   = seq_state(a.get(), 0);
            // one token more per cell than the records: the K rows only (20-byte cell records)
            const bytes one = [&] {
                ctx_ptr c = make_ctx(m.get(), fa_src);
                decode_into(c.get(), {k_prompt[0]}, 0, 0);
                return seq_state(c.get(), 0);
            }();
            EXPECT_EQ(seq.size() - one.size(),
                      (k_prompt.size() - 1) * (20 + (size_t) d.n_layer * (d.rank + d.rope) * 2));
            const std::vector<float> want = continue_greedy(a.get(), 0, (llama_pos) k_prompt.size(), 4);

            ctx_ptr b = make_ctx(m.get(), fa_dst);
            ASSERT_EQ(llama_state_set_data(b.get(), whole.data(), whole.size()), whole.size()) << llama_last_error();
            const std::vector<float> got = continue_greedy(b.get(), 0, (llama_pos) k_prompt.size(), 4);
            if (fa_src == fa_dst) {
                EXPECT_TRUE(same_bits(got, want)) << "whole-context state";
            } else {
                ASSERT_EQ(got.size(), want.size());
                EXPECT_LT(max_err_rel_rms(got.data(), want.data(), (int) got.size()), 1e-2);
            }

            ctx_ptr s3 = make_ctx(m.get(), fa_dst, GGML_TYPE_F16, GGML_TYPE_F16, 4);
            ASSERT_EQ(llama_state_seq_set_data(s3.get(), seq.data(), seq.size(), 3), seq.size()) << llama_last_error();
            const std::vector<float> got3 = [&] {
                decode_into(s3.get(), {k_prompt.back()}, (llama_pos) k_prompt.size(), 3);
                return continue_greedy(s3.get(), 3, (llama_pos) k_prompt.size() + 1, 3);
            }();
            ctx_ptr r = make_ctx(m.get(), fa_dst);
            ASSERT_EQ(llama_state_set_data(r.get(), whole.data(), whole.size()), whole.size());
            decode_into(r.get(), {k_prompt.back()}, (llama_pos) k_prompt.size(), 0);
            const std::vector<float> want3 = continue_greedy(r.get(), 0, (llama_pos) k_prompt.size() + 1, 3);
            ASSERT_EQ(got3.size(), want3.size());
            EXPECT_LT(max_err_rel_rms(got3.data(), want3.data(), (int) got3.size()), 1e-5) << "sequence state";
        }
    }
}

// The layout before V was kept inside K: the fingerprint's n_embd_v_gqa is the latent width and each
// layer's K rows are followed by V rows (the latent again). Built from a current sequence state.
TEST_F(MlaCache, StateWithSeparateVRowsIsRefused) {
    model_ptr m = load_path(data_path("models/synthetic/deepseek2-micro-f16.gguf"));
    ASSERT_NE(m, nullptr) << llama_last_error();
    const latent_dims d = latent_dims_of(m.get());
    ctx_ptr           a = make_ctx(m.get(), LLAMA_FLASH_ATTN_TYPE_ENABLED);
    ASSERT_NE(a, nullptr) << llama_last_error();
    decode_into(a.get(), k_prompt, 0, 0);
    const bytes now = seq_state(a.get(), 0);

    // header (24), fingerprint: name length, name, n_layer, n_vocab, n_embd, n_embd_k_gqa, n_embd_v_gqa
    uint32_t name_len = 0;
    memcpy(&name_len, now.data() + 24, 4);
    const size_t fp_v = 24 + 4 + name_len + 16;
    uint32_t     v_gqa, k_gqa;
    memcpy(&k_gqa, now.data() + fp_v - 4, 4);
    memcpy(&v_gqa, now.data() + fp_v, 4);
    ASSERT_EQ(k_gqa, d.rank + d.rope);
    ASSERT_EQ(v_gqa, 0u);              // no V rows
    const size_t kv_at   = fp_v + 12;  // past n_embd_v_gqa, type_k, type_v: cache size, head, cell count
    uint32_t     n_cells = 0;
    memcpy(&n_cells, now.data() + kv_at + 8, 4);
    ASSERT_EQ(n_cells, k_prompt.size());
    const size_t rows_at = kv_at + 12 + (size_t) n_cells * 20, k_row = (d.rank + d.rope) * 2, v_row = d.rank * 2;
    ASSERT_EQ(rows_at + d.n_layer * n_cells * k_row + 8, now.size());

    bytes old(now.begin(), now.begin() + rows_at);
    memcpy(old.data() + fp_v, &d.rank, 4);
    for (uint32_t il = 0; il < d.n_layer; il++) {
        const uint8_t * k = now.data() + rows_at + (size_t) il * n_cells * k_row;
        old.insert(old.end(), k, k + (size_t) n_cells * k_row);
        for (uint32_t c = 0; c < n_cells; c++) {
            old.insert(old.end(), k + c * k_row, k + c * k_row + v_row);
        }
    }
    const uint64_t total = old.size() + 8;
    memcpy(old.data() + 8, &total, 8);
    const uint64_t sum = llama_state_io::checksum(old.data(), old.size());
    old.resize(old.size() + 8);
    memcpy(old.data() + old.size() - 8, &sum, 8);

    ctx_ptr b = make_ctx(m.get(), LLAMA_FLASH_ATTN_TYPE_ENABLED);
    decode_into(b.get(), {5, 6, 7}, 0, 0);
    const bytes before = full_state(b.get());
    EXPECT_EQ(llama_state_seq_set_data(b.get(), old.data(), old.size(), 0), 0u);
    EXPECT_NE(std::string(llama_last_error()).find("V rows"), std::string::npos) << llama_last_error();
    EXPECT_TRUE(full_state(b.get()) == before) << "the context changed";
    // the unmodified image loads (the rebuild above only added the V rows)
    EXPECT_EQ(llama_state_seq_set_data(b.get(), now.data(), now.size(), 0), now.size()) << llama_last_error();
}

// Largest error relative to the F16 cache's row RMS a quantized latent cache may add to the logits:
// about twice the largest measured here (LLAMA_TEST_KV_PRINT=1: BF16 0.008, Q8_0 0.026, Q4_0 0.21,
// Q4_1 0.37, Q5_0 0.23, Q5_1 0.14, IQ4_NL 0.21; both attention paths). K and V are both of the type
// (V is K's prefix), so these are about K's plus V's bound of test-kv-types.
double latent_bound(ggml_type t) {
    switch (t) {
        case GGML_TYPE_BF16:
            return 0.02;
        case GGML_TYPE_Q8_0:
            return 0.05;
        case GGML_TYPE_Q5_1:
            return 0.3;
        case GGML_TYPE_Q4_0:
        case GGML_TYPE_Q5_0:
        case GGML_TYPE_IQ4_NL:
            return 0.45;
        case GGML_TYPE_Q4_1:
            return 0.75;
        default:
            return 0.0;
    }
}

TEST_F(MlaCache, QuantizedLatentWithinItsBoundOnBothPaths) {
    model_ptr m = load_path(wide_latent_model());
    ASSERT_NE(m, nullptr) << llama_last_error();
    const bool print = getenv("LLAMA_TEST_KV_PRINT") != nullptr;
    auto       run   = [&](ggml_type t, llama_flash_attn_type fa) {
        // the V type asked for is not used: V is K's prefix, of K's type
        ctx_ptr c = make_ctx(m.get(), fa, t, GGML_TYPE_F32);
        EXPECT_NE(c, nullptr) << ggml_type_name(t) << ": " << llama_last_error();
        if (!c) {
            return std::vector<float>();
        }
        decode_into(c.get(), k_prompt, 0, 0);
        return continue_greedy(c.get(), 0, (llama_pos) k_prompt.size(), 4);
    };
    const std::vector<float> ref = run(GGML_TYPE_F16, LLAMA_FLASH_ATTN_TYPE_DISABLED);
    const int                nv  = llama_vocab_n_tokens(llama_model_get_vocab(m.get()));
    ASSERT_EQ(ref.size(), (size_t) nv * 5);
    for (ggml_type t : {GGML_TYPE_BF16, GGML_TYPE_Q8_0, GGML_TYPE_Q4_0, GGML_TYPE_Q4_1, GGML_TYPE_Q5_0, GGML_TYPE_Q5_1,
                        GGML_TYPE_IQ4_NL}) {
        SCOPED_TRACE(ggml_type_name(t));
        std::vector<float> rows[2];
        for (int fa = 0; fa < 2; fa++) {
            rows[fa] = run(t, fa ? LLAMA_FLASH_ATTN_TYPE_ENABLED : LLAMA_FLASH_ATTN_TYPE_DISABLED);
            ASSERT_EQ(rows[fa].size(), ref.size());
            // the first row only: the greedy paths may part after a near-tie
            const double e = max_err_rel_rms(rows[fa].data(), ref.data(), nv);
            if (print) {
                printf("latent %s fa=%d: %.3e of RMS\n", ggml_type_name(t), fa, e);
            }
            EXPECT_LT(e, latent_bound(t)) << "fa=" << fa;
        }
        // both paths read the same cache values; the plain path rounds Q to Q8_0 for K's block dot
        // product (flash attention keeps it F32): measured at most 0.043 of RMS (Q4_1)
        const double d = max_err_rel_rms(rows[1].data(), rows[0].data(), nv);
        if (print) {
            printf("latent %s fa vs plain: %.3e of RMS\n", ggml_type_name(t), d);
        }
        EXPECT_LT(d, 0.1);
    }
}

// The micro model's latent (32) + rope (16) = 48 values per K row: 32-value blocks straddle its end.
TEST_F(MlaCache, BlocksThatDoNotDivideTheLatentAreRefused) {
    model_ptr m = load_path(data_path("models/synthetic/deepseek2-micro-f16.gguf"));
    ASSERT_NE(m, nullptr) << llama_last_error();
    ctx_ptr c = make_ctx(m.get(), LLAMA_FLASH_ATTN_TYPE_ENABLED, GGML_TYPE_Q8_0, GGML_TYPE_Q8_0);
    EXPECT_EQ(c, nullptr);
    EXPECT_NE(std::string(llama_last_error()).find("block size"), std::string::npos) << llama_last_error();
}

// Shifting a quantized latent cache rotates the rope part of each K row (whole blocks, dequantized,
// rotated, requantized) and leaves the latent part's blocks as they are. The next logits after
// llama_memory_seq_add(+10) stay within the type's bound of an F16 cache shifted the same way and of
// a cache of the type that decoded the prompt at the shifted positions (a rotation left out or by the
// wrong angle puts the new token at the wrong distance from every cached key: far outside the bound).
TEST_F(MlaCache, QuantizedLatentShiftWorks) {
    model_ptr m = load_path(wide_latent_model());
    ASSERT_NE(m, nullptr) << llama_last_error();
    const bool      print = getenv("LLAMA_TEST_KV_PRINT") != nullptr;
    const int       nv    = llama_vocab_n_tokens(llama_model_get_vocab(m.get()));
    const llama_pos n = (llama_pos) k_prompt.size(), delta = 10;
    // the logits of token 5 at position n + delta after the prompt decoded at pos0 (and moved by
    // delta when shift)
    auto next_row = [&](ggml_type t, llama_flash_attn_type fa, llama_pos pos0, bool shift) {
        ctx_ptr c = make_ctx(m.get(), fa, t, GGML_TYPE_F32);
        EXPECT_NE(c, nullptr) << ggml_type_name(t) << ": " << llama_last_error();
        if (!c) {
            return std::vector<float>();
        }
        decode_into(c.get(), k_prompt, pos0, 0);
        if (shift) {
            llama_memory_seq_add(llama_get_memory(c.get()), 0, 0, -1, delta);
        }
        decode_into(c.get(), {5}, n + delta, 0);
        return continue_greedy(c.get(), 0, n + delta + 1, 0);
    };
    for (llama_flash_attn_type fa : {LLAMA_FLASH_ATTN_TYPE_ENABLED, LLAMA_FLASH_ATTN_TYPE_DISABLED}) {
        SCOPED_TRACE(fa == LLAMA_FLASH_ATTN_TYPE_ENABLED ? "fa on" : "fa off");
        const std::vector<float> f16 = next_row(GGML_TYPE_F16, fa, 0, true);
        ASSERT_EQ(f16.size(), (size_t) nv);
        for (ggml_type t : {GGML_TYPE_Q8_0, GGML_TYPE_Q4_0}) {
            SCOPED_TRACE(ggml_type_name(t));
            const std::vector<float> shifted = next_row(t, fa, 0, true);
            const std::vector<float> direct  = next_row(t, fa, delta, false);
            ASSERT_EQ(shifted.size(), (size_t) nv);
            ASSERT_EQ(direct.size(), (size_t) nv);
            const double e_f16    = max_err_rel_rms(shifted.data(), f16.data(), nv);
            const double e_direct = max_err_rel_rms(shifted.data(), direct.data(), nv);
            if (print) {
                printf("shift %s fa=%d: vs f16 %.3e, vs direct %.3e of RMS\n", ggml_type_name(t),
                       fa == LLAMA_FLASH_ATTN_TYPE_ENABLED, e_f16, e_direct);
            }
            EXPECT_LT(e_f16, latent_bound(t));
            EXPECT_LT(e_direct, latent_bound(t));
        }
    }
}
