#include "llama-state-io.h"

#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "ggml.h"
#include "llama-log.h"

namespace llama_state_io {

// self-contained formatting: the fuzz harness links this file without the rest of libllama
static llama_error fail(const char * fmt, ...) LLAMA_ATTRIBUTE_FORMAT(1, 2);
static llama_error fail(const char * fmt, ...) {
    char    buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    return llama_error(std::string("state: ") + buf);
}

uint64_t checksum(const uint8_t * p, size_t n) {
    uint64_t       h     = 0xcbf29ce484222325ull;
    const uint64_t prime = 0x100000001b3ull;
    size_t         i     = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * prime;
    }
    for (; i < n; i++) {
        h = (h ^ p[i]) * prime;
    }
    return h;
}

// ---- reading -----------------------------------------------------------------------------------

namespace {

struct reader {
    const uint8_t * p;
    size_t          n;
    size_t          off = 0;

    const uint8_t * take(size_t k, const char * what) {
        if (k > n - off) {
            throw fail("truncated: %s needs %zu bytes at offset %zu, %zu left", what, k, off, n - off);
        }
        const uint8_t * r = p + off;
        off += k;
        return r;
    }
    uint32_t u32(const char * what) {
        uint32_t v;
        memcpy(&v, take(4, what), 4);
        return v;
    }
    int32_t i32(const char * what) {
        int32_t v;
        memcpy(&v, take(4, what), 4);
        return v;
    }
    uint64_t u64(const char * what) {
        uint64_t v;
        memcpy(&v, take(8, what), 8);
        return v;
    }
};

size_t mul_checked(size_t a, size_t b, const char * what) {
    if (a != 0 && b > SIZE_MAX / a) {
        throw fail("%s: size overflow", what);
    }
    return a * b;
}

void read_fingerprint(reader & r, fingerprint & fp) {
    const uint32_t len = r.u32("arch name length");
    if (len == 0 || len > MAX_ARCH_LEN) {
        throw fail("invalid architecture name length %u", len);
    }
    const uint8_t * s = r.take(len, "arch name");
    fp.arch.assign((const char *) s, len);
    fp.n_layer      = r.u32("n_layer");
    fp.n_vocab      = r.u32("n_vocab");
    fp.n_embd       = r.u32("n_embd");
    fp.n_embd_k_gqa = r.u32("n_embd_k_gqa");
    fp.n_embd_v_gqa = r.u32("n_embd_v_gqa");
    fp.type_k       = r.u32("type_k");
    fp.type_v       = r.u32("type_v");
}

const char * type_name(uint32_t t) {
    return ggml_type_is_valid((ggml_type) t) ? ggml_type_name((ggml_type) t) : "invalid";
}

void check_fingerprint(const fingerprint & got, const fingerprint & want) {
    if (got.arch != want.arch) {
        throw fail("saved from a '%.64s' model, this model is '%s'", got.arch.c_str(), want.arch.c_str());
    }
    const struct {
        const char * name;
        uint32_t     got, want;
    } fields[] = {
        {"n_layer", got.n_layer, want.n_layer},
        {"n_vocab", got.n_vocab, want.n_vocab},
        {"n_embd", got.n_embd, want.n_embd},
        {"n_embd_k_gqa", got.n_embd_k_gqa, want.n_embd_k_gqa},
        {"n_embd_v_gqa", got.n_embd_v_gqa, want.n_embd_v_gqa},
    };
    if (want.n_embd_v_gqa == 0 && got.n_embd_v_gqa != 0 && got.n_embd_k_gqa == want.n_embd_k_gqa) {
        throw fail(
            "the state stores V rows (%u values) apart from K; this context holds V inside K (latent "
            "attention): save the state again with this library",
            got.n_embd_v_gqa);
    }
    for (const auto & f : fields) {
        if (f.got != f.want) {
            throw fail("saved from a different model (%s %u, this model has %u)", f.name, f.got, f.want);
        }
    }
    if (got.type_k != want.type_k || got.type_v != want.type_v) {
        throw fail("the saved KV cache is %s/%s (K/V), this context's is %s/%s", type_name(got.type_k),
                   type_name(got.type_v), type_name(want.type_k), type_name(want.type_v));
    }
}

// One memory section: the cache layout, its cell records, then per layer the K rows of every cell
// and their V rows (docs/state.md).
void parse_section(reader & r, image & sec, uint32_t kind, uint32_t kv_size, uint32_t n_seq_max, size_t k_row,
                   size_t v_row, uint32_t n_layer) {
    sec.src_kv_size        = r.u32("source cache size");
    sec.head               = r.u32("head");
    const uint32_t n_cells = r.u32("cell count");
    if (sec.src_kv_size == 0 || sec.head >= sec.src_kv_size || n_cells > sec.src_kv_size) {
        throw fail("invalid cache layout (%u cells of %u, head %u)", n_cells, sec.src_kv_size, sec.head);
    }
    if (n_cells > kv_size) {
        throw fail("the state holds %u cells, this context's cache has %u (n_ctx too small)", n_cells, kv_size);
    }
    constexpr size_t CELL_SIZE = 20;
    if ((size_t) n_cells > (r.n - r.off) / CELL_SIZE) {
        throw fail("truncated: %u cells", n_cells);
    }
    sec.cells.resize(n_cells);
    for (cell_rec & c : sec.cells) {
        c.idx   = r.u32("cell index");
        c.pos   = r.i32("cell pos");
        c.shift = r.i32("cell shift");
        c.seqs  = r.u64("cell sequences");
        if (c.idx >= sec.src_kv_size) {
            throw fail("cell index %u is outside the source cache (%u cells)", c.idx, sec.src_kv_size);
        }
        if (c.pos < 0 || c.pos == INT32_MAX) {
            throw fail("invalid position %d in cell %u", c.pos, c.idx);  // the next token's must exist
        }
        if (kind == KIND_SEQ ? c.seqs != 0 : c.seqs == 0) {
            throw fail("invalid sequence set 0x%llx in cell %u", (unsigned long long) c.seqs, c.idx);
        }
        if (n_seq_max < 64 && (c.seqs >> n_seq_max) != 0) {
            throw fail("cell %u holds a sequence id >= n_seq_max (%u) of this context", c.idx, n_seq_max);
        }
    }

    // cell indices are distinct (checked sorted, so no table sized by the untrusted cache size)
    std::vector<uint32_t> idxs(n_cells);
    for (uint32_t j = 0; j < n_cells; j++) {
        idxs[j] = sec.cells[j].idx;
    }
    std::sort(idxs.begin(), idxs.end());
    for (uint32_t j = 1; j < n_cells; j++) {
        if (idxs[j] == idxs[j - 1]) {
            throw fail("cell index %u appears twice", idxs[j]);
        }
    }

    sec.k_row               = k_row;
    sec.v_row               = v_row;
    const size_t per_layer  = mul_checked(n_cells, sec.k_row + sec.v_row, "KV data");
    const size_t data_bytes = mul_checked(per_layer, n_layer, "KV data");
    sec.kv_data             = r.take(data_bytes, "KV data");
}

}  // namespace

