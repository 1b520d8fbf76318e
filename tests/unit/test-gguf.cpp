// GGUF round trips (every value type, tensors of several types, file and buffer), the model and vocab
// files of tests/data, the write API's failure cases, and replay of the fuzzer's regression inputs.
// Malformed-file rejection lives in test-gguf-malformed.cpp.
#include <gtest/gtest.h>

#if !defined(_WIN32)
#    include <fcntl.h>
#    include <sys/stat.h>
#    include <unistd.h>
#endif
#include <algorithm>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <future>
#include <limits>
#include <memory>
#include <random>

#include "test-common.h"
#include "test-gguf-builder.h"

using gguf_test::builder;
using gguf_test::log_capture;
using testing_util::data_path;
using testing_util::read_file;
using testing_util::source_path;
using testing_util::write_temp_file;

namespace {

struct ctx_deleter {
    void operator()(gguf_context * c) const { gguf_free(c); }
};
using ctx_ptr = std::unique_ptr<gguf_context, ctx_deleter>;

ctx_ptr from_buffer(const std::vector<uint8_t> & b, bool no_alloc) {
    return ctx_ptr(gguf_init_from_buffer(b.data(), b.size(), gguf_init_params{no_alloc}));
}

ctx_ptr from_file(const std::string & path, bool no_alloc) {
    return ctx_ptr(gguf_init_from_file(path.c_str(), gguf_init_params{no_alloc}));
}

std::vector<uint8_t> meta_bytes(const gguf_context * ctx) {
    std::vector<uint8_t> b(gguf_get_meta_size(ctx));
    gguf_get_meta_data(ctx, b.data());
    return b;
}

// Writes ctx to a temp file (data included) and returns the file's bytes.
std::vector<uint8_t> write_bytes(const gguf_context * ctx) {
    const std::string path = write_temp_file("rt.gguf", {});
    EXPECT_TRUE(gguf_write_to_file(ctx, path.c_str(), false));
    std::vector<uint8_t> b = read_file(path);
    std::remove(path.c_str());
    return b;
}

int64_t key(const gguf_context * ctx, const char * k) {
    const int64_t id = gguf_find_key(ctx, k);
    EXPECT_GE(id, 0) << k;
    return id;
}

const uint8_t  k_u8[]   = {0, 1, 255};
const int8_t   k_i8[]   = {-128, 0, 127};
const uint16_t k_u16[]  = {0, 65535, 1234};
const int16_t  k_i16[]  = {-32768, 32767, -1};
const uint32_t k_u32[]  = {0, 0xffffffffu, 42};
const int32_t  k_i32[]  = {INT32_MIN, INT32_MAX, -7};
const float    k_f32[]  = {3.5f, -0.0f, 1e-30f, std::numeric_limits<float>::infinity()};
const uint64_t k_u64[]  = {0, UINT64_MAX, 1ull << 40};
const int64_t  k_i64[]  = {INT64_MIN, INT64_MAX, -3};
const double   k_f64[]  = {2.718281828459045, -1e300};
const uint8_t  k_bool[] = {1, 0, 1};

// Fills ctx with one key of every scalar type, strings, and an array of every element type.
void fill_all_types(gguf_context * ctx) {
    ASSERT_TRUE(gguf_set_val_u8(ctx, "v.u8", 200));
    ASSERT_TRUE(gguf_set_val_i8(ctx, "v.i8", -100));
    ASSERT_TRUE(gguf_set_val_u16(ctx, "v.u16", 60000));
    ASSERT_TRUE(gguf_set_val_i16(ctx, "v.i16", -30000));
    ASSERT_TRUE(gguf_set_val_u32(ctx, "v.u32", 4000000000u));
    ASSERT_TRUE(gguf_set_val_i32(ctx, "v.i32", -2000000000));
    ASSERT_TRUE(gguf_set_val_f32(ctx, "v.f32", 3.25f));
    ASSERT_TRUE(gguf_set_val_u64(ctx, "v.u64", UINT64_MAX - 1));
    ASSERT_TRUE(gguf_set_val_i64(ctx, "v.i64", INT64_MIN + 1));
    ASSERT_TRUE(gguf_set_val_f64(ctx, "v.f64", -1.0 / 3.0));
    ASSERT_TRUE(gguf_set_val_bool(ctx, "v.true", true));
    ASSERT_TRUE(gguf_set_val_bool(ctx, "v.false", false));
    ASSERT_TRUE(gguf_set_val_str(ctx, "v.str", "héllo wörld"));
    ASSERT_TRUE(gguf_set_val_str(ctx, "v.empty", ""));
    ASSERT_TRUE(gguf_set_arr_data(ctx, "a.u8", GGUF_TYPE_UINT8, k_u8, 3));
    ASSERT_TRUE(gguf_set_arr_data(ctx, "a.i8", GGUF_TYPE_INT8, k_i8, 3));
    ASSERT_TRUE(gguf_set_arr_data(ctx, "a.u16", GGUF_TYPE_UINT16, k_u16, 3));
    ASSERT_TRUE(gguf_set_arr_data(ctx, "a.i16", GGUF_TYPE_INT16, k_i16, 3));
    ASSERT_TRUE(gguf_set_arr_data(ctx, "a.u32", GGUF_TYPE_UINT32, k_u32, 3));
    ASSERT_TRUE(gguf_set_arr_data(ctx, "a.i32", GGUF_TYPE_INT32, k_i32, 3));
    ASSERT_TRUE(gguf_set_arr_data(ctx, "a.f32", GGUF_TYPE_FLOAT32, k_f32, 4));
    ASSERT_TRUE(gguf_set_arr_data(ctx, "a.u64", GGUF_TYPE_UINT64, k_u64, 3));
    ASSERT_TRUE(gguf_set_arr_data(ctx, "a.i64", GGUF_TYPE_INT64, k_i64, 3));
    ASSERT_TRUE(gguf_set_arr_data(ctx, "a.f64", GGUF_TYPE_FLOAT64, k_f64, 2));
    ASSERT_TRUE(gguf_set_arr_data(ctx, "a.bool", GGUF_TYPE_BOOL, k_bool, 3));
    ASSERT_TRUE(gguf_set_arr_data(ctx, "a.empty", GGUF_TYPE_UINT32, nullptr, 0));
    const char * strs[] = {"alpha", "", "gamma delta"};
    ASSERT_TRUE(gguf_set_arr_str(ctx, "a.str", strs, 3));
    ASSERT_TRUE(gguf_set_arr_str(ctx, "a.str.empty", nullptr, 0));
}

template <typename T>
void expect_arr(const gguf_context * ctx, const char * k, gguf_type t, const T * v, size_t n) {
    const int64_t id = key(ctx, k);
    EXPECT_EQ(gguf_get_kv_type(ctx, id), GGUF_TYPE_ARRAY) << k;
    EXPECT_EQ(gguf_get_arr_type(ctx, id), t) << k;
    ASSERT_EQ(gguf_get_arr_n(ctx, id), n) << k;
    EXPECT_EQ(0, memcmp(gguf_get_arr_data(ctx, id), v, n * sizeof(T))) << k;
    EXPECT_EQ(gguf_type_size(t), sizeof(T));
}

void check_all_types(const gguf_context * ctx) {
    EXPECT_EQ(gguf_get_n_kv(ctx), 28);
    EXPECT_EQ(gguf_get_val_u8(ctx, key(ctx, "v.u8")), 200);
    EXPECT_EQ(gguf_get_val_i8(ctx, key(ctx, "v.i8")), -100);
    EXPECT_EQ(gguf_get_val_u16(ctx, key(ctx, "v.u16")), 60000);
    EXPECT_EQ(gguf_get_val_i16(ctx, key(ctx, "v.i16")), -30000);
    EXPECT_EQ(gguf_get_val_u32(ctx, key(ctx, "v.u32")), 4000000000u);
    EXPECT_EQ(gguf_get_val_i32(ctx, key(ctx, "v.i32")), -2000000000);
    EXPECT_EQ(gguf_get_val_f32(ctx, key(ctx, "v.f32")), 3.25f);
    EXPECT_EQ(gguf_get_val_u64(ctx, key(ctx, "v.u64")), UINT64_MAX - 1);
    EXPECT_EQ(gguf_get_val_i64(ctx, key(ctx, "v.i64")), INT64_MIN + 1);
    EXPECT_EQ(gguf_get_val_f64(ctx, key(ctx, "v.f64")), -1.0 / 3.0);
    EXPECT_TRUE(gguf_get_val_bool(ctx, key(ctx, "v.true")));
    EXPECT_FALSE(gguf_get_val_bool(ctx, key(ctx, "v.false")));
    EXPECT_STREQ(gguf_get_val_str(ctx, key(ctx, "v.str")), "héllo wörld");
    EXPECT_EQ(gguf_get_val_str_len(ctx, key(ctx, "v.str")), strlen("héllo wörld"));
    EXPECT_STREQ(gguf_get_val_str(ctx, key(ctx, "v.empty")), "");
    EXPECT_EQ(gguf_get_kv_type(ctx, key(ctx, "v.u8")), GGUF_TYPE_UINT8);
    EXPECT_EQ(gguf_get_kv_type(ctx, key(ctx, "v.f64")), GGUF_TYPE_FLOAT64);
    EXPECT_EQ(gguf_get_kv_type(ctx, key(ctx, "v.str")), GGUF_TYPE_STRING);
    EXPECT_EQ(*(const uint16_t *) gguf_get_val_data(ctx, key(ctx, "v.u16")), 60000);
    expect_arr(ctx, "a.u8", GGUF_TYPE_UINT8, k_u8, 3);
    expect_arr(ctx, "a.i8", GGUF_TYPE_INT8, k_i8, 3);
    expect_arr(ctx, "a.u16", GGUF_TYPE_UINT16, k_u16, 3);
    expect_arr(ctx, "a.i16", GGUF_TYPE_INT16, k_i16, 3);
    expect_arr(ctx, "a.u32", GGUF_TYPE_UINT32, k_u32, 3);
    expect_arr(ctx, "a.i32", GGUF_TYPE_INT32, k_i32, 3);
    expect_arr(ctx, "a.f32", GGUF_TYPE_FLOAT32, k_f32, 4);
    expect_arr(ctx, "a.u64", GGUF_TYPE_UINT64, k_u64, 3);
    expect_arr(ctx, "a.i64", GGUF_TYPE_INT64, k_i64, 3);
    expect_arr(ctx, "a.f64", GGUF_TYPE_FLOAT64, k_f64, 2);
    expect_arr(ctx, "a.bool", GGUF_TYPE_BOOL, k_bool, 3);
    EXPECT_EQ(gguf_get_arr_n(ctx, key(ctx, "a.empty")), 0u);
    EXPECT_EQ(gguf_get_arr_type(ctx, key(ctx, "a.empty")), GGUF_TYPE_UINT32);
    const int64_t s = key(ctx, "a.str");
    EXPECT_EQ(gguf_get_arr_type(ctx, s), GGUF_TYPE_STRING);
    ASSERT_EQ(gguf_get_arr_n(ctx, s), 3u);
    EXPECT_STREQ(gguf_get_arr_str(ctx, s, 0), "alpha");
    EXPECT_STREQ(gguf_get_arr_str(ctx, s, 1), "");
    EXPECT_STREQ(gguf_get_arr_str(ctx, s, 2), "gamma delta");
    EXPECT_EQ(gguf_get_arr_str_len(ctx, s, 2), 11u);
    {
        log_capture log;  // asking for raw data of a string array is an error
        EXPECT_EQ(gguf_get_arr_data(ctx, s), nullptr);
        EXPECT_EQ(log.errors.size(), 1u);
    }
    EXPECT_EQ(gguf_get_arr_n(ctx, key(ctx, "a.str.empty")), 0u);
}

// One tensor of the round-trip set.
struct tensor_spec {
    const char *         name;
    ggml_type            type;
    std::vector<int64_t> ne;
    std::vector<uint8_t> data;
};

std::vector<tensor_spec> make_tensors() {
    std::vector<tensor_spec> specs = {
        {"t.f32", GGML_TYPE_F32, {7, 3}, {}},
        {"t.f16", GGML_TYPE_F16, {5}, {}},
        {"t.q4_0", GGML_TYPE_Q4_0, {64, 2}, {}},
        {"t.q8_0", GGML_TYPE_Q8_0, {32, 3, 2}, {}},
        {"t.q4_k", GGML_TYPE_Q4_K, {256, 2}, {}},
        {"t.bf16", GGML_TYPE_BF16, {3, 2, 2, 2}, {}},
        {"t.i32", GGML_TYPE_I32, {9}, {}},
        {"t.q6_k", GGML_TYPE_Q6_K, {512}, {}},
        {"t.iq4_xs", GGML_TYPE_IQ4_XS, {256, 1, 1, 2}, {}},
        {"t.empty", GGML_TYPE_F32, {0, 4}, {}},
        {"t.mxfp4", GGML_TYPE_MXFP4, {32}, {}},
    };
    std::mt19937 rng(1234);
    for (tensor_spec & s : specs) {
        size_t rows = 1;
        for (size_t d = 1; d < s.ne.size(); d++) {
            rows *= (size_t) s.ne[d];
        }
        s.data.resize(ggml_row_size(s.type, s.ne[0]) * rows);
        for (uint8_t & b : s.data) {
            b = (uint8_t) rng();
        }
    }
    return specs;
}

void check_tensors(const gguf_context * ctx, const std::vector<tensor_spec> & specs, bool with_data) {
    ASSERT_EQ(gguf_get_n_tensors(ctx), (int64_t) specs.size());
    for (size_t i = 0; i < specs.size(); i++) {
        const tensor_spec & s  = specs[i];
        const int64_t       id = gguf_find_tensor(ctx, s.name);
        ASSERT_EQ(id, (int64_t) i) << s.name;
        EXPECT_STREQ(gguf_get_tensor_name(ctx, id), s.name);
        EXPECT_EQ(gguf_get_tensor_type(ctx, id), s.type);
        EXPECT_EQ(gguf_get_tensor_n_dims(ctx, id), s.ne.size());
        int64_t ne[4];
        gguf_get_tensor_shape(ctx, id, ne);
        for (size_t d = 0; d < 4; d++) {
            EXPECT_EQ(ne[d], d < s.ne.size() ? s.ne[d] : 1) << s.name << " dim " << d;
        }
        EXPECT_EQ(gguf_get_tensor_size(ctx, id), s.data.size()) << s.name;
        EXPECT_EQ(gguf_get_tensor_offset(ctx, id) % gguf_get_alignment(ctx), 0u) << s.name;
        if (with_data && !s.data.empty()) {
            const void * p = gguf_get_tensor_data(ctx, id);
            ASSERT_NE(p, nullptr) << s.name;
            EXPECT_EQ(0, memcmp(p, s.data.data(), s.data.size())) << s.name;
        }
        if (!with_data) {
            EXPECT_EQ(gguf_get_tensor_data(ctx, id), nullptr);
        }
    }
    EXPECT_EQ(gguf_find_tensor(ctx, "missing"), -1);
}

ctx_ptr make_full_context(const std::vector<tensor_spec> & specs) {
    ctx_ptr ctx(gguf_init_empty());
    fill_all_types(ctx.get());
    for (const tensor_spec & s : specs) {
        EXPECT_TRUE(gguf_add_tensor_info(ctx.get(), s.name, s.type, (int) s.ne.size(), s.ne.data(), s.data.data()));
    }
    return ctx;
}

}  // namespace

