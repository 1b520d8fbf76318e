// Prompt-cache files: one sequence's KV state with the tokens it holds, shared by llama-cli
// (--prompt-cache FILE) and llama-server (--prompt-cache-dir DIR). docs/state.md describes the bytes.
//
// A file is a fixed header (magic, version, the fingerprint of the model and cache that wrote it,
// token count, state size, a checksum of the header and tokens), the token list, the state of
// llama_state_seq_get_data, and a checksum of everything before it. The header checksum lets a
// folder be indexed by reading headers only; the full checksum is checked before a state reaches
// the context. Files are written to a temporary name and renamed, so a crash leaves no partial
// file under the real name.
//
// Every function that can fail returns an `error`: ok(), or a kind and the reason (one phrase, no
// file name: the caller names the file). Nothing here prints.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "llama.h"

namespace prompt_cache {

constexpr uint32_t MAGIC       = 0x63706c6c;  // the bytes "llpc"
constexpr uint32_t VERSION     = 1;
constexpr size_t   HEADER_SIZE = 60;

struct error {
    enum kind_t {
        none,
        io,        // the file cannot be opened, read or written
        damaged,   // not a complete, intact prompt-cache file (empty, truncated, checksum, bad sizes or ids)
        mismatch,  // intact, but written by another format version, model, cache type or adapters
        refused,   // intact and matching, but it does not fit this context (too many tokens, no room)
    };
    kind_t      kind = none;
    std::string reason;

    bool ok() const { return kind == none; }
};

// What must match for a state to be reusable: the model (its shape, metadata and vocabulary), the
// KV cache types, the context's RoPE settings (K is stored rotated) and the LoRA adapters applied.
struct fingerprint {
    uint64_t model    = 0;
    uint32_t type_k   = 0;
    uint32_t type_v   = 0;
    uint64_t rope     = 0;
    uint64_t adapters = 0;  // 0: none

    bool operator==(const fingerprint & o) const {
        return model == o.model && type_k == o.type_k && type_v == o.type_v && rope == o.rope && adapters == o.adapters;
    }
};

// The fingerprint of a context made from `model` with `cp`. adapters: a description of the LoRA
// adapters applied to every decode (paths and scales), empty when none.
fingerprint make_fingerprint(const llama_model * model, const llama_context_params & cp,
                             const std::string & adapters = "");

// The header and token list of a file.
struct header {
    fingerprint              fp;
    std::vector<llama_token> tokens;
    uint64_t                 state_size = 0;
    uint64_t                 file_size  = 0;  // HEADER_SIZE + 4 * tokens + state_size + 8 (checksum)
};

// The header and token list of a file whose state has n_state bytes.
std::vector<uint8_t> encode_header(const fingerprint & fp, const std::vector<llama_token> & tokens, size_t n_state);

// The bytes of a file holding `tokens` and `state`.
std::vector<uint8_t> encode(const fingerprint & fp, const std::vector<llama_token> & tokens, const uint8_t * state,
                            size_t n_state);

// Checks the header and token list at the start of a file of `file_size` bytes (`n` bytes of it in
// `data`, at least the header and tokens): magic, version, sizes, header checksum, fingerprint,
// token ids below n_vocab. Fills `h` on success.
error parse_header(const uint8_t * data, size_t n, uint64_t file_size, const fingerprint & fp, int32_t n_vocab,
                   header & h);

// Checks a whole file image (parse_header and the full checksum). On success the state is the
// h.state_size bytes at `state_offset(h)`.
error parse(const std::vector<uint8_t> & bytes, const fingerprint & fp, int32_t n_vocab, header & h);

inline size_t state_offset(const header & h) {
    return HEADER_SIZE + 4 * h.tokens.size();
}

// Writes `bytes` to PATH.tmp, then renames it to PATH (replacing an older file).
error write_file(const std::string & path, const std::vector<uint8_t> & bytes);
// The same for the concatenation of `parts` (pointer, size).
error write_parts(const std::string & path, const std::vector<std::pair<const uint8_t *, size_t>> & parts);

// Reads only the header and token list of `path` (for indexing a folder).
error read_header(const std::string & path, const fingerprint & fp, int32_t n_vocab, header & h);

// Saves sequence `seq` of ctx holding `tokens` (what its cells hold, in position order) to `path`.
// *n_bytes: the file's size.
error save(llama_context * ctx, llama_seq_id seq, const fingerprint & fp, const std::vector<llama_token> & tokens,
           const std::string & path, size_t * n_bytes = nullptr);

// Restores `path` into sequence `seq` of ctx. Everything is checked before the context is
// touched; a file of more than max_tokens tokens is refused. On success `tokens` holds the file's
// token list (the sequence's cells, positions 0..n-1); on failure the sequence is as it was, or
// empty when the library accepted a state whose cells disagree with the token list.
error load(llama_context * ctx, llama_seq_id seq, const fingerprint & fp, const std::string & path, size_t max_tokens,
           std::vector<llama_token> & tokens, size_t * n_bytes = nullptr);

}  // namespace prompt_cache
