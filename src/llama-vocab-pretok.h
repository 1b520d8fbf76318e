// BPE pre-tokenizers: split text into the pieces that byte-level BPE merges within. Each one is the
// regex sequence of a Hugging Face tokenizer (named by the GGUF key tokenizer.ggml.pre), as upstream
// llama.cpp runs it: the common ones as hand-written Unicode-aware matchers over code points, the
// rest through a small regex engine for exactly the syntax they use (llama-vocab-regex.h). No
// std::regex. docs/design.md ("BPE pre-tokenizers") says where each rule comes from.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

// One value per distinct rule set.
enum class llama_pretok_type {
    DEFAULT,  // no tokenizer.ggml.pre, or "default"
    GPT2,     // gpt-2, mpt, olmo, ... : 's|'t|...| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)
    LLAMA3,   // llama-bpe, dbrx, glm4, ...: case-insensitive contractions, \p{N}{1,3}, newline runs
    QWEN2,    // the llama3 expression with single digits
    DEEPSEEK_LLM,
    DEEPSEEK_CODER,
    FALCON,
    STARCODER,  // starcoder, refact, command-r, ...: digits split, then gpt-2
    JAIS2,      // llama3 with whitespace runs cut into power-of-two lengths
    DEEPSEEK3,  // deepseek-v3, hunyuan-dense, joyai-llm
    YOUTU,
    QWEN35,  // qwen2 with marks joined to letters
    BLOOM,   // bloom, poro-chat, gpt3-finnish
    VIKING,
    TEKKEN,  // Mistral: case-aware words, single digits
    CHAMELEON,
    GPT4O,              // gpt-4o, llama4, minimax-m2, ...: case-aware words, contractions, \p{N}{1,3}
    GRANITE_EMB_MULTI,  // gpt-4o with marks inside words
    TINY_AYA,           // digits grouped by three from the right, then gpt-4o
    KIMI_K2,
    SUPERBPE,
    BAILINGMOE,
    SEED_CODER,
    AFMOE,
    LAGUNA,
    EXAONE_MOE,
    NEWLINES,  // gemma4, sarvam-moe, granite-embed-multi-311m: newline runs only (raw-UTF-8 BPE)
    MINICPM5,
    WHITESPACE,  // \S+ and the gaps (jina-v2-zh; raw-UTF-8 BPE)
    COUNT,
};

// What a tokenizer.ggml.pre name selects: its rule set and the vocab defaults upstream ties to the
// name (the GGUF's tokenizer.ggml.add_bos_token, when present, still decides BOS).
struct llama_pretok_info {
    llama_pretok_type type          = llama_pretok_type::DEFAULT;
    bool              ignore_merges = false;  // a piece that is a whole token is not merged (llama 3)
    bool              add_bos       = false;
    // Raw-UTF-8 BPE names (gemma4, granite-embed-multi-311m, sarvam-moe): spaces become U+2581 before
    // the merges, and U+2581 turns back into a space in the pieces of normal tokens.
    bool escape_ws = false;
    // Upstream's GEMMA4 type (gemma4, granite-embed-multi-311m): a piece made only of newlines that
    // is itself a token is taken whole, and a BOS is always added (the GGUF key cannot turn it off).
    bool gemma4 = false;
    // Detokenizing drops the space before . , ? ! and around contractions (upstream's clean_spaces,
    // true for BPE vocabs except the names listed in llama-vocab-pretok-names.cpp).
    bool clean_spaces = true;
};

// Maps a tokenizer.ggml.pre value; false when the name is unknown.
bool         llama_pretok_from_name(const std::string & name, llama_pretok_info & info);
bool         llama_pretok_from_name(const std::string & name, llama_pretok_type & type);
const char * llama_pretok_name(llama_pretok_type type);

// Every name llama_pretok_from_name accepts, in table order (for tests and messages).
std::vector<std::string> llama_pretok_names();

// False for the pre-tokenizers whose BPE runs over raw UTF-8 instead of the GPT-2 byte alphabet
// (upstream's byte_encode = false: NEWLINES, WHITESPACE): merge symbols are whole UTF-8 characters
// and bytes without a token fall back to <0xNN> tokens.
bool llama_pretok_byte_encode(llama_pretok_type type);

// Byte ranges [first, second) of the pieces of text, in order; together they cover all of text.
// Bytes that are not valid UTF-8 are kept (each acts as U+FFFD for classification).
void llama_pretok_split(llama_pretok_type type, const std::string & text,
                        std::vector<std::pair<size_t, size_t>> & pieces);
