#include "llama-memory-hybrid.h"

#include <algorithm>

void llama_memory_hybrid::clear(bool data) {
    attn.clear(data);
    recr.clear(data);
}

bool llama_memory_hybrid::seq_rm(llama_seq_id seq_id, llama_pos p0, llama_pos p1) {
    if (!recr.seq_rm(seq_id, p0, p1)) {
        return false;
    }
    // what the recurrent part accepts (everything or nothing of a sequence) the cache accepts too
    return attn.seq_rm(seq_id, p0, p1);
}

void llama_memory_hybrid::seq_cp(llama_seq_id src, llama_seq_id dst, llama_pos p0, llama_pos p1) {
    attn.seq_cp(src, dst, p0, p1);
    recr.seq_cp(src, dst, p0, p1);
}

void llama_memory_hybrid::seq_keep(llama_seq_id seq_id) {
    attn.seq_keep(seq_id);
    recr.seq_keep(seq_id);
}

void llama_memory_hybrid::seq_add(llama_seq_id seq_id, llama_pos p0, llama_pos p1, llama_pos delta) {
    attn.seq_add(seq_id, p0, p1, delta);
    recr.seq_add(seq_id, p0, p1, delta);
}

void llama_memory_hybrid::seq_div(llama_seq_id seq_id, llama_pos p0, llama_pos p1, int d) {
    attn.seq_div(seq_id, p0, p1, d);
    recr.seq_div(seq_id, p0, p1, d);
}

llama_pos llama_memory_hybrid::seq_pos_min(llama_seq_id seq_id) const {
    return std::max(attn.seq_pos_min(seq_id), recr.seq_pos_min(seq_id));
}

llama_pos llama_memory_hybrid::seq_pos_max(llama_seq_id seq_id) const {
    return std::min(attn.seq_pos_max(seq_id), recr.seq_pos_max(seq_id));
}

bool llama_memory_hybrid::seq_same_cells(llama_seq_id a, llama_seq_id b) const {
    return attn.seq_same_cells(a, b) && recr.seq_same_cells(a, b);
}
