// "allOf" as one merged schema and the disjointness test that lets "oneOf" be a grammar
// alternative: the two schema combinators a grammar can only express in these special forms.
#include <set>
#include <string>

#include "json-schema-impl.h"

namespace llama_tools::schema_detail {

namespace {

bool is_closed(const json & s) {
    auto ap = s.find("additionalProperties");
    return ap != s.end() && !(ap->is_boolean() && ap->get<bool>());
}

// A branch as its keywords: a lone "$ref" (annotations aside) is replaced by its target, and
// nested "allOf" is flattened, so that a referenced object merges like an inline one.
json expand(const json & b, const std::string & where, const ref_resolver & resolve, int depth) {
    if (depth > 32) {
        fail(where, "'allOf' nested too deep");
    }
    if (b.is_boolean()) {
        if (!b.get<bool>()) {
            fail(where, "the schema 'false' accepts nothing");
        }
        return json::object();
    }
    if (!b.is_object()) {
        fail(where, "a schema must be an object or a boolean");
    }
    json out = b;
    if (auto r = b.find("$ref"); r != b.end()) {
        for (const auto & [k, v] : b.items()) {
            if (k != "$ref" && k != "title" && k != "description" && k != "$comment") {
                fail(where, "'$ref' with the sibling keyword '" + k + "' inside 'allOf' is not supported");
            }
        }
        out = expand(resolve(*r, where), where, resolve, depth + 1);
    }
    if (out.contains("allOf")) {
        out = merge_all_of(out, where, resolve);
    }
    return out;
}

json intersect_types(const json & a, const json & b, const std::string & where) {
    auto as_set = [](const json & t) {
        std::set<std::string> s;
        for (const auto & x : t.is_array() ? t : json::array({t})) {
            s.insert(x.is_string() ? x.get<std::string>() : std::string("?"));
        }
        return s;
    };
    const auto sa = as_set(a), sb = as_set(b);
    json       out = json::array();
    for (const auto & t : sa) {
        if (sb.count(t) || (t == "integer" && sb.count("number"))) {
            out.push_back(t);
        } else if (t == "number" && sb.count("integer")) {
            out.push_back("integer");
        }
    }
    if (out.empty()) {
        fail(where, "'allOf' branches with no 'type' in common accept nothing");
    }
    return out.size() == 1 ? out[0] : out;
}

// The set of JSON types a schema can match, as bits; all bits when not known.
enum : unsigned { T_NULL = 1, T_BOOL = 2, T_INT = 4, T_FRAC = 8, T_STR = 16, T_ARR = 32, T_OBJ = 64, T_ALL = 127 };

unsigned type_bit(const std::string & t) {
    return t == "null"      ? T_NULL
           : t == "boolean" ? T_BOOL
           : t == "integer" ? T_INT
           : t == "number"  ? T_INT | T_FRAC
           : t == "string"  ? T_STR
           : t == "array"   ? T_ARR
           : t == "object"  ? T_OBJ
                            : T_ALL;
}

unsigned value_bit(const json & v) {
    return v.is_null()             ? T_NULL
           : v.is_boolean()        ? T_BOOL
           : v.is_number_integer() ? T_INT
           : v.is_number()         ? (v.get<double>() == (double) (int64_t) v.get<double>() ? T_INT : T_FRAC)
           : v.is_string()         ? T_STR
           : v.is_array()          ? T_ARR
                                   : T_OBJ;
}

unsigned types_of(const json & s) {
    if (!s.is_object()) {
        return T_ALL;
    }
    unsigned bits = T_ALL;
    if (auto t = s.find("type"); t != s.end()) {
        bits = 0;
        for (const auto & x : t->is_array() ? *t : json::array({*t})) {
            bits |= x.is_string() ? type_bit(x.get<std::string>()) : T_ALL;
        }
    }
    if (auto c = s.find("const"); c != s.end()) {
        bits &= value_bit(*c);
    }
    if (auto e = s.find("enum"); e != s.end() && e->is_array()) {
        unsigned eb = 0;
        for (const auto & v : *e) {
            eb |= value_bit(v);
        }
        bits &= eb;
    }
    return bits;
}

// The values a const/enum schema allows (null: not a const/enum schema).
const json * values_of(const json & s, json & tmp) {
    if (!s.is_object()) {
        return nullptr;
    }
    if (auto c = s.find("const"); c != s.end()) {
        tmp = json::array({*c});
        return &tmp;
    }
    if (auto e = s.find("enum"); e != s.end() && e->is_array()) {
        return &*e;
    }
    return nullptr;
}

bool values_disjoint(const json & a, const json & b) {
    for (const auto & x : a) {
        for (const auto & y : b) {
            if (x == y) {
                return false;
            }
        }
    }
    return true;
}

bool required_in(const json & s, const std::string & key) {
    auto r = s.find("required");
    if (r == s.end() || !r->is_array()) {
        return false;
    }
    for (const auto & x : *r) {
        if (x == key) {
            return true;
        }
    }
    return false;
}

bool two_disjoint(const json & a, const json & b) {
    if ((types_of(a) & types_of(b)) == 0) {
        return true;
    }
    json        ta, tb;
    const json *va = values_of(a, ta), *vb = values_of(b, tb);
    if (va && vb) {
        return values_disjoint(*va, *vb);
    }
    // a discriminating property: required by both, const/enum values apart
    auto pa = a.find("properties");
    auto pb = b.find("properties");
    if (pa == a.end() || pb == b.end() || !pa->is_object() || !pb->is_object()) {
        return false;
    }
    for (const auto & [key, sa] : pa->items()) {
        auto sb = pb->find(key);
        if (sb == pb->end() || !required_in(a, key) || !required_in(b, key)) {
            continue;
        }
        json        xa, xb;
        const json *da = values_of(sa, xa), *db = values_of(*sb, xb);
        if (da && db && values_disjoint(*da, *db)) {
            return true;
        }
    }
    return false;
}

}  // namespace

json merge_all_of(const json & s, const std::string & where, const ref_resolver & resolve) {
    const json & all = s["allOf"];
    if (!all.is_array() || all.empty()) {
        fail(where, "'allOf' must be a non-empty array");
    }
    json branches = json::array();
    json self     = s;
    self.erase("allOf");
    branches.push_back(self);
    for (size_t i = 0; i < all.size(); i++) {
        branches.push_back(expand(all[i], where + "/allOf/" + std::to_string(i), resolve, 0));
    }
    int n_with_props = 0;
    for (const auto & b : branches) {
        n_with_props += b.contains("properties") || is_closed(b) ? 1 : 0;
    }
    json out = json::object();
    for (const auto & b : branches) {
        if (is_closed(b) && n_with_props > 1) {
            fail(where, "'additionalProperties' in one 'allOf' branch and properties in another is not supported");
        }
        for (const auto & [k, v] : b.items()) {
            auto have = out.find(k);
            if (have == out.end()) {
                out[k] = v;
            } else if (k == "properties") {
                for (const auto & [pk, pv] : v.items()) {
                    if (have->contains(pk) && (*have)[pk] != pv) {
                        fail(where, "'allOf' branches give property '" + pk + "' two different schemas");
                    }
                    (*have)[pk] = pv;
                }
            } else if (k == "required") {
                for (const auto & r : v) {
                    if (!required_in(out, r.is_string() ? r.get<std::string>() : std::string())) {
                        have->push_back(r);
                    }
                }
            } else if (k == "type") {
                *have = intersect_types(*have, v, where);
            } else if (k == "title" || k == "description" || k == "examples" || k == "default" || k == "$comment" ||
                       k == "$defs" || k == "definitions") {
                continue;  // annotations (and definitions, read through the root) do not conflict
            } else if (*have != v) {
                fail(where, "'allOf' branches both set '" + k + "' (differently), which is not supported");
            }
        }
    }
    return out;
}

bool pairwise_disjoint(const json & branches, const ref_resolver & resolve) {
    std::vector<json> bs;
    for (const auto & b : branches) {
        const json * x = &b;
        for (int i = 0; i < 8 && x->is_object() && x->contains("$ref"); i++) {
            x = &resolve((*x)["$ref"], "#");
        }
        bs.push_back(*x);
    }
    for (size_t i = 0; i < bs.size(); i++) {
        for (size_t j = i + 1; j < bs.size(); j++) {
            if (!two_disjoint(bs[i], bs[j])) {
                return false;
            }
        }
    }
    return true;
}

}  // namespace llama_tools::schema_detail
