// The recurrent memory of state-space models (mamba2): one state slot per sequence instead of a
// cell per token. Slot s holds sequence s's state after its last token: per layer a conv state
// ((d_conv - 1) x conv channels, the last inputs of the causal convolution) and an SSM state
// (d_state x head_dim x n_head), both F32. The graph reads the slots of a ubatch's sequences and
// writes their final states back (llm_graph_context::build_rs_read / build_rs_write).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "ggml-backend.h"
#include "llama-batch.h"
#include "llama-memory.h"
#include "llama-rs-replay.h"

struct llama_model;
namespace llama_state_io {
class writer;
struct image;
}  // namespace llama_state_io

class llama_memory_recurrent : public llama_memory_i {
public:
    // Throws llama_error when the state buffer cannot be allocated. offload: a layer's states go to the
    // layer's device when that device runs the recurrent ops (else host memory).
    llama_memory_recurrent(const llama_model & model, uint32_t n_seq_max, bool offload = false);
    ~llama_memory_recurrent() override;
    llama_memory_recurrent(const llama_memory_recurrent &)             = delete;
    llama_memory_recurrent & operator=(const llama_memory_recurrent &) = delete;

    // ---- llama_memory_i ----
    void clear(bool data) override;
    // A state cannot be cut: removing everything, or nothing (a range past the last position), works;
    // a range that would keep only part of a sequence's history returns false and changes nothing.
    bool seq_rm(llama_seq_id seq_id, llama_pos p0, llama_pos p1) override;
    void seq_cp(llama_seq_id src, llama_seq_id dst, llama_pos p0, llama_pos p1) override;
    void seq_keep(llama_seq_id seq_id) override;
    void seq_add(llama_seq_id seq_id, llama_pos p0, llama_pos p1, llama_pos delta) override;
    void seq_div(llama_seq_id seq_id, llama_pos p0, llama_pos p1, int d) override;
    // Both the position of the sequence's last token (a state has no earlier positions); -1 if empty.
    llama_pos seq_pos_min(llama_seq_id seq_id) const override;
    llama_pos seq_pos_max(llama_seq_id seq_id) const override;
    bool      seq_same_cells(llama_seq_id a, llama_seq_id b) const override;
    // Shifting only moves the recorded positions (as upstream).
    bool can_shift() const override { return true; }

    // ---- decode support ----
    // Records the ubatch's tokens: each sequence's last position (the graph writes the states).
    void apply(const llama_ubatch & ub);
    // After a compute that did not complete (aborted or failed): the ubatch's sequences may hold
    // partly updated states, so they are emptied (a consistent state, unlike a half-written one).
    void release(const llama_ubatch & ub);

    uint32_t n_slots() const { return (uint32_t) slots.size(); }
    // Per layer: conv states F32 [n_embd_r, n_slots], SSM states F32 [n_embd_s, n_slots]; nullptr on
    // a layer without (an attention layer of a hybrid model; the SSM state of lfm2).
    ggml_tensor * r_layer(int il) const { return r_l[il]; }
    ggml_tensor * s_layer(int il) const { return s_l[il]; }
    size_t        total_size() const;

    // ---- checkpoints: undoing decodes of one sequence (speculative verification) ----
    // A copy of one slot: its position, lineage and states.
    struct checkpoint {
        llama_pos            pos     = -1;
        uint64_t             lineage = 0;
        std::vector<uint8_t> data;
    };
    // Copies sequence seq_id's slot into cp (its buffer is reused). seq_id must be < n_slots().
    void seq_save(llama_seq_id seq_id, checkpoint & cp) const;
    // Puts a checkpoint of seq_id back: the state is again the one saved, whatever was decoded since.
    void seq_restore(llama_seq_id seq_id, const checkpoint & cp);
    // Sizes cp for a slot (its pages touched now, not by the first seq_save).
    void checkpoint_reserve(checkpoint & cp) const {
        cp.data.resize(std::max(cp.data.size(), layers.size() * (r_row + s_row)));
    }

