// The placement column of the tensor layout tables (llm_tensor_layout::placement(), read by
// llama_model::weight_ctx): which device each weight goes to when layers are offloaded. Every
// architecture's rows must be placed as before the column existed, when weight_ctx decided by tensor
// name; the gemma3n rows placed on purpose are also checked one by one.
#include <gtest/gtest.h>

#include <string>

#include "llama-arch-layout.h"
#include "llama-arch.h"

namespace {

const char * place_name(llm_tl_place p) {
    switch (p) {
        case LLM_TL_PLACE_DEFAULT:
            return "DEFAULT";
        case LLM_TL_PLACE_LAYER:
            return "LAYER";
        case LLM_TL_PLACE_HOST:
            return "HOST";
        case LLM_TL_PLACE_INPUT:
            return "INPUT";
        case LLM_TL_PLACE_OUTPUT:
            return "OUTPUT";
    }
    return "?";
}

// weight_ctx's rule before the placement column, kept here as the regression oracle: a block tensor
// with its layer; output, output_norm (also lfm2's token_embd_norm, which serves as it) and gemma3n's
// altup_unembd_proj with the output layer; gemma3n's altup_proj, per_layer_model_proj and
// per_layer_proj_norm with layer 0; everything else in host memory. The embedding models' dense output
// projections (rows added with the column) run on the final hidden state: with the output layer.
llm_tl_place placement_by_name(llm_tensor t) {
    if (llm_tensor_is_per_layer(t)) {
        return LLM_TL_PLACE_LAYER;
    }
    if (t == LLM_TENSOR_OUTPUT || t == LLM_TENSOR_OUTPUT_NORM || t == LLM_TENSOR_OUTPUT_NORM_LFM2 ||
        t == LLM_TENSOR_ALTUP_UNEMBD_PROJ || t == LLM_TENSOR_DENSE_2_OUT || t == LLM_TENSOR_DENSE_3_OUT) {
        return LLM_TL_PLACE_OUTPUT;
    }
    if (t == LLM_TENSOR_ALTUP_PROJ || t == LLM_TENSOR_PER_LAYER_MODEL_PROJ || t == LLM_TENSOR_PER_LAYER_PROJ_NORM) {
        return LLM_TL_PLACE_INPUT;
    }
    return LLM_TL_PLACE_HOST;
}

const llm_tensor_layout * find_row(const llm_arch_layout & lay, llm_tensor t) {
    for (size_t i = 0; i < lay.n_rows; i++) {
        if (lay.rows[i].t == t) {
            return &lay.rows[i];
        }
    }
    return nullptr;
}

}  // namespace

TEST(ArchPlacement, EveryRowIsPlacedAsBefore) {
    size_t n_rows = 0, n_global = 0;
    for (int a = 0; a < LLM_ARCH_COUNT; a++) {
        const llm_arch_layout & lay = llm_arch_get_layout((llm_arch) a);
        for (size_t i = 0; i < lay.n_rows; i++) {
            const llm_tensor_layout & r = lay.rows[i];
            const llm_tl_place        p = r.placement();
            EXPECT_NE(p, LLM_TL_PLACE_DEFAULT) << "placement() resolves DEFAULT";
            EXPECT_EQ(p, placement_by_name(r.t))
                << llm_arch_name((llm_arch) a) << ": " << llm_tensor_name(r.t, r.suffix() ? r.suffix() : "", -1)
                << " is placed " << place_name(p) << ", weight_ctx placed it " << place_name(placement_by_name(r.t));
            n_rows++;
            n_global += !llm_tensor_is_per_layer(r.t);
        }
    }
    EXPECT_GT(n_global, (size_t) LLM_ARCH_COUNT);  // every architecture has globals (token_embd at least)
    EXPECT_GT(n_rows, n_global);
}

TEST(ArchPlacement, Gemma3nGlobalsGoWithTheirNeighbours) {
    const llm_arch_layout & lay = llm_arch_get_layout(LLM_ARCH_GEMMA3N);
    struct want {
        llm_tensor   t;
        llm_tl_place p;
    };
    for (const want & w : {
             want{LLM_TENSOR_TOKEN_EMBD, LLM_TL_PLACE_HOST},  // lookup tables stay in host memory
             want{LLM_TENSOR_PER_LAYER_TOKEN_EMBD, LLM_TL_PLACE_HOST},
             want{LLM_TENSOR_ALTUP_PROJ, LLM_TL_PLACE_INPUT},  // embeddings -> the first block's inputs
             want{LLM_TENSOR_PER_LAYER_MODEL_PROJ, LLM_TL_PLACE_INPUT},
             want{LLM_TENSOR_PER_LAYER_PROJ_NORM, LLM_TL_PLACE_INPUT},
             want{LLM_TENSOR_ALTUP_UNEMBD_PROJ, LLM_TL_PLACE_OUTPUT},  // right before the output norm
             want{LLM_TENSOR_OUTPUT_NORM, LLM_TL_PLACE_OUTPUT},
             want{LLM_TENSOR_OUTPUT, LLM_TL_PLACE_OUTPUT},
             want{LLM_TENSOR_ALTUP_ROUTER, LLM_TL_PLACE_LAYER},
         }) {
        const llm_tensor_layout * r = find_row(lay, w.t);
        ASSERT_NE(r, nullptr) << llm_tensor_name(w.t, "weight", 0);
        EXPECT_EQ(r->placement(), w.p) << llm_tensor_name(w.t, "weight", 0) << ": " << place_name(r->placement());
    }
}

// DEFAULT resolves by the row: its block for a per-layer row, the output layer for a global row that
// serves as the output head (also under another name), host memory for any other global row; a row
// placed on purpose keeps its placement.
TEST(ArchPlacement, DefaultResolvesByTheRow) {
    const llm_tensor_layout q{LLM_TENSOR_ATTN_Q, LLM_TL_MATRIX, {LLM_DIM_EMBD, LLM_DIM_Q}};
    const llm_tensor_layout embd{LLM_TENSOR_TOKEN_EMBD, LLM_TL_MATRIX, {LLM_DIM_EMBD, LLM_DIM_VOCAB}};
    const llm_tensor_layout norm_as{
        LLM_TENSOR_OUTPUT_NORM_LFM2, LLM_TL_NORM, {LLM_DIM_EMBD}, LLM_TL_REQUIRED, LLM_TL_ALWAYS,
        LLM_TENSOR_OUTPUT_NORM};
    EXPECT_EQ(q.placement(), LLM_TL_PLACE_LAYER);
    EXPECT_EQ(embd.placement(), LLM_TL_PLACE_HOST);
    EXPECT_EQ(norm_as.placement(), LLM_TL_PLACE_OUTPUT);
    EXPECT_EQ(input_side(embd).placement(), LLM_TL_PLACE_INPUT);
    EXPECT_EQ(output_side(embd).placement(), LLM_TL_PLACE_OUTPUT);
}
