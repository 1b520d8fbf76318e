// A fake second backend for scheduler tests, written only against ggml-backend-impl.h (the way the
// Vulkan and CUDA backends plug in). Its memory is host RAM but its buffer type claims not to be host,
// so the CPU cannot read it and the scheduler must insert copies. It computes only F32 ADD and MUL
// (with broadcasting of src1) with plain loops and counts what it did.
#pragma once

#include "ggml-backend-impl.h"
#include "test-compat.h"

#include <cstdlib>
#include <cstring>

namespace fake {

struct counters {
    int  graph_computes = 0;
    int  add_nodes      = 0;
    int  mul_nodes      = 0;
    int  other_nodes    = 0;      // kernel nodes it was asked to compute but does not support
    bool offload_mul    = false;  // offload_op answers true for MUL (tests op_offload)
};

inline counters & stats() {
    static counters c;
    return c;
}

// ---- buffers ----
inline void * buf_get_base(ggml_backend_buffer_t b) {
    return b->context;
}
inline void buf_free(ggml_backend_buffer_t b) {
    test_aligned_free(b->context);
}
inline void buf_memset(ggml_backend_buffer_t, ggml_tensor * t, uint8_t v, size_t off, size_t n) {
    std::memset((char *) t->data + off, v, n);
}
inline void buf_set(ggml_backend_buffer_t, ggml_tensor * t, const void * d, size_t off, size_t n) {
    std::memcpy((char *) t->data + off, d, n);
}
inline void buf_get(ggml_backend_buffer_t, const ggml_tensor * t, void * d, size_t off, size_t n) {
    std::memcpy(d, (const char *) t->data + off, n);
}
inline void buf_clear(ggml_backend_buffer_t b, uint8_t v) {
    std::memset(b->context, v, b->size);
}

inline const char * buft_name(ggml_backend_buffer_type_t) {
    return "FAKE";
}
inline ggml_backend_buffer_t buft_alloc(ggml_backend_buffer_type_t buft, size_t size) {
    void * mem = test_aligned_alloc(64, (size + 63) / 64 * 64);
    if (!mem) {
        return nullptr;
    }
    ggml_backend_buffer_i i = {};
    i.free_buffer           = buf_free;
    i.get_base              = buf_get_base;
    i.memset_tensor         = buf_memset;
    i.set_tensor            = buf_set;
    i.get_tensor            = buf_get;
    i.clear                 = buf_clear;
    return ggml_backend_buffer_init(buft, i, mem, size);
}
inline size_t buft_alignment(ggml_backend_buffer_type_t) {
    return 64;
}

inline ggml_backend_buffer_type_t buffer_type();
inline ggml_backend_dev_t         device();

// ---- compute ----
inline float f32_at(const ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    return *(const float *) ((const char *) t->data + i0 * t->nb[0] + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3]);
}

inline void binary(ggml_tensor * dst, bool is_add) {
    const ggml_tensor * a = dst->src[0];
    const ggml_tensor * b = dst->src[1];
    for (int64_t i3 = 0; i3 < dst->ne[3]; i3++)
        for (int64_t i2 = 0; i2 < dst->ne[2]; i2++)
            for (int64_t i1 = 0; i1 < dst->ne[1]; i1++)
                for (int64_t i0 = 0; i0 < dst->ne[0]; i0++) {
                    const float x = f32_at(a, i0, i1, i2, i3);
                    const float y = f32_at(b, i0 % b->ne[0], i1 % b->ne[1], i2 % b->ne[2], i3 % b->ne[3]);
                    *(float *) ((char *) dst->data + i0 * dst->nb[0] + i1 * dst->nb[1] + i2 * dst->nb[2] +
                                i3 * dst->nb[3]) = is_add ? x + y : x * y;
                }
}

