// gpt-oss (upstream's LLM_ARCH_OPENAI_MOE): a pre-norm decoder with Q/K/V/O biases, NEOX RoPE, one
// learned sink logit per head in the attention softmax, sliding-window attention on the even layers
// (attention.sliding_window, period sliding_window_pattern = 2) and a mixture-of-experts feed-forward:
// router with bias, top-k of the raw logits with a softmax over the selected, experts with biases and
// the clamped SwiGLU (swiglu_oai). The pre-FFN norm is stored as post_attention_norm. Built by the
// shared decoder (decoder.h); the tensor list is its own.
#include "decoder.h"
#include "llama-impl.h"
#include "llama-model-loader.h"
#include "models.h"

static const llm_decoder_desc gpt_oss_desc = [] {
    llm_decoder_desc d;
    d.moe_norm_w = false;
    d.moe_gating = LLM_MOE_GATING_SOFTMAX_WEIGHT;
    d.moe_act    = LLM_MOE_ACT_SWIGLU_OAI;
    return d;
}();

static void gpt_oss_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_RMS_EPS, hp.f_norm_rms_eps);
    ml.get_key(LLM_KV_EXPERT_FEED_FORWARD_LENGTH, hp.n_ff_exp);
    ml.get_key(LLM_KV_ATTENTION_SLIDING_WINDOW, hp.n_swa);
    // a period, or one flag per layer (true = sliding window), as upstream reads the key
    if (!ml.get_arr_flags(LLM_KV_ATTENTION_SLIDING_WINDOW_PATTERN, hp.swa_layers, hp.n_layer)) {
        uint32_t period = 2;
        ml.get_key(LLM_KV_ATTENTION_SLIDING_WINDOW_PATTERN, period, false);
        hp.set_swa_pattern(period);
    }
    ml.get_key(LLM_KV_ROPE_FREQ_BASE_SWA, hp.rope_freq_base_train_swa, false);  // default: the global base
    hp.rope_type = LLAMA_ROPE_TYPE_NEOX;
    if (hp.n_expert == 0) {
        throw llama_error("gpt-oss: expert_count is missing");
    }
}

static void gpt_oss_load_tensors(llama_model & model, llama_tensor_creator & tc) {
    const llama_hparams & hp       = model.hparams;
    const int64_t         n_embd   = hp.n_embd;
    const int64_t         n_vocab  = hp.n_vocab;
    const int64_t         n_ff     = hp.n_ff_exp;
    const int64_t         n_expert = hp.n_expert;
    const int64_t         n_q      = (int64_t) hp.n_embd_head_k * hp.n_head;
    const int64_t         n_k      = hp.n_embd_k_gqa();
    const int64_t         n_v      = hp.n_embd_v_gqa();

    model.tok_embd    = tc.create(LLM_TENSOR_TOKEN_EMBD, {n_embd, n_vocab});
    model.output_norm = tc.create(LLM_TENSOR_OUTPUT_NORM, {n_embd});
    model.output      = tc.create(LLM_TENSOR_OUTPUT, {n_embd, n_vocab});

    model.layers.resize(hp.n_layer);
    for (int il = 0; il < (int) hp.n_layer; il++) {
        llama_layer & l = model.layers[il];
        l.attn_norm     = tc.create(LLM_TENSOR_ATTN_NORM, {n_embd}, 0, il);
        l.wq            = tc.create(LLM_TENSOR_ATTN_Q, {n_embd, n_q}, 0, il);
        l.wk            = tc.create(LLM_TENSOR_ATTN_K, {n_embd, n_k}, 0, il);
        l.wv            = tc.create(LLM_TENSOR_ATTN_V, {n_embd, n_v}, 0, il);
        l.wo            = tc.create(LLM_TENSOR_ATTN_OUT, {n_q, n_embd}, 0, il);
        l.bq            = tc.create(LLM_TENSOR_ATTN_Q, {n_q}, 0, il, "bias");
        l.bk            = tc.create(LLM_TENSOR_ATTN_K, {n_k}, 0, il, "bias");
        l.bv            = tc.create(LLM_TENSOR_ATTN_V, {n_v}, 0, il, "bias");
        l.bo            = tc.create(LLM_TENSOR_ATTN_OUT, {n_embd}, 0, il, "bias");
        l.attn_sinks    = tc.create(LLM_TENSOR_ATTN_SINKS, {(int64_t) hp.n_head}, 0, il);
        // the norm before the experts (named post_attention_norm in the files)
        l.ffn_norm = tc.create(LLM_TENSOR_ATTN_POST_NORM, {n_embd}, 0, il);

        l.ffn_gate_inp    = tc.create(LLM_TENSOR_FFN_GATE_INP, {n_embd, n_expert}, 0, il);
        l.ffn_gate_inp_b  = tc.create(LLM_TENSOR_FFN_GATE_INP, {n_expert}, 0, il, "bias");
        l.ffn_gate_exps   = tc.create(LLM_TENSOR_FFN_GATE_EXPS, {n_embd, n_ff, n_expert}, 0, il);
        l.ffn_up_exps     = tc.create(LLM_TENSOR_FFN_UP_EXPS, {n_embd, n_ff, n_expert}, 0, il);
        l.ffn_down_exps   = tc.create(LLM_TENSOR_FFN_DOWN_EXPS, {n_ff, n_embd, n_expert}, 0, il);
        l.ffn_gate_exps_b = tc.create(LLM_TENSOR_FFN_GATE_EXPS, {n_ff, n_expert}, 0, il, "bias");
        l.ffn_up_exps_b   = tc.create(LLM_TENSOR_FFN_UP_EXPS, {n_ff, n_expert}, 0, il, "bias");
        l.ffn_down_exps_b = tc.create(LLM_TENSOR_FFN_DOWN_EXPS, {n_embd, n_expert}, 0, il, "bias");
    }
}

static void gpt_oss_build_graph(llm_graph_context & g) {
    llm_decoder_build_graph(gpt_oss_desc, g);
}

const llm_arch_ops llm_ops_gpt_oss = {
    LLM_ARCH_GPT_OSS,
    gpt_oss_load_hparams,
    gpt_oss_load_tensors,
    gpt_oss_build_graph,
};
