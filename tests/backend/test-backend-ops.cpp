// Every op on every device of the registry (CPU, Vulkan, CUDA when built and present), against
// double-precision references written here (never the kernels). A failure names the device, the family
// and the case. The CPU, CUDA and Vulkan devices must support every case of their required ops.
#include "op-harness.h"
#include "test-compat.h"

#include "ggml-cpu.h"
#include "ggml-op-table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <numeric>

using namespace op_harness;

// lavapipe (a CPU-type Vulkan device) is hidden unless asked for; the harness tests it as the Vulkan
// device under test, so ask before anything touches the backend registry.
namespace {
const bool k_allow_cpu_vk = (setenv("GGML_VK_ALLOW_CPU_DEVICES", "1", 0), true);
}

// The CPU would run these tiny cases on one thread; force its requested thread count so the
// multi-threaded work splits are what gets checked (no effect on other backends).
extern "C" void ggml_cpu_set_auto_threads(bool enable);
namespace {
const bool k_cpu_all_threads = (ggml_cpu_set_auto_threads(false), true);
}

namespace {

using ne4 = std::array<int64_t, 4>;

std::string shape_str(const ne4 & ne) {
    std::ostringstream os;
    os << "[" << ne[0] << "," << ne[1] << "," << ne[2] << "," << ne[3] << "]";
    return os.str();
}

// Leaf helpers. layout: 0 contiguous, 1 padded rows (row stride > row size), 2 transposed (nb0 != elem size)
ggml_tensor * input(ggml_context * ctx, ggml_type t, const ne4 & ne, int layout = 0, const char * name = "") {
    ggml_tensor * x = nullptr;
    if (layout == 0) {
        x = ggml_new_tensor_4d(ctx, t, ne[0], ne[1], ne[2], ne[3]);
        ggml_set_name(x, name);
        return x;
    }
    if (layout == 1) {
        const int64_t pad = ggml_blck_size(t);  // keeps quantized rows whole
        x                 = ggml_new_tensor_4d(ctx, t, ne[0] + pad, ne[1], ne[2], ne[3]);
        ggml_set_name(x, name);
        return ggml_view_4d(ctx, x, ne[0], ne[1], ne[2], ne[3], x->nb[1], x->nb[2], x->nb[3], 0);
    }
    x = ggml_new_tensor_4d(ctx, t, ne[1], ne[0], ne[2], ne[3]);
    ggml_set_name(x, name);
    return ggml_transpose(ctx, x);
}

const char * layout_name(int l) {
    return l == 0 ? "contig" : (l == 1 ? "padded" : "transposed");
}

template <typename F>
void for_each(const int64_t * ne, F f) {
    for (int64_t i3 = 0; i3 < ne[3]; ++i3)
        for (int64_t i2 = 0; i2 < ne[2]; ++i2)
            for (int64_t i1 = 0; i1 < ne[1]; ++i1)
                for (int64_t i0 = 0; i0 < ne[0]; ++i0)
                    f(i0, i1, i2, i3);
}

double tol_for(ggml_type t, double f32_tol = 1e-10) {
    return t == GGML_TYPE_F16 ? 1e-5 : (t == GGML_TYPE_BF16 ? 3e-4 : f32_tol);
}

const std::vector<ne4> k_shapes = {{1, 1, 1, 1},    {7, 1, 1, 1}, {172, 3, 1, 1},
                                   {4097, 2, 1, 1}, {7, 5, 3, 2}, {33, 4, 2, 1}};

// ---- binary ----------------------------------------------------------------------------------
std::vector<test_case> cases_binary() {
    std::vector<test_case> v;
    const ggml_op          ops[] = {GGML_OP_ADD, GGML_OP_SUB, GGML_OP_MUL, GGML_OP_DIV};
    for (ggml_op op : ops)
        for (const ne4 & ne : k_shapes)
            for (int bc = 0; bc < 5; ++bc)
                for (int layout = 0; layout < 3; ++layout) {
                    ne4 nb = ne;
                    if (bc == 1)
                        nb = {1, 1, 1, 1};
                    if (bc == 2)
                        nb = {ne[0], 1, 1, 1};
                    if (bc == 3)
                        nb = {ne[0], 1, ne[2], 1};
                    if (bc == 4)
                        nb = {1, ne[1], 1, ne[3]};
                    for (ggml_type at : {GGML_TYPE_F32, GGML_TYPE_F16}) {
                        if (at == GGML_TYPE_F16 && (op != GGML_OP_ADD || layout == 2))
                            continue;
                        test_case tc;
                        tc.desc = std::string(ggml_op_name(op)) + " a=" + ggml_type_name(at) + shape_str(ne) + " " +
                                  layout_name(layout) + " b=" + shape_str(nb);
                        tc.max_nmse = tol_for(at);
                        tc.build    = [=](ggml_context * ctx) {
                            ggml_tensor * a = input(ctx, at, ne, layout, "a");
                            ggml_tensor * b = input(ctx, GGML_TYPE_F32, nb, 0, op == GGML_OP_DIV ? "nz" : "b");
                            switch (op) {
                                case GGML_OP_ADD:
                                    return ggml_add(ctx, a, b);
                                case GGML_OP_SUB:
                                    return ggml_sub(ctx, a, b);
                                case GGML_OP_MUL:
                                    return ggml_mul(ctx, a, b);
                                default:
                                    return ggml_div(ctx, a, b);
                            }
                        };
                        tc.ref = [=](const ggml_tensor * out, const std::vector<host_tensor> & s, const host_tensor &) {
                            std::vector<double> r;
                            for_each(out->ne, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
                                const double x = s[0](i0, i1, i2, i3);
                                const double y = s[1](i0 % nb[0], i1 % nb[1], i2 % nb[2], i3 % nb[3]);
                                r.push_back(op == GGML_OP_ADD   ? x + y
                                            : op == GGML_OP_SUB ? x - y
                                            : op == GGML_OP_MUL ? x * y
                                                                : x / y);
                            });
                            return r;
                        };
                        v.push_back(tc);
                    }
                }
    return v;
}

