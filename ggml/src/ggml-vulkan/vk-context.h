// vk-context.h — internal state of the Vulkan backend shared by its files:
//   vk-device.cpp   instance, physical devices, logical device, pipelines, registry/device vtables
//   vk-buffer.cpp   buffer type and buffers (host-visible memory mapped directly, else staging copies)
//   vk-backend.cpp  the backend (compute stream): one command buffer and one fence per graph
//   vk-ops.cpp      supports_op and the per-op dispatch encoders (push constants, bindings); the
//                   recurrent ops in vk-ops-ssm.cpp, shared helpers in vk-ops-util.{h,cpp}
#pragma once

#include "ggml-backend-impl.h"
#include "ggml-impl.h"
#include "ggml-vulkan.h"

#include <vulkan/vulkan.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

// Logs a failed VkResult with the call that produced it; evaluates to true on failure.
#define VK_FAILED(expr) ggml_vk_check((expr), #expr, __func__)
bool ggml_vk_check(VkResult r, const char * what, const char * func);

// A zeroed Vulkan struct with its sType set (brace-init with only sType trips -Wmissing-field-initializers).
template <typename T>
T vk_init(VkStructureType s) {
    T t{};
    t.sType = s;
    return t;
}

// Push constants are capped at 128 bytes (the Vulkan minimum), 32 words.
constexpr uint32_t VK_PUSH_WORDS = 32;
// Descriptor bindings every pipeline has: 0..2 sources 0..2, 3 destination, 4..7 sources 3..6 (SSM_SCAN
// has seven inputs).
constexpr uint32_t VK_N_BINDINGS = 8;

struct vk_pipeline {
    VkPipeline pipeline = VK_NULL_HANDLE;
};

// One usable physical device; the logical device is created on first use (enumeration stays cheap).
struct vk_device {
    int                              index = 0;
    std::string                      name;         // "Vulkan0"
    std::string                      description;  // driver's device name
    std::string                      features;     // " (subgroup 32, fp16 yes, coopmat no)"
    VkPhysicalDevice                 phys = VK_NULL_HANDLE;
    VkPhysicalDeviceProperties       props{};
    VkPhysicalDeviceMemoryProperties mem_props{};
    uint32_t                         queue_family = 0;
    size_t                           mem_total    = 0;
    bool                             fp64         = false;
    // reported features (the llama-bench device line) and the GEMV's choice
    uint32_t                   subgroup_size  = 0;      // 0: unknown
    bool                       subgroup_arith = false;  // subgroupAdd in compute shaders: the mul_mv GEMV is used
    bool                       fp16           = false;  // shaderFloat16
    bool                       coopmat        = false;  // VK_KHR_cooperative_matrix offered (not used yet)
    enum ggml_backend_dev_type type           = GGML_BACKEND_DEVICE_TYPE_GPU;

    bool subgroup_shuffle = false;  // subgroupShuffleXor too: flash attention's tiled row reductions

    std::mutex                    mutex;  // guards lazy init, pipeline cache and queue submits
    bool                          ready           = false;
    bool                          failed          = false;
    VkDevice                      device          = VK_NULL_HANDLE;
    VkQueue                       queue           = VK_NULL_HANDLE;
    PFN_vkCmdPushDescriptorSetKHR push_descriptor = nullptr;
    VkDescriptorSetLayout         dsl             = VK_NULL_HANDLE;
    VkPipelineLayout              layout          = VK_NULL_HANDLE;
    // by "<variant>[#spec0#spec1...]"; std::less<> looks up a char buffer without building a string
    std::map<std::string, vk_pipeline, std::less<>> pipelines;
    uint32_t                                        mem_type     = 0;      // memory type for buffers
    bool                                            host_visible = false;  // mapped directly (lavapipe, ReBAR)
    uint32_t                                        staging_type = 0;      // host-visible type for staging copies
    VkCommandPool                                   xfer_pool    = VK_NULL_HANDLE;  // staging copies (under mutex)
    VkCommandBuffer                                 xfer_cmd     = VK_NULL_HANDLE;
    VkFence                                         xfer_fence   = VK_NULL_HANDLE;

