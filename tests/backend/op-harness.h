// The op test harness: a case builds one op (sources are leaves or views of leaves), the harness
// fills the leaves with random data, runs the graph on a backend through the public ggml-backend
// API, and compares the result with the case's double-precision reference by normalized MSE.
#pragma once

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu/cpu-type-traits.h"
#include "ggml.h"
#include "test-iquant-blocks.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace op_harness {

// Logical values of a tensor (as double), indexable by (i0, i1, i2, i3).
struct host_tensor {
    int64_t             ne[4] = {1, 1, 1, 1};
    ggml_type           type  = GGML_TYPE_F32;
    std::vector<double> v;
    double              operator()(int64_t i0, int64_t i1 = 0, int64_t i2 = 0, int64_t i3 = 0) const {
                     return v[(size_t) (((i3 * ne[2] + i2) * ne[1] + i1) * ne[0] + i0)];
    }
    int64_t n() const { return ne[0] * ne[1] * ne[2] * ne[3]; }
};

using ref_fn = std::function<std::vector<double>(const ggml_tensor * out, const std::vector<host_tensor> & src,
                                                 const host_tensor & out_before)>;

struct test_case {
    std::string                                  desc;
    double                                       max_nmse;  // 0: exact match required
    std::function<ggml_tensor *(ggml_context *)> build;
    ref_fn                                       ref;
};

inline double elem_to_double(ggml_type t, const uint8_t * p) {
    switch (t) {
        case GGML_TYPE_F32: {
            float f;
            std::memcpy(&f, p, 4);
            return f;
        }
        case GGML_TYPE_F16: {
            ggml_fp16_t h;
            std::memcpy(&h, p, 2);
            return ggml_fp16_to_fp32(h);
        }
        case GGML_TYPE_BF16: {
            ggml_bf16_t h;
            std::memcpy(&h, p, 2);
            return ggml_bf16_to_fp32(h);
        }
        case GGML_TYPE_I32: {
            int32_t i;
            std::memcpy(&i, p, 4);
            return i;
        }
        case GGML_TYPE_I64: {
            int64_t i;
            std::memcpy(&i, p, 8);
            return (double) i;
        }
        default:
            return NAN;
    }
}

// Reads tensor t (whose bytes start at base, laid out by t->nb) into logical order.
inline host_tensor read_host(const ggml_tensor * t, const uint8_t * base) {
    host_tensor h;
    for (int d = 0; d < 4; ++d)
        h.ne[d] = t->ne[d];
    h.type = t->type;
    h.v.resize((size_t) h.n());
    size_t k = 0;
    if (ggml_is_quantized(t->type)) {
        const ggml_cpu_type_traits * tr = ggml_cpu_get_type_traits(t->type);
        std::vector<float>           row((size_t) t->ne[0]);
        for (int64_t i3 = 0; i3 < t->ne[3]; ++i3)
            for (int64_t i2 = 0; i2 < t->ne[2]; ++i2)
                for (int64_t i1 = 0; i1 < t->ne[1]; ++i1) {
                    tr->to_float(base + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3], row.data(), t->ne[0]);
                    for (float f : row)
                        h.v[k++] = f;
                }
        return h;
    }
    for (int64_t i3 = 0; i3 < t->ne[3]; ++i3)
        for (int64_t i2 = 0; i2 < t->ne[2]; ++i2)
            for (int64_t i1 = 0; i1 < t->ne[1]; ++i1)
                for (int64_t i0 = 0; i0 < t->ne[0]; ++i0)
                    h.v[k++] =
                        elem_to_double(t->type, base + i0 * t->nb[0] + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3]);
    return h;
}

