// A llama.h client for encoder references: runs an encoder GGUF on one sequence (positions 0..n-1,
// sequence 0, n_ctx = n_batch = n_ubatch 64, one thread, no flash attention) and writes raw f32: pooling 0
// (none) -> n_tokens x n_embd rows; else the pooled vector of sequence 0 (n_embd values, or
// llama_model_n_cls_out for rank). Built against upstream for tests/data/reference (see its README);
// not part of the build.
// usage: encoder-embd model.gguf out.f32 pooling tok,tok,...
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include "llama.h"

int main(int argc, char ** argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: %s model.gguf out.f32 pooling t1,t2,...\n", argv[0]);
        return 1;
    }
    const int                pooling = atoi(argv[3]);
    std::vector<llama_token> toks;
    for (char * s = strtok(argv[4], ","); s; s = strtok(nullptr, ","))
        toks.push_back(atoi(s));
    llama_backend_init();
    llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers       = 0;
    llama_model * model   = llama_model_load_from_file(argv[1], mp);
    if (!model) {
        fprintf(stderr, "load refused\n");
        return 2;
    }
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx                = 64;
    cp.n_batch              = 64;
    cp.n_ubatch             = 64;
    cp.n_threads            = 1;
    cp.n_threads_batch      = 1;
    cp.embeddings           = true;
    cp.pooling_type         = (enum llama_pooling_type) pooling;
    cp.flash_attn_type      = LLAMA_FLASH_ATTN_TYPE_DISABLED;
    llama_context * ctx     = llama_init_from_model(model, cp);
    if (!ctx) {
        fprintf(stderr, "context failed\n");
        return 3;
    }
    const int   n = (int) toks.size();
    llama_batch b = llama_batch_init(n, 0, 1);
    for (int i = 0; i < n; i++) {
        b.token[i]     = toks[i];
        b.pos[i]       = i;
        b.n_seq_id[i]  = 1;
        b.seq_id[i][0] = 0;
        b.logits[i]    = 1;
    }
    b.n_tokens = n;
    if (llama_decode(ctx, b) != 0) {
        fprintf(stderr, "decode failed\n");
        return 4;
    }
    FILE *    f      = fopen(argv[2], "wb");
    const int n_embd = llama_model_n_embd_out(model);  // after dense output projections, if any
    if (pooling == 0) {
        for (int i = 0; i < n; i++)
            fwrite(llama_get_embeddings_ith(ctx, i), sizeof(float), n_embd, f);
    } else {
        const int m = pooling == 4 ? (int) llama_model_n_cls_out(model) : n_embd;
        fwrite(llama_get_embeddings_seq(ctx, 0), sizeof(float), m, f);
        fprintf(stderr, "pooled %d values, first %g\n", m, llama_get_embeddings_seq(ctx, 0)[0]);
    }
    fclose(f);
    llama_batch_free(b);
    llama_free(ctx);
    llama_model_free(model);
    return 0;
}
