// Shared body of the GPU end-to-end tests (test-cuda-e2e.cpp, test-vulkan-e2e.cpp): a greedy run
// observed through the eval callback, the CPU-vs-device comparison with layer placement checks, and
// the device-independent scenarios (KV placement, default devices, load modes, split mode). Each test
// file describes its backend in one gpu_backend value and calls these.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "llama-context.h"
#include "llama-model.h"
#include "llama.h"
#include "test-common.h"

namespace e2e {

// What a test file says about its backend.
struct gpu_backend {
    const char * name;                    // "CUDA", "Vulkan": used in messages
    ggml_backend_dev_t (*dev0)();         // first device of the backend, or nullptr
    bool (*on_gpu)(const ggml_tensor *);  // tensor lives in one of the backend's buffers
    // optional: extra figures read from the context after a run (e.g. CUDA graph replays)
    uint64_t (*graph_launches)(llama_context *) = nullptr;
    // the backend runs SSM_CONV, SSM_SCAN and GATED_DELTA_NET (Vulkan, CUDA): fully offloaded, those nodes
    // must be on the device
    bool runs_recurrent_ops = false;
};

inline void quiet_log(ggml_log_level, const char *, void *) {}

inline bool env_is_1(const char * name) {
    const char * v = getenv(name);
    return v && v[0] == '1';
}

// CPU memory: host buffers, or the CPU backend's repacked weight layout (CPU_REPACK, not host-readable)
inline bool on_cpu(const ggml_tensor * t) {
    return t && t->buffer &&
           (ggml_backend_buffer_is_host(t->buffer) ||
            ggml_backend_buffer_get_type(t->buffer) == ggml_backend_cpu_repack_buffer_type());
}

inline bool buft_name_starts_with(const ggml_tensor * t, const char * prefix) {
    return t && t->buffer &&
           std::string(ggml_backend_buft_name(ggml_backend_buffer_get_type(t->buffer))).rfind(prefix, 0) == 0;
}

struct model_deleter {
    void operator()(llama_model * m) const { llama_model_free(m); }
};
using model_ptr = std::unique_ptr<llama_model, model_deleter>;

// rel: a path under tests/data, or an absolute path (a file the test wrote)
inline model_ptr load(const std::string & rel, int n_gpu_layers, ggml_backend_dev_t dev) {
    static ggml_backend_dev_t devs[2];
    devs[0]                = dev;
    devs[1]                = nullptr;
    llama_model_params mp  = llama_model_default_params();
    mp.n_gpu_layers        = n_gpu_layers;
    mp.devices             = dev ? devs : nullptr;
    const std::string path = rel[0] == '/' ? rel : testing_util::data_path(rel);
    return model_ptr(llama_model_load_from_file(path.c_str(), mp));
}

// What one greedy run saw.
struct run_result {
    std::vector<llama_token>        tokens;
    std::vector<std::vector<float>> logits;  // one row per generated token
    int                             n_splits       = 0;
    size_t                          n_backends     = 0;
    int                             n_gpu_nodes    = 0;  // nodes the eval callback saw in device buffers
    int                             n_observed     = 0;  // result_output observed after compute
    bool                            observed_ok    = true;
    double                          tok_per_s      = 0;
    uint64_t                        graph_launches = 0;
    int                             n_rec          = 0;  // SSM_CONV / SSM_SCAN / GATED_DELTA_NET nodes seen
    int                             n_rec_gpu      = 0;  // ... of them in device buffers
    int                             n_fa           = 0;  // FLASH_ATTN_EXT nodes seen
    int                             n_fa_gpu       = 0;  // ... of them in device buffers
    int                             n_prompt       = 0;  // prompt tokens (one ubatch: the prefill's n_q)
};

// Context settings of a run beyond run_greedy's fixed ones: the KV cache types and flash attention.
struct ctx_opts {
    ggml_type             type_k     = GGML_TYPE_F16;
    ggml_type             type_v     = GGML_TYPE_F16;
    llama_flash_attn_type flash_attn = LLAMA_FLASH_ATTN_TYPE_AUTO;
};

struct cb_state {
    run_result *        r;
    const gpu_backend * be;
    std::vector<float>  last;  // result_output of the last observed compute
};

inline bool eval_cb(ggml_tensor * t, bool ask, void * ud) {
    auto *     st   = (cb_state *) ud;
    const bool want = std::string(t->name) == "result_output";
    if (ask) {
        const bool gpu = st->be->on_gpu(t);
        st->r->n_gpu_nodes += gpu ? 1 : 0;
        if (t->op == GGML_OP_SSM_CONV || t->op == GGML_OP_SSM_SCAN || t->op == GGML_OP_GATED_DELTA_NET) {
            st->r->n_rec++;
            st->r->n_rec_gpu += gpu ? 1 : 0;
        }
        if (t->op == GGML_OP_FLASH_ATTN_EXT) {
            st->r->n_fa++;
            st->r->n_fa_gpu += gpu ? 1 : 0;
        }
        return want;
    }
    if (want) {
        st->r->n_observed++;
        st->last.resize(ggml_nelements(t));
        ggml_backend_tensor_get(t, st->last.data(), 0, ggml_nbytes(t));
    }
    return true;
}

inline run_result run_greedy(const gpu_backend & be, llama_model * model, const std::string & prompt_text, int n_steps,
                             const ctx_opts & o = ctx_opts()) {
    run_result           r;
    cb_state             st{&r, &be, {}};
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx                = 128;
    cp.n_batch              = 64;
    cp.n_threads            = 2;
    cp.n_threads_batch      = 2;
    cp.cb_eval              = eval_cb;
    cp.cb_eval_user_data    = &st;
    cp.type_k               = o.type_k;
    cp.type_v               = o.type_v;
    cp.flash_attn_type      = o.flash_attn;
    llama_context * ctx     = llama_init_from_model(model, cp);
    EXPECT_NE(ctx, nullptr) << llama_last_error();
    if (!ctx) {
        return r;
    }
    const llama_vocab *      vocab = llama_model_get_vocab(model);
    const int                nv    = llama_vocab_n_tokens(vocab);
    std::vector<llama_token> toks(prompt_text.size() + 8);
    int n = llama_tokenize(vocab, prompt_text.c_str(), (int) prompt_text.size(), toks.data(), (int) toks.size(), true,
                           false);
    if (n < 0) {  // a byte-level micro vocabulary: more tokens than characters
        toks.resize((size_t) -n);
        n = llama_tokenize(vocab, prompt_text.c_str(), (int) prompt_text.size(), toks.data(), (int) toks.size(), true,
                           false);
    }
    EXPECT_GT(n, 0);
    toks.resize(std::max(n, 0));
    r.n_prompt = (int) toks.size();

    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(llama_decode(ctx, llama_batch_get_one(toks.data(), (int) toks.size())), 0);
    for (int s = 0; s < n_steps; s++) {
        const float * row = llama_get_logits_ith(ctx, -1);
        if (!row) {
            ADD_FAILURE() << "no logits at step " << s;
            break;
        }
        r.logits.emplace_back(row, row + nv);
        // the observed result_output is the same row (one output per single-token decode)
        if (s > 0 && (st.last.size() != (size_t) nv || st.last != r.logits.back())) {
            r.observed_ok = false;
        }
        llama_token best = 0;
        for (int i = 1; i < nv; i++) {
            best = row[i] > row[best] ? i : best;
        }
        r.tokens.push_back(best);
        if (llama_decode(ctx, llama_batch_get_one(&best, 1)) != 0) {
            ADD_FAILURE() << "decode failed at step " << s << ": " << llama_last_error();
            break;
        }
    }
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.tok_per_s     = (toks.size() + n_steps) / dt;
    r.n_splits      = ggml_backend_sched_get_n_splits(ctx->get_sched());
    r.n_backends    = ctx->get_backends().size();
    if (be.graph_launches) {
        r.graph_launches = be.graph_launches(ctx);
    }
    llama_free(ctx);
    return r;
}

// max |a - b| over the row, relative to the RMS of the CPU row
inline double err_rel_rms(const std::vector<float> & ref, const std::vector<float> & got) {
    double ss = 0, mx = 0;
    for (size_t i = 0; i < ref.size(); i++) {
        ss += (double) ref[i] * ref[i];
        mx = std::max(mx, (double) std::fabs(ref[i] - got[i]));
    }
    const double rms = std::sqrt(ss / std::max<size_t>(1, ref.size()));
    return rms > 0 ? mx / rms : mx;
}

// tol: the largest max |err| / rms allowed on any step's logits
inline void expect_same_run(const run_result & cpu, const run_result & gpu, const std::string & what,
                            double tol = 0.01) {
    EXPECT_EQ(gpu.tokens, cpu.tokens) << what;
    ASSERT_EQ(gpu.logits.size(), cpu.logits.size()) << what;
    double worst = 0;
    for (size_t s = 0; s < cpu.logits.size(); s++) {
        worst = std::max(worst, err_rel_rms(cpu.logits[s], gpu.logits[s]));
    }
    EXPECT_LT(worst, tol) << what << ": logits differ from the CPU run";
    std::printf("[ %s ] %zu steps, max |err| / rms = %.2e, %d splits, %.1f tok/s (CPU %.1f tok/s)\n", what.c_str(),
                gpu.tokens.size(), worst, gpu.n_splits, gpu.tok_per_s, cpu.tok_per_s);
}

// The layer matrices (attention, dense FFN, experts) that m has, with their names.
inline std::vector<const ggml_tensor *> layer_matrices(const llama_model * m) {
    std::vector<const ggml_tensor *> r;
    for (const llama_layer & l : m->layers) {
        for (const ggml_tensor * w : {l.wq, l.wk, l.wv, l.wqkv, l.wo, l.ffn_gate, l.ffn_up, l.ffn_down, l.ffn_gate_exps,
                                      l.ffn_up_exps, l.ffn_down_exps}) {
            if (w) {
                r.push_back(w);
            }
        }
    }
    return r;
}

// Runs CPU, all-on-device and half-offloaded, and checks placement and results. Returns false when
// libllama does not implement the file's architecture (a skip, with the reason in skip_reason).
// max_splits_full > 0: with everything offloaded, every layer matrix must be on the device and the
// graph split at most that often (no op left on the CPU between device ops). logit_tol: see
// expect_same_run.
inline bool check_model(const gpu_backend & be, const std::string & path, const std::string & prompt, int n_steps,
                        std::string & skip_reason, int max_splits_full = 0, double logit_tol = 0.01) {
    ggml_backend_dev_t gpu   = be.dev0();
    model_ptr          m_cpu = load(path, 0, gpu);
    if (!m_cpu) {
        const std::string err = llama_last_error();
        if (err.find("not implemented") != std::string::npos || err.find("unknown") != std::string::npos) {
            skip_reason = path + ": " + err;
            return false;
        }
        ADD_FAILURE() << path << ": " << err;
        return true;
    }
    const int n_layer = llama_model_n_layer(m_cpu.get());
    // each block's output projection: attention's wo (every attention arch has it; phi3 fuses wq), the
    // state-space mixer's ssm_out (mamba2) or the short convolution's out_proj (lfm2); a feed-forward-only
    // block has ffn_down (nemotron_h) or its experts' ffn_down_exps (nemotron_h_moe)
    auto block_out = [](const llama_layer & l) {
        return l.wo                   ? l.wo
               : l.ssm_out            ? l.ssm_out
               : l.shortconv_out_proj ? l.shortconv_out_proj
               : l.ffn_down           ? l.ffn_down
                                      : l.ffn_down_exps;
    };
    // on a backend that refuses the recurrent ops (ssm_conv, ssm_scan, gated_delta_net) a recurrent or hybrid
    // model's graph splits around them and its states stay in host memory, so the split bound below is for
    // the others; where they run (Vulkan, CUDA) the states follow the layers
    const bool recurrent = llama_model_is_recurrent(m_cpu.get()) || llama_model_is_hybrid(m_cpu.get());
    EXPECT_TRUE(m_cpu->devices.empty()) << path;
    EXPECT_TRUE(on_cpu(block_out(m_cpu->layers[n_layer - 1]))) << path;
    const run_result cpu = run_greedy(be, m_cpu.get(), prompt, n_steps);
    EXPECT_EQ(cpu.n_backends, 1u);
    EXPECT_EQ(cpu.n_gpu_nodes, 0);
    EXPECT_EQ((int) cpu.tokens.size(), n_steps) << path;

    // all layers and the output layer on the device; token embeddings stay on the CPU
    {
        model_ptr m = load(path, 999, gpu);
        EXPECT_NE(m, nullptr) << llama_last_error();
        if (!m) {
            return true;
        }
        EXPECT_EQ(llama_model_size(m.get()), llama_model_size(m_cpu.get()));
        EXPECT_EQ(llama_model_n_params(m.get()), llama_model_n_params(m_cpu.get()));
        EXPECT_EQ(m->devices, std::vector<ggml_backend_dev_t>{gpu});
        EXPECT_TRUE(on_cpu(m->tok_embd)) << path;
        EXPECT_TRUE(be.on_gpu(m->output)) << path;
        EXPECT_TRUE(be.on_gpu(m->output_norm)) << path;
        for (int il = 0; il < n_layer; il++) {
            const llama_layer & l = m->layers[il];
            EXPECT_TRUE(be.on_gpu(block_out(l))) << path << " layer " << il;
            if (const ggml_tensor * down = l.ffn_down ? l.ffn_down : l.ffn_down_exps) {  // mamba2 has no FFN
                EXPECT_TRUE(be.on_gpu(down)) << path << " layer " << il;
            }
            // the block's first norm: before the attention, or after it where the architecture has only
            // post-norms (olmo2, exaone4)
            EXPECT_TRUE(be.on_gpu(l.attn_norm ? l.attn_norm : l.attn_post_norm)) << path << " layer " << il;
        }
        // globals placed with a neighbour by their layout rows (gemma3n: altup_proj and the per-layer input
        // projection with layer 0, altup_unembd_proj with the output layer) follow them onto the device
        for (const ggml_tensor * g :
             {m->altup_proj, m->per_layer_model_proj, m->per_layer_proj_norm, m->altup_unembd_proj}) {
            EXPECT_TRUE(!g || be.on_gpu(g)) << path << ": " << g->name << " is not on " << be.name;
        }
        // most weights on the device; the token embeddings (and gemma3n's per-layer token embeddings, a
        // lookup table as well) stay in host memory whatever their size
        size_t host_lookup = ggml_nbytes(m->tok_embd);
        if (m->per_layer_tok_embd && on_cpu(m->per_layer_tok_embd)) {
            host_lookup += ggml_nbytes(m->per_layer_tok_embd);
        }
        EXPECT_GT(m->weights_size(ggml_backend_dev_buffer_type(gpu)),
                  m->weights_size(ggml_backend_cpu_buffer_type()) - host_lookup);
        const run_result r = run_greedy(be, m.get(), prompt, n_steps);
        if (max_splits_full > 0) {
            for (const ggml_tensor * w : layer_matrices(m.get())) {
                EXPECT_TRUE(be.on_gpu(w))
                    << path << ": " << w->name << " (" << ggml_type_name(w->type) << ") is not on " << be.name;
            }
            if (be.runs_recurrent_ops) {
                EXPECT_EQ(r.n_rec_gpu, r.n_rec) << path << ": recurrent ops ran on the CPU";
            }
            if (!recurrent || be.runs_recurrent_ops) {
                EXPECT_LE(r.n_splits, max_splits_full) << path << ": ops fell back to the CPU";
            }
        }
        EXPECT_EQ(r.n_backends, 2u);
        EXPECT_GT(r.n_gpu_nodes, 0) << "no node ran in a " << be.name << " buffer";
        EXPECT_EQ(r.n_observed, n_steps + 1) << "eval callback";
        EXPECT_TRUE(r.observed_ok) << "observed result_output differs from the logits";
        if (be.graph_launches) {
            EXPECT_GT(r.graph_launches, 0u) << "single-token decode never replayed a device graph";
        }
        expect_same_run(cpu, r, path + " all on " + be.name, logit_tol);
    }

    // the last half of the layers on the device, the output layer on the CPU: activations cross over
    {
        const int n_gpu = n_layer / 2;
        model_ptr m     = load(path, n_gpu, gpu);
        EXPECT_NE(m, nullptr) << llama_last_error();
        if (!m) {
            return true;
        }
        for (int il = 0; il < n_layer; il++) {
            const bool want_gpu = il >= n_layer - n_gpu;
            EXPECT_EQ(be.on_gpu(block_out(m->layers[il])), want_gpu) << path << " layer " << il;
            EXPECT_EQ(on_cpu(block_out(m->layers[il])), !want_gpu) << path << " layer " << il;
        }
        EXPECT_TRUE(on_cpu(m->output)) << path;
        // layer 0 and the output layer on the CPU: so are the globals placed with them
        for (const ggml_tensor * g :
             {m->altup_proj, m->per_layer_model_proj, m->per_layer_proj_norm, m->altup_unembd_proj}) {
            EXPECT_TRUE(!g || on_cpu(g)) << path << ": " << g->name << " is not on the CPU";
        }
        const run_result r = run_greedy(be, m.get(), prompt, n_steps);
        EXPECT_GT(r.n_splits, 1) << "the scheduler did not split the graph between CPU and " << be.name;
        EXPECT_GT(r.n_gpu_nodes, 0);
        expect_same_run(cpu, r, path + " half on " + be.name, logit_tol);
    }
    return true;
}

// Quantizes tests/data/<rel> (or an absolute path) to ftype in a temporary file and returns its path ("" and a failure
// if quantization failed). The caller removes the file.
inline std::string quantize_to_temp(const std::string & rel, llama_ftype ftype, const std::string & tag) {
    const std::string           out = testing_util::write_temp_file(tag, {});
    llama_model_quantize_params qp  = llama_model_quantize_default_params();
    qp.ftype                        = ftype;
    qp.nthread                      = 2;
    const std::string in            = rel[0] == '/' ? rel : testing_util::data_path(rel);
    if (llama_model_quantize(in.c_str(), out.c_str(), &qp) != 0) {
        ADD_FAILURE() << tag << ": " << llama_last_error();
        remove(out.c_str());
        return "";
    }
    return out;
}

// The recurrent micro models `rels` fully offloaded to a backend that runs SSM_CONV, SSM_SCAN and
// GATED_DELTA_NET: every such node runs on the device, the recurrent states follow the layers (at most
// max_splits splits: nothing splits the graph around the state get_rows / set_rows) and the greedy run
// matches the CPU's. Also fails if a model stops having such nodes.
inline void check_recurrent_offload(const gpu_backend & be, std::initializer_list<const char *> rels, int n_steps,
                                    int max_splits) {
    for (const char * rel : rels) {
        model_ptr m_cpu = load(rel, 0, be.dev0());
        model_ptr m_gpu = load(rel, 999, be.dev0());
        ASSERT_TRUE(m_cpu && m_gpu) << rel << ": " << llama_last_error();
        const run_result cpu = run_greedy(be, m_cpu.get(), "Once upon a time", n_steps);
        const run_result gpu = run_greedy(be, m_gpu.get(), "Once upon a time", n_steps);
        EXPECT_EQ(cpu.n_rec_gpu, 0) << rel;
        EXPECT_GT(gpu.n_rec, 0) << rel << ": no ssm_conv / ssm_scan / gated_delta_net node";
        EXPECT_EQ(gpu.n_rec_gpu, gpu.n_rec) << rel << ": recurrent nodes left to the CPU";
        EXPECT_LE(gpu.n_splits, max_splits) << rel;
        expect_same_run(cpu, gpu, std::string(rel) + " all on " + be.name);
    }
}

// The KV cache of offloaded layers lives on the device unless offload_kqv is off.
// qwen3-micro (heads of 32: whole blocks per head) with a Q8_0 K and a Q4_0 V cache (-ctk q8_0 -ctv q4_0)
// and flash attention on, fully offloaded: every flash-attention node on the device, prefill (8 or more
// prompt tokens) and decode, at most max_splits splits, and the CPU run's greedy tokens with the same
// cache types and logits within tol of the row RMS.
inline void check_mixed_kv_cache(const gpu_backend & be, int n_steps, int max_splits, double tol) {
    const char * rel   = "models/synthetic/qwen3-micro-f16.gguf";
    model_ptr    m_cpu = load(rel, 0, be.dev0());
    model_ptr    m_gpu = load(rel, 999, be.dev0());
    ASSERT_TRUE(m_cpu && m_gpu) << rel << ": " << llama_last_error();
    ctx_opts o;
    o.type_k                = GGML_TYPE_Q8_0;
    o.type_v                = GGML_TYPE_Q4_0;
    o.flash_attn            = LLAMA_FLASH_ATTN_TYPE_ENABLED;
    const char *     prompt = "Once upon a time there was a little girl who lived in a village";
    const run_result cpu    = run_greedy(be, m_cpu.get(), prompt, n_steps, o);
    const run_result gpu    = run_greedy(be, m_gpu.get(), prompt, n_steps, o);
    EXPECT_GE(gpu.n_prompt, 8) << "the prefill should reach the tiled kernel";
    EXPECT_EQ(cpu.n_fa_gpu, 0);
    EXPECT_GT(gpu.n_fa, 0) << "no flash-attention node: flash attention did not turn on";
    EXPECT_EQ(gpu.n_fa_gpu, gpu.n_fa) << "flash attention over the q8_0/q4_0 cache ran on the CPU";
    EXPECT_LE(gpu.n_splits, max_splits);
    expect_same_run(cpu, gpu, std::string(rel) + " q8_0/q4_0 cache all on " + be.name, tol);
}

inline void check_kv_placement(const gpu_backend & be) {
    model_ptr m = load("models/stories260K.gguf", 3, be.dev0());
    ASSERT_NE(m, nullptr) << llama_last_error();
    const int n_layer = llama_model_n_layer(m.get());
    for (bool offload : {true, false}) {
        llama_context_params cp = llama_context_default_params();
        cp.n_ctx                = 64;
        cp.offload_kqv          = offload;
        llama_context * ctx     = llama_init_from_model(m.get(), cp);
        ASSERT_NE(ctx, nullptr) << llama_last_error();
        for (int il = 0; il < n_layer; il++) {
            const bool want_gpu = offload && il >= n_layer - 3;
            EXPECT_EQ(be.on_gpu(ctx->kv_cache()->k_layer(il)), want_gpu)
                << "offload_kqv " << offload << " layer " << il;
            EXPECT_EQ(be.on_gpu(ctx->kv_cache()->v_layer(il)), want_gpu)
                << "offload_kqv " << offload << " layer " << il;
        }
        llama_token tok = 1;
        EXPECT_EQ(llama_decode(ctx, llama_batch_get_one(&tok, 1)), 0);
        llama_free(ctx);
    }
}

// Default parameters use every GPU device with all layers (n_gpu_layers -1); the abort callback stops
// a decode (2).
inline void check_default_devices_and_abort(const gpu_backend & be) {
    EXPECT_TRUE(llama_supports_gpu_offload());
    llama_model_params mp = llama_model_default_params();
    EXPECT_EQ(mp.n_gpu_layers, -1);  // -1: all layers, as llama.cpp
    model_ptr m(llama_model_load_from_file(testing_util::data_path("models/stories260K.gguf").c_str(), mp));
    ASSERT_NE(m, nullptr) << llama_last_error();
    ASSERT_FALSE(m->devices.empty());
    EXPECT_TRUE(be.on_gpu(m->layers[0].wq));

    llama_context * ctx = llama_init_from_model(m.get(), llama_context_default_params());
    ASSERT_NE(ctx, nullptr) << llama_last_error();
    llama_set_abort_callback(
        ctx, [](void *) { return true; }, nullptr);
    llama_token toks[4] = {1, 2, 3, 4};
    EXPECT_EQ(llama_decode(ctx, llama_batch_get_one(toks, 4)), 2);
    llama_set_abort_callback(ctx, nullptr, nullptr);
    EXPECT_EQ(llama_decode(ctx, llama_batch_get_one(toks, 4)), 0);
    llama_free(ctx);
}

// Reads (staging uploads) and direct I/O place the same bytes on the device as the mmap path, and
// the progress callback still runs once per tensor.
inline void check_load_modes(const gpu_backend & be) {
    std::vector<std::vector<float>> logits;
    for (llama_load_mode mode : {LLAMA_LOAD_MODE_MMAP, LLAMA_LOAD_MODE_NONE, LLAMA_LOAD_MODE_DIRECT_IO}) {
        static ggml_backend_dev_t devs[2];
        devs[0]                       = be.dev0();
        int                n_progress = 0;
        llama_model_params mp         = llama_model_default_params();
        mp.devices                    = devs;
        mp.load_mode                  = mode;
        mp.progress_callback          = [](float, void * ud) {
            ++*(int *) ud;
            return true;
        };
        mp.progress_callback_user_data = &n_progress;
        model_ptr m(llama_model_load_from_file(testing_util::data_path("models/stories260K.gguf").c_str(), mp));
        ASSERT_NE(m, nullptr) << "load mode " << mode << ": " << llama_last_error();
        EXPECT_TRUE(be.on_gpu(m->layers[0].wq)) << "load mode " << mode;
        EXPECT_GT(n_progress, 5 * 9) << "load mode " << mode;  // at least one call per layer weight

        llama_context_params cp = llama_context_default_params();
        cp.n_ctx                = 64;
        llama_context * ctx     = llama_init_from_model(m.get(), cp);
        ASSERT_NE(ctx, nullptr) << llama_last_error();
        llama_token toks[3] = {1, 403, 407};
        EXPECT_EQ(llama_decode(ctx, llama_batch_get_one(toks, 3)), 0);
        const float * row = llama_get_logits_ith(ctx, -1);
        ASSERT_NE(row, nullptr);
        logits.emplace_back(row, row + llama_vocab_n_tokens(llama_model_get_vocab(m.get())));
        llama_free(ctx);
    }
    EXPECT_EQ(logits[1], logits[0]) << "reads vs mmap";
    EXPECT_EQ(logits[2], logits[0]) << "direct I/O vs mmap";
}

// split_mode NONE: main_gpu out of range fails with a message, -1 means CPU only, 0 the first device.
inline void check_split_mode_none(const gpu_backend & be) {
    const std::string  path = testing_util::data_path("models/stories260K.gguf");
    llama_model_params mp   = llama_model_default_params();
    mp.split_mode           = LLAMA_SPLIT_MODE_NONE;
    mp.main_gpu             = 1000;
    EXPECT_EQ(llama_model_load_from_file(path.c_str(), mp), nullptr);
    EXPECT_NE(std::string(llama_last_error()).find("main_gpu"), std::string::npos) << llama_last_error();

    mp.main_gpu = -1;
    model_ptr m(llama_model_load_from_file(path.c_str(), mp));
    ASSERT_NE(m, nullptr) << llama_last_error();
    EXPECT_TRUE(m->devices.empty());
    EXPECT_TRUE(on_cpu(m->layers[0].wq));

    mp.main_gpu = 0;
    model_ptr m0(llama_model_load_from_file(path.c_str(), mp));
    ASSERT_NE(m0, nullptr) << llama_last_error();
    ASSERT_EQ(m0->devices.size(), 1u);
    EXPECT_TRUE(be.on_gpu(m0->layers[0].wq));
}

}  // namespace e2e