    // ---- per-row states: a rejected draft undone without decoding the kept tokens again ----
    // The conv state after any token of a ubatch is a window of the ubatch's conv input [d_conv +
    // n_seq_tokens, channels], which the graph computes anyway. An SSM or delta-net state after it is
    // the layer's recurrence run from the state before the ubatch over the ubatch's first tokens, whose
    // inputs (x, dt, B, C of the scan; q, k, v, gate, beta of the delta net) are a few KB per token.
    // When the context decodes with row recording on, the graph marks both as outputs
    // (llm_graph_context::build_rs_rows / build_rs_replay) and rows_collect copies them per sequence;
    // seq_rewind then sets a sequence's state to the one after any token of its last recorded ubatch,
    // replaying the recurrences (llama-rs-replay.h) from the state saved before that ubatch.
    // False for memories without a conv state.
    bool rows_supported() const;
    // Forgets the recorded rows (the context calls it before each decode that records).
    void rows_clear() {
        for (row_record & r : rows) {
            r.n_rows = 0;  // their vectors keep their memory: a record per verification would otherwise
                           // touch fresh pages (several MB) every time
        }
    }
    // Copies ub's per-row conv inputs (conv[k] for state layer layers()[k], [d_conv + n_seq_tokens,
    // n_embd, n_seqs] F32) and, for a memory with an SSM state, its recurrences' inputs (scan[k])
    // per sequence; counts or shapes other than the state layers' record nothing.
    void rows_collect(const llama_ubatch & ub, const std::vector<ggml_tensor *> & conv,
                      const std::vector<llama_rs_replay_rec> & scan);
    // Whether seq_id's state can be set to the one after its token at pos: pos lies in the sequence's
    // last recorded ubatch and the slot still holds that ubatch's final state; with an SSM state also
    // `before` is the sequence's checkpoint (seq_save) taken just before that ubatch.
    bool seq_can_rewind(llama_seq_id seq_id, llama_pos pos, const checkpoint * before = nullptr) const;
    // Sets seq_id's state to the one after its token at pos (seq_can_rewind must hold for the same
    // arguments); the later positions are gone from the state, as if never decoded. Throws llama_error,
    // the state unchanged, when the replay's memory cannot be had.
    void seq_rewind(llama_seq_id seq_id, llama_pos pos, const checkpoint * before = nullptr);
    // Takes now the memory that checkpoints of seq_id into cp, recordings of up to n_rows of its tokens
    // and rewinds over them use, its pages touched, so that the first verification and rewind of a
    // speculative sequence take no fresh pages (~11 us per 4 KiB on a virtual machine: 50 ms per 18 MiB
    // of states). Exact once a recording described the replay; before that a bound. Throws llama_error
    // when the memory cannot be had; nothing else changes.
    void rewind_reserve(llama_seq_id seq_id, uint32_t n_rows, checkpoint & cp);
    // Bytes held for recordings and rewinds (the records' capacities and the replay's buffer).
    size_t rewind_reserved() const;

    // ---- state (llama-memory-recurrent.cpp, format in docs/state.md) ----
    // Writes the slots of seq_id (< 0: every non-empty slot) with their states.
    void state_write(llama_state_io::writer & w, llama_seq_id seq_id) const;
    // Restores a validated image: every slot (dest < 0) or sequence dest. Throws llama_error before
    // changing anything when the image does not fit this memory.
    void state_apply(const llama_state_io::image & img, llama_seq_id dest);
    // The checks of state_apply alone (throws llama_error; changes nothing): the slot of each record.
    std::vector<uint32_t> state_check(const llama_state_io::image & img, llama_seq_id dest) const;
    // The layers holding a state (every layer of a recurrent model, the recurrent ones of a hybrid).
    const std::vector<int> & state_layers() const { return layers; }

private:
    struct slot {
        llama_pos pos     = -1;  // position of the last token; -1: empty (zero state)
        uint64_t  lineage = 0;   // equal in two slots: the same state (one was copied from the other)
    };

    std::vector<slot>                  slots;
    uint64_t                           next_lineage = 1;
    std::vector<ggml_context *>        ctxs;  // one per buffer type, parallel to bufs
    std::vector<ggml_backend_buffer_t> bufs;
    std::vector<ggml_tensor *>         r_l;
    std::vector<ggml_tensor *>         s_l;  // nullptr where the model has no SSM state (lfm2)
    std::vector<int>                   layers;
    size_t                             r_row  = 0;  // bytes of one slot's conv / SSM state
    size_t                             s_row  = 0;
    uint32_t                           d_conv = 0;  // carried conv inputs (columns of a conv state)

    // the conv and recurrence inputs of a sequence's last recorded ubatch (rows_collect)
    struct row_record {
        llama_pos          pos0     = -1;  // position of the ubatch's first token of the sequence
        uint32_t           n_rows   = 0;   // its tokens
        uint64_t           lineage  = 0;   // the slot's lineage after that ubatch (unchanged since: usable)
        uint64_t           lineage0 = 0;   // and before it (the checkpoint a replay starts from)
        std::vector<float> conv;           // per state layer [d_conv + n_rows, n_embd_r / d_conv]
        std::vector<float> scan;           // per state layer, per input of replay[k]: its floats
    };
    std::vector<row_record>            rows;      // per slot; empty when nothing is recorded
    std::vector<llama_rs_replay_layer> replay;    // per state layer: the layout of rows[].scan
    std::vector<uint64_t>              lineage0;  // per slot: its lineage before the last apply
    llama_rs_replayer                  replayer;  // seq_rewind's SSM / delta-net replays

    void   slot_clear(uint32_t s);              // empty and zeroed
    size_t scan_floats(uint32_t n_rows) const;  // a record's recurrence inputs for n_rows tokens
    void   slot_copy(uint32_t src, uint32_t dst);
};
