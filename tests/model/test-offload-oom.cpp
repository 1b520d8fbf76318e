// Out of device memory is an error, not a crash: a GPU-type device whose buffer type refuses allocations
// beyond a byte budget (the way cudaMalloc refuses beyond the card's memory) makes model load, and then
// context creation (KV cache), return NULL with the reason in llama_last_error(). Runs on any machine:
// the fake device is registered at run time and is the only device the tests offload to.
#include "ggml-backend-impl.h"
#include "llama.h"
#include "test-common.h"
#include "test-compat.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace {

size_t g_budget    = 0;  // bytes the fake device may still hand out
size_t g_allocated = 0;  // bytes handed out so far (live or not)

void * buf_get_base(ggml_backend_buffer_t b) {
    return b->context;
}
void buf_free(ggml_backend_buffer_t b) {
    test_aligned_free(b->context);
}
void buf_memset(ggml_backend_buffer_t, ggml_tensor * t, uint8_t v, size_t off, size_t n) {
    std::memset((char *) t->data + off, v, n);
}
void buf_set(ggml_backend_buffer_t, ggml_tensor * t, const void * d, size_t off, size_t n) {
    std::memcpy((char *) t->data + off, d, n);
}
void buf_get(ggml_backend_buffer_t, const ggml_tensor * t, void * d, size_t off, size_t n) {
    std::memcpy(d, (const char *) t->data + off, n);
}
void buf_clear(ggml_backend_buffer_t b, uint8_t v) {
    std::memset(b->context, v, b->size);
}

const char * buft_name(ggml_backend_buffer_type_t) {
    return "TINYGPU";
}
ggml_backend_buffer_t buft_alloc(ggml_backend_buffer_type_t buft, size_t size) {
    if (size > g_budget) {
        return nullptr;  // what a device buffer type does when the card is full
    }
    void * mem = test_aligned_alloc(64, (size + 63) / 64 * 64 + 64);
    if (!mem) {
        return nullptr;
    }
    g_budget -= size;
    g_allocated += size;
    ggml_backend_buffer_i i = {};
    i.free_buffer           = buf_free;
    i.get_base              = buf_get_base;
    i.memset_tensor         = buf_memset;
    i.set_tensor            = buf_set;
    i.get_tensor            = buf_get;
    i.clear                 = buf_clear;
    return ggml_backend_buffer_init(buft, i, mem, size);
}
size_t buft_alignment(ggml_backend_buffer_type_t) {
    return 64;
}

ggml_backend_buffer_type_t tiny_buft();

const char * be_name(ggml_backend_t) {
    return "TINYGPU";
}
void be_free(ggml_backend_t b) {
    delete b;
}
ggml_status be_compute(ggml_backend_t, ggml_cgraph *) {
    return GGML_STATUS_FAILED;  // never reached
}

const char * dev_name(ggml_backend_dev_t) {
    return "TINYGPU";
}
const char * dev_desc(ggml_backend_dev_t) {
    return "a GPU with almost no memory";
}
void dev_memory(ggml_backend_dev_t, size_t * f, size_t * t) {
    *f = g_budget;
    *t = g_budget + g_allocated;
}
enum ggml_backend_dev_type dev_type(ggml_backend_dev_t) {
    return GGML_BACKEND_DEVICE_TYPE_GPU;
}
ggml_backend_t dev_init(ggml_backend_dev_t dev, const char *) {
    ggml_backend_i i = {};
    i.get_name       = be_name;
    i.free           = be_free;
    i.graph_compute  = be_compute;
    return new ggml_backend{i, dev, nullptr};
}
ggml_backend_buffer_type_t dev_buft(ggml_backend_dev_t) {
    return tiny_buft();
}
// claims every op, so the loader places the layers' weights here (nothing is ever computed: the tests
// stop at allocation)
bool dev_supports_op(ggml_backend_dev_t, const ggml_tensor *) {
    return true;
}
bool dev_supports_buft(ggml_backend_dev_t, ggml_backend_buffer_type_t buft) {
    return buft == tiny_buft();
}

