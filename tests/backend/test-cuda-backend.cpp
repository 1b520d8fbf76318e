// The CUDA backend beyond the op harness: the registry with and without a GPU (it never aborts, and with
// 0 devices says why in one readable log line), device properties, buffer transfers at odd offsets,
// device-to-device and pinned host copies, the out-of-memory path, async copies and events across two
// backends, CUDA-graph replay of a single-token graph, and a refused op failing cleanly.
// Without a CUDA device the device tests skip with one line; LLAMA_TEST_REQUIRE_CUDA=1 makes them fail.
#include "backend-test-util.h"
#include "ggml-alloc.h"
#include "ggml-backend-impl.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml-os.h"
#include "ggml.h"
#include "test-compat.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <string>
#include <vector>

using backend_test::ctx_holder;
using backend_test::random_floats;

namespace {

// Every log line, from before the registry is first touched (enumeration logs once, at that moment).
std::mutex               g_log_mutex;
std::vector<std::string> g_log;
const bool               k_log_installed = [] {
    ggml_log_set(
        [](ggml_log_level, const char * text, void *) {
            std::lock_guard<std::mutex> lock(g_log_mutex);
            g_log.emplace_back(text ? text : "");
        },
        nullptr);
    return true;
}();

// The CUDA family. A build with the backend as a module does not even open it on a machine without an
// NVIDIA device (docs/ggml-backend.md): the test opens it by its path then, so that the zero-device path
// below is checked there too (an explicit ggml_backend_load skips that precheck).
ggml_backend_reg_t cuda_reg() {
    if (ggml_backend_reg_t reg = ggml_backend_reg_by_name("CUDA")) {
        return reg;
    }
    static ggml_backend_reg_t loaded = [] {
        const char * dir = std::getenv("GGML_BACKEND_DIR");
        if (!dir) {
            return (ggml_backend_reg_t) nullptr;
        }
        const std::string path = std::string(dir) + "/libggml-cuda" + ggml_os_dl_suffix();
        FILE *            f    = std::fopen(path.c_str(), "rb");
        if (!f) {
            return (ggml_backend_reg_t) nullptr;  // built without CUDA
        }
        std::fclose(f);
        return ggml_backend_load(path.c_str());
    }();
    return loaded;
}

ggml_backend_dev_t cuda_dev(size_t i = 0) {
    ggml_backend_reg_t reg = cuda_reg();
    return reg && ggml_backend_reg_dev_count(reg) > i ? ggml_backend_reg_dev_get(reg, i) : nullptr;
}

#define SKIP_WITHOUT_CUDA()                                                               \
    if (!cuda_dev()) {                                                                    \
        if (backend_test::required("LLAMA_TEST_REQUIRE_CUDA"))                            \
            FAIL() << "LLAMA_TEST_REQUIRE_CUDA=1 but no CUDA device";                     \
        GTEST_SKIP() << "no CUDA device (build without LLAMA_CUDA, no driver or no GPU)"; \
    }

struct buffer_holder {
    ggml_backend_buffer_t b;
    ~buffer_holder() { ggml_backend_buffer_free(b); }
};

struct backend_holder {
    ggml_backend_t b;
    ~backend_holder() { ggml_backend_free(b); }
};

}  // namespace

