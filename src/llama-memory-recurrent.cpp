#include "llama-memory-recurrent.h"

#include <cstring>
#include <limits>
#include <map>
#include <stdexcept>

#include "ggml-cpu.h"
#include "llama-log.h"
#include "llama-model.h"
#include "llama-state-io.h"

namespace {

// Whether dev runs the recurrent ops (SSM_CONV, the one every recurrent layer has): only then do the
// states live there. A device that refuses it would have the scheduler copy each state to the CPU and
// back; in host memory they are read and written once per ubatch.
bool dev_runs_recurrent_ops(ggml_backend_dev_t dev) {
    ggml_init_params ip  = {4 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
    ggml_context *   ctx = ggml_init(ip);
    if (!ctx) {
        return false;
    }
    ggml_tensor * conv = ggml_ssm_conv(ctx, ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 4, 8, 1),
                                       ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 8));
    const bool    ok   = conv && ggml_backend_dev_supports_op(dev, conv);
    ggml_free(ctx);
    return ok;
}

}  // namespace

llama_memory_recurrent::llama_memory_recurrent(const llama_model & model, uint32_t n_seq_max, bool offload)
    : slots(n_seq_max) {
    const llama_hparams & hp      = model.hparams;
    const int             n_layer = (int) hp.n_layer;
    // lfm2's short-convolution layers have a conv state only (n_embd_s 0)
    if (n_seq_max == 0 || hp.n_embd_r() == 0) {
        throw llama_error("a recurrent memory needs n_seq_max > 0 and a state-space shape");
    }
    std::vector<ggml_backend_buffer_type_t> bufts;  // parallel to ctxs
    std::map<ggml_backend_dev_t, bool>      dev_ok;
    auto                                    ctx_for = [&](int il) {
        ggml_backend_buffer_type_t buft = ggml_backend_cpu_buffer_type();
        ggml_backend_dev_t         dev  = model.layer_dev(il);
        if (offload && dev && dev != model.dev_cpu) {
            auto it = dev_ok.find(dev);
            if (it == dev_ok.end()) {
                it = dev_ok.emplace(dev, dev_runs_recurrent_ops(dev)).first;
            }
            buft = it->second ? ggml_backend_dev_buffer_type(dev) : buft;
        }
        for (size_t i = 0; i < bufts.size(); i++) {
            if (bufts[i] == buft) {
                return ctxs[i];
            }
        }
        ggml_init_params ip = {(size_t) (2 * n_layer + 1) * ggml_tensor_overhead(), nullptr, true};
        ggml_context *   c = ggml_init(ip);
        if (!c) {
            throw llama_error("cannot create the recurrent state context");
        }
        ctxs.push_back(c);
        bufts.push_back(buft);
        return c;
    };
    r_l.resize(n_layer);
    s_l.resize(n_layer);
    for (int il = 0; il < n_layer; il++) {
        if (!hp.is_recurrent_layer(il)) {
            continue;  // an attention layer of a hybrid model: its K/V are in the KV cache
        }
        ggml_context * ctx = ctx_for(il);
        layers.push_back(il);
        r_l[il] = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, hp.n_embd_r(), n_seq_max);
        ggml_format_name(r_l[il], "cache_r_l%d", il);
        if (hp.n_embd_s() > 0) {
            s_l[il] = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, hp.n_embd_s(), n_seq_max);
            ggml_format_name(s_l[il], "cache_s_l%d", il);
        }
    }
    r_row  = (size_t) hp.n_embd_r() * sizeof(float);
    s_row  = (size_t) hp.n_embd_s() * sizeof(float);
    d_conv = hp.n_shortconv_l_cache > 0 ? hp.n_shortconv_l_cache - 1 : (hp.ssm_d_conv > 0 ? hp.ssm_d_conv - 1 : 0);
    for (size_t i = 0; i < ctxs.size(); i++) {
        ggml_backend_buffer_t b = ggml_backend_alloc_ctx_tensors_from_buft(ctxs[i], bufts[i]);
        if (!b) {
            for (ggml_backend_buffer_t done : bufs) {
                ggml_backend_buffer_free(done);
            }
            for (ggml_context * c : ctxs) {
                ggml_free(c);
            }
            throw llama_error("cannot allocate the recurrent state buffer");
        }
        ggml_backend_buffer_clear(b, 0);
        bufs.push_back(b);
    }
    LLAMA_LOG_INFO("%s: %u sequence slots, %.2f MiB of recurrent state\n", __func__, n_seq_max,
                   total_size() / 1024.0 / 1024.0);
}

