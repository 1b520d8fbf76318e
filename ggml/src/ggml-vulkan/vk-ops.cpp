// vk-ops.cpp — which ops the Vulkan backend runs (supports_op, exact) and how each is dispatched:
// the shader variant, the tensors bound to bindings 0..3 and the push constants (shapes, strides and
// offsets in the shader's element units). The shaders live in shaders/*.comp.
#include "vk-ops-util.h"

#include "ggml-op-rows.h"
#include "shaders/op-codes.glsl"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace {

using namespace vk_ops;

bool enc_binary(const enc & e) {
    const ggml_tensor *a = e.node->src[0], *b = e.node->src[1], *d = e.node;
    const size_t       ua = ggml_type_size(a->type);
    bound              ba, bb, bd;
    if (!offsets_ok(e, a, ua, &ba) || !offsets_ok(e, b, 4, &bb) || !offsets_ok(e, d, ua, &bd))
        return false;
    pc_words pc;
    pc.ne(d).strides(ba, a, ua).u(bb.rem / 4).ne(b).u(b->nb[0] / 4).u(b->nb[1] / 4).u(b->nb[2] / 4).u(b->nb[3] / 4);
    pc.strides(bd, d, ua).u(VK_BINARY_ADD + (uint32_t) (e.node->op - GGML_OP_ADD));  // ADD..DIV are consecutive
    const ggml_tensor * s[4] = {a, b, nullptr, nullptr};
    return dispatch_flat(e.dev, e.cmd, a->type == GGML_TYPE_F16 ? "binary_f16" : "binary_f32", s, d, pc,
                         ggml_nelements(d));
}

bool enc_unary(const enc & e, uint32_t op, float f0, float f1) {
    const ggml_tensor *a = e.node->src[0], *d = e.node;
    const size_t       ua = ggml_type_size(a->type);
    bound              ba, bd;
    if (!offsets_ok(e, a, ua, &ba) || !offsets_ok(e, d, ua, &bd))
        return false;
    pc_words pc;
    pc.ne(d).strides(ba, a, ua).strides(bd, d, ua).u(op).f(f0).f(f1);
    const ggml_tensor * s[4] = {a, nullptr, nullptr, nullptr};
    return dispatch_flat(e.dev, e.cmd, a->type == GGML_TYPE_F16 ? "unary_f16" : "unary_f32", s, d, pc,
                         ggml_nelements(d));
}

bool enc_glu(const enc & e) {
    const ggml_tensor *a = e.node->src[0], *b = e.node->src[1], *d = e.node;
    const bool         swapped = ggml_get_op_params_i32(d, 1) != 0;
    bound              ba, bb, bd;
    if (!offsets_ok(e, a, 4, &ba) || !offsets_ok(e, d, 4, &bd))
        return false;
    pc_words pc;
    pc.ne(d);
    if (b) {
        if (!offsets_ok(e, b, 4, &bb))
            return false;
        pc.strides(ba, a, 4).strides(bb, b, 4);
    } else {  // the two halves of a's rows
        const uint64_t half = (uint64_t) d->ne[0] * (a->nb[0] / 4);
        const uint64_t x0 = ba.rem / 4 + (swapped ? half : 0), y0 = ba.rem / 4 + (swapped ? 0 : half);
        pc.u(x0).u(a->nb[0] / 4).u(a->nb[1] / 4).u(a->nb[2] / 4).u(a->nb[3] / 4);
        pc.u(y0).u(a->nb[0] / 4).u(a->nb[1] / 4).u(a->nb[2] / 4).u(a->nb[3] / 4);
    }
    pc.strides(bd, d, 4).u(ggml_get_op_params_i32(d, 0));
    const ggml_tensor * s[4] = {a, b ? b : a, nullptr, nullptr};
    return dispatch_flat(e.dev, e.cmd, "glu_f32", s, d, pc, ggml_nelements(d));
}

bool enc_norm(const enc & e, uint32_t op, float eps) {
    const ggml_tensor *a = e.node->src[0], *d = e.node;
    bound              ba, bd;
    if (!offsets_ok(e, a, 4, &ba) || !offsets_ok(e, d, 4, &bd))
        return false;
    pc_words pc;
    pc.ne(a).strides(ba, a, 4).strides(bd, d, 4).u(op).f(eps);
    const ggml_tensor * s[4] = {a, nullptr, nullptr, nullptr};
    uint32_t            gx, gy;
    grid((uint64_t) a->ne[1] * a->ne[2] * a->ne[3], &gx, &gy);
    return dispatch(e.dev, e.cmd, "norm_f32", s, d, pc, gx, gy, 1);
}

bool enc_get_rows(const enc & e) {
    const ggml_tensor *a = e.node->src[0], *ids = e.node->src[1], *d = e.node;
    const size_t       ua = addr_unit(a);
    bound              ba, bi, bd;
    if (!offsets_ok(e, a, ua, &ba) || !offsets_ok(e, ids, 4, &bi) || !offsets_ok(e, d, 4, &bd))
        return false;
    pc_words pc;
    pc.ne(d).strides(ba, a, ua, false).u(bi.rem / 4).u(ids->nb[0] / 4).u(ids->nb[1] / 4).u(ids->nb[2] / 4);
    pc.strides(bd, d, 4, false);
    const ggml_tensor * s[4] = {a, ids, nullptr, nullptr};
    if (!grid_of(e.dev, a->type, &s[3]))
        return false;
    const vname sh("get_rows_", tname(a->type));
    return dispatch_flat(e.dev, e.cmd, sh.c_str(), s, d, pc, ggml_nelements(d));
}

