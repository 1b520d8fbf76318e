// llama-gguf-dump: header, every key/value (long arrays shortened), every tensor and totals of a GGUF file.
// Uses only the public headers. Exit status: 0 ok, 1 usage error, 2 unreadable or malformed file.
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "arg-parse.h"
#include "ggml.h"
#include "gguf.h"
#include "tool-log.h"

namespace {

struct options {
    const char * path      = nullptr;
    bool         json      = false;
    size_t       max_array = 8;  // elements shown per array; the rest are counted
};

const char * k_prog = "llama-gguf-dump";

void print_usage(FILE * out) {
    fprintf(out,
            "usage: %s [--json] [--max-array N] FILE.gguf\n\n"
            "Prints the header, every key/value and every tensor of a GGUF file.\n\n"
            "  --json          print one JSON object instead of text\n"
            "  --max-array N   show at most N elements of each array, 0 to 1000000000 (default 8, 0 = all)\n"
            "  -h, --help      print this help and exit\n\n"
            "exit status: 0 success, 1 usage error, 2 unreadable or malformed file\n",
            k_prog);
}

// JSON string body: escapes quotes, backslashes and control bytes; invalid UTF-8 becomes U+FFFD so the
// output always parses.
std::string json_escape(const char * s, size_t n) {
    std::string out;
    for (size_t i = 0; i < n;) {
        const unsigned char c = (unsigned char) s[i];
        if (c == '"' || c == '\\') {
            out += '\\';
            out += (char) c;
            i++;
        } else if (c < 0x20) {
            char buf[8];
            snprintf(buf, sizeof(buf), "\\u%04x", c);
            out += buf;
            i++;
        } else if (c < 0x80) {
            out += (char) c;
            i++;
        } else {
            const size_t len = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
            bool         ok  = len > 0 && i + len <= n && (len != 3 || c < 0xf0);
            for (size_t k = 1; ok && k < len; k++) {
                ok = ((unsigned char) s[i + k] & 0xc0) == 0x80;
            }
            if (ok) {
                out.append(s + i, len);
                i += len;
            } else {
                out += "\\ufffd";
                i++;
            }
        }
    }
    return out;
}

// Text mode: printable ASCII kept, everything else as \xNN, so a token list stays on one line.
std::string text_escape(const char * s, size_t n) {
    std::string out;
    for (size_t i = 0; i < n; i++) {
        const unsigned char c = (unsigned char) s[i];
        if (c == '"' || c == '\\') {
            out += '\\';
            out += (char) c;
        } else if (c >= 0x20 && c < 0x7f) {
            out += (char) c;
        } else if (c >= 0x80) {
            out += (char) c;  // keep UTF-8 readable
        } else {
            char buf[8];
            snprintf(buf, sizeof(buf), "\\x%02x", c);
            out += buf;
        }
    }
    return out;
}

// One fixed-size value as text (also valid JSON for numbers and booleans).
std::string scalar_to_string(enum gguf_type type, const void * p) {
    char buf[64];
    switch (type) {
        case GGUF_TYPE_UINT8:
            snprintf(buf, sizeof(buf), "%u", *(const uint8_t *) p);
            break;
        case GGUF_TYPE_INT8:
            snprintf(buf, sizeof(buf), "%d", *(const int8_t *) p);
            break;
        case GGUF_TYPE_UINT16:
            snprintf(buf, sizeof(buf), "%u", *(const uint16_t *) p);
            break;
        case GGUF_TYPE_INT16:
            snprintf(buf, sizeof(buf), "%d", *(const int16_t *) p);
            break;
        case GGUF_TYPE_UINT32:
            snprintf(buf, sizeof(buf), "%" PRIu32, *(const uint32_t *) p);
            break;
        case GGUF_TYPE_INT32:
            snprintf(buf, sizeof(buf), "%" PRId32, *(const int32_t *) p);
            break;
        case GGUF_TYPE_UINT64:
            snprintf(buf, sizeof(buf), "%" PRIu64, *(const uint64_t *) p);
            break;
        case GGUF_TYPE_INT64:
            snprintf(buf, sizeof(buf), "%" PRId64, *(const int64_t *) p);
            break;
        case GGUF_TYPE_FLOAT32:
            snprintf(buf, sizeof(buf), "%.9g", (double) *(const float *) p);
            break;
        case GGUF_TYPE_FLOAT64:
            snprintf(buf, sizeof(buf), "%.17g", *(const double *) p);
            break;
        case GGUF_TYPE_BOOL:
            snprintf(buf, sizeof(buf), "%s", *(const uint8_t *) p ? "true" : "false");
            break;
        default:
            snprintf(buf, sizeof(buf), "?");
            break;
    }
    std::string s = buf;
    // JSON has no NaN or Infinity literals
    if (s.find("nan") != std::string::npos || s.find("inf") != std::string::npos) {
        s = "\"" + s + "\"";
    }
    return s;
}

std::string quoted(const char * s, size_t n, bool json) {
    return "\"" + (json ? json_escape(s, n) : text_escape(s, n)) + "\"";
}

// The value of key i: scalars in full, arrays up to opt.max_array elements.
std::string value_to_string(const gguf_context * ctx, int64_t i, const options & opt, bool * truncated) {
    const enum gguf_type type = gguf_get_kv_type(ctx, i);
    *truncated                = false;
    if (type == GGUF_TYPE_STRING) {
        return quoted(gguf_get_val_str(ctx, i), (size_t) gguf_get_val_str_len(ctx, i), opt.json);
    }
    if (type != GGUF_TYPE_ARRAY) {
        return scalar_to_string(type, gguf_get_val_data(ctx, i));
    }
    const enum gguf_type at    = gguf_get_arr_type(ctx, i);
    const size_t         n     = gguf_get_arr_n(ctx, i);
    const size_t         shown = opt.max_array && n > opt.max_array ? opt.max_array : n;
    if (at == GGUF_TYPE_ARRAY) {
        // inner arrays are not exposed element by element, only counted
        *truncated = n > 0;
        return opt.json ? std::string("[]") : "[" + std::to_string(n) + " nested arrays]";
    }
    *truncated       = shown < n;
    std::string  out = "[";
    const char * data =
        (const char *) (at == GGUF_TYPE_STRING || at == GGUF_TYPE_ARRAY ? nullptr : gguf_get_arr_data(ctx, i));
    for (size_t k = 0; k < shown; k++) {
        if (k) {
            out += ", ";
        }
        if (at == GGUF_TYPE_STRING) {
            out += quoted(gguf_get_arr_str(ctx, i, k), (size_t) gguf_get_arr_str_len(ctx, i, k), opt.json);
        } else {
            out += scalar_to_string(at, data + k * gguf_type_size(at));
        }
    }
    if (*truncated && !opt.json) {
        out += shown ? ", " : "";
        out += "... " + std::to_string(n - shown) + " more";
    }
    return out + "]";
}

std::string shape_to_string(const int64_t ne[4], uint32_t n_dims) {
    std::string s = "[";
    for (uint32_t d = 0; d < n_dims; d++) {
        s += (d ? ", " : "") + std::to_string(ne[d]);
    }
    return s + "]";
}

void dump_text(const gguf_context * ctx, const options & opt) {
    printf("file:        %s\n", opt.path);
    printf("version:     %u\n", gguf_get_version(ctx));
    printf("alignment:   %zu\n", gguf_get_alignment(ctx));
    printf("data offset: %zu\n", gguf_get_data_offset(ctx));
    printf("file size:   %zu\n", gguf_get_file_size(ctx));
    const int64_t n_kv = gguf_get_n_kv(ctx);
    printf("\nkey/values: %" PRId64 "\n", n_kv);
    for (int64_t i = 0; i < n_kv; i++) {
        const enum gguf_type type  = gguf_get_kv_type(ctx, i);
        std::string          tname = gguf_type_name(type);
        if (type == GGUF_TYPE_ARRAY) {
            tname += std::string("[") + gguf_type_name(gguf_get_arr_type(ctx, i)) + "; " +
                     std::to_string(gguf_get_arr_n(ctx, i)) + "]";
        }
        bool truncated;
        printf("  %4" PRId64 " %-40s %-16s = %s\n", i, gguf_get_key(ctx, i), tname.c_str(),
               value_to_string(ctx, i, opt, &truncated).c_str());
    }
    const int64_t n_tensors = gguf_get_n_tensors(ctx);
    printf("\ntensors: %" PRId64 "\n", n_tensors);
    uint64_t total_bytes = 0, total_elems = 0;
    for (int64_t i = 0; i < n_tensors; i++) {
        int64_t ne[4];
        gguf_get_tensor_shape(ctx, i, ne);
        const size_t bytes = gguf_get_tensor_size(ctx, i);
        total_bytes += bytes;
        total_elems += (uint64_t) (ne[0] * ne[1] * ne[2] * ne[3]);
        printf("  %4" PRId64 " %-40s %-8s %-24s offset %12zu  bytes %12zu\n", i, gguf_get_tensor_name(ctx, i),
               ggml_type_name(gguf_get_tensor_type(ctx, i)),
               shape_to_string(ne, gguf_get_tensor_n_dims(ctx, i)).c_str(), gguf_get_tensor_offset(ctx, i), bytes);
    }
    printf("\ntotals: %" PRId64 " key/values, %" PRId64 " tensors, %" PRIu64 " elements, %" PRIu64
           " bytes of tensor data (%.2f MiB)\n",
           n_kv, n_tensors, total_elems, total_bytes, (double) total_bytes / (1024.0 * 1024.0));
}

void dump_json(const gguf_context * ctx, const options & opt) {
    printf("{\n  \"file\": %s,\n", quoted(opt.path, strlen(opt.path), true).c_str());
    printf("  \"version\": %u,\n  \"alignment\": %zu,\n  \"data_offset\": %zu,\n  \"file_size\": %zu,\n",
           gguf_get_version(ctx), gguf_get_alignment(ctx), gguf_get_data_offset(ctx), gguf_get_file_size(ctx));
    const int64_t n_kv = gguf_get_n_kv(ctx);
    printf("  \"kv\": [");
    for (int64_t i = 0; i < n_kv; i++) {
        const enum gguf_type type = gguf_get_kv_type(ctx, i);
        const char *         key  = gguf_get_key(ctx, i);
        bool                 truncated;
        const std::string    value = value_to_string(ctx, i, opt, &truncated);
        printf("%s\n    {\"key\": %s, \"type\": \"%s\"", i ? "," : "", quoted(key, strlen(key), true).c_str(),
               gguf_type_name(type));
        if (type == GGUF_TYPE_ARRAY) {
            printf(", \"elem_type\": \"%s\", \"n\": %zu, \"truncated\": %s", gguf_type_name(gguf_get_arr_type(ctx, i)),
                   gguf_get_arr_n(ctx, i), truncated ? "true" : "false");
        }
        printf(", \"value\": %s}", value.c_str());
    }
    printf("%s],\n", n_kv ? "\n  " : "");
    const int64_t n_tensors   = gguf_get_n_tensors(ctx);
    uint64_t      total_bytes = 0, total_elems = 0;
    printf("  \"tensors\": [");
    for (int64_t i = 0; i < n_tensors; i++) {
        int64_t ne[4];
        gguf_get_tensor_shape(ctx, i, ne);
        const size_t bytes = gguf_get_tensor_size(ctx, i);
        total_bytes += bytes;
        total_elems += (uint64_t) (ne[0] * ne[1] * ne[2] * ne[3]);
        const char * name = gguf_get_tensor_name(ctx, i);
        printf("%s\n    {\"name\": %s, \"type\": \"%s\", \"shape\": %s, \"offset\": %zu, \"bytes\": %zu}", i ? "," : "",
               quoted(name, strlen(name), true).c_str(), ggml_type_name(gguf_get_tensor_type(ctx, i)),
               shape_to_string(ne, gguf_get_tensor_n_dims(ctx, i)).c_str(), gguf_get_tensor_offset(ctx, i), bytes);
    }
    printf("%s],\n", n_tensors ? "\n  " : "");
    printf("  \"totals\": {\"n_kv\": %" PRId64 ", \"n_tensors\": %" PRId64 ", \"elements\": %" PRIu64
           ", \"bytes\": %" PRIu64 "}\n}\n",
           n_kv, n_tensors, total_elems, total_bytes);
}

}  // namespace

