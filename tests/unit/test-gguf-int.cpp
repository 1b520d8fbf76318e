// llama_gguf_get_int (src/llama-gguf.cpp), the one reader of integer GGUF metadata: every GGUF integer
// type is accepted when its value fits the destination, a value that does not fit is refused with one
// error form, and a value that is not an integer is reported as false.
#include "gguf.h"
#include "llama-gguf.h"
#include "llama-log.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <string>

namespace {

using gguf_ptr = std::unique_ptr<gguf_context, decltype(&gguf_free)>;

gguf_ptr empty_gguf() {
    return gguf_ptr(gguf_init_empty(), gguf_free);
}

// The error message of reading key into T, "" when it succeeds.
template <typename T>
std::string read_error(const gguf_context * g, const char * key) {
    T out{};
    try {
        EXPECT_TRUE(llama_gguf_get_int(g, gguf_find_key(g, key), out));
    } catch (const llama_error & e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(GgufInt, EveryIntegerTypeInRange) {
    gguf_ptr g = empty_gguf();
    gguf_set_val_u8(g.get(), "u8", 200);
    gguf_set_val_i8(g.get(), "i8", -100);
    gguf_set_val_u16(g.get(), "u16", 60000);
    gguf_set_val_i16(g.get(), "i16", -30000);
    gguf_set_val_u32(g.get(), "u32", 4000000000u);
    gguf_set_val_i32(g.get(), "i32", -2000000000);
    gguf_set_val_u64(g.get(), "u64", 5000000000ull);
    gguf_set_val_i64(g.get(), "i64", -5000000000ll);

    int64_t i64 = 0;
    const struct {
        const char * key;
        int64_t      want;
    } cases[] = {{"u8", 200},           {"i8", -100},         {"u16", 60000},        {"i16", -30000},
                 {"u32", 4000000000ll}, {"i32", -2000000000}, {"u64", 5000000000ll}, {"i64", -5000000000ll}};
    for (const auto & c : cases) {
        ASSERT_TRUE(llama_gguf_get_int(g.get(), gguf_find_key(g.get(), c.key), i64)) << c.key;
        EXPECT_EQ(i64, c.want) << c.key;
    }

    // the small types fit every destination when the sign allows it
    int32_t  i32 = 0;
    uint32_t u32 = 0;
    uint64_t u64 = 0;
    for (const char * key : {"u8", "u16"}) {
        EXPECT_TRUE(llama_gguf_get_int(g.get(), gguf_find_key(g.get(), key), i32)) << key;
        EXPECT_TRUE(llama_gguf_get_int(g.get(), gguf_find_key(g.get(), key), u32)) << key;
        EXPECT_TRUE(llama_gguf_get_int(g.get(), gguf_find_key(g.get(), key), u64)) << key;
    }
    for (const char * key : {"i8", "i16", "i32"}) {
        EXPECT_TRUE(llama_gguf_get_int(g.get(), gguf_find_key(g.get(), key), i32)) << key;
    }
    EXPECT_TRUE(llama_gguf_get_int(g.get(), gguf_find_key(g.get(), "u32"), u32));
    EXPECT_EQ(u32, 4000000000u);
    EXPECT_TRUE(llama_gguf_get_int(g.get(), gguf_find_key(g.get(), "u64"), u64));
    EXPECT_EQ(u64, 5000000000ull);
}

TEST(GgufInt, LimitsAreInclusive) {
    gguf_ptr g = empty_gguf();
    gguf_set_val_u64(g.get(), "i32_max", INT32_MAX);
    gguf_set_val_i64(g.get(), "i32_min", INT32_MIN);
    gguf_set_val_u64(g.get(), "u32_max", UINT32_MAX);
    gguf_set_val_u64(g.get(), "i64_max", INT64_MAX);
    gguf_set_val_u64(g.get(), "u64_max", UINT64_MAX);
    EXPECT_EQ(read_error<int32_t>(g.get(), "i32_max"), "");
    EXPECT_EQ(read_error<int32_t>(g.get(), "i32_min"), "");
    EXPECT_EQ(read_error<uint32_t>(g.get(), "u32_max"), "");
    EXPECT_EQ(read_error<int64_t>(g.get(), "i64_max"), "");
    EXPECT_EQ(read_error<uint64_t>(g.get(), "u64_max"), "");
}

TEST(GgufInt, OverflowIsAnError) {
    gguf_ptr g = empty_gguf();
    gguf_set_val_u64(g.get(), "big", (uint64_t) INT32_MAX + 1);
    gguf_set_val_i32(g.get(), "neg", -1);
    gguf_set_val_i64(g.get(), "below", (int64_t) INT32_MIN - 1);
    gguf_set_val_u32(g.get(), "u32_max", UINT32_MAX);
    gguf_set_val_u64(g.get(), "u64_max", UINT64_MAX);
    gguf_set_val_i8(g.get(), "neg8", -1);

    // the one error form: key, value, its GGUF type, the destination
    EXPECT_EQ(read_error<int32_t>(g.get(), "big"), "key 'big' holds 2147483648 (u64), which does not fit int32");
    EXPECT_EQ(read_error<uint32_t>(g.get(), "neg"), "key 'neg' holds -1 (i32), which does not fit uint32");
    EXPECT_EQ(read_error<int32_t>(g.get(), "below"), "key 'below' holds -2147483649 (i64), which does not fit int32");
    EXPECT_EQ(read_error<int32_t>(g.get(), "u32_max"),
              "key 'u32_max' holds 4294967295 (u32), which does not fit int32");
    EXPECT_EQ(read_error<int64_t>(g.get(), "u64_max"),
              "key 'u64_max' holds 18446744073709551615 (u64), which does not fit int64");
    EXPECT_EQ(read_error<uint64_t>(g.get(), "neg8"), "key 'neg8' holds -1 (i8), which does not fit uint64");
    EXPECT_NE(read_error<uint32_t>(g.get(), "u64_max"), "");

    // a refused value leaves the destination as it was
    int32_t out = 7;
    EXPECT_THROW(llama_gguf_get_int(g.get(), gguf_find_key(g.get(), "big"), out), llama_error);
    EXPECT_EQ(out, 7);
}

TEST(GgufInt, NotAnIntegerIsFalse) {
    gguf_ptr g = empty_gguf();
    gguf_set_val_f32(g.get(), "f32", 1.0f);
    gguf_set_val_bool(g.get(), "bool", true);
    gguf_set_val_str(g.get(), "str", "12");
    const int32_t arr[2] = {1, 2};
    gguf_set_arr_data(g.get(), "arr", GGUF_TYPE_INT32, arr, 2);
    for (const char * key : {"f32", "bool", "str", "arr"}) {
        int32_t out = 7;
        EXPECT_FALSE(llama_gguf_get_int(g.get(), gguf_find_key(g.get(), key), out)) << key;
        EXPECT_EQ(out, 7) << key;
    }
}
