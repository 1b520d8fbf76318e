// JSON schema -> GBNF, checked against a validator written apart (test-json-schema-validate.h) over
// a corpus of schemas: each either converts or is refused with an error naming its keyword; from
// each converted grammar, random documents are drawn by walking the grammar sampler over the gpt-2
// vocabulary's one-character tokens, and every one must be valid; hand-written valid documents are
// accepted and near misses (out of range by one, too long, a required member missing) refused.
#include <gtest/gtest.h>

#ifdef LLAMA_TEST_JSON_SCHEMA

#    include <cmath>
#    include <random>
#    include <string>
#    include <vector>

#    include "json-schema-grammar.h"
#    include "llama.h"
#    include "test-grammar-util.h"
#    include "test-json-schema-validate.h"

namespace {

struct schema_case {
    const char *             schema;
    std::vector<std::string> valid;    // documents the grammar must accept
    std::vector<std::string> invalid;  // near misses it must refuse
};

// clang-format off
const std::vector<schema_case> k_cases = {
    {R"({"type": "integer", "minimum": 0, "maximum": 99})", {"0", "99", "42"}, {"-1", "100", "1000", "-3000000000000000", "07"}},
    {R"({"type": "integer", "minimum": -250, "maximum": -17})", {"-250", "-17", "-100"}, {"-16", "-251", "0", "17", "-1000"}},
    {R"({"type": "integer", "exclusiveMinimum": -5, "exclusiveMaximum": 5})", {"-4", "4", "0"}, {"-5", "5", "-6"}},
    {R"({"type": "integer", "minimum": 1000000000000})", {"1000000000000", "99999999999999"}, {"999999999999", "-1000000000000"}},
    {R"({"type": "integer", "minimum": 123456789012, "maximum": 123456799999})", {"123456789012", "123456799999", "123456790000"},
     {"123456789011", "123456800000", "12345678901"}},
    {R"({"type": "integer", "minimum": 2.5, "exclusiveMaximum": 7})", {"3", "6"}, {"2", "7"}},
    {R"({"type": "number", "minimum": 0, "maximum": 1})", {"0", "1", "0.5", "0.999"}, {"1.5", "-0.1", "1.01", "2", "1.00001"}},
    {R"({"type": "number", "exclusiveMinimum": -2, "maximum": 3})", {"-1.5", "3", "-1", "2.25"}, {"-2", "-2.5", "3.5", "3.1"}},
    {R"({"type": "number", "exclusiveMaximum": 10})", {"9.99", "-100.5", "-10000"}, {"10", "10.5", "11"}},
    {R"({"type": "string", "minLength": 2, "maxLength": 4})", {R"("ab")", R"("abcd")", R"("a\nb")"}, {R"("a")", R"("abcde")", "3"}},
    {R"({"type": "string", "pattern": "^[A-Z]{2}-\\d{3}$"})", {R"("AB-123")"}, {R"("AB-12")", R"("ab-123")", R"("AB-1234")"}},
    {R"({"type": "string", "pattern": "[0-9]x?$"})", {R"("ab1")", R"("1x")", R"("a\"7")"}, {R"("1xy")", R"("abc")", R"("")"}},
    {R"({"type": "string", "pattern": "^[ -~]{1,5}$"})", {R"("a ~Z")", R"("!")"}, {R"("")", R"("abcdef")", R"("a\tb")"}},
    {R"({"type": "string", "pattern": "^[^a-y\\d]+$"})", {R"("z!")", R"("Q")"}, {R"("za")", R"("z1")", R"("")"}},
    {R"({"type": "string", "pattern": "^(ab|cd)+"})", {R"("ab")", R"("cdab-x")"}, {R"("a")", R"("xab")"}},
    {R"({"enum": ["red", 2, null, true, {"a": [1]}]})", {R"("red")", "2", "null", "true", R"({"a":[1]})"}, {R"("blue")", "3", "false"}},
    {R"({"const": {"k": "v", "n": [1, 2]}})", {R"({"k":"v","n":[1,2]})"}, {R"({"k":"v"})", R"({"k":"v","n":[1,3]})"}},
    {R"({"type": "string", "format": "date"})", {R"("2024-02-28")", R"("1999-12-31")"}, {R"("2024-02-30")", R"("2024-13-01")", R"("2024-04-31")"}},
    {R"({"type": "string", "format": "time"})", {R"("23:59:59Z")", R"("12:00:00.5+05:30")"}, {R"("24:00:00Z")", R"("12:60:00Z")", R"("12:00:00")"}},
    {R"({"type": "string", "format": "date-time"})", {R"("2024-01-15T10:20:30Z")"}, {R"("2024-01-15 10:20:30Z")", R"("2024-01-15")"}},
    {R"({"type": "string", "format": "uuid"})", {R"("123e4567-e89b-12d3-a456-426614174000")"}, {R"("123e4567-e89b-12d3-a456-42661417400")", R"("123e4567e89b12d3a456426614174000")"}},
    {R"({"anyOf": [{"type": "integer", "minimum": 5}, {"type": "string", "maxLength": 2}]})", {"5", R"("ab")"}, {"4", R"("abc")"}},
    {R"({"oneOf": [{"type": "integer", "maximum": 3}, {"type": "string"}]})", {"3", R"("x")"}, {"4", "true"}},
    {R"({"oneOf": [{"type": "object", "properties": {"kind": {"const": "a"}, "x": {"type": "integer"}}, "required": ["kind", "x"]},
                   {"type": "object", "properties": {"kind": {"const": "b"}, "y": {"type": "string"}}, "required": ["kind"]}]})",
     {R"({"kind": "a", "x": 1})", R"({"kind": "b"})"}, {R"({"kind": "a"})", R"({"kind": "c"})", R"({"kind": "b", "y": 1})"}},
    {R"({"allOf": [{"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
                   {"properties": {"b": {"type": "string"}}, "required": ["b"]}]})",
     {R"({"a": 1, "b": "x"})"}, {R"({"a": 1})", R"({"b": "x"})"}},
    {R"({"allOf": [{"type": "integer", "minimum": 0}, {"maximum": 10}]})", {"0", "10"}, {"11", "-1"}},
    {R"({"$ref": "#/$defs/node", "$defs": {"node": {"type": "object", "properties": {"v": {"type": "integer", "minimum": 0, "maximum": 9},
        "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}, "maxItems": 2}}, "required": ["v"]}}})",
     {R"({"v": 1, "kids": [{"v": 2}, {"v": 3, "kids": []}]})"}, {R"({"v": 10})", R"({"v": 1, "kids": [{"w": 2}]})", R"({"v": 1, "kids": [{"v": 1}, {"v": 1}, {"v": 1}]})"}},
    {R"({"definitions": {"b": {"type": "boolean"}}, "type": "array", "items": {"$ref": "#/definitions/b"}, "minItems": 1})",
     {"[true]", "[true, false]"}, {"[]", "[1]"}},
    {R"({"type": "object", "properties": {"next": {"$ref": "#"}, "v": {"type": "integer", "minimum": 0, "maximum": 9}}, "required": ["v"]})",
     {R"({"next": {"v": 2}, "v": 1})"}, {R"({"next": {}, "v": 1})", R"({"next": {"v": 1}})"}},
    {R"({"type": "object", "properties": {"name": {"type": "string", "maxLength": 5}, "age": {"type": "integer", "minimum": 0, "maximum": 130}},
        "required": ["name"], "additionalProperties": false})",
     {R"({"name": "Bob", "age": 42})", R"({"name": ""})"}, {R"({"age": 1})", R"({"name": "a", "x": 1})", R"({"name": "abcdef"})", R"({"name": "a", "age": 131})"}},
    {R"({"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": true})",
     {R"({"a": 1, "b": "x"})", R"({"ab": []})"}, {R"({"a": "x"})", R"({"a": 1, "a": "x"})"}},
    {R"({"type": "object", "properties": {"id": {"type": "integer"}}, "additionalProperties": {"type": "string", "maxLength": 3}})",
     {R"({"id": 1, "x": "abc"})", R"({"i": "d"})"}, {R"({"id": 1, "x": "long"})", R"({"id": "1"})", R"({"x": 1})"}},
    {R"({"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": 3}, "minItems": 1, "maxItems": 3})",
     {"[1]", "[1, 2, 3]"}, {"[]", "[1, 2, 3, 1]", "[0]", "[4]"}},
    {R"({"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer", "minimum": 0}], "items": false, "minItems": 1})",
     {R"(["a"])", R"(["a", 1])"}, {"[]", R"(["a", -1])", R"(["a", 1, 2])", "[1]"}},
    {R"({"type": "array", "prefixItems": [{"const": "x"}], "items": {"type": "boolean"}, "maxItems": 3})",
     {"[]", R"(["x"])", R"(["x", true, false])"}, {R"(["x", true, false, true])", R"(["y"])", R"(["x", 1])"}},
    {R"({"type": "array", "items": [{"type": "null"}, {"type": "boolean"}], "additionalItems": false})",
     {"[null]", "[null, true]"}, {"[null, true, 1]", "[true]"}},
    {R"({"type": ["integer", "null"], "minimum": 1, "maximum": 3})", {"null", "2"}, {"0", "4", R"("2")"}},
    {R"({"minimum": 3})", {"3", "4.5"}, {"2", "2.5"}},
    {R"({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"], "minProperties": 1})", {R"({"a": 1})"}, {"{}"}},
    {R"({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "anyOf": [{"required": ["a"]}, {"required": ["b"]}]})",
     {R"({"a": 1})", R"({"b": 2})", R"({"a": 1, "b": 2})"}, {"{}", R"({"c": 1})"}},
    {R"({"type": "string", "enum": ["a", "b", 1]})", {R"("a")"}, {"1", R"("c")"}},
    {R"({"type": "object", "properties": {"a": {"type": "integer"}, "no": false}, "additionalProperties": true})",
     {R"({"a": 1})", R"({"n": 1, "noo": 2})"}, {R"({"no": 1})", R"({"a": 1, "no": null})"}},
    {R"({"type": "object", "properties": {"k\u00e9y": {"type": "null"}, "ke": {"type": "boolean"}}, "additionalProperties": {"type": "integer"}})",
     {R"({"kéy": null})", R"({"ke": true, "key": 1})"}, {R"({"ke": 1})", R"({"kéy": 1})", R"({"k\u00e9y": 1})"}},
};