TEST(GgufBasics, TypeNamesAndSizes) {
    EXPECT_STREQ(gguf_type_name(GGUF_TYPE_UINT8), "u8");
    EXPECT_STREQ(gguf_type_name(GGUF_TYPE_STRING), "str");
    EXPECT_STREQ(gguf_type_name(GGUF_TYPE_ARRAY), "array");
    EXPECT_STREQ(gguf_type_name(GGUF_TYPE_FLOAT64), "f64");
    EXPECT_STREQ(gguf_type_name(GGUF_TYPE_COUNT), "invalid");
    EXPECT_STREQ(gguf_type_name((gguf_type) -1), "invalid");
    EXPECT_EQ(gguf_type_size(GGUF_TYPE_UINT16), 2u);
    EXPECT_EQ(gguf_type_size(GGUF_TYPE_BOOL), 1u);
    EXPECT_EQ(gguf_type_size(GGUF_TYPE_STRING), 0u);
    EXPECT_EQ(gguf_type_size(GGUF_TYPE_ARRAY), 0u);
    EXPECT_EQ(gguf_type_size(GGUF_TYPE_COUNT), 0u);
}

TEST(GgufBasics, EmptyContext) {
    ctx_ptr ctx(gguf_init_empty());
    ASSERT_TRUE(ctx);
    EXPECT_EQ(gguf_get_version(ctx.get()), 3u);
    EXPECT_EQ(gguf_get_alignment(ctx.get()), 32u);
    EXPECT_EQ(gguf_get_data_offset(ctx.get()), 0u);
    EXPECT_EQ(gguf_get_file_size(ctx.get()), 0u);
    EXPECT_EQ(gguf_get_n_kv(ctx.get()), 0);
    EXPECT_EQ(gguf_get_n_tensors(ctx.get()), 0);
    EXPECT_EQ(gguf_get_meta_size(ctx.get()), 32u);  // 24-byte header padded to 32
    ctx_ptr back = from_buffer(meta_bytes(ctx.get()), false);
    ASSERT_TRUE(back);
    EXPECT_EQ(gguf_get_n_kv(back.get()), 0);
    gguf_free(nullptr);
}

