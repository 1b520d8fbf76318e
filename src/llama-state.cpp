// Context state: llama_state_* (whole context) and llama_state_seq_* (one sequence), to memory
// and to files. The byte format is in llama-state-io.* and docs/state.md. A restore parses and
// validates everything first, so a rejected state leaves the context as it was.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ggml-os.h"
#include "llama-context.h"
#include "llama-log.h"
#include "llama-model.h"
#include "llama-state-io.h"

static constexpr uint32_t KNOWN_SEQ_FLAGS = LLAMA_STATE_SEQ_FLAGS_PARTIAL_ONLY;

static llama_state_io::expect state_expect(const llama_context & ctx, uint32_t kind) {
    const llama_hparams &  hp = ctx.model.hparams;
    llama_state_io::expect e;
    e.fp.arch    = llm_arch_name(ctx.model.arch);
    e.fp.n_layer = hp.n_layer;
    e.fp.n_vocab = hp.n_vocab;
    e.fp.n_embd  = hp.n_embd_out();  // the width of the saved embedding rows
    // a recurrent model's state takes the KV cache's layout (docs/state.md): its slots are the cells,
    // the conv and SSM states (F32) the K and V rows
    const llama_kv_cache * kv = ctx.kv_cache();
    e.fp.n_embd_k_gqa         = kv ? hp.n_embd_k_gqa() : hp.n_embd_r();
    // V held inside K (absorbed MLA) has no rows of its own: 0, which also refuses a state saved with a
    // separate V (the layout before V was kept in K)
    e.fp.n_embd_v_gqa = kv ? (kv->v_in_k() ? 0 : hp.n_embd_v_gqa()) : hp.n_embd_s();
    e.fp.type_k       = kv ? (uint32_t) kv->type_k() : (uint32_t) GGML_TYPE_F32;
    e.fp.type_v       = kv ? (uint32_t) kv->type_v() : (uint32_t) GGML_TYPE_F32;
    e.kind            = kind;
    e.kv_size         = kv ? kv->size() : ctx.recurrent()->n_slots();
    e.n_seq_max       = ctx.cparams.n_seq_max;
    if (kv) {
        e.n_layer_kv = hp.n_layer_kv();  // the layers with cells of their own (not gemma3n's KV-sharing ones)
    }
    if (kv && ctx.recurrent()) {
        // a hybrid model: the attention layers in the KV section, then the recurrent layers' states
        // (falcon-h1's layers are in both)
        const uint32_t n_recr = hp.n_layer_recurrent();
        e.rs_n_layer          = n_recr;
        e.rs_size             = ctx.recurrent()->n_slots();
        e.rs_k_row            = (size_t) hp.n_embd_r() * sizeof(float);
        e.rs_v_row            = (size_t) hp.n_embd_s() * sizeof(float);
    }
    return e;
}

void llama_context::state_write(llama_state_io::writer & w, llama_seq_id seq_id, uint32_t flags) const {
    const bool full = seq_id < 0;
    if (cparams.mtp) {
        throw llama_error("an MTP context (LLAMA_CONTEXT_TYPE_MTP) has no saveable state");
    }
    if (!full && seq_id >= (llama_seq_id) cparams.n_seq_max) {
        throw llama_error(llama_format("seq_id %d is out of range [0, %u)", seq_id, cparams.n_seq_max));
    }
    if (flags & ~KNOWN_SEQ_FLAGS) {
        throw llama_error(llama_format("unknown state flags 0x%x", flags));
    }
    const llama_state_io::expect e = state_expect(*this, full ? llama_state_io::KIND_FULL : llama_state_io::KIND_SEQ);
    w.begin(e.kind, flags, e.fp);
    if (full) {
        w.put_u32((uint32_t) output_ids.size());
        w.put(output_ids.data(), output_ids.size() * sizeof(int32_t));
        w.put_u32((uint32_t) n_outputs);
        w.put(logits.data(), (size_t) n_outputs * model.hparams.n_vocab * sizeof(float));
        const uint32_t n_embd_rows = embd.empty() ? 0 : (uint32_t) n_outputs;
        w.put_u32(n_embd_rows);
        w.put(embd.data(), (size_t) n_embd_rows * model.hparams.n_embd_out() * sizeof(float));
    }
    if (kv) {
        kv->state_write(w, seq_id);
    }
    if (rs) {
        rs->state_write(w, seq_id);  // a hybrid model: the second section
    }
    w.finish();
}

