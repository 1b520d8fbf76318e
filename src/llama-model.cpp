#include "llama-model.h"

#include "llama-adapter.h"

#include "llama-log.h"
#include "llama-model-loader.h"
#include "models/models.h"

#include "ggml-backend.h"
#include "ggml-cpu.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

// ---- the architecture registry -------------------------------------------------------------------

static const llm_arch_ops * const LLM_ARCH_REGISTRY[] = {
    &llm_ops_llama,       &llm_ops_qwen2,          &llm_ops_phi3,       &llm_ops_gemma,           &llm_ops_gemma2,
    &llm_ops_bert,        &llm_ops_nomic_bert,     &llm_ops_qwen3,      &llm_ops_qwen3moe,        &llm_ops_gemma3,
    &llm_ops_gpt_oss,     &llm_ops_granite,        &llm_ops_granitemoe, &llm_ops_olmo2,           &llm_ops_smollm3,
    &llm_ops_exaone4,     &llm_ops_mistral3,       &llm_ops_glm4,       &llm_ops_mamba2,          &llm_ops_jina_bert_v2,
    &llm_ops_modern_bert, &llm_ops_lfm2,           &llm_ops_deepseek2,  &llm_ops_granitehybrid,   &llm_ops_nemotron_h,
    &llm_ops_glm4moe,     &llm_ops_falcon_h1,      &llm_ops_lfm2moe,    &llm_ops_qwen3next,       &llm_ops_qwen35,
    &llm_ops_qwen35moe,   &llm_ops_nemotron_h_moe, &llm_ops_gemma3n,    &llm_ops_gemma_embedding, &llm_ops_kimi_linear,
};

const llm_arch_ops * llm_arch_get_ops(llm_arch arch) {
    for (const llm_arch_ops * ops : LLM_ARCH_REGISTRY) {
        if (ops->arch == arch) {
            return ops;
        }
    }
    return nullptr;
}

// ---- llama_model ---------------------------------------------------------------------------------

llama_model::~llama_model() {
    for (llama_adapter_lora * a : loras) {
        delete a;
    }
    for (ggml_backend_buffer_t b : bufs) {
        ggml_backend_buffer_free(b);
    }
    for (auto & c : ctxs_w) {
        ggml_free(c.first);
    }
}

ggml_tensor * llama_model::get_tensor(const char * name) const {
    for (const auto & c : ctxs_w) {
        if (ggml_tensor * t = ggml_get_tensor(c.first, name)) {
            return t;
        }
    }
    return nullptr;
}

