// JSON schema -> GBNF (tools/common/json-schema-grammar.*): every generated grammar is accepted by
// llama_sampler_init_grammar, and the grammar sampler, fed the tokens of a JSON text through the
// public API (apply + accept over the gpt-2 vocabulary), accepts valid instances and rejects
// invalid ones. Built with the converter only when nlohmann/json is present (extra-tests.cmake).
#include <gtest/gtest.h>

#ifdef LLAMA_TEST_JSON_SCHEMA

#    include <cmath>
#    include <string>
#    include <vector>

#    include "json-schema-grammar.h"
#    include "llama.h"
#    include "test-common.h"
#    include "test-grammar-util.h"

using llama_tools::json_object_grammar;
using llama_tools::json_schema_to_grammar;
using llama_tools::schema_error;

namespace {

// Whether the grammar lets a model emit exactly `text` and then end. The grammar must compile.
bool accepts(const std::string & gbnf, const std::string & text) {
    return testing_util::grammar_accepts(gbnf, text);
}

bool schema_accepts(const std::string & schema, const std::string & text) {
    return accepts(json_schema_to_grammar(schema), text);
}

}  // namespace

TEST(JsonSchemaGrammar, VocabLoads) {
    ASSERT_NE(testing_util::gpt2_vocab(), nullptr) << llama_last_error();
}

TEST(JsonSchemaGrammar, ObjectRequiredOptionalClosed) {
    const std::string s = R"({"type": "object", "properties": {"name": {"type": "string"},
        "age": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}}},
        "required": ["name"], "additionalProperties": false})";
    EXPECT_TRUE(schema_accepts(s, R"({"name": "Bob", "age": 42, "tags": ["a", "b"]})"));
    EXPECT_TRUE(schema_accepts(s, R"({"name":"Bob"})"));
    EXPECT_TRUE(schema_accepts(s, R"({"name": "Bob", "tags": []})"));
    EXPECT_TRUE(schema_accepts(s, "{\n  \"name\": \"B\\\"o\\u00e9b\",\n  \"age\": -7\n}"));
    EXPECT_FALSE(schema_accepts(s, R"({"age": 1})"));                 // required missing
    EXPECT_FALSE(schema_accepts(s, R"({"name": "a", "x": 1})"));      // extra member
    EXPECT_FALSE(schema_accepts(s, R"({"name": 5})"));                // wrong type
    EXPECT_FALSE(schema_accepts(s, R"({"name": "a", "age": 1.5})"));  // not an integer
    EXPECT_FALSE(schema_accepts(s, R"({"name": "a",})"));             // trailing comma
    EXPECT_FALSE(schema_accepts(s, R"({"name": "a")"));               // incomplete
}

TEST(JsonSchemaGrammar, AdditionalProperties) {
    EXPECT_TRUE(schema_accepts(R"({"type": "object", "properties": {"a": {"type": "integer"}},
        "additionalProperties": true})",
                               R"({"a": 1, "zzz": [1, {"q": null}]})"));
    const std::string typed = R"({"type": "object", "additionalProperties": {"type": "number"}})";
    EXPECT_TRUE(schema_accepts(typed, R"({"x": 1.5, "y": -2e10})"));
    EXPECT_TRUE(schema_accepts(typed, R"({})"));
    EXPECT_FALSE(schema_accepts(typed, R"({"x": "1"})"));
    EXPECT_TRUE(schema_accepts(R"({"type": "object"})", R"({"k": {"deep": [true]}})"));
}

TEST(JsonSchemaGrammar, ArrayBounds) {
    const std::string s = R"({"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 3})";
    EXPECT_TRUE(schema_accepts(s, "[1]"));
    EXPECT_TRUE(schema_accepts(s, "[1, 2, 3]"));
    EXPECT_FALSE(schema_accepts(s, "[]"));
    EXPECT_FALSE(schema_accepts(s, "[1, 2, 3, 4]"));
    EXPECT_FALSE(schema_accepts(s, "[1.5]"));
    EXPECT_TRUE(schema_accepts(R"({"type": "array", "maxItems": 0})", "[]"));
    EXPECT_FALSE(schema_accepts(R"({"type": "array", "maxItems": 0})", "[1]"));
}

