// ggml core: contexts, tensor utilities, every op constructor (a valid case and misuse cases), views
// and graphs. Misuse must return NULL and log "[op] ..." through the log callback.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "ggml-backend.h"
#include "ggml-impl.h"
#include "ggml-op-table.h"
#include "ggml-type-table.h"
#include "ggml.h"

namespace {

struct log_capture {
    std::vector<std::string> errors;
    int                      other = 0;
};

void capture_cb(enum ggml_log_level level, const char * text, void * ud) {
    auto * cap = static_cast<log_capture *>(ud);
    if (level == GGML_LOG_LEVEL_ERROR) {
        cap->errors.emplace_back(text);
    } else {
        cap->other++;
    }
}

class GgmlCore : public ::testing::Test {
protected:
    void SetUp() override {
        ggml_log_set(capture_cb, &log);
        ggml_init_params p = {64u << 20, nullptr, false};
        ctx                = ggml_init(p);
        ASSERT_NE(ctx, nullptr);
    }
    void TearDown() override {
        ggml_free(ctx);
        ggml_log_set(nullptr, nullptr);
    }

    ggml_tensor * f32(int64_t a, int64_t b = 1, int64_t c = 1, int64_t d = 1) {
        return ggml_new_tensor_4d(ctx, GGML_TYPE_F32, a, b, c, d);
    }
    ggml_tensor * typed(ggml_type t, int64_t a, int64_t b = 1, int64_t c = 1, int64_t d = 1) {
        return ggml_new_tensor_4d(ctx, t, a, b, c, d);
    }

    // Expects t == NULL and exactly one new error starting with "[op] ".
    void expect_fail(ggml_tensor * t, const std::string & op) {
        EXPECT_EQ(t, nullptr) << "op " << op << " accepted bad input";
        ASSERT_EQ(log.errors.size(), 1u) << "op " << op << ": expected one error";
        EXPECT_EQ(log.errors[0].rfind("[" + op + "] ", 0), 0u) << "got: " << log.errors[0];
        log.errors.clear();
    }
    void expect_ok(ggml_tensor * t) {
        EXPECT_NE(t, nullptr);
        for (auto & e : log.errors) {
            ADD_FAILURE() << "unexpected error: " << e;
        }
        log.errors.clear();
    }
    static void expect_shape(const ggml_tensor * t, int64_t a, int64_t b, int64_t c, int64_t d) {
        ASSERT_NE(t, nullptr);
        EXPECT_EQ(t->ne[0], a);
        EXPECT_EQ(t->ne[1], b);
        EXPECT_EQ(t->ne[2], c);
        EXPECT_EQ(t->ne[3], d);
    }

    log_capture    log;
    ggml_context * ctx = nullptr;
};

// ---------------------------------------------------------------------------------------------
// the core op table (ggml-op-table.h)

TEST(GgmlOpTable, RowsMatchTheEnum) {
    for (int i = 0; i < GGML_OP_COUNT; i++) {
        const ggml_op_info * info = ggml_op_get_info((ggml_op) i);
        ASSERT_NE(info, nullptr);
        EXPECT_EQ(info->op, (ggml_op) i);
        EXPECT_STREQ(info->name, ggml_op_name((ggml_op) i));
        EXPECT_LE(info->min_src, info->max_src);
    }
    EXPECT_EQ(ggml_op_get_info(GGML_OP_COUNT), nullptr);
    EXPECT_EQ(ggml_op_get_info((ggml_op) -1), nullptr);
    for (ggml_op op : {GGML_OP_NONE, GGML_OP_VIEW, GGML_OP_RESHAPE, GGML_OP_PERMUTE, GGML_OP_TRANSPOSE})
        EXPECT_TRUE(ggml_op_is_noop(op)) << ggml_op_name(op);
    for (ggml_op op : {GGML_OP_CPY, GGML_OP_SET_ROWS, GGML_OP_MUL_MAT, GGML_OP_L2_NORM})
        EXPECT_FALSE(ggml_op_is_noop(op)) << ggml_op_name(op);
}

// Nodes the constructors build follow their op's rule; a node broken by hand (a missing input, a
// shape the op cannot produce, an input it does not read) does not, and no backend is offered it.
TEST(GgmlOpTable, NodeValidityAndTheSupportsGate) {
    ggml_init_params ip{ggml_tensor_overhead() * 32, nullptr, true};
    ggml_context *   ctx = ggml_init(ip);
    ASSERT_NE(ctx, nullptr);
    ggml_tensor * a  = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 8, 3);
    ggml_tensor * w  = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 8, 5);
    ggml_tensor * mm = ggml_mul_mat(ctx, w, a);
    ggml_tensor * n  = ggml_l2_norm(ctx, a, 1e-6f);
    ggml_tensor * s  = ggml_sum_rows(ctx, a);
    ggml_tensor * v  = ggml_view_2d(ctx, a, 4, 3, a->nb[1], 16);
    ggml_tensor * r  = ggml_reshape_1d(ctx, a, 24);
    ASSERT_TRUE(mm && n && s && v && r);
    EXPECT_EQ(ggml_l2_norm(ctx, a, -1.0f), nullptr);  // eps < 0 refused by the constructor
    for (ggml_tensor * t : {a, mm, n, s, v, r})
        EXPECT_TRUE(ggml_op_node_valid(t)) << ggml_op_name(t->op);

    ggml_backend_dev_t cpu = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
    ASSERT_NE(cpu, nullptr);
    EXPECT_TRUE(ggml_backend_dev_supports_op(cpu, n));
    EXPECT_TRUE(ggml_backend_dev_supports_op(cpu, mm));

    n->ne[0] = 7;  // not src[0]'s shape
    EXPECT_FALSE(ggml_op_node_valid(n));
    EXPECT_FALSE(ggml_backend_dev_supports_op(cpu, n));
    n->ne[0]  = 8;
    n->src[1] = w;  // an input L2_NORM never reads
    EXPECT_FALSE(ggml_op_node_valid(n));
    n->src[1] = nullptr;
    EXPECT_TRUE(ggml_op_node_valid(n));

    mm->src[1] = nullptr;  // MUL_MAT without its activations
    EXPECT_FALSE(ggml_op_node_valid(mm));
    EXPECT_FALSE(ggml_backend_dev_supports_op(cpu, mm));
    mm->src[1] = a;
    mm->ne[1]  = 4;  // not {w.ne1, a.ne1, ...}
    EXPECT_FALSE(ggml_op_node_valid(mm));

    s->ne[0] = 2;  // a row sum has one column
    EXPECT_FALSE(ggml_op_node_valid(s));
    r->ne[0] = 25;  // a reshape keeps the element count
    EXPECT_FALSE(ggml_op_node_valid(r));
    v->view_offs = ggml_nbytes(a);  // a window past the end of its memory
    EXPECT_FALSE(ggml_op_node_valid(v));

    ggml_tensor bad = *n;
    bad.op          = GGML_OP_COUNT;
    EXPECT_FALSE(ggml_op_node_valid(&bad));
    EXPECT_FALSE(ggml_backend_dev_supports_op(cpu, &bad));
    ggml_free(ctx);
}

// ---------------------------------------------------------------------------------------------
// the type table (ggml-type-table.h)

// Every type id has a row or none at all; each quantized weight type round-trips through its codecs
// and its reference dot agrees with the dot of the dequantized rows; the public entry points refuse
// what the flags say they must.
TEST(GgmlTypeTable, RowsCodecsAndFlags) {
    const int64_t      n = 512;
    std::vector<float> x(n), y(n), back(n);
    for (int64_t i = 0; i < n; i++) {
        x[i] = std::sin(0.37f * (float) i) * (1.0f + (float) (i % 7));
        y[i] = std::cos(0.11f * (float) i);
    }
    int n_quant = 0;
    for (int i = 0; i < GGML_TYPE_COUNT; i++) {
        const ggml_type         t = (ggml_type) i;
        const ggml_type_codec * c = ggml_get_type_codec(t);
        EXPECT_EQ(c != nullptr, ggml_type_is_valid(t)) << i;
        if (!c)
            continue;
        EXPECT_EQ(c->type, t);
        if (!c->dequantize) {  // integer types
            EXPECT_FALSE(ggml_is_quantized(t)) << ggml_type_name(t);
            EXPECT_EQ(c->vec_dot_ref, nullptr);
            continue;
        }
        ASSERT_NE(c->vec_dot_ref, nullptr) << ggml_type_name(t);
        const ggml_type_codec * act = ggml_get_type_codec(c->vec_dot_type);
        ASSERT_TRUE(act && act->quantize) << ggml_type_name(t);
        std::vector<uint8_t> q(ggml_row_size(t, n)), yq(ggml_row_size(c->vec_dot_type, n));
        const bool           weight = !(c->flags & GGML_TYPEF_ACTIVATION);
        const bool           needs  = (c->flags & GGML_TYPEF_NEEDS_IMATRIX) != 0;
        EXPECT_EQ(ggml_quantize_requires_imatrix(t), needs) << ggml_type_name(t);
        if (!weight) {
            EXPECT_EQ(ggml_quantize_chunk(t, x.data(), q.data(), 0, 1, n, nullptr), 0u) << ggml_type_name(t);
            EXPECT_FALSE(ggml_dequantize_row(t, q.data(), back.data(), n)) << ggml_type_name(t);
            continue;
        }
        std::vector<float> imat(n, 1.0f);
        ASSERT_EQ(ggml_quantize_chunk(t, x.data(), q.data(), 0, 1, n, needs ? imat.data() : nullptr), q.size())
            << ggml_type_name(t);
        ASSERT_TRUE(ggml_dequantize_row(t, q.data(), back.data(), n));
        double err = 0, ref = 0, dot_deq = 0;
        for (int64_t i = 0; i < n; i++) {
            err += (x[i] - back[i]) * (x[i] - back[i]);
            ref += x[i] * x[i];
            dot_deq += (double) back[i] * y[i];
        }
        EXPECT_LT(err / ref, 0.2) << ggml_type_name(t);  // ternary TQ types are the coarsest
        act->quantize(y.data(), yq.data(), n);
        float dot = 0;
        c->vec_dot_ref((int) n, &dot, q.data(), yq.data());
        EXPECT_NEAR(dot, dot_deq, 0.02 * std::sqrt(ref * n) + 1e-3) << ggml_type_name(t);
        n_quant += ggml_is_quantized(t);
    }
    EXPECT_GE(n_quant, 20);
}

