// The CUDA mat-vec kernels (ggml/src/ggml-cuda/mm-vec*.cu) on a real device: MUL_MAT with 1..8 activation
// columns for every weight type the device reads (the dp4a kernel, the vector-load float kernel and the
// general kernel, chosen by type and alignment), broadcast batches, strided activations, and MUL_MAT_ID
// (per token, and grouped by expert for a batch), each run through ggml_cuda_op_run against a double-precision
// reference computed here from the dequantized weights (ggml_dequantize_row) and the F32 activations. The dp4a path
// quantizes the activations to 8 bits, hence its looser bound. Then, for information, the decode bandwidth of the
// Llama-3-8B projection shapes against a device-to-device copy (printed, not asserted).
// Without a CUDA device the test skips with one line; LLAMA_TEST_REQUIRE_CUDA=1 makes that a failure.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ggml-cuda/common.cuh"
#include "ggml.h"
#include "test-common.h"

namespace {

bool device_or_skip(ggml_cuda_device_info & info) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        cudaGetLastError();
        return false;
    }
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
        return false;
    }
    info.device               = 0;
    info.cc                   = prop.major * 10 + prop.minor;
    info.sm_count             = prop.multiProcessorCount;
    info.smem_per_block_optin = prop.sharedMemPerBlockOptin;
    info.total_mem            = prop.totalGlobalMem;
    return true;
}

#define SKIP_WITHOUT_DEVICE(info)                                           \
    ggml_cuda_device_info info;                                             \
    if (!device_or_skip(info)) {                                            \
        if (std::getenv("LLAMA_TEST_REQUIRE_CUDA")) {                       \
            FAIL() << "no CUDA device, and LLAMA_TEST_REQUIRE_CUDA is set"; \
        }                                                                   \
        GTEST_SKIP() << "no CUDA device";                                   \
    }

// Scratch slots backed by cudaMalloc (the backend's own scratch lives in the core).
struct scratch_pool {
    void *        p[GGML_CUDA_SCRATCH_SLOTS] = {};
    size_t        n[GGML_CUDA_SCRATCH_SLOTS] = {};
    static void * get(void * user, int slot, size_t bytes) {
        scratch_pool * s = (scratch_pool *) user;
        if (s->n[slot] < bytes) {
            cudaFree(s->p[slot]);
            s->p[slot] = nullptr;
            s->n[slot] = 0;
            if (cudaMalloc(&s->p[slot], bytes) != cudaSuccess) {
                return nullptr;
            }
            s->n[slot] = bytes;
        }
        return s->p[slot];
    }
    ~scratch_pool() {
        for (void * q : p) {
            cudaFree(q);
        }
    }
};

void fill_weights(ggml_tensor * w, uint32_t seed) {
    const int64_t                   K = w->ne[0], rows = ggml_nrows(w);
    std::mt19937                    rng(seed);
    std::normal_distribution<float> g(0.0f, 1.0f);
    std::vector<float>              f((size_t) (K * rows));
    for (float & v : f) {
        v = g(rng);
    }
    ggml_quantize_chunk(w->type, f.data(), w->data, 0, rows, K, nullptr);
}

void fill_f32(ggml_tensor * t, uint32_t seed) {
    std::mt19937                    rng(seed);
    std::normal_distribution<float> g(0.0f, 1.0f);
    for (int64_t i = 0; i < ggml_nelements(t); i++) {
        ((float *) t->data)[i] = g(rng);
    }
}

// Row m of weight slice (i2, i3), dequantized.
std::vector<float> weight_row(const ggml_tensor * w, int64_t m, int64_t i2, int64_t i3) {
    std::vector<float> r((size_t) w->ne[0]);
    ggml_dequantize_row(w->type, (const char *) w->data + m * w->nb[1] + i2 * w->nb[2] + i3 * w->nb[3], r.data(),
                        w->ne[0]);
    return r;
}

double dot_col(const std::vector<float> & wr, const ggml_tensor * b, int64_t i1, int64_t i2, int64_t i3) {
    double s = 0.0;
    for (int64_t k = 0; k < b->ne[0]; k++) {
        s += (double) wr[(size_t) k] *
             *(const float *) ((const char *) b->data + k * b->nb[0] + i1 * b->nb[1] + i2 * b->nb[2] + i3 * b->nb[3]);
    }
    return s;
}

