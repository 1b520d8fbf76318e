// vk-ops-util.cpp — the helpers the Vulkan op encoders share (declared in vk-ops-util.h).
#include "vk-ops-util.h"

#include <algorithm>

namespace vk_ops {

// ---- support checks ---------------------------------------------------------------------------

bool is_f32(const ggml_tensor * t) {
    return t->type == GGML_TYPE_F32;
}
bool is_f32_or_f16(const ggml_tensor * t) {
    return t->type == GGML_TYPE_F32 || t->type == GGML_TYPE_F16;
}
bool is_float16_or_32(const ggml_tensor * t) {
    return is_f32_or_f16(t) || t->type == GGML_TYPE_BF16;
}

// Strides and view offset are whole multiples of `unit` bytes (the shaders index in those units),
// and every element index fits in 32 bits.
bool addressable(const ggml_tensor * t, size_t unit) {
    if (t->view_offs % unit != 0) {
        return false;
    }
    size_t extent = ggml_type_size(t->type);
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        if (t->nb[i] % unit != 0) {
            return false;
        }
        extent += (size_t) (t->ne[i] - 1) * t->nb[i];
    }
    return extent / unit < UINT32_MAX / 2 && (uint64_t) ggml_nelements(t) < UINT32_MAX / 2;
}
bool addressable_elems(const ggml_tensor * t) {
    return addressable(t, ggml_type_size(t->type));
}
bool rows_contiguous(const ggml_tensor * t) {
    return t->nb[0] == ggml_type_size(t->type);
}
// rows (dims 1..3) one stride apart, so a flat row index r is at r * nb[1]
bool rows_evenly_spaced(const ggml_tensor * t) {
    return t->nb[2] == t->nb[1] * t->ne[1] && t->nb[3] == t->nb[2] * t->ne[2];
}

// The quantized types with a dequantizer in shaders/quants.glsl: every type the CPU computes.
bool is_vk_quant(ggml_type t) {
    switch (t) {
        case GGML_TYPE_Q4_0:
        case GGML_TYPE_Q4_1:
        case GGML_TYPE_Q5_0:
        case GGML_TYPE_Q5_1:
        case GGML_TYPE_Q8_0:
        case GGML_TYPE_Q2_K:
        case GGML_TYPE_Q3_K:
        case GGML_TYPE_Q4_K:
        case GGML_TYPE_Q5_K:
        case GGML_TYPE_Q6_K:
        case GGML_TYPE_IQ4_NL:
        case GGML_TYPE_IQ4_XS:
        case GGML_TYPE_MXFP4:
        case GGML_TYPE_TQ1_0:
        case GGML_TYPE_TQ2_0:
        case GGML_TYPE_IQ2_XXS:
        case GGML_TYPE_IQ2_XS:
        case GGML_TYPE_IQ2_S:
        case GGML_TYPE_IQ3_XXS:
        case GGML_TYPE_IQ3_S:
        case GGML_TYPE_IQ1_S:
        case GGML_TYPE_IQ1_M:
            return true;
        default:
            return false;
    }
}

bool supports_matmul_type(ggml_type t) {
    return t == GGML_TYPE_F32 || t == GGML_TYPE_F16 || t == GGML_TYPE_BF16 || is_vk_quant(t);
}

bool supports_get_rows_type(ggml_type t) {
    return supports_matmul_type(t) || t == GGML_TYPE_I32;
}

// quantized tensors are addressed in 16-bit words, MXFP4 (17-byte blocks) in bytes
size_t addr_unit(const ggml_tensor * t) {
    if (t->type == GGML_TYPE_MXFP4)
        return 1;
    return ggml_is_quantized(t->type) ? 2 : ggml_type_size(t->type);
}

// Binding 4 of the i-quant shaders: their codebook grid (nullptr for other types). False if a type
// that needs one has none (the upload failed, logged).
bool grid_of(vk_device * dev, ggml_type t, const ggml_tensor ** g) {
    *g = ggml_vk_iq_grid(dev, t);
    return *g || !ggml_vk_type_has_grid(t);
}

// ---- dispatch helpers --------------------------------------------------------------------------

bool bind(const vk_device * dev, const ggml_tensor * t, bound * out) {
    vk_buffer * b   = nullptr;
    size_t      off = 0;
    if (!ggml_vk_tensor_location(t, &b, &off) || b->dev != dev) {
        GGML_LOG_ERROR("ggml-vulkan: tensor '%s' is not in a buffer of %s\n", t->name, dev->name.c_str());
        return false;
    }
    const size_t align = dev->props.limits.minStorageBufferOffsetAlignment;
    out->buffer        = b->buffer;
    out->offset        = off - off % align;
    out->rem           = off - out->offset;
    const size_t avail = ((b->size + 15) & ~size_t(15)) - out->offset;
    out->range         = std::min<size_t>(avail, dev->props.limits.maxStorageBufferRange);
    return true;
}