// quantized K/V types flash attention dequantizes (the 32-element KV-cache types)
bool is_fa_quant(ggml_type t) {
    switch (t) {
        case GGML_TYPE_Q4_0:
        case GGML_TYPE_Q4_1:
        case GGML_TYPE_Q5_0:
        case GGML_TYPE_Q5_1:
        case GGML_TYPE_Q8_0:
        case GGML_TYPE_IQ4_NL:
            return true;
        default:
            return false;
    }
}

// the quantized types the set_rows_q shader writes: every quantized KV cache type
bool is_q_write_type(ggml_type t) {
    return ggml_is_quantized(t) && ggml_type_is_kv_cache(t);
}

bool enc_set_rows(const enc & e) {
    const ggml_tensor *src = e.node->src[0], *ids = e.node->src[1], *d = e.node;
    const bool         q  = is_q_write_type(d->type);
    const size_t       ud = addr_unit(d);
    bound              bs, bi, bd;
    if (!offsets_ok(e, src, 4, &bs) || !offsets_ok(e, ids, 4, &bi) || !offsets_ok(e, d, ud, &bd))
        return false;
    pc_words pc;
    pc.ne(src).strides(bs, src, 4).u(bi.rem / 4).u(ids->nb[0] / 4).u(ids->nb[1] / 4).u(ids->nb[2] / 4);
    pc.strides(bd, d, ud, !q);
    const ggml_tensor * s[4] = {src, ids, nullptr, nullptr};
    const vname         sh("set_rows_", tname(d->type));
    if (q) {  // one invocation per 32-element block
        return dispatch_flat(e.dev, e.cmd, sh.c_str(), s, d, pc, ggml_nelements(src) / 32, 64);
    }
    return dispatch_flat(e.dev, e.cmd, sh.c_str(), s, d, pc, ggml_nelements(src));
}

// F32 -> a quantized KV cache type, same shape: the set_rows_q shader with identity rows
bool enc_cpy_quant(const enc & e) {
    const ggml_tensor *a = e.node->src[0], *d = e.node;
    bound              ba, bd;
    if (!offsets_ok(e, a, 4, &ba) || !offsets_ok(e, d, 2, &bd))
        return false;
    pc_words pc;
    pc.ne(a).strides(ba, a, 4).u(0).u(0).u(0).u(0).strides(bd, d, 2, false);
    const ggml_tensor * s[4] = {a, nullptr, nullptr, nullptr};
    const vname         sh("cpy_f32_", tname(d->type));
    return dispatch_flat(e.dev, e.cmd, sh.c_str(), s, d, pc, ggml_nelements(a) / 32, 64);
}

bool enc_cpy(const enc & e) {
    const ggml_tensor *a = e.node->src[0], *d = e.node;
    if (is_q_write_type(d->type)) {
        return enc_cpy_quant(e);
    }
    const size_t ua = ggml_type_size(a->type), ud = ggml_type_size(d->type);
    bound        ba, bd;
    if (!offsets_ok(e, a, ua, &ba) || !offsets_ok(e, d, ud, &bd))
        return false;
    pc_words pc;
    pc.ne(a).strides(ba, a, ua).ne(d).strides(bd, d, ud);
    const ggml_tensor * s[4] = {a, nullptr, nullptr, nullptr};
    const vname         sh("cpy_", tname(a->type), "_", tname(d->type));
    return dispatch_flat(e.dev, e.cmd, sh.c_str(), s, d, pc, ggml_nelements(a));
}

// From this many columns of b on, mul_mat uses the tiled GEMM (mul_mm.comp); between 2 and this the
// column-group kernel (mul_mat.comp), which also stands in for the GEMV without subgroups.
constexpr uint32_t k_mm_min_cols = 8;

// The GEMV's specialization constants: WG = max(128, subgroup size) invocations, two rows per subgroup.
void mv_spec(const vk_device * dev, uint32_t spec[2]) {
    const uint32_t sg = std::min<uint32_t>(std::max<uint32_t>(dev->subgroup_size, 1), 128);
    spec[0]           = std::max<uint32_t>(128, sg);
    spec[1]           = 2 * spec[0] / sg;
}

// Single-column mul_mat (decode): mul_mv.comp, WG invocations and ROWS rows per workgroup (two rows
// per subgroup of the device's size), one subgroupAdd per row.
bool enc_mul_mv(const enc & e, const bound & ba, const bound & bb, const bound & bd) {
    const ggml_tensor *a = e.node->src[0], *b = e.node->src[1], *d = e.node;
    const size_t       ua = addr_unit(a);
    uint32_t           spec[2];
    mv_spec(e.dev, spec);
    const vname sh("mul_mv_", tname(a->type));
    VkPipeline  pipe = ggml_vk_get_pipeline(e.dev, sh.c_str(), spec, 2);
    if (!pipe) {
        return false;
    }
    const ggml_tensor * s[4] = {a, b, nullptr, nullptr};
    if (!grid_of(e.dev, a->type, &s[3]))
        return false;
    const uint32_t M = (uint32_t) d->ne[0], gz = (uint32_t) (d->ne[2] * d->ne[3]);
    const uint32_t rows_per_dispatch = 65535 * spec[1];
    for (uint32_t m0 = 0; m0 < M; m0 += rows_per_dispatch) {
        pc_words pc;
        pc.u(a->ne[0]).u(M).u(1).u(b->ne[2]).u(b->ne[2] / a->ne[2]).u(b->ne[3] / a->ne[3]).u(m0);
        pc.strides(ba, a, ua, false).strides(bb, b, 4).strides(bd, d, 4, false);
        const uint32_t rows = std::min(rows_per_dispatch, M - m0);
        if (!dispatch(e.dev, e.cmd, pipe, s, d, pc, (rows + spec[1] - 1) / spec[1], 1, gz))
            return false;
    }
    return true;
}

