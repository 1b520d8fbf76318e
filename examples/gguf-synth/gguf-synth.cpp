// llama-gguf-synth: writes a synthetic (random-weight) GGUF model; see gguf-synth.h for the recipe.
//   llama-gguf-synth -o /tmp/tl.gguf --preset tinyllama --type f16 --vocab ggml-vocab-llama-spm.gguf
#include "gguf-synth-adapter.h"

#include <strings.h>

#include <chrono>

#include "arg-parse.h"
#include "tool-log.h"

static const char * k_prog = "llama-gguf-synth";

static void print_usage(FILE * out) {
    fprintf(out,
            "usage: %s -o OUT.gguf [options]\n\n"
            "Writes a synthetic (random-weight) GGUF model.\n\n"
            "  -o, --output FILE   the model to write (required)\n"
            "  --arch A         %s (default: llama)\n"
            "                   (encoders: n_head_kv defaults to n_head; layer norm epsilon 1e-12 unless --rms-eps)\n"
            "  --n-expert N     %s: mixture of experts with N experts, 0 (dense) to 256\n"
            "  --n-expert-used N   experts per token, 0 (2) to n-expert;  --n-ff-exp N  qwen3moe/gpt-oss expert size\n"
            "  --n-ff-shexp N   granitemoe with experts: a shared expert of N (0: none)\n"
            "  --conv-layers F  lfm2, granitehybrid: per-layer recurrent flags, e.g. 11010 (one 0/1 per layer;\n"
            "                   1 = short conv / mamba2, 0 = attention; default: 1010...)\n"
            "  --shortconv-l N  lfm2: the convolution kernel width, shortconv.l_cache (3)\n"
            "  --hybrid-pattern S  nemotron_h: one letter per layer, M Mamba-2, * attention, - feed-forward\n"
            "                   (nemotron_h_moe: E experts in place of -)\n"
            "  --moe-latent N   nemotron_h_moe: the experts run N wide between ffn_latent_down / _up (0: none)\n"
            "  --full-attn-interval N  qwen3next, qwen35, qwen35moe: every N-th layer attends, the others are\n"
            "                   delta-net layers (4);\n"
            "                   its delta-net shape: --ssm-conv, --ssm-state (head width), --ssm-heads (v heads),\n"
            "                   --ssm-groups (k heads)\n"
            "  --ssm-conv N  --ssm-inner N  --ssm-state N  --ssm-heads N  --ssm-groups N\n"
            "                   mamba2: conv kernel (4), inner size (0: 2 n_embd), state size (16),\n"
            "                   heads (0: inner / 16), B/C groups (1)\n"
            "  deepseek2:       --n-lora-kv N (latent rank, required) --n-lora-q N (0: one attn_q) --mla-kv-fused\n"
            "                   (one attn_kv_b, older files); --head-dim is the q/k (and value) head, --n-rot its\n"
            "                   rotated part; --n-dense-lead N --n-expert-shared N --n-expert-groups N\n"
            "                   --n-group-used N --expert-gating 0|1|2 (not written, softmax, sigmoid)\n"
            "                   --expert-weights-scale X --expert-weights-norm --yarn-log-mul X\n"
            "                   --exps-gate-up (the experts' gate and up in one ffn_gate_up_exps)\n"
            "  kimi-linear:     --conv-layers (1 = KDA layer, 0 = latent attention), --ssm-conv, --ssm-state\n"
            "                   (KDA head width; as many heads as --n-head), the latent attention and routing\n"
            "                   options of deepseek2 (one attn_q: no --n-lora-q)\n"
            "  --n-nextn N      glm4moe, qwen35, qwen35moe, deepseek2: the last N of the --n-layer blocks are\n"
            "                   NextN (multi-token prediction) blocks (nextn_predict_layers); glm4moe also takes the\n"
            "                   routing options above\n"
            "  --no-qk-norm     leave out optional q/k norms the usual files have (glm4moe: GLM-4.5-Air)\n"
            "  --micro NAME     the architecture and shape of the shared micro model NAME (llama, ..., deepseek2,\n"
            "                   llama-moe: tests/data/models/synthetic/NAME-micro-f16.gguf, with --vocab)\n"
            "  --preset P       micro (64x2, the shared micro models), tiny (256x4), stories260k (64x5),\n"
            "                   tinyllama (2048x22, n_ff 5632, 32 heads, 4 KV heads, vocab 32000),\n"
            "                   llama3-8b (4096x32, n_ff 14336, 32 heads, 8 KV heads, vocab 128256)\n"
            "  --n-embd N  --n-ff N  --n-head N  --n-head-kv N    1 to 1048576\n"
            "  --n-layer N      1 to 4096          --head-dim N   0 (n_embd / n_head) to 65536\n"
            "  --n-rot N        rotated dims per head, 0 (head-dim) to it (rope.dimension_count)\n"
            "  --n-vocab N      0 (vocab default) to 16777216\n"
            "  --n-ctx N        1 to 16777216      --n-swa N      0 (architecture default) to 16777216\n"
            "  --rms-eps X      0 (architecture default) to 1 (the layer norm epsilon for encoders)\n"
            "  --cls-out N      %s: write a reranker head (cls, cls.output) with N scores, 0 to 65536\n"
            "  --pooling N      <arch>.pooling_type, 0 none, 1 mean, 2 cls, 3 last, 4 rank (encoders: default 2,\n"
            "                   or 4 with --cls-out; decoders: not written unless given)\n"
            "  --dense-out N    %s: write the dense output projection\n"
            "                   (dense_2 with N outputs; dense_3 back to n_embd where the layout has it)\n"
            "  --causal 0|1     write <arch>.attention.causal (encoders: 0 unless given)\n"
            "  --extras         also write the optional weights only some models have (biases, rope_freqs,\n"
            "                   jina-bert-v2's q/k norms, attn_norm_2 and a separate ffn_gate, dense_2's bias)\n"
            "  --rope-base X    1 to 1e12\n"
            "  --rope-scaling T    <arch>.rope.scaling.type: none, linear, yarn, longrope (default: not written)\n"
            "  --rope-scale X   rope.scaling.factor, 1 to 1e6;  --rope-orig-ctx N  its original_context_length\n"
            "  --yarn-beta-fast X  --yarn-beta-slow X   0 to 1e6;  --rope-attn-factor X  0 to 100\n"
            "  --rope-factors   %s: write LongRoPE rope_factors_long / rope_factors_short\n"
            "  --swa-layers F   gemma3, gpt-oss: per-layer sliding-window flags, e.g. 110110 (one 0/1 per layer)\n"
            "  --tied / --untied   share token_embd as the LM head or write output.weight\n"
            "  --type T         f32, f16 (default), bf16 (or a quantized type, e.g. q8_0)\n"
            "  --seed S         0 to 18446744073709551615 (default 42)\n"
            "  --std X          weight stddev, 0 to 100 (default 0.02)\n"
            "  --ternary        weight matrices in {-1, 0, +1} x one scale per tensor (BitNet b1.58 style,\n"
            "                   std x sqrt(3/2), F16-exact; for TQ1_0 / TQ2_0); norms and biases as usual\n"
            "  --quiet-from N   decoders: blocks N and later write their residual projections (attention\n"
            "                   output, FFN down) --quiet-scale X (0 to 1, default 0.01) times as large, and\n"
            "                   every block's are scaled for N blocks: the first N blocks, embeddings and head\n"
            "                   are those of the same seed's --n-layer N model, which then predicts nearly\n"
            "                   what this one does (a draft / target pair for speculative decoding)\n"
            "  --vocab FILE     copy the tokenizer.* keys of this GGUF (default: built-in byte vocab)\n"
            "  --name NAME      general.name\n"
            "  --threads N      0 (all cores) to 512\n"
            "  -h, --help       print this help and exit\n\n"
            "Adapters for an existing model MODEL (F32/F16 weights for --merge):\n"
            "  --lora-of MODEL  write a LoRA adapter with random factors instead of a model\n"
            "    --rank N (1 to 65536, default 4)  --alpha X (0 = no alpha key)  --std X (default 0.05)\n"
            "    --type f32|f16  --seed S  --targets a,b (attn_q,attn_k,attn_v,attn_output,ffn_gate,ffn_up,\n"
            "    ffn_down; also token_embd, output)  --invocation T1,T2 (token ids: an aLoRA)\n"
            "  --cvec-of MODEL  write a control vector (direction.1 .. direction.<n_layer-1>, N(0, std))\n"
            "  --merge MODEL    write MODEL with W + k B A for each --lora FILE[:SCALE] (scale default 1)\n\n"
            "exit status: 0 success, 1 usage error, 2 the model could not be written\n",
            k_prog, synth::arch_names().c_str(),
            // the architectures whose tensor layout has experts / a classifier head / LongRoPE factors
            synth::arch_names([](const synth::arch_info & i) { return i.moe; }).c_str(),
            synth::arch_names([](const synth::arch_info & i) { return i.layout->has(LLM_TL_CLS_HEAD); }).c_str(),
            synth::arch_names([](const synth::arch_info & i) { return i.layout->has(LLM_TL_DENSE_PROJ); }).c_str(),
            synth::arch_names([](const synth::arch_info & i) { return i.layout->has(LLM_TL_ROPE_FACTORS); }).c_str());
}

