// libFuzzer harness for the Jinja template engine (src/jinja). Input: the template source, then
// optionally a NUL byte and the JSON object of the template's variables (seeds: tests/fuzz/seeds-jinja,
// made by make-seeds-jinja.py from the conformance corpus). Any malformed template or context, and any
// failing render, must end in jinja::error; a crash, a leak, a hang (the engine's step and output
// limits bound every render) or another exception is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "jinja/jinja.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size) {
    const std::string in((const char *) data, size);
    const size_t      cut     = in.find('\0');
    const std::string source  = in.substr(0, cut);
    const std::string context = cut == std::string::npos ? std::string("{}") : in.substr(cut + 1);
    try {
        jinja::render_json(source, context, 1767225600);  // 2026-01-01 00:00:00 UTC
    } catch (const jinja::error &) {
    }
    return 0;
}
