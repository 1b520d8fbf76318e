// llama-imatrix: computes an importance matrix (per weight matrix, the sum of squared input
// activations per column and the number of rows) by running a text through a model, and writes
// it in llama.cpp's GGUF imatrix format (or the legacy .dat one) for llama-quantize --imatrix.
// Also combines existing files (--in-file, GGUF or .dat) and prints per-tensor statistics.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "arg-parse.h"
#include "console.h"
#include "imatrix-collect.h"
#include "imatrix-file.h"
#include "llama.h"
#include "tool-log.h"
#include "tool-model.h"

static const char * k_prog = "llama-imatrix";

static void print_usage(FILE * out) {
    fprintf(out,
            "usage: %s -m MODEL.gguf -f TEXT [options]\n"
            "       %s --in-file A.gguf [--in-file B.dat ...] [-o OUT] [--show-statistics]\n\n"
            "Runs TEXT through MODEL and writes the importance matrix (mean squared activation per input\n"
            "column of every weight matrix) for llama-quantize --imatrix.\n\n"
            "options:\n"
            "  -m, --model FILE          model to run (F16/F32 gives the most faithful activations)\n"
            "  -f, --file FILE           text to run through the model\n"
            "  -o, --output-file FILE    output (default imatrix.gguf)\n"
            "  --output-format gguf|dat  file format (default: gguf, or dat when OUT ends in .dat)\n"
            "  --chunks N                process at most N chunks (default: all whole chunks)\n"
            "  -c, --ctx-size N          tokens per chunk (default 512)\n"
            "  -b, --batch-size N        tokens per decode call (default 512; at most the chunk)\n"
            "  -t, --threads N           threads (default: all cores)\n"
            "  --in-file FILE            add an existing imatrix (repeatable)\n"
            "  --output-frequency N      write OUT every N chunks (default 10)\n"
            "  --save-frequency N        also write OUT.at_<chunk> every N chunks (default 0: never)\n"
            "  --process-output          also collect output.weight\n"
            "  --no-bos                  do not put BOS at the start of each chunk\n"
            "  --show-statistics         print per-tensor statistics and exit (with --in-file)\n"
            "  -v, --verbose             log everything\n"
            "  -h, --help                print this help and exit\n\n"
            "exit status: 0 success, 1 usage error, 2 the model, text or files could not be used\n",
            k_prog, k_prog);
}

struct options {
    std::string              model, text_file, out = "imatrix.gguf", format;
    std::vector<std::string> in_files;
    int                      chunks = 0, n_ctx = 512, n_batch = 512, threads = 0, out_freq = 10, save_freq = 0;
    bool                     process_output = false, bos = true, show_stats = false, verbose = false;
};

static bool save(const options & o, const imatrix::data & d, const std::string & path) {
    std::string err;
    const bool  dat =
        o.format == "dat" || (o.format.empty() && path.size() > 4 && path.rfind(".dat") == path.size() - 4);
    if (!(dat ? imatrix::save_legacy(path, d, err) : imatrix::save_gguf(path, d, err))) {
        tool::report_failure("cannot write the imatrix", err);
        return false;
    }
    return true;
}

// Per tensor: the mean squared activation over columns and matrices, its spread, the share of
// columns above 1% of the max (activity), as llama.cpp's --show-statistics reports them in spirit.
static void show_statistics(const imatrix::data & d) {
    printf("%-40s %8s %12s %12s %12s %9s\n", "tensor", "matrices", "mean(x^2)", "min", "max", "active%");
    for (const auto & kv : d.entries) {
        const std::vector<float> v = imatrix::mean_values(kv.second, d.is_legacy);
        if (v.empty()) {
            continue;
        }
        double      sum = 0;
        const float mn  = *std::min_element(v.begin(), v.end());
        const float mx  = *std::max_element(v.begin(), v.end());
        size_t      act = 0;
        for (float x : v) {
            sum += x;
            act += x > 0.01f * mx;
        }
        printf("%-40s %8zu %12.5g %12.5g %12.5g %8.1f%%\n", kv.first.c_str(), kv.second.counts.size(), sum / v.size(),
               mn, mx, 100.0 * act / v.size());
    }
}

