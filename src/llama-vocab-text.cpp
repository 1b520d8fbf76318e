// llama_vocab text entry points: tokenize (special-token partition, BOS/EOS/SEP, per-type dispatch),
// token_to_piece and detokenize, with llama.h's return conventions and argument checks.
#include <climits>
#include <cstring>

#include "llama-log.h"
#include "llama-vocab-impl.h"

namespace {

struct fragment {
    llama_token token;  // a matched special token, or LLAMA_TOKEN_NULL for raw text
    size_t      offs;
    size_t      len;
};

bool ascii_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// Splits text at special tokens, leftmost first and longest at each position (as Hugging Face's
// added-token matcher). Without parse_special only user-defined tokens are matched. LSTRIP/RSTRIP
// tokens swallow the whitespace before/after them.
void partition(const llama_vocab::impl & v, const char * text, size_t n, bool parse_special,
               std::vector<fragment> & out) {
    size_t raw = 0;
    size_t i   = 0;
    while (i < n) {
        llama_token match = LLAMA_TOKEN_NULL;
        for (llama_token id : v.special_by_byte[static_cast<uint8_t>(text[i])]) {
            const auto & t = v.id_to_token[id];
            if (!parse_special && (t.attr & (LLAMA_TOKEN_ATTR_CONTROL | LLAMA_TOKEN_ATTR_UNKNOWN))) {
                continue;
            }
            if (t.text.size() <= n - i && std::memcmp(text + i, t.text.data(), t.text.size()) == 0) {
                match = id;
                break;
            }
        }
        if (match == LLAMA_TOKEN_NULL) {
            ++i;
            continue;
        }
        const auto & t   = v.id_to_token[match];
        size_t       end = i;
        if (t.attr & LLAMA_TOKEN_ATTR_LSTRIP) {
            while (end > raw && ascii_space(text[end - 1])) {
                --end;
            }
        }
        if (end > raw) {
            out.push_back({LLAMA_TOKEN_NULL, raw, end - raw});
        }
        out.push_back({match, i, t.text.size()});
        i += t.text.size();
        if (t.attr & LLAMA_TOKEN_ATTR_RSTRIP) {
            while (i < n && ascii_space(text[i])) {
                ++i;
            }
        }
        raw = i;
    }
    if (raw < n) {
        out.push_back({LLAMA_TOKEN_NULL, raw, n - raw});
    }
}

void tokenize_impl(const llama_vocab::impl & v, const char * text, size_t n, bool add_special, bool parse_special,
                   std::vector<llama_token> & out) {
    if (v.type == LLAMA_VOCAB_TYPE_NONE || !v.tokenizer) {
        return;
    }
    std::vector<fragment> frags;
    partition(v, text, n, parse_special, frags);

    // a BOS already at the start of the text is not doubled
    const bool has_bos = !frags.empty() && frags[0].token != LLAMA_TOKEN_NULL && frags[0].token == v.bos;
    if (add_special && v.add_bos && v.bos != LLAMA_TOKEN_NULL && !has_bos) {
        out.push_back(v.bos);
    }
    bool        prev_special = true;  // SPM: the space prefix goes at the start and after special tokens
    std::string buf;
    for (const auto & f : frags) {
        if (f.token != LLAMA_TOKEN_NULL) {
            out.push_back(f.token);
            prev_special = true;
            continue;
        }
        buf.clear();
        // SPM, and raw-UTF-8 BPE that escapes spaces (gemma4, sarvam-moe; never a space prefix there)
        if (v.type == LLAMA_VOCAB_TYPE_SPM || (v.type == LLAMA_VOCAB_TYPE_BPE && v.escape_ws)) {
            if (v.type == LLAMA_VOCAB_TYPE_SPM && v.add_space_prefix && prev_special) {
                buf += "\xE2\x96\x81";
            }
            for (size_t k = 0; k < f.len; ++k) {
                const char c = text[f.offs + k];
                if (c == ' ') {
                    buf += "\xE2\x96\x81";
                } else {
                    buf.push_back(c);
                }
            }
        } else {
            buf.assign(text + f.offs, f.len);
        }
        v.tokenizer->tokenize(buf, out);
        prev_special = false;
    }
    if (add_special) {
        if (v.add_sep && v.sep != LLAMA_TOKEN_NULL) {
            out.push_back(v.sep);
        }
        if (v.add_eos && v.eos != LLAMA_TOKEN_NULL) {
            out.push_back(v.eos);
        }
    }
}

// Hugging Face's clean_up_tokenization: no space before . ? ! , and English contractions
// Upstream's clean_spaces, three passes over the bytes: no space before ? ! . , ; " ' " becomes "'";
// no space before 's 'm 're 've (" 't", " 'd" and " 'll" keep theirs). Each pass reads its input
// as it was before the pass, except that a space dropped after " ' " leaves a NUL the next byte sees
// as its predecessor (as upstream's in-place rewrite does).
void clean_up_spaces(std::string & s) {
    if (s.empty()) {
        return;
    }
    std::string t = s, o;
    o.reserve(s.size());
    o += t[0];
    for (size_t i = 1; i < t.size(); ++i) {
        const char x = t[i];
        if (t[i - 1] == ' ' && (x == '?' || x == '!' || x == '.' || x == ',')) {
            o.pop_back();
        }
        o += x;
    }
    t.swap(o);
    o.clear();
    o += t[0];
    for (size_t i = 1; i < t.size(); ++i) {
        const char x = t[i];
        if (x == '\'' && i + 1 < t.size() && t[i - 1] == ' ' && t[i + 1] == ' ') {
            o.pop_back();
            t[++i] = '\0';
        }
        o += x;
    }
    t.swap(o);
    o.clear();
    o += t[0];
    for (size_t i = 1; i < t.size(); ++i) {
        const char x = t[i];
        if (t[i - 1] == ' ' && x == '\'' && i + 1 < t.size()) {
            const char x1 = t[i + 1];
            const char x2 = i + 2 < t.size() ? t[i + 2] : '\0';
            if (x1 == 's' || x1 == 'm' || (x1 == 'r' && x2 == 'e') || (x1 == 'v' && x2 == 'e')) {
                o.pop_back();
            }
        }
        o += x;
    }
    s.swap(o);
}

// An invalid call of public function fn: the reason goes to the log and to llama_last_error().
int32_t invalid_call(const char * fn, const std::string & why) {
    llama_report_error(fn, why.c_str());
    return LLAMA_VOCAB_ERR_INVALID;
}

// The output array is too small: not a failure of the library but the size query of llama.h, so
// nothing is logged; llama_last_error() still says why the result is negative.
int32_t too_small(const char * fn, int32_t need, int32_t have, const char * unit) {
    llama_set_last_error(
        llama_format("%s: output buffer too small: need %d %s, got room for %d", fn, need, unit, have));
    return -need;
}

}  // namespace

