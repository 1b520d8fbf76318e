#!/usr/bin/env python3
"""Writes tests/data/pretok-vectors.txt: the pieces every BPE pre-tokenizer rule set should cut a set
of probe texts into, computed independently of the C++ code.

    python3 scripts/gen-pretok-vectors.py > tests/data/pretok-vectors.txt

The reference is the split expressions of upstream llama.cpp (commit 4df29be4, llm_tokenizer_bpe),
run with Python's `re` after rewriting the Unicode properties it lacks (\\p{L}, \\p{Lu}, \\s, ...)
into explicit code point classes built from `unicodedata`. Where upstream splits with hand-written
code instead of its expression (afmoe/tiny_aya digit groups, superbpe's zero-width digit cuts, the
kimi-k2 splitter), that code's rule is written here in Python. Each stage splits every piece of the
stage before into its matches and the gaps between them, as upstream's unicode_regex_split does.
The probes are hand-written texts plus seeded random mixes of the characters the rules tell apart.

Output, one line each: `T <hex of the UTF-8 text>` opens a probe text; `S <rule set> <piece byte
lengths, comma-separated>` follows for each rule set (canonical name, see src/llama-vocab-pretok.cpp).
Python's Unicode tables may be older than the C++ tables (15.0): the probe texts use no code point
assigned after Unicode 14.
"""
import random
import re
import sys
import unicodedata

MAX = 0x110000
WHITE_SPACE = set(list(range(0x09, 0x0E)) + [0x20, 0x85, 0xA0, 0x1680] + list(range(0x2000, 0x200B)) +
                  [0x2028, 0x2029, 0x202F, 0x205F, 0x3000])


def is_han(c):  # upstream's unicode_cpt_is_han ranges
    return (0x4E00 <= c <= 0x9FFF or 0x3400 <= c <= 0x4DBF or 0x20000 <= c <= 0x2A6DF or
            0x2A700 <= c <= 0x2EBEF or 0xF900 <= c <= 0xFAFF or 0x2F800 <= c <= 0x2FA1F)


def build_props():
    preds = {
        'L': lambda c, cat: cat[0] == 'L', 'N': lambda c, cat: cat[0] == 'N',
        'P': lambda c, cat: cat[0] == 'P', 'S': lambda c, cat: cat[0] == 'S',
        'M': lambda c, cat: cat[0] == 'M', 'Lu': lambda c, cat: cat == 'Lu',
        'Ll': lambda c, cat: cat == 'Ll', 'Lt': lambda c, cat: cat == 'Lt',
        'Lm': lambda c, cat: cat == 'Lm', 'Lo': lambda c, cat: cat == 'Lo',
        'Han': lambda c, cat: is_han(c), 's': lambda c, cat: c in WHITE_SPACE,
    }
    out = {}
    cats = [unicodedata.category(chr(c)) for c in range(MAX)]
    for name, pred in preds.items():
        ranges, start = [], None
        for c in range(MAX + 1):
            inside = c < MAX and pred(c, cats[c])
            if inside and start is None:
                start = c
            elif not inside and start is not None:
                ranges.append((start, c - 1))
                start = None
        out[name] = ''.join(esc(a) if a == b else esc(a) + '-' + esc(b) for a, b in ranges)
    return out


def esc(c):
    return '\\U%08x' % c


def translate(expr, props):
    """Rewrites \\p{X}, \\s, \\S and $ into what Python's re understands, with the same meaning."""
    expr = expr.replace('[\\p{L}&&[^\\p{Han}]]', '(?:(?!\\p{Han})\\p{L})')
    out, i, inside = [], 0, False
    while i < len(expr):
        ch = expr[i]
        if ch == '\\' and i + 1 < len(expr):
            nx = expr[i + 1]
            if nx == 'p':
                j = expr.index('}', i)
                body = props[expr[i + 3:j]]
                out.append(body if inside else '[' + body + ']')
                i = j + 1
                continue
            if nx == 's':
                out.append(props['s'] if inside else '[' + props['s'] + ']')
                i += 2
                continue
            if nx == 'S':
                assert not inside
                out.append('[^' + props['s'] + ']')
                i += 2
                continue
            out.append(expr[i:i + 2])
            i += 2
            continue
        if ch == '[' and not inside:
            inside = True
        elif ch == ']' and inside and expr[i - 1:i + 1] != '[]':
            inside = False
        elif ch == '$' and not inside:
            ch = '\\Z'  # the end of the piece, never before a final newline
        out.append(ch)
        i += 1
    return ''.join(out)


