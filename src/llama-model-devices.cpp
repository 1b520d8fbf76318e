// Device placement of a model's weights (GPU offload): which GPU devices are used (devices,
// split_mode, main_gpu), which layers go where (n_gpu_layers, tensor_split), and per weight whether
// its device can run the op that uses it (otherwise the weight stays on the CPU). The scheduler then
// runs each op where its weights are.
#include <algorithm>
#include <map>

#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "llama-log.h"
#include "llama-model-loader.h"
#include "llama-model.h"

namespace {

bool dev_is_gpu(ggml_backend_dev_t d) {
    const enum ggml_backend_dev_type t = ggml_backend_dev_type(d);
    return t == GGML_BACKEND_DEVICE_TYPE_GPU || t == GGML_BACKEND_DEVICE_TYPE_IGPU;
}

bool is_expert_kind(llm_tensor kind) {
    return kind == LLM_TENSOR_FFN_GATE_EXPS || kind == LLM_TENSOR_FFN_UP_EXPS || kind == LLM_TENSOR_FFN_DOWN_EXPS ||
           kind == LLM_TENSOR_FFN_GATE_UP_EXPS;
}

// Can dev run the op the graph applies to a weight of this kind, type and shape (like llama.cpp's
// weight_buft_supported)? Matrices are probed with mul_mat (stacked experts with mul_mat_id, their
// biases with get_rows), 1-D weights with mul/add, rope frequency factors with rope.
bool weight_supported(ggml_backend_dev_t dev, const llama_tensor_weight & w, llm_tensor kind, const char * suffix,
                      int rope_mode) {
    ggml_init_params ip  = {8 * ggml_tensor_overhead(), nullptr, true};
    ggml_context *   ctx = ggml_init(ip);
    if (!ctx) {
        return false;
    }
    ggml_tensor * wt = ggml_new_tensor(ctx, w.type, 4, w.ne);
    ggml_tensor * op = nullptr;
    if (kind == LLM_TENSOR_TOKEN_EMBD) {
        op = ggml_get_rows(ctx, wt, ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 1));
    } else if (kind == LLM_TENSOR_ROPE_FREQS || kind == LLM_TENSOR_ROPE_FACTORS_LONG ||
               kind == LLM_TENSOR_ROPE_FACTORS_SHORT) {
        ggml_tensor * x   = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 2 * wt->ne[0], 1, 1);
        ggml_tensor * pos = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 1);
        op =
            ggml_rope_ext(ctx, x, pos, wt, (int) (2 * wt->ne[0]), rope_mode, 0, 10000.0f, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f);
    } else if (is_expert_kind(kind) && suffix && std::string(suffix) == "bias") {
        // per-expert biases are gathered by the selected expert ids
        op = ggml_get_rows(ctx, wt, ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 1));
    } else if (is_expert_kind(kind)) {
        // stacked experts [K, M, n_expert] are the matrix of a mul_mat_id
        op = ggml_mul_mat_id(ctx, wt, ggml_new_tensor_3d(ctx, GGML_TYPE_F32, wt->ne[0], 1, 1),
                             ggml_new_tensor_2d(ctx, GGML_TYPE_I32, 1, 1));
    } else if (ggml_n_dims(wt) >= 2) {
        // a stack of matrices (deepseek2's per-head attn_k_b / attn_v_b) multiplies a batch of as many
        op = ggml_mul_mat(ctx, wt, ggml_new_tensor_4d(ctx, GGML_TYPE_F32, wt->ne[0], 1, wt->ne[2], wt->ne[3]));
    } else {
        ggml_tensor * x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, wt->ne[0], 1);
        op              = suffix && std::string(suffix) == "bias" ? ggml_add(ctx, x, wt) : ggml_mul(ctx, x, wt);
    }
    const bool ok = op && ggml_backend_dev_supports_op(dev, op);
    ggml_free(ctx);
    return ok;
}

// Weights whose only use in every graph is as the matrix of a mul_mat: the ones an extra buffer type
// (a layout only the device's mul_mat reads, e.g. the CPU's CPU_REPACK) may hold.
bool weight_is_matmul_only(llm_tensor kind, const char * suffix) {
    if (!suffix || std::string(suffix) != "weight") {
        return false;
    }
    switch (kind) {
        case LLM_TENSOR_OUTPUT:
        case LLM_TENSOR_ATTN_Q:
        case LLM_TENSOR_ATTN_K:
        case LLM_TENSOR_ATTN_V:
        case LLM_TENSOR_ATTN_QKV:
        case LLM_TENSOR_ATTN_OUT:
        case LLM_TENSOR_FFN_GATE:
        case LLM_TENSOR_FFN_UP:
        case LLM_TENSOR_FFN_DOWN:
            return true;
        default:
            return false;
    }
}

