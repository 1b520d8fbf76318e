#!/usr/bin/env bash
# Checks an arm64 build for instructions above each object's kernel level, by disassembly, so that a
# CPU without them (cortex-a72: ARMv8.0 NEON; neoverse-n1: no i8mm) can never meet one, whichever path
# runs. The kernel files carry their level in the name (cmake/LlamaCpuArch.cmake): *.dotprod.* may use
# dotprod and FP16 arithmetic, *.i8mm.* anything; every other object must stay within ARMv8.0 (NEON,
# and half-precision only as conversions to and from single precision).
# The numerical checks of every level's kernels against the scalar oracle run under `-cpu max`, which
# has every level (scripts/test-cross.sh); the lower emulated CPUs then run what depends on the level
# the CPU detects.
#   scripts/check-arm64-levels.sh BUILD_DIR    (OBJDUMP [aarch64-linux-gnu-objdump])
# Exit status: 0 clean, 1 an instruction above its object's level (each printed), 2 usage.
set -euo pipefail
dir=${1:-}
[ -n "$dir" ] && [ -d "$dir" ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
objdump=${OBJDUMP:-aarch64-linux-gnu-objdump}

# the objects of libggml and libllama (the programs and tests add no kernel of their own)
mapfile -t objs < <(find "$dir" -name '*.o' -path '*CMakeFiles*' \( -path '*ggml*' -o -path '*llama-obj*' \) | sort)
[ ${#objs[@]} -gt 10 ] || { echo "check-arm64-levels: no objects under $dir" >&2; exit 2; }

# $1 = level (neon | dotprod), stdin = objdump -d: prints the offending lines
above() {
    awk -v level="$1" '
    # instruction lines: "  address:\tencoding \tmnemonic\toperands"
    /^ *[0-9a-f]+:\t[0-9a-f]+ *\t/ {
        n = split($0, f, "\t")
        if (n < 3) next
        op = f[3]; sub(/ .*/, "", op)
        args = n >= 4 ? f[4] : ""
        bad = 0
        # i8mm and bf16 (FEAT_I8MM, FEAT_BF16): only in *.i8mm.* objects
        if (op ~ /^(smmla|ummla|usmmla|usdot|sudot|bfmmla|bfdot|bfcvt|bfcvtn|bfcvtn2|bfmlalb|bfmlalt)$/) bad = 1
        if (level == "neon") {
            # dotprod (FEAT_DotProd)
            if (op ~ /^(sdot|udot)$/) bad = 1
            # half-precision arithmetic (FEAT_FP16): a floating-point instruction on h lanes or h
            # registers, except the ARMv8.0 conversions between half and single precision and the
            # half-precision loads and stores
            if ((op ~ /^f/ || op ~ /^[su]cvtf$/) && op !~ /^(fcvt|fcvtl|fcvtl2|fcvtn|fcvtn2)$/ &&
                (args ~ /v[0-9]+\.[48]h/ || args ~ /(^|[ ,])h[0-9]+([ ,]|$)/)) bad = 1
        }
        if (bad) print "  " op " " args
    }'
}

status=0
for o in "${objs[@]}"; do
    case "$o" in
    *.i8mm.c.o | *.i8mm.cpp.o) continue ;;
    *.dotprod.c.o | *.dotprod.cpp.o) level=dotprod ;;
    *) level=neon ;;
    esac
    found=$("$objdump" -d "$o" 2>/dev/null | above "$level" | sort | uniq -c | head -5 || true)
    if [ -n "$found" ]; then
        echo "check-arm64-levels: $o ($level) uses instructions above its level:"
        echo "$found"
        status=1
    fi
done
[ $status = 0 ] && echo "check-arm64-levels: ${#objs[@]} objects within their levels"
exit $status
