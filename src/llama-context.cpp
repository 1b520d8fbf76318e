#include "llama-context.h"

#include "llama-log.h"
#include "llama-model.h"

#include "ggml-cpu.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <thread>

static uint32_t pad_up(uint32_t x, uint32_t n) {
    return (x + n - 1) / n * n;
}

// ---- creation ----------------------------------------------------------------------------------

// The YaRN attention factor handed to the rope op for a context-extension factor (upstream's rule):
// the magnitude correction 0.1 ln(s) + 1 (divided by the same with mscale_all_dim = log_mul when the
// model gives one), over the 1 + 0.1 ln(s) the rope op multiplies in itself whenever ext_factor != 0.
// mscale_is_log_mul (deepseek2, log_mul != 1): the numerator's mscale is log_mul too, so the factor is
// 1 and the architecture's KQ scale carries the magnitude correction instead.
static float yarn_attn_factor_for(float factor, float log_mul, bool mscale_is_log_mul) {
    auto        mscale = [](float s, float m) { return s <= 1.0f ? 1.0f : 0.1f * m * logf(s) + 1.0f; };
    const float num    = mscale_is_log_mul && log_mul != 1.0f ? log_mul : 1.0f;
    float       f      = log_mul != 0.0f ? mscale(factor, num) / mscale(factor, log_mul) : mscale(factor, 1.0f);
    return f / (1.0f + 0.1f * logf(factor));
}

