// Internals of the CPU compute engine shared by the graph loop (ggml-cpu.cpp) and the op family
// files (ops-*.cpp): per-node compute parameters, element load/store helpers and kernel entry points.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "cpu-features.h"
#include "ggml-cpu-compute.h"
#include "ggml-impl.h"
#include "ggml.h"

struct ggml_cpu_threadpool;

// What one thread sees while computing one node. Every kernel is called on nth threads with
// ith = 0..nth-1 and must split its work so the union covers the node exactly once.
struct ggml_cpu_params {
    int                   ith;
    int                   nth;
    void *                wdata;  // scratch shared by the threads of this node (size from ggml_cpu_work_size)
    size_t                wsize;
    ggml_cpu_threadpool * tp;  // for ggml_cpu_barrier inside multi-phase kernels
    // Set by ggml_cpu_fail to node + 1 (first failure only; non-zero = failed). The graph loop
    // stops after node i only if the failure is from a node <= i: a fast thread may already fail
    // node i + 1 while a slow one is still deciding about node i, and both must stop at the same
    // barrier.
    std::atomic<int> * failed;
    int                node = 0;  // index of the node being computed
};

// Waits until all nth threads of the node reach this point. Every thread must call it equally often.
void ggml_cpu_barrier(const ggml_cpu_params * p);

// The next unclaimed work item (0, 1, 2, ...) of this stretch between barriers, shared by the
// node's threads: `for (t = ggml_cpu_claim(p); t < n; t = ggml_cpu_claim(p))` balances tiles over
// threads of unequal speed. Each item is computed whole by one thread, so results do not depend on
// who claims what. One claiming loop per stretch between barriers, and only in nodes that are never
// joined to a neighbour without a barrier (not light ops, not single-row decode products).
int64_t ggml_cpu_claim(const ggml_cpu_params * p);

// This thread's work items: claimed (ggml_cpu_claim) when `shared`, else round-robin (ith, ith + nth,
// ...) for kernels that may run in a barrier-free stretch with a neighbour (single-row products).
struct ggml_cpu_items {
    const ggml_cpu_params * p;
    bool                    shared;
    int64_t                 first() const { return shared ? ggml_cpu_claim(p) : p->ith; }
    int64_t                 next(int64_t t) const { return shared ? ggml_cpu_claim(p) : t + p->nth; }
};

// Marks the node as failed (the compute returns GGML_STATUS_FAILED); logs the first message only.
// Kernels may test `p->failed->load() != 0` after an internal barrier.
void ggml_cpu_fail(const ggml_cpu_params * p, const char * fmt, ...) GGML_ATTRIBUTE_FORMAT(2, 3);

// True when GGML_CPU_SCALAR=1 or ggml_cpu_set_scalar(true): kernels use their plain scalar path.
bool            ggml_cpu_use_scalar();
extern "C" void ggml_cpu_set_scalar(bool scalar);
// Vector loops over a polynomial exp (within a few ulp of std::exp): soft_max, flash attention and
// SwiGLU use them where the CPU has a set (AVX-512: vec-exp.avx512.cpp, softmax.avx512.cpp; NEON:
// vec-exp.neon.cpp).
struct ggml_cpu_vec_exp {
    // d[i] = exp(d[i] - m)
    void (*exp_sub)(float * d, int64_t n, float m);
    // d[i] = silu(x[i]) * g[i] = x[i] / (1 + exp(-x[i])) * g[i]
    void (*swiglu)(const float * x, const float * g, float * d, int64_t n);
    // d[i] = softmax(x * scale + slope * m)[i] (m may be NULL); a row that is -inf everywhere gives 0
    void (*soft_max_row)(const float * x, const float * m, float * d, int64_t n, float scale, float slope);
};
// The set of this CPU, or NULL (none, or GGML_CPU_SCALAR): callers then use std::exp.
const ggml_cpu_vec_exp * ggml_cpu_vec_exp_active();
const ggml_cpu_vec_exp * ggml_cpu_vec_exp_avx512();
const ggml_cpu_vec_exp * ggml_cpu_vec_exp_neon();  // vec-exp.neon.cpp (every arm64 CPU)
// Caps the instruction-set level of the SIMD kernels by its rank (cpu-features.h; never above the
// CPU's): -1 auto, 0 scalar, 1 the family's first SIMD level (AVX2 / NEON), 2 the second (AVX-512 /
// dotprod), 3 the third (i8mm). GGML_CPU_ISA=<level name> in the environment caps it at start-up.
extern "C" void ggml_cpu_set_mm_isa(int isa);
// When on (default; GGML_CPU_AUTO_THREADS=0 turns it off), graphs with little work per node run on
// fewer threads than requested. Results never depend on the thread count.
extern "C" void ggml_cpu_set_auto_threads(bool enable);

