// Chat output formats: which family a chat template belongs to, how to split a model's generated
// text back into content, reasoning and tool calls (incrementally, for streaming), and the GBNF
// grammar that constrains a model to the family's tool-call syntax. Used by llama-server and
// llama-cli; the formats, their markers and the streaming rules are listed in docs/chat.md
// ("Tool calls and reasoning formats").
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llama_tools {

// One row per family of output syntax. The comment shows what the model writes.
enum class chat_format {
    content_only,  // plain text
    think,         // <think>...</think> then text (Qwen3, QwQ, GLM, SmolLM3 without tools)
    hermes,        // <tool_call>\n{"name": .., "arguments": {..}}\n</tool_call> (+ <think>)
    qwen3_coder,   // <tool_call><function=f><parameter=p>value</parameter></function></tool_call>
    llama3_json,   // {"name": "f", "parameters": {..}} or <|python_tag|>f.call(k="v")
    mistral,       // [TOOL_CALLS][{..}] or [TOOL_CALLS]f[ARGS]{..}; [THINK]..[/THINK]
    gpt_oss,       // harmony channels: analysis, final, commentary to=functions.f
    deepseek_r1,  // <think>; <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json..
    deepseek_v3_1,  // <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{..}<｜tool▁call▁end｜>..
    granite,                    // <|tool_call|>[{..}]; <think>..</think><response>..</response>
    command_r,                  // <|START_THINKING|>..; <|START_ACTION|>[..]<|END_ACTION|>; <|START_RESPONSE|>..
    firefunction_v2,            //  functools[{"name": .., "arguments": {..}}]
    functionary_v3_2,           // (prompt ends in >>>) all\ntext>>>f\n{..}
    functionary_v3_1_llama3_1,  // <function=f>{..}</function>
    glm45,  // <tool_call>f\n<arg_key>k</arg_key>\n<arg_value>v</arg_value>\n</tool_call> (+ <think>)
    count,  // not a format: the number of rows
};

// Short stable name ("hermes", "qwen3-coder", ...), "unknown" for an out-of-range value.
const char * chat_format_name(chat_format fmt);

// The format named `name` (as chat_format_name writes it); false if no format has that name.
bool chat_format_from_name(const std::string & name, chat_format & out);

// The format of a chat template, told from distinctive markers in its Jinja source (first match
// in the order of docs/chat.md); content_only when none is present.
chat_format detect_chat_format(const std::string & template_source);

struct chat_tool_call {
    std::string name;
    std::string arguments;  // JSON text: the compact dump of the parsed arguments object
    std::string id;         // as the model wrote it (mistral, command_r), else empty

    bool operator==(const chat_tool_call & o) const { return name == o.name && arguments == o.arguments && id == o.id; }
};

struct chat_msg {
    std::string                 content;
    std::string                 reasoning_content;
    std::vector<chat_tool_call> tool_calls;

    bool operator==(const chat_msg & o) const {
        return content == o.content && reasoning_content == o.reasoning_content && tool_calls == o.tool_calls;
    }
};

struct chat_parse_options {
    bool reasoning_in_content = false;  // keep reasoning, markers included, inside content
    bool thinking_forced_open = false;  // the prompt opened the reasoning block: output starts inside it
    bool parse_tool_calls     = true;   // false: call markers are plain content
    // The request's OpenAI "tools" array (JSON text, optional). qwen3-coder writes string
    // parameters unquoted; with the tools, a parameter declared "string" stays a string even
    // when its text would parse as JSON ("42", "true").
    std::string tools_json;
};

// Incremental parser of one generated message. feed() the text as it is generated (any split,
// even inside a UTF-8 sequence or a marker), read partial() for what is certain so far, and call
// finish() at the end. What partial() returns is never taken back: each field of a later
// partial() or of finish() extends the earlier one (content and reasoning grow by appending, tool
// calls are only added), so diff() of consecutive snapshots gives streaming deltas whose
// concatenation is finish(). To keep that promise the parser holds back text that may still turn
// into a marker, trailing whitespace, and every tool call until it is complete (its closing marker
// or the end of its JSON): a call then appears whole, name and arguments at once. Malformed calls
// (bad JSON, a missing field, unterminated at the end) become plain content. Never throws.
class chat_parser {
public:
    explicit chat_parser(chat_format fmt, chat_parse_options opts = {});

    void     feed(std::string_view text);
    chat_msg partial() const { return msg_; }
    // Resolves what was held back (an unterminated call becomes content) and returns the final
    // message. Later feed() calls are ignored; finish() again returns the same message.
    chat_msg finish();

private:
    enum class mode { content, reasoning };

    void run(bool at_end);
    bool step_reasoning(bool at_end);
    bool step_content(bool at_end);
    void add_content(std::string_view text);
    void add_reasoning(std::string_view text);

    chat_format        fmt_;
    chat_parse_options opts_;
    std::string        buf_;               // everything fed so far
    size_t             pos_          = 0;  // buf_ before pos_ is reflected in msg_
    size_t             virtual_end_  = 0;  // buf_ starts with this many bytes the prompt implied
    size_t             call_wait_    = 0;  // buf_ size when the call at pos_ was last found incomplete
    size_t             call_seen_    = 0;  // buf_ before this holds no byte that can end that call
    mode               mode_         = mode::content;
    bool               started_      = false;  // the format's implied start text has been decided
    bool               finished_     = false;
    bool               forced_start_ = false;  // forced-open reasoning: the output may still repeat the opener
    std::string        pending_ws_content_;    // trailing whitespace not yet known to be inner
    std::string        pending_ws_reasoning_;  // same for reasoning
    std::vector<std::pair<std::string, std::string>> string_params_;  // from opts_.tools_json
    chat_msg                                         msg_;
};

// One streaming step, as an OpenAI chat.completion.chunk "delta" carries it: text appended to
// content or reasoning, or (tool_call_index >= 0) a tool call's new fields or appended arguments.
struct chat_msg_delta {
    std::string content;
    std::string reasoning_content;
    int         tool_call_index = -1;
    std::string tool_call_name;       // set in the first delta of a call
    std::string tool_call_id;         // idem
    std::string tool_call_arguments;  // appended to the call's arguments
};

// The deltas that turn `before` into `after`, where `after` extends `before` as chat_parser's
// snapshots do. A field of `after` that does not extend `before`'s is sent whole.
std::vector<chat_msg_delta> diff(const chat_msg & before, const chat_msg & after);

// A grammar that constrains a model to its format's tool calls.
struct chat_tool_grammar {
    std::string              grammar;           // GBNF, root rule "root"; empty: constrain nothing
    std::vector<std::string> trigger_patterns;  // lazy: ECMAScript regexes (llama_sampler_init_grammar_lazy_patterns)
    std::vector<std::string> trigger_words;     // lazy: literal strings that start a call
    bool                     lazy = false;      // true: constrain only from a trigger on
};

// Grammar for `fmt` whose sentences are that format's calls to the tools of `tools_json` (an
// OpenAI "tools" array), arguments valid under each tool's "parameters" schema (the subset of
// json_schema_to_grammar). tool_choice: "auto" (lazy, triggered by the call's opening marker),
// "required" (the output must be calls), "none" (empty grammar) or a function name (a call to
// that tool only). parallel_tool_calls: one or more calls, else exactly one. Throws
// std::invalid_argument for malformed tools, an unknown tool name or a format without tool calls
// (content_only, think) unless tool_choice is "none", and schema_error for an unsupported schema.
// thinking: whether a reasoning block may come before a required call: optional (the format's
// block, opened by its marker), none (the template does not reason: the call comes first; without
// this a tiny model may "reason" until max_tokens), forced_open (the prompt ends inside an opened
// <think> block, see chat_parse_options: the output must close it, then call).
enum class chat_thinking { optional, none, forced_open };
chat_tool_grammar build_tool_call_grammar(chat_format fmt, const std::string & tools_json,
                                          const std::string & tool_choice, bool parallel_tool_calls,
                                          chat_thinking thinking = chat_thinking::optional);

}  // namespace llama_tools
