// The importance-matrix file formats (tools/imatrix/imatrix-file.h): GGUF and legacy .dat round
// trips, merging (--in-file), the per-column means llama-quantize takes, and malformed input.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "../../tools/imatrix/imatrix-file.h"
#include "gguf.h"
#include "test-common.h"

namespace {

struct temp_path {
    std::string path;
    explicit temp_path(const std::string & stem) : path(testing_util::write_temp_file(stem, {})) {}
    ~temp_path() { remove(path.c_str()); }
};

// A dense entry (one matrix, 8 columns) and a MoE entry (3 experts of 4 columns, one never routed).
imatrix::data sample() {
    imatrix::data d;
    auto &        a = d.entries["blk.0.attn_q.weight"];
    for (int i = 0; i < 8; i++) {
        a.sums.push_back(0.5 * (i + 1));
    }
    a.counts      = {64};
    auto & m      = d.entries["blk.0.ffn_up_exps.weight"];
    m.sums        = {1, 2, 3, 4, 0, 0, 0, 0, 8, 8, 8, 8};
    m.counts      = {10, 0, 20};
    d.datasets    = {"calibration.txt"};
    d.chunk_count = 2;
    d.chunk_size  = 32;
    return d;
}

}  // namespace

TEST(ImatrixFile, GgufRoundTrip) {
    const imatrix::data d = sample();
    temp_path           f("im.gguf");
    std::string         err;
    ASSERT_TRUE(imatrix::save_gguf(f.path, d, err)) << err;
    imatrix::data r;
    ASSERT_TRUE(imatrix::load(f.path, r, err)) << err;
    EXPECT_FALSE(r.is_legacy);
    EXPECT_EQ(r.chunk_count, 2);
    EXPECT_EQ(r.chunk_size, 32);
    EXPECT_EQ(r.datasets, d.datasets);
    ASSERT_EQ(r.entries.size(), 2u);
    for (const auto & kv : d.entries) {
        EXPECT_EQ(r.entries[kv.first].sums, kv.second.sums) << kv.first;
        EXPECT_EQ(r.entries[kv.first].counts, kv.second.counts) << kv.first;
    }
    // the layout llama.cpp writes: general.type, [n_cols, n_mat] sums and [1, n_mat] counts, F32
    gguf_context * g = gguf_init_from_file(f.path.c_str(), {true});
    ASSERT_NE(g, nullptr);
    const int64_t kt = gguf_find_key(g, "general.type");
    ASSERT_GE(kt, 0);
    EXPECT_STREQ(gguf_get_val_str(g, kt), "imatrix");
    const int64_t ts = gguf_find_tensor(g, "blk.0.ffn_up_exps.weight.in_sum2");
    const int64_t tc = gguf_find_tensor(g, "blk.0.ffn_up_exps.weight.counts");
    ASSERT_GE(ts, 0);
    ASSERT_GE(tc, 0);
    int64_t ne[4];
    gguf_get_tensor_shape(g, ts, ne);
    EXPECT_EQ(ne[0], 4);
    EXPECT_EQ(ne[1], 3);
    gguf_get_tensor_shape(g, tc, ne);
    EXPECT_EQ(ne[0], 1);
    EXPECT_EQ(ne[1], 3);
    EXPECT_EQ(gguf_get_tensor_type(g, ts), GGML_TYPE_F32);
    gguf_free(g);
}

TEST(ImatrixFile, MeanValuesPerExpert) {
    const imatrix::data d = sample();
    const auto          a = imatrix::mean_values(d.entries.at("blk.0.attn_q.weight"), false);
    ASSERT_EQ(a.size(), 8u);
    EXPECT_FLOAT_EQ(a[3], 2.0f / 64);
    const auto m = imatrix::mean_values(d.entries.at("blk.0.ffn_up_exps.weight"), false);
    ASSERT_EQ(m.size(), 12u);
    EXPECT_FLOAT_EQ(m[1], 0.2f);  // 2 / 10
    EXPECT_FLOAT_EQ(m[5], 1.0f);  // an expert no token reached: neutral weight, as llama.cpp
    EXPECT_FLOAT_EQ(m[8], 0.4f);  // 8 / 20
}

