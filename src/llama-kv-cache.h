// The KV cache: cells holding a position and a set of sequences, K/V tensors per layer, slot
// search for whole batches with rollback, and the graph-side helpers (views, writes, mask).
#pragma once

#include <bitset>
#include <map>
#include <memory>
#include <vector>

#include "ggml-backend.h"
#include "llama-batch.h"
#include "llama-cparams.h"
#include "llama-memory.h"

struct llama_model;
namespace llama_state_io {
class writer;
struct image;
}  // namespace llama_state_io

// Where the tokens of one ubatch go: a cell index per token.
struct llama_kv_slot {
    std::vector<uint32_t> idxs;
    uint32_t              n_kv = 0;  // cells the graph must attend over (padded)
    // the same in the window cache of the sliding-window layers (when the cache has one)
    std::vector<uint32_t> idxs_swa;
    uint32_t              n_kv_swa = 0;
};

class llama_kv_cache : public llama_memory_i {
public:
    // v_trans: store V transposed (rows = channels) for the plain attention path; ignored for a
    // quantized V (its blocks span channels), which is kept by rows on every path.
    // offload: K/V of an offloaded layer live on that layer's device (offload_kqv) when the device
    // can write the cache type; otherwise in CPU memory.
    // swa_size > 0 (upstream's swa_full = false) on a model with sliding-window layers: their K/V live
    // in a separate window cache of swa_size cells that keeps, per sequence, only the cells a later
    // token can still see (cells n_swa or more positions behind the sequence's last one are reused).
    llama_kv_cache(const llama_model & model, uint32_t kv_size, ggml_type type_k, ggml_type type_v, bool v_trans,
                   uint32_t n_seq_max, bool offload = false, uint32_t swa_size = 0);
    ~llama_kv_cache() override;
    // The cache of a multi-token-prediction context: K/V for the NextN blocks only (model.layers past
    // hparams.n_layer, loaded with load_mtp); the decoder's layers have none.
    static llama_kv_cache * new_nextn(const llama_model & model, uint32_t kv_size, ggml_type type_k, ggml_type type_v,
                                      bool v_trans, uint32_t n_seq_max, bool offload);

    // ---- llama_memory_i ----
    void      clear(bool data) override;
    bool      seq_rm(llama_seq_id seq_id, llama_pos p0, llama_pos p1) override;
    void      seq_cp(llama_seq_id src, llama_seq_id dst, llama_pos p0, llama_pos p1) override;
    void      seq_keep(llama_seq_id seq_id) override;
    void      seq_add(llama_seq_id seq_id, llama_pos p0, llama_pos p1, llama_pos delta) override;
    void      seq_div(llama_seq_id seq_id, llama_pos p0, llama_pos p1, int d) override;
    llama_pos seq_pos_min(llama_seq_id seq_id) const override;
    llama_pos seq_pos_max(llama_seq_id seq_id) const override;
    bool      seq_same_cells(llama_seq_id a, llama_seq_id b) const override;
    bool      can_shift() const override { return true; }

    // ---- decode support ----
    // Finds a slot for every ubatch (in order, as if each were stored) without changing the cache.
    // False if they do not all fit.
    bool prepare(const std::vector<llama_ubatch> & ubatches, std::vector<llama_kv_slot> & slots);
    // Stores the ubatch's tokens in its slot (positions and sequences; K/V are written by the graph).
    void apply(const llama_ubatch & ub, const llama_kv_slot & slot);
    // Undoes apply() for a ubatch whose compute did not complete (the slot's cells were empty).
    void release(const llama_kv_slot & slot);

    uint32_t size() const { return (uint32_t) cells.size(); }
    uint32_t n_used() const { return used; }
    bool     v_trans() const { return v_trans_; }
    // V is held inside K (hparams.v_in_k): no V tensors, get_v views K, cpy_v stores nothing, and V
    // has K's type (type_v() == type_k())
    bool      v_in_k() const { return v_in_k_; }
    ggml_type type_k() const { return type_k_; }
    ggml_type type_v() const { return type_v_; }
    // The window cache of the sliding-window layers, or nullptr (they are in this cache).
    const llama_kv_cache * swa_cache() const { return swa.get(); }
    llama_kv_cache *       swa_cache() { return swa.get(); }
    // The slot of a ubatch in the window cache.
    static llama_kv_slot swa_slot(const llama_kv_slot & s) { return {s.idxs_swa, s.n_kv_swa, {}, 0}; }
    // Bytes of K/V storage (all buffers, window cache included).
    size_t total_size() const;

    // ---- state (llama-kv-cache-state.cpp, format in docs/state.md) ----
    // Writes the cells of seq_id (< 0: every cell with its sequence set) and their K/V rows,
    // read from whichever backend buffer holds each layer.
    void state_write(llama_state_io::writer & w, llama_seq_id seq_id) const;
    // Restores a validated image: the whole cache (dest < 0) or sequence dest. Every check that
    // can fail (room for the cells) runs before the cache changes; throws llama_error then.
    void state_apply(const llama_state_io::image & img, llama_seq_id dest);

    // Pending position shifts (seq_add/seq_div) to rotate into K before the next decode.
    bool has_shift() const { return shift_pending || (swa && swa->shift_pending); }
    // Fills dst (I32 [size]) with the per-cell shift deltas of this cache (not the window cache's) and
    // clears them.
    void take_shifts(int32_t * dst);

