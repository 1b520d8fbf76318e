// The memory of a hybrid model (lfm2): a KV cache for its attention layers and a recurrent memory
// for its recurrent layers, behind one llama_memory_i. The context owns both parts and drives
// decode on each (prepare on the cache; apply and release on both); this object makes the
// llama_memory_* calls act on the two together.
#pragma once

#include "llama-kv-cache.h"
#include "llama-memory-recurrent.h"

class llama_memory_hybrid : public llama_memory_i {
public:
    llama_memory_hybrid(llama_kv_cache & attn, llama_memory_recurrent & recr) : attn(attn), recr(recr) {}

    void clear(bool data) override;
    // The recurrent part goes first: it is the one that can refuse (a range that would keep part of
    // a state's history), and then nothing has changed in either part.
    bool seq_rm(llama_seq_id seq_id, llama_pos p0, llama_pos p1) override;
    void seq_cp(llama_seq_id src, llama_seq_id dst, llama_pos p0, llama_pos p1) override;
    void seq_keep(llama_seq_id seq_id) override;
    void seq_add(llama_seq_id seq_id, llama_pos p0, llama_pos p1, llama_pos delta) override;
    void seq_div(llama_seq_id seq_id, llama_pos p0, llama_pos p1, int d) override;
    // The positions both parts hold: the later minimum, the earlier maximum (as upstream).
    llama_pos seq_pos_min(llama_seq_id seq_id) const override;
    llama_pos seq_pos_max(llama_seq_id seq_id) const override;
    bool      seq_same_cells(llama_seq_id a, llama_seq_id b) const override;
    bool      can_shift() const override { return attn.can_shift() && recr.can_shift(); }

private:
    llama_kv_cache &         attn;
    llama_memory_recurrent & recr;
};
