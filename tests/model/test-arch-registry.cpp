// The architecture registry (src/llama-arch.cpp) is the one list of architectures: every registered
// architecture must be written by the synthetic generator (examples/gguf-synth), and every decoder
// must have its shared micro model and a reference run in tests/data, which test-archs-e2e and
// test-tools then iterate. A new architecture without them fails here, by name.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "../../examples/gguf-synth/gguf-synth.h"
#include "llama-arch.h"
#include "test-common.h"

namespace {

bool file_exists(const std::string & path) {
    FILE * f = fopen(path.c_str(), "rb");
    if (f) {
        fclose(f);
    }
    return f != nullptr;
}

}  // namespace

TEST(ArchRegistry, EveryArchitectureHasGeneratorModelAndReference) {
    ASSERT_GT((int) LLM_ARCH_COUNT, 0);
    for (int a = 0; a < (int) LLM_ARCH_COUNT; a++) {
        const std::string name = llm_arch_name((llm_arch) a);
        SCOPED_TRACE(name);
        EXPECT_EQ(llm_arch_from_string(name), (llm_arch) a);
        const synth::arch_info * ai = synth::find_arch(name);
        ASSERT_NE(ai, nullptr) << "llama-gguf-synth cannot write '" << name << "' (add it to synth::arch_table)";
        if (ai->encoder) {
            continue;  // encoders: pooled embeddings, checked by test-embeddings against their own data
        }
        synth::params p;
        EXPECT_TRUE(synth::apply_micro_model(name, p)) << "no micro shape for " << name;
        for (const std::string & rel :
             {"models/synthetic/" + name + "-micro-f16.gguf", "reference/" + name + "-micro-f16.once.jsonl",
              "reference/" + name + "-micro-f16.once.logits.f32"}) {
            EXPECT_TRUE(file_exists(testing_util::data_path(rel))) << "missing tests/data/" << rel;
        }
    }
}

TEST(ArchRegistry, GeneratorWritesOnlyRegisteredArchitectures) {
    for (const synth::arch_info & ai : synth::arch_table()) {
        EXPECT_NE(llm_arch_from_string(ai.name), LLM_ARCH_UNKNOWN) << ai.name;
    }
    // the micro variants (llama-moe) also have their files
    for (const std::string & file : synth::micro_model_files()) {
        SCOPED_TRACE(file);
        synth::params p;
        EXPECT_TRUE(synth::apply_micro_model(file, p));
        EXPECT_TRUE(file_exists(testing_util::data_path("reference/" + file + "-micro-f16.once.jsonl")));
    }
}
