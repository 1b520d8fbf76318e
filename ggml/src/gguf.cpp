// GGUF container: the reader (file or buffer, every field validated) and the accessors. Format in gguf.h;
// the writer is gguf-write.cpp, shared internals gguf-impl.h.
//
// Decisions the spec leaves open (tests in tests/unit/test-gguf.cpp pin them):
// - Little-endian hosts only: values are copied as raw bytes. A big-endian file (version bytes
//   swapped) is recognised and rejected with its own message.
// - general.alignment must be a u32, a power of two and at most 1 MiB (2^31 is a power of two but
//   would make every file padding-dominated; nothing real uses more than a page).
// - A dimension of 0 is accepted (an empty tensor of 0 bytes, as ggml allows); ne[i] must fit int64
//   and the product of the non-zero dims must too (so row counts never overflow).
// - Tensor offsets need not be in order or contiguous, but must be aligned, inside the file and
//   non-overlapping. With n_tensors == 0 the file may end before the padded data offset.
// - Keys and tensor names must be non-empty and free of NUL bytes (lookups use C strings);
//   tensor names must be shorter than GGML_MAX_NAME. String values may hold NULs.
// Rules the spec states and we enforce (reader and writer alike, gguf-impl.h):
// - keys are ASCII (no byte above 0x7f) and at most 65,535 bytes; the spec's lower_snake_case
//   segment convention is not enforced (only its explicit hard limits are).
// - a bool (a scalar, or an element of a bool array at any depth) is the byte 0 or 1.
// - Nested arrays: an array of arrays whose inner arrays hold non-array values (depth 2).
// - Changing general.alignment re-lays-out every tensor offset (sequential, aligned).

#include <algorithm>
#include <cerrno>
#include <memory>
#include <unordered_set>

#include "ggml-os.h"
#include "gguf-impl.h"

using namespace gguf_impl;

namespace {

// ---------------------------------------------------------------------------------------------
// byte sources: a bounds-checked cursor over a buffer or a FILE of known size

class byte_source {
public:
    explicit byte_source(uint64_t size) : size_(size) {}
    virtual ~byte_source() = default;

    uint64_t size() const { return size_; }
    uint64_t pos() const { return pos_; }
    uint64_t left() const { return size_ - pos_; }

    void read(void * dst, uint64_t n, const char * what) {
        if (n > left()) {
            fail("offset %llu: %s needs %llu bytes but only %llu are left", (unsigned long long) pos_, what,
                 (unsigned long long) n, (unsigned long long) left());
        }
        if (n) {
            do_read(dst, n);
        }
        pos_ += n;
    }
    void seek(uint64_t p) {
        if (p > size_) {
            fail("seek to %llu past the end (%llu bytes)", (unsigned long long) p, (unsigned long long) size_);
        }
        do_seek(p);
        pos_ = p;
    }

protected:
    virtual void do_read(void * dst, uint64_t n) = 0;
    virtual void do_seek(uint64_t p)             = 0;
    uint64_t     size_;
    uint64_t     pos_ = 0;
};

class buffer_source : public byte_source {
public:
    buffer_source(const void * data, uint64_t size) : byte_source(size), data_((const uint8_t *) data) {}

private:
    void            do_read(void * dst, uint64_t n) override { memcpy(dst, data_ + pos_, n); }
    void            do_seek(uint64_t) override {}
    const uint8_t * data_;
};

class file_source : public byte_source {
public:
    file_source(FILE * f, uint64_t size) : byte_source(size), f_(f) {}

private:
    void do_read(void * dst, uint64_t n) override {
        if (fread(dst, 1, n, f_) != n) {
            fail("offset %llu: read error", (unsigned long long) pos_);
        }
    }
    void do_seek(uint64_t p) override {
        if (ggml_os_fseek64(f_, p) != 0) {
            fail("seek to %llu failed", (unsigned long long) p);
        }
    }
    FILE * f_;
};

// ---------------------------------------------------------------------------------------------
// reader

// The first 48 bytes of s for an error message, bytes outside printable ASCII as \xNN.
std::string printable(const std::string & s) {
    std::string out;
    for (size_t i = 0; i < s.size() && i < 48; i++) {
        const unsigned char c = (unsigned char) s[i];
        if (c >= 0x20 && c < 0x7f) {
            out += (char) c;
        } else {
            char hex[8];
            snprintf(hex, sizeof(hex), "\\x%02x", c);
            out += hex;
        }
    }
    return s.size() > 48 ? out + "..." : out;
}

class reader {
public:
    explicit reader(byte_source & src) : src_(src) {}