// ---------------------------------------------------------------------------------------------
// names

TEST(GgmlNames, TablesAreCompleteAndUnique) {
    std::set<std::string> names;
    for (int i = 0; i < GGML_OP_COUNT; i++) {
        const char * n = ggml_op_name((ggml_op) i);
        ASSERT_NE(n, nullptr);
        EXPECT_STRNE(n, "invalid");
        names.insert(n);
    }
    EXPECT_EQ(names.size(), (size_t) GGML_OP_COUNT);
    EXPECT_STREQ(ggml_op_name(GGML_OP_MUL_MAT), "MUL_MAT");
    EXPECT_STREQ(ggml_op_name(GGML_OP_GLU), "GLU");
    EXPECT_STREQ(ggml_op_name(GGML_OP_COUNT), "invalid");
    EXPECT_STREQ(ggml_op_name((ggml_op) -1), "invalid");
    EXPECT_STREQ(ggml_unary_op_name(GGML_UNARY_OP_SILU), "silu");
    EXPECT_STREQ(ggml_unary_op_name(GGML_UNARY_OP_EXP), "exp");
    EXPECT_STREQ(ggml_unary_op_name(GGML_UNARY_OP_SOFTPLUS), "softplus");
    EXPECT_STREQ(ggml_unary_op_name(GGML_UNARY_OP_COUNT), "invalid");
    EXPECT_STREQ(ggml_glu_op_name(GGML_GLU_OP_SWIGLU), "swiglu");
    EXPECT_STREQ(ggml_glu_op_name(GGML_GLU_OP_GEGLU_ERF), "geglu_erf");
    EXPECT_STREQ(ggml_glu_op_name((ggml_glu_op) 7), "invalid");
}

// ---------------------------------------------------------------------------------------------
// contexts

TEST_F(GgmlCore, NoAllocContextUsesExactlyTheOverhead) {
    ggml_init_params p = {10 * ggml_tensor_overhead(), nullptr, true};
    ggml_context *   c = ggml_init(p);
    ASSERT_NE(c, nullptr);
    EXPECT_TRUE(ggml_get_no_alloc(c));
    for (int i = 0; i < 10; i++) {
        ggml_tensor * t = ggml_new_tensor_2d(c, GGML_TYPE_F32, 4096, 4096);
        ASSERT_NE(t, nullptr) << i;
        EXPECT_EQ(t->data, nullptr);
        EXPECT_EQ(ggml_used_mem(c), (size_t) (i + 1) * ggml_tensor_overhead());
    }
    expect_fail(ggml_new_tensor_1d(c, GGML_TYPE_F32, 1), "new_tensor");
    // ops report the exhaustion under their own name
    ggml_tensor * a = ggml_get_first_tensor(c);
    expect_fail(ggml_scale(c, a, 2.0f), "scale");
    ggml_reset(c);
    EXPECT_EQ(ggml_used_mem(c), 0u);
    EXPECT_EQ(ggml_get_first_tensor(c), nullptr);
    EXPECT_NE(ggml_new_tensor_1d(c, GGML_TYPE_F32, 1), nullptr);
    ggml_free(c);
}

TEST_F(GgmlCore, CallerBufferAndAllocatedData) {
    std::vector<uint8_t> mem(1 << 16);
    ggml_init_params     p = {mem.size(), mem.data(), false};
    ggml_context *       c = ggml_init(p);
    ASSERT_NE(c, nullptr);
    ggml_tensor * t = ggml_new_tensor_2d(c, GGML_TYPE_F32, 16, 8);
    ASSERT_NE(t, nullptr);
    ASSERT_NE(t->data, nullptr);
    EXPECT_GE((uint8_t *) t->data, mem.data());
    EXPECT_LE((uint8_t *) t->data + ggml_nbytes(t), mem.data() + mem.size());
    EXPECT_EQ((uintptr_t) t->data % GGML_MEM_ALIGN, 0u);
    EXPECT_EQ(ggml_get_data_f32(t), (float *) t->data);
    // data does not overlap the next object
    ggml_tensor * u = ggml_new_tensor_1d(c, GGML_TYPE_F32, 4);
    ASSERT_NE(u, nullptr);
    EXPECT_GE((uint8_t *) u, (uint8_t *) t->data + ggml_nbytes(t));
    EXPECT_EQ(ggml_used_mem(c), 2 * ggml_tensor_overhead() + 16 * 8 * 4 + 16);
    expect_fail(ggml_new_tensor_1d(c, GGML_TYPE_F32, 1 << 16), "new_tensor");
    ggml_free(c);
    ggml_free(nullptr);  // no-op
}

TEST_F(GgmlCore, TensorIterationAndLookup) {
    ggml_tensor * a = ggml_set_name(f32(4), "a");
    ggml_tensor * b = ggml_set_name(f32(8), "b");
    ggml_cgraph * g = ggml_new_graph(ctx);  // non-tensor objects are skipped by iteration
    ASSERT_NE(g, nullptr);
    ggml_tensor * c = ggml_format_name(f32(2), "c%d", 3);
    EXPECT_EQ(ggml_get_first_tensor(ctx), a);
    EXPECT_EQ(ggml_get_next_tensor(ctx, a), b);
    EXPECT_EQ(ggml_get_next_tensor(ctx, b), c);
    EXPECT_EQ(ggml_get_next_tensor(ctx, c), nullptr);
    EXPECT_EQ(ggml_get_tensor(ctx, "c3"), c);
    EXPECT_EQ(ggml_get_tensor(ctx, "zz"), nullptr);
    std::string long_name(200, 'x');
    ggml_set_name(a, long_name.c_str());
    EXPECT_EQ(strlen(ggml_get_name(a)), (size_t) GGML_MAX_NAME - 1);
}

TEST_F(GgmlCore, NewTensorValidation) {
    int64_t ne[4] = {4, -1, 1, 1};
    expect_fail(ggml_new_tensor(ctx, GGML_TYPE_F32, 2, ne), "new_tensor");
    expect_fail(ggml_new_tensor(ctx, GGML_TYPE_F32, 0, ne), "new_tensor");
    expect_fail(ggml_new_tensor(ctx, GGML_TYPE_F32, 5, ne), "new_tensor");
    expect_fail(ggml_new_tensor_1d(ctx, (ggml_type) 4, 4), "new_tensor");
    expect_fail(ggml_new_tensor_1d(ctx, GGML_TYPE_COUNT, 4), "new_tensor");
    expect_fail(ggml_new_tensor_1d(ctx, GGML_TYPE_Q4_0, 33), "new_tensor");
    expect_fail(ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 1ll << 40, 1ll << 40, 1, 1), "new_tensor");
    expect_fail(ggml_new_tensor_1d(nullptr, GGML_TYPE_F32, 4), "new_tensor");
    ggml_tensor * t = ggml_new_tensor_3d(ctx, GGML_TYPE_F16, 5, 3, 2);
    expect_shape(t, 5, 3, 2, 1);
    EXPECT_EQ(t->nb[0], 2u);
    EXPECT_EQ(t->nb[1], 10u);
    EXPECT_EQ(t->nb[2], 30u);
    EXPECT_EQ(t->nb[3], 60u);
    EXPECT_EQ(t->op, GGML_OP_NONE);
    ggml_tensor * z = f32(0, 3);
    expect_ok(z);
    EXPECT_TRUE(ggml_is_empty(z));
    EXPECT_EQ(ggml_nbytes(z), 0u);
    ggml_tensor * d = ggml_dup_tensor(ctx, t);
    expect_shape(d, 5, 3, 2, 1);
    EXPECT_EQ(d->type, GGML_TYPE_F16);
    ggml_set_input(d);
    ggml_set_output(d);
    EXPECT_EQ(d->flags, GGML_TENSOR_FLAG_INPUT | GGML_TENSOR_FLAG_OUTPUT);
}

