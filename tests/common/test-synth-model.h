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

}  // namespace llama_test_util
