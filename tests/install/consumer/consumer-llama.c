/* An application of the installed libllama, written in C: loads a model, greedily generates a few
 * tokens after a prompt and prints prompt + continuation on stdout (run-install-test.cmake checks the
 * text). Built by find_package(llama) and by pkg-config, against shared and static installs.
 *
 *   consumer-llama MODEL N_PREDICT PROMPT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One of the headers llama.h includes, first and alone: it must bring in the whole API (the context
 * and model calls below are declared in llama.h itself). */
#include "llama-api-sampling.h"

static void log_errors_only(enum ggml_log_level level, const char * text, void * user_data) {
    (void) user_data;
    if (level >= GGML_LOG_LEVEL_ERROR) {
        fputs(text, stderr);
    }
}

static int generate(struct llama_model * model, int n_predict, const char * prompt) {
    const struct llama_vocab * vocab = llama_model_get_vocab(model);
    llama_token                tokens[256];
    const int n_prompt = llama_tokenize(vocab, prompt, (int32_t) strlen(prompt), tokens, 256, true, false);
    if (n_prompt <= 0 || n_prompt + n_predict > 256) {
        fprintf(stderr, "consumer: tokenize failed (%d)\n", n_prompt);
        return 1;
    }

    struct llama_context_params cparams = llama_context_default_params();
    cparams.n_ctx                       = 256;
    cparams.n_batch                     = 256;
    cparams.n_threads                   = 1;
    cparams.n_threads_batch             = 1;
    struct llama_context * ctx          = llama_init_from_model(model, cparams);
    if (!ctx) {
        fprintf(stderr, "consumer: context: %s\n", llama_last_error());
        return 1;
    }
    struct llama_sampler * smpl = llama_sampler_chain_init(llama_sampler_chain_default_params());
    llama_sampler_chain_add(smpl, llama_sampler_init_greedy());

    fputs(prompt, stdout);
    int                rc    = 0;
    struct llama_batch batch = llama_batch_get_one(tokens, n_prompt);
    for (int i = 0; i < n_predict; i++) {
        if (llama_decode(ctx, batch) != 0) {
            fprintf(stderr, "consumer: decode failed: %s\n", llama_last_error());
            rc = 1;
            break;
        }
        llama_token next = llama_sampler_sample(smpl, ctx, -1);
        if (llama_vocab_is_eog(vocab, next)) {
            break;
        }
        char      piece[64];
        const int n = llama_token_to_piece(vocab, next, piece, sizeof(piece), 0, true);
        if (n < 0) {
            rc = 1;
            break;
        }
        fwrite(piece, 1, (size_t) n, stdout);
        tokens[0] = next;
        batch     = llama_batch_get_one(tokens, 1);
    }
    fputs("\n", stdout);
    llama_sampler_free(smpl);
    llama_free(ctx);
    return rc;
}

int main(int argc, char ** argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s MODEL N_PREDICT PROMPT\n", argv[0]);
        return 2;
    }
    /* the header this program was compiled with must match the library it runs with */
    if (llama_abi_version() != LLAMA_ABI_VERSION) {
        fprintf(stderr, "consumer: ABI %d in the library, %d in llama.h\n", (int) llama_abi_version(),
                LLAMA_ABI_VERSION);
        return 1;
    }
    printf("libllama %s\n", llama_version());
    llama_log_set(log_errors_only, NULL);
    llama_backend_init();
    struct llama_model * model = llama_model_load_from_file(argv[1], llama_model_default_params());
    if (!model) {
        fprintf(stderr, "consumer: load: %s\n", llama_last_error());
        return 1;
    }
    const int rc = generate(model, atoi(argv[2]), argv[3]);
    llama_model_free(model);
    llama_backend_free();
    return rc;
}
