#include "llama-rs-replay.h"

#include <algorithm>

#include "ggml-alloc.h"
#include "ggml-cpu.h"

int llama_rs_replay_token_dim(ggml_op op, int src) {
    switch (op) {
        case GGML_OP_SSM_SCAN:  // s, x, dt, A, B, C, ids (ggml.h)
            switch (src) {
                case 1:
                case 4:
                case 5:
                    return 2;  // x, B, C [., ., n_t, n_seqs]
                case 2:
                    return 1;  // dt [n_head, n_t, n_seqs]
                case 3:
                    return -1;  // A [1, n_head]
                default:
                    return -2;
            }
        case GGML_OP_GATED_DELTA_NET:  // q, k, v, g, beta [., ., n_t, n_seqs], state
            return src >= 0 && src < 5 ? 2 : -2;
        default:
            return -2;
    }
}

namespace {

const llama_rs_replay_layer::input * find_src(const llama_rs_replay_layer & lay, int src) {
    for (const llama_rs_replay_layer::input & in : lay.in) {
        if (in.src == src) {
            return &in;
        }
    }
    return nullptr;
}

}  // namespace

size_t llama_rs_replay_layer::n_state() const {
    if (op == GGML_OP_SSM_SCAN) {
        const input * x = find_src(*this, 1);
        const input * b = find_src(*this, 4);
        return x && b ? (size_t) (b->ne[0] * x->ne[0] * x->ne[1]) : 0;  // [d_state, head_dim, n_head]
    }
    if (op == GGML_OP_GATED_DELTA_NET) {
        const input * v = find_src(*this, 2);
        return v ? (size_t) (v->ne[0] * v->ne[0] * v->ne[1]) : 0;  // [S, S, H]
    }
    return 0;
}

bool llama_rs_replay_describe(const llama_rs_replay_rec & rec, uint32_t n_rows, uint32_t n_seqs,
                              llama_rs_replay_layer & lay) {
    lay.op = rec.op;
    lay.in.clear();
    for (int i = 0; i < GGML_MAX_SRC; i++) {
        const int td = llama_rs_replay_token_dim(rec.op, i);
        if (td == -2) {
            continue;
        }
        const ggml_tensor * t = rec.in[i];
        if (t == nullptr || t->type != GGML_TYPE_F32 || !ggml_is_contiguous(t)) {
            return false;
        }
        llama_rs_replay_layer::input in;
        in.src     = i;
        in.tok_dim = td;
        in.n_tok   = 1;
        for (int d = 0; d < 4; d++) {
            in.ne[d] = t->ne[d];
        }
        if (td >= 0) {
            if (t->ne[td] != (int64_t) n_rows || t->ne[td + 1] != (int64_t) n_seqs || (td + 2 < 4 && t->ne[3] != 1)) {
                return false;
            }
            for (int d = 0; d < td; d++) {
                in.n_tok *= (size_t) t->ne[d];
            }
        } else {
            in.n_tok = (size_t) ggml_nelements(t);
        }
        lay.in.push_back(in);
    }
    return !lay.in.empty() && lay.n_state() > 0;
}

llama_rs_replayer::~llama_rs_replayer() {
    if (buf) {
        ggml_backend_buffer_free(buf);
    }
    if (cpu) {
        ggml_backend_free(cpu);
    }
}

bool llama_rs_replayer::grow(size_t bytes) {
    if (buf && ggml_backend_buffer_get_size(buf) >= bytes) {
        return true;
    }
    if (buf) {
        ggml_backend_buffer_free(buf);
    }
    buf = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), std::max<size_t>(bytes, 1));
    if (buf) {
        ggml_backend_buffer_clear(buf, 0);  // the first touch of its pages, now rather than in a compute
    }
    return buf != nullptr;
}

size_t llama_rs_replayer::build(ggml_context ** pctx, const std::vector<const llama_rs_replay_layer *> & lays,
                                uint32_t n_kept, parts & g) {
    size_t n_t = 0;
    for (const llama_rs_replay_layer * lay : lays) {
        n_t += lay->in.size() + 3;  // the inputs, the state, the slot ids, the node
    }
    meta.resize(std::max(meta.size(), n_t * ggml_tensor_overhead() + ggml_graph_overhead_custom(n_t, false)));
    ggml_init_params ip  = {meta.size(), meta.data(), true};
    ggml_context *   ctx = ggml_init(ip);
    *pctx                = ctx;
    if (!ctx) {
        return 0;
    }
    g.gf = ggml_new_graph_custom(ctx, n_t, false);
    g.ins.assign(lays.size(), {});
    for (size_t j = 0; j < lays.size(); j++) {
        const llama_rs_replay_layer & lay               = *lays[j];
        ggml_tensor *                 src[GGML_MAX_SRC] = {};
        for (const llama_rs_replay_layer::input & in : lay.in) {
            int64_t ne[4] = {in.ne[0], in.ne[1], in.ne[2], in.ne[3]};
            if (in.tok_dim >= 0) {
                ne[in.tok_dim]     = n_kept;  // the kept tokens of one sequence
                ne[in.tok_dim + 1] = 1;
            }
            src[in.src] = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, ne);
            g.ins[j].push_back(src[in.src]);
        }
        ggml_tensor * st   = nullptr;
        ggml_tensor * id   = nullptr;
        ggml_tensor * node = nullptr;
        if (lay.op == GGML_OP_SSM_SCAN) {
            st   = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, src[4]->ne[0], src[1]->ne[0], src[1]->ne[1], 1);
            id   = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 1);
            node = ggml_ssm_scan(ctx, st, src[1], src[2], src[3], src[4], src[5], id, 1);
        } else {
            st   = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, src[2]->ne[0], src[2]->ne[0], src[2]->ne[1], 1);
            node = ggml_gated_delta_net(ctx, src[0], src[1], src[2], src[3], src[4], st, 1);
        }
        if (node == nullptr || (size_t) ggml_nelements(st) != lay.n_state()) {
            return 0;
        }
        ggml_build_forward_expand(g.gf, node);
        g.nodes.push_back(node);
        g.states.push_back(st);
        g.ids.push_back(id);
    }
    // every tensor but the states at its own offset of one buffer; a state is read where the job has it
    // (a copy would be 18 MiB per rewind at 0.8B)
    ggml_backend_buffer_type_t buft  = ggml_backend_cpu_buffer_type();
    const size_t               align = ggml_backend_buft_get_alignment(buft);
    size_t                     need  = align;  // the buffer's base may need aligning
    for (ggml_tensor * t = ggml_get_first_tensor(ctx); t; t = ggml_get_next_tensor(ctx, t)) {
        if (std::find(g.states.begin(), g.states.end(), t) == g.states.end()) {
            need += (ggml_backend_buft_get_alloc_size(buft, t) + align - 1) / align * align;
        }
    }
    return need;
}