const char * llama_model_ftype_name(llama_ftype ft) {
    switch (ft) {
        case LLAMA_FTYPE_ALL_F32:
            return "F32";
        case LLAMA_FTYPE_MOSTLY_F16:
            return "F16";
        case LLAMA_FTYPE_MOSTLY_BF16:
            return "BF16";
        case LLAMA_FTYPE_MOSTLY_Q4_0:
            return "Q4_0";
        case LLAMA_FTYPE_MOSTLY_Q4_1:
            return "Q4_1";
        case LLAMA_FTYPE_MOSTLY_Q5_0:
            return "Q5_0";
        case LLAMA_FTYPE_MOSTLY_Q5_1:
            return "Q5_1";
        case LLAMA_FTYPE_MOSTLY_Q8_0:
            return "Q8_0";
        case LLAMA_FTYPE_MOSTLY_Q2_K:
            return "Q2_K";
        case LLAMA_FTYPE_MOSTLY_Q3_K_S:
            return "Q3_K - Small";
        case LLAMA_FTYPE_MOSTLY_Q3_K_M:
            return "Q3_K - Medium";
        case LLAMA_FTYPE_MOSTLY_Q3_K_L:
            return "Q3_K - Large";
        case LLAMA_FTYPE_MOSTLY_Q4_K_S:
            return "Q4_K - Small";
        case LLAMA_FTYPE_MOSTLY_Q4_K_M:
            return "Q4_K - Medium";
        case LLAMA_FTYPE_MOSTLY_Q5_K_S:
            return "Q5_K - Small";
        case LLAMA_FTYPE_MOSTLY_Q5_K_M:
            return "Q5_K - Medium";
        case LLAMA_FTYPE_MOSTLY_Q6_K:
            return "Q6_K";
        case LLAMA_FTYPE_MOSTLY_IQ4_NL:
            return "IQ4_NL";
        case LLAMA_FTYPE_MOSTLY_IQ4_XS:
            return "IQ4_XS";
        case LLAMA_FTYPE_MOSTLY_TQ1_0:
            return "TQ1_0";
        case LLAMA_FTYPE_MOSTLY_TQ2_0:
            return "TQ2_0";
        case LLAMA_FTYPE_MOSTLY_MXFP4_MOE:
            return "MXFP4 MoE";
        // the i-quant mixes (llama-quant-mix.cpp)
        case LLAMA_FTYPE_MOSTLY_IQ2_XXS:
            return "IQ2_XXS";
        case LLAMA_FTYPE_MOSTLY_IQ2_XS:
            return "IQ2_XS";
        case LLAMA_FTYPE_MOSTLY_IQ2_S:
            return "IQ2_S";
        case LLAMA_FTYPE_MOSTLY_IQ2_M:
            return "IQ2_M";
        case LLAMA_FTYPE_MOSTLY_IQ3_XXS:
            return "IQ3_XXS";
        case LLAMA_FTYPE_MOSTLY_IQ3_XS:
            return "IQ3_XS";
        case LLAMA_FTYPE_MOSTLY_IQ3_S:
            return "IQ3_S";
        case LLAMA_FTYPE_MOSTLY_IQ3_M:
            return "IQ3_M";
        case LLAMA_FTYPE_MOSTLY_IQ1_S:
            return "IQ1_S";
        case LLAMA_FTYPE_MOSTLY_IQ1_M:
            return "IQ1_M";
        default:
            return "unknown";
    }
}