llama_context::llama_context(const llama_model & model, const llama_context_params & params,
                             const std::function<void(llama_cparams &)> & adjust)
    : model(model) {
    t_start_us               = llama_time_us();
    const llama_hparams & hp = model.hparams;
    if (model.params.vocab_only || model.layers.empty()) {
        throw llama_error("the model was loaded with vocab_only: it has no weights to run");
    }

    llama_cparams & cp = cparams;
    if (params.n_seq_max == 0 || params.n_seq_max > LLAMA_MAX_SEQ) {
        throw llama_error(llama_format("n_seq_max = %u is out of range [1, %d]", params.n_seq_max, LLAMA_MAX_SEQ));
    }
    cp.n_seq_max = params.n_seq_max;

    uint32_t n_ctx = params.n_ctx == 0 ? hp.n_ctx_train : params.n_ctx;
    if (n_ctx == 0) {
        throw llama_error("n_ctx is 0 and the model has no training context length");
    }
    if (n_ctx > (1u << 24)) {
        throw llama_error(llama_format("n_ctx = %u is too large", n_ctx));
    }
    cp.n_ctx    = pad_up(n_ctx, 256);
    cp.n_batch  = std::max<uint32_t>(1, std::min(cp.n_ctx, params.n_batch ? params.n_batch : cp.n_ctx));
    cp.n_ubatch = std::max<uint32_t>(1, std::min(cp.n_batch, params.n_ubatch ? params.n_ubatch : cp.n_batch));

    cp.n_threads       = params.n_threads > 0 ? params.n_threads : ggml_cpu_default_n_threads();
    cp.n_threads_batch = params.n_threads_batch > 0 ? params.n_threads_batch : cp.n_threads;

    llama_rope_scaling_type scaling = params.rope_scaling_type == LLAMA_ROPE_SCALING_TYPE_UNSPECIFIED
                                          ? hp.rope_scaling_type_train
                                          : params.rope_scaling_type;
    cp.rope_freq_base               = params.rope_freq_base != 0.0f ? params.rope_freq_base : hp.rope_freq_base_train;
    cp.rope_freq_scale = params.rope_freq_scale != 0.0f ? params.rope_freq_scale : hp.rope_freq_scale_train;
    if (scaling == LLAMA_ROPE_SCALING_TYPE_NONE) {
        cp.rope_freq_scale = 1.0f;
    }
    cp.n_ctx_orig_yarn = params.yarn_orig_ctx ? params.yarn_orig_ctx
                         : hp.n_ctx_orig_yarn ? hp.n_ctx_orig_yarn
                                              : hp.n_ctx_train;
    // YaRN: a context value >= 0 wins over the model's; a negative ext_factor means "not set" and
    // becomes 1 for yarn scaling, 0 otherwise
    cp.yarn_ext_factor  = params.yarn_ext_factor >= 0.0f ? params.yarn_ext_factor : hp.yarn_ext_factor;
    cp.yarn_attn_factor = params.yarn_attn_factor >= 0.0f ? params.yarn_attn_factor : hp.yarn_attn_factor;
    cp.yarn_beta_fast   = params.yarn_beta_fast >= 0.0f ? params.yarn_beta_fast : hp.yarn_beta_fast;
    cp.yarn_beta_slow   = params.yarn_beta_slow >= 0.0f ? params.yarn_beta_slow : hp.yarn_beta_slow;
    if (cp.yarn_ext_factor < 0.0f) {
        cp.yarn_ext_factor = scaling == LLAMA_ROPE_SCALING_TYPE_YARN ? 1.0f : 0.0f;
    }
    if (cp.yarn_ext_factor != 0.0f) {
        cp.yarn_attn_factor =
            yarn_attn_factor_for(1.0f / cp.rope_freq_scale, hp.rope_yarn_log_mul, hp.yarn_mscale_all_dim);
    }
    cp.yarn_attn_factor *= hp.rope_attn_factor;

    cp.embeddings  = params.embeddings;
    cp.causal_attn = params.attention_type == LLAMA_ATTENTION_TYPE_UNSPECIFIED
                         ? hp.causal_attn
                         : params.attention_type == LLAMA_ATTENTION_TYPE_CAUSAL;
    cp.offload_kqv = params.offload_kqv;
    cp.no_perf     = params.no_perf;
    cp.warmup      = false;
    cp.swa_full    = params.swa_full;
    if (params.ctx_type != LLAMA_CONTEXT_TYPE_DEFAULT && params.ctx_type != LLAMA_CONTEXT_TYPE_MTP) {
        throw llama_error(llama_format("ctx_type %d is unknown", (int) params.ctx_type));
    }
    cp.mtp = params.ctx_type == LLAMA_CONTEXT_TYPE_MTP;
    if (cp.mtp && !model.has_mtp()) {
        throw llama_error(
            hp.n_layer_nextn == 0 || !model.ops->build_mtp_graph
                ? llama_format("ctx_type MTP: the model (%s) has no NextN (multi-token-prediction) block to run",
                               model.arch_name.c_str())
                : std::string("ctx_type MTP: the model's NextN blocks were not loaded (set "
                              "llama_model_params.load_mtp)"));
    }
    if (params.n_rs_seq != 0) {
        throw llama_error("n_rs_seq must be 0: there is no recurrent state to snapshot");
    }
    if (params.ctx_other != nullptr) {
        throw llama_error("ctx_other is not supported (must be NULL)");
    }
    if (params.n_samplers > 0 && !params.samplers) {
        throw llama_error("n_samplers > 0 but samplers is NULL");
    }
    for (size_t i = 0; i < params.n_samplers; i++) {
        set_sampler(params.samplers[i].seq_id, params.samplers[i].sampler);
    }
    cp.pooling_type = params.pooling_type == LLAMA_POOLING_TYPE_UNSPECIFIED ? hp.pooling_type : params.pooling_type;
    std::string pool_err;
    if (!llama_pooling::supported(model, cp.pooling_type, pool_err)) {
        throw llama_error(pool_err);
    }
    cp.cb_eval           = params.cb_eval;
    cp.cb_eval_user_data = params.cb_eval_user_data;

    // flash attention: AUTO takes the fused kernel (faster on the CPU, and the direct path for a quantized V)
    switch (params.flash_attn_type) {
        case LLAMA_FLASH_ATTN_TYPE_ENABLED:
            cp.flash_attn = true;
            break;
        case LLAMA_FLASH_ATTN_TYPE_DISABLED:
            cp.flash_attn = false;
            break;
        default:
            cp.flash_attn = true;
            break;
    }
    if (!ggml_type_is_valid(params.type_k) || !ggml_type_is_valid(params.type_v)) {
        throw llama_error("invalid KV cache type");
    }

    if (adjust) {
        adjust(cp);
    }
    // a window cache for the sliding-window layers: per sequence the n_swa cells a next token can
    // see, plus room for one ubatch (upstream's size); none when that is not smaller than n_ctx
    uint32_t swa_size = 0;
    if (!cp.swa_full && hp.is_swa_any()) {
        const uint64_t want =
            pad_up((uint32_t) std::min<uint64_t>((uint64_t) hp.n_swa * cp.n_seq_max + cp.n_ubatch, 1u << 24), 256);
        swa_size = want < cp.n_ctx ? (uint32_t) want : 0;
    }
    if (cp.mtp) {
        // the NextN block is one attention layer: a KV cache of that layer only
        kv.reset(llama_kv_cache::new_nextn(model, cp.n_ctx, params.type_k, params.type_v, !cp.flash_attn, cp.n_seq_max,
                                           cp.offload_kqv));
    } else if (hp.is_recurrent() || hp.is_hybrid()) {
        // one state slot per sequence; n_ctx does not bound a state's history
        rs.reset(new llama_memory_recurrent(model, cp.n_seq_max, cp.offload_kqv));
    }
    if (!cp.mtp && !hp.is_recurrent()) {
        kv.reset(new llama_kv_cache(model, cp.n_ctx, params.type_k, params.type_v, !cp.flash_attn, cp.n_seq_max,
                                    cp.offload_kqv, swa_size));
    }
    if (kv && rs) {
        hybrid.reset(new llama_memory_hybrid(*kv, *rs));
    }

    // a failure below frees what was made so far (the destructor does not run)
    try {
        // backends in the scheduler's priority order: each GPU device holding weights, then the CPU
        for (ggml_backend_dev_t dev : model.devices) {
            ggml_backend_t b = ggml_backend_dev_init(dev, nullptr);
            if (!b) {
                throw llama_error(llama_format("cannot initialize the backend of %s", ggml_backend_dev_name(dev)));
            }
            backends.push_back(b);
        }
        backend_cpu = ggml_backend_cpu_init();
        if (!backend_cpu) {
            throw llama_error("cannot initialize the CPU backend");
        }
        backends.push_back(backend_cpu);
        abort_cb      = params.abort_callback;
        abort_cb_data = params.abort_callback_data;

        // nodes per layer are a few dozen; weights give a generous bound for every architecture
        max_nodes      = std::max<size_t>(1024, 16 * (model.layers.size() * 16 + 16));
        max_nodes_base = max_nodes;
        lora_gen       = model.lora_gen;
        sched          = ggml_backend_sched_new(backends.data(), nullptr, (int) backends.size(), max_nodes, false,
                                                params.op_offload);
        if (!sched) {
            throw llama_error("cannot create the scheduler");
        }
        ggml_backend_sched_set_abort_callback(sched, abort_cb, abort_cb_data);
        if (cp.cb_eval) {
            ggml_backend_sched_set_eval_callback(sched, cp.cb_eval, cp.cb_eval_user_data);
        }
        gres.reset(new llm_graph_result(max_nodes));

        // reserve the compute buffers for the worst cases: a single token, then a full ubatch
        // attending over the whole cache (the largest graph)
        for (uint32_t n_tok : {1u, cp.n_ubatch}) {
            llm_graph_params p;
            p.n_tokens   = n_tok;
            p.n_outputs  = n_tok;
            p.n_kv       = cp.n_ctx;
            p.n_kv_swa   = kv && kv->swa_cache() ? kv->swa_cache()->size() : 0;
            p.n_seqs     = rs ? 1 : 0;  // one sequence of n_tok tokens
            p.causal     = cp.causal_attn;
            p.flash_attn = cp.flash_attn;
            p.embd_proj  = model.dense_2 != nullptr;  // the larger graph
            build_graph(p);
            if (!ggml_backend_sched_reserve(sched, gres->gf)) {
                throw llama_error(llama_format("cannot reserve compute buffers for %u tokens", n_tok));
            }
            gres->valid = false;  // a reserve graph is never computed
        }
        ggml_backend_sched_reset(sched);
    } catch (...) {
        release();
        throw;
    }

    output_ids.reserve(cp.n_batch);
    LLAMA_LOG_INFO(
        "%s: n_ctx %u, n_batch %u, n_ubatch %u, n_seq_max %u, flash_attn %d, offload_kqv %d, op_offload %d\n", __func__,
        cp.n_ctx, cp.n_batch, cp.n_ubatch, cp.n_seq_max, cp.flash_attn, cp.offload_kqv, params.op_offload);
    for (ggml_backend_t b : backends) {
        LLAMA_LOG_INFO("%s: %10s compute buffer %.2f MiB\n", __func__, ggml_backend_name(b),
                       ggml_backend_sched_get_buffer_size(sched, b) / 1024.0 / 1024.0);
    }
}

