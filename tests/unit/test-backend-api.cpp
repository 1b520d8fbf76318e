// Buffers, bounds-checked tensor data access, the CPU backend/device and the global registry.
#include "ggml-backend-impl.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

// Counts error messages sent to the log callback while alive (and keeps them off stderr).
struct log_capture {
    int         errors = 0;
    std::string last;
    log_capture() { ggml_log_set(cb, this); }
    ~log_capture() { ggml_log_set(nullptr, nullptr); }
    static void cb(ggml_log_level level, const char * text, void * ud) {
        auto * self = (log_capture *) ud;
        if (level == GGML_LOG_LEVEL_ERROR) {
            self->errors++;
            self->last = text;
        }
    }
};

struct ctx_guard {
    ggml_context * ctx;
    explicit ctx_guard(size_t n_tensors) {
        ggml_init_params p = {n_tensors * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
        ctx                = ggml_init(p);
    }
    ~ctx_guard() { ggml_free(ctx); }
};

// Places every tensor of ctx in one new buffer of buft (the test does not rely on the allocators).
ggml_backend_buffer_t place_all(ggml_context * ctx, ggml_backend_buffer_type_t buft) {
    const size_t align = ggml_backend_buft_get_alignment(buft);
    size_t       total = 0;
    for (ggml_tensor * t = ggml_get_first_tensor(ctx); t; t = ggml_get_next_tensor(ctx, t)) {
        total += (ggml_backend_buft_get_alloc_size(buft, t) + align - 1) / align * align;
    }
    ggml_backend_buffer_t buf  = ggml_backend_buft_alloc_buffer(buft, total);
    char *                base = (char *) ggml_backend_buffer_get_base(buf);
    size_t                offs = 0;
    for (ggml_tensor * t = ggml_get_first_tensor(ctx); t; t = ggml_get_next_tensor(ctx, t)) {
        EXPECT_EQ(ggml_backend_tensor_alloc(buf, t, base + offs), GGML_STATUS_SUCCESS);
        offs += (ggml_backend_buft_get_alloc_size(buft, t) + align - 1) / align * align;
    }
    return buf;
}

}  // namespace

TEST(BackendStatus, Strings) {
    EXPECT_NE(std::string(ggml_status_to_string(GGML_STATUS_SUCCESS)).find("success"), std::string::npos);
    EXPECT_NE(std::string(ggml_status_to_string(GGML_STATUS_ABORTED)).find("abort"), std::string::npos);
    EXPECT_NE(std::string(ggml_status_to_string(GGML_STATUS_FAILED)).find("fail"), std::string::npos);
    EXPECT_NE(std::string(ggml_status_to_string(GGML_STATUS_ALLOC_FAILED)).find("alloc"), std::string::npos);
}

TEST(BackendBuffer, CpuBufferTypeAndClear) {
    ggml_backend_buffer_type_t buft = ggml_backend_cpu_buffer_type();
    ASSERT_NE(buft, nullptr);
    EXPECT_STREQ(ggml_backend_buft_name(buft), "CPU");
    EXPECT_TRUE(ggml_backend_buft_is_host(buft));
    EXPECT_GE(ggml_backend_buft_get_alignment(buft), 64u);
    EXPECT_EQ(ggml_backend_buft_get_device(buft), ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU));

    ggml_backend_buffer_t buf = ggml_backend_buft_alloc_buffer(buft, 1000);
    ASSERT_NE(buf, nullptr);
    EXPECT_EQ(ggml_backend_buffer_get_size(buf), 1000u);
    EXPECT_EQ((uintptr_t) ggml_backend_buffer_get_base(buf) % 64, 0u);
    EXPECT_TRUE(ggml_backend_buffer_is_host(buf));
    EXPECT_EQ(ggml_backend_buffer_get_type(buf), buft);
    EXPECT_EQ(ggml_backend_buffer_get_usage(buf), GGML_BACKEND_BUFFER_USAGE_ANY);
    ggml_backend_buffer_set_usage(buf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    EXPECT_EQ(ggml_backend_buffer_get_usage(buf), GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    ggml_backend_buffer_clear(buf, 0xAB);
    const uint8_t * p = (const uint8_t *) ggml_backend_buffer_get_base(buf);
    for (int i = 0; i < 1000; i++) {
        ASSERT_EQ(p[i], 0xAB) << i;
    }
    ggml_backend_buffer_free(buf);
    ggml_backend_buffer_free(nullptr);  // no-op
}

TEST(BackendBuffer, ZeroSizeBufferIsValid) {
    ggml_backend_buffer_t buf = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), 0);
    ASSERT_NE(buf, nullptr);
    EXPECT_EQ(ggml_backend_buffer_get_size(buf), 0u);
    EXPECT_NE(ggml_backend_buffer_get_base(buf), nullptr);
    ggml_backend_buffer_clear(buf, 0);
    ggml_backend_buffer_free(buf);
}

