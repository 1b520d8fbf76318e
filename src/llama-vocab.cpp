// llama_vocab: loading (GGUF keys -> tables, per-type defaults, special tokens) and the llama.h-shaped
// tokenize / token_to_piece / detokenize entry points. The algorithms live in llama-vocab-<type>.cpp.
#include "llama-vocab.h"

#include "gguf.h"
#include "llama-arch.h"
#include "llama-gguf.h"
#include "llama-log.h"
#include "llama-unicode.h"
#include "llama-vocab-impl.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <stdexcept>

namespace {

// ---- GGUF reading ------------------------------------------------------------------------------

std::runtime_error vocab_error(const std::string & msg) {
    return std::runtime_error("vocab: " + msg);
}

std::optional<int64_t> read_id(const gguf_context * g, llm_kv kv) {
    const char *  key = llm_kv_key(kv);
    const int64_t k   = gguf_find_key(g, key);
    if (k < 0) {
        return std::nullopt;
    }
    int64_t v = 0;
    if (!llama_gguf_get_int(g, k, v)) {
        throw vocab_error(std::string("key ") + key + " is not an integer");
    }
    return v;
}

std::optional<bool> read_bool(const gguf_context * g, llm_kv kv) {
    const char *  key = llm_kv_key(kv);
    const int64_t k   = gguf_find_key(g, key);
    if (k < 0) {
        return std::nullopt;
    }
    if (gguf_get_kv_type(g, k) != GGUF_TYPE_BOOL) {
        throw vocab_error(std::string("key ") + key + " is not a bool");
    }
    return gguf_get_val_bool(g, k);
}

std::string read_str(const gguf_context * g, llm_kv kv) {
    const char *  key = llm_kv_key(kv);
    const int64_t k   = gguf_find_key(g, key);
    if (k < 0) {
        return "";
    }
    if (gguf_get_kv_type(g, k) != GGUF_TYPE_STRING) {
        throw vocab_error(std::string("key ") + key + " is not a string");
    }
    const char * s = gguf_get_val_str(g, k);
    return s ? std::string(s, gguf_get_val_str_len(g, k)) : std::string();
}

// -1 if absent; throws when present with another element type
int64_t find_array(const gguf_context * g, llm_kv kv, std::initializer_list<gguf_type> types) {
    const char *  key = llm_kv_key(kv);
    const int64_t k   = gguf_find_key(g, key);
    if (k < 0) {
        return -1;
    }
    if (gguf_get_kv_type(g, k) != GGUF_TYPE_ARRAY ||
        std::find(types.begin(), types.end(), gguf_get_arr_type(g, k)) == types.end()) {
        throw vocab_error(std::string("key ") + key + " has the wrong type");
    }
    return k;
}

std::vector<std::string> read_str_array(const gguf_context * g, llm_kv kv) {
    std::vector<std::string> out;
    const int64_t            k = find_array(g, kv, {GGUF_TYPE_STRING});
    if (k < 0) {
        return out;
    }
    const size_t n = gguf_get_arr_n(g, k);
    out.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        const char * s = gguf_get_arr_str(g, k, i);
        out.emplace_back(s ? std::string(s, gguf_get_arr_str_len(g, k, i)) : std::string());
    }
    return out;
}

// ---- per-model token attributes ------------------------------------------------------------------

bool contains_ci(std::string hay, const char * needle) {
    std::transform(hay.begin(), hay.end(), hay.begin(), [](unsigned char c) { return std::tolower(c); });
    return hay.find(needle) != std::string::npos;
}

const char * type_name_of(enum llama_vocab_type t) {
    switch (t) {
        case LLAMA_VOCAB_TYPE_SPM:
            return "SPM";
        case LLAMA_VOCAB_TYPE_BPE:
            return "BPE";
        case LLAMA_VOCAB_TYPE_WPM:
            return "WPM";
        case LLAMA_VOCAB_TYPE_UGM:
            return "UGM";
        case LLAMA_VOCAB_TYPE_RWKV:
            return "RWKV";
        default:
            return "NONE";
    }
}

