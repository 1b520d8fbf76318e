// llama-bench-batch MODEL [N_THREADS=2] [REPS=200] [N_PAST=32] [FLASH_ATTN=1] [N_CTX]
// Time of one llama_decode of a small batch, with every sequence already holding N_PAST tokens:
//   seq1 xN: N tokens of one sequence (a prompt chunk, speculative drafts)
//   seqN x1: one token for each of N sequences (continuous batching in a server)
// Every token asks for logits. After each timed decode the new tokens are removed again, so every
// repetition sees the same cache. Prints the median and the 10th percentile in ms per decode, and
// the graphs the context reused (llama_perf_context) over the repetitions.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "arg-parse.h"
#include "llama.h"
#include "tool-log.h"
#include "tool-model.h"

static const char * k_prog = "llama-bench-batch";

static void print_usage(FILE * out) {
    fprintf(out,
            "usage: %s MODEL [N_THREADS] [REPS] [N_PAST] [FLASH_ATTN] [N_CTX]\n\n"
            "Milliseconds per llama_decode of 1, 2, 4, 8 tokens of one sequence (seq1 xN) and of one token\n"
            "for each of 1, 2, 4, 8 sequences (seqN x1); median and 10th percentile of REPS decodes.\n"
            "  N_THREADS   1 to 512 (default 2)\n"
            "  REPS        1 to 100000 (default 200)\n"
            "  N_PAST      0 to 4096, tokens already in each sequence (default 32)\n"
            "  FLASH_ATTN  0 or 1 (default 1)\n"
            "  N_CTX       context size, at least 8 * (N_PAST + 8) (default: that, + 64)\n"
            "  -h, --help  print this help and exit\n\n"
            "exit status: 0 success, 1 usage error, 2 load or decode failure\n",
            k_prog);
}

namespace {
constexpr int k_max = 8;  // largest batch and sequence count

struct bench_ctx {
    llama_context * ctx;
    llama_memory_t  mem;
    int             n_vocab;
    int             n_past;
};

llama_token tok_at(int n_vocab, int i) {
    return (llama_token) (1 + (i * 7919) % (n_vocab - 1));
}

// n_seq sequences of n_tok tokens each at positions n_past.., all with logits; timed; then removed.
bool run_shape(bench_ctx & b, llama_batch & batch, int n_seq, int n_tok, int reps, std::vector<double> & ms,
               int & reused) {
    batch.n_tokens = 0;
    for (int s = 0; s < n_seq; s++) {
        for (int t = 0; t < n_tok; t++) {
            const int i        = batch.n_tokens++;
            batch.token[i]     = tok_at(b.n_vocab, 3 * i + s);
            batch.pos[i]       = b.n_past + t;
            batch.n_seq_id[i]  = 1;
            batch.seq_id[i][0] = s;
            batch.logits[i]    = 1;
        }
    }
    llama_perf_context_reset(b.ctx);
    ms.clear();
    for (int r = -2; r < reps; r++) {  // two untimed warm-ups (graph build, first touch)
        const int64_t t0 = llama_time_us();
        if (llama_decode(b.ctx, batch) != 0) {
            return false;
        }
        const int64_t t1 = llama_time_us();
        if (r >= 0) {
            ms.push_back((t1 - t0) / 1000.0);
        }
        for (int s = 0; s < n_seq; s++) {
            llama_memory_seq_rm(b.mem, s, b.n_past, -1);
        }
    }
    reused = llama_perf_context(b.ctx).n_reused;
    std::sort(ms.begin(), ms.end());
    return true;
}
}  // namespace

int main(int argc, char ** argv) {
    tool::args                     args(k_prog, argc, argv, print_usage);
    const std::vector<std::string> pos = args.positionals(6, "no model given");
    // positional I as NAME in [lo, hi], DEF when absent
    auto num = [&](size_t i, const char * name, int64_t lo, int64_t hi, int64_t def) {
        return args.positional_int(pos, i, name, lo, hi, def);
    };
    const int           n_threads  = num(1, "N_THREADS", 1, 512, 2);
    const int           reps       = num(2, "REPS", 1, 100000, 200);
    const int           n_past     = num(3, "N_PAST", 0, 4096, 32);
    const bool          fa         = num(4, "FLASH_ATTN", 0, 1, 1) != 0;
    const int           n_ctx_min  = k_max * (n_past + k_max);
    const int           n_ctx      = num(5, "N_CTX", n_ctx_min, 1 << 20, n_ctx_min + 64);
    const std::string & model_path = pos[0];
    tool::llama_start(k_prog, false);

    llama_model * model = tool::load_model(model_path, false);
    if (!model) {
        return tool::EXIT_RUNTIME;
    }
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx                = (uint32_t) n_ctx;
    cp.n_batch              = (uint32_t) std::max(n_past, k_max);
    cp.n_ubatch             = cp.n_batch;
    cp.n_seq_max            = k_max;
    cp.n_threads            = n_threads;
    cp.n_threads_batch      = n_threads;
    cp.flash_attn_type      = fa ? LLAMA_FLASH_ATTN_TYPE_ENABLED : LLAMA_FLASH_ATTN_TYPE_DISABLED;
    llama_context * ctx     = tool::new_context(model, cp);
    if (!ctx) {
        return tool::EXIT_RUNTIME;
    }
    bench_ctx b{ctx, llama_get_memory(ctx), llama_vocab_n_tokens(llama_model_get_vocab(model)), n_past};

    // the history: n_past tokens in each sequence
    llama_batch batch = llama_batch_init(std::max(n_past, k_max * k_max), 0, 1);
    for (int s = 0; s < k_max && n_past > 0; s++) {
        batch.n_tokens = n_past;
        for (int i = 0; i < n_past; i++) {
            batch.token[i]     = tok_at(b.n_vocab, i + s);
            batch.pos[i]       = i;
            batch.n_seq_id[i]  = 1;
            batch.seq_id[i][0] = s;
            batch.logits[i]    = i == n_past - 1;
        }
        if (llama_decode(ctx, batch) != 0) {
            return tool::report_failure("prompt decode failed");
        }
    }

    printf("model: %s, threads: %d, flash_attn: %d, n_past: %d, n_ctx: %d, reps: %d\n", model_path.c_str(), n_threads,
           (int) fa, n_past, n_ctx, reps);
    printf("%-8s %10s %10s %10s %8s\n", "shape", "median_ms", "p10_ms", "ms/token", "reused");
    std::vector<double> ms;
    for (int shape = 0; shape < 2; shape++) {
        for (int n = 1; n <= k_max; n *= 2) {
            const int n_seq  = shape == 0 ? 1 : n;
            const int n_tok  = shape == 0 ? n : 1;
            int       reused = 0;
            if (!run_shape(b, batch, n_seq, n_tok, reps, ms, reused)) {
                return tool::report_failure("decode failed");
            }
            const double med = ms[ms.size() / 2];
            char         name[32];
            snprintf(name, sizeof(name), "seq%d x%d", n_seq, n_tok);
            printf("%-8s %10.3f %10.3f %10.3f %8d\n", name, med, ms[ms.size() / 10], med / (n_seq * n_tok), reused);
        }
    }
    llama_batch_free(batch);
    llama_free(ctx);
    llama_model_free(model);
    llama_backend_free();
    return 0;
}
