// Internal helpers shared by the ggml core and its backends: logging and op-parameter access.
// Not installed; backends include it, applications never do.
#pragma once

#include "ggml.h"

#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

// printf-style logging through the installed callback (ggml_log_set).
// Exported from libggml (GGML_API) so that backend modules log through the same callback.
GGML_API void ggml_log_internal(enum ggml_log_level level, const char * fmt, ...) GGML_ATTRIBUTE_FORMAT(2, 3);

#define GGML_LOG_DEBUG(...) ggml_log_internal(GGML_LOG_LEVEL_DEBUG, __VA_ARGS__)
#define GGML_LOG_INFO(...)  ggml_log_internal(GGML_LOG_LEVEL_INFO, __VA_ARGS__)
#define GGML_LOG_WARN(...)  ggml_log_internal(GGML_LOG_LEVEL_WARN, __VA_ARGS__)
#define GGML_LOG_ERROR(...) ggml_log_internal(GGML_LOG_LEVEL_ERROR, __VA_ARGS__)

// Broken internal invariants only (never input validation): GGML_ASSERT logs and aborts via
// ggml_abort (declared in ggml.h).
#define GGML_ASSERT(x)                                                    \
    do {                                                                  \
        if (!(x))                                                         \
            ggml_abort(__FILE__, __LINE__, "GGML_ASSERT(%s) failed", #x); \
    } while (0)

static inline int32_t ggml_get_op_params_i32(const struct ggml_tensor * t, int i) {
    return t->op_params[i];
}
static inline float ggml_get_op_params_f32(const struct ggml_tensor * t, int i) {
    float f;
    memcpy(&f, &t->op_params[i], sizeof(f));
    return f;
}
static inline void ggml_set_op_params_i32(struct ggml_tensor * t, int i, int32_t v) {
    t->op_params[i] = v;
}
static inline void ggml_set_op_params_f32(struct ggml_tensor * t, int i, float v) {
    memcpy(&t->op_params[i], &v, sizeof(v));
}

static inline enum ggml_unary_op ggml_get_unary_op(const struct ggml_tensor * t) {
    return (enum ggml_unary_op) t->op_params[0];
}
static inline enum ggml_glu_op ggml_get_glu_op(const struct ggml_tensor * t) {
    return (enum ggml_glu_op) t->op_params[0];
}

// The ROPE nodes the CPU and CUDA kernels take: F32/F16 rows rotated in place of type, I32 positions,
// normal or neox mode, an even n_dims within the row, optional F32 frequency factors.
static inline bool ggml_rope_node_plain(const struct ggml_tensor * op) {
    const struct ggml_tensor * a      = op->src[0];
    const struct ggml_tensor * b      = op->src[1];
    const int                  mode   = ggml_get_op_params_i32(op, 2);
    const int                  n_dims = ggml_get_op_params_i32(op, 1);
    return a && (a->type == GGML_TYPE_F32 || a->type == GGML_TYPE_F16) && op->type == a->type && b &&
           b->type == GGML_TYPE_I32 && (mode == GGML_ROPE_TYPE_NORMAL || mode == GGML_ROPE_TYPE_NEOX) && n_dims > 0 &&
           n_dims % 2 == 0 && n_dims <= a->ne[0] && (!op->src[2] || op->src[2]->type == GGML_TYPE_F32);
}

// Multiplies a and b into *out; false on overflow (sizes read from files must use this).
static inline bool ggml_mul_overflow_u64(uint64_t a, uint64_t b, uint64_t * out) {
#if defined(__GNUC__)
    return !__builtin_mul_overflow(a, b, out);
#else
    *out = a * b;
    return a == 0 || *out / a == b;
#endif
}
static inline bool ggml_add_overflow_u64(uint64_t a, uint64_t b, uint64_t * out) {
#if defined(__GNUC__)
    return !__builtin_add_overflow(a, b, out);
#else
    *out = a + b;
    return *out >= a;
#endif
}

#ifdef __cplusplus
}
#endif
