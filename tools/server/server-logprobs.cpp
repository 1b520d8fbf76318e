#include "server-logprobs.h"

namespace server {

namespace {

json bytes_of(const std::string & s) {
    json b = json::array();
    for (unsigned char c : s) {
        b.push_back((int) c);
    }
    return b;
}

// The token as text: its bytes when they are valid UTF-8 alone, else with U+FFFD for the
// partial sequence (the bytes field keeps them exactly, as OpenAI does).
json entry(const token_logprob & t, bool with_id) {
    json e = json::object();
    if (with_id) {
        e["id"] = t.id;
    }
    e["token"]   = t.piece;
    e["logprob"] = t.logprob;
    e["bytes"]   = bytes_of(t.piece);
    return e;
}

}  // namespace

json chat_logprobs(const std::vector<token_probs> & probs) {
    json content = json::array();
    for (const auto & p : probs) {
        json e  = entry(p.chosen, false);
        json tl = json::array();
        for (const auto & t : p.top) {
            tl.push_back(entry(t, false));
        }
        e["top_logprobs"] = tl;
        content.push_back(e);
    }
    return {{"content", content}, {"refusal", nullptr}};
}

json completion_logprobs(const std::vector<token_probs> & probs) {
    json tokens = json::array(), lps = json::array(), tops = json::array(), offsets = json::array();
    for (const auto & p : probs) {
        tokens.push_back(p.chosen.piece);
        lps.push_back(p.chosen.logprob);
        json top = json::object();
        for (const auto & t : p.top) {
            if (!top.contains(t.piece)) {  // two ids may share a piece: the more probable stays
                top[t.piece] = t.logprob;
            }
        }
        tops.push_back(top);
        offsets.push_back(p.offset);
    }
    return {{"tokens", tokens}, {"token_logprobs", lps}, {"top_logprobs", tops}, {"text_offset", offsets}};
}

json native_probs(const std::vector<token_probs> & probs) {
    json out = json::array();
    for (const auto & p : probs) {
        json e  = entry(p.chosen, true);
        json tl = json::array();
        for (const auto & t : p.top) {
            tl.push_back(entry(t, true));
        }
        e["top_logprobs"] = tl;
        out.push_back(e);
    }
    return out;
}

}  // namespace server
