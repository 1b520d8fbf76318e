// ggml-alloc: the linear allocator, context allocation, and the graph allocator's memory plan
// (liveness-based reuse, in-place, inputs/outputs kept, reserve-then-alloc, multiple buffers).
// The non-overlap checks compute liveness independently of the allocator.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-core.h"
#include "ggml-cpu.h"
#include "ggml.h"

namespace {

struct log_capture {
    std::vector<std::string> errors;
};

void capture_cb(enum ggml_log_level level, const char * text, void * ud) {
    if (level == GGML_LOG_LEVEL_ERROR) {
        static_cast<log_capture *>(ud)->errors.emplace_back(text);
    }
}

bool ranges_overlap(const ggml_tensor * a, const ggml_tensor * b) {
    const char * a0 = (const char *) a->data;
    const char * b0 = (const char *) b->data;
    return a0 < b0 + ggml_nbytes(b) && b0 < a0 + ggml_nbytes(a);
}

class GgmlAlloc : public ::testing::Test {
protected:
    void SetUp() override {
        ggml_log_set(capture_cb, &log);
        buft = ggml_backend_cpu_buffer_type();
        ASSERT_NE(buft, nullptr);
        ggml_init_params p = {4096 * ggml_tensor_overhead() + ggml_graph_overhead_custom(4096, false), nullptr, true};
        ctx                = ggml_init(p);
        ASSERT_NE(ctx, nullptr);
    }
    void TearDown() override {
        ggml_free(ctx);
        ggml_log_set(nullptr, nullptr);
    }

    ggml_tensor * f32(int64_t a, int64_t b = 1) { return ggml_new_tensor_2d(ctx, GGML_TYPE_F32, a, b); }

    ggml_cgraph * graph_of(std::initializer_list<ggml_tensor *> outs) {
        ggml_cgraph * g = ggml_new_graph_custom(ctx, 4096, false);
        for (ggml_tensor * t : outs) {
            ggml_build_forward_expand(g, t);
        }
        EXPECT_TRUE(ggml_graph_is_ok(g));
        return g;
    }

