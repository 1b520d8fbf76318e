// vk-iq-grids.cpp — the i-quant codebook grids on the device. The shaders read a type's grid from binding
// 4 (quants.glsl's iq_grid[]); each device gets one small buffer holding every grid, filled once, on
// first use, from ggml-iq-grids.c (the tables the CPU dequantizes with), so there is one source.
#include "ggml-alloc.h"
#include "ggml-iq-grids.h"
#include "vk-context.h"

#include <cstring>
#include <map>
#include <mutex>
#include <vector>

namespace {

constexpr int k_n_grids = 6;

struct grid_set {
    ggml_context *        ctx = nullptr;
    ggml_backend_buffer_t buf = nullptr;
    ggml_tensor *         t[k_n_grids]{};
    bool                  failed = false;
};

// Devices live for the whole process, and so do their grids.
std::mutex                            g_mutex;
std::map<const vk_device *, grid_set> g_sets;

// which grid a type reads (iq1_s and iq1_m share one); -1 for the other types
int grid_index(ggml_type t) {
    switch (t) {
        case GGML_TYPE_IQ2_XXS:
            return 0;
        case GGML_TYPE_IQ2_XS:
            return 1;
        case GGML_TYPE_IQ2_S:
            return 2;
        case GGML_TYPE_IQ3_XXS:
            return 3;
        case GGML_TYPE_IQ3_S:
            return 4;
        case GGML_TYPE_IQ1_S:
        case GGML_TYPE_IQ1_M:
            return 5;
        default:
            return -1;
    }
}

// The grid's int8 values packed little-endian, four per 32-bit word (entries of 8 values take two words).
std::vector<uint32_t> pack(const int8_t * v, size_t n) {
    std::vector<uint32_t> w(n / 4, 0);
    for (size_t i = 0; i < n; i++) {
        w[i / 4] |= (uint32_t) (uint8_t) v[i] << (8 * (i % 4));
    }
    return w;
}

bool build(vk_device * dev, grid_set & s) {
    const ggml_iq_grids * g = ggml_iq_grids_get();
    const struct {
        const int8_t * v;
        size_t         n;
    } src[k_n_grids] = {
        {&g->iq2xxs[0][0], sizeof(g->iq2xxs)}, {&g->iq2xs[0][0], sizeof(g->iq2xs)}, {&g->iq2s[0][0], sizeof(g->iq2s)},
        {&g->iq3xxs[0][0], sizeof(g->iq3xxs)}, {&g->iq3s[0][0], sizeof(g->iq3s)},   {&g->iq1s[0][0], sizeof(g->iq1s)},
    };
    ggml_init_params ip = {k_n_grids * ggml_tensor_overhead(), nullptr, true};
    s.ctx               = ggml_init(ip);
    if (!s.ctx) {
        return false;
    }
    for (int i = 0; i < k_n_grids; i++) {
        s.t[i] = ggml_new_tensor_1d(s.ctx, GGML_TYPE_I32, (int64_t) (src[i].n / 4));
    }
    // the buffer type aligns every tensor to minStorageBufferOffsetAlignment, so each grid is bound at
    // its own start (the shader indexes from 0)
    s.buf = ggml_backend_alloc_ctx_tensors_from_buft(s.ctx, &dev->buft);
    if (!s.buf) {
        return false;
    }
    for (int i = 0; i < k_n_grids; i++) {
        const std::vector<uint32_t> w = pack(src[i].v, src[i].n);
        ggml_backend_tensor_set(s.t[i], w.data(), 0, w.size() * 4);
    }
    return true;
}

}  // namespace

bool ggml_vk_type_has_grid(ggml_type type) {
    return grid_index(type) >= 0;
}

const ggml_tensor * ggml_vk_iq_grid(vk_device * dev, ggml_type type) {
    const int gi = grid_index(type);
    if (gi < 0) {
        return nullptr;
    }
    std::lock_guard<std::mutex> lock(g_mutex);
    grid_set &                  s = g_sets[dev];
    if (!s.buf && !s.failed && !build(dev, s)) {
        GGML_LOG_ERROR("ggml-vulkan: %s: cannot upload the i-quant grids\n", dev->name.c_str());
        s.failed = true;
    }
    return s.failed ? nullptr : s.t[gi];
}
