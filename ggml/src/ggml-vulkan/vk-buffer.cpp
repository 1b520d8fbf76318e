// vk-buffer.cpp — the Vulkan buffer type and buffers. Each ggml buffer is one VkBuffer with its own
// memory. When the device-local memory is also host-visible (lavapipe, UMA, large BAR) it stays
// mapped and set/get/memset are memcpy/memset; otherwise they go through a temporary host-visible
// staging buffer and a copy command on the device's transfer command buffer.
#include "vk-context.h"

#include <algorithm>
#include <cstring>

namespace {

uint32_t pick_memory_type(const vk_device * dev, uint32_t type_bits, uint32_t preferred) {
    if (type_bits & (1u << preferred)) {
        return preferred;
    }
    const VkMemoryPropertyFlags want = dev->mem_props.memoryTypes[preferred].propertyFlags;
    for (uint32_t i = 0; i < dev->mem_props.memoryTypeCount; i++) {
        if ((type_bits & (1u << i)) && (dev->mem_props.memoryTypes[i].propertyFlags & want) == want) {
            return i;
        }
    }
    return UINT32_MAX;
}

// Runs a one-off buffer copy on the device and waits for it. Caller holds dev->mutex.
bool copy_and_wait(vk_device * dev, VkBuffer src, size_t src_off, VkBuffer dst, size_t dst_off, size_t size) {
    VkCommandBufferBeginInfo bi = vk_init<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
    bi.flags                    = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    if (VK_FAILED(vkResetCommandBuffer(dev->xfer_cmd, 0)) || VK_FAILED(vkBeginCommandBuffer(dev->xfer_cmd, &bi))) {
        return false;
    }
    VkBufferCopy region{src_off, dst_off, size};
    vkCmdCopyBuffer(dev->xfer_cmd, src, dst, 1, &region);
    if (VK_FAILED(vkEndCommandBuffer(dev->xfer_cmd))) {
        return false;
    }
    VkSubmitInfo si       = vk_init<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
    si.commandBufferCount = 1;
    si.pCommandBuffers    = &dev->xfer_cmd;
    if (VK_FAILED(vkResetFences(dev->device, 1, &dev->xfer_fence)) ||
        VK_FAILED(vkQueueSubmit(dev->queue, 1, &si, dev->xfer_fence))) {
        return false;
    }
    return !VK_FAILED(vkWaitForFences(dev->device, 1, &dev->xfer_fence, VK_TRUE, UINT64_MAX));
}

// Host <-> device through a staging buffer (to_device: data -> buf at off).
void staged_transfer(vk_buffer * buf, size_t off, void * data, size_t size, bool to_device) {
    vk_device * dev = buf->dev;
    vk_buffer   st;
    if (!ggml_vk_create_buffer(dev, size, dev->staging_type, true, &st)) {
        return;
    }
    {
        std::lock_guard<std::mutex> lock(dev->mutex);
        if (to_device) {
            std::memcpy(st.mapped, data, size);
            copy_and_wait(dev, st.buffer, 0, buf->buffer, off, size);
        } else if (copy_and_wait(dev, buf->buffer, off, st.buffer, 0, size)) {
            std::memcpy(data, st.mapped, size);
        }
    }
    ggml_vk_destroy_buffer(&st);
}

vk_buffer * buf_ctx(ggml_backend_buffer_t b) {
    return (vk_buffer *) b->context;
}

size_t tensor_offset(const ggml_tensor * t) {
    return (size_t) ((uintptr_t) t->data - VK_PTR_BASE);
}

void buffer_free(ggml_backend_buffer_t b) {
    vk_buffer * vb = buf_ctx(b);
    ggml_vk_destroy_buffer(vb);
    delete vb;
}

void * buffer_get_base(ggml_backend_buffer_t) {
    return (void *) VK_PTR_BASE;
}

void buffer_memset_tensor(ggml_backend_buffer_t b, ggml_tensor * t, uint8_t value, size_t offset, size_t size) {
    vk_buffer *  vb  = buf_ctx(b);
    const size_t off = tensor_offset(t) + offset;
    if (vb->mapped) {
        std::memset((uint8_t *) vb->mapped + off, value, size);
        return;
    }
    std::vector<uint8_t> tmp(size, value);
    staged_transfer(vb, off, tmp.data(), size, true);
}

void buffer_set_tensor(ggml_backend_buffer_t b, ggml_tensor * t, const void * data, size_t offset, size_t size) {
    vk_buffer *  vb  = buf_ctx(b);
    const size_t off = tensor_offset(t) + offset;
    if (vb->mapped) {
        std::memcpy((uint8_t *) vb->mapped + off, data, size);
        return;
    }
    staged_transfer(vb, off, const_cast<void *>(data), size, true);
}

void buffer_get_tensor(ggml_backend_buffer_t b, const ggml_tensor * t, void * data, size_t offset, size_t size) {
    vk_buffer *  vb  = buf_ctx(b);
    const size_t off = tensor_offset(t) + offset;
    if (vb->mapped) {
        std::memcpy(data, (const uint8_t *) vb->mapped + off, size);
        return;
    }
    staged_transfer(vb, off, data, size, false);
}

// Device-to-device copies between two of our buffers on the same device; anything else goes
// through the host (the core's fallback).
bool buffer_cpy_tensor(ggml_backend_buffer_t b, const ggml_tensor * src, ggml_tensor * dst) {
    vk_buffer * sb = nullptr;
    size_t      so = 0;
    if (!ggml_vk_tensor_location(src, &sb, &so) || sb->dev != buf_ctx(b)->dev) {
        return false;
    }
    vk_buffer * db = buf_ctx(b);
    if (sb->mapped && db->mapped) {
        std::memcpy((uint8_t *) db->mapped + tensor_offset(dst), (const uint8_t *) sb->mapped + so, ggml_nbytes(src));
        return true;
    }
    std::lock_guard<std::mutex> lock(db->dev->mutex);
    return copy_and_wait(db->dev, sb->buffer, so, db->buffer, tensor_offset(dst), ggml_nbytes(src));
}

void buffer_clear(ggml_backend_buffer_t b, uint8_t value) {
    vk_buffer * vb = buf_ctx(b);
    if (vb->mapped) {
        std::memset(vb->mapped, value, vb->size);
        return;
    }
    std::vector<uint8_t> tmp(vb->size, value);
    staged_transfer(vb, 0, tmp.data(), vb->size, true);
}

const ggml_backend_buffer_i k_buffer_iface = {
    buffer_free,       buffer_get_base, nullptr, buffer_memset_tensor, buffer_set_tensor, buffer_get_tensor,
    buffer_cpy_tensor, buffer_clear,    nullptr,
};

vk_device * buft_dev(ggml_backend_buffer_type_t buft) {
    return (vk_device *) buft->context;
}

const char * buft_get_name(ggml_backend_buffer_type_t buft) {
    return buft_dev(buft)->name.c_str();
}

ggml_backend_buffer_t buft_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    vk_device * dev = buft_dev(buft);
    if (!ggml_vk_device_init(dev)) {
        return nullptr;
    }
    auto * vb = new vk_buffer();
    if (!ggml_vk_create_buffer(dev, size, dev->mem_type, dev->host_visible, vb)) {
        delete vb;
        return nullptr;
    }
    ggml_backend_buffer_t b = ggml_backend_buffer_init(buft, k_buffer_iface, vb, size);
    if (!b) {
        ggml_vk_destroy_buffer(vb);
        delete vb;
    }
    return b;
}