llama_token_attr attr_of_type(int32_t type) {
    switch (type) {
        case LLAMA_TOKEN_TYPE_UNKNOWN:
            return LLAMA_TOKEN_ATTR_UNKNOWN;
        case LLAMA_TOKEN_TYPE_UNUSED:
            return LLAMA_TOKEN_ATTR_UNUSED;
        case LLAMA_TOKEN_TYPE_NORMAL:
            return LLAMA_TOKEN_ATTR_NORMAL;
        case LLAMA_TOKEN_TYPE_CONTROL:
            return LLAMA_TOKEN_ATTR_CONTROL;
        case LLAMA_TOKEN_TYPE_USER_DEFINED:
            return LLAMA_TOKEN_ATTR_USER_DEFINED;
        case LLAMA_TOKEN_TYPE_BYTE:
            return LLAMA_TOKEN_ATTR_BYTE;
        default:
            return LLAMA_TOKEN_ATTR_UNDEFINED;
    }
}

void unescape_spm_whitespace(std::string & s) {
    // U+2581 -> ' '
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
        if (i + 2 < s.size() && s[i] == '\xE2' && s[i + 1] == '\x96' && s[i + 2] == '\x81') {
            out.push_back(' ');
            i += 2;
        } else {
            out.push_back(s[i]);
        }
    }
    s.swap(out);
}

}  // namespace

// ---- loading ------------------------------------------------------------------------------------

llama_vocab::llama_vocab() : pimpl(std::make_unique<impl>()) {}

llama_vocab::~llama_vocab() = default;

llama_vocab_data llama_vocab::read_gguf(const gguf_context * g) {
    if (!g) {
        throw vocab_error("no GGUF context");
    }
    llama_vocab_data d;
    d.model  = read_str(g, LLM_KV_TOKENIZER_MODEL);
    d.pre    = read_str(g, LLM_KV_TOKENIZER_PRE);
    d.name   = read_str(g, LLM_KV_GENERAL_NAME);
    d.tokens = read_str_array(g, LLM_KV_TOKENIZER_LIST);
    d.merges = read_str_array(g, LLM_KV_TOKENIZER_MERGES);
    if (int64_t k = find_array(g, LLM_KV_TOKENIZER_SCORES, {GGUF_TYPE_FLOAT32}); k >= 0) {
        const auto * p = static_cast<const float *>(gguf_get_arr_data(g, k));
        d.scores.assign(p, p + gguf_get_arr_n(g, k));
    }
    if (int64_t k = find_array(g, LLM_KV_TOKENIZER_TOKEN_TYPE, {GGUF_TYPE_INT32, GGUF_TYPE_UINT32}); k >= 0) {
        const auto * p = static_cast<const int32_t *>(gguf_get_arr_data(g, k));
        d.token_types.assign(p, p + gguf_get_arr_n(g, k));
    }
    if (int64_t k = find_array(g, LLM_KV_TOKENIZER_PRECOMPILED_CHARSMAP, {GGUF_TYPE_UINT8, GGUF_TYPE_INT8}); k >= 0) {
        const auto * p = static_cast<const uint8_t *>(gguf_get_arr_data(g, k));
        d.precompiled_charsmap.assign(p, p + gguf_get_arr_n(g, k));
    }
    d.bos     = read_id(g, LLM_KV_TOKENIZER_BOS_ID);
    d.eos     = read_id(g, LLM_KV_TOKENIZER_EOS_ID);
    d.eot     = read_id(g, LLM_KV_TOKENIZER_EOT_ID);
    d.eom     = read_id(g, LLM_KV_TOKENIZER_EOM_ID);
    d.unk     = read_id(g, LLM_KV_TOKENIZER_UNK_ID);
    d.sep     = read_id(g, LLM_KV_TOKENIZER_SEP_ID);
    d.pad     = read_id(g, LLM_KV_TOKENIZER_PAD_ID);
    d.cls     = read_id(g, LLM_KV_TOKENIZER_CLS_ID);
    d.mask    = read_id(g, LLM_KV_TOKENIZER_MASK_ID);
    d.fim_pre = read_id(g, LLM_KV_TOKENIZER_FIM_PRE_ID);
    d.fim_suf = read_id(g, LLM_KV_TOKENIZER_FIM_SUF_ID);
    d.fim_mid = read_id(g, LLM_KV_TOKENIZER_FIM_MID_ID);
    d.fim_pad = read_id(g, LLM_KV_TOKENIZER_FIM_PAD_ID);
    d.fim_rep = read_id(g, LLM_KV_TOKENIZER_FIM_REP_ID);
    d.fim_sep = read_id(g, LLM_KV_TOKENIZER_FIM_SEP_ID);
    // older names of the first three FIM tokens
    if (!d.fim_pre)
        d.fim_pre = read_id(g, LLM_KV_TOKENIZER_PREFIX_ID);
    if (!d.fim_suf)
        d.fim_suf = read_id(g, LLM_KV_TOKENIZER_SUFFIX_ID);
    if (!d.fim_mid)
        d.fim_mid = read_id(g, LLM_KV_TOKENIZER_MIDDLE_ID);
    d.add_bos                  = read_bool(g, LLM_KV_TOKENIZER_ADD_BOS);
    d.add_eos                  = read_bool(g, LLM_KV_TOKENIZER_ADD_EOS);
    d.add_sep                  = read_bool(g, LLM_KV_TOKENIZER_ADD_SEP);
    d.add_space_prefix         = read_bool(g, LLM_KV_TOKENIZER_ADD_SPACE_PREFIX);
    d.remove_extra_whitespaces = read_bool(g, LLM_KV_TOKENIZER_REMOVE_EXTRA_WS);
    d.normalizer_lowercase     = read_bool(g, LLM_KV_TOKENIZER_NORMALIZER_LOWERCASE);
    d.normalizer_strip_accents = read_bool(g, LLM_KV_TOKENIZER_NORMALIZER_STRIP_ACCENTS);
    return d;
}

