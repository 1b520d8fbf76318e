// vk-ops-util.h — what the Vulkan op encoders share: support predicates on tensors (types, alignment,
// 32-bit addressability), binding tensors to descriptors, the push-constant builder and the dispatch.
// Internal to the Vulkan backend (vk-ops.cpp, vk-ops-ssm.cpp).
#pragma once

#include "vk-context.h"

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace vk_ops {

struct bound {
    VkBuffer     buffer = VK_NULL_HANDLE;
    VkDeviceSize offset = 0;  // aligned to minStorageBufferOffsetAlignment
    VkDeviceSize range  = 0;
    size_t       rem    = 0;  // bytes from offset to the tensor's data
};

// Push-constant builder: a flat list of 32-bit words.
struct pc_words {
    uint32_t   w[VK_PUSH_WORDS] = {};
    uint32_t   n                = 0;
    pc_words & u(uint64_t v) {
        if (n < VK_PUSH_WORDS)
            w[n] = (uint32_t) v;
        n++;
        return *this;
    }
    pc_words & f(float v) {
        uint32_t x;
        std::memcpy(&x, &v, 4);
        return u(x);
    }
    // the tensor's offset within its binding and its 4 strides, in units of `unit` bytes
    pc_words & strides(const bound & b, const ggml_tensor * t, size_t unit, bool with_nb0 = true) {
        u(b.rem / unit);
        for (int i = with_nb0 ? 0 : 1; i < 4; i++)
            u(t->nb[i] / unit);
        return *this;
    }
    pc_words & ne(const ggml_tensor * t) { return u(t->ne[0]).u(t->ne[1]).u(t->ne[2]).u(t->ne[3]); }
};

// A shader variant name built without touching the heap (a decode step allocates nothing).
struct vname {
    char buf[64];
    vname(const char * a, const char * b, const char * c = "", const char * d = "") {
        std::snprintf(buf, sizeof buf, "%s%s%s%s", a, b, c, d);
    }
    const char * c_str() const { return buf; }
};

// What an encoder gets: the device, the command buffer being recorded and the node.
struct enc {
    vk_device *     dev;
    VkCommandBuffer cmd;
    ggml_tensor *   node;
};

bool is_f32(const ggml_tensor * t);
bool is_f32_or_f16(const ggml_tensor * t);
bool is_float16_or_32(const ggml_tensor * t);

// Strides and view offset are whole multiples of `unit` bytes (the shaders index in those units),
// and every element index fits in 32 bits.
bool addressable(const ggml_tensor * t, size_t unit);
bool addressable_elems(const ggml_tensor * t);
bool rows_contiguous(const ggml_tensor * t);
// rows (dims 1..3) one stride apart, so a flat row index r is at r * nb[1]
bool rows_evenly_spaced(const ggml_tensor * t);
// The quantized types with a dequantizer in shaders/quants.glsl: every type the CPU computes.
bool is_vk_quant(ggml_type t);
bool supports_matmul_type(ggml_type t);
bool supports_get_rows_type(ggml_type t);
// quantized tensors are addressed in 16-bit words, MXFP4 (17-byte blocks) in bytes
size_t addr_unit(const ggml_tensor * t);
// Binding 4 of the i-quant shaders: their codebook grid (nullptr for other types). False if a type
// that needs one has none (the upload failed, logged).
bool grid_of(vk_device * dev, ggml_type t, const ggml_tensor ** g);
bool bind(const vk_device * dev, const ggml_tensor * t, bound * out);
// Binds sources 0..2 to bindings 0..2, dst to 3, sources 3..n_srcs-1 to 4.. (NULL or absent sources -> dst), pushes
// constants and dispatches gx*gy*gz workgroups of pipe, then a barrier so the next node sees the writes.
bool dispatch(vk_device * dev, VkCommandBuffer cmd, VkPipeline pipe, const ggml_tensor * const * srcs,
              const ggml_tensor * dst, const pc_words & pc, uint32_t gx, uint32_t gy, uint32_t gz, uint32_t n_srcs = 4);
// The same with the shader variant by name (no specialization constants).
bool dispatch(vk_device * dev, VkCommandBuffer cmd, const char * shader, const ggml_tensor * const * srcs,
              const ggml_tensor * dst, const pc_words & pc, uint32_t gx, uint32_t gy, uint32_t gz, uint32_t n_srcs = 4);
// The 2-D grid for n_groups workgroups (shaders rebuild the flat index; see common.glsl).
void         grid(uint64_t n_groups, uint32_t * gx, uint32_t * gy);
bool         dispatch_flat(vk_device * dev, VkCommandBuffer cmd, const char * shader, const ggml_tensor * const srcs[4],
                           const ggml_tensor * dst, const pc_words & pc, uint64_t n_threads, uint32_t wg = 256);
const char * tname(ggml_type t);
bool         unit_ok(const bound & b, size_t unit);
// Offsets of every bound tensor must be whole units; checked once per node.
bool offsets_ok(const enc & e, const ggml_tensor * t, size_t unit, bound * b);

// Encoders and support predicates of the recurrent-layer ops (vk-ops-ssm.cpp).
bool sup_ssm_conv(const vk_device * dev, const ggml_tensor * op);
bool sup_ssm_scan(const vk_device * dev, const ggml_tensor * op);
bool sup_gated_delta_net(const vk_device * dev, const ggml_tensor * op);
bool enc_ssm_conv(const enc & e);
bool enc_ssm_scan(const enc & e);
bool enc_gated_delta_net(const enc & e);

}  // namespace vk_ops