// schema -> a part of the error the converter must give
const std::vector<std::pair<const char *, const char *>> k_refused = {
    {R"({"type": "integer", "multipleOf": 3})", "'multipleOf'"},
    {R"({"not": {}})", "'not'"},
    {R"({"if": {}, "then": {}})", "'if'"},
    {R"({"type": "number", "minimum": 0.5})", "'minimum'"},
    {R"({"type": "string", "format": "email"})", "'format'"},
    {R"({"type": "string", "pattern": "^(?=a)$"})", "lookaround"},
    {R"({"type": "string", "pattern": "^a\\bc$"})", "escape '\\b'"},
    {R"({"oneOf": [{"type": "integer"}, {"type": "number"}]})", "'oneOf'"},
    {R"({"allOf": [{"properties": {"a": {}}, "additionalProperties": false}, {"properties": {"b": {}}}]})", "'additionalProperties'"},
    {R"({"allOf": [{"type": "string"}, {"type": "integer"}]})", "'type'"},
    {R"({"type": "object", "minProperties": 2})", "'minProperties'"},
    {R"({"type": "object", "maxProperties": 1})", "'maxProperties'"},
    {R"({"type": "array", "uniqueItems": true})", "'uniqueItems'"},
    {R"({"type": "array", "contains": {}})", "'contains'"},
    {R"({"type": "object", "patternProperties": {}})", "'patternProperties'"},
    {R"({"$ref": "#/$defs/a", "$defs": {"a": {}}, "minimum": 1})", "'minimum'"},
    {R"({"enum": [1, 2], "minimum": 2})", "'minimum'"},
    {R"({"type": "integer", "minimum": 1e19})", "'minimum'"},
    {R"({"type": "integer", "minimum": 5, "maximum": 4})", "'minimum'"},
    {R"({"type": "string", "nullable": true})", "'nullable'"},
    {R"({"type": "string", "pattern": "^a$", "maxLength": 3})", "'pattern'"},
    {R"({"type": "string", "pattern": "^[]a]$"})", "empty classes"},
    {R"({"type": "object", "properties": {"a": false}, "required": ["a"]})", "'false'"},
    {R"({"type": "string", "pattern": "^[z-a]$"})", "out of order"},
};
// clang-format on

