// DeepSeek-V2 / V3 (and Kimi K2, which is this architecture with its own tokenizer): multi-head latent
// attention (MLA), leading dense layers, then routed experts (softmax or sigmoid scores, an optional
// selection bias, expert groups) plus shared experts.
//
// MLA in the absorbed form upstream runs files with split attn_k_b / attn_v_b in: a token's keys and
// values for all heads come from one compressed latent c = norm(W_kv_a x)[:kv_lora_rank] and a shared
// rotated part k_pe. Since head h's key nope part is W_k_b[h] c, q_nope . k_nope = (W_k_b[h]^T q_nope) . c:
// the query is absorbed through W_k_b and attends over the cached [c | k_pe] as one KV head (key length
// kv_lora_rank + n_rot); the value is c itself and the head's output is expanded by W_v_b[h] afterwards.
// The cache stores [c | k_pe] once and reads V as a view of each K row's first kv_lora_rank values
// (hparams.v_in_k): (kv_lora_rank + n_rot) values per token and layer.
// Older files with a fused attn_kv_b (no attention.key_length_mla) run as upstream runs them: keys and
// values decompressed per head, plain multi-head attention over a full cache.
#include <cmath>

#include "decoder.h"
#include "llama-log.h"
#include "llama-model-loader.h"
#include "models.h"

void llm_load_expert_routing(llama_model_loader & ml, llama_hparams & hp, uint32_t gating, const char * arch) {
    if (gating != 1 && gating != 2) {
        throw llama_error(llama_format("%s: expert_gating_func %u is not softmax (1) or sigmoid (2)", arch, gating));
    }
    hp.expert_gating_sigmoid = gating == 2;
    // upstream reads the groups for every architecture (kimi-linear's converter writes none: its config
    // calls them num_expert_group)
    ml.get_key(LLM_KV_EXPERT_GROUP_COUNT, hp.n_expert_groups, false);
    ml.get_key(LLM_KV_EXPERT_GROUP_USED_COUNT, hp.n_group_used, false);
    if (hp.n_expert_groups > 1 && (hp.n_expert % hp.n_expert_groups != 0 || hp.n_expert / hp.n_expert_groups < 2 ||
                                   hp.n_group_used == 0 || hp.n_group_used >= hp.n_expert_groups ||
                                   hp.n_expert_used > hp.n_group_used * (hp.n_expert / hp.n_expert_groups))) {
        throw llama_error(llama_format("%s: invalid expert groups (%u experts, %u groups, %u used, %u per token)", arch,
                                       hp.n_expert, hp.n_expert_groups, hp.n_group_used, hp.n_expert_used));
    }
}

