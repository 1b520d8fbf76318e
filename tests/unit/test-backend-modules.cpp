// Backend modules (ggml-backend.h "backend modules"): loading from an explicit file and folder, loading
// twice, unloading, families whose devices are enumerated only when asked for, and the files that must
// be skipped with one log line and no crash: a corrupt file, a foreign library, a module whose runtime is
// missing, and the CUDA module on a machine without an NVIDIA device. The modules are the test's own
// (tests/modules/fake-backend-module.cpp), built into LLAMA_TEST_MODULE_DIR.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include "ggml-backend.h"
#include "ggml-os.h"
#include "ggml.h"

namespace fs = std::filesystem;

namespace {

std::mutex               g_log_mutex;
std::vector<std::string> g_log;

void capture_log() {
    ggml_log_set(
        [](ggml_log_level, const char * text, void *) {
            std::lock_guard<std::mutex> lock(g_log_mutex);
            g_log.emplace_back(text ? text : "");
        },
        nullptr);
}

// The log lines since the last call that contain needle.
std::vector<std::string> take_log(const std::string & needle = "") {
    std::lock_guard<std::mutex> lock(g_log_mutex);
    std::vector<std::string>    out;
    for (const std::string & l : g_log) {
        if (l.find(needle) != std::string::npos) {
            out.push_back(l);
        }
    }
    g_log.clear();
    return out;
}

std::string module_file(const std::string & name) {
    return std::string("libggml-") + name + ggml_os_dl_suffix();
}

std::string built_module(const std::string & name) {
    return (fs::path(LLAMA_TEST_MODULE_DIR) / module_file(name)).string();
}

// A fresh folder under the temp folder, removed with its files at the end of the test.
struct temp_dir {
    fs::path path;

    explicit temp_dir(const std::string & stem) {
        path = fs::temp_directory_path() /
               (stem + "-" + std::to_string(std::rand()) + "-" + std::to_string((long long) ggml_os_time_us()));
        fs::create_directories(path);
    }

    ~temp_dir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }

    std::string file(const std::string & name) const { return (path / name).string(); }
};

ggml_backend_reg_t fake_reg() {
    return ggml_backend_reg_by_name("FAKEMOD");
}

int fake_enumerations(ggml_backend_reg_t reg) {
    using fn_t = int * (*) ();
    auto fn    = (fn_t) ggml_backend_reg_get_proc_address(reg, "fake_enumerations");
    return fn ? *fn() : -1;
}

bool has_device(const char * name) {
    for (size_t i = 0; i < ggml_backend_dev_count(); i++) {
        if (std::string(ggml_backend_dev_name(ggml_backend_dev_get(i))) == name) {
            return true;
        }
    }
    return false;
}

class BackendModules : public ::testing::Test {
protected:
    void SetUp() override {
        capture_log();
        (void) ggml_backend_reg_count();  // the registry's own first use (and its autoload) happens here
        take_log();
    }

    void TearDown() override {
        if (ggml_backend_reg_t reg = fake_reg()) {
            ggml_backend_unload(reg);
        }
        ggml_log_set(nullptr, nullptr);
    }
};

// Loading registers the family without enumerating its devices; asking for devices does, once.
TEST_F(BackendModules, LoadsAFileAndEnumeratesItsDevicesOnlyWhenAsked) {
    const size_t       n_regs = ggml_backend_reg_count();
    ggml_backend_reg_t reg    = ggml_backend_load(built_module("testfake").c_str());
    ASSERT_NE(reg, nullptr);
    EXPECT_EQ(fake_reg(), reg);
    EXPECT_EQ(ggml_backend_reg_count(), n_regs + 1);
    EXPECT_EQ(fake_enumerations(reg), 0) << "loading a module must not start its runtime";
    EXPECT_EQ(take_log("loaded FAKEMOD").size(), 1u);

    EXPECT_TRUE(has_device("FAKEMOD0"));
    const int n = fake_enumerations(reg);
    EXPECT_GE(n, 1);
    EXPECT_TRUE(has_device("FAKEMOD0"));
    EXPECT_EQ(fake_enumerations(reg), n) << "the registry keeps a family's devices once enumerated";
}

// The same module twice: the same registry, registered once; unloading removes it and its devices, and
// it can be loaded again.
TEST_F(BackendModules, LoadingTwiceRegistersOnceAndUnloadRemovesIt) {
    const size_t       n_regs = ggml_backend_reg_count();
    ggml_backend_reg_t a      = ggml_backend_load(built_module("testfake").c_str());
    ggml_backend_reg_t b      = ggml_backend_load(built_module("testfake").c_str());
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a, b);
    EXPECT_EQ(ggml_backend_reg_count(), n_regs + 1);
    EXPECT_TRUE(has_device("FAKEMOD0"));

    ggml_backend_unload(a);
    EXPECT_EQ(fake_reg(), nullptr);
    EXPECT_EQ(ggml_backend_reg_count(), n_regs);
    EXPECT_FALSE(has_device("FAKEMOD0"));

    ASSERT_NE(ggml_backend_load(built_module("testfake").c_str()), nullptr);
    EXPECT_TRUE(has_device("FAKEMOD0"));
    ggml_backend_unload(nullptr);  // no-op
}

