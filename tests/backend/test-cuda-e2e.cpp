// End to end with GPU offload on a CUDA device: stories260K (F16, and quantized to Q8_0, Q4_0 and Q4_K)
// and every synthetic model in tests/data/models/synthetic, with all layers and with half the layers
// offloaded, give the CPU run's greedy tokens and logits within 1% of the row RMS; the weights, KV cache
// and nodes really are on the CUDA device. Follows test-vulkan-e2e.cpp. Without a CUDA device every test
// skips with one line; LLAMA_TEST_REQUIRE_CUDA=1 (scripts/gpu-check.sh) makes that a failure.
#include <dirent.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "llama-context.h"
#include "llama-model.h"
#include "llama.h"
#include "test-common.h"

using testing_util::data_path;

namespace {

// The same GPU may also be a Vulkan device in a build with both backends; default parameters would then
// spread layers over both. These tests are about CUDA: keep Vulkan out of this process.
const bool k_no_vulkan = (setenv("GGML_VK_DISABLE", "1", 1), true);

void quiet_log(ggml_log_level, const char *, void *) {}

bool cuda_required() {
    const char * v = getenv("LLAMA_TEST_REQUIRE_CUDA");
    return v && v[0] == '1';
}

ggml_backend_dev_t cuda_dev0() {
    ggml_backend_reg_t reg = ggml_backend_reg_by_name("CUDA");
    return reg && ggml_backend_reg_dev_count(reg) > 0 ? ggml_backend_reg_dev_get(reg, 0) : nullptr;
}

#define SKIP_WITHOUT_CUDA()                                                               \
    if (!cuda_dev0()) {                                                                   \
        if (cuda_required())                                                              \
            FAIL() << "LLAMA_TEST_REQUIRE_CUDA=1 but no CUDA device";                     \
        GTEST_SKIP() << "no CUDA device (build without LLAMA_CUDA, no driver or no GPU)"; \
    }

// device buffers are named after the device ("CUDA0"); the pinned host type is "CUDA_Host"
bool on_cuda(const ggml_tensor * t) {
    if (!t || !t->buffer || ggml_backend_buffer_is_host(t->buffer)) {
        return false;
    }
    return std::string(ggml_backend_buft_name(ggml_backend_buffer_get_type(t->buffer))).rfind("CUDA", 0) == 0;
}

// CPU memory: host buffers, or the CPU backend's repacked weight layout (CPU_REPACK, not host-readable)
bool on_cpu(const ggml_tensor * t) {
    return t && t->buffer &&
           (ggml_backend_buffer_is_host(t->buffer) ||
            ggml_backend_buffer_get_type(t->buffer) == ggml_backend_cpu_repack_buffer_type());
}

struct model_deleter {
    void operator()(llama_model * m) const { llama_model_free(m); }
};
using model_ptr = std::unique_ptr<llama_model, model_deleter>;

model_ptr load(const std::string & rel, int n_gpu_layers, ggml_backend_dev_t dev) {
    static ggml_backend_dev_t devs[2];
    devs[0]                = dev;
    devs[1]                = nullptr;
    llama_model_params mp  = llama_model_default_params();
    mp.n_gpu_layers        = n_gpu_layers;
    mp.devices             = dev ? devs : nullptr;
    const std::string path = rel[0] == '/' ? rel : data_path(rel);  // test data, or a file the test wrote
    return model_ptr(llama_model_load_from_file(path.c_str(), mp));
}

// What one greedy run saw.
struct run_result {
    std::vector<llama_token>        tokens;
    std::vector<std::vector<float>> logits;  // one row per generated token
    int                             n_splits       = 0;
    size_t                          n_backends     = 0;
    int                             n_gpu_nodes    = 0;  // nodes the eval callback saw in CUDA buffers
    int                             n_observed     = 0;  // result_output observed after compute
    bool                            observed_ok    = true;
    double                          tok_per_s      = 0;
    uint64_t                        graph_launches = 0;  // CUDA graphs replayed by the first backend
};

struct cb_state {
    run_result *       r;
    std::vector<float> last;  // result_output of the last observed compute
};

bool eval_cb(ggml_tensor * t, bool ask, void * ud) {
    auto *     st   = (cb_state *) ud;
    const bool want = std::string(t->name) == "result_output";
    if (ask) {
        st->r->n_gpu_nodes += on_cuda(t) ? 1 : 0;
        return want;
    }
    if (want) {
        st->r->n_observed++;
        st->last.resize(ggml_nelements(t));
        ggml_backend_tensor_get(t, st->last.data(), 0, ggml_nbytes(t));
    }
    return true;
}

run_result run_greedy(llama_model * model, const std::string & prompt_text, int n_steps) {
    run_result           r;
    cb_state             st{&r, {}};
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx                = 128;
    cp.n_batch              = 64;
    cp.n_threads            = 2;
    cp.n_threads_batch      = 2;
    cp.cb_eval              = eval_cb;
    cp.cb_eval_user_data    = &st;
    llama_context * ctx     = llama_init_from_model(model, cp);
    EXPECT_NE(ctx, nullptr) << llama_last_error();
    if (!ctx) {
        return r;
    }
    const llama_vocab *      vocab = llama_model_get_vocab(model);
    const int                nv    = llama_vocab_n_tokens(vocab);
    std::vector<llama_token> toks(prompt_text.size() + 8);
    const int n = llama_tokenize(vocab, prompt_text.c_str(), (int) prompt_text.size(), toks.data(), (int) toks.size(),
                                 true, false);
    EXPECT_GT(n, 0);
    toks.resize(std::max(n, 0));

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
    using counts_fn = void (*)(ggml_backend_t, uint64_t *, uint64_t *);
    if (ggml_backend_reg_t reg = ggml_backend_reg_by_name("CUDA")) {
        if (auto fn = (counts_fn) ggml_backend_reg_get_proc_address(reg, "ggml_backend_cuda_graph_counts")) {
            fn(ctx->get_backends()[0], nullptr, &r.graph_launches);
        }
    }
    llama_free(ctx);
    return r;
}

// max |a - b| over the row, relative to the RMS of the CPU row
double err_rel_rms(const std::vector<float> & ref, const std::vector<float> & got) {
    double ss = 0, mx = 0;
    for (size_t i = 0; i < ref.size(); i++) {
        ss += (double) ref[i] * ref[i];
        mx = std::max(mx, (double) std::fabs(ref[i] - got[i]));
    }
    const double rms = std::sqrt(ss / std::max<size_t>(1, ref.size()));
    return rms > 0 ? mx / rms : mx;
}

void expect_same_run(const run_result & cpu, const run_result & gpu, const char * what) {
    EXPECT_EQ(gpu.tokens, cpu.tokens) << what;
    ASSERT_EQ(gpu.logits.size(), cpu.logits.size()) << what;
    double worst = 0;
    for (size_t s = 0; s < cpu.logits.size(); s++) {
        worst = std::max(worst, err_rel_rms(cpu.logits[s], gpu.logits[s]));
    }
    EXPECT_LT(worst, 0.01) << what << ": logits differ from the CPU run";
    std::printf("[ %s ] %zu steps, max |err| / rms = %.2e, %d splits, %.1f tok/s (CPU %.1f tok/s)\n", what,
                gpu.tokens.size(), worst, gpu.n_splits, gpu.tok_per_s, cpu.tok_per_s);
}

// greedy steps per run (the CPU reference runs them too, so the micro models' 32K-row output layers
// keep theirs shorter)
constexpr int k_steps       = 16;
constexpr int k_steps_micro = 8;

struct case_model {
    const char * path;
    const char * prompt;
};

// Runs CPU, all-on-CUDA and half-offloaded, and checks placement and results. Returns false when
// libllama does not implement the file's architecture (a skip, with the reason).
bool check_model(const case_model & c, std::string & skip_reason, int n_steps) {
    ggml_backend_dev_t gpu   = cuda_dev0();
    model_ptr          m_cpu = load(c.path, 0, gpu);
    if (!m_cpu) {
        const std::string err = llama_last_error();
        if (err.find("not implemented") != std::string::npos || err.find("unknown") != std::string::npos) {
            skip_reason = std::string(c.path) + ": " + err;
            return false;
        }
        ADD_FAILURE() << c.path << ": " << err;
        return true;
    }
    const int n_layer = llama_model_n_layer(m_cpu.get());
    EXPECT_TRUE(m_cpu->devices.empty()) << c.path;
    EXPECT_TRUE(on_cpu(m_cpu->layers[n_layer - 1].wo)) << c.path;  // wo: every arch has it (phi3 fuses wq)
    const run_result cpu = run_greedy(m_cpu.get(), c.prompt, n_steps);
    EXPECT_EQ(cpu.n_backends, 1u);
    EXPECT_EQ(cpu.n_gpu_nodes, 0);
    EXPECT_EQ((int) cpu.tokens.size(), n_steps) << c.path;

    // all layers and the output layer on CUDA; token embeddings stay on the CPU
    {
        model_ptr m = load(c.path, 999, gpu);
        EXPECT_NE(m, nullptr) << llama_last_error();
        if (!m) {
            return true;
        }
        EXPECT_EQ(llama_model_size(m.get()), llama_model_size(m_cpu.get()));
        EXPECT_EQ(llama_model_n_params(m.get()), llama_model_n_params(m_cpu.get()));
        EXPECT_EQ(m->devices, std::vector<ggml_backend_dev_t>{gpu});
        EXPECT_TRUE(on_cpu(m->tok_embd)) << c.path;
        EXPECT_TRUE(on_cuda(m->output)) << c.path;
        EXPECT_TRUE(on_cuda(m->output_norm)) << c.path;
        for (int il = 0; il < n_layer; il++) {
            EXPECT_TRUE(on_cuda(m->layers[il].wo)) << c.path << " layer " << il;
            EXPECT_TRUE(on_cuda(m->layers[il].ffn_down)) << c.path << " layer " << il;
            EXPECT_TRUE(on_cuda(m->layers[il].attn_norm)) << c.path << " layer " << il;
        }
        EXPECT_GT(m->weights_size(ggml_backend_dev_buffer_type(gpu)), m->weights_size(ggml_backend_cpu_buffer_type()));
        const run_result gpu = run_greedy(m.get(), c.prompt, n_steps);
        EXPECT_EQ(gpu.n_backends, 2u);
        EXPECT_GT(gpu.n_gpu_nodes, 0) << "no node ran in a CUDA buffer";
        EXPECT_EQ(gpu.n_observed, n_steps + 1) << "eval callback";
        EXPECT_TRUE(gpu.observed_ok) << "observed result_output differs from the logits";
        EXPECT_GT(gpu.graph_launches, 0u) << "single-token decode never replayed a CUDA graph";
        expect_same_run(cpu, gpu, (std::string(c.path) + " all on CUDA").c_str());
    }

    // the last half of the layers on CUDA, the output layer on the CPU: activations cross over
    {
        const int n_gpu = n_layer / 2;
        model_ptr m     = load(c.path, n_gpu, gpu);
        EXPECT_NE(m, nullptr) << llama_last_error();
        if (!m) {
            return true;
        }
        for (int il = 0; il < n_layer; il++) {
            const bool want_gpu = il >= n_layer - n_gpu;
            EXPECT_EQ(on_cuda(m->layers[il].wo), want_gpu) << c.path << " layer " << il;
            EXPECT_EQ(on_cpu(m->layers[il].wo), !want_gpu) << c.path << " layer " << il;
        }
        EXPECT_TRUE(on_cpu(m->output)) << c.path;
        const run_result gpu = run_greedy(m.get(), c.prompt, n_steps);
        EXPECT_GT(gpu.n_splits, 1) << "the scheduler did not split the graph between CPU and CUDA";
        EXPECT_GT(gpu.n_gpu_nodes, 0);
        expect_same_run(cpu, gpu, (std::string(c.path) + " half on CUDA").c_str());
    }
    return true;
}

class CudaE2E : public ::testing::Test {
protected:
    void SetUp() override { llama_log_set(quiet_log, nullptr); }
    void TearDown() override { llama_log_set(nullptr, nullptr); }
};

}  // namespace

