// Chat output formats (tools/common/chat-format*): for each family, model outputs shaped like the
// real templates render them parse into the expected content / reasoning / tool calls; fed in
// every split, the streaming deltas add up to finish() and partial() content only grows;
// detection from template snippets; the tool-call grammars compile, accept rendered calls and
// reject broken ones (through the grammar sampler over the gpt-2 vocabulary). Built only when
// nlohmann/json is present (extra-tests.cmake).
#include <gtest/gtest.h>

#ifdef LLAMA_TEST_CHAT_FORMAT

#    include <cmath>
#    include <random>
#    include <regex>
#    include <string>
#    include <vector>

#    include "chat-format.h"
#    include "json-schema-grammar.h"
#    include "llama.h"
#    include "test-common.h"
#    include "test-grammar-util.h"

using namespace llama_tools;

namespace llama_tools {
// readable failures instead of gtest's byte dump
void PrintTo(const chat_msg & m, std::ostream * os) {
    *os << "content=[" << m.content << "] reasoning=[" << m.reasoning_content << "]";
    for (const auto & c : m.tool_calls) {
        *os << " call{" << c.name << " " << c.arguments << " id=" << c.id << "}";
    }
}
}  // namespace llama_tools

namespace {

chat_tool_call tc(const std::string & name, const std::string & args, const std::string & id = "") {
    return {name, args, id};
}

chat_msg msg(const std::string & content, const std::string & reasoning = "", std::vector<chat_tool_call> calls = {}) {
    chat_msg m;
    m.content           = content;
    m.reasoning_content = reasoning;
    m.tool_calls        = std::move(calls);
    return m;
}

std::string show(const chat_msg & m) {
    std::string s = "content=[" + m.content + "] reasoning=[" + m.reasoning_content + "]";
    for (const auto & c : m.tool_calls) {
        s += " call{" + c.name + " " + c.arguments + " id=" + c.id + "}";
    }
    return s;
}

chat_msg parse(chat_format fmt, const std::string & text, chat_parse_options opts = {}) {
    chat_parser p(fmt, opts);
    p.feed(text);
    return p.finish();
}

void apply(chat_msg & m, const chat_msg_delta & d) {
    m.content += d.content;
    m.reasoning_content += d.reasoning_content;
    if (d.tool_call_index >= 0) {
        if ((size_t) d.tool_call_index >= m.tool_calls.size()) {
            m.tool_calls.resize(d.tool_call_index + 1);
        }
        chat_tool_call & c = m.tool_calls[d.tool_call_index];
        c.name += d.tool_call_name;
        c.id += d.tool_call_id;
        c.arguments += d.tool_call_arguments;
    }
}

bool is_prefix(const std::string & a, const std::string & b) {
    return b.compare(0, a.size(), a) == 0;
}

// Whether s is whole UTF-8 sequences (the check streaming clients need, not full validation).
bool whole_utf8(const std::string & s) {
    for (size_t i = 0; i < s.size();) {
        const unsigned char c = (unsigned char) s[i];
        const size_t        n = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
        if (n == 0 || i + n > s.size()) {
            return false;
        }
        for (size_t k = 1; k < n; k++) {
            if (((unsigned char) s[i + k] & 0xC0) != 0x80) {
                return false;
            }
        }
        i += n;
    }
    return true;
}

// Feeds the chunks, checking after each that the snapshot only extends the previous one, and that
// the deltas rebuild the final message. Returns the final message.
chat_msg stream(chat_format fmt, const std::vector<std::string> & chunks, chat_parse_options opts,
                const chat_msg & expect, const std::string & where) {
    chat_parser p(fmt, opts);
    chat_msg    prev, rebuilt;
    for (const std::string & c : chunks) {
        p.feed(c);
        const chat_msg now = p.partial();
        EXPECT_TRUE(is_prefix(prev.content, now.content)) << where;
        EXPECT_TRUE(is_prefix(now.content, expect.content)) << where << "\n partial: " << show(now);
        EXPECT_TRUE(is_prefix(now.reasoning_content, expect.reasoning_content)) << where << "\n " << show(now);
        EXPECT_LE(now.tool_calls.size(), expect.tool_calls.size()) << where;
        if (whole_utf8(expect.content) && whole_utf8(expect.reasoning_content)) {
            EXPECT_TRUE(whole_utf8(now.content) && whole_utf8(now.reasoning_content)) << where << " cuts UTF-8";
        }
        for (const chat_msg_delta & d : diff(prev, now)) {
            apply(rebuilt, d);
        }
        prev = now;
    }
    const chat_msg fin = p.finish();
    for (const chat_msg_delta & d : diff(prev, fin)) {
        apply(rebuilt, d);
    }
    EXPECT_EQ(rebuilt, fin) << where << "\n rebuilt: " << show(rebuilt) << "\n final: " << show(fin);
    return fin;
}

// The whole text parses to `expect`, and so does every way of feeding it: byte by byte, split in
// two at each position, and random chunkings.
void check(chat_format fmt, const std::string & text, const chat_msg & expect, chat_parse_options opts = {}) {
    const chat_msg whole = parse(fmt, text, opts);
    EXPECT_EQ(whole, expect) << chat_format_name(fmt) << " on:\n"
                             << text << "\n got:  " << show(whole) << "\n want: " << show(expect);
    if (!(whole == expect)) {
        return;
    }
    std::vector<std::string> bytes;
    for (char c : text) {
        bytes.emplace_back(1, c);
    }
    stream(fmt, bytes, opts, expect, "byte by byte");
    for (size_t cut = 0; cut <= text.size(); cut++) {
        stream(fmt, {text.substr(0, cut), text.substr(cut)}, opts, expect, "split at " + std::to_string(cut));
    }
    std::mt19937 rng(42);
    for (int round = 0; round < 20; round++) {
        std::vector<std::string> chunks;
        for (size_t i = 0; i < text.size();) {
            const size_t n = 1 + rng() % 7;
            chunks.push_back(text.substr(i, n));
            i += n;
        }
        stream(fmt, chunks, opts, expect, "random chunks");
    }
}

}  // namespace