llama_context::~llama_context() {
    release();
}

void llama_context::release() {
    gres.reset();
    ggml_backend_sched_free(sched);
    sched = nullptr;
    hybrid.reset();
    kv.reset();  // its buffers belong to the devices of the backends freed below
    rs.reset();
    for (ggml_backend_t b : backends) {
        ggml_backend_free(b);
    }
    backends.clear();
    backend_cpu = nullptr;
}

// ---- graph -------------------------------------------------------------------------------------

llm_graph_params llama_context::graph_params(const llama_ubatch & ub, const llama_kv_slot & slot) const {
    llm_graph_params p;
    p.n_tokens   = ub.n_tokens;
    p.n_outputs  = ub.n_outputs;
    p.n_kv       = slot.n_kv;
    p.n_kv_swa   = slot.n_kv_swa;
    p.embd_input = ub.token == nullptr;
    p.causal     = cparams.causal_attn;
    p.flash_attn = cparams.flash_attn;
    p.n_seqs     = rs ? ub.n_seqs : 0;
    p.embd_proj  = model.dense_2 != nullptr && (cparams.embeddings || model.is_encoder());
    p.rs_rows    = rs_rows;
    p.hidden_all = hidden_all();
    if (rs && ub.n_seqs > 0) {
        // sequence j's first token is j * n_seq_tokens in the equal split; its slot is its id
        const llama_seq_id s0 = ub.seq_id[0][0];
        bool               in = s0 >= 0;
        for (uint32_t j = 1; in && j < ub.n_seqs; j++) {
            in = ub.seq_id[j * ub.n_seq_tokens][0] == s0 + (llama_seq_id) j;
        }
        p.rs_slot0 = in ? s0 : -1;
    }
    return p;
}

void llama_context::build_graph(const llm_graph_params & p) {
    gres->reset();
    gres->params = p;
    llm_graph_context g(model, cparams, kv.get(), p, *gres, rs.get());
    g.loras = &loras;
    g.cvec  = cvec.get();
    if (cparams.mtp) {
        model.ops->build_mtp_graph(g);
    } else {
        model.ops->build_graph(g);
    }
    if (p.embd_proj) {
        g.build_embd_proj();
    }
    if (!ggml_graph_is_ok(gres->gf) || (!gres->t_logits && !gres->t_embd)) {
        throw llama_error("failed to build the graph (see the log)");
    }
    if (p.hidden_all && !gres->t_hidden) {
        throw llama_error("the graph keeps no hidden row per token (hidden_all)");
    }
}

