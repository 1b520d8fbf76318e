// Loading LoRA adapters and control vectors onto the devices of the weights they change.
#include "llama-adapter.h"

#include "ggml-alloc.h"
#include "gguf.h"
#include "llama-log.h"
#include "llama-mmap.h"
#include "llama-model-loader.h"
#include "llama-model.h"

#include <cstring>
#include <memory>

namespace {

bool ends_with(const std::string & s, const std::string & suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

struct gguf_deleter {
    void operator()(gguf_context * c) const { gguf_free(c); }
};

struct ggml_ctx_deleter {
    void operator()(ggml_context * c) const { ggml_free(c); }
};

// The buffer type an adapter tensor for weight w goes to: w's own, except that CPU buffer types
// with a special layout (repacked weights) get the plain CPU type -- the factors are ordinary
// matrices.
ggml_backend_buffer_type_t buft_for(const llama_model & model, const ggml_tensor * w) {
    ggml_backend_buffer_type_t buft = w->buffer ? ggml_backend_buffer_get_type(w->buffer) : nullptr;
    ggml_backend_dev_t         dev  = buft ? ggml_backend_buft_get_device(buft) : nullptr;
    if (!buft || !dev || dev == model.dev_cpu || ggml_backend_buft_is_host(buft)) {
        return ggml_backend_dev_buffer_type(model.dev_cpu);
    }
    return buft;
}

// One ggml context per buffer type, then one buffer each.
struct buft_contexts {
    std::vector<std::pair<ggml_backend_buffer_type_t, ggml_context *>> list;
    size_t                                                             n_tensors;

    explicit buft_contexts(size_t n) : n_tensors(n) {}

    ggml_context * get(ggml_backend_buffer_type_t buft, std::vector<ggml_context *> & owner) {
        for (auto & p : list) {
            if (p.first == buft) {
                return p.second;
            }
        }
        ggml_init_params ip = {ggml_tensor_overhead() * (n_tensors + 1), nullptr, true};
        ggml_context *   c  = ggml_init(ip);
        if (!c) {
            throw llama_error("cannot create an adapter tensor context");
        }
        owner.push_back(c);
        list.emplace_back(buft, c);
        return c;
    }

    void alloc(std::vector<ggml_backend_buffer_t> & bufs) {
        for (auto & p : list) {
            ggml_backend_buffer_t b = ggml_backend_alloc_ctx_tensors_from_buft(p.second, p.first);
            if (!b) {
                throw llama_error(
                    llama_format("cannot allocate the adapter buffer on %s", ggml_backend_buft_name(p.first)));
            }
            ggml_backend_buffer_clear(b, 0);
            bufs.push_back(b);
        }
    }
};

std::string kv_str(const gguf_context * g, const char * key) {
    const int64_t id = gguf_find_key(g, key);
    if (id < 0 || gguf_get_kv_type(g, id) != GGUF_TYPE_STRING) {
        return "";
    }
    return gguf_get_val_str(g, id);
}

void read_metadata(const gguf_context * g, const llama_model & model, llama_adapter_lora & ad) {
    for (int64_t i = 0; i < gguf_get_n_kv(g); i++) {
        if (gguf_get_kv_type(g, i) != GGUF_TYPE_ARRAY) {
            ad.gguf_kv.emplace_back(gguf_get_key(g, i), llama_gguf_value_to_string(g, i));
        }
    }
    const std::string type = kv_str(g, llm_kv_key(LLM_KV_GENERAL_TYPE));
    if (type != "adapter") {
        throw llama_error(llama_format("not an adapter: %s is '%s', expected 'adapter'",
                                       llm_kv_key(LLM_KV_GENERAL_TYPE), type.c_str()));
    }
    const std::string arch = kv_str(g, llm_kv_key(LLM_KV_GENERAL_ARCHITECTURE));
    if (arch != model.arch_name) {
        throw llama_error("adapter architecture '" + arch + "' does not match the model's '" + model.arch_name + "'");
    }
    const std::string atype = kv_str(g, llm_kv_key(LLM_KV_ADAPTER_TYPE));
    if (atype != "lora") {
        throw llama_error(llama_format("%s is '%s', expected 'lora'", llm_kv_key(LLM_KV_ADAPTER_TYPE), atype.c_str()));
    }
    const int64_t alpha_id = gguf_find_key(g, llm_kv_key(LLM_KV_ADAPTER_LORA_ALPHA));
    if (alpha_id >= 0) {
        if (gguf_get_kv_type(g, alpha_id) != GGUF_TYPE_FLOAT32) {
            throw llama_error(llama_format("%s must be a FLOAT32", llm_kv_key(LLM_KV_ADAPTER_LORA_ALPHA)));
        }
        ad.alpha = gguf_get_val_f32(g, alpha_id);
    }
    const int64_t inv_id = gguf_find_key(g, llm_kv_key(LLM_KV_ADAPTER_ALORA_INVOCATION_TOKENS));
    if (inv_id >= 0) {
        if (gguf_get_kv_type(g, inv_id) != GGUF_TYPE_ARRAY || gguf_get_arr_type(g, inv_id) != GGUF_TYPE_UINT32) {
            throw llama_error(
                llama_format("%s must be an array of UINT32", llm_kv_key(LLM_KV_ADAPTER_ALORA_INVOCATION_TOKENS)));
        }
        const size_t     n       = gguf_get_arr_n(g, inv_id);
        const uint32_t * data    = (const uint32_t *) gguf_get_arr_data(g, inv_id);
        const uint32_t   n_vocab = (uint32_t) model.vocab.n_tokens();
        for (size_t i = 0; i < n; i++) {
            if (n_vocab > 0 && data[i] >= n_vocab) {
                throw llama_error(llama_format("aLoRA invocation token %u is not in the vocabulary", data[i]));
            }
            ad.alora_invocation_tokens.push_back((llama_token) data[i]);
        }
    }
}

bool is_matrix(const ggml_tensor * t) {
    return t->ne[2] == 1 && t->ne[3] == 1;
}

}  // namespace

// ---- LoRA ----------------------------------------------------------------------------------------

llama_adapter_lora::~llama_adapter_lora() {
    for (ggml_backend_buffer_t b : bufs) {
        ggml_backend_buffer_free(b);
    }
    for (ggml_context * c : ctxs) {
        ggml_free(c);
    }
}

const llama_adapter_lora_weight * llama_adapter_lora::get_weight(const ggml_tensor * w) const {
    if (!w) {
        return nullptr;
    }
    auto it = ab_map.find(ggml_get_name(w));
    return it == ab_map.end() ? nullptr : &it->second;
}

llama_adapter_lora * llama_adapter_lora_load(llama_model & model, const std::string & path) {
    llama_file_check_regular(path);
    gguf_init_params                            gp = {true};
    std::unique_ptr<gguf_context, gguf_deleter> g(gguf_init_from_file(path.c_str(), gp));
    if (!g) {
        throw llama_error("cannot read '" + path + "' as GGUF");
    }
    // the file's tensors as metadata-only ggml tensors (shapes and types)
    const int64_t    n_file = gguf_get_n_tensors(g.get());
    ggml_init_params mp     = {ggml_tensor_overhead() * (size_t) (n_file + 1), nullptr, true};
    std::unique_ptr<ggml_context, ggml_ctx_deleter> meta(ggml_init(mp));
    if (!meta) {
        throw llama_error("cannot create the adapter metadata context");
    }
    for (int64_t i = 0; i < n_file; i++) {
        int64_t ne[4];
        gguf_get_tensor_shape(g.get(), i, ne);
        ggml_tensor * t = ggml_new_tensor(meta.get(), gguf_get_tensor_type(g.get(), i), 4, ne);
        if (!t) {
            throw llama_error(llama_format("adapter tensor %lld has an invalid shape or type", (long long) i));
        }
        const char * name = gguf_get_tensor_name(g.get(), i);
        if (strlen(name) >= GGML_MAX_NAME) {
            throw llama_error(llama_format("adapter tensor name '%.40s...' is too long", name));
        }
        ggml_set_name(t, name);
    }

    std::unique_ptr<llama_adapter_lora> ad(new llama_adapter_lora());
    ad->model = &model;
    read_metadata(g.get(), model, *ad);

    // pair up <W>.lora_a / <W>.lora_b (file tensors, not yet on a device)
    std::map<std::string, llama_adapter_lora_weight> pairs;
    for (ggml_tensor * t = ggml_get_first_tensor(meta.get()); t; t = ggml_get_next_tensor(meta.get(), t)) {
        const std::string name = ggml_get_name(t);
        if (ends_with(name, ".lora_a")) {
            pairs[name.substr(0, name.size() - 7)].a = t;
        } else if (ends_with(name, ".lora_b")) {
            pairs[name.substr(0, name.size() - 7)].b = t;
        } else if (ends_with(name, "_norm.weight")) {
            continue;  // norm deltas: not applied (as upstream); most adapters carry none
        } else {
            throw llama_error("adapter tensor '" + name + "' is neither .lora_a nor .lora_b");
        }
    }
    if (pairs.empty()) {
        throw llama_error("the adapter has no lora_a/lora_b tensors");
    }

    // every data range inside the file before anything is allocated (a lying header must not make
    // us allocate gigabytes)
    llama_file   file(path);
    const size_t data_off = gguf_get_data_offset(g.get());
    auto         range_ok = [&](const ggml_tensor * t) {
        const int64_t id = gguf_find_tensor(g.get(), ggml_get_name(t));
        if (id < 0) {
            return false;
        }
        const size_t off  = data_off + gguf_get_tensor_offset(g.get(), id);
        const size_t size = ggml_nbytes(t);
        return off >= data_off && off + size >= off && off + size <= file.size();
    };

    buft_contexts ctxs(pairs.size() * 2);
    for (auto & it : pairs) {
        const std::string &         name = it.first;
        llama_adapter_lora_weight & p    = it.second;
        if (!p.a || !p.b) {
            throw llama_error("adapter pair for '" + name + "' lacks its " + (p.a ? "lora_b" : "lora_a"));
        }
        if (!range_ok(p.a) || !range_ok(p.b)) {
            throw llama_error("adapter data for '" + name + "' lies past the end of the file (truncated?)");
        }
        const ggml_tensor * w = model.get_tensor(name.c_str());
        if (!w) {
            throw llama_error("adapter tensor '" + name + "' adapts no weight of the model");
        }
        if (!is_matrix(w) || !is_matrix(p.a) || !is_matrix(p.b)) {
            throw llama_error("adapter for '" + name + "': only 2-D weights and factors are supported");
        }
        p.embd        = w == model.tok_embd;
        const bool ok = p.embd ? (w->ne[0] == p.b->ne[1] && w->ne[1] == p.a->ne[1] && p.a->ne[0] == p.b->ne[0])
                               : (w->ne[0] == p.a->ne[0] && w->ne[1] == p.b->ne[1] && p.a->ne[1] == p.b->ne[0]);
        if (!ok) {
            throw llama_error(
                llama_format("adapter for '%s' has the wrong shape: weight [%lld, %lld], lora_a [%lld, "
                             "%lld], lora_b [%lld, %lld]",
                             name.c_str(), (long long) w->ne[0], (long long) w->ne[1], (long long) p.a->ne[0],
                             (long long) p.a->ne[1], (long long) p.b->ne[0], (long long) p.b->ne[1]));
        }
        if (p.embd && (p.a->type != GGML_TYPE_F32 && p.a->type != GGML_TYPE_F16)) {
            throw llama_error("token_embd adapter: lora_a must be F32 or F16");
        }
        // token embeddings are gathered on the host: their factors stay on the CPU too
        ggml_context *            c = ctxs.get(buft_for(model, w), ad->ctxs);
        llama_adapter_lora_weight dev;
        dev.a    = ggml_dup_tensor(c, p.a);
        dev.b    = ggml_dup_tensor(c, p.b);
        dev.embd = p.embd;
        ggml_set_name(dev.a, ggml_get_name(p.a));
        ggml_set_name(dev.b, ggml_get_name(p.b));
        ad->ab_map[name] = dev;
    }
    ctxs.alloc(ad->bufs);

    // copy the data, every range checked against the file
    std::vector<uint8_t> buf;
    auto                 load = [&](const ggml_tensor * src, ggml_tensor * dst) {
        const int64_t id = gguf_find_tensor(g.get(), ggml_get_name(src));
        if (id < 0) {
            throw llama_error(llama_format("adapter tensor '%s' vanished from the file", ggml_get_name(src)));
        }
        const size_t off  = data_off + gguf_get_tensor_offset(g.get(), id);
        const size_t size = ggml_nbytes(src);
        if (off < data_off || off + size < off || off + size > file.size()) {
            throw llama_error(
                                llama_format("adapter tensor '%s' lies past the end of the file (truncated?)", ggml_get_name(src)));
        }
        buf.resize(size);
        file.read_at(off, buf.data(), size);
        ggml_backend_tensor_set(dst, buf.data(), 0, size);
    };
    for (auto & it : ad->ab_map) {
        const llama_adapter_lora_weight & src = pairs[it.first];
        load(src.a, it.second.a);
        load(src.b, it.second.b);
    }
    LLAMA_LOG_INFO("%s: loaded %zu adapted weights from '%s' (alpha %g, %zu invocation tokens)\n", __func__,
                   ad->ab_map.size(), path.c_str(), ad->alpha, ad->alora_invocation_tokens.size());
    return ad.release();
}

// ---- control vectors -----------------------------------------------------------------------------

llama_adapter_cvec::~llama_adapter_cvec() {
    for (ggml_backend_buffer_t b : bufs) {
        ggml_backend_buffer_free(b);
    }
    for (ggml_context * c : ctxs) {
        ggml_free(c);
    }
}

void llama_adapter_cvec::alloc(const llama_model & model) {
    const uint32_t n_layer = model.hparams.n_layer;
    buft_contexts  bc(n_layer);
    tensors.assign(n_layer, nullptr);
    present.assign(n_layer, false);
    for (uint32_t il = 1; il < n_layer; il++) {  // layer 0 never has a direction
        ggml_backend_dev_t         dev  = model.layer_dev((int) il);
        ggml_backend_buffer_type_t buft = ggml_backend_dev_buffer_type(dev ? dev : model.dev_cpu);
        tensors[il]                     = ggml_new_tensor_1d(bc.get(buft, ctxs), GGML_TYPE_F32, model.hparams.n_embd);
    }
    bc.alloc(bufs);
}

void llama_adapter_cvec::set(const llama_model & model, const float * data, size_t len, int32_t n_embd,
                             int32_t il_start, int32_t il_end) {
    if (!data) {
        layer_start = layer_end = -1;
        return;
    }
    if (n_embd != (int32_t) model.hparams.n_embd) {
        throw llama_error(
            llama_format("control vector n_embd %d does not match the model's %u", n_embd, model.hparams.n_embd));
    }
    if (tensors.empty() && model.hparams.n_layer > 1) {
        try {
            alloc(model);
        } catch (...) {
            // leave nothing half-made behind: the next set() starts over
            for (ggml_backend_buffer_t b : bufs) {
                ggml_backend_buffer_free(b);
            }
            for (ggml_context * c : ctxs) {
                ggml_free(c);
            }
            bufs.clear();
            ctxs.clear();
            tensors.clear();
            present.clear();
            throw;
        }
    }
    for (size_t il = 1; il < tensors.size(); il++) {
        const size_t off = (size_t) n_embd * (il - 1);
        if (off + n_embd <= len) {
            ggml_backend_tensor_set(tensors[il], data + off, 0, (size_t) n_embd * sizeof(float));
        }
        present[il] = off + n_embd <= len;  // no row for this layer: nothing is added there
    }
    layer_start = il_start;
    layer_end   = il_end;
}

ggml_tensor * llama_adapter_cvec::apply_to(ggml_context * ctx, ggml_tensor * cur, int il) const {
    if (il < 1 || il < layer_start || il > layer_end || (size_t) il >= tensors.size() || !present[il]) {
        return cur;
    }
    return ggml_add(ctx, cur, tensors[il]);
}
