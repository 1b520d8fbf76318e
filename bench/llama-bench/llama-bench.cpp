// llama-bench: measures prompt processing (pp N), generation (tg N) and both (pg: pp N + tg M) in
// tokens/s over repetitions, for every combination of the parameter lists, on the public llama.h only;
// -d runs each test on top of a KV cache already holding that many tokens (llama.cpp's n_depth).
// Output as llama.cpp's llama-bench (md, csv, json, jsonl) plus our column: generation speed as a
// percentage of the read-bandwidth roofline (bandwidth measured in-process / model weight bytes).
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "../common/read-bandwidth.h"
#include "arg-parse.h"
#include "llama.h"
#include "tool-log.h"
#include "tool-progress.h"

namespace {

// ---- parameters ---------------------------------------------------------------------------------

struct cmd_params {
    std::vector<std::string>         model;
    std::vector<int>                 n_prompt     = {512};
    std::vector<int>                 n_gen        = {128};
    std::vector<std::pair<int, int>> n_pg         = {};
    std::vector<int>                 n_depth      = {0};
    std::vector<int>                 n_batch      = {2048};
    std::vector<int>                 n_ubatch     = {512};
    std::vector<int>                 n_threads    = {0};  // 0: resolved to the core count
    std::vector<int>                 n_gpu_layers = {99};
    std::vector<ggml_type>           type_k       = {GGML_TYPE_F16};
    std::vector<ggml_type>           type_v       = {GGML_TYPE_F16};
    std::vector<int>                 flash_attn   = {0};
    std::vector<int>                 no_repack    = {0};
    int                              reps         = 5;
    bool                             warmup       = true;
    bool                             verbose      = false;
    bool                             progress     = false;
    size_t                           bw_mib       = 256;
    std::string                      output       = "md";
};

struct instance {
    std::string model;
    int         n_prompt, n_gen, n_batch, n_ubatch, n_threads, n_gpu_layers, flash_attn;
    int         no_repack;  // 1: use_extra_bufts off (weights stay in the GGUF layout)
    ggml_type   type_k, type_v;
    int         n_depth;  // tokens put in the KV cache (untimed) before each run of the test
};

const char * k_prog = "llama-bench";

constexpr int64_t k_max_tokens = 1 << 20;

void print_usage(FILE * out) {
    const cmd_params d;
    fprintf(out,
            "usage: %s -m MODEL [options]\n\n"
            "Every option taking values accepts a comma-separated list (and may be repeated); all\n"
            "combinations are run. N below is an integer in the range shown.\n"
            "  -m, --model FILE            model path (required)\n"
            "  -p, --n-prompt N            prompt tokens, test ppN, 0 to %lld (default: 512; 0 = none)\n"
            "  -n, --n-gen N               generated tokens, test tgN, 0 to %lld (default: 128; 0 = none)\n"
            "  -pg PP,TG                   combined test ppPP+tgTG, each 0 to %lld (default: none)\n"
            "  -d, --n-depth N             tokens already in the KV cache when each test starts, filled\n"
            "                              untimed before every repetition; the test's positions follow\n"
            "                              them (shown as \"pp512 @ d4096\"), 0 to %lld (default: 0)\n"
            "  -b, --batch-size N          n_batch, 1 to %lld (default: 2048)\n"
            "  -ub, --ubatch-size N        n_ubatch, 1 to %lld (default: 512)\n"
            "  -t, --threads N             threads, 0 (all cores) to 512 (default: %u)\n"
            "  -ngl, --n-gpu-layers N      layers on the GPU, -1 (all) to 100000 (default: 99)\n"
            "  -ctk, --cache-type-k T      K cache type (default: f16)\n"
            "  -ctv, --cache-type-v T      V cache type (default: f16)\n"
            "  -fa, --flash-attn 0|1       flash attention (default: 0)\n"
            "  -nr, --no-repack 0|1        1: keep CPU weights in the file layout (use_extra_bufts off;\n"
            "                              default: 0)\n"
            "  -r, --repetitions N         repetitions per test, 1 to 100000 (default: %d)\n"
            "  -o, --output md|csv|json|jsonl  output format (default: md)\n"
            "  --bw-mib N                  buffer size of the bandwidth probe, 1 to 65536 (default: 256)\n"
            "  --no-warmup                 skip the warm-up run\n"
            "  --progress                  progress on stderr\n"
            "  -v, --verbose               show the library's log\n"
            "  -h, --help                  print this help and exit\n\n"
            "exit status: 0 success, 1 usage error, 2 a model failed to load or a test failed\n",
            k_prog, (long long) k_max_tokens, (long long) k_max_tokens, (long long) k_max_tokens,
            (long long) k_max_tokens, (long long) k_max_tokens, (long long) k_max_tokens,
            std::max(1u, std::thread::hardware_concurrency()), d.reps);
}

std::vector<std::string> split(const std::string & s, char sep) {
    std::vector<std::string> out;
    std::stringstream        ss(s);
    std::string              item;
    while (std::getline(ss, item, sep)) {
        out.push_back(item);
    }
    return out;
}

bool equal_nocase(const std::string & a, const char * b) {
    size_t i = 0;
    for (; i < a.size() && b[i]; i++) {
        if (std::tolower((unsigned char) a[i]) != std::tolower((unsigned char) b[i])) {
            return false;
        }
    }
    return i == a.size() && !b[i];
}

bool parse_type_list(const std::string & s, std::vector<ggml_type> & out) {
    for (const auto & x : split(s, ',')) {
        bool found = false;
        for (int t = 0; t < GGML_TYPE_COUNT && !found; t++) {
            if (ggml_type_is_valid((ggml_type) t) && equal_nocase(x, ggml_type_name((ggml_type) t))) {
                out.push_back((ggml_type) t);
                found = true;
            }
        }
        if (!found) {
            return false;
        }
    }
    return !out.empty();
}

// Parses the command line into p; usage errors exit through tool::args (exit status 1).
void parse_args(int argc, char ** argv, cmd_params & p) {
    std::map<std::string, bool> seen;  // lists given on the command line replace the defaults
    auto                        reset_once = [&](const std::string & key, auto & list) {
        if (!seen[key]) {
            list.clear();
            seen[key] = true;
        }
    };
    auto append = [](std::vector<int> & list, const std::vector<int> & more) {
        list.insert(list.end(), more.begin(), more.end());
    };
    tool::args args(k_prog, argc, argv, print_usage);
    while (args.next()) {
        if (args.is("--no-warmup")) {
            p.warmup = false;
        } else if (args.is("-v", "--verbose")) {
            p.verbose = true;
        } else if (args.is("--progress")) {
            p.progress = true;
        } else if (args.is("-m", "--model")) {
            reset_once("m", p.model);
            for (auto & m : split(args.value(), ',')) {
                p.model.push_back(m);
            }
        } else if (args.is("-p", "--n-prompt")) {
            reset_once("p", p.n_prompt), append(p.n_prompt, args.int_list_value(0, k_max_tokens));
        } else if (args.is("-n", "--n-gen")) {
            reset_once("n", p.n_gen), append(p.n_gen, args.int_list_value(0, k_max_tokens));
        } else if (args.is("-pg")) {
            const std::vector<int> xy = args.int_list_value(0, k_max_tokens, 2, 2);
            p.n_pg.emplace_back(xy[0], xy[1]);
        } else if (args.is("-d", "--n-depth")) {
            reset_once("d", p.n_depth), append(p.n_depth, args.int_list_value(0, k_max_tokens));
        } else if (args.is("-b", "--batch-size")) {
            reset_once("b", p.n_batch), append(p.n_batch, args.int_list_value(1, k_max_tokens));
        } else if (args.is("-ub", "--ubatch-size")) {
            reset_once("ub", p.n_ubatch), append(p.n_ubatch, args.int_list_value(1, k_max_tokens));
        } else if (args.is("-t", "--threads")) {
            reset_once("t", p.n_threads), append(p.n_threads, args.int_list_value(0, 512));
        } else if (args.is("-ngl", "--n-gpu-layers")) {
            reset_once("ngl", p.n_gpu_layers), append(p.n_gpu_layers, args.int_list_value(-1, 100000));
        } else if (args.is("-ctk", "--cache-type-k") || args.is("-ctv", "--cache-type-v")) {
            const bool        k    = args.is("-ctk", "--cache-type-k");
            const std::string flag = args.arg();
            const std::string v    = args.value();
            reset_once(k ? "ctk" : "ctv", k ? p.type_k : p.type_v);
            if (!parse_type_list(v, k ? p.type_k : p.type_v)) {
                args.fail("invalid value '" + v + "' for " + flag + ": expected cache types (f16, q8_0, ...)");
            }
        } else if (args.is("-fa", "--flash-attn")) {
            reset_once("fa", p.flash_attn), append(p.flash_attn, args.int_list_value(0, 1));
        } else if (args.is("-nr", "--no-repack")) {
            reset_once("nr", p.no_repack), append(p.no_repack, args.int_list_value(0, 1));
        } else if (args.is("-r", "--repetitions")) {
            p.reps = (int) args.int_value(1, 100000);
        } else if (args.is("-o", "--output")) {
            const std::string flag = args.arg();
            p.output               = args.value();
            if (p.output != "md" && p.output != "csv" && p.output != "json" && p.output != "jsonl") {
                args.fail("invalid value '" + p.output + "' for " + flag + ": expected md, csv, json or jsonl");
            }
        } else if (args.is("--bw-mib")) {
            p.bw_mib = (size_t) args.int_value(1, 65536);
        } else {
            args.unknown();
        }
    }
    if (p.model.empty()) {
        args.fail("no model given (-m MODEL)");
    }
    for (int & t : p.n_threads) {
        t = t > 0 ? t : (int) std::max(1u, std::thread::hardware_concurrency());
    }
}

std::vector<instance> make_instances(const cmd_params & p) {
    std::vector<instance> out;
    // model and ngl outermost so a loaded model is reused by consecutive instances
    for (const auto & m : p.model)
        for (int ngl : p.n_gpu_layers)
            for (int nr : p.no_repack)
                for (int nb : p.n_batch)
                    for (int nub : p.n_ubatch)
                        for (ggml_type tk : p.type_k)
                            for (ggml_type tv : p.type_v)
                                for (int fa : p.flash_attn)
                                    for (int nt : p.n_threads)
                                        for (int nd : p.n_depth) {
                                            auto add = [&](int np, int ng) {
                                                out.push_back({m, np, ng, nb, nub, nt, ngl, fa, nr, tk, tv, nd});
                                            };
                                            for (int np : p.n_prompt) {
                                                if (np > 0) {
                                                    add(np, 0);
                                                }
                                            }
                                            for (int ng : p.n_gen) {
                                                if (ng > 0) {
                                                    add(0, ng);
                                                }
                                            }
                                            for (const auto & pg : p.n_pg) {
                                                if (pg.first > 0 || pg.second > 0) {
                                                    add(pg.first, pg.second);
                                                }
                                            }
                                        }
    return out;
}

// ---- memory bandwidth probe ---------------------------------------------------------------------

// Best of 6 streaming reads of `mib` MiB split over n_threads threads, in bytes/s (0 if the probe
// could not run).
double measure_read_bandwidth(int n_threads, size_t mib) {
    return llama_bench_read_bandwidth(n_threads, mib, 6);
}

// ---- running a test -----------------------------------------------------------------------------

struct result {
    instance            inst;
    std::string         model_desc;
    uint64_t            model_size = 0, model_n_params = 0;
    std::vector<double> samples_ns;
    double              bw = 0;  // bytes/s measured with the instance's thread count
    std::string         test_time;
    bool                ok = true;