TEST(GgufRoundTrip, EveryValueTypeViaBuffer) {
    ctx_ptr ctx(gguf_init_empty());
    fill_all_types(ctx.get());
    check_all_types(ctx.get());
    const std::vector<uint8_t> meta = meta_bytes(ctx.get());
    EXPECT_EQ(meta.size() % 32, 0u);
    for (bool no_alloc : {true, false}) {
        ctx_ptr back = from_buffer(meta, no_alloc);
        ASSERT_TRUE(back);
        check_all_types(back.get());
        EXPECT_EQ(gguf_get_file_size(back.get()), meta.size());
        EXPECT_EQ(gguf_get_data_offset(back.get()), meta.size());
        // the keys come back in insertion order
        EXPECT_STREQ(gguf_get_key(back.get(), 0), "v.u8");
        EXPECT_STREQ(gguf_get_key(back.get(), 27), "a.str.empty");
    }
}

TEST(GgufRoundTrip, EveryValueTypeViaFile) {
    ctx_ptr ctx(gguf_init_empty());
    fill_all_types(ctx.get());
    const std::string path = write_temp_file("types.gguf", {});
    ASSERT_TRUE(gguf_write_to_file(ctx.get(), path.c_str(), false));
    ctx_ptr back = from_file(path, true);
    ASSERT_TRUE(back);
    check_all_types(back.get());
    std::remove(path.c_str());
}

TEST(GgufRoundTrip, TensorsViaFileAndBuffer) {
    const std::vector<tensor_spec> specs = make_tensors();
    ctx_ptr                        ctx   = make_full_context(specs);
    check_tensors(ctx.get(), specs, true);

    const std::string path = write_temp_file("tensors.gguf", {});
    ASSERT_TRUE(gguf_write_to_file(ctx.get(), path.c_str(), false));
    const std::vector<uint8_t> bytes = read_file(path);
    EXPECT_EQ(bytes.size() % 32, 0u);

    for (bool no_alloc : {true, false}) {
        ctx_ptr f = from_file(path, no_alloc);
        ASSERT_TRUE(f);
        check_all_types(f.get());
        check_tensors(f.get(), specs, !no_alloc);
        EXPECT_EQ(gguf_get_file_size(f.get()), bytes.size());
        EXPECT_EQ(gguf_get_data_offset(f.get()), gguf_get_meta_size(ctx.get()));
        // the data sits at data_offset + offset in the raw file
        for (size_t i = 0; i < specs.size(); i++) {
            const size_t off = gguf_get_data_offset(f.get()) + gguf_get_tensor_offset(f.get(), (int64_t) i);
            ASSERT_LE(off + specs[i].data.size(), bytes.size());
            if (specs[i].data.empty()) {
                continue;
            }
            EXPECT_EQ(0, memcmp(bytes.data() + off, specs[i].data.data(), specs[i].data.size())) << specs[i].name;
        }

        ctx_ptr b = from_buffer(bytes, no_alloc);
        ASSERT_TRUE(b);
        check_tensors(b.get(), specs, !no_alloc);
    }
    // metadata part of the file equals gguf_get_meta_data
    const std::vector<uint8_t> meta = meta_bytes(ctx.get());
    ASSERT_LE(meta.size(), bytes.size());
    EXPECT_TRUE(std::equal(meta.begin(), meta.end(), bytes.begin()));
    std::remove(path.c_str());
}

