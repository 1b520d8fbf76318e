// llama-gguf-synth: writes a synthetic (random-weight) GGUF model; see gguf-synth.h for the recipe.
//   llama-gguf-synth -o /tmp/tl.gguf --preset tinyllama --type f16 --vocab ggml-vocab-llama-spm.gguf
#include "gguf-synth.h"

#include <chrono>
#include <cstdlib>
#include <strings.h>

static void usage(const char * argv0) {
    fprintf(stderr,
            "usage: %s -o OUT.gguf [options]\n\n"
            "  --arch A         llama (default), qwen2, phi3, gemma, gemma2\n"
            "  --preset P       micro (64x2, the shared micro models), tiny (256x4), stories260k (64x5),\n"
            "                   tinyllama (2048x22, n_ff 5632, 32 heads, 4 KV heads, vocab 32000)\n"
            "  --n-embd N  --n-layer N  --n-ff N  --n-head N  --n-head-kv N  --head-dim N\n"
            "  --n-vocab N  --n-ctx N  --rms-eps X  --rope-base X  --n-swa N\n"
            "  --tied / --untied   share token_embd as the LM head or write output.weight\n"
            "  --type T         f32, f16 (default), bf16 (or a quantized type, e.g. q8_0)\n"
            "  --seed S         (default 42)   --std X  weight stddev (default 0.02)\n"
            "  --vocab FILE     copy the tokenizer.* keys of this GGUF (default: built-in byte vocab)\n"
            "  --name NAME      general.name   --threads N\n",
            argv0);
}

int main(int argc, char ** argv) {
    synth::params p;
    std::string   out;
    // presets first so explicit dims override them whatever the order on the command line
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--preset") == 0 && !synth::apply_preset(argv[i + 1], p)) {
            fprintf(stderr, "unknown preset '%s'\n", argv[i + 1]);
            return 1;
        }
    }
    for (int i = 1; i < argc; i++) {
        const std::string a    = argv[i];
        auto              need = [&]() -> const char * {
            if (i + 1 >= argc) {
                fprintf(stderr, "%s needs a value\n", a.c_str());
                exit(1);
            }
            return argv[++i];
        };
        if (a == "-o" || a == "--output") {
            out = need();
        } else if (a == "--preset") {
            need();
        } else if (a == "--arch") {
            p.arch = need();
        } else if (a == "--n-embd") {
            p.n_embd = atoll(need());
        } else if (a == "--n-layer") {
            p.n_layer = atoll(need());
        } else if (a == "--n-ff") {
            p.n_ff = atoll(need());
        } else if (a == "--n-head") {
            p.n_head = atoll(need());
        } else if (a == "--n-head-kv") {
            p.n_head_kv = atoll(need());
        } else if (a == "--head-dim") {
            p.head_dim = atoll(need());
        } else if (a == "--n-vocab") {
            p.n_vocab = atoll(need());
        } else if (a == "--n-ctx") {
            p.n_ctx = atoll(need());
        } else if (a == "--n-swa") {
            p.n_swa = atoll(need());
        } else if (a == "--rms-eps") {
            p.rms_eps = (float) atof(need());
        } else if (a == "--rope-base") {
            p.rope_base = (float) atof(need());
        } else if (a == "--tied") {
            p.tied = true;
        } else if (a == "--untied") {
            p.tied = false;
        } else if (a == "--type") {
            const char * t     = need();
            bool         found = false;
            for (int k = 0; k < GGML_TYPE_COUNT && !found; k++) {
                if (ggml_type_is_valid((ggml_type) k) && strcasecmp(t, ggml_type_name((ggml_type) k)) == 0) {
                    p.type = (ggml_type) k;
                    found  = true;
                }
            }
            if (!found) {
                fprintf(stderr, "unknown type '%s'\n", t);
                return 1;
            }
        } else if (a == "--seed") {
            p.seed = strtoull(need(), nullptr, 10);
        } else if (a == "--std") {
            p.std = (float) atof(need());
        } else if (a == "--vocab") {
            p.vocab_path = need();
        } else if (a == "--name") {
            p.name = need();
        } else if (a == "--threads") {
            p.n_threads = atoi(need());
        } else if (a == "-h" || a == "--help") {
            usage(argv[0]);
            return 0;
        } else {
            fprintf(stderr, "unknown argument '%s'\n\n", a.c_str());
            usage(argv[0]);
            return 1;
        }
    }
    if (out.empty()) {
        usage(argv[0]);
        return 1;
    }
    const auto  t0 = std::chrono::steady_clock::now();
    std::string err;
    if (!synth::write_model(p, out, err)) {
        fprintf(stderr, "%s: %s\n", argv[0], err.c_str());
        return 1;
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    fprintf(stderr, "%s: wrote %s (%s, %lld x %lld layers, n_ff %lld, %lld/%lld heads, %s) in %.1f s\n", argv[0],
            out.c_str(), p.arch.c_str(), (long long) p.n_embd, (long long) p.n_layer, (long long) p.n_ff,
            (long long) p.n_head, (long long) p.n_head_kv, ggml_type_name(p.type), s);
    return 0;
}
