// KV cache state: writing a sequence's (or every) cell with its K/V rows, and restoring them.
// The serialized rows are the cache type's own bytes (F16, Q8_0, ...), one row per cell, V always
// untransposed, so a state is independent of the flash-attention layout it was saved with.
#include <algorithm>
#include <cstring>

#include "llama-impl.h"
#include "llama-kv-cache.h"
#include "llama-model.h"
#include "llama-state-io.h"

static bool seq_ok(llama_seq_id s) {
    return s >= 0 && s < LLAMA_MAX_SEQ;
}

// Calls f(j0, c0, r) for each run of r consecutive cell indices idxs[j0..j0+r) = c0, c0+1, ...
template <typename F>
static void for_each_run(const std::vector<uint32_t> & idxs, F && f) {
    size_t j = 0;
    while (j < idxs.size()) {
        size_t r = 1;
        while (j + r < idxs.size() && idxs[j + r] == idxs[j] + r) {
            r++;
        }
        f(j, idxs[j], r);
        j += r;
    }
}

// Rows of a [row, n_cells] tensor <-> packed rows in cell order (one transfer per run).
static void rows_get(const ggml_tensor * t, const std::vector<uint32_t> & idxs, size_t row, uint8_t * out) {
    for_each_run(idxs, [&](size_t j, uint32_t c, size_t r) {
        ggml_backend_tensor_get(t, out + j * row, (size_t) c * row, r * row);
    });
}

static void rows_set(ggml_tensor * t, const std::vector<uint32_t> & idxs, size_t row, const uint8_t * in) {
    for_each_run(idxs, [&](size_t j, uint32_t c, size_t r) {
        ggml_backend_tensor_set(t, in + j * row, (size_t) c * row, r * row);
    });
}

void llama_kv_cache::state_write(llama_state_io::writer & w, llama_seq_id seq_id) const {
    std::vector<uint32_t> idxs;
    for (uint32_t i = 0; i < cells.size(); i++) {
        if (!cells[i].empty() && (seq_id < 0 || (seq_ok(seq_id) && cells[i].seq.test(seq_id)))) {
            idxs.push_back(i);
        }
    }
    w.put_u32((uint32_t) cells.size());
    w.put_u32(head);
    w.put_u32((uint32_t) idxs.size());
    for (uint32_t i : idxs) {
        const cell & c = cells[i];
        w.put_u32(i);
        w.put_i32(c.pos);
        w.put_i32(c.shift);
        w.put_u64(seq_id < 0 ? (uint64_t) c.seq.to_ullong() : 0);
    }

    const llama_hparams & hp    = model.hparams;
    const size_t          k_row = ggml_row_size(type_k(), hp.n_embd_k_gqa());
    const size_t          v_row = ggml_row_size(type_v(), hp.n_embd_v_gqa());
    std::vector<uint8_t>  vt;  // one transposed V tensor, read whole (one transfer)
    for (size_t il = 0; il < k_l.size(); il++) {
        if (uint8_t * d = w.reserve(idxs.size() * k_row)) {
            rows_get(k_l[il], idxs, k_row, d);
        }
        uint8_t * d = w.reserve(idxs.size() * v_row);
        if (!d) {
            continue;
        }
        if (!v_trans_) {
            rows_get(v_l[il], idxs, v_row, d);
            continue;
        }
        const size_t  es   = ggml_element_size(v_l[il]);  // transposed V is never quantized
        const int64_t n_ch = hp.n_embd_v_gqa();
        vt.resize(ggml_nbytes(v_l[il]));
        ggml_backend_tensor_get(v_l[il], vt.data(), 0, vt.size());
        for (size_t j = 0; j < idxs.size(); j++) {
            for (int64_t ch = 0; ch < n_ch; ch++) {
                memcpy(d + j * v_row + ch * es, vt.data() + ((size_t) ch * cells.size() + idxs[j]) * es, es);
            }
        }
    }
}

void llama_kv_cache::state_apply(const llama_state_io::image & img, llama_seq_id dest) {
    const uint32_t size = (uint32_t) cells.size();
    const size_t   n    = img.cells.size();
    const bool     full = dest < 0;
    if (!full && (dest >= (llama_seq_id) n_seq_max || dest >= LLAMA_MAX_SEQ)) {
        throw llama_error(llama_format("dest_seq_id %d is out of range [0, %u)", dest, n_seq_max));
    }

    // choose the target cells; the saved indices are kept where they fit, so a state restored
    // into a context shaped like its source reproduces the source's layout (and its results) exactly
    auto available = [&](uint32_t i) {
        if (full || cells[i].empty()) {
            return true;
        }
        return cells[i].seq.count() == 1 && cells[i].seq.test(dest);
    };
    std::vector<uint32_t> target(n);
    bool                  keep = true;
    for (size_t j = 0; j < n && keep; j++) {
        keep      = img.cells[j].idx < size && available(img.cells[j].idx);
        target[j] = img.cells[j].idx;
    }
    if (!keep) {
        size_t j = 0;
        for (uint32_t i = 0; i < size && j < n; i++) {
            if (available(i)) {
                target[j++] = i;
            }
        }
        if (j < n) {
            throw llama_error(llama_format("no room: the sequence needs %zu cells, %zu are free", n, j));
        }
    }
    const llama_hparams & hp = model.hparams;
    std::vector<uint8_t>  vt(v_trans_ && !v_l.empty() ? ggml_nbytes(v_l[0]) : 0);

    // ---- from here on nothing can fail: the cache changes ----
    if (full) {
        clear(false);
    } else {
        seq_rm(dest, -1, -1);
    }
    uint32_t last = 0;
    for (size_t j = 0; j < n; j++) {
        const llama_state_io::cell_rec & r = img.cells[j];
        cell                             nc;
        nc.pos   = r.pos;
        nc.shift = r.shift;
        if (full) {
            nc.seq = std::bitset<LLAMA_MAX_SEQ>(r.seqs);
        } else {
            nc.seq.set(dest);
        }
        cell_set(target[j], nc);
        cells[target[j]].shift = r.shift;  // cell_set keeps shift only through pos changes
        shift_pending          = shift_pending || r.shift != 0;
        last                   = std::max(last, target[j]);
    }
    if (full) {
        head = keep && img.head < size ? img.head : (uint32_t) (n % size);
    } else if (n > 0) {
        head = (last + 1) % size;
    }

    const size_t k_row = img.k_row;
    const size_t v_row = img.v_row;
    for (size_t il = 0; il < k_l.size(); il++) {
        rows_set(k_l[il], target, k_row, img.k_rows((uint32_t) il));
        const uint8_t * src = img.v_rows((uint32_t) il);
        if (!v_trans_) {
            rows_set(v_l[il], target, v_row, src);
            continue;
        }
        const size_t  es   = ggml_element_size(v_l[il]);
        const int64_t n_ch = hp.n_embd_v_gqa();
        ggml_backend_tensor_get(v_l[il], vt.data(), 0, vt.size());
        for (size_t j = 0; j < n; j++) {
            for (int64_t ch = 0; ch < n_ch; ch++) {
                memcpy(vt.data() + ((size_t) ch * size + target[j]) * es, src + j * v_row + ch * es, es);
            }
        }
        ggml_backend_tensor_set(v_l[il], vt.data(), 0, vt.size());
    }
}