int main(int argc, char ** argv) {
    synth::params p;
    std::string   out;
    tool::args    args(k_prog, argc, argv, print_usage);
    bool          kv_given = false;
    // adapter modes
    synth::lora_params                         lp;
    std::string                                cvec_of, merge_of;
    std::vector<std::pair<std::string, float>> merge_loras;
    bool                                       std_given = false, type_given = false;
    // presets first so explicit dims override them whatever the order on the command line
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--preset") == 0 && !synth::apply_preset(argv[i + 1], p)) {
            args.fail(std::string("unknown preset '") + argv[i + 1] +
                      "' for --preset (micro, tiny, stories260k, tinyllama, llama3-8b)");
        }
        if (strcmp(argv[i], "--micro") == 0 && !synth::apply_micro_model(argv[i + 1], p)) {
            args.fail(std::string("no micro model '") + argv[i + 1] + "' for --micro");
        }
    }
    while (args.next()) {
        if (args.is("-o", "--output")) {
            out = args.value();
        } else if (args.is("--preset") || args.is("--micro")) {
            args.value();
        } else if (args.is("--arch")) {
            p.arch = args.value();
        } else if (args.is("--n-embd")) {
            p.n_embd = args.int_value(1, 1 << 20);
        } else if (args.is("--n-layer")) {
            p.n_layer = args.int_value(1, 4096);
        } else if (args.is("--n-ff")) {
            p.n_ff = args.int_value(1, 1 << 20);
        } else if (args.is("--n-head")) {
            p.n_head = args.int_value(1, 1 << 20);
        } else if (args.is("--n-head-kv")) {
            p.n_head_kv = args.int_value(1, 1 << 20);
            kv_given    = true;
        } else if (args.is("--head-dim")) {
            p.head_dim = args.int_value(0, 1 << 16);
        } else if (args.is("--n-rot")) {
            p.n_rot = args.int_value(0, 1 << 16);
        } else if (args.is("--n-vocab")) {
            p.n_vocab = args.int_value(0, 1 << 24);
        } else if (args.is("--n-ctx")) {
            p.n_ctx = args.int_value(1, 1 << 24);
        } else if (args.is("--n-expert")) {
            p.n_expert = args.int_value(0, 256);
        } else if (args.is("--n-expert-used")) {
            p.n_expert_used = args.int_value(0, 256);
        } else if (args.is("--n-ff-exp")) {
            p.n_ff_exp = args.int_value(0, 1 << 20);
        } else if (args.is("--n-ff-shexp")) {
            p.n_ff_shexp = args.int_value(0, 1 << 20);
        } else if (args.is("--moe-latent")) {
            p.n_moe_latent = args.int_value(0, 1 << 20);
        } else if (args.is("--conv-layers")) {
            const std::string f = args.value();
            p.conv_flags.clear();
            for (char c : f) {
                if (c != '0' && c != '1') {
                    args.fail("--conv-layers takes a string of 0 and 1, one per layer");
                }
                p.conv_flags.push_back(c == '1');
            }
        } else if (args.is("--hybrid-pattern")) {
            p.layer_pattern = args.value();
        } else if (args.is("--full-attn-interval")) {
            p.full_attn_interval = args.int_value(2, 4096);
        } else if (args.is("--shortconv-l")) {
            p.shortconv_l = args.int_value(2, 64);
        } else if (args.is("--ssm-conv")) {
            p.ssm_d_conv = args.int_value(2, 64);
        } else if (args.is("--ssm-inner")) {
            p.ssm_d_inner = args.int_value(0, 1 << 16);
        } else if (args.is("--ssm-state")) {
            p.ssm_d_state = args.int_value(1, 1024);
        } else if (args.is("--ssm-heads")) {
            p.ssm_n_head = args.int_value(0, 1 << 16);
        } else if (args.is("--ssm-groups")) {
            p.ssm_n_group = args.int_value(1, 64);
        } else if (args.is("--n-expert-shared")) {
            p.n_expert_shared = args.int_value(0, 64);
        } else if (args.is("--n-dense-lead")) {
            p.n_layer_dense_lead = args.int_value(0, 4096);
        } else if (args.is("--no-qk-norm")) {
            p.no_qk_norm = true;
        } else if (args.is("--exps-gate-up")) {
            p.exps_gate_up_fused = true;
        } else if (args.is("--n-nextn")) {
            p.n_nextn = args.int_value(0, 4096);
        } else if (args.is("--n-expert-groups")) {
            p.n_expert_groups = args.int_value(0, 256);
        } else if (args.is("--n-group-used")) {
            p.n_group_used = args.int_value(0, 256);
        } else if (args.is("--expert-gating")) {
            p.expert_gating = (int) args.int_value(0, 2);
        } else if (args.is("--expert-weights-scale")) {
            p.expert_weights_scale = (float) args.float_value(0, 1000);
        } else if (args.is("--expert-weights-norm")) {
            p.expert_weights_norm = true;
        } else if (args.is("--n-lora-q")) {
            p.n_lora_q = args.int_value(0, 1 << 16);
        } else if (args.is("--n-lora-kv")) {
            p.n_lora_kv = args.int_value(0, 1 << 16);
        } else if (args.is("--mla-kv-fused")) {
            p.mla_kv_fused = true;
        } else if (args.is("--yarn-log-mul")) {
            p.yarn_log_mul = (float) args.float_value(0, 100);
        } else if (args.is("--n-swa")) {
            p.n_swa = args.int_value(0, 1 << 24);
        } else if (args.is("--rms-eps")) {
            p.rms_eps = (float) args.float_value(0, 1);
        } else if (args.is("--cls-out")) {
            p.n_cls_out = args.int_value(0, 65536);
        } else if (args.is("--dense-out")) {
            p.n_dense_out = args.int_value(0, 1 << 20);
        } else if (args.is("--causal")) {
            p.causal = (int) args.int_value(0, 1);
        } else if (args.is("--extras")) {
            p.extras = true;
        } else if (args.is("--pooling")) {
            p.pooling = (int) args.int_value(0, 4);
        } else if (args.is("--rope-base")) {
            p.rope_base = (float) args.float_value(1, 1e12);
        } else if (args.is("--rope-scaling")) {
            p.rope_scaling = args.value();
        } else if (args.is("--rope-scale")) {
            p.rope_scaling_factor = (float) args.float_value(1, 1e6);
        } else if (args.is("--rope-orig-ctx")) {
            p.rope_orig_ctx = args.int_value(1, 1 << 24);
        } else if (args.is("--yarn-beta-fast")) {
            p.yarn_beta_fast = (float) args.float_value(0, 1e6);
        } else if (args.is("--yarn-beta-slow")) {
            p.yarn_beta_slow = (float) args.float_value(0, 1e6);
        } else if (args.is("--rope-attn-factor")) {
            p.rope_attn_factor = (float) args.float_value(0, 100);
        } else if (args.is("--swa-layers")) {
            const std::string f = args.value();
            p.swa_flags.clear();
            for (char c : f) {
                if (c != '0' && c != '1') {
                    args.fail("--swa-layers takes a string of 0 and 1, one per layer");
                }
                p.swa_flags.push_back(c == '1');
            }
        } else if (args.is("--rope-factors")) {
            p.rope_factors = true;
        } else if (args.is("--tied")) {
            p.tied = true;
        } else if (args.is("--untied")) {
            p.tied = false;
        } else if (args.is("--type")) {
            const std::string t     = args.value();
            bool              found = false;
            for (int k = 0; k < GGML_TYPE_COUNT && !found; k++) {
                if (ggml_type_is_valid((ggml_type) k) && strcasecmp(t.c_str(), ggml_type_name((ggml_type) k)) == 0) {
                    p.type = (ggml_type) k;
                    found  = true;
                }
            }
            if (!found) {
                args.fail("unknown type '" + t + "' for --type (f32, f16, bf16, q8_0, ...)");
            }
            lp.type    = p.type;
            type_given = true;
        } else if (args.is("--seed")) {
            p.seed = lp.seed = args.uint_value(0, UINT64_MAX);
        } else if (args.is("--std")) {
            p.std = lp.std = (float) args.float_value(0, 100);
            std_given      = true;
        } else if (args.is("--ternary")) {
            p.ternary = true;
        } else if (args.is("--quiet-from")) {
            p.quiet_from = args.int_value(1, 4096);
        } else if (args.is("--quiet-scale")) {
            p.quiet_scale = (float) args.float_value(0, 1);
        } else if (args.is("--lora-of")) {
            lp.model_path = args.value();
        } else if (args.is("--rank")) {
            lp.rank = args.int_value(1, 65536);
        } else if (args.is("--alpha")) {
            lp.alpha = (float) args.float_value(-1e6, 1e6);
        } else if (args.is("--targets")) {
            lp.targets.clear();
            std::string v = args.value();
            for (size_t a = 0, b; a <= v.size(); a = b + 1) {
                b = v.find(',', a);
                b = b == std::string::npos ? v.size() : b;
                if (b > a) {
                    lp.targets.push_back(v.substr(a, b - a));
                }
            }
        } else if (args.is("--invocation")) {
            for (int t : args.int_list_value(0, INT32_MAX)) {
                lp.invocation_tokens.push_back((uint32_t) t);
            }
        } else if (args.is("--cvec-of")) {
            cvec_of = args.value();
        } else if (args.is("--merge")) {
            merge_of = args.value();
        } else if (args.is("--lora")) {
            std::string  v     = args.value();
            float        scale = 1.0f;
            const size_t colon = v.rfind(':');
            if (colon != std::string::npos) {
                scale = (float) args.float_of("--lora scale", v.substr(colon + 1), -1e6, 1e6);
                v     = v.substr(0, colon);
            }
            merge_loras.emplace_back(v, scale);
        } else if (args.is("--vocab")) {
            p.vocab_path = args.value();
        } else if (args.is("--name")) {
            p.name = args.value();
        } else if (args.is("--threads")) {
            p.n_threads = (int) args.int_value(0, 512);
        } else {
            args.unknown();
        }
    }
    if (out.empty()) {
        args.fail("no output file given (-o OUT.gguf)");
    }
    const int n_modes = !lp.model_path.empty() + !cvec_of.empty() + !merge_of.empty();
    if (n_modes > 1) {
        args.fail("--lora-of, --cvec-of and --merge exclude each other");
    }
    if (n_modes == 1) {
        tool::log_init(k_prog, GGML_LOG_LEVEL_WARN, nullptr);
        ggml_log_set(tool::log_callback, nullptr);
        std::string err;
        bool        ok = false;
        if (!lp.model_path.empty()) {
            lp.std  = std_given ? lp.std : 0.05f;
            lp.type = type_given ? lp.type : GGML_TYPE_F32;
            ok      = synth::write_lora(lp, out, err);
        } else if (!cvec_of.empty()) {
            ok = synth::write_cvec(cvec_of, p.seed, std_given ? p.std : 0.05f, out, err);
        } else {
            if (merge_loras.empty()) {
                args.fail("--merge needs at least one --lora FILE[:SCALE]");
            }
            ok = synth::write_merged(merge_of, merge_loras, out, err);
        }
        if (!ok) {
            return tool::report_failure(err, tool::failure_reason());
        }
        fprintf(stderr, "%s: wrote %s\n", k_prog, out.c_str());
        return tool::EXIT_OK;
    }
    if (synth::is_encoder_arch(p.arch) && !kv_given) {
        p.n_head_kv = p.n_head;  // encoders have no grouped-query attention
    }
    // ggml's errors (an unreadable --vocab file) are held and reported once, with the reason below
    tool::log_init(k_prog, GGML_LOG_LEVEL_WARN, nullptr);
    ggml_log_set(tool::log_callback, nullptr);

    const auto  t0 = std::chrono::steady_clock::now();
    std::string err;
    if (!synth::write_model(p, out, err)) {
        const std::string lib = tool::failure_reason();  // e.g. why the vocab file did not parse
        return tool::report_failure(err, lib);
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    fprintf(stderr, "%s: wrote %s (%s, %lld x %lld layers, n_ff %lld, %lld/%lld heads, %s) in %.1f s\n", k_prog,
            out.c_str(), p.arch.c_str(), (long long) p.n_embd, (long long) p.n_layer, (long long) p.n_ff,
            (long long) p.n_head, (long long) p.n_head_kv, ggml_type_name(p.type), s);
    return tool::EXIT_OK;
}
