// llama-quantize: llama-quantize [options] IN.gguf OUT.gguf TYPE [nthreads]
// Converts a model with llama_model_quantize (see llama.h) and prints its progress log.
#include <strings.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "arg-parse.h"
#include "imatrix-file.h"
#include "llama.h"
#include "tool-log.h"

struct ftype_name {
    const char * name;
    llama_ftype  ftype;
    const char * desc;
};

static const ftype_name k_ftypes[] = {
    {"Q4_0", LLAMA_FTYPE_MOSTLY_Q4_0, "4.5 bpw, 32-element blocks"},
    {"Q4_1", LLAMA_FTYPE_MOSTLY_Q4_1, "5.0 bpw, 32-element blocks with offset"},
    {"Q5_0", LLAMA_FTYPE_MOSTLY_Q5_0, "5.5 bpw"},
    {"Q5_1", LLAMA_FTYPE_MOSTLY_Q5_1, "6.0 bpw"},
    {"Q8_0", LLAMA_FTYPE_MOSTLY_Q8_0, "8.5 bpw"},
    {"Q2_K", LLAMA_FTYPE_MOSTLY_Q2_K, "K-quant mix, ~2.9 bpw"},
    {"Q3_K_S", LLAMA_FTYPE_MOSTLY_Q3_K_S, "K-quant mix, ~3.4 bpw"},
    {"Q3_K_M", LLAMA_FTYPE_MOSTLY_Q3_K_M, "K-quant mix, ~3.9 bpw"},
    {"Q3_K_L", LLAMA_FTYPE_MOSTLY_Q3_K_L, "K-quant mix, ~4.3 bpw"},
    {"Q4_K_S", LLAMA_FTYPE_MOSTLY_Q4_K_S, "K-quant mix, ~4.6 bpw"},
    {"Q4_K_M", LLAMA_FTYPE_MOSTLY_Q4_K_M, "K-quant mix, ~4.9 bpw (recommended)"},
    {"Q5_K_S", LLAMA_FTYPE_MOSTLY_Q5_K_S, "K-quant mix, ~5.5 bpw"},
    {"Q5_K_M", LLAMA_FTYPE_MOSTLY_Q5_K_M, "K-quant mix, ~5.7 bpw"},
    {"Q6_K", LLAMA_FTYPE_MOSTLY_Q6_K, "6.6 bpw"},
    {"IQ4_NL", LLAMA_FTYPE_MOSTLY_IQ4_NL, "4.5 bpw, non-linear codebook"},
    {"IQ4_XS", LLAMA_FTYPE_MOSTLY_IQ4_XS, "4.25 bpw, non-linear codebook"},
    {"IQ2_XXS", LLAMA_FTYPE_MOSTLY_IQ2_XXS, "2.06 bpw i-quant mix (needs an imatrix)"},
    {"IQ2_XS", LLAMA_FTYPE_MOSTLY_IQ2_XS, "2.31 bpw i-quant mix (needs an imatrix)"},
    {"IQ2_S", LLAMA_FTYPE_MOSTLY_IQ2_S, "2.5 bpw i-quant mix (needs an imatrix)"},
    {"IQ2_M", LLAMA_FTYPE_MOSTLY_IQ2_M, "2.7 bpw i-quant mix (imatrix advised)"},
    {"IQ1_S", LLAMA_FTYPE_MOSTLY_IQ1_S, "1.56 bpw i-quant mix (needs an imatrix)"},
    {"IQ1_M", LLAMA_FTYPE_MOSTLY_IQ1_M, "1.75 bpw i-quant mix (needs an imatrix)"},
    {"IQ3_XXS", LLAMA_FTYPE_MOSTLY_IQ3_XXS, "3.06 bpw i-quant mix (imatrix advised)"},
    {"IQ3_XS", LLAMA_FTYPE_MOSTLY_IQ3_XS, "3.3 bpw i-quant mix (imatrix advised)"},
    {"IQ3_S", LLAMA_FTYPE_MOSTLY_IQ3_S, "3.44 bpw i-quant mix (imatrix advised)"},
    {"IQ3_M", LLAMA_FTYPE_MOSTLY_IQ3_M, "3.66 bpw i-quant mix (imatrix advised)"},
    {"TQ1_0", LLAMA_FTYPE_MOSTLY_TQ1_0, "1.69 bpw ternary (BitNet b1.58 models)"},
    {"TQ2_0", LLAMA_FTYPE_MOSTLY_TQ2_0, "2.06 bpw ternary (BitNet b1.58 models)"},
    {"MXFP4_MOE", LLAMA_FTYPE_MOSTLY_MXFP4_MOE, "MXFP4 experts (4.25 bpw), Q8_0 elsewhere"},
    {"F16", LLAMA_FTYPE_MOSTLY_F16, "16-bit float"},
    {"BF16", LLAMA_FTYPE_MOSTLY_BF16, "bfloat16"},
    {"F32", LLAMA_FTYPE_ALL_F32, "32-bit float"},
};

