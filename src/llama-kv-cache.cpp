#include "llama-kv-cache.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "ggml-cpu.h"
#include "llama-buffers.h"
#include "llama-log.h"
#include "llama-model.h"

// The graph attends over the first n_kv cells; padding n_kv keeps its value (and so the graph
// topology) stable across many consecutive decodes.
static constexpr uint32_t KV_PAD = 256;

static uint32_t pad_to(uint32_t x, uint32_t n) {
    return (x + n - 1) / n * n;
}

// Can dev write a cache of this type (set_rows of F32 rows, the graph's KV write)?
static bool kv_type_supported(ggml_backend_dev_t dev, ggml_type type, int64_t n_embd, uint32_t kv_size) {
    ggml_init_params ip  = {4 * ggml_tensor_overhead(), nullptr, true};
    ggml_context *   ctx = ggml_init(ip);
    if (!ctx) {
        return false;
    }
    ggml_tensor * dst = ggml_new_tensor_2d(ctx, type, n_embd, kv_size);
    ggml_tensor * src = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, n_embd, 1);
    ggml_tensor * ids = ggml_new_tensor_1d(ctx, GGML_TYPE_I64, 1);
    const bool    ok  = ggml_backend_dev_supports_op(dev, ggml_set_rows(ctx, dst, src, ids));
    ggml_free(ctx);
    return ok;
}

llama_kv_cache::llama_kv_cache(const llama_model & model, uint32_t kv_size, ggml_type type_k, ggml_type type_v,
                               bool v_trans, uint32_t n_seq_max, bool offload, uint32_t swa_size)
    : llama_kv_cache(model, kv_size, type_k, type_v, v_trans, n_seq_max, offload,
                     swa_size > 0 && model.hparams.is_swa_any() ? layer_set::non_swa : layer_set::all) {
    if (swa_size > 0 && model.hparams.is_swa_any()) {
        // constructed: a throw here runs the destructor, which frees this cache's storage
        swa.reset(new llama_kv_cache(model, swa_size, type_k, type_v, v_trans, n_seq_max, offload, layer_set::swa));
        swa->window = model.hparams.n_swa;
    }
}

llama_kv_cache::llama_kv_cache(const llama_model & model, uint32_t kv_size, ggml_type type_k, ggml_type type_v,
                               bool v_trans, uint32_t n_seq_max, bool offload, layer_set layers)
    : model(model),
      type_k_(type_k),
      // V held inside K has K's type (the requested V type is only validated)
      type_v_(model.hparams.v_in_k ? type_k : type_v),
      cells(kv_size),
      // a quantized row cannot be split into one-value rows: a quantized V stays row-major, and the
      // plain attention path dequantizes and transposes it in the graph (llm_graph_context::build_attn);
      // so does a V inside K (row-major by being K's rows)
      v_trans_(v_trans && !ggml_is_quantized(type_v) && !model.hparams.v_in_k),
      v_in_k_(model.hparams.v_in_k),
      n_seq_max(n_seq_max),
      seq_pos(LLAMA_MAX_SEQ) {
    const llama_hparams & hp = model.hparams;

    // the types every attention path reads and every backend's cache write takes (docs/kv-cache.md);
    // anything else (integers, K-quants, ternary) would fail, or worse, inside graph building
    for (ggml_type t : {type_k, type_v}) {
        if (!ggml_type_is_kv_cache(t)) {
            throw llama_error(
                llama_format("%s is not a KV cache type (f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, "
                             "q5_1 or iq4_nl)",
                             ggml_type_name(t)));
        }
    }
    // attention views the cache per head: a quantized block must not straddle two heads (nor, with
    // V inside K, the end of the V prefix of a K row)
    if (hp.n_embd_head_k % ggml_blck_size(type_k) != 0 || hp.n_embd_head_v % ggml_blck_size(type_v_) != 0) {
        throw llama_error(
            llama_format("a %s/%s KV cache needs head sizes (K %u, V %u) that are multiples of its "
                         "block size",
                         ggml_type_name(type_k), ggml_type_name(type_v_), hp.n_embd_head_k, hp.n_embd_head_v));
    }
    if (v_in_k_ && hp.n_embd_v_gqa() > hp.n_embd_k_gqa()) {
        throw llama_error(
            llama_format("V (%u values) cannot be held inside K (%u values)", hp.n_embd_v_gqa(), hp.n_embd_k_gqa()));
    }
    alloc(kv_size, offload, layers);
}