void llama_vocab::load(const gguf_context * gguf) {
    load(read_gguf(gguf));
}

void llama_vocab::load(const llama_vocab_data & d) {
    auto   v = std::make_unique<impl>();
    impl & s = *v;

    // type and its defaults; GGUF keys override them below
    if (d.model.empty() || d.model == "no_vocab" || d.model == "none") {
        s.type = LLAMA_VOCAB_TYPE_NONE;
    } else if (d.model == "llama") {
        s.type             = LLAMA_VOCAB_TYPE_SPM;
        s.bos              = 1;
        s.eos              = 2;
        s.unk              = 0;
        s.add_bos          = true;
        s.add_space_prefix = true;
    } else if (d.model == "gpt2" || d.model == "whitespace" || d.model == "gemma4") {
        // "whitespace" (jina-v2-zh) is BPE run on each whitespace-free run of the text; "gemma4" is BPE
        // with the gemma4 pre-tokenizer whatever tokenizer.ggml.pre says, and no default special ids.
        s.type = LLAMA_VOCAB_TYPE_BPE;
        if (d.model != "gemma4") {
            s.bos = 11;
            s.eos = 11;  // GPT-2 style vocabs without ids (falcon) use <|endoftext|> at 11
        }
        s.pre_name = d.model == "gemma4" ? "gemma4" : d.pre.empty() ? "default" : d.pre;
        llama_pretok_info pre;
        if (!llama_pretok_from_name(s.pre_name, pre)) {
            throw vocab_error("unknown pre-tokenizer '" + s.pre_name + "' (" + llm_kv_key(LLM_KV_TOKENIZER_PRE) + ")");
        }
        s.pre_type      = pre.type;
        s.ignore_merges = pre.ignore_merges;
        s.add_bos       = pre.add_bos || pre.gemma4;
        s.byte_encode   = llama_pretok_byte_encode(pre.type);
        s.escape_ws     = pre.escape_ws;
        s.newline_words = pre.gemma4;
        s.clean_spaces  = pre.clean_spaces;
        s.drop_ws       = d.model == "whitespace";
        // as upstream: the BertNormalizer default (lowercase) unless the "whitespace" pre-tokenizer
        // turns it off; the GGUF key decides when present
        s.drop_ws_lowercase = d.normalizer_lowercase.value_or(pre.type != llama_pretok_type::WHITESPACE);
    } else if (d.model == "bert") {
        s.type         = LLAMA_VOCAB_TYPE_WPM;
        s.bos          = 101;
        s.unk          = 100;
        s.sep          = 102;
        s.pad          = 0;
        s.cls          = 101;
        s.mask         = 103;
        s.add_bos      = true;
        s.add_sep      = true;
        s.clean_spaces = true;
    } else if (d.model == "t5") {
        s.type             = LLAMA_VOCAB_TYPE_UGM;
        s.eos              = 1;
        s.unk              = 2;
        s.pad              = 0;
        s.add_eos          = true;
        s.add_space_prefix = true;
        s.remove_extra_ws  = true;
    } else if (d.model == "rwkv") {
        s.type = LLAMA_VOCAB_TYPE_RWKV;
    } else {
        throw vocab_error("unknown tokenizer model '" + d.model + "' (" + llm_kv_key(LLM_KV_TOKENIZER_MODEL) + ")");
    }
    if (s.type == LLAMA_VOCAB_TYPE_NONE) {
        pimpl = std::move(v);
        return;
    }

    const size_t n = d.tokens.size();
    if (n == 0) {
        throw vocab_error(std::string(llm_kv_key(LLM_KV_TOKENIZER_LIST)) + " is missing or empty");
    }
    if (n >= static_cast<size_t>(INT32_MAX)) {
        throw vocab_error("too many tokens");
    }
    if (!d.scores.empty() && d.scores.size() != n) {
        throw vocab_error(std::string(llm_kv_key(LLM_KV_TOKENIZER_SCORES)) + " has " + std::to_string(d.scores.size()) +
                          " entries for " + std::to_string(n) + " tokens");
    }
    if (!d.token_types.empty() && d.token_types.size() != n) {
        throw vocab_error(std::string(llm_kv_key(LLM_KV_TOKENIZER_TOKEN_TYPE)) + " has " +
                          std::to_string(d.token_types.size()) + " entries for " + std::to_string(n) + " tokens");
    }
    s.id_to_token.resize(n);
    for (size_t i = 0; i < n; ++i) {
        auto & t        = s.id_to_token[i];
        t.text          = d.tokens[i];
        t.score         = d.scores.empty() ? 0.0f : d.scores[i];
        t.attr          = d.token_types.empty() ? LLAMA_TOKEN_ATTR_NORMAL : attr_of_type(d.token_types[i]);
        s.max_token_len = std::max(s.max_token_len, t.text.size());
    }
    s.token_to_id.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        // duplicates: the first id keeps the text
        s.token_to_id.emplace(std::string_view(s.id_to_token[i].text), static_cast<llama_token>(i));
    }
    if (s.type == LLAMA_VOCAB_TYPE_BPE) {
        // without merges BPE cannot form a token longer than one symbol: the file is broken
        if (d.merges.empty()) {
            throw vocab_error(llama_format("BPE vocab (%s '%s') has no merges: %s is missing or empty",
                                           llm_kv_key(LLM_KV_TOKENIZER_MODEL), d.model.c_str(),
                                           llm_kv_key(LLM_KV_TOKENIZER_MERGES)));
        }
        s.merges = d.merges;
    }
    s.charsmap = d.precompiled_charsmap;

    // special ids: a key present with an out-of-range value means "none" (some files store -1 as u32)
    auto set_id = [&](llama_token & dst, const std::optional<int64_t> & src, const char * what) {
        if (!src) {
            if (dst != LLAMA_TOKEN_NULL && static_cast<size_t>(dst) >= n) {
                dst = LLAMA_TOKEN_NULL;  // a default that this small vocab does not have
            }
            return;
        }
        if (*src < 0 || static_cast<uint64_t>(*src) >= n) {
            if (*src != -1 && *src != 0xFFFFFFFFLL) {
                LLAMA_LOG_WARN("%s: %s token id %lld is out of range [0, %zu); ignored\n", __func__, what,
                               static_cast<long long>(*src), n);
            }
            dst = LLAMA_TOKEN_NULL;
            return;
        }
        dst = static_cast<llama_token>(*src);
    };
    set_id(s.bos, d.bos, "BOS");
    set_id(s.eos, d.eos, "EOS");
    set_id(s.eot, d.eot, "EOT");
    set_id(s.eom, d.eom, "EOM");
    set_id(s.unk, d.unk, "UNK");
    set_id(s.sep, d.sep, "SEP");
    set_id(s.pad, d.pad, "PAD");
    set_id(s.cls, d.cls, "CLS");
    set_id(s.mask, d.mask, "MASK");
    set_id(s.fim_pre, d.fim_pre, "FIM PRE");
    set_id(s.fim_suf, d.fim_suf, "FIM SUF");
    set_id(s.fim_mid, d.fim_mid, "FIM MID");
    set_id(s.fim_pad, d.fim_pad, "FIM PAD");
    set_id(s.fim_rep, d.fim_rep, "FIM REP");
    set_id(s.fim_sep, d.fim_sep, "FIM SEP");
    if (s.type == LLAMA_VOCAB_TYPE_WPM && d.cls && !d.bos) {
        s.bos = s.cls;  // BERT's sequence start is [CLS]
    }
    if (d.add_bos)
        s.add_bos = *d.add_bos;
    // upstream's workaround for Gemma 4 files that say add_bos_token = false: the model needs its BOS
    // (the gemma4 type's default when the key is absent)
    if (s.type == LLAMA_VOCAB_TYPE_BPE && s.newline_words) {
        if (!s.add_bos) {
            LLAMA_LOG_WARN("%s: %s = false overridden to true for the gemma4 pre-tokenizer\n", __func__,
                           llm_kv_key(LLM_KV_TOKENIZER_ADD_BOS));
        }
        s.add_bos = true;
    }
    if (d.add_eos)
        s.add_eos = *d.add_eos;
    if (d.add_sep)
        s.add_sep = *d.add_sep;
    if (d.add_space_prefix)
        s.add_space_prefix = *d.add_space_prefix;
    if (d.remove_extra_whitespaces)
        s.remove_extra_ws = *d.remove_extra_whitespaces;
    // as llama.cpp: accents are stripped when lowercasing unless the file says otherwise
    s.wpm_lowercase     = d.normalizer_lowercase.value_or(true);
    s.wpm_strip_accents = d.normalizer_strip_accents.value_or(s.wpm_lowercase);

    // tokens recognised by their text when the file does not name them
    auto detect = [&](llama_token & dst, std::initializer_list<const char *> texts) {
        if (dst != LLAMA_TOKEN_NULL) {
            return;
        }
        for (const char * t : texts) {
            const llama_token id = s.find(t);
            if (id != LLAMA_TOKEN_NULL &&
                (s.id_to_token[id].attr & (LLAMA_TOKEN_ATTR_CONTROL | LLAMA_TOKEN_ATTR_USER_DEFINED))) {
                dst = id;
                return;
            }
        }
    };
    detect(s.eot, {"<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<EOT>", "_<EOT>",
                   "<\xEF\xBD\x9C"
                   "end\xE2\x96\x81of\xE2\x96\x81sentence\xEF\xBD\x9C>"});
    detect(s.eom, {"<|eom_id|>"});
    detect(s.fim_pre, {"<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>", "<PRE>", "\xE2\x96\x81<PRE>"});
    detect(s.fim_suf, {"<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>", "<SUF>", "\xE2\x96\x81<SUF>"});
    detect(s.fim_mid, {"<|fim_middle|>", "<fim-middle>", "<fim_middle>", "<MID>", "\xE2\x96\x81<MID>"});
    detect(s.fim_pad, {"<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>"});
    detect(s.fim_rep, {"<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"});
    detect(s.fim_sep, {"<|file_sep|>", "<file_sep>", "<fim-sep>"});

    // end of generation: EOS/EOT/EOM, FIM pad/rep/sep, and well-known end markers among control tokens
    for (llama_token id : {s.eos, s.eot, s.eom, s.fim_pad, s.fim_rep, s.fim_sep}) {
        if (id != LLAMA_TOKEN_NULL) {
            s.eog.insert(id);
        }
    }
    for (const char * t : {"<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<|eom_id|>",
                           "<EOT>", "_<EOT>", "<|end_of_text|>"}) {
        const llama_token id = s.find(t);
        if (id != LLAMA_TOKEN_NULL && (s.id_to_token[id].attr & LLAMA_TOKEN_ATTR_CONTROL)) {
            s.eog.insert(id);
        }
    }

    // Phi-3 vocabs strip the whitespace after their special tokens (as its reference tokenizer does)
    if (contains_ci(d.name, "phi-3") || contains_ci(d.name, "phi3")) {
        for (auto & t : s.id_to_token) {
            if (t.attr & (LLAMA_TOKEN_ATTR_CONTROL | LLAMA_TOKEN_ATTR_USER_DEFINED | LLAMA_TOKEN_ATTR_UNKNOWN)) {
                if (t.text != "<unk>" && t.text != "<s>" && t.text != "<|endoftext|>") {
                    t.attr = static_cast<llama_token_attr>(t.attr | LLAMA_TOKEN_ATTR_RSTRIP);
                }
            }
        }
    }

    // SPM byte fallback table
    s.byte_tokens.fill(LLAMA_TOKEN_NULL);
    for (int b = 0; b < 256; ++b) {
        char hex[8];
        snprintf(hex, sizeof(hex), "<0x%02X>", b);
        llama_token id = s.find(hex);
        if (id == LLAMA_TOKEN_NULL) {
            const char c = static_cast<char>(b);
            id           = s.find(std::string_view(&c, 1));
        }
        s.byte_tokens[b] = id;
    }

    // special-token candidates per first byte, longest text first (ties: lower id)
    std::vector<llama_token> specials;
    for (size_t i = 0; i < n; ++i) {
        const auto & t = s.id_to_token[i];
        if ((t.attr & (LLAMA_TOKEN_ATTR_CONTROL | LLAMA_TOKEN_ATTR_USER_DEFINED | LLAMA_TOKEN_ATTR_UNKNOWN)) &&
            !t.text.empty()) {
            specials.push_back(static_cast<llama_token>(i));
        }
    }
    std::stable_sort(specials.begin(), specials.end(), [&](llama_token a, llama_token b) {
        return s.id_to_token[a].text.size() > s.id_to_token[b].text.size();
    });
    for (llama_token id : specials) {
        s.special_by_byte[static_cast<uint8_t>(s.id_to_token[id].text[0])].push_back(id);
    }

    switch (s.type) {
        case LLAMA_VOCAB_TYPE_SPM:
            s.tokenizer = llama_tokenizer_spm_init(s);
            break;
        case LLAMA_VOCAB_TYPE_BPE:
            s.tokenizer = llama_tokenizer_bpe_init(s);
            break;
        case LLAMA_VOCAB_TYPE_WPM:
            s.tokenizer = llama_tokenizer_wpm_init(s);
            break;
        case LLAMA_VOCAB_TYPE_UGM:
            s.tokenizer = llama_tokenizer_ugm_init(s);
            break;
        case LLAMA_VOCAB_TYPE_RWKV:
            s.tokenizer = llama_tokenizer_rwkv_init(s);
            break;
        default:
            break;
    }

    // newline token
    if (s.type == LLAMA_VOCAB_TYPE_BPE && s.byte_encode) {
        s.nl = s.find("\xC4\x8A");  // byte-level '\n'
    } else if (s.type == LLAMA_VOCAB_TYPE_BPE) {
        // raw UTF-8: whatever "\n" tokenizes to ("\n" itself or <0x0A>), as upstream; the padding
        // token when nothing (the whitespace model drops it)
        std::vector<llama_token> ids;
        s.tokenizer->tokenize("\n", ids);
        s.nl = ids.empty() ? s.pad : ids[0];
    } else if (s.type == LLAMA_VOCAB_TYPE_SPM || s.type == LLAMA_VOCAB_TYPE_UGM) {
        s.nl = s.byte_tokens['\n'];
    } else if (s.type == LLAMA_VOCAB_TYPE_RWKV) {
        s.nl = s.find("\\n");
    }

    // pieces for token_to_piece (as with special = true)
    s.pieces.resize(n);
    for (size_t i = 0; i < n; ++i) {
        const auto & t = s.id_to_token[i];
        std::string  piece;
        if (t.attr & (LLAMA_TOKEN_ATTR_CONTROL | LLAMA_TOKEN_ATTR_UNKNOWN | LLAMA_TOKEN_ATTR_USER_DEFINED)) {
            piece = t.text;
        } else if (s.type == LLAMA_VOCAB_TYPE_RWKV) {
            piece = llama_rwkv_unescape(t.text);
        } else if (t.attr & LLAMA_TOKEN_ATTR_BYTE) {
            unsigned int byte = 0;
            if (sscanf(t.text.c_str(), "<0x%02X>", &byte) == 1) {
                piece.push_back(static_cast<char>(byte));
            } else {
                piece = t.text;
            }
        } else if (t.attr & LLAMA_TOKEN_ATTR_NORMAL) {
            if (s.type == LLAMA_VOCAB_TYPE_BPE && s.escape_ws) {
                piece = t.text;  // raw UTF-8 with U+2581 for spaces (gemma4, sarvam-moe)
                unescape_spm_whitespace(piece);
            } else if (s.type == LLAMA_VOCAB_TYPE_BPE) {
                // byte-level alphabet back to bytes; code points outside it are kept as they are (for
                // the raw-UTF-8 "whitespace" vocabs too: upstream decodes their pieces the same way)
                for (size_t k = 0; k < t.text.size();) {
                    size_t         len = 1;
                    const uint32_t c   = llama_unicode_decode(t.text.data() + k, t.text.size() - k, len);
                    const int      b   = llama_unicode_utf8_to_byte(c);
                    if (b >= 0) {
                        piece.push_back(static_cast<char>(b));
                    } else {
                        piece.append(t.text, k, len);
                    }
                    k += len;
                }
            } else {
                piece = t.text;
                unescape_spm_whitespace(piece);
            }
        }
        s.pieces[i] = std::move(piece);
    }

    pimpl = std::move(v);
}

