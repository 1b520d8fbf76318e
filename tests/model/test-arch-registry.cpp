// The architecture registry (src/llama-arch.cpp) is the one list of architectures: every registered
// architecture must be written by the synthetic generator (examples/gguf-synth), and every decoder
// must have its shared micro model and a reference run in tests/data, which test-archs-e2e and
// test-tools then iterate. A new architecture without them fails here, by name. The generator writes
// the tensors of libllama's layout tables (src/llama-arch-layout-*.h): each variant it can write
// loads with every one of its weights used.
#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "../../examples/gguf-synth/gguf-synth.h"
#include "gguf.h"
#include "llama-arch.h"
#include "llama.h"
#include "test-common.h"
#include "test-llama-util.h"
#include "test-synth-model.h"

namespace {

// the loader's warnings, to catch "the file has N tensors, the model uses M"
void keep_warnings(ggml_log_level level, const char * text, void * user) {
    if (level == GGML_LOG_LEVEL_WARN || level == GGML_LOG_LEVEL_ERROR) {
        *static_cast<std::string *>(user) += text;
    }
}

// weights in a GGUF file, counted from its tensor infos; the blocks from first_unused on (NextN
// blocks, which libllama does not load) left out
uint64_t file_n_params(const std::string & path, int64_t first_unused = -1) {
    gguf_init_params gp = {true};
    gguf_context *   g  = gguf_init_from_file(path.c_str(), gp);
    if (!g) {
        return 0;
    }
    uint64_t n = 0;
    for (int64_t i = 0; i < gguf_get_n_tensors(g); i++) {
        int il = -1;
        if (first_unused >= 0 && sscanf(gguf_get_tensor_name(g, i), "blk.%d.", &il) == 1 && il >= first_unused) {
            continue;
        }
        const size_t size = gguf_get_tensor_size(g, i);
        const auto   type = gguf_get_tensor_type(g, i);
        n += size / ggml_type_size(type) * ggml_blck_size(type);
    }
    gguf_free(g);
    return n;
}

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
        ASSERT_NE(ai, nullptr) << "llama-gguf-synth cannot write '" << name << "'";
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

// Every architecture, in each variant its layout allows (untied head, experts, LongRoPE factors, a
// classifier head, the other spelling of its q/k/v), written by the generator and loaded by libllama: the load succeeds
// and uses every weight of the file (the two read the same table, so this checks the table's conditions agree).
TEST(ArchRegistry, GeneratedVariantsLoadWithEveryWeightUsed) {
    std::string warnings;
    llama_log_set(keep_warnings, &warnings);
    struct log_reset {  // also when an assertion below returns early
        ~log_reset() { llama_log_set(nullptr, nullptr); }
    } reset;
    for (const synth::arch_info & ai : synth::arch_table()) {
        std::vector<synth::params> variants;
        synth::params              base;
        base.arch      = ai.name;
        base.n_vocab   = 320;
        base.n_ctx     = 64;
        base.n_threads = 2;
        base.n_expert  = ai.needs_experts ? 4 : 0;
        if (ai.encoder) {
            base.n_head_kv = base.n_head;
        }
        if (ai.layout->has(LLM_TL_Q_LORA) || ai.layout->has(LLM_TL_NEXTN) || synth::delta_net_layout(*ai.layout) ||
            synth::ffn_blocks_are_experts(*ai.layout) || synth::kda_layout(*ai.layout)) {
            // latent attention (deepseek2, kimi-linear), NextN blocks (glm4moe), the delta-net hybrids (qwen3next,
            // qwen35, qwen35moe), nemotron_h_moe: the micro model's shape, which has experts where the
            // layout needs them (qwen3next, qwen35moe and nemotron_h_moe also a shared expert); also
            // deepseek2 with q without the low-rank pair (V2-Lite), glm4moe without NextN, nemotron_h_moe
            // without the experts' latent projections (Nemotron 3 Nano) and without experts
            ASSERT_TRUE(synth::apply_micro_model(ai.name, base));
            base.n_vocab = 320, base.n_ctx = 64, base.n_threads = 2;
            if (ai.layout->has(LLM_TL_Q_LORA)) {
                variants.push_back(base);
                variants.back().n_lora_q = 0;
            } else if (ai.layout->has(LLM_TL_NEXTN)) {
                variants.push_back(base);
                variants.back().n_nextn    = 0;
                variants.back().no_qk_norm = true;  // GLM-4.5-Air's shape
            } else if (ai.layout->has(LLM_TL_FFN_LATENT)) {
                variants.push_back(base);
                variants.back().n_moe_latent = 0;
                variants.push_back(base);  // no experts at all (upstream's saver writes one)
                variants.back().n_expert = 0, variants.back().n_ff_shexp = 0, variants.back().n_moe_latent = 0;
                variants.back().n_ff_exp = 0, variants.back().n_expert_used = 0;
            }
        }
        variants.push_back(base);
        variants.push_back(base);
        variants.back().tied = false;
        if (ai.moe && !ai.needs_experts) {
            variants.push_back(base);
            variants.back().n_expert = 4;
        }
        if (ai.layout->has(LLM_TL_ROPE_FACTORS)) {
            variants.push_back(base);
            variants.back().rope_factors = true;
        }
        if (ai.layout->has(LLM_TL_CLS_HEAD)) {
            variants.push_back(base);
            variants.back().n_cls_out = 2;
        }
        if (ai.layout->has(LLM_TL_ALT_B)) {
            variants.push_back(base);
            variants.back().alt_spelling = true;
        }
        if (ai.layout->has(LLM_TL_MOE_FUSED)) {
            variants.push_back(base);
            variants.back().exps_gate_up_fused = true;
        }
        if (ai.arch == LLM_ARCH_GEMMA3N) {
            // the micro shape (25 layers): the KV-sharing layers 20-24 still have their q/k/v weights
            synth::params micro;
            ASSERT_TRUE(synth::apply_micro_model(ai.name, micro));
            micro.n_vocab = 320, micro.n_ctx = 64, micro.n_threads = 2;
            variants.push_back(micro);
        }
        if (ai.layout->has(LLM_TL_SHEXP)) {
            variants.push_back(base);
            variants.back().n_expert   = 4;
            variants.back().n_ff_shexp = 32;
        }
        for (const synth::params & p : variants) {
            SCOPED_TRACE(std::string(ai.name) + (p.tied ? "" : " untied") + (p.n_expert ? " experts" : "") +
                         (p.rope_factors ? " rope factors" : "") + (p.n_cls_out ? " classifier" : "") +
                         (p.alt_spelling ? " other spelling" : "") + (p.n_ff_shexp ? " shared expert" : "") +
                         (p.n_lora_kv && !p.n_lora_q ? " plain q" : "") + (p.n_nextn ? " nextn" : "") +
                         (p.no_qk_norm ? " no q/k norms" : "") + (p.n_moe_latent ? " expert latent" : "") +
                         (p.exps_gate_up_fused ? " fused gate/up experts" : ""));
            llama_test_util::temp_model f(p, "layout.gguf");
            warnings.clear();
            llama_test_util::model_ptr m(llama_model_load_from_file(f.path.c_str(), llama_model_default_params()));
            ASSERT_NE(m, nullptr) << warnings;
            // the NextN blocks are in the file and not loaded (as upstream)
            EXPECT_EQ(llama_model_n_layer_nextn(m.get()), p.n_nextn);
            EXPECT_EQ(llama_model_n_layer(m.get()), p.n_layer - p.n_nextn);
            EXPECT_EQ(llama_model_n_params(m.get()), file_n_params(f.path, p.n_layer - p.n_nextn));
            EXPECT_EQ(warnings.find("the model uses"), std::string::npos) << warnings;
        }
    }
}

// The micro models the generator wrote are what it writes today, byte for byte, so a change to the
// generator or to the layout tables that would change them (and stale their upstream references) shows
// here. The ten files of the original architectures came with the project's test data from another
// generator (real vocabularies, other widths); their references stand for them and they are not
// regenerated. gemma3n's file has the built-in vocabulary (its per-layer embeddings grow with n_layer x
// vocab); the others copy llama-micro's tokenizer.
TEST(ArchRegistry, GeneratorReproducesItsMicroModels) {
    const std::set<std::string> provided      = {"llama", "llama-moe", "qwen2",  "qwen3",  "qwen3moe",
                                                 "phi3",  "gemma",     "gemma2", "gemma3", "gpt-oss"};
    const std::set<std::string> builtin_vocab = {"gemma3n"};
    int                         checked       = 0;
    for (const std::string & file : synth::micro_model_files()) {
        if (provided.count(file)) {
            continue;
        }
        SCOPED_TRACE(file);
        synth::params p;
        ASSERT_TRUE(synth::apply_micro_model(file, p));
        if (!builtin_vocab.count(file)) {
            p.vocab_path = testing_util::data_path("models/synthetic/llama-micro-f16.gguf");
        }
        llama_test_util::temp_model f(p, "micro.gguf");
        const std::vector<uint8_t>  want =
            testing_util::read_file(testing_util::data_path("models/synthetic/" + file + "-micro-f16.gguf"));
        const std::vector<uint8_t> got = testing_util::read_file(f.path);
        ASSERT_FALSE(want.empty());
        EXPECT_EQ(got.size(), want.size());
        EXPECT_TRUE(got == want) << "llama-gguf-synth --micro " << file << " no longer writes tests/data's file";
        checked++;
    }
    EXPECT_GE(checked, 23);
}

// The key table is the one place a GGUF key string is written: no two rows may name the same key,
// and every key without an architecture part is reachable as a plain string.
TEST(ArchRegistry, EveryKeyIsWrittenOnce) {
    std::set<std::string> seen;
    for (int k = 0; k < (int) LLM_KV_COUNT; k++) {
        const std::string name = llm_kv_name((llm_kv) k, "%s");  // templates stay as written
        EXPECT_TRUE(seen.insert(name).second) << "two rows name " << name;
        if (name.find('%') == std::string::npos) {
            EXPECT_EQ(name, llm_kv_key((llm_kv) k));
        }
    }
}
