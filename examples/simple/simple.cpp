// simple: the smallest complete program on libllama — load a model, tokenize a prompt, then
// decode and greedily sample n tokens, printing them as they come.
//
//   llama-simple -m MODEL [-n N_PREDICT] [-t THREADS] [PROMPT]
#include "llama.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

static void usage(const char * argv0) {
    fprintf(stderr, "usage: %s -m MODEL [-n N_PREDICT] [-t THREADS] [-v] [PROMPT]\n", argv0);
}

static void log_errors_only(enum ggml_log_level level, const char * text, void *) {
    if (level >= GGML_LOG_LEVEL_ERROR) {
        fputs(text, stderr);
    }
}

int main(int argc, char ** argv) {
    std::string model_path;
    std::string prompt    = "Once upon a time";
    int         n_predict = 32;
    int         n_threads = 2;
    bool        verbose   = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-m") && i + 1 < argc) {
            model_path = argv[++i];
        } else if (!strcmp(argv[i], "-n") && i + 1 < argc) {
            n_predict = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "-t") && i + 1 < argc) {
            n_threads = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "-v")) {
            verbose = true;
        } else if (argv[i][0] != '-') {
            prompt = argv[i];
        } else {
            usage(argv[0]);
            return 1;
        }
    }
    if (model_path.empty()) {
        usage(argv[0]);
        return 1;
    }
    if (!verbose) {
        llama_log_set(log_errors_only, nullptr);
    }
    llama_backend_init();

    llama_model_params mparams = llama_model_default_params();
    llama_model *      model   = llama_model_load_from_file(model_path.c_str(), mparams);
    if (!model) {
        fprintf(stderr, "error: unable to load model: %s\n", llama_last_error());
        return 1;
    }
    const llama_vocab * vocab = llama_model_get_vocab(model);

    // tokenize: the first call returns -(number of tokens)
    const int n_prompt = -llama_tokenize(vocab, prompt.c_str(), (int) prompt.size(), NULL, 0, true, true);
    std::vector<llama_token> prompt_tokens(n_prompt);
    if (llama_tokenize(vocab, prompt.c_str(), (int) prompt.size(), prompt_tokens.data(), n_prompt, true, true) < 0) {
        fprintf(stderr, "error: failed to tokenize the prompt\n");
        return 1;
    }

    llama_context_params cparams = llama_context_default_params();
    cparams.n_ctx                = n_prompt + n_predict;
    cparams.n_batch              = n_prompt;
    cparams.n_threads            = n_threads;
    cparams.n_threads_batch      = n_threads;
    cparams.no_perf              = false;
    llama_context * ctx          = llama_init_from_model(model, cparams);
    if (!ctx) {
        fprintf(stderr, "error: failed to create the context: %s\n", llama_last_error());
        return 1;
    }

    llama_sampler_chain_params sparams = llama_sampler_chain_default_params();
    sparams.no_perf                    = false;
    llama_sampler * smpl               = llama_sampler_chain_init(sparams);
    llama_sampler_chain_add(smpl, llama_sampler_init_greedy());

    // print the prompt token by token
    for (llama_token id : prompt_tokens) {
        char buf[128];
        int  n = llama_token_to_piece(vocab, id, buf, sizeof(buf), 0, true);
        if (n < 0) {
            fprintf(stderr, "error: failed to convert a token to a piece\n");
            return 1;
        }
        fwrite(buf, 1, (size_t) n, stdout);
    }

    llama_batch   batch     = llama_batch_get_one(prompt_tokens.data(), (int) prompt_tokens.size());
    const int64_t t_start   = llama_time_us();
    int           n_decoded = 0;
    llama_token   new_token;
    for (int n_pos = 0; n_pos + batch.n_tokens < n_prompt + n_predict;) {
        if (llama_decode(ctx, batch)) {
            fprintf(stderr, "error: decode failed: %s\n", llama_last_error());
            return 1;
        }
        n_pos += batch.n_tokens;

        new_token = llama_sampler_sample(smpl, ctx, -1);
        if (llama_vocab_is_eog(vocab, new_token)) {
            break;
        }
        char buf[128];
        int  n = llama_token_to_piece(vocab, new_token, buf, sizeof(buf), 0, true);
        if (n < 0) {
            fprintf(stderr, "error: failed to convert a token to a piece\n");
            return 1;
        }
        fwrite(buf, 1, (size_t) n, stdout);
        fflush(stdout);

        batch = llama_batch_get_one(&new_token, 1);
        n_decoded++;
    }
    printf("\n");
    const double dt = (llama_time_us() - t_start) / 1e6;
    fprintf(stderr, "decoded %d tokens in %.3f s, speed: %.1f t/s\n", n_decoded, dt, dt > 0 ? n_decoded / dt : 0.0);
    if (verbose) {
        llama_perf_sampler_print(smpl);
        llama_perf_context_print(ctx);
    }

    llama_sampler_free(smpl);
    llama_free(ctx);
    llama_model_free(model);
    llama_backend_free();
    return 0;
}