    log_capture                log;
    ggml_backend_buffer_type_t buft = nullptr;
    ggml_context *             ctx  = nullptr;
};

// ---------------------------------------------------------------------------------------------
// Independent liveness check: every tensor that owns memory (not a view) is live from its
// definition (leafs and INPUT tensors: before the first node) to its last use, where a use of a
// view counts as a use of the viewed tensor. INPUT/OUTPUT tensors live to the end. Two owners
// live at the same time must not overlap in memory, except a node computed in place over a source
// whose last use is that very node.
void check_no_live_overlap(ggml_cgraph * g) {
    const int                                          n_nodes = ggml_graph_n_nodes(g);
    const int                                          END     = n_nodes + 1;
    std::map<const ggml_tensor *, std::pair<int, int>> live;  // owner -> [def, last]
    auto owner = [](const ggml_tensor * t) { return t->view_src ? t->view_src : t; };
    auto touch = [&](const ggml_tensor * t, int step) {
        auto it = live.find(owner(t));
        if (it != live.end()) {
            it->second.second = std::max(it->second.second, step);
        }
    };
    for (int i = 0; i < ggml_graph_n_leafs(g); i++) {
        ggml_tensor * l = ggml_graph_leaf(g, i);
        live[l]         = {-1, -1};
    }
    for (int i = 0; i < n_nodes; i++) {
        ggml_tensor * n = ggml_graph_node(g, i);
        if (!n->view_src) {
            const int def = (n->flags & GGML_TENSOR_FLAG_INPUT) ? -1 : i;
            live[n]       = {def, def};
        }
    }
    for (int i = 0; i < n_nodes; i++) {
        ggml_tensor * n = ggml_graph_node(g, i);
        for (int j = 0; j < GGML_MAX_SRC; j++) {
            if (n->src[j]) {
                touch(n->src[j], i);
            }
        }
        if (n->view_src) {
            touch(n, i);
        }
    }
    for (auto & kv : live) {
        if (kv.first->flags & (GGML_TENSOR_FLAG_INPUT | GGML_TENSOR_FLAG_OUTPUT)) {
            kv.second.second = END;
        }
    }
    std::vector<const ggml_tensor *> owners;
    for (auto & kv : live) {
        ASSERT_NE(kv.first->data, nullptr) << kv.first->name;
        owners.push_back(kv.first);
    }
    for (size_t x = 0; x < owners.size(); x++) {
        for (size_t y = x + 1; y < owners.size(); y++) {
            const ggml_tensor * a  = owners[x];
            const ggml_tensor * b  = owners[y];
            auto                la = live[a];
            auto                lb = live[b];
            if (la.second < lb.first || lb.second < la.first) {
                continue;  // never live together
            }
            if (a->buffer != b->buffer || !ranges_overlap(a, b)) {
                continue;
            }
            // the one legal sharing: b computed in place over its source a at a's last use (or vice versa)
            auto inplace = [&](const ggml_tensor * src, std::pair<int, int> ls, const ggml_tensor * dst,
                               std::pair<int, int> ld) {
                if (ls.second != ld.first || src->data != dst->data) {
                    return false;
                }
                for (int j = 0; j < GGML_MAX_SRC; j++) {
                    if (dst->src[j] == src) {
                        return true;
                    }
                }
                return false;
            };
            EXPECT_TRUE(inplace(a, la, b, lb) || inplace(b, lb, a, la))
                << "live tensors overlap: '" << a->name << "' [" << la.first << ", " << la.second << "] and '"
                << b->name << "' [" << lb.first << ", " << lb.second << "]";
        }
    }
}

// ---------------------------------------------------------------------------------------------
// tallocr and context allocation

TEST_F(GgmlAlloc, TallocrPlacesAlignedTensorsAndRefusesOverflow) {
    const size_t          align = ggml_backend_buft_get_alignment(buft);
    ggml_backend_buffer_t buf   = ggml_backend_buft_alloc_buffer(buft, 4 * align + 64);
    ASSERT_NE(buf, nullptr);
    ggml_tallocr  ta = ggml_tallocr_new(buf);
    ggml_tensor * a  = f32(3);
    ggml_tensor * b  = f32(5);
    ggml_tensor * v  = ggml_view_1d(ctx, b, 2, 8);  // made before b has data: tallocr places it
    ASSERT_TRUE(ggml_tallocr_alloc(&ta, a));
    ASSERT_TRUE(ggml_tallocr_alloc(&ta, b));
    EXPECT_EQ(a->buffer, buf);
    EXPECT_EQ((uintptr_t) a->data % align, 0u);
    EXPECT_EQ((uintptr_t) b->data % align, 0u);
    EXPECT_GE((char *) b->data, (char *) a->data + ggml_nbytes(a));
    ASSERT_TRUE(ggml_tallocr_alloc(&ta, v));
    EXPECT_EQ(v->data, (char *) b->data + 8);
    ggml_tensor * big = f32(4 * (int64_t) align);
    EXPECT_FALSE(ggml_tallocr_alloc(&ta, big));
    ASSERT_EQ(log.errors.size(), 1u);
    EXPECT_EQ(log.errors[0].rfind("[tallocr_alloc] ", 0), 0u);
    EXPECT_FALSE(ggml_tallocr_alloc(&ta, a));  // already allocated
    ggml_backend_buffer_free(buf);
}

TEST_F(GgmlAlloc, AllocCtxTensorsPlacesEveryTensorOnce) {
    std::vector<ggml_tensor *> ts;
    for (int i = 1; i <= 20; i++) {
        ts.push_back(f32(i * 7, i % 3 + 1));
    }
    ggml_tensor *         v   = ggml_view_1d(ctx, ts[4], 3, 4);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors_from_buft(ctx, buft);
    ASSERT_NE(buf, nullptr);
    char * base = (char *) ggml_backend_buffer_get_base(buf);
    for (size_t i = 0; i < ts.size(); i++) {
        ASSERT_NE(ts[i]->data, nullptr);
        EXPECT_EQ(ts[i]->buffer, buf);
        EXPECT_GE((char *) ts[i]->data, base);
        EXPECT_LE((char *) ts[i]->data + ggml_nbytes(ts[i]), base + ggml_backend_buffer_get_size(buf));
        for (size_t j = 0; j < i; j++) {
            EXPECT_FALSE(ranges_overlap(ts[i], ts[j])) << i << " " << j;
        }
    }
    EXPECT_EQ(v->data, (char *) ts[4]->data + 4);
    // nothing left to allocate
    EXPECT_EQ(ggml_backend_alloc_ctx_tensors_from_buft(ctx, buft), nullptr);
    ggml_backend_buffer_free(buf);

    ggml_init_params p  = {1 << 16, nullptr, false};
    ggml_context *   c2 = ggml_init(p);
    ggml_new_tensor_1d(c2, GGML_TYPE_F32, 4);
    EXPECT_EQ(ggml_backend_alloc_ctx_tensors_from_buft(c2, buft), nullptr);
    EXPECT_FALSE(log.errors.empty());
    ggml_free(c2);
}

// ---------------------------------------------------------------------------------------------
// gallocr

TEST_F(GgmlAlloc, ElementwiseChainRunsInPlaceInConstantMemory) {
    const int64_t n   = 1 << 16;  // 256 KiB per tensor
    ggml_tensor * x   = f32(n);
    ggml_tensor * cur = x;
    ggml_set_input(x);
    for (int i = 0; i < 64; i++) {
        switch (i % 3) {
            case 0:
                cur = ggml_scale(ctx, cur, 1.5f);
                break;
            case 1:
                cur = ggml_silu(ctx, cur);
                break;
            default:
                cur = ggml_add(ctx, cur, x);
                break;
        }
    }
    ggml_gallocr_t ga = ggml_gallocr_new(buft);
    ASSERT_NE(ga, nullptr);
    ggml_cgraph * g = graph_of({cur});
    ASSERT_TRUE(ggml_gallocr_alloc_graph(ga, g));
    const size_t nb = ggml_nbytes(x);
    // the input plus one block the whole chain runs in, instead of 65 blocks
    EXPECT_LE(ggml_gallocr_get_buffer_size(ga, 0), 2 * nb + 1024);
    for (int i = 1; i < ggml_graph_n_nodes(g); i++) {
        EXPECT_EQ(ggml_graph_node(g, i)->data, ggml_graph_node(g, 0)->data) << i;
    }
    EXPECT_NE(ggml_graph_node(g, 0)->data, x->data);  // never over an input
    check_no_live_overlap(g);
    ggml_gallocr_free(ga);
}

TEST_F(GgmlAlloc, NonInPlaceChainReusesFreedBlocks) {
    const int64_t n   = 1 << 14;
    ggml_tensor * cur = f32(n, 4);
    ggml_set_input(cur);
    for (int i = 0; i < 50; i++) {
        cur = i % 2 ? ggml_soft_max(ctx, cur) : ggml_rms_norm(ctx, cur, 1e-5f);  // not in-place ops
    }
    ggml_gallocr_t ga = ggml_gallocr_new(buft);
    ggml_cgraph *  g  = graph_of({cur});
    ASSERT_TRUE(ggml_gallocr_alloc_graph(ga, g));
    const size_t nb = ggml_nbytes(cur);
    // input + two alternating blocks
    EXPECT_LE(ggml_gallocr_get_buffer_size(ga, 0), 3 * nb + 1024);
    EXPECT_GE(ggml_gallocr_get_buffer_size(ga, 0), 3 * nb);
    for (int i = 1; i < ggml_graph_n_nodes(g); i++) {
        EXPECT_NE(ggml_graph_node(g, i)->data, ggml_graph_node(g, i - 1)->data);
    }
    check_no_live_overlap(g);
    ggml_gallocr_free(ga);
}

TEST_F(GgmlAlloc, InPlaceOnlyWhenLegal) {
    ggml_tensor * in = ggml_set_name(f32(256, 4), "in");
    ggml_set_input(in);
    ggml_tensor * a = ggml_set_name(ggml_sqr(ctx, in), "a");             // not over the input
    ggml_tensor * b = ggml_set_name(ggml_scale(ctx, a, 2.0f), "b");      // a still read by d: not in place
    ggml_tensor * c = ggml_set_name(ggml_add(ctx, b, f32(256)), "c");    // b dies here: in place
    ggml_tensor * d = ggml_set_name(ggml_mul(ctx, c, a), "d");           // c dies: in place over c
    ggml_tensor * e = ggml_set_name(ggml_sum_rows(ctx, d), "e");         // shape differs: never in place
    ggml_tensor * v = ggml_set_name(ggml_view_1d(ctx, d, 256, 0), "v");  // d is viewed
    ggml_tensor * f = ggml_set_name(ggml_silu(ctx, v), "f");             // over a view: not in place
    ggml_tensor * o = ggml_set_name(ggml_scale(ctx, f, 3.0f), "o");
    ggml_set_output(f);  // f is kept: o not in place
    ggml_gallocr_t ga = ggml_gallocr_new(buft);
    ggml_cgraph *  g  = graph_of({o, e});
    ASSERT_TRUE(ggml_gallocr_alloc_graph(ga, g));
    EXPECT_NE(a->data, in->data);
    EXPECT_NE(b->data, a->data);
    EXPECT_EQ(c->data, b->data);
    EXPECT_EQ(d->data, c->data);
    EXPECT_NE(e->data, d->data);
    EXPECT_EQ(v->data, d->data);
    EXPECT_NE(f->data, d->data);
    EXPECT_NE(o->data, f->data);
    check_no_live_overlap(g);
    ggml_gallocr_free(ga);
}

TEST_F(GgmlAlloc, InputsAndOutputsAreNeverReused) {
    const int64_t n  = 4096;
    ggml_tensor * in = ggml_set_name(f32(n), "in");
    ggml_set_input(in);
    ggml_tensor * cur = ggml_rms_norm(ctx, in, 1e-5f);  // the input's only consumer is the first node
    ggml_tensor * mid = nullptr;
    for (int i = 0; i < 30; i++) {
        cur = ggml_soft_max(ctx, cur);
        if (i == 5) {
            mid = cur;
            ggml_set_output(mid);
            ggml_set_name(mid, "mid");
        }
    }
    // a late input: must not share memory with anything computed before its use
    ggml_tensor * late = ggml_set_name(f32(n), "late");
    ggml_set_input(late);
    cur               = ggml_add(ctx, cur, late);
    ggml_gallocr_t ga = ggml_gallocr_new(buft);
    ggml_cgraph *  g  = graph_of({cur});
    ASSERT_TRUE(ggml_gallocr_alloc_graph(ga, g));
    bool after_mid = false;
    for (int i = 0; i < ggml_graph_n_nodes(g); i++) {
        ggml_tensor * node = ggml_graph_node(g, i);
        EXPECT_FALSE(ranges_overlap(node, in)) << i;
        EXPECT_FALSE(ranges_overlap(node, late)) << i;
        if (after_mid) {
            EXPECT_FALSE(ranges_overlap(node, mid)) << i;  // earlier nodes may have used its block
        }
        after_mid = after_mid || node == mid;
    }
    EXPECT_TRUE(after_mid);
    check_no_live_overlap(g);
    ggml_gallocr_free(ga);
}

TEST_F(GgmlAlloc, GraphsWithoutLeafsStillPlaceInputsFirst) {
    // schedulers assemble graphs node by node (ggml_graph_add_node) without a leaf list
    ggml_tensor * cur = f32(2048);
    ggml_set_input(cur);
    for (int i = 0; i < 6; i++) {
        cur = ggml_soft_max(ctx, cur);
    }
    ggml_tensor * late = ggml_set_name(f32(2048), "late");  // filled by the caller, read last
    cur                = ggml_add(ctx, cur, late);
    ggml_cgraph * full = graph_of({cur});
    ggml_cgraph * g    = ggml_new_graph_custom(ctx, 64, false);
    for (int i = 0; i < ggml_graph_n_nodes(full); i++) {
        ASSERT_TRUE(ggml_graph_add_node(g, ggml_graph_node(full, i)));
    }
    ASSERT_EQ(ggml_graph_n_leafs(g), 0);
    ggml_gallocr_t ga = ggml_gallocr_new(buft);
    ASSERT_TRUE(ggml_gallocr_alloc_graph(ga, g));
    for (int i = 0; i < ggml_graph_n_nodes(g) - 1; i++) {
        EXPECT_FALSE(ranges_overlap(ggml_graph_node(g, i), late)) << i;
    }
    ggml_gallocr_free(ga);
}

TEST_F(GgmlAlloc, WeightsWithDataAreLeftAlone) {
    ggml_init_params      p    = {8 * ggml_tensor_overhead(), nullptr, true};
    ggml_context *        wc   = ggml_init(p);
    ggml_tensor *         w    = ggml_new_tensor_2d(wc, GGML_TYPE_F32, 64, 32);
    ggml_backend_buffer_t wbuf = ggml_backend_alloc_ctx_tensors_from_buft(wc, buft);
    ASSERT_NE(wbuf, nullptr);
    void * wdata = w->data;

    ggml_tensor *  x  = f32(64, 3);
    ggml_tensor *  y  = ggml_mul_mat(ctx, w, x);
    ggml_tensor *  wv = ggml_view_2d(ctx, w, 32, 2, w->nb[1], 0);  // a view of a weight made before alloc
    ggml_tensor *  z  = ggml_add(ctx, ggml_cont(ctx, wv), ggml_view_1d(ctx, y, 32, 0));
    ggml_gallocr_t ga = ggml_gallocr_new(buft);
    ggml_cgraph *  g  = graph_of({z});
    ASSERT_TRUE(ggml_gallocr_alloc_graph(ga, g));
    EXPECT_EQ(w->data, wdata);
    EXPECT_EQ(w->buffer, wbuf);
    EXPECT_EQ(wv->data, wdata);
    EXPECT_NE(x->data, nullptr);
    EXPECT_NE(x->buffer, wbuf);
    check_no_live_overlap(g);
    ggml_gallocr_free(ga);
    ggml_backend_buffer_free(wbuf);
    ggml_free(wc);
}

// Builds a decode-like graph of n_layers blocks over a [d, n_tok] activation.
ggml_tensor * build_blocks(ggml_context * ctx, ggml_tensor * w, int n_layers, int64_t n_tok) {
    ggml_tensor * cur = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, w->ne[0], n_tok);
    ggml_set_input(cur);
    for (int l = 0; l < n_layers; l++) {
        ggml_tensor * h = ggml_rms_norm(ctx, cur, 1e-5f);
        h               = ggml_mul_mat(ctx, w, h);
        h               = ggml_silu(ctx, h);
        cur             = ggml_add(ctx, cur, h);
    }
    return cur;
}

