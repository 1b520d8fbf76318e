// Importance-matrix files: the GGUF format llama.cpp's llama-imatrix writes (general.type
// "imatrix"; per weight matrix "<name>.in_sum2" F32 [n_cols, n_mat] with the sums of squared input
// activations and "<name>.counts" F32 [1, n_mat] with the number of activation rows summed, one
// matrix per expert of a MoE tensor; imatrix.datasets, imatrix.chunk_count, imatrix.chunk_size)
// and its legacy .dat format (int32 n_entries; per entry int32 name length, name, int32 ncall,
// int32 nval, nval floats = mean * ncall; then optionally int32 chunk count, int32 length, dataset).
// Header-only on the public gguf.h so llama-imatrix, llama-quantize and the tests share it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ggml.h"
#include "gguf.h"

namespace imatrix {

constexpr const char * KEY_DATASETS    = "imatrix.datasets";
constexpr const char * KEY_CHUNK_COUNT = "imatrix.chunk_count";
constexpr const char * KEY_CHUNK_SIZE  = "imatrix.chunk_size";

// One weight matrix (or MoE tensor): sums[m * n_cols + c] = sum of x_c^2 over the counts[m]
// activation rows that went through matrix m.
struct entry {
    std::vector<double>  sums;
    std::vector<int64_t> counts;
    int64_t              n_cols() const { return counts.empty() ? 0 : (int64_t) (sums.size() / counts.size()); }
};

struct data {
    std::map<std::string, entry> entries;  // by weight name ("blk.0.attn_q.weight")
    std::vector<std::string>     datasets;
    int32_t                      chunk_count = 0;
    int32_t                      chunk_size  = 0;
    bool                         is_legacy   = false;  // read from a .dat file (counts = ncall)
};

namespace detail {

struct gguf_free_t {
    void operator()(gguf_context * g) const { gguf_free(g); }
};
using gguf_ptr = std::unique_ptr<gguf_context, gguf_free_t>;

inline bool ends_with(const std::string & s, const std::string & suf) {
    return s.size() >= suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
}

inline bool read_exact(FILE * f, void * p, size_t n) {
    return fread(p, 1, n, f) == n;
}

// The legacy format. Sums there hold mean * ncall; counts become {ncall}.
inline bool load_legacy(const std::string & path, data & out, std::string & err) {
    std::unique_ptr<FILE, int (*)(FILE *)> f(ggml_fopen(path.c_str(), "rb"), fclose);
    if (!f) {
        err = "cannot open " + path;
        return false;
    }
    int32_t n_entries = 0;
    if (!read_exact(f.get(), &n_entries, 4) || n_entries < 1 || n_entries > 1000000) {
        err = path + ": neither a GGUF nor a legacy imatrix file (bad entry count)";
        return false;
    }
    for (int32_t i = 0; i < n_entries; i++) {
        int32_t len = 0, ncall = 0, nval = 0;
        if (!read_exact(f.get(), &len, 4) || len < 1 || len > 4096) {
            err = path + ": bad name length in entry " + std::to_string(i);
            return false;
        }
        std::string name((size_t) len, '\0');
        if (!read_exact(f.get(), &name[0], (size_t) len) || !read_exact(f.get(), &ncall, 4) ||
            !read_exact(f.get(), &nval, 4) || nval < 1 || nval > (1 << 28) || ncall < 0) {
            err = path + ": truncated or invalid entry " + std::to_string(i);
            return false;
        }
        std::vector<float> v((size_t) nval);
        if (!read_exact(f.get(), v.data(), (size_t) nval * 4)) {
            err = path + ": truncated data in entry " + name;
            return false;
        }
        entry & e = out.entries[name];
        e.sums.assign(v.begin(), v.end());
        e.counts = {ncall};
    }
    int32_t n_chunks = 0, len = 0;
    if (read_exact(f.get(), &n_chunks, 4)) {
        out.chunk_count = n_chunks;
        if (read_exact(f.get(), &len, 4) && len > 0 && len < (1 << 20)) {
            std::string ds((size_t) len, '\0');
            if (read_exact(f.get(), &ds[0], (size_t) len)) {
                out.datasets.push_back(ds);
            }
        }
    }
    out.chunk_size = 0;
    out.is_legacy  = true;
    return true;
}

}  // namespace detail

// Reads a GGUF imatrix, or (when the file is not GGUF) a legacy .dat one. False with err set on
// any malformed content; `out` is then unspecified.
inline bool load(const std::string & path, data & out, std::string & err) {
    out          = data();
    FILE * probe = ggml_fopen(path.c_str(), "rb");
    if (!probe) {
        err = "cannot open " + path;
        return false;
    }
    char       magic[4] = {};
    const bool is_gguf  = fread(magic, 1, 4, probe) == 4 && memcmp(magic, "GGUF", 4) == 0;
    fclose(probe);
    if (!is_gguf) {
        return detail::load_legacy(path, out, err);
    }
    detail::gguf_ptr g(gguf_init_from_file(path.c_str(), {/*no_alloc =*/false}));
    if (!g) {
        err = path + ": " + gguf_last_error();
        return false;
    }
    const int64_t kd = gguf_find_key(g.get(), KEY_DATASETS);
    if (kd >= 0 && gguf_get_kv_type(g.get(), kd) == GGUF_TYPE_ARRAY &&
        gguf_get_arr_type(g.get(), kd) == GGUF_TYPE_STRING) {
        for (size_t i = 0; i < gguf_get_arr_n(g.get(), kd); i++) {
            out.datasets.push_back(gguf_get_arr_str(g.get(), kd, i));
        }
    }
    const int64_t kc = gguf_find_key(g.get(), KEY_CHUNK_COUNT);
    const int64_t ks = gguf_find_key(g.get(), KEY_CHUNK_SIZE);
    if (kd < 0 || kc < 0 || ks < 0 || gguf_get_kv_type(g.get(), kc) != GGUF_TYPE_UINT32 ||
        gguf_get_kv_type(g.get(), ks) != GGUF_TYPE_UINT32) {
        err = path + ": missing imatrix metadata (imatrix.datasets, chunk_count, chunk_size)";
        return false;
    }
    out.chunk_count = (int32_t) gguf_get_val_u32(g.get(), kc);
    out.chunk_size  = (int32_t) gguf_get_val_u32(g.get(), ks);

    const std::string                                  sfx_sums = ".in_sum2", sfx_counts = ".counts";
    std::map<std::string, std::pair<int64_t, int64_t>> ids;  // name -> (sums id, counts id)
    for (int64_t i = 0; i < gguf_get_n_tensors(g.get()); i++) {
        std::string name = gguf_get_tensor_name(g.get(), i);
        if (detail::ends_with(name, sfx_sums)) {
            name.resize(name.size() - sfx_sums.size());
            auto it          = ids.emplace(name, std::make_pair(-1, -1)).first;
            it->second.first = i;
        } else if (detail::ends_with(name, sfx_counts)) {
            name.resize(name.size() - sfx_counts.size());
            auto it           = ids.emplace(name, std::make_pair(-1, -1)).first;
            it->second.second = i;
        }
    }
    if (ids.empty()) {
        err = path + ": no imatrix entries";
        return false;
    }
    for (const auto & kv : ids) {
        const int64_t is = kv.second.first, ic = kv.second.second;
        if (is < 0 || ic < 0) {
            err = path + ": " + kv.first + " lacks its in_sum2 or counts tensor";
            return false;
        }
        if (gguf_get_tensor_type(g.get(), is) != GGML_TYPE_F32 || gguf_get_tensor_type(g.get(), ic) != GGML_TYPE_F32) {
            err = path + ": " + kv.first + ": in_sum2 and counts must be F32";
            return false;
        }
        int64_t nes[4], nec[4];
        gguf_get_tensor_shape(g.get(), is, nes);
        gguf_get_tensor_shape(g.get(), ic, nec);
        const int64_t nval = nes[0] * nes[1] * nes[2] * nes[3];
        const int64_t ncnt = nec[0] * nec[1] * nec[2] * nec[3];
        if (ncnt < 1 || nval < 1 || nval % ncnt != 0) {
            err = path + ": " + kv.first + ": in_sum2 size is not a multiple of the counts";
            return false;
        }
        const float * s = (const float *) gguf_get_tensor_data(g.get(), is);
        const float * c = (const float *) gguf_get_tensor_data(g.get(), ic);
        if (!s || !c) {
            err = path + ": " + kv.first + ": no tensor data";
            return false;
        }
        entry & e = out.entries[kv.first];
        e.sums.assign(s, s + nval);
        e.counts.resize((size_t) ncnt);
        for (int64_t j = 0; j < ncnt; j++) {
            e.counts[j] = std::isfinite(c[j]) && c[j] > 0 ? std::llround(c[j]) : 0;
        }
    }
    return true;
}

// Writes `d` in the GGUF format (entries in name order, as llama.cpp). False with err on failure.
inline bool save_gguf(const std::string & path, const data & d, std::string & err) {
    detail::gguf_ptr          g(gguf_init_empty());
    std::vector<const char *> ds;
    for (const auto & s : d.datasets) {
        ds.push_back(s.c_str());
    }
    bool ok = g && gguf_set_val_str(g.get(), "general.type", "imatrix") &&
              gguf_set_arr_str(g.get(), KEY_DATASETS, ds.data(), ds.size()) &&
              gguf_set_val_u32(g.get(), KEY_CHUNK_COUNT, (uint32_t) d.chunk_count) &&
              gguf_set_val_u32(g.get(), KEY_CHUNK_SIZE, (uint32_t) d.chunk_size);
    // the data pointers must live until the file is written
    std::vector<std::vector<float>> bufs;
    bufs.reserve(2 * d.entries.size());
    for (const auto & kv : d.entries) {
        const entry & e = kv.second;
        if (!ok || e.counts.empty() || e.sums.empty()) {
            continue;
        }
        const int64_t nmat = (int64_t) e.counts.size();
        bufs.emplace_back(e.sums.begin(), e.sums.end());
        const int64_t ne_s[2] = {e.n_cols(), nmat};
        ok = gguf_add_tensor_info(g.get(), (kv.first + ".in_sum2").c_str(), GGML_TYPE_F32, 2, ne_s, bufs.back().data());
        bufs.emplace_back(e.counts.begin(), e.counts.end());
        const int64_t ne_c[2] = {1, nmat};
        ok                    = ok &&
             gguf_add_tensor_info(g.get(), (kv.first + ".counts").c_str(), GGML_TYPE_F32, 2, ne_c, bufs.back().data());
    }
    if (!ok || !gguf_write_to_file(g.get(), path.c_str(), false)) {
        err = "cannot write " + path + ": " + gguf_last_error();
        return false;
    }
    return true;
}

// Writes `d` in the legacy .dat format (mean * ncall per value; entries without data skipped; an
// unexercised expert's values stored as 1, as llama.cpp does).
inline bool save_legacy(const std::string & path, const data & d, std::string & err) {
    std::unique_ptr<FILE, int (*)(FILE *)> f(ggml_fopen(path.c_str(), "wb"), fclose);
    if (!f) {
        err = "cannot create " + path;
        return false;
    }
    const int32_t                                            chunk = d.chunk_size > 0 ? d.chunk_size : 1;
    std::vector<const std::pair<const std::string, entry> *> store;
    for (const auto & kv : d.entries) {
        if (!kv.second.counts.empty() && *std::max_element(kv.second.counts.begin(), kv.second.counts.end()) > 0) {
            store.push_back(&kv);
        }
    }
    bool          ok = true;
    auto          w  = [&](const void * p, size_t n) { ok = ok && fwrite(p, 1, n, f.get()) == n; };
    const int32_t ne = (int32_t) store.size();
    w(&ne, 4);
    for (const auto * kv : store) {
        const entry & e   = kv->second;
        const int32_t len = (int32_t) kv->first.size();
        w(&len, 4);
        w(kv->first.data(), (size_t) len);
        const int64_t cmax  = *std::max_element(e.counts.begin(), e.counts.end());
        const int32_t ncall = d.is_legacy ? (int32_t) cmax : (int32_t) ((cmax + chunk - 1) / chunk);
        const int32_t nval  = (int32_t) e.sums.size();
        w(&ncall, 4);
        w(&nval, 4);
        const int64_t      nc = e.n_cols();
        std::vector<float> v((size_t) nval);
        for (int32_t i = 0; i < nval; i++) {
            const int64_t cnt = e.counts[(size_t) (i / nc)];
            v[(size_t) i] =
                d.is_legacy ? (float) e.sums[(size_t) i]
                            : (cnt > 0 ? (float) (e.sums[(size_t) i] / (double) cnt) * (float) ncall : (float) ncall);
        }
        w(v.data(), v.size() * 4);
    }
    w(&d.chunk_count, 4);
    const std::string ds  = d.datasets.empty() ? std::string() : d.datasets.back();
    const int32_t     dsl = (int32_t) ds.size();
    w(&dsl, 4);
    w(ds.data(), ds.size());
    if (!ok) {
        err = "write failed: " + path;
    }
    return ok;
}

// Adds `from` into `into` (sums and counts; datasets appended; chunk counts added). A legacy
// entry (mean * ncall, counts {ncall}) is turned into sums over ncall * chunk_size rows, as
// llama.cpp's --in-file does. False with err on mismatched shapes.
inline bool merge(data & into, const data & from, int32_t chunk_size, std::string & err) {
    for (const auto & kv : from.entries) {
        entry src = kv.second;
        if (from.is_legacy) {
            const int64_t ncall = src.counts.empty() ? 0 : src.counts[0];
            for (auto & s : src.sums) {
                s *= (double) chunk_size;  // mean * ncall * chunk_size = the sum over that many rows
            }
            src.counts = {ncall * chunk_size};
        }
        entry & e = into.entries[kv.first];
        if (e.sums.empty()) {
            e = src;
            continue;
        }
        if (e.sums.size() != src.sums.size()) {
            err = "imatrix entry " + kv.first + " has " + std::to_string(src.sums.size()) + " values, expected " +
                  std::to_string(e.sums.size());
            return false;
        }
        if (e.counts.size() == 1 && src.counts.size() > 1) {
            e.counts.resize(src.counts.size(), e.counts[0]);
        }
        if (src.counts.size() == 1 && e.counts.size() > 1) {
            src.counts.resize(e.counts.size(), src.counts[0]);
        }
        if (e.counts.size() != src.counts.size()) {
            err = "imatrix entry " + kv.first + ": mismatched expert counts";
            return false;
        }
        for (size_t i = 0; i < e.sums.size(); i++) {
            e.sums[i] += src.sums[i];
        }
        for (size_t i = 0; i < e.counts.size(); i++) {
            e.counts[i] += src.counts[i];
        }
    }
    into.datasets.insert(into.datasets.end(), from.datasets.begin(), from.datasets.end());
    into.chunk_count += from.chunk_count;
    return true;
}

// The per-column importance llama_model_quantize takes (llama_model_imatrix_data): the mean
// squared activation per matrix (sums / counts; 1 for an expert that saw no token), or for a legacy
// file its values / ncall.
inline std::vector<float> mean_values(const entry & e, bool legacy) {
    std::vector<float> out(e.sums.size(), 1.0f);
    const int64_t      nc = e.n_cols();
    for (size_t i = 0; i < e.sums.size() && nc > 0; i++) {
        const int64_t cnt = e.counts[i / (size_t) nc];
        if (legacy) {
            out[i] = cnt > 0 ? (float) (e.sums[i] / (double) cnt) : (float) e.sums[i];
        } else if (cnt > 0) {
            out[i] = (float) (e.sums[i] / (double) cnt);
        }
    }
    return out;
}

}  // namespace imatrix
