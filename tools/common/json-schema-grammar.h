// JSON schema -> GBNF grammar for the grammar sampler (llama_sampler_init_grammar), used by
// llama-server (`response_format`) and llama-cli (`--json-schema`). The supported subset and
// what is refused are listed in docs/sampling.md ("JSON schemas"): every keyword accepted
// is enforced exactly (the grammar may be narrower than the schema, never wider).
#pragma once

#include <stdexcept>
#include <string>

namespace llama_tools {

// An unsupported or invalid schema; what() names the keyword and where it is (a JSON pointer).
struct schema_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Grammar (root rule "root") whose sentences are JSON texts valid under the schema given as JSON
// text. Throws schema_error for malformed JSON, an invalid schema or a keyword it cannot honour.
std::string json_schema_to_grammar(const std::string & schema_json);

// For output that need not meet the schema exactly — tool-call arguments, which the application
// validates — the grammar of a widened schema: constraints json_schema_to_grammar refuses are dropped
// or loosened (unsupported keywords and formats removed, fractional number bounds rounded outwards,
// oneOf read as anyOf, ...), so the grammar accepts a superset of the schema instead of refusing it.
// A schema the strict conversion accepts gives the same grammar. Throws schema_error only for
// malformed JSON or a schema that is wrong in itself (e.g. a bad type, minimum above maximum).
std::string json_schema_to_grammar_widened(const std::string & schema_json);

// Grammar of any JSON object (OpenAI's response_format {"type": "json_object"}).
std::string json_object_grammar();

// Grammar of a string matching a regex as JSON Schema's "pattern" does (a search: without a leading
// '^' or a trailing '$' any characters may come before or after; literals, escapes \d \w \s and
// escaped punctuation, '.', classes [...] without '"' or '\\', groups with '|', * + ? {m} {m,}
// {m,n}), written as one GBNF expression over the characters inside the JSON string's quotes; it
// refers to the converter's `char` rule. Throws schema_error naming anything else.
std::string regex_to_gbnf(const std::string & pattern);

}  // namespace llama_tools