// The first extra buffer type of dev whose mul_mat accepts this weight in it (the probe weight sits in
// a zero-size buffer of that type, which is what supports_op looks at), or NULL.
ggml_backend_buffer_type_t extra_buft_for(ggml_backend_dev_t dev, const llama_tensor_weight & w) {
    auto get = (ggml_backend_dev_get_extra_bufts_t) ggml_backend_reg_get_proc_address(
        ggml_backend_dev_backend_reg(dev), "ggml_backend_dev_get_extra_bufts");
    ggml_backend_buffer_type_t * list = get ? get(dev) : nullptr;
    for (; list && *list; list++) {
        ggml_backend_buffer_t probe = ggml_backend_buft_alloc_buffer(*list, 0);
        if (!probe) {
            continue;
        }
        ggml_init_params ip  = {4 * ggml_tensor_overhead(), nullptr, true};
        ggml_context *   ctx = ggml_init(ip);
        bool             ok  = false;
        if (ctx) {
            ggml_tensor * wt = ggml_new_tensor(ctx, w.type, 4, w.ne);
            wt->buffer       = probe;
            ggml_tensor * op = ggml_mul_mat(ctx, wt, ggml_new_tensor_2d(ctx, GGML_TYPE_F32, wt->ne[0], 1));
            ok               = ggml_n_dims(wt) == 2 && ggml_backend_dev_supports_op(dev, op);
            ggml_free(ctx);
        }
        ggml_backend_buffer_free(probe);
        if (ok) {
            return *list;
        }
    }
    return nullptr;
}

}  // namespace