TEST(Cuda, RegistryNeverAbortsAndExplainsZeroDevices) {
    ggml_backend_reg_t reg = cuda_reg();
    if (!reg) {
        if (backend_test::required("LLAMA_TEST_REQUIRE_CUDA"))
            FAIL() << "LLAMA_TEST_REQUIRE_CUDA=1 but built without CUDA";
        GTEST_SKIP() << "built without CUDA (LLAMA_CUDA=OFF)";
    }
    const size_t n = ggml_backend_reg_dev_count(reg);
    EXPECT_EQ(ggml_backend_reg_dev_get(reg, n), nullptr);
    EXPECT_EQ(ggml_backend_reg_dev_get(reg, 1000), nullptr);
    EXPECT_EQ(ggml_backend_dev_by_name("CUDA999"), nullptr);
    size_t n_cuda_in_list = 0;
    for (size_t i = 0; i < ggml_backend_dev_count(); i++)
        n_cuda_in_list += ggml_backend_dev_backend_reg(ggml_backend_dev_get(i)) == reg;
    EXPECT_EQ(n_cuda_in_list, n);

    std::vector<std::string> why;
    {
        std::lock_guard<std::mutex> lock(g_log_mutex);
        for (const std::string & l : g_log)
            if (l.find("ggml-cuda: no CUDA devices") != std::string::npos)
                why.push_back(l);
    }
    if (n == 0) {
        ASSERT_EQ(why.size(), 1u) << "0 CUDA devices must be explained by exactly one log line";
        for (char ch : why[0])
            EXPECT_TRUE(ch == '\n' || (ch >= 32 && ch < 127)) << "unprintable byte in: " << why[0];
        std::printf("%s", why[0].c_str());
        if (backend_test::required("LLAMA_TEST_REQUIRE_CUDA"))
            FAIL() << "LLAMA_TEST_REQUIRE_CUDA=1 but no CUDA device";
    } else {
        EXPECT_TRUE(why.empty());
    }
}

TEST(Cuda, DevicesAreEnumerated) {
    SKIP_WITHOUT_CUDA();
    ggml_backend_reg_t reg = cuda_reg();
    for (size_t i = 0; i < ggml_backend_reg_dev_count(reg); i++) {
        ggml_backend_dev_t dev = ggml_backend_reg_dev_get(reg, i);
        ASSERT_NE(dev, nullptr);
        EXPECT_EQ(std::string(ggml_backend_dev_name(dev)), "CUDA" + std::to_string(i));
        EXPECT_GT(std::strlen(ggml_backend_dev_description(dev)), 0u);
        EXPECT_EQ(ggml_backend_dev_type(dev), GGML_BACKEND_DEVICE_TYPE_GPU);  // n_gpu_layers uses it
        size_t free = 0, total = 0;
        ggml_backend_dev_memory(dev, &free, &total);
        EXPECT_GT(total, 0u);
        EXPECT_GT(free, 0u);
        EXPECT_LE(free, total);
        ggml_backend_dev_props props;
        ggml_backend_dev_get_props(dev, &props);
        EXPECT_TRUE(props.caps.async);
        EXPECT_TRUE(props.caps.events);
        EXPECT_TRUE(props.caps.host_buffer);
        ggml_backend_buffer_type_t buft = ggml_backend_dev_buffer_type(dev);
        ASSERT_NE(buft, nullptr);
        EXPECT_TRUE(ggml_backend_dev_supports_buft(dev, buft));
        EXPECT_FALSE(ggml_backend_buft_is_host(buft));
        const size_t align = ggml_backend_buft_get_alignment(buft);
        EXPECT_TRUE(align > 0 && (align & (align - 1)) == 0);
        ggml_backend_buffer_type_t host = ggml_backend_dev_host_buffer_type(dev);
        ASSERT_NE(host, nullptr);
        EXPECT_TRUE(ggml_backend_buft_is_host(host));
        EXPECT_FALSE(ggml_backend_dev_supports_buft(dev, host));
        EXPECT_TRUE(ggml_backend_dev_supports_buft(ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU), host));
        std::printf("%s: %s, %.0f MiB (%.0f MiB free)\n", ggml_backend_dev_name(dev), ggml_backend_dev_description(dev),
                    total / 1048576.0, free / 1048576.0);
    }
}