TEST(ChatFormat, NamesRoundTrip) {
    for (int i = 0; i < (int) chat_format::count; i++) {
        chat_format f;
        ASSERT_TRUE(chat_format_from_name(chat_format_name((chat_format) i), f)) << i;
        EXPECT_EQ((int) f, i);
    }
    chat_format f;
    EXPECT_FALSE(chat_format_from_name("no-such-format", f));
    EXPECT_STREQ(chat_format_name(chat_format::count), "unknown");
}

TEST(ChatFormat, DiffDeltas) {
    const chat_msg a = msg("Hel", "th", {tc("f", "{\"a\":")});
    const chat_msg b = msg("Hello", "think", {tc("f", "{\"a\":1}"), tc("g", "{}", "id1")});
    const auto     d = diff(a, b);
    ASSERT_EQ(d.size(), 4u);
    EXPECT_EQ(d[0].reasoning_content, "ink");
    EXPECT_EQ(d[1].content, "lo");
    EXPECT_EQ(d[2].tool_call_index, 0);
    EXPECT_EQ(d[2].tool_call_name, "");
    EXPECT_EQ(d[2].tool_call_arguments, "1}");
    EXPECT_EQ(d[3].tool_call_index, 1);
    EXPECT_EQ(d[3].tool_call_name, "g");
    EXPECT_EQ(d[3].tool_call_id, "id1");
    EXPECT_EQ(d[3].tool_call_arguments, "{}");
    EXPECT_TRUE(diff(b, b).empty());
    EXPECT_EQ(diff(msg("abc"), msg("xyz"))[0].content, "xyz");  // not an extension: sent whole
}

TEST(ChatFormat, Detect) {
    // snippets with each family's markers, written for this test
    const std::vector<std::pair<std::string, chat_format>> cases = {
        {"{{ bos_token }}{% for m in messages %}{{ m.content }}{% endfor %}", chat_format::content_only},
        {"{{ '<|im_start|>assistant\\n<think>\\n' }}", chat_format::think},
        {"{{ '<tool_call>\\n' + tc | tojson + '\\n</tool_call>' }}", chat_format::hermes},
        {"<tool_call>\\n<function={{ name }}>\\n<parameter={{ k }}>\\n{{ v }}\\n</parameter>",
         chat_format::qwen3_coder},
        {"<|start_header_id|>ipython<|end_header_id|>{{ '<|python_tag|>' }}", chat_format::llama3_json},
        {"{{ '[TOOL_CALLS]' + name + '[ARGS]' + args }}", chat_format::mistral},
        {"<|start|>assistant<|channel|>final<|message|>{{ content }}<|end|>", chat_format::gpt_oss},
        {"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>{{ n }}\\n```json\\n",
         chat_format::deepseek_r1},
        {"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>{{ n }}<｜tool▁sep｜>{{ a }}", chat_format::deepseek_v3_1},
        {"respond with <|tool_call|> followed by a JSON list", chat_format::granite},
        {"<|START_THINKING|>{{ r }}<|END_THINKING|><|START_ACTION|>[", chat_format::command_r},
        {"<|start_header_id|>assistant<|end_header_id|>\\n\\n functools[{{ calls }}]", chat_format::firefunction_v2},
        {"{{ '>>>all\\n' + message['content'] }}", chat_format::functionary_v3_2},
        {"<|start_header_id|>{{ '<function=' + name + '>' }}", chat_format::functionary_v3_1_llama3_1},
    };
    for (const auto & [src, want] : cases) {
        EXPECT_EQ(detect_chat_format(src), want) << src << " -> " << chat_format_name(detect_chat_format(src));
    }
}