TEST(GgufRoundTrip, OnlyMetaAndTensorsWithoutData) {
    const std::vector<tensor_spec> specs = make_tensors();
    ctx_ptr                        ctx(gguf_init_empty());
    for (const tensor_spec & s : specs) {
        ASSERT_TRUE(gguf_add_tensor_info(ctx.get(), s.name, s.type, (int) s.ne.size(), s.ne.data(), nullptr));
        EXPECT_EQ(gguf_get_tensor_data(ctx.get(), gguf_get_n_tensors(ctx.get()) - 1), nullptr);
    }
    const std::string path = write_temp_file("meta.gguf", {});
    ASSERT_TRUE(gguf_write_to_file(ctx.get(), path.c_str(), true));
    EXPECT_EQ(read_file(path).size(), gguf_get_meta_size(ctx.get()));
    {
        // the tensors' data is missing from a meta-only file: the reader rejects it in both modes
        log_capture log;
        EXPECT_FALSE(from_file(path, true));
        EXPECT_TRUE(log.contains("past the end"));
    }
    // written with data: tensors without data are zero-filled
    ASSERT_TRUE(gguf_write_to_file(ctx.get(), path.c_str(), false));
    ctx_ptr back = from_file(path, false);
    ASSERT_TRUE(back);
    for (int64_t i = 0; i < gguf_get_n_tensors(back.get()); i++) {
        const uint8_t * p = (const uint8_t *) gguf_get_tensor_data(back.get(), i);
        const size_t    n = gguf_get_tensor_size(back.get(), i);
        EXPECT_TRUE(n == 0 || std::all_of(p, p + n, [](uint8_t b) { return b == 0; }));
    }
    std::remove(path.c_str());
}

TEST(GgufRoundTrip, CustomAlignmentBeforeAndAfterTensors) {
    const std::vector<tensor_spec> specs = make_tensors();
    for (uint32_t align : {1u, 8u, 64u, 4096u, 1u << 20}) {
        ctx_ptr ctx = make_full_context(specs);  // tensors laid out at 32 first
        ASSERT_TRUE(gguf_set_val_u32(ctx.get(), GGUF_KEY_GENERAL_ALIGNMENT, align));
        EXPECT_EQ(gguf_get_alignment(ctx.get()), align);
        for (int64_t i = 0; i < gguf_get_n_tensors(ctx.get()); i++) {
            EXPECT_EQ(gguf_get_tensor_offset(ctx.get(), i) % align, 0u);
        }
        const std::vector<uint8_t> bytes = write_bytes(ctx.get());
        EXPECT_EQ(bytes.size() % align, 0u);
        ctx_ptr back = from_buffer(bytes, false);
        ASSERT_TRUE(back) << align;
        EXPECT_EQ(gguf_get_alignment(back.get()), align);
        EXPECT_EQ(gguf_get_data_offset(back.get()) % align, 0u);
        check_tensors(back.get(), specs, true);
        // removing the key restores the default
        EXPECT_GE(gguf_remove_key(ctx.get(), GGUF_KEY_GENERAL_ALIGNMENT), 0);
        EXPECT_EQ(gguf_get_alignment(ctx.get()), 32u);
        ctx_ptr again = from_buffer(write_bytes(ctx.get()), false);
        ASSERT_TRUE(again);
        check_tensors(again.get(), specs, true);
    }
}

TEST(GgufRoundTrip, StringsWithEmbeddedNuls) {
    const std::string with_nul("a\0b\0", 4);
    builder           b;
    b.header(0, 2)
        .kv_str("s", with_nul)
        .str("arr")
        .u32(GGUF_TYPE_ARRAY)
        .u32(GGUF_TYPE_STRING)
        .u64(2)
        .str(std::string("\0", 1))
        .str(std::string("x\0y", 3));
    for (bool no_alloc : {true, false}) {
        ctx_ptr ctx = from_buffer(b.b, no_alloc);
        ASSERT_TRUE(ctx);
        const int64_t s = gguf_find_key(ctx.get(), "s");
        ASSERT_EQ(gguf_get_val_str_len(ctx.get(), s), 4u);
        EXPECT_EQ(0, memcmp(gguf_get_val_str(ctx.get(), s), with_nul.data(), 4));
        const int64_t a = gguf_find_key(ctx.get(), "arr");
        EXPECT_EQ(gguf_get_arr_str_len(ctx.get(), a, 0), 1u);
        EXPECT_EQ(gguf_get_arr_str_len(ctx.get(), a, 1), 3u);
        EXPECT_EQ(0, memcmp(gguf_get_arr_str(ctx.get(), a, 1), "x\0y", 4));
        // survives a copy and a re-serialization
        ctx_ptr copy(gguf_init_empty());
        ASSERT_TRUE(gguf_set_kv(copy.get(), ctx.get()));
        ctx_ptr back = from_buffer(meta_bytes(copy.get()), true);
        ASSERT_TRUE(back);
        EXPECT_EQ(gguf_get_val_str_len(back.get(), 0), 4u);
        EXPECT_EQ(0, memcmp(gguf_get_val_str(back.get(), 0), with_nul.data(), 4));
    }
}

TEST(GgufRoundTrip, NestedArrays) {
    // [[1, 2, 3] (u8), ["x", "yz"] (str), [] (f32)]
    builder b;
    b.header(0, 2).str("nested").u32(GGUF_TYPE_ARRAY).u32(GGUF_TYPE_ARRAY).u64(3);
    b.u32(GGUF_TYPE_UINT8).u64(3).u8(1).u8(2).u8(3);
    b.u32(GGUF_TYPE_STRING).u64(2).str("x").str("yz");
    b.u32(GGUF_TYPE_FLOAT32).u64(0);
    b.kv_u32("after", 77);
    ctx_ptr ctx = from_buffer(b.b, true);
    ASSERT_TRUE(ctx);
    const int64_t id = gguf_find_key(ctx.get(), "nested");
    EXPECT_EQ(gguf_get_kv_type(ctx.get(), id), GGUF_TYPE_ARRAY);
    EXPECT_EQ(gguf_get_arr_type(ctx.get(), id), GGUF_TYPE_ARRAY);
    EXPECT_EQ(gguf_get_arr_n(ctx.get(), id), 3u);
    {
        log_capture log;
        EXPECT_EQ(gguf_get_arr_data(ctx.get(), id), nullptr);
        EXPECT_FALSE(log.errors.empty());
    }
    EXPECT_EQ(gguf_get_val_u32(ctx.get(), gguf_find_key(ctx.get(), "after")), 77u);
    // copied and written again, the bytes are identical
    ctx_ptr copy(gguf_init_empty());
    ASSERT_TRUE(gguf_set_kv(copy.get(), ctx.get()));
    std::vector<uint8_t> expect = b.b;
    expect.resize((expect.size() + 31) / 32 * 32, 0);
    EXPECT_EQ(meta_bytes(copy.get()), expect);
}

TEST(GgufRoundTrip, Version2IsRead) {
    builder b;
    b.header(1, 1, 2).kv_u32("k", 5).tensor("t", {4}, GGML_TYPE_F32, 0).pad().zeros(16);
    ctx_ptr ctx = from_buffer(b.b, false);
    ASSERT_TRUE(ctx);
    EXPECT_EQ(gguf_get_version(ctx.get()), 2u);
    EXPECT_EQ(gguf_get_tensor_size(ctx.get(), 0), 16u);
}

