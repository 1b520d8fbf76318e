// simple-chat: a minimal chat loop. Each stdin line is a user message; the conversation is
// formatted with the model's chat template (or chatml), only the new part is decoded, and the
// reply is sampled (min-p 0.05, temperature 0.8) until end of generation.
//
//   llama-simple-chat -m MODEL [-c N_CTX] [-t THREADS] [--seed SEED]
#include "llama.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

static void usage(const char * argv0) {
    fprintf(stderr, "usage: %s -m MODEL [-c N_CTX] [-t THREADS] [--seed SEED]\n", argv0);
}

int main(int argc, char ** argv) {
    std::string model_path;
    int         n_ctx     = 2048;
    int         n_threads = 2;
    uint32_t    seed      = LLAMA_DEFAULT_SEED;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-m") && i + 1 < argc) {
            model_path = argv[++i];
        } else if (!strcmp(argv[i], "-c") && i + 1 < argc) {
            n_ctx = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "-t") && i + 1 < argc) {
            n_threads = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            seed = (uint32_t) strtoul(argv[++i], nullptr, 10);
        } else {
            usage(argv[0]);
            return 1;
        }
    }
    if (model_path.empty()) {
        usage(argv[0]);
        return 1;
    }

    llama_log_set(
        [](enum ggml_log_level level, const char * text, void *) {
            if (level >= GGML_LOG_LEVEL_ERROR) {
                fputs(text, stderr);
            }
        },
        nullptr);
    llama_backend_init();

    llama_model * model = llama_model_load_from_file(model_path.c_str(), llama_model_default_params());
    if (!model) {
        fprintf(stderr, "error: unable to load model: %s\n", llama_last_error());
        return 1;
    }
    const llama_vocab * vocab = llama_model_get_vocab(model);

    llama_context_params cparams = llama_context_default_params();
    cparams.n_ctx                = (uint32_t) n_ctx;
    cparams.n_batch              = (uint32_t) n_ctx;
    cparams.n_threads            = n_threads;
    cparams.n_threads_batch      = n_threads;
    llama_context * ctx          = llama_init_from_model(model, cparams);
    if (!ctx) {
        fprintf(stderr, "error: failed to create the context: %s\n", llama_last_error());
        return 1;
    }

    llama_sampler * smpl = llama_sampler_chain_init(llama_sampler_chain_default_params());
    llama_sampler_chain_add(smpl, llama_sampler_init_min_p(0.05f, 1));
    llama_sampler_chain_add(smpl, llama_sampler_init_temp(0.8f));
    llama_sampler_chain_add(smpl, llama_sampler_init_dist(seed));

    // generates a reply to an already formatted prompt; only the new text is decoded
    auto generate = [&](const std::string & prompt) -> std::string {
        std::string response;
        const bool  is_first = llama_memory_seq_pos_max(llama_get_memory(ctx), 0) == -1;

        const int n_prompt = -llama_tokenize(vocab, prompt.c_str(), (int) prompt.size(), NULL, 0, is_first, true);
        std::vector<llama_token> prompt_tokens(n_prompt);
        if (llama_tokenize(vocab, prompt.c_str(), (int) prompt.size(), prompt_tokens.data(), n_prompt, is_first, true) <
            0) {
            fprintf(stderr, "error: failed to tokenize the prompt\n");
            return response;
        }
        llama_batch batch = llama_batch_get_one(prompt_tokens.data(), (int) prompt_tokens.size());
        llama_token new_token;
        while (true) {
            const int n_ctx_used = llama_memory_seq_pos_max(llama_get_memory(ctx), 0) + 1;
            if (n_ctx_used + batch.n_tokens > (int) llama_n_ctx(ctx)) {
                printf("\n");
                fprintf(stderr, "context size exceeded\n");
                break;
            }
            if (llama_decode(ctx, batch)) {
                fprintf(stderr, "error: decode failed: %s\n", llama_last_error());
                break;
            }
            new_token = llama_sampler_sample(smpl, ctx, -1);
            if (llama_vocab_is_eog(vocab, new_token)) {
                break;
            }
            char buf[256];
            int  n = llama_token_to_piece(vocab, new_token, buf, sizeof(buf), 0, true);
            if (n < 0) {
                fprintf(stderr, "error: failed to convert a token to a piece\n");
                break;
            }
            std::string piece(buf, (size_t) n);
            printf("%s", piece.c_str());
            fflush(stdout);
            response += piece;
            batch = llama_batch_get_one(&new_token, 1);
        }
        return response;
    };

    std::vector<llama_chat_message> messages;
    std::vector<std::string>        contents;  // owns the message strings
    std::vector<char>               formatted(llama_n_ctx(ctx));
    int                             prev_len = 0;
    const char *                    tmpl     = llama_model_chat_template(model, nullptr);

    auto apply = [&](bool add_ass) -> int {
        int len = llama_chat_apply_template(tmpl, messages.data(), messages.size(), add_ass, formatted.data(),
                                            (int) formatted.size());
        if (len > (int) formatted.size()) {
            formatted.resize((size_t) len);
            len = llama_chat_apply_template(tmpl, messages.data(), messages.size(), add_ass, formatted.data(),
                                            (int) formatted.size());
        }
        return len;
    };

    std::string user;
    while (true) {
        printf("\033[32m> \033[0m");
        fflush(stdout);
        if (!std::getline(std::cin, user) || user.empty()) {
            break;
        }
        contents.push_back(user);
        messages.push_back({"user", nullptr});
        for (size_t i = 0; i < messages.size(); i++) {
            messages[i].content = contents[i].c_str();
        }
        const int new_len = apply(true);
        if (new_len < 0) {
            fprintf(stderr, "error: failed to apply the chat template\n");
            return 1;
        }
        const std::string prompt(formatted.begin() + prev_len, formatted.begin() + new_len);

        printf("\033[33m");
        const std::string response = generate(prompt);
        printf("\n\033[0m");

        contents.push_back(response);
        messages.push_back({"assistant", nullptr});
        for (size_t i = 0; i < messages.size(); i++) {
            messages[i].content = contents[i].c_str();
        }
        prev_len = apply(false);
        if (prev_len < 0) {
            fprintf(stderr, "error: failed to apply the chat template\n");
            return 1;
        }
    }

    llama_sampler_free(smpl);
    llama_free(ctx);
    llama_model_free(model);
    llama_backend_free();
    return 0;
}
