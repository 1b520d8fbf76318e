// simple-chat: a minimal chat loop. Each stdin line is a user message; the conversation is
// formatted with the model's chat template (or chatml), only the new part is decoded, and the
// reply is sampled (min-p 0.05, temperature 0.8) until end of generation or -n tokens.
// When the context is full, the oldest half of the conversation is forgotten (the first token,
// BOS, is kept): the cache is shifted with llama_memory_seq_rm/seq_add, or, when the cache cannot
// shift positions, rebuilt by decoding the kept tokens again.
//
//   llama-simple-chat -m MODEL [-c N_CTX] [-n N_PREDICT] [-t THREADS] [--seed SEED] [-v]
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "arg-parse.h"
#include "llama.h"
#include "tool-log.h"
#include "tool-model.h"

static const char * k_prog = "llama-simple-chat";

static void print_usage(FILE * out) {
    fprintf(out,
            "usage: %s -m MODEL [options]\n\n"
            "Chat on stdin: each line is a user message, an empty line or end of input ends the chat.\n"
            "When the context fills up, the oldest half of the conversation is forgotten.\n\n"
            "  -m, --model FILE       GGUF model to load (required)\n"
            "  -c, --ctx-size N       context size in tokens, 16 to %d (default 2048)\n"
            "  -n, --n-predict N      most tokens per reply, 1 to %d (default: the context size)\n"
            "  -t, --threads N        CPU threads, 1 to 512 (default 2)\n"
            "  --seed N               sampling seed, 0 to 4294967295 (default: random)\n"
            "  -v, --verbose          show the library's log and context shifts\n"
            "  -h, --help             print this help and exit\n\n"
            "Colours are used only when stdout is a terminal and NO_COLOR is not set.\n"
            "exit status: 0 success, 1 usage error, 2 load or generation failure\n",
            k_prog, 1 << 20, 1 << 20);
}

namespace {

// The conversation's tokens in the context (sequence 0), and how to make room for more.
struct chat_context {
    llama_context *          ctx;
    llama_memory_t           mem;
    int                      n_ctx;
    int                      n_keep;  // leading tokens never forgotten (BOS)
    bool                     verbose;
    std::vector<llama_token> tokens;  // what the cache holds, in position order

    // Decodes `batch` after making room for it; false (reason in llama_last_error()) on failure.
    bool decode(const llama_token * toks, int n) {
        if ((int) tokens.size() + n > n_ctx && !make_room(n)) {
            return false;
        }
        if (llama_decode(ctx, llama_batch_get_one(const_cast<llama_token *>(toks), n)) != 0) {
            return false;
        }
        tokens.insert(tokens.end(), toks, toks + n);
        return true;
    }

    // Forgets the oldest half of the conversation after the first n_keep tokens (more if n new
    // tokens still would not fit).
    bool make_room(int n) {
        const int n_past    = (int) tokens.size();
        const int n_discard = std::max((n_past - n_keep) / 2, n_past + n - n_ctx);
        if (n_keep + n > n_ctx || n_discard > n_past - n_keep) {
            return false;  // caller checks sizes first; this is a guard
        }
        if (verbose) {
            fprintf(stderr, "[context full: forgetting %d of %d tokens]\n", n_discard, n_past);
        }
        if (llama_memory_can_shift(mem)) {
            llama_memory_seq_rm(mem, 0, n_keep, n_keep + n_discard);
            llama_memory_seq_add(mem, 0, n_keep + n_discard, -1, -n_discard);
            tokens.erase(tokens.begin() + n_keep, tokens.begin() + n_keep + n_discard);
            return true;
        }
        // no position shift: drop everything after the kept prefix and decode the rest again
        llama_memory_seq_rm(mem, 0, n_keep, -1);
        std::vector<llama_token> rest(tokens.begin() + n_keep + n_discard, tokens.end());
        tokens.resize(n_keep);
        const int n_batch = (int) llama_n_batch(ctx);
        for (size_t i = 0; i < rest.size(); i += (size_t) n_batch) {
            const int m = (int) std::min(rest.size() - i, (size_t) n_batch);
            if (llama_decode(ctx, llama_batch_get_one(rest.data() + i, m)) != 0) {
                return false;
            }
            tokens.insert(tokens.end(), rest.begin() + (long) i, rest.begin() + (long) i + m);
        }
        return true;
    }
};

}  // namespace