TEST(BackendBuffer, FromPtrWrapsCallerMemory) {
    std::vector<float>    mem(64, 0.0f);
    ggml_backend_buffer_t buf = ggml_backend_cpu_buffer_from_ptr(mem.data(), mem.size() * sizeof(float));
    ASSERT_NE(buf, nullptr);
    EXPECT_TRUE(ggml_backend_buffer_is_host(buf));
    EXPECT_EQ(ggml_backend_buffer_get_base(buf), (void *) mem.data());

    ctx_guard     g(4);
    ggml_tensor * t = ggml_new_tensor_1d(g.ctx, GGML_TYPE_F32, 16);
    ASSERT_EQ(ggml_backend_tensor_alloc(buf, t, mem.data() + 8), GGML_STATUS_SUCCESS);
    const float v[2] = {1.5f, -2.0f};
    ggml_backend_tensor_set(t, v, 4, sizeof(v));
    EXPECT_EQ(mem[9], 1.5f);
    EXPECT_EQ(mem[10], -2.0f);
    ggml_backend_buffer_free(buf);  // must not free mem (the vector's destructor would then double free)
    EXPECT_EQ(mem[9], 1.5f);

    log_capture lc;
    EXPECT_EQ(ggml_backend_cpu_buffer_from_ptr(nullptr, 16), nullptr);
    EXPECT_GE(lc.errors, 1);
}

TEST(BackendBuffer, TensorAllocRefusesOutOfRange) {
    ggml_backend_buffer_t buf = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), 64);
    ASSERT_NE(buf, nullptr);
    ctx_guard     g(4);
    ggml_tensor * t    = ggml_new_tensor_1d(g.ctx, GGML_TYPE_F32, 16);  // 64 bytes
    char *        base = (char *) ggml_backend_buffer_get_base(buf);
    log_capture   lc;
    EXPECT_NE(ggml_backend_tensor_alloc(buf, t, base + 4), GGML_STATUS_SUCCESS);
    EXPECT_EQ(t->data, nullptr);
    EXPECT_EQ(t->buffer, nullptr);
    EXPECT_NE(ggml_backend_tensor_alloc(buf, t, base - 64), GGML_STATUS_SUCCESS);
    EXPECT_GE(lc.errors, 2);
    EXPECT_EQ(ggml_backend_tensor_alloc(buf, t, base), GGML_STATUS_SUCCESS);
    EXPECT_EQ(t->data, (void *) base);
    EXPECT_EQ(t->buffer, buf);
    ggml_backend_buffer_free(buf);
}

