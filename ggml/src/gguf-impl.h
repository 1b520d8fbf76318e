// Internals of the GGUF library shared by the reader (gguf.cpp) and the writer (gguf-write.cpp):
// the context's C++ representation, validation helpers, and the exception-to-log firewall.
// Not installed. Errors inside are thrown as gguf_error and logged at the C boundary by guarded().
#pragma once

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "ggml-impl.h"
#include "gguf.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#    error "the GGUF library reads and writes raw little-endian values and needs a little-endian host"
#endif

struct gguf_kv {
    std::string key;
    gguf_type   type     = GGUF_TYPE_UINT8;
    gguf_type   arr_type = GGUF_TYPE_COUNT;  // element type when type == ARRAY
    uint64_t    n        = 0;                // element count when type == ARRAY
    // scalar bytes; fixed-size array elements; for an array of arrays, the inner arrays serialized
    std::vector<uint8_t>     data;
    std::vector<std::string> str;  // STRING: one value; ARRAY of STRING: n values
};

struct gguf_tensor_info {
    std::string          name;
    ggml_type            type     = GGML_TYPE_F32;
    uint32_t             n_dims   = 1;
    int64_t              ne[4]    = {1, 1, 1, 1};
    uint64_t             offset   = 0;
    uint64_t             size     = 0;
    bool                 has_data = false;
    std::vector<uint8_t> data;
};

struct gguf_context {
    uint32_t                      version     = GGUF_VERSION;
    uint64_t                      alignment   = GGUF_DEFAULT_ALIGNMENT;
    uint64_t                      data_offset = 0;
    uint64_t                      file_size   = 0;
    std::vector<gguf_kv>          kv;
    std::vector<gguf_tensor_info> tensors;
};

