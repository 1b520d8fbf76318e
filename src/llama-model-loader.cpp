#include "llama-model-loader.h"

#include "llama-buffers.h"
#include "llama-gguf.h"
#include "llama-log.h"

#include "ggml-backend.h"
#include "ggml-cpu.h"

#include <algorithm>
#include <cinttypes>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>

// ---- metadata as text --------------------------------------------------------------------------

static std::string scalar_to_string(enum gguf_type type, const void * p) {
    switch (type) {
        case GGUF_TYPE_UINT8:
            return std::to_string(*(const uint8_t *) p);
        case GGUF_TYPE_INT8:
            return std::to_string(*(const int8_t *) p);
        case GGUF_TYPE_UINT16:
            return std::to_string(*(const uint16_t *) p);
        case GGUF_TYPE_INT16:
            return std::to_string(*(const int16_t *) p);
        case GGUF_TYPE_UINT32:
            return std::to_string(*(const uint32_t *) p);
        case GGUF_TYPE_INT32:
            return std::to_string(*(const int32_t *) p);
        case GGUF_TYPE_UINT64:
            return std::to_string(*(const uint64_t *) p);
        case GGUF_TYPE_INT64:
            return std::to_string(*(const int64_t *) p);
        case GGUF_TYPE_FLOAT32:
            return llama_format("%g", (double) *(const float *) p);
        case GGUF_TYPE_FLOAT64:
            return llama_format("%g", *(const double *) p);
        case GGUF_TYPE_BOOL:
            return *(const bool *) p ? "true" : "false";
        default:
            return "?";
    }
}

std::string llama_gguf_value_to_string(const gguf_context * ctx, int64_t id) {
    const enum gguf_type type = gguf_get_kv_type(ctx, id);
    if (type == GGUF_TYPE_STRING) {
        return std::string(gguf_get_val_str(ctx, id), gguf_get_val_str_len(ctx, id));
    }
    if (type != GGUF_TYPE_ARRAY) {
        return scalar_to_string(type, gguf_get_val_data(ctx, id));
    }
    const enum gguf_type at    = gguf_get_arr_type(ctx, id);
    const size_t         n     = gguf_get_arr_n(ctx, id);
    std::string          out   = "[";
    const size_t         shown = n < 8 ? n : 8;  // the full token lists would be megabytes
    for (size_t i = 0; i < shown; i++) {
        if (i) {
            out += ", ";
        }
        if (at == GGUF_TYPE_STRING) {
            out += '"';
            out += std::string(gguf_get_arr_str(ctx, id, i), gguf_get_arr_str_len(ctx, id, i));
            out += '"';
        } else if (at == GGUF_TYPE_ARRAY) {
            out += "[...]";
        } else {
            const uint8_t * data = (const uint8_t *) gguf_get_arr_data(ctx, id);
            out += data ? scalar_to_string(at, data + i * gguf_type_size(at)) : "?";
        }
    }
    if (shown < n) {
        out += ", ...";
    }
    return out + "]";
}

// ---- construction ------------------------------------------------------------------------------

static llama_load_mode resolve_mode(const llama_model_params & p) {
    // read as an int: a caller's out-of-range value must not be loaded as the enum type
    int32_t mode = 0;
    static_assert(sizeof(mode) == sizeof(p.load_mode), "enum size");
    memcpy(&mode, &p.load_mode, sizeof(mode));
    switch (mode) {
        case LLAMA_LOAD_MODE_AUTO:
        case LLAMA_LOAD_MODE_NONE:
        case LLAMA_LOAD_MODE_MMAP:
        case LLAMA_LOAD_MODE_MLOCK:
        case LLAMA_LOAD_MODE_MMAP_MLOCK:
        case LLAMA_LOAD_MODE_DIRECT_IO:
            return (llama_load_mode) mode;
    }
    throw llama_error(llama_format("invalid load_mode %d", (int) mode));
}

// "<prefix>-00001-of-00003.gguf" -> the path of part `no` (0-based), or "" if path is not a split name.
static std::string split_sibling(const std::string & path, int no, int count) {
    char tail[64];
    snprintf(tail, sizeof(tail), "-%05d-of-%05d.gguf", 1, count);
    const size_t tl = strlen(tail);
    if (path.size() <= tl || path.compare(path.size() - tl, tl, tail) != 0) {
        return "";
    }
    snprintf(tail, sizeof(tail), "-%05d-of-%05d.gguf", no + 1, count);
    return path.substr(0, path.size() - tl) + tail;
}

