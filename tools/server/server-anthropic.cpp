#include "server-anthropic.h"

#include <httplib.h>

#include <memory>

#include "server-http.h"

namespace server {

namespace {

const json & field(const json & o, const char * name) {
    static const json null_value;
    auto              it = o.find(name);
    return it == o.end() ? null_value : *it;
}

// The text of a system prompt or tool_result content: a string or an array of text blocks.
std::string block_text(const json & c, const std::string & what) {
    if (c.is_null()) {
        return "";
    }
    if (c.is_string()) {
        return c.get<std::string>();
    }
    if (!c.is_array()) {
        throw bad_request("'" + what + "' must be a string or an array of content blocks");
    }
    std::string out;
    for (const auto & b : c) {
        if (!b.is_object() || field(b, "type") != "text" || !field(b, "text").is_string()) {
            throw bad_request("'" + what + "' may only hold text blocks ({\"type\": \"text\", \"text\": ...})");
        }
        if (!out.empty()) {
            out += "\n";
        }
        out += b["text"].get<std::string>();
    }
    return out;
}

std::string dump_compact(const json & j) {
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

json anthropic_to_openai(const json & body) {
    if (!body.is_object()) {
        throw bad_request("the request body must be a JSON object");
    }
    json out = json::object();
    if (auto & m = field(body, "model"); !m.is_null()) {
        out["model"] = m;
    }
    const json & max_tokens = field(body, "max_tokens");
    if (!max_tokens.is_number_integer() || max_tokens.get<int64_t>() < 1) {
        throw bad_request("'max_tokens' is required: a positive integer");
    }
    out["max_tokens"] = max_tokens;

    json messages = json::array();
    if (const json & sys = field(body, "system"); !sys.is_null()) {
        messages.push_back({{"role", "system"}, {"content", block_text(sys, "system")}});
    }
    const json & in = field(body, "messages");
    if (!in.is_array() || in.empty()) {
        throw bad_request("'messages' must be a non-empty array");
    }
    for (size_t i = 0; i < in.size(); i++) {
        const json &      msg  = in[i];
        const std::string at   = "messages[" + std::to_string(i) + "]";
        const json &      role = field(msg, "role");
        if (!msg.is_object() || !role.is_string() || (role != "user" && role != "assistant")) {
            throw bad_request("'" + at + ".role' must be \"user\" or \"assistant\"");
        }
        const json & content = field(msg, "content");
        if (content.is_string()) {
            messages.push_back({{"role", role}, {"content", content}});
            continue;
        }
        if (!content.is_array()) {
            throw bad_request("'" + at + ".content' must be a string or an array of content blocks");
        }
        std::string text, thinking;
        json        calls = json::array();
        for (size_t j = 0; j < content.size(); j++) {
            const json &      b    = content[j];
            const std::string bat  = at + ".content[" + std::to_string(j) + "]";
            const json &      type = field(b, "type");
            if (!b.is_object() || !type.is_string()) {
                throw bad_request("'" + bat + "' must be an object with a 'type'");
            }
            if (type == "text") {
                if (!field(b, "text").is_string()) {
                    throw bad_request("'" + bat + ".text' must be a string");
                }
                text += b["text"].get<std::string>();
            } else if (type == "thinking" && role == "assistant") {
                if (!field(b, "thinking").is_string()) {
                    throw bad_request("'" + bat + ".thinking' must be a string");
                }
                thinking += b["thinking"].get<std::string>();
            } else if (type == "redacted_thinking" && role == "assistant") {
                // opaque to us: nothing to render
            } else if (type == "tool_use" && role == "assistant") {
                if (!field(b, "id").is_string() || !field(b, "name").is_string() || !field(b, "input").is_object()) {
                    throw bad_request("'" + bat + "': a tool_use block needs 'id', 'name' and an object 'input'");
                }
                calls.push_back({{"id", b["id"]},
                                 {"type", "function"},
                                 {"function", {{"name", b["name"]}, {"arguments", dump_compact(b["input"])}}}});
            } else if (type == "tool_result" && role == "user") {
                if (!field(b, "tool_use_id").is_string()) {
                    throw bad_request("'" + bat + ".tool_use_id' must be a string");
                }
                std::string result = block_text(field(b, "content"), bat + ".content");
                if (field(b, "is_error") == true) {
                    result = "Error: " + result;
                }
                // a tool result is its own message in the chat format, ahead of the user's text
                messages.push_back({{"role", "tool"}, {"tool_call_id", b["tool_use_id"]}, {"content", result}});
            } else if (type == "image" || type == "document") {
                throw bad_request("'" + bat + "': " + type.get<std::string>() +
                                  " blocks are not supported (text-only models)");
            } else {
                throw bad_request("'" + bat + ".type' " + dump_compact(type) + " is not a " + role.get<std::string>() +
                                  " content block type");
            }
        }
        if (role == "assistant") {
            json m = {{"role", "assistant"}, {"content", text}};
            if (!thinking.empty()) {
                m["reasoning_content"] = thinking;
            }
            if (!calls.empty()) {
                m["tool_calls"] = calls;
            }
            messages.push_back(m);
        } else if (!text.empty() || messages.empty() || messages.back()["role"] != "tool") {
            messages.push_back({{"role", "user"}, {"content", text}});
        }
    }
    out["messages"] = messages;

    if (const json & stop = field(body, "stop_sequences"); !stop.is_null()) {
        if (!stop.is_array() || stop.size() > 4) {
            throw bad_request("'stop_sequences' must be an array of at most 4 strings");
        }
        out["stop"] = stop;
    }
    for (const char * k : {"temperature", "top_p", "top_k"}) {
        if (const json & v = field(body, k); !v.is_null()) {
            out[k] = v;
        }
    }
    if (const json & tools = field(body, "tools"); !tools.is_null()) {
        if (!tools.is_array()) {
            throw bad_request("'tools' must be an array");
        }
        json t = json::array();
        for (size_t i = 0; i < tools.size(); i++) {
            const json & tool = tools[i];
            if (!tool.is_object() || !field(tool, "name").is_string()) {
                throw bad_request("'tools[" + std::to_string(i) + "].name' must be a string");
            }
            json fn = {{"name", tool["name"]}};
            if (field(tool, "description").is_string()) {
                fn["description"] = tool["description"];
            }
            fn["parameters"] = field(tool, "input_schema").is_object() ? tool["input_schema"] : json::object();
            t.push_back({{"type", "function"}, {"function", fn}});
        }
        out["tools"] = t;
    }
    if (const json & tc = field(body, "tool_choice"); !tc.is_null()) {
        const json & type = field(tc, "type");
        if (type == "auto") {
            out["tool_choice"] = "auto";
        } else if (type == "any") {
            out["tool_choice"] = "required";
        } else if (type == "none") {
            out["tool_choice"] = "none";
        } else if (type == "tool" && field(tc, "name").is_string()) {
            out["tool_choice"] = {{"type", "function"}, {"function", {{"name", tc["name"]}}}};
        } else {
            throw bad_request(
                "'tool_choice' must be {\"type\": \"auto\" | \"any\" | \"none\"} or "
                "{\"type\": \"tool\", \"name\": ...}");
        }
        if (field(tc, "disable_parallel_tool_use") == true) {
            out["parallel_tool_calls"] = false;
        }
    }
    if (const json & th = field(body, "thinking"); !th.is_null()) {
        const json & type = field(th, "type");
        if (type != "enabled" && type != "disabled") {
            throw bad_request("'thinking.type' must be \"enabled\" or \"disabled\"");
        }
        out["chat_template_kwargs"] = {{"enable_thinking", type == "enabled"}};
    }
    if (const json & s = field(body, "stream"); !s.is_null()) {
        if (!s.is_boolean()) {
            throw bad_request("'stream' must be a boolean");
        }
        out["stream"] = s;
        if (s == true) {
            out["stream_options"] = {{"include_usage", true}};
        }
    }
    return out;
}

namespace {

const char * stop_reason(const std::string & finish) {
    if (finish == "length") {
        return "max_tokens";
    }
    if (finish == "tool_calls") {
        return "tool_use";
    }
    return "end_turn";
}

json tool_input(const json & arguments) {
    if (arguments.is_object()) {
        return arguments;
    }
    if (arguments.is_string()) {
        json j = json::parse(arguments.get<std::string>(), nullptr, false);
        if (j.is_object()) {
            return j;
        }
    }
    return json::object();
}

}  // namespace

json openai_to_anthropic(const json & completion, const std::string & model) {
    const json & choice  = completion["choices"][0];
    const json & message = field(choice, "message");
    json         content = json::array();
    if (const json & r = field(message, "reasoning_content"); r.is_string() && !r.get<std::string>().empty()) {
        content.push_back({{"type", "thinking"}, {"thinking", r}, {"signature", ""}});
    }
    if (const json & t = field(message, "content"); t.is_string() && !t.get<std::string>().empty()) {
        content.push_back({{"type", "text"}, {"text", t}});
    }
    if (const json & calls = field(message, "tool_calls"); calls.is_array()) {
        for (const auto & c : calls) {
            content.push_back({{"type", "tool_use"},
                               {"id", c["id"]},
                               {"name", c["function"]["name"]},
                               {"input", tool_input(c["function"]["arguments"])}});
        }
    }
    const json &      usage         = field(completion, "usage");
    const json &      stop_sequence = field(choice, "stop_word");  // the stop string that ended it, if one did
    const std::string finish =
        field(choice, "finish_reason").is_string() ? choice["finish_reason"].get<std::string>() : "";
    std::string id = field(completion, "id").is_string() ? completion["id"].get<std::string>() : "msg";
    return {
        {"id", "msg_" + id},
        {"type", "message"},
        {"role", "assistant"},
        {"model", model},
        {"content", content},
        {"stop_reason", stop_sequence.is_string() ? "stop_sequence" : stop_reason(finish)},
        {"stop_sequence", stop_sequence},
        {"usage",
         {{"input_tokens", field(usage, "prompt_tokens").is_number() ? usage["prompt_tokens"] : json(0)},
          {"output_tokens", field(usage, "completion_tokens").is_number() ? usage["completion_tokens"] : json(0)},
          {"cache_read_input_tokens", usage.is_object() ? usage["prompt_tokens_details"]["cached_tokens"] : json(0)}}}};
}

json anthropic_error(int status, const std::string & message) {
    const char * type = status == 401   ? "authentication_error"
                        : status == 403 ? "permission_error"
                        : status == 404 ? "not_found_error"
                        : status == 413 ? "request_too_large"
                        : status == 429 ? "rate_limit_error"
                        : status == 503 ? "overloaded_error"
                        : status >= 500 ? "api_error"
                                        : "invalid_request_error";
    return {{"type", "error"}, {"error", {{"type", type}, {"message", message}}}};
}

std::string anthropic_stream::event(const char * name, const json & data) const {
    return std::string("event: ") + name + "\ndata: " + dump_compact(data) + "\n\n";
}

std::string anthropic_stream::open_block(const json & block) {
    std::string out = close_block();
    index_++;
    kind_ = block["type"].get<std::string>();
    out += event("content_block_start", {{"type", "content_block_start"}, {"index", index_}, {"content_block", block}});
    return out;
}

std::string anthropic_stream::close_block() {
    if (kind_.empty()) {
        return "";
    }
    kind_.clear();
    tool_ = -1;
    return event("content_block_stop", {{"type", "content_block_stop"}, {"index", index_}});
}

std::string anthropic_stream::on_chunk(const json & chunk) {
    std::string out;
    if (!started_) {
        started_ = true;
        json msg = {{"id", "msg_" + (field(chunk, "id").is_string() ? chunk["id"].get<std::string>() : "")},
                    {"type", "message"},
                    {"role", "assistant"},
                    {"model", model_},
                    {"content", json::array()},
                    {"stop_reason", nullptr},
                    {"stop_sequence", nullptr},
                    {"usage", {{"input_tokens", 0}, {"output_tokens", 0}}}};
        out += event("message_start", {{"type", "message_start"}, {"message", msg}});
    }
    if (const json & usage = field(chunk, "usage"); usage.is_object()) {
        input_tokens_  = usage.value("prompt_tokens", 0);
        output_tokens_ = usage.value("completion_tokens", 0);
    }
    const json & choices = field(chunk, "choices");
    if (!choices.is_array() || choices.empty()) {
        return out;
    }
    const json & delta = field(choices[0], "delta");
    if (const json & r = field(delta, "reasoning_content"); r.is_string() && !r.get<std::string>().empty()) {
        if (kind_ != "thinking") {
            out += open_block({{"type", "thinking"}, {"thinking", ""}});
        }
        out += event("content_block_delta", {{"type", "content_block_delta"},
                                             {"index", index_},
                                             {"delta", {{"type", "thinking_delta"}, {"thinking", r}}}});
    }
    if (const json & t = field(delta, "content"); t.is_string() && !t.get<std::string>().empty()) {
        if (kind_ != "text") {
            out += open_block({{"type", "text"}, {"text", ""}});
        }
        out += event(
            "content_block_delta",
            {{"type", "content_block_delta"}, {"index", index_}, {"delta", {{"type", "text_delta"}, {"text", t}}}});
    }
    if (const json & calls = field(delta, "tool_calls"); calls.is_array()) {
        for (const auto & c : calls) {
            const int    idx = c.value("index", 0);
            const json & fn  = field(c, "function");
            if (kind_ != "tool_use" || idx != tool_) {
                out += open_block({{"type", "tool_use"},
                                   {"id", field(c, "id").is_string() ? c["id"] : json("")},
                                   {"name", field(fn, "name").is_string() ? fn["name"] : json("")},
                                   {"input", json::object()}});
                tool_ = idx;
            }
            if (const json & a = field(fn, "arguments"); a.is_string() && !a.get<std::string>().empty()) {
                out += event("content_block_delta", {{"type", "content_block_delta"},
                                                     {"index", index_},
                                                     {"delta", {{"type", "input_json_delta"}, {"partial_json", a}}}});
            }
        }
    }
    if (const json & f = field(choices[0], "finish_reason"); f.is_string()) {
        stop_reason_ = stop_reason(f.get<std::string>());
        if (const json & w = field(choices[0], "stop_word"); w.is_string()) {
            stop_reason_   = "stop_sequence";
            stop_sequence_ = w.get<std::string>();
        }
    }
    return out;
}

std::string anthropic_stream::finish() {
    std::string out = close_block();
    out += event("message_delta", {{"type", "message_delta"},
                                   {"delta",
                                    {{"stop_reason", stop_reason_.empty() ? "end_turn" : stop_reason_},
                                     {"stop_sequence", stop_sequence_.empty() ? json(nullptr) : json(stop_sequence_)}}},
                                   {"usage", {{"input_tokens", input_tokens_}, {"output_tokens", output_tokens_}}}});
    out += event("message_stop", {{"type", "message_stop"}});
    finished_ = true;
    return out;
}

std::string anthropic_stream::feed(const std::string & bytes) {
    pending_ += bytes;
    std::string out;
    size_t      nl;
    while (!finished_ && (nl = pending_.find('\n')) != std::string::npos) {
        const std::string line = pending_.substr(0, nl);
        pending_.erase(0, nl + 1);
        if (line.rfind("data: ", 0) != 0) {
            continue;  // blank separators
        }
        const std::string data = line.substr(6);
        if (data == "[DONE]") {
            out += finish();
            break;
        }
        const json chunk = json::parse(data, nullptr, false);
        if (chunk.is_discarded()) {
            continue;
        }
        if (const json & err = field(chunk, "error"); err.is_object()) {
            out += event("error", anthropic_error(500, err.value("message", std::string("generation failed"))));
            finished_ = true;
            break;
        }
        out += on_chunk(chunk);
    }
    return out;
}

// POST /v1/messages: the request goes through the chat completion handler as its OpenAI equivalent;
// the answer is translated on the way out (a streamed one chunk by chunk, through the wrapped
// content provider).
void http_server::handle_messages(const httplib::Request & req, httplib::Response & res) {
    json openai_body;
    try {
        openai_body = anthropic_to_openai(parse_body(req.body));
    } catch (const bad_request & e) {
        res.status = 400;
        res.set_content(dump_compact(anthropic_error(400, e.what())), "application/json");
        return;
    }
    const std::string model = cfg_.model_id;
    httplib::Request  inner_req;
    inner_req.method = "POST";
    inner_req.path   = "/v1/chat/completions";
    inner_req.body   = openai_body.dump();
    httplib::Response inner;
    try {
        handle_completion(inner_req, inner, true, true);
    } catch (const bad_request & e) {
        res.status = 400;
        res.set_content(dump_compact(anthropic_error(400, e.what())), "application/json");
        return;
    }
    if (!inner.is_chunked_content_provider_) {
        const json j = json::parse(inner.body, nullptr, false);
        res.status   = inner.status < 0 ? 200 : inner.status;
        if (res.status != 200 || j.is_discarded()) {
            std::string message = "request failed";
            if (!j.is_discarded() && j.contains("error") && j["error"].contains("message")) {
                message = j["error"]["message"].get<std::string>();
            }
            if (inner.has_header("Retry-After")) {
                res.set_header("Retry-After", inner.get_header_value("Retry-After"));
            }
            res.set_content(dump_compact(anthropic_error(res.status, message)), "application/json");
            return;
        }
        res.set_content(dump_compact(openai_to_anthropic(j, model)), "application/json");
        return;
    }
    // streamed: take over the inner provider and its releaser (the inner response must not run it)
    struct relay {
        httplib::ContentProvider                 provider;
        httplib::ContentProviderResourceReleaser releaser;
        anthropic_stream                         conv;
        bool                                     inner_done = false;
        explicit relay(std::string m) : conv(std::move(m)) {}
    };
    auto r                                    = std::make_shared<relay>(model);
    r->provider                               = std::move(inner.content_provider_);
    r->releaser                               = std::move(inner.content_provider_resource_releaser_);
    inner.content_provider_resource_releaser_ = nullptr;
    res.set_header("Cache-Control", "no-cache");
    res.set_chunked_content_provider(
        "text/event-stream",
        [r](size_t offset, httplib::DataSink & sink) {
            std::string       got;
            httplib::DataSink in;
            in.write = [&got](const char * d, size_t n) {
                got.append(d, n);
                return true;
            };
            in.done               = [&r] { r->inner_done = true; };
            in.is_writable        = [&sink] { return sink.is_writable(); };
            const bool        ok  = r->provider(offset, 0, in);
            const std::string out = r->conv.feed(got);
            if (!out.empty() && !sink.write(out.data(), out.size())) {
                return false;
            }
            if (r->conv.finished() || r->inner_done) {
                if (!r->conv.finished()) {
                    const std::string tail = r->conv.feed("data: [DONE]\n");
                    sink.write(tail.data(), tail.size());
                }
                sink.done();
                return true;
            }
            return ok;
        },
        [r](bool success) {
            if (r->releaser) {
                r->releaser(success);
            }
        });
}

// POST /v1/messages/count_tokens: the prompt the template makes of the request, in tokens.
void http_server::handle_count_tokens(const httplib::Request & req, httplib::Response & res) {
    try {
        json body = parse_body(req.body);
        if (body.is_object() && !body.contains("max_tokens")) {
            body["max_tokens"] = 1;  // required by messages, not by counting
        }
        const json         openai_body = anthropic_to_openai(body);
        completion_request cr          = parse_completion(openai_body, vocab_, cfg_.sampling);
        chat_->apply(openai_body, vocab_, cr);
        const size_t n = tokenize(vocab_, cr.prompt, cr.add_special).size();
        res.set_content(dump_compact({{"input_tokens", n}}), "application/json");
    } catch (const bad_request & e) {
        res.status = 400;
        res.set_content(dump_compact(anthropic_error(400, e.what())), "application/json");
    }
}

}  // namespace server