TEST_F(GgmlCore, SizesAndContiguity) {
    ggml_tensor * a = f32(6, 5, 4, 3);
    EXPECT_EQ(ggml_nelements(a), 360);
    EXPECT_EQ(ggml_nrows(a), 60);
    EXPECT_EQ(ggml_nbytes(a), 360u * 4);
    EXPECT_EQ(ggml_n_dims(a), 4);
    EXPECT_EQ(ggml_n_dims(f32(6, 5)), 2);
    EXPECT_EQ(ggml_n_dims(f32(6, 1, 1, 1)), 1);
    EXPECT_EQ(ggml_n_dims(f32(6, 1, 2, 1)), 3);
    EXPECT_TRUE(ggml_is_contiguous(a));
    EXPECT_FALSE(ggml_is_permuted(a));

    // quantized: Q4_0 has 32-element blocks of 18 bytes
    ggml_tensor * q = typed(GGML_TYPE_Q4_0, 64, 3);
    EXPECT_EQ(q->nb[0], 18u);
    EXPECT_EQ(q->nb[1], 36u);
    EXPECT_EQ(ggml_nbytes(q), 108u);
    EXPECT_EQ(ggml_row_size(GGML_TYPE_Q4_0, 64), 36u);
    EXPECT_TRUE(ggml_is_contiguous(q));
    ggml_tensor * qk = typed(GGML_TYPE_Q4_K, 512, 2, 2);
    EXPECT_EQ(ggml_nbytes(qk), 2u * 144 * 2 * 2);

    // strided views: transposed spans the whole source; a row-window spans less
    ggml_tensor * t = ggml_transpose(ctx, f32(6, 5));
    EXPECT_EQ(ggml_nbytes(t), 120u);
    EXPECT_TRUE(ggml_is_transposed(t));
    EXPECT_TRUE(ggml_is_permuted(t));
    EXPECT_FALSE(ggml_is_contiguous(t));
    EXPECT_FALSE(ggml_is_contiguous_rows(t));
    ggml_tensor * src = f32(10, 4);
    ggml_tensor * w   = ggml_view_2d(ctx, src, 3, 4, src->nb[1], 2 * 4);
    EXPECT_EQ(ggml_nbytes(w), 132u);  // 3 elements of the last row (12 bytes) + 3 row strides of 40
    EXPECT_FALSE(ggml_is_contiguous(w));
    EXPECT_TRUE(ggml_is_contiguous_rows(w));
    // a quantized view of half the rows
    ggml_tensor * qv = ggml_view_2d(ctx, q, 32, 3, q->nb[1], 18);
    ASSERT_NE(qv, nullptr);
    EXPECT_EQ(ggml_nbytes(qv), 18u + 2 * 36);
    // dims of extent 1 may have any stride
    ggml_tensor * one = ggml_view_4d(ctx, src, 10, 1, 1, 1, 999, 999, 999, 0);
    EXPECT_TRUE(ggml_is_contiguous(one));

    EXPECT_TRUE(ggml_can_repeat(f32(6, 1, 4, 1), a));
    EXPECT_FALSE(ggml_can_repeat(f32(4), a));
    EXPECT_TRUE(ggml_are_same_shape(a, f32(6, 5, 4, 3)));
}

// ---------------------------------------------------------------------------------------------
// views

TEST_F(GgmlCore, ViewsShareMemoryAndAccumulateOffsets) {
    ggml_tensor * a = f32(8, 6, 4);
    ggml_tensor * v = ggml_view_2d(ctx, a, 8, 3, a->nb[1], a->nb[2]);
    expect_ok(v);
    EXPECT_EQ(v->op, GGML_OP_VIEW);
    EXPECT_EQ(v->src[0], a);
    EXPECT_EQ(v->view_src, a);
    EXPECT_EQ(v->view_offs, a->nb[2]);
    EXPECT_EQ(v->data, (char *) a->data + a->nb[2]);
    size_t offs;
    memcpy(&offs, v->op_params, sizeof(offs));
    EXPECT_EQ(offs, a->nb[2]);

    ggml_tensor * vv = ggml_view_1d(ctx, v, 4, 2 * 4 + v->nb[1]);
    expect_ok(vv);
    EXPECT_EQ(vv->src[0], v);
    EXPECT_EQ(vv->view_src, a);  // the ultimate source
    EXPECT_EQ(vv->view_offs, a->nb[2] + v->nb[1] + 8);
    EXPECT_EQ(vv->data, (char *) a->data + vv->view_offs);
    memcpy(&offs, vv->op_params, sizeof(offs));
    EXPECT_EQ(offs, v->nb[1] + 8);  // relative to the direct source

    // bounds are checked against the memory that exists
    expect_fail(ggml_view_1d(ctx, a, 8 * 6 * 4 + 1, 0), "view");
    expect_fail(ggml_view_1d(ctx, a, 4, ggml_nbytes(a) - 12), "view");
    expect_ok(ggml_view_1d(ctx, a, 3, ggml_nbytes(a) - 12));
    expect_fail(ggml_view_2d(ctx, a, 8, 25, a->nb[1], 0), "view");
    expect_fail(ggml_view_1d(ctx, a, -1, 0), "view");
    expect_fail(ggml_view_1d(ctx, typed(GGML_TYPE_Q8_0, 64), 16, 0), "view");
    expect_fail(ggml_view_2d(ctx, a, 8, 2, SIZE_MAX / 2, 0), "view");
    // a view extending past its direct source but inside the ultimate source is legal
    expect_ok(ggml_view_1d(ctx, v, 8 * 4, 0));

    ggml_tensor * vt = ggml_view_tensor(ctx, a);
    expect_ok(vt);
    EXPECT_EQ(vt->op, GGML_OP_VIEW);
    EXPECT_EQ(vt->data, a->data);
    EXPECT_EQ(vt->nb[2], a->nb[2]);

    // no_alloc: views carry no data until their source is allocated
    ggml_init_params p  = {16 * ggml_tensor_overhead(), nullptr, true};
    ggml_context *   na = ggml_init(p);
    ggml_tensor *    x  = ggml_new_tensor_1d(na, GGML_TYPE_F32, 16);
    ggml_tensor *    xv = ggml_view_1d(na, x, 4, 8);
    expect_ok(xv);
    EXPECT_EQ(xv->data, nullptr);
    EXPECT_EQ(xv->view_src, x);
    ggml_free(na);
}

TEST_F(GgmlCore, ReshapePermuteTranspose) {
    ggml_tensor * a = f32(6, 4, 2);
    ggml_tensor * r = ggml_reshape_2d(ctx, a, 12, 4);
    expect_ok(r);
    expect_shape(r, 12, 4, 1, 1);
    EXPECT_EQ(r->op, GGML_OP_RESHAPE);
    EXPECT_EQ(r->view_src, a);
    EXPECT_EQ(r->data, a->data);
    EXPECT_EQ(r->nb[1], 48u);
    expect_shape(ggml_reshape_1d(ctx, a, 48), 48, 1, 1, 1);
    expect_shape(ggml_reshape_3d(ctx, a, 2, 3, 8), 2, 3, 8, 1);
    expect_shape(ggml_reshape_4d(ctx, a, 2, 3, 4, 2), 2, 3, 4, 2);
    expect_fail(ggml_reshape_2d(ctx, a, 5, 4), "reshape");
    expect_fail(ggml_reshape_1d(ctx, ggml_transpose(ctx, a), 48), "reshape");
    expect_fail(ggml_reshape_1d(ctx, a, -48), "reshape");
    // reshape of a contiguous view keeps its offset
    ggml_tensor * sub = ggml_view_2d(ctx, a, 6, 4, a->nb[1], a->nb[2]);
    ggml_tensor * rs  = ggml_reshape_1d(ctx, sub, 24);
    expect_ok(rs);
    EXPECT_EQ(rs->view_offs, a->nb[2]);
    EXPECT_EQ(rs->view_src, a);

    ggml_tensor * p = ggml_permute(ctx, a, 2, 0, 1, 3);  // dim0 -> 2, dim1 -> 0, dim2 -> 1
    expect_ok(p);
    expect_shape(p, 4, 2, 6, 1);
    EXPECT_EQ(p->nb[0], a->nb[1]);
    EXPECT_EQ(p->nb[1], a->nb[2]);
    EXPECT_EQ(p->nb[2], a->nb[0]);
    EXPECT_EQ(p->op, GGML_OP_PERMUTE);
    EXPECT_EQ(p->op_params[0], 2);
    EXPECT_EQ(p->op_params[1], 0);
    EXPECT_EQ(p->op_params[2], 1);
    EXPECT_EQ(p->op_params[3], 3);
    EXPECT_EQ(p->data, a->data);
    expect_fail(ggml_permute(ctx, a, 0, 0, 1, 2), "permute");
    expect_fail(ggml_permute(ctx, a, 0, 1, 2, 4), "permute");
    expect_fail(ggml_permute(ctx, a, -1, 1, 2, 3), "permute");

    ggml_tensor * t = ggml_transpose(ctx, a);
    expect_shape(t, 4, 6, 2, 1);
    EXPECT_EQ(t->op, GGML_OP_TRANSPOSE);
    EXPECT_EQ(t->nb[0], a->nb[1]);
    EXPECT_EQ(t->nb[1], a->nb[0]);
    ggml_tensor * tt = ggml_transpose(ctx, t);
    EXPECT_TRUE(ggml_is_contiguous(tt));
    EXPECT_EQ(tt->view_src, a);
}

