// The index of the tensor layout tables: one row per architecture, in enum order, checked at compile
// time. The tables themselves live in llama-arch-layout-{decoders,moe,encoders,recurrent}.h by family.
#include "llama-arch-layout.h"

#include "llama-arch-layout-decoders.h"
#include "llama-arch-layout-encoders.h"
#include "llama-arch-layout-moe.h"
#include "llama-arch-layout-recurrent.h"

namespace {

using namespace llm_layouts;

template <size_t N>
constexpr llm_arch_layout row(llm_arch arch, bool encoder, const llm_tensor_layout (&rows)[N]) {
    return {arch, encoder, rows, N};
}

// One row per architecture, in enum order.
constexpr llm_arch_layout LLM_LAYOUT_TABLE[] = {
    row(LLM_ARCH_LLAMA, false, LLAMA),
    row(LLM_ARCH_QWEN2, false, QWEN2),
    row(LLM_ARCH_PHI3, false, PHI3),
    row(LLM_ARCH_GEMMA, false, GEMMA),
    row(LLM_ARCH_GEMMA2, false, GEMMA2),
    row(LLM_ARCH_BERT, true, BERT),
    row(LLM_ARCH_NOMIC_BERT, true, NOMIC_BERT),
    row(LLM_ARCH_QWEN3, false, QWEN3),
    row(LLM_ARCH_QWEN3MOE, false, QWEN3MOE),
    row(LLM_ARCH_GEMMA3, false, GEMMA3),
    row(LLM_ARCH_GPT_OSS, false, GPT_OSS),
    row(LLM_ARCH_GRANITE, false, GRANITE),
    row(LLM_ARCH_GRANITE_MOE, false, GRANITE_MOE),
    row(LLM_ARCH_OLMO2, false, OLMO2),
    row(LLM_ARCH_SMOLLM3, false, SMOLLM3),
    row(LLM_ARCH_EXAONE4, false, EXAONE4),
    row(LLM_ARCH_MISTRAL3, false, LLAMA),  // the text model of Mistral 3 / Ministral 3
    row(LLM_ARCH_GLM4, false, GLM4),
    row(LLM_ARCH_MAMBA2, false, MAMBA2),
    row(LLM_ARCH_JINA_BERT_V2, true, JINA_BERT_V2),
    row(LLM_ARCH_MODERN_BERT, true, MODERN_BERT),
    row(LLM_ARCH_LFM2, false, LFM2),
    row(LLM_ARCH_DEEPSEEK2, false, DEEPSEEK2),
    row(LLM_ARCH_GRANITE_HYBRID, false, GRANITE_HYBRID),
    row(LLM_ARCH_NEMOTRON_H, false, NEMOTRON_H),
    row(LLM_ARCH_GLM4_MOE, false, GLM4_MOE),
    row(LLM_ARCH_FALCON_H1, false, FALCON_H1),
    row(LLM_ARCH_LFM2MOE, false, LFM2MOE),
    row(LLM_ARCH_QWEN3NEXT, false, QWEN3NEXT),
    row(LLM_ARCH_QWEN35, false, QWEN35),
    row(LLM_ARCH_QWEN35MOE, false, QWEN35MOE),
    row(LLM_ARCH_NEMOTRON_H_MOE, false, NEMOTRON_H_MOE),
    row(LLM_ARCH_GEMMA3N, false, GEMMA3N),
    row(LLM_ARCH_GEMMA_EMBEDDING, true, GEMMA_EMBEDDING),
    row(LLM_ARCH_KIMI_LINEAR, false, KIMI_LINEAR),
};
static_assert(sizeof(LLM_LAYOUT_TABLE) / sizeof(LLM_LAYOUT_TABLE[0]) == LLM_ARCH_COUNT,
              "every llm_arch needs a tensor layout");

constexpr bool layout_in_order() {
    for (int i = 0; i < LLM_ARCH_COUNT; i++) {
        if (LLM_LAYOUT_TABLE[i].arch != i) {
            return false;
        }
    }
    return true;
}
static_assert(layout_in_order(), "tensor layout rows must follow enum order");

}  // namespace

llm_tl_place llm_tensor_layout::placement() const {
    if (place != LLM_TL_PLACE_DEFAULT) {
        return place;
    }
    if (llm_tensor_is_per_layer(t)) {
        return LLM_TL_PLACE_LAYER;
    }
    const llm_tensor as = serves_as();
    return as == LLM_TENSOR_OUTPUT || as == LLM_TENSOR_OUTPUT_NORM ? LLM_TL_PLACE_OUTPUT : LLM_TL_PLACE_HOST;
}

const llm_arch_layout & llm_arch_get_layout(llm_arch arch) {
    return LLM_LAYOUT_TABLE[arch];
}
