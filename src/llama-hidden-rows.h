// The hidden rows a decode keeps for a multi-token-prediction head: the final norm's output (n_embd
// wide, before the LM head) of the decode's output tokens, or of every token when the target graph
// keeps them all (llm_graph_params::hidden_all), each with the batch index, sequences and position of
// its token. Looked up by batch index (hidden_ith) or by (sequence, position) through a sorted index
// built once per decode.
#pragma once

#include "llama-batch.h"
#include "llama.h"

#include <cstddef>
#include <cstdint>
#include <vector>

class llama_hidden_rows {
public:
    // Forgets the previous decode's rows and sizes the store for n_rows rows of n_embd floats, of a
    // batch of n_batch tokens. Until finish() no row is found.
    void reset(size_t n_rows, size_t n_embd, size_t n_batch);
    // Forgets everything (no rows kept).
    void clear() { reset(0, 0, 0); }
    bool empty() const { return rows.empty(); }

    // Row j's storage, for the decode to copy a ubatch's rows into (j < the reset's n_rows).
    float * row(size_t j) { return rows.data() + j * n_embd; }
    // Records that row j holds the token at index i of ubatch ub (every sequence of that token).
    void set_token(size_t j, const llama_ubatch & ub, uint32_t i);
    // Builds the (sequence, position) index over the rows recorded so far.
    void finish();

    // The row of batch index i (negative: the -i-th recorded row from the end), or nullptr when that
    // token has no row or i is out of range.
    const float * at_batch_index(int32_t i) const;
    // The row of the token at position pos of sequence seq_id, or nullptr. Where a batch gave a
    // sequence the same position twice, the first such token in batch order.
    const float * at(llama_seq_id seq_id, llama_pos pos) const;
    size_t        n_rows() const { return n_embd ? rows.size() / n_embd : 0; }

private:
    struct key {
        llama_seq_id seq;
        llama_pos    pos;
        uint32_t     row;
    };

    size_t               n_embd = 0;
    std::vector<float>   rows;        // [n_rows][n_embd]
    std::vector<int32_t> ids;         // batch index -> row, -1 when none
    std::vector<key>     keys;        // one per (row, sequence of its token); sorted by finish()
    size_t               n_set  = 0;  // rows recorded (in row order: ubatches run in batch order)
    bool                 sorted = false;
};