size_t llama_context::state_read(const uint8_t * src, size_t size, llama_seq_id dest, uint32_t flags, bool exact) {
    const bool full = dest < 0;
    if (cparams.mtp) {
        throw llama_error("an MTP context (LLAMA_CONTEXT_TYPE_MTP) has no saveable state");
    }
    if (flags & ~KNOWN_SEQ_FLAGS) {
        throw llama_error(llama_format("unknown state flags 0x%x", flags));
    }
    const llama_state_io::image img = llama_state_io::parse(
        src, size, state_expect(*this, full ? llama_state_io::KIND_FULL : llama_state_io::KIND_SEQ));
    if (exact && img.total != size) {
        throw llama_error(llama_format("%zu unexpected bytes after the state", size - img.total));
    }
    if (img.flags != flags) {
        throw llama_error(llama_format("state: saved with flags 0x%x, loaded with 0x%x", img.flags, flags));
    }
    // outputs are copied before the cache changes (only an allocation can fail here)
    std::vector<float>   new_logits, new_embd;
    std::vector<int32_t> new_ids;
    if (full) {
        new_logits.resize((size_t) img.n_outputs * model.hparams.n_vocab);
        memcpy(new_logits.data(), img.logits, new_logits.size() * sizeof(float));
        new_embd.resize((size_t) img.n_embd_rows * model.hparams.n_embd_out());
        memcpy(new_embd.data(), img.embd, new_embd.size() * sizeof(float));
        new_ids = img.output_ids;
    }
    if (kv && rs) {
        // a hybrid model: both parts are checked before either changes
        rs->state_check(img.rs.at(0), dest);
        kv->state_apply(img, dest);  // throws only before changing anything
        rs->state_apply(img.rs[0], dest);
    } else if (kv) {
        kv->state_apply(img, dest);  // throws only before changing anything
    } else {
        rs->state_apply(img, dest);
    }
    if (full) {
        logits.swap(new_logits);
        embd.swap(new_embd);
        output_ids.swap(new_ids);
        n_outputs = (int32_t) img.n_outputs;
        sampled.clear();  // backend-sampling results belong to the replaced outputs (not in the state)
    }
    return img.total;
}

// ---- files -------------------------------------------------------------------------------------