TEST_F(CudaE2E, Stories260KOffloadMatchesCpu) {
    SKIP_WITHOUT_CUDA();
    std::string skip;
    EXPECT_TRUE(check_model({"models/stories260K.gguf", "Once upon a time"}, skip, k_steps)) << skip;
}

TEST_F(CudaE2E, EverySyntheticModelOffloadMatchesCpu) {
    SKIP_WITHOUT_CUDA();
    std::vector<std::string> files;
    if (DIR * d = opendir(data_path("models/synthetic").c_str())) {
        while (dirent * e = readdir(d)) {
            const std::string n = e->d_name;
            if (n.size() > 5 && n.compare(n.size() - 5, 5, ".gguf") == 0) {
                files.push_back("models/synthetic/" + n);
            }
        }
        closedir(d);
    }
    std::sort(files.begin(), files.end());
    ASSERT_GE(files.size(), 5u) << "tests/data/models/synthetic is missing";
    int n_run = 0;
    for (const std::string & path : files) {
        std::string skip;
        if (check_model({path.c_str(), "Once upon a time"}, skip, k_steps_micro)) {
            n_run++;
        } else {
            std::printf("[ skip ] %s (architecture not implemented)\n", skip.c_str());
        }
    }
    std::printf("%d of %zu synthetic models run\n", n_run, files.size());
    EXPECT_GE(n_run, 5) << "llama, qwen2, phi3, gemma and gemma2 at least are implemented and must run";
}