// A folder with a module, a corrupt file, a foreign library, a module whose runtime is missing and an
// unrelated file: the module is loaded, each bad file skipped with one line naming it, nothing crashes.
TEST_F(BackendModules, LoadsAFolderAndSkipsWhatIsNotAModule) {
    temp_dir d("ggml-modules");
    fs::copy_file(built_module("testfake"), d.file(module_file("testfake")));
    fs::copy_file(built_module("testforeign"), d.file(module_file("testforeign")));
    fs::copy_file(built_module("testneedsruntime"), d.file(module_file("testneedsruntime")));
    {
        std::ofstream corrupt(d.file(module_file("testcorrupt")), std::ios::binary);
        corrupt << "\x7f"
                   "ELF not really a shared library";
        std::ofstream other(d.file("README.txt"));
        other << "not a module\n";
    }
    const size_t n_regs = ggml_backend_reg_count();
    ggml_backend_load_all_from_path(d.path.string().c_str());
    EXPECT_NE(fake_reg(), nullptr);
    EXPECT_EQ(ggml_backend_reg_count(), n_regs + 1);
    const std::vector<std::string> log          = take_log();
    auto                           lines_naming = [&](const std::string & file) {
        return std::count_if(log.begin(), log.end(),
                                                       [&](const std::string & l) { return l.find(file) != std::string::npos; });
    };
    EXPECT_EQ(lines_naming(module_file("testcorrupt")), 1) << "corrupt file";
    EXPECT_EQ(lines_naming(module_file("testforeign")), 1) << "foreign library";
    EXPECT_EQ(lines_naming(module_file("testneedsruntime")), 1) << "missing runtime";
    EXPECT_EQ(lines_naming("README.txt"), 0);
    for (const std::string & l : log) {
        if (l.find("testforeign") != std::string::npos) {
            EXPECT_NE(l.find("not a backend module"), std::string::npos) << l;
        }
        if (l.find("testneedsruntime") != std::string::npos) {
            EXPECT_NE(l.find("cannot load"), std::string::npos) << l;
        }
    }
    // the folder again: nothing new is registered, the module is not loaded twice
    ggml_backend_load_all_from_path(d.path.string().c_str());
    EXPECT_EQ(ggml_backend_reg_count(), n_regs + 1);
}

// Bad arguments and files fail with a message: a missing file, no path, a file that is not a library.
TEST_F(BackendModules, BadPathsFailWithAMessage) {
    EXPECT_EQ(ggml_backend_load(nullptr), nullptr);
    EXPECT_EQ(ggml_backend_load(""), nullptr);
    temp_dir d("ggml-modules-bad");
    EXPECT_EQ(ggml_backend_load(d.file(module_file("absent")).c_str()), nullptr);
    EXPECT_EQ(take_log("cannot load").size(), 1u);
    EXPECT_EQ(ggml_backend_load(d.path.string().c_str()), nullptr);     // a folder
    ggml_backend_load_all_from_path(d.file("no-such-folder").c_str());  // silently nothing
    EXPECT_EQ(fake_reg(), nullptr);
}

// The CUDA module is not even opened where Linux shows no NVIDIA device node: one line says so, and
// GGML_BACKEND_LOAD_ALL=1 loads it anyway. (The "CUDA module" here is the fake one under that name.)
TEST_F(BackendModules, CudaModuleIsNotOpenedWithoutAnNvidiaDevice) {
    const unsigned nodes = ggml_os_gpu_nodes();
    if ((nodes & GGML_OS_GPU_UNKNOWN) || (nodes & GGML_OS_GPU_NVIDIA)) {
        GTEST_SKIP() << "this machine shows an NVIDIA device, or no device nodes to look at";
    }
    temp_dir d("ggml-modules-cuda");
    fs::copy_file(built_module("testfake"), d.file(module_file("cuda")));
    ggml_backend_load_all_from_path(d.path.string().c_str());
    EXPECT_EQ(fake_reg(), nullptr);
    const std::vector<std::string> lines = take_log(module_file("cuda"));
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_NE(lines[0].find("no NVIDIA device"), std::string::npos) << lines[0];

#if defined(_WIN32)
    _putenv_s("GGML_BACKEND_LOAD_ALL", "1");
#else
    setenv("GGML_BACKEND_LOAD_ALL", "1", 1);
#endif
    ggml_backend_load_all_from_path(d.path.string().c_str());
#if defined(_WIN32)
    _putenv_s("GGML_BACKEND_LOAD_ALL", "");
#else
    unsetenv("GGML_BACKEND_LOAD_ALL");
#endif
    EXPECT_NE(fake_reg(), nullptr);
}

}  // namespace