llama_kv_cache * llama_kv_cache::new_nextn(const llama_model & model, uint32_t kv_size, ggml_type type_k,
                                           ggml_type type_v, bool v_trans, uint32_t n_seq_max, bool offload) {
    return new llama_kv_cache(model, kv_size, type_k, type_v, v_trans, n_seq_max, offload, layer_set::nextn);
}

void llama_kv_cache::alloc(uint32_t kv_size, bool offload, layer_set layers) {
    const llama_hparams & hp      = model.hparams;
    const int             n_layer = layers == layer_set::nextn ? (int) model.layers.size() : (int) hp.n_layer;
    const ggml_type       type_k  = type_k_;
    const ggml_type       type_v  = type_v_;
    const bool            v_trans = v_trans_;
    try {
        std::map<ggml_backend_dev_t, bool> dev_ok;  // per device: can it hold this cache?
        for (int il = 0; il < n_layer; il++) {
            if (!hp.has_own_kv(il)) {
                // a recurrent layer of a hybrid model that does not attend (its state is in the
                // recurrent memory), a feed-forward-only block (nemotron_h) or a layer that attends
                // over an earlier layer's K/V (gemma3n)
                k_l.push_back(nullptr);
                v_l.push_back(nullptr);
                continue;
            }
            if ((layers == layer_set::swa && !hp.is_swa(il)) || (layers == layer_set::non_swa && hp.is_swa(il)) ||
                (layers == layer_set::nextn && il < (int) hp.n_layer)) {
                k_l.push_back(nullptr);  // held by the other cache
                v_l.push_back(nullptr);
                continue;
            }
            ggml_backend_buffer_type_t buft = ggml_backend_cpu_buffer_type();
            ggml_backend_dev_t         dev  = model.layer_dev(il);
            if (offload && dev && dev != model.dev_cpu) {
                auto it = dev_ok.find(dev);
                if (it == dev_ok.end()) {
                    const bool ok = kv_type_supported(dev, type_k, hp.n_embd_k_gqa(), kv_size) &&
                                    (v_in_k_ || kv_type_supported(dev, type_v, hp.n_embd_v_gqa(), kv_size));
                    if (!ok) {
                        LLAMA_LOG_WARN("%s: %s cannot write a %s/%s cache; the KV cache stays on the CPU\n", __func__,
                                       ggml_backend_dev_name(dev), ggml_type_name(type_k), ggml_type_name(type_v));
                    }
                    it = dev_ok.emplace(dev, ok).first;
                }
                if (it->second) {
                    buft = ggml_backend_dev_buffer_type(dev);
                }
            }
            ggml_context * ctx = nullptr;
            for (const auto & c : ctxs) {
                ctx = c.second == buft ? c.first : ctx;
            }
            if (!ctx) {
                ggml_init_params ip = {(size_t) (2 * n_layer + 1) * ggml_tensor_overhead(), nullptr, true};
                ctx                 = ggml_init(ip);
                if (!ctx) {
                    throw llama_error("cannot create the KV cache context");
                }
                ctxs.emplace_back(ctx, buft);
            }
            ggml_tensor * k = ggml_new_tensor_2d(ctx, type_k, hp.n_embd_k_gqa(), kv_size);
            ggml_tensor * v = v_in_k_   ? nullptr
                              : v_trans ? ggml_new_tensor_2d(ctx, type_v, kv_size, hp.n_embd_v_gqa())
                                        : ggml_new_tensor_2d(ctx, type_v, hp.n_embd_v_gqa(), kv_size);
            if (!k || (!v && !v_in_k_)) {
                throw llama_error("cannot create the KV cache tensors");
            }
            ggml_format_name(k, "cache_k_l%d", il);
            if (v) {
                ggml_format_name(v, "cache_v_l%d", il);
            }
            k_l.push_back(k);
            v_l.push_back(v);
        }
        for (const auto & c : ctxs) {
            const size_t first = bufs.size();
            llama_alloc_ctx_tensors_chunked(c.first, c.second, bufs, "KV cache");
            size_t size = 0;
            for (size_t i = first; i < bufs.size(); i++) {
                // zeroed so that never-written cells hold finite values (they are masked, but 0 * NaN is NaN)
                ggml_backend_buffer_clear(bufs[i], 0);
                size += ggml_backend_buffer_get_size(bufs[i]);
            }
            LLAMA_LOG_INFO("%s: %u cells%s, K %s, V %s%s, %10s %.2f MiB\n", __func__, kv_size,
                           layers == layer_set::swa       ? " (sliding-window layers)"
                           : layers == layer_set::non_swa ? " (full-attention layers)"
                           : layers == layer_set::nextn   ? " (NextN blocks)"
                                                          : "",
                           ggml_type_name(type_k), v_in_k_ ? "inside K" : ggml_type_name(type_v),
                           v_trans ? " (transposed)" : "", ggml_backend_buft_name(c.second), size / 1024.0 / 1024.0);
        }
    } catch (...) {
        free_storage();
        throw;
    }
}

