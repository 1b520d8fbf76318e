// A llama.h client for the MTP (NextN) head's reference logits: loads a qwen35 / qwen35moe / deepseek2
// GGUF with load_mtp, decodes the tokens as one sequence in a target context (positions 0..n-1, every
// token an output, the final norm's row of each kept: upstream's unmasked nextn embeddings), then decodes
// in an MTP context (LLAMA_CONTEXT_TYPE_MTP) the pairs (token p, target row p - 1; zeros for p = 0) at
// positions 0..n-1 and writes the MTP logits as raw f32, n rows of n_vocab. n_ctx = n_batch = n_ubatch
// 64, one thread, no flash attention. Built against upstream for tests/data/reference (see its README);
// not part of the build.
// usage: mtp-logits model.gguf out.f32 tok,tok,...
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "llama-ext.h"  // upstream's staging API: llama_set_embeddings_nextn, llama_get_embeddings_nextn_ith
#include "llama.h"

static llama_context * make_ctx(llama_model * model, enum llama_context_type type) {
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx                = 64;
    cp.n_batch              = 64;
    cp.n_ubatch             = 64;
    cp.n_threads            = 1;
    cp.n_threads_batch      = 1;
    cp.flash_attn_type      = LLAMA_FLASH_ATTN_TYPE_DISABLED;
    cp.ctx_type             = type;
    return llama_init_from_model(model, cp);
}

int main(int argc, char ** argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s model.gguf out.f32 t1,t2,...\n", argv[0]);
        return 1;
    }
    std::vector<llama_token> toks;
    for (char * s = strtok(argv[3], ","); s; s = strtok(nullptr, ",")) {
        toks.push_back(atoi(s));
    }
    llama_backend_init();
    llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers       = 0;
    mp.load_mtp           = true;
    llama_model * model   = llama_model_load_from_file(argv[1], mp);
    if (!model) {
        fprintf(stderr, "load refused\n");
        return 2;
    }
    llama_context * tgt = make_ctx(model, LLAMA_CONTEXT_TYPE_DEFAULT);
    llama_context * mtp = make_ctx(model, LLAMA_CONTEXT_TYPE_MTP);
    if (!tgt || !mtp) {
        fprintf(stderr, "context failed\n");
        return 3;
    }
    llama_set_embeddings_nextn(tgt, true, false);
    const int   n      = (int) toks.size();
    const int   n_embd = llama_model_n_embd(model);
    llama_batch b      = llama_batch_init(n, 0, 1);
    for (int i = 0; i < n; i++) {
        b.token[i]     = toks[i];
        b.pos[i]       = i;
        b.n_seq_id[i]  = 1;
        b.seq_id[i][0] = 0;
        b.logits[i]    = 1;
    }
    b.n_tokens = n;
    if (llama_decode(tgt, b) != 0) {
        fprintf(stderr, "target decode failed\n");
        return 4;
    }
    // the MTP batch carries both: llama_batch_init allocates the embeddings, the tokens are added
    llama_batch m = llama_batch_init(n, n_embd, 1);
    m.token       = (llama_token *) malloc(sizeof(llama_token) * n);
    for (int i = 0; i < n; i++) {
        m.token[i]     = toks[i];
        m.pos[i]       = i;
        m.n_seq_id[i]  = 1;
        m.seq_id[i][0] = 0;
        m.logits[i]    = 1;
        float * row    = m.embd + (size_t) i * n_embd;
        if (i == 0) {
            memset(row, 0, sizeof(float) * n_embd);
        } else {
            memcpy(row, llama_get_embeddings_nextn_ith(tgt, i - 1), sizeof(float) * n_embd);
        }
    }
    m.n_tokens = n;
    if (llama_decode(mtp, m) != 0) {
        fprintf(stderr, "MTP decode failed\n");
        return 5;
    }
    FILE *    f       = fopen(argv[2], "wb");
    const int n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(model));
    for (int i = 0; i < n; i++) {
        fwrite(llama_get_logits_ith(mtp, i), sizeof(float), n_vocab, f);
    }
    fclose(f);
    free(m.token);
    m.token = nullptr;
    llama_batch_free(m);
    llama_batch_free(b);
    llama_free(mtp);
    llama_free(tgt);
    llama_model_free(model);
    return 0;
}
