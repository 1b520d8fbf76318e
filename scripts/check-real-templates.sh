#!/usr/bin/env bash
# Renders every *.jinja of DIR (real models' chat templates, kept outside the repository) over the
# conversations of tests/data/jinja/contexts with our engine (the C API, through the built
# test-jinja-conformance) and with Jinja2 (scripts/jinja-reference.py), and reports per template:
# equal / differ (first difference) / both-fail / only-ours-fails / only-reference-fails, per context.
# A tool, not a test: both-fail is normal (templates refuse some conversation shapes).
#   usage: scripts/check-real-templates.sh DIR [-v]      (-v: the details of every context)
#   env:   BUILD_DIR (default build; cmake --build build --target test-jinja-conformance first)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:?usage: scripts/check-real-templates.sh DIR [-v]}
verbose=${2:-}
build=${BUILD_DIR:-$root/build}
bin=$(find "$build" -type f -name test-jinja-conformance -perm -u+x | head -1)
if [ -z "$bin" ]; then
    echo "check-real-templates: no test-jinja-conformance in $build (cmake --build $build --target test-jinja-conformance)"
    exit 1
fi

# the chat conversations (values.json holds plain variables for the feature templates)
list=$(mktemp)
trap 'rm -f "$list"' EXIT
n=0
for t in "$dir"/*.jinja; do
    [ -e "$t" ] || { echo "check-real-templates: no *.jinja in $dir"; exit 1; }
    n=$((n + 1))
    for c in "$root"/tests/data/jinja/contexts/*.json; do
        case "$(basename "$c")" in values.json) continue ;; esac
        printf '%s\t%s\n' "$(cd "$(dirname "$t")" && pwd)/$(basename "$t")" "$c" >> "$list"
    done
done

LLAMA_JINJA_CHECK_LIST=$list "$bin" --gtest_filter=JinjaConformance.ExternalTemplates --gtest_brief=1 |
    grep -a '^check	' | awk -F '\t' -v verbose="$verbose" -v ntemplates="$n" '
    {
        t = $2
        if (!(t in seen)) { seen[t] = 1; order[++nt] = t }
        count[t, $4]++; total[$4]++
        if ($4 != "equal" && $4 != "both-fail" || verbose != "") {
            detail[t] = detail[t] sprintf("    %-24s %-20s %s\n", $3, $4, substr($5, 1, 400))
        }
    }
    END {
        split("equal differ both-fail only-ours-fails only-reference-fails", kinds, " ")
        for (i = 1; i <= nt; i++) {
            t = order[i]; line = ""
            for (k = 1; k <= 5; k++) if (count[t, kinds[k]]) line = line sprintf(" %s %d", kinds[k], count[t, kinds[k]])
            verdict = (count[t, "differ"] || count[t, "only-ours-fails"] || count[t, "only-reference-fails"]) ? "MISMATCH" : "ok"
            printf "%-8s %s:%s\n", verdict, t, line
            printf "%s", detail[t]
        }
        printf "\n%d templates; contexts:", ntemplates
        for (k = 1; k <= 5; k++) printf " %s %d", kinds[k], total[kinds[k]] + 0
        printf "\n"
    }'