llama_kv_cache::~llama_kv_cache() {
    swa.reset();
    free_storage();
}

const llama_kv_cache & llama_kv_cache::holder(int il) const {
    return swa && model.hparams.is_swa(il) ? *swa : *this;
}

size_t llama_kv_cache::total_size() const {
    size_t n = swa ? swa->total_size() : 0;
    for (ggml_backend_buffer_t b : bufs) {
        n += ggml_backend_buffer_get_size(b);
    }
    return n;
}

void llama_kv_cache::free_storage() {
    for (ggml_backend_buffer_t b : bufs) {
        ggml_backend_buffer_free(b);
    }
    for (auto & c : ctxs) {
        ggml_free(c.first);
    }
    bufs.clear();
    ctxs.clear();
}

// ---- cell bookkeeping --------------------------------------------------------------------------

void llama_kv_cache::cell_seq_rm(uint32_t i, llama_seq_id s) {
    cell & c = cells[i];
    if (!c.seq.test(s)) {
        return;
    }
    auto & m  = seq_pos[s];
    auto   it = m.find(c.pos);
    if (it != m.end() && --it->second == 0) {
        m.erase(it);
    }
    c.seq.reset(s);
    if (c.empty()) {
        c.pos   = -1;
        c.shift = 0;
        used--;
    }
}

void llama_kv_cache::cell_seq_add(uint32_t i, llama_seq_id s) {
    cell & c = cells[i];
    if (c.seq.test(s)) {
        return;
    }
    if (c.empty()) {
        used++;
    }
    c.seq.set(s);
    seq_pos[s][c.pos]++;
}

void llama_kv_cache::cell_pos_set(uint32_t i, llama_pos p) {
    cell & c = cells[i];
    for (uint32_t s = 0; s < LLAMA_MAX_SEQ; s++) {
        if (c.seq.test(s)) {
            auto & m  = seq_pos[s];
            auto   it = m.find(c.pos);
            if (it != m.end() && --it->second == 0) {
                m.erase(it);
            }
            m[p]++;
        }
    }
    c.pos = p;
}