TEST(Cuda, BufferRoundTripAtOddOffsets) {
    SKIP_WITHOUT_CUDA();
    ggml_backend_buffer_type_t buft = ggml_backend_dev_buffer_type(cuda_dev());
    ctx_holder                 h(4);
    ggml_tensor *              t = ggml_new_tensor_1d(h.ctx, GGML_TYPE_I8, 100003);
    buffer_holder              buf{ggml_backend_alloc_ctx_tensors_from_buft(h.ctx, buft)};
    ASSERT_NE(buf.b, nullptr);
    EXPECT_FALSE(ggml_backend_buffer_is_host(buf.b));

    std::vector<uint8_t> data(100003);
    for (size_t i = 0; i < data.size(); i++)
        data[i] = (uint8_t) (i * 131 + 7);
    ggml_backend_tensor_set(t, data.data(), 0, data.size());
    std::vector<uint8_t> back(data.size(), 0);
    ggml_backend_tensor_get(t, back.data(), 0, back.size());
    EXPECT_EQ(back, data);

    const uint8_t patch[5] = {1, 2, 3, 4, 5};
    ggml_backend_tensor_set(t, patch, 77777, 5);
    uint8_t got[9] = {};
    ggml_backend_tensor_get(t, got, 77775, 9);
    EXPECT_EQ(got[0], data[77775]);
    EXPECT_EQ(got[2], 1);
    EXPECT_EQ(got[6], 5);
    EXPECT_EQ(got[7], data[77782]);

    ggml_backend_tensor_memset(t, 0xAB, 13, 3);
    ggml_backend_tensor_get(t, got, 12, 5);
    EXPECT_EQ(got[0], data[12]);
    EXPECT_EQ(got[1], 0xAB);
    EXPECT_EQ(got[3], 0xAB);
    EXPECT_EQ(got[4], data[16]);

    ggml_backend_buffer_clear(buf.b, 0x5A);
    ggml_backend_tensor_get(t, back.data(), 0, back.size());
    EXPECT_EQ(back, std::vector<uint8_t>(back.size(), 0x5A));

    ggml_backend_buffer_t empty = ggml_backend_buft_alloc_buffer(buft, 0);  // valid, with a non-NULL base
    ASSERT_NE(empty, nullptr);
    EXPECT_NE(ggml_backend_buffer_get_base(empty), nullptr);
    ggml_backend_buffer_free(empty);
}

// Device to device (same GPU; and to the second GPU when there is one) and through pinned host memory.
TEST(Cuda, DeviceToDeviceAndPinnedHostCopies) {
    SKIP_WITHOUT_CUDA();
    const size_t                    n    = 65537;
    const std::vector<float>        v    = random_floats(n, 5);
    ggml_backend_buffer_type_t      host = ggml_backend_dev_host_buffer_type(cuda_dev());
    std::vector<ggml_backend_dev_t> devs = {cuda_dev()};
    if (cuda_dev(1))
        devs.push_back(cuda_dev(1));
    for (ggml_backend_dev_t dst_dev : devs) {
        ctx_holder    ha(2), hb(2), hh(2);
        ggml_tensor * a = ggml_new_tensor_1d(ha.ctx, GGML_TYPE_F32, n);
        ggml_tensor * b = ggml_new_tensor_1d(hb.ctx, GGML_TYPE_F32, n);
        ggml_tensor * p = ggml_new_tensor_1d(hh.ctx, GGML_TYPE_F32, n);
        buffer_holder ba{ggml_backend_alloc_ctx_tensors_from_buft(ha.ctx, ggml_backend_dev_buffer_type(cuda_dev()))};
        buffer_holder bb{ggml_backend_alloc_ctx_tensors_from_buft(hb.ctx, ggml_backend_dev_buffer_type(dst_dev))};
        buffer_holder bh{ggml_backend_alloc_ctx_tensors_from_buft(hh.ctx, host)};
        ASSERT_TRUE(ba.b && bb.b && bh.b);
        EXPECT_TRUE(ggml_backend_buffer_is_host(bh.b));
        std::memcpy(p->data, v.data(), n * 4);  // pinned memory is plain host memory
        ggml_backend_tensor_copy(p, a);         // host -> device
        ggml_backend_tensor_copy(a, b);         // device -> device (cpy_tensor)
        ggml_backend_tensor_memset(a, 0, 0, n * 4);
        std::memset(p->data, 0, n * 4);
        ggml_backend_tensor_copy(b, p);  // device -> host
        EXPECT_EQ(std::memcmp(p->data, v.data(), n * 4), 0) << "to " << ggml_backend_dev_name(dst_dev);
    }
}

