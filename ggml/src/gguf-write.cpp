// GGUF container: the writer (setters, tensor infos, serialization to a file or to bytes).
// Shared internals in gguf-impl.h; the reader is gguf.cpp.
#include <algorithm>
#include <cerrno>

#include "ggml-os.h"
#include "gguf-impl.h"

using namespace gguf_impl;

namespace {

void put_raw(std::vector<uint8_t> & out, const void * p, size_t n) {
    out.insert(out.end(), (const uint8_t *) p, (const uint8_t *) p + n);
}
void put_u32(std::vector<uint8_t> & out, uint32_t v) {
    put_raw(out, &v, sizeof(v));
}
void put_u64(std::vector<uint8_t> & out, uint64_t v) {
    put_raw(out, &v, sizeof(v));
}
void put_str(std::vector<uint8_t> & out, const std::string & s) {
    put_u64(out, s.size());
    put_raw(out, s.data(), s.size());
}

}  // namespace

void gguf_impl::append_array_body(std::vector<uint8_t> & out, const gguf_kv & kv) {
    put_u32(out, kv.arr_type);
    put_u64(out, kv.n);
    if (kv.arr_type == GGUF_TYPE_STRING) {
        for (const std::string & s : kv.str) {
            put_str(out, s);
        }
    } else {
        put_raw(out, kv.data.data(), kv.data.size());
    }
}

std::vector<uint8_t> gguf_impl::serialize_meta(const gguf_context & ctx) {
    std::vector<uint8_t> out;
    put_raw(out, GGUF_MAGIC, 4);
    put_u32(out, GGUF_VERSION);
    put_u64(out, ctx.tensors.size());
    put_u64(out, ctx.kv.size());
    for (const gguf_kv & kv : ctx.kv) {
        put_str(out, kv.key);
        put_u32(out, kv.type);
        if (kv.type == GGUF_TYPE_STRING) {
            put_str(out, kv.str[0]);
        } else if (kv.type == GGUF_TYPE_ARRAY) {
            append_array_body(out, kv);
        } else {
            put_raw(out, kv.data.data(), kv.data.size());
        }
    }
    for (const gguf_tensor_info & t : ctx.tensors) {
        put_str(out, t.name);
        put_u32(out, t.n_dims);
        for (uint32_t i = 0; i < t.n_dims; i++) {
            put_u64(out, (uint64_t) t.ne[i]);
        }
        put_u32(out, t.type);
        put_u64(out, t.offset);
    }
    out.resize((out.size() + ctx.alignment - 1) / ctx.alignment * ctx.alignment, 0);
    return out;
}

// ---------------------------------------------------------------------------------------------
// writing

namespace {

// Places every tensor after the previous one at the current alignment (after an alignment change).
void relayout(gguf_context & ctx) {
    uint64_t end = 0;
    for (gguf_tensor_info & t : ctx.tensors) {
        if (!align_up(end, ctx.alignment, &t.offset)) {
            fail("tensor offsets overflow");
        }
        end = t.offset + t.size;
    }
}

void check_key(const char * key) {
    if (!key) {
        fail("NULL key");
    }
    if (!*key) {
        fail("empty key");
    }
    // the reader's rule, so that everything written reads back
    if (const char * why = key_problem(key, strnlen(key, k_max_key_bytes + 1))) {
        fail("key '%.48s' %s", key, why);
    }
}

// Adds kv or replaces the value of the key it names; general.alignment is validated and applied.
void put_kv(gguf_context & ctx, gguf_kv && kv) {
    const bool is_alignment = kv.key == GGUF_KEY_GENERAL_ALIGNMENT;
    uint32_t   alignment    = 0;
    if (is_alignment) {
        check_alignment_kv(kv);
        memcpy(&alignment, kv.data.data(), sizeof(alignment));
    }
    const int64_t id = gguf_find_key(&ctx, kv.key.c_str());
    if (id >= 0) {
        ctx.kv[(size_t) id] = std::move(kv);
    } else {
        ctx.kv.push_back(std::move(kv));
    }
    if (is_alignment && alignment != ctx.alignment) {
        ctx.alignment = alignment;
        relayout(ctx);
    }
}

bool set_scalar(gguf_context * ctx, const char * key, gguf_type type, const void * val, const char * fn) {
    return guarded(fn, [&] {
        if (!ctx) {
            fail("NULL context");
        }
        check_key(key);
        gguf_kv kv;
        kv.key  = key;
        kv.type = type;
        kv.data.assign((const uint8_t *) val, (const uint8_t *) val + k_type_size[type]);
        put_kv(*ctx, std::move(kv));
    });
}

bool write_zeros(FILE * f, uint64_t n) {
    static const uint8_t zeros[4096] = {0};
    while (n > 0) {
        const size_t k = (size_t) std::min<uint64_t>(n, sizeof(zeros));
        if (fwrite(zeros, 1, k, f) != k) {
            return false;
        }
        n -= k;
    }
    return true;
}

}  // namespace