size_t buft_get_alignment(ggml_backend_buffer_type_t buft) {
    return std::max<size_t>(64, buft_dev(buft)->props.limits.minStorageBufferOffsetAlignment);
}

// One descriptor must be able to see a whole buffer.
size_t buft_get_max_size(ggml_backend_buffer_type_t buft) {
    return buft_dev(buft)->props.limits.maxStorageBufferRange;
}

// Flash attention's split-K path keeps its per-chunk partials right after dst (vk-flash-attn.cpp).
size_t buft_get_alloc_size(ggml_backend_buffer_type_t buft, const ggml_tensor * t) {
    const size_t n = ggml_nbytes(t);
    return t->op == GGML_OP_FLASH_ATTN_EXT ? n + ggml_vk_fa_extra_bytes(buft_dev(buft), t) : n;
}

}  // namespace

const ggml_backend_buffer_type_i ggml_vk_buffer_type_iface = {
    buft_get_name, buft_alloc_buffer, buft_get_alignment, buft_get_max_size, buft_get_alloc_size, nullptr,
};

bool ggml_vk_is_our_buffer(ggml_backend_buffer_t buf) {
    return buf && buf->iface.get_base == buffer_get_base;
}

bool ggml_vk_tensor_location(const ggml_tensor * t, vk_buffer ** buf, size_t * offset) {
    ggml_backend_buffer_t b = ggml_backend_tensor_buffer(t);
    if (!ggml_vk_is_our_buffer(b) || !t->data) {
        return false;
    }
    *buf    = buf_ctx(b);
    *offset = tensor_offset(t);
    return true;
}

bool ggml_vk_create_buffer(vk_device * dev, size_t size, uint32_t mem_type, bool map, vk_buffer * out) {
    out->dev               = dev;
    out->size              = size;
    VkBufferCreateInfo bci = vk_init<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
    bci.size               = std::max<size_t>(16, (size + 15) & ~size_t(15));  // Vulkan forbids empty buffers
    bci.usage =
        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    if (VK_FAILED(vkCreateBuffer(dev->device, &bci, nullptr, &out->buffer))) {
        out->buffer = VK_NULL_HANDLE;
        return false;
    }
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(dev->device, out->buffer, &req);
    const uint32_t type = pick_memory_type(dev, req.memoryTypeBits, mem_type);
    if (type == UINT32_MAX) {
        GGML_LOG_ERROR("ggml-vulkan: no memory type for a buffer of %zu bytes\n", size);
        ggml_vk_destroy_buffer(out);
        return false;
    }
    VkMemoryAllocateInfo mai = vk_init<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
    mai.allocationSize       = req.size;
    mai.memoryTypeIndex      = type;
    if (VK_FAILED(vkAllocateMemory(dev->device, &mai, nullptr, &out->memory))) {
        GGML_LOG_ERROR("ggml-vulkan: %s: could not allocate %zu bytes\n", dev->name.c_str(), size);
        out->memory = VK_NULL_HANDLE;
        ggml_vk_destroy_buffer(out);
        return false;
    }
    if (VK_FAILED(vkBindBufferMemory(dev->device, out->buffer, out->memory, 0)) ||
        (map && VK_FAILED(vkMapMemory(dev->device, out->memory, 0, VK_WHOLE_SIZE, 0, &out->mapped)))) {
        out->mapped = nullptr;
        ggml_vk_destroy_buffer(out);
        return false;
    }
    return true;
}

void ggml_vk_destroy_buffer(vk_buffer * b) {
    if (!b->dev) {
        return;
    }
    VkDevice d = b->dev->device;
    if (b->mapped) {
        vkUnmapMemory(d, b->memory);
        b->mapped = nullptr;
    }
    if (b->buffer) {
        vkDestroyBuffer(d, b->buffer, nullptr);
        b->buffer = VK_NULL_HANDLE;
    }
    if (b->memory) {
        vkFreeMemory(d, b->memory, nullptr);
        b->memory = VK_NULL_HANDLE;
    }
}
