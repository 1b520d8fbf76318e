#!/usr/bin/env bash
# Readies this checkout for scripts/gpu-check.sh on a borrowed bare GPU machine (CUDA toolkit, CMake,
# ninja and Python, but no GoogleTest, Google Benchmark, glslc or Vulkan loader/headers, no network),
# to which the working tree travels with a 64 MiB limit. Run it HERE, on a Debian 12 machine with apt:
#
#   scripts/gpu-check-prepare.sh --slim      # fetch the .debs, pack the models, stash the rest, size it
#   ... the device call it prints (carry: .device) ...
#   scripts/gpu-check-prepare.sh --restore   # put the stashed test data back (git status clean again)
#
# 1. .device/debs/: `apt-get download` of the packages the check's build needs and a bare CUDA image
#    lacks (DEBS below; every Depends of theirs must be one of them or in BASE, else this stops).
#    gpu-check.sh unpacks them with `dpkg -x` into .device/root (never into /) and points CMake there.
# 2. .device/synthetic.tar.xz: tests/data/models/synthetic (73 MB of micro models that share most of
#    their bytes) as one solid xz archive (about 8.5 MB); gpu-check.sh unpacks it when the folder is
#    missing. test-cuda-e2e and test-vulkan-e2e read every model there.
# 3. --slim: moves the tracked test data that the check's tests do not read (tests/data/vocab but the
#    llama-spm vocab of the tinyllama preset, tests/data/reference, and the synthetic models, which
#    travel packed) to .device-stash/ (git-ignored, same paths; it does not travel: carry only .device).
#    --restore moves them back. Both are idempotent; neither overwrites a file that differs.
# 4. Prints what would travel (tracked files present + untracked-not-ignored + .device) and stops with an
#    error above 60 MiB; then prints the device command and the carry list.
#
# Options: --slim, --restore, --no-download (keep .device/debs as it is), -h.
set -euo pipefail
cd "$(dirname "$0")/.." || exit 1

DEV=.device
STASH=.device-stash
LIMIT=$((60 * 1024 * 1024))
# what the check's configure (-DLLAMA_CUDA=ON -DLLAMA_VULKAN=AUTO -DLLAMA_BUILD_TESTS=ON
# -DLLAMA_BUILD_BENCH=ON) finds with find_package/find_program and a bare CUDA image lacks:
#   GoogleTest (tests), Google Benchmark (bench/bench-*.cpp), glslc (Vulkan shaders; Debian 12's
#   libshaderc1 carries glslang and SPIRV-Tools statically), the Vulkan headers and loader.
# Not needed: pkg-config (gpu-check.sh looks for vulkan.h itself), nlohmann-json / cpp-httplib (their
# targets switch themselves off), python3-jinja2 or node (no test the check runs uses them).
DEBS=(libgtest-dev libgmock-dev libbenchmark-dev libbenchmark1debian glslc libshaderc1 libvulkan-dev libvulkan1)
# dependencies that the device already has (any image with a C++ compiler and Python), or that the check
# does not need: googletest is GoogleTest's sources (libgtest-dev ships the built libraries), python3
# only runs a script in libvulkan-dev that the build does not use
BASE=(libc6 libgcc-s1 libstdc++6 gcc-12-base python3 googletest)
# tracked test data the check's tests do not read (grep tests/backend tests/cuda tests/common for
# data_path): the tinyllama preset of gpu-check.sh reads this vocab, everything else in vocab/ stays here
KEEP=(tests/data/vocab/ggml-vocab-llama-spm.gguf)
SLIM_DIRS=(tests/data/vocab tests/data/reference tests/data/models/synthetic)
SYNTH_DIR=tests/data/models/synthetic
SYNTH_TAR=$DEV/synthetic.tar.xz

slim=0 restore=0 download=1
for a in "$@"; do
    case "$a" in
        --slim) slim=1 ;;
        --restore) restore=1 ;;
        --no-download) download=0 ;;
        -h | --help)
            sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
            exit 0
            ;;
        *)
            echo "gpu-check-prepare: unknown option '$a' (--slim, --restore, --no-download)" >&2
            exit 2
            ;;
    esac
done
if [ $slim = 1 ] && [ $restore = 1 ]; then
    echo "gpu-check-prepare: --slim and --restore together make no sense" >&2
    exit 2