extern "C" {

bool gguf_set_val_u8(struct gguf_context * ctx, const char * key, uint8_t val) {
    return set_scalar(ctx, key, GGUF_TYPE_UINT8, &val, "gguf_set_val_u8");
}
bool gguf_set_val_i8(struct gguf_context * ctx, const char * key, int8_t val) {
    return set_scalar(ctx, key, GGUF_TYPE_INT8, &val, "gguf_set_val_i8");
}
bool gguf_set_val_u16(struct gguf_context * ctx, const char * key, uint16_t val) {
    return set_scalar(ctx, key, GGUF_TYPE_UINT16, &val, "gguf_set_val_u16");
}
bool gguf_set_val_i16(struct gguf_context * ctx, const char * key, int16_t val) {
    return set_scalar(ctx, key, GGUF_TYPE_INT16, &val, "gguf_set_val_i16");
}
bool gguf_set_val_u32(struct gguf_context * ctx, const char * key, uint32_t val) {
    return set_scalar(ctx, key, GGUF_TYPE_UINT32, &val, "gguf_set_val_u32");
}
bool gguf_set_val_i32(struct gguf_context * ctx, const char * key, int32_t val) {
    return set_scalar(ctx, key, GGUF_TYPE_INT32, &val, "gguf_set_val_i32");
}
bool gguf_set_val_f32(struct gguf_context * ctx, const char * key, float val) {
    return set_scalar(ctx, key, GGUF_TYPE_FLOAT32, &val, "gguf_set_val_f32");
}
bool gguf_set_val_u64(struct gguf_context * ctx, const char * key, uint64_t val) {
    return set_scalar(ctx, key, GGUF_TYPE_UINT64, &val, "gguf_set_val_u64");
}
bool gguf_set_val_i64(struct gguf_context * ctx, const char * key, int64_t val) {
    return set_scalar(ctx, key, GGUF_TYPE_INT64, &val, "gguf_set_val_i64");
}
bool gguf_set_val_f64(struct gguf_context * ctx, const char * key, double val) {
    return set_scalar(ctx, key, GGUF_TYPE_FLOAT64, &val, "gguf_set_val_f64");
}
bool gguf_set_val_bool(struct gguf_context * ctx, const char * key, bool val) {
    const uint8_t b = val ? 1 : 0;
    return set_scalar(ctx, key, GGUF_TYPE_BOOL, &b, "gguf_set_val_bool");
}

bool gguf_set_val_str(struct gguf_context * ctx, const char * key, const char * val) {
    return guarded("gguf_set_val_str", [&] {
        if (!ctx) {
            fail("NULL context");
        }
        check_key(key);
        if (!val) {
            fail("NULL value for key '%s'", key);
        }
        gguf_kv kv;
        kv.key  = key;
        kv.type = GGUF_TYPE_STRING;
        kv.str.emplace_back(val);
        put_kv(*ctx, std::move(kv));
    });
}

bool gguf_set_arr_data(struct gguf_context * ctx, const char * key, enum gguf_type type, const void * data, size_t n) {
    return guarded("gguf_set_arr_data", [&] {
        if (!ctx) {
            fail("NULL context");
        }
        check_key(key);
        const uint32_t et = raw_enum(type);
        if (!is_fixed_type(et)) {
            fail("key '%s': element type %s is not a fixed-size type", key, type_name_u32(et));
        }
        if (!data && n) {
            fail("key '%s': NULL data", key);
        }
        const uint64_t i = et == GGUF_TYPE_BOOL ? first_invalid_bool((const uint8_t *) data, n) : n;
        if (i < n) {
            fail("key '%s': bool element %llu is %u (only 0 and 1 are valid)", key, (unsigned long long) i,
                 ((const uint8_t *) data)[i]);
        }
        uint64_t bytes;
        if (!ggml_mul_overflow_u64(n, k_type_size[et], &bytes)) {
            fail("key '%s': array of %zu elements is too large", key, n);
        }
        gguf_kv kv;
        kv.key      = key;
        kv.type     = GGUF_TYPE_ARRAY;
        kv.arr_type = (gguf_type) et;
        kv.n        = n;
        if (n) {
            kv.data.assign((const uint8_t *) data, (const uint8_t *) data + bytes);
        }
        put_kv(*ctx, std::move(kv));
    });
}

bool gguf_set_arr_str(struct gguf_context * ctx, const char * key, const char ** data, size_t n) {
    return guarded("gguf_set_arr_str", [&] {
        if (!ctx) {
            fail("NULL context");
        }
        check_key(key);
        if (!data && n) {
            fail("key '%s': NULL data", key);
        }
        gguf_kv kv;
        kv.key      = key;
        kv.type     = GGUF_TYPE_ARRAY;
        kv.arr_type = GGUF_TYPE_STRING;
        kv.n        = n;
        kv.str.reserve(n);
        for (size_t i = 0; i < n; i++) {
            if (!data[i]) {
                fail("key '%s': string %zu is NULL", key, i);
            }
            kv.str.emplace_back(data[i]);
        }
        put_kv(*ctx, std::move(kv));
    });
}

bool gguf_set_kv(struct gguf_context * ctx, const struct gguf_context * src) {
    return guarded("gguf_set_kv", [&] {
        if (!ctx || !src) {
            fail("NULL context");
        }
        const std::vector<gguf_kv> copy = src->kv;  // src may be ctx itself
        for (const gguf_kv & kv : copy) {
            put_kv(*ctx, gguf_kv(kv));
        }
    });
}

int64_t gguf_remove_key(struct gguf_context * ctx, const char * key) {
    const int64_t id = gguf_find_key(ctx, key);
    if (id < 0) {
        return -1;
    }
    ctx->kv.erase(ctx->kv.begin() + id);
    if (strcmp(key, GGUF_KEY_GENERAL_ALIGNMENT) == 0 && ctx->alignment != GGUF_DEFAULT_ALIGNMENT) {
        ctx->alignment = GGUF_DEFAULT_ALIGNMENT;
        guarded("gguf_remove_key", [&] { relayout(*ctx); });
    }
    return id;
}

bool gguf_add_tensor_info(struct gguf_context * ctx, const char * name, enum ggml_type type, int n_dims,
                          const int64_t * ne, const void * data) {
    return guarded("gguf_add_tensor_info", [&] {
        if (!ctx) {
            fail("NULL context");
        }
        if (!name || !*name) {
            fail("NULL or empty tensor name");
        }
        if (strlen(name) >= GGML_MAX_NAME) {
            fail("tensor name '%s' is longer than %d bytes", name, GGML_MAX_NAME - 1);
        }
        if (gguf_find_tensor(ctx, name) >= 0) {
            fail("duplicate tensor name '%s'", name);
        }
        if (n_dims < 1 || n_dims > 4 || !ne) {
            fail("tensor '%s': n_dims %d (1..4 with a shape required)", name, n_dims);
        }
        uint64_t une[4] = {1, 1, 1, 1};
        for (int d = 0; d < n_dims; d++) {
            if (ne[d] < 0) {
                fail("tensor '%s': negative dimension %lld", name, (long long) ne[d]);
            }
            une[d] = (uint64_t) ne[d];
        }
        gguf_tensor_info t;
        const char *     why = tensor_nbytes(raw_enum(type), (uint32_t) n_dims, une, &t.size);
        if (why) {
            fail("tensor '%s': %s", name, why);
        }
        uint64_t end = 0;
        for (const gguf_tensor_info & o : ctx->tensors) {
            end = std::max(end, o.offset + o.size);
        }
        if (!align_up(end, ctx->alignment, &t.offset)) {
            fail("tensor '%s': offset overflows", name);
        }
        t.name   = name;
        t.type   = (ggml_type) raw_enum(type);
        t.n_dims = (uint32_t) n_dims;
        for (int d = 0; d < 4; d++) {
            t.ne[d] = (int64_t) une[d];
        }
        if (data) {
            t.data.assign((const uint8_t *) data, (const uint8_t *) data + t.size);
            t.has_data = true;
        }
        ctx->tensors.push_back(std::move(t));
    });
}

bool gguf_write_to_file(const struct gguf_context * ctx, const char * path, bool only_meta) {
    FILE *     f  = nullptr;
    const bool ok = guarded(path ? path : "gguf_write_to_file", [&] {
        if (!ctx || !path) {
            fail("NULL context or path");
        }
        const std::vector<uint8_t> meta = serialize_meta(*ctx);
        f                               = ggml_os_fopen(path, "wb");
        if (!f) {
            fail("cannot open for writing: %s", ggml_os_error());
        }
        if (fwrite(meta.data(), 1, meta.size(), f) != meta.size()) {
            fail("write error: %s", strerror(errno));
        }
        if (!only_meta) {
            std::vector<const gguf_tensor_info *> order;
            for (const gguf_tensor_info & t : ctx->tensors) {
                order.push_back(&t);
            }
            std::sort(order.begin(), order.end(),
                      [](const gguf_tensor_info * a, const gguf_tensor_info * b) { return a->offset < b->offset; });
            uint64_t pos = 0;  // relative to the data section
            for (const gguf_tensor_info * t : order) {
                if (t->size == 0) {
                    continue;
                }
                if (t->offset < pos) {
                    fail("tensor '%s' overlaps the previous tensor", t->name.c_str());
                }
                bool w = write_zeros(f, t->offset - pos);
                w = w && (t->has_data ? fwrite(t->data.data(), 1, t->size, f) == t->size : write_zeros(f, t->size));
                if (!w) {
                    fail("write error: %s", strerror(errno));
                }
                pos = t->offset + t->size;
            }
            uint64_t end;
            if (!align_up(pos, ctx->alignment, &end) || !write_zeros(f, end - pos)) {
                fail("write error: %s", strerror(errno));
            }
        }
        FILE * g = f;
        f        = nullptr;
        if (fclose(g) != 0) {
            fail("close error: %s", strerror(errno));
        }
    });
    if (f) {
        fclose(f);
    }
    return ok;
}

size_t gguf_get_meta_size(const struct gguf_context * ctx) {
    size_t size = 0;
    guarded("gguf_get_meta_size", [&] {
        if (!ctx) {
            fail("NULL context");
        }
        size = serialize_meta(*ctx).size();
    });
    return size;
}

void gguf_get_meta_data(const struct gguf_context * ctx, void * data) {
    guarded("gguf_get_meta_data", [&] {
        if (!ctx || !data) {
            fail("NULL context or data");
        }
        const std::vector<uint8_t> meta = serialize_meta(*ctx);
        memcpy(data, meta.data(), meta.size());
    });
}

}  // extern "C"
