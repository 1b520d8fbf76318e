// JSON schema -> GBNF. Each schema node becomes one GBNF expression; named rules are made for
// $defs (so recursive schemas work), for the optional-property chains of objects, and for the
// shared primitives. Values carry no surrounding whitespace; objects and arrays allow `ws` around
// their punctuation.
#include "json-schema-grammar.h"

#include <cstdint>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

namespace llama_tools {

using json = nlohmann::ordered_json;

namespace {

// Bounded like upstream's converter: a model cannot loop forever on whitespace or digits.
const char * const k_primitives = R"(ws ::= | " " | "\n" [ \t]{0,20}
char ::= [^"\\\x00-\x1F\x7F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4})
string ::= "\"" char* "\""
integer ::= "-"? ([0-9] | [1-9] [0-9]{0,15})
number ::= integer ("." [0-9]{1,16})? ([eE] [-+]? [0-9]{1,3})?
boolean ::= "true" | "false"
null ::= "null"
value ::= object | array | string | number | boolean | null
object ::= "{" ws (string ws ":" ws value ws ("," ws string ws ":" ws value ws)*)? "}"
array ::= "[" ws (value ws ("," ws value ws)*)? "]"
)";

// GBNF literal of UTF-8 text.
std::string literal(const std::string & s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += (char) c;
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c < 0x20 || c == 0x7F) {
            char buf[8];
            snprintf(buf, sizeof(buf), "\\x%02X", c);
            out += buf;
        } else {
            out += (char) c;
        }
    }
    return out + "\"";
}

// Rule-name form of any text: letters, digits and '-' only.
std::string rule_name(const std::string & s) {
    std::string out;
    for (char c : s) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        out += ok ? c : '-';
    }
    return out.empty() ? "x" : out;
}

class converter {
public:
    explicit converter(const json & root) : root_(root) {}

    std::string run() {
        const std::string body = visit(root_, "#", 0);
        std::string       out  = "root ::= " + body + "\n" + k_primitives;
        for (const auto & r : rules_) {
            out += r.first + " ::= " + r.second + "\n";
        }
        return out;
    }

private:
    const json &                       root_;
    std::map<std::string, std::string> rules_;     // name -> body, besides root and the primitives
    std::map<std::string, std::string> ref_rule_;  // "$ref" target -> its rule name
    int                                n_rules_ = 0;

    [[noreturn]] static void fail(const std::string & where, const std::string & why) {
        throw schema_error("schema at " + where + ": " + why);
    }

    std::string new_rule(const std::string & hint, const std::string & body) {
        std::string name = rule_name(hint) + "-" + std::to_string(n_rules_++);
        rules_[name]     = body;
        return name;
    }

    static size_t get_count(const json & s, const char * key, size_t dflt, const std::string & where) {
        auto it = s.find(key);
        if (it == s.end()) {
            return dflt;
        }
        if (!it->is_number_integer() || it->get<int64_t>() < 0) {
            fail(where, std::string("'") + key + "' must be a non-negative integer");
        }
        if (it->get<int64_t>() > 2000) {
            fail(where, std::string("'") + key + "' above 2000 is not supported");
        }
        return (size_t) it->get<int64_t>();
    }

    // item{lo,hi} where hi == SIZE_MAX means unbounded.
    static std::string repeat(const std::string & item, size_t lo, size_t hi) {
        if (lo == 0 && hi == SIZE_MAX) {
            return item + "*";
        }
        if (hi == SIZE_MAX) {
            return item + "{" + std::to_string(lo) + ",}";
        }
        return item + "{" + std::to_string(lo) + "," + std::to_string(hi) + "}";
    }

