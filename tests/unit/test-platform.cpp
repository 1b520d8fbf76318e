// The platform layer (ggml/src/platform, ggml-os.h) on the OS it was built for: the same test runs on
// Linux natively and as the Windows build under Wine (.ci/run), so each call is checked against its
// contract, not against one OS's behaviour. File names carry non-ASCII characters throughout: paths
// are UTF-8 on every OS.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "ggml-os.h"
#include "ggml.h"
#include "test-common.h"

namespace {

// Greek, CJK and an emoji: outside every ANSI code page at once.
const std::string k_name = "plat-\xce\xb1\xce\xb2\xce\xb3-\xe6\xb8\xac\xe8\xa9\xa6-\xf0\x9f\xa6\x99";

std::string temp_path(const std::string & leaf) {
    return testing::TempDir() + leaf;
}

void write_file(const std::string & path, const std::string & bytes) {
    FILE * f = ggml_os_fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr) << ggml_os_error();
    ASSERT_EQ(fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
    ASSERT_EQ(fclose(f), 0);
}

std::string read_all(const std::string & path) {
    std::string out;
    FILE *      f = ggml_os_fopen(path.c_str(), "rb");
    if (!f) {
        return "<cannot open>";
    }
    char   buf[256];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
        out.append(buf, n);
    }
    fclose(f);
    return out;
}

}  // namespace

TEST(Platform, Utf8PathsOpenReadMapAndReplace) {
    const std::string path  = temp_path(k_name + ".bin");
    std::string       bytes = "0123456789abcdef";
    for (int i = 0; i < 12; ++i) {
        bytes += bytes;  // 64 KiB: more than one page
    }
    write_file(path, bytes);

    ggml_os_file f = GGML_OS_FILE_INIT;
    ASSERT_EQ(ggml_os_file_open_read(path.c_str(), 0, &f), GGML_OS_OK) << ggml_os_error();
    EXPECT_EQ(f.size, bytes.size());

    // positioned reads, from two threads at once (no shared file position)
    std::atomic<int> bad{0};
    auto             reader = [&](uint64_t off) {
        for (int r = 0; r < 200; ++r) {
            char          buf[100];
            const int64_t n = ggml_os_file_pread(&f, buf, sizeof(buf), off);
            bad += n != (int64_t) sizeof(buf) || std::memcmp(buf, bytes.data() + off, sizeof(buf)) != 0;
        }
    };
    std::thread t1(reader, 5), t2(reader, 40000);
    t1.join();
    t2.join();
    EXPECT_EQ(bad.load(), 0);
    char tail[8];
    EXPECT_EQ(ggml_os_file_pread(&f, tail, sizeof(tail), bytes.size() - 3), 3);
    EXPECT_EQ(ggml_os_file_pread(&f, tail, sizeof(tail), bytes.size()), 0);  // at the end

    // the same file opened twice has the same identity
    ggml_os_file g = GGML_OS_FILE_INIT;
    ASSERT_EQ(ggml_os_file_open_read(path.c_str(), 0, &g), GGML_OS_OK);
    EXPECT_EQ(g.id[0], f.id[0]);
    EXPECT_EQ(g.id[1], f.id[1]);
    ggml_os_file_close(&g);
    EXPECT_EQ(g.handle, -1);

    // a read-only map outlives the handle
    void * map = ggml_os_map_read(&f, bytes.size());
    ASSERT_NE(map, nullptr) << ggml_os_error();
    ggml_os_file_close(&f);
    ggml_os_prefetch(map, bytes.size());
    EXPECT_EQ(std::memcmp(map, bytes.data(), bytes.size()), 0);
    if (ggml_os_mlock(map, 4096)) {  // may be refused by a quota: only a success is checked
        ggml_os_munlock(map, 4096);
    }
    ggml_os_unmap(map, bytes.size());

    // rename over an existing file replaces it (Windows' plain rename would refuse)
    const std::string other = temp_path(k_name + "-other.bin");
    write_file(other, "old");
    ASSERT_TRUE(ggml_os_rename_replace(path.c_str(), other.c_str())) << ggml_os_error();
    EXPECT_EQ(read_all(other), bytes);
    EXPECT_EQ(ggml_os_fopen(path.c_str(), "rb"), nullptr);  // moved away

    // the public wrapper opens the same UTF-8 names
    FILE * pub = ggml_fopen(other.c_str(), "rb");
    ASSERT_NE(pub, nullptr);
    char      path_buf[4096];
    const int named = ggml_os_stdio_path(pub, path_buf, sizeof(path_buf));
    if (named == GGML_OS_OK) {  // the name it gives opens the same bytes
        EXPECT_EQ(read_all(path_buf), bytes) << path_buf;
    } else {
        EXPECT_EQ(named, GGML_OS_UNSUPPORTED);
    }
    fclose(pub);

    EXPECT_TRUE(ggml_os_remove(other.c_str())) << ggml_os_error();
    EXPECT_FALSE(ggml_os_remove(other.c_str()));
    EXPECT_NE(std::string(ggml_os_error()), "");
}