CONTRACTIONS = "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])"
GPT2 = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)"
LLAMA3 = CONTRACTIONS + "|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"
QWEN2 = CONTRACTIONS + "|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"
BLOOM = " ?[^(\\s|.,!?…。，、।۔،)]+"
NEWLINES = "[^\\n]+|[\\n]+"
WORDS_AFTER_PUNCT = ("[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\\r\\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+|"
                     " ?[\\p{P}\\p{S}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+")
CASED_TAIL = "\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"
DS_LETTERS = ('\\s?[A-Za-z\xb5\xc0-\xd6\xd8-\xf6\xf8-\u01ba\u01bc-\u01bf\u01c4-\u0293\u0295-\u02af\u0370-\u0373'
              '\u0376\u0377\u037b-\u037d\u037f\u0386\u0388-\u038a\u038c\u038e-\u03a1\u03a3-\u03f5\u03f7-\u0481'
              '\u048a-\u052f\u0531-\u0556\u10a0-\u10c5\u13a0-\u13f5\u13f8-\u13fd\u1c90-\u1cba\u1cbd-\u1cbf\u1d00-'
              '\u1d2b\u1d6b-\u1d77\u1d79-\u1d9a\u1e00-\u1f15\u1f18-\u1f1d\u1f20-\u1f45\u1f48-\u1f4d\u1f50-\u1f57'
              '\u1f59\u1f5b\u1f5d\u1f5f-\u1f7d\u1f80-\u1fb4\u1fb6-\u1fbc\u1fbe\u1fc2-\u1fc4\u1fc6-\u1fcc\u1fd0-'
              '\u1fd3\u1fd6-\u1fdb\u1fe0-\u1fec\u1ff2-\u1ff4\u1ff6-\u1ffc\u2102\u2107\u210a-\u2113\u2115\u2119-'
              '\u211d\u2124\u2126\u2128\u212a-\u212d\u212f-\u2134\u2139\u213c-\u213f\u2145-\u2149\u214e\u2183'
              '\u2184\u2c00-\u2c7b\u2c7e-\u2ce4\u2ceb-\u2cee\u2cf2\u2cf3\ua640-\ua66d\ua680-\ua69b\ua722-\ua76f'
              '\ua771-\ua787\ua78b-\ua78e\uab70-\uabbf\ufb00-\ufb06\ufb13-\ufb17\uff21-\uff3a\uff41-\uff5a'
              '\U00010400-\U0001044f\U000104b0-\U000104d3\U000104d8-\U000104fb\U00010c80-\U00010cb2\U00010cc0-'
              '\U00010cf2\U000118a0-\U000118df\U0001e900-\U0001e943]+')
CASED_GPT4O = ("[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))*((?=[\\p{L}])([^A-Z]))+" + CONTRACTIONS +
               "?|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))+((?=[\\p{L}])([^A-Z]))*" + CONTRACTIONS + "?|" + CASED_TAIL)
CASED_PROPER = ("[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+" + CONTRACTIONS +
                "?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*" + CONTRACTIONS + "?|")