llama_memory_recurrent::~llama_memory_recurrent() {
    for (ggml_backend_buffer_t b : bufs) {
        ggml_backend_buffer_free(b);
    }
    for (ggml_context * c : ctxs) {
        ggml_free(c);
    }
}

size_t llama_memory_recurrent::total_size() const {
    size_t n = 0;
    for (ggml_backend_buffer_t b : bufs) {
        n += ggml_backend_buffer_get_size(b);
    }
    return n;
}

void llama_memory_recurrent::slot_clear(uint32_t s) {
    slots[s] = slot();
    for (int il : layers) {
        for (ggml_tensor * t : {r_l[il], s_l[il]}) {
            if (t) {
                ggml_backend_tensor_memset(t, 0, s * t->nb[1], t->nb[1]);
            }
        }
    }
}

void llama_memory_recurrent::slot_copy(uint32_t src, uint32_t dst) {
    slots[dst] = slots[src];
    std::vector<uint8_t> row;
    for (int il : layers) {
        for (ggml_tensor * t : {r_l[il], s_l[il]}) {
            if (!t) {
                continue;
            }
            row.resize(t->nb[1]);
            ggml_backend_tensor_get(t, row.data(), src * t->nb[1], t->nb[1]);
            ggml_backend_tensor_set(t, row.data(), dst * t->nb[1], t->nb[1]);
        }
    }
}

void llama_memory_recurrent::clear(bool data) {
    for (slot & s : slots) {
        s = slot();
    }
    (void) data;  // a new sequence must start from a zero state, so the data is always cleared
    for (ggml_backend_buffer_t b : bufs) {
        ggml_backend_buffer_clear(b, 0);
    }
}

bool llama_memory_recurrent::seq_rm(llama_seq_id seq_id, llama_pos p0, llama_pos p1) {
    if (p0 < 0) {
        p0 = 0;
    }
    if (p1 < 0) {
        p1 = std::numeric_limits<llama_pos>::max();
    }
    if (seq_id >= (llama_seq_id) slots.size()) {
        return false;
    }
    // whether the range covers a sequence ending at pos entirely, or none of it
    auto all  = [&](llama_pos pos) { return p0 == 0 && p1 > pos; };
    auto none = [&](llama_pos pos) { return pos < 0 || p0 > pos || p0 >= p1; };
    if (seq_id < 0) {
        for (const slot & s : slots) {
            if (!all(s.pos) && !none(s.pos)) {
                return false;
            }
        }
        for (uint32_t s = 0; s < slots.size(); s++) {
            if (slots[s].pos >= 0 && all(slots[s].pos)) {
                slot_clear(s);
            }
        }
        return true;
    }
    const llama_pos pos = slots[seq_id].pos;
    if (none(pos)) {
        return true;
    }
    if (!all(pos)) {
        return false;  // the state of an earlier position is gone
    }
    slot_clear((uint32_t) seq_id);
    return true;
}

void llama_memory_recurrent::seq_save(llama_seq_id seq_id, checkpoint & cp) const {
    const uint32_t s = (uint32_t) seq_id;
    cp.pos           = slots[s].pos;
    cp.lineage       = slots[s].lineage;
    cp.data.resize(layers.size() * (r_row + s_row));
    size_t off = 0;
    for (int il : layers) {
        for (ggml_tensor * t : {r_l[il], s_l[il]}) {
            if (t) {
                ggml_backend_tensor_get(t, cp.data.data() + off, s * t->nb[1], t->nb[1]);
                off += t->nb[1];
            }
        }
    }
    cp.data.resize(off);
}

void llama_memory_recurrent::seq_restore(llama_seq_id seq_id, const checkpoint & cp) {
    const uint32_t s = (uint32_t) seq_id;
    slots[s].pos     = cp.pos;
    slots[s].lineage = cp.lineage;
    size_t off       = 0;
    for (int il : layers) {
        for (ggml_tensor * t : {r_l[il], s_l[il]}) {
            if (t && off + t->nb[1] <= cp.data.size()) {
                ggml_backend_tensor_set(t, cp.data.data() + off, s * t->nb[1], t->nb[1]);
                off += t->nb[1];
            }
        }
    }
}

