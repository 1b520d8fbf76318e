// simple: the smallest complete program on libllama — load a model, tokenize a prompt, then
// decode and greedily sample n tokens, printing them as they come.
//
//   llama-simple -m MODEL [-n N_PREDICT] [-t THREADS] [-v] [PROMPT]
#include <cstdio>
#include <string>
#include <vector>

#include "arg-parse.h"
#include "llama.h"
#include "tool-log.h"
#include "tool-progress.h"

static const char * k_prog = "llama-simple";

static void print_usage(FILE * out) {
    fprintf(out,
            "usage: %s -m MODEL [options] [PROMPT]\n\n"
            "Greedy generation from PROMPT (default \"Once upon a time\").\n\n"
            "  -m, --model FILE       GGUF model to load (required)\n"
            "  -n, --n-predict N      tokens to generate, 0 to %d (default 32)\n"
            "  -t, --threads N        CPU threads, 1 to 512 (default 2)\n"
            "  -v, --verbose          show the library's log and performance counters\n"
            "  -h, --help             print this help and exit\n\n"
            "exit status: 0 success, 1 usage error, 2 load or generation failure\n",
            k_prog, 1 << 20);
}

int main(int argc, char ** argv) {
    std::string model_path;
    std::string prompt    = "Once upon a time";
    int         n_predict = 32;
    int         n_threads = 2;
    bool        verbose   = false;

    tool::args args(k_prog, argc, argv, print_usage);
    while (args.next()) {
        if (args.is("-m", "--model")) {
            model_path = args.value();
        } else if (args.is("-n", "--n-predict")) {
            n_predict = (int) args.int_value(0, 1 << 20);
        } else if (args.is("-t", "--threads")) {
            n_threads = (int) args.int_value(1, 512);
        } else if (args.is("-v", "--verbose")) {
            verbose = true;
        } else if (args.positional()) {
            prompt = args.arg();
        } else {
            args.unknown();
        }
    }
    if (model_path.empty()) {
        args.fail("no model given (-m MODEL)");
    }

    tool::log_init(k_prog, verbose ? GGML_LOG_LEVEL_DEBUG : GGML_LOG_LEVEL_WARN, llama_last_error);
    llama_log_set(tool::log_callback, nullptr);
    llama_backend_init();

    llama_model_params  mparams = llama_model_default_params();
    tool::load_progress progress;
    progress.attach(mparams);
    llama_model * model = llama_model_load_from_file(model_path.c_str(), mparams);
    progress.finish();
    if (!model) {
        return tool::report_failure("cannot load model " + model_path);
    }
    const llama_vocab * vocab = llama_model_get_vocab(model);

    // tokenize: the first call returns -(number of tokens)
    const int n_prompt = -llama_tokenize(vocab, prompt.c_str(), (int) prompt.size(), NULL, 0, true, true);
    if (n_prompt <= 0) {
        return tool::report_failure("the prompt gives no tokens", "");
    }
    std::vector<llama_token> prompt_tokens(n_prompt);
    if (llama_tokenize(vocab, prompt.c_str(), (int) prompt.size(), prompt_tokens.data(), n_prompt, true, true) < 0) {
        return tool::report_failure("cannot tokenize the prompt");
    }

    llama_context_params cparams = llama_context_default_params();
    cparams.n_ctx                = (uint32_t) (n_prompt + n_predict);
    cparams.n_batch              = (uint32_t) n_prompt;
    cparams.n_threads            = n_threads;
    cparams.n_threads_batch      = n_threads;
    cparams.no_perf              = false;
    llama_context * ctx          = llama_init_from_model(model, cparams);
    if (!ctx) {
        return tool::report_failure("cannot create the context");
    }

    llama_sampler_chain_params sparams = llama_sampler_chain_default_params();
    sparams.no_perf                    = false;
    llama_sampler * smpl               = llama_sampler_chain_init(sparams);
    llama_sampler_chain_add(smpl, llama_sampler_init_greedy());

    int rc = tool::EXIT_OK;
    // print the prompt token by token
    for (llama_token id : prompt_tokens) {
        char buf[128];
        int  n = llama_token_to_piece(vocab, id, buf, sizeof(buf), 0, true);
        if (n < 0) {
            rc = tool::report_failure("cannot convert a token to text");
            break;
        }
        fwrite(buf, 1, (size_t) n, stdout);
    }

    llama_batch   batch     = llama_batch_get_one(prompt_tokens.data(), (int) prompt_tokens.size());
    const int64_t t_start   = llama_time_us();
    int           n_decoded = 0;
    llama_token   new_token;
    for (int n_pos = 0; rc == tool::EXIT_OK && n_pos + batch.n_tokens < n_prompt + n_predict;) {
        if (llama_decode(ctx, batch)) {
            rc = tool::report_failure("decode failed");
            break;
        }
        n_pos += batch.n_tokens;

        new_token = llama_sampler_sample(smpl, ctx, -1);
        if (llama_vocab_is_eog(vocab, new_token)) {
            break;
        }
        char buf[128];
        int  n = llama_token_to_piece(vocab, new_token, buf, sizeof(buf), 0, true);
        if (n < 0) {
            rc = tool::report_failure("cannot convert a token to text");
            break;
        }
        fwrite(buf, 1, (size_t) n, stdout);
        fflush(stdout);

        batch = llama_batch_get_one(&new_token, 1);
        n_decoded++;
    }
    printf("\n");
    if (rc == tool::EXIT_OK) {
        const double dt = (llama_time_us() - t_start) / 1e6;
        fprintf(stderr, "decoded %d tokens in %.3f s, speed: %.1f t/s\n", n_decoded, dt, dt > 0 ? n_decoded / dt : 0.0);
        if (verbose) {
            llama_perf_sampler_print(smpl);
            llama_perf_context_print(ctx);
        }
    }

    llama_sampler_free(smpl);
    llama_free(ctx);
    llama_model_free(model);
    llama_backend_free();
    return rc;
}