# digit-group stages: ('digits3', ascii_only)
RULES = {
    'default': ["[\\p{P}\\$\\+<=>\\^~\\|]+", GPT2, "\\p{N}+", "[0-9][0-9][0-9]"],
    'gpt-2': [GPT2],
    'llama-bpe': [LLAMA3],
    'qwen2': [QWEN2],
    'deepseek-llm': ["[\r\n]", DS_LETTERS, "\\s?[!-/:-~！-／：-～‘-‟　-。]+", "\\s+$", "[一-龥ࠀ-一가-퟿]+", "\\p{N}+"],
    'deepseek-coder': ["[\r\n]", "\\s?\\p{L}+", "\\s?\\p{P}+", "[一-龥ࠀ-一가-퟿]+", "\\p{N}"],
    'falcon': ["[\\p{P}\\$\\+<=>\\^~\\|`]+", GPT2, "[0-9][0-9][0-9]"],
    'starcoder': ["\\p{N}", GPT2],
    'jais-2': [CONTRACTIONS + "|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|"
               "\\s{512}(?!\\S)|\\s{256}(?!\\S)|\\s{128}(?!\\S)|\\s{64}(?!\\S)|\\s{32}(?!\\S)|\\s{16}(?!\\S)|"
               "\\s{8}(?!\\S)|\\s{4}(?!\\S)|\\s{1,2}(?!\\S)|\\s{1}"],
    'deepseek-v3': ["\\p{N}{1,3}", "[一-龥぀-ゟ゠-ヿ]+", WORDS_AFTER_PUNCT],
    'youtu': ["[가-힣ㄱ-ㆎ]+|[！…“”‘’—：；，、-〿︰-﹏]+|[ㄅ-ㄯ]+|[一-龥぀-ゟ゠-ヿ]+",
              CASED_PROPER.replace(CASED_TAIL, '') + "\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"],
    'qwen35': [CONTRACTIONS + "|[^\\r\\n\\p{L}\\p{N}]?[\\p{L}\\p{M}]+|\\p{N}| ?[^\\s\\p{L}\\p{M}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"],
    'bloom': [BLOOM],
    'viking': [BLOOM, "\\p{N}"],
    'tekken': ["[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))*((?=[\\p{L}])([^A-Z]))+|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^"
               "a-z]))+((?=[\\p{L}])([^A-Z]))*|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"],
    'chameleon': ["<sentinel:[0-9]+>", "(IMGIMG)((A|B|C|D|E|F|G|H|I){1,4})Z", "([\\t\\n]|    |  )", "\\p{N}",
                  "[\\p{P}!-/:-@\\[-`{-~]", GPT2],
    'gpt-4o': [CASED_GPT4O],
    'granite-embed-multi-97m': [CASED_GPT4O.replace("(?=[\\p{L}])", "(?=[\\p{L}\\p{M}])")],
    'tiny_aya': [('digits3', False), CASED_PROPER + CASED_TAIL],
    'kimi-k2': ["\\p{Han}+|[^\\r\\n\\p{L}\\p{N}]?[\\p{L}&&[^\\p{Han}]]+" + CONTRACTIONS +
                "?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"],
    'superbpe': ["\\p{N}+", ('digits3', True)],
    'bailingmoe': ["'(?:[sSdDmMtT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
                   "\\s*[\\r\\n]|\\s+(?!\\S)|\\s+"],
    'seed-coder': [CONTRACTIONS + "|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1}| ?[^\\s\\p{L}\\p{N}\\r\\n]+|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"],
    'afmoe': [('digits3', False), "[一-鿿㐀-䶿豈-﫿぀-ゟ゠-ヿ･-ﾟ⼀-⿟เ-๿຀-໿ក-៿က-႟ꩠ-ꩿꧠ-꧿가-힯ᄀ-ᇿ]+", WORDS_AFTER_PUNCT],
    'laguna': [NEWLINES, QWEN2],
    'exaone-moe': [CONTRACTIONS + "|[^\\r\\n\\p{L}\\p{N}]?(?:\\p{L}\\p{M}*(?: \\p{L}\\p{M}*)*)+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]?|"
                   "\\s*[\\r\\n]|\\s+(?!\\S)|\\s+"],
    'gemma4': [NEWLINES],
    'minicpm5': ["\\p{N}{1,3}", CONTRACTIONS + "|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}+| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|"
                 "\\s+(?!\\S)|\\s+"],
    'whitespace': ["\\S+"],
}


def digit_cuts(piece, ascii_only):
    """Cut points of digit runs grouped by three from the right (upstream's afmoe splitter, and
    superbpe's (?=(\\d{3})+(?!\\d)) zero-width matches)."""
    def is_digit(ch):
        return '0' <= ch <= '9' if ascii_only else unicodedata.category(ch)[0] == 'N'
    cuts, i = set(), 0
    while i < len(piece):
        if not is_digit(piece[i]):
            i += 1
            continue
        j = i
        while j < len(piece) and is_digit(piece[j]):
            j += 1
        cuts.update(k for k in range(j, i - 1, -3))
        cuts.add(i)
        i = j
    cuts.update((0, len(piece)))
    cuts = sorted(cuts)
    return [(a, b) for a, b in zip(cuts, cuts[1:]) if a < b]