TEST(ChatFormat, ContentOnlyAndThink) {
    check(chat_format::content_only, "Hello <b>world</b> <think>x</think>", msg("Hello <b>world</b> <think>x</think>"));
    check(chat_format::content_only, "  \n", msg(""));
    check(chat_format::think, "<think>\nI should greet.\n</think>\n\nHello!", msg("Hello!", "I should greet."));
    check(chat_format::think, "<think>unterminated thought", msg("", "unterminated thought"));
    chat_parse_options forced;
    forced.thinking_forced_open = true;
    check(chat_format::think, "Already thinking.\n</think>Answer é.", msg("Answer é.", "Already thinking."), forced);
    check(chat_format::think, "<think>\nOpened twice.</think>Ok", msg("Ok", "Opened twice."), forced);
    check(chat_format::think, "<thin", msg("", "<thin"), forced);
    chat_parse_options inc;
    inc.reasoning_in_content = true;
    check(chat_format::think, "<think>hmm</think>Yes", msg("<think>hmm</think>Yes"), inc);
}

TEST(ChatFormat, Hermes) {
    const auto f = chat_format::hermes;
    check(f, "Just text.", msg("Just text."));
    check(f, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"n\": 2}}\n</tool_call>",
          msg("", "", {tc("get_weather", R"({"city":"Paris","n":2})")}));
    check(f,
          "<think>\nNeed two.\n</think>\n\nLet me check.\n<tool_call>\n{\"name\": \"a\", \"arguments\": "
          "{}}\n</tool_call>\n"
          "<tool_call>\n{\"name\": \"b\", \"arguments\": {\"q\": \"日本 \\\"x\\\" \\u00e9\"}}\n</tool_call>",
          msg("Let me check.", "Need two.", {tc("a", "{}"), tc("b", "{\"q\":\"日本 \\\"x\\\" é\"}")}));
    // malformed: bad JSON, missing name, unterminated: all text
    check(f, "<tool_call>\n{\"name\": \"a\", \"arguments\": {]}\n</tool_call>",
          msg("<tool_call>\n{\"name\": \"a\", \"arguments\": {]}\n</tool_call>"));
    check(f, "<tool_call>{\"arguments\": {}}</tool_call>", msg("<tool_call>{\"arguments\": {}}</tool_call>"));
    check(f, "x <tool_call>\n{\"name\": \"a\", \"arguments\": {}}",
          msg("x <tool_call>\n{\"name\": \"a\", \"arguments\": {}}"));
    check(f, "a <tool_ca", msg("a <tool_ca"));
    check(f, "Write <tool_call> then JSON. Done.", msg("Write <tool_call> then JSON. Done."));
    {
        // a long call is not re-read on every feed, yet shows as soon as it closes
        const std::string call =
            "<tool_call>\n{\"name\": \"w\", \"arguments\": {\"t\": \"" + std::string(20000, 'x') + "\"}}\n</tool_call>";
        chat_parser p(f);
        for (size_t i = 0; i < call.size(); i += 3) {
            p.feed(call.substr(i, 3));
        }
        EXPECT_EQ(p.partial().tool_calls.size(), 1u);
        p.feed("after");
        EXPECT_EQ(p.partial().content, "after");
    }
    chat_parse_options no_tools;
    no_tools.parse_tool_calls = false;
    check(f, "<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call>",
          msg("<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call>"), no_tools);
}