// ---- unary, glu, scale, clamp, sqr, sqrt ------------------------------------------------------
double ref_unary(int kind, double x) {
    switch (kind) {
        case GGML_UNARY_OP_RELU:
            return x > 0 ? x : 0;
        case GGML_UNARY_OP_TANH:
            return std::tanh(x);
        case GGML_UNARY_OP_SIGMOID:
            return 1 / (1 + std::exp(-x));
        case GGML_UNARY_OP_SILU:
            return x / (1 + std::exp(-x));
        case GGML_UNARY_OP_GELU:
            return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
        case GGML_UNARY_OP_GELU_ERF:
            return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
        case GGML_UNARY_OP_NEG:
            return -x;
        case GGML_UNARY_OP_EXP:
            return std::exp(x);
        case GGML_UNARY_OP_SOFTPLUS:
            return x > 20 ? x : std::log1p(std::exp(x));
        default:
            return NAN;
    }
}

std::vector<test_case> cases_unary() {
    std::vector<test_case> v;
    // kinds 0..8: unary ops; 100 sqr, 101 sqrt, 102 scale, 103 scale+bias, 104 clamp
    std::vector<int> kinds;
    for (int k = 0; k < GGML_UNARY_OP_COUNT; ++k)
        kinds.push_back(k);
    for (int k : {100, 101, 102, 103, 104})
        kinds.push_back(k);
    for (int kind : kinds)
        for (const ne4 & ne : k_shapes)
            for (ggml_type t : {GGML_TYPE_F32, GGML_TYPE_F16})
                for (int layout : {0, 2}) {
                    if (layout == 2 && ne[1] == 1)
                        continue;
                    if (t == GGML_TYPE_F16 && kind >= 100)
                        continue;  // only UNARY takes F16 (ggml.h)
                    test_case    tc;
                    const char * kname =
                        kind < 100 ? ggml_unary_op_name((ggml_unary_op) kind)
                                   : (const char *[]){"sqr", "sqrt", "scale", "scale_bias", "clamp"}[kind - 100];
                    tc.desc = std::string(kname) + " " + ggml_type_name(t) + shape_str(ne) + " " + layout_name(layout);
                    tc.max_nmse = tol_for(t, 1e-9);
                    tc.build    = [=](ggml_context * ctx) {
                        ggml_tensor * a = input(ctx, t, ne, layout, kind == 101 ? "pos+" : "a");
                        switch (kind) {
                            case 100:
                                return ggml_sqr(ctx, a);
                            case 101:
                                return ggml_sqrt(ctx, a);
                            case 102:
                                return ggml_scale(ctx, a, 0.37f);
                            case 103:
                                return ggml_scale_bias(ctx, a, -1.5f, 0.25f);
                            case 104:
                                return ggml_clamp(ctx, a, -0.3f, 0.6f);
                            default:
                                return ggml_unary(ctx, a, (ggml_unary_op) kind);
                        }
                    };
                    tc.ref = [=](const ggml_tensor *, const std::vector<host_tensor> & s, const host_tensor &) {
                        std::vector<double> r;
                        for (double x : s[0].v) {
                            double y;
                            switch (kind) {
                                case 100:
                                    y = x * x;
                                    break;
                                case 101:
                                    y = std::sqrt(x);
                                    break;
                                case 102:
                                    y = x * (double) 0.37f;
                                    break;
                                case 103:
                                    y = x * -1.5 + 0.25;
                                    break;
                                case 104:
                                    y = std::min(std::max(x, (double) -0.3f), (double) 0.6f);
                                    break;
                                default:
                                    y = ref_unary(kind, x);
                            }
                            r.push_back(y);
                        }
                        return r;
                    };
                    v.push_back(tc);
                }
    // GLU: fused, fused swapped, split
    const std::vector<ne4> glu_shapes = {{1, 1, 1, 1}, {7, 3, 1, 1}, {172, 2, 3, 1}, {4097, 1, 1, 1}, {16, 3, 2, 2}};
    for (int g = 0; g < GGML_GLU_OP_COUNT; ++g)
        for (const ne4 & ne : glu_shapes)
            for (int form = 0; form < 3; ++form)
                for (ggml_type t : {GGML_TYPE_F32}) {
                    test_case tc;
                    tc.desc = std::string("glu ") + ggml_glu_op_name((ggml_glu_op) g) + " " +
                              (form == 0   ? "fused"
                               : form == 1 ? "swapped"
                                           : "split") +
                              " " + ggml_type_name(t) + shape_str(ne);
                    tc.max_nmse = tol_for(t, 1e-9);
                    tc.build    = [=](ggml_context * ctx) {
                        if (form == 2) {
                            return ggml_glu_split(ctx, input(ctx, t, ne, 0, "a"), input(ctx, t, ne, 0, "b"),
                                                     (ggml_glu_op) g);
                        }
                        return ggml_glu(ctx, input(ctx, t, {2 * ne[0], ne[1], ne[2], ne[3]}, 0, "a"), (ggml_glu_op) g,
                                           form == 1);
                    };
                    tc.ref = [=](const ggml_tensor * out, const std::vector<host_tensor> & s, const host_tensor &) {
                        std::vector<double> r;
                        const int           act = g == GGML_GLU_OP_SWIGLU  ? GGML_UNARY_OP_SILU
                                                  : g == GGML_GLU_OP_GEGLU ? GGML_UNARY_OP_GELU
                                                                           : GGML_UNARY_OP_GELU_ERF;
                        for_each(out->ne, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
                            double x, y;
                            if (form == 2) {
                                x = s[0](i0, i1, i2, i3);
                                y = s[1](i0, i1, i2, i3);
                            } else {
                                x = s[0](i0 + (form == 1 ? ne[0] : 0), i1, i2, i3);
                                y = s[0](i0 + (form == 1 ? 0 : ne[0]), i1, i2, i3);
                            }
                            r.push_back(ref_unary(act, x) * y);
                        });
                        return r;
                    };
                    v.push_back(tc);
                }
    return v;
}