TEST_F(GgmlAlloc, ReserveThenAllocSmallerGraphsWithoutReallocation) {
    ggml_tensor *  w  = f32(128, 128);
    ggml_gallocr_t ga = ggml_gallocr_new(buft);
    ggml_cgraph *  gb = graph_of({build_blocks(ctx, w, 4, 64)});
    ASSERT_TRUE(ggml_gallocr_reserve(ga, gb));
    const size_t reserved = ggml_gallocr_get_buffer_size(ga, 0);
    EXPECT_GT(reserved, 0u);
    for (ggml_tensor * t = ggml_get_first_tensor(ctx); t; t = ggml_get_next_tensor(ctx, t)) {
        EXPECT_EQ(t->data, nullptr);  // reserve plans but assigns nothing
    }

    ggml_backend_buffer_t first = nullptr;
    for (int64_t n_tok : {1, 7, 64}) {
        ggml_reset(ctx);
        ggml_tensor * w2 = f32(128, 128);
        ggml_cgraph * g  = graph_of({build_blocks(ctx, w2, 4, n_tok)});
        ASSERT_TRUE(ggml_gallocr_alloc_graph(ga, g));
        EXPECT_EQ(ggml_gallocr_get_buffer_size(ga, 0), reserved);
        ggml_backend_buffer_t buf = ggml_graph_node(g, -1)->buffer;
        if (!first) {
            first = buf;
        }
        EXPECT_EQ(buf, first) << "the buffer was reallocated for n_tok " << n_tok;
        check_no_live_overlap(g);
    }
    // a bigger graph grows the single buffer on its own
    ggml_reset(ctx);
    ggml_cgraph * big = graph_of({build_blocks(ctx, f32(128, 128), 4, 256)});
    ASSERT_TRUE(ggml_gallocr_alloc_graph(ga, big));
    EXPECT_GT(ggml_gallocr_get_buffer_size(ga, 0), reserved);
    check_no_live_overlap(big);
    ggml_gallocr_free(ga);
}

