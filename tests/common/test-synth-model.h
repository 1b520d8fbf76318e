// A synthetic model (examples/gguf-synth, header-only) written to a temporary file for one test and
// removed with the object; a write failure is a test failure with the generator's reason.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "../../examples/gguf-synth/gguf-synth.h"
#include "test-common.h"

namespace llama_test_util {

struct temp_model {
    std::string path;
    // stem: the end of the temporary file's name, to tell the files of a test run apart
    explicit temp_model(const synth::params & p, const std::string & stem = "synth.gguf") {
        path = testing_util::write_temp_file(stem, {});
        std::string err;
        EXPECT_TRUE(synth::write_model(p, path, err)) << err;
    }
    ~temp_model() { remove(path.c_str()); }
    temp_model(const temp_model &)             = delete;
    temp_model & operator=(const temp_model &) = delete;
};

// The smallest llama whose matrix rows (256, 512) are whole 256-value super-blocks, so every K-quant and
// i-quant applies to every matrix: 2 layers, 4 heads over 1 KV head, 320-token vocabulary, untied.
inline synth::params superblock_llama(ggml_type type = GGML_TYPE_F32) {
    synth::params p;
    p.n_embd    = 256;
    p.n_layer   = 2;
    p.n_ff      = 512;
    p.n_head    = 4;
    p.n_head_kv = 1;
    p.n_vocab   = 320;
    p.tied      = false;
    p.type      = type;
    p.n_threads = 2;
    return p;
}

}  // namespace llama_test_util
