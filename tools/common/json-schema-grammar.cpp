// JSON schema -> GBNF. Each schema node becomes one GBNF expression; named rules are made for
// $defs (so recursive schemas work), for the optional-property chains of objects, and for the
// shared primitives. Values carry no surrounding whitespace; objects and arrays allow `ws` around
// their punctuation. Every keyword is either enforced exactly (the grammar may be narrower than the
// schema, never wider) or refused with a schema_error naming it.
#include "json-schema-grammar.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <vector>

#include "json-schema-impl.h"

namespace llama_tools {

namespace schema_detail {

void fail(const std::string & where, const std::string & why) {
    throw schema_error("schema at " + where + ": " + why);
}

}  // namespace schema_detail

using namespace schema_detail;

namespace {

// Bounded like upstream's converter: a model cannot loop forever on whitespace or digits. A \u
// escape never names a UTF-16 surrogate, so each `char` is one code point (minLength/maxLength).
const char * const k_primitives = R"(ws ::= | " " | "\n" [ \t]{0,20}
char ::= [^"\\\x00-\x1F\x7F] | "\\" (["\\/bfnrt] | "u" ([0-9a-cA-CefEF] [0-9a-fA-F]{3} | [dD] [0-7] [0-9a-fA-F]{2}))
string ::= "\"" char* "\""
integer ::= "-"? ([0-9] | [1-9] [0-9]{0,15})
number ::= integer ("." [0-9]{1,16})? ([eE] [-+]? [0-9]{1,3})?
boolean ::= "true" | "false"
null ::= "null"
value ::= object | array | string | number | boolean | null
object ::= "{" ws (string ws ":" ws value ws ("," ws string ws ":" ws value ws)*)? "}"
array ::= "[" ws (value ws ("," ws value ws)*)? "]"
)";