// Barriers the graph loop waits at for this graph with more than one thread (after the fusions
// and the barrier-free runs of independent nodes): for tests and the profile.
int ggml_cpu_graph_barriers(const ggml_cgraph * gf);

// Bytes of shared scratch the kernel of `node` needs with nth threads (0 for most ops).
size_t ggml_cpu_work_size(const ggml_tensor * node, int nth);

// ---- element helpers -------------------------------------------------------------------------
extern float ggml_cpu_f16_table[1 << 16];  // fp16 bits -> float, filled at load time

static inline float cpu_f16_to_f32(ggml_fp16_t h) {
    return ggml_cpu_f16_table[h];
}
static inline float cpu_bf16_to_f32(uint16_t b) {
    const uint32_t u = (uint32_t) b << 16;
    float          f;
    std::memcpy(&f, &u, 4);
    return f;
}

// Reads one element of a float-like type (F32/F16/BF16) as float.
static inline float cpu_load_f(ggml_type t, const void * p) {
    switch (t) {
        case GGML_TYPE_F32: {
            float f;
            std::memcpy(&f, p, 4);
            return f;
        }
        case GGML_TYPE_F16: {
            uint16_t h;
            std::memcpy(&h, p, 2);
            return cpu_f16_to_f32(h);
        }
        case GGML_TYPE_BF16: {
            uint16_t h;
            std::memcpy(&h, p, 2);
            return cpu_bf16_to_f32(h);
        }
        default:
            return 0.0f;
    }
}

// Writes one element of a float-like type (F32/F16/BF16), rounding to nearest even.
static inline void cpu_store_f(ggml_type t, void * p, float v) {
    switch (t) {
        case GGML_TYPE_F32:
            std::memcpy(p, &v, 4);
            break;
        case GGML_TYPE_F16: {
            const ggml_fp16_t h = ggml_fp32_to_fp16(v);
            std::memcpy(p, &h, 2);
            break;
        }
        case GGML_TYPE_BF16: {
            const ggml_bf16_t h = ggml_fp32_to_bf16(v);
            std::memcpy(p, &h, 2);
            break;
        }
        default:
            break;
    }
}

static inline bool cpu_is_float_type(ggml_type t) {
    return t == GGML_TYPE_F32 || t == GGML_TYPE_F16 || t == GGML_TYPE_BF16;
}

static inline int64_t cpu_nrows(const ggml_tensor * t) {
    return t->ne[1] * t->ne[2] * t->ne[3];
}
static inline int64_t cpu_nelements(const ggml_tensor * t) {
    return t->ne[0] * t->ne[1] * t->ne[2] * t->ne[3];
}

// Address of element (i0, i1, i2, i3) honouring strides.
static inline char * cpu_ptr(const ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    return (char *) t->data + i0 * t->nb[0] + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3];
}

// Row r (flat over dims 1..3) -> (i1, i2, i3).
static inline void cpu_row_index(const ggml_tensor * t, int64_t r, int64_t & i1, int64_t & i2, int64_t & i3) {
    i1 = r % t->ne[1];
    i2 = (r / t->ne[1]) % t->ne[2];
    i3 = r / (t->ne[1] * t->ne[2]);
}

// The [r0, r1) share of n items for thread ith of nth.
static inline void cpu_split(int64_t n, int ith, int nth, int64_t & r0, int64_t & r1) {
    const int64_t per = (n + nth - 1) / nth;
    r0                = per * ith < n ? per * ith : n;
    r1                = r0 + per < n ? r0 + per : n;
}

// Converts n floats to a row of type t (float-like or quantized through the CPU type traits).
// False if the type cannot be written.
bool ggml_cpu_from_float_row(ggml_type t, const float * x, void * y, int64_t n);
// Converts a row of type t to n floats; false if the type cannot be read.
bool ggml_cpu_to_float_row(ggml_type t, const void * x, float * y, int64_t n);
// True if rows of type t can be written from / read into floats.
bool ggml_cpu_can_from_float(ggml_type t);
bool ggml_cpu_can_to_float(ggml_type t);

