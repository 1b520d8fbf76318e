// The instruction-set levels (cpu-features.h): each family's chain, the rank caps the kernels use, and
// detection against what the machine is known to have. LLAMA_TEST_EXPECT_ISA=<level name> (set by CI
// for each emulated CPU: qemu -cpu max -> i8mm, neoverse-n1 -> dotprod, cortex-a72 -> neon) makes the
// test demand that exact best level, so a detection that silently falls back to scalar fails.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "ggml-cpu/cpu-features.h"
#include "ggml-cpu/cpu-type-traits.h"

TEST(CpuFeatures, LevelsFormOneChainPerFamily) {
    EXPECT_EQ(ggml_cpu_isa_parent(GGML_CPU_ISA_SCALAR), GGML_CPU_ISA_SCALAR);
    EXPECT_EQ(ggml_cpu_isa_parent(GGML_CPU_ISA_AVX2), GGML_CPU_ISA_SCALAR);
    EXPECT_EQ(ggml_cpu_isa_parent(GGML_CPU_ISA_AVX512), GGML_CPU_ISA_AVX2);
    EXPECT_EQ(ggml_cpu_isa_parent(GGML_CPU_ISA_NEON), GGML_CPU_ISA_SCALAR);
    EXPECT_EQ(ggml_cpu_isa_parent(GGML_CPU_ISA_DOTPROD), GGML_CPU_ISA_NEON);
    EXPECT_EQ(ggml_cpu_isa_parent(GGML_CPU_ISA_I8MM), GGML_CPU_ISA_DOTPROD);
    for (int i = 0; i < GGML_CPU_ISA_COUNT; ++i) {
        const ggml_cpu_isa isa = (ggml_cpu_isa) i;
        // the type-traits tables are built in enum order: a parent must come first
        EXPECT_LE((int) ggml_cpu_isa_parent(isa), i);
        EXPECT_STRNE(ggml_cpu_isa_name(isa), "invalid");
        // a level is available only with its parent
        if (ggml_cpu_isa_available(isa)) {
            EXPECT_TRUE(ggml_cpu_isa_available(ggml_cpu_isa_parent(isa))) << ggml_cpu_isa_name(isa);
        }
    }
    EXPECT_EQ(ggml_cpu_isa_rank(GGML_CPU_ISA_SCALAR), 0);
    EXPECT_EQ(ggml_cpu_isa_rank(GGML_CPU_ISA_AVX512), 2);
    EXPECT_EQ(ggml_cpu_isa_rank(GGML_CPU_ISA_I8MM), 3);
    EXPECT_TRUE(ggml_cpu_isa_available(GGML_CPU_ISA_SCALAR));
}

TEST(CpuFeatures, RankCapsNeverExceedTheBestLevel) {
    const ggml_cpu_isa best = ggml_cpu_isa_best();
    EXPECT_TRUE(ggml_cpu_isa_available(best));
    EXPECT_EQ(ggml_cpu_isa_of_rank(0), GGML_CPU_ISA_SCALAR);
    EXPECT_EQ(ggml_cpu_isa_of_rank(-1), GGML_CPU_ISA_SCALAR);
    for (int r = 0; r <= 3; ++r) {
        const ggml_cpu_isa isa = ggml_cpu_isa_of_rank(r);
        EXPECT_TRUE(ggml_cpu_isa_available(isa));
        EXPECT_LE(ggml_cpu_isa_rank(isa), r);
    }
    // the traits tables follow the level: the best one is the table mul_mat uses
    EXPECT_EQ(ggml_cpu_best_isa(), best);
    EXPECT_NE(ggml_cpu_get_type_traits_isa(GGML_TYPE_Q4_0, best), nullptr);
}

TEST(CpuFeatures, OnlyThisBuildsFamilyIsAvailable) {
#if defined(GGML_CPU_ARCH_X86_64)
    EXPECT_FALSE(ggml_cpu_isa_available(GGML_CPU_ISA_NEON));
#elif defined(GGML_CPU_ARCH_ARM64)
    EXPECT_TRUE(ggml_cpu_isa_available(GGML_CPU_ISA_NEON));  // every AArch64 CPU
    EXPECT_FALSE(ggml_cpu_isa_available(GGML_CPU_ISA_AVX2));
#else
    for (int i = 1; i < GGML_CPU_ISA_COUNT; ++i) {
        EXPECT_FALSE(ggml_cpu_isa_available((ggml_cpu_isa) i)) << ggml_cpu_isa_name((ggml_cpu_isa) i);
    }
#endif
}

TEST(CpuFeatures, DetectsTheExpectedLevel) {
    const char * want = std::getenv("LLAMA_TEST_EXPECT_ISA");
    if (!want || !*want) {
        GTEST_SKIP() << "LLAMA_TEST_EXPECT_ISA not set (CI sets it per emulated CPU)";
    }
    EXPECT_EQ(std::string(ggml_cpu_isa_name(ggml_cpu_isa_best())), std::string(want));
}
