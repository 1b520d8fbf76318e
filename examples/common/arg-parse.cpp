// Strict number parsing and the command-line walker shared by the tools; see arg-parse.h.
#include "arg-parse.h"

#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "console.h"

namespace tool {

namespace {

// strto* skip leading spaces and accept a sign on unsigned input: refuse both up front.
bool starts_like_number(const std::string & text, bool allow_minus) {
    if (text.empty()) {
        return false;
    }
    const char c = text[0];
    return (c >= '0' && c <= '9') || c == '+' || c == '.' || (allow_minus && c == '-');
}

}  // namespace

bool parse_int(const std::string & text, int64_t lo, int64_t hi, int64_t & out) {
    if (!starts_like_number(text, true)) {
        return false;
    }
    errno               = 0;
    char *          end = nullptr;
    const long long v   = strtoll(text.c_str(), &end, 10);
    if (errno != 0 || end != text.c_str() + text.size() || v < lo || v > hi) {
        return false;
    }
    out = v;
    return true;
}

bool parse_uint(const std::string & text, uint64_t lo, uint64_t hi, uint64_t & out) {
    if (!starts_like_number(text, false) || text[0] == '+') {
        return false;
    }
    errno                        = 0;
    char *                   end = nullptr;
    const unsigned long long v   = strtoull(text.c_str(), &end, 10);
    if (errno != 0 || end != text.c_str() + text.size() || v < lo || v > hi) {
        return false;
    }
    out = v;
    return true;
}

bool parse_float(const std::string & text, double lo, double hi, double & out) {
    if (!starts_like_number(text, true)) {
        return false;
    }
    errno            = 0;
    char *       end = nullptr;
    const double v   = strtod(text.c_str(), &end);
    if (errno != 0 || end != text.c_str() + text.size() || !std::isfinite(v) || v < lo || v > hi) {
        return false;
    }
    out = v;
    return true;
}

std::string range_text(int64_t lo, int64_t hi) {
    return "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
}

std::string range_text(double lo, double hi) {
    char buf[96];
    snprintf(buf, sizeof(buf), "[%g, %g]", lo, hi);
    return buf;
}

bool use_color(FILE * f) {
    const char * no_color = getenv("NO_COLOR");
    return is_terminal(f) && (!no_color || !*no_color);
}

args::args(const char * prog, int argc, char ** argv, void (*print_usage)(FILE *))
    : prog_(prog), argc_(argc), argv_(argv), print_usage_(print_usage) {
    console_init(argc_, argv_);  // Windows: the UTF-8 command line, UTF-8 console output
}

bool args::next() {
    if (++i_ >= argc_) {
        return false;
    }
    cur_ = argv_[i_];
    if (!only_positional_ && cur_ == "--") {
        only_positional_ = true;
        return next();
    }
    if (!only_positional_ && (cur_ == "-h" || cur_ == "--help")) {
        print_usage_(stdout);
        exit(EXIT_OK);
    }
    return true;
}

bool args::is(const char * name, const char * alias) const {
    return !only_positional_ && (cur_ == name || (alias && cur_ == alias));
}

bool args::positional() const {
    return only_positional_ || cur_.empty() || cur_[0] != '-' || cur_ == "-";
}

std::string args::value() {
    if (i_ + 1 >= argc_) {
        fail(cur_ + " needs a value");
    }
    return argv_[++i_];
}

int64_t args::int_value(int64_t lo, int64_t hi) {
    const std::string flag = cur_;
    return int_of(flag.c_str(), value(), lo, hi);
}

uint64_t args::uint_value(uint64_t lo, uint64_t hi) {
    const std::string flag = cur_;
    const std::string v    = value();
    uint64_t          out  = 0;
    if (!parse_uint(v, lo, hi, out)) {
        fail("invalid value '" + v + "' for " + flag + ": expected an integer in [" + std::to_string(lo) + ", " +
             std::to_string(hi) + "]");
    }
    return out;
}

double args::float_value(double lo, double hi) {
    const std::string flag = cur_;
    return float_of(flag.c_str(), value(), lo, hi);
}

std::vector<int> args::int_list_value(int64_t lo, int64_t hi, size_t min_n, size_t max_n) {
    const std::string flag = cur_;
    const std::string v    = value();
    std::vector<int>  out;
    size_t            start = 0;
    while (true) {
        const size_t      comma = v.find(',', start);
        const std::string item  = v.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        int64_t           x     = 0;
        if (!parse_int(item, lo, hi, x)) {
            fail("invalid value '" + v + "' for " + flag + ": expected comma-separated integers in " +
                 range_text(lo, hi));
        }
        out.push_back((int) x);
        if (comma == std::string::npos) {
            break;
        }
        start = comma + 1;
    }
    if (out.size() < min_n || out.size() > max_n) {
        fail("invalid value '" + v + "' for " + flag + ": expected " +
             (min_n == max_n ? std::to_string(min_n) : "at least " + std::to_string(min_n)) + " values");
    }
    return out;
}

std::vector<std::string> args::positionals(size_t max, const char * none) {
    std::vector<std::string> pos;
    while (next()) {
        if (positional() && pos.size() < max) {
            pos.push_back(arg());
        } else {
            unknown();
        }
    }
    if (pos.empty()) {
        fail(none);
    }
    return pos;
}

int args::positional_int(const std::vector<std::string> & pos, size_t i, const char * what, int64_t lo, int64_t hi,
                         int64_t def) const {
    return pos.size() > i ? (int) int_of(what, pos[i], lo, hi) : (int) def;
}

int64_t args::int_of(const char * what, const std::string & text, int64_t lo, int64_t hi) const {
    int64_t out = 0;
    if (!parse_int(text, lo, hi, out)) {
        fail("invalid value '" + text + "' for " + what + ": expected an integer in " + range_text(lo, hi));
    }
    return out;
}

double args::float_of(const char * what, const std::string & text, double lo, double hi) const {
    double out = 0;
    if (!parse_float(text, lo, hi, out)) {
        fail("invalid value '" + text + "' for " + what + ": expected a number in " + range_text(lo, hi));
    }
    return out;
}

void args::unknown() const {
    fail(positional() ? "unexpected argument: " + cur_ : "unknown argument: " + cur_);
}

void args::fail(const std::string & message) const {
    fprintf(stderr, "%s: error: %s\nRun '%s --help' for usage.\n", prog_, message.c_str(), prog_);
    exit(EXIT_USAGE);
}

}  // namespace tool
