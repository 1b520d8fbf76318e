// KV cache state: writing a sequence's (or every) cell with its K/V rows, and restoring them.
// The serialized rows are the cache type's own bytes (F16, Q8_0, ...), one row per cell, V always
// untransposed, so a state is independent of the flash-attention layout it was saved with. A cache
// holding V inside K (absorbed MLA) saves no V rows (its fingerprint's n_embd_v_gqa is 0).
#include <algorithm>
#include <cstring>
#include <map>

#include "llama-kv-cache.h"
#include "llama-log.h"
#include "llama-model.h"
#include "llama-state-io.h"

static bool seq_ok(llama_seq_id s) {
    return s >= 0 && s < LLAMA_MAX_SEQ;
}

// K and V rows of layer il for cells idxs into packed rows in idxs order (one transfer per run of
// consecutive cells; UINT32_MAX: a zero row, a token the window cache no longer holds).
void llama_kv_cache::layer_rows_get(int il, const std::vector<uint32_t> & idxs, uint8_t * k_out,
                                    uint8_t * v_out) const {
    const llama_hparams & hp    = model.hparams;
    const size_t          k_row = ggml_row_size(type_k_, hp.n_embd_k_gqa());
    const size_t          v_row = v_in_k_ ? 0 : ggml_row_size(type_v_, hp.n_embd_v_gqa());
    auto                  runs  = [&](const ggml_tensor * t, size_t row, uint8_t * out) {
        size_t j = 0;
        while (j < idxs.size()) {
            if (idxs[j] == UINT32_MAX) {
                memset(out + j * row, 0, row);
                j++;
                continue;
            }
            size_t r = 1;
            while (j + r < idxs.size() && idxs[j + r] != UINT32_MAX && idxs[j + r] == idxs[j] + r) {
                r++;
            }
            ggml_backend_tensor_get(t, out + j * row, (size_t) idxs[j] * row, r * row);
            j += r;
        }
    };
    if (k_out) {
        runs(k_l[il], k_row, k_out);
    }
    if (!v_out || v_in_k_) {
        return;  // V inside K: saved with K
    }
    if (!v_trans_) {
        runs(v_l[il], v_row, v_out);
        return;
    }
    const size_t         es   = ggml_element_size(v_l[il]);  // transposed V is never quantized
    const int64_t        n_ch = hp.n_embd_v_gqa();
    std::vector<uint8_t> vt(ggml_nbytes(v_l[il]));  // the whole tensor, one transfer
    ggml_backend_tensor_get(v_l[il], vt.data(), 0, vt.size());
    for (size_t j = 0; j < idxs.size(); j++) {
        for (int64_t ch = 0; ch < n_ch; ch++) {
            if (idxs[j] == UINT32_MAX) {
                memset(v_out + j * v_row + ch * es, 0, es);
            } else {
                memcpy(v_out + j * v_row + ch * es, vt.data() + ((size_t) ch * cells.size() + idxs[j]) * es, es);
            }
        }
    }
}