// Aliases of the mixes by their base type, as llama.cpp accepts them.
static const ftype_name k_aliases[] = {
    {"Q3_K", LLAMA_FTYPE_MOSTLY_Q3_K_M, ""},
    {"Q4_K", LLAMA_FTYPE_MOSTLY_Q4_K_M, ""},
    {"Q5_K", LLAMA_FTYPE_MOSTLY_Q5_K_M, ""},
};

static const char * k_prog = "llama-quantize";

static void print_usage(FILE * out) {
    fprintf(out,
            "usage: %s [options] IN.gguf OUT.gguf TYPE [NTHREADS]\n\n"
            "Converts a GGUF model to a quantized mix. NTHREADS: 0 (all cores, default) to 512.\n\n"
            "options:\n"
            "  --allow-requantize          accept already-quantized input (quality suffers)\n"
            "  --leave-output-tensor       keep output.weight as in the input\n"
            "  --pure                      no per-tensor recipe: every weight matrix gets the base type\n"
            "  --output-tensor-type T      type of output.weight (f16, q8_0, q6_K, ...)\n"
            "  --token-embedding-type T    type of token_embd.weight\n"
            "  --override-kv KEY=TYPE:VAL  set metadata in the output (TYPE int, float, bool, str)\n"
            "  --imatrix FILE              importance matrix (llama-imatrix; GGUF or legacy .dat): the\n"
            "                              searches minimize the activation-weighted error; required\n"
            "                              for the 1-3 bit i-quants\n"
            "  --include-weights NAME      use the imatrix only for tensors whose name contains NAME\n"
            "                              (repeatable)\n"
            "  --exclude-weights NAME      do not use the imatrix for tensors whose name contains NAME\n"
            "                              (repeatable; not with --include-weights)\n"
            "  -h, --help                  print this help and exit\n\n"
            "types (name or llama_ftype number):\n",
            k_prog);
    for (const auto & f : k_ftypes) {
        fprintf(out, "  %3d  %-9s %s\n", (int) f.ftype, f.name, f.desc);
    }
    fprintf(out, "  COPY         copy the tensors unchanged (metadata overrides still apply)\n\n");
    fprintf(out, "exit status: 0 success, 1 usage error, 2 the model could not be read or written\n");
}

static bool parse_ftype(const char * s, llama_ftype & out, bool & only_copy) {
    only_copy = strcasecmp(s, "COPY") == 0;
    if (only_copy) {
        out = LLAMA_FTYPE_ALL_F32;
        return true;
    }
    for (const auto & f : k_ftypes) {
        if (strcasecmp(s, f.name) == 0) {
            out = f.ftype;
            return true;
        }
    }
    for (const auto & f : k_aliases) {
        if (strcasecmp(s, f.name) == 0) {
            out = f.ftype;
            return true;
        }
    }
    char *     end = nullptr;
    const long v   = strtol(s, &end, 10);
    if (end != s && *end == '\0') {
        for (const auto & f : k_ftypes) {
            if (f.ftype == v) {
                out = f.ftype;
                return true;
            }
        }
    }
    return false;
}

