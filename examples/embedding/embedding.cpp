// embedding: prompts in, one vector per prompt out (or one per token with --pooling none; the
// classifier scores of a reranker with --pooling rank). Prompts share batches, one sequence each.
//
//   llama-embedding -m MODEL [-p PROMPT]... [-f FILE] [--pooling P] [--normalize N] [--json]
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "arg-parse.h"
#include "console.h"
#include "llama.h"
#include "tool-log.h"
#include "tool-model.h"

static const char * k_prog = "llama-embedding";

static void print_usage(FILE * out) {
    fprintf(out,
            "usage: %s -m MODEL [options]\n\n"
            "Computes the embedding of each prompt (from -p, -f, or one per line of stdin).\n\n"
            "  -m, --model FILE       GGUF model to load (required)\n"
            "  -p, --prompt TEXT      a prompt (repeatable)\n"
            "  -f, --file FILE        prompts, one per line (empty lines skipped)\n"
            "  --pooling P            none, mean, cls, last or rank (default: the model's)\n"
            "                         none prints one vector per token; rank prints the classifier scores\n"
            "  --normalize N          -1 none, 0 max-abs (scaled to int16 range), 1 taxicab, 2 euclidean\n"
            "                         (default), N > 2 p-norm; not applied to rank scores\n"
            "  --json                 print {\"object\": \"list\", \"data\": [{\"object\": \"embedding\", ...}]}\n"
            "  -c, --ctx-size N       context (and batch) size, 0 (the model's) to %d (default 0)\n"
            "  -t, --threads N        CPU threads, 1 to 512 (default 4)\n"
            "  -v, --verbose          show the library's log\n"
            "  -h, --help             print this help and exit\n\n"
            "exit status: 0 success, 1 usage error, 2 load or compute failure\n",
            k_prog, 1 << 20);
}

// llama.cpp's common_embd_normalize: the same modes and the same int16 scale for max-abs.
static void normalize(const float * in, float * out, int n, int mode) {
    double sum = 0.0;
    switch (mode) {
        case -1:
            sum = 1.0;
            break;
        case 0:
            for (int i = 0; i < n; i++) {
                sum = std::max(sum, (double) std::fabs(in[i]));
            }
            sum /= 32760.0;
            break;
        case 2:
            for (int i = 0; i < n; i++) {
                sum += (double) in[i] * in[i];
            }
            sum = std::sqrt(sum);
            break;
        default:
            for (int i = 0; i < n; i++) {
                sum += std::pow(std::fabs((double) in[i]), mode);
            }
            sum = std::pow(sum, 1.0 / mode);
            break;
    }
    const double norm = sum > 0.0 ? 1.0 / sum : 0.0;
    for (int i = 0; i < n; i++) {
        out[i] = (float) (in[i] * norm);
    }
}