fi
die() {
    echo "gpu-check-prepare: $*" >&2
    exit 1
}
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }

# ---- the two folders must be ignored, or they would travel (or be committed) -------------------------
for d in "$DEV" "$STASH"; do
    git check-ignore -q "$d/x" || die "$d/ is not git-ignored: add '/$d/' to .gitignore"
done

# ---- --restore: the stash back into the tree ------------------------------------------------------------
if [ $restore = 1 ]; then
    bad=0 n=0
    if [ -d "$STASH" ]; then
        while IFS= read -r -d '' s; do
            t=${s#"$STASH"/}
            if [ ! -e "$t" ] && [ ! -L "$t" ]; then
                mkdir -p "$(dirname "$t")"
                mv "$s" "$t"
                n=$((n + 1))
            elif cmp -s "$s" "$t"; then
                rm "$s" # put back already (gpu-check.sh unpacks the synthetic models): the same bytes
                n=$((n + 1))
            else
                echo "gpu-check-prepare: $t differs from its stashed copy $s: left both as they are" >&2
                bad=$((bad + 1))
            fi
        done < <(find "$STASH" -type f -print0)
        find "$STASH" -depth -type d -empty -delete
    fi
    echo "gpu-check-prepare: restored $n file(s) from $STASH/"
    [ $bad -eq 0 ] || die "$bad file(s) not restored (they differ): compare and resolve by hand"
    exit 0
fi

mkdir -p "$DEV/debs"

# ---- 1. the .debs -------------------------------------------------------------------------------------
command -v apt-get >/dev/null || die "apt-get not found: run this on a Debian 12 machine"
# every dependency of a package in DEBS must be in DEBS or BASE (checked on each run: a new package
# version with a new dependency stops here rather than on the device)
for p in "${DEBS[@]}"; do
    deps=$(apt-cache depends --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces \
        --no-enhances "$p" 2>/dev/null | awk '/^ *(\|)?(Pre)?Depends:/ { print $2 }' | tr -d '<>' | sed 's/:any$//')
    [ -n "$(apt-cache show "$p" 2>/dev/null | head -1)" ] || die "apt knows no package $p (run apt-get update?)"
    for d in $deps; do
        case " ${DEBS[*]} ${BASE[*]} " in
            *" $d "*) ;;
            *) die "$p depends on $d, which is neither downloaded (DEBS) nor expected on the device (BASE)" ;;
        esac
    done