TEST(Cuda, OutOfMemoryIsNullAndTheDeviceStaysUsable) {
    SKIP_WITHOUT_CUDA();
    ggml_backend_buffer_type_t buft = ggml_backend_dev_buffer_type(cuda_dev());
    {
        std::lock_guard<std::mutex> lock(g_log_mutex);
        g_log.clear();
    }
    const size_t absurd = size_t(1) << 50;  // 1 PiB
    EXPECT_EQ(ggml_backend_buft_alloc_buffer(buft, absurd), nullptr);
    EXPECT_EQ(ggml_backend_buft_alloc_buffer(ggml_backend_dev_host_buffer_type(cuda_dev()), absurd), nullptr);
    bool logged = false;
    {
        std::lock_guard<std::mutex> lock(g_log_mutex);
        for (const std::string & l : g_log)
            logged = logged || l.find("cannot allocate") != std::string::npos;
    }
    EXPECT_TRUE(logged) << "an allocation failure must be logged";

    ctx_holder    h(2);
    ggml_tensor * t = ggml_new_tensor_1d(h.ctx, GGML_TYPE_F32, 1000);
    buffer_holder buf{ggml_backend_alloc_ctx_tensors_from_buft(h.ctx, buft)};
    ASSERT_NE(buf.b, nullptr) << "the device must stay usable after an out-of-memory error";
    const std::vector<float> v = random_floats(1000, 3);
    ggml_backend_tensor_set(t, v.data(), 0, 4000);
    std::vector<float> back(1000);
    ggml_backend_tensor_get(t, back.data(), 0, 4000);
    EXPECT_EQ(back, v);
}

// Async set/get on one backend, a device-to-device copy between two backends on the same device, and
// an event recorded on one stream and waited for on the other.
TEST(Cuda, AsyncCopiesAndEventsAcrossBackends) {
    SKIP_WITHOUT_CUDA();
    backend_holder b1{ggml_backend_dev_init(cuda_dev(), nullptr)};
    backend_holder b2{ggml_backend_dev_init(cuda_dev(cuda_dev(1) ? 1 : 0), nullptr)};
    ASSERT_TRUE(b1.b && b2.b);
    const size_t  n = 4099;
    ctx_holder    h1(2), h2(2);
    ggml_tensor * a = ggml_new_tensor_1d(h1.ctx, GGML_TYPE_F32, n);
    ggml_tensor * b = ggml_new_tensor_1d(h2.ctx, GGML_TYPE_F32, n);
    buffer_holder ba{ggml_backend_alloc_ctx_tensors(h1.ctx, b1.b)};
    buffer_holder bb{ggml_backend_alloc_ctx_tensors(h2.ctx, b2.b)};
    ASSERT_TRUE(ba.b && bb.b);

    const std::vector<float> v = random_floats(n, 11);
    ggml_backend_tensor_set_async(b1.b, a, v.data(), 0, n * 4);
    ggml_backend_tensor_copy_async(b1.b, b2.b, a, b);  // ordered after the upload by the copy events
    std::vector<float> back(n, 0.0f);
    ggml_backend_tensor_get_async(b2.b, b, back.data(), 0, n * 4);
    ggml_backend_synchronize(b2.b);
    EXPECT_EQ(back, v);

    ggml_backend_dev_t   dev = ggml_backend_get_device(b1.b);
    ggml_backend_event_t ev  = dev->iface.event_new(dev);
    ASSERT_NE(ev, nullptr);
    const std::vector<float> w = random_floats(n, 12);
    ggml_backend_tensor_set_async(b1.b, a, w.data(), 0, n * 4);
    b1.b->iface.event_record(b1.b, ev);
    b2.b->iface.event_wait(b2.b, ev);
    ggml_backend_tensor_copy_async(b1.b, b2.b, a, b);
    dev->iface.event_synchronize(dev, ev);
    ggml_backend_synchronize(b2.b);
    ggml_backend_tensor_get(b, back.data(), 0, n * 4);
    EXPECT_EQ(back, w);
    dev->iface.event_free(dev, ev);
}

