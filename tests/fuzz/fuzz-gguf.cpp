// libFuzzer harness for the GGUF reader: parse the input from memory in both modes, walk every
// accessor, and check that an accepted file survives a write/read round trip with the same shape.
// Invariant violations trap so that libFuzzer records the input.
#include <cstdint>
#include <cstring>
#include <vector>

#include "ggml.h"
#include "gguf.h"

namespace {

void quiet_log(enum ggml_log_level, const char *, void *) {}

#define FUZZ_CHECK(x)         \
    do {                      \
        if (!(x)) {           \
            __builtin_trap(); \
        }                     \
    } while (0)

volatile uint64_t g_sink;  // keeps the accessor results alive

void walk(const gguf_context * ctx, const uint8_t * data, size_t size, bool no_alloc) {
    const int64_t n_kv = gguf_get_n_kv(ctx);
    for (int64_t i = 0; i < n_kv; i++) {
        const char * key = gguf_get_key(ctx, i);
        FUZZ_CHECK(key && *key && gguf_find_key(ctx, key) == i);
        const gguf_type t = gguf_get_kv_type(ctx, i);
        FUZZ_CHECK(t < GGUF_TYPE_COUNT);
        if (t == GGUF_TYPE_STRING) {
            g_sink += gguf_get_val_str_len(ctx, i) + (uint8_t) gguf_get_val_str(ctx, i)[0];
        } else if (t == GGUF_TYPE_ARRAY) {
            const gguf_type at = gguf_get_arr_type(ctx, i);
            const size_t    n  = gguf_get_arr_n(ctx, i);
            FUZZ_CHECK(at < GGUF_TYPE_COUNT);
            if (at == GGUF_TYPE_STRING) {
                for (size_t k = 0; k < n; k++) {
                    const char * s = gguf_get_arr_str(ctx, i, k);
                    g_sink += gguf_get_arr_str_len(ctx, i, k) + (uint8_t) s[0];
                }
            } else if (at != GGUF_TYPE_ARRAY && n > 0) {
                const uint8_t * p = (const uint8_t *) gguf_get_arr_data(ctx, i);
                FUZZ_CHECK(p != nullptr);
                g_sink += p[n * gguf_type_size(at) - 1];
            }
        } else {
            const uint8_t * p = (const uint8_t *) gguf_get_val_data(ctx, i);
            FUZZ_CHECK(p != nullptr);
            g_sink += p[gguf_type_size(t) - 1];
        }
    }
    const int64_t n_tensors = gguf_get_n_tensors(ctx);
    for (int64_t i = 0; i < n_tensors; i++) {
        const char * name = gguf_get_tensor_name(ctx, i);
        FUZZ_CHECK(name && gguf_find_tensor(ctx, name) == i);
        FUZZ_CHECK(ggml_type_is_valid(gguf_get_tensor_type(ctx, i)));
        int64_t ne[4];
        gguf_get_tensor_shape(ctx, i, ne);
        const size_t off = gguf_get_tensor_offset(ctx, i);
        const size_t sz  = gguf_get_tensor_size(ctx, i);
        FUZZ_CHECK(off % gguf_get_alignment(ctx) == 0);
        FUZZ_CHECK(gguf_get_data_offset(ctx) + off + sz <= size);
        FUZZ_CHECK(sz == ggml_row_size(gguf_get_tensor_type(ctx, i), ne[0]) * (size_t) (ne[1] * ne[2] * ne[3]));
        if (!no_alloc && sz > 0) {
            const void * p = gguf_get_tensor_data(ctx, i);
            FUZZ_CHECK(p && memcmp(p, data + gguf_get_data_offset(ctx) + off, sz) == 0);
        }
    }
}

// Serializes the metadata again, appends a zeroed data section and parses it: same counts.
void round_trip(const gguf_context * ctx) {
    std::vector<uint8_t> buf(gguf_get_meta_size(ctx));
    FUZZ_CHECK(!buf.empty());
    gguf_get_meta_data(ctx, buf.data());
    size_t end = 0;
    for (int64_t i = 0; i < gguf_get_n_tensors(ctx); i++) {
        const size_t e = gguf_get_tensor_offset(ctx, i) + gguf_get_tensor_size(ctx, i);
        end            = e > end ? e : end;
    }
    buf.resize(buf.size() + end, 0);
    gguf_context * back = gguf_init_from_buffer(buf.data(), buf.size(), gguf_init_params{true});
    FUZZ_CHECK(back != nullptr);
    FUZZ_CHECK(gguf_get_n_kv(back) == gguf_get_n_kv(ctx));
    FUZZ_CHECK(gguf_get_n_tensors(back) == gguf_get_n_tensors(ctx));
    FUZZ_CHECK(gguf_get_data_offset(back) == gguf_get_meta_size(ctx));
    gguf_free(back);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size) {
    static const bool init = (ggml_log_set(quiet_log, nullptr), true);
    (void) init;
    for (bool no_alloc : {true, false}) {
        gguf_context * ctx = gguf_init_from_buffer(data, size, gguf_init_params{no_alloc});
        if (!ctx) {
            continue;
        }
        walk(ctx, data, size, no_alloc);
        if (no_alloc) {
            round_trip(ctx);
        }
        gguf_free(ctx);
    }
    return 0;
}