void llama_context::set_threads_for(uint32_t n_tokens) {
    ggml_threadpool_t tp = n_tokens == 1 ? tp_gen : (tp_batch ? tp_batch : tp_gen);
    ggml_backend_cpu_set_threadpool(backend_cpu, tp);  // NULL: the backend's own pool
    const int32_t n = n_tokens == 1 ? cparams.n_threads : cparams.n_threads_batch;
    if (n != n_threads_cur) {
        ggml_backend_cpu_set_n_threads(backend_cpu, n);
        n_threads_cur = n;
    }
}

void llama_context::attach_threadpool(ggml_threadpool_t tp, ggml_threadpool_t tpb) {
    tp_gen   = tp;
    tp_batch = tp ? tpb : nullptr;
}

bool llama_context::apply_k_shift(std::string & err) {
    // rotate every cached K by its cell's accumulated position delta: rope is additive in the angle.
    // One shift input per cache (the window cache of the sliding-window layers has its own cells).
    const llama_hparams & hp = model.hparams;
    gres->reset();
    // a graph context only for its rope step: the K shift rotates exactly as the decoder graph does
    // (the same sliding-window base and rope parameters), so that rule lives once, in build_rope
    const llm_graph_context g(model, cparams, kv.get(), llm_graph_params{}, *gres);
    ggml_context *          ctx0     = g.ctx0;
    llama_kv_cache *        caches[] = {kv.get(), kv->swa_cache()};
    ggml_tensor *           shifts[] = {nullptr, nullptr};
    for (int c = 0; c < 2 && caches[c]; c++) {
        shifts[c] = ggml_new_tensor_1d(ctx0, GGML_TYPE_I32, caches[c]->size());
        ggml_set_input(shifts[c]);
    }
    // an MTP context's cache holds the NextN blocks only
    const uint32_t il0 = cparams.mtp ? hp.n_layer : 0;
    const uint32_t il1 = cparams.mtp ? (uint32_t) model.layers.size() : hp.n_layer;
    for (uint32_t il = il0; il < il1; il++) {
        if (!hp.has_own_kv((int) il) || hp.rope_type == LLAMA_ROPE_TYPE_NONE) {
            // no cells of its own (a recurrent layer, or one reading an earlier layer's K/V), or keys
            // without positions (kimi-linear's latent attention): nothing to rotate
            continue;
        }
        const int     c     = caches[1] && hp.is_swa((int) il) ? 1 : 0;
        ggml_tensor * shift = shifts[c];
        ggml_tensor * k     = kv->get_k(ctx0, (int) il, caches[c]->size());  // [d, n_head_kv, size]
        if (hp.n_lora_kv > 0) {
            // latent attention: only the rope part at the end of each cached key is rotated. In a
            // quantized cache that part is whole blocks, so the strided view is dequantized and
            // requantized alone and the latent part keeps its bits
            if (hp.n_rot % ggml_blck_size(k->type) != 0) {
                err = llama_format("cannot shift a %s latent K cache: its rope part (%u values) is not whole blocks",
                                   ggml_type_name(k->type), hp.n_rot);
                return false;
            }
            k = ggml_view_3d(ctx0, k, hp.n_rot, k->ne[1], k->ne[2], k->nb[1], k->nb[2],
                             ggml_row_size(k->type, hp.n_embd_head_k - hp.n_rot));
        }
        ggml_tensor * tmp = ggml_cpy(ctx0, k, ggml_new_tensor_3d(ctx0, GGML_TYPE_F32, k->ne[0], k->ne[1], k->ne[2]));
        tmp               = g.build_rope(tmp, shift, model.rope_factors(cparams.n_ctx, (int) il), (int) il);
        ggml_build_forward_expand(gres->gf, ggml_cpy(ctx0, tmp, k));
    }
    if (!ggml_graph_is_ok(gres->gf)) {
        err = "failed to build the K-shift graph";
        return false;
    }
    ggml_backend_sched_reset(sched);
    if (!ggml_backend_sched_alloc_graph(sched, gres->gf)) {
        err = "cannot allocate the K-shift graph";
        return false;
    }
    for (int c = 0; c < 2 && caches[c]; c++) {
        std::vector<int32_t> deltas(caches[c]->size());
        caches[c]->take_shifts(deltas.data());
        if (shifts[c]->buffer) {  // an input no layer uses is not allocated
            ggml_backend_tensor_set(shifts[c], deltas.data(), 0, deltas.size() * sizeof(int32_t));
        }
    }
    set_threads_for(2);
    const ggml_status st = ggml_backend_sched_graph_compute(sched, gres->gf);
    ggml_backend_sched_reset(sched);
    gres->valid = false;
    if (st != GGML_STATUS_SUCCESS) {
        err = llama_format("K-shift compute failed: %s", ggml_status_to_string(st));
        return false;
    }
    return true;
}

// ---- decode ------------------------------------------------------------------------------------

int32_t llama_context::decode(const llama_batch & batch, std::string & err) {
    sampled.clear();
    if (model.is_encoder()) {
        return encode(batch, err);  // as llama.cpp does for models without a decoder
    }
    const int32_t rc = run(batch, err);
    if (rc == 0) {
        sample_outputs(batch);
    }
    return rc;
}