// A single-token graph (a mat-vec between a norm and an activation) computed repeatedly: the second run
// is captured into a CUDA graph and later runs replay it; every run must equal the eager (graphs off)
// and CPU results.
TEST(Cuda, GraphReplayMatchesEagerAndCpu) {
    SKIP_WITHOUT_CUDA();
    using counts_fn  = void (*)(ggml_backend_t, uint64_t *, uint64_t *);
    const auto count = (counts_fn) ggml_backend_reg_get_proc_address(cuda_reg(), "ggml_backend_cuda_graph_counts");
    ASSERT_NE(count, nullptr);

    auto run = [](ggml_backend_t be, int reps, std::vector<std::vector<float>> & outs) -> bool {
        ctx_holder    h(16);
        ggml_tensor * x  = ggml_new_tensor_2d(h.ctx, GGML_TYPE_F32, 64, 1);
        ggml_tensor * w  = ggml_new_tensor_2d(h.ctx, GGML_TYPE_F32, 64, 48);
        ggml_tensor * y  = ggml_silu(h.ctx, ggml_mul_mat(h.ctx, w, ggml_rms_norm(h.ctx, x, 1e-5f)));
        ggml_cgraph * gf = ggml_new_graph(h.ctx);
        ggml_build_forward_expand(gf, y);
        for (int i = 0; i < ggml_graph_n_nodes(gf); i++)
            if (!ggml_backend_supports_op(be, ggml_graph_node(gf, i)))
                return false;
        buffer_holder buf{ggml_backend_alloc_ctx_tensors(h.ctx, be)};
        if (!buf.b)
            return false;
        const std::vector<float> ws = random_floats(64 * 48, 2);
        ggml_backend_tensor_set(w, ws.data(), 0, ws.size() * 4);
        for (int r = 0; r < reps; r++) {
            const std::vector<float> xs = random_floats(64, 100 + r);  // new input each "token"
            ggml_backend_tensor_set(x, xs.data(), 0, xs.size() * 4);
            if (ggml_backend_graph_compute(be, gf) != GGML_STATUS_SUCCESS)
                return false;
            outs.emplace_back(48);
            ggml_backend_tensor_get(y, outs.back().data(), 0, 48 * 4);
        }
        return true;
    };
    const int                       reps = 5;
    std::vector<std::vector<float>> with_graphs, eager, cpu;
    {
        backend_holder be{ggml_backend_dev_init(cuda_dev(), nullptr)};
        ASSERT_NE(be.b, nullptr);
        ASSERT_TRUE(run(be.b, reps, with_graphs)) << "the CUDA device must run rms_norm, mul_mat and silu";
        uint64_t captures = 0, launches = 0;
        count(be.b, &captures, &launches);
        EXPECT_EQ(captures, 1u) << "captured once for the one shape";
        EXPECT_EQ(launches, (uint64_t) reps - 1) << "every run after the first replays the graph";
    }
    {
        setenv("GGML_CUDA_DISABLE_GRAPHS", "1", 1);
        backend_holder be{ggml_backend_dev_init(cuda_dev(), nullptr)};
        unsetenv("GGML_CUDA_DISABLE_GRAPHS");
        ASSERT_NE(be.b, nullptr);
        ASSERT_TRUE(run(be.b, reps, eager));
        uint64_t captures = 1, launches = 1;
        count(be.b, &captures, &launches);
        EXPECT_EQ(captures + launches, 0u);
    }
    backend_holder cpu_be{ggml_backend_cpu_init()};
    ASSERT_TRUE(run(cpu_be.b, reps, cpu));
    for (int r = 0; r < reps; r++) {
        EXPECT_EQ(with_graphs[r], eager[r]) << "run " << r << ": graph replay differs from eager launches";
        for (int i = 0; i < 48; i++)
            EXPECT_NEAR(with_graphs[r][i], cpu[r][i], 1e-4 * (1 + std::fabs(cpu[r][i]))) << r << "," << i;
    }
}