llama_model_loader::llama_model_loader(const std::vector<std::string> & paths, const llama_model_params & params) {
    // a throwing constructor runs no destructor: free the GGUF contexts opened so far here
    try {
        open(paths, params);
    } catch (...) {
        free_splits();
        throw;
    }
}

void llama_model_loader::open(const std::vector<std::string> & paths, const llama_model_params & params) {
    if (paths.empty()) {
        throw llama_error("no model path given");
    }
    mode          = resolve_mode(params);
    check_tensors = params.check_tensors;

    open_split(paths[0], 0);
    meta = splits[0];

    // a split model: the first file says how many parts there are
    uint32_t n_split = 0;
    get_key(llm_kv_key(LLM_KV_SPLIT_COUNT), n_split, false);
    if (n_split > 1) {
        uint32_t no = 0;
        get_key(llm_kv_key(LLM_KV_SPLIT_NO), no, false);
        if (no != 0) {
            throw llama_error(
                llama_format("'%s' is part %u of a split model; load the first part", paths[0].c_str(), no + 1));
        }
        if (n_split > UINT16_MAX) {
            throw llama_error(llama_format("invalid split.count %u", n_split));
        }
        std::vector<std::string> parts = paths;
        if (parts.size() == 1) {
            for (uint32_t i = 1; i < n_split; i++) {
                std::string p = split_sibling(paths[0], (int) i, (int) n_split);
                if (p.empty()) {
                    throw llama_error(
                        llama_format("'%s' is a split model (%u parts) but its name does not follow "
                                     "<prefix>-00001-of-%05u.gguf",
                                     paths[0].c_str(), n_split, n_split));
                }
                parts.push_back(p);
            }
        }
        if (parts.size() != n_split) {
            throw llama_error(llama_format("split model has %u parts but %zu paths were given", n_split, parts.size()));
        }
        for (uint32_t i = 1; i < n_split; i++) {
            open_split(parts[i], (uint16_t) i);
            const int64_t kid = gguf_find_key(splits[i], llm_kv_key(LLM_KV_SPLIT_NO));
            uint32_t      sno = UINT32_MAX;  // stays so when absent or not an integer
            if (kid >= 0) {
                llama_gguf_get_int(splits[i], kid, sno);
            }
            if (sno != i) {
                throw llama_error(llama_format("'%s' is not part %u of the split model", parts[i].c_str(), i + 1));
            }
        }
    } else if (paths.size() > 1) {
        throw llama_error(
            llama_format("%zu paths given but '%s' is not a split model", paths.size(), paths[0].c_str()));
    }

    apply_overrides(params.kv_overrides);

    if (!get_key(LLM_KV_GENERAL_ARCHITECTURE, arch_name, false)) {
        throw llama_error("the model has no general.architecture key");
    }
    // A tokenizer needs no network code: a vocab-only load takes any architecture name.
    arch = llm_arch_from_string(arch_name);
    if (arch == LLM_ARCH_UNKNOWN && !params.vocab_only) {
        throw llama_error(
            llama_format("unknown model architecture: '%s' (this library runs %s; a vocab_only "
                         "load accepts any architecture)",
                         arch_name.c_str(), llm_arch_names().c_str()));
    }

    // open the weights: mmap as asked, with plain reads as the fallback of AUTO
    const bool want_mmap =
        mode == LLAMA_LOAD_MODE_AUTO || mode == LLAMA_LOAD_MODE_MMAP || mode == LLAMA_LOAD_MODE_MMAP_MLOCK;
    use_mlock = mode == LLAMA_LOAD_MODE_MLOCK || mode == LLAMA_LOAD_MODE_MMAP_MLOCK;
    if (want_mmap && !params.vocab_only) {
        try {
            for (auto & f : files) {
                mappings.emplace_back(new llama_mmap(*f));
            }
            use_mmap = true;
        } catch (const llama_error & e) {
            if (mode != LLAMA_LOAD_MODE_AUTO) {
                throw;
            }
            LLAMA_LOG_WARN("%s: %s; falling back to reads\n", __func__, e.what());
            mappings.clear();
        }
    }
}

