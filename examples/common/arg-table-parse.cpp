// Parsing argv and the environment with the option table, --help from it, and the default thread
// count (arg-table.h).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <stdexcept>
#include <thread>

#include "arg-parse.h"
#include "arg-table.h"
#include "console.h"

namespace tool {

const std::vector<std::string> & upstream_names() {
    static const std::vector<std::string> names = {
#include "arg-upstream-names.inc"
    };
    return names;
}

namespace {

const char * tool_name(unsigned tools) {
    return tools == TOOL_CLI ? "llama-cli" : "llama-server";
}

struct hit {
    const option * opt     = nullptr;
    bool           negated = false;
};

hit find(const std::string & name) {
    for (const option & o : options()) {
        if (std::find(o.names.begin(), o.names.end(), name) != o.names.end()) {
            return {&o, false};
        }
        if (std::find(o.negations.begin(), o.negations.end(), name) != o.negations.end()) {
            return {&o, true};
        }
    }
    return {};
}

// Upstream's truthy / falsey spellings for a flag given through the environment.
bool env_bool(const std::string & v, bool & out) {
    if (v == "1" || v == "true" || v == "on" || v == "enabled") {
        out = true;
        return true;
    }
    if (v == "0" || v == "false" || v == "off" || v == "disabled") {
        out = false;
        return true;
    }
    return false;
}

// Converts `text` for `o` and calls its setter; "" on success, else the reason.
std::string apply(const option & o, const std::string & text, bool flag_value, params & p) {
    arg_value v;
    v.text = text;
    v.b    = flag_value;
    switch (o.kind) {
        case value_kind::flag:
            break;
        case value_kind::integer:
            if (!parse_int(text, (int64_t) o.lo, (int64_t) o.hi, v.i)) {
                return "expected an integer in " + range_text((int64_t) o.lo, (int64_t) o.hi);
            }
            break;
        case value_kind::number:
            if (!parse_float(text, o.lo, o.hi, v.f)) {
                return "expected a number in " + range_text(o.lo, o.hi);
            }
            break;
        case value_kind::text:
            break;
    }
    try {
        o.set(p, v);
    } catch (const std::exception & e) {
        return e.what();
    }
    return "";
}

parse_result failure(const std::string & line) {
    parse_result r;
    r.ok    = false;
    r.error = line;
    return r;
}

}  // namespace

parse_result parse_args(tool_id tool, int argc, char ** argv, params & p, const env_lookup & env) {
    std::set<const option *> given;
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        if (a == "-h" || a == "--help" || a == "--usage") {
            parse_result r;
            r.help = true;
            return r;
        }
        if (a.size() < 2 || a[0] != '-') {
            return failure("error: unexpected argument: " + a);
        }
        const hit h = find(a);
        if (!h.opt) {
            if (std::binary_search(upstream_names().begin(), upstream_names().end(), a)) {
                return failure(a + " is a llama.cpp option this build does not support");
            }
            return failure("error: unknown argument: " + a);
        }
        if (!(h.opt->tools & tool)) {
            return failure("error: " + a + " is a " + tool_name(h.opt->tools) + " option");
        }
        std::string value;
        if (h.opt->kind != value_kind::flag) {
            if (i + 1 >= argc) {
                return failure("error: " + a + " needs a value");
            }
            value = argv[++i];
        }
        const std::string why = apply(*h.opt, value, !h.negated, p);
        if (!why.empty()) {
            return failure("error: invalid value '" + value + "' for " + a + ": " + why);
        }
        given.insert(h.opt);
    }
    // the environment fills what the command line left: argv wins
    for (const option & o : options()) {
        if (o.env.empty() || !(o.tools & tool) || given.count(&o)) {
            continue;
        }
        const char * raw = env(o.env.c_str());
        if (!raw) {
            continue;
        }
        const std::string value = raw;
        bool              b     = true;
        if (o.kind == value_kind::flag && !env_bool(value, b)) {
            return failure("error: invalid value '" + value + "' for " + o.env + ": expected true or false");
        }
        const std::string why = apply(o, value, b, p);
        if (!why.empty()) {
            return failure("error: invalid value '" + value + "' for " + o.env + ": " + why);
        }
    }
    return {};
}

void print_options(tool_id tool, FILE * out) {
    for (const option & o : options()) {
        if (!(o.tools & tool)) {
            continue;
        }
        std::string head;
        for (const std::string & n : o.names) {
            head += (head.empty() ? "" : ", ") + n;
        }
        for (const std::string & n : o.negations) {
            head += ", " + n;
        }
        if (!o.value_name.empty()) {
            head += " " + o.value_name;
        }
        // a long list of spellings gets the help on its own line
        if (head.size() > 34) {
            fprintf(out, "  %s\n  %-34s %s", head.c_str(), "", o.help.c_str());
        } else {
            fprintf(out, "  %-34s %s", head.c_str(), o.help.c_str());
        }
        if (!o.env.empty()) {
            fprintf(out, " (env: %s)", o.env.c_str());
        }
        fputc('\n', out);
    }
    fprintf(out, "  %-34s %s\n", "-h, --help", "print this help and exit");
}

void parse_or_exit(tool_id tool, const char * prog, int argc, char ** argv, params & p, const char * usage) {
    console_init(argc, argv);  // Windows: the UTF-8 command line (file names, prompts)
    const parse_result r = parse_args(tool, argc, argv, p, [](const char * name) { return getenv(name); });
    if (r.help) {
        fputs(usage, stdout);
        print_options(tool, stdout);
        exit(EXIT_OK);
    }
    if (!r.ok) {
        // an unsupported llama.cpp option is one line; usage errors add the hint to --help
        fprintf(stderr, "%s: %s\n", prog, r.error.c_str());
        if (r.error.compare(0, 6, "error:") == 0) {
            fprintf(stderr, "Run '%s --help' for usage.\n", prog);
        }
        exit(EXIT_USAGE);
    }
}

int physical_cores() {
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
#ifdef __linux__
    // hardware threads sharing a core list the same siblings: count the distinct lists
    std::set<std::string> cores;
    for (unsigned cpu = 0; cpu < hw; cpu++) {
        std::ifstream f("/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/thread_siblings");
        std::string   line;
        if (f && std::getline(f, line)) {
            cores.insert(line);
        }
    }
    if (!cores.empty()) {
        return (int) cores.size();
    }
#endif
    return (int) hw;
}

}  // namespace tool