void llama_model::select_devices() {
    dev_cpu = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
    if (!dev_cpu) {
        throw llama_error("no CPU device is registered");
    }

    // candidates: the caller's list, or every GPU of the registry (integrated ones when there is no
    // discrete one); a CPU-type Vulkan device is only registered when GGML_VK_ALLOW_CPU_DEVICES is set
    std::vector<ggml_backend_dev_t> cand;
    if (params.devices) {
        for (ggml_backend_dev_t * p = params.devices; *p; p++) {
            if (!dev_is_gpu(*p)) {
                LLAMA_LOG_WARN("%s: device %s is not a GPU; ignored (the CPU is always used)\n", __func__,
                               ggml_backend_dev_name(*p));
                continue;
            }
            if (cand.size() >= llama_max_devices()) {
                throw llama_error(llama_format("more than %zu devices given", llama_max_devices()));
            }
            cand.push_back(*p);
        }
    } else {
        std::vector<ggml_backend_dev_t> igpus;
        for (size_t i = 0; i < ggml_backend_dev_count(); i++) {
            ggml_backend_dev_t d = ggml_backend_dev_get(i);
            if (ggml_backend_dev_type(d) == GGML_BACKEND_DEVICE_TYPE_GPU) {
                cand.push_back(d);
            } else if (ggml_backend_dev_type(d) == GGML_BACKEND_DEVICE_TYPE_IGPU) {
                igpus.push_back(d);
            }
        }
        if (cand.empty()) {
            cand = igpus;
        }
        if (cand.size() > llama_max_devices()) {
            cand.resize(llama_max_devices());
        }
    }

    switch (params.split_mode) {
        case LLAMA_SPLIT_MODE_NONE:
            if (params.main_gpu < 0) {
                cand.clear();  // llama.cpp's convention: no main GPU = CPU only
            } else if (!cand.empty()) {
                if ((size_t) params.main_gpu >= cand.size()) {
                    throw llama_error(
                        llama_format("main_gpu = %d is out of range (%zu GPU devices)", params.main_gpu, cand.size()));
                }
                cand = {cand[params.main_gpu]};
            }
            break;
        case LLAMA_SPLIT_MODE_LAYER:
            break;
        case LLAMA_SPLIT_MODE_ROW:
        case LLAMA_SPLIT_MODE_TENSOR:
            if (cand.size() > 1) {
                LLAMA_LOG_WARN("%s: split_mode %s is not implemented; splitting by layers\n", __func__,
                               params.split_mode == LLAMA_SPLIT_MODE_ROW ? "ROW" : "TENSOR");
            }
            break;
        default:
            throw llama_error(llama_format("invalid split_mode %d", (int) params.split_mode));
    }

    const int n_layer = (int) hparams.n_layer;
    int       n_gpu   = params.n_gpu_layers < 0 ? n_layer + 1 : std::min(params.n_gpu_layers, n_layer + 1);
    if (cand.empty()) {
        n_gpu = 0;
    }
    const int i_gpu_start = n_layer - std::min(n_gpu, n_layer);  // the LAST n_gpu layers are offloaded

    // cumulative share of each device: tensor_split, else free memory, else equal
    std::vector<float> split(cand.size(), 0.0f);
    float              sum = 0.0f;
    for (size_t i = 0; i < cand.size(); i++) {
        if (params.tensor_split) {
            split[i] = std::max(0.0f, params.tensor_split[i]);
        } else {
            size_t free = 0, total = 0;
            ggml_backend_dev_memory(cand[i], &free, &total);
            split[i] = (float) free;
        }
        sum += split[i];
    }
    for (size_t i = 0; i < cand.size(); i++) {
        split[i] = sum > 0.0f ? split[i] / sum : 1.0f / (float) cand.size();
        if (i > 0) {
            split[i] += split[i - 1];
        }
    }
    auto gpu_of = [&](int il) -> ggml_backend_dev_t {
        const float  f = (float) (il - i_gpu_start) / (float) n_gpu;
        const size_t k = (size_t) (std::upper_bound(split.begin(), split.end(), f) - split.begin());
        return cand[std::min(k, cand.size() - 1)];
    };

    dev_layer.assign(n_layer, dev_cpu);
    for (int il = i_gpu_start; il < n_layer; il++) {
        dev_layer[il] = gpu_of(il);
    }
    dev_output = n_gpu > n_layer ? gpu_of(n_layer) : dev_cpu;

    devices.clear();
    for (ggml_backend_dev_t d : cand) {
        const bool used = d == dev_output || std::find(dev_layer.begin(), dev_layer.end(), d) != dev_layer.end();
        if (used) {
            devices.push_back(d);
        }
    }
    if (!devices.empty()) {
        std::string names;
        for (ggml_backend_dev_t d : devices) {
            names += names.empty() ? "" : ", ";
            names += llama_format("%s (%s)", ggml_backend_dev_name(d), ggml_backend_dev_description(d));
        }
        LLAMA_LOG_INFO("%s: offloading %d of %d repeating layers%s to %s\n", __func__, n_layer - i_gpu_start, n_layer,
                       dev_output != dev_cpu ? " and the output layer" : "", names.c_str());
    }
}

ggml_context * llama_model::ctx_for_buft(ggml_backend_buffer_type_t buft) {
    for (const auto & c : ctxs_w) {
        if (c.second == buft) {
            return c.first;
        }
    }
    ggml_init_params ip  = {n_ctx_tensors * ggml_tensor_overhead(), nullptr, true};
    ggml_context *   ctx = ggml_init(ip);
    if (!ctx) {
        throw llama_error("cannot create a weights context");
    }
    ctxs_w.emplace_back(ctx, buft);
    return ctx;
}

ggml_context * llama_model::weight_ctx(const llama_tensor_weight * w, llm_tensor t, llm_tl_place place, int layer,
                                       const char * suffix) {
    ggml_backend_dev_t dev = dev_cpu;
    switch (place) {
        case LLM_TL_PLACE_LAYER:
            dev = layer >= 0 ? layer_dev(layer) : dev_cpu;
            break;
        case LLM_TL_PLACE_INPUT:
            dev = hparams.n_layer > 0 ? layer_dev(0) : dev_cpu;
            break;
        case LLM_TL_PLACE_OUTPUT:
            dev = dev_output;
            break;
        case LLM_TL_PLACE_DEFAULT:  // resolved by llm_tensor_layout::placement(); never passed
        case LLM_TL_PLACE_HOST:
            break;
    }
    if (dev != dev_cpu && w && !weight_supported(dev, *w, t, suffix, (int) hparams.rope_type)) {
        LLAMA_LOG_DEBUG("%s: %s (%s) cannot be used by %s; kept on the CPU\n", __func__, w->name.c_str(),
                        ggml_type_name(w->type), ggml_backend_dev_name(dev));
        n_kept_on_cpu++;
        dev = dev_cpu;
    }
    if (dev == dev_cpu && params.use_extra_bufts && w && weight_is_matmul_only(t, suffix)) {
        if (ggml_backend_buffer_type_t extra = extra_buft_for(dev_cpu, *w)) {
            return ctx_for_buft(extra);
        }
    }
    return ctx_for_buft(dev == dev_cpu ? ggml_backend_cpu_buffer_type() : ggml_backend_dev_buffer_type(dev));
}