// Keywords by the instance type they constrain; any other keyword outside k_annotations is refused.
const std::set<std::string> k_number_kw   = {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"};
const std::set<std::string> k_string_kw   = {"minLength", "maxLength", "pattern", "format"};
const std::set<std::string> k_array_kw    = {"items",    "prefixItems", "additionalItems",
                                             "minItems", "maxItems",    "uniqueItems"};
const std::set<std::string> k_object_kw   = {"properties", "required", "additionalProperties", "minProperties",
                                             "maxProperties"};
const std::set<std::string> k_general_kw  = {"type", "enum", "const", "$ref", "anyOf", "oneOf", "allOf"};
const std::set<std::string> k_annotations = {
    "title",         "description", "examples",         "default",         "$schema",
    "$id",           "$comment",    "deprecated",       "readOnly",        "writeOnly",
    "$defs",         "definitions", "contentMediaType", "contentEncoding", "$anchor",
    "discriminator", "strict"};

bool is_annotation(const std::string & k) {
    return k_annotations.count(k) > 0;
}

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

std::string alternatives(const std::vector<std::string> & alts) {
    std::string out;
    for (const auto & a : alts) {
        out += (out.empty() ? "" : " | ") + a;
    }
    return "(" + out + ")";
}

bool matches_type(const json & v, const std::string & t) {
    return (t == "null" && v.is_null()) || (t == "boolean" && v.is_boolean()) || (t == "string" && v.is_string()) ||
           (t == "array" && v.is_array()) || (t == "object" && v.is_object()) || (t == "number" && v.is_number()) ||
           (t == "integer" &&
            (v.is_number_integer() || (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>())));
}

// Bounds are kept within +-10^18 so that every step of the range arithmetic fits an int64.
const double k_bound_limit = 1e18;

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

    const json & resolve(const json & r, const std::string & where) const {
        if (!r.is_string()) {
            fail(where, "'$ref' must be a string");
        }
        const std::string target = r.get<std::string>();
        for (const char * prefix : {"#/$defs/", "#/definitions/"}) {
            if (target.rfind(prefix, 0) == 0) {
                const std::string key = target.substr(std::string(prefix).size());
                const std::string section(prefix + 2, std::string(prefix).size() - 3);
                auto              sec = root_.find(section);
                if (sec == root_.end() || !sec->is_object() || !sec->contains(key)) {
                    fail(where, "'$ref' " + target + " is not defined");
                }
                return (*sec)[key];
            }
        }
        if (target == "#") {
            return root_;
        }
        fail(where, "'$ref' " + target + ": only '#', '#/$defs/NAME' and '#/definitions/NAME' are supported");
    }

    ref_resolver resolver() const {
        return [this](const json & r, const std::string & where) -> const json & { return resolve(r, where); };
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
        std::vector<std::string> constraints;  // the keywords that constrain (not annotations)
        for (const auto & [k, v] : s.items()) {
            if (is_annotation(k)) {
                continue;
            }
            if (!k_general_kw.count(k) && !k_number_kw.count(k) && !k_string_kw.count(k) && !k_array_kw.count(k) &&
                !k_object_kw.count(k)) {
                fail(where, "'" + k + "' is not supported");
            }
            constraints.push_back(k);
        }
        if (s.contains("allOf")) {
            const json merged = merge_all_of(s, where, resolver());
            return visit(merged, where, depth + 1);
        }
        if (auto it = s.find("$ref"); it != s.end()) {
            for (const auto & k : constraints) {
                if (k != "$ref") {
                    fail(where, "'$ref' with the sibling keyword '" + k + "' is not supported");
                }
            }
            return ref(*it, where, depth);
        }
        for (const char * k : {"anyOf", "oneOf"}) {
            if (auto it = s.find(k); it != s.end()) {
                return any_of(s, k, *it, where, depth);
            }
        }
        if (s.contains("const") || s.contains("enum")) {
            return enumerated(s, constraints, where);
        }
        auto t = s.find("type");
        if (t == s.end()) {
            // no type: JSON Schema lets every other type through; the grammar keeps to the types the
            // keywords speak of (narrower, still valid), or any value when there are none
            std::vector<std::string> inferred;
            for (const auto & [type, kws] :
                 std::vector<std::pair<std::string, const std::set<std::string> *>>{{"object", &k_object_kw},
                                                                                    {"array", &k_array_kw},
                                                                                    {"string", &k_string_kw},
                                                                                    {"number", &k_number_kw}}) {
                for (const auto & k : constraints) {
                    if (kws->count(k)) {
                        inferred.push_back(typed(type, s, where, depth));
                        break;
                    }
                }
            }
            return inferred.empty() ? "value" : alternatives(inferred);
        }
        if (t->is_array()) {
            if (t->empty()) {
                fail(where, "'type' must not be an empty array");
            }
            std::vector<std::string> out;
            for (const auto & one : *t) {
                if (!one.is_string()) {
                    fail(where, "'type' must be a string or an array of strings");
                }
                out.push_back(typed(one.get<std::string>(), s, where, depth));
            }
            return alternatives(out);
        }
        if (!t->is_string()) {
            fail(where, "'type' must be a string or an array of strings");
        }
        return typed(t->get<std::string>(), s, where, depth);
    }

    // anyOf / oneOf: sibling keywords are distributed into each branch (A or B, and S == A and S,
    // or B and S); oneOf only where no value can match two branches.
    std::string any_of(const json & s, const char * k, const json & branches, const std::string & where, int depth) {
        if (!branches.is_array() || branches.empty()) {
            fail(where, std::string("'") + k + "' must be a non-empty array");
        }
        if (s.contains("anyOf") && s.contains("oneOf")) {
            fail(where, "'anyOf' together with 'oneOf' is not supported");
        }
        json siblings = json::object();
        for (const auto & [key, v] : s.items()) {
            if (key != k && !is_annotation(key)) {
                siblings[key] = v;
            }
        }
        if (std::string(k) == "oneOf" && !pairwise_disjoint(branches, resolver())) {
            fail(where,
                 "'oneOf' whose branches may overlap is not supported (use 'anyOf', or give the branches "
                 "different types or a required property with different 'const' values)");
        }
        std::vector<std::string> out;
        for (size_t i = 0; i < branches.size(); i++) {
            const std::string at = where + "/" + k + "/" + std::to_string(i);
            if (siblings.empty()) {
                out.push_back(visit(branches[i], at, depth + 1));
            } else {
                json both     = siblings;
                both["allOf"] = json::array({branches[i]});
                out.push_back(visit(both, at, depth + 1));
            }
        }
        return alternatives(out);
    }

    // const / enum: the listed values (compact JSON) that also have the schema's type; other
    // constraints beside them are refused rather than checked value by value.
    std::string enumerated(const json & s, const std::vector<std::string> & constraints, const std::string & where) {
        for (const auto & k : constraints) {
            if (k != "const" && k != "enum" && k != "type") {
                fail(where, "'" + k + "' together with 'enum'/'const' is not supported");
            }
        }
        json values = json::array();
        if (auto c = s.find("const"); c != s.end()) {
            values.push_back(*c);
        }
        if (auto e = s.find("enum"); e != s.end()) {
            if (!e->is_array() || e->empty()) {
                fail(where, "'enum' must be a non-empty array");
            }
            json kept = json::array();
            for (const auto & v : *e) {
                if (!s.contains("const") || v == s["const"]) {
                    kept.push_back(v);
                }
            }
            values = kept;
        }
        std::vector<std::string> out;
        for (const auto & v : values) {
            bool ok = true;
            if (auto t = s.find("type"); t != s.end()) {
                ok = false;
                for (const auto & one : t->is_array() ? *t : json::array({*t})) {
                    ok = ok || (one.is_string() && matches_type(v, one.get<std::string>()));
                }
            }
            if (ok) {
                out.push_back(literal(v.dump()));
            }
        }
        if (out.empty()) {
            fail(where, "'enum'/'const' has no value that fits the schema's 'type'");
        }
        return alternatives(out);
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
        if (type == "integer" || type == "number") {
            return numeric(type == "integer", s, where);
        }
        if (type == "boolean" || type == "null") {
            return type;
        }
        fail(where, "unknown type '" + type + "'");
    }

    // A bound as an integer: `up` rounds a non-integral bound up (a lower bound of an integer).
    static int64_t bound(const json & v, const char * key, bool integral_only, bool up, const std::string & where) {
        if (!v.is_number()) {
            fail(where, std::string("'") + key + "' must be a number");
        }
        const double d = v.get<double>();
        if (!(std::fabs(d) <= k_bound_limit)) {
            fail(where, std::string("'") + key + "' beyond 1e18 is not supported");
        }
        if (v.is_number_integer()) {
            return v.get<int64_t>();
        }
        if (integral_only && std::floor(d) != d) {
            fail(where, std::string("'") + key + "' with a fraction on a 'number' is not supported");
        }
        return (int64_t) (up ? std::ceil(d) : std::floor(d));
    }

    std::string numeric(bool integer, const json & s, const std::string & where) {
        std::optional<int64_t> lo, hi;
        bool                   lo_excl = false, hi_excl = false;
        auto                   get = [&](const char * key, bool lower, bool excl) {
            auto it = s.find(key);
            if (it == s.end()) {
                return;
            }
            if (excl && it->is_boolean()) {
                fail(where, std::string("'") + key + "' must be a number (draft-4 booleans are not supported)");
            }
            int64_t v = bound(*it, key, !integer, lower, where);
            if (integer) {
                // on integers an exclusive bound is the next integer inside, and a fractional
                // bound rounds inwards
                const bool frac = !it->is_number_integer() && std::floor(it->get<double>()) != it->get<double>();
                if (excl && !frac) {
                    v += lower ? 1 : -1;
                }
                auto & b = lower ? lo : hi;
                b        = !b ? v : lower ? std::max(*b, v) : std::min(*b, v);
                return;
            }
            auto & b = lower ? lo : hi;
            auto & x = lower ? lo_excl : hi_excl;
            if (!b || (lower ? v > *b : v < *b) || (v == *b && excl)) {
                b = v;
                x = excl;
            }
        };
        get("minimum", true, false);
        get("exclusiveMinimum", true, true);
        get("maximum", false, false);
        get("exclusiveMaximum", false, true);
        if (!lo && !hi) {
            return integer ? "integer" : "number";
        }
        if (integer) {
            if (lo && hi && *lo > *hi) {
                fail(where, "'minimum'/'maximum' leave no integer");
            }
            return schema_detail::integer_range(lo, hi);
        }
        const std::string out = number_range(lo, lo_excl, hi, hi_excl);
        if (out.empty()) {
            fail(where, "'minimum'/'maximum' leave no number");
        }
        return out;
    }

    std::string string(const json & s, const std::string & where) {
        const bool   has_len = s.contains("minLength") || s.contains("maxLength");
        const size_t lo      = get_count(s, "minLength", 0, where);
        const size_t hi      = get_count(s, "maxLength", SIZE_MAX, where);
        if (hi < lo) {
            fail(where, "'maxLength' is below 'minLength'");
        }
        if (auto it = s.find("format"); it != s.end()) {
            if (!it->is_string()) {
                fail(where, "'format' must be a string");
            }
            const std::string body = format_body(it->get<std::string>());
            if (body.empty()) {
                fail(where, "'format' \"" + it->get<std::string>() +
                                "\" is not supported (supported: date, time, date-time, uuid)");
            }
            if (has_len || s.contains("pattern")) {
                fail(where, "'format' together with 'pattern'/'minLength'/'maxLength' is not supported");
            }
            return "(\"\\\"\" " + body + " \"\\\"\")";
        }
        if (auto it = s.find("pattern"); it != s.end()) {
            if (!it->is_string()) {
                fail(where, "'pattern' must be a string");
            }
            if (has_len) {
                fail(where, "'pattern' together with 'minLength'/'maxLength' is not supported");
            }
            return "(\"\\\"\" " + regex_to_gbnf(it->get<std::string>()) + " \"\\\"\")";
        }
        if (lo == 0 && hi == SIZE_MAX) {
            return "string";
        }
        return "(\"\\\"\" " + repeat("char", lo, hi) + " \"\\\"\")";
    }

    // Elements: prefixItems (or a draft-07 "items" array) by position, then "items" (or
    // "additionalItems"), counted by minItems/maxItems.
    std::string array(const json & s, const std::string & where, int depth) {
        std::vector<std::string> prefix;
        std::string              item     = "value";  // "" once no further element is allowed
        const json *             rest     = nullptr;
        const char *             rest_key = "items";
        auto                     items    = s.find("items");
        auto                     pi       = s.find("prefixItems");
        if (pi != s.end() || (items != s.end() && items->is_array())) {
            const bool   draft7 = pi == s.end();
            const json & tuple  = draft7 ? *items : *pi;
            if (!tuple.is_array()) {
                fail(where, "'prefixItems' must be an array");
            }
            if (!draft7 && s.contains("additionalItems")) {
                fail(where, "'additionalItems' beside 'prefixItems' is not supported (use 'items')");
            }
            for (size_t i = 0; i < tuple.size(); i++) {
                prefix.push_back(
                    visit(tuple[i], where + (draft7 ? "/items/" : "/prefixItems/") + std::to_string(i), depth + 1));
            }
            rest_key = draft7 ? "additionalItems" : "items";
            auto r   = s.find(rest_key);
            rest     = r == s.end() ? nullptr : &*r;
        } else {
            if (s.contains("additionalItems")) {
                fail(where, "'additionalItems' without an 'items' array is not supported");
            }
            rest = items == s.end() ? nullptr : &*items;
        }
        if (rest != nullptr) {
            if (rest->is_boolean() && !rest->get<bool>()) {
                item = "";
            } else {
                item = visit(*rest, where + "/" + rest_key, depth + 1);
            }
        }
        const size_t lo = get_count(s, "minItems", 0, where);
        size_t       hi = get_count(s, "maxItems", SIZE_MAX, where);
        if (item.empty()) {
            hi = std::min(hi, prefix.size());
        }
        if (hi < lo) {
            fail(where, "'maxItems' is below 'minItems' (or above the items allowed)");
        }
        if (auto u = s.find("uniqueItems"); u != s.end()) {
            if (!u->is_boolean()) {
                fail(where, "'uniqueItems' must be a boolean");
            }
            if (u->get<bool>() && hi > 1) {
                fail(where, "'uniqueItems' is not supported (beyond arrays of at most one element)");
            }
        }
        if (hi == 0) {
            return "(\"[\" ws \"]\")";
        }
        // elements from index i on, after a first one: built from the back of the prefix
        auto         element = [&](size_t i) { return i < prefix.size() ? prefix[i] : item; };
        const size_t n       = std::min(prefix.size(), hi);
        std::string  tail;
        if (hi > n) {
            const size_t need = lo > n ? lo - n : 0;
            tail              = repeat("(\",\" ws " + item + " ws)", need, hi == SIZE_MAX ? SIZE_MAX : hi - n);
            if (n == 0) {
                // no prefix: the first element is an `item` too
                tail = repeat("(\",\" ws " + item + " ws)", lo > 0 ? lo - 1 : 0, hi == SIZE_MAX ? SIZE_MAX : hi - 1);
            }
        }
        for (size_t i = n; i-- > 1;) {
            std::string t = "\",\" ws " + element(i) + " ws" + (tail.empty() ? "" : " " + tail);
            tail          = i >= lo ? "(" + t + ")?" : "(" + t + ")";
        }
        const std::string first = element(0) + " ws" + (tail.empty() ? "" : " " + tail);
        return "(\"[\" ws " + (lo > 0 ? first : "(" + first + ")?") + " \"]\")";
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
        const size_t      n_required = required.size();
        std::vector<bool> is_required;
        if (auto it = s.find("properties"); it != s.end()) {
            if (!it->is_object()) {
                fail(where, "'properties' must be an object");
            }
            for (const auto & [key, sub] : it->items()) {
                if (sub.is_boolean() && !sub.get<bool>()) {
                    // a property that must be absent: left out (additional members never take its name)
                    if (required.count(key)) {
                        fail(where + "/properties/" + key, "a required property whose schema is 'false'");
                    }
                    continue;
                }
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
        // member counts the grammar already guarantees are accepted; others are refused
        const size_t min_p = get_count(s, "minProperties", 0, where);
        const size_t max_p = get_count(s, "maxProperties", SIZE_MAX, where);
        if (min_p > n_required) {
            fail(where, "'minProperties' above the number of required properties is not supported");
        }
        if (max_p != SIZE_MAX && (!extra.empty() || max_p < props.size())) {
            fail(where, "'maxProperties' below the number of possible properties is not supported");
        }
        std::vector<std::string> keys;
        if (auto it = s.find("properties"); it != s.end()) {
            for (const auto & [key, sub] : it->items()) {
                keys.push_back(key);
            }
        }
        const std::string extra_kv = extra.empty() ? "" : other_key(keys) + " ws \":\" ws " + extra + " ws";

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

    // A member name that is none of `keys`, so that an additional member cannot repeat a listed
    // property with a value its schema refuses. Names are written without escapes (an escape could
    // spell a listed name another way); each node of the keys' trie is a rule: end here (unless a
    // key ends here), leave the trie with a character no key continues with, or follow a key.
    std::string other_key(const std::vector<std::string> & keys) {
        if (keys.empty()) {
            return "string";
        }
        const std::string                               plain = "[^\"\\\\\\x00-\\x1F\\x7F]";
        const std::string                               id    = std::to_string(n_rules_++);
        int                                             n     = 0;
        std::function<std::string(const std::string &)> node  = [&](const std::string & prefix) -> std::string {
            std::set<std::string> next;  // the code points (UTF-8) keys continue with
            bool                  ends = false;
            for (const auto & k : keys) {
                if (k.size() < prefix.size() || k.compare(0, prefix.size(), prefix) != 0) {
                    continue;
                }
                if (k.size() == prefix.size()) {
                    ends = true;
                    continue;
                }
                size_t len = 1;
                while (prefix.size() + len < k.size() && ((unsigned char) k[prefix.size() + len] & 0xC0) == 0x80) {
                    len++;
                }
                next.insert(k.substr(prefix.size(), len));
            }
            const std::string        name = "key-" + id + "-" + std::to_string(n++);
            std::vector<std::string> alts;
            if (!ends) {
                alts.push_back("\"\"");
            }
            std::string excluded;
            for (const auto & cp : next) {
                if ((unsigned char) cp[0] < 0x20 || cp == "\"" || cp == "\\") {
                    continue;  // written escaped in JSON: never produced here, so never equal
                }
                excluded += (cp == "]" || cp == "-" || cp == "^" ? "\\" : "") + cp;
                alts.push_back(literal(cp) + " " + node(prefix + cp));
            }
            alts.push_back("[^" + excluded + "\"\\\\\\x00-\\x1F\\x7F] " + plain + "*");
            rules_[name] = alternatives(alts);
            return name;
        };
        return "(\"\\\"\" " + node("") + " \"\\\"\")";
    }

    std::string ref(const json & r, const std::string & where, int depth) {
        const json &      target_schema = resolve(r, where);
        const std::string target        = r.get<std::string>();
        if (auto it = ref_rule_.find(target); it != ref_rule_.end()) {
            return it->second;
        }
        const std::string name =
            "ref-" + rule_name(target.substr(target.rfind('/') + 1)) + "-" + std::to_string(n_rules_++);
        ref_rule_[target] = name;  // before visiting: recursive definitions refer back
        rules_[name]      = visit(target_schema, target, depth + 1);
        return name;
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

namespace {

// One pass of widening over a schema and its subschemas (see json_schema_to_grammar_widened);
// `drop_all_of`: also read allOf as no constraint (the last resort).
void widen(json & s, bool drop_all_of) {
    if (!s.is_object()) {
        return;
    }
    auto                     erase = [&s](const char * k) { s.erase(k); };
    std::vector<std::string> unknown;
    for (const auto & [k, v] : s.items()) {
        if (!is_annotation(k) && !k_general_kw.count(k) && !k_number_kw.count(k) && !k_string_kw.count(k) &&
            !k_array_kw.count(k) && !k_object_kw.count(k)) {
            unknown.push_back(k);
        }
    }
    for (const auto & k : unknown) {
        s.erase(k);
    }
    const bool has_len = s.contains("minLength") || s.contains("maxLength");
    if (s.contains("format") && (!s["format"].is_string() || format_body(s["format"].get<std::string>()).empty() ||
                                 has_len || s.contains("pattern"))) {
        erase("format");
    }
    if (s.contains("pattern")) {
        bool ok = s["pattern"].is_string();
        try {
            ok = ok && !regex_to_gbnf(s["pattern"].get<std::string>()).empty();
        } catch (const schema_error &) {
            ok = false;
        }
        if (!ok) {
            erase("pattern");
        } else {
            erase("minLength");
            erase("maxLength");
        }
    }
    struct bound_kw {
        const char * key;
        bool         lower, excl;
    };
    for (const bound_kw & b : {bound_kw{"minimum", true, false}, bound_kw{"maximum", false, false},
                               bound_kw{"exclusiveMinimum", true, true}, bound_kw{"exclusiveMaximum", false, true}}) {
        if (!s.contains(b.key)) {
            continue;
        }
        const json & v = s[b.key];
        if (!v.is_number() || !(std::fabs(v.get<double>()) <= k_bound_limit)) {
            erase(b.key);
        } else if (!v.is_number_integer()) {
            // rounded outwards, as an inclusive bound: never narrower than the schema
            const double d = v.get<double>();
            const auto   r = (int64_t) (b.lower ? std::floor(d) : std::ceil(d));
            erase(b.key);
            const char * inclusive = b.lower ? "minimum" : "maximum";
            if (b.excl && s.contains(inclusive)) {
                continue;  // the inclusive bound beside it stays (the tighter of the two, or wider)
            }
            s[inclusive] = r;
        }
    }
    if (s.contains("oneOf")) {
        if (!s.contains("anyOf")) {
            s["anyOf"] = s["oneOf"];
        }
        erase("oneOf");
    }
    for (const char * k : {"uniqueItems", "minProperties", "maxProperties"}) {
        erase(k);
    }
    if (s.contains("prefixItems")) {
        erase("additionalItems");
    }
    if (s.contains("$ref") || s.contains("enum") || s.contains("const")) {
        // the value is pinned (or defined elsewhere): the keywords beside it only narrow it further
        std::vector<std::string> narrowing;
        for (const auto & [k, v] : s.items()) {
            const bool pin = k == "$ref" || k == "enum" || k == "const" || (k == "type" && !s.contains("$ref"));
            if (!pin && !is_annotation(k)) {
                narrowing.push_back(k);
            }
        }
        for (const auto & k : narrowing) {
            s.erase(k);
        }
    }
    if (drop_all_of && s.contains("allOf") && s["allOf"].is_array() && !s["allOf"].empty()) {
        erase("allOf");  // a valid allOf the merge cannot express (a malformed one stays an error)
    }
    for (const char * k : {"items", "additionalProperties", "additionalItems"}) {
        if (s.contains(k)) {
            widen(s[k], drop_all_of);
        }
    }
    for (const char * k : {"properties", "$defs", "definitions"}) {
        if (s.contains(k) && s[k].is_object()) {
            for (auto & [name, sub] : s[k].items()) {
                widen(sub, drop_all_of);
            }
        }
    }
    for (const char * k : {"anyOf", "allOf", "prefixItems", "items"}) {
        if (s.contains(k) && s[k].is_array()) {
            for (auto & sub : s[k]) {
                widen(sub, drop_all_of);
            }
        }
    }
}

}  // namespace

std::string json_schema_to_grammar_widened(const std::string & schema_json) {
    try {
        return json_schema_to_grammar(schema_json);
    } catch (const schema_error &) {
    }
    json schema;
    try {
        schema = json::parse(schema_json);
    } catch (const json::exception & e) {
        throw schema_error(std::string("the schema is not valid JSON: ") + e.what());
    }
    for (bool drop_all_of : {false, true}) {
        json w = schema;
        widen(w, drop_all_of);
        try {
            return converter(w).run();
        } catch (const json::exception & e) {
            throw schema_error(std::string("invalid schema: ") + e.what());
        } catch (const schema_error &) {
            if (drop_all_of) {
                throw;
            }
        }
    }
    throw schema_error("unreachable");
}

std::string json_object_grammar() {
    return std::string("root ::= object\n") + k_primitives;
}

}  // namespace llama_tools
