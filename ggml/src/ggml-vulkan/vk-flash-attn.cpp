// vk-flash-attn.cpp — which flash-attention kernel a FLASH_ATTN_EXT node takes on a device:
//   tiled  (shaders/flash_attn_tiled.comp) prefill: BR (query, head) rows of one KV head's group
//          per workgroup, K/V staged in shared memory tile by tile, so each K/V element is read (and
//          dequantized) once per BR rows instead of once per row;
//   split  (flash_attn.comp with N_SPLIT > 1, then flash_attn_reduce.comp) few queries over a long
//          KV: the KV is cut into chunks, one workgroup each, so a decode step fills the device
//          instead of running one workgroup per head;
//   row    (flash_attn.comp) everything else: one workgroup per query row.
// The choice depends only on the shapes and the device (and GGML_VK_FA, read once), because the
// buffer type reserves the split path's partials when the graph is allocated and the encoder must
// find the same plan when it runs.
#include "vk-context.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace {

constexpr uint32_t k_tpr          = 8;    // invocations per query row in the tiled shader (a power of two)
constexpr uint32_t k_tiled_min_q  = 8;    // fewer queries than this leave most of a tile idle
constexpr uint32_t k_split_min_kv = 512;  // below this one workgroup per row is short enough
constexpr uint32_t k_split_chunk  = 256;  // KV positions per split, at least
constexpr uint32_t k_split_max    = 32;

// GGML_VK_FA=row|tiled|split forces a path wherever it can run (tests run every case through each).
vk_fa_path forced_path(bool * set) {
    static const int forced = [] {
        const char * e = std::getenv("GGML_VK_FA");
        if (!e)
            return -1;
        if (!std::strcmp(e, "row"))
            return (int) vk_fa_path::row;
        if (!std::strcmp(e, "tiled"))
            return (int) vk_fa_path::tiled;
        if (!std::strcmp(e, "split"))
            return (int) vk_fa_path::split;
        return -1;
    }();
    *set = forced >= 0;
    return forced >= 0 ? (vk_fa_path) forced : vk_fa_path::row;
}

// Largest tile that fits the device's shared memory: Q tile, one K-or-V tile (rows padded by one
// float against bank conflicts), the probabilities and the reduction scratch.
bool tiled_shape(const vk_device * dev, uint32_t dk, uint32_t dv, vk_fa_plan * p) {
    static const uint32_t shapes[][2] = {{16, 32}, {16, 16}, {8, 32}, {8, 16}, {4, 16}, {4, 8}};
    const uint32_t        kvs         = std::max(dk, dv) + 1;
    const size_t          limit       = dev->props.limits.maxComputeSharedMemorySize;
    for (const auto & s : shapes) {
        const uint32_t br = s[0], bc = s[1], wg = br * k_tpr;
        const size_t   bytes = 4 * ((size_t) br * dk + (size_t) bc * kvs + (size_t) br * bc + wg);
        if (bytes > limit || wg > dev->props.limits.maxComputeWorkGroupInvocations)
            continue;
        p->br = br;
        p->bc = bc;
        p->wg = wg;
        // row reductions by subgroup shuffles when a row's lanes sit in one subgroup
        p->sg                  = dev->subgroup_shuffle && k_tpr <= dev->subgroup_size;
        const uint32_t spec[7] = {wg, br, bc, dk, dv, k_tpr, kvs};
        std::memcpy(p->spec, spec, sizeof spec);
        return true;
    }
    return false;
}

uint32_t split_count(uint32_t n_kv, bool forced) {
    uint32_t n = 1;
    while (n < k_split_max && (uint64_t) n * 2 * k_split_chunk <= n_kv)
        n *= 2;
    return forced ? std::max<uint32_t>(n, 2) : n;
}

}  // namespace

vk_fa_plan ggml_vk_fa_plan(const vk_device * dev, const ggml_tensor * op) {
    vk_fa_plan         p;
    const ggml_tensor *q = op->src[0], *k = op->src[1], *v = op->src[2];
    const uint32_t     n_q = (uint32_t) q->ne[1], n_kv = (uint32_t) k->ne[1];
    bool               forced = false;
    const vk_fa_path   want   = forced_path(&forced);

    vk_fa_plan tiled;
    // the tiled grid: x = (query, head) rows of a KV head's group / BR
    const uint64_t rows = (uint64_t) n_q * (uint64_t) (q->ne[2] / std::max<int64_t>(k->ne[2], 1));
    const bool     tiled_ok =
        tiled_shape(dev, (uint32_t) q->ne[0], (uint32_t) v->ne[0], &tiled) && (rows + tiled.br - 1) / tiled.br <= 65535;
    if (tiled_ok && (forced ? want == vk_fa_path::tiled : n_q >= k_tiled_min_q)) {
        tiled.path = vk_fa_path::tiled;
        return tiled;
    }
    const bool split_wanted = forced ? want == vk_fa_path::split : (n_q < k_tiled_min_q && n_kv >= k_split_min_kv);
    if (split_wanted) {
        const uint32_t n = split_count(n_kv, forced);
        if (n > 1 && (uint64_t) n_q * n <= 65535) {  // grid x = query rows x splits
            p.path    = vk_fa_path::split;
            p.n_split = n;
        }
    }
    return p;
}

size_t ggml_vk_fa_extra_bytes(const vk_device * dev, const ggml_tensor * op) {
    const vk_fa_plan p = ggml_vk_fa_plan(dev, op);
    if (p.path != vk_fa_path::split)
        return 0;
    // per (split, query, head, ne3): Dv accumulators, then (max, sum) pairs
    const size_t n_part = (size_t) p.n_split * op->src[0]->ne[1] * op->src[0]->ne[2] * op->src[0]->ne[3];
    return n_part * ((size_t) op->src[2]->ne[0] + 2) * sizeof(float);
}