namespace {

struct file_closer {
    void operator()(FILE * f) const { fclose(f); }
};
using file_ptr = std::unique_ptr<FILE, file_closer>;

void put_bytes(std::vector<uint8_t> & v, const void * p, size_t n);

std::vector<uint8_t> read_whole_file(const char * path) {
    if (!path) {
        throw llama_error("path is NULL");
    }
    file_ptr f(ggml_os_fopen(path, "rb"));
    if (!f) {
        throw llama_error(ggml_os_error());
    }
    std::vector<uint8_t> buf;
    uint8_t              chunk[1 << 16];
    size_t               got;
    while ((got = fread(chunk, 1, sizeof(chunk), f.get())) > 0) {
        put_bytes(buf, chunk, got);
    }
    if (ferror(f.get())) {
        throw llama_error(llama_format("cannot read '%s'", path));
    }
    return buf;
}

// Writes header + state to path through a temporary file renamed into place, so a failed save
// never leaves a half-written session behind.
void write_file(const char * path, const std::vector<uint8_t> & head, const std::vector<uint8_t> & state) {
    if (!path) {
        throw llama_error("path is NULL");
    }
    const std::string tmp = std::string(path) + ".tmp";
    {
        file_ptr f(ggml_os_fopen(tmp.c_str(), "wb"));
        if (!f) {
            throw llama_error(llama_format("cannot create '%s': %s", tmp.c_str(), ggml_os_error()));
        }
        const bool ok = fwrite(head.data(), 1, head.size(), f.get()) == head.size() &&
                        fwrite(state.data(), 1, state.size(), f.get()) == state.size() && fflush(f.get()) == 0;
        if (!ok) {
            f.reset();
            ggml_os_remove(tmp.c_str());
            throw llama_error(llama_format("cannot write '%s'", tmp.c_str()));
        }
    }
    if (!ggml_os_rename_replace(tmp.c_str(), path)) {
        const std::string why = ggml_os_error();
        ggml_os_remove(tmp.c_str());
        throw llama_error(why);
    }
}

// resize + memcpy rather than insert: GCC 12 warns (falsely) on small range inserts
void put_bytes(std::vector<uint8_t> & v, const void * p, size_t n) {
    if (n == 0) {
        return;
    }
    const size_t o = v.size();
    v.resize(o + n);
    memcpy(v.data() + o, p, n);
}

void put_u32(std::vector<uint8_t> & v, uint32_t x) {
    put_bytes(v, &x, 4);
}

uint32_t get_u32(const std::vector<uint8_t> & v, size_t off) {
    uint32_t x;
    memcpy(&x, v.data() + off, 4);
    return x;
}

// The file header: magic, version, token count, tokens.
std::vector<uint8_t> file_header(uint32_t magic, uint32_t version, const llama_token * tokens, size_t n) {
    if (n > 0 && !tokens) {
        throw llama_error("tokens is NULL but n_token_count > 0");
    }
    if (n > UINT32_MAX / sizeof(llama_token)) {
        throw llama_error("too many tokens");
    }
    std::vector<uint8_t> h;
    put_u32(h, magic);
    put_u32(h, version);
    put_u32(h, (uint32_t) n);
    put_bytes(h, tokens, n * sizeof(llama_token));
    return h;
}

// Checks the header of a state file; returns its token count (tokens start at byte 12).
uint32_t check_file_header(const std::vector<uint8_t> & buf, uint32_t magic, uint32_t version, const char * what,
                           uint32_t n_vocab) {
    if (buf.size() < 12) {
        throw llama_error(llama_format("not a %s file: %zu bytes", what, buf.size()));
    }
    if (get_u32(buf, 0) != magic) {
        throw llama_error(llama_format("not a %s file (magic 0x%08x)", what, get_u32(buf, 0)));
    }
    if (get_u32(buf, 4) != version) {
        throw llama_error(llama_format("%s file version %u, this library reads %u", what, get_u32(buf, 4), version));
    }
    const uint32_t n = get_u32(buf, 8);
    if (n > (buf.size() - 12) / sizeof(llama_token)) {
        throw llama_error(llama_format("truncated %s file: %u tokens", what, n));
    }
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t t = get_u32(buf, 12 + (size_t) i * 4);
        if (t >= n_vocab) {
            throw llama_error(llama_format("%s file: token %u is out of the vocabulary", what, t));
        }
    }
    return n;
}

llama_context & need(llama_context * ctx) {
    if (!ctx) {
        throw llama_error("ctx is NULL");
    }
    return *ctx;
}

std::vector<uint8_t> state_bytes(const llama_context & ctx, llama_seq_id seq_id, uint32_t flags) {
    std::vector<uint8_t>   v;
    llama_state_io::writer w(&v);
    ctx.state_write(w, seq_id, flags);
    return v;
}

