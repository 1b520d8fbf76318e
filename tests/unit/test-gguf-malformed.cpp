// Handcrafted malformed GGUF files: every one must be rejected (NULL) with an error message naming
// the problem, through the buffer and the file reader, in both metadata-only and full mode, without
// leaking (the ASan build checks that). Also: every truncated prefix of a valid file is rejected.
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "test-common.h"
#include "test-gguf-builder.h"

using gguf_test::builder;
using gguf_test::log_capture;

namespace {

struct malformed_case {
    std::string          name;
    std::vector<uint8_t> bytes;
    std::string          message;  // a substring the logged error must contain
};

// A file with one tensor info and `data_bytes` bytes after the padded metadata.
builder one_tensor(const std::vector<uint64_t> & ne, uint32_t type, uint64_t offset = 0, size_t data_bytes = 64) {
    builder b;
    b.header(1, 0).tensor("t", ne, type, offset).pad().zeros(data_bytes);
    return b;
}

builder with_alignment_kv(uint32_t type, const std::function<void(builder &)> & value) {
    builder b;
    b.header(0, 1).str(GGUF_KEY_GENERAL_ALIGNMENT).u32(type);
    value(b);
    return b;
}

builder array_kv(uint32_t elem_type, uint64_t n, const std::function<void(builder &)> & elems) {
    builder b;
    b.header(0, 1).str("arr").u32(GGUF_TYPE_ARRAY).u32(elem_type).u64(n);
    elems(b);
    return b;
}

std::vector<malformed_case> make_cases() {
    std::vector<malformed_case> c;
    auto                        add = [&](const std::string & name, const builder & b, const std::string & msg) {
        c.push_back({name, b.b, msg});
    };
    auto nothing = [](builder &) {};

    // header
    add("empty_file", builder(), "magic");
    add("three_bytes", builder().raw("GGU", 3), "magic");
    add("bad_magic_ggml", builder().raw("GGML", 4).u32(3).u64(0).u64(0), "bad magic");
    add("bad_magic_lowercase", builder().raw("gguf", 4).u32(3).u64(0).u64(0), "bad magic");
    add("version_0", builder().header(0, 0, 0), "unsupported version 0");
    add("version_1", builder().header(0, 0, 1), "unsupported version 1");
    add("version_4", builder().header(0, 0, 4), "unsupported version 4");
    add("version_max", builder().header(0, 0, 0xffffffffu), "unsupported version 4294967295");
    add("version_big_endian", builder().header(0, 0, 0x03000000u), "big-endian");
    add("header_without_counts", builder().raw("GGUF", 4).u32(3).u64(0), "key/value count");

    // huge counts
    add("n_tensors_2_32", builder().header(1ull << 32, 0), "cannot fit");
    add("n_tensors_2_63", builder().header(1ull << 63, 0), "cannot fit");
    add("n_tensors_u64_max", builder().header(UINT64_MAX, 0), "cannot fit");
    add("n_kv_2_32", builder().header(0, 1ull << 32), "cannot fit");
    add("n_kv_2_63", builder().header(0, 1ull << 63), "cannot fit");
    add("n_kv_u64_max", builder().header(0, UINT64_MAX), "cannot fit");
    add("n_kv_and_n_tensors_together_too_many", builder().header(1, 1).zeros(40), "cannot fit");
    add("second_key_truncated", builder().header(0, 2).kv_u32("a", 1).u64(100), "key length 100 exceeds");

    // keys and string values
    add("key_length_past_end", builder().header(0, 1).u64(100).raw("abc", 3).zeros(12), "key length 100 exceeds");
    add("key_length_2_32", builder().header(0, 1).u64(1ull << 32).zeros(12), "key length");
    add("key_length_2_63", builder().header(0, 1).u64(1ull << 63).zeros(12), "key length");
    add("key_length_u64_max", builder().header(0, 1).u64(UINT64_MAX).zeros(12), "key length");
    add("empty_key", builder().header(0, 1).kv_u32("", 1), "empty key");
    add("key_with_nul", builder().header(0, 1).kv_u32(std::string("a\0b", 3), 1), "NUL");
    // the GGUF specification: a key "must be a valid ASCII string" of "at most 2^16-1/65535 bytes"
    add("key_not_ascii_utf8", builder().header(0, 1).kv_u32("general.n\xc3\xa4me", 1), "outside ASCII");
    add("key_not_ascii_0x80", builder().header(0, 1).kv_u32("\x80", 1), "outside ASCII");
    add("key_not_ascii_0xff_last", builder().header(0, 1).kv_u32("tokenizer.ggml.model\xff", 1), "outside ASCII");
    add("key_not_ascii_second_key", builder().header(0, 2).kv_u32("ok", 1).kv_str("caf\xc3\xa9", "x"),
        "key \"caf\\xc3\\xa9\"");
    add("key_65536_bytes", builder().header(0, 1).kv_u32(std::string(65536, 'k'), 1),
        "key length 65536 exceeds the limit of 65535");
    add("key_1_mib", builder().header(0, 1).kv_u32(std::string(1 << 20, 'k'), 1), "exceeds the limit of 65535");
    add("duplicate_key", builder().header(0, 2).kv_u32("k", 1).kv_str("k", "x"), "duplicate key 'k'");
    add("string_value_past_end", builder().header(0, 1).str("s").u32(GGUF_TYPE_STRING).u64(1000).raw("abc", 3),
        "string value length 1000 exceeds");
    add("string_value_u64_max", builder().header(0, 1).str("s").u32(GGUF_TYPE_STRING).u64(UINT64_MAX),
        "string value length");
    add("scalar_value_truncated", builder().header(0, 1).str("s").u32(GGUF_TYPE_UINT64).u32(0), "value needs 8");
    add("value_type_13", builder().header(0, 1).str("k").u32(13).u32(0), "unknown value type 13");
    add("value_type_u32_max", builder().header(0, 1).str("k").u32(0xffffffffu).u32(0), "unknown value type");

    // arrays
    add("array_u8_length_2_32", array_kv(GGUF_TYPE_UINT8, 1ull << 32, nothing), "exceeds");
    add("array_u8_length_past_end", array_kv(GGUF_TYPE_UINT8, 17, [](builder & b) { b.zeros(16); }), "exceeds");
    add("array_u32_length_u64_max", array_kv(GGUF_TYPE_UINT32, UINT64_MAX, nothing), "exceeds");
    add("array_u64_length_2_61", array_kv(GGUF_TYPE_UINT64, 1ull << 61, [](builder & b) { b.zeros(64); }), "exceeds");
    add("array_str_length_2_63", array_kv(GGUF_TYPE_STRING, 1ull << 63, nothing), "exceeds");
    add("array_str_element_past_end",
        array_kv(GGUF_TYPE_STRING, 2, [](builder & b) { b.str("ok").u64(50).raw("short", 5); }),
        "array string length 50 exceeds");
    add("array_unknown_element_type", array_kv(13, 1, [](builder & b) { b.zeros(8); }), "unknown element type 13");
    add("array_of_arrays_length_u64_max", array_kv(GGUF_TYPE_ARRAY, UINT64_MAX, nothing), "exceeds");
    add("array_nested_depth_3",
        array_kv(GGUF_TYPE_ARRAY, 1,
                 [](builder & b) { b.u32(GGUF_TYPE_ARRAY).u64(1).u32(GGUF_TYPE_UINT8).u64(1).u8(0); }),
        "deeper than 2");
    add("array_inner_past_end",
        array_kv(GGUF_TYPE_ARRAY, 1, [](builder & b) { b.u32(GGUF_TYPE_UINT32).u64(10).u32(1); }), "exceeds");

    // bools: "1-byte value where 0 is false and 1 is true. Anything else is invalid"
    add("bool_2", builder().header(0, 1).str("b").u32(GGUF_TYPE_BOOL).u8(2), "bool 'b' has the value 2");
    add("bool_255", builder().header(0, 1).str("b").u32(GGUF_TYPE_BOOL).u8(255), "only 0 and 1");
    add("bool_array_element_2", array_kv(GGUF_TYPE_BOOL, 3, [](builder & b) { b.u8(1).u8(0).u8(2); }),
        "bool array 'arr' has the value 2 at index 2");
    add("bool_array_first_0x80", array_kv(GGUF_TYPE_BOOL, 1, [](builder & b) { b.u8(0x80); }), "at index 0");
    add("bool_nested_array_element",
        array_kv(GGUF_TYPE_ARRAY, 2,
                 [](builder & b) {
                     b.u32(GGUF_TYPE_BOOL).u64(2).u8(0).u8(1);
                     b.u32(GGUF_TYPE_BOOL).u64(1).u8(7);
                 }),
        "has the value 7");

    // general.alignment (documented: u32, power of two, at most 1 MiB)
    add("alignment_0", with_alignment_kv(GGUF_TYPE_UINT32, [](builder & b) { b.u32(0); }), "not a power of two");
    add("alignment_3", with_alignment_kv(GGUF_TYPE_UINT32, [](builder & b) { b.u32(3); }), "not a power of two");
    add("alignment_2_31", with_alignment_kv(GGUF_TYPE_UINT32, [](builder & b) { b.u32(1u << 31); }),
        "not a power of two in [1, 1048576]");
    add("alignment_2_21", with_alignment_kv(GGUF_TYPE_UINT32, [](builder & b) { b.u32(1u << 21); }),
        "general.alignment");
    add("alignment_as_u64", with_alignment_kv(GGUF_TYPE_UINT64, [](builder & b) { b.u64(32); }), "expected u32");
    add("alignment_as_u16", with_alignment_kv(GGUF_TYPE_UINT16, [](builder & b) { b.raw("\x20\x00", 2); }),
        "expected u32");
    add("alignment_as_string", with_alignment_kv(GGUF_TYPE_STRING, [](builder & b) { b.str("32"); }), "expected u32");
    add("alignment_as_array",
        with_alignment_kv(GGUF_TYPE_ARRAY, [](builder & b) { b.u32(GGUF_TYPE_UINT32).u64(1).u32(32); }),
        "expected u32");

    // tensor infos
    add("tensor_name_past_end", builder().header(1, 0).u64(500).raw("t", 1).zeros(40), "tensor name length 500");
    add("tensor_name_u64_max", builder().header(1, 0).u64(UINT64_MAX).zeros(40), "tensor name length");
    add("tensor_name_empty", builder().header(1, 0).tensor("", {32}, GGML_TYPE_F32, 0).pad().zeros(128),
        "empty tensor name");
    add("tensor_name_64_bytes",
        builder().header(1, 0).tensor(std::string(64, 'x'), {32}, GGML_TYPE_F32, 0).pad().zeros(128), "limit is 63");
    add("tensor_name_with_nul",
        builder().header(1, 0).tensor(std::string("a\0b", 3), {32}, GGML_TYPE_F32, 0).pad().zeros(128), "NUL");
    add("duplicate_tensor_name",
        builder().header(2, 0).tensor("w", {8}, GGML_TYPE_F32, 0).tensor("w", {8}, GGML_TYPE_F32, 32).pad().zeros(64),
        "duplicate tensor name 'w'");
    add("n_dims_0", one_tensor({}, GGML_TYPE_F32), "has 0 dims");
    add("n_dims_5", one_tensor({1, 1, 1, 1, 1}, GGML_TYPE_F32), "has 5 dims");
    add("n_dims_u32_max", builder().header(1, 0).str("t").u32(0xffffffffu).zeros(64), "dims");
    add("dim_2_63", one_tensor({1ull << 63}, GGML_TYPE_F32), "exceeds INT64_MAX");
    add("dim_u64_max", one_tensor({UINT64_MAX, 1}, GGML_TYPE_F32), "exceeds INT64_MAX");
    add("dims_product_overflows", one_tensor({1ull << 32, 1ull << 32}, GGML_TYPE_F32), "element count overflows");
    add("dims_product_overflows_4d", one_tensor({1ull << 16, 1ull << 16, 1ull << 16, 1ull << 16}, GGML_TYPE_F32),
        "element count overflows");
    // a zero dim makes 0 elements, but ne1*ne2*ne3 must still be representable (found by the fuzzer)
    add("zero_dim_with_overflowing_rows", one_tensor({0, 1ull << 32, 1ull << 32}, GGML_TYPE_F32),
        "element count overflows");
    add("byte_size_overflows", one_tensor({1ull << 62}, GGML_TYPE_F32), "byte size overflows");
    add("byte_size_overflows_f64", one_tensor({1ull << 61, 2}, GGML_TYPE_F64), "byte size overflows");
    add("ne0_not_multiple_of_block_q4_0", one_tensor({33}, GGML_TYPE_Q4_0), "block size");
    add("ne0_not_multiple_of_block_q4_k", one_tensor({128}, GGML_TYPE_Q4_K), "block size");
    for (uint32_t t : {4u, 5u, 31u, 32u, 33u, 36u, 37u, 38u, 40u, 41u, 1000u, 0xffffffffu}) {
        add("tensor_type_" + std::to_string(t), one_tensor({32}, t), "unknown tensor type");
    }
    add("tensor_info_truncated_in_dims", builder().header(1, 0).str("t").u32(4).u64(4).u64(1).u64(1),
        "tensor dim needs 8 bytes but only 0");

    // offsets and data
    add("offset_misaligned", one_tensor({8}, GGML_TYPE_F32, 1, 128), "not a multiple of the alignment 32");
    add("offset_misaligned_custom_alignment",
        builder()
            .header(1, 1)
            .kv_u32(GGUF_KEY_GENERAL_ALIGNMENT, 64)
            .tensor("t", {8}, GGML_TYPE_F32, 32)
            .pad(64)
            .zeros(128),
        "not a multiple of the alignment 64");
    add("offset_past_end", one_tensor({8}, GGML_TYPE_F32, 1024, 64), "past the end");
    add("offset_u64_max_aligned", one_tensor({8}, GGML_TYPE_F32, UINT64_MAX & ~31ull, 64), "past the end");
    add("data_shorter_than_tensor", one_tensor({16}, GGML_TYPE_F32, 0, 63), "past the end");
    add("no_data_section", one_tensor({16}, GGML_TYPE_F32, 0, 0), "past the end");
    add("no_padding_before_zero_size_tensor", builder().header(1, 0).tensor("t", {0}, GGML_TYPE_F32, 0),
        "past the end");
    add("second_tensor_data_short",
        builder().header(2, 0).tensor("a", {8}, GGML_TYPE_F32, 0).tensor("b", {16}, GGML_TYPE_F32, 32).pad().zeros(95),
        "'b'");
    add("overlapping_tensors_same_offset",
        builder().header(2, 0).tensor("a", {8}, GGML_TYPE_F32, 0).tensor("b", {8}, GGML_TYPE_F32, 0).pad().zeros(64),
        "overlaps");
    add("overlapping_tensors_partial",
        builder()
            .header(2, 0)
            .tensor("a", {64}, GGML_TYPE_F32, 0)
            .tensor("b", {8}, GGML_TYPE_F32, 128)
            .pad()
            .zeros(512),
        "overlaps");
    add("overlapping_tensors_reverse_order",
        builder().header(2, 0).tensor("a", {8}, GGML_TYPE_F32, 64).tensor("b", {64}, GGML_TYPE_F32, 0).pad().zeros(512),
        "overlaps");
    return c;
}

const std::vector<malformed_case> & cases() {
    static const std::vector<malformed_case> all = make_cases();
    return all;
}

class GgufMalformed : public testing::TestWithParam<size_t> {};

TEST_P(GgufMalformed, RejectedWithMessage) {
    const malformed_case & mc = cases()[GetParam()];
    for (bool no_alloc : {true, false}) {
        log_capture    log;
        gguf_context * ctx = gguf_init_from_buffer(mc.bytes.data(), mc.bytes.size(), gguf_init_params{no_alloc});
        EXPECT_EQ(ctx, nullptr) << mc.name;
        gguf_free(ctx);
        ASSERT_FALSE(log.errors.empty()) << mc.name;
        EXPECT_TRUE(log.contains(mc.message)) << mc.name << ": expected '" << mc.message << "' in: " << log.all();
        EXPECT_TRUE(log.contains("gguf: buffer: ")) << log.all();
    }
    const std::string path = testing_util::write_temp_file(mc.name + ".gguf", mc.bytes);
    {
        log_capture    log;
        gguf_context * ctx = gguf_init_from_file(path.c_str(), gguf_init_params{true});
        EXPECT_EQ(ctx, nullptr) << mc.name;
        gguf_free(ctx);
        EXPECT_TRUE(log.contains(mc.message)) << mc.name << ": " << log.all();
        EXPECT_TRUE(log.contains(path)) << "the message names the file: " << log.all();
    }
    std::remove(path.c_str());
}

INSTANTIATE_TEST_SUITE_P(Cases, GgufMalformed, testing::Range<size_t>(0, cases().size()),
                         [](const testing::TestParamInfo<size_t> & info) { return cases()[info.param].name; });

TEST(GgufMalformedSuite, HasAtLeastFortyCases) {
    EXPECT_GE(cases().size(), 40u);
}

// A valid file with every structural element: header, scalar/string/array/nested-array kvs, three
// tensors; the last tensor ends exactly at the end of the file so no prefix is a valid file.
std::vector<uint8_t> valid_file() {
    builder b;
    b.header(3, 5).kv_u32("u", 7).kv_str("s", "hello").kv_u32(GGUF_KEY_GENERAL_ALIGNMENT, 16);
    b.str("a").u32(GGUF_TYPE_ARRAY).u32(GGUF_TYPE_STRING).u64(2).str("x").str("yy");
    b.str("n").u32(GGUF_TYPE_ARRAY).u32(GGUF_TYPE_ARRAY).u64(1).u32(GGUF_TYPE_INT16).u64(2).zeros(4);
    b.tensor("f32", {4}, GGML_TYPE_F32, 0).tensor("q8", {32}, GGML_TYPE_Q8_0, 16).tensor("f16", {8}, GGML_TYPE_F16, 64);
    b.pad(16);
    for (int i = 0; i < 16 + 34 + 14 + 16; i++) {  // f32 (16) | q8_0 (34) + pad to 64 | f16 (16)
        b.u8((uint8_t) i);
    }
    return b.b;
}

TEST(GgufTruncation, EveryPrefixIsRejected) {
    const std::vector<uint8_t> file = valid_file();
    for (bool no_alloc : {true, false}) {
        gguf_context * ok = gguf_init_from_buffer(file.data(), file.size(), gguf_init_params{no_alloc});
        ASSERT_NE(ok, nullptr);
        EXPECT_EQ(gguf_get_n_tensors(ok), 3);
        EXPECT_EQ(gguf_get_alignment(ok), 16u);
        EXPECT_EQ(gguf_get_data_offset(ok) + 80, file.size());
        gguf_free(ok);
        for (size_t n = 0; n < file.size(); n++) {
            log_capture    log;
            gguf_context * ctx = gguf_init_from_buffer(file.data(), n, gguf_init_params{no_alloc});
            EXPECT_EQ(ctx, nullptr) << "prefix of " << n << " bytes";
            gguf_free(ctx);
            EXPECT_FALSE(log.errors.empty()) << "prefix of " << n << " bytes";
        }
    }
    // the file reader too, at every 7th length (each is a file write)
    for (size_t n = 0; n < file.size(); n += 7) {
        const std::string path = testing_util::write_temp_file("trunc.gguf", {file.begin(), file.begin() + n});
        log_capture       log;
        gguf_context *    ctx = gguf_init_from_file(path.c_str(), gguf_init_params{true});
        EXPECT_EQ(ctx, nullptr) << n;
        gguf_free(ctx);
        EXPECT_FALSE(log.errors.empty());
        std::remove(path.c_str());
    }
}

TEST(GgufMalformedFiles, UnreadablePaths) {
    for (const char * path : {"/nonexistent/file.gguf", "/tmp", "/dev/null"}) {
        log_capture    log;
        gguf_context * ctx = gguf_init_from_file(path, gguf_init_params{true});
        EXPECT_EQ(ctx, nullptr) << path;
        gguf_free(ctx);
        EXPECT_FALSE(log.errors.empty()) << path;
    }
    log_capture log;
    EXPECT_EQ(gguf_init_from_file(nullptr, gguf_init_params{true}), nullptr);
    EXPECT_EQ(gguf_init_from_buffer(nullptr, 10, gguf_init_params{true}), nullptr);
    EXPECT_EQ(log.errors.size(), 2u);
}

TEST(GgufMalformedFiles, LimitsThatAreAccepted) {
    // alignment at the 1 MiB limit and 1 are fine; so is a vocab-style file that ends right after
    // its metadata (no tensors, no padding)
    for (uint32_t a : {1u, 1u << 20}) {
        builder b;
        b.header(0, 1).kv_u32(GGUF_KEY_GENERAL_ALIGNMENT, a);
        gguf_context * ctx = gguf_init_from_buffer(b.b.data(), b.b.size(), gguf_init_params{true});
        ASSERT_NE(ctx, nullptr) << a;
        EXPECT_EQ(gguf_get_alignment(ctx), a);
        gguf_free(ctx);
    }
    // a key of exactly 65,535 bytes, every printable ASCII character in a key (the spec's
    // lower_snake_case convention is not enforced), bools 0 and 1 as scalars and array elements
    std::string ascii;
    for (char ch = 0x20; ch < 0x7f; ch++) {
        ascii += ch;
    }
    builder b;
    b.header(0, 5).kv_u32(std::string(65535, 'k'), 1).kv_u32(ascii, 2);
    b.str("t").u32(GGUF_TYPE_BOOL).u8(1).str("f").u32(GGUF_TYPE_BOOL).u8(0);
    b.str("a").u32(GGUF_TYPE_ARRAY).u32(GGUF_TYPE_BOOL).u64(3).u8(0).u8(1).u8(1);
    gguf_context * ctx = gguf_init_from_buffer(b.b.data(), b.b.size(), gguf_init_params{true});
    ASSERT_NE(ctx, nullptr);
    EXPECT_EQ(gguf_find_key(ctx, std::string(65535, 'k').c_str()), 0);
    EXPECT_EQ(gguf_find_key(ctx, ascii.c_str()), 1);
    EXPECT_TRUE(gguf_get_val_bool(ctx, 2));
    EXPECT_FALSE(gguf_get_val_bool(ctx, 3));
    EXPECT_EQ(gguf_get_arr_n(ctx, 4), 3u);
    gguf_free(ctx);
}

}  // namespace