int main(int argc, char ** argv) {
    std::string model_path;
    int         n_ctx     = 2048;
    int         n_predict = 0;  // 0: the context size
    int         n_threads = 2;
    uint32_t    seed      = LLAMA_DEFAULT_SEED;
    bool        verbose   = false;

    tool::args args(k_prog, argc, argv, print_usage);
    while (args.next()) {
        if (args.is("-m", "--model")) {
            model_path = args.value();
        } else if (args.is("-c", "--ctx-size")) {
            n_ctx = (int) args.int_value(16, 1 << 20);
        } else if (args.is("-n", "--n-predict")) {
            n_predict = (int) args.int_value(1, 1 << 20);
        } else if (args.is("-t", "--threads")) {
            n_threads = (int) args.int_value(1, 512);
        } else if (args.is("--seed")) {
            seed = (uint32_t) args.uint_value(0, UINT32_MAX);
        } else if (args.is("-v", "--verbose")) {
            verbose = true;
        } else {
            args.unknown();
        }
    }
    if (model_path.empty()) {
        args.fail("no model given (-m MODEL)");
    }
    if (n_predict == 0) {
        n_predict = n_ctx;
    }
    const bool   color    = tool::use_color(stdout);
    const char * c_prompt = color ? "\033[32m" : "";
    const char * c_reply  = color ? "\033[33m" : "";
    const char * c_reset  = color ? "\033[0m" : "";

    tool::llama_start(k_prog, verbose);

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
    chat_context chat{
        ctx, llama_get_memory(ctx), (int) llama_n_ctx(ctx), llama_vocab_get_add_bos(vocab) ? 1 : 0, verbose, {}};

    llama_sampler * smpl = llama_sampler_chain_init(llama_sampler_chain_default_params());
    llama_sampler_chain_add(smpl, llama_sampler_init_min_p(0.05f, 1));
    llama_sampler_chain_add(smpl, llama_sampler_init_temp(0.8f));
    llama_sampler_chain_add(smpl, llama_sampler_init_dist(seed));

    // Generates a reply to an already formatted prompt; only the new text is decoded. Returns 1 on
    // success, 0 when the message cannot fit in the context at all, -1 on a failure (reported).
    auto generate = [&](const std::string & prompt, std::string & response) -> int {
        const bool is_first = chat.tokens.empty();
        const int  n_prompt = -llama_tokenize(vocab, prompt.c_str(), (int) prompt.size(), NULL, 0, is_first, true);
        std::vector<llama_token> prompt_tokens(std::max(n_prompt, 0));
        if (n_prompt <= 0 || llama_tokenize(vocab, prompt.c_str(), (int) prompt.size(), prompt_tokens.data(), n_prompt,
                                            is_first, true) < 0) {
            tool::report_failure("cannot tokenize the prompt");
            return -1;
        }
        if (chat.n_keep + n_prompt + 1 > chat.n_ctx) {
            // not a failure of the chat: this message alone cannot fit; the next one may
            fprintf(stderr, "%s: message too long for the context (%d tokens, context %d): skipped\n", k_prog, n_prompt,
                    chat.n_ctx);
            return 0;
        }
        if (!chat.decode(prompt_tokens.data(), n_prompt)) {
            tool::report_failure("decode failed");
            return -1;
        }
        for (int n_gen = 0; n_gen < n_predict; n_gen++) {
            llama_token new_token = llama_sampler_sample(smpl, ctx, -1);
            if (llama_vocab_is_eog(vocab, new_token)) {
                break;
            }
            char buf[256];
            int  n = llama_token_to_piece(vocab, new_token, buf, sizeof(buf), 0, true);
            if (n < 0) {
                tool::report_failure("cannot convert a token to text", "");
                return -1;
            }
            fwrite(buf, 1, (size_t) n, stdout);
            fflush(stdout);
            response.append(buf, (size_t) n);
            if (!chat.decode(&new_token, 1)) {
                tool::report_failure("decode failed");
                return -1;
            }
        }
        return 1;
    };

    std::vector<llama_chat_message> messages;
    std::vector<std::string>        contents;  // owns the message strings
    std::vector<char>               formatted(llama_n_ctx(ctx));
    int                             prev_len = 0;
    const char *                    tmpl     = llama_model_chat_template(model, nullptr);

    auto apply = [&](bool add_ass) -> int {
        for (size_t i = 0; i < messages.size(); i++) {
            messages[i].content = contents[i].c_str();
        }
        int len = llama_chat_apply_template(tmpl, messages.data(), messages.size(), add_ass, formatted.data(),
                                            (int) formatted.size());
        if (len > (int) formatted.size()) {
            formatted.resize((size_t) len);
            len = llama_chat_apply_template(tmpl, messages.data(), messages.size(), add_ass, formatted.data(),
                                            (int) formatted.size());
        }
        return len;
    };

    int         rc = tool::EXIT_OK;
    std::string user;
    while (rc == tool::EXIT_OK) {
        printf("%s> %s", c_prompt, c_reset);
        fflush(stdout);
        if (!std::getline(std::cin, user) || user.empty()) {
            break;
        }
        contents.push_back(user);
        messages.push_back({"user", nullptr});
        const int new_len = apply(true);
        if (new_len < 0) {
            rc = tool::report_failure("cannot apply the chat template");
            break;
        }
        const std::string prompt(formatted.begin() + prev_len, formatted.begin() + new_len);

        printf("%s", c_reply);
        std::string response;
        const int   status = generate(prompt, response);
        printf("\n%s", c_reset);
        if (status < 0) {
            rc = tool::EXIT_RUNTIME;
            break;
        }
        if (status == 0) {
            contents.pop_back();
            messages.pop_back();
            continue;
        }

        contents.push_back(response);
        messages.push_back({"assistant", nullptr});
        prev_len = apply(false);
        if (prev_len < 0) {
            rc = tool::report_failure("cannot apply the chat template");
        }
    }

    llama_sampler_free(smpl);
    llama_free(ctx);
    llama_model_free(model);
    llama_backend_free();
    return rc;
}
