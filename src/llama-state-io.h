// The state buffer format (docs/state.md): a writer that lays it out and a parser that checks all
// of it before anything is restored. Pure byte handling, no context: the parser is what a hostile
// buffer reaches, so it is fuzzed on its own (tests/fuzz/fuzz-state.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace llama_state_io {

constexpr uint32_t MAGIC   = 0x74736c6cu;  // "llst" as little-endian bytes
constexpr uint32_t VERSION = 1;

constexpr uint32_t KIND_FULL = 0;  // the whole context: outputs and every cell with its sequences
constexpr uint32_t KIND_SEQ  = 1;  // one sequence's cells, without outputs

constexpr size_t HEADER_SIZE   = 24;  // magic, version, total_size (u64), kind, flags
constexpr size_t CHECKSUM_SIZE = 8;
constexpr size_t MAX_ARCH_LEN  = 64;

// What identifies a model and a cache layout: a state only loads where all of it is equal.
struct fingerprint {
    std::string arch;
    uint32_t    n_layer      = 0;
    uint32_t    n_vocab      = 0;
    uint32_t    n_embd       = 0;  // an embedding row's width (n_embd_out(): after dense projections)
    uint32_t    n_embd_k_gqa = 0;
    uint32_t    n_embd_v_gqa = 0;
    uint32_t    type_k       = 0;  // ggml_type of the cache
    uint32_t    type_v       = 0;
};

// What the destination context can take.
struct expect {
    fingerprint fp;
    uint32_t    kind      = KIND_FULL;
    uint32_t    kv_size   = 0;  // cells of the destination cache
    uint32_t    n_seq_max = 0;  // sequence ids of a full state must be below it
    // layers in the first (KV) section; 0: fp.n_layer. A hybrid model: its attention layers.
    uint32_t n_layer_kv = 0;
    // a hybrid model's second section (rs_n_layer > 0): the recurrent layers' states, rs_size slots
    // with rows of rs_k_row (conv) and rs_v_row (SSM) bytes
    uint32_t rs_n_layer = 0;
    uint32_t rs_size    = 0;
    size_t   rs_k_row   = 0;
    size_t   rs_v_row   = 0;
};

struct cell_rec {
    uint32_t idx   = 0;  // cell index in the source cache
    int32_t  pos   = 0;
    int32_t  shift = 0;  // pending K rotation (seq_add/seq_div not yet applied)
    uint64_t seqs  = 0;  // bit s: sequence s (full states); 0 in a sequence state
};

// A parsed, fully validated state. Pointers point into the parsed buffer.
struct image {
    uint32_t    kind  = KIND_FULL;
    uint32_t    flags = 0;
    fingerprint fp;

    // outputs of the last decode (full states)
    std::vector<int32_t> output_ids;
    uint32_t             n_outputs   = 0;
    const uint8_t *      logits      = nullptr;  // n_outputs * n_vocab floats (unaligned)
    uint32_t             n_embd_rows = 0;        // 0 or n_outputs
    const uint8_t *      embd        = nullptr;

    uint32_t              src_kv_size = 0;
    uint32_t              head        = 0;
    std::vector<cell_rec> cells;
    const uint8_t *       kv_data = nullptr;  // per layer: K rows of every cell, then V rows
    size_t                k_row   = 0;        // bytes of one cell's K row
    size_t                v_row   = 0;

    size_t total = 0;  // bytes of the state (what set_data reports as read)
    // a hybrid model's recurrent section (one element, only its cell and row fields set), else empty
    std::vector<image> rs;

    const uint8_t * k_rows(uint32_t il) const { return kv_data + (size_t) il * cells.size() * (k_row + v_row); }
    const uint8_t * v_rows(uint32_t il) const { return k_rows(il) + cells.size() * k_row; }
};

// 64-bit FNV-1a over little-endian 8-byte words (then the tail bytes).
uint64_t checksum(const uint8_t * p, size_t n);

// Parses and validates data[0, size) against e. Throws llama_error (message says what is wrong)
// on any mismatch, truncation, corruption or out-of-range value; never reads outside the buffer.
image parse(const uint8_t * data, size_t size, const expect & e);

// Reads only the fingerprint of a state (for tools and the fuzzer); false if it is unreadable.
bool peek_fingerprint(const uint8_t * data, size_t size, fingerprint & fp, uint32_t & kind);

// Appends bytes to a caller buffer of fixed capacity, to a vector, or only counts them.
class writer {
public:
    writer() = default;                                        // count only
    writer(uint8_t * dst, size_t cap) : dst(dst), cap(cap) {}  // fixed buffer
    explicit writer(std::vector<uint8_t> * vec) : vec(vec) {}

    bool   counting() const { return !dst && !vec; }
    size_t size() const { return n; }

    // Room for k bytes at the end; nullptr when counting. Throws if a fixed buffer is too small.
    uint8_t * reserve(size_t k);
    void      put(const void * p, size_t k);
    void      put_u32(uint32_t v) { put(&v, 4); }
    void      put_i32(int32_t v) { put(&v, 4); }
    void      put_u64(uint64_t v) { put(&v, 8); }

    void begin(uint32_t kind, uint32_t flags, const fingerprint & fp);
    // Writes the total size into the header and appends the checksum.
    void finish();

private:
    uint8_t *              dst = nullptr;
    size_t                 cap = 0;
    std::vector<uint8_t> * vec = nullptr;
    size_t                 n   = 0;
    uint8_t *              base() { return dst ? dst : vec ? vec->data() : nullptr; }
};

}  // namespace llama_state_io