    double avg_ns() const {
        double s = 0;
        for (double x : samples_ns) {
            s += x;
        }
        return samples_ns.empty() ? 0 : s / samples_ns.size();
    }
    double stddev_ns() const {
        if (samples_ns.size() < 2) {
            return 0;
        }
        const double m = avg_ns();
        double       s = 0;
        for (double x : samples_ns) {
            s += (x - m) * (x - m);
        }
        return std::sqrt(s / (samples_ns.size() - 1));
    }
    std::vector<double> samples_ts() const {
        std::vector<double> ts;
        for (double x : samples_ns) {
            ts.push_back(1e9 * (inst.n_prompt + inst.n_gen) / x);
        }
        return ts;
    }
    double avg_ts() const {
        const auto ts = samples_ts();
        double     s  = 0;
        for (double x : ts) {
            s += x;
        }
        return ts.empty() ? 0 : s / ts.size();
    }
    double stddev_ts() const {
        const auto ts = samples_ts();
        if (ts.size() < 2) {
            return 0;
        }
        const double m = avg_ts();
        double       s = 0;
        for (double x : ts) {
            s += (x - m) * (x - m);
        }
        return std::sqrt(s / (ts.size() - 1));
    }
    bool is_tg() const { return inst.n_prompt == 0 && inst.n_gen > 0; }
    // generation reads every weight once per token: tokens/s <= bandwidth / weight bytes
    double      roofline_ts() const { return model_size > 0 ? bw / (double) model_size : 0; }
    double      roofline_pct() const { return roofline_ts() > 0 ? 100.0 * avg_ts() / roofline_ts() : 0; }
    std::string name() const {
        std::string n;
        if (inst.n_prompt > 0 && inst.n_gen == 0) {
            n = "pp" + std::to_string(inst.n_prompt);
        } else if (inst.n_prompt == 0) {
            n = "tg" + std::to_string(inst.n_gen);
        } else {
            n = "pp" + std::to_string(inst.n_prompt) + "+tg" + std::to_string(inst.n_gen);
        }
        return inst.n_depth > 0 ? n + " @ d" + std::to_string(inst.n_depth) : n;
    }
};

// Decodes n_prompt random tokens in batches of n_batch; bos (if any) leads only when the cache is
// empty, so a prompt after a depth fill continues that sequence (positions follow on).
bool decode_prompt(llama_context * ctx, int n_prompt, int n_batch, int n_vocab, llama_token bos, std::mt19937 & rng) {
    std::vector<llama_token> tokens(n_batch);
    const bool               at_start = llama_memory_seq_pos_max(llama_get_memory(ctx), 0) < 0;
    for (int done = 0; done < n_prompt;) {
        const int n = std::min(n_batch, n_prompt - done);
        for (int i = 0; i < n; i++) {
            tokens[i] =
                (at_start && done == 0 && i == 0 && bos != LLAMA_TOKEN_NULL) ? bos : (llama_token) (rng() % n_vocab);
        }
        if (llama_decode(ctx, llama_batch_get_one(tokens.data(), n)) != 0) {
            tool::report_failure("decode failed");
            return false;
        }
        done += n;
    }
    return true;
}

bool decode_gen(llama_context * ctx, int n_gen, int n_vocab, llama_token bos, std::mt19937 & rng) {
    llama_token token = bos != LLAMA_TOKEN_NULL ? bos : 0;
    for (int i = 0; i < n_gen; i++) {
        if (llama_decode(ctx, llama_batch_get_one(&token, 1)) != 0) {
            tool::report_failure("decode failed");
            return false;
        }
        token = (llama_token) (rng() % n_vocab);
    }
    return true;
}

std::string now_iso8601() {
    char   buf[32];
    time_t t = time(nullptr);
    // std::gmtime's static result is fine here: one thread formats the report
    strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return buf;
}

// The CPU device's description: the processor's name as the OS reports it.
std::string cpu_info() {
    for (size_t i = 0; i < ggml_backend_dev_count(); i++) {
        ggml_backend_dev_t d = ggml_backend_dev_get(i);
        if (ggml_backend_dev_type(d) == GGML_BACKEND_DEVICE_TYPE_CPU) {
            return ggml_backend_dev_description(d);
        }
    }
    return "unknown";
}

std::string backend_name(int n_gpu_layers) {
    std::string out;
    if (n_gpu_layers > 0 && llama_supports_gpu_offload()) {
        for (size_t i = 0; i < ggml_backend_reg_count(); i++) {
            const std::string n = ggml_backend_reg_name(ggml_backend_reg_get(i));
            if (n != "CPU") {
                out += (out.empty() ? "" : ",") + n;
            }
        }
    }
    return out.empty() ? "CPU" : out;
}

std::string gpu_info() {
    std::string out;
    for (size_t i = 0; i < ggml_backend_dev_count(); i++) {
        ggml_backend_dev_t d = ggml_backend_dev_get(i);
        if (ggml_backend_dev_type(d) != GGML_BACKEND_DEVICE_TYPE_CPU) {
            out += (out.empty() ? "" : ", ") + std::string(ggml_backend_dev_description(d));
        }
    }
    return out;
}

// ---- printers -----------------------------------------------------------------------------------

struct printer {
    virtual ~printer() = default;
    virtual void header(const cmd_params &) {}
    virtual void row(const result &) = 0;
    virtual void footer() {}
};

std::string json_escape(const std::string & s) {
    std::string o;
    for (char c : s) {
        if (c == '"' || c == '\\') {
            o += '\\', o += c;
        } else if ((unsigned char) c < 0x20) {
            char b[8];
            snprintf(b, sizeof(b), "\\u%04x", c);
            o += b;
        } else {
            o += c;
        }
    }
    return o;
}

std::string join(const std::vector<double> & v, const char * fmt) {
    std::string o;
    for (size_t i = 0; i < v.size(); i++) {
        char b[64];
        snprintf(b, sizeof(b), fmt, v[i]);
        o += (i ? ", " : "") + std::string(b);
    }
    return o;
}

// (field, value, is_string) in llama.cpp's llama-bench order, then our roofline fields.
std::vector<std::tuple<std::string, std::string, bool>> fields(const result & r) {
    char buf[64];
    auto num = [&](double x, const char * f) {
        snprintf(buf, sizeof(buf), f, x);
        return std::string(buf);
    };
    const instance &                                        i = r.inst;
    std::vector<std::tuple<std::string, std::string, bool>> f = {
        {"build_commit", "unknown", true},
        {"build_number", "0", false},
        {"lib_version", llama_version(), true},
        {"cpu_info", cpu_info(), true},
        {"gpu_info", gpu_info(), true},
        {"backends", backend_name(i.n_gpu_layers), true},
        {"model_filename", i.model, true},
        {"model_type", r.model_desc, true},
        {"model_size", std::to_string(r.model_size), false},
        {"model_n_params", std::to_string(r.model_n_params), false},
        {"n_batch", std::to_string(i.n_batch), false},
        {"n_ubatch", std::to_string(i.n_ubatch), false},
        {"n_threads", std::to_string(i.n_threads), false},
        {"type_k", ggml_type_name(i.type_k), true},
        {"type_v", ggml_type_name(i.type_v), true},
        {"n_gpu_layers", std::to_string(i.n_gpu_layers), false},
        {"flash_attn", i.flash_attn ? "true" : "false", false},
        {"no_repack", i.no_repack ? "true" : "false", false},
        {"n_prompt", std::to_string(i.n_prompt), false},
        {"n_gen", std::to_string(i.n_gen), false},
        {"n_depth", std::to_string(i.n_depth), false},
        {"test_time", r.test_time, true},
        {"avg_ns", num(r.avg_ns(), "%.0f"), false},
        {"stddev_ns", num(r.stddev_ns(), "%.0f"), false},
        {"avg_ts", num(r.avg_ts(), "%.6f"), false},
        {"stddev_ts", num(r.stddev_ts(), "%.6f"), false},
        {"mem_bw_gbs", num(r.bw / 1e9, "%.3f"), false},
        {"roofline_ts", r.is_tg() ? num(r.roofline_ts(), "%.6f") : "null", false},
        {"roofline_pct", r.is_tg() ? num(r.roofline_pct(), "%.2f") : "null", false},
    };
    return f;
}

struct csv_printer : printer {
    bool first = true;
    void row(const result & r) override {
        const auto f = fields(r);
        if (first) {
            for (size_t k = 0; k < f.size(); k++) {
                printf("%s%s", k ? "," : "", std::get<0>(f[k]).c_str());
            }
            printf(",samples_ns,samples_ts\n");
            first = false;
        }
        for (size_t k = 0; k < f.size(); k++) {
            std::string v = std::get<1>(f[k]) == "null" ? "" : std::get<1>(f[k]);
            std::string q;
            for (char c : v) {
                q += c == '"' ? std::string("\"\"") : std::string(1, c);
            }
            printf("%s\"%s\"", k ? "," : "", q.c_str());
        }
        printf(",\"%s\",\"%s\"\n", join(r.samples_ns, "%.0f").c_str(), join(r.samples_ts(), "%.6f").c_str());
        fflush(stdout);
    }
};

std::string json_object(const result & r, bool pretty) {
    const char * sep   = pretty ? ",\n    " : ", ";
    std::string  o     = pretty ? "  {\n    " : "{";
    bool         first = true;
    for (const auto & [k, v, is_str] : fields(r)) {
        o += (first ? "" : sep) + std::string("\"") + k + "\": " + (is_str ? "\"" + json_escape(v) + "\"" : v);
        first = false;
    }
    o += sep + std::string("\"samples_ns\": [") + join(r.samples_ns, "%.0f") + "]";
    o += sep + std::string("\"samples_ts\": [") + join(r.samples_ts(), "%.6f") + "]";
    o += pretty ? "\n  }" : "}";
    return o;
}

struct json_printer : printer {
    bool first = true;
    void header(const cmd_params &) override { printf("[\n"); }
    void row(const result & r) override {
        printf("%s%s", first ? "" : ",\n", json_object(r, true).c_str());
        first = false;
        fflush(stdout);
    }
    void footer() override { printf("\n]\n"); }
};

struct jsonl_printer : printer {
    void row(const result & r) override {
        printf("%s\n", json_object(r, false).c_str());
        fflush(stdout);
    }
};

struct md_printer : printer {
    std::vector<std::string> cols;