TEST_F(GgmlAlloc, RandomGraphsNeverOverlapLiveTensors) {
    std::mt19937 rng(1234);
    for (int trial = 0; trial < 40; trial++) {
        ggml_reset(ctx);
        const int64_t              d = 32 + 16 * (rng() % 4);
        const int64_t              t = 1 + rng() % 6;
        std::vector<ggml_tensor *> pool;
        ggml_tensor *              w   = ggml_set_name(f32(d, d), "w");
        ggml_tensor *              row = ggml_set_name(f32(d), "row");
        for (int i = 0; i < 3; i++) {
            ggml_tensor * in = ggml_format_name(f32(d, t), "in%d", i);
            if (rng() % 2) {
                ggml_set_input(in);
            }
            pool.push_back(in);
        }
        auto pick = [&]() {
            // favour recent tensors so chains form, but reach back sometimes to lengthen lifetimes
            const size_t n = pool.size();
            return rng() % 4 ? pool[n - 1 - rng() % std::min<size_t>(n, 3)] : pool[rng() % n];
        };
        const int n_ops = 20 + rng() % 60;
        for (int i = 0; i < n_ops; i++) {
            ggml_tensor * a = pick();
            ggml_tensor * r = nullptr;
            switch (rng() % 11) {
                case 0:
                    r = ggml_add(ctx, a, pick());
                    break;
                case 1:
                    r = ggml_mul(ctx, a, row);
                    break;
                case 2:
                    r = ggml_scale(ctx, a, 0.5f);
                    break;
                case 3:
                    r = ggml_silu(ctx, a);
                    break;
                case 4:
                    r = ggml_rms_norm(ctx, a, 1e-5f);
                    break;
                case 5:
                    r = ggml_mul_mat(ctx, w, a);
                    break;
                case 6:
                    r = ggml_reshape_2d(ctx, ggml_reshape_1d(ctx, ggml_cont(ctx, a), d * t), d, t);
                    break;
                case 7:
                    r = ggml_cont(ctx, ggml_transpose(ctx, ggml_transpose(ctx, a)));
                    break;
                case 8:
                    r = ggml_soft_max(ctx, a);
                    break;
                case 9:
                    r = ggml_swiglu_split(ctx, a, pick());
                    break;
                default:
                    r = ggml_view_2d(ctx, a, d, t, a->nb[1], 0);
                    break;
            }
            ASSERT_NE(r, nullptr);
            ggml_format_name(r, "n%d", i);
            if (rng() % 20 == 0) {
                ggml_set_output(r);
            }
            pool.push_back(r);
        }
        ggml_cgraph * g = ggml_new_graph_custom(ctx, 4096, false);
        ggml_build_forward_expand(g, pool.back());
        for (int k = 0; k < 3; k++) {
            ggml_build_forward_expand(g, pool[rng() % pool.size()]);
        }
        ASSERT_TRUE(ggml_graph_is_ok(g));
        ggml_gallocr_t ga = ggml_gallocr_new(buft);
        ASSERT_TRUE(ggml_gallocr_alloc_graph(ga, g)) << "trial " << trial;
        // reuse is real: less than the sum of all node sizes
        size_t total = 0;
        for (int i = 0; i < ggml_graph_n_nodes(g); i++) {
            total += ggml_graph_node(g, i)->view_src ? 0 : ggml_nbytes(ggml_graph_node(g, i));
        }
        for (int i = 0; i < ggml_graph_n_leafs(g); i++) {
            total += ggml_nbytes(ggml_graph_leaf(g, i));
        }
        EXPECT_LE(ggml_gallocr_get_buffer_size(ga, 0), total + 64 * (size_t) ggml_graph_n_nodes(g) + 4096);
        check_no_live_overlap(g);
        ggml_gallocr_free(ga);
        if (HasFailure()) {
            FAIL() << "trial " << trial;
        }
    }
}

