// Jinja chat templates: the engine (through the public C API) against Jinja2 itself, byte for byte.
// The cases are tests/data/jinja/cases.txt (templates × contexts); the reference texts come from
// scripts/jinja-reference.py (Jinja2 configured as Hugging Face transformers runs chat templates),
// run once in batch mode for all cases. Without python3 and its jinja2 module the test skips.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "llama.h"
#include "test-common.h"

#ifdef _WIN32
#    define popen      _popen
#    define pclose     _pclose
#    define POPEN_READ "rb"
#else
#    define POPEN_READ "r"
#endif

namespace {

struct conf_case {
    bool        must_fail;  // an "error" line: both renderers must fail
    std::string tmpl;       // names (in templates/ and contexts/ for the manifest's cases)
    std::string ctx;
    std::string tmpl_file;  // paths
    std::string ctx_file;
};

struct ref_result {
    bool        ok = false;
    std::string text;  // the rendered text, or the error message
};

std::string slurp(const std::string & path) {
    const std::vector<uint8_t> b = testing_util::read_file(path);
    return std::string(b.begin(), b.end());
}

std::vector<conf_case> load_cases() {
    std::vector<conf_case> cases;
    std::istringstream     in(slurp(testing_util::data_path("jinja/cases.txt")));
    std::string            line;
    while (std::getline(in, line)) {
        std::istringstream words(line);
        std::string        kind, tmpl, ctx;
        if (!(words >> kind) || kind[0] == '#') {
            continue;
        }
        EXPECT_TRUE(kind == "render" || kind == "error") << "cases.txt: bad line: " << line;
        words >> tmpl;
        while (words >> ctx) {
            cases.push_back({kind == "error", tmpl, ctx, testing_util::data_path("jinja/templates/" + tmpl),
                             testing_util::data_path("jinja/contexts/" + ctx)});
        }
    }
    return cases;
}

std::string tmpl_path(const conf_case & c) {
    return c.tmpl_file;
}

std::string ctx_path(const conf_case & c) {
    return c.ctx_file;
}

// Runs a shell command, returns its stdout; status receives pclose's result.
std::string run_command(const std::string & cmd, int & status) {
    std::string out;
    FILE *      p = popen(cmd.c_str(), POPEN_READ);
    if (!p) {
        status = -1;
        return out;
    }
    char   buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), p)) > 0) {
        out.append(buf, n);
    }
    status = pclose(p);
    return out;
}

std::string python() {
    const char * env = std::getenv("LLAMA_TEST_PYTHON");
    return env && *env ? env : "python3";
}

bool have_reference(std::string & why) {
    int               status = 0;
    const std::string out =
        run_command(python() + " -c \"import jinja2; print('jinja2', jinja2.__version__)\" 2>&1", status);
    if (status != 0 || out.rfind("jinja2 ", 0) != 0) {
        why = python() + " with its jinja2 module is not available (apt-get install python3-jinja2): " + out;
        return false;
    }
    return true;
}

// One reference process for all cases: "OK <n>\n" / "ERR <n>\n" then n bytes, per case.
std::vector<ref_result> reference_results(const std::vector<conf_case> & cases) {
    std::string list;
    for (const conf_case & c : cases) {
        list += tmpl_path(c) + "\t" + ctx_path(c) + "\n";
    }
    const std::string list_path =
        testing_util::write_temp_file("jinja-cases", std::vector<uint8_t>(list.begin(), list.end()));
    int               status = 0;
    const std::string out    = run_command(
           python() + " \"" + testing_util::source_path("scripts/jinja-reference.py") + "\" --batch \"" + list_path + "\"",
           status);
    std::remove(list_path.c_str());
    EXPECT_EQ(status, 0) << "jinja-reference.py --batch failed";

    std::vector<ref_result> res;
    size_t                  pos = 0;
    while (res.size() < cases.size() && pos < out.size()) {
        const size_t nl = out.find('\n', pos);
        if (nl == std::string::npos) {
            break;
        }
        const std::string head = out.substr(pos, nl - pos);
        const size_t      sp   = head.find(' ');
        if (sp == std::string::npos) {
            break;
        }
        const size_t n = std::strtoull(head.c_str() + sp + 1, nullptr, 10);
        ref_result   r;
        r.ok   = head.compare(0, sp, "OK") == 0;
        r.text = out.substr(nl + 1, n);
        pos    = nl + 1 + n;
        res.push_back(std::move(r));
    }
    EXPECT_EQ(res.size(), cases.size()) << "the reference's batch output is short";
    res.resize(cases.size());
    return res;
}