TEST(BackendTensorData, SetGetMemsetAndBounds) {
    ctx_guard             g(4);
    ggml_tensor *         t     = ggml_new_tensor_1d(g.ctx, GGML_TYPE_F32, 16);
    ggml_tensor *         guard = ggml_new_tensor_1d(g.ctx, GGML_TYPE_F32, 16);  // placed right after t
    ggml_backend_buffer_t buf   = place_all(g.ctx, ggml_backend_cpu_buffer_type());
    ASSERT_NE(buf, nullptr);
    ggml_backend_buffer_clear(buf, 0);

    std::vector<float> in(16), out(16, -1.0f);
    for (int i = 0; i < 16; i++) {
        in[i] = (float) i + 0.5f;
    }
    ggml_backend_tensor_set(t, in.data(), 0, 64);
    ggml_backend_tensor_get(t, out.data(), 0, 64);
    EXPECT_EQ(in, out);

    // a partial range
    float two[2] = {100.0f, 200.0f};
    ggml_backend_tensor_set(t, two, 8, sizeof(two));
    ggml_backend_tensor_get(t, out.data(), 0, 64);
    EXPECT_EQ(out[2], 100.0f);
    EXPECT_EQ(out[3], 200.0f);
    EXPECT_EQ(out[4], 4.5f);

    // memset of a sub-range
    ggml_backend_tensor_memset(t, 0, 4 * 4, 4 * 4);
    ggml_backend_tensor_get(t, out.data(), 0, 64);
    for (int i = 4; i < 8; i++) {
        EXPECT_EQ(out[i], 0.0f);
    }
    EXPECT_EQ(out[8], 8.5f);

    // out of range: refused, logged, nothing written anywhere (the neighbour tensor stays zero)
    std::vector<float> before(16);
    ggml_backend_tensor_get(t, before.data(), 0, 64);
    std::vector<float> big(32, 7.0f);
    {
        log_capture lc;
        ggml_backend_tensor_set(t, big.data(), 0, 65);
        ggml_backend_tensor_set(t, big.data(), 60, 8);
        ggml_backend_tensor_set(t, big.data(), 65, 0);
        ggml_backend_tensor_set(t, big.data(), SIZE_MAX, 8);      // offset + size overflows
        ggml_backend_tensor_set(t, big.data(), 8, SIZE_MAX - 4);  // idem
        ggml_backend_tensor_memset(t, 0xFF, 32, 64);
        EXPECT_EQ(lc.errors, 6);
        EXPECT_NE(lc.last.find("outside"), std::string::npos) << lc.last;
    }
    ggml_backend_tensor_get(t, out.data(), 0, 64);
    EXPECT_EQ(before, out);
    std::vector<float> g_out(16, -1.0f);
    ggml_backend_tensor_get(guard, g_out.data(), 0, 64);
    for (float v : g_out) {
        EXPECT_EQ(v, 0.0f);
    }

    // get out of range leaves the destination untouched
    {
        log_capture        lc;
        std::vector<float> dst(32, 42.0f);
        ggml_backend_tensor_get(t, dst.data(), 0, 128);
        ggml_backend_tensor_get(t, dst.data(), 64, 4);
        EXPECT_EQ(lc.errors, 2);
        for (float v : dst) {
            EXPECT_EQ(v, 42.0f);
        }
    }
    ggml_backend_buffer_free(buf);
}

TEST(BackendTensorData, UnallocatedTensorRefused) {
    ctx_guard     g(2);
    ggml_tensor * t    = ggml_new_tensor_1d(g.ctx, GGML_TYPE_F32, 4);
    float         v[4] = {1, 2, 3, 4};
    log_capture   lc;
    ggml_backend_tensor_set(t, v, 0, sizeof(v));
    ggml_backend_tensor_get(t, v, 0, sizeof(v));
    ggml_backend_tensor_memset(t, 0, 0, sizeof(v));
    ggml_backend_tensor_set(nullptr, v, 0, sizeof(v));
    EXPECT_EQ(lc.errors, 4);
    EXPECT_EQ(v[0], 1.0f);
}