// Random contents of a leaf, chosen by its name prefix:
//   "ids<R>"  random ids in [0, R)        "perm<R>" distinct ids in [0, R) (needs enough room)
//   "pos"     positions in [0, 5000)      "mask"    ~25% -inf, else [-1, 1]
//   "pos+"    values in [0.1, 2]          "nz"      |x| in [0.5, 1.5] (safe divisors)
//   "few"     values from {-1, 0, 0.5, 1} (ties for argsort/argmax)   default [-1, 1]
//   "unit"    rows (dim 0) of L2 norm 1   "sig"     values in (0, 1) (gates)
//   "neg<X>"  values in [-X, 0] (log decays; X a number; "neg<X>_inf": every third one -inf)
inline std::vector<uint8_t> fill_leaf(const ggml_tensor * t, std::mt19937 & rng) {
    const std::string                     name = ggml_get_name(t);
    const int64_t                         n    = ggml_nelements(t);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float>                    f((size_t) n);
    std::vector<int64_t>                  ids;
    if (name.rfind("ids", 0) == 0 || name.rfind("perm", 0) == 0) {
        const bool    perm  = name[0] == 'p' && name[1] == 'e';
        const int64_t range = std::stoll(name.substr(perm ? 4 : 3));
        ids.resize((size_t) n);
        if (perm) {
            // distinct within each row of ids (rows of dim 0)
            std::vector<int64_t> all((size_t) range);
            for (int64_t i = 0; i < range; ++i)
                all[(size_t) i] = i;
            for (int64_t r = 0; r < n / t->ne[0]; ++r) {
                std::shuffle(all.begin(), all.end(), rng);
                for (int64_t i = 0; i < t->ne[0]; ++i)
                    ids[(size_t) (r * t->ne[0] + i)] = all[(size_t) i];
            }
        } else {
            std::uniform_int_distribution<int64_t> ui(0, range - 1);
            for (auto & x : ids)
                x = ui(rng);
        }
    } else if (name == "pos") {
        std::uniform_int_distribution<int64_t> ui(0, 4999);
        ids.resize((size_t) n);
        for (auto & x : ids)
            x = ui(rng);
    } else {
        for (auto & x : f)
            x = u(rng);
        if (name.rfind("mask", 0) == 0) {
            std::uniform_int_distribution<int> ui(0, 3);
            for (auto & x : f)
                if (ui(rng) == 0)
                    x = -INFINITY;
        } else if (name.rfind("pos+", 0) == 0) {
            for (auto & x : f)
                x = 0.1f + std::fabs(x) * 1.9f;
        } else if (name.rfind("nz", 0) == 0) {
            for (auto & x : f)
                x = (x < 0 ? -1.0f : 1.0f) * (0.5f + std::fabs(x));
        } else if (name.rfind("unit", 0) == 0) {
            for (int64_t r = 0; r < n / t->ne[0]; ++r) {
                float * row = f.data() + r * t->ne[0];
                double  ss  = 0;
                for (int64_t i = 0; i < t->ne[0]; ++i)
                    ss += (double) row[i] * row[i];
                for (int64_t i = 0; i < t->ne[0]; ++i)
                    row[i] = (float) (row[i] / std::sqrt(ss + 1e-30));
            }
        } else if (name.rfind("sig", 0) == 0) {
            for (auto & x : f)
                x = 0.5f + 0.49f * x;
        } else if (name.rfind("neg", 0) == 0) {
            const float s = std::stof(name.substr(3));
            for (auto & x : f)
                x = -s * 0.5f * (x + 1.0f);
            if (name.find("_inf") != std::string::npos)  // every third value -inf (a decay to exactly 0)
                for (size_t i = 0; i < f.size(); i += 3)
                    f[i] = -INFINITY;
        } else if (name.rfind("few", 0) == 0) {
            const float                        vals[4] = {-1.0f, 0.0f, 0.5f, 1.0f};
            std::uniform_int_distribution<int> ui(0, 3);
            for (auto & x : f)
                x = vals[ui(rng)];
        }
    }
    std::vector<uint8_t> bytes(ggml_nbytes(t));
    const ggml_type      ty = t->type;
    if (ggml_is_quantized(ty)) {
        const ggml_cpu_type_traits * tr = ggml_cpu_get_type_traits(ty);
        const size_t                 rs = ggml_row_size(ty, t->ne[0]);
        if (!tr->from_float_ref) {  // the i-quants have no quantizer yet: random blocks, RMS ~ uniform [-1, 1]'s
            std::vector<float> values;
            return iquant_blocks::random_blocks(ty, n, (uint32_t) rng(), 0.58f, values);
        }
        for (int64_t r = 0; r < n / t->ne[0]; ++r)
            tr->from_float_ref(f.data() + r * t->ne[0], bytes.data() + r * rs, t->ne[0]);
        return bytes;
    }
    const size_t es = ggml_type_size(ty);
    for (int64_t i = 0; i < n; ++i) {
        uint8_t * p = bytes.data() + (size_t) i * es;
        switch (ty) {
            case GGML_TYPE_F32:
                std::memcpy(p, &f[(size_t) i], 4);
                break;
            case GGML_TYPE_F16: {
                ggml_fp16_t h = ggml_fp32_to_fp16(f[(size_t) i]);
                std::memcpy(p, &h, 2);
                break;
            }
            case GGML_TYPE_BF16: {
                ggml_bf16_t h = ggml_fp32_to_bf16(f[(size_t) i]);
                std::memcpy(p, &h, 2);
                break;
            }
            case GGML_TYPE_I32: {
                int32_t v = ids.empty() ? (int32_t) (f[(size_t) i] * 1000) : (int32_t) ids[(size_t) i];
                std::memcpy(p, &v, 4);
                break;
            }
            case GGML_TYPE_I64: {
                int64_t v = ids.empty() ? 0 : ids[(size_t) i];
                std::memcpy(p, &v, 8);
                break;
            }
            default:
                break;
        }
    }
    return bytes;
}