void llama_model::load_hparams(llama_model_loader & ml) {
    arch      = ml.arch;
    arch_name = ml.arch_name;
    ops       = llm_arch_get_ops(arch);
    if (!ops && !params.vocab_only) {
        throw llama_error(llama_format("architecture '%s' is not implemented", arch_name.c_str()));
    }
    ml.get_key(LLM_KV_GENERAL_NAME, name, false);
    uint32_t ft = 0;
    if (ml.get_key(LLM_KV_GENERAL_FILE_TYPE, ft, false)) {
        ftype = (llama_ftype) ft;
    } else {
        ftype = LLAMA_FTYPE_GUESSED;
    }
    gguf_kv = ml.metadata_strings();

    if (params.vocab_only) {
        return;  // hparams are not needed without weights
    }
    llama_hparams & hp = hparams;
    ml.get_key(LLM_KV_CONTEXT_LENGTH, hp.n_ctx_train);
    ml.get_key(LLM_KV_EMBEDDING_LENGTH, hp.n_embd);
    ml.get_key(LLM_KV_BLOCK_COUNT, hp.n_layer);
    // feed_forward_length may be per layer (nemotron_h: 0 on the layers without a feed-forward); the
    // non-zero entries must agree
    if (hp.n_layer > 0 && hp.n_layer <= 4096 &&
        ml.get_arr_u32(LLM_KV_FEED_FORWARD_LENGTH, hp.n_ff_layers, hp.n_layer)) {
        hp.n_ff = 0;
        for (uint32_t il = 0; il < hp.n_layer; il++) {
            const uint32_t f = hp.n_ff_layers[il];
            if (f != 0 && hp.n_ff != 0 && f != hp.n_ff) {
                throw llama_error(
                    llama_format("feed_forward_length differs between layers (%u, %u): not supported", hp.n_ff, f));
            }
            hp.n_ff = f != 0 ? f : hp.n_ff;
        }
    } else {
        ml.get_key(LLM_KV_FEED_FORWARD_LENGTH, hp.n_ff, false);
    }
    // head_count may be per layer too (upstream's saver writes it so, 0 on a hybrid model's recurrent
    // layers); the attention layers must agree
    std::vector<uint32_t> heads;
    if (hp.n_layer > 0 && hp.n_layer <= 4096 && ml.get_arr_u32(LLM_KV_ATTENTION_HEAD_COUNT, heads, hp.n_layer)) {
        hp.n_head = 0;
        for (uint32_t il = 0; il < hp.n_layer; il++) {
            if (heads[il] != 0 && hp.n_head != 0 && heads[il] != hp.n_head) {
                throw llama_error(llama_format("attention.head_count differs between layers (%u, %u): not supported",
                                               hp.n_head, heads[il]));
            }
            hp.n_head = heads[il] != 0 ? heads[il] : hp.n_head;
        }
    } else {
        ml.get_key(LLM_KV_ATTENTION_HEAD_COUNT, hp.n_head);
    }
    hp.n_head_kv = hp.n_head;
    // head_count_kv per layer (lfm2): 0 marks a recurrent layer; the attention layers must agree
    std::vector<uint32_t> kv_heads;
    if (hp.n_layer > 0 && hp.n_layer <= 4096 && ml.get_arr_u32(LLM_KV_ATTENTION_HEAD_COUNT_KV, kv_heads, hp.n_layer)) {
        hp.n_head_kv = 0;
        hp.recurrent_layers.assign(hp.n_layer, false);
        for (uint32_t il = 0; il < hp.n_layer; il++) {
            hp.recurrent_layers[il] = kv_heads[il] == 0;
            if (kv_heads[il] != 0 && hp.n_head_kv != 0 && kv_heads[il] != hp.n_head_kv) {
                throw llama_error(llama_format("attention.head_count_kv: layer %u has %u KV heads, an earlier one %u",
                                               il, kv_heads[il], hp.n_head_kv));
            }
            hp.n_head_kv = kv_heads[il] != 0 ? kv_heads[il] : hp.n_head_kv;
        }
        if (hp.n_head_kv == 0) {
            throw llama_error("attention.head_count_kv is 0 on every layer");
        }
    } else {
        ml.get_key(LLM_KV_ATTENTION_HEAD_COUNT_KV, hp.n_head_kv, false);
    }
    // head_count 0: an attention-free model (mamba2); its loader must then read a state-space shape
    const bool no_attn = hp.n_head == 0 && hp.n_head_kv == 0;
    if (hp.n_embd == 0 || hp.n_layer == 0 ||
        (!no_attn && (hp.n_head == 0 || hp.n_head_kv == 0 || hp.n_head % hp.n_head_kv != 0)) || hp.n_layer > 4096) {
        throw llama_error(llama_format("invalid hyperparameters: n_embd %u, n_layer %u, n_head %u, n_head_kv %u",
                                       hp.n_embd, hp.n_layer, hp.n_head, hp.n_head_kv));
    }
    hp.n_embd_head_k = hp.n_head > 0 && hp.n_embd % hp.n_head == 0 ? hp.n_embd / hp.n_head : 0;
    ml.get_key(LLM_KV_ATTENTION_KEY_LENGTH, hp.n_embd_head_k, false);
    hp.n_embd_head_v = hp.n_embd_head_k;
    ml.get_key(LLM_KV_ATTENTION_VALUE_LENGTH, hp.n_embd_head_v, false);
    if (!no_attn && (hp.n_embd_head_k == 0 || hp.n_embd_head_v == 0)) {
        throw llama_error("invalid head size (n_embd is not a multiple of n_head and no key_length is given)");
    }
    hp.n_rot = hp.n_embd_head_k;
    ml.get_key(LLM_KV_ROPE_DIMENSION_COUNT, hp.n_rot, false);
    if (hp.n_rot > hp.n_embd_head_k || hp.n_rot % 2 != 0) {
        throw llama_error(llama_format("invalid rope.dimension_count %u (head size %u)", hp.n_rot, hp.n_embd_head_k));
    }

    ml.get_key(LLM_KV_ROPE_FREQ_BASE, hp.rope_freq_base_train, false);
    // the scale factor is stored as its inverse (linear scaling factor); 0 = none
    float ropescale = 0.0f;
    if (!ml.get_key(LLM_KV_ROPE_SCALING_FACTOR, ropescale, false)) {
        ml.get_key(LLM_KV_ROPE_SCALE_LINEAR, ropescale, false);
    }
    hp.rope_freq_scale_train = ropescale == 0.0f ? 1.0f : 1.0f / ropescale;
    std::string scaling;
    if (ml.get_key(LLM_KV_ROPE_SCALING_TYPE, scaling, false)) {
        hp.rope_scaling_type_train = scaling == "linear"     ? LLAMA_ROPE_SCALING_TYPE_LINEAR
                                     : scaling == "yarn"     ? LLAMA_ROPE_SCALING_TYPE_YARN
                                     : scaling == "longrope" ? LLAMA_ROPE_SCALING_TYPE_LONGROPE
                                                             : LLAMA_ROPE_SCALING_TYPE_NONE;
    } else if (ropescale != 0.0f) {
        hp.rope_scaling_type_train = LLAMA_ROPE_SCALING_TYPE_LINEAR;
    }
    hp.n_ctx_orig_yarn = hp.n_ctx_train;
    ml.get_key(LLM_KV_ROPE_SCALING_ORIG_CTX_LEN, hp.n_ctx_orig_yarn, false);
    ml.get_key(LLM_KV_ROPE_SCALING_FINETUNED, hp.rope_finetuned, false);
    // upstream reads the yarn_* keys in the few architectures whose converters write them; they are
    // architecture-templated, so reading them for every model changes nothing for the others
    ml.get_key(LLM_KV_ROPE_SCALING_ATTN_FACTOR, hp.rope_attn_factor, false);
    ml.get_key(LLM_KV_ROPE_SCALING_YARN_LOG_MUL, hp.rope_yarn_log_mul, false);
    ml.get_key(LLM_KV_ROPE_SCALING_YARN_EXT_FACTOR, hp.yarn_ext_factor, false);
    ml.get_key(LLM_KV_ROPE_SCALING_YARN_ATTN_FACTOR, hp.yarn_attn_factor, false);
    ml.get_key(LLM_KV_ROPE_SCALING_YARN_BETA_FAST, hp.yarn_beta_fast, false);
    ml.get_key(LLM_KV_ROPE_SCALING_YARN_BETA_SLOW, hp.yarn_beta_slow, false);
    if (!(hp.rope_freq_scale_train > 0.0f) || !std::isfinite(hp.rope_freq_scale_train) ||
        !std::isfinite(hp.rope_attn_factor) || !std::isfinite(hp.yarn_attn_factor) ||
        !std::isfinite(hp.yarn_ext_factor) || !std::isfinite(hp.yarn_beta_fast) || !std::isfinite(hp.yarn_beta_slow) ||
        !std::isfinite(hp.rope_yarn_log_mul)) {
        throw llama_error("invalid rope scaling parameters (a factor is not a finite number)");
    }
    ml.get_key(LLM_KV_ATTENTION_CAUSAL, hp.causal_attn, false);
    ml.get_key(LLM_KV_EXPERT_COUNT, hp.n_expert, false);
    ml.get_key(LLM_KV_EXPERT_USED_COUNT, hp.n_expert_used, false);
    if (hp.n_expert > 256 || hp.n_expert_used > hp.n_expert || (hp.n_expert > 0 && hp.n_expert_used == 0)) {
        throw llama_error(llama_format("invalid expert counts: %u experts, %u used", hp.n_expert, hp.n_expert_used));
    }
    // pooling_type -1 (LLAMA_POOLING_TYPE_UNSPECIFIED; upstream's saver writes it as u32 0xFFFFFFFF) means
    // the file does not say: the architecture's default stays
    int64_t pooling = 0;
    if (ml.get_key(LLM_KV_POOLING_TYPE, pooling, false) && pooling != LLAMA_POOLING_TYPE_UNSPECIFIED &&
        pooling != (int64_t) UINT32_MAX) {
        if (pooling < 0 || pooling > LLAMA_POOLING_TYPE_RANK) {
            throw llama_error(llama_format("unknown pooling type %lld in the model", (long long) pooling));
        }
        hp.pooling_type = (enum llama_pooling_type) pooling;
    }

    ops->load_hparams(ml, hp);
    if (hp.is_hybrid() && hp.n_embd_r() == 0) {
        throw llama_error(llama_format("attention.head_count_kv marks recurrent layers, which %s does not have",
                                       llm_arch_name(arch)));
    }
    if (no_attn && !hp.is_recurrent()) {
        throw llama_error("invalid hyperparameters: attention.head_count is 0 in a model without state-space layers");
    }
}