bool enc_mul_mat(const enc & e) {
    const ggml_tensor *a = e.node->src[0], *b = e.node->src[1], *d = e.node;
    const size_t       ua = addr_unit(a);
    bound              ba, bb, bd;
    if (!offsets_ok(e, a, ua, &ba) || !offsets_ok(e, b, 4, &bb) || !offsets_ok(e, d, 4, &bd))
        return false;
    const ggml_tensor * s[4] = {a, b, nullptr, nullptr};
    if (!grid_of(e.dev, a->type, &s[3]))
        return false;
    const uint32_t M = (uint32_t) d->ne[0], N = (uint32_t) d->ne[1];
    if (N == 1 && e.dev->subgroup_arith) {
        return enc_mul_mv(e, ba, bb, bd);
    }
    if (N >= k_mm_min_cols) {  // batches: the shared-memory tiled GEMM, 32 x 32 tiles of dst
        const vname    sh("mul_mm_", tname(a->type));
        const uint32_t gy = (N + 31) / 32, gz = (uint32_t) (d->ne[2] * d->ne[3]);
        for (uint32_t m0 = 0; m0 < M; m0 += 65535u * 32u) {
            pc_words pc;
            pc.u(a->ne[0]).u(M).u(N).u(b->ne[2]).u(b->ne[2] / a->ne[2]).u(b->ne[3] / a->ne[3]).u(m0);
            pc.strides(ba, a, ua, false).strides(bb, b, 4).strides(bd, d, 4, false);
            const uint32_t rows = std::min<uint32_t>(65535u * 32u, M - m0);
            if (!dispatch(e.dev, e.cmd, sh.c_str(), s, d, pc, (rows + 31) / 32, gy, gz))
                return false;
        }
        return true;
    }
    const vname    sh("mul_mat_", tname(a->type));
    const uint32_t gy = (N + 7) / 8, gz = (uint32_t) (d->ne[2] * d->ne[3]);
    for (uint32_t m0 = 0; m0 < M; m0 += 65535) {  // workgroup counts are limited to 65535 per dimension
        pc_words pc;
        pc.u(a->ne[0]).u(M).u(N).u(b->ne[2]).u(b->ne[2] / a->ne[2]).u(b->ne[3] / a->ne[3]).u(m0);
        pc.strides(ba, a, ua, false).strides(bb, b, 4).strides(bd, d, 4, false);
        if (!dispatch(e.dev, e.cmd, sh.c_str(), s, d, pc, std::min<uint32_t>(65535, M - m0), gy, gz))
            return false;
    }
    return true;
}

// dst[m, e, t] = as[:, m, ids[e, t]] . b[:, e % n_b, t]: the subgroup GEMV with MUL_MAT_ID (ROWS rows per
// workgroup, one workgroup row-block per (e, t)), or without subgroup arithmetic the mul_mat shader
// with MUL_MAT_ID, one workgroup per output element (m, e, t).
bool enc_mul_mat_id(const enc & e) {
    const ggml_tensor *a = e.node->src[0], *b = e.node->src[1], *ids = e.node->src[2], *d = e.node;
    const size_t       ua = addr_unit(a);
    bound              ba, bb, bi, bd;
    if (!offsets_ok(e, a, ua, &ba) || !offsets_ok(e, b, 4, &bb) || !offsets_ok(e, ids, 4, &bi) ||
        !offsets_ok(e, d, 4, &bd))
        return false;
    const ggml_tensor * s[4] = {a, b, ids, nullptr};
    if (!grid_of(e.dev, a->type, &s[3]))
        return false;
    const uint32_t M = (uint32_t) d->ne[0], n_used = (uint32_t) d->ne[1], n_tok = (uint32_t) d->ne[2];
    if (e.dev->subgroup_arith) {  // the subgroup GEMV per (expert slot, token)
        uint32_t    spec[2];
        const vname shv("mul_mv_id_", tname(a->type));
        mv_spec(e.dev, spec);
        VkPipeline pipe = ggml_vk_get_pipeline(e.dev, shv.c_str(), spec, 2);
        if (!pipe)
            return false;
        const uint32_t rows_per_dispatch = 65535 * spec[1];
        for (uint32_t m0 = 0; m0 < M; m0 += rows_per_dispatch) {
            pc_words pc;
            pc.u(a->ne[0]).u(M).u(n_used).u(1).u(1).u(1).u(m0);
            pc.strides(ba, a, ua, false).strides(bb, b, 4).strides(bd, d, 4, false);
            pc.u(bi.rem / 4).u(ids->nb[0] / 4).u(ids->nb[1] / 4).u(b->ne[1]);
            const uint32_t rows = std::min(rows_per_dispatch, M - m0);
            if (!dispatch(e.dev, e.cmd, pipe, s, d, pc, (rows + spec[1] - 1) / spec[1], n_used, n_tok))
                return false;
        }
        return true;
    }
    const vname sh("mul_mat_id_", tname(a->type));
    for (uint32_t m0 = 0; m0 < M; m0 += 65535) {
        pc_words pc;
        pc.u(a->ne[0]).u(M).u(n_used).u(1).u(1).u(1).u(m0);
        pc.strides(ba, a, ua, false).strides(bb, b, 4).strides(bd, d, 4, false);
        pc.u(bi.rem / 4).u(ids->nb[0] / 4).u(ids->nb[1] / 4).u(b->ne[1]);
        if (!dispatch(e.dev, e.cmd, sh.c_str(), s, d, pc, std::min<uint32_t>(65535, M - m0), n_used, n_tok))
            return false;
    }
    return true;
}

