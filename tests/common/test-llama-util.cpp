#include "test-llama-util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>

#include "test-common.h"

namespace llama_test_util {

namespace {

std::vector<int> parse_ints(const std::string & s, size_t from, char end) {
    std::vector<int> out;
    size_t           i = from;
    while (i < s.size() && s[i] != end) {
        if (s[i] == '-' || isdigit((unsigned char) s[i])) {
            size_t n = 0;
            out.push_back(std::stoi(s.substr(i), &n));
            i += n;
        } else {
            i++;
        }
    }
    return out;
}

// Decodes the JSON string starting at s[i] (just after the opening quote).
std::string parse_json_string(const std::string & s, size_t i) {
    std::string out;
    for (; i < s.size() && s[i] != '"'; i++) {
        if (s[i] != '\\') {
            out += s[i];
            continue;
        }
        const char e = s[++i];
        if (e == 'u') {
            const unsigned cp = (unsigned) std::stoul(s.substr(i + 1, 4), nullptr, 16);
            i += 4;
            if (cp < 0x80) {
                out += (char) cp;
            } else if (cp < 0x800) {
                out += (char) (0xC0 | (cp >> 6));
                out += (char) (0x80 | (cp & 0x3F));
            } else {
                out += (char) (0xE0 | (cp >> 12));
                out += (char) (0x80 | ((cp >> 6) & 0x3F));
                out += (char) (0x80 | (cp & 0x3F));
            }
        } else {
            out += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
        }
    }
    return out;
}

}  // namespace

reference load_reference(const std::string & rel) {
    reference                  r;
    const std::vector<uint8_t> bytes = testing_util::read_file(testing_util::data_path(rel));
    const std::string          all(bytes.begin(), bytes.end());
    size_t                     pos = 0;
    while (pos < all.size()) {
        size_t eol = all.find('\n', pos);
        if (eol == std::string::npos) {
            eol = all.size();
        }
        const std::string line = all.substr(pos, eol - pos);
        pos                    = eol + 1;
        if (line.rfind("{\"prompt_tokens\":[", 0) == 0) {
            for (int t : parse_ints(line, 18, ']')) {
                r.prompt.push_back(t);
            }
        } else if (line.rfind("{\"step\":", 0) == 0) {
            const size_t top = line.find("\"top\":[[");
            r.greedy.push_back(parse_ints(line, top + 8, ',').at(0));
        } else if (line.rfind("{\"text\":\"", 0) == 0) {
            r.text = parse_json_string(line, 9);
        }
    }
    return r;
}

std::vector<float> load_logits(const std::string & rel) {
    const std::vector<uint8_t> bytes = testing_util::read_file(testing_util::data_path(rel));
    std::vector<float>         out(bytes.size() / sizeof(float));
    memcpy(out.data(), bytes.data(), out.size() * sizeof(float));
    return out;
}

double max_abs_diff(const std::vector<float> & a, const std::vector<float> & b) {
    EXPECT_EQ(a.size(), b.size());
    double d = 0;
    for (size_t i = 0; i < a.size() && i < b.size(); i++) {
        d = std::max(d, (double) std::fabs(a[i] - b[i]));
    }
    return d;
}

std::vector<llama_token> synthetic_prompt(int n) {
    std::vector<llama_token> prompt;
    for (int i = 0; i < n; i++) {
        prompt.push_back(3 + (i * 37) % 250);
    }
    return prompt;
}

double max_err_rel_rms(const float * a, const float * b, int n) {
    double sq = 0, worst = 0;
    for (int i = 0; i < n; i++) {
        sq += (double) b[i] * b[i];
        worst = std::max(worst, (double) std::fabs(a[i] - b[i]));
    }
    const double rms = std::sqrt(sq / n);
    return worst / (rms > 0 ? rms : 1);
}

int argmax(const float * v, int n) {
    return (int) (std::max_element(v, v + n) - v);
}

std::vector<llama_token> tokenize(const llama_model * m, const std::string & text, bool add_special) {
    const llama_vocab *      v = llama_model_get_vocab(m);
    const int                n = -llama_tokenize(v, text.c_str(), (int) text.size(), nullptr, 0, add_special, true);
    std::vector<llama_token> out(std::max(n, 0));
    EXPECT_EQ(llama_tokenize(v, text.c_str(), (int) text.size(), out.data(), n, add_special, true), n);
    return out;
}

std::vector<float> sequence_logits(const std::string & path, const std::vector<llama_token> & seq, int & n_vocab,
                                   std::string & err, int n_ctx_min) {
    model_ptr model(llama_model_load_from_file(path.c_str(), llama_model_default_params()));
    if (!model) {
        err = std::string("load: ") + llama_last_error();
        return {};
    }
    n_vocab                 = llama_vocab_n_tokens(llama_model_get_vocab(model.get()));
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx = cp.n_batch = cp.n_ubatch = (uint32_t) std::max<size_t>((size_t) n_ctx_min, seq.size());
    cp.n_threads = cp.n_threads_batch = 2;
    ctx_ptr ctx(llama_init_from_model(model.get(), cp));
    if (!ctx) {
        err = std::string("context: ") + llama_last_error();
        return {};
    }
    owned_batch b((int) seq.size(), 1);
    for (size_t i = 0; i < seq.size(); i++) {
        b.add(seq[i], (llama_pos) i, {0}, true);
    }
    if (llama_decode(ctx.get(), b.b) != 0) {
        err = std::string("decode: ") + llama_last_error();
        return {};
    }
    std::vector<float> out;
    out.reserve(seq.size() * (size_t) n_vocab);
    for (size_t i = 0; i < seq.size(); i++) {
        const float * l = llama_get_logits_ith(ctx.get(), (int32_t) i);
        if (!l) {
            err = "no logits for position " + std::to_string(i);
            return {};
        }
        out.insert(out.end(), l, l + n_vocab);
    }
    return out;
}

void run_greedy(llama_context * ctx, std::vector<llama_token> prompt, int n_steps, std::vector<llama_token> & out,
                std::vector<float> & rows) {
    const llama_vocab * vocab   = llama_model_get_vocab(llama_get_model(ctx));
    const int           n_vocab = llama_vocab_n_tokens(vocab);
    llama_batch         batch   = llama_batch_get_one(prompt.data(), (int) prompt.size());
    llama_token         tok     = 0;
    for (int step = 0; step < n_steps; step++) {
        ASSERT_EQ(llama_decode(ctx, batch), 0) << llama_last_error();
        const float * lg = llama_get_logits_ith(ctx, -1);
        ASSERT_NE(lg, nullptr);
        rows.insert(rows.end(), lg, lg + n_vocab);
        tok = argmax(lg, n_vocab);
        out.push_back(tok);
        if (llama_vocab_is_eog(vocab, tok)) {
            break;
        }
        batch = llama_batch_get_one(&tok, 1);
    }
}

model_ptr load_with_override(const std::string & path, const std::string & key, llama_model_kv_override_type tag,
                             double value) {
    llama_model_kv_override kvo[2] = {};  // the second, zeroed, ends the list
    kvo[0].tag                     = tag;
    snprintf(kvo[0].key, sizeof kvo[0].key, "%s", key.c_str());
    if (tag == LLAMA_KV_OVERRIDE_TYPE_FLOAT) {
        kvo[0].val_f64 = value;
    } else if (tag == LLAMA_KV_OVERRIDE_TYPE_INT) {
        kvo[0].val_i64 = (int64_t) value;
    } else if (tag == LLAMA_KV_OVERRIDE_TYPE_BOOL) {
        kvo[0].val_bool = value != 0;
    } else {
        ADD_FAILURE() << "load_with_override: string overrides are not supported here";
        return nullptr;
    }
    llama_model_params mp = llama_model_default_params();
    mp.kv_overrides       = kvo;
    return model_ptr(llama_model_load_from_file(path.c_str(), mp));
}

model_ptr load_with_override(const std::string & path, const std::string & key, int64_t value) {
    return load_with_override(path, key, LLAMA_KV_OVERRIDE_TYPE_INT, (double) value);
}

void expect_refused(const model_ptr & m, const std::string & why) {
    EXPECT_EQ(m, nullptr) << "expected a refusal naming: " << why;
    EXPECT_NE(std::string(llama_last_error()).find(why), std::string::npos) << llama_last_error();
}

std::string write_edited_copy(const std::string & src, const std::string & stem,
                              const std::function<void(gguf_context *)> & edit) {
    gguf_context * g = gguf_init_from_file(src.c_str(), gguf_init_params{false});
    if (!g) {
        ADD_FAILURE() << "cannot read " << src;
        return {};
    }
    edit(g);
    const std::string path = testing_util::write_temp_file(stem, {});
    EXPECT_TRUE(gguf_write_to_file(g, path.c_str(), false)) << path;
    gguf_free(g);
    return path;
}

model_ptr load_edited_copy(const std::string & src, const std::function<void(gguf_context *)> & edit) {
    const std::string path = write_edited_copy(src, "edited.gguf", edit);
    if (path.empty()) {
        return nullptr;
    }
    model_ptr m(llama_model_load_from_file(path.c_str(), llama_model_default_params()));
    remove(path.c_str());
    return m;
}

void decode_into(llama_context * ctx, const std::vector<llama_token> & toks, llama_pos pos0, llama_seq_id seq) {
    owned_batch b((int) toks.size());
    for (size_t i = 0; i < toks.size(); i++) {
        b.add(toks[i], pos0 + (llama_pos) i, {seq}, i + 1 == toks.size());
    }
    ASSERT_EQ(llama_decode(ctx, b.b), 0) << llama_last_error();
}

std::vector<float> continue_greedy(llama_context * ctx, llama_seq_id seq, llama_pos pos, int n_steps) {
    const int          nv = llama_vocab_n_tokens(llama_model_get_vocab(llama_get_model(ctx)));
    std::vector<float> rows;
    for (int s = 0;; s++) {
        const float * lg = llama_get_logits_ith(ctx, -1);
        EXPECT_NE(lg, nullptr) << llama_last_error();
        if (!lg) {
            return rows;
        }
        rows.insert(rows.end(), lg, lg + nv);
        if (s == n_steps) {
            return rows;
        }
        decode_into(ctx, {(llama_token) argmax(lg, nv)}, pos++, seq);
    }
}

}  // namespace llama_test_util