namespace gguf_impl {

inline constexpr uint64_t k_max_alignment = 1u << 20;
// The fewest bytes one key/value and one tensor info can take; counts read from the file are
// checked against the bytes left with these before anything is allocated for them.
inline constexpr uint64_t k_min_kv_bytes     = 8 + 4;
inline constexpr uint64_t k_min_tensor_bytes = 8 + 4 + 8 + 4 + 8;
inline constexpr uint64_t k_min_array_bytes  = 4 + 8;

// The GGUF specification: a key "must be a valid ASCII string" and "at most 2^16-1/65535 bytes long";
// a bool is "1-byte value where 0 is false and 1 is true. Anything else is invalid".
inline constexpr uint64_t k_max_key_bytes = 65535;

inline constexpr size_t       k_type_size[GGUF_TYPE_COUNT] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
inline constexpr const char * k_type_name[GGUF_TYPE_COUNT] = {"u8",   "i8",  "u16",   "i16", "u32", "i32", "f32",
                                                              "bool", "str", "array", "u64", "i64", "f64"};

struct gguf_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

[[noreturn]] GGML_ATTRIBUTE_FORMAT(1, 2) inline void fail(const char * fmt, ...) {
    char    buf[512];
    va_list args;
    va_start(args, fmt);
    vsnprintf(buf, sizeof(buf), fmt, args);
    va_end(args);
    throw gguf_error(buf);
}

// An enum argument from a C caller may hold any int; its bits are read without an enum-typed load
// (which would be undefined behaviour in C++ for values outside the enum's range).
template <typename E>
inline uint32_t raw_enum(const E & e) {
    static_assert(sizeof(E) == sizeof(uint32_t), "enums are 32-bit");
    uint32_t v;
    memcpy(&v, &e, sizeof(v));
    return v;
}

inline bool is_fixed_type(uint32_t t) {
    return t < GGUF_TYPE_COUNT && k_type_size[t] != 0;
}

inline const char * type_name_u32(uint32_t t) {
    return t < GGUF_TYPE_COUNT ? k_type_name[t] : "invalid";
}

inline bool valid_alignment(uint64_t a) {
    return a != 0 && (a & (a - 1)) == 0 && a <= k_max_alignment;
}

// Rounds x up to a multiple of the power of two a; false on overflow.
inline bool align_up(uint64_t x, uint64_t a, uint64_t * out) {
    uint64_t t;
    if (!ggml_add_overflow_u64(x, a - 1, &t)) {
        return false;
    }
    *out = t & ~(a - 1);
    return true;
}

// Bytes of a tensor of `type` and shape ne[0..n_dims); nullptr on success, else the reason.
inline const char * tensor_nbytes(uint32_t type, uint32_t n_dims, const uint64_t * ne, uint64_t * out) {
    if (type >= GGML_TYPE_COUNT || !ggml_type_is_valid((enum ggml_type) type)) {
        return "unknown tensor type";
    }
    if (n_dims < 1 || n_dims > 4) {
        return "n_dims must be 1..4";
    }
    // with a zero dim the element count is 0, but row counts (ne1*ne2*ne3) must still be
    // representable, so the product of the non-zero dims is checked as well
    uint64_t nel = 1, nel_nonzero = 1;
    for (uint32_t i = 0; i < n_dims; i++) {
        if (ne[i] > (uint64_t) INT64_MAX) {
            return "dimension exceeds INT64_MAX";
        }
        if (ne[i] != 0 &&
            (!ggml_mul_overflow_u64(nel_nonzero, ne[i], &nel_nonzero) || nel_nonzero > (uint64_t) INT64_MAX)) {
            return "element count overflows";
        }
        nel *= ne[i];  // <= nel_nonzero or 0
    }
    const uint64_t bs = (uint64_t) ggml_blck_size((enum ggml_type) type);
    if (ne[0] % bs != 0) {
        return "ne[0] is not a multiple of the type's block size";
    }
    uint64_t bytes = 0;
    if (!ggml_mul_overflow_u64(nel / bs, ggml_type_size((enum ggml_type) type), &bytes) ||
        bytes > (uint64_t) INT64_MAX) {
        return "byte size overflows";
    }
    *out = bytes;
    return nullptr;
}

inline void check_alignment_kv(const gguf_kv & kv) {
    if (kv.type != GGUF_TYPE_UINT32) {
        fail("%s has type %s, expected u32", GGUF_KEY_GENERAL_ALIGNMENT, k_type_name[kv.type]);
    }
    uint32_t a;
    memcpy(&a, kv.data.data(), sizeof(a));
    if (!valid_alignment(a)) {
        fail("%s = %u is not a power of two in [1, %llu]", GGUF_KEY_GENERAL_ALIGNMENT, a,
             (unsigned long long) k_max_alignment);
    }
}

// Why `key` is not a valid GGUF key (empty, a NUL, a byte outside ASCII, longer than 65,535 bytes),
// or nullptr. The reader and the writer apply the same rule so that a written file reads back.
inline const char * key_problem(const char * key, size_t n) {
    if (n == 0) {
        return "is empty";
    }
    if (n > k_max_key_bytes) {
        return "is longer than 65535 bytes (the GGUF limit for keys)";
    }
    for (size_t i = 0; i < n; i++) {
        if (key[i] == '\0') {
            return "contains a NUL byte";
        }
        if ((unsigned char) key[i] > 0x7f) {
            return "has a byte outside ASCII (GGUF keys must be ASCII)";
        }
    }
    return nullptr;
}

// Index of the first byte of p[0..n) that is neither 0 nor 1 (an invalid bool), or n.
inline uint64_t first_invalid_bool(const uint8_t * p, uint64_t n) {
    for (uint64_t i = 0; i < n; i++) {
        if (p[i] > 1) {
            return i;
        }
    }
    return n;
}

// Sends an error to the log and keeps it as this thread's gguf_last_error() (defined in gguf.cpp).
GGML_ATTRIBUTE_FORMAT(1, 2) void report_error(const char * fmt, ...);

// Runs fn, turning any exception into a logged error; returns false if one was thrown.
template <typename F>
bool guarded(const char * where, F && fn) {
    try {
        fn();
        return true;
    } catch (const gguf_error & e) {
        report_error("gguf: %s: %s", where, e.what());
    } catch (const std::bad_alloc &) {
        report_error("gguf: %s: out of memory", where);
    } catch (const std::exception & e) {
        report_error("gguf: %s: %s", where, e.what());
    } catch (...) {
        report_error("gguf: %s: unknown error", where);
    }
    return false;
}

// Appends an array's element type, count and elements in file format (nested arrays: raw bytes).
void append_array_body(std::vector<uint8_t> & out, const gguf_kv & kv);
// Header, key/values, tensor infos and padding to the alignment: the bytes before the data section.
std::vector<uint8_t> serialize_meta(const gguf_context & ctx);

}  // namespace gguf_impl
