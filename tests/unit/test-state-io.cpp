// The state buffer parser on its own (src/llama-state-io.*): the fuzzer's seeds and regressions
// (tests/fuzz/{seeds,regressions}-state) and a fixed-seed mutation run over them go through the
// fuzz body, which checks that every buffer is either rejected with llama_error or accepted and
// re-serialized to the same bytes. Model-level save/load is tests/model/test-state.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "../fuzz/fuzz-state-body.h"
#include "test-common.h"

using testing_util::read_file;
using testing_util::source_path;

namespace {

std::vector<std::vector<uint8_t>> corpus(const char * dir) {
    std::vector<std::vector<uint8_t>> v;
    const std::string                 path = source_path(dir);
    if (!std::filesystem::is_directory(path)) {
        return v;
    }
    for (const auto & e : std::filesystem::directory_iterator(path)) {
        if (e.is_regular_file() && e.path().extension() != ".md") {
            v.push_back(read_file(e.path().string()));
        }
    }
    return v;
}

// Whether the buffer (no control byte) parses as a state of its own fingerprint and kind, into a
// 256-cell cache with n_seq_max 1 (ctl bits 3-4 clear) or 64.
bool accepted(const std::vector<uint8_t> & state, uint8_t ctl) {
    llama_state_io::expect e;
    uint32_t               kind = 0;
    if (!llama_state_io::peek_fingerprint(state.data(), state.size(), e.fp, kind)) {
        return false;
    }
    e.kind      = kind;
    e.kv_size   = 256;
    e.n_seq_max = (ctl >> 3) & 3 ? 64 : 1;
    try {
        llama_state_io::parse(state.data(), state.size(), e);
        return true;
    } catch (const llama_error &) {
        return false;
    }
}

}  // namespace

TEST(StateIo, SeedsAreValidStatesAndReplay) {
    const auto seeds = corpus("tests/fuzz/seeds-state");
    ASSERT_GE(seeds.size(), 3u) << "the seeds are checked in";
    for (const auto & s : seeds) {
        ASSERT_GT(s.size(), 1u);
        EXPECT_TRUE(fuzz_state::run_one(s.data(), s.size()));
        // a seed is a valid state as written (the checksum need not be recomputed)
        EXPECT_TRUE(accepted(std::vector<uint8_t>(s.begin() + 1, s.end()), 1 << 3));
    }
    for (const auto & r : corpus("tests/fuzz/regressions-state")) {
        EXPECT_TRUE(fuzz_state::run_one(r.data(), r.size()));
    }
}

// The short deterministic corpus run: mutations of every seed (byte flips, truncations,
// insertions, spliced integers, with every control byte) through the fuzz body.
TEST(StateIo, DeterministicMutationRun) {
    const auto seeds = corpus("tests/fuzz/seeds-state");
    ASSERT_FALSE(seeds.empty());
    std::mt19937 rng(1234);
    size_t       n_runs = 0, n_accepted = 0;
    for (const auto & seed : seeds) {
        for (int i = 0; i < 4000; i++) {
            std::vector<uint8_t> m = seed;
            m[0]                   = (uint8_t) rng();
            const int n_mut        = 1 + (int) (rng() % 3);
            for (int k = 0; k < n_mut && m.size() > 1; k++) {
                const size_t at = 1 + rng() % (m.size() - 1);
                switch (rng() % 4) {
                    case 0:
                        m[at] ^= (uint8_t) (1u << (rng() % 8));
                        break;
                    case 1:
                        m.resize(at);
                        break;
                    case 2:
                        m.insert(m.begin() + (long) at, (uint8_t) rng());
                        break;
                    default: {
                        // an interesting 32-bit value over a header or cell field
                        static const uint32_t vals[] = {0, 1, 0x7fffffffu, 0x80000000u, 0xffffffffu, 256, 255};
                        const uint32_t        v      = vals[rng() % 7];
                        if (at + 4 <= m.size()) {
                            memcpy(m.data() + at, &v, 4);
                        }
                    }
                }
            }
            ASSERT_TRUE(fuzz_state::run_one(m.data(), m.size())) << "seed mutation " << i;
            n_runs++;
            n_accepted += accepted(std::vector<uint8_t>(m.begin() + 1, m.end()), m[0]) ? 1 : 0;
        }
    }
    EXPECT_GT(n_runs, 10000u);
    RecordProperty("accepted", (int) n_accepted);
}

// The writer refuses a destination that is one byte short, and counts exactly what it writes.
TEST(StateIo, WriterSizes) {
    llama_state_io::fingerprint fp{"llama", 1, 4, 4, 32, 32, 1, 1};
    llama_state_io::writer      count;
    count.begin(llama_state_io::KIND_SEQ, 0, fp);
    count.put_u32(1);
    count.put_u32(0);
    count.put_u32(0);
    count.finish();
    std::vector<uint8_t>   buf(count.size());
    llama_state_io::writer w(buf.data(), buf.size());
    w.begin(llama_state_io::KIND_SEQ, 0, fp);
    w.put_u32(1);
    w.put_u32(0);
    w.put_u32(0);
    w.finish();
    EXPECT_EQ(w.size(), buf.size());
    llama_state_io::expect e;
    e.fp      = fp;
    e.kind    = llama_state_io::KIND_SEQ;
    e.kv_size = 1;
    EXPECT_EQ(llama_state_io::parse(buf.data(), buf.size(), e).total, buf.size());
    std::vector<uint8_t>   small(buf.size() - 1);
    llama_state_io::writer ws(small.data(), small.size());
    EXPECT_THROW(
        {
            ws.begin(llama_state_io::KIND_SEQ, 0, fp);
            ws.put_u32(1);
            ws.put_u32(0);
            ws.put_u32(0);
            ws.finish();
        },
        llama_error);
}