// ---------------------------------------------------------------------------------------------
// op constructors: one valid case each (shape, type, op, sources, params) and misuse cases

TEST_F(GgmlCore, NullSourcesPropagateSilently) {
    ggml_tensor *              a = f32(4, 4);
    ggml_tensor *              n = nullptr;
    std::vector<ggml_tensor *> r = {
        ggml_dup(ctx, n),
        ggml_add(ctx, a, n),
        ggml_sub(ctx, n, a),
        ggml_mul(ctx, n, n),
        ggml_div(ctx, a, n),
        ggml_sqr(ctx, n),
        ggml_sqrt(ctx, n),
        ggml_sum_rows(ctx, n),
        ggml_mean(ctx, n),
        ggml_argmax(ctx, n),
        ggml_scale(ctx, n, 1),
        ggml_scale_bias(ctx, n, 1, 2),
        ggml_clamp(ctx, n, 0, 1),
        ggml_norm(ctx, n, 1e-5f),
        ggml_rms_norm(ctx, n, 1e-5f),
        ggml_mul_mat(ctx, n, a),
        ggml_mul_mat_id(ctx, a, a, n),
        ggml_get_rows(ctx, a, n),
        ggml_set_rows(ctx, a, n, a),
        ggml_cpy(ctx, n, a),
        ggml_cont(ctx, n),
        ggml_cont_2d(ctx, n, 1, 1),
        ggml_cont_4d(ctx, n, 1, 1, 1, 1),
        ggml_reshape_1d(ctx, n, 1),
        ggml_reshape_2d(ctx, n, 1, 1),
        ggml_reshape_3d(ctx, n, 1, 1, 1),
        ggml_reshape_4d(ctx, n, 1, 1, 1, 1),
        ggml_view_1d(ctx, n, 1, 0),
        ggml_view_2d(ctx, n, 1, 1, 4, 0),
        ggml_view_3d(ctx, n, 1, 1, 1, 4, 4, 0),
        ggml_view_4d(ctx, n, 1, 1, 1, 1, 4, 4, 4, 0),
        ggml_view_tensor(ctx, n),
        ggml_permute(ctx, n, 0, 1, 2, 3),
        ggml_transpose(ctx, n),
        ggml_concat(ctx, a, n, 0),
        ggml_rope(ctx, n, a, 4, 0),
        ggml_rope_ext(ctx, a, n, nullptr, 4, 0, 0, 1e4f, 1, 0, 1, 32, 1),
        ggml_soft_max(ctx, n),
        ggml_soft_max_ext(ctx, n, a, 1, 0),
        ggml_flash_attn_ext(ctx, a, n, a, nullptr, 1, 0, 0),
        ggml_argsort(ctx, n, GGML_SORT_ORDER_ASC),
        ggml_top_k(ctx, n, 1),
        ggml_unary(ctx, n, GGML_UNARY_OP_RELU),
        ggml_relu(ctx, n),
        ggml_tanh(ctx, n),
        ggml_sigmoid(ctx, n),
        ggml_silu(ctx, n),
        ggml_gelu(ctx, n),
        ggml_gelu_erf(ctx, n),
        ggml_neg(ctx, n),
        ggml_exp(ctx, n),
        ggml_glu(ctx, n, GGML_GLU_OP_SWIGLU, false),
        ggml_glu_split(ctx, a, n, GGML_GLU_OP_GEGLU),
        ggml_swiglu_split(ctx, n, a),
        ggml_geglu_split(ctx, a, n),
        ggml_dup_tensor(ctx, n),
        ggml_set_name(n, "x"),
    };
    for (size_t i = 0; i < r.size(); i++) {
        EXPECT_EQ(r[i], nullptr) << "case " << i;
    }
    EXPECT_TRUE(log.errors.empty()) << log.errors[0];
}

TEST_F(GgmlCore, DupContCpy) {
    ggml_tensor * a = ggml_transpose(ctx, typed(GGML_TYPE_F16, 6, 4));
    ggml_tensor * d = ggml_dup(ctx, a);
    expect_ok(d);
    expect_shape(d, 4, 6, 1, 1);
    EXPECT_EQ(d->type, GGML_TYPE_F16);
    EXPECT_EQ(d->op, GGML_OP_DUP);
    EXPECT_EQ(d->src[0], a);
    EXPECT_TRUE(ggml_is_contiguous(d));

    ggml_tensor * c = ggml_cont(ctx, a);
    expect_ok(c);
    EXPECT_EQ(c->op, GGML_OP_CONT);
    EXPECT_TRUE(ggml_is_contiguous(c));
    EXPECT_EQ(c->view_src, nullptr);
    expect_shape(ggml_cont_2d(ctx, a, 24, 1), 24, 1, 1, 1);
    expect_shape(ggml_cont_4d(ctx, a, 2, 3, 2, 2), 2, 3, 2, 2);
    expect_fail(ggml_cont_2d(ctx, a, 5, 5), "cont");
    expect_fail(ggml_cont_4d(ctx, a, 24, 1, 1, -1), "cont");

    // cpy returns a view of the destination recording the copy
    ggml_tensor * dst = typed(GGML_TYPE_F16, 64, 4);
    ggml_tensor * dv  = ggml_view_2d(ctx, dst, 32, 4, dst->nb[1], 32 * 2);
    ggml_tensor * src = f32(32, 4);
    ggml_tensor * cp  = ggml_cpy(ctx, src, dv);
    expect_ok(cp);
    EXPECT_EQ(cp->op, GGML_OP_CPY);
    EXPECT_EQ(cp->src[0], src);
    EXPECT_EQ(cp->src[1], dv);
    EXPECT_EQ(cp->view_src, dst);
    EXPECT_EQ(cp->view_offs, 64u);
    EXPECT_EQ(cp->data, dv->data);
    EXPECT_EQ(cp->type, GGML_TYPE_F16);
    EXPECT_EQ(cp->nb[1], dst->nb[1]);
    expect_shape(cp, 32, 4, 1, 1);
    expect_ok(ggml_cpy(ctx, typed(GGML_TYPE_BF16, 128), f32(128)));
    expect_ok(ggml_cpy(ctx, f32(64, 2), typed(GGML_TYPE_Q8_0, 128)));
    expect_fail(ggml_cpy(ctx, f32(5), f32(6)), "cpy");
    expect_ok(ggml_cpy(ctx, typed(GGML_TYPE_Q8_0, 32), f32(32)));
    // a quantized side is rows of whole blocks: the rope part of a latent K row (a strided view) is,
    // a transposed quantized tensor is not
    ggml_tensor * lat = typed(GGML_TYPE_Q4_0, 96, 5);
    expect_ok(ggml_cpy(ctx, ggml_view_2d(ctx, lat, 32, 5, lat->nb[1], ggml_row_size(GGML_TYPE_Q4_0, 64)), f32(32, 5)));
    expect_ok(ggml_cpy(ctx, f32(32, 5), ggml_view_2d(ctx, lat, 32, 5, lat->nb[1], ggml_row_size(GGML_TYPE_Q4_0, 64))));
    expect_fail(ggml_cpy(ctx, ggml_transpose(ctx, typed(GGML_TYPE_Q8_0, 64, 64)), f32(64, 64)), "cpy");
    expect_fail(ggml_cpy(ctx, f32(64, 64), ggml_transpose(ctx, typed(GGML_TYPE_Q8_0, 64, 64))), "cpy");
    expect_fail(ggml_cpy(ctx, typed(GGML_TYPE_Q8_0, 32), typed(GGML_TYPE_F16, 32)), "cpy");
    expect_fail(ggml_cpy(ctx, typed(GGML_TYPE_I32, 32), f32(32)), "cpy");
    expect_fail(ggml_cpy(ctx, typed(GGML_TYPE_F16, 32), typed(GGML_TYPE_Q4_0, 32)), "cpy");
}