TEST(ImatrixFile, LegacyRoundTripKeepsTheMeans) {
    const imatrix::data d = sample();
    temp_path           f("im.dat");
    std::string         err;
    ASSERT_TRUE(imatrix::save_legacy(f.path, d, err)) << err;
    imatrix::data r;
    ASSERT_TRUE(imatrix::load(f.path, r, err)) << err;
    EXPECT_TRUE(r.is_legacy);
    EXPECT_EQ(r.chunk_count, 2);
    ASSERT_EQ(r.datasets.size(), 1u);
    EXPECT_EQ(r.datasets[0], "calibration.txt");
    ASSERT_EQ(r.entries.size(), 2u);
    // ncall = ceil(max count / chunk size); values = mean * ncall; the reader divides by ncall
    EXPECT_EQ(r.entries["blk.0.attn_q.weight"].counts, std::vector<int64_t>{2});
    const auto a  = imatrix::mean_values(d.entries.at("blk.0.attn_q.weight"), false);
    const auto ra = imatrix::mean_values(r.entries.at("blk.0.attn_q.weight"), true);
    ASSERT_EQ(a.size(), ra.size());
    for (size_t i = 0; i < a.size(); i++) {
        EXPECT_FLOAT_EQ(ra[i], a[i]);
    }
    const auto m  = imatrix::mean_values(d.entries.at("blk.0.ffn_up_exps.weight"), false);
    const auto rm = imatrix::mean_values(r.entries.at("blk.0.ffn_up_exps.weight"), true);
    ASSERT_EQ(rm.size(), m.size());
    for (size_t i = 0; i < m.size(); i++) {
        EXPECT_FLOAT_EQ(rm[i], m[i]) << i;
    }
}

TEST(ImatrixFile, MergeAddsSumsAndCounts) {
    imatrix::data a = sample(), b = sample();
    std::string   err;
    ASSERT_TRUE(imatrix::merge(a, b, 32, err)) << err;
    EXPECT_EQ(a.entries["blk.0.attn_q.weight"].counts, std::vector<int64_t>{128});
    EXPECT_DOUBLE_EQ(a.entries["blk.0.attn_q.weight"].sums[7], 8.0);
    EXPECT_EQ(a.entries["blk.0.ffn_up_exps.weight"].counts, (std::vector<int64_t>{20, 0, 40}));
    EXPECT_EQ(a.chunk_count, 4);
    EXPECT_EQ(a.datasets.size(), 2u);
    // shapes must agree
    imatrix::data c;
    c.entries["blk.0.attn_q.weight"].sums   = {1, 2};
    c.entries["blk.0.attn_q.weight"].counts = {1};
    EXPECT_FALSE(imatrix::merge(a, c, 32, err));
    EXPECT_NE(err.find("blk.0.attn_q.weight"), std::string::npos);
}

TEST(ImatrixFile, MalformedFilesAreRejected) {
    std::string   err;
    imatrix::data r;
    EXPECT_FALSE(imatrix::load("/nonexistent/im.gguf", r, err));
    // a legacy header promising more than the file holds
    const std::vector<uint8_t> trunc = {2, 0, 0, 0, 3, 0, 0, 0, 'a', 'b', 'c', 1, 0, 0, 0, 100, 0, 0, 0};
    const std::string          p1    = testing_util::write_temp_file("im-trunc.dat", trunc);
    EXPECT_FALSE(imatrix::load(p1, r, err));
    EXPECT_FALSE(err.empty());
    remove(p1.c_str());
    // a GGUF without the imatrix metadata (a model file, say)
    EXPECT_FALSE(imatrix::load(testing_util::source_path("models/stories260K.gguf"), r, err));
    EXPECT_NE(err.find("metadata"), std::string::npos) << err;
}