bool llama_rs_replayer::reserve(const std::vector<llama_rs_replay_layer> & lays, uint32_t n_kept, size_t bytes) {
    out.clear();
    if (!lays.empty() && n_kept > 0) {
        std::vector<const llama_rs_replay_layer *> ls;
        for (const llama_rs_replay_layer & l : lays) {
            ls.push_back(&l);
        }
        ggml_context * ctx = nullptr;
        parts          g;
        const size_t   need = build(&ctx, ls, n_kept, g);
        if (ctx) {
            ggml_free(ctx);
        }
        bytes = std::max(bytes, need);
    }
    return bytes == 0 || grow(bytes);
}

bool llama_rs_replayer::run(const std::vector<llama_rs_replay_job> & jobs, uint32_t n_kept) {
    out.clear();
    if (n_kept == 0) {
        // no token kept: the state before is the one wanted
        for (const llama_rs_replay_job & job : jobs) {
            out.push_back(job.state_in);
        }
        return true;
    }
    if (jobs.empty()) {
        return true;
    }
    if (!cpu) {
        cpu = ggml_backend_cpu_init();
        if (!cpu) {
            return false;
        }
        ggml_backend_cpu_set_n_threads(cpu, 1);  // a few tokens of a few small nodes
    }
    std::vector<const llama_rs_replay_layer *> lays;
    for (const llama_rs_replay_job & job : jobs) {
        lays.push_back(job.lay);
    }
    ggml_context *                     ctx = nullptr;
    parts                              g;
    const size_t                       need = build(&ctx, lays, n_kept, g);
    bool                               ok   = need > 0 && grow(need);
    std::vector<ggml_backend_buffer_t> ext;  // the states' memory, as buffers the CPU backend reads
    if (ok) {
        ggml_tallocr ta = ggml_tallocr_new(buf);
        for (ggml_tensor * t = ggml_get_first_tensor(ctx); ok && t; t = ggml_get_next_tensor(ctx, t)) {
            if (std::find(g.states.begin(), g.states.end(), t) == g.states.end()) {
                ok = ggml_tallocr_alloc(&ta, t);
            }
        }
        for (size_t j = 0; ok && j < jobs.size(); j++) {
            const size_t bytes = jobs[j].lay->n_state() * sizeof(float);
            // read only: the recurrence writes its result into the node, never into its state source
            ggml_backend_buffer_t b = ggml_backend_cpu_buffer_from_ptr(const_cast<float *>(jobs[j].state_in), bytes);
            ok                      = b != nullptr;
            if (ok) {
                ext.push_back(b);
                g.states[j]->buffer = b;
                g.states[j]->data   = const_cast<float *>(jobs[j].state_in);
            }
        }
    }
    for (size_t j = 0; ok && j < jobs.size(); j++) {
        const llama_rs_replay_job & job = jobs[j];
        for (size_t k = 0; k < job.lay->in.size(); k++) {
            const llama_rs_replay_layer::input & in = job.lay->in[k];
            const size_t                         n  = in.tok_dim >= 0 ? in.n_tok * n_kept : in.n_tok;
            ggml_backend_tensor_set(g.ins[j][k], job.in[k], 0, n * sizeof(float));
        }
        if (g.ids[j]) {
            const int32_t zero = 0;
            ggml_backend_tensor_set(g.ids[j], &zero, 0, sizeof(zero));
        }
    }
    ok = ok && ggml_backend_graph_compute(cpu, g.gf) == GGML_STATUS_SUCCESS;
    for (size_t j = 0; ok && j < jobs.size(); j++) {
        // the node's result ends with the final state (one sequence, one snapshot)
        const int64_t n = (int64_t) jobs[j].lay->n_state();
        out.push_back(static_cast<const float *>(g.nodes[j]->data) + (ggml_nelements(g.nodes[j]) - n));
    }
    for (ggml_backend_buffer_t b : ext) {
        ggml_backend_buffer_free(b);
    }
    if (ctx) {
        ggml_free(ctx);
    }
    return ok;
}
