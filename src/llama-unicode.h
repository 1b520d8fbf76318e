// Unicode support for the tokenizers: lenient UTF-8 decoding, general-category flags, lowercase,
// canonical decomposition (NFD) and the GPT-2 byte <-> code point alphabet. Tables are generated
// from the Unicode Character Database by scripts/gen-unicode-data.py.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

// general-category groups (one of the first seven) plus properties
enum : uint16_t {
    LLAMA_UNICODE_NUMBER          = 0x0001,  // N*
    LLAMA_UNICODE_LETTER          = 0x0002,  // L*
    LLAMA_UNICODE_SEPARATOR       = 0x0004,  // Z*
    LLAMA_UNICODE_MARK            = 0x0008,  // M*
    LLAMA_UNICODE_PUNCTUATION     = 0x0010,  // P*
    LLAMA_UNICODE_SYMBOL          = 0x0020,  // S*
    LLAMA_UNICODE_CONTROL         = 0x0040,  // C* (also unassigned code points)
    LLAMA_UNICODE_WHITESPACE      = 0x0080,  // White_Space property: what regex \s matches
    LLAMA_UNICODE_MARK_NONSPACING = 0x0100,  // Mn: what accent stripping removes
    LLAMA_UNICODE_CC_OR_CF        = 0x0200,  // Cc or Cf
    // letter subcategories, for pre-tokenizers that split on case; Lo is a letter with none of them
    LLAMA_UNICODE_LETTER_UPPER    = 0x0400,  // Lu
    LLAMA_UNICODE_LETTER_LOWER    = 0x0800,  // Ll
    LLAMA_UNICODE_LETTER_TITLE    = 0x1000,  // Lt
    LLAMA_UNICODE_LETTER_MODIFIER = 0x2000,  // Lm
};

// A code point that is not valid UTF-8 decodes to this (one byte consumed).
constexpr uint32_t LLAMA_UNICODE_REPLACEMENT = 0xFFFD;

// Decodes one code point at s[0..n) (n > 0). Invalid or truncated sequences, overlong forms,
// surrogates and values past U+10FFFF give LLAMA_UNICODE_REPLACEMENT with len = 1 and valid = false.
uint32_t llama_unicode_decode(const char * s, size_t n, size_t & len, bool * valid = nullptr);

// Byte length a UTF-8 lead byte announces (1 for continuation or invalid bytes).
size_t llama_unicode_len_utf8(char lead);

// Code points of a UTF-8 string (invalid bytes become U+FFFD, one each).
std::vector<uint32_t> llama_unicode_cpts_from_utf8(const std::string & s);

void        llama_unicode_append_utf8(std::string & out, uint32_t cpt);
std::string llama_unicode_cpt_to_utf8(uint32_t cpt);

uint16_t llama_unicode_flags(uint32_t cpt);
uint32_t llama_unicode_tolower(uint32_t cpt);

// Appends the full canonical decomposition of cpt (Hangul syllables included). Combining marks keep
// their input order (no canonical reordering): the tokenizers only strip them, so order is moot.
void llama_unicode_nfd_append(uint32_t cpt, std::vector<uint32_t> & out);

// GPT-2 byte-level alphabet: every byte maps to a printable code point and back.
const std::string & llama_unicode_byte_to_utf8(uint8_t byte);
int                 llama_unicode_utf8_to_byte(uint32_t cpt);  // -1 if cpt is not in the alphabet

// CJK ideographs that BERT splits into single-character words.
bool llama_unicode_is_cjk_ideograph(uint32_t cpt);
