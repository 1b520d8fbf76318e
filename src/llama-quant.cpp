// llama_model_quantize: reads a GGUF model, converts its weight matrices to the types of an ftype mix
// and writes a new GGUF. Tensors are streamed in file order through a read / convert / write
// pipeline (input read with positioned reads), so memory stays at about five tensors whatever the
// model size, and the disk works while the compute threads do.
#include "llama-quant.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <future>
#include <map>
#include <memory>
#include <thread>
#include <vector>

#include "ggml-os.h"
#include "gguf.h"
#include "llama-gguf.h"
#include "llama-log.h"
#include "llama-mmap.h"
#include "llama-model.h"

// The per-tensor type choice of each mix (recipes, block-size fallbacks) is in llama-quant-mix.cpp.

// Layer index of "blk.N.xxx", or -1.
static int layer_of(const std::string & name) {
    int il = -1;
    return sscanf(name.c_str(), "blk.%d.", &il) == 1 ? il : -1;
}

bool llama_quant_requires_imatrix(const std::string & name, ggml_type type, llama_ftype ftype) {
    if (name == "token_embd.weight" || name == "output.weight") {
        return false;
    }
    switch (type) {
        case GGML_TYPE_IQ1_S:
        case GGML_TYPE_IQ1_M:
        case GGML_TYPE_IQ2_XXS:
        case GGML_TYPE_IQ2_XS:
        case GGML_TYPE_IQ2_S:
        case GGML_TYPE_IQ3_XXS:
            return true;
        case GGML_TYPE_Q2_K:
            return ftype == LLAMA_FTYPE_MOSTLY_Q2_K_S;
        default:
            return ggml_quantize_requires_imatrix(type);
    }
}

// ---------------------------------------------------------------------------------------------
// conversion

