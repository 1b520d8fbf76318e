// Gemma 3n: gemma3's block (embeddings * sqrt(n_embd), RMS norms before and after attention and the
// feed-forward, per-head q/k norms, NEOX rope with a local base on the sliding-window layers, GeGLU),
// with what the "n" adds, as upstream llama.cpp (4df29be4) runs it:
// - AltUp: the hidden state is carried as n_altup copies [n_embd, n_tokens, n_altup]; the extra ones
//   start as projections of the embeddings (altup_proj, rescaled to the embeddings' magnitude). Per
//   layer a router (tanh of a projection of the normed active copy) gives the coefficients that
//   predict every copy from all of them; the active copy runs through the block and the difference
//   to its prediction (the innovation) corrects all copies. At the end the copies are projected back
//   (altup_unembd_proj, magnitude-matched) and averaged.
// - Per-layer inputs: each layer gets an n_embd_altup-wide input from its own token embedding table
//   (per_layer_token_embd) plus a projection of the embeddings, gated into the corrected copies.
// - LAuReL: a low-rank residual (laurel_l, laurel_r, post norm) beside attention.
// - Activation sparsity: in the first 10 layers the gate activations below mean + 1.645 std (the
//   95th percentile of a normal) are cut to zero before GELU.
// - KV sharing: layers from 20 on compute only queries and attend over the K/V of the last earlier
//   layer of their kind (hparams.kv_layer; the KV cache holds no cells for them).
// - V is RMS-normed per head without a weight; queries are not scaled (q/k norms do it); the final
//   logits are soft-capped at 30 (upstream's default; it reads no key for gemma3n).
// Upstream fixes the shape constants rather than reading the file's keys; so does this file.
#include <cmath>

#include "llama-graph.h"
#include "llama-log.h"
#include "llama-model-loader.h"
#include "models.h"

namespace {

constexpr uint32_t GEMMA3N_N_ALTUP          = 4;    // altup_num_inputs of every released model
constexpr uint32_t GEMMA3N_I_ALTUP_ACT      = 0;    // altup_active_idx
constexpr uint32_t GEMMA3N_N_EMBD_ALTUP     = 256;  // hidden_size_per_layer_input
constexpr uint32_t GEMMA3N_LAUREL_RANK      = 64;
constexpr int32_t  GEMMA3N_N_LAYER_KV       = 20;                   // layers with their own K/V
constexpr int      GEMMA3N_N_LAYER_SPARSITY = 10;                   // layers with activation sparsity
constexpr float    GEMMA3N_SPARSITY_STD_MUL = 1.6448533535003662f;  // the normal's quantile at 0.95
constexpr float    GEMMA3N_FINAL_LOGIT_CAP  = 30.0f;

void gemma3n_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_RMS_EPS, hp.f_norm_rms_eps);
    ml.get_key(LLM_KV_ATTENTION_SLIDING_WINDOW, hp.n_swa);
    // one flag per layer as the converter writes them, or a period (default 5: layers 4, 9, ... global)
    llm_gemma3_load_swa_hparams(ml, hp, 5);
    hp.n_altup               = GEMMA3N_N_ALTUP;
    hp.i_altup_act           = GEMMA3N_I_ALTUP_ACT;
    hp.n_embd_altup          = GEMMA3N_N_EMBD_ALTUP;
    hp.laurel_rank           = GEMMA3N_LAUREL_RANK;
    hp.n_layer_kv_from_start = GEMMA3N_N_LAYER_KV;
    // a KV-sharing layer reads the cells of layer 18 (sliding window) or 19 (global): they must be of
    // its kind, or it would attend over a cache with the other mask and rope base
    for (int il = GEMMA3N_N_LAYER_KV; il < (int) hp.n_layer; il++) {
        if (hp.is_swa(il) != hp.is_swa(hp.kv_layer(il))) {
            throw llama_error(llama_format("gemma3n: layer %d shares the KV cache of layer %d, which is %s", il,
                                           hp.kv_layer(il), hp.is_swa(il) ? "global" : "sliding-window"));
        }
    }
    hp.f_attention_scale         = 1.0f;
    hp.f_final_logit_softcapping = GEMMA3N_FINAL_LOGIT_CAP;
    hp.rope_type                 = LLAMA_ROPE_TYPE_NEOX;
    hp.n_expert                  = 0;
}

// The graph's pieces over the AltUp stack [n_embd, n_tokens, n_altup].
struct gemma3n_graph {
    llm_graph_context & g;
    ggml_context *      ctx0;
    const llama_model & model;
    const int64_t       n_embd, n_tokens, n_altup, n_embd_altup, n_layer;
    const int           i_act;