    uint32_t u32(const char * what) {
        uint32_t v;
        src_.read(&v, sizeof(v), what);
        return v;
    }
    uint64_t u64(const char * what) {
        uint64_t v;
        src_.read(&v, sizeof(v), what);
        return v;
    }
    std::string str(const char * what, uint64_t max_len = UINT64_MAX) {
        const uint64_t at = src_.pos();
        const uint64_t n  = u64(what);
        if (n > src_.left()) {
            fail("offset %llu: %s length %llu exceeds the %llu bytes left", (unsigned long long) at, what,
                 (unsigned long long) n, (unsigned long long) src_.left());
        }
        if (n > max_len) {
            fail("offset %llu: %s length %llu exceeds the limit of %llu bytes", (unsigned long long) at, what,
                 (unsigned long long) n, (unsigned long long) max_len);
        }
        std::string s(n, '\0');
        src_.read(&s[0], n, what);
        return s;
    }
    // A key or tensor name: non-empty, no NUL (looked up as a C string).
    std::string name(const char * what) {
        const uint64_t at = src_.pos();
        std::string    s  = str(what);
        if (s.empty()) {
            fail("offset %llu: empty %s", (unsigned long long) at, what);
        }
        if (s.find('\0') != std::string::npos) {
            fail("offset %llu: %s contains a NUL byte", (unsigned long long) at, what);
        }
        return s;
    }

    // A metadata key: non-empty, ASCII without NUL, at most 65,535 bytes (the spec's rules).
    std::string key() {
        const uint64_t at = src_.pos();
        std::string    s  = str("key", k_max_key_bytes);
        if (s.empty()) {
            fail("offset %llu: empty key", (unsigned long long) at);
        }
        if (const char * why = key_problem(s.data(), s.size())) {
            fail("offset %llu: key \"%s\" %s", (unsigned long long) at, printable(s).c_str(), why);
        }
        return s;
    }

    void value(gguf_kv & kv) {
        const uint64_t at = src_.pos();
        const uint32_t t  = u32("value type");
        if (t >= GGUF_TYPE_COUNT) {
            fail("offset %llu: key '%s' has unknown value type %u", (unsigned long long) at, kv.key.c_str(), t);
        }
        kv.type = (gguf_type) t;
        if (is_fixed_type(t)) {
            kv.data.resize(k_type_size[t]);
            src_.read(kv.data.data(), kv.data.size(), "value");
            if (t == GGUF_TYPE_BOOL && kv.data[0] > 1) {
                fail("offset %llu: bool '%s' has the value %u (only 0 and 1 are valid)", (unsigned long long) at,
                     kv.key.c_str(), kv.data[0]);
            }
        } else if (t == GGUF_TYPE_STRING) {
            kv.str.push_back(str("string value"));
        } else {
            array(kv, 1);
        }
    }