TEST(ChatFormat, Qwen3Coder) {
    const auto f = chat_format::qwen3_coder;
    check(f,
          "I'll look.\n<tool_call>\n<function=search>\n<parameter=query>\nrust \"async\" <b>\n</parameter>\n"
          "<parameter=limit>\n5\n</parameter>\n<parameter=opts>\n{\"deep\": "
          "true}\n</parameter>\n</function>\n</tool_call>",
          msg("I'll look.", "", {tc("search", R"({"query":"rust \"async\" <b>","limit":5,"opts":{"deep":true}})")}));
    check(f,
          "<tool_call>\n<function=a>\n</function>\n</tool_call>\n<tool_call>\n<function=b>\n<parameter=x>\nü\n"
          "</parameter>\n</function>\n</tool_call>",
          msg("", "", {tc("a", "{}"), tc("b", R"({"x":"ü"})")}));
    // with the tools, a parameter declared a string stays one
    chat_parse_options typed;
    typed.tools_json = R"([{"type": "function", "function": {"name": "f", "parameters": {"type": "object",
        "properties": {"s": {"type": "string"}, "n": {"type": "integer"}}}}}])";
    check(f,
          "<tool_call>\n<function=f>\n<parameter=s>\n42\n</parameter>\n<parameter=n>\n42\n</parameter>\n</function>\n</"
          "tool_call>",
          msg("", "", {tc("f", R"({"s":"42","n":42})")}), typed);
    check(f, "<tool_call>\n<function=a>\n<parameter=x>\n1\n</function>",
          msg("<tool_call>\n<function=a>\n<parameter=x>\n1\n</function>"));
}