void llama_model_loader::open_split(const std::string & path, uint16_t idx) {
    files.emplace_back(new llama_file(path, mode == LLAMA_LOAD_MODE_DIRECT_IO));
    const llama_file & file = *files.back();

    gguf_init_params gp = {/*no_alloc =*/true};
    gguf_context *   g  = gguf_init_from_file(path.c_str(), gp);
    if (!g) {
        // the reader's own reason (which key, which offset) goes into llama_last_error too
        throw llama_error(llama_format("'%s' is not a valid GGUF file: %s", path.c_str(), gguf_last_error()));
    }
    splits.push_back(g);

    const size_t  data_offs = gguf_get_data_offset(g);
    const int64_t n_tensors = gguf_get_n_tensors(g);
    for (int64_t i = 0; i < n_tensors; i++) {
        llama_tensor_weight w;
        w.name   = gguf_get_tensor_name(g, i);
        w.type   = gguf_get_tensor_type(g, i);
        w.n_dims = gguf_get_tensor_n_dims(g, i);
        gguf_get_tensor_shape(g, i, w.ne);
        w.idx  = idx;
        w.size = gguf_get_tensor_size(g, i);
        w.offs = data_offs + gguf_get_tensor_offset(g, i);
        // never trust the file: the data must lie inside it
        if (w.offs < data_offs || w.offs > file.size() || w.size > file.size() - w.offs) {
            throw llama_error(
                llama_format("tensor '%s' data is outside the file (offset %zu + %zu bytes > file size "
                             "%zu): '%s' is truncated or corrupt",
                             w.name.c_str(), w.offs, w.size, file.size(), path.c_str()));
        }
        if (weights_map.count(w.name)) {
            throw llama_error(llama_format("tensor '%s' appears twice in the model files", w.name.c_str()));
        }
        n_elements += (size_t) (w.ne[0] * w.ne[1] * w.ne[2] * w.ne[3]);
        n_bytes += w.size;
        weights_map.emplace(w.name, w);
    }
}

llama_model_loader::~llama_model_loader() {
    free_splits();
}

void llama_model_loader::free_splits() {
    for (gguf_context * g : splits) {
        gguf_free(g);
    }
    splits.clear();
    meta = nullptr;
}

// ---- kv overrides ----------------------------------------------------------------------------------

