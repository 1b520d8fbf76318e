// llama-bench-lite MODEL [N_THREADS=2] [N_PROMPT=128] [N_GEN=128] [REPS=5] [FLASH_ATTN=0]
// Measures, like llama-bench: pp (a prompt of N_PROMPT tokens decoded in one batch) and tg (N_GEN
// tokens decoded one at a time), each repeated REPS times on a cleared cache; prints tokens/s.
#include "llama.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

static void quiet(enum ggml_log_level, const char *, void *) {}

int main(int argc, char ** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s MODEL [N_THREADS] [N_PROMPT] [N_GEN] [REPS]\n", argv[0]);
        return 2;
    }
    const int  n_threads = argc > 2 ? atoi(argv[2]) : 2;
    const int  n_prompt  = argc > 3 ? atoi(argv[3]) : 128;
    const int  n_gen     = argc > 4 ? atoi(argv[4]) : 128;
    const int  reps      = argc > 5 ? atoi(argv[5]) : 5;
    const bool fa        = argc > 6 && atoi(argv[6]) != 0;
    llama_log_set(quiet, nullptr);
    llama_backend_init();

    llama_model * model = llama_model_load_from_file(argv[1], llama_model_default_params());
    if (!model) {
        fprintf(stderr, "load failed: %s\n", llama_last_error());
        return 1;
    }
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx                = (uint32_t) (n_prompt + n_gen + 16);
    cp.n_batch              = (uint32_t) std::max(n_prompt, 1);
    cp.n_ubatch             = cp.n_batch;
    cp.n_threads            = n_threads;
    cp.n_threads_batch      = n_threads;
    cp.flash_attn_type      = fa ? LLAMA_FLASH_ATTN_TYPE_ENABLED : LLAMA_FLASH_ATTN_TYPE_DISABLED;
    llama_context * ctx     = llama_init_from_model(model, cp);
    if (!ctx) {
        fprintf(stderr, "context failed: %s\n", llama_last_error());
        return 1;
    }
    const int                n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(model));
    std::vector<llama_token> toks(n_prompt);
    for (int i = 0; i < n_prompt; i++) {
        toks[i] = (llama_token) (1 + (i * 7919) % (n_vocab - 1));
    }
    llama_memory_t mem = llama_get_memory(ctx);

    // warm-up (first-use allocations, page faults)
    llama_decode(ctx, llama_batch_get_one(toks.data(), n_prompt));
    llama_memory_clear(mem, false);

    std::vector<double> pp, tg;
    for (int r = 0; r < reps; r++) {
        llama_memory_clear(mem, false);
        int64_t t0 = llama_time_us();
        if (llama_decode(ctx, llama_batch_get_one(toks.data(), n_prompt)) != 0) {
            fprintf(stderr, "decode failed: %s\n", llama_last_error());
            return 1;
        }
        pp.push_back(n_prompt / ((llama_time_us() - t0) / 1e6));

        llama_memory_clear(mem, false);
        llama_token tok = 1;
        t0              = llama_time_us();
        for (int i = 0; i < n_gen; i++) {
            if (llama_decode(ctx, llama_batch_get_one(&tok, 1)) != 0) {
                fprintf(stderr, "decode failed: %s\n", llama_last_error());
                return 1;
            }
            tok = (llama_token) (1 + (i * 31) % (n_vocab - 1));
        }
        tg.push_back(n_gen / ((llama_time_us() - t0) / 1e6));
    }
    std::sort(pp.begin(), pp.end());
    std::sort(tg.begin(), tg.end());
    printf("model: %s, threads: %d, flash_attn: %d\n", argv[1], n_threads, (int) fa);
    printf("pp%d: %.0f t/s (median of %d)\n", n_prompt, pp[pp.size() / 2], reps);
    printf("tg%d: %.0f t/s (median of %d)\n", n_gen, tg[tg.size() / 2], reps);
    llama_free(ctx);
    llama_model_free(model);
    llama_backend_free();
    return 0;
}