TEST_F(GgmlAlloc, MultipleBuffersFollowTheIds) {
    ggml_backend_buffer_type_t bufts[2] = {buft, buft};
    ggml_gallocr_t             ga       = ggml_gallocr_new_n(bufts, 2);
    ASSERT_NE(ga, nullptr);
    ggml_tensor * cur = f32(1024);
    ggml_set_input(cur);
    for (int i = 0; i < 8; i++) {
        cur = ggml_rms_norm(ctx, cur, 1e-5f);
    }
    ggml_cgraph *    g = graph_of({cur});
    std::vector<int> node_ids(ggml_graph_n_nodes(g));
    std::vector<int> leaf_ids(ggml_graph_n_leafs(g), 1);
    for (size_t i = 0; i < node_ids.size(); i++) {
        node_ids[i] = i < 4 ? 1 : 0;
    }
    ASSERT_TRUE(ggml_gallocr_reserve_n(ga, g, node_ids.data(), leaf_ids.data()));
    EXPECT_GT(ggml_gallocr_get_buffer_size(ga, 0), 0u);
    EXPECT_GT(ggml_gallocr_get_buffer_size(ga, 1), 0u);
    ASSERT_TRUE(ggml_gallocr_alloc_graph(ga, g));
    ggml_backend_buffer_t b1 = ggml_graph_node(g, 0)->buffer;
    ggml_backend_buffer_t b0 = ggml_graph_node(g, 7)->buffer;
    EXPECT_NE(b0, b1);
    EXPECT_EQ(ggml_graph_leaf(g, 0)->buffer, b1);
    for (int i = 0; i < 8; i++) {
        EXPECT_EQ(ggml_graph_node(g, i)->buffer, i < 4 ? b1 : b0) << i;
    }
    check_no_live_overlap(g);

    // a graph of another shape needs a new reserve_n
    ggml_tensor * extra = ggml_rms_norm(ctx, cur, 1e-5f);
    ggml_cgraph * g2    = graph_of({extra});
    EXPECT_FALSE(ggml_gallocr_alloc_graph(ga, g2));
    EXPECT_FALSE(log.errors.empty());
    log.errors.clear();
    std::vector<int> bad(ggml_graph_n_nodes(g2), 2);
    EXPECT_FALSE(ggml_gallocr_reserve_n(ga, g2, bad.data(), nullptr));
    ggml_gallocr_free(ga);
}