TEST(ChatFormat, Llama3) {
    const auto f = chat_format::llama3_json;
    check(f, "{\"name\": \"get_weather\", \"parameters\": {\"location\": \"Tokyo\"}}",
          msg("", "", {tc("get_weather", R"({"location":"Tokyo"})")}));
    check(f,
          "{\"type\": \"function\", \"name\": \"a\", \"parameters\": {}}; {\"name\": \"b\", \"parameters\": {\"k\": "
          "[1, 2.5]}}",
          msg("", "", {tc("a", "{}"), tc("b", R"({"k":[1,2.5]})")}));
    check(f, "<|python_tag|>brave_search.call(query=\"weather in \\\"SF\\\"\", n=3, safe=True)",
          msg("", "", {tc("brave_search", R"({"query":"weather in \"SF\"","n":3,"safe":true})")}));
    check(f, "<|python_tag|>print(1 + 1)", msg("", "", {tc("python", R"x({"code":"print(1 + 1)"})x")}));
    check(f, "{\"answer\": 42}", msg("{\"answer\": 42}"));
    check(f, "The JSON is {\"name\": \"a\", \"parameters\": {}}",
          msg("The JSON is {\"name\": \"a\", \"parameters\": {}}"));
}

TEST(ChatFormat, Mistral) {
    const auto f = chat_format::mistral;
    check(f, "[TOOL_CALLS][{\"name\": \"add\", \"arguments\": {\"a\": 1, \"b\": 2}, \"id\": \"abc123def\"}]",
          msg("", "", {tc("add", R"({"a":1,"b":2})", "abc123def")}));
    check(f, "Sure.[TOOL_CALLS]add[ARGS]{\"a\": 1}[TOOL_CALLS]mul[CALL_ID]x9Y8z7W6v[ARGS]{\"s\": \"\\u00fc\\n\"}",
          msg("Sure.", "", {tc("add", R"({"a":1})"), tc("mul", "{\"s\":\"ü\\n\"}", "x9Y8z7W6v")}));
    check(f, "[THINK]Let me add.[/THINK]Result: 3", msg("Result: 3", "Let me add."));
    check(f, "[TOOL_CALLS]add[ARGS]{\"a\": ", msg("[TOOL_CALLS]add[ARGS]{\"a\":"));
}

TEST(ChatFormat, GptOss) {
    const auto f = chat_format::gpt_oss;
    check(f, "<|channel|>analysis<|message|>User greets.<|end|><|start|>assistant<|channel|>final<|message|>Hi there!",
          msg("Hi there!", "User greets."));
    check(f,
          "<|channel|>analysis<|message|>Need weather.<|end|><|start|>assistant<|channel|>commentary "
          "to=functions.get_weather <|constrain|>json<|message|>{\"city\": \"Oslo\"}<|call|>",
          msg("", "Need weather.", {tc("get_weather", R"({"city":"Oslo"})")}));
    check(f, "<|start|>assistant to=functions.lookup<|channel|>commentary json<|message|>{\"id\": 7}",
          msg("", "", {tc("lookup", R"({"id":7})")}));
    check(f, "<|channel|>commentary to=functions.x <|constrain|>json<|message|>{bad}<|call|>",
          msg("<|channel|>commentary to=functions.x <|constrain|>json<|message|>{bad}"));
}

TEST(ChatFormat, DeepSeek) {
    check(chat_format::deepseek_r1,
          "<think>\nThink.\n</"
          "think>\n\nOk.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_time\n```json\n"
          "{\"tz\": \"UTC\"}\n```<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>noop\n```json\n{}\n```"
          "<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
          msg("Ok.", "Think.", {tc("get_time", R"({"tz":"UTC"})"), tc("noop", "{}")}));
    check(chat_format::deepseek_v3_1,
          "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>search<｜tool▁sep｜>{\"q\": "
          "\"ß\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
          msg("", "", {tc("search", R"({"q":"ß"})")}));
    chat_parse_options forced;
    forced.thinking_forced_open = true;
    check(chat_format::deepseek_v3_1, "hmm</think>Answer<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>bad",
          msg("Answer<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>bad", "hmm"), forced);
}

TEST(ChatFormat, GraniteCommandRFireFunction) {
    check(chat_format::granite, "<think>plan</think><response>Hello</response>", msg("Hello", "plan"));
    check(chat_format::granite,
          "<|tool_call|>[{\"name\": \"a\", \"arguments\": {\"x\": 1}}, {\"name\": \"b\", \"arguments\": {}}]",
          msg("", "", {tc("a", R"({"x":1})"), tc("b", "{}")}));
    check(chat_format::command_r,
          "<|START_THINKING|>I will search.<|END_THINKING|><|START_ACTION|>[\n    {\"tool_call_id\": \"0\", "
          "\"tool_name\": "
          "\"search\", \"parameters\": {\"q\": \"x\"}}\n]<|END_ACTION|>",
          msg("", "I will search.", {tc("search", R"({"q":"x"})", "0")}));
    check(chat_format::command_r, "<|START_RESPONSE|>Done.<|END_RESPONSE|>", msg("Done."));
    check(chat_format::firefunction_v2, " functools[{\"name\": \"f\", \"arguments\": {\"a\": null}}]",
          msg("", "", {tc("f", R"({"a":null})")}));
}

TEST(ChatFormat, Functionary) {
    check(chat_format::functionary_v3_2, "all\nLet me see.>>>get_weather\n{\"city\": \"Rome\"}>>>noop\n{}",
          msg("Let me see.", "", {tc("get_weather", R"({"city":"Rome"})"), tc("noop", "{}")}));
    check(chat_format::functionary_v3_2, "get_weather\n{\"city\": \"Rome\"}",
          msg("", "", {tc("get_weather", R"({"city":"Rome"})")}));
    check(chat_format::functionary_v3_2, ">>>all\nJust text", msg("Just text"));
    check(chat_format::functionary_v3_2, "hello world", msg("hello world"));
    check(chat_format::functionary_v3_1_llama3_1, "Calling.<function=sum>{\"v\": [1, 2]}</function>",
          msg("Calling.", "", {tc("sum", R"({"v":[1,2]})")}));
    check(chat_format::functionary_v3_1_llama3_1, "<function=sum>{\"v\": [1, 2]}",
          msg("<function=sum>{\"v\": [1, 2]}"));
}

TEST(ChatFormat, ArbitraryTextNeverBreaksInvariants) {
    // random mixes of every format's markers and JSON pieces, fed in random chunks
    const std::vector<std::string> pieces = {"<tool_call>",
                                             "</tool_call>",
                                             "<think>",
                                             "</think>",
                                             "{\"name\": \"f\", \"arguments\": {",
                                             "}",
                                             "\"",
                                             "\n",
                                             " ",
                                             "[TOOL_CALLS]",
                                             "[ARGS]",
                                             "[THINK]",
                                             "[/THINK]",
                                             "<|channel|>",
                                             "analysis",
                                             "<|message|>",
                                             "<|end|>",
                                             "commentary to=functions.f",
                                             "<|call|>",
                                             "<｜tool▁calls▁begin｜>",
                                             "<｜tool▁call▁begin｜>",
                                             "<｜tool▁sep｜>",
                                             "<｜tool▁call▁end｜>",
                                             "<|tool_call|>",
                                             "[",
                                             "]",
                                             "<|START_ACTION|>",
                                             "<|END_ACTION|>",
                                             " functools",
                                             ">>>",
                                             "all\n",
                                             "<function=",
                                             ">",
                                             "</function>",
                                             "<|python_tag|>",
                                             "x.call(",
                                             ")",
                                             "<parameter=",
                                             "</parameter>",
                                             "é",
                                             "\xe6\x97",
                                             "\xa5",
                                             "1",
                                             "abc",
                                             "{}",
                                             ":",
                                             ","};
    std::mt19937                   rng(7);
    for (int round = 0; round < 300; round++) {
        std::string text;
        const int   n = 1 + rng() % 12;
        for (int k = 0; k < n; k++) {
            text += pieces[rng() % pieces.size()];
        }
        for (int fi = 0; fi < (int) chat_format::count; fi++) {
            const auto         fmt = (chat_format) fi;
            chat_parse_options opts;
            opts.thinking_forced_open     = rng() % 4 == 0;
            opts.reasoning_in_content     = rng() % 4 == 0;
            const chat_msg           want = parse(fmt, text, opts);
            std::vector<std::string> chunks;
            for (size_t i = 0; i < text.size();) {
                const size_t m = 1 + rng() % 5;
                chunks.push_back(text.substr(i, m));
                i += m;
            }
            const chat_msg got = stream(fmt, chunks, opts, want, std::string(chat_format_name(fmt)) + ": " + text);
            EXPECT_EQ(got, want) << chat_format_name(fmt) << ": " << text;
        }
    }
}

// ---- grammars ----

namespace {

const llama_vocab * gpt2() {
    return testing_util::gpt2_vocab();
}

// Whether the grammar lets a model write exactly `text` and stop.
bool accepts(const std::string & gbnf, const std::string & text) {
    return testing_util::grammar_accepts(gbnf, text);
}

// The same through a lazy sampler with the grammar's trigger patterns: free text, then the call.
bool lazy_accepts(const chat_tool_grammar & g, const std::string & text) {
    std::vector<const char *> pats;
    for (const std::string & p : g.trigger_patterns) {
        pats.push_back(p.c_str());
    }
    llama_sampler * s = llama_sampler_init_grammar_lazy_patterns(gpt2(), g.grammar.c_str(), "root", pats.data(),
                                                                 pats.size(), nullptr, 0);
    EXPECT_NE(s, nullptr) << llama_last_error();
    return testing_util::sampler_accepts(s, text);
}

const char * k_tools = R"([
  {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"]}}},
  {"type": "function", "function": {"name": "noop", "parameters": {"type": "object", "properties": {}}}}
])";

struct grammar_case {
    chat_format              fmt;
    std::string              good;        // one call, as the format writes it
    std::vector<std::string> bad;         // broken variants
    std::string              good_twice;  // two calls (parallel); empty: not supported
};

std::vector<grammar_case> grammar_cases() {
    const std::string w  = R"({"name": "get_weather", "arguments": {"city": "Paris", "days": 2}})";
    const std::string wb = R"({"name": "get_weather", "arguments": {"days": 2}})";  // required city missing
    return {
        {chat_format::hermes,
         "<tool_call>\n" + w + "\n</tool_call>",
         {"<tool_call>\n" + wb + "\n</tool_call>",
          "<tool_call>\n{\"name\": \"other\", \"arguments\": {}}\n</tool_call>"},
         "<tool_call>\n" + w + "\n</tool_call>\n<tool_call>\n{\"name\": \"noop\", \"arguments\": {}}\n</tool_call>"},
        {chat_format::qwen3_coder,
         "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n2\n</"
         "parameter>\n"
         "</function>\n</tool_call>",
         {"<tool_call>\n<function=get_weather>\n<parameter=days>\n2\n</parameter>\n</function>\n</tool_call>",
          "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\nx\n</"
          "parameter>\n"
          "</function>\n</tool_call>"},
         ""},
        {chat_format::glm45,
         "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n<arg_key>days</arg_key>\n"
         "<arg_value>2</arg_value>\n</tool_call>",
         {"<tool_call>get_weather\n<arg_key>days</arg_key>\n<arg_value>2</arg_value>\n</tool_call>",
          "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n<arg_key>days</arg_key>\n"
          "<arg_value>x</arg_value>\n</tool_call>"},
         ""},
        {chat_format::llama3_json,
         R"({"name": "get_weather", "parameters": {"city": "Paris"}})",
         {R"({"name": "get_weather", "parameters": {"city": 1}})"},
         ""},
        {chat_format::mistral,
         "[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"}",
         {"[TOOL_CALLS]get_weather[ARGS]{\"town\": \"Paris\"}", "[TOOL_CALLS]" + wb},
         "[TOOL_CALLS][" + w + ", {\"name\": \"noop\", \"arguments\": {}}]"},
        {chat_format::gpt_oss,
         "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\": \"Oslo\"}",
         {"<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{}"},
         ""},
        {chat_format::deepseek_r1,
         "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": "
         "\"Oslo\"}\n```"
         "<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
         {"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{}\n```<"
          "｜tool▁call▁end｜>"
          "<｜tool▁calls▁end｜>"},
         ""},
        {chat_format::deepseek_v3_1,
         "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Oslo\"}<｜tool▁call▁end｜>"
         "<｜tool▁calls▁end｜>",
         {"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": "
          "5}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"},
         "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Oslo\"}<｜tool▁call▁end｜>"
         "<｜tool▁call▁begin｜>noop<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"},
        {chat_format::granite, "<|tool_call|>[" + w + "]", {"<|tool_call|>[" + wb + "]", "<|tool_call|>" + w}, ""},
        {chat_format::command_r,
         "<|START_ACTION|>[\n{\"tool_call_id\": \"0\", \"tool_name\": \"get_weather\", \"parameters\": {\"city\": "
         "\"X\"}}\n]"
         "<|END_ACTION|>",
         {"<|START_ACTION|>[{\"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"X\"}}]<|END_ACTION|>"},
         ""},
        {chat_format::firefunction_v2, "functools[" + w + "]", {"functools[" + wb + "]"}, ""},
        {chat_format::functionary_v3_2,
         "get_weather\n{\"city\": \"Rome\"}",
         {"get_weather\n{\"city\": [1]}", "all\nhi"},
         "get_weather\n{\"city\": \"Rome\"}>>>noop\n{}"},
        {chat_format::functionary_v3_1_llama3_1,
         "<function=get_weather>{\"city\": \"Rome\"}</function>",
         {"<function=get_weather>{\"city\": \"Rome\"}", "<function=get_weather>{\"city\": 1}</function>"},
         ""},
    };
}

}  // namespace