// The vocabulary's one-character tokens (printable ASCII and newline): the walker's alphabet.
struct alphabet {
    std::vector<llama_token> tokens;
    std::vector<char>        chars;
};

const alphabet & single_chars() {
    static const alphabet a = [] {
        alphabet            out;
        const llama_vocab * v = testing_util::gpt2_vocab();
        for (llama_token t = 0; v != nullptr && t < llama_vocab_n_tokens(v); t++) {
            char          buf[8];
            const int32_t n = llama_token_to_piece(v, t, buf, sizeof(buf), 0, false);
            if (n == 1 && ((buf[0] >= 0x20 && buf[0] < 0x7F) || buf[0] == '\n')) {
                out.tokens.push_back(t);
                out.chars.push_back(buf[0]);
            }
        }
        return out;
    }();
    return a;
}

// One random sentence of the grammar, or "" when the walk ran past `max_len` characters. Fails
// the test when the grammar reaches a dead end (no character and no end allowed).
std::string random_document(const std::string & gbnf, const std::string & hint, std::mt19937 & rng, size_t max_len) {
    const llama_vocab * v   = testing_util::gpt2_vocab();
    const alphabet &    a   = single_chars();
    llama_sampler *     s   = llama_sampler_init_grammar(v, gbnf.c_str(), "root");
    const llama_token   eos = llama_vocab_eos(v);
    EXPECT_NE(s, nullptr) << llama_last_error();
    std::string out;
    while (s != nullptr && out.size() < max_len) {
        std::vector<llama_token_data> cand;
        for (llama_token t : a.tokens) {
            cand.push_back({t, 0.0f, 0.0f});
        }
        cand.push_back({eos, 0.0f, 0.0f});
        llama_token_data_array arr = {cand.data(), cand.size(), -1, false};
        llama_sampler_apply(s, &arr);
        std::vector<size_t> allowed, closing;
        bool                can_end = false;
        for (size_t i = 0; i < cand.size(); i++) {
            if (std::isinf(cand[i].logit)) {
                continue;
            }
            if (cand[i].id == eos) {
                can_end = true;
                continue;
            }
            allowed.push_back(i);
            const char c = a.chars[i];
            if (c == '"' || c == ']' || c == '}' || c == ',') {
                closing.push_back(i);
            }
        }
        if (can_end && (allowed.empty() || rng() % 3 == 0)) {
            llama_sampler_free(s);
            return out;
        }
        if (allowed.empty()) {
            ADD_FAILURE() << "dead end after " << out << "\n" << gbnf;
            break;
        }
        // lean towards the schema's own characters (keys, literals, pattern text) and, as the text
        // grows, towards closing, so that walks reach the interesting parts and most of them end
        std::vector<size_t> own;
        for (size_t i : allowed) {
            own.push_back(i);
            if (hint.find(a.chars[i]) == std::string::npos) {
                own.pop_back();
            }
        }
        const bool   close   = !closing.empty() && rng() % 100 < std::min<size_t>(90, 10 + out.size());
        const bool   use_own = !own.empty() && rng() % 2 == 0;
        const auto & pool    = close ? closing : use_own ? own : allowed;
        const size_t i       = pool[rng() % pool.size()];
        out += a.chars[i];
        llama_sampler_accept(s, cand[i].id);
    }
    llama_sampler_free(s);
    return "";
}

}  // namespace