TEST(GgufRoundTrip, ZeroDimensionIsAnEmptyTensor) {
    // documented choice: ne == 0 is accepted, the tensor has 0 bytes
    builder b;
    b.header(2, 0).tensor("empty", {0, 5}, GGML_TYPE_F32, 0).tensor("t", {8}, GGML_TYPE_F32, 0).pad().zeros(32);
    ctx_ptr ctx = from_buffer(b.b, true);
    ASSERT_TRUE(ctx);
    EXPECT_EQ(gguf_get_tensor_size(ctx.get(), 0), 0u);
    int64_t ne[4];
    gguf_get_tensor_shape(ctx.get(), 0, ne);
    EXPECT_EQ(ne[0], 0);
    EXPECT_EQ(ne[1], 5);
}

TEST(GgufRoundTrip, UnorderedTensorOffsetsAndGaps) {
    // offsets need not be sequential: t1 after t2 with a gap, both inside the file
    builder b;
    b.header(2, 0).tensor("t1", {8}, GGML_TYPE_F32, 96).tensor("t2", {8}, GGML_TYPE_F32, 0).pad().zeros(128);
    ctx_ptr ctx = from_buffer(b.b, false);
    ASSERT_TRUE(ctx);
    EXPECT_EQ(gguf_get_tensor_offset(ctx.get(), 0), 96u);
    // and the writer keeps them
    ctx_ptr back = from_buffer(write_bytes(ctx.get()), true);
    ASSERT_TRUE(back);
    EXPECT_EQ(gguf_get_tensor_offset(back.get(), 0), 96u);
}

TEST(GgufAccessors, ReplaceRemoveAndCopy) {
    ctx_ptr ctx(gguf_init_empty());
    ASSERT_TRUE(gguf_set_val_u32(ctx.get(), "a", 1));
    ASSERT_TRUE(gguf_set_val_u32(ctx.get(), "b", 2));
    ASSERT_TRUE(gguf_set_val_str(ctx.get(), "a", "now a string"));  // replaced in place, type changes
    EXPECT_EQ(gguf_get_n_kv(ctx.get()), 2);
    EXPECT_EQ(gguf_find_key(ctx.get(), "a"), 0);
    EXPECT_EQ(gguf_get_kv_type(ctx.get(), 0), GGUF_TYPE_STRING);
    EXPECT_STREQ(gguf_get_val_str(ctx.get(), 0), "now a string");

    ctx_ptr other(gguf_init_empty());
    ASSERT_TRUE(gguf_set_val_u32(other.get(), "b", 20));
    ASSERT_TRUE(gguf_set_val_i8(other.get(), "c", -3));
    ASSERT_TRUE(gguf_set_kv(ctx.get(), other.get()));
    EXPECT_EQ(gguf_get_n_kv(ctx.get()), 3);
    EXPECT_EQ(gguf_get_val_u32(ctx.get(), gguf_find_key(ctx.get(), "b")), 20u);
    EXPECT_EQ(gguf_get_val_i8(ctx.get(), gguf_find_key(ctx.get(), "c")), -3);
    ASSERT_TRUE(gguf_set_kv(ctx.get(), ctx.get()));  // self-copy is a no-op
    EXPECT_EQ(gguf_get_n_kv(ctx.get()), 3);

    EXPECT_EQ(gguf_remove_key(ctx.get(), "b"), 1);
    EXPECT_EQ(gguf_remove_key(ctx.get(), "b"), -1);
    EXPECT_EQ(gguf_get_n_kv(ctx.get()), 2);
    EXPECT_EQ(gguf_find_key(ctx.get(), "c"), 1);
    EXPECT_EQ(gguf_find_key(ctx.get(), nullptr), -1);
    EXPECT_EQ(gguf_find_key(nullptr, "c"), -1);
}

TEST(GgufAccessors, WrongTypeOrIdLogsAndReturnsZero) {
    ctx_ptr ctx(gguf_init_empty());
    ASSERT_TRUE(gguf_set_val_u32(ctx.get(), "u", 7));
    ASSERT_TRUE(gguf_set_val_str(ctx.get(), "s", "x"));
    ASSERT_TRUE(gguf_set_arr_data(ctx.get(), "a", GGUF_TYPE_UINT8, k_u8, 3));
    struct probe {
        const char *          what;
        std::function<bool()> zero;
    };
    const probe probes[] = {
        {"u8 of u32", [&] { return gguf_get_val_u8(ctx.get(), 0) == 0; }},
        {"i32 of u32", [&] { return gguf_get_val_i32(ctx.get(), 0) == 0; }},
        {"f32 of u32", [&] { return gguf_get_val_f32(ctx.get(), 0) == 0.0f; }},
        {"f64 of u32", [&] { return gguf_get_val_f64(ctx.get(), 0) == 0.0; }},
        {"bool of u32", [&] { return !gguf_get_val_bool(ctx.get(), 0); }},
        {"u64 of u32", [&] { return gguf_get_val_u64(ctx.get(), 0) == 0; }},
        {"str of u32", [&] { return gguf_get_val_str(ctx.get(), 0) == nullptr; }},
        {"str len of u32", [&] { return gguf_get_val_str_len(ctx.get(), 0) == 0; }},
        {"u32 of str", [&] { return gguf_get_val_u32(ctx.get(), 1) == 0; }},
        {"data of str", [&] { return gguf_get_val_data(ctx.get(), 1) == nullptr; }},
        {"data of array", [&] { return gguf_get_val_data(ctx.get(), 2) == nullptr; }},
        {"arr_n of u32", [&] { return gguf_get_arr_n(ctx.get(), 0) == 0; }},
        {"arr_type of u32", [&] { return gguf_get_arr_type(ctx.get(), 0) == GGUF_TYPE_COUNT; }},
        {"arr_str of u8 array", [&] { return gguf_get_arr_str(ctx.get(), 2, 0) == nullptr; }},
        {"key -1", [&] { return gguf_get_key(ctx.get(), -1) == nullptr; }},
        {"key 3", [&] { return gguf_get_key(ctx.get(), 3) == nullptr; }},
        {"type 99", [&] { return gguf_get_kv_type(ctx.get(), 99) == GGUF_TYPE_COUNT; }},
        {"tensor name 0", [&] { return gguf_get_tensor_name(ctx.get(), 0) == nullptr; }},
        {"tensor type 0", [&] { return gguf_get_tensor_type(ctx.get(), 0) == GGML_TYPE_COUNT; }},
        {"tensor size -1", [&] { return gguf_get_tensor_size(ctx.get(), -1) == 0; }},
        {"null ctx", [&] { return gguf_get_val_u32(nullptr, 0) == 0; }},
    };
    for (const probe & p : probes) {
        log_capture log;
        EXPECT_TRUE(p.zero()) << p.what;
        EXPECT_EQ(log.errors.size(), 1u) << p.what;
    }
    // the valid accesses do not log
    log_capture log;
    EXPECT_EQ(gguf_get_val_u32(ctx.get(), 0), 7u);
    EXPECT_STREQ(gguf_get_val_str(ctx.get(), 1), "x");
    EXPECT_TRUE(log.errors.empty());
}