TEST(ChatFormatGrammar, VocabLoads) {
    ASSERT_NE(gpt2(), nullptr) << llama_last_error();
}

TEST(ChatFormatGrammar, RequiredAcceptsCallsRejectsBroken) {
    for (const grammar_case & c : grammar_cases()) {
        SCOPED_TRACE(chat_format_name(c.fmt));
        const chat_tool_grammar one = build_tool_call_grammar(c.fmt, k_tools, "required", false);
        EXPECT_FALSE(one.lazy);
        EXPECT_TRUE(accepts(one.grammar, c.good)) << c.good << "\n" << one.grammar;
        for (const std::string & b : c.bad) {
            EXPECT_FALSE(accepts(one.grammar, b)) << b;
        }
        EXPECT_FALSE(accepts(one.grammar, "Plain text instead of a call."));
        // the grammar's sentences are what the parser reads back as calls
        const chat_msg m = parse(c.fmt, c.good);
        ASSERT_EQ(m.tool_calls.size(), 1u) << show(m);
        EXPECT_EQ(m.tool_calls[0].name, "get_weather");
        if (!c.good_twice.empty()) {
            EXPECT_FALSE(accepts(one.grammar, c.good_twice));
            const chat_tool_grammar many = build_tool_call_grammar(c.fmt, k_tools, "required", true);
            EXPECT_TRUE(accepts(many.grammar, c.good_twice)) << c.good_twice;
            EXPECT_EQ(parse(c.fmt, c.good_twice).tool_calls.size(), 2u);
        }
    }
}