    void header(const cmd_params & p) override {
        const cmd_params d;
        cols = {"model", "size", "params", "backend"};
        if (llama_supports_gpu_offload()) {
            cols.push_back("ngl");
        }
        cols.push_back("threads");
        // like llama.cpp, parameters show only when they differ from the defaults
        if (p.n_batch != d.n_batch)
            cols.push_back("n_batch");
        if (p.n_ubatch != d.n_ubatch)
            cols.push_back("n_ubatch");
        if (p.type_k != d.type_k)
            cols.push_back("type_k");
        if (p.type_v != d.type_v)
            cols.push_back("type_v");
        if (p.flash_attn != d.flash_attn)
            cols.push_back("fa");
        if (p.no_repack != d.no_repack)
            cols.push_back("nr");
        cols.push_back("test");
        cols.push_back("t/s");
        cols.push_back("tg % roofline");
        std::string h = "|", s = "|";
        for (const auto & c : cols) {
            const bool right = c != "model" && c != "backend" && c != "test";
            h += " " + c + " |";
            s += right ? std::string(std::max<size_t>(c.size(), 3) + 1, '-') + ":|"
                       : " " + std::string(std::max<size_t>(c.size(), 3), '-') + " |";
        }
        printf("%s\n%s\n", h.c_str(), s.c_str());
    }
    void row(const result & r) override {
        char        b[128];
        std::string line = "|";
        for (const auto & c : cols) {
            std::string v;
            if (c == "model") {
                v = r.model_desc;
            } else if (c == "size") {
                const double gib = r.model_size / 1073741824.0;
                snprintf(b, sizeof(b), gib >= 1 ? "%.2f GiB" : "%.2f MiB", gib >= 1 ? gib : gib * 1024), v = b;
            } else if (c == "params") {
                const double n = (double) r.model_n_params;
                snprintf(b, sizeof(b), n >= 1e9 ? "%.2f B" : "%.2f M", n >= 1e9 ? n / 1e9 : n / 1e6), v = b;
            } else if (c == "backend") {
                v = backend_name(r.inst.n_gpu_layers);
            } else if (c == "ngl") {
                v = std::to_string(r.inst.n_gpu_layers);
            } else if (c == "threads") {
                v = std::to_string(r.inst.n_threads);
            } else if (c == "n_batch") {
                v = std::to_string(r.inst.n_batch);
            } else if (c == "n_ubatch") {
                v = std::to_string(r.inst.n_ubatch);
            } else if (c == "type_k") {
                v = ggml_type_name(r.inst.type_k);
            } else if (c == "type_v") {
                v = ggml_type_name(r.inst.type_v);
            } else if (c == "fa") {
                v = std::to_string(r.inst.flash_attn);
            } else if (c == "nr") {
                v = std::to_string(r.inst.no_repack);
            } else if (c == "test") {
                v = r.name();
            } else if (c == "t/s") {
                snprintf(b, sizeof(b), "%.2f ± %.2f", r.avg_ts(), r.stddev_ts()), v = r.ok ? b : "failed";
            } else if (c == "tg % roofline") {
                if (r.is_tg() && r.ok) {
                    snprintf(b, sizeof(b), "%.1f%% of %.1f (%.1f GB/s)", r.roofline_pct(), r.roofline_ts(), r.bw / 1e9);
                    v = b;
                } else {
                    v = "-";
                }
            }
            line += " " + v + " |";
        }
        printf("%s\n", line.c_str());
        fflush(stdout);
    }
};

}  // namespace