bool peek_fingerprint(const uint8_t * data, size_t size, fingerprint & fp, uint32_t & kind) {
    try {
        reader r{data, size};
        if (r.u32("magic") != MAGIC || r.u32("version") != VERSION) {
            return false;
        }
        r.u64("total size");
        kind = r.u32("kind");
        r.u32("flags");
        read_fingerprint(r, fp);
        return true;
    } catch (const llama_error &) {
        return false;
    }
}

image parse(const uint8_t * data, size_t size, const expect & e) {
    if (!data) {
        throw fail("the buffer is NULL");
    }
    reader         r{data, size};
    const uint32_t magic = r.u32("magic");
    if (magic != MAGIC) {
        throw fail("bad magic 0x%08x (not a libllama state)", magic);
    }
    const uint32_t version = r.u32("version");
    if (version != VERSION) {
        throw fail("unsupported version %u (this library reads %u)", version, VERSION);
    }
    const uint64_t total = r.u64("total size");
    if (total < HEADER_SIZE + CHECKSUM_SIZE || total > size) {
        throw fail("truncated or corrupt: the state says %llu bytes, the buffer has %zu", (unsigned long long) total,
                   size);
    }
    uint64_t sum;
    memcpy(&sum, data + total - CHECKSUM_SIZE, CHECKSUM_SIZE);
    if (sum != checksum(data, (size_t) total - CHECKSUM_SIZE)) {
        throw fail("checksum mismatch: the state is corrupt");
    }
    r.n = (size_t) total - CHECKSUM_SIZE;  // the checksum is not payload

    image img;
    img.total = (size_t) total;
    img.kind  = r.u32("kind");
    img.flags = r.u32("flags");
    if (img.kind != e.kind) {
        throw fail("this is a %s state, a %s state was expected", img.kind == KIND_SEQ ? "sequence" : "full-context",
                   e.kind == KIND_SEQ ? "sequence" : "full-context");
    }
    if (img.flags & ~1u) {
        throw fail("unknown flags 0x%x", img.flags);
    }
    read_fingerprint(r, img.fp);
    check_fingerprint(img.fp, e.fp);
    const fingerprint & fp = img.fp;

    if (img.kind == KIND_FULL) {
        const uint32_t n_ids = r.u32("output id count");
        if ((size_t) n_ids > (r.n - r.off) / 4) {
            throw fail("truncated: %u output ids", n_ids);
        }
        img.output_ids.resize(n_ids);
        for (uint32_t i = 0; i < n_ids; i++) {
            img.output_ids[i] = r.i32("output id");
        }
        img.n_outputs = r.u32("n_outputs");
        if (img.n_outputs > n_ids) {
            throw fail("%u outputs for %u batch tokens", img.n_outputs, n_ids);
        }
        // every row is named by exactly one batch token
        std::vector<bool> seen(img.n_outputs, false);
        uint32_t          n_named = 0;
        for (int32_t id : img.output_ids) {
            if (id < -1 || id >= (int32_t) img.n_outputs || (id >= 0 && seen[id])) {
                throw fail("invalid output id %d (%u outputs)", id, img.n_outputs);
            }
            if (id >= 0) {
                seen[id] = true;
                n_named++;
            }
        }
        if (n_named != img.n_outputs) {
            throw fail("%u output rows but %u batch tokens name one", img.n_outputs, n_named);
        }
        const size_t n_logits = mul_checked(mul_checked(img.n_outputs, fp.n_vocab, "logits"), 4, "logits");
        img.logits            = r.take(n_logits, "logits");
        img.n_embd_rows       = r.u32("embedding rows");
        if (img.n_embd_rows != 0 && img.n_embd_rows != img.n_outputs) {
            throw fail("%u embedding rows for %u outputs", img.n_embd_rows, img.n_outputs);
        }
        img.embd =
            r.take(mul_checked(mul_checked(img.n_embd_rows, fp.n_embd, "embeddings"), 4, "embeddings"), "embeddings");
    }

    if (!ggml_type_is_valid((ggml_type) fp.type_k) || !ggml_type_is_valid((ggml_type) fp.type_v)) {
        throw fail("invalid cache type");  // unreachable after check_fingerprint with a valid expectation
    }
    const uint32_t n_layer_kv = e.n_layer_kv > 0 ? e.n_layer_kv : fp.n_layer;
    parse_section(r, img, img.kind, e.kv_size, e.n_seq_max, ggml_row_size((ggml_type) fp.type_k, fp.n_embd_k_gqa),
                  ggml_row_size((ggml_type) fp.type_v, fp.n_embd_v_gqa), n_layer_kv);
    if (e.rs_n_layer > 0) {  // a hybrid model's recurrent section follows
        img.rs.emplace_back();
        img.rs[0].kind = img.kind;
        parse_section(r, img.rs[0], img.kind, e.rs_size, e.n_seq_max, e.rs_k_row, e.rs_v_row, e.rs_n_layer);
    }
    if (r.off != r.n) {
        throw fail("%zu unexpected bytes after the KV data", r.n - r.off);
    }
    return img;
}