    explicit gemma3n_graph(llm_graph_context & graph)
        : g(graph),
          ctx0(graph.ctx0),
          model(graph.model),
          n_embd(graph.hparams.n_embd),
          n_tokens(graph.n_tokens),
          n_altup(graph.hparams.n_altup),
          n_embd_altup(graph.hparams.n_embd_altup),
          n_layer(graph.hparams.n_layer),
          i_act((int) graph.hparams.i_altup_act) {}

    // copy i of x [ne0, ne1, n] as [ne0, ne1]
    ggml_tensor * slice(ggml_tensor * x, int64_t i) const {
        return ggml_view_2d(ctx0, x, x->ne[0], x->ne[1], x->nb[1], i * x->nb[2]);
    }
    // copies 1.. of x [n_embd, n_tokens, n_altup]
    ggml_tensor * rest(ggml_tensor * x) const {
        return ggml_view_3d(ctx0, x, x->ne[0], x->ne[1], x->ne[2] - 1, x->nb[1], x->nb[2], x->nb[2]);
    }
    // the L2 norm of each row: [1, ne1, ne2]
    ggml_tensor * magnitude(ggml_tensor * x) const { return ggml_sqrt(ctx0, ggml_sum_rows(ctx0, ggml_sqr(ctx0, x))); }
    // y rescaled row by row to the magnitude of `like`
    ggml_tensor * match_magnitude(ggml_tensor * y, ggml_tensor * like) const {
        return ggml_div(ctx0, ggml_mul(ctx0, y, magnitude(like)), magnitude(y));
    }

    // The tokens' rows of per_layer_token_embd * sqrt(n_embd_altup): [n_embd_altup, n_layer, n_tokens].
    // Looked up right after the token embeddings, before any node of the layers: both tables stay in host
    // memory, and the scheduler then keeps the two lookups in one split ahead of the offloaded graph.
    ggml_tensor * per_layer_selected(ggml_tensor * tokens) const {
        ggml_tensor * tok = ggml_get_rows(ctx0, model.per_layer_tok_embd, tokens);
        tok =
            ggml_scale(ctx0, ggml_reshape_3d(ctx0, tok, n_embd_altup, n_layer, n_tokens), sqrtf((float) n_embd_altup));
        g.cb(tok, "inp_per_layer_selected", -1);
        return tok;
    }

    // Each layer's input [n_embd_altup, n_tokens, n_layer]: its slice of the selected per-layer embeddings
    // plus the normed projection of the embeddings, both / sqrt(2).
    ggml_tensor * per_layer_inputs(ggml_tensor * embd, ggml_tensor * tok) const {
        ggml_tensor * proj = ggml_mul_mat(ctx0, model.per_layer_model_proj, embd);
        proj               = ggml_scale(ctx0, proj, 1.0f / sqrtf((float) n_embd));
        proj               = ggml_reshape_3d(ctx0, proj, n_embd_altup, n_layer, n_tokens);
        proj               = g.build_norm(proj, model.per_layer_proj_norm, nullptr, LLM_NORM_RMS, -1);
        g.cb(proj, "per_layer_proj", -1);
        ggml_tensor * inp = ggml_scale(ctx0, ggml_add(ctx0, proj, tok), 1.0f / sqrtf(2.0f));
        g.cb(inp, "inp_per_layer", -1);
        return ggml_cont(ctx0, ggml_permute(ctx0, inp, 0, 2, 1, 3));
    }

    // tanh(router(norm(x) / n_embd)): [n_altup, n_tokens]
    ggml_tensor * router_modalities(ggml_tensor * x, int il) const {
        const llama_layer & l = model.layers[il];
        ggml_tensor *       r = g.build_norm(x, l.altup_router_norm, nullptr, LLM_NORM_RMS, il);
        r                     = ggml_scale(ctx0, r, 1.0f / (float) n_embd);
        return ggml_tanh(ctx0, ggml_mul_mat(ctx0, l.altup_router, r));
    }

    // Every copy predicted from all of them with per-token coefficients, plus itself.
    ggml_tensor * predict(ggml_tensor * stack, int il) const {
        ggml_tensor * mod   = router_modalities(slice(stack, i_act), il);
        ggml_tensor * coefs = g.build_lora_mm(model.layers[il].altup_predict_coef, mod);  // [n_altup^2, n_tokens]
        coefs               = ggml_reshape_3d(ctx0, coefs, n_altup, n_altup, n_tokens);
        ggml_tensor * per_token =
            ggml_cont(ctx0, ggml_permute(ctx0, stack, 1, 2, 0, 3));  // [n_altup, n_embd, n_tokens]
        ggml_tensor * pred = ggml_mul_mat(ctx0, per_token, coefs);   // [n_embd, n_altup, n_tokens]
        pred               = ggml_cont(ctx0, ggml_permute(ctx0, pred, 0, 2, 1, 3));
        pred               = ggml_add(ctx0, pred, stack);
        g.cb(pred, "predictions", il);
        return pred;
    }