static bool parse_ggml_type(const char * s, ggml_type & out) {
    for (int t = 0; t < GGML_TYPE_COUNT; t++) {
        if (ggml_type_is_valid((ggml_type) t) && strcasecmp(s, ggml_type_name((ggml_type) t)) == 0) {
            out = (ggml_type) t;
            return true;
        }
    }
    return false;
}

// KEY=TYPE:VALUE as llama.cpp's --override-kv.
static bool parse_override(const char * s, llama_model_kv_override & kv) {
    const char * eq = strchr(s, '=');
    if (!eq || eq == s || (size_t) (eq - s) >= sizeof(kv.key)) {
        return false;
    }
    memset(&kv, 0, sizeof(kv));
    memcpy(kv.key, s, eq - s);
    const char * v = eq + 1;
    if (strncmp(v, "int:", 4) == 0) {
        kv.tag = LLAMA_KV_OVERRIDE_TYPE_INT;
        return tool::parse_int(v + 4, INT64_MIN, INT64_MAX, kv.val_i64);
    } else if (strncmp(v, "float:", 6) == 0) {
        kv.tag = LLAMA_KV_OVERRIDE_TYPE_FLOAT;
        return tool::parse_float(v + 6, -1e308, 1e308, kv.val_f64);
    } else if (strncmp(v, "bool:", 5) == 0) {
        kv.tag      = LLAMA_KV_OVERRIDE_TYPE_BOOL;
        kv.val_bool = strcmp(v + 5, "true") == 0 || strcmp(v + 5, "1") == 0;
        return kv.val_bool || strcmp(v + 5, "false") == 0 || strcmp(v + 5, "0") == 0;
    } else if (strncmp(v, "str:", 4) == 0 && strlen(v + 4) < sizeof(kv.val_str)) {
        kv.tag = LLAMA_KV_OVERRIDE_TYPE_STR;
        strcpy(kv.val_str, v + 4);
    } else {
        return false;
    }
    return true;
}