// ---- writing -----------------------------------------------------------------------------------

uint8_t * writer::reserve(size_t k) {
    if (vec) {
        vec->resize(n + k);
        uint8_t * p = vec->data() + n;
        n += k;
        return p;
    }
    if (dst) {
        if (k > cap - n) {
            throw fail("the destination buffer (%zu bytes) is too small", cap);
        }
        uint8_t * p = dst + n;
        n += k;
        return p;
    }
    n += k;
    return nullptr;
}

void writer::put(const void * p, size_t k) {
    if (k == 0) {
        return;  // p may be NULL (an empty vector's data()), which memcpy must not see
    }
    uint8_t * d = reserve(k);
    if (d) {
        memcpy(d, p, k);
    }
}

void writer::begin(uint32_t kind, uint32_t flags, const fingerprint & fp) {
    put_u32(MAGIC);
    put_u32(VERSION);
    put_u64(0);  // total size, set by finish()
    put_u32(kind);
    put_u32(flags);
    put_u32((uint32_t) fp.arch.size());
    put(fp.arch.data(), fp.arch.size());
    put_u32(fp.n_layer);
    put_u32(fp.n_vocab);
    put_u32(fp.n_embd);
    put_u32(fp.n_embd_k_gqa);
    put_u32(fp.n_embd_v_gqa);
    put_u32(fp.type_k);
    put_u32(fp.type_v);
}

void writer::finish() {
    const uint64_t total = (uint64_t) (n + CHECKSUM_SIZE);
    if (counting()) {
        n += CHECKSUM_SIZE;
        return;
    }
    memcpy(base() + 8, &total, 8);
    const uint64_t sum = checksum(base(), n);
    put_u64(sum);
}

}  // namespace llama_state_io