int32_t llama_context::run(const llama_batch & batch, std::string & err) {
    const int64_t t0      = cparams.no_perf ? 0 : llama_time_us();
    const int32_t n_vocab = (int32_t) model.hparams.n_vocab;
    const int32_t n_embd  = (int32_t) model.hparams.n_embd;        // of an input embedding row
    const int32_t n_out_w = (int32_t) model.hparams.n_embd_out();  // of an output embedding row

    if (batch.n_tokens <= 0) {
        err = llama_format("n_tokens = %d: a batch needs at least one token", batch.n_tokens);
        return -1;
    }
    if ((uint32_t) batch.n_tokens > cparams.n_batch) {
        err = llama_format("n_tokens = %d exceeds n_batch = %u", batch.n_tokens, cparams.n_batch);
        return -1;
    }
    sync_adapters();  // an adapter freed since the last decode must not reach the graph
    // a model without an LM head only has embeddings to give
    const bool want_embd = cparams.embeddings || model.is_encoder();
    const bool has_head  = model.output != nullptr;
    pooling.clear();
    if (!balloc.init(batch, n_vocab, n_embd, cparams.n_seq_max, memory(), want_embd, err, cparams.mtp)) {
        return -1;
    }
    if (rs) {
        // a state is computed for one sequence: a token cannot extend several at once here
        for (int32_t i = 0; i < batch.n_tokens; i++) {
            if (batch.n_seq_id && batch.seq_id && batch.n_seq_id[i] > 1) {
                err = llama_format(
                    "token %d belongs to %d sequences; a recurrent model takes one sequence per token "
                    "(copy a state with llama_memory_seq_cp instead)",
                    i, batch.n_seq_id[i]);
                return -1;
            }
        }
    }
    if (kv && kv->has_shift() && !apply_k_shift(err)) {
        return -3;
    }

    const std::vector<llama_ubatch> ubatches =
        rs ? balloc.split_equal(cparams.n_ubatch) : balloc.split(cparams.n_ubatch);
    std::vector<llama_kv_slot> slots(kv ? 0 : ubatches.size());
    if (kv && !kv->prepare(ubatches, slots)) {
        err = llama_format("no KV cache slot for %d tokens (%u of %u cells used); the cache is unchanged",
                           batch.n_tokens, kv->n_used(), kv->size());
        return 1;
    }

    // outputs of this decode replace the previous ones
    n_outputs  = (int32_t) balloc.n_outputs();
    output_ids = balloc.output_ids();
    logits.resize(has_head ? (size_t) n_outputs * n_vocab : 0);
    if (want_embd) {
        embd.resize((size_t) n_outputs * n_out_w);
    } else {
        embd.clear();
    }
    const bool want_hidden = keep_hidden || cparams.mtp;
    hidden.reset(!want_hidden   ? 0
                 : hidden_all() ? (size_t) batch.n_tokens
                                : (size_t) n_outputs,
                 model.hparams.n_embd, (size_t) batch.n_tokens);

    set_threads_for(batch.n_tokens == 1 ? 1 : 2);
    if (rs_rows) {
        rs->rows_clear();  // only this decode's rows are a sequence's recent past
    }
    int32_t n_out_done = 0;
    for (size_t u = 0; u < ubatches.size(); u++) {
        const llama_ubatch & ub = ubatches[u];
        if (kv) {
            kv->apply(ub, slots[u]);
        }
        if (rs) {
            rs->apply(ub);
        }

        const llm_graph_params p = graph_params(ub, slots[u]);
        if (gres->valid && gres->params == p) {
            n_reused++;
        } else {
            ggml_backend_sched_reset(sched);
            try {
                build_graph(p);
            } catch (const std::exception & e) {
                err = e.what();
                return -3;
            }
            if (!ggml_backend_sched_alloc_graph(sched, gres->gf)) {
                err = "cannot allocate the compute graph";
                return -3;
            }
            gres->valid = true;
        }
        gres->set_inputs(ub, slots[u], kv.get(), n_embd, model.hparams);

        const ggml_status st = ggml_backend_sched_graph_compute(sched, gres->gf);
        if (st != GGML_STATUS_SUCCESS && kv) {
            kv->release(slots[u]);  // this ubatch's K/V were not (fully) written
        }
        if (st != GGML_STATUS_SUCCESS && rs) {
            rs->release(ub);  // its sequences' states may be half-updated: emptied (see llama_decode)
        }
        if (st == GGML_STATUS_ABORTED) {
            err       = "decode aborted by the abort callback";
            n_outputs = n_out_done;
            for (int32_t & id : output_ids) {
                id = id >= n_out_done ? -1 : id;  // rows never computed
            }
            hidden.finish();  // the rows of the ubatches computed before
            return 2;
        }
        if (st != GGML_STATUS_SUCCESS) {
            gres->valid = false;
            err         = llama_format("graph compute failed: %s", ggml_status_to_string(st));
            return -3;
        }
        if (p.rs_rows) {
            rs->rows_collect(ub, gres->t_rs_rows, gres->t_rs_replay);
        }
        if (ub.n_outputs > 0) {
            if (has_head && gres->t_logits) {
                ggml_backend_tensor_get(gres->t_logits, logits.data() + (size_t) n_out_done * n_vocab, 0,
                                        (size_t) ub.n_outputs * n_vocab * sizeof(float));
            }
            if (want_embd && gres->t_embd) {
                ggml_backend_tensor_get(gres->t_embd, embd.data() + (size_t) n_out_done * n_out_w, 0,
                                        (size_t) ub.n_outputs * n_out_w * sizeof(float));
            }
        }
        if (want_hidden) {
            keep_hidden_rows(ub, n_out_done);
        }
        n_out_done += (int32_t) ub.n_outputs;
    }
    hidden.finish();
    if (want_embd && cparams.pooling_type != LLAMA_POOLING_TYPE_NONE) {
        try {
            pooling.pool(model, cparams.pooling_type, ubatches, embd.data(), n_out_w);
        } catch (const std::exception & e) {
            err = e.what();
            return -3;
        }
    }

    if (!cparams.no_perf) {
        const int64_t dt = llama_time_us() - t0;
        if (batch.n_tokens == 1) {
            t_eval_us += dt;
            n_eval++;
        } else {
            t_p_eval_us += dt;
            n_p_eval += batch.n_tokens;
        }
    }
    return 0;
}

