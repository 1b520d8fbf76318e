// greedy-ref: the library's own greedy continuation of prompts, for the server tests to compare
// with. One context per prompt, sequence 0, llama_batch_get_one: nothing the server does.
//   greedy-ref MODEL N_PREDICT [--chat] PROMPT...
// Prints one line per prompt: the generated text in hex (bytes, so any text survives the pipe).
// With --chat each prompt is one user message formatted with the model's chat template.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "llama.h"

static void quiet(ggml_log_level, const char *, void *) {}

int main(int argc, char ** argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: greedy-ref MODEL N_PREDICT [--chat] PROMPT...\n");
        return 1;
    }
    llama_log_set(quiet, nullptr);
    llama_backend_init();
    llama_model * model = llama_model_load_from_file(argv[1], llama_model_default_params());
    if (!model) {
        fprintf(stderr, "greedy-ref: cannot load %s\n", argv[1]);
        return 2;
    }
    const llama_vocab * vocab     = llama_model_get_vocab(model);
    const int           n_predict = atoi(argv[2]);
    int                 first     = 3;
    const bool          chat      = std::string(argv[3]) == "--chat";
    first += chat ? 1 : 0;
    for (int a = first; a < argc; a++) {
        std::string prompt = argv[a];
        if (chat) {
            llama_chat_message msg = {"user", argv[a]};
            std::vector<char>  buf(prompt.size() * 2 + 4096);
            const int          n = llama_chat_apply_template(llama_model_chat_template(model, nullptr), &msg, 1, true,
                                                             buf.data(), (int32_t) buf.size());
            if (n < 0 || n > (int) buf.size()) {
                fprintf(stderr, "greedy-ref: chat template failed\n");
                return 2;
            }
            prompt.assign(buf.data(), (size_t) n);
        }
        llama_context_params cp      = llama_context_default_params();
        cp.n_ctx                     = 2048;
        cp.n_batch                   = 2048;
        llama_context *          ctx = llama_init_from_model(model, cp);
        std::vector<llama_token> toks(prompt.size() + 8);
        const int n = llama_tokenize(vocab, prompt.data(), (int32_t) prompt.size(), toks.data(), (int32_t) toks.size(),
                                     true, true);
        if (!ctx || n <= 0) {
            fprintf(stderr, "greedy-ref: setup failed\n");
            return 2;
        }
        toks.resize((size_t) n);
        llama_sampler * smpl = llama_sampler_init_greedy();
        std::string     out;
        llama_batch     batch = llama_batch_get_one(toks.data(), (int32_t) toks.size());
        llama_token     tok   = 0;
        for (int i = 0; i < n_predict; i++) {
            if (llama_decode(ctx, batch) != 0) {
                fprintf(stderr, "greedy-ref: decode failed\n");
                return 2;
            }
            tok = llama_sampler_sample(smpl, ctx, -1);
            if (llama_vocab_is_eog(vocab, tok)) {
                break;
            }
            char      buf[256];
            const int m = llama_token_to_piece(vocab, tok, buf, sizeof(buf), 0, false);
            out.append(buf, (size_t) (m > 0 ? m : 0));
            batch = llama_batch_get_one(&tok, 1);
        }
        for (unsigned char c : out) {
            printf("%02x", c);
        }
        printf("\n");
        llama_sampler_free(smpl);
        llama_free(ctx);
    }
    llama_model_free(model);
    llama_backend_free();
    return 0;
}