// The spec's limits are inclusive: a 65,535-byte ASCII key and bools 0/1 are written and read back.
TEST(GgufWrite, SpecLimitsRoundTrip) {
    ctx_ptr           ctx(gguf_init_empty());
    const std::string long_key(65535, 'k');
    const uint8_t     bools[2] = {1, 0};
    ASSERT_TRUE(gguf_set_val_u32(ctx.get(), long_key.c_str(), 5));
    ASSERT_TRUE(gguf_set_val_u32(ctx.get(), "Mixed-Case Key/with punctuation!~", 6));
    ASSERT_TRUE(gguf_set_arr_data(ctx.get(), "b", GGUF_TYPE_BOOL, bools, 2));
    ctx_ptr back = from_buffer(meta_bytes(ctx.get()), true);
    ASSERT_NE(back, nullptr);
    EXPECT_EQ(gguf_get_val_u32(back.get(), key(back.get(), long_key.c_str())), 5u);
    EXPECT_EQ(gguf_get_val_u32(back.get(), key(back.get(), "Mixed-Case Key/with punctuation!~")), 6u);
    EXPECT_EQ(memcmp(gguf_get_arr_data(back.get(), key(back.get(), "b")), bools, 2), 0);
}

TEST(GgufWrite, FailuresAreLoggedAndLeaveTheContextUnchanged) {
    ctx_ptr           ctx(gguf_init_empty());
    const int64_t     ne2[2]  = {32, 2};
    const int64_t     neg[1]  = {-1};
    const int64_t     q4[1]   = {33};
    const int64_t     big[2]  = {INT64_MAX, 2};
    const char *      strs[]  = {"a", nullptr};
    const uint32_t    vals[1] = {1};
    const std::string long_name(64, 'n');
    const std::string long_key(65536, 'k');
    const uint8_t     bad_bools[3] = {0, 1, 2};
    ASSERT_TRUE(gguf_add_tensor_info(ctx.get(), "t", GGML_TYPE_F32, 2, ne2, nullptr));
    struct failure {
        const char *          what;
        std::function<bool()> call;
    };
    const failure failures[] = {
        {"null ctx", [&] { return gguf_set_val_u32(nullptr, "k", 1); }},
        {"null key", [&] { return gguf_set_val_u32(ctx.get(), nullptr, 1); }},
        {"empty key", [&] { return gguf_set_val_i64(ctx.get(), "", 1); }},
        {"non-ASCII key", [&] { return gguf_set_val_u32(ctx.get(), "general.n\xc3\xa4me", 1); }},
        {"non-ASCII key (string)", [&] { return gguf_set_val_str(ctx.get(), "\x80", "x"); }},
        {"non-ASCII key (array)", [&] { return gguf_set_arr_str(ctx.get(), "k\xff", strs, 1); }},
        {"key of 65536 bytes", [&] { return gguf_set_val_u8(ctx.get(), long_key.c_str(), 1); }},
        {"bool array element 2", [&] { return gguf_set_arr_data(ctx.get(), "k", GGUF_TYPE_BOOL, bad_bools, 3); }},
        {"null string", [&] { return gguf_set_val_str(ctx.get(), "k", nullptr); }},
        {"array of strings via arr_data", [&] { return gguf_set_arr_data(ctx.get(), "k", GGUF_TYPE_STRING, vals, 1); }},
        {"array of arrays", [&] { return gguf_set_arr_data(ctx.get(), "k", GGUF_TYPE_ARRAY, vals, 1); }},
        {"invalid element type", [&] { return gguf_set_arr_data(ctx.get(), "k", (gguf_type) 99, vals, 1); }},
        {"null array data", [&] { return gguf_set_arr_data(ctx.get(), "k", GGUF_TYPE_UINT32, nullptr, 1); }},
        {"null string in array", [&] { return gguf_set_arr_str(ctx.get(), "k", strs, 2); }},
        {"null string array", [&] { return gguf_set_arr_str(ctx.get(), "k", nullptr, 2); }},
        {"alignment 0", [&] { return gguf_set_val_u32(ctx.get(), GGUF_KEY_GENERAL_ALIGNMENT, 0); }},
        {"alignment 3", [&] { return gguf_set_val_u32(ctx.get(), GGUF_KEY_GENERAL_ALIGNMENT, 3); }},
        {"alignment 2^31", [&] { return gguf_set_val_u32(ctx.get(), GGUF_KEY_GENERAL_ALIGNMENT, 1u << 31); }},
        {"alignment as u8", [&] { return gguf_set_val_u8(ctx.get(), GGUF_KEY_GENERAL_ALIGNMENT, 32); }},
        {"alignment as u64", [&] { return gguf_set_val_u64(ctx.get(), GGUF_KEY_GENERAL_ALIGNMENT, 32); }},
        {"alignment as string", [&] { return gguf_set_val_str(ctx.get(), GGUF_KEY_GENERAL_ALIGNMENT, "32"); }},
        {"alignment as array",
         [&] { return gguf_set_arr_data(ctx.get(), GGUF_KEY_GENERAL_ALIGNMENT, GGUF_TYPE_UINT32, vals, 1); }},
        {"set_kv null src", [&] { return gguf_set_kv(ctx.get(), nullptr); }},
        {"tensor null name", [&] { return gguf_add_tensor_info(ctx.get(), nullptr, GGML_TYPE_F32, 2, ne2, nullptr); }},
        {"tensor empty name", [&] { return gguf_add_tensor_info(ctx.get(), "", GGML_TYPE_F32, 2, ne2, nullptr); }},
        {"tensor long name",
         [&] { return gguf_add_tensor_info(ctx.get(), long_name.c_str(), GGML_TYPE_F32, 2, ne2, nullptr); }},
        {"tensor duplicate", [&] { return gguf_add_tensor_info(ctx.get(), "t", GGML_TYPE_F32, 2, ne2, nullptr); }},
        {"tensor 0 dims", [&] { return gguf_add_tensor_info(ctx.get(), "u", GGML_TYPE_F32, 0, ne2, nullptr); }},
        {"tensor 5 dims", [&] { return gguf_add_tensor_info(ctx.get(), "u", GGML_TYPE_F32, 5, ne2, nullptr); }},
        {"tensor null ne", [&] { return gguf_add_tensor_info(ctx.get(), "u", GGML_TYPE_F32, 1, nullptr, nullptr); }},
        {"tensor negative dim", [&] { return gguf_add_tensor_info(ctx.get(), "u", GGML_TYPE_F32, 1, neg, nullptr); }},
        {"tensor partial block", [&] { return gguf_add_tensor_info(ctx.get(), "u", GGML_TYPE_Q4_0, 1, q4, nullptr); }},
        {"tensor removed type 4", [&] { return gguf_add_tensor_info(ctx.get(), "u", (ggml_type) 4, 2, ne2, nullptr); }},
        {"tensor type count", [&] { return gguf_add_tensor_info(ctx.get(), "u", GGML_TYPE_COUNT, 2, ne2, nullptr); }},
        {"tensor overflow", [&] { return gguf_add_tensor_info(ctx.get(), "u", GGML_TYPE_F32, 2, big, nullptr); }},
        {"write null ctx", [&] { return gguf_write_to_file(nullptr, "/tmp/x.gguf", false); }},
        {"write null path", [&] { return gguf_write_to_file(ctx.get(), nullptr, false); }},
        {"write missing dir", [&] { return gguf_write_to_file(ctx.get(), "/nonexistent-dir/x/y.gguf", false); }},
    };
    for (const failure & f : failures) {
        log_capture log;
        EXPECT_FALSE(f.call()) << f.what;
        EXPECT_FALSE(log.errors.empty()) << f.what;
    }
    EXPECT_EQ(gguf_get_n_kv(ctx.get()), 0);
    EXPECT_EQ(gguf_get_n_tensors(ctx.get()), 1);
    EXPECT_EQ(gguf_get_alignment(ctx.get()), 32u);
    {
        log_capture log;
        gguf_get_meta_data(ctx.get(), nullptr);
        EXPECT_FALSE(log.errors.empty());
        EXPECT_EQ(gguf_get_meta_size(nullptr), 0u);
    }
    // writing to a full device is an I/O error, not a crash (Linux's /dev/full; Windows has no such device)
#if !defined(_WIN32)
    if (FILE * f = fopen("/dev/full", "wb")) {
        fclose(f);
        log_capture log;
        EXPECT_FALSE(gguf_write_to_file(ctx.get(), "/dev/full", false));
        EXPECT_FALSE(log.errors.empty());
    }
#endif
}