bool llama_memory_recurrent::rows_supported() const {
    return d_conv > 0 && !layers.empty();
}

void llama_memory_recurrent::rows_collect(const llama_ubatch & ub, const std::vector<ggml_tensor *> & conv,
                                          const std::vector<llama_rs_replay_rec> & scan) {
    if (!rows_supported() || conv.size() != layers.size() || ub.n_seqs == 0) {
        return;
    }
    const uint32_t n_rows = ub.n_seq_tokens;
    const size_t   n_ch   = r_row / sizeof(float) / d_conv;
    const size_t   per_l  = (size_t) (d_conv + n_rows) * n_ch;  // floats of one sequence in one layer
    for (ggml_tensor * t : conv) {
        if (t == nullptr || t->type != GGML_TYPE_F32 || (size_t) ggml_nelements(t) != per_l * ub.n_seqs ||
            !ggml_is_contiguous(t)) {
            return;  // not the layout this reads: record nothing (the caller decodes again instead)
        }
    }
    const bool ssm = s_row > 0;
    if (ssm) {
        // every state layer's recurrence, carrying exactly the slot's SSM state
        bool fits = scan.size() == layers.size();
        replay.resize(layers.size());
        for (size_t k = 0; fits && k < layers.size(); k++) {
            fits = llama_rs_replay_describe(scan[k], n_rows, ub.n_seqs, replay[k]) &&
                   replay[k].n_state() * sizeof(float) == s_row;
        }
        if (!fits) {
            replay.clear();
            return;
        }
    }
    rows.resize(slots.size());
    for (uint32_t q = 0; q < ub.n_seqs; q++) {
        const uint32_t     i0  = q * n_rows;  // sequence-major: this sequence's first token
        const llama_seq_id sid = ub.seq_id[i0][0];
        if (sid < 0 || (size_t) sid >= slots.size()) {
            continue;
        }
        row_record & r = rows[(size_t) sid];
        r.pos0         = ub.pos[i0];
        r.n_rows       = n_rows;
        r.lineage      = slots[(size_t) sid].lineage;
        r.lineage0     = (size_t) sid < lineage0.size() ? lineage0[(size_t) sid] : 0;
        r.conv.resize(per_l * layers.size());
        for (size_t k = 0; k < conv.size(); k++) {
            ggml_backend_tensor_get(conv[k], r.conv.data() + k * per_l, q * per_l * sizeof(float),
                                    per_l * sizeof(float));
        }
        r.scan.clear();
        for (size_t k = 0; ssm && k < layers.size(); k++) {
            for (const llama_rs_replay_layer::input & in : replay[k].in) {
                // a per-token input: this sequence's n_rows tokens; a weight (A): all of it
                const size_t n   = in.tok_dim >= 0 ? in.n_tok * n_rows : in.n_tok;
                const size_t off = in.tok_dim >= 0 ? q * n : 0;
                r.scan.resize(r.scan.size() + n);
                ggml_backend_tensor_get(scan[k].in[in.src], r.scan.data() + r.scan.size() - n, off * sizeof(float),
                                        n * sizeof(float));
            }
        }
    }
}

bool llama_memory_recurrent::seq_can_rewind(llama_seq_id seq_id, llama_pos pos, const checkpoint * before) const {
    if (seq_id < 0 || (size_t) seq_id >= rows.size()) {
        return false;
    }
    const row_record & r = rows[(size_t) seq_id];
    const slot &       s = slots[(size_t) seq_id];
    if (!(r.n_rows > 0 && s.lineage == r.lineage && s.pos == r.pos0 + (llama_pos) r.n_rows - 1 && pos >= r.pos0 &&
          pos <= s.pos)) {
        return false;
    }
    // an SSM state is replayed from the one before the recorded ubatch
    return s_row == 0 || (before && replay.size() == layers.size() && !r.scan.empty() && before->pos == r.pos0 - 1 &&
                          before->lineage == r.lineage0 && before->data.size() == layers.size() * (r_row + s_row));
}

