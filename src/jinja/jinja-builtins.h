// Declarations shared by the built-in filters, tests, methods and globals.
#pragma once

#include "jinja-eval.h"

#include <string>
#include <vector>

namespace jinja {

// obj.name as a bound method of a str, list or dict (undefined when there is none; mutating
// methods are refused as Jinja2's immutable sandbox refuses them).
value method_of(render_state & st, const value & obj, const std::string & name);

// strftime for a UTC time (the formats templates use, without the C library's locale or time zone).
std::string format_time(const std::string & fmt, int64_t t);

// markupsafe's escape (what `|e` and concatenation with a |safe string apply).
std::string html_escape(const std::string & s);

// Python's str methods the filters share, over UTF-8.
bool                     py_isspace(uint32_t cp);
uint32_t                 py_upper(uint32_t cp);
uint32_t                 py_lower(uint32_t cp);
std::string              py_upper(const std::string & s);
std::string              py_lower(const std::string & s);
std::string              py_strip(const std::string & s, const value & chars, bool left, bool right);
std::vector<std::string> py_split(const std::string & s, const value & sep, int64_t maxsplit);
std::vector<std::string> py_splitlines(const std::string & s, bool keepends);
std::string              py_replace(const std::string & s, const std::string & old, const std::string & rep,
                                    int64_t count);

}  // namespace jinja