    // u32 element type, u64 count, elements; depth 1 is a top-level array, 2 an inner one.
    void array(gguf_kv & kv, int depth) {
        const uint64_t at = src_.pos();
        const uint32_t et = u32("array element type");
        if (et >= GGUF_TYPE_COUNT) {
            fail("offset %llu: array '%s' has unknown element type %u", (unsigned long long) at, kv.key.c_str(), et);
        }
        const uint64_t n        = u64("array length");
        kv.type                 = GGUF_TYPE_ARRAY;
        kv.arr_type             = (gguf_type) et;
        kv.n                    = n;
        const uint64_t min_elem = is_fixed_type(et) ? k_type_size[et] : et == GGUF_TYPE_STRING ? 8 : k_min_array_bytes;
        if (n > src_.left() / min_elem) {
            fail("offset %llu: array '%s' of %llu %s elements exceeds the %llu bytes left", (unsigned long long) at,
                 kv.key.c_str(), (unsigned long long) n, k_type_name[et], (unsigned long long) src_.left());
        }
        if (is_fixed_type(et)) {
            kv.data.resize(n * k_type_size[et]);
            src_.read(kv.data.data(), kv.data.size(), "array data");
            const uint64_t bad = et == GGUF_TYPE_BOOL ? first_invalid_bool(kv.data.data(), n) : n;
            if (bad < n) {
                fail("offset %llu: bool array '%s' has the value %u at index %llu (only 0 and 1 are valid)",
                     (unsigned long long) at, kv.key.c_str(), kv.data[bad], (unsigned long long) bad);
            }
        } else if (et == GGUF_TYPE_STRING) {
            kv.str.reserve(n);
            for (uint64_t i = 0; i < n; i++) {
                kv.str.push_back(str("array string"));
            }
        } else {
            if (depth >= 2) {
                fail("offset %llu: array '%s' nests arrays deeper than 2 levels", (unsigned long long) at,
                     kv.key.c_str());
            }
            for (uint64_t i = 0; i < n; i++) {
                gguf_kv inner;
                inner.key = kv.key;
                array(inner, depth + 1);
                append_array_body(kv.data, inner);
            }
        }
    }

private:
    byte_source & src_;
};

// ---------------------------------------------------------------------------------------------
// parsing a whole file

void parse(byte_source & src, const gguf_init_params & params, gguf_context & ctx) {
    reader rd(src);
    char   magic[4];
    src.read(magic, 4, "magic");
    if (memcmp(magic, GGUF_MAGIC, 4) != 0) {
        fail("bad magic %02x %02x %02x %02x (expected \"GGUF\")", (uint8_t) magic[0], (uint8_t) magic[1],
             (uint8_t) magic[2], (uint8_t) magic[3]);
    }
    const uint32_t version = rd.u32("version");
    if (version == 0x02000000u || version == 0x03000000u) {
        fail("big-endian GGUF files are not supported");
    }
    if (version != 2 && version != 3) {
        fail("unsupported version %u (only 2 and 3 are read)", version);
    }
    ctx.version              = version;
    const uint64_t n_tensors = rd.u64("tensor count");
    const uint64_t n_kv      = rd.u64("key/value count");
    if (n_kv > src.left() / k_min_kv_bytes || n_tensors > src.left() / k_min_tensor_bytes ||
        n_kv * k_min_kv_bytes + n_tensors * k_min_tensor_bytes > src.left()) {
        fail("%llu key/values and %llu tensors cannot fit in the %llu bytes left", (unsigned long long) n_kv,
             (unsigned long long) n_tensors, (unsigned long long) src.left());
    }

    std::unordered_set<std::string> seen;
    ctx.kv.reserve(n_kv);
    for (uint64_t i = 0; i < n_kv; i++) {
        const uint64_t at = src.pos();
        gguf_kv        kv;
        kv.key = rd.key();
        if (!seen.insert(kv.key).second) {
            fail("offset %llu: duplicate key '%s'", (unsigned long long) at, kv.key.c_str());
        }
        rd.value(kv);
        if (kv.key == GGUF_KEY_GENERAL_ALIGNMENT) {
            check_alignment_kv(kv);
            uint32_t a;
            memcpy(&a, kv.data.data(), sizeof(a));
            ctx.alignment = a;
        }
        ctx.kv.push_back(std::move(kv));
    }

    seen.clear();
    ctx.tensors.reserve(n_tensors);
    for (uint64_t i = 0; i < n_tensors; i++) {
        const uint64_t   at = src.pos();
        gguf_tensor_info t;
        t.name = rd.name("tensor name");
        if (t.name.size() >= GGML_MAX_NAME) {
            fail("offset %llu: tensor name '%.32s...' is %zu bytes, the limit is %d", (unsigned long long) at,
                 t.name.c_str(), t.name.size(), GGML_MAX_NAME - 1);
        }
        if (!seen.insert(t.name).second) {
            fail("offset %llu: duplicate tensor name '%s'", (unsigned long long) at, t.name.c_str());
        }
        t.n_dims = rd.u32("n_dims");
        if (t.n_dims < 1 || t.n_dims > 4) {
            fail("offset %llu: tensor '%s' has %u dims (1..4 allowed)", (unsigned long long) at, t.name.c_str(),
                 t.n_dims);
        }
        uint64_t ne[4] = {1, 1, 1, 1};
        for (uint32_t d = 0; d < t.n_dims; d++) {
            ne[d] = rd.u64("tensor dim");
        }
        const uint32_t type = rd.u32("tensor type");
        t.offset            = rd.u64("tensor offset");
        const char * why    = tensor_nbytes(type, t.n_dims, ne, &t.size);
        if (why) {
            fail("offset %llu: tensor '%s' (type %u, ne %llu x %llu x %llu x %llu): %s", (unsigned long long) at,
                 t.name.c_str(), type, (unsigned long long) ne[0], (unsigned long long) ne[1],
                 (unsigned long long) ne[2], (unsigned long long) ne[3], why);
        }
        t.type = (ggml_type) type;
        for (int d = 0; d < 4; d++) {
            t.ne[d] = (int64_t) ne[d];
        }
        ctx.tensors.push_back(std::move(t));
    }

    // the data section starts at the next multiple of the alignment
    ctx.data_offset = (src.pos() + ctx.alignment - 1) / ctx.alignment * ctx.alignment;
    ctx.file_size   = src.size();

    std::vector<size_t> order(ctx.tensors.size());
    for (size_t i = 0; i < order.size(); i++) {
        const gguf_tensor_info & t = ctx.tensors[i];
        order[i]                   = i;
        uint64_t end;
        if (t.offset % ctx.alignment != 0) {
            fail("tensor '%s' offset %llu is not a multiple of the alignment %llu", t.name.c_str(),
                 (unsigned long long) t.offset, (unsigned long long) ctx.alignment);
        }
        if (!ggml_add_overflow_u64(ctx.data_offset, t.offset, &end) || !ggml_add_overflow_u64(end, t.size, &end) ||
            end > src.size()) {
            fail("tensor '%s' data [%llu, +%llu) at data offset %llu runs past the end of the file (%llu bytes)",
                 t.name.c_str(), (unsigned long long) t.offset, (unsigned long long) t.size,
                 (unsigned long long) ctx.data_offset, (unsigned long long) src.size());
        }
    }
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return ctx.tensors[a].offset < ctx.tensors[b].offset; });
    const gguf_tensor_info * prev = nullptr;
    for (size_t i : order) {
        const gguf_tensor_info & t = ctx.tensors[i];
        if (t.size == 0) {
            continue;
        }
        if (prev && t.offset < prev->offset + prev->size) {
            fail("tensor '%s' [%llu, %llu) overlaps tensor '%s' [%llu, %llu)", t.name.c_str(),
                 (unsigned long long) t.offset, (unsigned long long) (t.offset + t.size), prev->name.c_str(),
                 (unsigned long long) prev->offset, (unsigned long long) (prev->offset + prev->size));
        }
        prev = &t;
    }

    if (!params.no_alloc) {
        for (size_t i : order) {
            gguf_tensor_info & t = ctx.tensors[i];
            t.data.resize(t.size);
            src.seek(ctx.data_offset + t.offset);
            src.read(t.data.data(), t.size, "tensor data");
            t.has_data = true;
        }
    }
}