TEST(Platform, MissingAndSpecialFilesFailWithAReason) {
    ggml_os_file      f  = GGML_OS_FILE_INIT;
    const std::string no = temp_path(k_name + "-missing.bin");
    EXPECT_EQ(ggml_os_file_open_read(no.c_str(), 0, &f), GGML_OS_FAILED);
    EXPECT_NE(std::string(ggml_os_error()).find("No such file or directory"), std::string::npos) << ggml_os_error();
    EXPECT_EQ(f.handle, -1);
    // a directory is not a regular file, for reading and for writing
    EXPECT_EQ(ggml_os_file_open_read(testing::TempDir().c_str(), 0, &f), GGML_OS_NOT_REGULAR);
    FILE * out = nullptr;
    EXPECT_EQ(ggml_os_fopen_write_regular(testing::TempDir().c_str(), &out), GGML_OS_NOT_REGULAR);
    EXPECT_EQ(out, nullptr);
    // a regular file is created, written and handed over as a stream
    const std::string w = temp_path(k_name + "-w.bin");
    ASSERT_EQ(ggml_os_fopen_write_regular(w.c_str(), &out), GGML_OS_OK) << ggml_os_error();
    fputs("hello", out);
    fclose(out);
    ASSERT_EQ(ggml_os_file_open_read(w.c_str(), 0, &f), GGML_OS_OK);
    FILE * in = ggml_os_file_to_stdio(&f, "rb");
    ASSERT_NE(in, nullptr) << ggml_os_error();
    EXPECT_EQ(f.handle, -1);  // the stream owns it now
    ASSERT_EQ(ggml_os_fseek64(in, 1), 0);
    char buf[8] = {};
    EXPECT_EQ(fread(buf, 1, sizeof(buf), in), 4u);
    EXPECT_STREQ(buf, "ello");
    fclose(in);
    EXPECT_TRUE(ggml_os_remove(w.c_str()));
}

TEST(Platform, AlignedMemoryAndTheMachine) {
    for (size_t align : {(size_t) 16, (size_t) 64, (size_t) 4096, (size_t) 2 << 20}) {
        void * p = ggml_os_aligned_alloc(align, 3 * align + 8);
        ASSERT_NE(p, nullptr);
        EXPECT_EQ((uintptr_t) p % align, 0u) << align;
        std::memset(p, 0x5a, 3 * align + 8);
        ggml_os_advise_huge_pages(p, 3 * align);
        ggml_os_aligned_free(p);
    }
    const size_t page = ggml_os_page_size();
    EXPECT_GE(page, 4096u);
    EXPECT_EQ(page & (page - 1), 0u);
    EXPECT_GT(ggml_os_memory_total(), (uint64_t) 64 << 20);
    EXPECT_LE(ggml_os_memory_available(), ggml_os_memory_total());
    const int n = (int) std::thread::hardware_concurrency();
    const int p = ggml_os_performance_cpus(n);
    EXPECT_GE(p, 0);
    EXPECT_LE(p, n > 0 ? n : 1024);
    char name[256];
    if (ggml_os_cpu_name(name, sizeof(name))) {
        EXPECT_GT(std::strlen(name), 0u);
    }
}

TEST(Platform, ClockIsMonotonic) {
    const int64_t t0 = ggml_os_time_us();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const int64_t t1 = ggml_os_time_us();
    EXPECT_GE(t1 - t0, 15000);
    EXPECT_LT(t1 - t0, 5000000);
}

namespace {
std::atomic<int> g_runs{0};
ggml_os_once     g_once       = GGML_OS_ONCE_INIT;
ggml_os_once     g_inner_once = GGML_OS_ONCE_INIT;
void             inner() {
                g_runs += 100;
}
void outer() {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));  // let the other threads arrive and wait
    ggml_os_call_once(&g_inner_once, inner);                     // nested one-time initialisation
    g_runs += 1;
}
}  // namespace

TEST(Platform, CallOnceRunsOnceAndOthersWait) {
    std::vector<std::thread> ts;
    std::atomic<int>         seen_done{0};
    for (int i = 0; i < 8; ++i) {
        ts.emplace_back([&] {
            ggml_os_call_once(&g_once, outer);
            seen_done += g_runs.load() == 101;  // returned only after outer finished
        });
    }
    for (auto & t : ts) {
        t.join();
    }
    EXPECT_EQ(g_runs.load(), 101);
    EXPECT_EQ(seen_done.load(), 8);
}

TEST(Platform, DynamicLibraryLoadsAndResolves) {
    // the project's own libggml (tests/extra-tests.cmake passes its path in shared builds)
#if defined(LLAMA_TEST_GGML_LIB)
    const std::string lib = LLAMA_TEST_GGML_LIB;
#else
    GTEST_SKIP() << "static build: no shared library of the project to load";
    const std::string lib;
#endif
    void * h = ggml_os_dl_open(lib.c_str());
    ASSERT_NE(h, nullptr) << lib << ": " << ggml_os_error();
    EXPECT_NE(ggml_os_dl_sym(h, "ggml_time_us"), nullptr) << ggml_os_error();
    EXPECT_EQ(ggml_os_dl_sym(h, "no_such_symbol_here"), nullptr);
    EXPECT_NE(std::string(ggml_os_error()).find("no_such_symbol_here"), std::string::npos);
    ggml_os_dl_close(h);
    EXPECT_EQ(ggml_os_dl_open((testing::TempDir() + k_name + ggml_os_dl_suffix()).c_str()), nullptr);
    EXPECT_NE(std::string(ggml_os_error()), "");
}
