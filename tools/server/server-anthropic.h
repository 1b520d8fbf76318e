// Anthropic's Messages API (POST /v1/messages, /v1/messages/count_tokens) as a translation over the
// OpenAI chat endpoint: the request becomes a chat completion request (system, content blocks,
// tool_use / tool_result, tools and tool_choice, thinking), and the answer — whole or streamed —
// becomes a message with text, thinking and tool_use blocks, or Anthropic's event stream
// (message_start, content_block_start / _delta / _stop, message_delta, message_stop).
#pragma once

#include <string>

#include "server-params.h"

namespace server {

// The chat completion request for an Anthropic Messages request; bad_request naming the field.
json anthropic_to_openai(const json & body);

// The Anthropic message for a chat completion response (non-streamed).
json openai_to_anthropic(const json & completion, const std::string & model);

// Anthropic's error body for an HTTP status and message.
json anthropic_error(int status, const std::string & message);

// Turns the OpenAI SSE byte stream of one chat completion (n = 1, stream_options.include_usage) into
// Anthropic's events, incrementally: feed() takes any piece of the stream and returns the events
// completed by it.
class anthropic_stream {
public:
    explicit anthropic_stream(std::string model) : model_(std::move(model)) {}
    std::string feed(const std::string & bytes);
    bool        finished() const { return finished_; }

private:
    std::string event(const char * name, const json & data) const;
    std::string open_block(const json & block);
    std::string close_block();
    std::string on_chunk(const json & chunk);
    std::string finish();

    std::string model_;
    std::string pending_;  // bytes of an incomplete SSE line
    bool        started_  = false;
    bool        finished_ = false;
    int         index_    = -1;  // the open content block; -1: none
    std::string kind_;           // its type: text, thinking, tool_use
    int         tool_ = -1;      // the OpenAI tool-call index of an open tool_use block
    std::string stop_reason_;
    std::string stop_sequence_;  // the stop string that ended the reply, if one did
    int         input_tokens_ = 0, output_tokens_ = 0;
};

}  // namespace server