def split_stage(piece, stage):
    if isinstance(stage, tuple):
        return [piece[a:b] for a, b in digit_cuts(piece, stage[1])]
    out, gap = [], 0
    for m in stage.finditer(piece):
        if m.end() == m.start():
            continue
        if gap < m.start():
            out.append(piece[gap:m.start()])
        out.append(m.group(0))
        gap = m.end()
    if gap < len(piece):
        out.append(piece[gap:])
    return out


PROBES = [
    "Hello world's  x\n",
    "HELLO WORLD THEY'LL we'RE I'M it's don't 'S 'T a'sb",
    "ÉCOLE école Straße ǅemal ǈ ᾈ ΣΊΣΥΦΟΣ",
    "HelloWorld camelCase XMLHttpRequest iPhone ABCdef",
    "1 12 123 1234 12345 1234567 ١٢٣٤٥ ½⅓",
    "x=123;y=4.5e-6 1,234,567.89 and 0000 ABC123def456",
    "   leading and trailing   ",
    "a\n\nb\r\n c \n\n  \n",
    "\t\ttabs\t and\tmore",
    "中文字符测试，你好！Chinese中文mixed 漢字123",
    "日本語のひらがなとカタカナ、ｶﾀｶﾅ。",
    "한국어 텍스트 ㄱㄴ ㄅㄆ",
    "emoji 🦙🦙 ok 👍🏽! ❤️",
    "naïve café e\u0301 resume\u0301 \u0301x",
    "!!! ??? ... --- *** ::",
    "<sentinel:12> IMGIMGABCZ IMGIMGABCDEFZ",
    "    code\n        indented();\n\treturn x;\n",
    "ПРИВЕТ мир Ωmega ʰʲ modifier ˢ",
    "a  b   c    d     e",
    " " * 515 + "x" + " " * 9 + "y",
    "path/to/file.txt\n//comment /* x */",
    "$100 + 20% <= ~x | y ^ z `q` @#&",
    "ثلاثة١٢٣ हिन्दी। اردو۔ ١،٢",
    "x\u00a0y\u3000z\u2028w\u0085v",
    "end with space ",
    "  \n",
    "'s",
    "ไทย ภาษา ພາສາລາວ ខ្មែរ မြန်မာ",
    "A. B, C! D? E… F。",
]


# Seeded random mixes of the characters the rules tell apart, so that interactions no hand-written
# probe thought of are covered too (the same seed gives the same file).
RANDOM_ALPHABET = (list("aAbZzq 's'T'LL're'VE\n\r\t0123456789!?.,;:/()[]{}<>$+=^~|`@#_-\"") +
                   list("中文字漢あアｶ가ㄱㄅÉéǅʰΣßǈᾈ\u0301\u0300🦙👍🏽\u00a0\u3000\u2028\u0085١٢½ไทยहि।۔،…。，、！") +
                   ["IMGIMG", "<sentinel:", "  ", "    "])


def random_probes(n, seed=20261203):
    rng = random.Random(seed)
    return [''.join(rng.choice(RANDOM_ALPHABET) for _ in range(rng.randint(1, 40))) for _ in range(n)]


def main():
    props = build_props()
    compiled = {name: [s if isinstance(s, tuple) else re.compile(translate(s, props)) for s in stages]
                for name, stages in RULES.items()}
    out = []
    for text in PROBES + random_probes(30):
        out.append('T ' + text.encode('utf-8').hex())
        for name, stages in compiled.items():
            pieces = [text]
            for st in stages:
                pieces = [q for p in pieces for q in split_stage(p, st)]
            assert ''.join(pieces) == text
            out.append('S %s %s' % (name, ','.join(str(len(p.encode('utf-8'))) for p in pieces)))
    sys.stdout.write('\n'.join(out) + '\n')


if __name__ == '__main__':
    main()