    // Every copy moved by the active copy's innovation (its output minus its prediction), weighted per
    // token by (1 + the router's correction coefficients).
    ggml_tensor * correct(ggml_tensor * pred, ggml_tensor * activated, int il) const {
        ggml_tensor * mod   = router_modalities(activated, il);
        ggml_tensor * innov = ggml_sub(ctx0, activated, slice(pred, i_act));  // [n_embd, n_tokens]
        ggml_tensor * coefs = g.build_lora_mm(model.layers[il].altup_correct_coef, mod);
        coefs               = ggml_scale_bias(ctx0, coefs, 1.0f, 1.0f);      // [n_altup, n_tokens]
        coefs               = ggml_cont(ctx0, ggml_transpose(ctx0, coefs));  // [n_tokens, n_altup]
        // innovation x coefficient of each copy, stacked as [n_embd, n_tokens, n_altup]
        ggml_tensor * moved = nullptr;
        for (int64_t a = 0; a < n_altup; a++) {
            ggml_tensor * c = ggml_view_2d(ctx0, coefs, 1, n_tokens, coefs->nb[0], a * coefs->nb[1]);
            ggml_tensor * m = ggml_mul(ctx0, innov, c);
            moved           = moved ? ggml_concat(ctx0, moved, m, 2) : m;
        }
        ggml_tensor * out = ggml_add(ctx0, moved, pred);
        g.cb(out, "corrected", il);
        return out;
    }

    // Activation sparsity: x minus (its row mean + 1.645 row std), floored at zero.
    ggml_tensor * gaussian_topk(ggml_tensor * x) const {
        ggml_tensor * mean = ggml_mean(ctx0, x);
        ggml_tensor * var  = ggml_scale(ctx0, ggml_sum_rows(ctx0, ggml_sqr(ctx0, ggml_sub(ctx0, x, mean))),
                                        1.0f / (float) (x->ne[0] - 1));
        ggml_tensor * cut  = ggml_add(ctx0, mean, ggml_scale(ctx0, ggml_sqrt(ctx0, var), GEMMA3N_SPARSITY_STD_MUL));
        return ggml_relu(ctx0, ggml_sub(ctx0, x, cut));
    }

    // Queries only (a KV-sharing layer): projected, per-head normed, rotated.
    ggml_tensor * query(const llama_layer & l, ggml_tensor * cur, ggml_tensor * inp_pos, int il) const {
        ggml_tensor * q = g.build_lora_mm(l.wq, cur);
        g.cb(q, "Qcur", il);
        q = ggml_reshape_3d(ctx0, q, g.hparams.n_embd_head_k, g.hparams.n_head, n_tokens);
        q = g.build_norm(q, l.attn_q_norm, nullptr, LLM_NORM_RMS, il);
        g.cb(q, "Qcur_normed", il);
        q = g.build_rope(q, inp_pos, nullptr, il);
        g.cb(q, "Qcur_rope", il);
        return q;
    }