bool enc_concat(const enc & e) {
    const ggml_tensor *a = e.node->src[0], *b = e.node->src[1], *d = e.node;
    const size_t       u   = ggml_type_size(a->type);
    const int          dim = ggml_get_op_params_i32(d, 0);
    bound              ba, bb, bd;
    if (!offsets_ok(e, a, u, &ba) || !offsets_ok(e, b, u, &bb) || !offsets_ok(e, d, u, &bd))
        return false;
    pc_words pc;
    pc.ne(d).u(dim).u(a->ne[dim]).strides(ba, a, u).strides(bb, b, u).strides(bd, d, u);
    const ggml_tensor * s[4] = {a, b, nullptr, nullptr};
    return dispatch_flat(e.dev, e.cmd, u == 2 ? "concat_16" : "concat_32", s, d, pc, ggml_nelements(d));
}

// argmax (2-D a) and argsort: one workgroup per row of a
bool enc_arg(const enc & e, bool sort) {
    const ggml_tensor *a = e.node->src[0], *d = e.node;
    bound              ba, bd;
    if (!offsets_ok(e, a, 4, &ba) || !offsets_ok(e, d, 4, &bd))
        return false;
    const uint64_t nrows = (uint64_t) a->ne[1] * a->ne[2] * a->ne[3];
    pc_words       pc;
    pc.u(a->ne[0]).u(nrows);
    if (sort)
        pc.u(ggml_get_op_params_i32(d, 0) == GGML_SORT_ORDER_DESC ? 1 : 0);
    pc.u(ba.rem / 4).u(a->nb[0] / 4).u(a->nb[1] / 4).u(bd.rem / 4);
    if (sort)
        pc.u(d->nb[1] / 4);
    const ggml_tensor * s[4] = {a, nullptr, nullptr, nullptr};
    uint32_t            gx, gy;
    grid(nrows, &gx, &gy);
    if (sort) {  // one invocation per element: x = chunks of 256 elements, (y, z) = rows
        return dispatch(e.dev, e.cmd, "argsort_f32", s, d, pc, (uint32_t) ((a->ne[0] + 255) / 256), gx, gy);
    }
    return dispatch(e.dev, e.cmd, "argmax_f32", s, d, pc, gx, gy, 1);
}

double yarn_corr_dim(int n_dims, int n_ctx_orig, double n_rot, double base) {
    return n_dims * std::log(n_ctx_orig / (n_rot * 2.0 * M_PI)) / (2.0 * std::log(base));
}

bool enc_rope(const enc & e) {
    const ggml_tensor *a = e.node->src[0], *pos = e.node->src[1], *ff = e.node->src[2], *d = e.node;
    const int          n_dims = ggml_get_op_params_i32(d, 1), mode = ggml_get_op_params_i32(d, 2);
    const int          n_ctx_orig = ggml_get_op_params_i32(d, 4);
    const float        base = ggml_get_op_params_f32(d, 5), fscale = ggml_get_op_params_f32(d, 6);
    const float        ext = ggml_get_op_params_f32(d, 7), attn = ggml_get_op_params_f32(d, 8);
    const float        bfast = ggml_get_op_params_f32(d, 9), bslow = ggml_get_op_params_f32(d, 10);
    const size_t       ua = ggml_type_size(a->type);
    bound              ba, bp, bf, bd;
    if (!offsets_ok(e, a, ua, &ba) || !offsets_ok(e, pos, 4, &bp) || !offsets_ok(e, d, ua, &bd))
        return false;
    if (ff && !offsets_ok(e, ff, 4, &bf))
        return false;
    double corr0 = 0, corr1 = 0;
    if (ext != 0.0f) {
        corr0 = std::max(0.0, std::floor(yarn_corr_dim(n_dims, n_ctx_orig, bfast, base)));
        corr1 = std::min((double) n_dims - 1, std::ceil(yarn_corr_dim(n_dims, n_ctx_orig, bslow, base)));
    }
    const double ts = std::pow((double) base, -2.0 / n_dims);
    uint32_t     tsw[2];
    std::memcpy(tsw, &ts, 8);
    pc_words pc;
    pc.ne(a).strides(ba, a, ua, false).strides(bd, d, ua, false).u(bp.rem / 4).u(ff ? bf.rem / 4 : 0).u(ff ? 1 : 0);
    pc.u(n_dims).u((mode & GGML_ROPE_TYPE_NEOX) ? 1 : 0).u(tsw[0]).u(tsw[1]);
    pc.f(fscale)
        .f(ext)
        .f(attn)
        .f((float) corr0)
        .f((float) corr1)
        .f(ext != 0.0f ? 1.0f + 0.1f * std::log(1.0f / fscale) : 1.0f);
    const ggml_tensor * s[4] = {a, pos, ff, nullptr};
    return dispatch_flat(e.dev, e.cmd, a->type == GGML_TYPE_F16 ? "rope_f16" : "rope_f32", s, d, pc,
                         (uint64_t) ggml_nelements(a) / 2);
}