void llama_model::load_extra_meta(llama_model_loader & ml) {
    meta.reset(gguf_init_empty(), gguf_free);
    if (!meta || !gguf_set_kv(meta.get(), ml.meta)) {
        throw llama_error("cannot copy the model metadata");
    }
    for (llm_kv k : {LLM_KV_SPLIT_NO, LLM_KV_SPLIT_COUNT, LLM_KV_SPLIT_TENSORS_COUNT}) {
        gguf_remove_key(meta.get(), llm_kv_key(k));  // a saved model is one file
    }
    const int64_t lid = gguf_find_key(ml.meta, ml.kv_name(LLM_KV_CLASSIFIER_OUTPUT_LABELS).c_str());
    if (lid >= 0 && gguf_get_kv_type(ml.meta, lid) == GGUF_TYPE_ARRAY &&
        gguf_get_arr_type(ml.meta, lid) == GGUF_TYPE_STRING) {
        for (size_t i = 0; i < gguf_get_arr_n(ml.meta, lid); i++) {
            cls_labels.emplace_back(gguf_get_arr_str(ml.meta, lid, i));
        }
    }
    const int64_t sid = gguf_find_key(ml.meta, llm_kv_key(LLM_KV_TOKENIZER_SUPPRESS_TOKENS));
    if (sid >= 0 && gguf_get_kv_type(ml.meta, sid) == GGUF_TYPE_ARRAY &&
        gguf_get_arr_type(ml.meta, sid) == GGUF_TYPE_INT32) {
        const int32_t * d = (const int32_t *) gguf_get_arr_data(ml.meta, sid);
        for (size_t i = 0; i < gguf_get_arr_n(ml.meta, sid); i++) {
            if (d[i] >= 0 && d[i] < vocab.n_tokens()) {  // hostile files: keep only valid ids
                vocab.suppress_tokens.push_back(d[i]);
            }
        }
    }
}