gguf_context * init_from_source(byte_source & src, const char * name, const gguf_init_params & params) {
    gguf_context * result = nullptr;
    guarded(name, [&] {
        auto ctx = std::make_unique<gguf_context>();
        parse(src, params, *ctx);
        result = ctx.release();
    });
    return result;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// errors

namespace {
thread_local std::string g_last_error;
}  // namespace

void gguf_impl::report_error(const char * fmt, ...) {
    char    buf[1024];
    va_list args;
    va_start(args, fmt);
    vsnprintf(buf, sizeof(buf), fmt, args);
    va_end(args);
    g_last_error = buf;
    GGML_LOG_ERROR("%s", buf);
}

// ---------------------------------------------------------------------------------------------
// init / free

extern "C" {

const char * gguf_last_error(void) {
    return g_last_error.c_str();
}

struct gguf_context * gguf_init_from_file(const char * path, struct gguf_init_params params) {
    if (!path) {
        report_error("gguf: gguf_init_from_file: NULL path");
        return nullptr;
    }
    // never blocks: a FIFO (which would wait forever for a writer) or a device is refused, checked on
    // the opened handle itself so that nothing can be swapped in between
    ggml_os_file file = GGML_OS_FILE_INIT;
    const int    r    = ggml_os_file_open_read(path, 0, &file);
    if (r == GGML_OS_NOT_REGULAR) {
        report_error("gguf: %s: not a regular file", path);
        return nullptr;
    }
    if (r != GGML_OS_OK) {
        report_error("gguf: %s", ggml_os_error());
        return nullptr;
    }
    const uint64_t size = file.size;
    FILE *         f    = ggml_os_file_to_stdio(&file, "rb");
    if (!f) {
        report_error("gguf: %s: cannot open: %s", path, ggml_os_error());
        ggml_os_file_close(&file);
        return nullptr;
    }
    file_source    src(f, size);
    gguf_context * ctx = init_from_source(src, path, params);
    fclose(f);
    return ctx;
}

struct gguf_context * gguf_init_from_buffer(const void * data, size_t size, struct gguf_init_params params) {
    if (!data && size) {
        report_error("gguf: gguf_init_from_buffer: NULL data");
        return nullptr;
    }
    static const uint8_t empty = 0;
    buffer_source        src(data ? data : &empty, size);
    return init_from_source(src, "buffer", params);
}

struct gguf_context * gguf_init_empty(void) {
    try {
        return new gguf_context();
    } catch (...) {
        report_error("gguf: gguf_init_empty: out of memory");
        return nullptr;
    }
}

void gguf_free(struct gguf_context * ctx) {
    delete ctx;
}

const char * gguf_type_name(enum gguf_type type) {
    return type_name_u32(raw_enum(type));
}

size_t gguf_type_size(enum gguf_type type) {
    const uint32_t t = raw_enum(type);
    return t < GGUF_TYPE_COUNT ? k_type_size[t] : 0;
}

uint32_t gguf_get_version(const struct gguf_context * ctx) {
    return ctx ? ctx->version : 0;
}
size_t gguf_get_alignment(const struct gguf_context * ctx) {
    return ctx ? ctx->alignment : 0;
}
size_t gguf_get_data_offset(const struct gguf_context * ctx) {
    return ctx ? ctx->data_offset : 0;
}
size_t gguf_get_file_size(const struct gguf_context * ctx) {
    return ctx ? ctx->file_size : 0;
}

}  // extern "C"

// ---------------------------------------------------------------------------------------------
// key/value accessors: a wrong id or type logs and yields a zero value

namespace {

const gguf_kv * get_kv(const gguf_context * ctx, int64_t id, const char * fn) {
    if (!ctx) {
        GGML_LOG_ERROR("gguf: %s: NULL context", fn);
        return nullptr;
    }
    if (id < 0 || (uint64_t) id >= ctx->kv.size()) {
        GGML_LOG_ERROR("gguf: %s: key id %lld out of range [0, %zu)", fn, (long long) id, ctx->kv.size());
        return nullptr;
    }
    return &ctx->kv[(size_t) id];
}

const gguf_kv * get_kv_typed(const gguf_context * ctx, int64_t id, gguf_type type, const char * fn) {
    const gguf_kv * kv = get_kv(ctx, id, fn);
    if (kv && kv->type != type) {
        GGML_LOG_ERROR("gguf: %s: key '%s' has type %s, not %s", fn, kv->key.c_str(), k_type_name[kv->type],
                       k_type_name[type]);
        return nullptr;
    }
    return kv;
}

template <typename T>
T get_scalar(const gguf_context * ctx, int64_t id, gguf_type type, const char * fn) {
    const gguf_kv * kv = get_kv_typed(ctx, id, type, fn);
    T               v{};
    if (kv) {
        memcpy(&v, kv->data.data(), sizeof(v));
    }
    return v;
}

const gguf_kv * get_arr(const gguf_context * ctx, int64_t id, const char * fn) {
    return get_kv_typed(ctx, id, GGUF_TYPE_ARRAY, fn);
}

}  // namespace

extern "C" {

int64_t gguf_get_n_kv(const struct gguf_context * ctx) {
    return ctx ? (int64_t) ctx->kv.size() : 0;
}

int64_t gguf_find_key(const struct gguf_context * ctx, const char * key) {
    if (!ctx || !key) {
        return -1;
    }
    for (size_t i = 0; i < ctx->kv.size(); i++) {
        if (ctx->kv[i].key == key) {
            return (int64_t) i;
        }
    }
    return -1;
}

const char * gguf_get_key(const struct gguf_context * ctx, int64_t key_id) {
    const gguf_kv * kv = get_kv(ctx, key_id, "gguf_get_key");
    return kv ? kv->key.c_str() : nullptr;
}

enum gguf_type gguf_get_kv_type(const struct gguf_context * ctx, int64_t key_id) {
    const gguf_kv * kv = get_kv(ctx, key_id, "gguf_get_kv_type");
    return kv ? kv->type : GGUF_TYPE_COUNT;
}

enum gguf_type gguf_get_arr_type(const struct gguf_context * ctx, int64_t key_id) {
    const gguf_kv * kv = get_arr(ctx, key_id, "gguf_get_arr_type");
    return kv ? kv->arr_type : GGUF_TYPE_COUNT;
}

uint8_t gguf_get_val_u8(const struct gguf_context * ctx, int64_t id) {
    return get_scalar<uint8_t>(ctx, id, GGUF_TYPE_UINT8, "gguf_get_val_u8");
}
int8_t gguf_get_val_i8(const struct gguf_context * ctx, int64_t id) {
    return get_scalar<int8_t>(ctx, id, GGUF_TYPE_INT8, "gguf_get_val_i8");
}
uint16_t gguf_get_val_u16(const struct gguf_context * ctx, int64_t id) {
    return get_scalar<uint16_t>(ctx, id, GGUF_TYPE_UINT16, "gguf_get_val_u16");
}
int16_t gguf_get_val_i16(const struct gguf_context * ctx, int64_t id) {
    return get_scalar<int16_t>(ctx, id, GGUF_TYPE_INT16, "gguf_get_val_i16");
}
uint32_t gguf_get_val_u32(const struct gguf_context * ctx, int64_t id) {
    return get_scalar<uint32_t>(ctx, id, GGUF_TYPE_UINT32, "gguf_get_val_u32");
}
int32_t gguf_get_val_i32(const struct gguf_context * ctx, int64_t id) {
    return get_scalar<int32_t>(ctx, id, GGUF_TYPE_INT32, "gguf_get_val_i32");
}
float gguf_get_val_f32(const struct gguf_context * ctx, int64_t id) {
    return get_scalar<float>(ctx, id, GGUF_TYPE_FLOAT32, "gguf_get_val_f32");
}
uint64_t gguf_get_val_u64(const struct gguf_context * ctx, int64_t id) {
    return get_scalar<uint64_t>(ctx, id, GGUF_TYPE_UINT64, "gguf_get_val_u64");
}
int64_t gguf_get_val_i64(const struct gguf_context * ctx, int64_t id) {
    return get_scalar<int64_t>(ctx, id, GGUF_TYPE_INT64, "gguf_get_val_i64");
}
double gguf_get_val_f64(const struct gguf_context * ctx, int64_t id) {
    return get_scalar<double>(ctx, id, GGUF_TYPE_FLOAT64, "gguf_get_val_f64");
}
bool gguf_get_val_bool(const struct gguf_context * ctx, int64_t id) {
    return get_scalar<uint8_t>(ctx, id, GGUF_TYPE_BOOL, "gguf_get_val_bool") != 0;
}

const char * gguf_get_val_str(const struct gguf_context * ctx, int64_t id) {
    const gguf_kv * kv = get_kv_typed(ctx, id, GGUF_TYPE_STRING, "gguf_get_val_str");
    return kv ? kv->str[0].c_str() : nullptr;
}

uint64_t gguf_get_val_str_len(const struct gguf_context * ctx, int64_t id) {
    const gguf_kv * kv = get_kv_typed(ctx, id, GGUF_TYPE_STRING, "gguf_get_val_str_len");
    return kv ? kv->str[0].size() : 0;
}

const void * gguf_get_val_data(const struct gguf_context * ctx, int64_t id) {
    const gguf_kv * kv = get_kv(ctx, id, "gguf_get_val_data");
    if (!kv) {
        return nullptr;
    }
    if (!is_fixed_type(kv->type)) {
        GGML_LOG_ERROR("gguf: gguf_get_val_data: key '%s' has type %s, not a fixed-size value", kv->key.c_str(),
                       k_type_name[kv->type]);
        return nullptr;
    }
    return kv->data.data();
}

size_t gguf_get_arr_n(const struct gguf_context * ctx, int64_t id) {
    const gguf_kv * kv = get_arr(ctx, id, "gguf_get_arr_n");
    return kv ? (size_t) kv->n : 0;
}

const void * gguf_get_arr_data(const struct gguf_context * ctx, int64_t id) {
    const gguf_kv * kv = get_arr(ctx, id, "gguf_get_arr_data");
    if (!kv) {
        return nullptr;
    }
    if (!is_fixed_type(kv->arr_type)) {
        GGML_LOG_ERROR("gguf: gguf_get_arr_data: array '%s' holds %s elements, not fixed-size values", kv->key.c_str(),
                       k_type_name[kv->arr_type]);
        return nullptr;
    }
    return kv->data.data();
}

static const std::string * get_arr_str(const gguf_context * ctx, int64_t id, size_t i, const char * fn) {
    const gguf_kv * kv = get_arr(ctx, id, fn);
    if (!kv) {
        return nullptr;
    }
    if (kv->arr_type != GGUF_TYPE_STRING) {
        GGML_LOG_ERROR("gguf: %s: array '%s' holds %s elements, not strings", fn, kv->key.c_str(),
                       k_type_name[kv->arr_type]);
        return nullptr;
    }
    if (i >= kv->str.size()) {
        GGML_LOG_ERROR("gguf: %s: index %zu out of range for array '%s' of %zu strings", fn, i, kv->key.c_str(),
                       kv->str.size());
        return nullptr;
    }
    return &kv->str[i];
}

const char * gguf_get_arr_str(const struct gguf_context * ctx, int64_t id, size_t i) {
    const std::string * s = get_arr_str(ctx, id, i, "gguf_get_arr_str");
    return s ? s->c_str() : nullptr;
}

uint64_t gguf_get_arr_str_len(const struct gguf_context * ctx, int64_t id, size_t i) {
    const std::string * s = get_arr_str(ctx, id, i, "gguf_get_arr_str_len");
    return s ? s->size() : 0;
}

}  // extern "C"

// ---------------------------------------------------------------------------------------------
// tensor accessors

namespace {

const gguf_tensor_info * get_tensor(const gguf_context * ctx, int64_t id, const char * fn) {
    if (!ctx) {
        GGML_LOG_ERROR("gguf: %s: NULL context", fn);
        return nullptr;
    }
    if (id < 0 || (uint64_t) id >= ctx->tensors.size()) {
        GGML_LOG_ERROR("gguf: %s: tensor id %lld out of range [0, %zu)", fn, (long long) id, ctx->tensors.size());
        return nullptr;
    }
    return &ctx->tensors[(size_t) id];
}

}  // namespace

extern "C" {

int64_t gguf_get_n_tensors(const struct gguf_context * ctx) {
    return ctx ? (int64_t) ctx->tensors.size() : 0;
}

int64_t gguf_find_tensor(const struct gguf_context * ctx, const char * name) {
    if (!ctx || !name) {
        return -1;
    }
    for (size_t i = 0; i < ctx->tensors.size(); i++) {
        if (ctx->tensors[i].name == name) {
            return (int64_t) i;
        }
    }
    return -1;
}

const char * gguf_get_tensor_name(const struct gguf_context * ctx, int64_t id) {
    const gguf_tensor_info * t = get_tensor(ctx, id, "gguf_get_tensor_name");
    return t ? t->name.c_str() : nullptr;
}

enum ggml_type gguf_get_tensor_type(const struct gguf_context * ctx, int64_t id) {
    const gguf_tensor_info * t = get_tensor(ctx, id, "gguf_get_tensor_type");
    return t ? t->type : GGML_TYPE_COUNT;
}

size_t gguf_get_tensor_offset(const struct gguf_context * ctx, int64_t id) {
    const gguf_tensor_info * t = get_tensor(ctx, id, "gguf_get_tensor_offset");
    return t ? (size_t) t->offset : 0;
}

size_t gguf_get_tensor_size(const struct gguf_context * ctx, int64_t id) {
    const gguf_tensor_info * t = get_tensor(ctx, id, "gguf_get_tensor_size");
    return t ? (size_t) t->size : 0;
}

uint32_t gguf_get_tensor_n_dims(const struct gguf_context * ctx, int64_t id) {
    const gguf_tensor_info * t = get_tensor(ctx, id, "gguf_get_tensor_n_dims");
    return t ? t->n_dims : 0;
}

void gguf_get_tensor_shape(const struct gguf_context * ctx, int64_t id, int64_t ne[4]) {
    const gguf_tensor_info * t = get_tensor(ctx, id, "gguf_get_tensor_shape");
    if (!ne) {
        return;
    }
    for (int d = 0; d < 4; d++) {
        ne[d] = t ? t->ne[d] : 0;
    }
}

const void * gguf_get_tensor_data(const struct gguf_context * ctx, int64_t id) {
    const gguf_tensor_info * t = get_tensor(ctx, id, "gguf_get_tensor_data");
    return t && t->has_data ? t->data.data() : nullptr;
}

}  // extern "C"