// --- the context file (shape of llama_chat_template_inputs): its top-level members, as raw JSON text

size_t skip_ws(const std::string & s, size_t i) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) {
        i++;
    }
    return i;
}

// End (one past) of the JSON value starting at i.
size_t value_end(const std::string & s, size_t i) {
    int  depth  = 0;
    bool in_str = false;
    for (; i < s.size(); i++) {
        const char c = s[i];
        if (in_str) {
            if (c == '\\') {
                i++;
            } else if (c == '"') {
                in_str = false;
                if (depth == 0) {
                    return i + 1;
                }
            }
        } else if (c == '"') {
            in_str = true;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (depth == 0) {
                return i;  // the end of a scalar at the end of the enclosing object
            }
            if (--depth == 0) {
                return i + 1;
            }
        } else if (depth == 0 && (c == ',' || c == ' ' || c == '\n' || c == '\r' || c == '\t')) {
            return i;
        }
    }
    return i;
}

void append_utf8(std::string & out, uint32_t cp) {
    if (cp < 0x80) {
        out += (char) cp;
    } else if (cp < 0x800) {
        out += (char) (0xC0 | (cp >> 6));
        out += (char) (0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += (char) (0xE0 | (cp >> 12));
        out += (char) (0x80 | ((cp >> 6) & 0x3F));
        out += (char) (0x80 | (cp & 0x3F));
    } else {
        out += (char) (0xF0 | (cp >> 18));
        out += (char) (0x80 | ((cp >> 12) & 0x3F));
        out += (char) (0x80 | ((cp >> 6) & 0x3F));
        out += (char) (0x80 | (cp & 0x3F));
    }
}

// A JSON string literal's value.
std::string json_string(const std::string & lit) {
    std::string out;
    for (size_t i = 1; i + 1 < lit.size(); i++) {
        if (lit[i] != '\\') {
            out += lit[i];
            continue;
        }
        const char e = lit[++i];
        switch (e) {
            case 'n':
                out += '\n';
                break;
            case 't':
                out += '\t';
                break;
            case 'r':
                out += '\r';
                break;
            case 'b':
                out += '\b';
                break;
            case 'f':
                out += '\f';
                break;
            case 'u': {
                uint32_t cp = (uint32_t) std::strtoul(lit.substr(i + 1, 4).c_str(), nullptr, 16);
                i += 4;
                if (cp >= 0xD800 && cp < 0xDC00 && lit.compare(i + 1, 2, "\\u") == 0) {
                    const uint32_t lo = (uint32_t) std::strtoul(lit.substr(i + 3, 4).c_str(), nullptr, 16);
                    cp                = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    i += 6;
                }
                append_utf8(out, cp);
                break;
            }
            default:
                out += e;
                break;  // \" \\ \/
        }
    }
    return out;
}

std::map<std::string, std::string> top_members(const std::string & json) {
    std::map<std::string, std::string> m;
    size_t                             i = skip_ws(json, 0);
    if (i >= json.size() || json[i] != '{') {
        return m;
    }
    i = skip_ws(json, i + 1);
    while (i < json.size() && json[i] == '"') {
        const size_t      kend = value_end(json, i);
        const std::string key  = json_string(json.substr(i, kend - i));
        i                      = skip_ws(json, kend);
        if (i >= json.size() || json[i] != ':') {
            break;
        }
        i                 = skip_ws(json, i + 1);
        const size_t vend = value_end(json, i);
        m[key]            = json.substr(i, vend - i);
        i                 = skip_ws(json, vend);
        if (i < json.size() && json[i] == ',') {
            i = skip_ws(json, i + 1);
        }
    }
    return m;
}

// --- the engine through the C API

struct our_result {
    bool        ok = false;
    std::string text;  // the prompt, or the error message
};

our_result render_ours(const conf_case & c) {
    const std::string                  source = slurp(tmpl_path(c));
    std::map<std::string, std::string> ctx    = top_members(slurp(ctx_path(c)));
    EXPECT_TRUE(ctx.count("messages")) << c.ctx << ": no \"messages\"";

    const std::string bos = ctx.count("bos_token") ? json_string(ctx["bos_token"]) : "";
    const std::string eos = ctx.count("eos_token") ? json_string(ctx["eos_token"]) : "";

    our_result            r;
    char                  err[1024] = {};
    llama_chat_template * t = llama_chat_template_init(source.c_str(), bos.c_str(), eos.c_str(), err, sizeof(err));
    if (!t) {
        r.text = err;
        EXPECT_FALSE(r.text.empty()) << c.tmpl << ": init failed without a message";
        return r;
    }
    llama_chat_template_inputs in = llama_chat_template_default_inputs();
    in.messages_json              = ctx["messages"].c_str();
    const bool has_tools          = ctx.count("tools") && ctx["tools"] != "null";
    in.tools_json                 = has_tools ? ctx["tools"].c_str() : nullptr;
    in.extra_context_json         = ctx.count("extra") ? ctx["extra"].c_str() : nullptr;
    in.add_generation_prompt      = ctx["add_generation_prompt"] == "true";
    in.now                        = ctx.count("now") ? std::strtoll(ctx["now"].c_str(), nullptr, 10) : 0;
    const char * out              = llama_chat_template_render(t, &in);
    if (out) {
        r.ok   = true;
        r.text = out;
        EXPECT_STREQ(llama_chat_template_last_error(t), "");
    } else {
        r.text = llama_chat_template_last_error(t);
        EXPECT_FALSE(r.text.empty()) << c.tmpl << " × " << c.ctx << ": render failed without a message";
    }
    llama_chat_template_free(t);
    return r;
}

// --- readable differences

std::string escaped(const std::string & s, size_t from, size_t len) {
    std::string out;
    for (size_t i = from; i < s.size() && i < from + len; i++) {
        const unsigned char c = (unsigned char) s[i];
        if (c == '\n') {
            out += "\\n";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c == '\\') {
            out += "\\\\";
        } else if (c < 0x20 || c == 0x7f) {
            char b[8];
            snprintf(b, sizeof(b), "\\x%02x", c);
            out += b;
        } else {
            out += (char) c;
        }
    }
    return out;
}

std::vector<std::string> split_lines(const std::string & s) {
    std::vector<std::string> lines;
    std::istringstream       in(s);
    std::string              line;
    while (std::getline(in, line)) {
        lines.push_back(line);
    }
    return lines;
}

std::string describe_diff(const std::string & want, const std::string & got) {
    size_t i = 0;
    while (i < want.size() && i < got.size() && want[i] == got[i]) {
        i++;
    }
    size_t line = 1, col = 1;
    for (size_t k = 0; k < i; k++) {
        if (want[k] == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    const size_t       from = i > 40 ? i - 40 : 0;
    std::ostringstream os;
    os << "first difference at byte " << i << " (line " << line << ", column " << col << "); lengths: Jinja2 "
       << want.size() << ", ours " << got.size() << "\n"
       << "  Jinja2: \"" << escaped(want, from, i - from) << "⟦" << escaped(want, i, 60) << "\"\n"
       << "  ours:   \"" << escaped(got, from, i - from) << "⟦" << escaped(got, i, 60) << "\"";
    // the same number of lines: every line that differs (a feature template tests one construct a line)
    const std::vector<std::string> wl = split_lines(want), gl = split_lines(got);
    if (wl.size() == gl.size()) {
        int shown = 0;
        for (size_t k = 0; k < wl.size() && shown < 12; k++) {
            if (wl[k] != gl[k]) {
                os << "\n  line " << k + 1 << ":\n    Jinja2: \"" << escaped(wl[k], 0, 300) << "\"\n    ours:   \""
                   << escaped(gl[k], 0, 300) << "\"";
                shown++;
            }
        }
    }
    return os.str();
}

TEST(JinjaConformance, ManifestNamesExistingFiles) {
    const std::vector<conf_case> cases = load_cases();
    ASSERT_GE(cases.size(), 50u);
    std::set<std::string> templates;
    for (const conf_case & c : cases) {
        EXPECT_FALSE(slurp(tmpl_path(c)).empty()) << "missing or empty: templates/" << c.tmpl;
        EXPECT_FALSE(slurp(ctx_path(c)).empty()) << "missing or empty: contexts/" << c.ctx;
        const std::map<std::string, std::string> m = top_members(slurp(ctx_path(c)));
        EXPECT_TRUE(m.count("messages") && m.count("now")) << c.ctx << ": needs \"messages\" and \"now\"";
    }
}

TEST(JinjaConformance, EqualsJinja2) {
    std::string why;
    if (!have_reference(why)) {
        GTEST_SKIP() << why;
    }
    const std::vector<conf_case>  cases = load_cases();
    const std::vector<ref_result> ref   = reference_results(cases);
    int                           n_bad = 0;
    for (size_t i = 0; i < cases.size(); i++) {
        const conf_case & c    = cases[i];
        const our_result  ours = render_ours(c);
        const std::string name = c.tmpl + " × " + c.ctx;
        if (c.must_fail) {
            EXPECT_FALSE(ref[i].ok) << name << ": the reference renders an error case:\n" << ref[i].text;
            EXPECT_FALSE(ours.ok) << name << ": Jinja2 fails (" << ref[i].text << ") but ours renders:\n" << ours.text;
            n_bad += ours.ok;
            continue;
        }
        if (!ref[i].ok) {
            ADD_FAILURE() << name << ": the reference fails on a render case: " << ref[i].text;
            n_bad++;
            continue;
        }
        if (!ours.ok) {
            ADD_FAILURE() << name << ": ours fails: " << ours.text;
            n_bad++;
            continue;
        }
        if (ours.text != ref[i].text) {
            ADD_FAILURE() << name << ": " << describe_diff(ref[i].text, ours.text);
            n_bad++;
        }
    }
    std::printf("jinja conformance: %zu cases, %d differ\n", cases.size(), n_bad);
}

// scripts/check-real-templates.sh: the pairs "TEMPLATE<TAB>CONTEXT" (paths) of the file named by
// LLAMA_JINJA_CHECK_LIST, one line "check<TAB>template<TAB>context<TAB>verdict<TAB>detail" each
// (verdict: equal, differ, both-fail, only-ours-fails, only-reference-fails). A report, not a test.
TEST(JinjaConformance, ExternalTemplates) {
    const char * list = std::getenv("LLAMA_JINJA_CHECK_LIST");
    if (!list || !*list) {
        GTEST_SKIP() << "LLAMA_JINJA_CHECK_LIST is not set (scripts/check-real-templates.sh sets it)";
    }
    std::string why;
    if (!have_reference(why)) {
        GTEST_SKIP() << why;
    }
    std::vector<conf_case> cases;
    std::istringstream     in(slurp(list));
    std::string            line;
    while (std::getline(in, line)) {
        const size_t tab = line.find('\t');
        if (tab != std::string::npos) {
            const std::string t = line.substr(0, tab), c = line.substr(tab + 1);
            cases.push_back({false, t.substr(t.find_last_of("/\\") + 1), c.substr(c.find_last_of("/\\") + 1), t, c});
        }
    }
    const std::vector<ref_result> ref = reference_results(cases);
    for (size_t i = 0; i < cases.size(); i++) {
        const our_result ours = render_ours(cases[i]);
        std::string      verdict, detail;
        if (ours.ok && ref[i].ok) {
            verdict = ours.text == ref[i].text ? "equal" : "differ";
            detail  = ours.text == ref[i].text ? "" : describe_diff(ref[i].text, ours.text);
        } else if (!ours.ok && !ref[i].ok) {
            verdict = "both-fail";
            detail  = ref[i].text;
        } else if (!ours.ok) {
            verdict = "only-ours-fails";
            detail  = ours.text;
        } else {
            verdict = "only-reference-fails";
            detail  = ref[i].text;
        }
        for (char & ch : detail) {
            ch = ch == '\n' || ch == '\t' ? ' ' : ch;
        }
        std::printf("check\t%s\t%s\t%s\t%s\n", cases[i].tmpl.c_str(), cases[i].ctx.c_str(), verdict.c_str(),
                    detail.c_str());
    }
}

}  // namespace
