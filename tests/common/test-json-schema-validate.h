// A small JSON Schema validator written apart from the converter (tools/common/json-schema-*), the
// oracle of test-json-schema-fuzz: it checks the keywords the converter accepts, by their
// definitions in JSON Schema 2020-12 (plus draft-07 "items" arrays and "definitions").
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

namespace testing_util {

using schema_json = nlohmann::ordered_json;

// Parses `text` as JSON into `out`; false when it is not JSON. Of the members of an object that
// repeat a name, the first is kept (`keep_first`) or the last; *dup tells whether any repeated.
inline bool parse_json(const std::string & text, schema_json & out, bool keep_first, bool * dup = nullptr) {
    std::vector<std::vector<std::string>> seen;
    bool                                  repeated = false;
    auto                                  cb = [&](int /*depth*/, schema_json::parse_event_t ev, schema_json & parsed) {
        if (ev == schema_json::parse_event_t::object_start) {
            seen.emplace_back();
        } else if (ev == schema_json::parse_event_t::object_end) {
            seen.pop_back();
        } else if (ev == schema_json::parse_event_t::key) {
            const std::string k = parsed.get<std::string>();
            for (const auto & s : seen.back()) {
                if (s == k) {
                    repeated = true;
                    return !keep_first;  // false drops this member
                }
            }
            seen.back().push_back(k);
        }
        return true;
    };
    out = schema_json::parse(text, cb, false);
    if (dup != nullptr) {
        *dup = repeated;
    }
    return !out.is_discarded();
}

// Parses `text` as JSON; false when it is not JSON or an object repeats a member name (which the
// schema's object keywords could not judge).
inline bool parse_strict(const std::string & text, schema_json & out) {
    bool dup = false;
    return parse_json(text, out, true, &dup) && !dup;
}

class schema_validator {
public:
    explicit schema_validator(const schema_json & root) : root_(root) {}

    bool valid(const schema_json & v) const { return check(v, root_, 0); }

private:
    const schema_json & root_;

    static size_t code_points(const std::string & s) {
        size_t n = 0;
        for (unsigned char c : s) {
            n += (c & 0xC0) != 0x80 ? 1 : 0;
        }
        return n;
    }

    static bool has_type(const schema_json & v, const std::string & t) {
        if (t == "integer") {
            return v.is_number_integer() ||
                   (v.is_number_float() && v.get<double>() == (double) (int64_t) v.get<double>());
        }
        return (t == "null" && v.is_null()) || (t == "boolean" && v.is_boolean()) || (t == "number" && v.is_number()) ||
               (t == "string" && v.is_string()) || (t == "array" && v.is_array()) || (t == "object" && v.is_object());
    }

    static int days_in(int year, int month) {
        static const int d[]  = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
        const bool       leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
        return month == 2 && leap ? 29 : d[month - 1];
    }

    static bool date_ok(const std::string & s) {
        std::smatch m;
        if (!std::regex_match(s, m, std::regex("([0-9]{4})-([0-9]{2})-([0-9]{2})"))) {
            return false;
        }
        const int y = std::stoi(m[1]), mo = std::stoi(m[2]), d = std::stoi(m[3]);
        return mo >= 1 && mo <= 12 && d >= 1 && d <= days_in(y, mo);
    }

    static bool time_ok(const std::string & s) {
        std::smatch m;
        if (!std::regex_match(
                s, m, std::regex("([0-9]{2}):([0-9]{2}):([0-9]{2})(\\.[0-9]+)?([zZ]|[+-]([0-9]{2}):([0-9]{2}))"))) {
            return false;
        }
        const bool offset_ok = !m[6].matched || (std::stoi(m[6]) <= 23 && std::stoi(m[7]) <= 59);
        return std::stoi(m[1]) <= 23 && std::stoi(m[2]) <= 59 && std::stoi(m[3]) <= 60 && offset_ok;
    }

    static bool format_ok(const std::string & s, const std::string & f) {
        if (f == "date") {
            return date_ok(s);
        }
        if (f == "time") {
            return time_ok(s);
        }
        if (f == "date-time") {
            const size_t t = s.find_first_of("Tt");
            return t != std::string::npos && date_ok(s.substr(0, t)) && time_ok(s.substr(t + 1));
        }
        if (f == "uuid") {
            return std::regex_match(s, std::regex("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
                                                  "[0-9a-fA-F]{12}"));
        }
        return false;  // the corpus uses only these
    }

    const schema_json & deref(const std::string & ref) const {
        if (ref == "#") {
            return root_;
        }
        const bool defs = ref.rfind("#/$defs/", 0) == 0;
        return root_.at(defs ? "$defs" : "definitions").at(ref.substr(defs ? 8 : 14));
    }

