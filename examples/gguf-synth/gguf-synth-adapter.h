// Synthetic adapters for a (synthetic) model: a LoRA / aLoRA adapter GGUF with seeded random factors,
// a control-vector GGUF, and the merged-weights model W + k * B A that a run with the adapter must
// match. Header-only on the public gguf.h / ggml.h, for llama-gguf-synth and the tests.
//
// Adapter layout (what libllama reads, see docs/adapters.md): general.type "adapter",
// general.architecture of the model, adapter.type "lora", adapter.lora.alpha (F32), optionally
// adapter.alora.invocation_tokens (UINT32 array); per adapted weight W [n_in, n_out] the tensors
// "<W>.lora_a" [n_in, r] and "<W>.lora_b" [r, n_out]; for token_embd.weight [n_embd, n_vocab] the
// flipped pair lora_a [r, n_vocab], lora_b [r, n_embd].
// Control vector layout (upstream's): general.architecture "controlvector", one F32 tensor
// "direction.<il>" [n_embd] per layer il >= 1.
#pragma once

#include "gguf-synth.h"

#include <map>
#include <utility>

namespace synth {

struct lora_params {
    std::string model_path;  // the base model (its architecture and weight shapes)
    int64_t     rank  = 4;
    float       alpha = 0.0f;  // 0: no adapter.lora.alpha key (scale = user scale)
    uint64_t    seed  = 7;
    float       std   = 0.05f;  // factors ~ N(0, std)
    ggml_type   type  = GGML_TYPE_F32;
    // weight kinds adapted ("attn_q" matches blk.*.attn_q.weight; "token_embd", "output" the globals)
    std::vector<std::string> targets = {"attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"};
    std::vector<uint32_t>    invocation_tokens;  // non-empty: an aLoRA
};

namespace detail {

inline bool targeted(const std::string & name, const std::vector<std::string> & targets) {
    for (const std::string & t : targets) {
        if (name == t + ".weight") {
            return true;
        }
        const std::string suffix = "." + t + ".weight";
        if (name.rfind("blk.", 0) == 0 && name.size() > suffix.size() &&
            name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
            return true;
        }
    }
    return false;
}

inline std::vector<float> normal(int64_t n, uint64_t seed, float stddev) {
    std::vector<float> v((size_t) n);
    fill_normal(v.data(), n, seed, stddev);
    return v;
}

inline std::vector<uint8_t> encode(const std::vector<float> & f, ggml_type type) {
    std::vector<uint8_t> out;
    if (type == GGML_TYPE_F16) {
        out.resize(f.size() * sizeof(ggml_fp16_t));
        ggml_fp32_to_fp16_row(f.data(), (ggml_fp16_t *) out.data(), (int64_t) f.size());
    } else {
        out.resize(f.size() * sizeof(float));
        memcpy(out.data(), f.data(), out.size());
    }
    return out;
}

// A tensor's data as floats (F32 and F16 only).
inline bool decode(const void * data, ggml_type type, int64_t n, std::vector<float> & out) {
    out.resize((size_t) n);
    if (type == GGML_TYPE_F32) {
        memcpy(out.data(), data, (size_t) n * sizeof(float));
    } else if (type == GGML_TYPE_F16) {
        ggml_fp16_to_fp32_row((const ggml_fp16_t *) data, out.data(), n);
    } else {
        return false;
    }
    return true;
}

inline std::string key_str(const gguf_context * g, const char * key) {
    const int64_t id = gguf_find_key(g, key);
    return id >= 0 && gguf_get_kv_type(g, id) == GGUF_TYPE_STRING ? gguf_get_val_str(g, id) : "";
}

}  // namespace detail

// Writes a LoRA adapter for the model at p.model_path.
inline bool write_lora(const lora_params & p, const std::string & path, std::string & err) {
    gguf_ptr base(gguf_init_from_file(p.model_path.c_str(), {true}));
    if (!base) {
        err = "cannot read the model '" + p.model_path + "'";
        return false;
    }
    if (p.rank <= 0 || (p.type != GGML_TYPE_F32 && p.type != GGML_TYPE_F16)) {
        err = "rank must be > 0 and the factor type f32 or f16";
        return false;
    }
    gguf_ptr g(gguf_init_empty());
    gguf_set_val_str(g.get(), "general.type", "adapter");
    gguf_set_val_str(g.get(), "general.architecture", detail::key_str(base.get(), "general.architecture").c_str());
    gguf_set_val_str(g.get(), "general.name", "synthetic-lora");
    gguf_set_val_str(g.get(), "adapter.type", "lora");
    if (p.alpha != 0.0f) {
        gguf_set_val_f32(g.get(), "adapter.lora.alpha", p.alpha);
    }
    if (!p.invocation_tokens.empty()) {
        gguf_set_arr_data(g.get(), "adapter.alora.invocation_tokens", GGUF_TYPE_UINT32, p.invocation_tokens.data(),
                          p.invocation_tokens.size());
    }
    int n_pairs = 0;
    for (int64_t i = 0; i < gguf_get_n_tensors(base.get()); i++) {
        const std::string name = gguf_get_tensor_name(base.get(), i);
        if (!detail::targeted(name, p.targets) || gguf_get_tensor_n_dims(base.get(), i) != 2) {
            continue;
        }
        int64_t ne[4];
        gguf_get_tensor_shape(base.get(), i, ne);
        const bool embd = name == "token_embd.weight";
        // regular: a [n_in, r], b [r, n_out]; token_embd: a [r, n_vocab], b [r, n_embd]
        const int64_t ne_a[2] = {embd ? p.rank : ne[0], embd ? ne[1] : p.rank};
        const int64_t ne_b[2] = {p.rank, embd ? ne[0] : ne[1]};
        const auto a = detail::encode(detail::normal(ne_a[0] * ne_a[1], p.seed ^ hash_str(name + "a"), p.std), p.type);
        const auto b = detail::encode(detail::normal(ne_b[0] * ne_b[1], p.seed ^ hash_str(name + "b"), p.std), p.type);
        if (!gguf_add_tensor_info(g.get(), (name + ".lora_a").c_str(), p.type, 2, ne_a, a.data()) ||
            !gguf_add_tensor_info(g.get(), (name + ".lora_b").c_str(), p.type, 2, ne_b, b.data())) {
            err = "cannot add the factors of " + name;
            return false;
        }
        n_pairs++;
    }
    if (n_pairs == 0) {
        err = "no weight of the model matches the targets";
        return false;
    }
    if (!gguf_write_to_file(g.get(), path.c_str(), false)) {
        err = "cannot write '" + path + "'";
        return false;
    }
    return true;
}

// Writes a control vector for the model: directions for layers 1 .. n_layer-1 ~ N(0, stddev).
inline bool write_cvec(const std::string & model_path, uint64_t seed, float stddev, const std::string & path,
                       std::string & err) {
    gguf_ptr base(gguf_init_from_file(model_path.c_str(), {true}));
    if (!base) {
        err = "cannot read the model '" + model_path + "'";
        return false;
    }
    const std::string arch = detail::key_str(base.get(), "general.architecture");
    const int64_t     kl   = gguf_find_key(base.get(), (arch + ".block_count").c_str());
    const int64_t     ke   = gguf_find_key(base.get(), (arch + ".embedding_length").c_str());
    if (kl < 0 || ke < 0 || gguf_get_kv_type(base.get(), kl) != GGUF_TYPE_UINT32 ||
        gguf_get_kv_type(base.get(), ke) != GGUF_TYPE_UINT32) {
        err = "the model lacks <arch>.block_count / embedding_length";
        return false;
    }
    const int64_t n_layer = gguf_get_val_u32(base.get(), kl);
    const int64_t n_embd  = gguf_get_val_u32(base.get(), ke);
    gguf_ptr      g(gguf_init_empty());
    gguf_set_val_str(g.get(), "general.architecture", "controlvector");
    gguf_set_val_str(g.get(), "controlvector.model_hint", arch.c_str());
    gguf_set_val_i32(g.get(), "controlvector.layer_count", (int32_t) (n_layer - 1));
    for (int64_t il = 1; il < n_layer; il++) {
        const std::string name = "direction." + std::to_string(il);
        const auto        d    = detail::normal(n_embd, seed ^ hash_str(name), stddev);
        gguf_add_tensor_info(g.get(), name.c_str(), GGML_TYPE_F32, 1, &n_embd, d.data());
    }
    if (!gguf_write_to_file(g.get(), path.c_str(), false)) {
        err = "cannot write '" + path + "'";
        return false;
    }
    return true;
}

// Reads a control vector file into the layout llama_set_adapter_cvec takes: n_embd floats per
// layer from layer 1 to the highest direction.<il> (missing layers zero).
inline bool read_cvec(const std::string & path, int64_t & n_embd, std::vector<float> & data, std::string & err) {
    gguf_ptr g(gguf_init_from_file(path.c_str(), {false}));
    if (!g) {
        err = "cannot read '" + path + "'";
        return false;
    }
    n_embd = 0;
    data.clear();
    for (int64_t i = 0; i < gguf_get_n_tensors(g.get()); i++) {
        const std::string name = gguf_get_tensor_name(g.get(), i);
        int64_t           ne[4];
        gguf_get_tensor_shape(g.get(), i, ne);
        const int il = name.rfind("direction.", 0) == 0 ? atoi(name.c_str() + 10) : 0;
        if (il < 1 || gguf_get_tensor_type(g.get(), i) != GGML_TYPE_F32 || (n_embd && ne[0] != n_embd)) {
            err = "unexpected tensor '" + name + "' in the control vector";
            return false;
        }
        n_embd = ne[0];
        if (data.size() < (size_t) (il * n_embd)) {
            data.resize((size_t) (il * n_embd), 0.0f);
        }
        memcpy(data.data() + (size_t) (il - 1) * n_embd, gguf_get_tensor_data(g.get(), i), (size_t) n_embd * 4);
    }
    return true;
}

// Writes model_path with every adapted weight replaced by W + k B A in F32 (k = scale * alpha / r,
// or scale without alpha), for each (adapter path, scale) in loras; other tensors are copied.
// Weights must be F32 or F16.
inline bool write_merged(const std::string & model_path, const std::vector<std::pair<std::string, float>> & loras,
                         const std::string & path, std::string & err) {
    gguf_ptr base(gguf_init_from_file(model_path.c_str(), {false}));
    if (!base) {
        err = "cannot read the model '" + model_path + "'";
        return false;
    }
    std::map<std::string, std::vector<float>> merged;  // by weight name
    for (const auto & l : loras) {
        gguf_ptr ad(gguf_init_from_file(l.first.c_str(), {false}));
        if (!ad) {
            err = "cannot read the adapter '" + l.first + "'";
            return false;
        }
        const int64_t ka    = gguf_find_key(ad.get(), "adapter.lora.alpha");
        const float   alpha = ka >= 0 ? gguf_get_val_f32(ad.get(), ka) : 0.0f;
        for (int64_t i = 0; i < gguf_get_n_tensors(ad.get()); i++) {
            std::string an = gguf_get_tensor_name(ad.get(), i);
            if (an.size() < 7 || an.compare(an.size() - 7, 7, ".lora_a") != 0) {
                continue;
            }
            const std::string wname = an.substr(0, an.size() - 7);
            const int64_t     ib    = gguf_find_tensor(ad.get(), (wname + ".lora_b").c_str());
            const int64_t     iw    = gguf_find_tensor(base.get(), wname.c_str());
            if (ib < 0 || iw < 0) {
                err = "adapter pair for " + wname + " incomplete or not in the model";
                return false;
            }
            int64_t nw[4], na[4], nb[4];
            gguf_get_tensor_shape(base.get(), iw, nw);
            gguf_get_tensor_shape(ad.get(), i, na);
            gguf_get_tensor_shape(ad.get(), ib, nb);
            std::vector<float> a, b;
            auto &             w = merged[wname];
            if ((w.empty() && !detail::decode(gguf_get_tensor_data(base.get(), iw),
                                              gguf_get_tensor_type(base.get(), iw), nw[0] * nw[1], w)) ||
                !detail::decode(gguf_get_tensor_data(ad.get(), i), gguf_get_tensor_type(ad.get(), i), na[0] * na[1],
                                a) ||
                !detail::decode(gguf_get_tensor_data(ad.get(), ib), gguf_get_tensor_type(ad.get(), ib), nb[0] * nb[1],
                                b)) {
                err = "merge needs F32/F16 weights and factors (" + wname + ")";
                return false;
            }
            const bool    embd = wname == "token_embd.weight";
            const int64_t r    = embd ? na[0] : na[1];
            const float   k    = alpha != 0.0f ? l.second * alpha / (float) r : l.second;
            // W(i, o) += k sum_r B(r, o) A(i, r); token_embd: W(e, t) += k sum_r B(r, e) A(r, t)
            for (int64_t o = 0; o < nw[1]; o++) {
                for (int64_t ii = 0; ii < nw[0]; ii++) {
                    double acc = 0.0;
                    for (int64_t q = 0; q < r; q++) {
                        acc += embd ? (double) b[ii * r + q] * a[o * r + q] : (double) b[o * r + q] * a[q * nw[0] + ii];
                    }
                    w[o * nw[0] + ii] += (float) (k * acc);
                }
            }
        }
    }
    gguf_ptr g(gguf_init_empty());
    gguf_set_kv(g.get(), base.get());
    for (int64_t i = 0; i < gguf_get_n_tensors(base.get()); i++) {
        const char * name = gguf_get_tensor_name(base.get(), i);
        int64_t      ne[4];
        gguf_get_tensor_shape(base.get(), i, ne);
        const int  nd = (int) gguf_get_tensor_n_dims(base.get(), i);
        auto       it = merged.find(name);
        const bool ok = it != merged.end()
                            ? gguf_add_tensor_info(g.get(), name, GGML_TYPE_F32, nd, ne, it->second.data())
                            : gguf_add_tensor_info(g.get(), name, gguf_get_tensor_type(base.get(), i), nd, ne,
                                                   gguf_get_tensor_data(base.get(), i));
        if (!ok) {
            err = std::string("cannot add ") + name;
            return false;
        }
    }
    if (!gguf_write_to_file(g.get(), path.c_str(), false)) {
        err = "cannot write '" + path + "'";
        return false;
    }
    return true;
}

}  // namespace synth
