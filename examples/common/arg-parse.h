// The command-line conventions every tool in examples/ and bench/ shares (see docs/tools.md):
//  - exit codes: 0 success, 1 usage error (bad flag or value), 2 load or runtime failure;
//  - -h / --help prints the usage to stdout and exits 0;
//  - numbers are parsed strictly: the whole text must be a number within the flag's range, otherwise
//    "PROG: error: invalid value 'X' for FLAG: expected an integer in [LO, HI]" and exit 1;
//  - an unknown flag is "PROG: error: unknown argument: FLAG" plus a hint to --help, exit 1.
// Uses only the C++ standard library (and console.h for the OS): nothing here knows about models.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace tool {

constexpr int EXIT_OK      = 0;  // success
constexpr int EXIT_USAGE   = 1;  // bad command line: unknown flag, missing or invalid value
constexpr int EXIT_RUNTIME = 2;  // the work failed: unreadable file, load, decode or write failure

// Strict parsers: true and `out` set only when the whole text is one number in [lo, hi] (decimal
// integers; floats as strtod reads them, finite only). No leading spaces, no trailing junk, not empty.
bool parse_int(const std::string & text, int64_t lo, int64_t hi, int64_t & out);
bool parse_uint(const std::string & text, uint64_t lo, uint64_t hi, uint64_t & out);
bool parse_float(const std::string & text, double lo, double hi, double & out);

// "[lo, hi]" with readable bounds (2^k values as such are printed in decimal).
std::string range_text(int64_t lo, int64_t hi);
std::string range_text(double lo, double hi);

// True when colour escapes may go to `f`: it is a terminal and NO_COLOR is unset or empty
// (https://no-color.org).
bool use_color(FILE * f);

// A command-line walker. Usage:
//   tool::args args("llama-simple", argc, argv, print_usage);
//   while (args.next()) {
//       if (args.is("-n", "--n-predict")) n = args.int_value(0, 4096);
//       else if (args.positional())       prompt = args.arg();
//       else                              args.unknown();
//   }
// Every error method prints one line naming the flag, a hint to --help, and exits with EXIT_USAGE.
class args {
public:
    // print_usage writes the full usage text to the stream it is given (stdout for --help).
    args(const char * prog, int argc, char ** argv, void (*print_usage)(FILE *));

    // Advances to the next argument; false at the end. -h/--help prints the usage and exits 0.
    // After "--" every remaining argument is positional.
    bool next();

    const std::string & arg() const { return cur_; }
    const char *        prog() const { return prog_; }

    // The current argument is one of these flag names.
    bool is(const char * name, const char * alias = nullptr) const;
    // The current argument is not a flag ("-" alone counts as positional, as does anything after "--").
    bool positional() const;

    // The value of the current flag: the next argument (consumed). Missing: usage error.
    std::string value();
    int64_t     int_value(int64_t lo, int64_t hi);
    uint64_t    uint_value(uint64_t lo, uint64_t hi);
    double      float_value(double lo, double hi);
    // A comma-separated list of integers (llama-bench), each in [lo, hi]; never empty.
    std::vector<int> int_list_value(int64_t lo, int64_t hi, size_t min_n = 1, size_t max_n = SIZE_MAX);

    // Parses `text` as the value of `what` (a flag or a positional name such as "N_THREADS").
    int64_t int_of(const char * what, const std::string & text, int64_t lo, int64_t hi) const;
    double  float_of(const char * what, const std::string & text, double lo, double hi) const;

    // For tools taking only positional arguments (the bench programs): reads the whole command line,
    // at most `max` of them (a flag or one more is unknown()); `none` is the usage error when there
    // are none. Then positional_int reads the i-th as `what` in [lo, hi], `def` when absent.
    std::vector<std::string> positionals(size_t max, const char * none);
    int positional_int(const std::vector<std::string> & pos, size_t i, const char * what, int64_t lo, int64_t hi,
                       int64_t def) const;

    [[noreturn]] void unknown() const;
    [[noreturn]] void fail(const std::string & message) const;

private:
    const char * prog_;
    int          argc_;
    char **      argv_;
    int          i_ = 0;
    std::string  cur_;
    bool         only_positional_ = false;
    void (*print_usage_)(FILE *);
};

}  // namespace tool