TEST(JsonSchemaFuzz, CorpusConvertsAndGeneratesOnlyValidDocuments) {
    ASSERT_NE(testing_util::gpt2_vocab(), nullptr) << llama_last_error();
    ASSERT_GT(single_chars().tokens.size(), 90u);
    std::mt19937 rng(1234);
    for (const auto & c : k_cases) {
        SCOPED_TRACE(c.schema);
        std::string gbnf;
        try {
            gbnf = llama_tools::json_schema_to_grammar(c.schema);
        } catch (const llama_tools::schema_error & e) {
            ADD_FAILURE() << "refused: " << e.what();
            continue;
        }
        const testing_util::schema_json      schema = testing_util::schema_json::parse(c.schema);
        const testing_util::schema_validator validator(schema);
        for (const auto & doc : c.valid) {
            testing_util::schema_json parsed;
            EXPECT_TRUE(testing_util::parse_strict(doc, parsed) && validator.valid(parsed)) << "oracle: " << doc;
            EXPECT_TRUE(testing_util::grammar_accepts(gbnf, doc)) << doc << "\n" << gbnf;
        }
        for (const auto & doc : c.invalid) {
            testing_util::schema_json parsed;
            EXPECT_FALSE(testing_util::parse_strict(doc, parsed) && validator.valid(parsed)) << "oracle: " << doc;
            EXPECT_FALSE(testing_util::grammar_accepts(gbnf, doc)) << doc << "\n" << gbnf;
        }
        int n_done = 0;
        for (int i = 0; i < 30; i++) {
            const std::string doc = random_document(gbnf, c.schema, rng, 400);
            if (doc.empty()) {
                continue;
            }
            n_done++;
            // an additional member may repeat a name (each value valid): judged with the first
            // and with the last of the repeats
            testing_util::schema_json first, last;
            EXPECT_TRUE(testing_util::parse_json(doc, first, true) && testing_util::parse_json(doc, last, false))
                << "not JSON: " << doc;
            EXPECT_TRUE(validator.valid(first) && validator.valid(last)) << "invalid: " << doc;
        }
        EXPECT_GE(n_done, 15) << "most random walks should end";
    }
}