void llama_memory_recurrent::seq_rewind(llama_seq_id seq_id, llama_pos pos, const checkpoint * before) {
    if (!seq_can_rewind(seq_id, pos, before)) {
        throw std::logic_error("seq_rewind without a recorded state for that position");
    }
    row_record &   r   = rows[(size_t) seq_id];
    const uint32_t row = (uint32_t) (pos - r.pos0);  // the state after this row of the ubatch
    // the SSM states first: the replay is what can fail, and then nothing has changed
    if (s_row > 0) {
        std::vector<llama_rs_replay_job> jobs(layers.size());
        const float *                    rec = r.scan.data();
        for (size_t k = 0; k < layers.size(); k++) {
            jobs[k].lay      = &replay[k];
            jobs[k].state_in = reinterpret_cast<const float *>(before->data.data() + k * (r_row + s_row) + r_row);
            for (const llama_rs_replay_layer::input & in : replay[k].in) {
                jobs[k].in.push_back(rec);
                rec += in.tok_dim >= 0 ? in.n_tok * r.n_rows : in.n_tok;
            }
        }
        if (!replayer.run(jobs, row + 1)) {
            throw llama_error("cannot replay the recurrent layers over the kept tokens");
        }
    }
    const size_t n_ch  = r_row / sizeof(float) / d_conv;
    const size_t width = d_conv + r.n_rows;
    const size_t per_l = width * n_ch;
    // the conv state after row j is columns j+1 .. j+d_conv of the ubatch's conv input, per channel
    std::vector<float> state(r_row / sizeof(float));
    for (size_t k = 0; k < layers.size(); k++) {
        const float * src = r.conv.data() + k * per_l;
        for (size_t c = 0; c < n_ch; c++) {
            for (uint32_t j = 0; j < d_conv; j++) {
                state[c * d_conv + j] = src[c * width + row + 1 + j];
            }
        }
        ggml_tensor * t = r_l[layers[k]];
        ggml_backend_tensor_set(t, state.data(), (size_t) seq_id * t->nb[1], r_row);
        if (s_row > 0) {
            ggml_tensor * ts = s_l[layers[k]];
            ggml_backend_tensor_set(ts, replayer.state(k), (size_t) seq_id * ts->nb[1], s_row);
        }
    }
    slot & s  = slots[(size_t) seq_id];
    s.pos     = pos;
    s.lineage = next_lineage++;  // a state no other slot holds
    r.n_rows  = 0;               // its rows are no longer the slot's past (their memory stays for the next)
}

void llama_memory_recurrent::rewind_reserve(llama_seq_id seq_id, uint32_t n_rows, checkpoint & cp) {
    if (seq_id < 0 || (size_t) seq_id >= slots.size() || !rows_supported() || n_rows == 0) {
        return;
    }
    // vectors resized once (their pages touched) and emptied again: they keep the memory
    checkpoint_reserve(cp);
    rows.resize(slots.size());
    row_record & r     = rows[(size_t) seq_id];
    const size_t n_ch  = r_row / sizeof(float) / d_conv;
    const size_t n_cv  = layers.size() * (d_conv + n_rows) * n_ch;
    const size_t n_in  = scan_floats(n_rows);
    const bool   known = replay.size() == layers.size();
    if (r.conv.size() < n_cv) {
        r.conv.resize(n_cv);
    }
    if (s_row > 0 && r.scan.capacity() < n_in) {
        const size_t held = r.scan.size();  // a record there stays as it is
        r.scan.resize(n_in);
        r.scan.resize(held);
    }
    if (s_row > 0) {
        // the replay's buffer: exact once a recording described the layers; before that their state
        // plus a bound on n_rows tokens of inputs and outputs
        const size_t guess = known ? 0 : layers.size() * (s_row + n_rows * (s_row / 16 + 4096));
        if (!replayer.reserve(known ? replay : std::vector<llama_rs_replay_layer>{}, n_rows, guess)) {
            throw llama_error("cannot reserve the recurrent replay's memory");
        }
    }
}

size_t llama_memory_recurrent::rewind_reserved() const {
    size_t n = replayer.reserved();
    for (const row_record & r : rows) {
        n += (r.conv.capacity() + r.scan.capacity()) * sizeof(float);
    }
    return n;
}