// Loads a state file into ctx (dest < 0: whole context). Returns the file size.
size_t load_file(llama_context & ctx, const char * path, llama_seq_id dest, llama_token * tokens_out,
                 size_t n_token_capacity, size_t * n_token_count_out, bool seq) {
    const std::vector<uint8_t> buf   = read_whole_file(path);
    const uint32_t             magic = seq ? LLAMA_STATE_SEQ_MAGIC : LLAMA_SESSION_MAGIC;
    const uint32_t             ver   = seq ? LLAMA_STATE_SEQ_VERSION : LLAMA_SESSION_VERSION;
    const char *               what  = seq ? "sequence state" : "session";
    const uint32_t             n     = check_file_header(buf, magic, ver, what, ctx.model.hparams.n_vocab);
    if (n > n_token_capacity) {
        throw llama_error(
            llama_format("the %s file holds %u tokens, n_token_capacity is %zu", what, n, n_token_capacity));
    }
    if (n > 0 && !tokens_out) {
        throw llama_error("tokens_out is NULL");
    }
    const size_t off = 12 + (size_t) n * sizeof(llama_token);
    // exact: trailing bytes make the file corrupt (checked before anything is restored)
    ctx.state_read(buf.data() + off, buf.size() - off, dest, 0, true);
    if (n > 0) {
        memcpy(tokens_out, buf.data() + 12, (size_t) n * sizeof(llama_token));
    }
    if (n_token_count_out) {
        *n_token_count_out = n;
    }
    return buf.size();
}

}  // namespace

// ---- C API -------------------------------------------------------------------------------------

size_t llama_state_get_size(struct llama_context * ctx) {
    return llama_api_guard(__func__, (size_t) 0, [&]() -> size_t {
        llama_state_io::writer w;
        need(ctx).state_write(w, -1, 0);
        return w.size();
    });
}

size_t llama_state_get_data(struct llama_context * ctx, uint8_t * dst, size_t size) {
    return llama_api_guard(__func__, (size_t) 0, [&]() -> size_t {
        if (!dst) {
            throw llama_error("dst is NULL");
        }
        llama_state_io::writer w(dst, size);
        need(ctx).state_write(w, -1, 0);
        return w.size();
    });
}

size_t llama_state_set_data(struct llama_context * ctx, const uint8_t * src, size_t size) {
    return llama_api_guard(__func__, (size_t) 0, [&]() -> size_t { return need(ctx).state_read(src, size, -1, 0); });
}

bool llama_state_load_file(struct llama_context * ctx, const char * path_session, llama_token * tokens_out,
                           size_t n_token_capacity, size_t * n_token_count_out) {
    return llama_api_guard(__func__, false, [&]() -> bool {
        return load_file(need(ctx), path_session, -1, tokens_out, n_token_capacity, n_token_count_out, false) > 0;
    });
}

bool llama_state_save_file(struct llama_context * ctx, const char * path_session, const llama_token * tokens,
                           size_t n_token_count) {
    return llama_api_guard(__func__, false, [&]() -> bool {
        const std::vector<uint8_t> head =
            file_header(LLAMA_SESSION_MAGIC, LLAMA_SESSION_VERSION, tokens, n_token_count);
        write_file(path_session, head, state_bytes(need(ctx), -1, 0));
        return true;
    });
}

size_t llama_state_seq_get_size(struct llama_context * ctx, llama_seq_id seq_id) {
    return llama_state_seq_get_size_ext(ctx, seq_id, LLAMA_STATE_SEQ_FLAGS_NONE);
}

size_t llama_state_seq_get_data(struct llama_context * ctx, uint8_t * dst, size_t size, llama_seq_id seq_id) {
    return llama_state_seq_get_data_ext(ctx, dst, size, seq_id, LLAMA_STATE_SEQ_FLAGS_NONE);
}

size_t llama_state_seq_set_data(struct llama_context * ctx, const uint8_t * src, size_t size,
                                llama_seq_id dest_seq_id) {
    return llama_state_seq_set_data_ext(ctx, src, size, dest_seq_id, LLAMA_STATE_SEQ_FLAGS_NONE);
}

size_t llama_state_seq_get_size_ext(struct llama_context * ctx, llama_seq_id seq_id, llama_state_seq_flags flags) {
    return llama_api_guard(__func__, (size_t) 0, [&]() -> size_t {
        if (seq_id < 0) {
            throw llama_error(llama_format("seq_id %d is negative", seq_id));
        }
        llama_state_io::writer w;
        need(ctx).state_write(w, seq_id, flags);
        return w.size();
    });
}