int main(int argc, char ** argv) {
    options     opt;
    std::string path;
    tool::args  args(k_prog, argc, argv, print_usage);
    while (args.next()) {
        if (args.is("--json")) {
            opt.json = true;
        } else if (args.is("--max-array")) {
            opt.max_array = (size_t) args.int_value(0, 1000000000);
        } else if (args.positional() && path.empty()) {
            path = args.arg();
        } else {
            args.unknown();
        }
    }
    if (path.empty()) {
        args.fail("no file given");
    }
    opt.path = path.c_str();
    // ggml's log lines about a malformed file are held and reported once below, with the file name
    tool::log_init(k_prog, GGML_LOG_LEVEL_WARN, nullptr);
    ggml_log_set(tool::log_callback, nullptr);

    // the real reason of an unreadable file (missing, permissions, a directory) comes from the OS
    FILE * f = ggml_fopen(opt.path, "rb");
    if (!f) {
        return tool::report_failure(std::string("cannot open ") + opt.path, strerror(errno));
    }
    fclose(f);
    // metadata only: the tensor data is never read, only its bounds are checked
    struct gguf_init_params params = {/*no_alloc =*/true};
    gguf_context *          ctx    = gguf_init_from_file(opt.path, params);
    if (!ctx) {
        return tool::report_failure(std::string(opt.path) + " is not a valid GGUF file");
    }
    if (opt.json) {
        dump_json(ctx, opt);
    } else {
        dump_text(ctx, opt);
    }
    gguf_free(ctx);
    return 0;
}