void llama_model::load_vocab(llama_model_loader & ml) {
    vocab.load(ml.meta);
    hparams.n_vocab     = (uint32_t) vocab.n_tokens();
    uint32_t n_vocab_kv = 0;
    if (ml.get_key(LLM_KV_VOCAB_SIZE, n_vocab_kv, false) && n_vocab_kv != 0 && !params.vocab_only) {
        hparams.n_vocab = n_vocab_kv;
        if (vocab.get_type() == LLAMA_VOCAB_TYPE_NONE && n_vocab_kv > (1u << 24)) {
            throw llama_error(llama_format("invalid vocab_size %u (no tokenizer)", n_vocab_kv));  // hostile files
        }
        vocab.set_n_dummy_tokens(n_vocab_kv);
    }
}

void llama_model::set_embd_proj_width(llama_model_loader & ml) {
    hparams.n_embd_proj = 0;
    if (!dense_2) {
        if (dense_3) {
            throw llama_error("the model has dense_3 without dense_2: not supported");
        }
        return;  // an embedding_length_out key without the projection it describes is ignored
    }
    const uint32_t mid  = (uint32_t) dense_2->ne[1];  // the layout table fixed the other dimensions
    hparams.n_embd_proj = dense_3 ? (uint32_t) dense_3->ne[1] : mid;
    // the keys upstream reads the shapes from must agree with the weights (0: unset)
    const struct {
        llm_kv   kv;
        uint32_t want;
    } keys[] = {
        {LLM_KV_EMBEDDING_LENGTH_OUT, hparams.n_embd_proj},
        {LLM_KV_DENSE_2_FEAT_IN, hparams.n_embd},
        {LLM_KV_DENSE_2_FEAT_OUT, mid},
        {LLM_KV_DENSE_3_FEAT_IN, dense_3 ? mid : 0},
        {LLM_KV_DENSE_3_FEAT_OUT, dense_3 ? hparams.n_embd : 0},
    };
    for (const auto & k : keys) {
        uint32_t v = 0;
        if (ml.get_key(k.kv, v, false) && v != 0 && k.want != 0 && v != k.want) {
            throw llama_error(llama_format("%s is %u, but the dense projection weights give %u",
                                           llm_kv_name(k.kv, arch).c_str(), v, k.want));
        }
    }
}