// ---- queries ------------------------------------------------------------------------------------

enum llama_vocab_type llama_vocab::get_type() const {
    return pimpl->type;
}
bool llama_vocab::get_clean_spaces() const {
    return pimpl->clean_spaces;
}
std::string llama_vocab::type_name() const {
    return type_name_of(pimpl->type);
}
std::string llama_vocab::pre_name() const {
    return pimpl->pre_name;
}
int32_t llama_vocab::n_tokens() const {
    return static_cast<int32_t>(pimpl->id_to_token.size());
}

void llama_vocab::set_n_dummy_tokens(uint32_t n) {
    if (pimpl->type == LLAMA_VOCAB_TYPE_NONE && pimpl->id_to_token.empty()) {
        pimpl->id_to_token.assign(n, impl::token_data{std::string(), 0.0f, LLAMA_TOKEN_ATTR_UNDEFINED});
    }
}

const char * llama_vocab::token_get_text(llama_token id) const {
    if (!pimpl->valid(id)) {
        LLAMA_LOG_ERROR("%s: invalid token id %d\n", __func__, id);
        return nullptr;
    }
    return pimpl->id_to_token[id].text.c_str();
}

float llama_vocab::token_get_score(llama_token id) const {
    if (!pimpl->valid(id)) {
        LLAMA_LOG_ERROR("%s: invalid token id %d\n", __func__, id);
        return 0.0f;
    }
    return pimpl->id_to_token[id].score;
}