    ggml_backend_buffer_type buft{};
    ggml_backend_device      dev{};
};

// One device allocation backing a ggml buffer.
struct vk_buffer {
    vk_device *    dev    = nullptr;
    VkBuffer       buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    void *         mapped = nullptr;  // non-NULL when host-visible
    size_t         size   = 0;
};

// Tensor data pointers in our buffers are this fake base plus the byte offset (never dereferenced).
constexpr uintptr_t VK_PTR_BASE = 0x1000;

struct vk_backend_ctx {
    vk_device *     dev = nullptr;
    std::string     name;
    VkCommandPool   pool  = VK_NULL_HANDLE;
    VkCommandBuffer cmd   = VK_NULL_HANDLE;
    VkFence         fence = VK_NULL_HANDLE;
};

// ---- vk-device.cpp
std::vector<vk_device *> & ggml_vk_devices();  // enumerated once, process lifetime
bool ggml_vk_device_init(vk_device * dev);     // lazily creates the logical device; false if unusable
// Cached per (name, specialization constants 0..n_spec-1); VK_NULL_HANDLE on failure.
VkPipeline ggml_vk_get_pipeline(vk_device * dev, const char * name, const uint32_t * spec = nullptr,
                                uint32_t n_spec = 0);

// ---- vk-buffer.cpp
extern const ggml_backend_buffer_type_i ggml_vk_buffer_type_iface;
bool                                    ggml_vk_is_our_buffer(ggml_backend_buffer_t buf);
// Buffer and byte offset of a tensor placed in one of our buffers (false if it is not).
bool ggml_vk_tensor_location(const ggml_tensor * t, vk_buffer ** buf, size_t * offset);
// Creates a VkBuffer + memory of the given type; false (logged) on failure.
bool ggml_vk_create_buffer(vk_device * dev, size_t size, uint32_t mem_type, bool map, vk_buffer * out);
void ggml_vk_destroy_buffer(vk_buffer * b);

// ---- vk-backend.cpp
ggml_backend_t ggml_vk_backend_new(vk_device * dev);

// ---- vk-iq-grids.cpp
// The codebook grid an i-quant type's shaders read at binding 4: a tensor in a device buffer, uploaded on
// first use and kept for the process; nullptr for other types or if the upload failed (logged).
bool                ggml_vk_type_has_grid(ggml_type type);
const ggml_tensor * ggml_vk_iq_grid(vk_device * dev, ggml_type type);

// ---- vk-flash-attn.cpp: which flash-attention kernel a node takes (the encoder in vk-ops.cpp and
// the buffer type's alloc size, which reserves the split-K partials after dst, must agree)
enum class vk_fa_path { row, tiled, split };
struct vk_fa_plan {
    vk_fa_path path    = vk_fa_path::row;
    uint32_t   n_split = 1;             // split: KV chunks, one workgroup each, combined by flash_attn_reduce
    uint32_t   br = 0, bc = 0, wg = 0;  // tiled: query rows and KV positions per tile, invocations
    uint32_t   spec[7] = {};            // tiled: the shader's specialization constants
    bool       sg      = false;         // tiled: row reductions by subgroup shuffles (a _sg variant)
};
vk_fa_plan ggml_vk_fa_plan(const vk_device * dev, const ggml_tensor * op);
// Bytes the split-K path needs after dst's data (0 for the other paths).
size_t ggml_vk_fa_extra_bytes(const vk_device * dev, const ggml_tensor * op);

// ---- vk-ops.cpp
bool ggml_vk_supports_op(const vk_device * dev, const ggml_tensor * op);
// Records the dispatch(es) for one node into cmd; false (logged) if it cannot.
bool ggml_vk_encode_op(vk_device * dev, VkCommandBuffer cmd, ggml_tensor * node);
