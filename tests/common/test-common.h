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
// A file of raw native floats (a reference's rows); empty on failure.
std::vector<float> read_f32(const std::string & path);

// Writes bytes to a unique file in the temp folder and returns its path.
std::string write_temp_file(const std::string & stem, const std::vector<uint8_t> & bytes);

// Tokenizer vectors (tests/data/vocab/NAME.gguf.inp / .out): the cases of an .inp text, separated by
// "\n__ggml_vocab_test__\n" (what follows the last separator is not a case), and the token ids of
// each line of an .out text (llama_token is int32_t).
std::vector<std::string> vocab_test_cases(const std::string & inp);

// Normalized mean squared error of a against the reference b: sum (a-b)^2 / sum b^2 (the op
// harness's measure; the plain sum when b is all zero).
double                            nmse(const std::vector<float> & a, const std::vector<float> & b);
std::vector<std::vector<int32_t>> vocab_test_ids(const std::string & out);

// What llama_detokenize gives for text whose pieces spell `text` in a vocab that cleans spaces:
// upstream's three in-place passes (llama_vocab::impl::detokenize, 4df29be4), simulated on a buffer
// the way upstream rewrites it, as the oracle of our own implementation.
std::string upstream_clean_spaces(const std::string & text);

}  // namespace testing_util
