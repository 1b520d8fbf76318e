// Helpers shared by the tests: paths to the test data (tests/data) and small file utilities.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace testing_util {

// Absolute path of a file under tests/data (e.g. "vocab/ggml-vocab-gpt-2.gguf"; "models/stories260K.gguf"
// there links to the bundled model).
std::string data_path(const std::string & rel);

// Absolute path of a file in the source tree (e.g. "models/stories260K.gguf").
std::string source_path(const std::string & rel);

// Whole file as bytes; empty on failure.
std::vector<uint8_t> read_file(const std::string & path);

// Writes bytes to a unique file in the temp folder and returns its path.
std::string write_temp_file(const std::string & stem, const std::vector<uint8_t> & bytes);

}  // namespace testing_util