int main(int argc, char ** argv) {
    cmd_params params;
    parse_args(argc, argv, params);
    tool::log_init(k_prog, params.verbose ? GGML_LOG_LEVEL_DEBUG : GGML_LOG_LEVEL_WARN, llama_last_error);
    llama_log_set(tool::log_callback, nullptr);
    llama_backend_init();

    std::unique_ptr<printer> out;
    if (params.output == "csv") {
        out.reset(new csv_printer());
    } else if (params.output == "json") {
        out.reset(new json_printer());
    } else if (params.output == "jsonl") {
        out.reset(new jsonl_printer());
    } else {
        out.reset(new md_printer());
    }

    // the bandwidth roofline per thread count, measured before any model is in memory
    std::map<int, double> bandwidth;
    for (int t : params.n_threads) {
        if (!bandwidth.count(t)) {
            bandwidth[t] = measure_read_bandwidth(t, params.bw_mib);
            if (params.progress) {
                fprintf(stderr, "llama-bench: read bandwidth with %d threads: %.2f GB/s\n", t, bandwidth[t] / 1e9);
            }
        }
    }

    out->header(params);
    const std::vector<instance> insts = make_instances(params);
    llama_model *               model = nullptr;
    std::string                 model_key;
    int                         rc = 0;
    for (size_t k = 0; k < insts.size(); k++) {
        const instance &  in  = insts[k];
        const std::string key = in.model + "|" + std::to_string(in.n_gpu_layers) + "|" + std::to_string(in.no_repack);
        if (!model && key == model_key) {
            continue;  // this model failed to load: reported once, its other tests are skipped
        }
        if (!model || key != model_key) {
            llama_model_free(model);
            llama_model_params mp = llama_model_default_params();
            mp.n_gpu_layers       = in.n_gpu_layers;
            mp.use_extra_bufts    = in.no_repack == 0;
            tool::load_progress progress;
            progress.attach(mp);
            model     = llama_model_load_from_file(in.model.c_str(), mp);
            model_key = key;
            progress.finish();
            if (!model) {
                rc = tool::report_failure("cannot load model " + in.model);
                continue;
            }
        }
        if (params.progress) {
            fprintf(stderr, "llama-bench: test %zu/%zu\n", k + 1, insts.size());
        }
        llama_context_params cp = llama_context_default_params();
        cp.n_ctx                = (uint32_t) (in.n_prompt + in.n_gen + in.n_depth);
        cp.n_batch              = (uint32_t) in.n_batch;
        cp.n_ubatch             = (uint32_t) in.n_ubatch;
        cp.n_threads            = in.n_threads;
        cp.n_threads_batch      = in.n_threads;
        cp.type_k               = in.type_k;
        cp.type_v               = in.type_v;
        cp.flash_attn_type      = in.flash_attn ? LLAMA_FLASH_ATTN_TYPE_ENABLED : LLAMA_FLASH_ATTN_TYPE_DISABLED;
        cp.no_perf              = true;
        llama_context * ctx     = llama_init_from_model(model, cp);
        if (!ctx) {
            rc = tool::report_failure("cannot create a context");
            continue;
        }
        result r;
        r.inst = in;
        char desc[256];
        llama_model_desc(model, desc, sizeof(desc));
        r.model_desc     = desc;
        r.model_size     = llama_model_size(model);
        r.model_n_params = llama_model_n_params(model);
        r.bw             = bandwidth[in.n_threads];
        r.test_time      = now_iso8601();

        const llama_vocab * vocab   = llama_model_get_vocab(model);
        const int           n_vocab = llama_vocab_n_tokens(vocab);
        const llama_token   bos     = llama_vocab_bos(vocab);
        std::mt19937        rng(1234);
        llama_memory_t      mem     = llama_get_memory(ctx);
        const int           n_batch = (int) std::min<uint32_t>(llama_n_batch(ctx), (uint32_t) in.n_batch);

        if (params.warmup) {
            if (in.n_prompt > 0) {
                r.ok = r.ok && decode_prompt(ctx, in.n_prompt, n_batch, n_vocab, bos, rng);
            }
            if (in.n_gen > 0) {
                r.ok = r.ok && decode_gen(ctx, 1, n_vocab, bos, rng);
            }
        }
        for (int rep = 0; rep < params.reps && r.ok; rep++) {
            llama_memory_clear(mem, false);
            if (in.n_depth > 0) {
                r.ok = decode_prompt(ctx, in.n_depth, n_batch, n_vocab, bos, rng);  // not timed
                if (!r.ok) {
                    break;
                }
            }
            const auto t0 = std::chrono::steady_clock::now();
            if (in.n_prompt > 0) {
                r.ok = decode_prompt(ctx, in.n_prompt, n_batch, n_vocab, bos, rng);
            }
            if (r.ok && in.n_gen > 0) {
                r.ok = decode_gen(ctx, in.n_gen, n_vocab, bos, rng);
            }
            const auto t1 = std::chrono::steady_clock::now();
            if (r.ok) {
                r.samples_ns.push_back((double) std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
            }
        }
        llama_free(ctx);
        if (!r.ok) {
            rc = tool::EXIT_RUNTIME;
        }
        out->row(r);
    }
    out->footer();
    llama_model_free(model);
    llama_backend_free();
    return rc;
}
