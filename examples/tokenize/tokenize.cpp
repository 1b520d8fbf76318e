// tokenize: a prompt's tokens, from the model's vocabulary alone (the weights are not loaded), as
// "id -> 'piece'" lines or, with --ids, one list of ids; the options are upstream llama-tokenize's
// common ones.
//
//   llama-tokenize -m MODEL [-p PROMPT | -f FILE | --stdin] [--ids] [--show-count] [--no-bos]
#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "arg-parse.h"
#include "console.h"
#include "llama.h"
#include "tool-log.h"

static const char * k_prog = "llama-tokenize";

static void print_usage(FILE * out) {
    fprintf(out,
            "usage: %s -m MODEL [options] [PROMPT]\n\n"
            "Prints the tokens of PROMPT (loads the vocabulary only).\n\n"
            "  -m, --model FILE       GGUF model whose vocabulary to use (required)\n"
            "  -p, --prompt TEXT      the text (or the first positional argument)\n"
            "  -f, --file FILE        read the text from FILE\n"
            "  --stdin                read the text from standard input\n"
            "  --ids                  print only the ids, as [1, 2, 3]\n"
            "  --show-count           print the number of tokens at the end\n"
            "  --no-bos               do not add the beginning-of-sequence token\n"
            "  --no-parse-special     tokenize special-token text as plain text\n"
            "  -v, --verbose          show the library's log\n"
            "  -h, --help             print this help and exit\n\n"
            "exit status: 0 success, 1 usage error, 2 load or tokenize failure\n",
            k_prog);
}

int main(int argc, char ** argv) {
    std::string model_path, prompt, file;
    bool        have_prompt = false, from_stdin = false, ids_only = false, show_count = false;
    bool        add_bos = true, parse_special = true, verbose = false;

    tool::args args(k_prog, argc, argv, print_usage);
    while (args.next()) {
        if (args.is("-m", "--model")) {
            model_path = args.value();
        } else if (args.is("-p", "--prompt")) {
            prompt      = args.value();
            have_prompt = true;
        } else if (args.is("-f", "--file")) {
            file = args.value();
        } else if (args.is("--stdin")) {
            from_stdin = true;
        } else if (args.is("--ids")) {
            ids_only = true;
        } else if (args.is("--show-count")) {
            show_count = true;
        } else if (args.is("--no-bos")) {
            add_bos = false;
        } else if (args.is("--no-parse-special")) {
            parse_special = false;
        } else if (args.is("-v", "--verbose")) {
            verbose = true;
        } else if (args.positional() && !have_prompt) {
            prompt      = args.arg();
            have_prompt = true;
        } else {
            args.unknown();
        }
    }
    if (model_path.empty()) {
        args.fail("no model given (-m MODEL)");
    }
    if ((int) have_prompt + (int) !file.empty() + (int) from_stdin != 1) {
        args.fail("give the text once: -p TEXT, -f FILE or --stdin");
    }
    std::string why;
    if (!file.empty() && !tool::read_file(file, prompt, why)) {
        args.fail("cannot read " + file + ": " + why);
    }
    if (from_stdin) {
        prompt.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    }

    tool::log_init(k_prog, verbose ? GGML_LOG_LEVEL_DEBUG : GGML_LOG_LEVEL_WARN, llama_last_error);
    llama_log_set(tool::log_callback, nullptr);
    llama_backend_init();

    llama_model_params mparams = llama_model_default_params();
    mparams.vocab_only         = true;
    llama_model * model        = llama_model_load_from_file(model_path.c_str(), mparams);
    if (!model) {
        return tool::report_failure("cannot load model " + model_path);
    }
    const llama_vocab * vocab = llama_model_get_vocab(model);

    // the first call returns -(number of tokens)
    const int n = -llama_tokenize(vocab, prompt.c_str(), (int) prompt.size(), nullptr, 0, add_bos, parse_special);
    std::vector<llama_token> tokens((size_t) (n > 0 ? n : 0));
    if (n < 0 || (n > 0 && llama_tokenize(vocab, prompt.c_str(), (int) prompt.size(), tokens.data(), n, add_bos,
                                          parse_special) != n)) {
        llama_model_free(model);
        return tool::report_failure("cannot tokenize the text");
    }
    int rc = tool::EXIT_OK;
    if (ids_only) {
        std::printf("[");
        for (size_t i = 0; i < tokens.size(); i++) {
            std::printf("%s%d", i ? ", " : "", tokens[i]);
        }
        std::printf("]\n");
    } else {
        for (llama_token id : tokens) {
            std::vector<char> buf(256);
            int               len = llama_token_to_piece(vocab, id, buf.data(), (int) buf.size(), 0, true);
            if (len < 0) {
                buf.resize((size_t) -len);
                len = llama_token_to_piece(vocab, id, buf.data(), (int) buf.size(), 0, true);
            }
            if (len < 0) {
                rc = tool::report_failure("cannot convert a token to text");
                break;
            }
            std::printf("%6d -> '%.*s'\n", id, len, buf.data());
        }
    }
    if (show_count && rc == tool::EXIT_OK) {
        std::printf("Total number of tokens: %zu\n", tokens.size());
    }
    llama_model_free(model);
    return rc;
}
