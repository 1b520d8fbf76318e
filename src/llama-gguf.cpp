#include "llama-gguf.h"

#include "llama-log.h"

#include <cinttypes>
#include <limits>
#include <type_traits>

template <typename T>
bool llama_gguf_get_int(const gguf_context * g, int64_t id, T & out) {
    static_assert(std::is_integral<T>::value && !std::is_same<T, bool>::value, "an integer destination");
    // the value as sign + magnitude: a signed GGUF type gives s, an unsigned one u
    const gguf_type type      = gguf_get_kv_type(g, id);
    bool            is_signed = true;
    int64_t         s         = 0;
    uint64_t        u         = 0;
    switch (type) {
        case GGUF_TYPE_INT8:
            s = gguf_get_val_i8(g, id);
            break;
        case GGUF_TYPE_INT16:
            s = gguf_get_val_i16(g, id);
            break;
        case GGUF_TYPE_INT32:
            s = gguf_get_val_i32(g, id);
            break;
        case GGUF_TYPE_INT64:
            s = gguf_get_val_i64(g, id);
            break;
        case GGUF_TYPE_UINT8:
            is_signed = false;
            u         = gguf_get_val_u8(g, id);
            break;
        case GGUF_TYPE_UINT16:
            is_signed = false;
            u         = gguf_get_val_u16(g, id);
            break;
        case GGUF_TYPE_UINT32:
            is_signed = false;
            u         = gguf_get_val_u32(g, id);
            break;
        case GGUF_TYPE_UINT64:
            is_signed = false;
            u         = gguf_get_val_u64(g, id);
            break;
        default:
            return false;
    }
    using lim = std::numeric_limits<T>;
    bool fits;
    if (is_signed && s < 0) {
        fits = std::is_signed<T>::value && s >= (int64_t) lim::min();
    } else {
        const uint64_t v = is_signed ? (uint64_t) s : u;
        fits             = v <= (uint64_t) lim::max();
    }
    if (!fits) {
        const std::string value = is_signed ? llama_format("%" PRId64, s) : llama_format("%" PRIu64, u);
        throw llama_error(llama_format("key '%s' holds %s (%s), which does not fit %s%d", gguf_get_key(g, id),
                                       value.c_str(), gguf_type_name(type), std::is_signed<T>::value ? "int" : "uint",
                                       (int) (8 * sizeof(T))));
    }
    out = is_signed ? (T) s : (T) u;
    return true;
}

template bool llama_gguf_get_int<int32_t>(const gguf_context *, int64_t, int32_t &);
template bool llama_gguf_get_int<uint32_t>(const gguf_context *, int64_t, uint32_t &);
template bool llama_gguf_get_int<int64_t>(const gguf_context *, int64_t, int64_t &);
template bool llama_gguf_get_int<uint64_t>(const gguf_context *, int64_t, uint64_t &);