TEST(JsonSchemaGrammar, Strings) {
    const std::string e = R"({"enum": ["red", "green", 3, null]})";
    EXPECT_TRUE(schema_accepts(e, R"("red")"));
    EXPECT_TRUE(schema_accepts(e, "3"));
    EXPECT_TRUE(schema_accepts(e, "null"));
    EXPECT_FALSE(schema_accepts(e, R"("blue")"));
    EXPECT_TRUE(schema_accepts(R"({"const": "x\"y"})", R"("x\"y")"));
    EXPECT_FALSE(schema_accepts(R"({"const": "xy"})", R"("xz")"));
    const std::string len = R"({"type": "string", "minLength": 2, "maxLength": 3})";
    EXPECT_TRUE(schema_accepts(len, R"("ab")"));
    EXPECT_TRUE(schema_accepts(len, R"("a\nc")"));  // an escape is one character
    EXPECT_FALSE(schema_accepts(len, R"("a")"));
    EXPECT_FALSE(schema_accepts(len, R"("abcd")"));
    const std::string pat = R"({"type": "string", "pattern": "^[a-z]+-\\d{2}(x|yz)?$"})";
    EXPECT_TRUE(schema_accepts(pat, R"("ab-12")"));
    EXPECT_TRUE(schema_accepts(pat, R"("q-99yz")"));
    EXPECT_FALSE(schema_accepts(pat, R"("ab-1")"));
    EXPECT_FALSE(schema_accepts(pat, R"("AB-12")"));
    EXPECT_FALSE(schema_accepts(pat, R"("ab-12y")"));
    // a quantifier repeats a whole code point; class ranges are code points
    const std::string uni = R"({"type": "string", "pattern": "^é+[α-ω]?$"})";
    EXPECT_TRUE(schema_accepts(uni, R"("éé")"));
    EXPECT_TRUE(schema_accepts(uni, R"("éα")"));
    EXPECT_FALSE(schema_accepts(uni, R"("éΩ")"));
    EXPECT_FALSE(schema_accepts(uni, R"("e")"));
    // a range across '"' never lets a raw quote end the string early
    const std::string ascii = R"({"type": "string", "pattern": "^[ -~]+$"})";
    EXPECT_TRUE(schema_accepts(ascii, R"("a b")"));
    EXPECT_FALSE(schema_accepts(ascii, R"("a"b")"));
    EXPECT_FALSE(schema_accepts(ascii, "\"a\\b\""));
}

TEST(JsonSchemaGrammar, ScalarsAndUnions) {
    EXPECT_TRUE(schema_accepts(R"({"type": "number"})", "-1.25e+3"));
    EXPECT_TRUE(schema_accepts(R"({"type": "number"})", "0"));
    EXPECT_FALSE(schema_accepts(R"({"type": "number"})", "01"));
    EXPECT_FALSE(schema_accepts(R"({"type": "integer"})", "1.0"));
    EXPECT_TRUE(schema_accepts(R"({"type": "boolean"})", "false"));
    EXPECT_FALSE(schema_accepts(R"({"type": "boolean"})", "1"));
    EXPECT_TRUE(schema_accepts(R"({"type": "null"})", "null"));
    const std::string u = R"({"anyOf": [{"type": "string"}, {"type": "null"}]})";
    EXPECT_TRUE(schema_accepts(u, R"("x")"));
    EXPECT_TRUE(schema_accepts(u, "null"));
    EXPECT_FALSE(schema_accepts(u, "1"));
    const std::string o = R"({"oneOf": [{"type": "integer"}, {"type": "array", "items": {"type": "boolean"}}]})";
    EXPECT_TRUE(schema_accepts(o, "[true, false]"));
    EXPECT_FALSE(schema_accepts(o, "[1]"));
    EXPECT_TRUE(schema_accepts(R"({"type": ["integer", "string"]})", R"("s")"));
    EXPECT_FALSE(schema_accepts(R"({"type": ["integer", "string"]})", "true"));
}

TEST(JsonSchemaGrammar, RecursiveRefs) {
    const std::string s = R"({"$ref": "#/$defs/node", "$defs": {"node": {"type": "object",
        "properties": {"v": {"type": "integer"}, "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
        "required": ["v"]}}})";
    EXPECT_TRUE(schema_accepts(s, R"({"v": 1, "kids": [{"v": 2}, {"v": 3, "kids": [{"v": 4}]}]})"));
    EXPECT_FALSE(schema_accepts(s, R"({"v": 1, "kids": [{"w": 2}]})"));
    EXPECT_TRUE(schema_accepts(R"({"definitions": {"b": {"type": "boolean"}}, "type": "array",
        "items": {"$ref": "#/definitions/b"}})",
                               "[true]"));
}

TEST(JsonSchemaGrammar, JsonObject) {
    EXPECT_TRUE(accepts(json_object_grammar(), R"({"a": [1, {"b": null}], "c": "d"})"));
    EXPECT_FALSE(accepts(json_object_grammar(), "[1]"));
    EXPECT_FALSE(accepts(json_object_grammar(), R"({"a": })"));
}

TEST(JsonSchemaGrammar, RefusedWithAMessage) {
    std::vector<std::pair<std::string, std::string>> cases = {
        {"{", "not valid JSON"},
        {"[1]", "must be an object"},
        {R"({"not": {}})", "'not' is not supported"},
        {R"({"type": "string", "pattern": "^(?=a)$"})", "lookaround"},
        {R"({"type": "string", "pattern": "^a\\bc$"})", "not supported"},
        {R"({"$ref": "http://example.com/s.json"})", "only '#'"},
        {R"({"$ref": "#/$defs/missing"})", "not defined"},
        {R"({"type": "string", "minLength": 3, "maxLength": 2})", "below"},
        {R"({"type": "object", "properties": {}, "required": ["a"]})", "'a' is not in"},
        {R"({"type": "thing"})", "unknown type"},
        {R"({"properties": {"a": {"type": "array", "maxItems": 5000}}})", "/properties/a"},
        {"false", "accepts nothing"},
    };
    // a long chain of definitions is bounded like nesting (the converter recurses through it)
    std::string chain = R"({"$ref": "#/$defs/d0", "$defs": {)";
    for (int i = 0; i < 100; i++) {
        chain += "\"d" + std::to_string(i) + "\": {\"$ref\": \"#/$defs/d" + std::to_string(i + 1) + "\"}, ";
    }
    chain += R"("d100": {"type": "null"}}})";
    cases.push_back({chain, "nested too deep"});
    for (const auto & [schema, msg] : cases) {
        try {
            json_schema_to_grammar(schema);
            ADD_FAILURE() << "accepted: " << schema;
        } catch (const schema_error & e) {
            EXPECT_NE(std::string(e.what()).find(msg), std::string::npos) << schema << " -> " << e.what();
        }
    }
}

#else

TEST(JsonSchemaGrammar, NeedsNlohmannJson) {
    GTEST_SKIP() << "built without nlohmann/json: the converter is not part of this build";
}

#endif