int main(int argc, char ** argv) {
    std::string              model_path;
    std::vector<std::string> prompts;
    int                      pooling   = LLAMA_POOLING_TYPE_UNSPECIFIED;
    int                      norm_mode = 2;
    bool                     json      = false;
    int                      n_ctx     = 0;
    int                      n_threads = 4;
    bool                     verbose   = false;
    bool                     have_src  = false;

    tool::args args(k_prog, argc, argv, print_usage);
    while (args.next()) {
        if (args.is("-m", "--model")) {
            model_path = args.value();
        } else if (args.is("-p", "--prompt")) {
            prompts.push_back(args.value());
            have_src = true;
        } else if (args.is("-f", "--file")) {
            const std::string path = args.value();
            std::string       text, why;
            if (!tool::read_file(path, text, why)) {
                tool::log_init(k_prog, GGML_LOG_LEVEL_WARN, nullptr);
                return tool::report_failure("cannot open " + path, why);
            }
            std::istringstream f(text);
            for (std::string line; std::getline(f, line);) {
                if (!line.empty()) {
                    prompts.push_back(line);
                }
            }
            have_src = true;
        } else if (args.is("--pooling")) {
            const std::string v       = args.value();
            const char *      names[] = {"none", "mean", "cls", "last", "rank"};
            pooling                   = -2;
            for (int k = 0; k < 5; k++) {
                if (v == names[k]) {
                    pooling = k;
                }
            }
            if (pooling == -2) {
                args.fail("invalid value '" + v + "' for --pooling: expected none, mean, cls, last or rank");
            }
        } else if (args.is("--normalize", "--embd-normalize")) {
            norm_mode = (int) args.int_value(-1, 64);
        } else if (args.is("--json")) {
            json = true;
        } else if (args.is("-c", "--ctx-size")) {
            n_ctx = (int) args.int_value(0, 1 << 20);
        } else if (args.is("-t", "--threads")) {
            n_threads = (int) args.int_value(1, 512);
        } else if (args.is("-v", "--verbose")) {
            verbose = true;
        } else {
            args.unknown();
        }
    }
    if (model_path.empty()) {
        args.fail("no model given (-m MODEL)");
    }
    if (!have_src) {
        for (std::string line; std::getline(std::cin, line);) {
            if (!line.empty()) {
                prompts.push_back(line);
            }
        }
    }
    if (prompts.empty()) {
        args.fail("no prompts given (-p TEXT, -f FILE or lines on stdin)");
    }

    tool::llama_start(k_prog, verbose);

    llama_model * model = tool::load_model(model_path, false);
    if (!model) {
        return tool::EXIT_RUNTIME;
    }
    const llama_vocab * vocab = llama_model_get_vocab(model);

    llama_context_params cp = llama_context_default_params();
    cp.embeddings           = true;
    cp.pooling_type         = (enum llama_pooling_type) pooling;
    cp.n_ctx                = (uint32_t) n_ctx;
    cp.n_seq_max            = (uint32_t) std::min<size_t>(prompts.size(), llama_max_parallel_sequences());
    cp.n_threads            = n_threads;
    cp.n_threads_batch      = n_threads;
    // batch = ubatch = the context: an encoder sees each batch at once
    cp.n_batch          = n_ctx ? (uint32_t) n_ctx : (uint32_t) std::max(1, llama_model_n_ctx_train(model));
    cp.n_ubatch         = cp.n_batch;
    llama_context * ctx = tool::new_context(model, cp);
    if (!ctx) {
        return tool::EXIT_RUNTIME;
    }
    const enum llama_pooling_type pt      = llama_pooling_type(ctx);
    const int                     n_embd  = llama_model_n_embd_out(model);  // after dense projections
    const int                     n_out   = pt == LLAMA_POOLING_TYPE_RANK ? (int) llama_model_n_cls_out(model) : n_embd;
    const uint32_t                n_batch = llama_n_batch(ctx);
    const uint32_t                n_seq   = llama_n_seq_max(ctx);

    std::vector<std::vector<float>> vectors;  // in prompt order (per token for pooling none)
    std::vector<float>              tmp(n_out);
    llama_batch                     batch = llama_batch_init((int32_t) n_batch, 0, 1);
    int                             rc    = tool::EXIT_OK;
    std::vector<int>                batch_prompts;  // prompt index of each sequence of the batch

    auto flush = [&]() -> bool {
        if (batch.n_tokens == 0) {
            return true;
        }
        llama_memory_clear(llama_get_memory(ctx), true);  // each batch stands alone
        if (llama_decode(ctx, batch) != 0) {
            return false;
        }
        for (size_t s = 0; s < batch_prompts.size(); s++) {
            if (pt == LLAMA_POOLING_TYPE_NONE) {
                for (int i = 0; i < batch.n_tokens; i++) {
                    if (batch.seq_id[i][0] == (llama_seq_id) s) {
                        const float * e = llama_get_embeddings_ith(ctx, i);
                        if (!e) {
                            return false;
                        }
                        normalize(e, tmp.data(), n_out, norm_mode);
                        vectors.push_back(tmp);
                    }
                }
                continue;
            }
            const float * e = llama_get_embeddings_seq(ctx, (llama_seq_id) s);
            if (!e) {
                return false;
            }
            normalize(e, tmp.data(), n_out, pt == LLAMA_POOLING_TYPE_RANK ? -1 : norm_mode);
            vectors.push_back(tmp);
        }
        batch.n_tokens = 0;
        batch_prompts.clear();
        return true;
    };

    for (size_t p = 0; p < prompts.size() && rc == tool::EXIT_OK; p++) {
        const std::string &      text = prompts[p];
        const int                n    = -llama_tokenize(vocab, text.c_str(), (int) text.size(), nullptr, 0, true, true);
        std::vector<llama_token> toks((size_t) std::max(n, 0));
        if (n <= 0 || llama_tokenize(vocab, text.c_str(), (int) text.size(), toks.data(), n, true, true) < 0) {
            rc = tool::report_failure("cannot tokenize prompt " + std::to_string(p + 1), "");
            break;
        }
        if ((uint32_t) n > n_batch) {
            rc = tool::report_failure("prompt " + std::to_string(p + 1) + " has " + std::to_string(n) +
                                          " tokens, more than the batch size " + std::to_string(n_batch) + " (-c)",
                                      "");
            break;
        }
        if (batch.n_tokens + n > (int) n_batch || batch_prompts.size() == n_seq) {
            if (!flush()) {
                rc = tool::report_failure("cannot compute the embeddings");
                break;
            }
        }
        const llama_seq_id s = (llama_seq_id) batch_prompts.size();
        for (int i = 0; i < n; i++) {
            const int k        = batch.n_tokens++;
            batch.token[k]     = toks[i];
            batch.pos[k]       = i;
            batch.n_seq_id[k]  = 1;
            batch.seq_id[k][0] = s;
            batch.logits[k]    = 1;
        }
        batch_prompts.push_back((int) p);
    }
    if (rc == tool::EXIT_OK && !flush()) {
        rc = tool::report_failure("cannot compute the embeddings");
    }

    if (rc == tool::EXIT_OK) {
        if (json) {
            printf("{\n  \"object\": \"list\",\n  \"data\": [");
            for (size_t i = 0; i < vectors.size(); i++) {
                printf("%s\n    {\"object\": \"embedding\", \"index\": %zu, \"embedding\": [", i ? "," : "", i);
                for (int k = 0; k < n_out; k++) {
                    printf("%s%.9g", k ? ", " : "", vectors[i][k]);
                }
                printf("]}");
            }
            printf("\n  ]\n}\n");
        } else {
            for (size_t i = 0; i < vectors.size(); i++) {
                printf("%s %zu:", pt == LLAMA_POOLING_TYPE_RANK ? "score" : "embedding", i);
                for (int k = 0; k < n_out; k++) {
                    printf(" %.9g", vectors[i][k]);
                }
                printf("\n");
            }
        }
    }

    llama_batch_free(batch);
    llama_free(ctx);
    llama_model_free(model);
    llama_backend_free();
    return rc;
}