    ggml_tensor * layer(ggml_tensor * stack, ggml_tensor * inp_per_layer, ggml_tensor * inp_pos, int il) const {
        const llama_layer &   l    = model.layers[il];
        const llama_hparams & hp   = g.hparams;
        ggml_tensor *         pred = predict(stack, il);
        ggml_tensor *         act  = slice(pred, i_act);  // the copy that runs through the block

        ggml_tensor * cur = g.build_norm(act, l.attn_norm, nullptr, LLM_NORM_RMS, il);
        g.cb(cur, "attn_norm", il);
        // LAuReL: x + norm(r(l(x)))
        ggml_tensor * laurel = g.build_lora_mm(l.laurel_r, g.build_lora_mm(l.laurel_l, cur));
        laurel               = ggml_add(ctx0, g.build_norm(laurel, l.laurel_post_norm, nullptr, LLM_NORM_RMS, il), cur);
        g.cb(laurel, "laurel_out", il);

        if (hp.kv_layer(il) == il) {
            ggml_tensor *q, *k, *v;
            g.build_qkv_rope(l, cur, inp_pos, il, q, k, v);
            // V normed per head, without a weight
            v = ggml_rms_norm(ctx0, ggml_reshape_3d(ctx0, v, hp.n_embd_head_v, hp.n_head_kv, n_tokens),
                              hp.f_norm_rms_eps);
            v = ggml_reshape_2d(ctx0, v, hp.n_embd_v_gqa(), n_tokens);
            g.cb(v, "Vcur_normed", il);
            cur = g.build_attn(l.wo, nullptr, q, k, v, hp.f_attention_scale, il);
        } else {
            cur = g.build_attn(l.wo, nullptr, query(l, cur, inp_pos, il), nullptr, nullptr, hp.f_attention_scale, il);
        }
        cur                       = g.build_norm(cur, l.attn_post_norm, nullptr, LLM_NORM_RMS, il);
        cur                       = ggml_add(ctx0, cur, act);
        ggml_tensor * attn_laurel = ggml_scale(ctx0, ggml_add(ctx0, cur, laurel), 1.0f / sqrtf(2.0f));
        g.cb(attn_laurel, "attn_laurel", il);

        cur              = g.build_norm(attn_laurel, l.ffn_norm, nullptr, LLM_NORM_RMS, il);
        ggml_tensor * up = g.build_lora_mm(l.ffn_up, cur);
        ggml_tensor * gt = g.build_lora_mm(l.ffn_gate, cur);
        if (il < GEMMA3N_N_LAYER_SPARSITY) {
            gt = gaussian_topk(gt);
        }
        cur = g.build_lora_mm(l.ffn_down, ggml_mul(ctx0, up, ggml_gelu(ctx0, gt)));
        g.cb(cur, "ffn_out", il);
        cur = g.build_norm(cur, l.ffn_post_norm, nullptr, LLM_NORM_RMS, il);
        cur = ggml_add(ctx0, cur, attn_laurel);

        ggml_tensor * corr = correct(pred, cur, il);
        // the per-layer input, gated by the corrected active copy, goes into the other copies
        ggml_tensor * first = ggml_mul(ctx0, slice(corr, i_act), l.altup_correct_scale);
        first               = ggml_gelu(ctx0, g.build_lora_mm(l.per_layer_inp_gate, first));
        first               = ggml_mul(ctx0, first, slice(inp_per_layer, il));
        first               = g.build_lora_mm(l.per_layer_proj, first);
        first               = g.build_norm(first, l.per_layer_post_norm, nullptr, LLM_NORM_RMS, il);
        g.cb(first, "first_prediction_out", il);
        ggml_tensor * out = ggml_concat(ctx0, slice(corr, 0), ggml_add(ctx0, rest(corr), first), 2);
        out               = g.build_cvec(out, il);
        g.cb(out, "l_out", il);
        return out;
    }

    void build() const {
        if (g.params.embd_input) {
            // upstream feeds such inputs the padding token's per-layer embeddings; not done here
            throw llama_error("gemma3n: embeddings input is not supported (per-layer inputs need tokens)");
        }
        ggml_tensor * embd     = g.build_inp_embd(model.tok_embd);
        ggml_tensor * selected = per_layer_selected(g.res.inp.tokens);
        ggml_build_forward_expand(g.gf, selected);  // into the graph now: next to the embeddings' lookup
        embd = ggml_scale(ctx0, embd, sqrtf((float) n_embd));
        g.cb(embd, "inp_scaled", -1);
        ggml_tensor * inp_pos = g.build_inp_pos();
        g.build_attn_inp();
        ggml_tensor * inp_per_layer = per_layer_inputs(embd, selected);

        // the stack: the embeddings, then n_altup - 1 projections of them at their magnitude
        ggml_tensor * extra = nullptr;
        for (int64_t i = 0; i < n_altup - 1; i++) {
            ggml_tensor * p = ggml_mul_mat(ctx0, slice(model.altup_proj, i), embd);
            extra           = extra ? ggml_concat(ctx0, extra, p, 2) : p;
        }
        extra               = match_magnitude(extra, embd);
        ggml_tensor * stack = ggml_concat(ctx0, embd, extra, 2);
        g.cb(stack, "inp_stacked", -1);

        for (int il = 0; il < (int) n_layer; il++) {
            stack = layer(stack, inp_per_layer, inp_pos, il);
        }

        // back to one state: the extra copies projected back at the active copy's magnitude, averaged
        // with copy 0
        ggml_tensor * back = ggml_mul_mat(ctx0, model.altup_unembd_proj, rest(stack));
        back               = match_magnitude(back, slice(stack, i_act));
        g.cb(back, "altup_unembd", -1);
        ggml_tensor * cur = slice(stack, 0);
        for (int64_t i = 0; i < n_altup - 1; i++) {
            cur = ggml_add(ctx0, cur, slice(back, i));
        }
        cur = ggml_scale(ctx0, cur, 1.0f / (float) n_altup);
        g.cb(cur, "unembd_merged", -1);
        if (ggml_tensor * out_ids = g.build_inp_out_ids()) {
            cur = ggml_get_rows(ctx0, cur, out_ids);
        }
        g.build_output(cur);  // output norm, head, soft-cap
    }
};

void gemma3n_build_graph(llm_graph_context & g) {
    gemma3n_graph(g).build();
}

}  // namespace

const llm_arch_ops llm_ops_gemma3n = {
    LLM_ARCH_GEMMA3N,
    gemma3n_load_hparams,
    gemma3n_build_graph,
};