llama_token_attr llama_vocab::token_get_attr(llama_token id) const {
    if (!pimpl->valid(id)) {
        LLAMA_LOG_ERROR("%s: invalid token id %d\n", __func__, id);
        return LLAMA_TOKEN_ATTR_UNDEFINED;
    }
    return pimpl->id_to_token[id].attr;
}

llama_token llama_vocab::text_to_token(const std::string & text) const {
    return pimpl->find(text);
}

llama_token llama_vocab::token_bos() const {
    return pimpl->bos;
}
llama_token llama_vocab::token_eos() const {
    return pimpl->eos;
}
llama_token llama_vocab::token_eot() const {
    return pimpl->eot;
}
llama_token llama_vocab::token_eom() const {
    return pimpl->eom;
}
llama_token llama_vocab::token_unk() const {
    return pimpl->unk;
}
llama_token llama_vocab::token_sep() const {
    return pimpl->sep;
}
llama_token llama_vocab::token_nl() const {
    return pimpl->nl;
}
llama_token llama_vocab::token_pad() const {
    return pimpl->pad;
}
llama_token llama_vocab::token_cls() const {
    return pimpl->cls;
}
llama_token llama_vocab::token_mask() const {
    return pimpl->mask;
}
llama_token llama_vocab::token_fim_pre() const {
    return pimpl->fim_pre;
}
llama_token llama_vocab::token_fim_suf() const {
    return pimpl->fim_suf;
}
llama_token llama_vocab::token_fim_mid() const {
    return pimpl->fim_mid;
}
llama_token llama_vocab::token_fim_pad() const {
    return pimpl->fim_pad;
}
llama_token llama_vocab::token_fim_rep() const {
    return pimpl->fim_rep;
}
llama_token llama_vocab::token_fim_sep() const {
    return pimpl->fim_sep;
}

bool llama_vocab::get_add_bos() const {
    return pimpl->add_bos;
}
bool llama_vocab::get_add_eos() const {
    return pimpl->add_eos;
}
bool llama_vocab::get_add_sep() const {
    return pimpl->add_sep;
}
bool llama_vocab::get_add_space_prefix() const {
    return pimpl->add_space_prefix;
}

bool llama_vocab::is_eog(llama_token id) const {
    return id != LLAMA_TOKEN_NULL && pimpl->eog.count(id) > 0;
}
bool llama_vocab::is_control(llama_token id) const {
    return pimpl->has_attr(id, LLAMA_TOKEN_ATTR_CONTROL);
}
bool llama_vocab::is_byte(llama_token id) const {
    return pimpl->has_attr(id, LLAMA_TOKEN_ATTR_BYTE);
}
