// The memory interface of a context (llama_memory_t in llama.h): what the C memory calls act on.
// The KV cache (llama-kv-cache.h) is its implementation for attention models.
#pragma once

#include "llama.h"

struct llama_memory_i {
    virtual ~llama_memory_i() = default;

    // data: also zero the stored K/V
    virtual void clear(bool data) = 0;

    // Position ranges are [p0, p1); p0 < 0 -> 0, p1 < 0 -> infinity. seq_id < 0: every sequence.
    virtual bool seq_rm(llama_seq_id seq_id, llama_pos p0, llama_pos p1)                              = 0;
    virtual void seq_cp(llama_seq_id seq_id_src, llama_seq_id seq_id_dst, llama_pos p0, llama_pos p1) = 0;
    virtual void seq_keep(llama_seq_id seq_id)                                                        = 0;
    virtual void seq_add(llama_seq_id seq_id, llama_pos p0, llama_pos p1, llama_pos delta)            = 0;
    virtual void seq_div(llama_seq_id seq_id, llama_pos p0, llama_pos p1, int d)                      = 0;

    // -1 when the sequence has no cells
    virtual llama_pos seq_pos_min(llama_seq_id seq_id) const = 0;
    virtual llama_pos seq_pos_max(llama_seq_id seq_id) const = 0;

    // Whether sequences a and b have exactly the same cells (both empty, or one copied from the
    // other over its whole history): only then may a batch token extend both at once.
    virtual bool seq_same_cells(llama_seq_id a, llama_seq_id b) const = 0;

    virtual bool can_shift() const = 0;
};
