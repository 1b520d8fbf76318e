// The incremental parser: a two-state machine (content, reasoning) over the text fed so far. It
// only ever appends to its message, which is what makes streaming deltas exact; anything that
// could still change meaning (a marker cut short, a call not yet closed, trailing whitespace, a
// split UTF-8 sequence) waits in the buffer until more text or finish() decides it.
#include <algorithm>
#include <utility>

#include "chat-format-impl.h"

namespace llama_tools {

using chat_impl::format_spec;
using chat_impl::marker;
using chat_impl::marker_kind;
using chat_impl::scan;
using chat_impl::spec_of;

namespace {

bool is_ws(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// End of the text that can be shown without cutting a UTF-8 sequence in two.
size_t utf8_safe_end(std::string_view s, size_t end) {
    for (size_t back = 1; back <= 3 && back <= end; back++) {
        const unsigned char c = (unsigned char) s[end - back];
        if ((c & 0xC0) == 0x80) {
            continue;  // continuation byte: look further back for the lead byte
        }
        const size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
        return need > back ? end - back : end;
    }
    return end;
}

// Appends text to a field whose leading `trim` characters are dropped and whose trailing
// whitespace waits in `pending` until something else follows it.
void append_trimmed(std::string & field, std::string & pending, std::string_view text, const std::string & trim) {
    std::string t = pending + std::string(text);
    pending.clear();
    if (field.empty()) {
        const size_t first = t.find_first_not_of(trim);
        t.erase(0, first == std::string::npos ? t.size() : first);
    }
    size_t keep = t.size();
    while (keep > 0 && is_ws(t[keep - 1])) {
        keep--;
    }
    pending = t.substr(keep);
    field += t.substr(0, keep);
}

}  // namespace

chat_parser::chat_parser(chat_format fmt, chat_parse_options opts) : fmt_(fmt), opts_(std::move(opts)) {
    if (!opts_.tools_json.empty()) {
        string_params_ = chat_impl::string_parameters(opts_.tools_json);
    }
    if (opts_.thinking_forced_open && !spec_of(fmt_).reasoning_close.empty()) {
        mode_         = mode::reasoning;
        forced_start_ = true;
    }
}

void chat_parser::feed(std::string_view text) {
    if (finished_) {
        return;
    }
    try {
        buf_.append(text);
        run(false);
    } catch (...) {
        // only allocation failures get here; the message so far stays valid
    }
}

chat_msg chat_parser::finish() {
    if (!finished_) {
        try {
            run(true);
        } catch (...) {
        }
        pending_ws_content_.clear();
        pending_ws_reasoning_.clear();
        finished_ = true;
    }
    return msg_;
}

void chat_parser::add_content(std::string_view text) {
    append_trimmed(msg_.content, pending_ws_content_, text, spec_of(fmt_).trim_leading);
}

void chat_parser::add_reasoning(std::string_view text) {
    if (opts_.reasoning_in_content) {
        add_content(text);
        return;
    }
    append_trimmed(msg_.reasoning_content, pending_ws_reasoning_, text, " \t\r\n");
}

void chat_parser::run(bool at_end) {
    const format_spec & spec = spec_of(fmt_);
    if (!started_) {
        // The prompt may end with part of the syntax (functionary's ">>>"): parse as if the output
        // began with it, unless the model repeats it.
        const std::string & pre = spec.start_prefix;
        if (!pre.empty()) {
            const size_t n = std::min(pre.size(), buf_.size());
            if (!at_end && n < pre.size() && buf_.compare(0, n, pre, 0, n) == 0) {
                return;  // cannot tell yet
            }
            if (buf_.compare(0, pre.size(), pre) != 0) {
                buf_.insert(0, pre);
                virtual_end_ = pre.size();
            }
        }
        started_ = true;
    }
    while (mode_ == mode::reasoning ? step_reasoning(at_end) : step_content(at_end)) {
    }
}

bool chat_parser::step_reasoning(bool at_end) {
    const format_spec & spec = spec_of(fmt_);
    const std::string & s    = buf_;
    if (forced_start_) {
        // the prompt opened the block, yet some models open it again: drop that opener
        size_t i = pos_;
        while (i < s.size() && is_ws(s[i])) {
            i++;
        }
        for (const marker & m : spec.markers) {
            if (m.kind != marker_kind::reasoning_open) {
                continue;
            }
            const size_t avail = s.size() - i;
            if (avail >= m.text.size() && s.compare(i, m.text.size(), m.text) == 0) {
                pos_ = i + m.text.size();
                break;
            }
            if (avail < m.text.size() && s.compare(i, avail, m.text, 0, avail) == 0 && !at_end) {
                return false;  // cannot tell yet
            }
        }
        forced_start_ = false;
    }
    size_t best = std::string::npos;
    size_t len  = 0;
    for (const std::string & m : spec.reasoning_close) {
        const size_t p = s.find(m, pos_);
        if (p < best) {
            best = p;
            len  = m.size();
        }
    }
    if (best != std::string::npos) {
        add_reasoning(std::string_view(s).substr(pos_, best - pos_));
        if (opts_.reasoning_in_content) {
            add_content(std::string_view(s).substr(best, len));
        }
        pending_ws_reasoning_.clear();
        pos_  = best + len;
        mode_ = mode::content;
        return true;
    }
    size_t end = s.size();
    if (!at_end) {
        // hold back a tail that may be the start of the closing marker
        for (const std::string & m : spec.reasoning_close) {
            for (size_t k = std::min(m.size() - 1, s.size() - pos_); k > 0; k--) {
                if (s.compare(s.size() - k, k, m, 0, k) == 0) {
                    end = std::min(end, s.size() - k);
                    break;
                }
            }
        }
        end = std::max(pos_, utf8_safe_end(s, end));
    }
    add_reasoning(std::string_view(s).substr(pos_, end - pos_));
    pos_ = end;
    return false;
}

bool chat_parser::step_content(bool at_end) {
    const format_spec &    spec  = spec_of(fmt_);
    const std::string_view s     = buf_;
    auto                   flush = [&](size_t end) {
        if (end > pos_) {
            add_content(s.substr(pos_, end - pos_));
        }
        pos_ = std::max(pos_, end);
    };
    for (size_t i = pos_; i < s.size(); i++) {
        const marker * best      = nullptr;
        bool           potential = false;
        for (const marker & m : spec.markers) {
            if (m.text[0] != s[i] || (m.kind == marker_kind::call && !opts_.parse_tool_calls)) {
                continue;
            }
            if (m.at_start_only &&
                !(msg_.content.empty() &&
                  s.substr(pos_, i - pos_).find_first_not_of(spec.trim_leading) == std::string_view::npos)) {
                continue;
            }
            const size_t avail = s.size() - i;
            if (avail >= m.text.size()) {
                if (s.compare(i, m.text.size(), m.text) == 0 &&
                    (best == nullptr || m.text.size() > best->text.size())) {
                    best = &m;
                }
            } else if (!at_end && s.compare(i, avail, m.text, 0, avail) == 0) {
                potential = true;  // a marker (perhaps a longer one) may be cut short here
            }
        }
        if (potential) {
            flush(i);
            return false;
        }
        if (best == nullptr) {
            continue;
        }
        flush(i);
        const size_t after = i + best->text.size();
        if (best->kind == marker_kind::skip) {
            pos_ = after;
        } else if (best->kind == marker_kind::reasoning_open) {
            if (opts_.reasoning_in_content) {
                add_content(best->text);
            }
            pos_  = after;
            mode_ = mode::reasoning;
            return true;
        } else {
            // Re-reading a long unfinished call on every feed would be quadratic. Every call
            // ends with one of ">}])", and the parsers decide the same on any longer text, so
            // without such a byte the answer is still "incomplete"; reading again once the call
            // has doubled still turns prose after an opener into content soon enough.
            if (!at_end && call_wait_ > i && s.size() - i < 2 * (call_wait_ - i) &&
                s.find_first_of(">}])", std::max(call_wait_, call_seen_)) == std::string_view::npos) {
                call_seen_ = s.size();
                return false;
            }
            chat_impl::call_context ctx;
            ctx.string_params        = &string_params_;
            chat_impl::call_result r = best->parse(s.substr(i), best->text.size(), at_end, ctx);
            call_wait_               = 0;
            if (r.st == scan::complete) {
                msg_.tool_calls.insert(msg_.tool_calls.end(), r.calls.begin(), r.calls.end());
                pos_ = i + r.end;
            } else if (r.st == scan::incomplete && !at_end) {
                call_wait_ = s.size();
                return false;  // wait for the rest of the call
            } else {
                // not a call after all: the opener is text (a prefix the prompt implied is not)
                const size_t from = std::max(i, virtual_end_);
                if (after > from) {
                    add_content(s.substr(from, after - from));
                }
                pos_ = after;
            }
        }
        i = pos_ - 1;  // the loop's i++ resumes at pos_
    }
    size_t end = s.size();
    if (!at_end) {
        end = std::max(pos_, utf8_safe_end(s, end));
    }
    flush(end);
    return false;
}

std::vector<chat_msg_delta> diff(const chat_msg & before, const chat_msg & after) {
    std::vector<chat_msg_delta> out;
    auto                        suffix = [](const std::string & a, const std::string & b) {
        return b.compare(0, a.size(), a) == 0 ? b.substr(a.size()) : b;
    };
    if (after.reasoning_content != before.reasoning_content) {
        chat_msg_delta d;
        d.reasoning_content = suffix(before.reasoning_content, after.reasoning_content);
        out.push_back(d);
    }
    if (after.content != before.content) {
        chat_msg_delta d;
        d.content = suffix(before.content, after.content);
        out.push_back(d);
    }
    for (size_t i = 0; i < after.tool_calls.size(); i++) {
        const chat_tool_call & a = after.tool_calls[i];
        chat_msg_delta         d;
        d.tool_call_index = (int) i;
        if (i >= before.tool_calls.size()) {
            d.tool_call_name      = a.name;
            d.tool_call_id        = a.id;
            d.tool_call_arguments = a.arguments;
        } else if (a.arguments != before.tool_calls[i].arguments) {
            d.tool_call_arguments = suffix(before.tool_calls[i].arguments, a.arguments);
        } else {
            continue;
        }
        out.push_back(d);
    }
    return out;
}

}  // namespace llama_tools
