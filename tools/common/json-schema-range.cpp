// Numeric bounds as grammar: the decimal integers in a range, written digit by digit (a regex-like
// shortcut such as [0-9]{1,2} for 0..99 would also let through 00 or 100-style neighbours), and the
// RFC 3339 / UUID string formats, which are fixed-width digit ranges too.
#include <string>

#include "json-schema-impl.h"

namespace llama_tools::schema_detail {

namespace {

const int k_open_digits = 16;  // longest magnitude an open bound allows (as the `integer` rule)

std::string any_digits(size_t n) {
    if (n == 0) {
        return "";
    }
    return n == 1 ? "[0-9]" : "[0-9]{" + std::to_string(n) + "}";
}

std::string digit_class(char a, char b) {
    return a == b ? std::string("\"") + a + "\"" : std::string("[") + a + "-" + b + "]";
}

std::string join(const std::string & a, const std::string & b) {
    return a.empty() ? b : b.empty() ? a : a + " " + b;
}

// Digit strings of equal length between a and b (a <= b), leading zeros allowed.
std::string same_length(const std::string & a, const std::string & b) {
    if (a.empty()) {
        return "";
    }
    const std::string ra = a.substr(1), rb = b.substr(1);
    if (a[0] == b[0]) {
        return join(digit_class(a[0], a[0]), same_length(ra, rb));
    }
    const size_t      n      = ra.size();
    const bool        a_low  = ra.find_first_not_of('0') == std::string::npos;
    const bool        b_high = rb.find_first_not_of('9') == std::string::npos;
    std::string       out;
    char              from = a[0], to = b[0];
    const std::string nines(n, '9'), zeros(n, '0');
    if (!a_low) {
        out  = join(digit_class(a[0], a[0]), same_length(ra, nines));
        from = (char) (a[0] + 1);
    }
    std::string last;
    if (!b_high) {
        last = join(digit_class(b[0], b[0]), same_length(zeros, rb));
        to   = (char) (b[0] - 1);
    }
    if (from <= to) {
        out += (out.empty() ? "" : " | ") + join(digit_class(from, to), any_digits(n));
    }
    if (!last.empty()) {
        out += (out.empty() ? "" : " | ") + last;
    }
    return "(" + out + ")";
}

// Naturals in [a, b] in decimal without leading zeros; `open`: no b, up to k_open_digits digits
// (or a's own length if longer). (A flag, not an optional: GCC misreads optionals passed by value.)
std::string naturals(uint64_t a, bool open, uint64_t b) {
    const std::string sa = std::to_string(a);
    const std::string sb = open ? std::string() : std::to_string(b);
    const size_t      la = sa.size();
    const size_t      lb = open ? std::max(la, (size_t) k_open_digits) : sb.size();
    std::string       out;
    for (size_t len = la; len <= lb; len++) {
        const std::string lo = len == la ? sa : (len == 1 ? "0" : "1" + std::string(len - 1, '0'));
        const std::string hi = (!open && len == lb) ? sb : std::string(len, '9');
        out += (out.empty() ? "" : " | ") + same_length(lo, hi);
    }
    return "(" + out + ")";
}

uint64_t magnitude(int64_t v) {
    return v < 0 ? (uint64_t) 0 - (uint64_t) v : (uint64_t) v;
}

}  // namespace

std::string integer_range(std::optional<int64_t> lo, std::optional<int64_t> hi) {
    std::string out;
    if (!hi || *hi >= 0) {
        out = naturals(lo && *lo > 0 ? (uint64_t) *lo : 0, !hi, hi ? (uint64_t) *hi : 0);
    }
    if (!lo || *lo < 0) {
        const uint64_t from = hi && *hi < 0 ? magnitude(*hi) : 1;
        out += (out.empty() ? "" : " | ") + std::string("\"-\" ") + naturals(from, !lo, lo ? magnitude(*lo) : 0);
    }
    return "(" + out + ")";
}

std::string number_range(std::optional<int64_t> lo, bool lo_excl, std::optional<int64_t> hi, bool hi_excl) {
    // a fraction with a non-zero last digit: I.F lies strictly between I and I+1
    const std::string            frac = "\".\" [0-9]{0,15} [1-9]";
    std::string                  out;
    auto                         add = [&](const std::string & alt) { out += (out.empty() ? "" : " | ") + alt; };
    const std::optional<int64_t> ilo = lo ? std::optional<int64_t>(*lo + (lo_excl ? 1 : 0)) : std::nullopt;
    const std::optional<int64_t> ihi = hi ? std::optional<int64_t>(*hi - (hi_excl ? 1 : 0)) : std::nullopt;
    if (!ilo || !ihi || *ilo <= *ihi) {
        add(integer_range(ilo, ihi));
    }
    // positive fractions I.F: I >= max(lo, 0) and I + 1 <= hi
    const int64_t pos_from = lo && *lo > 0 ? *lo : 0;
    if (!hi || *hi - 1 >= pos_from) {
        add(integer_range(pos_from, hi ? std::optional<int64_t>(*hi - 1) : std::nullopt) + " " + frac);
    }
    // negative fractions -I.F: -(I + 1) >= lo and -I <= hi, so max(0, -hi) <= I <= -lo - 1
    const int64_t neg_from = hi && *hi < 0 ? -*hi : 0;
    if (!lo || -*lo - 1 >= neg_from) {
        add("\"-\" " + integer_range(neg_from, lo ? std::optional<int64_t>(-*lo - 1) : std::nullopt) + " " + frac);
    }
    return out.empty() ? "" : "(" + out + ")";
}

std::string format_body(const std::string & format) {
    // February stops at 28: a grammar cannot tell leap years cheaply, and narrower stays valid
    const std::string date =
        "[0-9]{4} \"-\" ((\"0\" [13578] | \"1\" [02]) \"-\" (\"0\" [1-9] | [12] [0-9] | \"3\" [01]) | "
        "(\"0\" [469] | \"11\") \"-\" (\"0\" [1-9] | [12] [0-9] | \"30\") | "
        "\"02-\" (\"0\" [1-9] | \"1\" [0-9] | \"2\" [0-8]))";
    const std::string hour = "([01] [0-9] | \"2\" [0-3])";
    // no leap second (60): narrower, still valid
    const std::string time =
        hour + " \":\" [0-5] [0-9] \":\" [0-5] [0-9] (\".\" [0-9]{1,9})? (\"Z\" | [+-] " + hour + " \":\" [0-5] [0-9])";
    if (format == "date") {
        return "(" + date + ")";
    }
    if (format == "time") {
        return "(" + time + ")";
    }
    if (format == "date-time") {
        return "(" + date + " \"T\" " + time + ")";
    }
    if (format == "uuid") {
        return "([0-9a-fA-F]{8} \"-\" [0-9a-fA-F]{4} \"-\" [0-9a-fA-F]{4} \"-\" [0-9a-fA-F]{4} \"-\" "
               "[0-9a-fA-F]{12})";
    }
    return "";
}

}  // namespace llama_tools::schema_detail