TEST(BackendTensorData, ViewInitAndCopy) {
    ctx_guard             g(8);
    ggml_tensor *         a   = ggml_new_tensor_1d(g.ctx, GGML_TYPE_F32, 8);
    ggml_tensor *         b   = ggml_new_tensor_1d(g.ctx, GGML_TYPE_F32, 8);
    ggml_backend_buffer_t buf = place_all(g.ctx, ggml_backend_cpu_buffer_type());
    ASSERT_NE(buf, nullptr);
    ggml_tensor * v = ggml_view_1d(g.ctx, a, 4, 4 * sizeof(float));
    ASSERT_NE(v, nullptr);
    if (!v->data) {
        ASSERT_EQ(ggml_backend_view_init(v), GGML_STATUS_SUCCESS);
    }
    EXPECT_EQ(v->data, (void *) ((float *) a->data + 4));
    EXPECT_EQ(v->buffer, buf);

    float in[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    ggml_backend_tensor_set(a, in, 0, sizeof(in));
    float vv[4];
    ggml_backend_tensor_get(v, vv, 0, sizeof(vv));
    EXPECT_EQ(vv[0], 4.0f);
    EXPECT_EQ(vv[3], 7.0f);

    ggml_backend_tensor_copy(a, b);
    float out[8];
    ggml_backend_tensor_get(b, out, 0, sizeof(out));
    EXPECT_EQ(std::memcmp(in, out, sizeof(in)), 0);
    ggml_backend_buffer_free(buf);
}

TEST(BackendRegistry, CpuIsRegisteredFirst) {
    ASSERT_GE(ggml_backend_reg_count(), 1u);
    ggml_backend_reg_t cpu = ggml_backend_reg_get(0);
    ASSERT_NE(cpu, nullptr);
    EXPECT_STREQ(ggml_backend_reg_name(cpu), "CPU");
    EXPECT_EQ(cpu, ggml_backend_cpu_reg());
    EXPECT_EQ(ggml_backend_reg_get(ggml_backend_reg_count()), nullptr);

    EXPECT_EQ(ggml_backend_reg_by_name("cpu"), cpu);
    EXPECT_EQ(ggml_backend_reg_by_name("Cpu"), cpu);
    EXPECT_EQ(ggml_backend_reg_by_name("nope"), nullptr);
    EXPECT_EQ(ggml_backend_reg_by_name("CPUX"), nullptr);
    EXPECT_EQ(ggml_backend_reg_by_name(nullptr), nullptr);

    ASSERT_EQ(ggml_backend_reg_dev_count(cpu), 1u);
    EXPECT_EQ(ggml_backend_reg_dev_get(cpu, 1), nullptr);
    ggml_backend_dev_t dev = ggml_backend_reg_dev_get(cpu, 0);
    ASSERT_NE(dev, nullptr);
    EXPECT_EQ(ggml_backend_dev_get(0), dev);
    EXPECT_GE(ggml_backend_dev_count(), 1u);
    EXPECT_EQ(ggml_backend_dev_by_name("cPu"), dev);
    EXPECT_EQ(ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU), dev);
    EXPECT_EQ(ggml_backend_dev_backend_reg(dev), cpu);
}

TEST(BackendRegistry, CpuDeviceProperties) {
    ggml_backend_dev_t dev = ggml_backend_dev_by_name("CPU");
    ASSERT_NE(dev, nullptr);
    EXPECT_STREQ(ggml_backend_dev_name(dev), "CPU");
    EXPECT_GT(std::strlen(ggml_backend_dev_description(dev)), 0u);
    EXPECT_EQ(ggml_backend_dev_type(dev), GGML_BACKEND_DEVICE_TYPE_CPU);
    size_t free = 0, total = 0;
    ggml_backend_dev_memory(dev, &free, &total);
    EXPECT_GT(total, 0u);
    EXPECT_GT(free, 0u);
    EXPECT_LE(free, total);

    ggml_backend_dev_props props;
    ggml_backend_dev_get_props(dev, &props);
    EXPECT_STREQ(props.name, "CPU");
    EXPECT_EQ(props.type, GGML_BACKEND_DEVICE_TYPE_CPU);
    EXPECT_TRUE(props.caps.buffer_from_host_ptr);
    EXPECT_FALSE(props.caps.async);
    EXPECT_EQ(ggml_backend_dev_buffer_type(dev), ggml_backend_cpu_buffer_type());
    EXPECT_EQ(ggml_backend_dev_host_buffer_type(dev), nullptr);
    EXPECT_TRUE(ggml_backend_dev_supports_buft(dev, ggml_backend_cpu_buffer_type()));

    std::vector<uint8_t>  mem(256);
    ggml_backend_buffer_t b = ggml_backend_dev_buffer_from_host_ptr(dev, mem.data(), mem.size(), mem.size());
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(ggml_backend_buffer_get_base(b), (void *) mem.data());
    ggml_backend_buffer_free(b);
}