// ---- kernels (one per op family file) --------------------------------------------------------
void ggml_cpu_op_dup(const ggml_cpu_params * p, ggml_tensor * dst);     // DUP, CONT, CPY (ops-copy.cpp)
void ggml_cpu_op_concat(const ggml_cpu_params * p, ggml_tensor * dst);  // ops-copy.cpp
template <ggml_op OP>  // ADD, SUB, MUL, DIV (ops-binary.cpp, instantiated there)
void ggml_cpu_op_binary(const ggml_cpu_params * p, ggml_tensor * dst);
void ggml_cpu_op_unary(const ggml_cpu_params * p, ggml_tensor * dst);   // UNARY, SQR, SQRT, SCALE, CLAMP
void ggml_cpu_op_glu(const ggml_cpu_params * p, ggml_tensor * dst);     // ops-unary.cpp
void ggml_cpu_op_reduce(const ggml_cpu_params * p, ggml_tensor * dst);  // SUM_ROWS, MEAN, ARGMAX
void ggml_cpu_op_norm(const ggml_cpu_params * p, ggml_tensor * dst);    // NORM, RMS_NORM, L2_NORM
// RMS_NORM then MUL by a weight row broadcast over the rows (ops-norm.cpp): the graph loop runs both
// nodes as one when _fusable says so (not under GGML_CPU_SCALAR); same bits as the two nodes.
bool ggml_cpu_rms_norm_mul_fusable(const ggml_tensor * norm, const ggml_tensor * mul);
void ggml_cpu_op_rms_norm_mul(const ggml_cpu_params * p, ggml_tensor * norm, ggml_tensor * mul);
// ADD (same-shape F32 rows) whose result feeds such an RMS_NORM: the three nodes as one pass, same bits.
bool ggml_cpu_add_rms_norm_mul_fusable(const ggml_tensor * add, const ggml_tensor * norm, const ggml_tensor * mul);
void ggml_cpu_op_add_rms_norm_mul(const ggml_cpu_params * p, ggml_tensor * add, ggml_tensor * norm, ggml_tensor * mul);
void ggml_cpu_op_mul_mat(const ggml_cpu_params * p, ggml_tensor * dst);
void ggml_cpu_op_mul_mat_id(const ggml_cpu_params * p, ggml_tensor * dst);
void ggml_cpu_op_get_rows(const ggml_cpu_params * p, ggml_tensor * dst);
void ggml_cpu_op_set_rows(const ggml_cpu_params * p, ggml_tensor * dst);
void ggml_cpu_op_rope(const ggml_cpu_params * p, ggml_tensor * dst);
void ggml_cpu_op_soft_max(const ggml_cpu_params * p, ggml_tensor * dst);
void ggml_cpu_op_flash_attn(const ggml_cpu_params * p, ggml_tensor * dst);
void ggml_cpu_op_argsort(const ggml_cpu_params * p, ggml_tensor * dst);
void ggml_cpu_op_ssm_conv(const ggml_cpu_params * p, ggml_tensor * dst);  // ops-ssm.cpp
void ggml_cpu_op_ssm_scan(const ggml_cpu_params * p, ggml_tensor * dst);
void ggml_cpu_op_gated_delta_net(const ggml_cpu_params * p, ggml_tensor * dst);

size_t ggml_cpu_mul_mat_work_size(const ggml_tensor * dst, int nth);
size_t ggml_cpu_mul_mat_id_work_size(const ggml_tensor * dst, int nth);
size_t ggml_cpu_flash_attn_work_size(const ggml_tensor * dst, int nth);
size_t ggml_cpu_copy_work_size(const ggml_tensor * dst, int nth);
size_t ggml_cpu_set_rows_work_size(const ggml_tensor * dst, int nth);
size_t ggml_cpu_get_rows_work_size(const ggml_tensor * dst, int nth);
size_t ggml_cpu_gated_delta_net_work_size(const ggml_tensor * dst, int nth);

bool ggml_cpu_mul_mat_supported(const ggml_tensor * a);  // weight types mul_mat can take
// The instruction-set level the SIMD kernels use now, after the GGML_CPU_SCALAR / GGML_CPU_ISA /
// ggml_cpu_set_mm_isa caps, and its rank (0 scalar, 1 AVX2 or NEON, 2 AVX-512 or dotprod, 3 i8mm).
ggml_cpu_isa ggml_cpu_mm_isa_active();
int          ggml_cpu_mm_isa_level();
// out[c][r] = dot(row r of a, brows[c]) for r < m, c < n with the mul_mat kernels: a has weight type wt
// (rows lda bytes apart, K elements), brows are in wt's vec_dot type (F32 for F32/F16/BF16). Each dot
// product is summed in the same order whatever m and n are.
void ggml_cpu_mm_block(ggml_type wt, int64_t K, const char * a, size_t lda, int64_t m, const char * const * brows,
                       int64_t n, float * const * out);