TEST(ChatFormatGrammar, AutoIsLazyWithTriggers) {
    for (const grammar_case & c : grammar_cases()) {
        SCOPED_TRACE(chat_format_name(c.fmt));
        const chat_tool_grammar g = build_tool_call_grammar(c.fmt, k_tools, "auto", true);
        EXPECT_TRUE(g.lazy);
        ASSERT_FALSE(g.trigger_patterns.empty());
        // Llama 3 and functionary v3.2 calls start the output
        const bool        at_start = c.fmt == chat_format::functionary_v3_2 || c.fmt == chat_format::llama3_json;
        const std::string output   = at_start ? c.good : "Let me check. " + c.good;
        bool              fired    = false;
        for (const std::string & p : g.trigger_patterns) {
            std::smatch      m;
            const std::regex re(p);  // ECMAScript, as the sampler compiles them
            fired = fired || std::regex_search(output, m, re);
        }
        EXPECT_TRUE(fired) << output;
        for (const std::string & w : g.trigger_words) {
            EXPECT_NE(c.good.find(w), std::string::npos) << w;
        }
        EXPECT_TRUE(accepts(g.grammar, c.good));  // from the trigger on, the grammar reads the call
        // through the lazy sampler: the text before the trigger is free, the call is checked
        EXPECT_TRUE(lazy_accepts(g, output)) << output;
        EXPECT_TRUE(lazy_accepts(g, "No call here, just text."));
        const std::string bad = c.bad[0];
        EXPECT_FALSE(lazy_accepts(g, at_start ? bad : "Let me check. " + bad)) << bad;
    }
}