TEST(BackendRegistry, InitByNameTypeBestAndProcAddress) {
    ggml_backend_t b1 = ggml_backend_init_by_name("cpu", nullptr);
    ASSERT_NE(b1, nullptr);
    EXPECT_TRUE(ggml_backend_is_cpu(b1));
    EXPECT_STREQ(ggml_backend_name(b1), "CPU");
    ggml_backend_t b2 = ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_CPU, nullptr);
    ASSERT_NE(b2, nullptr);
    ggml_backend_t b3 = ggml_backend_init_best();
    ASSERT_NE(b3, nullptr);
    const bool has_gpu = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_GPU) ||
                         ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_IGPU);
    EXPECT_EQ(ggml_backend_is_cpu(b3), !has_gpu);

    {
        log_capture lc;
        EXPECT_EQ(ggml_backend_init_by_name("nope", nullptr), nullptr);
        EXPECT_EQ(lc.errors, 1);
    }

    void * fn = ggml_backend_reg_get_proc_address(ggml_backend_cpu_reg(), "ggml_backend_set_n_threads");
    ASSERT_NE(fn, nullptr);
    ((ggml_backend_set_n_threads_t) fn)(b1, 2);
    EXPECT_EQ(ggml_backend_reg_get_proc_address(ggml_backend_cpu_reg(), "no_such_function"), nullptr);

    ggml_backend_free(b1);
    ggml_backend_free(b2);
    ggml_backend_free(b3);
    ggml_backend_free(nullptr);
}

TEST(BackendCpu, BackendBasicsAndCompute) {
    ggml_backend_t be = ggml_backend_cpu_init();
    ASSERT_NE(be, nullptr);
    EXPECT_EQ(ggml_backend_get_default_buffer_type(be), ggml_backend_cpu_buffer_type());
    EXPECT_EQ(ggml_backend_get_device(be), ggml_backend_dev_by_name("CPU"));
    EXPECT_GE(ggml_backend_get_alignment(be), 64u);
    EXPECT_TRUE(ggml_backend_supports_buft(be, ggml_backend_cpu_buffer_type()));
    ggml_backend_cpu_set_n_threads(be, 0);  // clamped to 1
    ggml_backend_cpu_set_n_threads(be, 2);

    ctx_guard     g(8);
    ggml_tensor * a  = ggml_new_tensor_1d(g.ctx, GGML_TYPE_F32, 37);
    ggml_tensor * b  = ggml_new_tensor_1d(g.ctx, GGML_TYPE_F32, 37);
    ggml_tensor * c  = ggml_add(g.ctx, a, b);
    ggml_tensor * d  = ggml_mul(g.ctx, c, b);
    ggml_cgraph * gf = ggml_new_graph(g.ctx);
    ggml_build_forward_expand(gf, d);
    EXPECT_TRUE(ggml_backend_supports_op(be, c));
    ggml_backend_buffer_t buf = place_all(g.ctx, ggml_backend_cpu_buffer_type());
    ASSERT_NE(buf, nullptr);

    std::vector<float> va(37), vb(37), out(37);
    for (int i = 0; i < 37; i++) {
        va[i] = (float) i;
        vb[i] = 0.5f * (float) (i % 5) - 1.0f;
    }
    ggml_backend_tensor_set(a, va.data(), 0, 37 * sizeof(float));
    ggml_backend_tensor_set(b, vb.data(), 0, 37 * sizeof(float));
    ASSERT_EQ(ggml_backend_graph_compute(be, gf), GGML_STATUS_SUCCESS);
    ggml_backend_tensor_get(d, out.data(), 0, 37 * sizeof(float));
    for (int i = 0; i < 37; i++) {
        EXPECT_FLOAT_EQ(out[i], (va[i] + vb[i]) * vb[i]) << i;
    }

    // the abort callback stops the compute
    ggml_backend_cpu_set_abort_callback(
        be, [](void *) { return true; }, nullptr);
    EXPECT_EQ(ggml_backend_graph_compute(be, gf), GGML_STATUS_ABORTED);
    ggml_backend_cpu_set_abort_callback(be, nullptr, nullptr);
    EXPECT_EQ(ggml_backend_graph_compute(be, gf), GGML_STATUS_SUCCESS);

    ggml_backend_buffer_free(buf);
    ggml_backend_free(be);
}