size_t llama_memory_recurrent::scan_floats(uint32_t n_rows) const {
    if (replay.size() != layers.size()) {
        // not described yet: a bound (the inputs of a token are a small part of the state: a delta net's
        // q, k, v, gate and beta ~1/40 of it, a Mamba-2 scan's x, dt, B, C ~1/100)
        return layers.size() * (size_t) n_rows * (s_row / sizeof(float) / 16 + 1024);
    }
    size_t n = 0;
    for (const llama_rs_replay_layer & lay : replay) {
        for (const llama_rs_replay_layer::input & in : lay.in) {
            n += in.tok_dim >= 0 ? in.n_tok * n_rows : in.n_tok;
        }
    }
    return n;
}

void llama_memory_recurrent::seq_cp(llama_seq_id src, llama_seq_id dst, llama_pos p0, llama_pos p1) {
    (void) p0;  // a state is copied whole (as upstream)
    (void) p1;
    const llama_seq_id n = (llama_seq_id) slots.size();
    if (src == dst || src < 0 || dst < 0 || src >= n || dst >= n) {
        return;
    }
    if (slots[src].pos < 0) {
        slot_clear((uint32_t) dst);
        return;
    }
    slot_copy((uint32_t) src, (uint32_t) dst);
}

void llama_memory_recurrent::seq_keep(llama_seq_id seq_id) {
    for (uint32_t s = 0; s < slots.size(); s++) {
        if ((llama_seq_id) s != seq_id && slots[s].pos >= 0) {
            slot_clear(s);
        }
    }
}

void llama_memory_recurrent::seq_add(llama_seq_id seq_id, llama_pos p0, llama_pos p1, llama_pos delta) {
    if (p0 < 0) {
        p0 = 0;
    }
    if (p1 < 0) {
        p1 = std::numeric_limits<llama_pos>::max();
    }
    for (uint32_t s = 0; s < slots.size(); s++) {
        slot & sl = slots[s];
        if ((seq_id < 0 || (llama_seq_id) s == seq_id) && sl.pos >= 0 && sl.pos >= p0 && sl.pos < p1) {
            sl.pos += delta;
            if (sl.pos < 0) {
                slot_clear(s);  // shifted before the start: gone, as a KV cell would be
            }
        }
    }
}

void llama_memory_recurrent::seq_div(llama_seq_id seq_id, llama_pos p0, llama_pos p1, int d) {
    if (d <= 1) {
        return;
    }
    if (p0 < 0) {
        p0 = 0;
    }
    if (p1 < 0) {
        p1 = std::numeric_limits<llama_pos>::max();
    }
    for (uint32_t s = 0; s < slots.size(); s++) {
        slot & sl = slots[s];
        if ((seq_id < 0 || (llama_seq_id) s == seq_id) && sl.pos >= p0 && sl.pos < p1 && sl.pos >= 0) {
            sl.pos /= d;
        }
    }
}

llama_pos llama_memory_recurrent::seq_pos_min(llama_seq_id seq_id) const {
    return seq_pos_max(seq_id);
}

llama_pos llama_memory_recurrent::seq_pos_max(llama_seq_id seq_id) const {
    if (seq_id < 0 || seq_id >= (llama_seq_id) slots.size()) {
        return -1;
    }
    return slots[seq_id].pos;
}

bool llama_memory_recurrent::seq_same_cells(llama_seq_id a, llama_seq_id b) const {
    const llama_seq_id n = (llama_seq_id) slots.size();
    if (a < 0 || b < 0 || a >= n || b >= n) {
        return false;
    }
    const slot & x = slots[a];
    const slot & y = slots[b];
    return (x.pos < 0 && y.pos < 0) || (x.pos == y.pos && x.lineage == y.lineage);
}

void llama_memory_recurrent::apply(const llama_ubatch & ub) {
    lineage0.resize(slots.size());
    for (size_t s = 0; s < slots.size(); s++) {
        lineage0[s] = slots[s].lineage;  // a recording of this ubatch replays from these states
    }
    for (uint32_t i = 0; i < ub.n_tokens; i++) {
        const uint64_t lineage = next_lineage++;  // shared only by the sequences this token extends
        for (int32_t k = 0; k < ub.n_seq_id[i]; k++) {
            slot & s  = slots[ub.seq_id[i][k]];
            s.pos     = ub.pos[i];
            s.lineage = lineage;
        }
    }
}

void llama_memory_recurrent::release(const llama_ubatch & ub) {
    for (uint32_t i = 0; i < ub.n_tokens; i++) {
        for (int32_t k = 0; k < ub.n_seq_id[i]; k++) {
            slot_clear((uint32_t) ub.seq_id[i][k]);
        }
    }
}