TEST(JsonSchemaFuzz, RefusedNamingTheKeyword) {
    for (const auto & [schema, msg] : k_refused) {
        try {
            llama_tools::json_schema_to_grammar(schema);
            ADD_FAILURE() << "accepted: " << schema;
        } catch (const llama_tools::schema_error & e) {
            EXPECT_NE(std::string(e.what()).find(msg), std::string::npos) << schema << " -> " << e.what();
        }
    }
}

// Tool-call arguments use the widened grammar: a schema the strict conversion refuses still gives a
// grammar, one that accepts every document valid under the schema (and keeps the constraints it can
// enforce: bounds, required members).
TEST(JsonSchemaFuzz, WidenedGrammarsAcceptWhatTheSchemaAccepts) {
    // clang-format off
    const std::vector<schema_case> widened = {
        {R"({"type": "string", "format": "email"})", {R"("a@b.c")", R"("x")"}, {"1", "null"}},
        {R"({"type": "integer", "multipleOf": 5, "minimum": 0, "maximum": 100})", {"15", "100", "0"}, {"101", "-5", "1.5"}},
        {R"({"type": "number", "minimum": 0.5, "maximum": 2.5})", {"0.5", "2.5", "1.75", "1"}, {"4", "-1", "\"1\""}},
        {R"({"type": "number", "exclusiveMinimum": 0.1, "exclusiveMaximum": 0.9})", {"0.2", "0.5"}, {"2", "-1"}},
        {R"({"oneOf": [{"type": "integer"}, {"type": "number"}]})", {"1", "1.5"}, {"\"a\""}},
        {R"({"type": "object", "properties": {"a": {"type": "string", "pattern": "^x+$", "maxLength": 3}}, "required": ["a"]})",
         {R"({"a": "xx"})", R"({"a": "x"})"}, {"{}", R"({"a": 1})"}},
        {R"({"type": "array", "items": {"type": "integer"}, "uniqueItems": true})", {"[1, 2]", "[]"}, {R"(["a"])"}},
        {R"({"type": "object", "patternProperties": {"^x": {"type": "integer"}}})", {R"({"x1": 1})", "{}"}, {"[]"}},
        {R"({"not": {"type": "null"}, "type": "integer"})", {"1"}, {"\"s\""}},
        {R"({"type": "string", "enum": ["a", "b"], "minLength": 1})", {R"("a")", R"("b")"}, {R"("c")"}},
        {R"({"type": "object", "properties": {"when": {"type": "string", "format": "date", "maxLength": 10}}})",
         {R"({"when": "2026-12-04"})"}, {R"({"when": 5})"}},
    };
    // clang-format on
    for (const auto & c : widened) {
        SCOPED_TRACE(c.schema);
        EXPECT_THROW(llama_tools::json_schema_to_grammar(c.schema), llama_tools::schema_error)
            << "the strict conversion should refuse this case";
        std::string gbnf;
        ASSERT_NO_THROW(gbnf = llama_tools::json_schema_to_grammar_widened(c.schema));
        for (const auto & doc : c.valid) {
            EXPECT_TRUE(testing_util::grammar_accepts(gbnf, doc)) << doc << "\n" << gbnf;
        }
        for (const auto & doc : c.invalid) {
            EXPECT_FALSE(testing_util::grammar_accepts(gbnf, doc)) << doc << "\n" << gbnf;
        }
    }
    // what the strict conversion accepts is not widened
    for (const auto & c : k_cases) {
        std::string strict;
        try {
            strict = llama_tools::json_schema_to_grammar(c.schema);
        } catch (const llama_tools::schema_error &) {
            continue;
        }
        EXPECT_EQ(llama_tools::json_schema_to_grammar_widened(c.schema), strict) << c.schema;
    }
    // schemas wrong in themselves are still errors
    EXPECT_THROW(llama_tools::json_schema_to_grammar_widened("{\"type\": "), llama_tools::schema_error);
    EXPECT_THROW(llama_tools::json_schema_to_grammar_widened(R"({"type": "integer", "minimum": 5, "maximum": 1})"),
                 llama_tools::schema_error);
    EXPECT_THROW(llama_tools::json_schema_to_grammar_widened(R"({"type": "banana"})"), llama_tools::schema_error);
}

#else

TEST(JsonSchemaFuzz, NeedsNlohmannJson) {
    GTEST_SKIP() << "built without nlohmann/json: the converter is not part of this build";
}

#endif
