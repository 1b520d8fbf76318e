// The state-loader fuzz body, shared by the libFuzzer harness (fuzz-state.cpp) and its
// deterministic corpus run in ctest (tests/unit/test-state-io.cpp).
//
// Input: one control byte, then a state buffer (docs/state.md). Control bits:
//   0    recompute the total size and the checksum, so mutations reach the checks behind them
//   1-2  the destination cache size: 256, 16, 1, 1 << 24
//   3-4  the destination n_seq_max: 1, 2, 4, 64
//   5    expect the other kind (full <-> sequence)
// The expectation takes the buffer's own fingerprint when it has one, so the parser gets past the
// model check. An accepted buffer must re-serialize to the same bytes; a rejected one must throw
// llama_error (anything else escapes and crashes the harness).
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "llama-log.h"
#include "llama-state-io.h"

namespace fuzz_state {

// Returns false when an invariant of an accepted buffer does not hold.
inline bool run_one(const uint8_t * data, size_t size) {
    namespace io = llama_state_io;
    if (size < 1) {
        return true;
    }
    const uint8_t        ctl = data[0];
    std::vector<uint8_t> buf(data + 1, data + size);
    if ((ctl & 1) && buf.size() >= io::HEADER_SIZE + io::CHECKSUM_SIZE) {
        const uint64_t total = buf.size();
        memcpy(buf.data() + 8, &total, 8);
        const uint64_t sum = io::checksum(buf.data(), buf.size() - io::CHECKSUM_SIZE);
        memcpy(buf.data() + buf.size() - io::CHECKSUM_SIZE, &sum, 8);
    }
    static const uint32_t kv_sizes[4] = {256, 16, 1, 1u << 24};
    static const uint32_t n_seqs[4]   = {1, 2, 4, 64};

    io::expect e;
    uint32_t   kind = 0;
    if (!io::peek_fingerprint(buf.data(), buf.size(), e.fp, kind)) {
        e.fp = {"llama", 5, 512, 64, 32, 32, 1, 1};  // stories260K, F16 cache
    }
    e.kind      = (ctl & 32) ? (kind ^ 1u) : kind;
    e.kv_size   = kv_sizes[(ctl >> 1) & 3];
    e.n_seq_max = n_seqs[(ctl >> 3) & 3];

    io::image img;
    try {
        img = io::parse(buf.data(), buf.size(), e);
    } catch (const llama_error &) {
        return true;  // rejected, as most inputs are
    }

    // accepted: within bounds, and writing the image again gives the same bytes
    if (img.total > buf.size() || img.cells.size() > e.kv_size) {
        return false;
    }
    const size_t data_bytes = img.fp.n_layer * img.cells.size() * (img.k_row + img.v_row);
    if (img.kv_data + data_bytes != buf.data() + img.total - io::CHECKSUM_SIZE) {
        return false;
    }
    std::vector<uint8_t> out;
    io::writer           w(&out);
    w.begin(img.kind, img.flags, img.fp);
    if (img.kind == io::KIND_FULL) {
        w.put_u32((uint32_t) img.output_ids.size());
        w.put(img.output_ids.data(), img.output_ids.size() * 4);
        w.put_u32(img.n_outputs);
        w.put(img.logits, (size_t) img.n_outputs * img.fp.n_vocab * 4);
        w.put_u32(img.n_embd_rows);
        w.put(img.embd, (size_t) img.n_embd_rows * img.fp.n_embd * 4);
    }
    w.put_u32(img.src_kv_size);
    w.put_u32(img.head);
    w.put_u32((uint32_t) img.cells.size());
    for (const io::cell_rec & c : img.cells) {
        w.put_u32(c.idx);
        w.put_i32(c.pos);
        w.put_i32(c.shift);
        w.put_u64(c.seqs);
    }
    w.put(img.kv_data, data_bytes);
    w.finish();
    return out.size() == img.total && memcmp(out.data(), buf.data(), out.size()) == 0;
}

}  // namespace fuzz_state