// ---- state (docs/state.md) ---------------------------------------------------------------------
// The KV cache's layout, with a slot for a cell: one record per non-empty slot (its index, its
// sequence's last position, no shift, the sequence as the set in a full state), then per layer the
// conv-state rows of those slots (the "K" rows) and their SSM-state rows (the "V" rows), F32.

void llama_memory_recurrent::state_write(llama_state_io::writer & w, llama_seq_id seq_id) const {
    std::vector<uint32_t> idxs;
    for (uint32_t s = 0; s < slots.size(); s++) {
        if (slots[s].pos >= 0 && (seq_id < 0 || (llama_seq_id) s == seq_id)) {
            idxs.push_back(s);
        }
    }
    w.put_u32((uint32_t) slots.size());
    w.put_u32(0);  // head: unused
    w.put_u32((uint32_t) idxs.size());
    for (uint32_t s : idxs) {
        w.put_u32(s);
        w.put_i32(slots[s].pos);
        w.put_i32(0);
        w.put_u64(seq_id < 0 ? 1ull << s : 0);
    }
    for (int il : layers) {
        uint8_t * d = w.reserve(idxs.size() * (r_row + s_row));  // conv rows, then SSM rows
        if (!d) {
            continue;  // counting
        }
        for (size_t j = 0; j < idxs.size(); j++) {
            ggml_backend_tensor_get(r_l[il], d + j * r_row, idxs[j] * r_row, r_row);
            if (s_l[il]) {
                ggml_backend_tensor_get(s_l[il], d + idxs.size() * r_row + j * s_row, idxs[j] * s_row, s_row);
            }
        }
    }
}

void llama_memory_recurrent::state_apply(const llama_state_io::image & img, llama_seq_id dest) {
    const std::vector<uint32_t> target = state_check(img, dest);
    const bool                  full   = dest < 0;
    const size_t                n      = img.cells.size();
    // ---- from here on nothing can fail ----
    if (full) {
        clear(true);
    } else {
        slot_clear((uint32_t) dest);
    }
    for (size_t j = 0; j < n; j++) {
        slot & s  = slots[target[j]];
        s.pos     = img.cells[j].pos;
        s.lineage = next_lineage++;
    }
    for (size_t li = 0; li < layers.size(); li++) {
        const int       il   = layers[li];
        const uint8_t * r_in = img.k_rows((uint32_t) li);
        const uint8_t * s_in = img.v_rows((uint32_t) li);
        for (size_t j = 0; j < n; j++) {
            ggml_backend_tensor_set(r_l[il], r_in + j * img.k_row, target[j] * img.k_row, img.k_row);
            if (s_l[il]) {
                ggml_backend_tensor_set(s_l[il], s_in + j * img.v_row, target[j] * img.v_row, img.v_row);
            }
        }
    }
}

std::vector<uint32_t> llama_memory_recurrent::state_check(const llama_state_io::image & img, llama_seq_id dest) const {
    const bool   full = dest < 0;
    const size_t n    = img.cells.size();
    if (!full && dest >= (llama_seq_id) slots.size()) {
        throw llama_error(llama_format("dest_seq_id %d is out of range [0, %zu)", dest, slots.size()));
    }
    // the slot of each record: its sequence (a full state), or dest
    std::vector<uint32_t> target(n);
    for (size_t j = 0; j < n; j++) {
        const uint64_t seqs = img.cells[j].seqs;
        if (full) {
            if (seqs == 0 || (seqs & (seqs - 1)) != 0) {
                throw llama_error(
                    llama_format("state: record %zu holds 0x%llx; a recurrent state belongs to one sequence", j,
                                 (unsigned long long) seqs));
            }
            uint32_t s = 0;
            while (!(seqs >> s & 1)) {
                s++;
            }
            if (s >= slots.size()) {
                throw llama_error(llama_format("state: sequence %u is outside this context's %zu", s, slots.size()));
            }
            target[j] = s;
        } else {
            target[j] = (uint32_t) dest;
        }
    }
    if (!full && n > 1) {
        throw llama_error(llama_format("state: a sequence's recurrent state is one record, not %zu", n));
    }
    if (img.k_row != r_row || img.v_row != s_row) {
        throw llama_error("state: the recurrent state sizes differ from this model's");  // the fingerprint checks it
    }
    return target;
}