void llama_model::load_tensors(llama_model_loader & ml) {
    if (params.vocab_only) {
        return;
    }
    select_devices();

    // room for every file tensor plus the per-device copies of shared weights
    n_ctx_tensors = ml.weights_map.size() + hparams.n_layer + 8;
    ctx_for_buft(ggml_backend_cpu_buffer_type());  // the CPU context first: it holds the inputs
    llama_tensor_creator tc{ml, *this};
    llm_layout_load_tensors(*this, tc);
    set_embd_proj_width(ml);
    // the NextN blocks after the decoder's (glm4moe; qwen35, deepseek2 without load_mtp) are in the file but not
    // run: expected, not created
    int            n_nextn = 0;
    const uint32_t il_skip = (uint32_t) layers.size();  // with load_mtp, the NextN blocks were created
    for (uint32_t il = il_skip; il < hparams.n_layer + hparams.n_layer_nextn; il++) {
        const std::string prefix = "blk." + std::to_string(il) + ".";
        for (const auto & w : ml.weights_map) {
            n_nextn += w.first.compare(0, prefix.size(), prefix) == 0;
        }
    }
    if (n_nextn > 0) {
        LLAMA_LOG_INFO("%s: %d tensors of %u NextN blocks are not used\n", __func__, n_nextn, hparams.n_layer_nextn);
    }
    if (ml.n_created + n_nextn != (int) ml.weights_map.size()) {
        LLAMA_LOG_WARN("%s: the file has %zu tensors, the model uses %d\n", __func__, ml.weights_map.size(),
                       ml.n_created);
    }
    duplicate_shared_weights(ml);
    if (n_kept_on_cpu > 0) {
        LLAMA_LOG_INFO("%s: %d weights of offloaded layers stay on the CPU (their device does not support them)\n",
                       __func__, n_kept_on_cpu);
    }

    ml.load_all_data(ctxs_w, bufs, params.progress_callback, params.progress_callback_user_data);
    keep_storage(ml);

    // size and type statistics count each file tensor once (not the per-device copies)
    int                   type_count[GGML_TYPE_COUNT] = {};
    std::set<std::string> seen;
    for (const auto & c : ctxs_w) {
        size_t n_buft = 0;
        for (ggml_tensor * t = ggml_get_first_tensor(c.first); t; t = ggml_get_next_tensor(c.first, t)) {
            n_buft += ggml_nbytes(t);
            if (!seen.insert(ggml_get_name(t)).second) {
                continue;
            }
            n_elements += (uint64_t) ggml_nelements(t);
            n_bytes += ggml_nbytes(t);
            if (ggml_n_dims(t) >= 2) {
                type_count[t->type]++;
            }
        }
        if (n_buft > 0) {
            LLAMA_LOG_INFO("%s: %10s weights %8.2f MiB\n", __func__, ggml_backend_buft_name(c.second),
                           n_buft / 1024.0 / 1024.0);
        }
    }
    if (ftype == LLAMA_FTYPE_GUESSED) {
        // no general.file_type: name the model after its most common matrix type
        const int best = (int) (std::max_element(type_count, type_count + GGML_TYPE_COUNT) - type_count);
        switch ((ggml_type) best) {
            case GGML_TYPE_F32:
                ftype = LLAMA_FTYPE_ALL_F32;
                break;
            case GGML_TYPE_F16:
                ftype = LLAMA_FTYPE_MOSTLY_F16;
                break;
            case GGML_TYPE_BF16:
                ftype = LLAMA_FTYPE_MOSTLY_BF16;
                break;
            case GGML_TYPE_Q4_0:
                ftype = LLAMA_FTYPE_MOSTLY_Q4_0;
                break;
            case GGML_TYPE_Q4_1:
                ftype = LLAMA_FTYPE_MOSTLY_Q4_1;
                break;
            case GGML_TYPE_Q5_0:
                ftype = LLAMA_FTYPE_MOSTLY_Q5_0;
                break;
            case GGML_TYPE_Q5_1:
                ftype = LLAMA_FTYPE_MOSTLY_Q5_1;
                break;
            case GGML_TYPE_Q8_0:
                ftype = LLAMA_FTYPE_MOSTLY_Q8_0;
                break;
            case GGML_TYPE_Q2_K:
                ftype = LLAMA_FTYPE_MOSTLY_Q2_K;
                break;
            case GGML_TYPE_Q3_K:
                ftype = LLAMA_FTYPE_MOSTLY_Q3_K_M;
                break;
            case GGML_TYPE_Q4_K:
                ftype = LLAMA_FTYPE_MOSTLY_Q4_K_M;
                break;
            case GGML_TYPE_Q5_K:
                ftype = LLAMA_FTYPE_MOSTLY_Q5_K_M;
                break;
            case GGML_TYPE_Q6_K:
                ftype = LLAMA_FTYPE_MOSTLY_Q6_K;
                break;
            default:
                break;
        }
    }
}

