// Helpers for the GGUF tests: a byte builder for handcrafted files and a log capture.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ggml.h"
#include "gguf.h"

namespace gguf_test {

// Appends little-endian GGUF fields to a byte vector; every field is written raw so that any
// malformed combination can be expressed.
struct builder {
    std::vector<uint8_t> b;

    builder & raw(const void * p, size_t n) {
        b.insert(b.end(), (const uint8_t *) p, (const uint8_t *) p + n);
        return *this;
    }
    builder & u8(uint8_t v) { return raw(&v, 1); }
    builder & u32(uint32_t v) { return raw(&v, 4); }
    builder & u64(uint64_t v) { return raw(&v, 8); }
    builder & str(const std::string & s) { return u64(s.size()).raw(s.data(), s.size()); }
    builder & header(uint64_t n_tensors, uint64_t n_kv, uint32_t version = 3) {
        return raw("GGUF", 4).u32(version).u64(n_tensors).u64(n_kv);
    }
    builder & kv_u32(const std::string & key, uint32_t v) { return str(key).u32(GGUF_TYPE_UINT32).u32(v); }
    builder & kv_str(const std::string & key, const std::string & v) { return str(key).u32(GGUF_TYPE_STRING).str(v); }
    builder & tensor(const std::string & name, const std::vector<uint64_t> & ne, uint32_t type, uint64_t offset) {
        str(name).u32((uint32_t) ne.size());
        for (uint64_t d : ne) {
            u64(d);
        }
        return u32(type).u64(offset);
    }
    builder & pad(size_t align = 32) {
        b.resize((b.size() + align - 1) / align * align, 0);
        return *this;
    }
    builder & zeros(size_t n) {
        b.resize(b.size() + n, 0);
        return *this;
    }
};

// Captures error messages sent through ggml_log_set for the lifetime of the object.
struct log_capture {
    std::vector<std::string> errors;

    log_capture() { ggml_log_set(&log_capture::cb, this); }
    ~log_capture() { ggml_log_set(nullptr, nullptr); }
    log_capture(const log_capture &)             = delete;
    log_capture & operator=(const log_capture &) = delete;

    std::string all() const {
        std::string s;
        for (const std::string & e : errors) {
            s += e;
        }
        return s;
    }
    bool contains(const std::string & needle) const { return all().find(needle) != std::string::npos; }

    static void cb(enum ggml_log_level level, const char * text, void * ud) {
        if (level == GGML_LOG_LEVEL_ERROR) {
            static_cast<log_capture *>(ud)->errors.emplace_back(text);
        }
    }
};

}  // namespace gguf_test