struct result {
    ggml_op     op        = GGML_OP_NONE;     // the op under test (views of a computed node unwrapped)
    ggml_type   type      = GGML_TYPE_F32;    // that node's output type
    ggml_type   src0_type = GGML_TYPE_COUNT;  // its first two sources' types (COUNT: none)
    ggml_type   src1_type = GGML_TYPE_COUNT;
    ggml_type   src2_type = GGML_TYPE_COUNT;  // the third source's (flash attention's V)
    int64_t     src1_ne0  = 0;                // ne[0] of the second and third sources (attention's
    int64_t     src2_ne0  = 0;                // K and V head dims)
    bool        supported = true;
    bool        ok        = false;
    double      nmse      = 0.0;
    std::string msg;
};

// Runs one case on one backend. seed makes the inputs reproducible.
inline result run_case(ggml_backend_t be, const test_case & tc, uint32_t seed) {
    result           res;
    ggml_init_params ip{ggml_tensor_overhead() * 64 + ggml_graph_overhead(), nullptr, true};
    ggml_context *   ctx = ggml_init(ip);
    if (!ctx) {
        res.msg = "ggml_init failed";
        return res;
    }
    struct ctx_guard {
        ggml_context * c;
        ~ctx_guard() { ggml_free(c); }
    } cg{ctx};

    ggml_tensor * out = tc.build(ctx);
    if (!out) {
        res.msg = "build returned NULL";
        return res;
    }
    ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, out);
    if (!ggml_graph_is_ok(gf)) {
        res.msg = "graph build failed";
        return res;
    }
    {
        const ggml_tensor * o = out;
        while (o->op == GGML_OP_VIEW && o->src[0] && o->src[0]->op != GGML_OP_NONE)
            o = o->src[0];
        res.op        = o->op;
        res.type      = o->type;
        res.src0_type = o->src[0] ? o->src[0]->type : GGML_TYPE_COUNT;
        res.src1_type = o->src[1] ? o->src[1]->type : GGML_TYPE_COUNT;
        res.src2_type = o->src[2] ? o->src[2]->type : GGML_TYPE_COUNT;
        res.src1_ne0  = o->src[1] ? o->src[1]->ne[0] : 0;
        res.src2_ne0  = o->src[2] ? o->src[2]->ne[0] : 0;
    }
    for (int i = 0; i < ggml_graph_n_nodes(gf); ++i) {
        if (!ggml_backend_supports_op(be, ggml_graph_node(gf, i))) {
            res.supported = false;
            return res;
        }
    }
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, be);
    if (!buf) {
        res.msg = "alloc failed";
        return res;
    }
    struct buf_guard {
        ggml_backend_buffer_t b;
        ~buf_guard() { ggml_backend_buffer_free(b); }
    } bg{buf};

    std::mt19937                                        rng(seed);
    std::map<const ggml_tensor *, std::vector<uint8_t>> host;  // leaf -> bytes
    for (ggml_tensor * t = ggml_get_first_tensor(ctx); t; t = ggml_get_next_tensor(ctx, t)) {
        if (t->op == GGML_OP_NONE && !t->view_src) {
            host[t] = fill_leaf(t, rng);
            ggml_backend_tensor_set(t, host[t].data(), 0, host[t].size());
        }
    }
    auto view_of = [&](const ggml_tensor * t) -> host_tensor {
        const ggml_tensor * base = t->view_src ? t->view_src : t;
        auto                it   = host.find(base);
        if (it == host.end())
            return host_tensor{};
        return read_host(t, it->second.data() + (t->view_src ? t->view_offs : 0));
    };
    // a view of a computed node (top_k views an argsort) is checked against that node's sources
    const ggml_tensor * op = out;
    while (op->op == GGML_OP_VIEW && op->src[0] && op->src[0]->op != GGML_OP_NONE)
        op = op->src[0];
    std::vector<host_tensor> srcs;
    for (int i = 0; i < GGML_MAX_SRC && op->src[i]; ++i)
        srcs.push_back(view_of(op->src[i]));
    host_tensor before = out->view_src ? view_of(out) : host_tensor{};

    const ggml_status st = ggml_backend_graph_compute(be, gf);
    if (st != GGML_STATUS_SUCCESS) {
        res.msg = std::string("compute: ") + ggml_status_to_string(st);
        return res;
    }

    const ggml_tensor *  base = out->view_src ? out->view_src : out;
    std::vector<uint8_t> got_bytes(ggml_nbytes(base));
    ggml_backend_tensor_get(base, got_bytes.data(), 0, got_bytes.size());
    const host_tensor   got  = read_host(out, got_bytes.data() + (out->view_src ? out->view_offs : 0));
    std::vector<double> want = tc.ref(out, srcs, before);
    if (want.size() != got.v.size()) {
        res.msg = "reference size mismatch";
        return res;
    }

    double err = 0.0, norm = 0.0;
    size_t bad = SIZE_MAX;
    for (size_t i = 0; i < want.size(); ++i) {
        const double a = got.v[i], b = want[i];
        if (std::isnan(a) != std::isnan(b) || (std::isinf(b) && a != b)) {
            bad = i;
            break;
        }
        if (std::isnan(b) || std::isinf(b))
            continue;
        err += (a - b) * (a - b);
        norm += b * b;
        if (tc.max_nmse == 0.0 && a != b && bad == SIZE_MAX)
            bad = i;
    }
    res.nmse = norm > 0 ? err / norm : err;
    std::ostringstream os;
    if (bad != SIZE_MAX) {
        os << "element " << bad << ": got " << got.v[bad] << ", want " << want[bad];
        res.msg = os.str();
        return res;
    }
    res.ok = res.nmse <= tc.max_nmse;
    if (!res.ok) {
        os << "nmse " << res.nmse << " > " << tc.max_nmse;
        res.msg = os.str();
    }
    return res;
}

}  // namespace op_harness