bool enc_soft_max(const enc & e) {
    const ggml_tensor *a = e.node->src[0], *m = e.node->src[1], *d = e.node;
    const float        scale = ggml_get_op_params_f32(d, 0), max_bias = ggml_get_op_params_f32(d, 1);
    bound              ba, bm, bd;
    if (!offsets_ok(e, a, 4, &ba) || !offsets_ok(e, d, 4, &bd))
        return false;
    const size_t um = m ? ggml_type_size(m->type) : 4;
    if (m && !offsets_ok(e, m, um, &bm))
        return false;
    const uint32_t n_head = (uint32_t) a->ne[2];
    const uint32_t n2     = 1u << (uint32_t) std::floor(std::log2((double) std::max<uint32_t>(n_head, 1)));
    const float    m0     = std::pow(2.0f, -max_bias / n2);
    const float    m1     = std::pow(2.0f, -(max_bias / 2.0f) / n2);
    pc_words       pc;
    pc.ne(a).strides(ba, a, 4, false);
    if (m) {
        pc.u(bm.rem / um).u(m->nb[1] / um).u(m->nb[2] / um).u(m->nb[3] / um).u(m->ne[2]).u(m->ne[3]);
        pc.u(m->type == GGML_TYPE_F16 ? 2 : 1);
    } else {
        pc.u(0).u(0).u(0).u(0).u(1).u(1).u(0);
    }
    pc.strides(bd, d, 4, false).f(scale).f(max_bias).f(m0).f(m1).u(n2);
    const ggml_tensor * s[4] = {a, m, nullptr, nullptr};
    uint32_t            gx, gy;
    grid((uint64_t) a->ne[1] * a->ne[2] * a->ne[3], &gx, &gy);
    return dispatch(e.dev, e.cmd, "soft_max_f32", s, d, pc, gx, gy, 1);
}

// ALiBi slope bases for n_head heads (1, 1 without bias: every slope is then 1).
void alibi_params(float max_bias, uint32_t n_head, float * m0, float * m1, uint32_t * n2) {
    *n2 = 1u << (uint32_t) std::floor(std::log2((double) std::max<uint32_t>(n_head, 1)));
    *m0 = max_bias > 0 ? std::pow(2.0f, -max_bias / *n2) : 1.0f;
    *m1 = max_bias > 0 ? std::pow(2.0f, -(max_bias / 2.0f) / *n2) : 1.0f;
}

bool enc_flash_attn(const enc & e) {
    const ggml_tensor * q = e.node->src[0], *k = e.node->src[1], *v = e.node->src[2], *m = e.node->src[3];
    const ggml_tensor * d     = e.node;
    const float         scale = ggml_get_op_params_f32(d, 0), max_bias = ggml_get_op_params_f32(d, 1);
    const float         softcap = ggml_get_op_params_f32(d, 2);
    const size_t        uk = addr_unit(k), uv = addr_unit(v), um = m ? ggml_type_size(m->type) : 4;
    bound               bq, bk, bv, bm, bd;
    if (!offsets_ok(e, q, 4, &bq) || !offsets_ok(e, k, uk, &bk) || !offsets_ok(e, v, uv, &bv) ||
        !offsets_ok(e, d, 4, &bd) || (m && !offsets_ok(e, m, um, &bm))) {
        return false;
    }
    float    m0, m1;
    uint32_t n2;
    alibi_params(max_bias, (uint32_t) q->ne[2], &m0, &m1, &n2);
    pc_words pc;
    pc.u(q->ne[0]).u(v->ne[0]).u(q->ne[1]).u(k->ne[1]).u(q->ne[2]).u(q->ne[2] / k->ne[2]);
    pc.strides(bq, q, 4, false).strides(bk, k, uk, false).strides(bv, v, uv, false);
    if (m) {
        pc.u(bm.rem / um).u(m->nb[1] / um).u(m->ne[2] > 1 ? m->nb[2] / um : 0).u(m->ne[3] > 1 ? m->nb[3] / um : 0);
        pc.u(m->type == GGML_TYPE_F16 ? 2 : 1);
    } else {
        pc.u(0).u(0).u(0).u(0).u(0);
    }
    pc.strides(bd, d, 4, false).f(scale).f(softcap).f(m0).f(m1).u(n2);
    const ggml_tensor * s[4] = {q, k, v, m};
    const uint32_t      n_q = (uint32_t) q->ne[1], n_head = (uint32_t) q->ne[2], ne3 = (uint32_t) q->ne[3];
    const vk_fa_plan    plan = ggml_vk_fa_plan(e.dev, d);  // the path is chosen in vk-flash-attn.cpp
    // the variant of the K/V pair: _<k> for one type, _<k>_<v> for two (CMakeLists.txt)
    const char *vsuf = k->type == v->type ? "" : "_", *vname_v = k->type == v->type ? "" : tname(v->type);
    if (plan.path == vk_fa_path::tiled) {
        const vname sh(plan.sg ? "flash_attn_tiled_sg_" : "flash_attn_tiled_", tname(k->type), vsuf, vname_v);
        VkPipeline  pipe = ggml_vk_get_pipeline(e.dev, sh.c_str(), plan.spec, 7);
        // rows: the (query, head) pairs of each KV head's group (see the shader)
        const uint32_t gqa = (uint32_t) (q->ne[2] / k->ne[2]), rows = n_q * gqa;
        return pipe && dispatch(e.dev, e.cmd, pipe, s, d, pc, (rows + plan.br - 1) / plan.br, n_head / gqa, ne3);
    }
    const vname sh("flash_attn_", tname(k->type), vsuf, vname_v);
    if (plan.path == vk_fa_path::split) {
        // the partials follow dst in its buffer (reserved by the buffer type's alloc size)
        vk_buffer *  buf  = nullptr;
        size_t       off  = 0;
        const size_t need = ggml_nbytes(d) + ggml_vk_fa_extra_bytes(e.dev, d);
        if (ggml_vk_tensor_location(d, &buf, &off) && off + need <= buf->size) {
            VkPipeline          pipe    = ggml_vk_get_pipeline(e.dev, sh.c_str(), &plan.n_split, 1);
            VkPipeline          red     = ggml_vk_get_pipeline(e.dev, "flash_attn_reduce", &plan.n_split, 1);
            const ggml_tensor * none[4] = {nullptr, nullptr, nullptr, nullptr};
            return pipe && red && dispatch(e.dev, e.cmd, pipe, s, d, pc, n_q * plan.n_split, n_head, ne3) &&
                   dispatch(e.dev, e.cmd, red, none, d, pc, n_q, n_head, ne3);
        }
        GGML_LOG_WARN("ggml-vulkan: flash_attn_ext '%s': no room for split-K partials, one pass\n", d->name);
    }
    return dispatch(e.dev, e.cmd, sh.c_str(), s, d, pc, n_q, n_head, ne3);
}

