// Known-answer dequantization of the types added after the first quant set (MXFP4, the ternary
// types, the grid i-quants): pseudo-random blocks and the values llama.cpp's libggml gives for them
// (tests/data/quants/README.md). Bit-exact equality pins block layout, bit order and codebooks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "test-common.h"

extern "C" {
#include "ggml-quants.h"
}
#include "ggml-cpu/cpu-type-traits.h"

namespace {

bool read_file(const std::string & path, std::vector<uint8_t> & out) {
    FILE * f = fopen(path.c_str(), "rb");
    if (!f) {
        return false;
    }
    uint8_t buf[4096];
    size_t  n = 0;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
        out.insert(out.end(), buf, buf + n);
    }
    fclose(f);
    return true;
}

class QuantsKat : public ::testing::TestWithParam<ggml_type> {};

TEST_P(QuantsKat, DequantizeMatchesReference) {
    const ggml_type      t    = GetParam();
    const std::string    path = testing_util::data_path(std::string("quants/") + ggml_type_name(t) + ".kat");
    std::vector<uint8_t> data;
    ASSERT_TRUE(read_file(path, data)) << "missing " << path;
    const size_t ts  = ggml_type_size(t);
    const size_t bs  = (size_t) ggml_blck_size(t);
    const size_t per = ts + bs * sizeof(float);
    ASSERT_EQ(data.size() % per, 0u) << path;
    const size_t nb = data.size() / per;
    ASSERT_GE(nb, 8u);

    const ggml_cpu_type_traits * tr = ggml_cpu_get_type_traits_isa(t, GGML_CPU_ISA_SCALAR);
    ASSERT_NE(tr, nullptr) << ggml_type_name(t);
    std::vector<float> expect(nb * bs), got(nb * bs, -1.0f);
    memcpy(expect.data(), data.data() + nb * ts, expect.size() * sizeof(float));
    tr->to_float(data.data(), got.data(), (int64_t) (nb * bs));

    size_t mismatches = 0;
    for (size_t i = 0; i < got.size(); i++) {
        if (memcmp(&got[i], &expect[i], sizeof(float)) != 0 && mismatches++ < 5) {
            ADD_FAILURE() << ggml_type_name(t) << " element " << i << " (block " << i / bs << "): got " << got[i]
                          << ", reference " << expect[i];
        }
    }
    EXPECT_EQ(mismatches, 0u) << ggml_type_name(t);

    // the public row entry point (llama_model_quantize's path) decodes the same way
    std::vector<float> pub(nb * bs);
    ASSERT_TRUE(ggml_dequantize_row(t, data.data(), pub.data(), (int64_t) (nb * bs)));
    EXPECT_EQ(0, memcmp(pub.data(), expect.data(), pub.size() * sizeof(float))) << ggml_type_name(t);

    // the reference quantizer, given these values back, must reproduce them: they lie on the type's grid
    // with one scale per block. Not for tq2_0, whose random blocks use code 3 (= 2d), outside the ternary set.
    // The i-quants have no quantizer yet (it needs an importance matrix).
    if (t == GGML_TYPE_TQ2_0 || !tr->from_float_ref) {
        return;
    }
    std::vector<uint8_t> requant(nb * ts);
    tr->from_float_ref(expect.data(), requant.data(), (int64_t) (nb * bs));
    std::vector<float> again(nb * bs);
    tr->to_float(requant.data(), again.data(), (int64_t) (nb * bs));
    for (size_t i = 0; i < again.size(); i++) {
        ASSERT_NEAR(again[i], expect[i], 1e-3f * std::fabs(expect[i]) + 1e-30f)
            << ggml_type_name(t) << " requantized element " << i;
    }
}

// The scalar dot product of the known-answer blocks with quantized activations equals the float dot
// product of the reference values with the dequantized activations, for 1, 3 and all blocks.
TEST_P(QuantsKat, DotMatchesReferenceValues) {
    const ggml_type      t    = GetParam();
    const std::string    path = testing_util::data_path(std::string("quants/") + ggml_type_name(t) + ".kat");
    std::vector<uint8_t> data;
    ASSERT_TRUE(read_file(path, data)) << "missing " << path;
    const size_t       ts = ggml_type_size(t), bs = (size_t) ggml_blck_size(t);
    const size_t       nb = data.size() / (ts + bs * sizeof(float));
    std::vector<float> xv(nb * bs);
    memcpy(xv.data(), data.data() + nb * ts, xv.size() * sizeof(float));
    const ggml_cpu_type_traits * tr = ggml_cpu_get_type_traits_isa(t, GGML_CPU_ISA_SCALAR);
    ASSERT_NE(tr, nullptr);
    const ggml_cpu_type_traits * vt = ggml_cpu_get_type_traits_isa(tr->vec_dot_type, GGML_CPU_ISA_SCALAR);
    ASSERT_NE(vt, nullptr);
    for (size_t nblk : {(size_t) 1, (size_t) 3, nb}) {
        const int          n = (int) (nblk * bs);
        std::vector<float> a(n);
        uint32_t           r = 12345u + (uint32_t) nblk;
        for (float & v : a) {
            r = r * 1664525u + 1013904223u;
            v = (float) ((int) (r >> 9) % 2001 - 1000) / 250.0f;
        }
        std::vector<uint8_t> qa(ggml_row_size(tr->vec_dot_type, n));
        tr->from_float(a.data(), qa.data(), n);
        std::vector<float> ad(n);
        vt->to_float(qa.data(), ad.data(), n);
        double ref = 0, mag = 0;
        for (int i = 0; i < n; i++) {
            ref += (double) xv[i] * ad[i];
            mag += std::fabs((double) xv[i] * ad[i]);
        }
        float s = 0;
        tr->vec_dot(n, &s, data.data(), qa.data());
        EXPECT_NEAR(s, ref, 1e-5 * mag + 1e-30) << ggml_type_name(t) << " blocks=" << nblk;
        for (ggml_cpu_isa isa :
             {GGML_CPU_ISA_AVX2, GGML_CPU_ISA_AVX512, GGML_CPU_ISA_NEON, GGML_CPU_ISA_DOTPROD, GGML_CPU_ISA_I8MM}) {
            const ggml_cpu_type_traits * simd = ggml_cpu_get_type_traits_isa(t, isa);
            if (!simd) {
                continue;  // this CPU lacks the instruction set
            }
            float ss = 0;
            simd->vec_dot(n, &ss, data.data(), qa.data());
            EXPECT_NEAR(ss, ref, 1e-5 * mag + 1e-30) << ggml_type_name(t) << " " << ggml_cpu_isa_name(isa);
            // the integer sums are the scalar ones: only the order of the float block sums may differ
            EXPECT_NEAR(ss, s, 2e-6 * mag + 1e-30)
                << ggml_type_name(t) << " " << ggml_cpu_isa_name(isa) << " vs scalar";
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Types, QuantsKat,
                         ::testing::Values(GGML_TYPE_MXFP4, GGML_TYPE_TQ1_0, GGML_TYPE_TQ2_0, GGML_TYPE_IQ2_XXS,
                                           GGML_TYPE_IQ2_XS, GGML_TYPE_IQ2_S, GGML_TYPE_IQ3_XXS, GGML_TYPE_IQ3_S,
                                           GGML_TYPE_IQ1_S, GGML_TYPE_IQ1_M),
                         [](const ::testing::TestParamInfo<ggml_type> & i) {
                             return std::string(ggml_type_name(i.param));
                         });

}  // namespace
