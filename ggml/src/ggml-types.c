// Tensor type traits (the GGUF type table), half/bfloat16 conversion, and the log sink.
#include "ggml-impl.h"
#include "ggml-os.h"
#include "ggml-type-table.h"
#include "ggml-x86-cpuid.h"

#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

// ---------------------------------------------------------------------------------------------
// type layouts: the layout columns of the type table (ggml-type-table.h); an id without a row (no name)
// was removed from the format.
struct ggml_type_traits_row {
    const char * name;
    int64_t      blck_size;
    size_t       type_size;
    bool         quantized;
    int          flags;  // enum ggml_type_flag
};

#define LAYOUT_ROW(T, NAME, BLCK, BYTES, QUANTIZED, FLAGS, CODEC) \
    [GGML_TYPE_##T] = {NAME, BLCK, BYTES, QUANTIZED, FLAGS},
static const struct ggml_type_traits_row k_type_traits[GGML_TYPE_COUNT] = {GGML_TYPE_TABLE(LAYOUT_ROW)};
#undef LAYOUT_ROW

bool ggml_type_is_valid(enum ggml_type type) {
    return (int) type >= 0 && type < GGML_TYPE_COUNT && k_type_traits[type].name != NULL;
}

const char * ggml_type_name(enum ggml_type type) {
    return ggml_type_is_valid(type) ? k_type_traits[type].name : "invalid";
}

int64_t ggml_blck_size(enum ggml_type type) {
    return ggml_type_is_valid(type) ? k_type_traits[type].blck_size : 0;
}

size_t ggml_type_size(enum ggml_type type) {
    return ggml_type_is_valid(type) ? k_type_traits[type].type_size : 0;
}

size_t ggml_row_size(enum ggml_type type, int64_t ne) {
    const int64_t bs = ggml_blck_size(type);
    return bs ? ggml_type_size(type) * (size_t) (ne / bs) : 0;
}

bool ggml_is_quantized(enum ggml_type type) {
    return ggml_type_is_valid(type) && k_type_traits[type].quantized;
}

bool ggml_type_is_kv_cache(enum ggml_type type) {
    return ggml_type_is_valid(type) && (k_type_traits[type].flags & GGML_TYPEF_KV_CACHE) != 0;
}

// ---------------------------------------------------------------------------------------------
// half and bfloat16 conversion (bit manipulation; exact for every value, round to nearest even)
static inline uint32_t f32_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static inline float bits_f32(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

float ggml_fp16_to_fp32(ggml_fp16_t h) {
    const uint32_t sign = (uint32_t) (h & 0x8000) << 16;
    const uint32_t exp  = (h >> 10) & 0x1f;
    const uint32_t mant = h & 0x3ff;
    if (exp == 0) {
        // zero or subnormal: mant * 2^-24
        const float v = (float) mant * 5.9604644775390625e-08f;
        return bits_f32(f32_bits(v) | sign);
    }
    if (exp == 31) {
        return bits_f32(sign | 0x7f800000u | (mant << 13));  // inf / nan
    }
    return bits_f32(sign | ((exp + 112) << 23) | (mant << 13));
}

ggml_fp16_t ggml_fp32_to_fp16(float f) {
    const uint32_t x    = f32_bits(f);
    const uint32_t sign = (x >> 16) & 0x8000;
    const uint32_t ax   = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) {
        // inf stays inf, nan stays a quiet nan
        return (ggml_fp16_t) (sign | 0x7c00 | (ax > 0x7f800000u ? 0x200 : 0));
    }
    if (ax >= 0x477ff000u) {
        return (ggml_fp16_t) (sign | 0x7c00);  // rounds to beyond max half: inf
    }
    if (ax < 0x38800000u) {
        // subnormal half (or zero): scale so the integer part is the mantissa, round to even
        const float    v = bits_f32(ax) * 16777216.0f;  // * 2^24
        const uint32_t m = (uint32_t) lrintf(v);
        return (ggml_fp16_t) (sign | m);
    }
    const uint32_t exp  = (ax >> 23) - 112;
    uint32_t       mant = ax & 0x7fffff;
    uint32_t       h    = (exp << 10) | (mant >> 13);
    const uint32_t rem  = mant & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) {
        h++;  // carry into the exponent is correct rounding
    }
    return (ggml_fp16_t) (sign | h);
}

float ggml_bf16_to_fp32(ggml_bf16_t h) {
    return bits_f32((uint32_t) h.bits << 16);
}