void llama_model_loader::apply_overrides(const llama_model_kv_override * kvo) {
    for (; kvo && kvo->key[0] != '\0'; kvo++) {
        const std::string key(kvo->key, strnlen(kvo->key, sizeof(kvo->key)));
        if (std::any_of(key.begin(), key.end(), [](char c) { return (unsigned char) c > 0x7f; })) {
            throw llama_error(llama_format("kv override '%s': GGUF keys must be ASCII", key.c_str()));
        }
        const int64_t   id   = gguf_find_key(meta, key.c_str());
        const gguf_type type = id >= 0 ? gguf_get_kv_type(meta, id) : GGUF_TYPE_COUNT;
        bool            ok   = true;
        switch (kvo->tag) {
            case LLAMA_KV_OVERRIDE_TYPE_INT: {
                const int64_t v = kvo->val_i64;
                switch (type) {
                    case GGUF_TYPE_UINT8:
                        ok = v >= 0 && v <= UINT8_MAX && gguf_set_val_u8(meta, key.c_str(), (uint8_t) v);
                        break;
                    case GGUF_TYPE_INT8:
                        ok = v >= INT8_MIN && v <= INT8_MAX && gguf_set_val_i8(meta, key.c_str(), (int8_t) v);
                        break;
                    case GGUF_TYPE_UINT16:
                        ok = v >= 0 && v <= UINT16_MAX && gguf_set_val_u16(meta, key.c_str(), (uint16_t) v);
                        break;
                    case GGUF_TYPE_INT16:
                        ok = v >= INT16_MIN && v <= INT16_MAX && gguf_set_val_i16(meta, key.c_str(), (int16_t) v);
                        break;
                    case GGUF_TYPE_UINT32:
                        ok = v >= 0 && v <= UINT32_MAX && gguf_set_val_u32(meta, key.c_str(), (uint32_t) v);
                        break;
                    case GGUF_TYPE_INT32:
                        ok = v >= INT32_MIN && v <= INT32_MAX && gguf_set_val_i32(meta, key.c_str(), (int32_t) v);
                        break;
                    case GGUF_TYPE_UINT64:
                        ok = v >= 0 && gguf_set_val_u64(meta, key.c_str(), (uint64_t) v);
                        break;
                    case GGUF_TYPE_INT64:
                    case GGUF_TYPE_COUNT:
                        ok = gguf_set_val_i64(meta, key.c_str(), v);
                        break;
                    default:
                        ok = false;
                }
                break;
            }
            case LLAMA_KV_OVERRIDE_TYPE_FLOAT:
                if (type == GGUF_TYPE_FLOAT32) {
                    ok = gguf_set_val_f32(meta, key.c_str(), (float) kvo->val_f64);
                } else if (type == GGUF_TYPE_FLOAT64 || type == GGUF_TYPE_COUNT) {
                    ok = gguf_set_val_f64(meta, key.c_str(), kvo->val_f64);
                } else {
                    ok = false;
                }
                break;
            case LLAMA_KV_OVERRIDE_TYPE_BOOL:
                ok = (type == GGUF_TYPE_BOOL || type == GGUF_TYPE_COUNT) &&
                     gguf_set_val_bool(meta, key.c_str(), kvo->val_bool);
                break;
            case LLAMA_KV_OVERRIDE_TYPE_STR: {
                const std::string v(kvo->val_str, strnlen(kvo->val_str, sizeof(kvo->val_str)));
                ok = (type == GGUF_TYPE_STRING || type == GGUF_TYPE_COUNT) &&
                     gguf_set_val_str(meta, key.c_str(), v.c_str());
                break;
            }
            default:
                ok = false;
        }
        if (!ok) {
            throw llama_error(llama_format("kv override '%s': value does not fit the key's type %s", key.c_str(),
                                           type == GGUF_TYPE_COUNT ? "(new)" : gguf_type_name(type)));
        }
        LLAMA_LOG_INFO("%s: overriding '%s'\n", __func__, key.c_str());
    }
}

// ---- typed getters -----------------------------------------------------------------------------

static int64_t find_or_throw(const gguf_context * g, const std::string & key, bool required) {
    const int64_t id = gguf_find_key(g, key.c_str());
    if (id < 0 && required) {
        throw llama_error(llama_format("the model has no '%s' key", key.c_str()));
    }
    return id;
}

[[noreturn]] static void bad_type(const gguf_context * g, int64_t id, const std::string & key, const char * want) {
    throw llama_error(
        llama_format("key '%s' has type %s, expected %s", key.c_str(), gguf_type_name(gguf_get_kv_type(g, id)), want));
}

bool llama_model_loader::get_arr_flags(llm_kv kv, std::vector<bool> & out, uint32_t n) const {
    const std::string key = kv_name(kv);
    const int64_t     id  = gguf_find_key(meta, key.c_str());
    if (id < 0 || gguf_get_kv_type(meta, id) != GGUF_TYPE_ARRAY) {
        return false;
    }
    const gguf_type t  = gguf_get_arr_type(meta, id);
    const size_t    es = t == GGUF_TYPE_STRING || t == GGUF_TYPE_ARRAY ? 0 : gguf_type_size(t);
    const bool ok_type = t == GGUF_TYPE_BOOL || t == GGUF_TYPE_UINT8 || t == GGUF_TYPE_INT8 || t == GGUF_TYPE_UINT16 ||
                         t == GGUF_TYPE_INT16 || t == GGUF_TYPE_UINT32 || t == GGUF_TYPE_INT32 ||
                         t == GGUF_TYPE_UINT64 || t == GGUF_TYPE_INT64;
    if (!ok_type || es == 0) {
        throw llama_error(
            llama_format("key '%s' is an array of %s, expected booleans or integers", key.c_str(), gguf_type_name(t)));
    }
    if (gguf_get_arr_n(meta, id) != n) {
        throw llama_error(llama_format("key '%s' has %zu elements, expected one per layer (%u)", key.c_str(),
                                       gguf_get_arr_n(meta, id), n));
    }
    const uint8_t * d = (const uint8_t *) gguf_get_arr_data(meta, id);
    out.assign(n, false);
    for (uint32_t i = 0; i < n; i++) {
        for (size_t b = 0; b < es; b++) {
            out[i] = out[i] || d[i * es + b] != 0;  // non-zero in any byte, whatever the width
        }
    }
    return true;
}