void llama_model::keep_storage(llama_model_loader & ml) {
    for (auto & m : ml.mappings) {
        mappings.push_back(std::move(m));
    }
    for (auto & l : ml.mlocks) {
        mlocks.push_back(std::move(l));
    }
    ml.mappings.clear();
    ml.mlocks.clear();
}

std::string llama_model::desc() const {
    const double n = (double) n_elements;
    std::string  size;
    if (n >= 1e9) {
        size = llama_format("%.1fB", n / 1e9);
    } else if (n >= 1e6) {
        size = llama_format("%.0fM", n / 1e6);
    } else {
        size = llama_format("%.0fK", n / 1e3);
    }
    return llama_format("%s %s %s", arch_name.c_str(), size.c_str(), llama_model_ftype_name(ftype));
}

const char * llama_model::meta_value(const std::string & key) const {
    for (const auto & kv : gguf_kv) {
        if (kv.first == key) {
            return kv.second.c_str();
        }
    }
    return nullptr;
}

llama_model * llama_model_load_impl(const std::vector<std::string> & paths, const llama_model_params & params) {
    if (params.no_alloc) {
        throw llama_error("no_alloc (a metadata-only load) is not supported");
    }
    const int64_t                t_start = llama_time_us();
    std::unique_ptr<llama_model> model(new llama_model());
    model->params     = params;
    model->t_start_us = t_start;

    llama_model_loader ml(paths, params);
    model->load_hparams(ml);
    if (params.load_mtp && !params.vocab_only && !model->ops->build_mtp_graph) {
        // glm4moe (and others) have NextN blocks in their files but no MTP graph here
        throw llama_error(
            llama_format("load_mtp: %s has no multi-token-prediction (MTP) graph here "
                         "(supported: qwen35, qwen35moe, deepseek2)",
                         model->arch_name.c_str()));
    }
    model->load_vocab(ml);
    model->load_extra_meta(ml);
    model->load_tensors(ml);
    if (params.progress_callback && !params.progress_callback(1.0f, params.progress_callback_user_data)) {
        throw llama_load_cancelled();
    }
    model->t_load_us = llama_time_us() - t_start;
    LLAMA_LOG_INFO("%s: loaded %s (%s, %.2f MiB, %s) in %.1f ms\n", __func__, model->desc().c_str(),
                   model->name.c_str(), model->n_bytes / 1024.0 / 1024.0, ml.use_mmap ? "mmap" : "read",
                   model->t_load_us / 1000.0);
    return model.release();
}

// ---- C API: model queries --------------------------------------------------------------------------

static int32_t copy_str(char * buf, size_t buf_size, const std::string & s) {
    if (buf && buf_size > 0) {
        snprintf(buf, buf_size, "%s", s.c_str());
    }
    return (int32_t) s.size();
}

const struct llama_vocab * llama_model_get_vocab(const struct llama_model * model) {
    return model ? &model->vocab : nullptr;
}