// The reference of a MUL_MAT or MUL_MAT_ID node, in dst's element order.
std::vector<float> reference(const ggml_tensor * out) {
    const ggml_tensor * w = out->src[0];
    const ggml_tensor * b = out->src[1];
    std::vector<float>  ref((size_t) ggml_nelements(out));
    for (int64_t i3 = 0; i3 < out->ne[3]; i3++) {
        for (int64_t i2 = 0; i2 < out->ne[2]; i2++) {
            for (int64_t i1 = 0; i1 < out->ne[1]; i1++) {
                for (int64_t m = 0; m < out->ne[0]; m++) {
                    double v;
                    if (out->op == GGML_OP_MUL_MAT_ID) {
                        const int32_t e = *(const int32_t *) ((const char *) out->src[2]->data +
                                                              i1 * out->src[2]->nb[0] + i2 * out->src[2]->nb[1]);
                        v               = dot_col(weight_row(w, m, e, 0), b, i1 % b->ne[1], i2, 0);
                    } else {
                        const int64_t r2 = b->ne[2] / w->ne[2], r3 = b->ne[3] / w->ne[3];
                        v = dot_col(weight_row(w, m, i2 / r2, i3 / r3), b, i1, i2, i3);
                    }
                    ref[(size_t) (((i3 * out->ne[2] + i2) * out->ne[1] + i1) * out->ne[0] + m)] = (float) v;
                }
            }
        }
    }
    return ref;
}

ggml_tensor * base_of(ggml_tensor * t) {
    while (t->view_src) {
        t = t->view_src;
    }
    return t;
}

// Runs node `out` (contiguous dst) through ggml_cuda_op_run on device copies of its sources;
// "" or the reason it failed.
std::string run_node(const ggml_cuda_device_info & info, ggml_tensor * out, double max_nmse) {
    if (!ggml_cuda_op_supported(info, out)) {
        return "refused by ggml_cuda_op_supported";
    }
    const std::vector<float>   want    = reference(out);
    std::vector<ggml_tensor *> touched = {out};
    for (ggml_tensor * s : out->src) {
        if (s) {
            touched.push_back(s);
        }
    }
    std::vector<std::pair<ggml_tensor *, void *>> saved;
    std::vector<void *>                           dev;
    std::string                                   err;
    for (ggml_tensor * t : touched) {
        ggml_tensor * bt = base_of(t);
        void *        d  = nullptr;
        if (cudaMalloc(&d, ggml_nbytes(bt)) != cudaSuccess ||
            cudaMemcpy(d, bt->data, ggml_nbytes(bt), cudaMemcpyHostToDevice) != cudaSuccess) {
            err = "device allocation failed";
        }
        dev.push_back(d);
        saved.push_back({t, t->data});
        t->data = (char *) d + ((char *) t->data - (char *) bt->data);
    }
    std::vector<float> got((size_t) ggml_nelements(out));
    scratch_pool       pool;
    cudaStream_t       stream = nullptr;
    if (err.empty() && cudaStreamCreate(&stream) == cudaSuccess) {
        ggml_cuda_op_ctx ctx;
        ctx.info         = &info;
        ctx.stream       = stream;
        ctx.scratch_fn   = scratch_pool::get;
        ctx.scratch_user = &pool;
        if (!ggml_cuda_op_run(ctx, out)) {
            err = "ggml_cuda_op_run returned false";
        } else if (const cudaError_t e = cudaStreamSynchronize(stream); e != cudaSuccess) {
            err = std::string("kernel failed: ") + cudaGetErrorString(e);
        } else if (cudaMemcpy(got.data(), out->data, got.size() * 4, cudaMemcpyDeviceToHost) != cudaSuccess) {
            err = "copy back failed";
        }
        cudaStreamDestroy(stream);
    }
    for (auto & s : saved) {
        s.first->data = s.second;
    }
    for (void * d : dev) {
        cudaFree(d);
    }
    if (err.empty()) {
        const double e = testing_util::nmse(got, want);
        if (!(e <= max_nmse)) {
            err = "nmse " + std::to_string(e) + " > " + std::to_string(max_nmse);
        }
    }
    return err;
}

const ggml_type kTypes[] = {GGML_TYPE_F32,  GGML_TYPE_F16,  GGML_TYPE_BF16, GGML_TYPE_Q4_0,   GGML_TYPE_Q4_1,
                            GGML_TYPE_Q5_0, GGML_TYPE_Q5_1, GGML_TYPE_Q8_0, GGML_TYPE_Q2_K,   GGML_TYPE_Q3_K,
                            GGML_TYPE_Q4_K, GGML_TYPE_Q5_K, GGML_TYPE_Q6_K, GGML_TYPE_IQ4_NL, GGML_TYPE_IQ4_XS};

