// save-load-state: a prompt cache across runs. The first run decodes a (long) prompt and saves the
// session (the KV cache, the last logits and the prompt tokens) to a file; a later run loads it
// and continues generating without decoding the prompt again. Both print the prompt and the
// greedy continuation, so a resumed run prints exactly what one uninterrupted run prints.
//
//   llama-save-load-state -m MODEL --save FILE [-n N] [-f PROMPT_FILE | PROMPT]
//   llama-save-load-state -m MODEL --load FILE [-n N]
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "arg-parse.h"
#include "console.h"
#include "llama.h"
#include "tool-log.h"
#include "tool-model.h"

static const char * k_prog = "llama-save-load-state";

static void print_usage(FILE * out) {
    fprintf(out,
            "usage: %s -m MODEL (--save FILE [PROMPT] | --load FILE) [options]\n\n"
            "Greedy generation with a session file: --save decodes the prompt, saves the session\n"
            "(KV cache, last logits, prompt tokens) to FILE, then generates; --load resumes from FILE\n"
            "without decoding the prompt again. Both print the prompt and the continuation.\n\n"
            "  -m, --model FILE       GGUF model to load (required)\n"
            "  --save FILE            decode the prompt and save the session to FILE\n"
            "  --load FILE            resume the session saved in FILE\n"
            "  -f, --file FILE        read the prompt from FILE (--save)\n"
            "  -n, --n-predict N      tokens to generate, 0 to %d (default 32)\n"
            "  -c, --ctx-size N       context size, 16 to %d (default 512; the same in both runs)\n"
            "  -t, --threads N        CPU threads, 1 to 512 (default 2)\n"
            "  -v, --verbose          show the library's log\n"
            "  -h, --help             print this help and exit\n\n"
            "With neither --save nor --load the prompt is decoded and continued without a file.\n"
            "exit status: 0 success, 1 usage error, 2 load, session or generation failure\n",
            k_prog, 1 << 20, 1 << 24);
}

// Prints a token's text; false if it has none.
static bool print_token(const llama_vocab * vocab, llama_token t) {
    char buf[256];
    int  n = llama_token_to_piece(vocab, t, buf, sizeof(buf), 0, true);
    if (n < 0) {
        return false;
    }
    fwrite(buf, 1, (size_t) n, stdout);
    return true;
}

int main(int argc, char ** argv) {
    std::string model_path, save_path, load_path, prompt_file;
    std::string prompt    = "Once upon a time";
    int         n_predict = 32;
    int         n_ctx     = 512;
    int         n_threads = 2;
    bool        verbose   = false;

    tool::args args(k_prog, argc, argv, print_usage);
    while (args.next()) {
        if (args.is("-m", "--model")) {
            model_path = args.value();
        } else if (args.is("--save")) {
            save_path = args.value();
        } else if (args.is("--load")) {
            load_path = args.value();
        } else if (args.is("-f", "--file")) {
            prompt_file = args.value();
        } else if (args.is("-n", "--n-predict")) {
            n_predict = (int) args.int_value(0, 1 << 20);
        } else if (args.is("-c", "--ctx-size")) {
            n_ctx = (int) args.int_value(16, 1 << 24);
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
    if (!save_path.empty() && !load_path.empty()) {
        args.fail("--save and --load exclude each other");
    }
    if (!load_path.empty() && !prompt_file.empty()) {
        args.fail("--load takes the prompt from the session, not from -f");
    }

    tool::llama_start(k_prog, verbose);

    if (!prompt_file.empty()) {
        std::string why;
        if (!tool::read_file(prompt_file, prompt, why)) {
            return tool::report_failure("cannot open " + prompt_file, why);
        }
    }

    llama_model * model = tool::load_model(model_path, true);
    if (!model) {
        return tool::EXIT_RUNTIME;
    }
    const llama_vocab * vocab = llama_model_get_vocab(model);

    llama_context_params cparams = llama_context_default_params();
    cparams.n_ctx                = (uint32_t) n_ctx;
    cparams.n_batch              = (uint32_t) n_ctx;
    cparams.n_threads            = n_threads;
    cparams.n_threads_batch      = n_threads;
    llama_context * ctx          = tool::new_context(model, cparams);
    if (!ctx) {
        return tool::EXIT_RUNTIME;
    }

    int                      rc = tool::EXIT_OK;
    std::vector<llama_token> tokens;  // the session's tokens: the prompt
    if (!load_path.empty()) {
        // resume: the prompt tokens come back with the state; nothing is decoded again
        tokens.resize(llama_n_ctx(ctx));
        size_t n = 0;
        if (!llama_state_load_file(ctx, load_path.c_str(), tokens.data(), tokens.size(), &n)) {
            rc = tool::report_failure("cannot load session " + load_path);
        }
        tokens.resize(n);
    } else {
        const int n_prompt = -llama_tokenize(vocab, prompt.c_str(), (int) prompt.size(), NULL, 0, true, true);
        tokens.resize(n_prompt > 0 ? n_prompt : 0);
        if (n_prompt <= 0 ||
            llama_tokenize(vocab, prompt.c_str(), (int) prompt.size(), tokens.data(), n_prompt, true, true) < 0) {
            rc = tool::report_failure("cannot tokenize the prompt", n_prompt == 0 ? "it gives no tokens" : "");
        } else if (n_prompt + n_predict > (int) llama_n_ctx(ctx)) {
            rc = tool::report_failure("the prompt and -n do not fit the context",
                                      std::to_string(n_prompt) + " + " + std::to_string(n_predict) + " tokens > " +
                                          std::to_string(llama_n_ctx(ctx)));
        } else if (llama_decode(ctx, llama_batch_get_one(tokens.data(), n_prompt)) != 0) {
            rc = tool::report_failure("cannot decode the prompt");
        } else if (!save_path.empty() && !llama_state_save_file(ctx, save_path.c_str(), tokens.data(), tokens.size())) {
            rc = tool::report_failure("cannot save session " + save_path);
        }
    }

    for (size_t i = 0; rc == tool::EXIT_OK && i < tokens.size(); i++) {
        if (!print_token(vocab, tokens[i])) {
            rc = tool::report_failure("cannot convert a token to text", "");
        }
    }

    // greedy continuation from the last logits (restored with the state after --load)
    llama_sampler * smpl = llama_sampler_chain_init(llama_sampler_chain_default_params());
    llama_sampler_chain_add(smpl, llama_sampler_init_greedy());
    for (int i = 0; rc == tool::EXIT_OK && i < n_predict; i++) {
        llama_token t = llama_sampler_sample(smpl, ctx, -1);
        if (llama_vocab_is_eog(vocab, t)) {
            break;
        }
        if (!print_token(vocab, t)) {
            rc = tool::report_failure("cannot convert a token to text", "");
            break;
        }
        fflush(stdout);
        if (i + 1 < n_predict && llama_decode(ctx, llama_batch_get_one(&t, 1)) != 0) {
            rc = tool::report_failure("decode failed");
        }
    }
    printf("\n");

    llama_sampler_free(smpl);
    llama_free(ctx);
    llama_model_free(model);
    llama_backend_free();
    return rc;
}