done
if [ $download = 1 ]; then
    missing=()
    for p in "${DEBS[@]}"; do
        v=$(apt-cache policy "$p" | awk '/Candidate:/ { print $2 }')
        v=${v#*:} # an epoch is not part of the file name
        compgen -G "$DEV/debs/${p}_${v}_*.deb" >/dev/null || missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "gpu-check-prepare: downloading ${missing[*]}"
        # apt-get download writes into the current folder and works as an ordinary user too
        (cd "$DEV/debs" && apt-get download -q "${missing[@]}") || die "apt-get download failed (apt-get update first?)"
    fi
    # one version of each package: drop older versions and packages no longer listed
    for f in "$DEV"/debs/*.deb; do
        name=$(basename "$f")
        p=${name%%_*}
        v=$(apt-cache policy "$p" 2>/dev/null | awk '/Candidate:/ { print $2 }')
        case " ${DEBS[*]} " in *" $p "*) ;; *) v="(none)" ;; esac
        case "$name" in
            "${p}_${v#*:}_"*.deb) ;;
            *) rm -f "$f" && echo "gpu-check-prepare: removed $name" ;;
        esac
    done
fi
for p in "${DEBS[@]}"; do
    compgen -G "$DEV/debs/${p}_*.deb" >/dev/null || die "$DEV/debs has no $p"
done
# the device unpacks them afresh (gpu-check.sh); an unpacked tree from a rehearsal here must not travel
rm -rf "$DEV/root"

# ---- 2. the synthetic models as one solid archive -----------------------------------------------------
# the manifest is of the tracked files (from git), so it stays valid while they sit in the stash
manifest=$(git ls-files -s -- "$SYNTH_DIR")
[ -n "$manifest" ] || die "git tracks nothing in $SYNTH_DIR"
if [ -s "$SYNTH_TAR" ] && [ "$(cat "$DEV/synthetic.index" 2>/dev/null)" = "$manifest" ]; then
    echo "gpu-check-prepare: $SYNTH_TAR is up to date"
else
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    mkdir -p "$tmp/synthetic"
    while read -r _ blob _ path; do
        git cat-file blob "$blob" >"$tmp/synthetic/$(basename "$path")"
    done <<<"$manifest"
    echo "gpu-check-prepare: packing $SYNTH_DIR into $SYNTH_TAR (xz -9, about 20 s)"
    (cd "$tmp" && LC_ALL=C tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -cf - synthetic) |
        xz -9 -T1 >"$SYNTH_TAR.tmp"
    mv "$SYNTH_TAR.tmp" "$SYNTH_TAR"
    printf '%s\n' "$manifest" >"$DEV/synthetic.index"
    rm -rf "$tmp"
    trap - EXIT
fi

# ---- 3. --slim: the test data the check does not read to the stash ------------------------------------
if [ $slim = 1 ]; then
    n=0 bad=0
    while IFS= read -r -d '' f; do
        case " ${KEEP[*]} " in *" $f "*) continue ;; esac
        s=$STASH/$f
        if [ ! -e "$f" ] && [ ! -L "$f" ]; then
            continue # moved already (or deleted by hand: --restore brings back what the stash has)
        elif [ -e "$s" ] && ! cmp -s "$f" "$s"; then
            echo "gpu-check-prepare: $s exists and differs from $f: left both as they are" >&2
            bad=$((bad + 1))
            continue
        fi
        mkdir -p "$(dirname "$s")"
        mv -f "$f" "$s"
        n=$((n + 1))
    done < <(git ls-files -z -- "${SLIM_DIRS[@]}")
    echo "gpu-check-prepare: moved $n file(s) to $STASH/ (scripts/gpu-check-prepare.sh --restore moves them back)"
    [ $bad -eq 0 ] || die "$bad file(s) not moved (the stash holds another version): resolve by hand"
fi

# ---- 4. what travels ------------------------------------------------------------------------------------
# tracked files present in the tree + untracked files git does not ignore + the carried .device
size_of() { xargs -0 -r stat -c %s -- 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }
tracked=$(git ls-files -z | while IFS= read -r -d '' f; do
    [ -e "$f" ] || [ -L "$f" ] && printf '%s\0' "$f"
done | size_of)
untracked=$(git ls-files -z --others --exclude-standard | size_of)
carried=$(find "$DEV" -type f -print0 | size_of)
total=$((tracked + untracked + carried))
echo "gpu-check-prepare: travels $(mib "$total"): tracked $(mib "$tracked"), untracked $(mib "$untracked"), $DEV $(mib "$carried")"
echo "  .debs in $DEV/debs: $(mib "$(find "$DEV/debs" -name '*.deb' -print0 | size_of)") (bytes each)"
for f in "$DEV"/debs/*.deb; do
    printf '    %-52s %8s\n' "$(basename "$f")" "$(stat -c %s "$f")"
done
if [ "$total" -gt "$LIMIT" ]; then
    [ $slim = 1 ] || echo "gpu-check-prepare: run it with --slim to leave the test data the check does not read behind" >&2
    die "$(mib "$total") would travel: over the $(mib "$LIMIT") this check allows itself (the device takes 64 MiB)"
fi
[ -d "$SYNTH_DIR" ] && [ -n "$(ls "$SYNTH_DIR" 2>/dev/null)" ] &&
    echo "gpu-check-prepare: note: $SYNTH_DIR is still in the tree (it travels twice: run --slim)" >&2

# ---- 5. the device call ---------------------------------------------------------------------------------
# gpu-check.sh writes $OUT/gpu-summary.md and $OUT/gpu-logs/*; only 8 files come back, so the logs come
# back as one archive
# shellcheck disable=SC2016 # expanded on the device
cmd='bash scripts/gpu-check.sh; rc=$?; if [ -d "$OUT/gpu-logs" ]; then tar -C "$OUT" -czf /tmp/gpu-logs.tgz gpu-logs && rm -rf "$OUT/gpu-logs" && mv /tmp/gpu-logs.tgz "$OUT/"; fi; exit $rc'
cat <<EOF

Device call (run from the checkout the session was started in, with this branch checked out):
  command:   $cmd
  carry:     ["$DEV"]
  timeout_s: 600
Then: scripts/gpu-check-prepare.sh --restore
EOF