int32_t llama_vocab::tokenize(const char * text, int32_t text_len, llama_token * tokens, int32_t n_tokens_max,
                              bool add_special, bool parse_special) const {
    static const char * fn = "llama_tokenize";
    if (text_len < 0 || (text == nullptr && text_len > 0)) {
        return invalid_call(fn, llama_format("invalid text (text = %p, text_len = %d)", (const void *) text, text_len));
    }
    if (n_tokens_max < 0 || (tokens == nullptr && n_tokens_max > 0)) {
        return invalid_call(
            fn, llama_format("invalid output array (tokens = %p, n_tokens_max = %d)", (void *) tokens, n_tokens_max));
    }
    std::vector<llama_token> out;
    try {
        tokenize_impl(*pimpl, text ? text : "", static_cast<size_t>(text_len), add_special, parse_special, out);
    } catch (const std::bad_alloc &) {
        return invalid_call(fn, "out of memory");
    } catch (const std::exception & e) {
        return invalid_call(fn, e.what());
    }
    if (out.size() > static_cast<size_t>(INT32_MAX)) {
        return invalid_call(fn, llama_format("the text needs %zu tokens, more than INT32_MAX", out.size()));
    }
    const int32_t n = static_cast<int32_t>(out.size());
    if (n > n_tokens_max) {
        return too_small(fn, n, n_tokens_max, "tokens");
    }
    if (n > 0) {
        std::memcpy(tokens, out.data(), out.size() * sizeof(llama_token));
    }
    return n;
}

std::vector<llama_token> llama_vocab::tokenize(const std::string & text, bool add_special, bool parse_special) const {
    std::vector<llama_token> out;
    tokenize_impl(*pimpl, text.data(), text.size(), add_special, parse_special, out);
    return out;
}