ggml_bf16_t ggml_fp32_to_bf16(float f) {
    ggml_bf16_t    r;
    const uint32_t u = f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) {
        r.bits = (uint16_t) ((u >> 16) | 64);  // quiet nan
        return r;
    }
    r.bits = (uint16_t) ((u + (0x7fff + ((u >> 16) & 1))) >> 16);
    return r;
}

#if defined(GGML_X86_CPUID)
#    include <immintrin.h>
// the F16C instructions in this function only (MSVC compiles intrinsics without such a flag)
#    if defined(__GNUC__) || defined(__clang__)
#        define GGML_TARGET_AVX_F16C __attribute__((target("avx,f16c")))
#    else
#        define GGML_TARGET_AVX_F16C
#    endif
// F16C converts exactly like the scalar code, except that a signalling NaN comes out quiet.
GGML_TARGET_AVX_F16C static void fp16_to_fp32_row_f16c(const ggml_fp16_t * x, float * y, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        _mm256_storeu_ps(y + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) (x + i))));
    }
    for (; i < n; i++) {
        y[i] = ggml_fp16_to_fp32(x[i]);
    }
}
#endif

void ggml_fp16_to_fp32_row(const ggml_fp16_t * x, float * y, int64_t n) {
#if defined(GGML_X86_CPUID)
    if (n >= 8 && ggml_x86_has(GGML_X86_AVX) && ggml_x86_has(GGML_X86_F16C)) {
        fp16_to_fp32_row_f16c(x, y, n);
        return;
    }
#endif
    for (int64_t i = 0; i < n; i++) {
        y[i] = ggml_fp16_to_fp32(x[i]);
    }
}
void ggml_fp32_to_fp16_row(const float * x, ggml_fp16_t * y, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        y[i] = ggml_fp32_to_fp16(x[i]);
    }
}
void ggml_bf16_to_fp32_row(const ggml_bf16_t * x, float * y, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        y[i] = ggml_bf16_to_fp32(x[i]);
    }
}
void ggml_fp32_to_bf16_row(const float * x, ggml_bf16_t * y, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        y[i] = ggml_fp32_to_bf16(x[i]);
    }
}

// ---------------------------------------------------------------------------------------------
// logging
static void ggml_log_default(enum ggml_log_level level, const char * text, void * user_data) {
    (void) level;
    (void) user_data;
    fputs(text, stderr);
    fflush(stderr);
}

// The callback and its user data form one pair: a spinlock held only while copying the two
// pointers keeps a reader from pairing one callback with another's data (ggml_log_set may run on
// any thread while others log). The callback itself is called outside the lock.
static ggml_log_callback g_log_cb;
static void *            g_log_ud;
static atomic_flag       g_log_lock = ATOMIC_FLAG_INIT;

static void log_lock(void) {
    while (atomic_flag_test_and_set_explicit(&g_log_lock, memory_order_acquire)) {
    }
}

static void log_unlock(void) {
    atomic_flag_clear_explicit(&g_log_lock, memory_order_release);
}

void ggml_log_set(ggml_log_callback callback, void * user_data) {
    log_lock();
    g_log_cb = callback;
    g_log_ud = callback ? user_data : NULL;
    log_unlock();
}

void ggml_log_internal(enum ggml_log_level level, const char * fmt, ...) {
    log_lock();
    ggml_log_callback cb = g_log_cb ? g_log_cb : ggml_log_default;
    void *            ud = g_log_ud;
    log_unlock();
    char    buf[1024];
    va_list args;
    va_start(args, fmt);
    int n = vsnprintf(buf, sizeof(buf), fmt, args);
    va_end(args);
    if (n < 0) {
        return;
    }
    // messages end in a newline so sinks can print them as they come
    size_t len = strlen(buf);
    if (len + 1 < sizeof(buf) && (len == 0 || buf[len - 1] != '\n')) {
        buf[len]     = '\n';
        buf[len + 1] = 0;
    }
    cb(level, buf, ud);
}

// ---------------------------------------------------------------------------------------------
// time
void ggml_time_init(void) {}

int64_t ggml_time_us(void) {
    return ggml_os_time_us();
}

FILE * ggml_fopen(const char * path, const char * mode) {
    return path && mode ? ggml_os_fopen(path, mode) : NULL;
}

int64_t ggml_time_ms(void) {
    return ggml_time_us() / 1000;
}

void ggml_abort(const char * file, int line, const char * fmt, ...) {
    char    buf[512];
    va_list args;
    va_start(args, fmt);
    vsnprintf(buf, sizeof(buf), fmt, args);
    va_end(args);
    ggml_log_internal(GGML_LOG_LEVEL_ERROR, "%s:%d: internal error: %s", file, line, buf);
    abort();
}
