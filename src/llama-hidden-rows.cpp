#include "llama-hidden-rows.h"

#include <algorithm>

void llama_hidden_rows::reset(size_t n_rows, size_t width, size_t n_batch) {
    n_embd = width;
    rows.resize(n_rows * width);
    ids.assign(n_rows ? n_batch : 0, -1);
    keys.clear();
    n_set  = 0;
    sorted = false;
}

void llama_hidden_rows::set_token(size_t j, const llama_ubatch & ub, uint32_t i) {
    const size_t b = (size_t) ub.i_begin + i;
    if (b < ids.size()) {
        ids[b] = (int32_t) j;
    }
    for (int32_t s = 0; s < ub.n_seq_id[i]; s++) {
        keys.push_back({ub.seq_id[i][s], ub.pos[i], (uint32_t) j});
    }
    n_set  = std::max(n_set, j + 1);
    sorted = false;
}

static bool key_less(llama_seq_id sa, llama_pos pa, llama_seq_id sb, llama_pos pb) {
    return sa != sb ? sa < sb : pa < pb;
}

void llama_hidden_rows::finish() {
    // stable: of two rows with the same (sequence, position), the earlier in the batch is found
    std::stable_sort(keys.begin(), keys.end(),
                     [](const key & a, const key & b) { return key_less(a.seq, a.pos, b.seq, b.pos); });
    sorted = true;
}

const float * llama_hidden_rows::at_batch_index(int32_t i) const {
    if (i < 0) {
        const int64_t j = (int64_t) n_set + i;
        return j < 0 ? nullptr : rows.data() + (size_t) j * n_embd;
    }
    if ((size_t) i >= ids.size() || ids[(size_t) i] < 0) {
        return nullptr;
    }
    return rows.data() + (size_t) ids[(size_t) i] * n_embd;
}

const float * llama_hidden_rows::at(llama_seq_id seq_id, llama_pos pos) const {
    if (!sorted) {
        return nullptr;
    }
    const auto it = std::lower_bound(keys.begin(), keys.end(), seq_id,
                                     [pos](const key & k, llama_seq_id s) { return key_less(k.seq, k.pos, s, pos); });
    if (it == keys.end() || it->seq != seq_id || it->pos != pos) {
        return nullptr;
    }
    return rows.data() + (size_t) it->row * n_embd;
}