namespace {

struct gguf_deleter {
    void operator()(gguf_context * c) const { gguf_free(c); }
};
using gguf_ptr = std::unique_ptr<gguf_context, gguf_deleter>;

struct file_closer {
    void operator()(FILE * f) const { fclose(f); }
};
using file_ptr = std::unique_ptr<FILE, file_closer>;

// An integer metadata value; def if absent or not an integer (throws when it does not fit int64).
int64_t get_int(const gguf_context * g, const std::string & key, int64_t def) {
    const int64_t id = gguf_find_key(g, key.c_str());
    int64_t       v  = def;
    if (id >= 0) {
        llama_gguf_get_int(g, id, v);
    }
    return v;
}

llama_quant_model_info model_info(const gguf_context * g) {
    llama_quant_model_info info;
    std::string            arch;
    const int64_t          aid = gguf_find_key(g, llm_kv_key(LLM_KV_GENERAL_ARCHITECTURE));
    if (aid >= 0 && gguf_get_kv_type(g, aid) == GGUF_TYPE_STRING) {
        arch = gguf_get_val_str(g, aid);
    }
    int max_layer = -1;
    for (int64_t i = 0; i < gguf_get_n_tensors(g); i++) {
        const char * name = gguf_get_tensor_name(g, i);
        max_layer         = std::max(max_layer, layer_of(name));
        info.has_output   = info.has_output || strcmp(name, "output.weight") == 0;
    }
    info.n_layer         = (int32_t) get_int(g, llm_kv_name(LLM_KV_BLOCK_COUNT, arch), max_layer + 1);
    const int64_t n_head = get_int(g, llm_kv_name(LLM_KV_ATTENTION_HEAD_COUNT, arch), 1);
    const int64_t n_kv   = get_int(g, llm_kv_name(LLM_KV_ATTENTION_HEAD_COUNT_KV, arch), n_head);
    info.n_gqa           = n_kv > 0 && n_head % n_kv == 0 ? (int32_t) (n_head / n_kv) : 1;
    info.n_expert        = (int32_t) get_int(g, llm_kv_name(LLM_KV_EXPERT_COUNT, arch), 0);
    return info;
}

void apply_overrides(gguf_context * out, const llama_model_kv_override * kv) {
    for (; kv && kv->key[0] != '\0'; kv++) {
        char key[sizeof(kv->key) + 1];
        memcpy(key, kv->key, sizeof(kv->key));
        key[sizeof(kv->key)] = '\0';
        switch (kv->tag) {
            case LLAMA_KV_OVERRIDE_TYPE_INT:
                gguf_set_val_i32(out, key, (int32_t) kv->val_i64);
                break;
            case LLAMA_KV_OVERRIDE_TYPE_FLOAT:
                gguf_set_val_f32(out, key, (float) kv->val_f64);
                break;
            case LLAMA_KV_OVERRIDE_TYPE_BOOL:
                gguf_set_val_bool(out, key, kv->val_bool);
                break;
            case LLAMA_KV_OVERRIDE_TYPE_STR: {
                char val[sizeof(kv->val_str) + 1];
                memcpy(val, kv->val_str, sizeof(kv->val_str));
                val[sizeof(kv->val_str)] = '\0';
                gguf_set_val_str(out, key, val);
                break;
            }
            default:
                throw llama_error(llama_format("kv override '%s': invalid type %d", key, (int) kv->tag));
        }
    }
}

// Converts nrows rows of n_per_row values of type `src_t` to `dst_t`, splitting rows over threads.
// imatrix: NULL or n_per_row importance weights shared by all the rows (one matrix / one expert).
void convert_rows(ggml_type src_t, const uint8_t * src, ggml_type dst_t, uint8_t * dst, int64_t nrows,
                  int64_t n_per_row, int nthread, const float * imatrix) {
    const size_t src_row = ggml_row_size(src_t, n_per_row);
    const size_t dst_row = ggml_row_size(dst_t, n_per_row);
    // a thread needs enough work to pay for its start (~64k values)
    const int64_t max_threads = std::max<int64_t>(1, nrows * n_per_row / 65536);
    const int     nt          = (int) std::min<int64_t>({(int64_t) nthread, nrows, max_threads});

    std::vector<char> failed(nt, 0);
    auto              work = [&](int ith) {
        const int64_t      r0    = nrows * ith / nt;
        const int64_t      r1    = nrows * (ith + 1) / nt;
        const int64_t      chunk = std::max<int64_t>(1, 65536 / n_per_row);
        std::vector<float> buf;
        for (int64_t r = r0; r < r1; r += chunk) {
            const int64_t n = std::min(chunk, r1 - r);
            buf.resize((size_t) (n * n_per_row));
            for (int64_t k = 0; k < n; k++) {
                if (!ggml_dequantize_row(src_t, src + (size_t) (r + k) * src_row, buf.data() + k * n_per_row,
                                                      n_per_row)) {
                    failed[ith] = 1;
                    return;
                }
            }
            if (ggml_quantize_chunk(dst_t, buf.data(), dst + (size_t) r * dst_row, 0, n, n_per_row, imatrix) == 0) {
                failed[ith] = 1;
                return;
            }
        }
    };
    std::vector<std::thread> threads;
    for (int i = 1; i < nt; i++) {
        threads.emplace_back(work, i);
    }
    work(0);
    for (auto & t : threads) {
        t.join();
    }
    if (std::find(failed.begin(), failed.end(), 1) != failed.end()) {
        throw llama_error(
            llama_format("conversion from %s to %s failed", ggml_type_name(src_t), ggml_type_name(dst_t)));
    }
}

void write_zeros(FILE * f, size_t n) {
    static const char zeros[64] = {};
    while (n > 0) {
        const size_t k = std::min(n, sizeof(zeros));
        if (fwrite(zeros, 1, k, f) != k) {
            throw llama_error("write failed");
        }
        n -= k;
    }
}

// Creates or truncates fname for writing without blocking: a FIFO without a reader fails at once
// (instead of waiting for one), and anything but a regular file is refused.
static FILE * open_output(const char * fname) {
    FILE *    f = nullptr;
    const int r = ggml_os_fopen_write_regular(fname, &f);
    if (r == GGML_OS_NOT_REGULAR) {
        throw llama_error(llama_format("'%s' is not a regular file (FIFOs and devices are refused)", fname));
    }
    if (r != GGML_OS_OK) {
        throw llama_error(llama_format("failed to create '%s': %s", fname, ggml_os_error()));
    }
    return f;
}

struct tensor_plan {
    int64_t       id;
    ggml_type     src_type;
    ggml_type     dst_type;
    int           n_dims;
    int64_t       ne[4];
    const float * imatrix;  // ne[0] * ne[2] importance weights (one row per expert) or NULL
};

// The caller's importance-matrix entries by tensor name (the array ends with a NULL name); every
// value must be finite.
std::map<std::string, const llama_model_imatrix_data *> imatrix_index(const llama_model_imatrix_data * im) {
    std::map<std::string, const llama_model_imatrix_data *> out;
    for (; im && im->name; im++) {
        if (!im->data && im->size > 0) {
            throw llama_error(llama_format("imatrix entry %s has no data", im->name));
        }
        for (size_t i = 0; i < im->size; i++) {
            if (!std::isfinite(im->data[i])) {
                throw llama_error(llama_format("imatrix entry %s contains a non-finite value", im->name));
            }
        }
        out[im->name] = im;
    }
    return out;
}

void quantize_impl(const char * fname_inp, const char * fname_out, const llama_model_quantize_params & params,
                   bool & created) {
    if (!fname_inp || !fname_out) {
        throw llama_error("input and output paths are required");
    }
    if (strcmp(fname_inp, fname_out) == 0) {
        throw llama_error("the output file must differ from the input file");
    }
    if (params.tt_overrides || params.prune_layers) {
        throw llama_error("tt_overrides and prune_layers are not supported (must be NULL)");
    }
    if (params.dry_run) {
        throw llama_error("dry_run is not supported");
    }
    const auto imatrix = imatrix_index(params.imatrix);
    if (params.imatrix) {
        LLAMA_LOG_INFO("%s: importance matrix with %zu entries\n", __func__, imatrix.size());
    }
    llama_file_check_regular(fname_inp);  // before gguf opens it: a FIFO would block there
    gguf_ptr in(gguf_init_from_file(fname_inp, {/*no_alloc =*/true}));
    if (!in) {
        throw llama_error(llama_format("failed to read GGUF file '%s'", fname_inp));
    }
    const llama_file fin(fname_inp);  // positioned reads: the reader thread shares no file position
    if (get_int(in.get(), llm_kv_key(LLM_KV_SPLIT_COUNT), 1) > 1) {
        throw llama_error("split models are not supported; merge the splits first");
    }

    llama_ftype ftype = params.ftype;
    if (params.only_copy) {
        ftype = (llama_ftype) get_int(in.get(), llm_kv_key(LLM_KV_GENERAL_FILE_TYPE), LLAMA_FTYPE_ALL_F32);
    } else if (llama_quant_base_type(ftype) == GGML_TYPE_COUNT) {
        throw llama_error(llama_format("unsupported ftype %d", (int) ftype));
    }
    const int nthread = params.nthread > 0 ? params.nthread : (int) std::max(1u, std::thread::hardware_concurrency());
    const llama_quant_model_info info = model_info(in.get());

    // plan every tensor's type first: the output header (with offsets) precedes the data
    gguf_ptr out(gguf_init_empty());
    if (!out || !gguf_set_kv(out.get(), in.get())) {
        throw llama_error("failed to copy the metadata");
    }
    gguf_set_val_u32(out.get(), llm_kv_key(LLM_KV_GENERAL_QUANTIZATION_VERSION), 2);
    gguf_set_val_u32(out.get(), llm_kv_key(LLM_KV_GENERAL_FILE_TYPE), (uint32_t) ftype);
    apply_overrides(out.get(), (const llama_model_kv_override *) params.kv_overrides);

    std::vector<tensor_plan> plan;
    int                      n_fallback = 0;
    for (int64_t i = 0; i < gguf_get_n_tensors(in.get()); i++) {
        tensor_plan p{};
        p.id       = i;
        p.src_type = gguf_get_tensor_type(in.get(), i);
        p.n_dims   = (int) gguf_get_tensor_n_dims(in.get(), i);
        gguf_get_tensor_shape(in.get(), i, p.ne);
        p.dst_type = p.src_type;

        const std::string name     = gguf_get_tensor_name(in.get(), i);
        int               eff_dims = p.n_dims;  // trailing 1s do not make a matrix
        while (eff_dims > 1 && p.ne[eff_dims - 1] == 1) {
            eff_dims--;
        }
        if (!params.only_copy && llama_quant_is_weight_matrix(name, eff_dims)) {
            ggml_type t = llama_quant_recipe_type(name, info, params, p.ne[0]);
            if (t != GGML_TYPE_COUNT) {
                const ggml_type fb = llama_quant_fallback_type(t, p.ne[0]);
                if (fb != t) {
                    LLAMA_LOG_WARN("%s: %s has rows of %lld, not a multiple of %lld: %s instead of %s\n", __func__,
                                   name.c_str(), (long long) p.ne[0], (long long) ggml_blck_size(t), ggml_type_name(fb),
                                   ggml_type_name(t));
                    n_fallback++;
                }
                p.dst_type    = fb;
                const auto it = imatrix.find(name);
                if (it != imatrix.end() && ggml_is_quantized(fb)) {
                    if (it->second->size != (size_t) (p.ne[0] * p.ne[2])) {
                        // a stale imatrix (another model, or split experts) would silently misweight
                        if (name != "token_embd.weight") {
                            throw llama_error(llama_format("imatrix entry %s has %zu values, the tensor needs %lld",
                                                           name.c_str(), it->second->size,
                                                           (long long) (p.ne[0] * p.ne[2])));
                        }
                    } else {
                        p.imatrix = it->second->data;
                    }
                }
                if (!p.imatrix && llama_quant_requires_imatrix(name, fb, ftype)) {
                    throw llama_error(
                        llama_format("%s as %s needs an importance matrix (llama-imatrix; pass it with "
                                     "--imatrix): without one the result is unusable",
                                     name.c_str(), ggml_type_name(fb)));
                }
                if (params.imatrix && !p.imatrix && ggml_is_quantized(fb)) {
                    LLAMA_LOG_INFO("%s: no importance weights for %s\n", __func__, name.c_str());
                }
            }
        } else if (!params.only_copy && ftype == LLAMA_FTYPE_ALL_F32 &&
                   (p.src_type == GGML_TYPE_F16 || p.src_type == GGML_TYPE_BF16)) {
            p.dst_type = GGML_TYPE_F32;
        }
        if (p.dst_type != p.src_type && ggml_is_quantized(p.src_type) && !params.allow_requantize) {
            throw llama_error(llama_format("tensor %s is already %s: requantizing is disabled (allow_requantize)",
                                           name.c_str(), ggml_type_name(p.src_type)));
        }
        if (!gguf_add_tensor_info(out.get(), name.c_str(), p.dst_type, p.n_dims, p.ne, nullptr)) {
            throw llama_error(llama_format("failed to add tensor %s", name.c_str()));
        }
        plan.push_back(p);
    }

    file_ptr fout(open_output(fname_out));
    created                        = true;
    const size_t         meta_size = gguf_get_meta_size(out.get());
    std::vector<uint8_t> meta(meta_size);
    gguf_get_meta_data(out.get(), meta.data());
    if (fwrite(meta.data(), 1, meta_size, fout.get()) != meta_size) {
        throw llama_error("write failed");
    }

    LLAMA_LOG_INFO("%s: %s -> %s as %s, %d threads, %zu tensors\n", __func__, fname_inp, fname_out,
                   llama_model_ftype_name(ftype), nthread, plan.size());
    const size_t  data_in  = gguf_get_data_offset(in.get());
    size_t        total_in = 0, total_out = 0;
    const int64_t t_start = llama_time_us();

    // A three-stage pipeline: tensor k+1 is read and tensor k-1 written while tensor k converts on
    // the compute threads. Three input and two output buffers; the futures are declared after the
    // buffers so that an exception joins the I/O before the buffers go away.
    std::vector<uint8_t> src[3], dst[2];
    auto                 read_tensor = [&](size_t k) {
        const tensor_plan &    p   = plan[k];
        std::vector<uint8_t> & buf = src[k % 3];
        buf.resize(gguf_get_tensor_size(in.get(), p.id));
        try {
            fin.read_at(data_in + gguf_get_tensor_offset(in.get(), p.id), buf.data(), buf.size());
        } catch (const llama_error & e) {
            throw llama_error(
                                llama_format("failed to read the data of %s: %s", gguf_get_tensor_name(in.get(), p.id), e.what()));
        }
    };
    size_t pos         = 0;  // relative to the output data section; touched by the writes only
    auto   write_bytes = [&](size_t k, const uint8_t * data, size_t off, size_t n) {
        write_zeros(fout.get(), off - pos);  // alignment padding
        if (fwrite(data, 1, n, fout.get()) != n) {
            throw llama_error(
                  llama_format("failed to write the data of %s", gguf_get_tensor_name(in.get(), plan[k].id)));
        }
        pos = off + n;
    };
    std::future<void> reading, writing;
    if (!plan.empty()) {
        reading = std::async(std::launch::async, read_tensor, (size_t) 0);
    }
    for (size_t k = 0; k < plan.size(); k++) {
        reading.get();
        if (k + 1 < plan.size()) {
            reading = std::async(std::launch::async, read_tensor, k + 1);
        }
        const tensor_plan & p      = plan[k];
        const char *        name   = gguf_get_tensor_name(in.get(), p.id);
        const size_t        n_in   = src[k % 3].size();
        const int64_t       id_out = gguf_find_tensor(out.get(), name);
        const size_t        off    = gguf_get_tensor_offset(out.get(), id_out);
        const size_t        n_out  = gguf_get_tensor_size(out.get(), id_out);

        const uint8_t * data = src[k % 3].data();
        if (p.dst_type != p.src_type) {
            dst[k % 2].resize(n_out);
            if (p.imatrix) {
                // one matrix per expert, each with its own importance row
                const int64_t nrow = p.ne[1];
                const size_t  srs = ggml_row_size(p.src_type, p.ne[0]), drs = ggml_row_size(p.dst_type, p.ne[0]);
                for (int64_t i3 = 0; i3 < p.ne[3]; i3++) {
                    for (int64_t i2 = 0; i2 < p.ne[2]; i2++) {
                        const int64_t r0 = (i3 * p.ne[2] + i2) * nrow;
                        convert_rows(p.src_type, data + r0 * srs, p.dst_type, dst[k % 2].data() + r0 * drs, nrow,
                                     p.ne[0], nthread, p.imatrix + i2 * p.ne[0]);
                    }
                }
            } else {
                convert_rows(p.src_type, data, p.dst_type, dst[k % 2].data(), p.ne[1] * p.ne[2] * p.ne[3], p.ne[0],
                             nthread, nullptr);
            }
            data = dst[k % 2].data();
        }
        if (writing.valid()) {
            writing.get();  // tensor k-1, whose buffers the next iteration reuses
        }
        writing = std::async(std::launch::async, write_bytes, k, data, off, n_out);
        total_in += n_in;
        total_out += n_out;
        LLAMA_LOG_INFO("[%4zu/%4zu] %-36s %-22s %6s -> %-6s %9.2f MiB -> %9.2f MiB\n", k + 1, plan.size(), name,
                       llama_format_shape(p.ne, p.n_dims).c_str(), ggml_type_name(p.src_type),
                       ggml_type_name(p.dst_type), n_in / 1048576.0, n_out / 1048576.0);
    }
    if (writing.valid()) {
        writing.get();
    }
    if (fflush(fout.get()) != 0 || ferror(fout.get())) {
        throw llama_error("write failed");
    }
    LLAMA_LOG_INFO("%s: model size %.2f MiB -> %.2f MiB (%d fallback tensors) in %.1f s\n", __func__,
                   total_in / 1048576.0, total_out / 1048576.0, n_fallback, (llama_time_us() - t_start) / 1e6);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// C API

struct llama_model_quantize_params llama_model_quantize_default_params(void) {
    llama_model_quantize_params p;
    memset(&p, 0, sizeof(p));
    p.nthread                = 0;
    p.ftype                  = LLAMA_FTYPE_MOSTLY_Q5_1;
    p.output_tensor_type     = GGML_TYPE_COUNT;
    p.token_embedding_type   = GGML_TYPE_COUNT;
    p.allow_requantize       = false;
    p.quantize_output_tensor = true;
    p.only_copy              = false;
    p.pure                   = false;
    p.keep_split             = false;
    p.dry_run                = false;
    return p;
}

uint32_t llama_model_quantize(const char * fname_inp, const char * fname_out,
                              const struct llama_model_quantize_params * params) {
    const llama_model_quantize_params p       = params ? *params : llama_model_quantize_default_params();
    bool                              created = false;
    const uint32_t                    rc      = llama_api_guard(__func__, (uint32_t) 1, [&]() -> uint32_t {
        quantize_impl(fname_inp, fname_out, p, created);
        return 0;
    });
    if (rc != 0 && created) {
        ggml_os_remove(fname_out);  // never leave a truncated model behind
    }
    return rc;
}
