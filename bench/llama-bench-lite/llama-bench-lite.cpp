// llama-bench-lite MODEL [N_THREADS=2] [N_PROMPT=128] [N_GEN=128] [REPS=5] [FLASH_ATTN=0] [MTP=0]
// Measures, like llama-bench: pp (a prompt of N_PROMPT tokens decoded in one batch) and tg (N_GEN
// tokens decoded one at a time), each repeated REPS times on a cleared cache; prints tokens/s.
// MTP=1 loads the model's NextN block and attaches an MTP decoder (llama_spec_init) to the context,
// so every decode keeps what the head reads (the final norm's row of every token): its cost.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "arg-parse.h"
#include "llama.h"
#include "tool-log.h"
#include "tool-model.h"

static const char * k_prog = "llama-bench-lite";

static void print_usage(FILE * out) {
    fprintf(out,
            "usage: %s MODEL [N_THREADS] [N_PROMPT] [N_GEN] [REPS] [FLASH_ATTN] [MTP]\n\n"
            "Prompt (ppN_PROMPT) and generation (tgN_GEN) speed in tokens/s, median of REPS runs.\n"
            "  N_THREADS   1 to 512 (default 2)\n"
            "  N_PROMPT    1 to 65536 (default 128)\n"
            "  N_GEN       1 to 65536 (default 128)\n"
            "  REPS        1 to 10000 (default 5)\n"
            "  FLASH_ATTN  0 or 1 (default 0)\n"
            "  MTP         0 or 1 (default 0): decode as the target of an MTP decoder (qwen35, qwen35moe, deepseek2)\n"
            "  -h, --help  print this help and exit\n\n"
            "exit status: 0 success, 1 usage error, 2 load or decode failure\n",
            k_prog);
}

int main(int argc, char ** argv) {
    tool::args                     args(k_prog, argc, argv, print_usage);
    const std::vector<std::string> pos = args.positionals(7, "no model given");
    // positional I as NAME in [lo, hi], DEF when absent
    auto num = [&](size_t i, const char * name, int64_t lo, int64_t hi, int64_t def) {
        return args.positional_int(pos, i, name, lo, hi, def);
    };
    const int           n_threads  = num(1, "N_THREADS", 1, 512, 2);
    const int           n_prompt   = num(2, "N_PROMPT", 1, 65536, 128);
    const int           n_gen      = num(3, "N_GEN", 1, 65536, 128);
    const int           reps       = num(4, "REPS", 1, 10000, 5);
    const bool          fa         = num(5, "FLASH_ATTN", 0, 1, 0) != 0;
    const bool          mtp        = num(6, "MTP", 0, 1, 0) != 0;
    const std::string & model_path = pos[0];
    tool::llama_start(k_prog, false);

    llama_model_params mp = llama_model_default_params();
    mp.load_mtp           = mtp;
    llama_model * model   = tool::load_model(model_path, false, mp);
    if (!model) {
        return tool::EXIT_RUNTIME;
    }
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx                = (uint32_t) (n_prompt + n_gen + 16);
    cp.n_batch              = (uint32_t) std::max(n_prompt, 1);
    cp.n_ubatch             = cp.n_batch;
    cp.n_threads            = n_threads;
    cp.n_threads_batch      = n_threads;
    cp.flash_attn_type      = fa ? LLAMA_FLASH_ATTN_TYPE_ENABLED : LLAMA_FLASH_ATTN_TYPE_DISABLED;
    llama_context * ctx     = tool::new_context(model, cp);
    if (!ctx) {
        return tool::EXIT_RUNTIME;
    }
    llama_spec * spec = nullptr;  // only its effect on the target's decodes is measured
    if (mtp) {
        llama_spec_params sp = llama_spec_default_params();
        sp.type              = LLAMA_SPEC_TYPE_MTP;
        spec                 = llama_spec_init(ctx, nullptr, sp);
        if (!spec) {
            return tool::report_failure("cannot attach an MTP decoder");
        }
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
            return tool::report_failure("decode failed");
        }
        pp.push_back(n_prompt / ((llama_time_us() - t0) / 1e6));

        llama_memory_clear(mem, false);
        llama_token tok = 1;
        t0              = llama_time_us();
        for (int i = 0; i < n_gen; i++) {
            if (llama_decode(ctx, llama_batch_get_one(&tok, 1)) != 0) {
                return tool::report_failure("decode failed");
            }
            tok = (llama_token) (1 + (i * 31) % (n_vocab - 1));
        }
        tg.push_back(n_gen / ((llama_time_us() - t0) / 1e6));
    }
    std::sort(pp.begin(), pp.end());
    std::sort(tg.begin(), tg.end());
    printf("model: %s, threads: %d, flash_attn: %d, mtp: %d\n", model_path.c_str(), n_threads, (int) fa, (int) mtp);
    printf("pp%d: %.0f t/s (median of %d)\n", n_prompt, pp[pp.size() / 2], reps);
    printf("tg%d: %.0f t/s (median of %d)\n", n_gen, tg[tg.size() / 2], reps);
    llama_spec_free(spec);
    llama_free(ctx);
    llama_model_free(model);
    llama_backend_free();
    return 0;
}
