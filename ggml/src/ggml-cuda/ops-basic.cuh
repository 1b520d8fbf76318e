// ops-basic.cuh — what the basic-op files (ops-*.cu) share: a by-value tensor view for kernels,
// element load/store for F32/F16/BF16, row indexing, launch shapes, block reductions, and the entry
// point of each op family (dispatched by the op table, cuda-op-table.cu).
#pragma once

#include "common.cuh"
#include "ops-math.cuh"

// A tensor as a kernel sees it: device address, shape and byte strides.
struct cuda_tview {
    char *  data;
    int64_t ne[4];
    int64_t nb[4];
    int     type;
};

static inline cuda_tview cuda_tview_of(const ggml_tensor * t) {
    cuda_tview v;
    v.data = (char *) t->data;
    for (int i = 0; i < 4; i++) {
        v.ne[i] = t->ne[i];
        v.nb[i] = (int64_t) t->nb[i];
    }
    v.type = (int) t->type;
    return v;
}

static inline int64_t cuda_nrows(const ggml_tensor * t) {
    return t->ne[1] * t->ne[2] * t->ne[3];
}

// ---- element access (uniform branch on the type: every thread of a kernel sees the same one) -----
static __device__ __forceinline__ float cuda_load_f(int type, const char * p) {
    if (type == GGML_TYPE_F32) {
        return *(const float *) p;
    }
    if (type == GGML_TYPE_F16) {
        return __half2float(*(const __half *) p);
    }
    return ggml_cuda_math::bf16_to_f32(*(const uint16_t *) p);
}

// Round to nearest even like ggml_fp32_to_fp16 / ggml_fp32_to_bf16 (NaN payloads aside).
static __device__ __forceinline__ void cuda_store_f(int type, char * p, float v) {
    if (type == GGML_TYPE_F32) {
        *(float *) p = v;
    } else if (type == GGML_TYPE_F16) {
        *(__half *) p = __float2half_rn(v);
    } else {
        *(uint16_t *) p = ggml_cuda_math::f32_to_bf16(v);
    }
}

// Row r (flat over dims 1..3) -> (i1, i2, i3): three divisions per row, none per element.
static __device__ __forceinline__ void cuda_row_index(const cuda_tview & t, int64_t r, int64_t & i1, int64_t & i2,
                                                      int64_t & i3) {
    i1              = r % t.ne[1];
    const int64_t q = r / t.ne[1];
    i2              = q % t.ne[2];
    i3              = q / t.ne[2];
}

static __device__ __forceinline__ char * cuda_ptr(const cuda_tview & t, int64_t i0, int64_t i1, int64_t i2,
                                                  int64_t i3) {
    return t.data + i0 * t.nb[0] + i1 * t.nb[1] + i2 * t.nb[2] + i3 * t.nb[3];
}

// ---- launch shapes ----------------------------------------------------------------------------
// Row-wise elementwise kernels: blockDim (bx, by), bx threads along a row (a warp multiple, <= 256),
// by rows per block, so short rows still fill the block. Kernels loop rows with stride gridDim.x * by.
struct cuda_row_launch {
    dim3 grid, block;
};

static inline cuda_row_launch cuda_rows_launch(int64_t ne0, int64_t nrows) {
    int bx = 32;
    while (bx < 256 && bx < ne0) {
        bx *= 2;
    }
    const int       by     = 256 / bx;
    const int64_t   blocks = (nrows + by - 1) / by;
    cuda_row_launch l;
    l.block = dim3((unsigned) bx, (unsigned) by, 1);
    l.grid  = dim3((unsigned) (blocks < 1 ? 1 : (blocks > 65535 * 16 ? 65535 * 16 : blocks)), 1, 1);
    return l;
}

// One block per row (reductions); the grid is capped and kernels loop rows with stride gridDim.x.
static inline unsigned cuda_row_blocks(int64_t nrows) {
    return (unsigned) (nrows < 1 ? 1 : (nrows > 1048576 ? 1048576 : nrows));
}

constexpr int CUDA_ROW_THREADS = 256;  // threads of a one-block-per-row kernel (a power of two)