static void deepseek2_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_RMS_EPS, hp.f_norm_rms_eps);
    ml.get_key(LLM_KV_LEADING_DENSE_BLOCK_COUNT, hp.n_layer_dense_lead, false);
    ml.get_key(LLM_KV_ATTENTION_Q_LORA_RANK, hp.n_lora_q, false);  // absent: one attn_q (V2-Lite)
    ml.get_key(LLM_KV_ATTENTION_KV_LORA_RANK, hp.n_lora_kv);
    // files with split attn_k_b / attn_v_b state the per-head sizes before absorption; older ones
    // (one attn_kv_b) do not, and their key/value lengths are those sizes (upstream's is_mla())
    hp.mla_absorbed = ml.get_key(LLM_KV_ATTENTION_KEY_LENGTH_MLA, hp.n_embd_head_k_mla, false) &&
                      ml.get_key(LLM_KV_ATTENTION_VALUE_LENGTH_MLA, hp.n_embd_head_v_mla, false) &&
                      hp.n_embd_head_k_mla != 0 && hp.n_embd_head_v_mla != 0;
    if (!hp.mla_absorbed) {
        hp.n_embd_head_k_mla = hp.n_embd_head_k;
        hp.n_embd_head_v_mla = hp.n_embd_head_v;
    }
    // the cache layout: one head of latent + rope (absorbed), or n_head full heads (decompressed)
    const bool cache_ok = hp.mla_absorbed ? hp.n_head_kv == 1 && hp.n_embd_head_k == hp.n_lora_kv + hp.n_rot &&
                                                hp.n_embd_head_v == hp.n_lora_kv
                                          : hp.n_head_kv == hp.n_head;
    if (hp.n_lora_kv == 0 || !cache_ok || hp.n_embd_head_k_mla <= hp.n_rot || hp.n_embd_head_v_mla == 0 ||
        hp.n_lora_kv > (1u << 16) || hp.n_lora_q > (1u << 16) || hp.n_embd_head_k_mla > (1u << 16) ||
        hp.n_embd_head_v_mla > (1u << 16)) {
        throw llama_error(llama_format(
            "deepseek2: inconsistent latent attention shape (kv_lora_rank %u, head_count_kv %u, key_length %u, "
            "value_length %u, rope %u, key_length_mla %u, value_length_mla %u)",
            hp.n_lora_kv, hp.n_head_kv, hp.n_embd_head_k, hp.n_embd_head_v, hp.n_rot, hp.n_embd_head_k_mla,
            hp.n_embd_head_v_mla));
    }
    // absorbed: the value c is the first n_lora_kv values of the cached key [c | k_pe]
    hp.v_in_k = hp.mla_absorbed;

    uint32_t n_shared = 0;
    ml.get_key(LLM_KV_EXPERT_FEED_FORWARD_LENGTH, hp.n_ff_exp);
    ml.get_key(LLM_KV_EXPERT_SHARED_COUNT, n_shared);
    if (hp.n_expert == 0 || n_shared > 64) {
        throw llama_error(
            llama_format("deepseek2: needs experts (expert_count %u, expert_shared_count %u)", hp.n_expert, n_shared));
    }
    hp.n_ff_shexp = hp.n_ff_exp * n_shared;  // the shared experts as one SwiGLU
    ml.get_key(LLM_KV_EXPERT_WEIGHTS_SCALE, hp.expert_weights_scale, false);
    ml.get_key(LLM_KV_EXPERT_WEIGHTS_NORM, hp.expert_weights_norm, false);
    uint32_t gating = 0;
    ml.get_key(LLM_KV_EXPERT_GATING_FUNC, gating, false);
    if (gating == 0) {
        // files without the key: V2 / V2.5 (softmax), except GLM-4.7-Lite's (as upstream recognises it)
        const bool glm47_lite = (hp.n_layer == 47 || hp.n_layer == 48) && hp.n_vocab == 154880;
        gating                = glm47_lite ? 2 : 1;
    }
    llm_load_expert_routing(ml, hp, gating, "deepseek2");
    // the file's last nextn_predict_layers blocks are NextN blocks (GLM-4.7-Flash has one): skipped
    // unless the model is loaded with load_mtp; n_layer counts the decoder's blocks (after the check
    // above, which upstream makes on either count)
    ml.get_key(LLM_KV_NEXTN_PREDICT_LAYERS, hp.n_layer_nextn, false);
    if (hp.n_layer_nextn >= hp.n_layer) {
        throw llama_error(llama_format("deepseek2: nextn_predict_layers %u leaves no decoder block (block_count %u)",
                                       hp.n_layer_nextn, hp.n_layer));
    }
    hp.n_layer -= hp.n_layer_nextn;
    if (hp.n_layer_dense_lead > hp.n_layer) {
        throw llama_error("deepseek2: leading_dense_block_count exceeds the block count");
    }
    // the converter stores 0.1 * mscale_all_dim; upstream reads it back as mscale_all_dim, which also
    // becomes YaRN's mscale (see yarn_mscale_all_dim)
    float log_mul = 0.0f;
    if (ml.get_key(LLM_KV_ROPE_SCALING_YARN_LOG_MUL, log_mul, false)) {
        hp.rope_yarn_log_mul = log_mul / 0.1f;
    }
    hp.yarn_mscale_all_dim = true;

    // the attention temperature of Mistral-Large 3 (optional)
    ml.get_key(LLM_KV_ATTENTION_TEMPERATURE_SCALE, hp.f_attn_temp_scale, false);
    ml.get_key(LLM_KV_ATTENTION_TEMPERATURE_LENGTH, hp.n_attn_temp_floor_scale, false);
    hp.f_attn_temp_offset = 0.0f;
    if (hp.f_attn_temp_scale != 0.0f && hp.n_attn_temp_floor_scale == 0) {
        throw llama_error("deepseek2: attention.temperature_scale needs attention.temperature_length");
    }
    hp.rope_type = LLAMA_ROPE_TYPE_NORM;
}