int32_t llama_context::encode(const llama_batch & batch, std::string & err) {
    if (!model.is_encoder()) {
        err = "the model has no encoder (a decoder-only model: use llama_decode)";
        return -1;
    }
    if (batch.n_tokens > 0 && (uint32_t) batch.n_tokens > cparams.n_ubatch) {
        // every token must see its whole sequence, so the batch is computed in one piece
        err = llama_format("n_tokens = %d exceeds n_ubatch = %u (an encoder sees the batch at once)", batch.n_tokens,
                           cparams.n_ubatch);
        return -1;
    }
    if (model.pos_embd && batch.n_tokens > 0) {
        const int64_t n_pos = model.pos_embd->ne[1];
        for (int32_t i = 0; i < batch.n_tokens; i++) {
            const int64_t p = batch.pos ? batch.pos[i] : i;
            if (p < 0 || p >= n_pos) {
                err = llama_format("position %lld of token %d is outside the model's %lld positions", (long long) p, i,
                                   (long long) n_pos);
                return -1;
            }
        }
    }
    // the cache only holds this batch: sequences do not continue across calls
    memory()->clear(false);
    return run(batch, err);
}

// ---- outputs -----------------------------------------------------------------------------------

static int32_t output_row(int32_t i, int32_t n_outputs, const std::vector<int32_t> & output_ids, std::string & err) {
    if (n_outputs == 0) {
        err = "the last decode produced no outputs";
        return -1;
    }
    if (i < 0) {
        const int32_t j = n_outputs + i;
        if (j < 0) {
            err = llama_format("invalid output index %d (%d outputs)", i, n_outputs);
            return -1;
        }
        return j;
    }
    if ((size_t) i >= output_ids.size()) {
        err = llama_format("invalid batch index %d (the last batch had %zu tokens)", i, output_ids.size());
        return -1;
    }
    if (output_ids[i] < 0) {
        err = llama_format("batch token %d did not request logits (set batch.logits[%d])", i, i);
        return -1;
    }
    return output_ids[i];
}

void llama_context::reserve_outputs(uint32_t n) {
    const size_t want = (size_t) n * (size_t) model.hparams.n_vocab;
    if (model.output == nullptr || logits.capacity() >= want) {
        return;
    }
    const size_t held = logits.size();
    logits.resize(want);
    logits.resize(held);
}

float * llama_context::logits_ith(int32_t i, std::string & err) {
    if (logits.empty() && n_outputs > 0) {
        err = "the model has no LM head (an encoder): use the embeddings";
        return nullptr;
    }
    const int32_t j = output_row(i, n_outputs, output_ids, err);
    return j < 0 ? nullptr : logits.data() + (size_t) j * model.hparams.n_vocab;
}

float * llama_context::embd_ith(int32_t i, std::string & err) {
    if (embd.empty()) {
        err = "embeddings are not enabled (llama_set_embeddings)";
        return nullptr;
    }
    const int32_t j = output_row(i, n_outputs, output_ids, err);
    return j < 0 ? nullptr : embd.data() + (size_t) j * model.hparams.n_embd_out();
}

bool llama_context::hidden_all() const {
    return keep_hidden && !cparams.mtp && model.ops->build_mtp_graph != nullptr;
}

void llama_context::keep_hidden_rows(const llama_ubatch & ub, int32_t n_out_done) {
    const size_t w = model.hparams.n_embd;
    if (gres->t_hidden) {
        // every token's row; ubatches are consecutive slices of the batch, so row = batch index
        ggml_backend_tensor_get(gres->t_hidden, hidden.row(ub.i_begin), 0, (size_t) ub.n_tokens * w * sizeof(float));
        for (uint32_t i = 0; i < ub.n_tokens; i++) {
            hidden.set_token(ub.i_begin + i, ub, i);
        }
        return;
    }
    // the outputs' rows (t_embd), unless a dense projection replaced the final norm's
    if (ub.n_outputs == 0 || !gres->t_embd || gres->t_embd->ne[0] != (int64_t) w) {
        return;
    }
    ggml_backend_tensor_get(gres->t_embd, hidden.row((size_t) n_out_done), 0,
                            (size_t) ub.n_outputs * w * sizeof(float));
    for (uint32_t i = 0, k = 0; i < ub.n_tokens; i++) {
        if (ub.output[i]) {
            hidden.set_token((size_t) n_out_done + k++, ub, i);
        }
    }
}