// Sets layer il's rows of cell `to[n].second` from packed row `to[n].first` of k_in / v_in.
void llama_kv_cache::layer_rows_set(int il, const std::vector<std::pair<size_t, uint32_t>> & to, const uint8_t * k_in,
                                    const uint8_t * v_in, size_t k_row, size_t v_row) {
    const llama_hparams & hp = model.hparams;
    // one transfer per run of consecutive rows going to consecutive cells
    for (size_t a = 0; a < to.size();) {
        size_t r = 1;
        while (a + r < to.size() && to[a + r].first == to[a].first + r && to[a + r].second == to[a].second + r) {
            r++;
        }
        ggml_backend_tensor_set(k_l[il], k_in + to[a].first * k_row, (size_t) to[a].second * k_row, r * k_row);
        if (!v_trans_ && !v_in_k_) {
            ggml_backend_tensor_set(v_l[il], v_in + to[a].first * v_row, (size_t) to[a].second * v_row, r * v_row);
        }
        a += r;
    }
    if (!v_trans_ || v_in_k_ || to.empty()) {
        return;
    }
    const size_t         es   = ggml_element_size(v_l[il]);
    const int64_t        n_ch = hp.n_embd_v_gqa();
    std::vector<uint8_t> vt(ggml_nbytes(v_l[il]));
    ggml_backend_tensor_get(v_l[il], vt.data(), 0, vt.size());
    for (const auto & jt : to) {
        for (int64_t ch = 0; ch < n_ch; ch++) {
            memcpy(vt.data() + ((size_t) ch * cells.size() + jt.second) * es, v_in + jt.first * v_row + ch * es, es);
        }
    }
    ggml_backend_tensor_set(v_l[il], vt.data(), 0, vt.size());
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

    // the window cache's cell of each token (same position and sequences); tokens that slid out of
    // it get zero rows: every later token masks them, so a restored state computes the same
    std::vector<uint32_t> widx;
    if (swa) {
        std::map<std::pair<llama_pos, unsigned long long>, uint32_t> where;
        for (uint32_t i = 0; i < swa->cells.size(); i++) {
            const cell & c = swa->cells[i];
            if (!c.empty()) {
                where[{c.pos, seq_id < 0 ? c.seq.to_ullong() : (unsigned long long) c.seq.test(seq_id)}] = i;
            }
        }
        for (uint32_t i : idxs) {
            const cell & c  = cells[i];
            const auto   it = where.find({c.pos, seq_id < 0 ? c.seq.to_ullong() : 1ull});
            widx.push_back(it == where.end() ? UINT32_MAX : it->second);
        }
    }

    const llama_hparams & hp    = model.hparams;
    const size_t          k_row = ggml_row_size(type_k(), hp.n_embd_k_gqa());
    const size_t          v_row = v_in_k_ ? 0 : ggml_row_size(type_v(), hp.n_embd_v_gqa());  // V inside K: none
    for (size_t il = 0; il < k_l.size(); il++) {
        if (!hp.has_own_kv((int) il)) {
            continue;  // a recurrent-only or feed-forward-only layer: not in this section (docs/state.md)
        }
        const bool win = k_l[il] == nullptr;  // held by the window cache
        // one reservation for K then V (a growing buffer may move between two)
        uint8_t * kd = w.reserve(idxs.size() * (k_row + v_row));
        uint8_t * vd = kd && !v_in_k_ ? kd + idxs.size() * k_row : nullptr;
        if (win) {
            swa->layer_rows_get((int) il, widx, kd, vd);
        } else {
            layer_rows_get((int) il, idxs, kd, vd);
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
    auto available = [&](const llama_kv_cache & kc, uint32_t i) {
        if (full || kc.cells[i].empty()) {
            return true;
        }
        return kc.cells[i].seq.count() == 1 && kc.cells[i].seq.test(dest);
    };
    std::vector<uint32_t> target(n);
    bool                  keep = true;
    for (size_t j = 0; j < n && keep; j++) {
        keep      = img.cells[j].idx < size && available(*this, img.cells[j].idx);
        target[j] = img.cells[j].idx;
    }
    if (!keep) {
        size_t j = 0;
        for (uint32_t i = 0; i < size && j < n; i++) {
            if (available(*this, i)) {
                target[j++] = i;
            }
        }
        if (j < n) {
            throw llama_error(llama_format("no room: the sequence needs %zu cells, %zu are free", n, j));
        }
    }

    // the window cache takes the tokens a later token can still see: per sequence, those less than
    // n_swa positions behind its last one
    auto seqs_of = [&](const llama_state_io::cell_rec & r) {
        return full ? std::bitset<LLAMA_MAX_SEQ>(r.seqs) : std::bitset<LLAMA_MAX_SEQ>().set(dest);
    };
    std::vector<std::pair<size_t, uint32_t>> wplan;  // (image row, window cell)
    if (swa) {
        std::vector<int64_t> pmax(LLAMA_MAX_SEQ, -1);
        for (const auto & r : img.cells) {
            const auto ss = seqs_of(r);
            for (uint32_t s = 0; s < LLAMA_MAX_SEQ; s++) {
                if (ss.test(s)) {
                    pmax[s] = std::max<int64_t>(pmax[s], r.pos);
                }
            }
        }
        uint32_t i = 0;
        for (size_t j = 0; j < n; j++) {
            const auto ss     = seqs_of(img.cells[j]);
            bool       needed = false;
            for (uint32_t s = 0; s < LLAMA_MAX_SEQ && !needed; s++) {
                needed = ss.test(s) && pmax[s] + 1 - img.cells[j].pos < (int64_t) swa->window;
            }
            if (!needed) {
                continue;
            }
            while (i < swa->cells.size() && !available(*swa, i)) {
                i++;
            }
            if (i == swa->cells.size()) {
                throw llama_error(llama_format("no room in the sliding-window cache (%u cells)", swa->size()));
            }
            wplan.emplace_back(j, i++);
        }
    }

    // ---- from here on nothing can fail: the cache changes ----
    if (full) {
        clear(false);  // the window cache too
    } else {
        seq_rm(dest, -1, -1);
    }
    uint32_t last = 0;
    for (size_t j = 0; j < n; j++) {
        const llama_state_io::cell_rec & r = img.cells[j];
        cell                             nc;
        nc.pos   = r.pos;
        nc.shift = r.shift;
        nc.seq   = seqs_of(r);
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
    if (swa) {
        for (const auto & jt : wplan) {
            const llama_state_io::cell_rec & r = img.cells[jt.first];
            cell                             nc;
            nc.pos = r.pos;
            nc.seq = seqs_of(r);
            swa->cell_set(jt.second, nc);
            swa->cells[jt.second].shift = r.shift;
            swa->shift_pending          = swa->shift_pending || r.shift != 0;
        }
        swa->head = wplan.empty() ? 0 : (wplan.back().second + 1) % swa->size();
    }

    std::vector<std::pair<size_t, uint32_t>> own(n);
    for (size_t j = 0; j < n; j++) {
        own[j] = {j, target[j]};
    }
    uint32_t sect = 0;  // the layer's place in the image: recurrent layers are not in it
    for (size_t il = 0; il < k_l.size(); il++) {
        if (!model.hparams.has_own_kv((int) il)) {
            continue;
        }
        const uint8_t * k_in = img.k_rows(sect);
        const uint8_t * v_in = img.v_rows(sect);
        sect++;
        if (k_l[il]) {
            layer_rows_set((int) il, own, k_in, v_in, img.k_row, img.v_row);
        } else {
            swa->layer_rows_set((int) il, wplan, k_in, v_in, img.k_row, img.v_row);
        }
    }
}