int main(int argc, char ** argv) {
    llama_model_quantize_params    params = llama_model_quantize_default_params();
    static llama_model_kv_override overrides[64];
    int                            n_overrides = 0;
    std::vector<std::string>       pos;  // IN OUT TYPE [NTHREADS]
    std::string                    imatrix_file;
    std::vector<std::string>       included, excluded;

    tool::args args(k_prog, argc, argv, print_usage);
    while (args.next()) {
        if (args.is("--allow-requantize")) {
            params.allow_requantize = true;
        } else if (args.is("--leave-output-tensor")) {
            params.quantize_output_tensor = false;
        } else if (args.is("--pure")) {
            params.pure = true;
        } else if (args.is("--output-tensor-type", "--token-embedding-type")) {
            const std::string flag = args.arg();
            const std::string v    = args.value();
            ggml_type         t;
            if (!parse_ggml_type(v.c_str(), t)) {
                args.fail("unknown tensor type '" + v + "' for " + flag + " (f16, q8_0, q6_K, ...)");
            }
            (flag == "--output-tensor-type" ? params.output_tensor_type : params.token_embedding_type) = t;
        } else if (args.is("--imatrix")) {
            imatrix_file = args.value();
        } else if (args.is("--include-weights")) {
            included.push_back(args.value());
        } else if (args.is("--exclude-weights")) {
            excluded.push_back(args.value());
        } else if (args.is("--override-kv")) {
            const std::string v = args.value();
            if (n_overrides >= 63) {
                args.fail("too many --override-kv (at most 63)");
            }
            if (!parse_override(v.c_str(), overrides[n_overrides])) {
                args.fail("invalid value '" + v +
                          "' for --override-kv: expected KEY=int:1, KEY=float:0.5, KEY=bool:true or KEY=str:x");
            }
            n_overrides++;
        } else if (args.positional()) {
            pos.push_back(args.arg());
        } else {
            args.unknown();
        }
    }
    if (pos.size() < 3 || pos.size() > 4) {
        args.fail(pos.size() < 3 ? "expected IN.gguf OUT.gguf TYPE [NTHREADS]" : "unexpected argument: " + pos[4]);
    }
    const std::string & fin  = pos[0];
    const std::string & fout = pos[1];
    if (!parse_ftype(pos[2].c_str(), params.ftype, params.only_copy)) {
        args.fail("unknown type '" + pos[2] + "' (see --help for the list)");
    }
    if (pos.size() == 4) {
        params.nthread = (int32_t) args.int_of("NTHREADS", pos[3], 0, 512);
    }
    if (!included.empty() && !excluded.empty()) {
        args.fail("--include-weights and --exclude-weights cannot be combined");
    }

    // the importance matrix: per-column means, kept alive until the quantization is done
    std::map<std::string, std::vector<float>> im_values;
    std::vector<llama_model_imatrix_data>     im_entries;
    tool::log_init(k_prog, GGML_LOG_LEVEL_INFO, llama_last_error);
    if (!imatrix_file.empty()) {
        imatrix::data im;
        std::string   err;
        if (!imatrix::load(imatrix_file, im, err)) {
            return tool::report_failure("cannot load the imatrix", err);
        }
        for (const auto & kv : im.entries) {
            auto has = [&](const std::vector<std::string> & subs) {
                for (const auto & sub : subs) {
                    if (kv.first.find(sub) != std::string::npos) {
                        return true;
                    }
                }
                return false;
            };
            if ((!included.empty() && !has(included)) || has(excluded)) {
                continue;
            }
            im_values[kv.first] = imatrix::mean_values(kv.second, im.is_legacy);
        }
        for (const auto & kv : im_values) {
            im_entries.push_back({kv.first.c_str(), kv.second.data(), kv.second.size()});
        }
        im_entries.push_back({nullptr, nullptr, 0});  // terminator
        params.imatrix = im_entries.data();
        fprintf(stderr, "%s: imatrix %s: %zu of %zu entries used, %d chunks\n", k_prog, imatrix_file.c_str(),
                im_values.size(), im.entries.size(), im.chunk_count);
        // record the provenance in the output, as llama.cpp's tool does (strings that fit)
        auto add_str = [&](const char * key, const std::string & v) {
            if (n_overrides < 63 && v.size() < sizeof(overrides[0].val_str)) {
                llama_model_kv_override & kv = overrides[n_overrides++];
                memset(&kv, 0, sizeof(kv));
                snprintf(kv.key, sizeof(kv.key), "%s", key);
                kv.tag = LLAMA_KV_OVERRIDE_TYPE_STR;
                memcpy(kv.val_str, v.data(), v.size());
            }
        };
        auto add_int = [&](const char * key, int64_t v) {
            if (n_overrides < 63) {
                llama_model_kv_override & kv = overrides[n_overrides++];
                memset(&kv, 0, sizeof(kv));
                snprintf(kv.key, sizeof(kv.key), "%s", key);
                kv.tag     = LLAMA_KV_OVERRIDE_TYPE_INT;
                kv.val_i64 = v;
            }
        };
        add_str("quantize.imatrix.file", imatrix_file);
        if (!im.datasets.empty()) {
            add_str("quantize.imatrix.dataset", im.datasets.front());
        }
        add_int("quantize.imatrix.entries_count", (int64_t) im_values.size());
        add_int("quantize.imatrix.chunks_count", im.chunk_count);
    }
    if (n_overrides > 0) {
        overrides[n_overrides].key[0] = '\0';  // terminator
        params.kv_overrides           = overrides;
    }

    // the quantizer's progress log (INFO) is the tool's output; its errors are reported once below
    llama_log_set(tool::log_callback, nullptr);
    llama_backend_init();
    const int64_t  t0 = llama_time_us();
    const uint32_t rc = llama_model_quantize(fin.c_str(), fout.c_str(), &params);
    int            status;
    if (rc != 0) {
        status = tool::report_failure("cannot quantize " + fin);
    } else {
        fprintf(stderr, "%s: done in %.1f s\n", k_prog, (llama_time_us() - t0) / 1e6);
        status = tool::EXIT_OK;
    }
    llama_backend_free();
    return status;
}
