// probe-compare OURS.jsonl REF.jsonl [OURS.logits.f32 REF.logits.f32]
// Compares two probe runs (tests/data/tools/probe.cpp): identical prompt tokens, the same greedy
// token and piece at every step, the same text; every logit within 1% of the reference row's RMS.
// Exit 0 when they agree, 1 otherwise (the differences are printed).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

static std::vector<std::string> read_lines(const char * path) {
    std::ifstream            f(path);
    std::vector<std::string> out;
    for (std::string line; std::getline(f, line);) {
        out.push_back(line);
    }
    return out;
}

// The part of a step line that must match exactly: step, first top id, and the piece.
static std::string step_key(const std::string & line) {
    const size_t top   = line.find("\"top\":[[");
    const size_t comma = line.find(',', top);
    const size_t piece = line.find("\"piece\":");
    if (top == std::string::npos || comma == std::string::npos || piece == std::string::npos) {
        return line;
    }
    return line.substr(0, top) + line.substr(top + 8, comma - top - 8) + " " + line.substr(piece);
}

static std::vector<float> read_f32(const char * path) {
    std::ifstream      f(path, std::ios::binary);
    std::vector<char>  bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    std::vector<float> out(bytes.size() / sizeof(float));
    memcpy(out.data(), bytes.data(), out.size() * sizeof(float));
    return out;
}

int main(int argc, char ** argv) {
    if (argc != 3 && argc != 5) {
        fprintf(stderr, "usage: %s OURS.jsonl REF.jsonl [OURS.logits.f32 REF.logits.f32]\n", argv[0]);
        return 2;
    }
    const auto ours = read_lines(argv[1]);
    const auto ref  = read_lines(argv[2]);
    int        bad  = 0;
    if (ours.size() != ref.size()) {
        printf("line count differs: %zu vs %zu\n", ours.size(), ref.size());
        bad++;
    }
    for (size_t i = 0; i < ours.size() && i < ref.size(); i++) {
        const bool step = ref[i].rfind("{\"step\":", 0) == 0;
        if ((step ? step_key(ours[i]) : ours[i]) != (step ? step_key(ref[i]) : ref[i])) {
            printf("line %zu differs:\n  ours: %s\n  ref:  %s\n", i + 1, ours[i].c_str(), ref[i].c_str());
            bad++;
        }
    }
    if (argc == 5) {
        const auto a = read_f32(argv[3]);
        const auto b = read_f32(argv[4]);
        // the reference rows have n_vocab floats; derive n_vocab from the step count
        size_t n_steps = 0;
        for (const auto & l : ref) {
            n_steps += l.rfind("{\"step\":", 0) == 0;
        }
        if (a.size() != b.size() || n_steps == 0 || b.size() % n_steps != 0) {
            printf("logits size differs: %zu vs %zu\n", a.size(), b.size());
            return 1;
        }
        const size_t n_vocab = b.size() / n_steps;
        for (size_t r = 0; r < n_steps; r++) {
            double sq = 0, worst = 0;
            for (size_t j = 0; j < n_vocab; j++) {
                sq += (double) b[r * n_vocab + j] * b[r * n_vocab + j];
                worst = std::fmax(worst, std::fabs((double) a[r * n_vocab + j] - b[r * n_vocab + j]));
            }
            const double rms = std::sqrt(sq / n_vocab);
            if (worst > 0.01 * rms) {
                printf("step %zu: max logit error %.5f > 1%% of row RMS %.5f\n", r, worst, rms);
                bad++;
            }
        }
    }
    printf("%s\n", bad ? "MISMATCH" : "OK");
    return bad ? 1 : 0;
}