TEST(ChatFormatGrammar, ChoiceNoneNamedAndErrors) {
    EXPECT_TRUE(build_tool_call_grammar(chat_format::hermes, k_tools, "none", true).grammar.empty());
    const chat_tool_grammar named = build_tool_call_grammar(chat_format::hermes, k_tools, "noop", false);
    EXPECT_FALSE(named.lazy);
    EXPECT_TRUE(accepts(named.grammar, "<tool_call>\n{\"name\": \"noop\", \"arguments\": {}}\n</tool_call>"));
    EXPECT_FALSE(accepts(named.grammar,
                         "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"P\"}}\n</tool_call>"));
    // a required call may follow the reasoning block
    const chat_tool_grammar req = build_tool_call_grammar(chat_format::hermes, k_tools, "required", false);
    EXPECT_TRUE(accepts(req.grammar,
                        "<think>\nhmm\n</think>\n<tool_call>\n{\"name\": \"noop\", \"arguments\": {}}\n</tool_call>"));
    EXPECT_THROW(build_tool_call_grammar(chat_format::hermes, k_tools, "missing", false), std::invalid_argument);
    EXPECT_THROW(build_tool_call_grammar(chat_format::hermes, "{}", "auto", false), std::invalid_argument);
    EXPECT_THROW(build_tool_call_grammar(chat_format::content_only, k_tools, "auto", false), std::invalid_argument);
    EXPECT_THROW(
        build_tool_call_grammar(chat_format::hermes, R"([{"function": {"name": "x", "parameters": {"allOf": []}}}])",
                                "auto", false),
        schema_error);
}

// Raw string parameters (qwen3-coder, GLM-4.5) keep their minLength / maxLength: without the bound
// a model may write the value forever.
TEST(ChatFormatGrammar, RawStringParametersKeepTheirLength) {
    const char *            tools = R"([{"type": "function", "function": {"name": "f", "parameters": {"type": "object",
        "properties": {"s": {"type": "string", "minLength": 2, "maxLength": 4}}, "required": ["s"]}}}])";
    const chat_tool_grammar q     = build_tool_call_grammar(chat_format::qwen3_coder, tools, "required", false);
    auto                    qcall = [](const std::string & v) {
        return "<tool_call>\n<function=f>\n<parameter=s>\n" + v + "\n</parameter>\n</function>\n</tool_call>";
    };
    EXPECT_TRUE(accepts(q.grammar, qcall("ab")));
    EXPECT_TRUE(accepts(q.grammar, qcall("abcd")));
    EXPECT_FALSE(accepts(q.grammar, qcall("a")));
    EXPECT_FALSE(accepts(q.grammar, qcall("abcde")));
    const chat_tool_grammar g     = build_tool_call_grammar(chat_format::glm45, tools, "required", false);
    auto                    gcall = [](const std::string & v) {
        return "<tool_call>f\n<arg_key>s</arg_key>\n<arg_value>" + v + "</arg_value>\n</tool_call>";
    };
    EXPECT_TRUE(accepts(g.grammar, gcall("abc")));
    EXPECT_FALSE(accepts(g.grammar, gcall("abcdefgh")));
    EXPECT_THROW(build_tool_call_grammar(chat_format::qwen3_coder,
                                         R"([{"function": {"name": "f", "parameters": {"type": "object",
                                             "properties": {"s": {"type": "string", "minLength": 3, "maxLength": 2}}}}}])",
                                         "required", false),
                 schema_error);
}

#else
TEST(ChatFormat, SkippedWithoutNlohmannJson) {
    GTEST_SKIP() << "tools/common's chat formats need nlohmann/json";
}
#endif