// Quantized weights (the types a user downloads): the same comparison, CPU vs CUDA on the same file.
TEST_F(CudaE2E, QuantizedModelsOffloadMatchCpu) {
    SKIP_WITHOUT_CUDA();
    const struct {
        llama_ftype  ftype;
        const char * name;
    } kinds[] = {
        {LLAMA_FTYPE_MOSTLY_Q8_0, "q8_0"}, {LLAMA_FTYPE_MOSTLY_Q4_0, "q4_0"}, {LLAMA_FTYPE_MOSTLY_Q4_K_M, "q4_k_m"}};
    for (const auto & k : kinds) {
        const std::string           out = testing_util::write_temp_file(std::string("stories-") + k.name, {});
        llama_model_quantize_params qp  = llama_model_quantize_default_params();
        qp.ftype                        = k.ftype;
        qp.nthread                      = 2;
        ASSERT_EQ(llama_model_quantize(data_path("models/stories260K.gguf").c_str(), out.c_str(), &qp), 0u)
            << k.name << ": " << llama_last_error();
        std::string skip;
        EXPECT_TRUE(check_model({out.c_str(), "Once upon a time"}, skip, k_steps)) << k.name << ": " << skip;
        remove(out.c_str());
    }
}

TEST_F(CudaE2E, KvCacheFollowsLayersUnlessOffloadKqvIsOff) {
    SKIP_WITHOUT_CUDA();
    model_ptr m = load("models/stories260K.gguf", 3, cuda_dev0());
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
            EXPECT_EQ(on_cuda(ctx->memory()->k_layer(il)), want_gpu) << "offload_kqv " << offload << " layer " << il;
            EXPECT_EQ(on_cuda(ctx->memory()->v_layer(il)), want_gpu) << "offload_kqv " << offload << " layer " << il;
        }
        llama_token tok = 1;
        EXPECT_EQ(llama_decode(ctx, llama_batch_get_one(&tok, 1)), 0);
        llama_free(ctx);
    }
}