ggml_backend_dev_t tiny_dev();

const char * reg_name(ggml_backend_reg_t) {
    return "TinyGpu";
}
size_t reg_count(ggml_backend_reg_t) {
    return 1;
}
ggml_backend_dev_t reg_dev(ggml_backend_reg_t, size_t i) {
    return i == 0 ? tiny_dev() : nullptr;
}
ggml_backend_reg_t tiny_reg() {
    static ggml_backend_reg r = {GGML_BACKEND_API_VERSION, {reg_name, reg_count, reg_dev, nullptr}, nullptr};
    return &r;
}

ggml_backend_buffer_type_t tiny_buft() {
    static ggml_backend_buffer_type b = {
        {buft_name, buft_alloc, buft_alignment, nullptr, nullptr, nullptr}, tiny_dev(), nullptr};
    return &b;
}

ggml_backend_dev_t tiny_dev() {
    static ggml_backend_device d = [] {
        ggml_backend_device_i i = {};
        i.get_name              = dev_name;
        i.get_description       = dev_desc;
        i.get_memory            = dev_memory;
        i.get_type              = dev_type;
        i.init_backend          = dev_init;
        i.get_buffer_type       = dev_buft;
        i.supports_op           = dev_supports_op;
        i.supports_buft         = dev_supports_buft;
        return ggml_backend_device{i, tiny_reg(), nullptr};
    }();
    return &d;
}

void quiet_log(ggml_log_level, const char *, void *) {}

llama_model * load_on_tiny(const std::string & path) {
    static ggml_backend_dev_t devs[2] = {tiny_dev(), nullptr};
    llama_model_params        mp      = llama_model_default_params();
    mp.n_gpu_layers                   = 999;
    mp.devices                        = devs;
    return llama_model_load_from_file(path.c_str(), mp);
}

class OffloadOom : public ::testing::Test {
protected:
    void SetUp() override {
        static const bool registered = (ggml_backend_register(tiny_reg()), true);
        (void) registered;
        llama_log_set(quiet_log, nullptr);
    }
    void TearDown() override { llama_log_set(nullptr, nullptr); }
};

}  // namespace

TEST_F(OffloadOom, ModelLoadIsNullWithTheReason) {
    g_budget = 1000;  // far less than stories260K's offloaded weights
    EXPECT_EQ(load_on_tiny(testing_util::data_path("models/stories260K.gguf")), nullptr);
    const std::string err = llama_last_error();
    EXPECT_NE(err.find("cannot allocate"), std::string::npos) << err;
    EXPECT_NE(err.find("TINYGPU"), std::string::npos) << err;
}

TEST_F(OffloadOom, ContextCreationIsNullWithTheReason) {
    // exactly the weights fit: measured with a generous budget first
    g_budget               = size_t(1) << 30;
    g_allocated            = 0;
    const std::string path = testing_util::data_path("models/stories260K.gguf");
    llama_model *     m    = load_on_tiny(path);
    ASSERT_NE(m, nullptr) << llama_last_error();
    const size_t weights = g_allocated;
    llama_model_free(m);
    ASSERT_GT(weights, 0u) << "nothing was offloaded to the fake GPU";

    g_budget = weights;
    m        = load_on_tiny(path);
    ASSERT_NE(m, nullptr) << llama_last_error();
    EXPECT_LT(g_budget, 4096u);  // the device is now (almost) full

    llama_context_params cp = llama_context_default_params();
    cp.n_ctx                = 256;
    EXPECT_EQ(llama_init_from_model(m, cp), nullptr);
    const std::string err = llama_last_error();
    EXPECT_NE(err.find("cannot allocate"), std::string::npos) << err;
    EXPECT_NE(err.find("KV cache"), std::string::npos) << err;

    // with memory for it, the same model gets a context (the failure left nothing behind)
    g_budget            = size_t(1) << 30;
    llama_context * ctx = llama_init_from_model(m, cp);
    EXPECT_NE(ctx, nullptr) << llama_last_error();
    llama_free(ctx);
    llama_model_free(m);
}