// dp4a types see 8-bit activations (nmse ~3e-5 on gaussian data); the others compute in F32
double bound(ggml_type t) {
    switch (t) {
        case GGML_TYPE_F32:
        case GGML_TYPE_F16:
        case GGML_TYPE_BF16:
        case GGML_TYPE_Q2_K:
        case GGML_TYPE_Q3_K:
        case GGML_TYPE_IQ4_NL:
        case GGML_TYPE_IQ4_XS:
            return 1e-9;
        default:
            return 2e-4;
    }
}

TEST(CudaMmVec, MulMatEveryTypeAndColumnCount) {
    SKIP_WITHOUT_DEVICE(info);
    uint32_t seed = 1;
    for (ggml_type t : kTypes) {
        for (int ncols : {1, 2, 5, 8}) {
            ggml_init_params ip{64u << 20, nullptr, false};
            ggml_context *   c = ggml_init(ip);
            ggml_tensor *    w = ggml_new_tensor_2d(c, t, 1024, 67);  // odd row count: partial row groups
            ggml_tensor *    b = ggml_new_tensor_2d(c, GGML_TYPE_F32, 1024, ncols);
            fill_weights(w, seed++);
            fill_f32(b, seed++);
            EXPECT_EQ(run_node(info, ggml_mul_mat(c, w, b), bound(t)), "") << ggml_type_name(t) << " ncols " << ncols;
            ggml_free(c);
        }
    }
}

TEST(CudaMmVec, BroadcastAndStridedActivations) {
    SKIP_WITHOUT_DEVICE(info);
    uint32_t seed = 100;
    for (ggml_type t : kTypes) {
        ggml_init_params ip{64u << 20, nullptr, false};
        ggml_context *   c = ggml_init(ip);
        // GQA-like broadcast: 2 weight slices, 6 activation slices, 3 columns each
        ggml_tensor * w = ggml_new_tensor_3d(c, t, 512, 33, 2);
        ggml_tensor * b = ggml_new_tensor_3d(c, GGML_TYPE_F32, 512, 3, 6);
        fill_weights(w, seed++);
        fill_f32(b, seed++);
        EXPECT_EQ(run_node(info, ggml_mul_mat(c, w, b), bound(t)), "") << ggml_type_name(t) << " broadcast";
        // activations as a transposed view (nb[0] != 4): copied contiguous first
        ggml_tensor * bt = ggml_new_tensor_2d(c, GGML_TYPE_F32, 2, 512);
        fill_f32(bt, seed++);
        ggml_tensor * w2 = ggml_new_tensor_2d(c, t, 512, 40);
        fill_weights(w2, seed++);
        EXPECT_EQ(run_node(info, ggml_mul_mat(c, w2, ggml_transpose(c, bt)), bound(t)), "")
            << ggml_type_name(t) << " strided";
        ggml_free(c);
    }
}

// One token (per-token kernels) and 37 tokens (grouped by expert for the dp4a types: lists longer than one
// chunk of 8, experts nobody chose), activations shared by the slots (n_b = 1) or one per slot.
TEST(CudaMmVec, MulMatId) {
    SKIP_WITHOUT_DEVICE(info);
    uint32_t seed = 200;
    for (ggml_type t : kTypes) {
        for (int n_tok : {1, 37}) {
            for (int n_b : {1, 4}) {
                ggml_init_params ip{64u << 20, nullptr, false};
                ggml_context *   c   = ggml_init(ip);
                ggml_tensor *    as  = ggml_new_tensor_3d(c, t, 512, 48, 8);  // 8 experts
                ggml_tensor *    b   = ggml_new_tensor_3d(c, GGML_TYPE_F32, 512, n_b, n_tok);
                ggml_tensor *    ids = ggml_new_tensor_2d(c, GGML_TYPE_I32, 4, n_tok);  // 4 used
                std::mt19937     rng(seed);
                for (int tok = 0; tok < n_tok; tok++) {
                    // 4 distinct experts of 0..6 (expert 7 is never chosen)
                    std::vector<int32_t> e = {0, 1, 2, 3, 4, 5, 6};
                    std::shuffle(e.begin(), e.end(), rng);
                    std::memcpy((int32_t *) ids->data + 4 * tok, e.data(), 4 * sizeof(int32_t));
                }
                fill_weights(as, seed++);
                fill_f32(b, seed++);
                EXPECT_EQ(run_node(info, ggml_mul_mat_id(c, as, b, ids), bound(t)), "")
                    << ggml_type_name(t) << " n_tok " << n_tok << " n_b " << n_b;
                ggml_free(c);
            }
        }
    }
}