void llama_kv_cache::cell_set(uint32_t i, const cell & nc) {
    for (uint32_t s = 0; s < LLAMA_MAX_SEQ; s++) {
        cell_seq_rm(i, (llama_seq_id) s);
    }
    cells[i].pos   = nc.pos;
    cells[i].shift = nc.shift;
    for (uint32_t s = 0; s < LLAMA_MAX_SEQ; s++) {
        if (nc.seq.test(s)) {
            cell_seq_add(i, (llama_seq_id) s);
        }
    }
}

uint32_t llama_kv_cache::used_max_p1() const {
    for (uint32_t i = (uint32_t) cells.size(); i > 0; i--) {
        if (!cells[i - 1].empty()) {
            return i;
        }
    }
    return 0;
}

// ---- memory interface --------------------------------------------------------------------------

void llama_kv_cache::clear(bool data) {
    for (auto & c : cells) {
        c = cell();
    }
    for (auto & m : seq_pos) {
        m.clear();
    }
    used          = 0;
    head          = 0;
    shift_pending = false;
    if (data) {
        for (ggml_backend_buffer_t b : bufs) {
            ggml_backend_buffer_clear(b, 0);
        }
    }
    if (swa) {
        swa->clear(data);
    }
}

static bool in_range(llama_pos p, llama_pos p0, llama_pos p1) {
    return p >= p0 && p < p1;
}

static void norm_range(llama_pos & p0, llama_pos & p1) {
    if (p0 < 0) {
        p0 = 0;
    }
    if (p1 < 0) {
        p1 = INT32_MAX;
    }
}

static bool seq_ok(llama_seq_id s) {
    return s >= 0 && s < LLAMA_MAX_SEQ;
}

bool llama_kv_cache::seq_rm(llama_seq_id seq_id, llama_pos p0, llama_pos p1) {
    norm_range(p0, p1);
    if (seq_id >= LLAMA_MAX_SEQ) {
        return false;
    }
    if (swa) {
        swa->seq_rm(seq_id, p0, p1);
    }
    for (uint32_t i = 0; i < cells.size(); i++) {
        if (cells[i].empty() || !in_range(cells[i].pos, p0, p1)) {
            continue;
        }
        if (seq_id < 0) {
            cell_set(i, cell());
        } else {
            cell_seq_rm(i, seq_id);
        }
        if (cells[i].empty() && i < head) {
            head = i;  // reuse freed cells first
        }
    }
    return true;
}

void llama_kv_cache::seq_cp(llama_seq_id src, llama_seq_id dst, llama_pos p0, llama_pos p1) {
    if (!seq_ok(src) || !seq_ok(dst) || src == dst) {
        return;
    }
    if (swa) {
        swa->seq_cp(src, dst, p0, p1);
    }
    norm_range(p0, p1);
    for (uint32_t i = 0; i < cells.size(); i++) {
        if (cells[i].seq.test(src) && in_range(cells[i].pos, p0, p1)) {
            cell_seq_add(i, dst);
        }
    }
}

void llama_kv_cache::seq_keep(llama_seq_id seq_id) {
    if (swa) {
        swa->seq_keep(seq_id);
    }
    for (uint32_t i = 0; i < cells.size(); i++) {
        if (cells[i].empty()) {
            continue;
        }
        if (seq_ok(seq_id) && cells[i].seq.test(seq_id)) {
            cell nc = cells[i];
            nc.seq.reset();
            nc.seq.set(seq_id);
            cell_set(i, nc);
        } else {
            cell_set(i, cell());
        }
    }
    head = 0;
}

void llama_kv_cache::seq_add(llama_seq_id seq_id, llama_pos p0, llama_pos p1, llama_pos delta) {
    if (!seq_ok(seq_id) || delta == 0) {
        return;
    }
    if (swa) {
        swa->seq_add(seq_id, p0, p1, delta);
    }
    norm_range(p0, p1);
    for (uint32_t i = 0; i < cells.size(); i++) {
        cell & c = cells[i];
        if (!c.seq.test(seq_id) || !in_range(c.pos, p0, p1)) {
            continue;
        }
        c.shift += delta;
        shift_pending      = true;
        const llama_pos np = c.pos + delta;
        if (np < 0) {
            cell_set(i, cell());
            head = std::min(head, i);
        } else {
            cell_pos_set(i, np);
        }
    }
}