// Binds sources 0..2 to bindings 0..2, dst to 3, sources 3..n_srcs-1 to 4.. (NULL or absent sources -> dst), pushes
// constants and dispatches gx*gy*gz workgroups of pipe, then a barrier so the next node sees the writes.
bool dispatch(vk_device * dev, VkCommandBuffer cmd, VkPipeline pipe, const ggml_tensor * const * srcs,
              const ggml_tensor * dst, const pc_words & pc, uint32_t gx, uint32_t gy, uint32_t gz, uint32_t n_srcs) {
    if (pc.n > VK_PUSH_WORDS) {
        GGML_LOG_ERROR("ggml-vulkan: %s: %u push-constant words exceed %u\n", ggml_op_name(dst->op), pc.n,
                       VK_PUSH_WORDS);
        return false;
    }
    bound b[VK_N_BINDINGS];
    for (uint32_t i = 0; i < VK_N_BINDINGS; i++) {
        const ggml_tensor * src = i < 3 ? srcs[i] : (i > 3 && i - 1 < n_srcs ? srcs[i - 1] : nullptr);
        const ggml_tensor * t   = src ? src : dst;
        if (!bind(dev, t, &b[i])) {
            return false;
        }
    }
    VkDescriptorBufferInfo info[VK_N_BINDINGS];
    VkWriteDescriptorSet   w[VK_N_BINDINGS];
    for (uint32_t i = 0; i < VK_N_BINDINGS; i++) {
        info[i]              = {b[i].buffer, b[i].offset, b[i].range};
        w[i]                 = vk_init<VkWriteDescriptorSet>(VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET);
        w[i].dstBinding      = i;
        w[i].descriptorCount = 1;
        w[i].descriptorType  = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        w[i].pBufferInfo     = &info[i];
    }
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
    dev->push_descriptor(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, dev->layout, 0, VK_N_BINDINGS, w);
    vkCmdPushConstants(cmd, dev->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, VK_PUSH_WORDS * 4, pc.w);
    vkCmdDispatch(cmd, gx, gy, gz);
    VkMemoryBarrier mb = vk_init<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
    mb.srcAccessMask   = VK_ACCESS_SHADER_WRITE_BIT;
    mb.dstAccessMask   = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0,
                         nullptr, 0, nullptr);
    return true;
}

// The same with the shader variant by name (no specialization constants).
bool dispatch(vk_device * dev, VkCommandBuffer cmd, const char * shader, const ggml_tensor * const * srcs,
              const ggml_tensor * dst, const pc_words & pc, uint32_t gx, uint32_t gy, uint32_t gz, uint32_t n_srcs) {
    VkPipeline pipe = ggml_vk_get_pipeline(dev, shader);
    return pipe && dispatch(dev, cmd, pipe, srcs, dst, pc, gx, gy, gz, n_srcs);
}

// The 2-D grid for n_groups workgroups (shaders rebuild the flat index; see common.glsl).
void grid(uint64_t n_groups, uint32_t * gx, uint32_t * gy) {
    const uint64_t max_x = 65535;
    *gx                  = (uint32_t) std::min<uint64_t>(std::max<uint64_t>(n_groups, 1), max_x);
    *gy                  = (uint32_t) ((n_groups + *gx - 1) / *gx);
}

bool dispatch_flat(vk_device * dev, VkCommandBuffer cmd, const char * shader, const ggml_tensor * const srcs[4],
                   const ggml_tensor * dst, const pc_words & pc, uint64_t n_threads, uint32_t wg) {
    uint32_t gx, gy;
    grid((n_threads + wg - 1) / wg, &gx, &gy);
    return dispatch(dev, cmd, shader, srcs, dst, pc, gx, gy, 1);
}

const char * tname(ggml_type t) {
    switch (t) {
        case GGML_TYPE_F32:
            return "f32";
        case GGML_TYPE_F16:
            return "f16";
        case GGML_TYPE_BF16:
            return "bf16";
        case GGML_TYPE_I32:
            return "i32";
        default:
            if (is_vk_quant(t)) {
                return ggml_type_name(t);  // "q4_0", "q4_K", "iq4_nl": the shader variant names use these
            }
            return "?";
    }
}

bool unit_ok(const bound & b, size_t unit) {
    return b.rem % unit == 0;
}

// Offsets of every bound tensor must be whole units; checked once per node.
bool offsets_ok(const enc & e, const ggml_tensor * t, size_t unit, bound * b) {
    if (!bind(e.dev, t, b))
        return false;
    if (!unit_ok(*b, unit)) {
        GGML_LOG_ERROR("ggml-vulkan: tensor '%s' is not %zu-byte aligned\n", t->name, unit);
        return false;
    }
    return true;
}

}  // namespace vk_ops