bool llama_model_loader::get_arr_u32(llm_kv kv, std::vector<uint32_t> & out, uint32_t n) const {
    const std::string key = kv_name(kv);
    const int64_t     id  = gguf_find_key(meta, key.c_str());
    if (id < 0 || gguf_get_kv_type(meta, id) != GGUF_TYPE_ARRAY) {
        return false;
    }
    const gguf_type t   = gguf_get_arr_type(meta, id);
    const bool      sgn = t == GGUF_TYPE_INT8 || t == GGUF_TYPE_INT16 || t == GGUF_TYPE_INT32 || t == GGUF_TYPE_INT64;
    const bool      ok_type =
        sgn || t == GGUF_TYPE_UINT8 || t == GGUF_TYPE_UINT16 || t == GGUF_TYPE_UINT32 || t == GGUF_TYPE_UINT64;
    if (!ok_type) {
        throw llama_error(
            llama_format("key '%s' is an array of %s, expected integers", key.c_str(), gguf_type_name(t)));
    }
    if (gguf_get_arr_n(meta, id) != n) {
        throw llama_error(llama_format("key '%s' has %zu elements, expected one per layer (%u)", key.c_str(),
                                       gguf_get_arr_n(meta, id), n));
    }
    const size_t    es = gguf_type_size(t);
    const uint8_t * d  = (const uint8_t *) gguf_get_arr_data(meta, id);
    out.assign(n, 0);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t u = 0;
        memcpy(&u, d + (size_t) i * es, es);  // little-endian: the low bytes
        const bool neg = sgn && (d[(size_t) i * es + es - 1] & 0x80) != 0;
        if (neg || u > UINT32_MAX) {
            throw llama_error(llama_format("key '%s': element %u is out of range", key.c_str(), i));
        }
        out[i] = (uint32_t) u;
    }
    return true;
}

bool llama_model_loader::get_key(const std::string & key, uint32_t & out, bool required) const {
    const int64_t id = find_or_throw(meta, key, required);
    if (id < 0) {
        return false;
    }
    if (!llama_gguf_get_int(meta, id, out)) {
        bad_type(meta, id, key, "an unsigned 32-bit integer");
    }
    return true;
}

bool llama_model_loader::get_key(const std::string & key, int32_t & out, bool required) const {
    const int64_t id = find_or_throw(meta, key, required);
    if (id < 0) {
        return false;
    }
    if (!llama_gguf_get_int(meta, id, out)) {
        bad_type(meta, id, key, "a 32-bit integer");
    }
    return true;
}

bool llama_model_loader::get_key(const std::string & key, int64_t & out, bool required) const {
    const int64_t id = find_or_throw(meta, key, required);
    if (id < 0) {
        return false;
    }
    if (!llama_gguf_get_int(meta, id, out)) {
        bad_type(meta, id, key, "an integer");
    }
    return true;
}

bool llama_model_loader::get_key(const std::string & key, float & out, bool required) const {
    const int64_t id = find_or_throw(meta, key, required);
    if (id < 0) {
        return false;
    }
    const gguf_type t  = gguf_get_kv_type(meta, id);
    int64_t         iv = 0;
    if (t == GGUF_TYPE_FLOAT32) {
        out = gguf_get_val_f32(meta, id);
    } else if (t == GGUF_TYPE_FLOAT64) {
        out = (float) gguf_get_val_f64(meta, id);
    } else if (llama_gguf_get_int(meta, id, iv)) {
        out = (float) iv;
    } else {
        bad_type(meta, id, key, "a number");
    }
    return true;
}

bool llama_model_loader::get_key(const std::string & key, bool & out, bool required) const {
    const int64_t id = find_or_throw(meta, key, required);
    if (id < 0) {
        return false;
    }
    if (gguf_get_kv_type(meta, id) != GGUF_TYPE_BOOL) {
        bad_type(meta, id, key, "bool");
    }
    out = gguf_get_val_bool(meta, id);
    return true;
}