enum llama_rope_type llama_model_rope_type(const struct llama_model * model) {
    return model ? model->hparams.rope_type : LLAMA_ROPE_TYPE_NONE;
}

int32_t llama_model_n_ctx_train(const struct llama_model * model) {
    return model ? (int32_t) model->hparams.n_ctx_train : 0;
}
int32_t llama_model_n_embd(const struct llama_model * model) {
    return model ? (int32_t) model->hparams.n_embd : 0;
}
int32_t llama_model_n_layer(const struct llama_model * model) {
    return model ? (int32_t) model->hparams.n_layer : 0;
}
int32_t llama_model_n_head(const struct llama_model * model) {
    return model ? (int32_t) model->hparams.n_head : 0;
}
int32_t llama_model_n_head_kv(const struct llama_model * model) {
    return model ? (int32_t) model->hparams.n_head_kv : 0;
}
int32_t llama_model_n_swa(const struct llama_model * model) {
    return model && model->hparams.is_swa_any() ? (int32_t) model->hparams.n_swa : 0;
}
float llama_model_rope_freq_scale_train(const struct llama_model * model) {
    return model ? model->hparams.rope_freq_scale_train : 1.0f;
}

int32_t llama_model_meta_val_str(const struct llama_model * model, const char * key, char * buf, size_t buf_size) {
    const char * v = model && key ? model->meta_value(key) : nullptr;
    if (!v) {
        if (buf && buf_size > 0) {
            buf[0] = '\0';
        }
        return -1;
    }
    return copy_str(buf, buf_size, v);
}

int32_t llama_model_meta_count(const struct llama_model * model) {
    return model ? (int32_t) model->gguf_kv.size() : 0;
}

int32_t llama_model_meta_key_by_index(const struct llama_model * model, int32_t i, char * buf, size_t buf_size) {
    if (!model || i < 0 || i >= (int32_t) model->gguf_kv.size()) {
        if (buf && buf_size > 0) {
            buf[0] = '\0';
        }
        return -1;
    }
    return copy_str(buf, buf_size, model->gguf_kv[i].first);
}

int32_t llama_model_meta_val_str_by_index(const struct llama_model * model, int32_t i, char * buf, size_t buf_size) {
    if (!model || i < 0 || i >= (int32_t) model->gguf_kv.size()) {
        if (buf && buf_size > 0) {
            buf[0] = '\0';
        }
        return -1;
    }
    return copy_str(buf, buf_size, model->gguf_kv[i].second);
}

int32_t llama_model_desc(const struct llama_model * model, char * buf, size_t buf_size) {
    return model ? copy_str(buf, buf_size, model->desc()) : -1;
}

uint64_t llama_model_size(const struct llama_model * model) {
    return model ? model->n_bytes : 0;
}

uint64_t llama_model_n_params(const struct llama_model * model) {
    return model ? model->n_elements : 0;
}

const char * llama_model_chat_template(const struct llama_model * model, const char * name) {
    if (!model) {
        return nullptr;
    }
    const std::string key =
        name ? llm_kv_name(LLM_KV_TOKENIZER_CHAT_TEMPLATE_N, name) : llm_kv_key(LLM_KV_TOKENIZER_CHAT_TEMPLATE);
    return model->meta_value(key);
}

bool llama_model_has_encoder(const struct llama_model * model) {
    (void) model;
    return false;
}

bool llama_model_has_decoder(const struct llama_model * model) {
    return model != nullptr;
}

llama_token llama_model_decoder_start_token(const struct llama_model * model) {
    (void) model;
    return LLAMA_TOKEN_NULL;
}

uint32_t llama_model_n_cls_out(const struct llama_model * model) {
    if (!model) {
        return 0;
    }
    // the rows of the head's last layer: cls.output, or cls alone (jina-bert-v2 rerankers)
    return model->cls_out ? (uint32_t) model->cls_out->ne[1] : model->cls ? (uint32_t) model->cls->ne[1] : 0;
}

bool llama_model_is_recurrent(const struct llama_model * model) {
    return model != nullptr && model->hparams.is_recurrent();
}

bool llama_model_is_hybrid(const struct llama_model * model) {
    return model != nullptr && model->hparams.is_hybrid();
}