// ---- supports, one predicate per op or family (exact: the scheduler relies on a "yes") -----------

bool sup_yes(const vk_device *, const ggml_tensor *) {
    return true;
}
bool sup_binary(const vk_device *, const ggml_tensor * op) {
    const ggml_tensor *a = op->src[0], *b = op->src[1];
    return (is_f32(a) || (op->op == GGML_OP_ADD && a->type == GGML_TYPE_F16)) && is_f32(b) && op->type == a->type &&
           addressable_elems(a) && addressable_elems(b) && addressable_elems(op);
}
bool sup_unary(const vk_device *, const ggml_tensor * op) {
    const ggml_tensor * a = op->src[0];
    return is_f32_or_f16(a) && op->type == a->type && ggml_get_unary_op(op) < GGML_UNARY_OP_COUNT &&
           addressable_elems(a) && addressable_elems(op);
}
bool sup_f32_map(const vk_device *, const ggml_tensor * op) {  // SQR .. CLAMP, the row reductions and norms
    return is_f32(op->src[0]) && is_f32(op) && addressable_elems(op->src[0]) && addressable_elems(op);
}
bool sup_glu(const vk_device *, const ggml_tensor * op) {
    const ggml_tensor *a = op->src[0], *b = op->src[1];
    return is_f32(a) && is_f32(op) && (!b || is_f32(b)) && ggml_get_glu_op(op) < GGML_GLU_OP_COUNT &&
           addressable_elems(a) && (!b || addressable_elems(b)) && addressable_elems(op);
}
bool sup_get_rows(const vk_device *, const ggml_tensor * op) {
    const ggml_tensor *a = op->src[0], *b = op->src[1];
    return supports_get_rows_type(a->type) && rows_contiguous(a) && b->type == GGML_TYPE_I32 &&
           addressable(a, addr_unit(a)) && addressable_elems(b) && rows_contiguous(op) && addressable_elems(op);
}
bool sup_cpy(const vk_device *, const ggml_tensor * op) {
    const ggml_tensor * a = op->src[0];
    const ggml_type     s = a->type, d = op->type;
    if (is_q_write_type(d)) {  // whole blocks, same shape
        return op->op == GGML_OP_CPY && is_f32(a) && ggml_are_same_shape(a, op) && a->ne[0] % 32 == 0 &&
               addressable_elems(a) && addressable(op, 2);
    }
    const bool ok = (is_float16_or_32(a) && is_float16_or_32(op)) || (s == GGML_TYPE_I32 && d == s);
    return ok && addressable_elems(a) && addressable_elems(op);
}
bool sup_set_rows(const vk_device *, const ggml_tensor * op) {
    const ggml_tensor *a = op->src[0], *b = op->src[1];
    if (is_q_write_type(op->type) && (op->ne[0] % 32 != 0 || !addressable(op, 2)))
        return false;
    return (is_float16_or_32(op) || is_q_write_type(op->type)) && is_f32(a) &&
           (b->type == GGML_TYPE_I32 || b->type == GGML_TYPE_I64) && a->ne[2] == op->ne[2] && a->ne[3] == op->ne[3] &&
           addressable_elems(a) && addressable(b, 4) && addressable(op, addr_unit(op));
}
bool sup_mul_mat(const vk_device *, const ggml_tensor * op) {
    const ggml_tensor *a = op->src[0], *b = op->src[1];
    return supports_matmul_type(a->type) && rows_contiguous(a) && is_f32(b) && is_f32(op) && rows_contiguous(op) &&
           b->ne[2] % a->ne[2] == 0 && b->ne[3] % a->ne[3] == 0 &&
           (!ggml_is_quantized(a->type) || a->ne[0] % 32 == 0) && addressable(a, addr_unit(a)) &&
           addressable_elems(b) && addressable_elems(op) && op->ne[2] * op->ne[3] <= 65535;
}
bool sup_mul_mat_id(const vk_device *, const ggml_tensor * op) {
    const ggml_tensor *a = op->src[0], *b = op->src[1], *ids = op->src[2];
    return supports_matmul_type(a->type) && rows_contiguous(a) && is_f32(b) && is_f32(op) && rows_contiguous(op) &&
           ids->type == GGML_TYPE_I32 && addressable_elems(ids) &&
           (!ggml_is_quantized(a->type) || a->ne[0] % 32 == 0) && addressable(a, addr_unit(a)) &&
           addressable_elems(b) && addressable_elems(op) && op->ne[1] <= 65535 && op->ne[2] <= 65535;
}
bool sup_concat(const vk_device *, const ggml_tensor * op) {
    const ggml_tensor *a = op->src[0], *b = op->src[1];
    return (is_f32_or_f16(a) || a->type == GGML_TYPE_I32) && b->type == a->type && op->type == a->type &&
           addressable_elems(a) && addressable_elems(b) && addressable_elems(op);
}
bool sup_arg(const vk_device *, const ggml_tensor * op) {  // ARGMAX, ARGSORT
    const ggml_tensor * a = op->src[0];
    if (op->op == GGML_OP_ARGSORT && a->ne[0] > (int64_t) 65535 * 256)  // x = chunks of 256 elements
        return false;
    return is_f32(a) && op->type == GGML_TYPE_I32 && rows_evenly_spaced(a) && rows_contiguous(op) &&
           rows_evenly_spaced(op) && addressable_elems(a) && addressable_elems(op);
}
bool sup_rope(const vk_device * dev, const ggml_tensor * op) {
    const ggml_tensor *a = op->src[0], *b = op->src[1], *ff = op->src[2];
    const int          mode    = ggml_get_op_params_i32(op, 2);
    const bool         mode_ok = mode == GGML_ROPE_TYPE_NORMAL || mode == GGML_ROPE_TYPE_NEOX;
    return dev->fp64 && mode_ok && is_f32_or_f16(a) && op->type == a->type && rows_contiguous(a) &&
           rows_contiguous(op) && a->ne[0] % 2 == 0 && b->type == GGML_TYPE_I32 && ggml_is_contiguous(b) &&
           (!ff || (is_f32(ff) && ggml_is_contiguous(ff))) && addressable_elems(a) && addressable_elems(op);
}
bool sup_soft_max(const vk_device *, const ggml_tensor * op) {
    const ggml_tensor *a = op->src[0], *b = op->src[1];
    return is_f32(a) && is_f32(op) && rows_contiguous(a) && rows_contiguous(op) &&
           (!b || (is_f32_or_f16(b) && rows_contiguous(b) && addressable_elems(b))) && addressable_elems(a) &&
           addressable_elems(op);
}
// The K/V pairs with a compiled variant (CMakeLists.txt): any two of F32, F16 and the 32-element
// quantized types (two quantized types: one dequantizer per side), BF16 only with BF16; quantized
// rows whole blocks. BF16 with another type runs on the CPU.
bool fa_pair_ok(const ggml_tensor * k, const ggml_tensor * v) {
    auto side_ok = [](const ggml_tensor * t) {
        return is_f32_or_f16(t) || t->type == GGML_TYPE_BF16 || (is_fa_quant(t->type) && t->ne[0] % 32 == 0);
    };
    if (!side_ok(k) || !side_ok(v)) {
        return false;
    }
    return k->type == v->type || (k->type != GGML_TYPE_BF16 && v->type != GGML_TYPE_BF16);
}

