// The pieces every multi-token-prediction (NextN) head shares, whatever its block (qwen35's gated
// attention, deepseek2's latent attention): the input x = eh_proj [enorm(embed(token)); hnorm(h)] of
// each (token, hidden row) pair, and the shared head after the block.
#include "llama-graph.h"
#include "llama-model.h"
#include "models.h"

ggml_tensor * llm_build_nextn_input(llm_graph_context & g, const llama_layer & l, int il, ggml_tensor *& inp_pos,
                                    ggml_tensor *& inp_out_ids) {
    const llama_model &   model = g.model;
    const llama_hparams & hp    = g.hparams;
    ggml_context *        ctx0  = g.ctx0;

    // inputs: the tokens t+1 and the hidden rows h_t they follow (the target's, or this head's own
    // output for a chained draft), one pair per position
    g.res.inp.tokens = ggml_new_tensor_1d(ctx0, GGML_TYPE_I32, g.n_tokens);
    ggml_set_input(g.res.inp.tokens);
    g.cb(g.res.inp.tokens, "inp_tokens", -1);
    g.res.inp.embd = ggml_new_tensor_2d(ctx0, GGML_TYPE_F32, hp.n_embd, g.n_tokens);
    ggml_set_input(g.res.inp.embd);
    g.cb(g.res.inp.embd, "mtp_h_input", -1);
    inp_pos = g.build_inp_pos();
    g.build_attn_inp();
    inp_out_ids = g.build_inp_out_ids();

    ggml_tensor * embd =
        ggml_get_rows(ctx0, l.nextn_embed_tokens ? l.nextn_embed_tokens : model.tok_embd, g.res.inp.tokens);
    // eh_proj reads [enorm(embedding); hnorm(h)] (upstream's order)
    ggml_tensor * e = g.build_norm(embd, l.nextn_enorm, nullptr, LLM_NORM_RMS, il);
    ggml_tensor * h = g.build_norm(g.res.inp.embd, l.nextn_hnorm, nullptr, LLM_NORM_RMS, il);
    ggml_tensor * x = g.build_lora_mm(l.nextn_eh_proj, ggml_concat(ctx0, e, h, 0));
    g.cb(x, "mtp_eh_proj", il);
    return x;
}

void llm_build_nextn_head(llm_graph_context & g, const llama_layer & l, ggml_tensor * cur) {
    const llama_model & model = g.model;
    // the shared head: its norm's output is also the hidden row a chained draft feeds back
    cur = g.build_norm(cur, l.nextn_shared_head_norm ? l.nextn_shared_head_norm : model.output_norm, nullptr,
                       LLM_NORM_RMS, -1);
    g.cb(cur, "result_norm", -1);
    ggml_tensor * logits = g.build_lora_mm(l.nextn_shared_head_head ? l.nextn_shared_head_head : model.output, cur);
    g.cb(logits, "result_output", -1);
    g.set_result(cur, logits);
}
