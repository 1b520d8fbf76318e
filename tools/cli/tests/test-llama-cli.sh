#!/usr/bin/env bash
# llama-cli driven through pipes (and a pseudo-terminal for colours) on stories260K.
#   test-llama-cli.sh CASE CLI_BIN GREEDY_REF_BIN MODEL      CASE: oneshot | chat | shift | tty
set -uo pipefail
case=$1 cli=$2 greedy=$3 model=$4
fail() { echo "FAIL: $*"; exit 1; }
esc=$'\033'

case "$case" in
    oneshot)
        # --raw -p with --temp 0 prints exactly the library's greedy continuation
        hex=$("$greedy" "$model" 32 "Once upon a time") || fail "greedy-ref failed"
        want=$(printf '%b' "$(printf '%s' "$hex" | sed 's/../\\x&/g')")
        got=$("$cli" -m "$model" --raw -p "Once upon a time" -n 32 --temp 0) || fail "llama-cli exited with $?"
        [ "$got" = "$want" ] || fail "greedy output differs: got [$got] want [$want]"
        json=$("$cli" -m "$model" --raw -p "Once upon a time" -n 32 --temp 0 --json) || fail "--json exited with $?"
        case "$json" in
            "{\"content\":\"${want//\"/\\\"}\",\"finish_reason\":\""*"\"tokens_generated\":"*) ;;
            *) fail "--json output: $json" ;;
        esac
        "$cli" -m "$model" --temp nope >/dev/null 2>&1
        [ $? = 1 ] || fail "a bad flag value must exit 1"
        ;;
    chat)
        # two turns (the second one multiline), /exit ends the chat before the last line
        out=$(printf 'Hello\nTell me more \\\nplease\n/exit\nnot sent\n' |
              "$cli" -m "$model" --temp 0 -n 16 -sys "You tell stories." --json) || fail "exit $?"
        n=$(printf '%s\n' "$out" | grep -c '^{"content":')
        [ "$n" = 2 ] || fail "expected 2 replies, got $n: $out"
        out=$(printf 'Hello\nAgain\n' | "$cli" -m "$model" --temp 0 -n 8) || fail "exit $?"
        [[ "$out" != *"$esc"* ]] || fail "colour escapes on a pipe"
        n=$(printf '%s' "$out" | grep -o '> ' | wc -l)
        [ "$n" -ge 3 ] || fail "expected 3 prompts: $out"
        ;;
    shift)
        # a 128-token context fills after a few turns: the chat goes on (context shift)
        out=$(printf 'One\nTwo\nThree\nFour\nFive\nSix\n' |
              "$cli" -m "$model" -c 128 -n 40 --temp 0 --ignore-this 2>&1)
        [ $? = 1 ] || fail "unknown flag must exit 1"
        out=$(printf 'One\nTwo\nThree\nFour\nFive\nSix\n' |
              "$cli" -m "$model" -c 128 -n 40 --temp 0 --json -v 2>err.log) || { cat err.log; fail "exit $?"; }
        n=$(printf '%s\n' "$out" | grep -c '^{"content":')
        [ "$n" = 6 ] || fail "expected 6 replies, got $n: $out"
        grep -q "context full" err.log || fail "no context shift reported"
        printf '%s\n' "$out" | grep -q '"context_shifts":[1-9]' || fail "no reply counted a shift: $out"
        rm -f err.log
        ;;
    cache)
        # --prompt-cache: a warm run reuses the saved prompt and prints what a cold run prints
        dir=$(mktemp -d)
        trap 'rm -rf "$dir"' EXIT
        run() { "$cli" -m "$model" --raw -p "$1" -n 16 --temp 0 --json ${2:+--prompt-cache "$2"}; }
        cold=$(run "Once upon a time there was a big dog" "$dir/p.bin") || fail "cold run exit $?"
        [ -s "$dir/p.bin" ] || fail "no prompt cache file written"
        warm=$(run "Once upon a time there was a big dog" "$dir/p.bin") || fail "warm run exit $?"
        [[ "$cold" == *'"tokens_cached":0,'* ]] || fail "cold run reused tokens: $cold"
        [[ "$warm" =~ \"tokens_prompt\":([0-9]+).*\"tokens_cached\":([0-9]+) ]] || fail "warm run: $warm"
        [ "${BASH_REMATCH[2]}" = $((BASH_REMATCH[1] - 1)) ] || fail "warm run did not reuse the prompt: $warm"
        [ "${cold%%\"context_shifts\"*}" = "${warm%%\"context_shifts\"*}" ] || fail "warm output differs: $cold / $warm"
        other=$(run "Once upon a time there was a cat" "$dir/p.bin") || fail "exit $?"
        plain=$(run "Once upon a time there was a cat") || fail "exit $?"
        [[ "$other" == *'"tokens_cached":'[1-9]* ]] || fail "a shared prefix was not reused: $other"
        [ "${other%%\"context_shifts\"*}" = "${plain%%\"context_shifts\"*}" ] || fail "partial reuse changed the output"
        echo garbage >"$dir/p.bin"
        run "Once upon a time" "$dir/p.bin" >/dev/null || fail "a damaged cache file must be a cold start"
        ;;
    tty)
        command -v script >/dev/null 2>&1 || { echo "SKIP: no script(1)"; exit 77; }
        out=$(printf 'Hello\n/exit\n' | script -qefc "'$cli' -m '$model' --temp 0 -n 8" /dev/null) || fail "exit $?"
        [[ "$out" == *"$esc[33m"* ]] || fail "no colours on a terminal: $out"
        ;;
    *) fail "unknown case $case" ;;
esac
echo PASS