inline const char * be_name(ggml_backend_t) {
    return "FAKE";
}
inline void be_free(ggml_backend_t b) {
    delete b;
}
inline ggml_status be_compute(ggml_backend_t, ggml_cgraph * g) {
    stats().graph_computes++;
    for (int i = 0; i < ggml_graph_n_nodes(g); i++) {
        ggml_tensor * t = ggml_graph_node(g, i);
        switch (t->op) {
            case GGML_OP_ADD:
                binary(t, true);
                stats().add_nodes++;
                break;
            case GGML_OP_MUL:
                binary(t, false);
                stats().mul_nodes++;
                break;
            case GGML_OP_NONE:
            case GGML_OP_VIEW:
            case GGML_OP_RESHAPE:
            case GGML_OP_PERMUTE:
            case GGML_OP_TRANSPOSE:
                break;
            default:
                stats().other_nodes++;
                return GGML_STATUS_FAILED;
        }
    }
    return GGML_STATUS_SUCCESS;
}

// ---- device / registry ----
inline const char * dev_name(ggml_backend_dev_t) {
    return "FAKE";
}
inline const char * dev_desc(ggml_backend_dev_t) {
    return "fake test accelerator";
}
inline void dev_memory(ggml_backend_dev_t, size_t * f, size_t * t) {
    *f = 1u << 20;
    *t = 2u << 20;
}
inline enum ggml_backend_dev_type dev_type(ggml_backend_dev_t) {
    return GGML_BACKEND_DEVICE_TYPE_ACCEL;
}
inline ggml_backend_t dev_init(ggml_backend_dev_t dev, const char *) {
    ggml_backend_i i = {};
    i.get_name       = be_name;
    i.free           = be_free;
    i.graph_compute  = be_compute;
    return new ggml_backend{i, dev, nullptr};
}
inline ggml_backend_buffer_type_t dev_buft(ggml_backend_dev_t) {
    return buffer_type();
}
inline bool dev_supports_op(ggml_backend_dev_t, const ggml_tensor * op) {
    switch (op->op) {
        case GGML_OP_NONE:
        case GGML_OP_VIEW:
        case GGML_OP_RESHAPE:
        case GGML_OP_PERMUTE:
        case GGML_OP_TRANSPOSE:
            return true;
        case GGML_OP_ADD:
        case GGML_OP_MUL:
            return op->type == GGML_TYPE_F32 && op->src[0]->type == GGML_TYPE_F32 && op->src[1]->type == GGML_TYPE_F32;
        default:
            return false;
    }
}
inline bool dev_supports_buft(ggml_backend_dev_t, ggml_backend_buffer_type_t buft) {
    return buft == buffer_type();
}
inline bool dev_offload_op(ggml_backend_dev_t, const ggml_tensor * op) {
    return stats().offload_mul && op->op == GGML_OP_MUL;
}

inline const char * reg_name(ggml_backend_reg_t) {
    return "Fake";
}
inline size_t reg_count(ggml_backend_reg_t) {
    return 1;
}
inline ggml_backend_dev_t reg_dev(ggml_backend_reg_t, size_t i) {
    return i == 0 ? device() : nullptr;
}

inline ggml_backend_reg_t reg();

inline ggml_backend_buffer_type_t buffer_type() {
    static ggml_backend_buffer_type b = {
        {buft_name, buft_alloc, buft_alignment, nullptr, nullptr, nullptr}, device(), nullptr};
    return &b;
}

inline ggml_backend_dev_t device() {
    static ggml_backend_device d = [] {
        ggml_backend_device_i i = {};
        i.get_name              = dev_name;
        i.get_description       = dev_desc;
        i.get_memory            = dev_memory;
        i.get_type              = dev_type;
        i.init_backend          = dev_init;
        i.get_buffer_type       = dev_buft;
        i.supports_op           = dev_supports_op;
        i.supports_buft         = dev_supports_buft;
        i.offload_op            = dev_offload_op;
        return ggml_backend_device{i, reg(), nullptr};
    }();
    return &d;
}

inline ggml_backend_reg_t reg() {
    static ggml_backend_reg r = {GGML_BACKEND_API_VERSION, {reg_name, reg_count, reg_dev, nullptr}, nullptr};
    return &r;
}

}  // namespace fake