TEST_F(GgmlAlloc, RejectsFailedGraphsAndBadArguments) {
    ggml_gallocr_t ga = ggml_gallocr_new(buft);
    ggml_cgraph *  g  = ggml_new_graph(ctx);
    ggml_build_forward_expand(g, nullptr);
    log.errors.clear();
    EXPECT_FALSE(ggml_gallocr_alloc_graph(ga, g));
    EXPECT_FALSE(ggml_gallocr_reserve(ga, g));
    EXPECT_FALSE(ggml_gallocr_alloc_graph(ga, nullptr));
    EXPECT_EQ(ggml_gallocr_get_buffer_size(ga, 5), 0u);
    EXPECT_EQ(ggml_gallocr_new_n(nullptr, 1), nullptr);
    EXPECT_EQ(log.errors.size(), 4u);
    ggml_gallocr_free(ga);
    ggml_gallocr_free(nullptr);
}

// End to end on the CPU backend: a chain with in-place steps and reused blocks computes the same
// values as a plain loop.
TEST_F(GgmlAlloc, AllocatedChainComputesCorrectlyOnCpu) {
    ggml_backend_t be = ggml_backend_cpu_init();
    ASSERT_NE(be, nullptr);
    const int64_t n = 1000;
    ggml_tensor * x = f32(n);
    ggml_tensor * y = f32(n);
    ggml_set_input(x);
    ggml_set_input(y);
    ggml_tensor * a   = ggml_scale(ctx, x, 2.0f);  // 2x
    ggml_tensor * b   = ggml_add(ctx, a, y);       // 2x + y (in place over a)
    ggml_tensor * c   = ggml_mul(ctx, b, b);       // (2x + y)^2
    ggml_tensor * d   = ggml_sub(ctx, c, a);       // a is dead by now in a naive plan? no: a is b's block
    ggml_tensor * out = ggml_scale(ctx, ggml_add(ctx, d, x), 0.5f);
    ggml_set_output(out);
    (void) d;
    ggml_gallocr_t ga = ggml_gallocr_new(ggml_backend_get_default_buffer_type(be));
    ggml_cgraph *  g  = graph_of({out});
    ASSERT_TRUE(ggml_gallocr_alloc_graph(ga, g));
    std::vector<float> xs(n), ys(n), res(n);
    for (int64_t i = 0; i < n; i++) {
        xs[i] = std::sin((float) i);
        ys[i] = std::cos((float) i * 0.5f);
    }
    ggml_backend_tensor_set(x, xs.data(), 0, n * sizeof(float));
    ggml_backend_tensor_set(y, ys.data(), 0, n * sizeof(float));
    ASSERT_EQ(ggml_backend_graph_compute(be, g), GGML_STATUS_SUCCESS);
    ggml_backend_tensor_get(out, res.data(), 0, n * sizeof(float));
    for (int64_t i = 0; i < n; i++) {
        const float av   = 2 * xs[i];
        const float bv   = av + ys[i];
        const float want = 0.5f * (bv * bv - av + xs[i]);
        ASSERT_NEAR(res[i], want, 1e-4f * (1 + std::fabs(want))) << i;
    }
    ggml_gallocr_free(ga);
    ggml_backend_free(be);
}

}  // namespace