int main(int argc, char ** argv) {
    options    o;
    tool::args args(k_prog, argc, argv, print_usage);
    while (args.next()) {
        if (args.is("-m", "--model")) {
            o.model = args.value();
        } else if (args.is("-f", "--file")) {
            o.text_file = args.value();
        } else if (args.is("-o", "--output-file")) {
            o.out = args.value();
        } else if (args.is("--output-format")) {
            o.format = args.value();
            if (o.format != "gguf" && o.format != "dat") {
                args.fail("--output-format must be gguf or dat");
            }
        } else if (args.is("--chunks")) {
            o.chunks = (int) args.int_value(0, 1 << 30);
        } else if (args.is("-c", "--ctx-size")) {
            o.n_ctx = (int) args.int_value(16, 1 << 20);
        } else if (args.is("-b", "--batch-size")) {
            o.n_batch = (int) args.int_value(1, 1 << 20);
        } else if (args.is("-t", "--threads")) {
            o.threads = (int) args.int_value(0, 512);
        } else if (args.is("--in-file")) {
            o.in_files.push_back(args.value());
        } else if (args.is("--output-frequency")) {
            o.out_freq = (int) args.int_value(1, 1 << 30);
        } else if (args.is("--save-frequency")) {
            o.save_freq = (int) args.int_value(0, 1 << 30);
        } else if (args.is("--process-output")) {
            o.process_output = true;
        } else if (args.is("--no-bos")) {
            o.bos = false;
        } else if (args.is("--show-statistics")) {
            o.show_stats = true;
        } else if (args.is("-v", "--verbose")) {
            o.verbose = true;
        } else {
            args.unknown();
        }
    }
    if (o.model.empty() != o.text_file.empty()) {
        args.fail("-m and -f go together");
    }
    if (o.model.empty() && o.in_files.empty()) {
        args.fail("nothing to do: give -m MODEL -f TEXT and/or --in-file");
    }
    tool::log_init(k_prog, o.verbose ? GGML_LOG_LEVEL_DEBUG : GGML_LOG_LEVEL_WARN, llama_last_error);

    imatrix::collector col;
    col.process_output   = o.process_output;
    col.stats.chunk_size = o.n_ctx;
    for (const auto & f : o.in_files) {
        imatrix::data d;
        std::string   err;
        if (!imatrix::load(f, d, err) || !imatrix::merge(col.stats, d, o.n_ctx, err)) {
            return tool::report_failure("cannot use " + f, err);
        }
        fprintf(stderr, "%s: loaded %zu entries from %s (%d chunks)\n", k_prog, d.entries.size(), f.c_str(),
                d.chunk_count);
    }
    if (o.show_stats) {
        show_statistics(col.stats);
        return tool::EXIT_OK;
    }
    if (o.model.empty()) {
        return save(o, col.stats, o.out) ? tool::EXIT_OK : tool::EXIT_RUNTIME;
    }

    std::string text, why;
    if (!tool::read_file(o.text_file, text, why)) {
        return tool::report_failure("cannot read " + o.text_file, why);
    }

    tool::llama_start(k_prog, o.verbose);
    llama_model * model = tool::load_model(o.model, false);
    if (!model) {
        return tool::EXIT_RUNTIME;
    }
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx                = (uint32_t) o.n_ctx;
    cp.n_batch = cp.n_ubatch = (uint32_t) std::min(o.n_batch, o.n_ctx);
    if (o.threads > 0) {
        cp.n_threads = cp.n_threads_batch = o.threads;
    }
    cp.cb_eval           = imatrix::collector::callback;
    cp.cb_eval_user_data = &col;
    llama_context * ctx  = tool::new_context(model, cp);
    if (!ctx) {
        return tool::EXIT_RUNTIME;
    }
    const llama_vocab *      vocab = llama_model_get_vocab(model);
    int                      n = -llama_tokenize(vocab, text.data(), (int32_t) text.size(), nullptr, 0, true, false);
    std::vector<llama_token> tokens((size_t) std::max(n, 0));
    if (n < 0 || llama_tokenize(vocab, text.data(), (int32_t) text.size(), tokens.data(), n, true, false) != n) {
        llama_free(ctx);
        llama_model_free(model);
        return tool::report_failure("cannot tokenize " + o.text_file);
    }
    const bool add_bos = o.bos && llama_vocab_get_add_bos(vocab);
    col.stats.datasets.push_back(o.text_file);
    const int64_t t0 = llama_time_us();
    fprintf(stderr, "%s: %zu tokens, chunks of %d\n", k_prog, tokens.size(), o.n_ctx);
    bool      ok = true;
    const int nc = imatrix::compute(ctx, tokens, o.n_ctx, o.n_batch, o.chunks, add_bos, col, [&](int c) {
        fprintf(stderr, "%s: chunk %d done (%.1f s)\n", k_prog, c, (llama_time_us() - t0) / 1e6);
        if (c % o.out_freq == 0) {
            ok = ok && save(o, col.stats, o.out);
        }
        if (o.save_freq > 0 && c % o.save_freq == 0) {
            ok = ok && save(o, col.stats, o.out + ".at_" + std::to_string(c));
        }
    });
    llama_free(ctx);
    llama_model_free(model);
    if (nc < 0) {
        return tool::report_failure("cannot compute the imatrix", col.error);
    }
    if (!ok || !save(o, col.stats, o.out)) {
        return tool::EXIT_RUNTIME;
    }
    fprintf(stderr, "%s: %zu entries from %d chunks written to %s\n", k_prog, col.stats.entries.size(), nc,
            o.out.c_str());
    return tool::EXIT_OK;
}
