// vk-backend.cpp — the Vulkan backend (a compute stream). graph_compute records every node into one
// command buffer (a memory barrier after each dispatch orders dependent kernels), submits it once
// and waits on one fence, so a graph costs a single submit however many nodes it has.
#include "vk-context.h"

namespace {

vk_backend_ctx * ctx_of(ggml_backend_t b) {
    return (vk_backend_ctx *) b->context;
}

const char * backend_get_name(ggml_backend_t b) {
    return ctx_of(b)->name.c_str();
}

void destroy_ctx(vk_backend_ctx * c) {
    if (c->dev && c->dev->device) {
        if (c->fence)
            vkDestroyFence(c->dev->device, c->fence, nullptr);
        if (c->pool)
            vkDestroyCommandPool(c->dev->device, c->pool, nullptr);  // frees cmd
    }
    delete c;
}

void backend_free(ggml_backend_t b) {
    destroy_ctx(ctx_of(b));
    delete b;
}

enum ggml_status backend_graph_compute(ggml_backend_t b, ggml_cgraph * gf) {
    vk_backend_ctx * c   = ctx_of(b);
    vk_device *      dev = c->dev;

    VkCommandBufferBeginInfo bi = vk_init<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
    bi.flags                    = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    if (VK_FAILED(vkResetCommandBuffer(c->cmd, 0)) || VK_FAILED(vkBeginCommandBuffer(c->cmd, &bi))) {
        return GGML_STATUS_FAILED;
    }
    int n_dispatched = 0;
    for (int i = 0; i < ggml_graph_n_nodes(gf); i++) {
        ggml_tensor * node = ggml_graph_node(gf, i);
        if (ggml_backend_op_is_noop(node) || ggml_nelements(node) == 0) {
            continue;
        }
        if (!ggml_vk_encode_op(dev, c->cmd, node)) {
            GGML_LOG_ERROR("%s: %s: cannot run node %d (%s, op %s)\n", __func__, c->name.c_str(), i, node->name,
                           ggml_op_name(node->op));
            vkEndCommandBuffer(c->cmd);
            return GGML_STATUS_FAILED;
        }
        n_dispatched++;
    }
    // make the results visible to host reads of mapped memory
    VkMemoryBarrier mb = vk_init<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
    mb.srcAccessMask   = VK_ACCESS_SHADER_WRITE_BIT;
    mb.dstAccessMask   = VK_ACCESS_HOST_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT;
    vkCmdPipelineBarrier(c->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &mb, 0, nullptr, 0,
                         nullptr);
    if (VK_FAILED(vkEndCommandBuffer(c->cmd))) {
        return GGML_STATUS_FAILED;
    }
    if (n_dispatched == 0) {
        return GGML_STATUS_SUCCESS;
    }
    VkSubmitInfo si       = vk_init<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
    si.commandBufferCount = 1;
    si.pCommandBuffers    = &c->cmd;
    {
        std::lock_guard<std::mutex> lock(dev->mutex);  // the queue is shared by the device's backends
        if (VK_FAILED(vkResetFences(dev->device, 1, &c->fence)) ||
            VK_FAILED(vkQueueSubmit(dev->queue, 1, &si, c->fence))) {
            return GGML_STATUS_FAILED;
        }
    }
    if (VK_FAILED(vkWaitForFences(dev->device, 1, &c->fence, VK_TRUE, UINT64_MAX))) {
        return GGML_STATUS_FAILED;
    }
    return GGML_STATUS_SUCCESS;
}

const ggml_backend_i k_backend_iface = {
    backend_get_name, backend_free, nullptr, nullptr, nullptr, nullptr, backend_graph_compute, nullptr, nullptr,
};

}  // namespace

ggml_backend_t ggml_vk_backend_new(vk_device * dev) {
    if (!ggml_vk_device_init(dev)) {
        return nullptr;
    }
    auto * c                     = new vk_backend_ctx();
    c->dev                       = dev;
    c->name                      = dev->name;
    VkCommandPoolCreateInfo cpci = vk_init<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
    cpci.flags                   = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    cpci.queueFamilyIndex        = dev->queue_family;
    VkCommandBufferAllocateInfo cbai =
        vk_init<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
    cbai.level              = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cbai.commandBufferCount = 1;
    VkFenceCreateInfo fci   = vk_init<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
    bool              ok    = !VK_FAILED(vkCreateCommandPool(dev->device, &cpci, nullptr, &c->pool));
    if (ok) {
        cbai.commandPool = c->pool;
        ok               = !VK_FAILED(vkAllocateCommandBuffers(dev->device, &cbai, &c->cmd)) &&
             !VK_FAILED(vkCreateFence(dev->device, &fci, nullptr, &c->fence));
    }
    if (!ok) {
        destroy_ctx(c);
        return nullptr;
    }
    return new ggml_backend{k_backend_iface, &dev->dev, c};
}

extern "C" bool ggml_backend_is_vk(ggml_backend_t backend) {
    return backend && backend->iface.graph_compute == backend_graph_compute;
}
