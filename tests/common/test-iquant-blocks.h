// Random blocks of the grid i-quants (IQ2_XXS ... IQ1_M), for tests that need i-quant data before a
// quantizer exists: random bytes (every bit pattern is a valid block) with the fp16 block scale set so
// the dequantized values have a chosen RMS. Used by test-iquant-files, the op harness and the Vulkan
// end-to-end test.
#pragma once

#include "ggml.h"
#include "gguf.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace iquant_blocks {

// Sets the block's fp16 scale: the d field first in the block, or (iq1_m) the top nibbles of its scales.
inline void set_scale(ggml_type t, uint8_t * blk, float d) {
    const ggml_fp16_t h = ggml_fp32_to_fp16(d);
    if (t != GGML_TYPE_IQ1_M) {
        std::memcpy(blk, &h, 2);
        return;
    }
    uint8_t * sc = blk + 32 + 16;
    for (int i = 0; i < 4; i++) {
        uint16_t v;
        std::memcpy(&v, sc + 2 * i, 2);
        v = (uint16_t) ((v & 0x0FFF) | (((h >> (4 * i)) & 0xF) << 12));
        std::memcpy(sc + 2 * i, &v, 2);
    }
}

// Random blocks for n values (a multiple of the block size), scaled so the dequantized values have an
// RMS of `rms`; `values` receives them dequantized.
inline std::vector<uint8_t> random_blocks(ggml_type t, int64_t n, uint32_t seed, float rms,
                                          std::vector<float> & values) {
    const size_t         nb = (size_t) (n / ggml_blck_size(t)), ts = ggml_type_size(t);
    std::vector<uint8_t> q(nb * ts);
    std::mt19937         rng(seed);
    for (auto & b : q) {
        b = (uint8_t) (rng() >> 24);
    }
    values.resize((size_t) n);
    for (float d : {1.0f, 0.0f}) {
        if (d == 0.0f) {  // second pass: the scale that gives the wanted RMS
            double ss = 0;
            for (float v : values) {
                ss += (double) v * v;
            }
            d = (float) (rms / std::sqrt(ss / (double) n));
        }
        for (size_t i = 0; i < nb; i++) {
            set_scale(t, q.data() + i * ts, d);
        }
        ggml_dequantize_row(t, q.data(), values.data(), n);
    }
    return q;
}

// Writes `dst_q` (the 2-D matrices with 256-multiple rows in type t, random blocks of RMS 0.05) and
// `dst_f` (the same values in F32) from the model src; other tensors are copied. False on any failure.
inline bool write_pair(const std::string & src, ggml_type t, const std::string & dst_q, const std::string & dst_f) {
    struct gguf_ptr {
        gguf_context * g;
        ~gguf_ptr() { gguf_free(g); }
    };
    gguf_ptr in{gguf_init_from_file(src.c_str(), {false})};
    if (!in.g) {
        return false;
    }
    gguf_ptr oq{gguf_init_empty()}, of{gguf_init_empty()};
    bool     ok = gguf_set_kv(oq.g, in.g) && gguf_set_kv(of.g, in.g);
    for (int64_t i = 0; ok && i < gguf_get_n_tensors(in.g); i++) {
        const char * name = gguf_get_tensor_name(in.g, i);
        int64_t      ne[4];
        gguf_get_tensor_shape(in.g, i, ne);
        const int    n_dims = (int) gguf_get_tensor_n_dims(in.g, i);
        const void * data   = gguf_get_tensor_data(in.g, i);
        if (n_dims == 2 && ne[0] % 256 == 0) {
            std::vector<float>         values;
            const std::vector<uint8_t> q = random_blocks(t, ne[0] * ne[1], (uint32_t) i + 1, 0.05f, values);
            ok                           = gguf_add_tensor_info(oq.g, name, t, n_dims, ne, q.data()) &&
                 gguf_add_tensor_info(of.g, name, GGML_TYPE_F32, n_dims, ne, values.data());
        } else {
            const ggml_type ty = gguf_get_tensor_type(in.g, i);
            ok                 = gguf_add_tensor_info(oq.g, name, ty, n_dims, ne, data) &&
                 gguf_add_tensor_info(of.g, name, ty, n_dims, ne, data);
        }
    }
    return ok && gguf_write_to_file(oq.g, dst_q.c_str(), false) && gguf_write_to_file(of.g, dst_f.c_str(), false);
}

}  // namespace iquant_blocks
