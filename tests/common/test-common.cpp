#include "test-common.h"

#include <unistd.h>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

namespace testing_util {

std::string data_path(const std::string & rel) {
    return std::string(LLAMA_TEST_DATA_DIR) + "/" + rel;
}

std::string source_path(const std::string & rel) {
    return std::string(LLAMA_SOURCE_DIR) + "/" + rel;
}

std::vector<uint8_t> read_file(const std::string & path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) {
        return {};
    }
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

std::vector<float> read_f32(const std::string & path) {
    const std::vector<uint8_t> raw = read_file(path);
    std::vector<float>         v(raw.size() / sizeof(float));
    if (!v.empty()) {
        memcpy(v.data(), raw.data(), v.size() * sizeof(float));
    }
    return v;
}

std::string write_temp_file(const std::string & stem, const std::vector<uint8_t> & bytes) {
    static std::atomic<int> counter{0};
    const char *            tmp  = getenv("TMPDIR");
    std::string             path = std::string(tmp ? tmp : "/tmp") + "/llama-test-" + std::to_string(getpid()) + "-" +
                       std::to_string(counter++) + "-" + stem;
    FILE * f = fopen(path.c_str(), "wb");
    if (!f) {
        return {};
    }
    if (!bytes.empty()) {
        fwrite(bytes.data(), 1, bytes.size(), f);
    }
    fclose(f);
    return path;
}

double nmse(const std::vector<float> & a, const std::vector<float> & b) {
    double e = 0, n = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        e += ((double) a[i] - b[i]) * ((double) a[i] - b[i]);
        n += (double) b[i] * b[i];
    }
    return n > 0 ? e / n : e;
}

std::vector<std::string> vocab_test_cases(const std::string & inp) {
    static const std::string sep = "\n__ggml_vocab_test__\n";
    std::vector<std::string> out;
    size_t                   pos = 0;
    for (size_t next; (next = inp.find(sep, pos)) != std::string::npos; pos = next + sep.size()) {
        out.push_back(inp.substr(pos, next - pos));
    }
    return out;
}

std::vector<std::vector<int32_t>> vocab_test_ids(const std::string & out) {
    std::vector<std::vector<int32_t>> res;
    std::istringstream                lines(out);
    std::string                       line;
    while (std::getline(lines, line)) {
        std::istringstream   ids(line);
        std::vector<int32_t> v;
        long                 id;
        while (ids >> id) {
            v.push_back((int32_t) id);
        }
        res.push_back(v);
    }
    return res;
}

std::string upstream_clean_spaces(const std::string & text) {
    std::string buf   = text;
    int         total = (int) buf.size();
    char *      t     = buf.data();
    // pass 1: " ?", " !", " .", " ,"
    int n = total;
    total = total ? 1 : 0;
    for (int i = 1; i < n; ++i) {
        const char x = t[i];
        if (t[i - 1] == ' ' && (x == '?' || x == '!' || x == '.' || x == ',')) {
            total--;
        }
        t[total++] = x;
    }
    // pass 2: " ' "
    n     = total;
    total = total ? 1 : 0;
    for (int i = 1; i < n; ++i) {
        const char x = t[i];
        if (x == '\'' && i + 1 < n && t[i - 1] == ' ' && t[i + 1] == ' ') {
            total--;
            t[++i] = '\0';
        }
        t[total++] = x;
    }
    // pass 3: " 's", " 'm", " 're", " 've"
    n     = total;
    total = total ? 1 : 0;
    for (int i = 1; i < n; ++i) {
        const char x = t[i];
        if (t[i - 1] == ' ' && x == '\'' && i + 1 < n) {
            const char x1 = t[i + 1];
            if (x1 == 's' || x1 == 'm') {
                total--;
            } else if (i + 2 < n && ((x1 == 'r' && t[i + 2] == 'e') || (x1 == 'v' && t[i + 2] == 'e'))) {
                total--;
            }
        }
        t[total++] = x;
    }
    buf.resize((size_t) total);
    return buf;
}

}  // namespace testing_util