bool llama_model_loader::get_key(const std::string & key, std::string & out, bool required) const {
    const int64_t id = find_or_throw(meta, key, required);
    if (id < 0) {
        return false;
    }
    if (gguf_get_kv_type(meta, id) != GGUF_TYPE_STRING) {
        bad_type(meta, id, key, "string");
    }
    out.assign(gguf_get_val_str(meta, id), gguf_get_val_str_len(meta, id));
    return true;
}

std::vector<std::pair<std::string, std::string>> llama_model_loader::metadata_strings() const {
    std::vector<std::pair<std::string, std::string>> out;
    const int64_t                                    n = gguf_get_n_kv(meta);
    for (int64_t i = 0; i < n; i++) {
        out.emplace_back(gguf_get_key(meta, i), llama_gguf_value_to_string(meta, i));
    }
    return out;
}

// ---- tensors -----------------------------------------------------------------------------------

const llama_tensor_weight * llama_model_loader::get_weight(const std::string & name) const {
    auto it = weights_map.find(name);
    return it == weights_map.end() ? nullptr : &it->second;
}

ggml_tensor * llama_model_loader::create_tensor(ggml_context * ctx, const std::string & name,
                                                const std::vector<int64_t> & ne, int flags) {
    const llama_tensor_weight * w = get_weight(name);
    if (!w) {
        if (flags & LLAMA_TENSOR_NOT_REQUIRED) {
            return nullptr;
        }
        throw llama_error(llama_format("missing tensor '%s'", name.c_str()));
    }
    bool shape_ok = ne.size() <= 4;
    for (size_t i = 0; shape_ok && i < 4; i++) {
        shape_ok = w->ne[i] == (i < ne.size() ? ne[i] : 1);
    }
    if (!shape_ok) {
        throw llama_error(llama_format("tensor '%s' has wrong shape; expected %s, got %s", name.c_str(),
                                       llama_format_shape(ne.data(), (int) ne.size()).c_str(),
                                       llama_format_shape(w->ne, (int) w->n_dims).c_str()));
    }
    if (!ggml_type_is_valid(w->type)) {
        throw llama_error(llama_format("tensor '%s' has invalid type %d", name.c_str(), (int) w->type));
    }
    ggml_tensor * t = ggml_new_tensor(ctx, w->type, (int) (ne.empty() ? 1 : ne.size()), w->ne);
    if (!t) {
        throw llama_error(llama_format("cannot create tensor '%s'", name.c_str()));
    }
    ggml_set_name(t, name.c_str());
    if (!(flags & LLAMA_TENSOR_DUPLICATED)) {
        n_created++;
    }
    return t;
}

// NaN/Inf scan of float weights (check_tensors).
static bool data_is_finite(ggml_type type, const void * data, size_t nbytes) {
    if (type == GGML_TYPE_F32) {
        const float * f = (const float *) data;
        for (size_t i = 0; i < nbytes / 4; i++) {
            if (!std::isfinite(f[i])) {
                return false;
            }
        }
    } else if (type == GGML_TYPE_F16 || type == GGML_TYPE_BF16) {
        const uint16_t * h        = (const uint16_t *) data;
        const uint16_t   exp_mask = type == GGML_TYPE_F16 ? 0x7c00 : 0x7f80;
        for (size_t i = 0; i < nbytes / 2; i++) {
            if ((h[i] & exp_mask) == exp_mask) {
                return false;
            }
        }
    }
    return true;
}