void llama_kv_cache::seq_div(llama_seq_id seq_id, llama_pos p0, llama_pos p1, int d) {
    if (!seq_ok(seq_id) || d <= 1) {
        return;
    }
    if (swa) {
        swa->seq_div(seq_id, p0, p1, d);
    }
    norm_range(p0, p1);
    for (uint32_t i = 0; i < cells.size(); i++) {
        cell & c = cells[i];
        if (!c.seq.test(seq_id) || !in_range(c.pos, p0, p1)) {
            continue;
        }
        const llama_pos np = c.pos / d;
        c.shift += np - c.pos;
        shift_pending = true;
        cell_pos_set(i, np);
    }
}

bool llama_kv_cache::seq_same_cells(llama_seq_id a, llama_seq_id b) const {
    if (!seq_ok(a) || !seq_ok(b)) {
        return false;
    }
    if (seq_pos[a] != seq_pos[b]) {
        return false;  // cheap reject: different position multisets
    }
    for (const cell & c : cells) {
        if (c.seq.test(a) != c.seq.test(b)) {
            return false;
        }
    }
    return !swa || swa->seq_same_cells(a, b);
}

llama_pos llama_kv_cache::seq_pos_min(llama_seq_id seq_id) const {
    if (!seq_ok(seq_id) || seq_pos[seq_id].empty()) {
        return -1;
    }
    // with a window cache, the oldest position every layer still holds
    const llama_pos own = seq_pos[seq_id].begin()->first;
    return swa ? std::max(own, swa->seq_pos_min(seq_id)) : own;
}

llama_pos llama_kv_cache::seq_pos_max(llama_seq_id seq_id) const {
    if (!seq_ok(seq_id) || seq_pos[seq_id].empty()) {
        return -1;
    }
    return seq_pos[seq_id].rbegin()->first;
}

void llama_kv_cache::take_shifts(int32_t * dst) {
    for (uint32_t i = 0; i < cells.size(); i++) {
        dst[i]         = cells[i].empty() ? 0 : cells[i].shift;
        cells[i].shift = 0;
    }
    shift_pending = false;
}

// ---- slots -------------------------------------------------------------------------------------

bool llama_kv_cache::reusable(uint32_t i) const {
    // every sequence of the cell has moved n_swa or more positions past it: its next token (at
    // pos_max + 1 or later, the batch rules) and all later ones mask it
    const cell & c = cells[i];
    if (window == 0 || c.empty()) {
        return false;
    }
    for (uint32_t s = 0; s < LLAMA_MAX_SEQ; s++) {
        if (c.seq.test(s) && (int64_t) seq_pos[s].rbegin()->first + 1 - c.pos < (int64_t) window) {
            return false;
        }
    }
    return true;
}

bool llama_kv_cache::find_slot(const llama_ubatch & ub, llama_kv_slot & slot) const {
    const uint32_t n = (uint32_t) cells.size();
    if (window == 0 && ub.n_tokens > n - used) {
        return false;
    }
    // first empty cells from head (wrapping); they need not be contiguous since K/V are written
    // by index (set_rows). A window cache also takes cells that slid out of every window.
    slot.idxs.clear();
    for (uint32_t k = 0; k < n && slot.idxs.size() < ub.n_tokens; k++) {
        const uint32_t i = (head + k) % n;
        if (cells[i].empty() || reusable(i)) {
            slot.idxs.push_back(i);
        }
    }
    return slot.idxs.size() == ub.n_tokens;
}

void llama_kv_cache::apply(const llama_ubatch & ub, const llama_kv_slot & slot) {
    apply_cells(ub, slot);
    if (swa) {
        swa->apply(ub, swa_slot(slot));
    }
}

