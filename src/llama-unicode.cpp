#include "llama-unicode.h"

#include "llama-unicode-data.h"

#include <algorithm>
#include <array>
#include <unordered_map>

size_t llama_unicode_len_utf8(char lead) {
    static const uint8_t lookup[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
    return lookup[static_cast<uint8_t>(lead) >> 4];
}

uint32_t llama_unicode_decode(const char * s, size_t n, size_t & len, bool * valid) {
    const auto * u    = reinterpret_cast<const uint8_t *>(s);
    auto         fail = [&]() {
        len = 1;
        if (valid) {
            *valid = false;
        }
        return LLAMA_UNICODE_REPLACEMENT;
    };
    const uint8_t b0 = u[0];
    if (b0 < 0x80) {
        len = 1;
        if (valid) {
            *valid = true;
        }
        return b0;
    }
    size_t   need;
    uint32_t cpt;
    uint32_t min;
    if ((b0 & 0xE0) == 0xC0) {
        need = 2;
        cpt  = b0 & 0x1F;
        min  = 0x80;
    } else if ((b0 & 0xF0) == 0xE0) {
        need = 3;
        cpt  = b0 & 0x0F;
        min  = 0x800;
    } else if ((b0 & 0xF8) == 0xF0) {
        need = 4;
        cpt  = b0 & 0x07;
        min  = 0x10000;
    } else {
        return fail();
    }
    if (n < need) {
        return fail();
    }
    for (size_t i = 1; i < need; ++i) {
        if ((u[i] & 0xC0) != 0x80) {
            return fail();
        }
        cpt = (cpt << 6) | (u[i] & 0x3F);
    }
    if (cpt < min || cpt > 0x10FFFF || (cpt >= 0xD800 && cpt <= 0xDFFF)) {
        return fail();
    }
    len = need;
    if (valid) {
        *valid = true;
    }
    return cpt;
}

std::vector<uint32_t> llama_unicode_cpts_from_utf8(const std::string & s) {
    std::vector<uint32_t> out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size();) {
        size_t len = 1;
        out.push_back(llama_unicode_decode(s.data() + i, s.size() - i, len));
        i += len;
    }
    return out;
}

void llama_unicode_append_utf8(std::string & out, uint32_t cpt) {
    if (cpt < 0x80) {
        out.push_back(static_cast<char>(cpt));
    } else if (cpt < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cpt >> 6)));
        out.push_back(static_cast<char>(0x80 | (cpt & 0x3F)));
    } else if (cpt < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cpt >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cpt >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cpt & 0x3F)));
    } else if (cpt <= 0x10FFFF) {
        out.push_back(static_cast<char>(0xF0 | (cpt >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cpt >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cpt >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cpt & 0x3F)));
    } else {
        llama_unicode_append_utf8(out, LLAMA_UNICODE_REPLACEMENT);
    }
}

std::string llama_unicode_cpt_to_utf8(uint32_t cpt) {
    std::string s;
    llama_unicode_append_utf8(s, cpt);
    return s;
}

static uint16_t flags_search(uint32_t cpt) {
    // last run whose first <= cpt
    size_t lo = 0;
    size_t hi = llama_unicode_n_flag_runs;
    while (hi - lo > 1) {
        const size_t mid = (lo + hi) / 2;
        if (llama_unicode_flag_runs[mid].first <= cpt) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return llama_unicode_flag_runs[lo].flags;
}

uint16_t llama_unicode_flags(uint32_t cpt) {
    // the BMP is looked up directly: pre-tokenizers ask for every code point of the input
    static const std::vector<uint16_t> bmp = [] {
        std::vector<uint16_t> t(0x10000);
        size_t                run = 0;
        for (uint32_t c = 0; c < 0x10000; ++c) {
            while (run + 1 < llama_unicode_n_flag_runs && llama_unicode_flag_runs[run + 1].first <= c) {
                ++run;
            }
            t[c] = llama_unicode_flag_runs[run].flags;
        }
        return t;
    }();
    if (cpt < 0x10000) {
        return bmp[cpt];
    }
    if (cpt > 0x10FFFF) {
        return LLAMA_UNICODE_CONTROL;
    }
    return flags_search(cpt);
}

uint32_t llama_unicode_tolower(uint32_t cpt) {
    if (cpt < 0x80) {
        return (cpt >= 'A' && cpt <= 'Z') ? cpt + 32 : cpt;
    }
    // runs may interleave (stride 2), so expand them once into a map
    static const std::unordered_map<uint32_t, uint32_t> map = [] {
        std::unordered_map<uint32_t, uint32_t> m;
        for (size_t i = 0; i < llama_unicode_n_lower_runs; ++i) {
            const auto & r = llama_unicode_lower_runs[i];
            for (int32_t k = 0; k < r.count; ++k) {
                const uint32_t c = r.first + static_cast<uint32_t>(k * r.stride);
                m[c]             = static_cast<uint32_t>(static_cast<int64_t>(c) + r.delta);
            }
        }
        return m;
    }();
    const auto it = map.find(cpt);
    return it == map.end() ? cpt : it->second;
}

void llama_unicode_nfd_append(uint32_t cpt, std::vector<uint32_t> & out) {
    // Hangul syllables decompose algorithmically (Unicode ch. 3.12)
    constexpr uint32_t s_base = 0xAC00, l_base = 0x1100, v_base = 0x1161, t_base = 0x11A7;
    constexpr uint32_t l_count = 19, v_count = 21, t_count = 28, n_count = v_count * t_count;
    if (cpt >= s_base && cpt < s_base + l_count * n_count) {
        const uint32_t s = cpt - s_base;
        out.push_back(l_base + s / n_count);
        out.push_back(v_base + (s % n_count) / t_count);
        if (s % t_count) {
            out.push_back(t_base + s % t_count);
        }
        return;
    }
    const auto * begin = llama_unicode_decomps;
    const auto * end   = llama_unicode_decomps + llama_unicode_n_decomps;
    const auto * it =
        std::lower_bound(begin, end, cpt, [](const llama_unicode_decomp & d, uint32_t c) { return d.cpt < c; });
    if (it == end || it->cpt != cpt) {
        out.push_back(cpt);
        return;
    }
    llama_unicode_nfd_append(it->first, out);
    if (it->second) {
        llama_unicode_nfd_append(it->second, out);
    }
}

namespace {
struct byte_alphabet {
    std::array<std::string, 256> to_utf8;
    std::array<int16_t, 512>     from_cpt;  // every alphabet code point is below 0x144

    byte_alphabet() {
        from_cpt.fill(-1);
        // printable Latin-1 bytes stand for themselves; the rest are shifted to 256 + n in byte order
        uint32_t next = 256;
        for (int b = 0; b < 256; ++b) {
            const bool     printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            const uint32_t cpt       = printable ? static_cast<uint32_t>(b) : next++;
            to_utf8[b]               = llama_unicode_cpt_to_utf8(cpt);
            from_cpt[cpt]            = static_cast<int16_t>(b);
        }
    }
};

const byte_alphabet & alphabet() {
    static const byte_alphabet a;
    return a;
}
}  // namespace

const std::string & llama_unicode_byte_to_utf8(uint8_t byte) {
    return alphabet().to_utf8[byte];
}

int llama_unicode_utf8_to_byte(uint32_t cpt) {
    return cpt < 512 ? alphabet().from_cpt[cpt] : -1;
}

bool llama_unicode_is_cjk_ideograph(uint32_t c) {
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
           (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}