TEST_F(GgmlCore, SetRowsAndGetRows) {
    ggml_tensor * cache = typed(GGML_TYPE_F16, 64, 100);
    ggml_tensor * rows  = f32(64, 3);
    ggml_tensor * ids   = typed(GGML_TYPE_I64, 3);
    ggml_tensor * r     = ggml_set_rows(ctx, cache, rows, ids);
    expect_ok(r);
    EXPECT_EQ(r->op, GGML_OP_SET_ROWS);
    EXPECT_EQ(r->src[0], rows);
    EXPECT_EQ(r->src[1], ids);
    EXPECT_EQ(r->view_src, cache);
    EXPECT_EQ(r->data, cache->data);
    EXPECT_EQ(r->type, GGML_TYPE_F16);
    expect_shape(r, 64, 100, 1, 1);
    // into a view of the cache (a layer's slice): the result views the ultimate source
    ggml_tensor * slice = ggml_view_2d(ctx, cache, 64, 50, cache->nb[1], 50 * cache->nb[1]);
    ggml_tensor * r2    = ggml_set_rows(ctx, slice, rows, typed(GGML_TYPE_I32, 3));
    expect_ok(r2);
    EXPECT_EQ(r2->view_src, cache);
    EXPECT_EQ(r2->view_offs, 50 * cache->nb[1]);
    // per-head rows: src [K, n, S2], ids [n, S2], dst [K, R, S2]
    expect_ok(ggml_set_rows(ctx, f32(8, 100, 4), f32(8, 3, 4), typed(GGML_TYPE_I64, 3, 4)));
    expect_ok(ggml_set_rows(ctx, typed(GGML_TYPE_Q8_0, 64, 10), rows, ids));
    expect_fail(ggml_set_rows(ctx, cache, f32(32, 3), ids), "set_rows");
    expect_fail(ggml_set_rows(ctx, cache, rows, typed(GGML_TYPE_I64, 4)), "set_rows");
    expect_fail(ggml_set_rows(ctx, cache, rows, f32(3)), "set_rows");
    expect_fail(ggml_set_rows(ctx, cache, typed(GGML_TYPE_F16, 64, 3), ids), "set_rows");
    expect_fail(ggml_set_rows(ctx, typed(GGML_TYPE_I32, 64, 10), rows, ids), "set_rows");
    expect_fail(ggml_set_rows(ctx, f32(8, 100, 4), f32(8, 3, 2), typed(GGML_TYPE_I64, 3, 2)), "set_rows");

    ggml_tensor * emb = typed(GGML_TYPE_Q4_0, 64, 512);
    ggml_tensor * tok = typed(GGML_TYPE_I32, 7);
    ggml_tensor * g   = ggml_get_rows(ctx, emb, tok);
    expect_ok(g);
    expect_shape(g, 64, 7, 1, 1);
    EXPECT_EQ(g->type, GGML_TYPE_F32);
    EXPECT_EQ(g->op, GGML_OP_GET_ROWS);
    EXPECT_EQ(g->src[0], emb);
    EXPECT_EQ(g->src[1], tok);
    ggml_tensor * gi = ggml_get_rows(ctx, typed(GGML_TYPE_I32, 4, 10, 3), typed(GGML_TYPE_I32, 2, 3));
    expect_shape(gi, 4, 2, 3, 1);
    EXPECT_EQ(gi->type, GGML_TYPE_I32);
    expect_fail(ggml_get_rows(ctx, emb, typed(GGML_TYPE_I64, 7)), "get_rows");
    expect_fail(ggml_get_rows(ctx, emb, typed(GGML_TYPE_I32, 7, 2)), "get_rows");
    expect_fail(ggml_get_rows(ctx, typed(GGML_TYPE_I8, 4, 4), tok), "get_rows");
}

TEST_F(GgmlCore, ElementwiseBinaryOps) {
    ggml_tensor * a                                                      = f32(8, 4, 3, 2);
    ggml_tensor * (*fns[])(ggml_context *, ggml_tensor *, ggml_tensor *) = {ggml_add, ggml_sub, ggml_mul, ggml_div};
    const ggml_op ops[]   = {GGML_OP_ADD, GGML_OP_SUB, GGML_OP_MUL, GGML_OP_DIV};
    const char *  names[] = {"add", "sub", "mul", "div"};
    for (int i = 0; i < 4; i++) {
        ggml_tensor * b = f32(8, 1, 3, 1);
        ggml_tensor * r = fns[i](ctx, a, b);
        expect_ok(r);
        expect_shape(r, 8, 4, 3, 2);
        EXPECT_EQ(r->op, ops[i]);
        EXPECT_EQ(r->type, GGML_TYPE_F32);
        EXPECT_EQ(r->src[0], a);
        EXPECT_EQ(r->src[1], b);
        expect_fail(fns[i](ctx, a, f32(3)), names[i]);
        expect_fail(fns[i](ctx, f32(8), a), names[i]);
        expect_fail(fns[i](ctx, a, typed(GGML_TYPE_F16, 8)), names[i]);
    }
    ggml_tensor * h = ggml_add(ctx, typed(GGML_TYPE_F16, 8, 2), f32(8));
    expect_ok(h);
    EXPECT_EQ(h->type, GGML_TYPE_F16);
    expect_fail(ggml_mul(ctx, typed(GGML_TYPE_F16, 8, 2), f32(8)), "mul");
    // non-contiguous sources are fine
    expect_ok(ggml_add(ctx, ggml_transpose(ctx, f32(4, 8)), f32(8)));
}

TEST_F(GgmlCore, UnaryReductionsAndScalars) {
    ggml_tensor * a = f32(10, 3, 2);
    ggml_tensor * s = ggml_sqr(ctx, a);
    expect_ok(s);
    EXPECT_EQ(s->op, GGML_OP_SQR);
    EXPECT_EQ(ggml_sqrt(ctx, a)->op, GGML_OP_SQRT);
    expect_fail(ggml_sqr(ctx, typed(GGML_TYPE_F16, 4)), "sqr");
    expect_fail(ggml_sqrt(ctx, typed(GGML_TYPE_I32, 4)), "sqrt");

    ggml_tensor * sr = ggml_sum_rows(ctx, a);
    expect_shape(sr, 1, 3, 2, 1);
    EXPECT_EQ(sr->op, GGML_OP_SUM_ROWS);
    ggml_tensor * mn = ggml_mean(ctx, a);
    expect_shape(mn, 1, 3, 2, 1);
    EXPECT_EQ(mn->op, GGML_OP_MEAN);
    expect_fail(ggml_mean(ctx, typed(GGML_TYPE_F16, 4)), "mean");

    ggml_tensor * am = ggml_argmax(ctx, f32(10, 3));
    expect_shape(am, 3, 1, 1, 1);
    EXPECT_EQ(am->type, GGML_TYPE_I32);
    EXPECT_EQ(am->op, GGML_OP_ARGMAX);
    expect_fail(ggml_argmax(ctx, a), "argmax");
    expect_fail(ggml_argmax(ctx, f32(0, 3)), "argmax");

    ggml_tensor * sc = ggml_scale_bias(ctx, a, 0.5f, -2.0f);
    expect_ok(sc);
    EXPECT_EQ(sc->op, GGML_OP_SCALE);
    EXPECT_EQ(ggml_get_op_params_f32(sc, 0), 0.5f);
    EXPECT_EQ(ggml_get_op_params_f32(sc, 1), -2.0f);
    EXPECT_EQ(ggml_get_op_params_f32(ggml_scale(ctx, a, 3.0f), 1), 0.0f);
    expect_fail(ggml_scale(ctx, typed(GGML_TYPE_F16, 4), 1.0f), "scale");

    ggml_tensor * cl = ggml_clamp(ctx, a, -1.0f, 2.0f);
    EXPECT_EQ(cl->op, GGML_OP_CLAMP);
    EXPECT_EQ(ggml_get_op_params_f32(cl, 0), -1.0f);
    EXPECT_EQ(ggml_get_op_params_f32(cl, 1), 2.0f);
    expect_fail(ggml_clamp(ctx, a, 2.0f, 1.0f), "clamp");
    expect_fail(ggml_clamp(ctx, a, NAN, 1.0f), "clamp");

    ggml_tensor * rn = ggml_rms_norm(ctx, a, 1e-6f);
    expect_ok(rn);
    EXPECT_EQ(rn->op, GGML_OP_RMS_NORM);
    EXPECT_EQ(ggml_get_op_params_f32(rn, 0), 1e-6f);
    ggml_tensor * nr = ggml_norm(ctx, a, 1e-5f);
    EXPECT_EQ(nr->op, GGML_OP_NORM);
    EXPECT_EQ(ggml_get_op_params_f32(nr, 0), 1e-5f);
    expect_fail(ggml_rms_norm(ctx, a, -1.0f), "rms_norm");
    expect_fail(ggml_norm(ctx, a, NAN), "norm");
    expect_fail(ggml_rms_norm(ctx, typed(GGML_TYPE_F16, 4), 1e-5f), "rms_norm");

    ggml_tensor * (*un[])(ggml_context *, ggml_tensor *) = {
        ggml_relu, ggml_tanh, ggml_sigmoid, ggml_silu, ggml_gelu, ggml_gelu_erf, ggml_neg, ggml_exp, ggml_softplus};
    for (int i = 0; i < GGML_UNARY_OP_COUNT; i++) {
        ggml_tensor * u = un[i](ctx, a);
        expect_ok(u);
        EXPECT_EQ(u->op, GGML_OP_UNARY);
        EXPECT_EQ(ggml_get_unary_op(u), (ggml_unary_op) i);
        EXPECT_EQ(u->src[0], a);
        ggml_tensor * uh = un[i](ctx, typed(GGML_TYPE_F16, 4));
        expect_ok(uh);
        EXPECT_EQ(uh->type, GGML_TYPE_F16);
        expect_fail(un[i](ctx, typed(GGML_TYPE_I32, 4)), ggml_unary_op_name((ggml_unary_op) i));
    }
    expect_fail(ggml_unary(ctx, a, GGML_UNARY_OP_COUNT), "unary");
}