const float * llama_context::hidden_ith(int32_t i, std::string & err) const {
    if (hidden.empty()) {
        err = "no hidden rows kept (set_keep_hidden, or an MTP context)";
        return nullptr;
    }
    const float * h = hidden.at_batch_index(i);
    if (!h) {
        err = llama_format("batch index %d has no hidden row (%zu rows kept)", i, hidden.n_rows());
    }
    return h;
}

void llama_context::set_n_threads(int32_t n_threads, int32_t n_threads_batch) {
    cparams.n_threads       = std::max(1, n_threads);
    cparams.n_threads_batch = std::max(1, n_threads_batch);
}

void llama_context::set_abort_callback(ggml_abort_callback cb, void * data) {
    abort_cb      = cb;
    abort_cb_data = data;
    ggml_backend_sched_set_abort_callback(sched, cb, data);
}

llama_perf_context_data llama_context::perf() const {
    llama_perf_context_data d = {};
    d.t_start_ms              = t_start_us / 1000.0;
    d.t_load_ms               = model.t_load_us / 1000.0;
    d.t_p_eval_ms             = t_p_eval_us / 1000.0;
    d.t_eval_ms               = t_eval_us / 1000.0;
    d.n_p_eval                = std::max(0, n_p_eval);
    d.n_eval                  = std::max(0, n_eval);
    d.n_reused                = std::max(0, n_reused);
    return d;
}

void llama_context::perf_reset() {
    t_start_us  = llama_time_us();
    t_p_eval_us = t_eval_us = 0;
    n_p_eval = n_eval = n_reused = 0;
}

// ---- C API: context ----------------------------------------------------------------------------

struct llama_context * llama_init_from_model(struct llama_model * model, struct llama_context_params params) {
    return llama_api_guard(__func__, (llama_context *) nullptr, [&]() -> llama_context * {
        if (!model) {
            throw llama_error("model is NULL");
        }
        return new llama_context(*model, params);
    });
}

void llama_free(struct llama_context * ctx) {
    delete ctx;
}

uint32_t llama_n_ctx(const struct llama_context * ctx) {
    return ctx ? ctx->cparams.n_ctx : 0;
}
uint32_t llama_n_batch(const struct llama_context * ctx) {
    return ctx ? ctx->cparams.n_batch : 0;
}
uint32_t llama_n_ubatch(const struct llama_context * ctx) {
    return ctx ? ctx->cparams.n_ubatch : 0;
}
uint32_t llama_n_seq_max(const struct llama_context * ctx) {
    return ctx ? ctx->cparams.n_seq_max : 0;
}

const struct llama_model * llama_get_model(const struct llama_context * ctx) {
    return ctx ? &ctx->model : nullptr;
}

enum llama_pooling_type llama_pooling_type(const struct llama_context * ctx) {
    return ctx ? ctx->cparams.pooling_type : LLAMA_POOLING_TYPE_UNSPECIFIED;
}

llama_memory_t llama_get_memory(const struct llama_context * ctx) {
    return ctx ? ctx->memory() : nullptr;
}

void llama_set_n_threads(struct llama_context * ctx, int32_t n_threads, int32_t n_threads_batch) {
    if (ctx) {
        ctx->set_n_threads(n_threads, n_threads_batch);
    }
}
int32_t llama_n_threads(struct llama_context * ctx) {
    return ctx ? ctx->cparams.n_threads : 0;
}
int32_t llama_n_threads_batch(struct llama_context * ctx) {
    return ctx ? ctx->cparams.n_threads_batch : 0;
}

void llama_set_embeddings(struct llama_context * ctx, bool embeddings) {
    if (ctx) {
        ctx->cparams.embeddings = embeddings;
    }
}
void llama_set_causal_attn(struct llama_context * ctx, bool causal_attn) {
    if (ctx) {
        ctx->cparams.causal_attn = causal_attn;
    }
}
void llama_set_warmup(struct llama_context * ctx, bool warmup) {
    if (ctx) {
        ctx->cparams.warmup = warmup;
    }
}

void llama_set_abort_callback(struct llama_context * ctx, ggml_abort_callback cb, void * data) {
    if (ctx) {
        ctx->set_abort_callback(cb, data);
    }
}

void llama_attach_threadpool(struct llama_context * ctx, ggml_threadpool_t threadpool,
                             ggml_threadpool_t threadpool_batch) {
    if (ctx) {
        ctx->attach_threadpool(threadpool, threadpool_batch);
    }
}

void llama_detach_threadpool(struct llama_context * ctx) {
    if (ctx) {
        ctx->detach_threadpool();
    }
}

void llama_synchronize(struct llama_context * ctx) {
    (void) ctx;  // decode is synchronous
}

int32_t llama_encode(struct llama_context * ctx, struct llama_batch batch) {
    return llama_api_guard(__func__, (int32_t) -3, [&]() -> int32_t {
        if (!ctx) {
            throw llama_error("ctx is NULL");
        }
        std::string   err;
        const int32_t rc = ctx->encode(batch, err);
        if (rc != 0) {
            llama_set_last_error(llama_format("llama_encode: %s", err.c_str()));
            LLAMA_LOG_ERROR("llama_encode: %s\n", err.c_str());
        }
        return rc;
    });
}