// Decode bandwidth of the Llama-3-8B projections (one column), printed for gpu-check's summary.
TEST(CudaMmVec, DecodeBandwidthReport) {
    SKIP_WITHOUT_DEVICE(info);
    struct shape {
        int64_t K, M;
    };
    const shape shapes[] = {{4096, 4096}, {4096, 14336}, {14336, 4096}};
    // the copy bandwidth the issue measures against
    const size_t copy_bytes = (size_t) 1 << 30;
    void *       s = nullptr, *d = nullptr;
    ASSERT_EQ(cudaMalloc(&s, copy_bytes), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d, copy_bytes), cudaSuccess);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    cudaMemcpy(d, s, copy_bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(e0);
    for (int i = 0; i < 5; i++) {
        cudaMemcpy(d, s, copy_bytes, cudaMemcpyDeviceToDevice);
    }
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0.0f;
    cudaEventElapsedTime(&ms, e0, e1);
    const double copy_gbs = 2.0 * copy_bytes * 5 / (ms * 1e-3) / 1e9;  // read + write
    std::printf("[mm-vec] device-to-device copy: %.0f GB/s (read + write)\n", copy_gbs);
    cudaFree(s);
    cudaFree(d);

    for (ggml_type t : {GGML_TYPE_Q4_0, GGML_TYPE_Q4_K, GGML_TYPE_Q6_K, GGML_TYPE_Q8_0, GGML_TYPE_F16}) {
        for (const shape & sh : shapes) {
            ggml_init_params ip{8u << 20, nullptr, true};  // no host data: device buffers only
            ggml_context *   c   = ggml_init(ip);
            ggml_tensor *    w   = ggml_new_tensor_2d(c, t, sh.K, sh.M);
            ggml_tensor *    b   = ggml_new_tensor_2d(c, GGML_TYPE_F32, sh.K, 1);
            ggml_tensor *    out = ggml_mul_mat(c, w, b);
            void *           dw = nullptr, *db = nullptr, *dd = nullptr;
            ASSERT_EQ(cudaMalloc(&dw, ggml_nbytes(w)), cudaSuccess);
            ASSERT_EQ(cudaMalloc(&db, ggml_nbytes(b)), cudaSuccess);
            ASSERT_EQ(cudaMalloc(&dd, ggml_nbytes(out)), cudaSuccess);
            cudaMemset(dw, 0x11, ggml_nbytes(w));  // scales 0x1111 are small finite halves
            cudaMemset(db, 0, ggml_nbytes(b));
            w->data   = dw;
            b->data   = db;
            out->data = dd;
            scratch_pool     pool;
            ggml_cuda_op_ctx ctx;
            ctx.info         = &info;
            ctx.stream       = nullptr;
            ctx.scratch_fn   = scratch_pool::get;
            ctx.scratch_user = &pool;
            const int iters  = 50;
            bool      ok     = ggml_cuda_op_run(ctx, out);
            cudaEventRecord(e0);
            for (int i = 0; i < iters && ok; i++) {
                ok = ggml_cuda_op_run(ctx, out);
            }
            cudaEventRecord(e1);
            cudaEventSynchronize(e1);
            cudaEventElapsedTime(&ms, e0, e1);
            EXPECT_TRUE(ok);
            EXPECT_EQ(cudaGetLastError(), cudaSuccess);
            const double gbs = (double) ggml_nbytes(w) * iters / (ms * 1e-3) / 1e9;
            std::printf("[mm-vec] %-5s K %5lld M %5lld: %7.1f us, %6.0f GB/s of weights (%.0f%% of copy)\n",
                        ggml_type_name(t), (long long) sh.K, (long long) sh.M, ms * 1e3 / iters, gbs,
                        100.0 * gbs / copy_gbs);
            cudaFree(dw);
            cudaFree(db);
            cudaFree(dd);
            ggml_free(c);
        }
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
}

}  // namespace