TEST_F(CudaE2E, DefaultDevicesAndAbortCallback) {
    SKIP_WITHOUT_CUDA();
    EXPECT_TRUE(llama_supports_gpu_offload());
    // default params: every GPU device, 999 layers
    llama_model_params mp = llama_model_default_params();
    EXPECT_EQ(mp.n_gpu_layers, 999);
    model_ptr m(llama_model_load_from_file(data_path("models/stories260K.gguf").c_str(), mp));
    ASSERT_NE(m, nullptr) << llama_last_error();
    ASSERT_FALSE(m->devices.empty());
    EXPECT_TRUE(on_cuda(m->layers[0].wq));

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
TEST_F(CudaE2E, LoadModesUploadTheSameWeights) {
    SKIP_WITHOUT_CUDA();
    std::vector<std::vector<float>> logits;
    for (llama_load_mode mode : {LLAMA_LOAD_MODE_MMAP, LLAMA_LOAD_MODE_NONE, LLAMA_LOAD_MODE_DIRECT_IO}) {
        static ggml_backend_dev_t devs[2];
        devs[0]                       = cuda_dev0();
        int                n_progress = 0;
        llama_model_params mp         = llama_model_default_params();
        mp.devices                    = devs;
        mp.load_mode                  = mode;
        mp.progress_callback          = [](float, void * ud) {
            ++*(int *) ud;
            return true;
        };
        mp.progress_callback_user_data = &n_progress;
        model_ptr m(llama_model_load_from_file(data_path("models/stories260K.gguf").c_str(), mp));
        ASSERT_NE(m, nullptr) << "load mode " << mode << ": " << llama_last_error();
        EXPECT_TRUE(on_cuda(m->layers[0].wq)) << "load mode " << mode;
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

TEST_F(CudaE2E, SplitModeNoneAndMainGpu) {
    SKIP_WITHOUT_CUDA();
    llama_model_params mp = llama_model_default_params();
    mp.split_mode         = LLAMA_SPLIT_MODE_NONE;
    mp.main_gpu           = 1000;
    EXPECT_EQ(llama_model_load_from_file(data_path("models/stories260K.gguf").c_str(), mp), nullptr);
    EXPECT_NE(std::string(llama_last_error()).find("main_gpu"), std::string::npos) << llama_last_error();

    mp.main_gpu = -1;  // no main GPU: CPU only
    model_ptr m(llama_model_load_from_file(data_path("models/stories260K.gguf").c_str(), mp));
    ASSERT_NE(m, nullptr) << llama_last_error();
    EXPECT_TRUE(m->devices.empty());
    EXPECT_TRUE(on_cpu(m->layers[0].wq));

    mp.main_gpu = 0;
    model_ptr m0(llama_model_load_from_file(data_path("models/stories260K.gguf").c_str(), mp));
    ASSERT_NE(m0, nullptr) << llama_last_error();
    ASSERT_EQ(m0->devices.size(), 1u);
    EXPECT_TRUE(on_cuda(m0->layers[0].wq));
}