// Dv <= 512: flash_attn.comp's 64 invocations hold 8 output dims each (DeepSeek's absorbed MLA: V 512
// wide, a view of K's rows, K 576); Dk has no limit but the tiled kernel's shared memory (it falls back).
bool sup_flash_attn(const vk_device *, const ggml_tensor * op) {
    const ggml_tensor *a = op->src[0], *k = op->src[1], *v = op->src[2], *m = op->src[3];
    return is_f32(a) && fa_pair_ok(k, v) && rows_contiguous(a) && rows_contiguous(k) && rows_contiguous(v) &&
           rows_contiguous(op) && v->ne[0] <= 512 && a->ne[3] == k->ne[3] && a->ne[1] <= 65535 && a->ne[2] <= 65535 &&
           a->ne[3] <= 65535 && (!m || (is_f32_or_f16(m) && rows_contiguous(m) && addressable_elems(m))) &&
           addressable_elems(a) && addressable(k, addr_unit(k)) && addressable(v, addr_unit(v)) &&
           addressable_elems(op);
}

// ---- encoders of the ops that share a shader (the sub-op codes: shaders/op-codes.glsl) -------------

bool enc_unary_op(const enc & e) {
    return enc_unary(e, (uint32_t) ggml_get_unary_op(e.node), 0, 0);
}
bool enc_sqr(const enc & e) {
    return enc_unary(e, VK_MAP_SQR, 0, 0);
}
bool enc_sqrt(const enc & e) {
    return enc_unary(e, VK_MAP_SQRT, 0, 0);
}
bool enc_scale(const enc & e) {
    return enc_unary(e, VK_MAP_SCALE, ggml_get_op_params_f32(e.node, 0), ggml_get_op_params_f32(e.node, 1));
}
bool enc_clamp(const enc & e) {
    return enc_unary(e, VK_MAP_CLAMP, ggml_get_op_params_f32(e.node, 0), ggml_get_op_params_f32(e.node, 1));
}
template <uint32_t ROW_OP>
bool enc_row(const enc & e) {  // norms read eps from op_params; sums ignore it
    return enc_norm(e, ROW_OP, ROW_OP >= VK_ROW_NORM ? ggml_get_op_params_f32(e.node, 0) : 0.0f);
}
bool enc_argmax(const enc & e) {
    return enc_arg(e, false);
}
bool enc_argsort(const enc & e) {
    return enc_arg(e, true);
}