// Latent attention of layer il on cur [n_embd, n_tokens] (after attn_norm), output projection included.
ggml_tensor * llm_build_mla(llm_graph_context & g, const llama_layer & l, ggml_tensor * cur, ggml_tensor * inp_pos,
                            ggml_tensor * inp_attn_scale, float kq_scale, int il) {
    const llama_hparams & hp       = g.hparams;
    ggml_context *        ctx0     = g.ctx0;
    const int64_t         n_tokens = cur->ne[1];
    const int64_t         n_head   = hp.n_head;
    const int64_t         d_k      = hp.n_embd_head_k_mla;  // per head: nope + rope
    const int64_t         d_rope   = hp.n_rot;
    const int64_t         d_nope   = d_k - d_rope;
    const int64_t         r_kv     = hp.n_lora_kv;

    ggml_tensor * q;
    if (l.wq_a) {
        q = g.build_lora_mm(l.wq_a, cur);
        q = g.build_norm(q, l.attn_q_a_norm, nullptr, LLM_NORM_RMS, il);
        g.cb(q, "q_a_norm", il);
        q = g.build_lora_mm(l.wq_b, q);
    } else {
        q = g.build_lora_mm(l.wq, cur);
    }
    g.cb(q, "q", il);  // [n_head * d_k, n_tokens]
    const size_t  es     = ggml_element_size(q);
    ggml_tensor * q_nope = ggml_view_3d(ctx0, q, d_nope, n_head, n_tokens, es * d_k, es * d_k * n_head, 0);
    ggml_tensor * q_pe   = ggml_view_3d(ctx0, q, d_rope, n_head, n_tokens, es * d_k, es * d_k * n_head, es * d_nope);

    ggml_tensor * kv_pe = g.build_lora_mm(l.wkv_a_mqa, cur);  // [r_kv + d_rope, n_tokens]
    g.cb(kv_pe, "kv_cmpr_pe", il);
    const size_t  ekv  = ggml_element_size(kv_pe);
    ggml_tensor * c_kv = ggml_view_2d(ctx0, kv_pe, r_kv, n_tokens, ekv * (r_kv + d_rope), 0);
    ggml_tensor * k_pe =
        ggml_view_3d(ctx0, kv_pe, d_rope, 1, n_tokens, ekv * (r_kv + d_rope), ekv * (r_kv + d_rope), ekv * r_kv);

    if (inp_pos) {  // kimi-linear's latent attention has no positions at all
        q_pe = g.build_rope(q_pe, inp_pos, nullptr, il);
        g.cb(q_pe, "q_pe", il);
        k_pe = g.build_rope(k_pe, inp_pos, nullptr, il);
        g.cb(k_pe, "k_pe", il);
    } else {
        q_pe = ggml_cont(ctx0, q_pe);
        k_pe = ggml_cont(ctx0, k_pe);
    }
    c_kv = g.build_norm(c_kv, l.attn_kv_a_norm, nullptr, LLM_NORM_RMS, il);
    g.cb(c_kv, "kv_cmpr", il);

    if (!l.wk_b) {
        // an older file's fused attn_kv_b: each head's key (nope part) and value decompressed from
        // the latent, the shared rope part repeated over the heads; plain multi-head attention
        const int64_t d_v = hp.n_embd_head_v_mla;
        ggml_tensor * kv  = g.build_lora_mm(l.wkv_b, c_kv);  // [n_head * (d_nope + d_v), n_tokens]
        const size_t  e   = ggml_element_size(kv);
        ggml_tensor * k_no =
            ggml_view_3d(ctx0, kv, d_nope, n_head, n_tokens, e * (d_nope + d_v), e * (d_nope + d_v) * n_head, 0);
        ggml_tensor * v = ggml_cont(ctx0, ggml_view_3d(ctx0, kv, d_v, n_head, n_tokens, e * (d_nope + d_v),
                                                       e * (d_nope + d_v) * n_head, e * d_nope));
        ggml_tensor * Q = ggml_concat(ctx0, q_nope, q_pe, 0);
        // k_pe broadcast over the heads (0 q_pe + k_pe: the core has no repeat op; q_pe is finite)
        ggml_tensor * k_pe_h = ggml_add(ctx0, ggml_scale(ctx0, q_pe, 0.0f), k_pe);
        ggml_tensor * K      = ggml_concat(ctx0, k_no, k_pe_h, 0);
        g.cb(Q, "Qcur", il);
        g.cb(K, "Kcur", il);
        if (inp_attn_scale) {
            Q = ggml_mul(ctx0, Q, inp_attn_scale);
        }
        return g.build_attn(l.wo, nullptr, Q, K, ggml_reshape_2d(ctx0, v, d_v * n_head, n_tokens), kq_scale, il);
    }
    // the absorbed query: per head, W_k_b^T q_nope [r_kv], then the rotated part
    ggml_tensor * q_abs = ggml_mul_mat(ctx0, l.wk_b, ggml_cont(ctx0, ggml_permute(ctx0, q_nope, 0, 2, 1, 3)));
    g.cb(q_abs, "q_nope_absorbed", il);
    q_abs           = ggml_permute(ctx0, q_abs, 0, 2, 1, 3);  // [r_kv, n_head, n_tokens]
    ggml_tensor * Q = ggml_concat(ctx0, q_abs, q_pe, 0);      // [r_kv + d_rope, n_head, n_tokens]
    g.cb(Q, "Qcur", il);
    c_kv            = ggml_reshape_3d(ctx0, c_kv, r_kv, 1, n_tokens);
    ggml_tensor * K = ggml_concat(ctx0, c_kv, k_pe, 0);  // [r_kv + d_rope, 1, n_tokens]
    g.cb(K, "Kcur", il);
    ggml_tensor * V = ggml_reshape_2d(ctx0, c_kv, r_kv, n_tokens);
    if (inp_attn_scale) {
        Q = ggml_mul(ctx0, Q, inp_attn_scale);
        g.cb(Q, "Qcur_attn_temp_scaled", il);
    }
    return g.build_attn(l.wo, nullptr, Q, K, V, kq_scale, il, nullptr, l.wv_b);
}

