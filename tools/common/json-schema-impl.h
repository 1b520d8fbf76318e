// Internals of the JSON schema converter shared between its files (not installed, not for the tools).
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace llama_tools::schema_detail {

// One GBNF expression matching exactly the JSON integers in [lo, hi] (no leading zeros, no "-0";
// an absent bound is open, where magnitudes stop at 16 digits as the plain `integer` rule does).
// Requires lo <= hi when both are given.
std::string integer_range(std::optional<int64_t> lo, std::optional<int64_t> hi);

// The same for JSON numbers, exactly inside the bounds: `lo`/`hi` are integers, `lo_excl`/`hi_excl`
// make them exclusive. Integers are written plainly, fractions as I.F with a non-zero last digit
// (so "3.0" never stands for the bound 3); no exponents. Returns "" when nothing fits.
std::string number_range(std::optional<int64_t> lo, bool lo_excl, std::optional<int64_t> hi, bool hi_excl);

// GBNF for the characters (inside the quotes) of a string of the given "format", or "" when the
// format is not one the converter can enforce exactly (date, time, date-time, uuid).
std::string format_body(const std::string & format);

using json = nlohmann::ordered_json;

// Throws schema_error("schema at WHERE: WHY").
[[noreturn]] void fail(const std::string & where, const std::string & why);

// The schema a local "$ref" names, or a schema_error.
using ref_resolver = std::function<const json &(const json & ref, const std::string & where)>;

// One schema equal to the conjunction of `s`'s "allOf" branches and its other keywords: properties
// and required are united, other keywords must not disagree. Throws schema_error (naming the
// keyword) where the conjunction is not a plain merge (e.g. a closed object in one branch and
// properties in another).
json merge_all_of(const json & s, const std::string & where, const ref_resolver & resolve);

// Whether no JSON value can match two of the schemas: their types differ, their const/enum values
// differ, or they are objects requiring one property whose const/enum values differ. False when
// unsure ("oneOf" needs exactly one branch to match, which a grammar of alternatives cannot check).
bool pairwise_disjoint(const json & branches, const ref_resolver & resolve);

}  // namespace llama_tools::schema_detail