// ---------------------------------------------------------------------------------------------
// the shared files: key and tensor counts were taken independently from the raw bytes (python)

struct shared_file {
    const char * path;
    int64_t      n_kv;
    int64_t      n_tensors;
    size_t       data_offset;
};

const shared_file k_shared_files[] = {
    {"models/stories260K.gguf", 19, 48, 14176},
    {"models/synthetic/deepseek2-kvb-micro-f16.gguf", 35, 48, 727552},
    {"models/synthetic/deepseek2-micro-f16.gguf", 42, 51, 728096},
    {"models/synthetic/deepseek2-gu-micro-f16.gguf", 42, 49, 727968},
    {"models/synthetic/deepseek2-mtp-micro-f16.gguf", 43, 73, 729568},
    {"models/synthetic/exaone4-micro-f16.gguf", 22, 706, 766624},
    {"models/synthetic/gemma-micro-f16.gguf", 21, 20, 725024},
    {"models/synthetic/gemma2-micro-f16.gguf", 24, 288, 741216},
    {"models/synthetic/gemma3-micro-f16.gguf", 25, 158, 733344},
    {"models/synthetic/gemma3n-micro-f16.gguf", 26, 607, 49824},
    {"models/synthetic/glm4-micro-f16.gguf", 24, 29, 725600},
    {"models/synthetic/glm4moe-micro-f16.gguf", 33, 78, 729088},
    {"models/synthetic/gpt-oss-micro-f16.gguf", 27, 41, 726592},
    {"models/synthetic/granite-micro-f16.gguf", 26, 20, 725248},
    {"models/synthetic/granitemoe-micro-f16.gguf", 29, 28, 726048},
    {"models/synthetic/llama-moe-micro-f16.gguf", 24, 22, 725344},
    {"models/synthetic/llama-micro-f16.gguf", 22, 20, 725056},
    {"models/synthetic/mamba2-micro-f16.gguf", 24, 20, 725088},
    {"models/synthetic/lfm2-micro-f16.gguf", 22, 48, 726784},
    {"models/synthetic/granitehybrid-micro-f16.gguf", 34, 79, 729440},
    {"models/synthetic/nemotron_h-micro-f16.gguf", 29, 40, 726592},
    {"models/synthetic/falcon-h1-micro-f16.gguf", 28, 36, 726240},
    {"models/synthetic/lfm2moe-micro-f16.gguf", 27, 54, 727520},
    {"models/synthetic/qwen3next-micro-f16.gguf", 34, 70, 728864},
    {"models/synthetic/qwen35-micro-f16.gguf", 31, 80, 728960},
    {"models/synthetic/qwen35-mtp-micro-f16.gguf", 32, 95, 729920},
    {"models/synthetic/qwen35moe-micro-f16.gguf", 35, 110, 731424},
    {"models/synthetic/nemotron_h_moe-micro-f16.gguf", 37, 52, 727872},
    {"models/synthetic/mistral3-micro-f16.gguf", 27, 20, 725376},
    {"models/synthetic/olmo2-micro-f16.gguf", 21, 25, 725344},
    {"models/synthetic/phi3-micro-f16.gguf", 25, 15, 726848},
    {"models/synthetic/qwen2-micro-f16.gguf", 18, 26, 1768384},
    {"models/synthetic/qwen3-micro-f16.gguf", 20, 24, 1768416},
    {"models/synthetic/qwen3moe-micro-f16.gguf", 23, 26, 1768768},
    {"models/synthetic/smollm3-micro-f16.gguf", 22, 38, 726144},
    {"models/synthetic/kimi-linear-micro-f16.gguf", 35, 89, 730144},
    {"vocab/ggml-vocab-baichuan.gguf", 18, 0, 1341024},
    {"vocab/ggml-vocab-bert-bge.gguf", 20, 0, 627552},
    {"vocab/ggml-vocab-deepseek-coder.gguf", 25, 0, 1156096},
    {"vocab/ggml-vocab-deepseek-llm.gguf", 23, 0, 3970176},
    {"vocab/ggml-vocab-falcon.gguf", 18, 0, 2287744},
    {"vocab/ggml-vocab-gpt-2.gguf", 16, 0, 1766816},
    {"vocab/ggml-vocab-gpt-neox.gguf", 17, 0, 1771456},
    {"vocab/ggml-vocab-llama-bpe.gguf", 12, 0, 7818208},
    {"vocab/ggml-vocab-llama-spm.gguf", 22, 0, 723872},
    {"vocab/ggml-vocab-mpt.gguf", 17, 0, 1771424},
    {"vocab/ggml-vocab-phi-3.gguf", 26, 0, 726048},
    {"vocab/ggml-vocab-qwen2.gguf", 14, 0, 5932288},
    {"vocab/ggml-vocab-refact.gguf", 18, 0, 1720736},
    {"vocab/ggml-vocab-starcoder.gguf", 19, 0, 1719360},
};

