// The grammar matcher: a set of pushdown stacks advanced code point by code point (see
// llama-grammar.h). Pruning tries all candidates against one stack at a time and advances that
// stack once per code point for all candidates that share it, so the grammar is never copied per
// candidate.
#include <algorithm>

#include "llama-grammar.h"

namespace {

// work limits per expansion: an ambiguous grammar must fail, not eat all memory
constexpr size_t GRAM_MAX_STACKS = 20000;
constexpr size_t GRAM_MAX_WORK   = 1u << 20;

bool in_set(const gram_set & s, uint32_t c) {
    for (const auto & r : s) {
        if (c >= r.first && c <= r.second) {
            return true;
        }
    }
    return false;
}

bool match_char(const gram_rules & g, const gram_elem * e, uint32_t c) {
    switch (e->type) {
        case gram_type::CHARS:
            return in_set(g.sets[e->value], c);
        case gram_type::CHARS_NOT:
            return !in_set(g.sets[e->value], c);
        default:
            return false;
    }
}

bool is_token_elem(const gram_elem * e) {
    return e->type == gram_type::TOKEN || e->type == gram_type::TOKEN_NOT;
}

bool match_token(const gram_elem * e, llama_token id) {
    return e->type == gram_type::TOKEN ? (uint32_t) id == e->value : (uint32_t) id != e->value;
}

// Can some code point that starts with the pending bytes of p match e?
bool match_partial(const gram_rules & g, const gram_elem * e, gram_partial p) {
    if (p.n_remain <= 0) {
        return p.n_remain == 0;
    }
    uint32_t       low  = p.value << (6 * p.n_remain);
    const uint32_t high = low | ((1u << (6 * p.n_remain)) - 1);
    if (low == 0) {
        // a bare E0 or F0 lead: the shortest-form rule puts the code point above 0x7FF / 0xFFFF
        low = p.n_remain == 2 ? 0x800 : p.n_remain == 3 ? 0x10000 : low;
    }
    if (e->type == gram_type::CHARS) {
        for (const auto & r : g.sets[e->value]) {
            if (r.first <= high && r.second >= low) {
                return true;
            }
        }
        return false;
    }
    if (e->type == gram_type::CHARS_NOT) {
        for (const auto & r : g.sets[e->value]) {
            if (r.first <= low && r.second >= high) {
                return false;
            }
        }
        return true;
    }
    return false;
}

void push_unique(gram_stacks & out, gram_stack && s) {
    if (std::find(out.begin(), out.end(), s) != out.end()) {
        return;
    }
    if (out.size() >= GRAM_MAX_STACKS) {
        throw gram_error("grammar too ambiguous (more than " + std::to_string(GRAM_MAX_STACKS) + " parse stacks)");
    }
    out.push_back(std::move(s));
}

// Replaces rule references on top of the stack by each of their alternatives until every stack
// has a terminal on top or is empty. Iterative: nesting depth cannot overflow the C++ stack.
void expand(const gram_rules & g, gram_stack && start, gram_stacks & out) {
    std::vector<gram_stack> todo;
    todo.push_back(std::move(start));
    size_t work = 0;
    while (!todo.empty()) {
        gram_stack s = std::move(todo.back());
        todo.pop_back();
        if (++work > GRAM_MAX_WORK) {
            throw gram_error("grammar too ambiguous (expansion too large)");
        }
        if (s.empty() || s.back()->type != gram_type::RULE_REF) {
            push_unique(out, std::move(s));
            continue;
        }
        const gram_elem * ref = s.back();
        s.pop_back();
        const auto & alts = g.alts[ref->value];
        for (auto it = alts.rbegin(); it != alts.rend(); ++it) {
            gram_stack ns = s;
            if (ref[1].type != gram_type::END) {
                ns.push_back(ref + 1);
            }
            if ((*it)[0].type != gram_type::END) {
                ns.push_back(it->data());
            }
            todo.push_back(std::move(ns));
        }
    }
}

// the stack after its top terminal was matched
gram_stack after_top(const gram_stack & s) {
    gram_stack ns(s.begin(), s.end() - 1);
    if (s.back()[1].type != gram_type::END) {
        ns.push_back(s.back() + 1);
    }
    return ns;
}

gram_stacks accept_cp(const gram_rules & g, const gram_stacks & stacks, uint32_t c) {
    gram_stacks out;
    for (const auto & s : stacks) {
        if (!s.empty() && match_char(g, s.back(), c)) {
            expand(g, after_top(s), out);
        }
    }
    return out;
}

// true when the text (code points then a pending partial) can be read from stacks; result in out
bool accept_cps(const gram_rules & g, gram_stacks stacks, const std::vector<uint32_t> & cps, gram_partial partial,
                gram_stacks & out) {
    for (uint32_t c : cps) {
        stacks = accept_cp(g, stacks, c);
        if (stacks.empty()) {
            return false;
        }
    }
    if (partial.n_remain < 0) {
        return false;
    }
    if (partial.n_remain > 0) {
        bool any = false;
        for (const auto & s : stacks) {
            any = any || (!s.empty() && match_partial(g, s.back(), partial));
        }
        if (!any) {
            return false;
        }
    }
    out = std::move(stacks);
    return true;
}

std::vector<gram_cand> reject_stacks(const gram_rules & g, const gram_stacks & stacks,
                                     const std::vector<gram_cand> & cands, bool at_start);

// The candidates (text from their cps on) that cannot be read from this one stack.
std::vector<gram_cand> reject_stack(const gram_rules & g, const gram_stack & stack,
                                    const std::vector<gram_cand> & cands, bool at_start) {
    std::vector<gram_cand> rejects;
    if (stack.empty()) {
        // the grammar is complete here: only the end of the text fits
        for (const auto & c : cands) {
            if (*c.cps != 0 || c.partial.n_remain != 0) {
                rejects.push_back(c);
            }
        }
        return rejects;
    }
    const gram_elem * top = stack.back();
    if (is_token_elem(top)) {
        for (const auto & c : cands) {
            const bool ok = at_start ? match_token(top, c.id) : (*c.cps == 0 && c.partial.n_remain == 0);
            if (!ok) {
                rejects.push_back(c);
            }
        }
        return rejects;
    }
    std::vector<gram_cand> next;
    for (const auto & c : cands) {
        if (*c.cps == 0) {
            // the text ended: fine unless a pending partial character cannot fit here
            if (c.partial.n_remain != 0 && !match_partial(g, top, c.partial)) {
                rejects.push_back(c);
            }
        } else if (match_char(g, top, *c.cps)) {
            gram_cand n = c;
            n.cps++;
            next.push_back(n);
        } else {
            rejects.push_back(c);
        }
    }
    if (!next.empty()) {
        gram_stacks after;
        expand(g, after_top(stack), after);
        // the sub-call answers in its input's form (one code point further): step back, so
        // the next stack of the caller sees the candidate's text from the same place
        for (auto r : reject_stacks(g, after, next, false)) {
            r.cps--;
            rejects.push_back(r);
        }
    }
    return rejects;
}

std::vector<gram_cand> reject_stacks(const gram_rules & g, const gram_stacks & stacks,
                                     const std::vector<gram_cand> & cands, bool at_start) {
    if (stacks.empty()) {
        return cands;
    }
    std::vector<gram_cand> rejects = cands;
    for (const auto & s : stacks) {
        if (rejects.empty()) {
            break;
        }
        rejects = reject_stack(g, s, rejects, at_start);  // rejected only if no stack takes it
    }
    return rejects;
}

}  // namespace

