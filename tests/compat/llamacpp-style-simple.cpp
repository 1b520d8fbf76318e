// A client written the way llama.cpp's examples/simple and simple-chat are written (the same calls,
// including ggml_backend_load_all, ggml_time_us, GGML_ABORT, the memory API and chat templates), to
// prove such programs compile and run unchanged against our headers.
//   llamacpp-style-simple MODEL
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "llama.h"

int main(int argc, char ** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s MODEL\n", argv[0]);
        return 2;
    }
    ggml_backend_load_all();

    llama_model_params mparams = llama_model_default_params();
    mparams.n_gpu_layers       = 0;
    llama_model * model        = llama_model_load_from_file(argv[1], mparams);
    if (!model) {
        GGML_ABORT("unable to load model %s", argv[1]);
    }
    const llama_vocab * vocab = llama_model_get_vocab(model);

    // chat template path of simple-chat: apply, tokenize, generate, with memory queries
    const char *       tmpl   = llama_model_chat_template(model, /* name */ nullptr);
    llama_chat_message msgs[] = {{"user", "Once upon a time"}};
    std::vector<char>  formatted(256);
    int                n_fmt = llama_chat_apply_template(tmpl, msgs, 1, true, formatted.data(), (int) formatted.size());
    if (n_fmt > (int) formatted.size()) {
        formatted.resize(n_fmt);
        n_fmt = llama_chat_apply_template(tmpl, msgs, 1, true, formatted.data(), (int) formatted.size());
    }
    if (n_fmt < 0) {
        fprintf(stderr, "failed to apply the chat template\n");
        return 1;
    }

    const std::string prompt   = "Once upon a time";
    const int         n_prompt = -llama_tokenize(vocab, prompt.c_str(), (int) prompt.size(), NULL, 0, true, true);
    std::vector<llama_token> prompt_tokens(n_prompt);
    if (llama_tokenize(vocab, prompt.c_str(), (int) prompt.size(), prompt_tokens.data(), n_prompt, true, true) < 0) {
        GGML_ABORT("failed to tokenize the prompt");
    }

    llama_context_params cparams = llama_context_default_params();
    cparams.n_ctx                = n_prompt + 32;
    cparams.n_batch              = n_prompt;
    cparams.no_perf              = false;
    llama_context * ctx          = llama_init_from_model(model, cparams);
    if (!ctx) {
        fprintf(stderr, "failed to create the context\n");
        return 1;
    }

    auto sparams         = llama_sampler_chain_default_params();
    sparams.no_perf      = false;
    llama_sampler * smpl = llama_sampler_chain_init(sparams);
    llama_sampler_chain_add(smpl, llama_sampler_init_greedy());

    llama_batch batch = llama_batch_get_one(prompt_tokens.data(), (int) prompt_tokens.size());
    if (llama_model_has_encoder(model)) {
        GGML_ABORT("unexpected encoder");
    }

    const int64_t t_start = ggml_time_us();
    std::string   out;
    llama_token   new_token_id;
    for (int n_pos = 0; n_pos + batch.n_tokens < n_prompt + 16;) {
        const int n_ctx_used = llama_memory_seq_pos_max(llama_get_memory(ctx), 0) + 1;
        if (n_ctx_used + batch.n_tokens > (int) llama_n_ctx(ctx)) {
            fprintf(stderr, "context size exceeded\n");
            return 1;
        }
        if (llama_decode(ctx, batch)) {
            GGML_ABORT("failed to eval");
        }
        n_pos += batch.n_tokens;
        new_token_id = llama_sampler_sample(smpl, ctx, -1);
        if (llama_vocab_is_eog(vocab, new_token_id)) {
            break;
        }
        char buf[128];
        int  n = llama_token_to_piece(vocab, new_token_id, buf, sizeof(buf), 0, true);
        if (n < 0) {
            GGML_ABORT("failed to convert token to piece");
        }
        out.append(buf, n);
        batch = llama_batch_get_one(&new_token_id, 1);
    }
    const int64_t t_end = ggml_time_us();
    printf("%s%s\n", prompt.c_str(), out.c_str());
    fprintf(stderr, "generated in %.3f ms\n", (t_end - t_start) / 1000.0);

    llama_perf_sampler_print(smpl);
    llama_perf_context_print(ctx);
    llama_sampler_free(smpl);
    llama_free(ctx);
    llama_model_free(model);
    return 0;
}
