// Replaying the recurrence of a state-space (SSM_SCAN, Mamba-2) or delta-net (GATED_DELTA_NET,
// Qwen3-Next / Qwen3.5 / Kimi) layer from the inputs a decode recorded. The state after any token of a
// ubatch is then had from the state before it and a few KB per token and layer (the scan's x, dt, B, C;
// the delta net's q, k, v, gate, beta), without the layer's projections or any other layer: a rejected
// speculative draft costs the recurrence over the kept tokens, not a second decode
// (llama_memory_recurrent::seq_rewind, docs/speculative.md "Rollback").
#pragma once

#include <cstdint>
#include <vector>

#include "ggml-backend.h"
#include "ggml.h"

// How a recurrence node reads src i: the dimension of its tokens (the sequences' is the next one),
// -1 when read whole whatever the tokens (Mamba-2's A, a weight), -2 when not recorded (the state
// and the slot ids, which the replay supplies). -2 for an op that is not a recurrence.
int llama_rs_replay_token_dim(ggml_op op, int src);

// What a recording graph keeps of a recurrence node (llm_graph_context::build_rs_replay): its op and,
// per source, a tensor holding its values after the compute (contiguous; nullptr for the -2 roles).
struct llama_rs_replay_rec {
    ggml_op       op               = GGML_OP_NONE;
    ggml_tensor * in[GGML_MAX_SRC] = {};
};

// The layout of one layer's recorded inputs, from a recording (llama_memory_recurrent::rows_collect).
struct llama_rs_replay_layer {
    struct input {
        int     src     = 0;
        int     tok_dim = -1;  // as llama_rs_replay_token_dim
        int64_t ne[4]   = {1, 1, 1, 1};
        size_t  n_tok   = 0;  // floats per token (tok_dim >= 0), or all of them (tok_dim -1)
    };
    ggml_op            op = GGML_OP_NONE;
    std::vector<input> in;

    // Floats of the state the node carries (0: the inputs do not give one).
    size_t n_state() const;
};

// Checks rec against the ubatch shape (n_rows tokens in each of n_seqs sequences: every recorded input
// F32, contiguous, the tokens and sequences where llama_rs_replay_token_dim says) and describes it into
// lay. False, lay unspecified, when it does not fit.
bool llama_rs_replay_describe(const llama_rs_replay_rec & rec, uint32_t n_rows, uint32_t n_seqs,
                              llama_rs_replay_layer & lay);

// One layer of a replay: its layout, per input of lay.in the recorded floats of one sequence (n_tok *
// n_rows for a per-token input, first token first) and the state before the recorded ubatch
// (state_in, lay.n_state() floats; read in place, it must stay put until run returns).
struct llama_rs_replay_job {
    const llama_rs_replay_layer * lay = nullptr;
    std::vector<const float *>    in;
    const float *                 state_in = nullptr;
};

// Runs replays on the CPU, one small graph of the recurrence nodes per call. It keeps its backend, graph
// memory and tensor buffer from one call to the next: a rejected draft is undone every few tokens, and a
// freshly mapped buffer costs a page fault per 4 KiB on its first touch (a 0.8B delta-net model's 18 MiB
// of states: ~50 ms on a virtual machine, more than the decode of a token the replay replaces).
class llama_rs_replayer {
public:
    llama_rs_replayer() = default;
    ~llama_rs_replayer();
    llama_rs_replayer(const llama_rs_replayer &)             = delete;
    llama_rs_replayer & operator=(const llama_rs_replayer &) = delete;

    // Runs the recurrences of jobs over their first n_kept tokens. True: state(j) is job j's state after
    // them. False, no state to read, when the backend or its memory cannot be had or the compute fails.
    bool run(const std::vector<llama_rs_replay_job> & jobs, uint32_t n_kept);
    // Job j's state after the last successful run (lay.n_state() floats): in this object's buffer, or
    // the job's state_in when no token was kept; valid until the next run or reserve.
    const float * state(size_t j) const { return j < out.size() ? out[j] : nullptr; }
    // Maps and touches now the buffer a run of these layers (one job each) over n_kept tokens needs, so
    // that such runs take no fresh pages (llama_memory_recurrent::rewind_reserve); with no layers, a
    // buffer of at least bytes. False when the memory cannot be had.
    bool reserve(const std::vector<llama_rs_replay_layer> & lays, uint32_t n_kept, size_t bytes = 0);
    // Bytes of the buffer held now.
    size_t reserved() const { return buf ? ggml_backend_buffer_get_size(buf) : 0; }

private:
    // The graph of a run: per layer its input tensors, state source, slot ids (SSM) and node.
    struct parts {
        ggml_cgraph *                           gf = nullptr;
        std::vector<std::vector<ggml_tensor *>> ins;
        std::vector<ggml_tensor *>              states, ids, nodes;
    };
    // Builds the replay of lays over n_kept tokens in a context on meta (no data) and returns the
    // bytes all its tensors but the states take in the buffer; 0 when a node cannot be made.
    size_t build(ggml_context ** ctx, const std::vector<const llama_rs_replay_layer *> & lays, uint32_t n_kept,
                 parts & g);
    bool   grow(size_t bytes);  // the buffer at least that large, its pages touched

    ggml_backend_t             cpu = nullptr;
    ggml_backend_buffer_t      buf = nullptr;  // grown to the largest replay so far
    std::vector<uint8_t>       meta;           // the graph's tensor and node headers
    std::vector<const float *> out;            // per job of the last run, its final state
};