// A node the device refuses, computed anyway: GGML_STATUS_FAILED (logged), no abort, and the backend
// still works afterwards. Skips when the device supports every candidate.
TEST(Cuda, RefusedOpFailsCleanly) {
    SKIP_WITHOUT_CUDA();
    backend_holder be{ggml_backend_dev_init(cuda_dev(), nullptr)};
    ASSERT_NE(be.b, nullptr);
    ctx_holder    h(16);
    ggml_tensor * x       = ggml_new_tensor_2d(h.ctx, GGML_TYPE_F32, 100000, 2);
    ggml_tensor * cands[] = {ggml_argsort(h.ctx, x, GGML_SORT_ORDER_ASC),  // a 100000-wide sort
                             ggml_cpy(h.ctx, x, ggml_new_tensor_2d(h.ctx, GGML_TYPE_BF16, 100000, 2))};
    ggml_tensor * refused = nullptr;
    for (ggml_tensor * c : cands)
        if (!refused && c->op != GGML_OP_NONE && !ggml_backend_supports_op(be.b, c))
            refused = c;
    if (!refused)
        GTEST_SKIP() << "the device supports every candidate op";
    ggml_cgraph * gf = ggml_new_graph(h.ctx);
    ggml_build_forward_expand(gf, refused);
    buffer_holder buf{ggml_backend_alloc_ctx_tensors(h.ctx, be.b)};
    ASSERT_NE(buf.b, nullptr);
    EXPECT_EQ(ggml_backend_graph_compute(be.b, gf), GGML_STATUS_FAILED);
    std::vector<float> v = random_floats(16, 1), back(16);
    ggml_backend_tensor_set(x, v.data(), 0, 64);
    ggml_backend_tensor_get(x, back.data(), 0, 64);
    EXPECT_EQ(back, v);
}

// The device-to-device copy bandwidth (read + write bytes per second) that scripts/gpu-check.sh puts next
// to the decode speed: the practical ceiling for a memory-bound kernel. Prints one "d2d bandwidth:" line.
TEST(Cuda, DeviceToDeviceBandwidth) {
    SKIP_WITHOUT_CUDA();
    const size_t  n = size_t(256) << 20;  // bytes per copy
    ctx_holder    h(2);
    ggml_tensor * a = ggml_new_tensor_1d(h.ctx, GGML_TYPE_I8, (int64_t) n);
    ggml_tensor * b = ggml_new_tensor_1d(h.ctx, GGML_TYPE_I8, (int64_t) n);
    buffer_holder buf{ggml_backend_alloc_ctx_tensors_from_buft(h.ctx, ggml_backend_dev_buffer_type(cuda_dev()))};
    ASSERT_NE(buf.b, nullptr);
    ggml_backend_tensor_memset(a, 1, 0, n);
    ggml_backend_tensor_copy(a, b);  // warm-up
    const int  reps = 20;
    const auto t0   = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; r++)
        ggml_backend_tensor_copy(r % 2 ? b : a, r % 2 ? a : b);  // each copy waits for completion
    const double dt  = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double gbs = 2.0 * (double) n * reps / dt / 1e9;
    std::printf("d2d bandwidth: %.1f GB/s (read + write, %d copies of %zu MiB)\n", gbs, reps, n >> 20);
    EXPECT_GT(gbs, 0.0);
}