TEST(BackendCpu, CompareGraphBackendCpuVsCpu) {
    ggml_backend_t b1 = ggml_backend_cpu_init();
    ggml_backend_t b2 = ggml_backend_cpu_init();
    ASSERT_NE(b1, nullptr);
    ASSERT_NE(b2, nullptr);
    ctx_guard     g(16);
    ggml_tensor * a  = ggml_new_tensor_2d(g.ctx, GGML_TYPE_F32, 8, 3);
    ggml_tensor * b  = ggml_new_tensor_2d(g.ctx, GGML_TYPE_F32, 8, 1);
    ggml_tensor * c  = ggml_add(g.ctx, a, b);
    ggml_tensor * d  = ggml_sqr(g.ctx, c);
    ggml_tensor * e  = ggml_sum_rows(g.ctx, d);
    ggml_cgraph * gf = ggml_new_graph(g.ctx);
    ggml_build_forward_expand(gf, e);
    ggml_backend_buffer_t buf = place_all(g.ctx, ggml_backend_cpu_buffer_type());
    std::vector<float>    va(24), vb(8);
    for (int i = 0; i < 24; i++)
        va[i] = 0.25f * (float) i;
    for (int i = 0; i < 8; i++)
        vb[i] = -1.0f + (float) i;
    ggml_backend_tensor_set(a, va.data(), 0, va.size() * 4);
    ggml_backend_tensor_set(b, vb.data(), 0, vb.size() * 4);

    struct state {
        int  n     = 0;
        bool equal = true;
    } st;
    auto cb = [](int i, ggml_tensor * t1, ggml_tensor * t2, void * ud) {
        auto * s = (state *) ud;
        s->n++;
        std::vector<float> x(ggml_nelements(t1)), y(ggml_nelements(t2));
        ggml_backend_tensor_get(t1, x.data(), 0, ggml_nbytes(t1));
        ggml_backend_tensor_get(t2, y.data(), 0, ggml_nbytes(t2));
        s->equal = s->equal && x == y && t1 != t2;
        return true;
    };
    EXPECT_TRUE(ggml_backend_compare_graph_backend(b1, b2, gf, cb, &st));
    EXPECT_EQ(st.n, ggml_graph_n_nodes(gf));
    EXPECT_TRUE(st.equal);

    ggml_backend_buffer_free(buf);
    ggml_backend_free(b1);
    ggml_backend_free(b2);
}

TEST(BackendCpu, FeatureQueriesAreConsistent) {
    // one family at most: an x86 feature and an arm64 feature never both
    const bool x86 = ggml_cpu_has_avx2() || ggml_cpu_has_avx512();
    const bool arm = ggml_cpu_has_neon() || ggml_cpu_has_dotprod() || ggml_cpu_has_matmul_int8();
    EXPECT_FALSE(x86 && arm);
    if (ggml_cpu_has_avx512()) {
        EXPECT_TRUE(ggml_cpu_has_avx2());
        EXPECT_TRUE(ggml_cpu_has_avx512_vnni());
    }
    if (ggml_cpu_has_avx2()) {
        EXPECT_TRUE(ggml_cpu_has_fma());
        EXPECT_TRUE(ggml_cpu_has_f16c());
    }
    if (ggml_cpu_has_dotprod() || ggml_cpu_has_matmul_int8() || ggml_cpu_has_sve()) {
        EXPECT_TRUE(ggml_cpu_has_neon());
    }
    EXPECT_EQ(ggml_cpu_get_sve_cnt() > 0, ggml_cpu_has_sve() && ggml_cpu_get_sve_cnt() > 0);
    const int nt = ggml_cpu_default_n_threads();
    EXPECT_GE(nt, 1);
    EXPECT_LE(nt, 4);
}