// ---- block reductions (blockDim.x a warp multiple, <= 1024; every thread calls, every thread gets the result)
template <typename T>
static __device__ __forceinline__ T cuda_warp_sum(T v) {
    for (int o = 16; o > 0; o >>= 1) {
        v += __shfl_xor_sync(0xffffffffu, v, o);
    }
    return v;
}

template <typename T>
static __device__ __forceinline__ T cuda_warp_max(T v) {
    for (int o = 16; o > 0; o >>= 1) {
        v = max(v, __shfl_xor_sync(0xffffffffu, v, o));
    }
    return v;
}

// `sh` holds at least 32 T; it may be reused after the call returns.
template <typename T>
static __device__ __forceinline__ T cuda_block_sum(T v, T * sh) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, nw = blockDim.x / 32;
    v = cuda_warp_sum(v);
    __syncthreads();  // sh may still be read by a previous reduction
    if (lane == 0) {
        sh[warp] = v;
    }
    __syncthreads();
    v = lane < nw ? sh[lane] : T(0);
    return cuda_warp_sum(v);
}

template <typename T>
static __device__ __forceinline__ T cuda_block_max(T v, T * sh, T lowest) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, nw = blockDim.x / 32;
    v = cuda_warp_max(v);
    __syncthreads();
    if (lane == 0) {
        sh[warp] = v;
    }
    __syncthreads();
    v = lane < nw ? sh[lane] : lowest;
    return cuda_warp_max(v);
}

// ---- op families (each file implements one; false = cannot run, logged) ------------------------
template <ggml_op OP>  // ADD SUB MUL DIV (instantiated in ops-binary.cu)
bool ggml_cuda_op_binary(ggml_cuda_op_ctx & ctx, ggml_tensor * dst);
bool ggml_cuda_op_unary(ggml_cuda_op_ctx & ctx, ggml_tensor * dst);     // UNARY SQR SQRT SCALE CLAMP ops-unary.cu
bool ggml_cuda_op_glu(ggml_cuda_op_ctx & ctx, ggml_tensor * dst);       // GLU                  ops-unary.cu
bool ggml_cuda_op_norm(ggml_cuda_op_ctx & ctx, ggml_tensor * dst);      // NORM RMS_NORM L2_NORM ops-norm.cu
bool ggml_cuda_op_reduce(ggml_cuda_op_ctx & ctx, ggml_tensor * dst);    // SUM_ROWS MEAN ARGMAX ops-reduce.cu
bool ggml_cuda_op_rope(ggml_cuda_op_ctx & ctx, ggml_tensor * dst);      // ROPE                 ops-rope.cu
bool ggml_cuda_op_soft_max(ggml_cuda_op_ctx & ctx, ggml_tensor * dst);  // SOFT_MAX             ops-softmax.cu
bool ggml_cuda_op_argsort(ggml_cuda_op_ctx & ctx, ggml_tensor * dst);   // ARGSORT              ops-argsort.cu
bool ggml_cuda_op_dup(ggml_cuda_op_ctx & ctx, ggml_tensor * dst);       // DUP CONT CPY         ops-copy.cu
bool ggml_cuda_op_concat(ggml_cuda_op_ctx & ctx, ggml_tensor * dst);    // CONCAT               ops-copy.cu
bool ggml_cuda_op_set_rows(ggml_cuda_op_ctx & ctx, ggml_tensor * dst);  // SET_ROWS             ops-set-rows.cu
bool ggml_cuda_op_ssm_conv(ggml_cuda_op_ctx & ctx, ggml_tensor * dst);  // SSM_CONV             ops-ssm.cu
bool ggml_cuda_op_ssm_scan(ggml_cuda_op_ctx & ctx, ggml_tensor * dst);  // SSM_SCAN             ops-ssm.cu
bool ggml_cuda_op_gated_delta_net(ggml_cuda_op_ctx & ctx, ggml_tensor * dst);  // GATED_DELTA_NET ops-ssm.cu

// Largest row ARGSORT sorts on this device (a power of two: the row's indices live in shared memory).
int64_t ggml_cuda_argsort_max_cols(const ggml_cuda_device_info & info);