    bool check(const schema_json & v, const schema_json & s, int depth) const {
        if (depth > 200) {
            return false;
        }
        if (s.is_boolean()) {
            return s.get<bool>();
        }
        if (auto r = s.find("$ref"); r != s.end() && !check(v, deref(r->get<std::string>()), depth + 1)) {
            return false;
        }
        if (auto a = s.find("allOf"); a != s.end()) {
            for (const auto & b : *a) {
                if (!check(v, b, depth + 1)) {
                    return false;
                }
            }
        }
        if (auto a = s.find("anyOf"); a != s.end()) {
            bool any = false;
            for (const auto & b : *a) {
                any = any || check(v, b, depth + 1);
            }
            if (!any) {
                return false;
            }
        }
        if (auto a = s.find("oneOf"); a != s.end()) {
            int n = 0;
            for (const auto & b : *a) {
                n += check(v, b, depth + 1) ? 1 : 0;
            }
            if (n != 1) {
                return false;
            }
        }
        if (auto c = s.find("const"); c != s.end() && *c != v) {
            return false;
        }
        if (auto e = s.find("enum"); e != s.end()) {
            bool in = false;
            for (const auto & x : *e) {
                in = in || x == v;
            }
            if (!in) {
                return false;
            }
        }
        if (auto t = s.find("type"); t != s.end()) {
            bool ok = false;
            for (const auto & x : t->is_array() ? *t : schema_json::array({*t})) {
                ok = ok || has_type(v, x.get<std::string>());
            }
            if (!ok) {
                return false;
            }
        }
        if (v.is_number()) {
            const double d = v.get<double>();
            if ((s.contains("minimum") && d < s["minimum"].get<double>()) ||
                (s.contains("maximum") && d > s["maximum"].get<double>()) ||
                (s.contains("exclusiveMinimum") && d <= s["exclusiveMinimum"].get<double>()) ||
                (s.contains("exclusiveMaximum") && d >= s["exclusiveMaximum"].get<double>())) {
                return false;
            }
        }
        if (v.is_string()) {
            const std::string str = v.get<std::string>();
            const size_t      n   = code_points(str);
            if ((s.contains("minLength") && n < s["minLength"].get<size_t>()) ||
                (s.contains("maxLength") && n > s["maxLength"].get<size_t>())) {
                return false;
            }
            if (s.contains("pattern") && !std::regex_search(str, std::regex(s["pattern"].get<std::string>()))) {
                return false;
            }
            if (s.contains("format") && !format_ok(str, s["format"].get<std::string>())) {
                return false;
            }
        }
        if (v.is_array() && !check_array(v, s, depth)) {
            return false;
        }
        return !v.is_object() || check_object(v, s, depth);
    }

    bool check_array(const schema_json & v, const schema_json & s, int depth) const {
        if ((s.contains("minItems") && v.size() < s["minItems"].get<size_t>()) ||
            (s.contains("maxItems") && v.size() > s["maxItems"].get<size_t>())) {
            return false;
        }
        const schema_json * prefix = nullptr;
        const schema_json * rest   = nullptr;
        if (auto p = s.find("prefixItems"); p != s.end()) {
            prefix = &*p;
            rest   = s.contains("items") ? &s["items"] : nullptr;
        } else if (auto it = s.find("items"); it != s.end()) {
            if (it->is_array()) {
                prefix = &*it;
                rest   = s.contains("additionalItems") ? &s["additionalItems"] : nullptr;
            } else {
                rest = &*it;
            }
        }
        for (size_t i = 0; i < v.size(); i++) {
            const schema_json * sub = prefix && i < prefix->size() ? &(*prefix)[i] : rest;
            if (sub && !check(v[i], *sub, depth + 1)) {
                return false;
            }
        }
        if (s.value("uniqueItems", false)) {
            for (size_t i = 0; i < v.size(); i++) {
                for (size_t j = i + 1; j < v.size(); j++) {
                    if (v[i] == v[j]) {
                        return false;
                    }
                }
            }
        }
        return true;
    }

    bool check_object(const schema_json & v, const schema_json & s, int depth) const {
        if ((s.contains("minProperties") && v.size() < s["minProperties"].get<size_t>()) ||
            (s.contains("maxProperties") && v.size() > s["maxProperties"].get<size_t>())) {
            return false;
        }
        for (const auto & r : s.value("required", schema_json::array())) {
            if (!v.contains(r.get<std::string>())) {
                return false;
            }
        }
        const schema_json props = s.value("properties", schema_json::object());
        for (const auto & [k, x] : v.items()) {
            if (props.contains(k)) {
                if (!check(x, props[k], depth + 1)) {
                    return false;
                }
            } else if (s.contains("additionalProperties") && !check(x, s["additionalProperties"], depth + 1)) {
                return false;
            }
        }
        return true;
    }
};

}  // namespace testing_util