// ---- reductions and norms ----------------------------------------------------------------------
std::vector<test_case> cases_reduce_norm() {
    std::vector<test_case> v;
    for (int kind = 0; kind < 5; ++kind)  // sum_rows, mean, norm, rms_norm, l2_norm
        for (const ne4 & ne : k_shapes)
            for (ggml_type t : {GGML_TYPE_F32})
                for (int layout = 0; layout < 3; ++layout)
                    for (float eps : {1e-5f, 1e-1f}) {
                        if (kind < 2 && eps != 1e-5f)
                            continue;
                        const char * names[] = {"sum_rows", "mean", "norm", "rms_norm", "l2_norm"};
                        test_case    tc;
                        tc.desc = std::string(names[kind]) + " " + ggml_type_name(t) + shape_str(ne) + " " +
                                  layout_name(layout) + " eps=" + std::to_string(eps);
                        tc.max_nmse = kind < 2 ? 1e-10 : tol_for(t, 1e-10);
                        tc.build    = [=](ggml_context * ctx) {
                            ggml_tensor * a = input(ctx, t, ne, layout, "a");
                            switch (kind) {
                                case 0:
                                    return ggml_sum_rows(ctx, a);
                                case 1:
                                    return ggml_mean(ctx, a);
                                case 2:
                                    return ggml_norm(ctx, a, eps);
                                case 3:
                                    return ggml_rms_norm(ctx, a, eps);
                                default:
                                    return ggml_l2_norm(ctx, a, eps);
                            }
                        };
                        tc.ref = [=](const ggml_tensor *, const std::vector<host_tensor> & s, const host_tensor &) {
                            std::vector<double> r;
                            const host_tensor & a = s[0];
                            for (int64_t row = 0; row < a.n() / a.ne[0]; ++row) {
                                const double * x   = a.v.data() + row * a.ne[0];
                                double         sum = 0, ss = 0;
                                for (int64_t i = 0; i < a.ne[0]; ++i)
                                    sum += x[i];
                                const double mean = sum / a.ne[0];
                                if (kind == 0) {
                                    r.push_back(sum);
                                    continue;
                                }
                                if (kind == 1) {
                                    r.push_back(mean);
                                    continue;
                                }
                                const double c = kind == 2 ? mean : 0.0;
                                for (int64_t i = 0; i < a.ne[0]; ++i)
                                    ss += (x[i] - c) * (x[i] - c);
                                // l2_norm floors the norm at eps; norm and rms_norm add eps to the variance
                                const double sc = kind == 4 ? 1 / std::max(std::sqrt(ss), (double) eps)
                                                            : 1 / std::sqrt(ss / a.ne[0] + (double) eps);
                                for (int64_t i = 0; i < a.ne[0]; ++i)
                                    r.push_back((x[i] - c) * sc);
                            }
                            return r;
                        };
                        v.push_back(tc);
                    }
    for (const ne4 & ne : std::vector<ne4>{{1, 1, 1, 1}, {7, 3, 1, 1}, {172, 5, 1, 1}, {4097, 2, 1, 1}, {32, 9, 1, 1}})
        for (const char * fill : {"a", "few"}) {
            test_case tc;
            tc.desc     = std::string("argmax ") + shape_str(ne) + " " + fill;
            tc.max_nmse = 0;
            tc.build    = [=](ggml_context * ctx) { return ggml_argmax(ctx, input(ctx, GGML_TYPE_F32, ne, 0, fill)); };
            tc.ref      = [=](const ggml_tensor *, const std::vector<host_tensor> & s, const host_tensor &) {
                std::vector<double> r;
                for (int64_t row = 0; row < ne[1]; ++row) {
                    int64_t best = 0;
                    for (int64_t i = 1; i < ne[0]; ++i)
                        if (s[0](i, row) > s[0](best, row))
                            best = i;
                    r.push_back((double) best);
                }
                return r;
            };
            v.push_back(tc);
        }
    return v;
}

}  // namespace

