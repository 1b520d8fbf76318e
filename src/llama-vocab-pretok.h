// BPE pre-tokenizers: split text into the pieces that byte-level BPE merges within. Each one is the
// regex sequence of a Hugging Face tokenizer (named by the GGUF key tokenizer.ggml.pre) implemented
// as hand-written Unicode-aware matchers over code points (no std::regex).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

enum class llama_pretok_type {
    DEFAULT,  // no tokenizer.ggml.pre, or "default"
    GPT2,     // gpt-2, mpt, olmo, ... : 's|'t|...| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
    LLAMA3,   // llama-bpe, dbrx, smaug: case-insensitive contractions, \p{N}{1,3}, newline runs
    QWEN2,    // the llama3 expression with single digits
    DEEPSEEK_LLM,
    DEEPSEEK_CODER,
    FALCON,
    STARCODER,  // starcoder, refact, command-r, ...: digits split, then gpt-2
};

// Maps a tokenizer.ggml.pre value; false when the name is unknown.
bool         llama_pretok_from_name(const std::string & name, llama_pretok_type & type);
const char * llama_pretok_name(llama_pretok_type type);

// Byte ranges [first, second) of the pieces of text, in order; together they cover all of text.
// Bytes that are not valid UTF-8 are kept (each acts as U+FFFD for classification).
void llama_pretok_split(llama_pretok_type type, const std::string & text,
                        std::vector<std::pair<size_t, size_t>> & pieces);