void llama_model::duplicate_shared_weights(llama_model_loader & ml) {
    ggml_context * ctx_cpu = ctx_for_buft(ggml_backend_cpu_buffer_type());

    // tied embeddings: the LM head reads token_embd, which stays on the CPU for get_rows; an
    // offloaded output layer gets its own copy
    if (output && output == tok_embd && dev_output != dev_cpu) {
        const llama_tensor_weight * w = ml.get_weight(ggml_get_name(tok_embd));
        ggml_context * ctx = w ? weight_ctx(w, LLM_TENSOR_OUTPUT, LLM_TL_PLACE_OUTPUT, -1, "weight") : ctx_cpu;
        if (ctx != ctx_cpu) {
            output = ml.create_tensor(ctx, w->name, std::vector<int64_t>(w->ne, w->ne + std::max(1u, w->n_dims)),
                                      LLAMA_TENSOR_DUPLICATED);
        }
    }

    // rope frequency factors shared by all layers (created once, outside the blocks): one copy per
    // device so that the rope of an offloaded layer does not pull the weight back to the CPU
    struct shared_rope {
        llm_tensor    t;
        ggml_tensor * llama_layer::*member;
    };
    for (const shared_rope & sr : {shared_rope{LLM_TENSOR_ROPE_FREQS, &llama_layer::rope_freqs},
                                   shared_rope{LLM_TENSOR_ROPE_FACTORS_LONG, &llama_layer::rope_long},
                                   shared_rope{LLM_TENSOR_ROPE_FACTORS_SHORT, &llama_layer::rope_short}}) {
        const std::string                           rf_name = llm_tensor_name(sr.t, "weight", -1);
        std::map<ggml_backend_dev_t, ggml_tensor *> rf_copy;
        for (size_t il = 0; il < layers.size(); il++) {
            ggml_tensor *& rf = layers[il].*sr.member;
            if (!rf || rf_name != ggml_get_name(rf) || layer_dev((int) il) == dev_cpu) {
                continue;
            }
            auto it = rf_copy.find(layer_dev((int) il));
            if (it == rf_copy.end()) {
                const llama_tensor_weight * w = ml.get_weight(rf_name);
                ggml_context * ctx = w ? weight_ctx(w, sr.t, LLM_TL_PLACE_LAYER, (int) il, "weight") : ctx_cpu;
                ggml_tensor *  cp  = rf;
                if (ctx != ctx_cpu) {
                    cp = ml.create_tensor(ctx, w->name, std::vector<int64_t>(w->ne, w->ne + std::max(1u, w->n_dims)),
                                          LLAMA_TENSOR_DUPLICATED);
                }
                it = rf_copy.emplace(layer_dev((int) il), cp).first;
            }
            rf = it->second;
        }
    }
}

size_t llama_model::weights_size(ggml_backend_buffer_type_t buft) const {
    size_t n = 0;
    for (const auto & c : ctxs_w) {
        if (c.second != buft) {
            continue;
        }
        for (ggml_tensor * t = ggml_get_first_tensor(c.first); t; t = ggml_get_next_tensor(c.first, t)) {
            n += ggml_nbytes(t);
        }
    }
    return n;
}

// ---- llama_tensor_creator ------------------------------------------------------------------------

ggml_tensor * llama_tensor_creator::create(llm_tensor t, const std::vector<int64_t> & ne, int flags, int layer,
                                           const char * suffix, llm_tl_place place) {
    const std::string           name = llm_tensor_name(t, suffix, layer);
    const llama_tensor_weight * w    = ml.get_weight(name);
    return ml.create_tensor(model.weight_ctx(w, t, place, layer, suffix), name, ne, flags);
}