    std::string visit(const json & s, const std::string & where, int depth) {
        if (depth > 64) {
            fail(where, "nested too deep");
        }
        if (s.is_boolean()) {
            if (!s.get<bool>()) {
                fail(where, "the schema 'false' accepts nothing");
            }
            return "value";
        }
        if (!s.is_object()) {
            fail(where, "a schema must be an object or a boolean");
        }
        for (const char * k : {"allOf", "not", "if", "then", "else", "prefixItems", "patternProperties",
                               "dependentRequired", "dependentSchemas", "unevaluatedProperties", "unevaluatedItems",
                               "contains", "propertyNames", "uniqueItems"}) {
            if (s.contains(k)) {
                fail(where, std::string("'") + k + "' is not supported");
            }
        }
        if (auto it = s.find("$ref"); it != s.end()) {
            return ref(*it, where, depth);
        }
        if (auto it = s.find("const"); it != s.end()) {
            return literal(it->dump());
        }
        if (auto it = s.find("enum"); it != s.end()) {
            if (!it->is_array() || it->empty()) {
                fail(where, "'enum' must be a non-empty array");
            }
            std::string out;
            for (const auto & v : *it) {
                out += (out.empty() ? "" : " | ") + literal(v.dump());
            }
            return "(" + out + ")";
        }
        for (const char * k : {"anyOf", "oneOf"}) {
            if (auto it = s.find(k); it != s.end()) {
                if (!it->is_array() || it->empty()) {
                    fail(where, std::string("'") + k + "' must be a non-empty array");
                }
                std::string out;
                for (size_t i = 0; i < it->size(); i++) {
                    out += (out.empty() ? "" : " | ") +
                           visit((*it)[i], where + "/" + k + "/" + std::to_string(i), depth + 1);
                }
                return "(" + out + ")";
            }
        }
        auto t = s.find("type");
        if (t == s.end()) {
            // no type: infer from the keywords present, else any value
            if (s.contains("properties") || s.contains("additionalProperties") || s.contains("required")) {
                return object(s, where, depth);
            }
            if (s.contains("items")) {
                return array(s, where, depth);
            }
            return "value";
        }
        if (t->is_array()) {
            if (t->empty()) {
                fail(where, "'type' must not be an empty array");
            }
            std::string out;
            for (const auto & one : *t) {
                if (!one.is_string()) {
                    fail(where, "'type' must be a string or an array of strings");
                }
                out += (out.empty() ? "" : " | ") + typed(one.get<std::string>(), s, where, depth);
            }
            return "(" + out + ")";
        }
        if (!t->is_string()) {
            fail(where, "'type' must be a string or an array of strings");
        }
        return typed(t->get<std::string>(), s, where, depth);
    }

    std::string typed(const std::string & type, const json & s, const std::string & where, int depth) {
        if (type == "object") {
            return object(s, where, depth);
        }
        if (type == "array") {
            return array(s, where, depth);
        }
        if (type == "string") {
            return string(s, where);
        }
        if (type == "integer" || type == "number" || type == "boolean" || type == "null") {
            return type;
        }
        fail(where, "unknown type '" + type + "'");
    }

    std::string string(const json & s, const std::string & where) {
        if (auto it = s.find("pattern"); it != s.end()) {
            if (!it->is_string()) {
                fail(where, "'pattern' must be a string");
            }
            if (s.contains("minLength") || s.contains("maxLength")) {
                fail(where, "'pattern' together with 'minLength'/'maxLength' is not supported");
            }
            return "(\"\\\"\" " + regex_to_gbnf(it->get<std::string>()) + " \"\\\"\")";
        }
        const size_t lo = get_count(s, "minLength", 0, where);
        const size_t hi = get_count(s, "maxLength", SIZE_MAX, where);
        if (hi < lo) {
            fail(where, "'maxLength' is below 'minLength'");
        }
        if (lo == 0 && hi == SIZE_MAX) {
            return "string";
        }
        return "(\"\\\"\" " + repeat("char", lo, hi) + " \"\\\"\")";
    }

    std::string array(const json & s, const std::string & where, int depth) {
        std::string item = "value";
        if (auto it = s.find("items"); it != s.end()) {
            item = visit(*it, where + "/items", depth + 1);
        }
        const size_t lo = get_count(s, "minItems", 0, where);
        const size_t hi = get_count(s, "maxItems", SIZE_MAX, where);
        if (hi < lo) {
            fail(where, "'maxItems' is below 'minItems'");
        }
        if (hi == 0) {
            return "(\"[\" ws \"]\")";
        }
        const std::string rest =
            repeat("(\",\" ws " + item + " ws)", lo > 0 ? lo - 1 : 0, hi == SIZE_MAX ? SIZE_MAX : hi - 1);
        const std::string items = item + " ws " + rest;
        return "(\"[\" ws " + (lo > 0 ? items : "(" + items + ")?") + " \"]\")";
    }