// YaRN: the rope op's attention factor was set so that the rotated q/k carry no magnitude correction;
// the KQ scale takes mscale^2 instead (1 + 0.1 mscale_all_dim ln(1 / freq_scale)), on the context's
// attention factor with the rope op's own 1 + 0.1 ln(1 / freq_scale) taken back out.
static float deepseek2_kq_scale(const llm_graph_context & g) {
    const llama_hparams & hp          = g.hparams;
    const llama_cparams & cp          = g.cparams;
    const float           ln_s        = logf(1.0f / cp.rope_freq_scale);
    const float           attn_factor = cp.yarn_attn_factor * (1.0f + 0.1f * ln_s);
    const float           mscale      = attn_factor * (1.0f + 0.1f * hp.rope_yarn_log_mul * ln_s);
    return mscale * mscale / sqrtf((float) hp.n_embd_head_k_mla);
}

static llm_decoder_desc deepseek2_moe_desc() {
    llm_decoder_desc moe;
    moe.moe_norm_w = false;  // expert_weights_norm decides (hparams)
    return moe;
}

static void deepseek2_build_graph(llm_graph_context & g) {
    const llama_model &    model    = g.model;
    const llama_hparams &  hp       = g.hparams;
    const llm_decoder_desc moe      = deepseek2_moe_desc();
    const float            kq_scale = deepseek2_kq_scale(g);

    ggml_tensor * inpL = g.build_inp_embd(model.tok_embd);
    ggml_tensor * pos  = g.build_inp_pos();
    g.build_attn_inp();
    ggml_tensor * out_ids = g.build_inp_out_ids();
    // an MTP drafter's target (params.hidden_all) keeps every token's row: gathered after the final norm
    ggml_tensor * last_ids   = g.last_layer_out_ids(out_ids);
    ggml_tensor * attn_scale = hp.f_attn_temp_scale != 0.0f ? g.build_inp_attn_scale() : nullptr;

    for (int il = 0; il < (int) hp.n_layer; il++) {
        const llama_layer & l   = model.layers[il];
        ggml_tensor *       res = inpL;
        ggml_tensor *       cur = g.build_norm(inpL, l.attn_norm, nullptr, LLM_NORM_RMS, il);
        g.cb(cur, "attn_norm", il);
        cur  = llm_build_mla(g, l, cur, pos, attn_scale, kq_scale, il);
        cur  = llm_build_shexp_block_tail(g, l, cur, res, last_ids, moe, il);
        inpL = cur;
    }
    g.build_output(inpL, out_ids);
}