// Further families live in the second half of this file.
std::vector<test_case> cases_matmul();
std::vector<test_case> cases_rows_copy();
std::vector<test_case> cases_attn();
std::vector<test_case> cases_ssm();  // test-backend-ops-ssm.inc

namespace {

struct family {
    const char *                            name;
    std::function<std::vector<test_case>()> make;
};

const family k_families[] = {
    {"binary", cases_binary}, {"unary", cases_unary},         {"reduce_norm", cases_reduce_norm},
    {"matmul", cases_matmul}, {"rows_copy", cases_rows_copy}, {"attn", cases_attn},
    {"ssm", cases_ssm},
};

// Ops a CUDA or Vulkan device must run (issue 12 / 17: everything the CPU runs for the architectures we
// support). A device refusing a case of one of these fails the test instead of counting it as
// unsupported, so a backend cannot pass by declining work. Other devices may still decline.
// (two columns by hand: an odd count would otherwise put one op per line)
// clang-format off
const ggml_op k_cuda_required_ops[] = {
    GGML_OP_ADD,        GGML_OP_SUB,
    GGML_OP_MUL,        GGML_OP_DIV,
    GGML_OP_UNARY,      GGML_OP_GLU,
    GGML_OP_SQR,        GGML_OP_SQRT,
    GGML_OP_SCALE,      GGML_OP_CLAMP,
    GGML_OP_SUM_ROWS,   GGML_OP_MEAN,
    GGML_OP_NORM,       GGML_OP_RMS_NORM,
    GGML_OP_ARGMAX,     GGML_OP_MUL_MAT,
    GGML_OP_MUL_MAT_ID, GGML_OP_GET_ROWS,
    GGML_OP_SET_ROWS,   GGML_OP_CPY,
    GGML_OP_DUP,        GGML_OP_CONT,
    GGML_OP_CONCAT,     GGML_OP_ROPE,
    GGML_OP_SOFT_MAX,   GGML_OP_FLASH_ATTN_EXT,
    GGML_OP_ARGSORT,    GGML_OP_L2_NORM,
    GGML_OP_SSM_CONV,   GGML_OP_SSM_SCAN,
    GGML_OP_GATED_DELTA_NET,
};
// clang-format on

// Writes into K-quant / IQ4_XS / MXFP4 / ternary blocks (weight quantization, never a KV cache type)
// stay on the CPU.
bool is_kv_cache_write_exempt(ggml_op op, ggml_type t) {
    const bool write = op == GGML_OP_CPY || op == GGML_OP_DUP || op == GGML_OP_CONT || op == GGML_OP_SET_ROWS;
    return write && (t == GGML_TYPE_Q2_K || t == GGML_TYPE_Q3_K || t == GGML_TYPE_Q4_K || t == GGML_TYPE_Q5_K ||
                     t == GGML_TYPE_Q6_K || t == GGML_TYPE_IQ4_XS || t == GGML_TYPE_MXFP4 || t == GGML_TYPE_TQ1_0 ||
                     t == GGML_TYPE_TQ2_0);
}

// Copies out of quantized blocks into F32 (the K shift of a quantized cache, run once per shift): the
// GPU backends may decline them and the scheduler runs them on the CPU.
bool is_dequant_copy_exempt(ggml_op op, ggml_type t, ggml_type src) {
    const bool copy = op == GGML_OP_CPY || op == GGML_OP_DUP || op == GGML_OP_CONT;
    return copy && t == GGML_TYPE_F32 && src != GGML_TYPE_COUNT && ggml_is_quantized(src);
}

// The types of issue 18 (MXFP4, ternary, grid i-quants): the CPU and Vulkan run them, CUDA not yet.
bool is_not_on_cuda_type(ggml_type t) {
    switch (t) {
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

// Flash attention K/V pairs a GPU backend may decline (the scheduler runs those nodes on the CPU;
// docs/kv-cache.md): CUDA takes every pair, Vulkan every pair but BF16 with another type. CUDA's kernel
// holds head dims up to 256 only (DeepSeek's 576 / 512 run on the CPU there).
bool is_fa_pair_exempt(const std::string & reg, const result & r) {
    if (r.op != GGML_OP_FLASH_ATTN_EXT)
        return false;
    const ggml_type k = r.src1_type, v = r.src2_type;
    if (reg == "CUDA")
        return r.src1_ne0 > 256 || r.src2_ne0 > 256;
    return k != v && reg == "Vulkan" && (k == GGML_TYPE_BF16 || v == GGML_TYPE_BF16);
}

bool must_support(ggml_backend_dev_t dev, const result & r) {
    const ggml_op   op   = r.op;
    const ggml_type type = r.type;
    if (ggml_backend_dev_type(dev) == GGML_BACKEND_DEVICE_TYPE_CPU)
        return true;
    const std::string reg = ggml_backend_reg_name(ggml_backend_dev_backend_reg(dev));
    if (reg != "CUDA" && reg != "Vulkan")
        return false;
    if (reg == "CUDA" &&
        (is_not_on_cuda_type(type) || is_not_on_cuda_type(r.src0_type) || is_not_on_cuda_type(r.src1_type)))
        return false;
    if (is_kv_cache_write_exempt(op, type) || is_fa_pair_exempt(reg, r) ||
        is_dequant_copy_exempt(op, type, r.src0_type))
        return false;
    return std::find(std::begin(k_cuda_required_ops), std::end(k_cuda_required_ops), op) !=
           std::end(k_cuda_required_ops);
}

void run_family(const char * fam) {
    std::vector<test_case> cases;
    for (const family & f : k_families)
        if (std::string(f.name) == fam)
            cases = f.make();
    ASSERT_FALSE(cases.empty());
    ASSERT_GT(ggml_backend_dev_count(), 0u);
    for (size_t d = 0; d < ggml_backend_dev_count(); ++d) {
        ggml_backend_dev_t dev = ggml_backend_dev_get(d);
        ggml_backend_t     be  = ggml_backend_dev_init(dev, nullptr);
        ASSERT_NE(be, nullptr) << ggml_backend_dev_name(dev);
        int n_ok = 0, n_skip = 0;
        for (size_t i = 0; i < cases.size(); ++i) {
            const result r = run_case(be, cases[i], (uint32_t) (i * 7919 + 17));
            if (!r.supported) {
                ++n_skip;
                if (must_support(dev, r))
                    ADD_FAILURE() << ggml_backend_dev_name(dev) << " must support " << ggml_op_name(r.op)
                                  << " but refuses " << cases[i].desc;
                continue;
            }
            if (r.ok) {
                ++n_ok;
            } else {
                ADD_FAILURE() << ggml_backend_dev_name(dev) << " [" << fam << "] " << cases[i].desc << ": " << r.msg;
            }
        }
        std::printf("[ %s ] %s: %d/%zu passed, %d unsupported\n", ggml_backend_dev_name(dev), fam, n_ok, cases.size(),
                    n_skip);
        ggml_backend_free(be);
    }
}

}  // namespace

TEST(BackendOps, Binary) {
    run_family("binary");
}
TEST(BackendOps, Unary) {
    run_family("unary");
}
TEST(BackendOps, ReduceNorm) {
    run_family("reduce_norm");
}
TEST(BackendOps, MatMul) {
    run_family("matmul");
}
TEST(BackendOps, RowsCopy) {
    run_family("rows_copy");
}
TEST(BackendOps, Attention) {
    run_family("attn");
}
// SSM_CONV, SSM_SCAN, GATED_DELTA_NET: required on CUDA and Vulkan (k_cuda_required_ops)
TEST(BackendOps, Recurrent) {
    run_family("ssm");
}
// ... and their baseline row loops, the oracle of the AVX2 build (ops-ssm-rows.h), at the scalar level
extern "C" void ggml_cpu_set_mm_isa(int isa);
TEST(BackendOps, RecurrentScalarLevel) {
    ggml_cpu_set_mm_isa(0);
    run_family("ssm");
    ggml_cpu_set_mm_isa(-1);
}
// ... and the level below the best where there is one (x86-64 with AVX-512: the AVX2 build)
TEST(BackendOps, RecurrentAvx2Level) {
    ggml_cpu_set_mm_isa(1);
    run_family("ssm");
    ggml_cpu_set_mm_isa(-1);
}

// scripts/gpu-check.sh sets LLAMA_TEST_REQUIRE_CUDA=1: there the families above must have run on CUDA.
TEST(BackendOps, CudaDeviceRunsWhenRequired) {
    const char *       req = getenv("LLAMA_TEST_REQUIRE_CUDA");
    ggml_backend_reg_t reg = ggml_backend_reg_by_name("CUDA");
    const size_t       n   = reg ? ggml_backend_reg_dev_count(reg) : 0;
    if (!(req && req[0] == '1')) {
        GTEST_SKIP() << n << " CUDA devices; LLAMA_TEST_REQUIRE_CUDA is not set";
    }
    EXPECT_GT(n, 0u) << "LLAMA_TEST_REQUIRE_CUDA=1 but no CUDA device";
}

TEST(BackendOps, AtLeastAThousandCases) {
    size_t n = 0;
    for (const family & f : k_families)
        n += f.make().size();
    std::printf("total cases: %zu\n", n);
    EXPECT_GE(n, 1000u);
}

// Every op that runs a kernel has cases here, so every backend's row for it is exercised (the op tables
// themselves are complete by construction: ggml_op_rows_complete fails the build otherwise). An op
// added without a harness row fails this test; leaves and views (GGML_OPF_NOOP) run nothing.
TEST(BackendOps, EveryComputingOpHasCases) {
    std::vector<bool> seen(GGML_OP_COUNT, false);
    for (const family & f : k_families)
        for (const test_case & tc : f.make()) {
            ggml_init_params ip{ggml_tensor_overhead() * 64, nullptr, true};
            ggml_context *   ctx = ggml_init(ip);
            ASSERT_NE(ctx, nullptr);
            // every node of the case's graph counts (a case may build helper nodes around its op)
            std::vector<const ggml_tensor *> todo{tc.build(ctx)};
            while (!todo.empty()) {
                const ggml_tensor * t = todo.back();
                todo.pop_back();
                if (!t)
                    continue;
                seen[t->op] = true;
                for (const ggml_tensor * s : t->src)
                    todo.push_back(s);
            }
            ggml_free(ctx);
        }
    for (int op = 0; op < GGML_OP_COUNT; ++op) {
        if (ggml_op_is_noop((ggml_op) op))
            continue;
        EXPECT_TRUE(seen[op]) << ggml_op_name((ggml_op) op) << " has no case in the op harness";
    }
}

#include "test-backend-ops-cases.inc"
#include "test-backend-ops-ssm.inc"