void llama_kv_cache::apply_cells(const llama_ubatch & ub, const llama_kv_slot & slot) {
    for (uint32_t t = 0; t < ub.n_tokens; t++) {
        const uint32_t i = slot.idxs[t];
        cell           nc;
        nc.pos = ub.pos[t];
        for (int32_t s = 0; s < ub.n_seq_id[t]; s++) {
            nc.seq.set(ub.seq_id[t][s]);
        }
        cell_set(i, nc);
    }
    if (!slot.idxs.empty()) {
        head = (slot.idxs.back() + 1) % (uint32_t) cells.size();
    }
}

void llama_kv_cache::release(const llama_kv_slot & slot) {
    for (uint32_t i : slot.idxs) {
        cell_set(i, cell());
        head = std::min(head, i);
    }
    if (swa) {
        swa->release(swa_slot(slot));
    }
}

bool llama_kv_cache::prepare(const std::vector<llama_ubatch> & ubatches, std::vector<llama_kv_slot> & slots) {
    // simulate storing every ubatch, recording the previous state of each touched cell, then undo:
    // the cache is left exactly as it was whatever the outcome
    struct saved {
        uint32_t idx;
        cell     c;
    };
    std::vector<saved> undo;
    const uint32_t     head_old = head;
    bool               ok       = true;
    slots.clear();
    for (const auto & ub : ubatches) {
        llama_kv_slot slot;
        if (!find_slot(ub, slot)) {
            ok = false;
            break;
        }
        for (uint32_t i : slot.idxs) {
            undo.push_back({i, cells[i]});
        }
        apply_cells(ub, slot);
        slot.n_kv = std::min<uint32_t>((uint32_t) cells.size(), pad_to(used_max_p1(), KV_PAD));
        slots.push_back(std::move(slot));
    }
    for (auto it = undo.rbegin(); it != undo.rend(); ++it) {
        cell_set(it->idx, it->c);
    }
    head = head_old;
    if (ok && swa) {
        // the window cache finds its own slots (it reuses cells the full cache keeps)
        std::vector<llama_kv_slot> ws;
        ok = swa->prepare(ubatches, ws);
        for (size_t u = 0; ok && u < ws.size(); u++) {
            slots[u].idxs_swa = std::move(ws[u].idxs);
            slots[u].n_kv_swa = ws[u].n_kv;
        }
    }
    return ok;
}

// ---- graph helpers -----------------------------------------------------------------------------

ggml_tensor * llama_kv_cache::get_k(ggml_context * c, int il, uint32_t n_kv) const {
    il = model.hparams.kv_layer(il);  // a KV-sharing layer reads its source layer's cells
    if (swa && model.hparams.is_swa(il)) {
        return swa->get_k(c, il, n_kv);
    }
    const llama_hparams & hp = model.hparams;
    ggml_tensor *         k  = k_l[il];
    return ggml_view_3d(c, k, hp.n_embd_head_k, hp.n_head_kv, n_kv, ggml_row_size(k->type, hp.n_embd_head_k),
                        ggml_row_size(k->type, hp.n_embd_k_gqa()), 0);
}

ggml_tensor * llama_kv_cache::get_v(ggml_context * c, int il, uint32_t n_kv) const {
    il = model.hparams.kv_layer(il);  // a KV-sharing layer reads its source layer's cells
    if (swa && model.hparams.is_swa(il)) {
        return swa->get_v(c, il, n_kv);
    }
    const llama_hparams & hp = model.hparams;
    if (v_in_k_) {
        // the first n_embd_v_gqa values of each K row (block-aligned for a quantized K: checked at
        // construction)
        ggml_tensor * k = k_l[il];
        return ggml_view_3d(c, k, hp.n_embd_head_v, hp.n_head_kv, n_kv, ggml_row_size(k->type, hp.n_embd_head_v),
                            k->nb[1], 0);
    }
    ggml_tensor * v = v_l[il];
    if (v_trans_) {
        const size_t es = ggml_element_size(v);
        return ggml_view_3d(c, v, n_kv, hp.n_embd_head_v, hp.n_head_kv, es * cells.size(),
                            es * cells.size() * hp.n_embd_head_v, 0);
    }
    return ggml_view_3d(c, v, hp.n_embd_head_v, hp.n_head_kv, n_kv, ggml_row_size(v->type, hp.n_embd_head_v),
                        ggml_row_size(v->type, hp.n_embd_v_gqa()), 0);
}