TEST_F(GgmlCore, GluFusedAndSplit) {
    ggml_tensor * a = f32(16, 3);
    ggml_tensor * g = ggml_glu(ctx, a, GGML_GLU_OP_GEGLU, true);
    expect_ok(g);
    expect_shape(g, 8, 3, 1, 1);
    EXPECT_EQ(g->op, GGML_OP_GLU);
    EXPECT_EQ(ggml_get_glu_op(g), GGML_GLU_OP_GEGLU);
    EXPECT_EQ(g->op_params[1], 1);
    EXPECT_EQ(g->src[1], nullptr);
    expect_fail(ggml_glu(ctx, f32(15), GGML_GLU_OP_SWIGLU, false), "swiglu");
    expect_fail(ggml_glu(ctx, a, GGML_GLU_OP_COUNT, false), "glu");

    ggml_tensor * b = f32(16, 3);
    ggml_tensor * s = ggml_swiglu_split(ctx, a, b);
    expect_ok(s);
    expect_shape(s, 16, 3, 1, 1);
    EXPECT_EQ(ggml_get_glu_op(s), GGML_GLU_OP_SWIGLU);
    EXPECT_EQ(s->op_params[1], 0);
    EXPECT_EQ(s->src[0], a);
    EXPECT_EQ(s->src[1], b);
    EXPECT_EQ(ggml_get_glu_op(ggml_geglu_split(ctx, a, b)), GGML_GLU_OP_GEGLU);
    expect_fail(ggml_geglu_split(ctx, a, f32(16)), "geglu");
    expect_fail(ggml_glu_split(ctx, a, typed(GGML_TYPE_F16, 16, 3), GGML_GLU_OP_GEGLU_ERF), "geglu_erf");
}

TEST_F(GgmlCore, MulMatAndMulMatId) {
    ggml_tensor * w = typed(GGML_TYPE_Q4_K, 256, 32);
    ggml_tensor * x = f32(256, 5, 4, 2);
    ggml_tensor * r = ggml_mul_mat(ctx, w, x);
    expect_ok(r);
    expect_shape(r, 32, 5, 4, 2);
    EXPECT_EQ(r->type, GGML_TYPE_F32);
    EXPECT_EQ(r->op, GGML_OP_MUL_MAT);
    EXPECT_EQ(r->src[0], w);
    EXPECT_EQ(r->src[1], x);
    // grouped-query broadcast: a [K, M, 2, 1] over b [K, N, 4, 2]
    expect_shape(ggml_mul_mat(ctx, typed(GGML_TYPE_F16, 256, 7, 2), x), 7, 5, 4, 2);
    expect_ok(ggml_mul_mat(ctx, typed(GGML_TYPE_BF16, 256, 7), ggml_permute(ctx, f32(5, 256), 1, 0, 2, 3)));
    expect_fail(ggml_mul_mat(ctx, typed(GGML_TYPE_F16, 256, 7, 3), x), "mul_mat");
    expect_fail(ggml_mul_mat(ctx, w, f32(128, 5)), "mul_mat");
    expect_fail(ggml_mul_mat(ctx, w, typed(GGML_TYPE_F16, 256, 5)), "mul_mat");
    expect_fail(ggml_mul_mat(ctx, typed(GGML_TYPE_I32, 256, 4), x), "mul_mat");
    expect_fail(ggml_mul_mat(ctx, ggml_transpose(ctx, f32(7, 256)), x), "mul_mat");

    ggml_tensor * as  = typed(GGML_TYPE_Q8_0, 64, 16, 8);  // 8 experts
    ggml_tensor * b   = f32(64, 1, 6);                     // 6 tokens, shared across slots
    ggml_tensor * ids = typed(GGML_TYPE_I32, 2, 6);        // 2 experts per token
    ggml_tensor * m   = ggml_mul_mat_id(ctx, as, b, ids);
    expect_ok(m);
    expect_shape(m, 16, 2, 6, 1);
    EXPECT_EQ(m->op, GGML_OP_MUL_MAT_ID);
    EXPECT_EQ(m->src[0], as);
    EXPECT_EQ(m->src[1], b);
    EXPECT_EQ(m->src[2], ids);
    expect_ok(ggml_mul_mat_id(ctx, as, f32(64, 2, 6), ids));
    expect_fail(ggml_mul_mat_id(ctx, as, f32(64, 3, 6), ids), "mul_mat_id");
    expect_fail(ggml_mul_mat_id(ctx, as, f32(32, 1, 6), ids), "mul_mat_id");
    expect_fail(ggml_mul_mat_id(ctx, as, b, typed(GGML_TYPE_I32, 2, 5)), "mul_mat_id");
    expect_fail(ggml_mul_mat_id(ctx, as, b, typed(GGML_TYPE_I64, 2, 6)), "mul_mat_id");
    expect_fail(ggml_mul_mat_id(ctx, as, typed(GGML_TYPE_F16, 64, 1, 6), ids), "mul_mat_id");
}

TEST_F(GgmlCore, Concat) {
    ggml_tensor * a = f32(4, 3, 2);
    ggml_tensor * b = f32(4, 5, 2);
    ggml_tensor * c = ggml_concat(ctx, a, b, 1);
    expect_ok(c);
    expect_shape(c, 4, 8, 2, 1);
    EXPECT_EQ(c->op, GGML_OP_CONCAT);
    EXPECT_EQ(c->op_params[0], 1);
    EXPECT_EQ(c->src[0], a);
    EXPECT_EQ(c->src[1], b);
    expect_shape(ggml_concat(ctx, typed(GGML_TYPE_I32, 2, 2), typed(GGML_TYPE_I32, 2, 2), 3), 2, 2, 1, 2);
    expect_fail(ggml_concat(ctx, a, b, 0), "concat");
    expect_fail(ggml_concat(ctx, a, b, 4), "concat");
    expect_fail(ggml_concat(ctx, a, typed(GGML_TYPE_F16, 4, 5, 2), 1), "concat");
    expect_fail(ggml_concat(ctx, typed(GGML_TYPE_Q8_0, 32), typed(GGML_TYPE_Q8_0, 32), 1), "concat");
}