void llama_model_loader::load_all_data(const std::vector<std::pair<ggml_context *, ggml_backend_buffer_type_t>> & ctxs,
                                       std::vector<ggml_backend_buffer_t> & bufs, llama_progress_callback progress_cb,
                                       void * progress_ud) {
    ggml_backend_buffer_type_t buft_cpu = ggml_backend_cpu_buffer_type();
    size_t                     total    = 0;
    for (const auto & c : ctxs) {
        for (ggml_tensor * t = ggml_get_first_tensor(c.first); t; t = ggml_get_next_tensor(c.first, t)) {
            total += ggml_nbytes(t);
        }
    }

    // mmap: CPU weights are used in place, one CPU buffer wraps each mapped file
    std::vector<ggml_backend_buffer_t> file_bufs(files.size(), nullptr);
    if (use_mmap) {
        for (size_t i = 0; i < mappings.size(); i++) {
            file_bufs[i] = ggml_backend_cpu_buffer_from_ptr(mappings[i]->addr(), mappings[i]->size());
            if (!file_bufs[i]) {
                throw llama_error("cannot wrap the mapped model file in a buffer");
            }
            ggml_backend_buffer_set_usage(file_bufs[i], GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
            bufs.push_back(file_bufs[i]);
            if (use_mlock) {
                mlocks.emplace_back(new llama_mlock());
                mlocks.back()->lock(mappings[i]->addr(), mappings[i]->size());
            }
        }
    }
    // everything else (device weights, CPU weights when reading) gets buffers of its type
    for (const auto & c : ctxs) {
        if (use_mmap && c.second == buft_cpu) {
            continue;
        }
        const size_t first = bufs.size();
        llama_alloc_ctx_tensors_chunked(c.first, c.second, bufs, "model weights");
        for (size_t i = first; i < bufs.size(); i++) {
            ggml_backend_buffer_set_usage(bufs[i], GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
            if (use_mlock && ggml_backend_buffer_is_host(bufs[i])) {
                mlocks.emplace_back(new llama_mlock());
                mlocks.back()->lock(ggml_backend_buffer_get_base(bufs[i]), ggml_backend_buffer_get_size(bufs[i]));
            }
        }
    }

    size_t               done = 0;
    std::vector<uint8_t> staging;
    for (const auto & c : ctxs) {
        const bool in_place = use_mmap && c.second == buft_cpu;
        // an extra CPU buffer type (CPU_REPACK) keeps its own converted copy: read with pread, never
        // through the mapping, so the mapped pages of those tensors are never resident beside it
        const ggml_backend_dev_t dev       = ggml_backend_buft_get_device(c.second);
        const bool               extra_cpu = c.second != buft_cpu && !ggml_backend_buft_is_host(c.second) && dev &&
                               ggml_backend_dev_type(dev) == GGML_BACKEND_DEVICE_TYPE_CPU;
        for (ggml_tensor * t = ggml_get_first_tensor(c.first); t; t = ggml_get_next_tensor(c.first, t)) {
            const llama_tensor_weight * w = get_weight(ggml_get_name(t));
            if (!w) {
                continue;  // not a file tensor
            }
            const size_t n = ggml_nbytes(t);
            if (n != w->size) {
                throw llama_error(
                    llama_format("tensor '%s': size mismatch (%zu vs %zu bytes)", w->name.c_str(), n, w->size));
            }
            const void * src = nullptr;  // the bytes as they are in the file
            if (in_place) {
                ggml_backend_buffer_t buf = file_bufs[w->idx];
                t->buffer                 = buf;
                t->data                   = (uint8_t *) mappings[w->idx]->addr() + w->offs;
                if (ggml_backend_buffer_init_tensor(buf, t) != GGML_STATUS_SUCCESS) {
                    throw llama_error(llama_format("cannot place tensor '%s'", w->name.c_str()));
                }
                src = t->data;
            } else if (use_mmap && !extra_cpu) {
                src = (const uint8_t *) mappings[w->idx]->addr() + w->offs;
                ggml_backend_tensor_set(t, src, 0, n);
            } else if (ggml_backend_buffer_is_host(t->buffer)) {
                files[w->idx]->read_at(w->offs, t->data, n);
                src = t->data;
            } else {
                staging.resize(n);
                files[w->idx]->read_at(w->offs, staging.data(), n);
                ggml_backend_tensor_set(t, staging.data(), 0, n);
                src = staging.data();
            }
            if (check_tensors && !data_is_finite(t->type, src, n)) {
                throw llama_error(llama_format("tensor '%s' contains NaN or Inf values", w->name.c_str()));
            }
            done += n;
            if (progress_cb && !progress_cb(total ? (float) done / (float) total : 1.0f, progress_ud)) {
                throw llama_load_cancelled();
            }
        }
    }
}