gram_partial gram_decode_utf8(const std::string & bytes, gram_partial partial, std::vector<uint32_t> & out) {
    uint32_t value    = partial.value;
    int      n_remain = partial.n_remain;
    if (n_remain < 0) {
        return partial;
    }
    const gram_partial invalid = {0, -1};
    for (unsigned char b : bytes) {
        if (n_remain > 0) {
            if ((b & 0xC0) != 0x80) {
                return invalid;
            }
            // overlong forms: E0 needs a second byte >= A0, F0 one >= 90
            if (value == 0 && ((n_remain == 2 && b < 0xA0) || (n_remain == 3 && b < 0x90))) {
                return invalid;
            }
            value = (value << 6) | (b & 0x3F);
            if (--n_remain == 0) {
                if (value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) {
                    return invalid;
                }
                out.push_back(value);
            }
            continue;
        }
        if (b == 0) {
            return invalid;
        }
        if (b < 0x80) {
            out.push_back(b);
        } else if ((b >> 5) == 0x6 && b >= 0xC2) {
            value    = b & 0x1F;
            n_remain = 1;
        } else if ((b >> 4) == 0xE) {
            value    = b & 0x0F;
            n_remain = 2;
        } else if ((b >> 3) == 0x1E && b <= 0xF4) {
            value    = b & 0x07;
            n_remain = 3;
        } else {
            return invalid;
        }
    }
    return {value, n_remain};
}

gram_state::gram_state(std::shared_ptr<const gram_rules> r) : rules(std::move(r)) {
    for (const auto & alt : rules->alts[rules->root]) {
        gram_stack s;
        if (alt[0].type != gram_type::END) {
            s.push_back(alt.data());
        }
        expand(*rules, std::move(s), stacks);
    }
}

bool gram_state::complete() const {
    for (const auto & s : stacks) {
        if (s.empty()) {
            return true;
        }
    }
    return false;
}

bool gram_state::accept_text(const std::string & text) {
    std::vector<uint32_t> cps;
    const gram_partial    p = gram_decode_utf8(text, partial, cps);
    gram_stacks           out;
    if (!accept_cps(*rules, stacks, cps, p, out)) {
        return false;
    }
    stacks  = std::move(out);
    partial = p;
    return true;
}

bool gram_state::accept_token(llama_token id, const std::string & text) {
    gram_stacks out;
    if (partial.n_remain == 0) {
        for (const auto & s : stacks) {
            if (!s.empty() && is_token_elem(s.back()) && match_token(s.back(), id)) {
                expand(*rules, after_top(s), out);
            }
        }
    }
    gram_partial          p = {};
    std::vector<uint32_t> cps;
    const gram_partial    tp = gram_decode_utf8(text, partial, cps);
    gram_stacks           by_text;
    if (!text.empty() && accept_cps(*rules, stacks, cps, tp, by_text)) {
        p = tp;
        for (auto & s : by_text) {
            push_unique(out, std::move(s));
        }
    }
    if (out.empty()) {
        return false;
    }
    stacks  = std::move(out);
    partial = p;
    return true;
}

std::vector<size_t> gram_reject(const gram_state & st, const std::vector<gram_cand> & cands) {
    std::vector<size_t> idx;
    for (const auto & c : reject_stacks(*st.rules, st.stacks, cands, st.partial.n_remain == 0)) {
        idx.push_back(c.index);
    }
    return idx;
}
