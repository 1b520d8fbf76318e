#include "prompt-cache.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "ggml.h"

namespace prompt_cache {

namespace {

constexpr uint64_t FNV_OFFSET = 0xcbf29ce484222325ull;
constexpr uint64_t FNV_PRIME  = 0x100000001b3ull;
// more tokens than any context holds: a larger count is damage, not a big prompt
constexpr uint32_t MAX_TOKENS = 1u << 26;

// FNV-1a over 8-byte little-endian words, then the tail bytes (as the library's state checksum):
// a word at a time keeps a multi-GiB state's checksum far below the cost of writing it. Fed in
// pieces (header, state) it gives what one contiguous buffer gives.
struct fnv_stream {
    uint64_t h = FNV_OFFSET;
    uint8_t  buf[8];
    size_t   n_buf = 0;

    void word(const uint8_t * p) {
        uint64_t w;
        memcpy(&w, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        w = __builtin_bswap64(w);  // the words are little-endian in every file
#endif
        h = (h ^ w) * FNV_PRIME;
    }

    void add(const uint8_t * p, size_t n) {
        if (n == 0) {
            return;  // p may be NULL then (an empty vector's data()), which memcpy must not see
        }
        if (n_buf > 0) {  // complete the word a previous piece started
            const size_t k = std::min(n, 8 - n_buf);
            memcpy(buf + n_buf, p, k);
            n_buf += k;
            p += k;
            n -= k;
            if (n_buf < 8) {
                return;
            }
            word(buf);
            n_buf = 0;
        }
        for (; n >= 8; p += 8, n -= 8) {
            word(p);
        }
        if (n > 0) {
            memcpy(buf, p, n);
        }
        n_buf = n;
    }

    uint64_t finish() const {
        uint64_t r = h;
        for (size_t i = 0; i < n_buf; i++) {
            r = (r ^ buf[i]) * FNV_PRIME;
        }
        return r;
    }
};

uint64_t fnv(const uint8_t * p, size_t n, uint64_t h = FNV_OFFSET) {
    fnv_stream f;
    f.h = h;
    f.add(p, n);
    return f.finish();
}

uint64_t fnv_str(const std::string & s, uint64_t h) {
    // the length first, so that ("ab","c") and ("a","bc") differ
    const uint64_t n = s.size();
    h                = fnv((const uint8_t *) &n, sizeof n, h);
    return fnv((const uint8_t *) s.data(), s.size(), h);
}

void put_u32(std::vector<uint8_t> & out, uint32_t v) {
    for (int i = 0; i < 4; i++) {
        out.push_back((uint8_t) (v >> (8 * i)));
    }
}

void put_u64(std::vector<uint8_t> & out, uint64_t v) {
    for (int i = 0; i < 8; i++) {
        out.push_back((uint8_t) (v >> (8 * i)));
    }
}

uint32_t get_u32(const uint8_t * p) {
    return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

uint64_t get_u64(const uint8_t * p) {
    return (uint64_t) get_u32(p) | (uint64_t) get_u32(p + 4) << 32;
}

uint64_t float_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

error fail(error::kind_t k, std::string reason) {
    return {k, std::move(reason)};
}

std::string type_name(uint32_t t) {
    return t < (uint32_t) GGML_TYPE_COUNT ? ggml_type_name((ggml_type) t) : "type " + std::to_string(t);
}

}  // namespace

fingerprint make_fingerprint(const llama_model * model, const llama_context_params & cp, const std::string & adapters) {
    fingerprint fp;
    uint64_t    h = FNV_OFFSET;
    char        buf[256];
    if (llama_model_desc(model, buf, sizeof buf) >= 0) {
        h = fnv_str(buf, h);
    }
    const llama_vocab * vocab   = llama_model_get_vocab(model);
    const uint64_t      shape[] = {llama_model_n_params(model), llama_model_size(model),
                                   (uint64_t) llama_vocab_n_tokens(vocab), (uint64_t) llama_model_n_embd(model),
                                   (uint64_t) llama_model_n_layer(model)};
    h                           = fnv((const uint8_t *) shape, sizeof shape, h);
    // the metadata names the model (general.name, its source, its hyper-parameters); a value may be
    // longer than the buffer: the call then reports its length and the first part is hashed
    const int32_t n_meta = llama_model_meta_count(model);
    for (int32_t i = 0; i < n_meta; i++) {
        if (llama_model_meta_key_by_index(model, i, buf, sizeof buf) >= 0) {
            h = fnv_str(buf, h);
        }
        if (llama_model_meta_val_str_by_index(model, i, buf, sizeof buf) >= 0) {
            h = fnv_str(buf, h);
        }
    }
    for (llama_token t = 0; t < llama_vocab_n_tokens(vocab); t++) {
        const char * s = llama_vocab_get_text(vocab, t);
        h              = fnv_str(s ? s : "", h);
    }
    fp.model              = h;
    fp.type_k             = (uint32_t) cp.type_k;
    fp.type_v             = (uint32_t) cp.type_v;
    const uint64_t rope[] = {(uint64_t) cp.rope_scaling_type, float_bits(cp.rope_freq_base),
                             float_bits(cp.rope_freq_scale),  float_bits(cp.yarn_ext_factor),
                             float_bits(cp.yarn_attn_factor), float_bits(cp.yarn_beta_fast),
                             float_bits(cp.yarn_beta_slow),   cp.yarn_orig_ctx};
    fp.rope               = fnv((const uint8_t *) rope, sizeof rope);
    fp.adapters           = adapters.empty() ? 0 : fnv_str(adapters, FNV_OFFSET);
    return fp;
}

std::vector<uint8_t> encode_header(const fingerprint & fp, const std::vector<llama_token> & tokens, size_t n_state) {
    std::vector<uint8_t> out;
    out.reserve(HEADER_SIZE + 4 * tokens.size());
    put_u32(out, MAGIC);
    put_u32(out, VERSION);
    put_u64(out, fp.model);
    put_u32(out, fp.type_k);
    put_u32(out, fp.type_v);
    put_u64(out, fp.rope);
    put_u64(out, fp.adapters);
    put_u32(out, (uint32_t) tokens.size());
    put_u64(out, n_state);
    const size_t sum_at = out.size();
    put_u64(out, 0);
    for (llama_token t : tokens) {
        put_u32(out, (uint32_t) t);
    }
    // the header checksum covers the header (before it) and the tokens (after it)
    const uint64_t hs = fnv(out.data() + HEADER_SIZE, out.size() - HEADER_SIZE, fnv(out.data(), sum_at));
    for (int i = 0; i < 8; i++) {
        out[sum_at + (size_t) i] = (uint8_t) (hs >> (8 * i));
    }
    return out;
}

namespace {

// The checksum that ends a file of `head` then `state`, as its 8 bytes.
std::vector<uint8_t> tail_of(const std::vector<uint8_t> & head, const uint8_t * state, size_t n_state) {
    fnv_stream f;
    f.add(head.data(), head.size());
    f.add(state, n_state);
    std::vector<uint8_t> out;
    put_u64(out, f.finish());
    return out;
}

}  // namespace

std::vector<uint8_t> encode(const fingerprint & fp, const std::vector<llama_token> & tokens, const uint8_t * state,
                            size_t n_state) {
    std::vector<uint8_t>       out  = encode_header(fp, tokens, n_state);
    const std::vector<uint8_t> tail = tail_of(out, state, n_state);
    out.insert(out.end(), state, state + n_state);
    out.insert(out.end(), tail.begin(), tail.end());
    return out;
}

error parse_header(const uint8_t * data, size_t n, uint64_t file_size, const fingerprint & fp, int32_t n_vocab,
                   header & h) {
    if (file_size == 0) {
        return fail(error::damaged, "empty file");
    }
    if (file_size < 8 || n < 8) {
        return fail(error::damaged, "truncated header");
    }
    if (get_u32(data) != MAGIC) {
        return fail(error::damaged, "not a prompt-cache file (bad magic)");
    }
    if (get_u32(data + 4) != VERSION) {
        return fail(error::mismatch,
                    "format version " + std::to_string(get_u32(data + 4)) + ", expected " + std::to_string(VERSION));
    }
    if (file_size < HEADER_SIZE || n < HEADER_SIZE) {
        return fail(error::damaged, "truncated header");
    }
    const uint32_t n_tok   = get_u32(data + 40);
    const uint64_t n_state = get_u64(data + 44);
    if (n_tok > MAX_TOKENS || n_state > (1ull << 48)) {
        return fail(error::damaged, "impossible sizes in the header");
    }
    const uint64_t expect = HEADER_SIZE + 4ull * n_tok + n_state + 8;
    if (file_size < expect) {
        return fail(error::damaged,
                    "truncated: " + std::to_string(file_size) + " bytes, the header says " + std::to_string(expect));
    }
    if (file_size > expect) {
        return fail(error::damaged, std::to_string(file_size - expect) + " unexpected bytes after the end");
    }
    if (n < HEADER_SIZE + 4ull * n_tok) {
        return fail(error::damaged, "truncated token list");
    }
    const uint64_t hs = fnv(data + HEADER_SIZE, 4ull * n_tok, fnv(data, HEADER_SIZE - 8));
    if (hs != get_u64(data + HEADER_SIZE - 8)) {
        return fail(error::damaged, "header checksum mismatch");
    }
    fingerprint got;
    got.model    = get_u64(data + 8);
    got.type_k   = get_u32(data + 16);
    got.type_v   = get_u32(data + 20);
    got.rope     = get_u64(data + 24);
    got.adapters = get_u64(data + 32);
    if (got.model != fp.model) {
        return fail(error::mismatch, "written with another model");
    }
    if (got.type_k != fp.type_k || got.type_v != fp.type_v) {
        return fail(error::mismatch, "KV cache is " + type_name(got.type_k) + "/" + type_name(got.type_v) +
                                         ", this context's is " + type_name(fp.type_k) + "/" + type_name(fp.type_v));
    }
    if (got.rope != fp.rope) {
        return fail(error::mismatch, "written with other RoPE settings");
    }
    if (got.adapters != fp.adapters) {
        return fail(error::mismatch, "written with other LoRA adapters");
    }
    h.fp = got;
    h.tokens.resize(n_tok);
    for (uint32_t i = 0; i < n_tok; i++) {
        const llama_token t = (llama_token) get_u32(data + HEADER_SIZE + 4 * (size_t) i);
        if (t < 0 || t >= n_vocab) {
            return fail(error::damaged, "token id " + std::to_string(t) + " outside the vocabulary");
        }
        h.tokens[i] = t;
    }
    h.state_size = n_state;
    h.file_size  = file_size;
    return {};
}

error parse(const std::vector<uint8_t> & bytes, const fingerprint & fp, int32_t n_vocab, header & h) {
    error e = parse_header(bytes.data(), bytes.size(), bytes.size(), fp, n_vocab, h);
    if (!e.ok()) {
        return e;
    }
    if (fnv(bytes.data(), bytes.size() - 8) != get_u64(bytes.data() + bytes.size() - 8)) {
        return fail(error::damaged, "checksum mismatch");
    }
    return {};
}

error write_file(const std::string & path, const std::vector<uint8_t> & bytes) {
    return write_parts(path, {{bytes.data(), bytes.size()}});
}

error write_parts(const std::string & path, const std::vector<std::pair<const uint8_t *, size_t>> & parts) {
    const std::string tmp = path + ".tmp";
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        if (!f) {
            return fail(error::io, "cannot create " + tmp);
        }
        for (const auto & part : parts) {
            f.write((const char *) part.first, (std::streamsize) part.second);
        }
        f.flush();
        if (!f) {
            f.close();
            std::remove(tmp.c_str());
            return fail(error::io, "cannot write " + tmp + " (disk full?)");
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    std::error_code ec_exists;
    if (ec && std::filesystem::exists(path, ec_exists)) {
        // some Windows runtimes do not replace an existing file: the old one goes first (a crash
        // in between loses that file, never leaves a partial one)
        std::filesystem::remove(path, ec);
        std::filesystem::rename(tmp, path, ec);
    }
    if (ec) {
        std::remove(tmp.c_str());
        return fail(error::io, "cannot rename " + tmp + ": " + ec.message());
    }
    return {};
}

error read_header(const std::string & path, const fingerprint & fp, int32_t n_vocab, header & h) {
    std::error_code ec;
    const uint64_t  size = std::filesystem::file_size(path, ec);
    std::ifstream   f(path, std::ios::binary);
    if (ec || !f) {
        return fail(error::io, "cannot open");
    }
    std::vector<uint8_t> buf((size_t) std::min<uint64_t>(size, HEADER_SIZE));
    f.read((char *) buf.data(), (std::streamsize) buf.size());
    if (buf.size() >= HEADER_SIZE && f) {
        // the token list follows; its count is checked against the file size before it is read
        const uint64_t n_tok = get_u32(buf.data() + 40);
        if (n_tok <= MAX_TOKENS && HEADER_SIZE + 4 * n_tok <= size) {
            buf.resize(HEADER_SIZE + 4 * (size_t) n_tok);
            f.read((char *) buf.data() + HEADER_SIZE, (std::streamsize)(4 * n_tok));
        }
    }
    return parse_header(buf.data(), buf.size(), size, fp, n_vocab, h);
}

error save(llama_context * ctx, llama_seq_id seq, const fingerprint & fp, const std::vector<llama_token> & tokens,
           const std::string & path, size_t * n_bytes) {
    const size_t         size = llama_state_seq_get_size(ctx, seq);
    std::vector<uint8_t> state(size);
    if (size == 0 || llama_state_seq_get_data(ctx, state.data(), state.size(), seq) != size) {
        return fail(error::io, std::string("cannot read the sequence state: ") + llama_last_error());
    }
    // header, state and checksum written in turn: no copy of a state that may be gigabytes
    const std::vector<uint8_t> head = encode_header(fp, tokens, state.size());
    const std::vector<uint8_t> tail = tail_of(head, state.data(), state.size());
    if (n_bytes != nullptr) {
        *n_bytes = head.size() + state.size() + tail.size();
    }
    return write_parts(path, {{head.data(), head.size()}, {state.data(), state.size()}, {tail.data(), tail.size()}});
}

error load(llama_context * ctx, llama_seq_id seq, const fingerprint & fp, const std::string & path, size_t max_tokens,
           std::vector<llama_token> & tokens, size_t * n_bytes) {
    header h;
    error  e = read_header(path, fp, llama_vocab_n_tokens(llama_model_get_vocab(llama_get_model(ctx))), h);
    if (!e.ok()) {
        return e;
    }
    if (h.tokens.size() > max_tokens) {
        return fail(error::refused, std::to_string(h.tokens.size()) + " tokens, more than the " +
                                        std::to_string(max_tokens) + " this context can take");
    }
    std::vector<uint8_t> bytes((size_t) h.file_size);
    std::ifstream        f(path, std::ios::binary);
    if (!f || !f.read((char *) bytes.data(), (std::streamsize) bytes.size())) {
        return fail(error::io, "cannot read");
    }
    e = parse(bytes, fp, llama_vocab_n_tokens(llama_model_get_vocab(llama_get_model(ctx))), h);
    if (!e.ok()) {
        return e;
    }
    if (llama_state_seq_set_data(ctx, bytes.data() + state_offset(h), (size_t) h.state_size, seq) == 0) {
        return fail(error::refused, std::string("the state does not load: ") + llama_last_error());
    }
    llama_memory_t mem = llama_get_memory(ctx);
    if (llama_memory_seq_pos_min(mem, seq) > 0 ||
        llama_memory_seq_pos_max(mem, seq) + 1 != (llama_pos) h.tokens.size()) {
        llama_memory_seq_rm(mem, seq, -1, -1);
        return fail(error::damaged, "the state's cells and the token list disagree");
    }
    if (n_bytes != nullptr) {
        *n_bytes = bytes.size();
    }
    tokens = std::move(h.tokens);
    return {};
}

}  // namespace prompt_cache