// ---- the table: one row per ggml_op (checked against the core table at compile time) ---------------

struct vk_op_row {
    ggml_op op;
    bool (*supports)(const vk_device * dev, const ggml_tensor * node);  // exact
    bool (*encode)(const enc & e);                                      // nullptr: views and leaves, nothing runs
};

constexpr vk_op_row k_rows[] = {
    {GGML_OP_NONE, sup_yes, nullptr},
    {GGML_OP_DUP, sup_cpy, enc_cpy},
    {GGML_OP_ADD, sup_binary, enc_binary},
    {GGML_OP_SUB, sup_binary, enc_binary},
    {GGML_OP_MUL, sup_binary, enc_binary},
    {GGML_OP_DIV, sup_binary, enc_binary},
    {GGML_OP_SQR, sup_f32_map, enc_sqr},
    {GGML_OP_SQRT, sup_f32_map, enc_sqrt},
    {GGML_OP_SUM_ROWS, sup_f32_map, enc_row<VK_ROW_SUM>},
    {GGML_OP_MEAN, sup_f32_map, enc_row<VK_ROW_MEAN>},
    {GGML_OP_ARGMAX, sup_arg, enc_argmax},
    {GGML_OP_SCALE, sup_f32_map, enc_scale},
    {GGML_OP_CLAMP, sup_f32_map, enc_clamp},
    {GGML_OP_NORM, sup_f32_map, enc_row<VK_ROW_NORM>},
    {GGML_OP_RMS_NORM, sup_f32_map, enc_row<VK_ROW_RMS_NORM>},
    {GGML_OP_MUL_MAT, sup_mul_mat, enc_mul_mat},
    {GGML_OP_MUL_MAT_ID, sup_mul_mat_id, enc_mul_mat_id},
    {GGML_OP_GET_ROWS, sup_get_rows, enc_get_rows},
    {GGML_OP_SET_ROWS, sup_set_rows, enc_set_rows},
    {GGML_OP_CPY, sup_cpy, enc_cpy},
    {GGML_OP_CONT, sup_cpy, enc_cpy},
    {GGML_OP_RESHAPE, sup_yes, nullptr},
    {GGML_OP_VIEW, sup_yes, nullptr},
    {GGML_OP_PERMUTE, sup_yes, nullptr},
    {GGML_OP_TRANSPOSE, sup_yes, nullptr},
    {GGML_OP_CONCAT, sup_concat, enc_concat},
    {GGML_OP_ROPE, sup_rope, enc_rope},
    {GGML_OP_SOFT_MAX, sup_soft_max, enc_soft_max},
    {GGML_OP_FLASH_ATTN_EXT, sup_flash_attn, enc_flash_attn},
    {GGML_OP_ARGSORT, sup_arg, enc_argsort},
    {GGML_OP_UNARY, sup_unary, enc_unary_op},
    {GGML_OP_GLU, sup_glu, enc_glu},
    {GGML_OP_L2_NORM, sup_f32_map, enc_row<VK_ROW_L2_NORM>},
    {GGML_OP_SSM_CONV, sup_ssm_conv, enc_ssm_conv},
    {GGML_OP_SSM_SCAN, sup_ssm_scan, enc_ssm_scan},
    {GGML_OP_GATED_DELTA_NET, sup_gated_delta_net, enc_gated_delta_net},
};
static_assert(ggml_op_rows_complete(k_rows), "the Vulkan op table needs one row per ggml_op, in enum order");

}  // namespace

bool ggml_vk_supports_op(const vk_device * dev, const ggml_tensor * op) {
    if ((int) op->op < 0 || op->op >= GGML_OP_COUNT)
        return false;
    const vk_op_row & row = k_rows[op->op];
    return row.supports && row.supports(dev, op);
}

bool ggml_vk_encode_op(vk_device * dev, VkCommandBuffer cmd, ggml_tensor * node) {
    if (!ggml_vk_supports_op(dev, node) || !k_rows[node->op].encode) {
        return false;
    }
    return k_rows[node->op].encode(enc{dev, cmd, node});
}