    // Properties in the order the schema lists them; required ones always, optional ones may be
    // left out. chain(i, first) is the rest from property i on; `first` says no member came yet
    // (so no comma before the next). Each chain is its own rule, so the grammar stays linear.
    std::string object(const json & s, const std::string & where, int depth) {
        std::vector<std::pair<std::string, std::string>> props;  // key literal, value expression
        std::set<std::string>                            required;
        if (auto it = s.find("required"); it != s.end()) {
            if (!it->is_array()) {
                fail(where, "'required' must be an array of strings");
            }
            for (const auto & r : *it) {
                if (!r.is_string()) {
                    fail(where, "'required' must be an array of strings");
                }
                required.insert(r.get<std::string>());
            }
        }
        std::vector<bool> is_required;
        if (auto it = s.find("properties"); it != s.end()) {
            if (!it->is_object()) {
                fail(where, "'properties' must be an object");
            }
            for (const auto & [key, sub] : it->items()) {
                props.push_back({literal(json(key).dump()), visit(sub, where + "/properties/" + key, depth + 1)});
                is_required.push_back(required.erase(key) > 0);
            }
        }
        if (!required.empty()) {
            fail(where, "required property '" + *required.begin() + "' is not in 'properties'");
        }
        // additional members: absent means none when properties are listed (as upstream's
        // converter), any value when the object lists none
        std::string extra;
        auto        ap = s.find("additionalProperties");
        if (ap == s.end()) {
            extra = props.empty() ? "value" : "";
        } else if (ap->is_boolean()) {
            extra = ap->get<bool>() ? "value" : "";
        } else {
            extra = visit(*ap, where + "/additionalProperties", depth + 1);
        }
        const std::string extra_kv = extra.empty() ? "" : "string ws \":\" ws " + extra + " ws";

        const std::string base = "obj" + std::to_string(n_rules_++);
        // chain rules from the last property back; names are base-i-f (first) / base-i-n (not first)
        std::string next_first, next_not;
        if (extra_kv.empty()) {
            next_first = next_not = "\"\"";
        } else {
            next_first = "(" + extra_kv + " (\",\" ws " + extra_kv + ")*)?";
            next_not   = "(\",\" ws " + extra_kv + ")*";
        }
        for (size_t i = props.size(); i-- > 0;) {
            const std::string kv         = props[i].first + " ws \":\" ws " + props[i].second + " ws";
            const std::string with_first = kv + " " + next_not;
            const std::string with_not   = "\",\" ws " + kv + " " + next_not;
            std::string       body_first = with_first, body_not = with_not;
            if (!is_required[i]) {
                body_first = with_first + " | " + next_first;
                body_not   = with_not + " | " + next_not;
            }
            const std::string name_first = base + "-" + std::to_string(i) + "-f";
            const std::string name_not   = base + "-" + std::to_string(i) + "-n";
            rules_[name_first]           = body_first;
            rules_[name_not]             = body_not;
            next_first                   = name_first;
            next_not                     = name_not;
        }
        return "(\"{\" ws " + next_first + " \"}\")";
    }

    std::string ref(const json & r, const std::string & where, int depth) {
        if (!r.is_string()) {
            fail(where, "'$ref' must be a string");
        }
        const std::string target = r.get<std::string>();
        if (auto it = ref_rule_.find(target); it != ref_rule_.end()) {
            return it->second;
        }
        std::string key;
        for (const char * prefix : {"#/$defs/", "#/definitions/"}) {
            if (target.rfind(prefix, 0) == 0) {
                key = target.substr(std::string(prefix).size());
                const std::string section(prefix + 2, std::string(prefix).size() - 3);
                auto              sec = root_.find(section);
                if (sec == root_.end() || !sec->is_object() || !sec->contains(key)) {
                    fail(where, "'$ref' " + target + " is not defined");
                }
                const std::string name = "ref-" + rule_name(key) + "-" + std::to_string(n_rules_++);
                ref_rule_[target]      = name;  // before visiting: recursive definitions refer back
                rules_[name]           = visit((*sec)[key], target, depth + 1);
                return name;
            }
        }
        fail(where, "'$ref' " + target + ": only local '#/$defs/NAME' and '#/definitions/NAME' are supported");
    }
};

}  // namespace

std::string json_schema_to_grammar(const std::string & schema_json) {
    json schema;
    try {
        schema = json::parse(schema_json);
    } catch (const json::exception & e) {
        throw schema_error(std::string("the schema is not valid JSON: ") + e.what());
    }
    try {
        return converter(schema).run();
    } catch (const json::exception & e) {
        throw schema_error(std::string("invalid schema: ") + e.what());  // e.g. invalid UTF-8 in a key
    }
}

std::string json_object_grammar() {
    return std::string("root ::= object\n") + k_primitives;
}

}  // namespace llama_tools