TEST_F(GgmlCore, Rope) {
    ggml_tensor * q   = f32(64, 8, 5);
    ggml_tensor * pos = typed(GGML_TYPE_I32, 5);
    ggml_tensor * ff  = f32(16);
    ggml_tensor * r =
        ggml_rope_ext(ctx, q, pos, ff, 32, GGML_ROPE_TYPE_NEOX, 4096, 500000.0f, 0.25f, 1.0f, 0.9f, 32.0f, 1.0f);
    expect_ok(r);
    expect_shape(r, 64, 8, 5, 1);
    EXPECT_EQ(r->op, GGML_OP_ROPE);
    EXPECT_EQ(r->type, GGML_TYPE_F32);
    EXPECT_EQ(r->src[0], q);
    EXPECT_EQ(r->src[1], pos);
    EXPECT_EQ(r->src[2], ff);
    EXPECT_EQ(r->op_params[0], 0);
    EXPECT_EQ(r->op_params[1], 32);
    EXPECT_EQ(r->op_params[2], GGML_ROPE_TYPE_NEOX);
    EXPECT_EQ(r->op_params[3], 0);
    EXPECT_EQ(r->op_params[4], 4096);
    EXPECT_EQ(ggml_get_op_params_f32(r, 5), 500000.0f);
    EXPECT_EQ(ggml_get_op_params_f32(r, 6), 0.25f);
    EXPECT_EQ(ggml_get_op_params_f32(r, 7), 1.0f);
    EXPECT_EQ(ggml_get_op_params_f32(r, 8), 0.9f);
    EXPECT_EQ(ggml_get_op_params_f32(r, 9), 32.0f);
    EXPECT_EQ(ggml_get_op_params_f32(r, 10), 1.0f);

    ggml_tensor * p = ggml_rope(ctx, typed(GGML_TYPE_F16, 64, 8, 5), pos, 64, GGML_ROPE_TYPE_NORMAL);
    expect_ok(p);
    EXPECT_EQ(p->type, GGML_TYPE_F16);
    EXPECT_EQ(p->src[2], nullptr);
    EXPECT_EQ(ggml_get_op_params_f32(p, 5), 10000.0f);
    EXPECT_EQ(ggml_get_op_params_f32(p, 6), 1.0f);
    EXPECT_EQ(ggml_get_op_params_f32(p, 8), 1.0f);

    expect_fail(ggml_rope(ctx, q, pos, 31, 0), "rope");
    expect_fail(ggml_rope(ctx, q, pos, 66, 0), "rope");
    expect_fail(ggml_rope(ctx, q, pos, 0, 0), "rope");
    expect_fail(ggml_rope(ctx, q, pos, 64, 1), "rope");
    expect_fail(ggml_rope(ctx, q, typed(GGML_TYPE_I32, 4), 64, 0), "rope");
    expect_fail(ggml_rope(ctx, q, typed(GGML_TYPE_I64, 5), 64, 0), "rope");
    expect_fail(ggml_rope(ctx, f32(64, 8, 5, 2), pos, 64, 0), "rope");
    expect_fail(ggml_rope(ctx, typed(GGML_TYPE_BF16, 64, 8, 5), pos, 64, 0), "rope");
    expect_fail(ggml_rope_ext(ctx, q, pos, f32(8), 32, 0, 0, 1e4f, 1, 0, 1, 32, 1), "rope");
    expect_fail(ggml_rope_ext(ctx, q, pos, typed(GGML_TYPE_F16, 16), 32, 0, 0, 1e4f, 1, 0, 1, 32, 1), "rope");
    expect_fail(ggml_rope_ext(ctx, q, pos, nullptr, 32, 0, 0, 0.0f, 1, 0, 1, 32, 1), "rope");
    expect_fail(ggml_rope_ext(ctx, q, pos, nullptr, 32, 0, 0, 1e4f, -1, 0, 1, 32, 1), "rope");
    expect_fail(ggml_rope_ext(ctx, q, pos, nullptr, 32, 0, 0, 1e4f, 1, NAN, 1, 32, 1), "rope");
}

TEST_F(GgmlCore, SoftMax) {
    ggml_tensor * kq   = f32(32, 7, 8);  // [n_kv, n_q, n_head]
    ggml_tensor * mask = typed(GGML_TYPE_F16, 32, 64);
    ggml_tensor * s    = ggml_soft_max_ext(ctx, kq, mask, 0.125f, 8.0f);
    expect_ok(s);
    expect_shape(s, 32, 7, 8, 1);
    EXPECT_EQ(s->op, GGML_OP_SOFT_MAX);
    EXPECT_EQ(s->src[0], kq);
    EXPECT_EQ(s->src[1], mask);
    EXPECT_EQ(ggml_get_op_params_f32(s, 0), 0.125f);
    EXPECT_EQ(ggml_get_op_params_f32(s, 1), 8.0f);
    ggml_tensor * p = ggml_soft_max(ctx, kq);
    expect_ok(p);
    EXPECT_EQ(p->src[1], nullptr);
    EXPECT_EQ(ggml_get_op_params_f32(p, 0), 1.0f);
    EXPECT_EQ(ggml_get_op_params_f32(p, 1), 0.0f);
    expect_ok(ggml_soft_max_ext(ctx, kq, f32(32, 7, 4), 1, 0));
    expect_fail(ggml_soft_max_ext(ctx, kq, f32(32, 6), 1, 0), "soft_max");
    expect_fail(ggml_soft_max_ext(ctx, kq, f32(31, 7), 1, 0), "soft_max");
    expect_fail(ggml_soft_max_ext(ctx, kq, f32(32, 7, 3), 1, 0), "soft_max");
    expect_fail(ggml_soft_max_ext(ctx, kq, typed(GGML_TYPE_BF16, 32, 7), 1, 0), "soft_max");
    expect_fail(ggml_soft_max_ext(ctx, kq, mask, 1, -1), "soft_max");
    expect_fail(ggml_soft_max_ext(ctx, kq, mask, INFINITY, 0), "soft_max");
    expect_fail(ggml_soft_max(ctx, typed(GGML_TYPE_F16, 4)), "soft_max");
}

TEST_F(GgmlCore, FlashAttnExt) {
    ggml_tensor * q    = f32(64, 7, 8);                    // [D, n_q, n_head]
    ggml_tensor * k    = typed(GGML_TYPE_F16, 64, 32, 2);  // [D, n_kv, n_head_kv]
    ggml_tensor * v    = typed(GGML_TYPE_F16, 48, 32, 2);  // [Dv, n_kv, n_head_kv]
    ggml_tensor * mask = typed(GGML_TYPE_F16, 32, GGML_KQ_MASK_PAD);
    ggml_tensor * r    = ggml_flash_attn_ext(ctx, q, k, v, mask, 0.125f, 0.0f, 30.0f);
    expect_ok(r);
    expect_shape(r, 48, 8, 7, 1);  // heads before tokens
    EXPECT_EQ(r->type, GGML_TYPE_F32);
    EXPECT_EQ(r->op, GGML_OP_FLASH_ATTN_EXT);
    EXPECT_EQ(r->src[0], q);
    EXPECT_EQ(r->src[1], k);
    EXPECT_EQ(r->src[2], v);
    EXPECT_EQ(r->src[3], mask);
    EXPECT_EQ(ggml_get_op_params_f32(r, 0), 0.125f);
    EXPECT_EQ(ggml_get_op_params_f32(r, 1), 0.0f);
    EXPECT_EQ(ggml_get_op_params_f32(r, 2), 30.0f);
    expect_ok(ggml_flash_attn_ext(ctx, q, f32(64, 32, 8), f32(64, 32, 8), nullptr, 1, 0, 0));
    expect_ok(ggml_flash_attn_ext(ctx, q, k, v, typed(GGML_TYPE_F32, 32, 7, 8), 1, 0, 0));
    expect_fail(ggml_flash_attn_ext(ctx, typed(GGML_TYPE_F16, 64, 7, 8), k, v, mask, 1, 0, 0), "flash_attn_ext");
    expect_fail(ggml_flash_attn_ext(ctx, q, typed(GGML_TYPE_F16, 32, 32, 2), v, mask, 1, 0, 0), "flash_attn_ext");
    expect_fail(ggml_flash_attn_ext(ctx, q, k, typed(GGML_TYPE_F16, 48, 31, 2), mask, 1, 0, 0), "flash_attn_ext");
    expect_fail(
        ggml_flash_attn_ext(ctx, q, typed(GGML_TYPE_F16, 64, 32, 3), typed(GGML_TYPE_F16, 48, 32, 3), mask, 1, 0, 0),
        "flash_attn_ext");
    expect_fail(ggml_flash_attn_ext(ctx, q, k, v, typed(GGML_TYPE_F16, 32, 6), 1, 0, 0), "flash_attn_ext");
    expect_fail(ggml_flash_attn_ext(ctx, q, k, v, typed(GGML_TYPE_F16, 33, 64), 1, 0, 0), "flash_attn_ext");
    expect_fail(ggml_flash_attn_ext(ctx, q, k, v, typed(GGML_TYPE_F16, 32, 64, 3), 1, 0, 0), "flash_attn_ext");
    // mixed K/V types are fine (-ctk q8_0 -ctv f16); a type that is not a KV cache type is not
    expect_ok(ggml_flash_attn_ext(ctx, q, typed(GGML_TYPE_BF16, 64, 32, 2), v, mask, 1, 0, 0));
    expect_ok(ggml_flash_attn_ext(ctx, q, typed(GGML_TYPE_Q8_0, 64, 32, 2), v, mask, 1, 0, 0));
    expect_fail(ggml_flash_attn_ext(ctx, q, typed(GGML_TYPE_I32, 64, 32, 2), v, mask, 1, 0, 0), "flash_attn_ext");
    expect_fail(ggml_flash_attn_ext(ctx, q, k, v, mask, 1, 0, -1), "flash_attn_ext");
}