// The multi-token-prediction head over the NextN block model.layers[n_layer] (upstream's graph_mtp):
// x = eh_proj [enorm(embed(token)); hnorm(h)], the block's latent attention over the MTP context's own
// cache of [c | k_pe] rows, its routed and shared experts, then the shared head. As upstream, only the
// absorbed latent form and no attention temperature.
static void deepseek2_build_mtp_graph(llm_graph_context & g) {
    const llama_hparams & hp = g.hparams;
    const int             il = (int) hp.n_layer;  // the (first) NextN block, after the decoder's
    const llama_layer &   l  = g.model.layers[il];
    if (!hp.mla_absorbed || hp.f_attn_temp_scale != 0.0f || (uint32_t) il < hp.n_layer_dense_lead) {
        throw llama_error(
            "deepseek2: the MTP head needs the split latent attention (attn_k_b / attn_v_b), experts in its "
            "block and no attention temperature");
    }
    ggml_tensor * pos     = nullptr;
    ggml_tensor * out_ids = nullptr;
    ggml_tensor * x       = llm_build_nextn_input(g, l, il, pos, out_ids);

    ggml_tensor * cur = g.build_norm(x, l.attn_norm, nullptr, LLM_NORM_RMS, il);
    g.cb(cur, "attn_norm", il);
    cur = llm_build_mla(g, l, cur, pos, nullptr, deepseek2_kq_scale(g), il);
    if (out_ids) {
        cur = ggml_get_rows(g.ctx0, cur, out_ids);  // only the rows asked for
        x   = ggml_get_rows(g.ctx0, x, out_ids);
    }
    cur = llm_build_shexp_block_tail(g, l, cur, x, nullptr, deepseek2_moe_desc(), il);
    g.cb(cur, "mtp_out", il);
    llm_build_nextn_head(g, l, cur);
}

const llm_arch_ops llm_ops_deepseek2 = {
    LLM_ARCH_DEEPSEEK2, deepseek2_load_hparams, deepseek2_build_graph, false, deepseek2_build_mtp_graph,
};