#if !defined(_WIN32)
// A FIFO, a directory or a device is refused at once: opening a FIFO for reading must not wait for a
// writer (the reader opens non-blocking and checks the type on the open descriptor).
TEST(GgufFile, SpecialFilesAreRefusedWithoutBlocking) {
    const std::string fifo = testing::TempDir() + "gguf-fifo-" + std::to_string(getpid());
    unlink(fifo.c_str());
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    auto fut = std::async(std::launch::async, [&] {
        gguf_context * g      = gguf_init_from_file(fifo.c_str(), gguf_init_params{true});
        std::string    reason = gguf_last_error();  // per thread: read it on the calling thread
        gguf_free(g);
        return std::make_pair(g == nullptr, reason);
    });
    if (fut.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
        ADD_FAILURE() << "gguf_init_from_file blocked on a FIFO";
        const int fd = open(fifo.c_str(), O_WRONLY | O_NONBLOCK);  // release the blocked reader
        if (fd >= 0) {
            close(fd);
        }
    }
    const auto r = fut.get();
    EXPECT_TRUE(r.first);
    EXPECT_NE(r.second.find("not a regular file"), std::string::npos) << r.second;
    unlink(fifo.c_str());

    for (const std::string & p : {testing::TempDir(), std::string("/dev/null")}) {
        EXPECT_EQ(gguf_init_from_file(p.c_str(), gguf_init_params{true}), nullptr) << p;
        EXPECT_NE(std::string(gguf_last_error()).find("not a regular file"), std::string::npos) << p;
    }
}
#else
// Windows has no FIFOs in the file system: a directory and the NUL device are refused by the handle's type.
TEST(GgufFile, SpecialFilesAreRefused) {
    for (const std::string & p : {testing::TempDir(), std::string("NUL")}) {
        EXPECT_EQ(gguf_init_from_file(p.c_str(), gguf_init_params{true}), nullptr) << p;
        EXPECT_NE(std::string(gguf_last_error()).find("not a regular file"), std::string::npos)
            << p << ": " << gguf_last_error();
    }
}
#endif

TEST(GgufSharedFiles, AllParseWithExpectedCounts) {
    // every *.gguf in the shared folders is listed above (a new file must be added with its counts)
    size_t found = 0;
    for (const char * dir : {"models", "models/synthetic", "vocab"}) {
        for (const auto & e : std::filesystem::directory_iterator(data_path(dir))) {
            found += e.path().extension() == ".gguf";
        }
    }
    EXPECT_EQ(found, std::size(k_shared_files));

    for (const shared_file & sf : k_shared_files) {
        const std::string path = data_path(sf.path);
        log_capture       log;
        ctx_ptr           ctx = from_file(path, true);
        ASSERT_TRUE(ctx) << sf.path << ": " << log.all();
        EXPECT_TRUE(log.errors.empty()) << sf.path;
        EXPECT_EQ(gguf_get_version(ctx.get()), 3u) << sf.path;
        EXPECT_EQ(gguf_get_n_kv(ctx.get()), sf.n_kv) << sf.path;
        EXPECT_EQ(gguf_get_n_tensors(ctx.get()), sf.n_tensors) << sf.path;
        EXPECT_EQ(gguf_get_data_offset(ctx.get()), sf.data_offset) << sf.path;
        EXPECT_EQ(gguf_get_file_size(ctx.get()), std::filesystem::file_size(path)) << sf.path;
        EXPECT_GE(gguf_find_key(ctx.get(), "general.architecture"), 0) << sf.path;
        size_t total = 0;
        for (int64_t i = 0; i < gguf_get_n_tensors(ctx.get()); i++) {
            total += gguf_get_tensor_size(ctx.get(), i);
            EXPECT_LE(gguf_get_data_offset(ctx.get()) + gguf_get_tensor_offset(ctx.get(), i) +
                          gguf_get_tensor_size(ctx.get(), i),
                      gguf_get_file_size(ctx.get()));
        }
        EXPECT_LE(total, gguf_get_file_size(ctx.get())) << sf.path;
    }
}

TEST(GgufSharedFiles, StoriesDataMatchesTheRawFile) {
    const std::string          path  = data_path("models/stories260K.gguf");
    const std::vector<uint8_t> bytes = read_file(path);
    ASSERT_FALSE(bytes.empty());
    ctx_ptr ctx = from_buffer(bytes, false);
    ASSERT_TRUE(ctx);
    const int64_t tok = gguf_find_key(ctx.get(), "tokenizer.ggml.tokens");
    ASSERT_GE(tok, 0);
    EXPECT_EQ(gguf_get_arr_n(ctx.get(), tok), 512u);
    EXPECT_STREQ(gguf_get_arr_str(ctx.get(), tok, 1), "<s>");
    EXPECT_EQ(gguf_get_val_u32(ctx.get(), gguf_find_key(ctx.get(), "llama.embedding_length")), 64u);
    const int64_t t = gguf_find_tensor(ctx.get(), "token_embd.weight");
    ASSERT_GE(t, 0);
    EXPECT_EQ(gguf_get_tensor_type(ctx.get(), t), GGML_TYPE_F32);
    const size_t off = gguf_get_data_offset(ctx.get()) + gguf_get_tensor_offset(ctx.get(), t);
    EXPECT_EQ(0, memcmp(gguf_get_tensor_data(ctx.get(), t), bytes.data() + off, gguf_get_tensor_size(ctx.get(), t)));

    // a full copy written back is read back identically (metadata and data)
    ctx_ptr copy(gguf_init_empty());
    ASSERT_TRUE(gguf_set_kv(copy.get(), ctx.get()));
    for (int64_t i = 0; i < gguf_get_n_tensors(ctx.get()); i++) {
        int64_t ne[4];
        gguf_get_tensor_shape(ctx.get(), i, ne);
        ASSERT_TRUE(gguf_add_tensor_info(copy.get(), gguf_get_tensor_name(ctx.get(), i),
                                         gguf_get_tensor_type(ctx.get(), i), (int) gguf_get_tensor_n_dims(ctx.get(), i),
                                         ne, gguf_get_tensor_data(ctx.get(), i)));
    }
    EXPECT_EQ(write_bytes(copy.get()), bytes);
}

// ---------------------------------------------------------------------------------------------
// inputs the fuzzer found (tests/fuzz/regressions-gguf) and its seeds: none may crash or leak

TEST(GgufFuzzRegressions, ReplayWithoutCrashing) {
    size_t n = 0;
    for (const char * dir : {"tests/fuzz/regressions-gguf", "tests/fuzz/seeds-gguf"}) {
        const std::string path = source_path(dir);
        if (!std::filesystem::is_directory(path)) {
            continue;
        }
        for (const auto & e : std::filesystem::directory_iterator(path)) {
            if (!e.is_regular_file() || e.path().extension() == ".md") {
                continue;
            }
            const std::vector<uint8_t> bytes = read_file(e.path().string());
            for (bool no_alloc : {true, false}) {
                log_capture log;
                ctx_ptr     ctx = from_buffer(bytes, no_alloc);
                // accepted or rejected, but a rejection always says why
                EXPECT_TRUE(ctx || !log.errors.empty()) << e.path();
                if (ctx) {
                    EXPECT_GT(gguf_get_meta_size(ctx.get()), 0u);
                }
            }
            log_capture log;
            ctx_ptr     f = from_file(e.path().string(), true);
            EXPECT_TRUE(f || !log.errors.empty()) << e.path();
            n++;
        }
    }
    EXPECT_GT(n, 0u);  // the seeds at least are checked in
}