int32_t llama_vocab::token_to_piece(llama_token token, char * buf, int32_t length, int32_t lstrip, bool special) const {
    static const char * fn = "llama_token_to_piece";
    if (!pimpl->valid(token)) {
        return invalid_call(
            fn, llama_format("invalid token id %d (the vocab has %zu tokens)", token, pimpl->id_to_token.size()));
    }
    if (length < 0 || (buf == nullptr && length > 0)) {
        return invalid_call(fn, llama_format("invalid output buffer (buf = %p, length = %d)", (void *) buf, length));
    }
    const auto & t = pimpl->id_to_token[token];
    if (!special && (t.attr & (LLAMA_TOKEN_ATTR_CONTROL | LLAMA_TOKEN_ATTR_UNKNOWN))) {
        return 0;
    }
    const std::string & piece = pimpl->pieces[token];
    const char *        p     = piece.data();
    size_t              size  = piece.size();
    for (int32_t i = 0; i < lstrip && size > 0 && *p == ' '; ++i) {
        ++p;
        --size;
    }
    if (size > static_cast<size_t>(length)) {
        return too_small(fn, static_cast<int32_t>(size), length, "bytes");
    }
    if (size > 0) {
        std::memcpy(buf, p, size);
    }
    return static_cast<int32_t>(size);
}

std::string llama_vocab::token_to_piece(llama_token token, bool special) const {
    if (!pimpl->valid(token)) {
        return "";
    }
    const auto & t = pimpl->id_to_token[token];
    if (!special && (t.attr & (LLAMA_TOKEN_ATTR_CONTROL | LLAMA_TOKEN_ATTR_UNKNOWN))) {
        return "";
    }
    return pimpl->pieces[token];
}

std::string llama_vocab::detokenize(const std::vector<llama_token> & tokens, bool remove_special,
                                    bool unparse_special) const {
    const impl & v = *pimpl;
    size_t       b = 0;
    size_t       e = tokens.size();
    // The space SPM prefixes to the text is not part of it: strip it from the first token's piece
    // only (the first token, not the first non-empty piece: llama.cpp's rule, so a kept BOS with an
    // empty piece keeps the space of the text after it). When remove_special drops a leading BOS
    // the space is kept too, as in llama.cpp. WordPiece strips its first word marker always.
    const bool wpm          = v.type == LLAMA_VOCAB_TYPE_WPM;
    bool       remove_space = v.add_space_prefix || wpm;
    if (remove_special && v.add_bos && b < e && tokens[b] == v.bos) {
        ++b;
        remove_space = wpm;
    }
    if (remove_special && v.add_eos && b < e && tokens[e - 1] == v.eos) {
        --e;
    }
    if (remove_special && v.add_sep && b < e && tokens[e - 1] == v.sep) {
        --e;
    }
    std::string out;
    for (size_t i = b; i < e; ++i) {
        std::string piece = token_to_piece(tokens[i], unparse_special);
        if (remove_space && !piece.empty() && piece[0] == ' ') {
            piece.erase(0, 1);
        }
        remove_space = false;
        out += piece;
    }
    if (v.clean_spaces) {
        clean_up_spaces(out);
    }
    return out;
}

int32_t llama_vocab::detokenize(const llama_token * tokens, int32_t n_tokens, char * text, int32_t text_len_max,
                                bool remove_special, bool unparse_special) const {
    static const char * fn = "llama_detokenize";
    if (n_tokens < 0 || (tokens == nullptr && n_tokens > 0)) {
        return invalid_call(
            fn, llama_format("invalid tokens (tokens = %p, n_tokens = %d)", (const void *) tokens, n_tokens));
    }
    if (text_len_max < 0 || (text == nullptr && text_len_max > 0)) {
        return invalid_call(
            fn, llama_format("invalid output buffer (text = %p, text_len_max = %d)", (void *) text, text_len_max));
    }
    for (int32_t i = 0; i < n_tokens; ++i) {
        if (!pimpl->valid(tokens[i])) {
            return invalid_call(fn, llama_format("invalid token id %d at index %d (the vocab has %zu tokens)",
                                                 tokens[i], i, pimpl->id_to_token.size()));
        }
    }
    std::string out;
    try {
        out = detokenize(std::vector<llama_token>(tokens, tokens + n_tokens), remove_special, unparse_special);
    } catch (const std::bad_alloc &) {
        return invalid_call(fn, "out of memory");
    } catch (const std::exception & e) {
        return invalid_call(fn, e.what());
    }
    if (out.size() > static_cast<size_t>(INT32_MAX)) {
        return invalid_call(fn, llama_format("the text is %zu bytes, more than INT32_MAX", out.size()));
    }
    const int32_t n = static_cast<int32_t>(out.size());
    if (n > text_len_max) {
        return too_small(fn, n, text_len_max, "bytes");
    }
    if (n > 0) {
        std::memcpy(text, out.data(), out.size());
    }
    return n;
}