size_t llama_state_seq_get_data_ext(struct llama_context * ctx, uint8_t * dst, size_t size, llama_seq_id seq_id,
                                    llama_state_seq_flags flags) {
    return llama_api_guard(__func__, (size_t) 0, [&]() -> size_t {
        if (!dst) {
            throw llama_error("dst is NULL");
        }
        if (seq_id < 0) {
            throw llama_error(llama_format("seq_id %d is negative", seq_id));
        }
        llama_state_io::writer w(dst, size);
        need(ctx).state_write(w, seq_id, flags);
        return w.size();
    });
}

size_t llama_state_seq_set_data_ext(struct llama_context * ctx, const uint8_t * src, size_t size,
                                    llama_seq_id dest_seq_id, llama_state_seq_flags flags) {
    return llama_api_guard(__func__, (size_t) 0, [&]() -> size_t {
        if (dest_seq_id < 0) {
            throw llama_error(llama_format("dest_seq_id %d is negative", dest_seq_id));
        }
        return need(ctx).state_read(src, size, dest_seq_id, flags);
    });
}

size_t llama_state_seq_save_file(struct llama_context * ctx, const char * filepath, llama_seq_id seq_id,
                                 const llama_token * tokens, size_t n_token_count) {
    return llama_api_guard(__func__, (size_t) 0, [&]() -> size_t {
        if (seq_id < 0) {
            throw llama_error(llama_format("seq_id %d is negative", seq_id));
        }
        const std::vector<uint8_t> head =
            file_header(LLAMA_STATE_SEQ_MAGIC, LLAMA_STATE_SEQ_VERSION, tokens, n_token_count);
        const std::vector<uint8_t> state = state_bytes(need(ctx), seq_id, 0);
        write_file(filepath, head, state);
        return head.size() + state.size();
    });
}

size_t llama_state_seq_load_file(struct llama_context * ctx, const char * filepath, llama_seq_id dest_seq_id,
                                 llama_token * tokens_out, size_t n_token_capacity, size_t * n_token_count_out) {
    return llama_api_guard(__func__, (size_t) 0, [&]() -> size_t {
        llama_context & c = need(ctx);
        if (dest_seq_id < 0) {
            throw llama_error(llama_format("dest_seq_id %d is negative", dest_seq_id));
        }
        if (!tokens_out) {
            // count only (as llama.cpp): nothing is restored
            if (!n_token_count_out) {
                throw llama_error("tokens_out and n_token_count_out are both NULL");
            }
            const std::vector<uint8_t> buf = read_whole_file(filepath);
            *n_token_count_out             = check_file_header(buf, LLAMA_STATE_SEQ_MAGIC, LLAMA_STATE_SEQ_VERSION,
                                                               "sequence state", c.model.hparams.n_vocab);
            return (size_t) 12;
        }
        return load_file(c, filepath, dest_seq_id, tokens_out, n_token_capacity, n_token_count_out, true);
    });
}

// ---- deprecated names (llama.cpp compatibility) ------------------------------------------------

size_t llama_get_state_size(struct llama_context * ctx) {
    return llama_state_get_size(ctx);
}

size_t llama_copy_state_data(struct llama_context * ctx, uint8_t * dst) {
    return llama_state_get_data(ctx, dst, SIZE_MAX);
}

size_t llama_set_state_data(struct llama_context * ctx, const uint8_t * src) {
    return llama_state_set_data(ctx, src, SIZE_MAX);
}

bool llama_load_session_file(struct llama_context * ctx, const char * path_session, llama_token * tokens_out,
                             size_t n_token_capacity, size_t * n_token_count_out) {
    return llama_state_load_file(ctx, path_session, tokens_out, n_token_capacity, n_token_count_out);
}

bool llama_save_session_file(struct llama_context * ctx, const char * path_session, const llama_token * tokens,
                             size_t n_token_count) {
    return llama_state_save_file(ctx, path_session, tokens, n_token_count);
}
