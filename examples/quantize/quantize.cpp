// llama-quantize: llama-quantize [options] IN.gguf OUT.gguf TYPE [nthreads]
// Converts a model with llama_model_quantize (see llama.h) and prints its progress log.
#include "llama.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <strings.h>

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

static void usage(const char * argv0) {
    fprintf(stderr,
            "usage: %s [options] IN.gguf OUT.gguf TYPE [nthreads]\n\n"
            "options:\n"
            "  --allow-requantize          accept already-quantized input (quality suffers)\n"
            "  --leave-output-tensor       keep output.weight as in the input\n"
            "  --pure                      no per-tensor recipe: every weight matrix gets the base type\n"
            "  --output-tensor-type T      type of output.weight (f16, q8_0, q6_K, ...)\n"
            "  --token-embedding-type T    type of token_embd.weight\n"
            "  --override-kv KEY=TYPE:VAL  set metadata in the output (TYPE int, float, bool, str)\n\n"
            "types (name or llama_ftype number):\n",
            argv0);
    for (const auto & f : k_ftypes) {
        fprintf(stderr, "  %3d  %-7s %s\n", (int) f.ftype, f.name, f.desc);
    }
    fprintf(stderr, "  COPY         copy the tensors unchanged (metadata overrides still apply)\n");
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
        kv.tag     = LLAMA_KV_OVERRIDE_TYPE_INT;
        kv.val_i64 = strtoll(v + 4, nullptr, 10);
    } else if (strncmp(v, "float:", 6) == 0) {
        kv.tag     = LLAMA_KV_OVERRIDE_TYPE_FLOAT;
        kv.val_f64 = strtod(v + 6, nullptr);
    } else if (strncmp(v, "bool:", 5) == 0) {
        kv.tag      = LLAMA_KV_OVERRIDE_TYPE_BOOL;
        kv.val_bool = strcmp(v + 5, "true") == 0 || strcmp(v + 5, "1") == 0;
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

    int i = 1;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        const std::string a = argv[i];
        if (a == "--allow-requantize") {
            params.allow_requantize = true;
        } else if (a == "--leave-output-tensor") {
            params.quantize_output_tensor = false;
        } else if (a == "--pure") {
            params.pure = true;
        } else if ((a == "--output-tensor-type" || a == "--token-embedding-type") && i + 1 < argc) {
            ggml_type t;
            if (!parse_ggml_type(argv[++i], t)) {
                fprintf(stderr, "unknown tensor type '%s'\n", argv[i]);
                return 1;
            }
            (a == "--output-tensor-type" ? params.output_tensor_type : params.token_embedding_type) = t;
        } else if (a == "--override-kv" && i + 1 < argc) {
            if (n_overrides >= 63 || !parse_override(argv[++i], overrides[n_overrides])) {
                fprintf(stderr, "bad --override-kv '%s' (KEY=int:1, KEY=float:0.5, KEY=bool:true, KEY=str:x)\n",
                        argv[i]);
                return 1;
            }
            n_overrides++;
        } else if (a == "--help" || a == "-h") {
            usage(argv[0]);
            return 0;
        } else {
            fprintf(stderr, "unknown option '%s'\n\n", argv[i]);
            usage(argv[0]);
            return 1;
        }
    }
    if (argc - i < 3 || argc - i > 4) {
        usage(argv[0]);
        return 1;
    }
    const char * fin  = argv[i];
    const char * fout = argv[i + 1];
    if (!parse_ftype(argv[i + 2], params.ftype, params.only_copy)) {
        fprintf(stderr, "unknown type '%s'\n\n", argv[i + 2]);
        usage(argv[0]);
        return 1;
    }
    if (argc - i == 4) {
        params.nthread = atoi(argv[i + 3]);
    }
    if (n_overrides > 0) {
        overrides[n_overrides].key[0] = '\0';  // terminator
        params.kv_overrides           = overrides;
    }

    llama_backend_init();
    const int64_t  t0 = llama_time_us();
    const uint32_t rc = llama_model_quantize(fin, fout, &params);
    if (rc != 0) {
        fprintf(stderr, "%s: failed to quantize: %s\n", argv[0], llama_last_error());
    } else {
        fprintf(stderr, "%s: done in %.1f s\n", argv[0], (llama_time_us() - t0) / 1e6);
    }
    llama_backend_free();
    return rc == 0 ? 0 : 1;
}