TEST_F(GgmlCore, ArgsortAndTopK) {
    ggml_tensor * a = f32(10, 4);
    ggml_tensor * s = ggml_argsort(ctx, a, GGML_SORT_ORDER_ASC);
    expect_ok(s);
    expect_shape(s, 10, 4, 1, 1);
    EXPECT_EQ(s->type, GGML_TYPE_I32);
    EXPECT_EQ(s->op, GGML_OP_ARGSORT);
    EXPECT_EQ(s->op_params[0], GGML_SORT_ORDER_ASC);
    expect_fail(ggml_argsort(ctx, a, (ggml_sort_order) 5), "argsort");
    expect_fail(ggml_argsort(ctx, typed(GGML_TYPE_I32, 4), GGML_SORT_ORDER_ASC), "argsort");

    ggml_tensor * t = ggml_top_k(ctx, a, 3);
    expect_ok(t);
    expect_shape(t, 3, 4, 1, 1);
    EXPECT_EQ(t->op, GGML_OP_VIEW);
    EXPECT_EQ(t->type, GGML_TYPE_I32);
    ggml_tensor * sorted = t->src[0];
    ASSERT_NE(sorted, nullptr);
    EXPECT_EQ(sorted->op, GGML_OP_ARGSORT);
    EXPECT_EQ(sorted->op_params[0], GGML_SORT_ORDER_DESC);
    EXPECT_EQ(sorted->src[0], a);
    EXPECT_EQ(t->view_src, sorted);
    EXPECT_EQ(t->nb[1], sorted->nb[1]);
    expect_fail(ggml_top_k(ctx, a, 0), "top_k");
    expect_fail(ggml_top_k(ctx, a, 11), "top_k");
}

// ---------------------------------------------------------------------------------------------
// graphs

TEST_F(GgmlCore, GraphTopologicalOrderDedupAndLeafs) {
    ggml_tensor * w = ggml_set_name(f32(8, 8), "w");
    ggml_tensor * x = ggml_set_name(f32(8, 2), "x");
    ggml_tensor * h = ggml_set_name(ggml_mul_mat(ctx, w, x), "h");
    ggml_tensor * s = ggml_set_name(ggml_silu(ctx, h), "s");
    ggml_tensor * m = ggml_set_name(ggml_mul(ctx, s, h), "m");  // h used twice: added once
    ggml_tensor * v = ggml_set_name(ggml_view_1d(ctx, m, 4, 0), "v");
    ggml_tensor * o = ggml_set_name(ggml_add(ctx, v, ggml_view_1d(ctx, w, 4, 0)), "o");

    ggml_cgraph * g = ggml_new_graph(ctx);
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(ggml_graph_size(g), GGML_DEFAULT_GRAPH_SIZE);
    ggml_build_forward_expand(g, o);
    ggml_build_forward_expand(g, o);  // idempotent
    ggml_build_forward_expand(g, h);
    EXPECT_TRUE(ggml_graph_is_ok(g));
    ASSERT_EQ(ggml_graph_n_leafs(g), 2);
    EXPECT_EQ(ggml_graph_leaf(g, 0), w);
    EXPECT_EQ(ggml_graph_leaf(g, 1), x);
    ASSERT_EQ(ggml_graph_n_nodes(g), 6);  // h s m v view(w) o
    std::vector<ggml_tensor *> nodes;
    for (int i = 0; i < ggml_graph_n_nodes(g); i++) {
        nodes.push_back(ggml_graph_node(g, i));
    }
    // every source (and viewed tensor) comes before its user
    for (size_t i = 0; i < nodes.size(); i++) {
        for (int j = 0; j <= GGML_MAX_SRC; j++) {
            ggml_tensor * src = j < GGML_MAX_SRC ? nodes[i]->src[j] : nodes[i]->view_src;
            if (!src || src->op == GGML_OP_NONE) {
                continue;
            }
            auto it = std::find(nodes.begin(), nodes.end(), src);
            ASSERT_NE(it, nodes.end());
            EXPECT_LT(it - nodes.begin(), (ptrdiff_t) i);
        }
    }
    EXPECT_EQ(nodes[0], h);
    EXPECT_EQ(ggml_graph_node(g, -1), o);
    EXPECT_EQ(ggml_graph_node(g, -6), h);
    EXPECT_EQ(ggml_graph_node(g, 6), nullptr);
    EXPECT_EQ(ggml_graph_node(g, -7), nullptr);
    EXPECT_EQ(ggml_graph_leaf(g, 2), nullptr);
    EXPECT_EQ(ggml_graph_get_tensor(g, "m"), m);
    EXPECT_EQ(ggml_graph_get_tensor(g, "w"), w);
    EXPECT_EQ(ggml_graph_get_tensor(g, "nope"), nullptr);

    ggml_graph_clear(g);
    EXPECT_EQ(ggml_graph_n_nodes(g), 0);
    EXPECT_EQ(ggml_graph_n_leafs(g), 0);
    ggml_build_forward_expand(g, s);
    EXPECT_EQ(ggml_graph_n_nodes(g), 2);
    EXPECT_EQ(ggml_graph_n_leafs(g), 2);
}

TEST_F(GgmlCore, GraphViewSourceIsIncluded) {
    // a SET_ROWS result views the cache: the cache must be in the graph (as a leaf) before it
    ggml_tensor * cache = f32(16, 10);
    ggml_tensor * r     = ggml_set_rows(ctx, cache, f32(16, 2), typed(GGML_TYPE_I64, 2));
    ggml_cgraph * g     = ggml_new_graph(ctx);
    ggml_build_forward_expand(g, r);
    ASSERT_EQ(ggml_graph_n_nodes(g), 1);
    ASSERT_EQ(ggml_graph_n_leafs(g), 3);
    EXPECT_EQ(ggml_graph_leaf(g, 2), cache);
}

TEST_F(GgmlCore, GraphFailures) {
    ggml_cgraph * g = ggml_new_graph_custom(ctx, 4, false);
    ASSERT_NE(g, nullptr);
    ggml_build_forward_expand(g, nullptr);
    EXPECT_FALSE(ggml_graph_is_ok(g));
    ASSERT_EQ(log.errors.size(), 1u);
    EXPECT_EQ(log.errors[0].rfind("[build_forward_expand] ", 0), 0u);
    log.errors.clear();
    ggml_graph_clear(g);
    EXPECT_TRUE(ggml_graph_is_ok(g));

    // five chained nodes do not fit in a graph of four
    ggml_tensor * t = f32(4);
    for (int i = 0; i < 5; i++) {
        t = ggml_scale(ctx, t, 2.0f);
    }
    ggml_build_forward_expand(g, t);
    EXPECT_FALSE(ggml_graph_is_ok(g));
    EXPECT_EQ(log.errors.size(), 1u);
    log.errors.clear();

    // five leafs do not fit either
    ggml_cgraph * g2  = ggml_new_graph_custom(ctx, 4, false);
    ggml_tensor * acc = f32(4);
    for (int i = 0; i < 4; i++) {
        acc = ggml_add(ctx, acc, f32(4));
    }
    ggml_build_forward_expand(g2, acc);
    EXPECT_FALSE(ggml_graph_is_ok(g2));
    log.errors.clear();

    EXPECT_FALSE(ggml_graph_is_ok(nullptr));
    EXPECT_EQ(ggml_graph_n_nodes(nullptr), 0);
    expect_fail(reinterpret_cast<ggml_tensor *>(ggml_new_graph_custom(ctx, 0, false)), "new_graph");
}

TEST_F(GgmlCore, GraphOverheadSizesTheArena) {
    for (size_t size : {1u, 16u, 1000u, 8192u}) {
        ggml_init_params p = {ggml_graph_overhead_custom(size, false), nullptr, true};
        ggml_context *   c = ggml_init(p);
        ASSERT_NE(c, nullptr);
        ggml_cgraph * g = ggml_new_graph_custom(c, size, false);
        EXPECT_NE(g, nullptr) << size;
        EXPECT_EQ(ggml_graph_size(g), (int) size);
        EXPECT_EQ(ggml_new_graph_custom(c, 1, false), nullptr);  // nothing left
        log.errors.clear();
        ggml_free(c);
    }
    EXPECT_EQ(ggml_graph_overhead(), ggml_graph_overhead_custom(GGML_DEFAULT_GRAPH_SIZE, false));
}

TEST_F(GgmlCore, LargeGraphBuildsLinearly) {
    // a deep chain (no recursion limits) and a wide fan-in both expand fully
    const int     n = 20000;
    ggml_tensor * t = f32(4);
    for (int i = 0; i < n; i++) {
        t = ggml_scale(ctx, t, 1.0f);
    }
    ggml_cgraph * g = ggml_new_graph_custom(ctx, n, false);
    ggml_build_forward_expand(g, t);
    EXPECT_TRUE(ggml_graph_is_ok(g));
    EXPECT_EQ(ggml_graph_n_nodes(g), n);
    EXPECT_EQ(ggml_graph_n_leafs(g), 1);
    EXPECT_EQ(ggml_graph_node(g, -1), t);
}

}  // namespace