ggml_tensor * llama_kv_cache::cpy_k(ggml_context * c, ggml_tensor * k_cur, ggml_tensor * k_idxs, int il) const {
    if (swa && model.hparams.is_swa(il)) {
        return swa->cpy_k(c, k_cur, k_idxs, il);
    }
    return ggml_set_rows(c, k_l[il], k_cur, k_idxs);
}

ggml_tensor * llama_kv_cache::cpy_v(ggml_context * c, ggml_tensor * v_cur, ggml_tensor * v_idxs, int il) const {
    if (swa && model.hparams.is_swa(il)) {
        return swa->cpy_v(c, v_cur, v_idxs, il);
    }
    if (v_in_k_) {
        return nullptr;  // the K store wrote it
    }
    ggml_tensor * v = v_l[il];
    if (!v_trans_) {
        return ggml_set_rows(c, v, v_cur, v_idxs);
    }
    // transposed storage: every element is a row of one value at channel * size + cell
    ggml_tensor * dst = ggml_reshape_2d(c, v, 1, ggml_nelements(v));
    ggml_tensor * src = ggml_reshape_2d(c, v_cur, 1, ggml_nelements(v_cur));
    return ggml_set_rows(c, dst, src, v_idxs);
}

void llama_kv_cache::fill_k_idxs(int64_t * dst, const llama_kv_slot & slot) const {
    for (size_t t = 0; t < slot.idxs.size(); t++) {
        dst[t] = slot.idxs[t];
    }
}

void llama_kv_cache::fill_v_idxs(int64_t * dst, const llama_kv_slot & slot) const {
    if (!v_trans_) {
        fill_k_idxs(dst, slot);
        return;
    }
    const int64_t n_embd_v = model.hparams.n_embd_v_gqa();
    const int64_t size     = (int64_t) cells.size();
    for (size_t t = 0; t < slot.idxs.size(); t++) {
        for (int64_t ch = 0; ch < n_embd_v; ch++) {
            dst[t * n_embd_v + ch] = ch * size + slot.idxs[t];
        }
    }
}

void llama_kv_cache::fill_kq_mask(float * dst, int64_t n_rows, const llama_ubatch & ub, uint32_t n_kv, bool causal,
                                  uint32_t n_swa, bool swa_symmetric, bool alibi) const {
    for (int64_t r = 0; r < n_rows; r++) {
        float * row = dst + r * n_kv;
        if (r >= ub.n_tokens) {
            std::fill(row, row + n_kv, -INFINITY);  // padding rows
            continue;
        }
        // like llama.cpp, a token sees the cells of its first sequence
        const llama_seq_id s = ub.seq_id[r][0];
        const llama_pos    p = ub.pos[r];
        for (uint32_t j = 0; j < n_kv; j++) {
            const cell & c = cells[j];
            // sliding window as upstream's LLAMA_SWA_TYPE_STANDARD: keep p - n_swa < pos <= p; symmetric
            // (LLAMA_SWA_TYPE_SYMMETRIC): keep |p - pos| <= n_swa / 2
            const int64_t d = (int64_t) p - c.pos;
            const bool    in_window =
                n_swa == 0 || (swa_symmetric ? (d < 0 ? -d : d) <= (int64_t) (n_swa / 2) : d < (int64_t) n_swa);
            const bool visible = c.seq.test(s) && (!causal || c.pos <= p) && in_window;
            row[j]             = !visible ? -INFINITY : alibi ? -(float) (d < 0 ? -d : d) : 0.0f;
        }
    }
}