    // ---- graph helpers (layer il's K/V, wherever it lives: here or in the window cache) ----
    ggml_tensor * k_layer(int il) const { return holder(il).k_l[il]; }
    ggml_tensor * v_layer(int il) const { return holder(il).v_l[il]; }
    // K of the first n_kv cells as [head_dim, n_head_kv, n_kv] (of layer hparams.kv_layer(il): a
    // KV-sharing layer reads its source layer's; so does get_v).
    ggml_tensor * get_k(ggml_context * ctx, int il, uint32_t n_kv) const;
    // V as [n_kv, head_dim, n_head_kv] (transposed storage) or [head_dim, n_head_kv, n_kv]; with V
    // inside K the latter, a view of K's rows (row stride K's, so not contiguous).
    ggml_tensor * get_v(ggml_context * ctx, int il, uint32_t n_kv) const;
    // Writes k_cur [n_embd_k_gqa, n_tokens] / v_cur [n_embd_v_gqa, n_tokens] into the slot's cells;
    // cpy_v returns nullptr when V is held inside K (the K store already wrote it).
    ggml_tensor * cpy_k(ggml_context * ctx, ggml_tensor * k_cur, ggml_tensor * k_idxs, int il) const;
    ggml_tensor * cpy_v(ggml_context * ctx, ggml_tensor * v_cur, ggml_tensor * v_idxs, int il) const;

    // Input fillers: k_idxs I64 [n_tokens]; v_idxs I64 [n_tokens] or [n_tokens * n_embd_v_gqa]
    // (transposed V is written element by element); mask F32 [n_kv, n_tokens padded].
    void fill_k_idxs(int64_t * dst, const llama_kv_slot & slot) const;
    void fill_v_idxs(int64_t * dst, const llama_kv_slot & slot) const;
    // n_swa > 0: also masks cells n_swa or more positions behind the token (sliding-window layers),
    // or with swa_symmetric those more than n_swa / 2 positions away on either side (modern-bert).
    // alibi: a visible cell holds -|pos - token pos| instead of 0 (the ALiBi distance, jina-bert-v2).
    void fill_kq_mask(float * dst, int64_t n_rows, const llama_ubatch & ub, uint32_t n_kv, bool causal,
                      uint32_t n_swa = 0, bool swa_symmetric = false, bool alibi = false) const;

private:
    struct cell {
        llama_pos                  pos   = -1;
        llama_pos                  shift = 0;
        std::bitset<LLAMA_MAX_SEQ> seq;
        bool                       empty() const { return seq.none(); }
    };

    const llama_model & model;
    ggml_type           type_k_, type_v_;
    std::vector<cell>   cells;
    uint32_t            head = 0;  // where the next slot search starts
    uint32_t            used = 0;  // non-empty cells
    bool                v_trans_;
    bool                v_in_k_;
    bool                shift_pending = false;
    uint32_t            n_seq_max;

    // per sequence: position -> number of cells holding it (for O(log n) pos_min/max)
    std::vector<std::map<llama_pos, int>> seq_pos;

    // one context per buffer type (CPU, each device holding layers); buffers split at the max size
    std::vector<std::pair<ggml_context *, ggml_backend_buffer_type_t>> ctxs;
    std::vector<ggml_backend_buffer_t>                                 bufs;
    std::vector<ggml_tensor *>                                         k_l;  // per layer; nullptr where not held
    std::vector<ggml_tensor *>                                         v_l;

    // sliding-window layers when they have their own window cache (held by the full cache)
    std::unique_ptr<llama_kv_cache> swa;
    // in a window cache: n_swa (a cell of one sequence n_swa or more positions behind that sequence's
    // last one is never seen again and may be reused); 0 otherwise
    uint32_t window = 0;

    enum class layer_set { all, non_swa, swa, nextn };
    llama_kv_cache(const llama_model & model, uint32_t kv_size, ggml_type type_k, ggml_type type_v, bool v_trans,
                   uint32_t n_seq_max, bool offload, layer_set layers);
    void                   alloc(uint32_t kv_size, bool offload, layer_set layers);
    const llama_kv_cache & holder(int il) const;        // the cache holding layer il's K/V
    bool                   reusable(uint32_t i) const;  // window cache: cell i is out of every later token's window
    // state (llama-kv-cache-state.cpp), called on the cache holding layer il: its K and V rows (V
    // untransposed) of cells idxs, UINT32_MAX giving zero rows; and the reverse for (row j, cell) pairs
    void layer_rows_get(int il, const std::vector<uint32_t> & idxs, uint8_t * k_out, uint8_t * v_out) const;
    void layer_rows_set(int il, const std::vector<std::pair<size_t, uint32_t>> & to, const uint8_t * k_in,
                        const uint8_t * v_in, size_t k_row, size_t v_row);

    // cell mutation helpers that keep used/seq_pos in sync
    void cell_set(uint32_t i, const cell & c);
    void cell_seq_rm(uint32_t i, llama_seq_id s);
    void cell_seq_add(uint32_t i, llama_seq_id s);
    void cell_pos_set(uint32_t i, llama_pos p);

    bool     find_slot(const llama_ubatch & ub, llama_kv_slot & slot) const;
    void     apply_cells(const llama_ubatch & ub, const llama_kv_slot & slot);  // this cache's cells only
    void     free_storage();
    uint32_t used_max_p1() const;
};
