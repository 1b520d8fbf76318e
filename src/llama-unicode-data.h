// Declarations of the generated Unicode tables (src/llama-unicode-data.cpp, scripts/gen-unicode-data.py).
#pragma once

#include <cstddef>
#include <cstdint>

struct llama_unicode_flag_run {
    uint32_t first;  // first code point of the run
    uint16_t flags;  // LLAMA_UNICODE_* bits of llama-unicode.h
};

struct llama_unicode_lower_run {
    uint32_t first;
    int32_t  count;
    int32_t  delta;
    int32_t  stride;
};

struct llama_unicode_decomp {
    uint32_t cpt;
    uint32_t first;
    uint32_t second;  // 0 when the decomposition is a single code point
};

extern const llama_unicode_flag_run  llama_unicode_flag_runs[];
extern const size_t                  llama_unicode_n_flag_runs;
extern const llama_unicode_lower_run llama_unicode_lower_runs[];
extern const size_t                  llama_unicode_n_lower_runs;
extern const llama_unicode_decomp    llama_unicode_decomps[];
extern const size_t                  llama_unicode_n_decomps;