int32_t llama_decode(struct llama_context * ctx, struct llama_batch batch) {
    return llama_api_guard(__func__, (int32_t) -3, [&]() -> int32_t {
        if (!ctx) {
            throw llama_error("ctx is NULL");
        }
        std::string   err;
        const int32_t rc = ctx->decode(batch, err);
        if (rc != 0) {
            llama_set_last_error(llama_format("llama_decode: %s", err.c_str()));
            if (rc == 1 || rc == 2) {
                LLAMA_LOG_WARN("llama_decode: %s\n", err.c_str());
            } else {
                LLAMA_LOG_ERROR("llama_decode: %s\n", err.c_str());
            }
        }
        return rc;
    });
}

float * llama_get_logits(struct llama_context * ctx) {
    return ctx ? ctx->logits_all() : nullptr;
}

float * llama_get_logits_ith(struct llama_context * ctx, int32_t i) {
    return llama_api_guard(__func__, (float *) nullptr, [&]() -> float * {
        if (!ctx) {
            throw llama_error("ctx is NULL");
        }
        std::string err;
        float *     row = ctx->logits_ith(i, err);
        if (!row) {
            throw llama_error(err);
        }
        return row;
    });
}

float * llama_get_embeddings(struct llama_context * ctx) {
    return ctx ? ctx->embd_all() : nullptr;
}

float * llama_get_embeddings_ith(struct llama_context * ctx, int32_t i) {
    return llama_api_guard(__func__, (float *) nullptr, [&]() -> float * {
        if (!ctx) {
            throw llama_error("ctx is NULL");
        }
        std::string err;
        float *     row = ctx->embd_ith(i, err);
        if (!row) {
            throw llama_error(err);
        }
        return row;
    });
}

float * llama_get_embeddings_seq(struct llama_context * ctx, llama_seq_id seq_id) {
    return ctx ? ctx->embd_seq(seq_id) : nullptr;
}

// ---- C API: memory -----------------------------------------------------------------------------

void llama_memory_clear(llama_memory_t mem, bool data) {
    if (mem) {
        mem->clear(data);
    }
}
bool llama_memory_seq_rm(llama_memory_t mem, llama_seq_id seq_id, llama_pos p0, llama_pos p1) {
    return mem ? mem->seq_rm(seq_id, p0, p1) : false;
}
void llama_memory_seq_cp(llama_memory_t mem, llama_seq_id src, llama_seq_id dst, llama_pos p0, llama_pos p1) {
    if (mem) {
        mem->seq_cp(src, dst, p0, p1);
    }
}
void llama_memory_seq_keep(llama_memory_t mem, llama_seq_id seq_id) {
    if (mem) {
        mem->seq_keep(seq_id);
    }
}
void llama_memory_seq_add(llama_memory_t mem, llama_seq_id seq_id, llama_pos p0, llama_pos p1, llama_pos delta) {
    if (mem) {
        mem->seq_add(seq_id, p0, p1, delta);
    }
}
void llama_memory_seq_div(llama_memory_t mem, llama_seq_id seq_id, llama_pos p0, llama_pos p1, int d) {
    if (mem) {
        mem->seq_div(seq_id, p0, p1, d);
    }
}
llama_pos llama_memory_seq_pos_min(llama_memory_t mem, llama_seq_id seq_id) {
    return mem ? mem->seq_pos_min(seq_id) : -1;
}
llama_pos llama_memory_seq_pos_max(llama_memory_t mem, llama_seq_id seq_id) {
    return mem ? mem->seq_pos_max(seq_id) : -1;
}
bool llama_memory_can_shift(llama_memory_t mem) {
    return mem ? mem->can_shift() : false;
}

// ---- C API: perf -------------------------------------------------------------------------------

struct llama_perf_context_data llama_perf_context(const struct llama_context * ctx) {
    return ctx ? ctx->perf() : llama_perf_context_data{};
}

void llama_perf_context_print(const struct llama_context * ctx) {
    if (!ctx) {
        return;
    }
    const llama_perf_context_data d = ctx->perf();
    LLAMA_LOG_INFO("%s:        load time = %10.2f ms\n", __func__, d.t_load_ms);
    LLAMA_LOG_INFO("%s: prompt eval time = %10.2f ms / %5d tokens (%8.2f ms per token, %8.2f tokens per second)\n",
                   __func__, d.t_p_eval_ms, d.n_p_eval, d.t_p_eval_ms / std::max(1, d.n_p_eval),
                   1e3 / d.t_p_eval_ms * d.n_p_eval);
    LLAMA_LOG_INFO("%s:        eval time = %10.2f ms / %5d runs   (%8.2f ms per token, %8.2f tokens per second)\n",
                   __func__, d.t_eval_ms, d.n_eval, d.t_eval_ms / std::max(1, d.n_eval), 1e3 / d.t_eval_ms * d.n_eval);
    LLAMA_LOG_INFO("%s:       total time = %10.2f ms / %5d tokens\n", __func__,
                   (llama_time_us() / 1000.0 - d.t_start_ms), d.n_p_eval + d.n_eval);
    LLAMA_LOG_INFO("%s:    graphs reused = %10d\n", __func__, d.n_reused);
}

void llama_perf_context_reset(struct llama_context * ctx) {
    if (ctx) {
        ctx->perf_reset();
    }
}
