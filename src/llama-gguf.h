// The one reader of integer GGUF metadata, with one overflow rule: a value of any of the eight GGUF
// integer types is accepted when it fits the destination, and refused with one error form when it
// does not. The model loader, the vocab and the quantizer all read integers through it.
#pragma once

#include "gguf.h"

#include <cstdint>

// Reads the value of key `id` of g into out. Returns false (out unchanged) when the value is not a
// scalar integer (a float, bool, string or array); the caller decides whether that is an error.
// Throws llama_error "key '<key>' holds <value> (<GGUF type>), which does not fit <int32|uint32|...>"
// when the value is outside T's range: a negative value into an unsigned T, a u64 above INT32_MAX
// into int32_t, ... Instantiated for int32_t, uint32_t, int64_t and uint64_t.
template <typename T>
bool llama_gguf_get_int(const gguf_context * g, int64_t id, T & out);
