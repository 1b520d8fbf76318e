#!/usr/bin/env bash
# llama-cli driven through pipes (and a pseudo-terminal for colours) on stories260K.
#   test-llama-cli.sh CASE CLI_BIN GREEDY_REF_BIN MODEL [GGUF_SYNTH_BIN]
#   CASE: oneshot | chat | shift | cache | tty | grammar | samplers | jinja | args | spec | lora (needs GGUF_SYNTH_BIN)
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
    spec)
        # speculative decoding (-md, --spec-type ngram) prints the same greedy text as plain decoding,
        # reports its acceptance on stderr, and refuses llama.cpp drafter types it lacks by name
        rep="the dog ran. the dog ran. the dog ran. the dog ran. the dog"
        for prompt in "Once upon a time" "$rep"; do
            want=$("$cli" -m "$model" --raw -p "$prompt" -n 48 --temp 0) || fail "plain exited with $?"
            for flags in "-md $model" "-md $model --draft-max 1 --draft-p-min 0" "--spec-type ngram" \
                         "--spec-type ngram-simple --draft-max 16" "-md $model -devd none -ctkd f32 -ctvd f32 -td 1"; do
                # shellcheck disable=SC2086
                got=$("$cli" -m "$model" --raw -p "$prompt" -n 48 --temp 0 $flags 2>err.log) || fail "$flags: exit $?"
                [ "$got" = "$want" ] || fail "$flags: got [$got] want [$want]"
                grep -q "^speculative: [0-9]* drafted" err.log || fail "$flags: no acceptance line: $(cat err.log)"
            done
        done
        # chat turns and context shifts (a 128-token context) keep the plain text too
        for input in 'Hello\nTell me a story\nAgain\n' 'One\nTwo\nThree\nFour\nFive\nSix\n'; do
            want=$(printf "$input" | "$cli" -m "$model" -c 128 -n 40 --temp 0 --json | sed 's/"ms":[0-9.]*//') ||
                fail "plain chat exited with $?"
            for flags in "-md $model --draft-p-min 0" "--spec-type ngram"; do
                # shellcheck disable=SC2086
                got=$(printf "$input" | "$cli" -m "$model" -c 128 -n 40 --temp 0 --json $flags 2>/dev/null |
                      sed 's/"ms":[0-9.]*//') || fail "$flags chat: exit $?"
                [ "$got" = "$want" ] || fail "$flags chat: got [$got] want [$want]"
            done
        done
        "$cli" -m "$model" --raw -p "$rep" -n 48 --temp 0 --spec-type ngram 2>err.log >/dev/null
        grep -qE "^speculative: [0-9]+ drafted, [1-9][0-9]* accepted" err.log ||
            fail "n-gram drafts on a repetitive prompt were never accepted: $(cat err.log)"
        # MTP drafting with the model's own NextN head (--spec-type mtp loads it): the plain text too
        mtp="$(dirname "$0")/../../../tests/data/models/synthetic/qwen35-mtp-micro-f16.gguf"
        want=$("$cli" -m "$mtp" --raw -p "Once upon a time" -n 32 --temp 0) || fail "plain (MTP model) exited with $?"
        for flags in "--spec-type draft-mtp" "--spec-type mtp --draft-max 3 --draft-p-min 0"; do
            # shellcheck disable=SC2086
            got=$("$cli" -m "$mtp" --raw -p "Once upon a time" -n 32 --temp 0 $flags 2>err.log) || fail "$flags: exit $?"
            [ "$got" = "$want" ] || fail "$flags: got [$got] want [$want]"
            grep -q "^speculative: [0-9]* drafted" err.log || fail "$flags: no acceptance line: $(cat err.log)"
        done
        # the last run (no probability cut) drafted: the head ran
        grep -qE "^speculative: [1-9][0-9]* drafted" err.log || fail "the MTP head drafted nothing: $(cat err.log)"
        out=$("$cli" -m "$model" -p x --spec-type mtp 2>&1)
        [ $? != 0 ] || fail "--spec-type mtp on a model without an MTP head must fail"
        [[ "$out" == *"load_mtp"* ]] || fail "the refusal must name load_mtp: $out"
        out=$("$cli" -m "$model" -p x --spec-type draft-eagle3 2>&1)
        [ $? = 1 ] || fail "--spec-type draft-eagle3 must exit 1"
        [[ "$out" == *"draft-eagle3"* ]] || fail "the refusal must name the type: $out"
        out=$("$cli" -m "$model" -p x --spec-type draft-simple 2>&1)
        [ $? != 0 ] || fail "--spec-type draft-simple without -md must fail"
        [[ "$out" == *"-md"* ]] || fail "the refusal must say -md is missing: $out"
        out=$("$cli" -m "$model" -p x -md "$model" -devd NoSuchDevice 2>&1)
        [ $? != 0 ] || fail "-devd with an unknown device must fail"
        [[ "$out" == *"-devd: no device named NoSuchDevice"* ]] || fail "the refusal must name -devd: $out"
        rm -f err.log
        ;;
    args)
        # llama.cpp's spellings: -f (the prompt from a file), -no-cnv (plain completion), -sys, -n -1,
        # LLAMA_ARG_* variables with argv winning, and unsupported flags in one line
        dir=$(mktemp -d)
        trap 'rm -rf "$dir"' EXIT
        hex=$("$greedy" "$model" 24 "Once upon a time") || fail "greedy-ref failed"
        want=$(printf '%b' "$(printf '%s' "$hex" | sed 's/../\\x&/g')")
        plain=$want
        printf 'Once upon a time\n' >"$dir/prompt.txt"  # the final newline is dropped, as upstream
        got=$("$cli" -m "$model" -no-cnv -f "$dir/prompt.txt" -n 24 --temp 0) || fail "-f exited with $?"
        [ "$got" = "$want" ] || fail "-no-cnv -f differs from the greedy continuation: got [$got] want [$want]"
        got=$(LLAMA_ARG_N_PREDICT=24 "$cli" -m "$model" --no-conversation -p "Once upon a time" --temp 0) ||
            fail "LLAMA_ARG_N_PREDICT exited with $?"
        [ "$got" = "$want" ] || fail "LLAMA_ARG_N_PREDICT=24 differs: got [$got]"
        json=$(LLAMA_ARG_N_PREDICT=3 "$cli" -m "$model" -no-cnv -p "Once upon a time" -n 5 --temp 0 --json) ||
            fail "exit $?"
        [[ "$json" == *'"tokens_generated":5,'* ]] || fail "-n on the command line must beat the variable: $json"
        # -sys with -f through the Jinja template: the reply continues exactly the rendered prompt
        tmpl=$(dirname "$0")/../../../tests/data/chat/hermes-tools.jinja
        prompt=$'<|im_start|>system\nBe kind.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n'
        hex=$("$greedy" "$model" 16 "$prompt") || fail "greedy-ref failed"
        want=$(printf '%b' "$(printf '%s' "$hex" | sed 's/../\\x&/g')")
        printf 'Hi' >"$dir/hi.txt"
        got=$(LLAMA_ARG_CHAT_TEMPLATE_FILE="$tmpl" "$cli" -m "$model" -sys "Be kind." -f "$dir/hi.txt" -n 16 --temp 0) ||
            fail "-sys -f exited with $?"
        [ "$got" = "$want" ] || fail "-sys differs from the rendered prompt's continuation: got [$got] want [$want]"
        # -n -1: no cap (the default, 512, would stop this 601-token grammar at "length")
        json=$("$cli" -m "$model" -no-cnv -p "Once upon a time" -n -1 --temp 0 -c 2048 \
               --grammar 'root ::= "a"{600} "."' --json) || fail "-n -1 exited with $?"
        [[ "$json" == *'"finish_reason":"stop"'*'"tokens_generated":60'[0-9]* ]] || fail "-n -1: $json"
        err=$("$cli" -m "$model" --mmproj x.gguf 2>&1 >/dev/null)
        [ $? = 1 ] || fail "an unsupported flag must exit 1"
        [ "$err" = "llama-cli: --mmproj is a llama.cpp option this build does not support" ] || fail "unsupported: $err"
        # model and context flags reach llama.h: -dev by name, -c 0 = the model's 2048-token context
        devs=$("$cli" --list-devices) || fail "--list-devices exited with $?"
        printf '%s\n' "$devs" | grep -q '^CPU: ' || fail "--list-devices lists no CPU: $devs"
        err=$("$cli" -m "$model" -dev nosuch -p x 2>&1 >/dev/null)
        [ $? = 1 ] && [[ "$err" == *"no device named nosuch"* ]] || fail "-dev nosuch: $err"
        got=$("$cli" -m "$model" -dev none -ngl 0 -c 0 --no-mmap -fa off -ctk f32 -t 1 -no-cnv -p "Once upon a time" \
              -n 24 --temp 0) || fail "model/context flags exited with $?"
        [ "$got" = "$plain" ] || fail "-dev none -c 0 ... changed the greedy output: [$got]"
        err=$("$cli" -m "$model" --port 8080 2>&1 >/dev/null)
        [[ "$err" == *"--port is a llama-server option"* ]] || fail "a server flag: $err"
        ;;
    lora)
        # --lora / --lora-scaled apply the adapter for the whole run: with scale 0.5 the reply equals
        # the model with W + 0.5 B A merged in (llama-gguf-synth --merge), and differs from the base
        synth=$5
        dir=$(mktemp -d)
        trap 'rm -rf "$dir"' EXIT
        "$synth" -o "$dir/lora.gguf" --lora-of "$model" --rank 4 --alpha 512 >/dev/null || fail "cannot write the LoRA"
        "$synth" -o "$dir/merged.gguf" --merge "$model" --lora "$dir/lora.gguf:0.5" >/dev/null ||
            fail "cannot write the merged model"
        run() { "$cli" -no-cnv -p "Once upon a time" -n 12 --temp 0 "$@"; }
        base=$(run -m "$model") || fail "base exited with $?"
        merged=$(run -m "$dir/merged.gguf") || fail "merged exited with $?"
        scaled=$(run -m "$model" --lora-scaled "$dir/lora.gguf:0.5") || fail "--lora-scaled exited with $?"
        full=$(run -m "$model" --lora "$dir/lora.gguf") || fail "--lora exited with $?"
        [ "$scaled" = "$merged" ] || fail "--lora-scaled :0.5 differs from the merged model: [$scaled] [$merged]"
        [ "$scaled" != "$base" ] || fail "the adapter changed nothing: [$scaled]"
        [ "$full" != "$scaled" ] || fail "--lora (scale 1) equals scale 0.5: [$full]"
        # speculative decoding verifies with the adapted model: the base model drafting (-md), or n-grams,
        # give the adapted text
        for flags in "-md $model --draft-p-min 0" "--spec-type ngram"; do
            # shellcheck disable=SC2086
            spec=$(run -m "$model" --lora-scaled "$dir/lora.gguf:0.5" $flags 2>"$dir/err.log") ||
                fail "$flags with a LoRA exited with $?"
            [ "$spec" = "$scaled" ] || fail "$flags with a LoRA: got [$spec] want [$scaled]"
            grep -q "^speculative: [0-9]* drafted" "$dir/err.log" || fail "$flags with a LoRA: no acceptance line"
        done
        err=$(run -m "$model" --lora "$dir/missing.gguf" 2>&1 >/dev/null)
        [ $? = 2 ] || fail "a missing adapter must exit 2"
        [[ "$err" == *"cannot load LoRA adapter $dir/missing.gguf"* ]] || fail "missing adapter: $err"
        ;;
    jinja)
        # the Jinja template (--chat-template-file) formats the prompt: the reply is the library's greedy
        # continuation of exactly the text it renders
        tmpl=$(dirname "$0")/../../../tests/data/chat/hermes-tools.jinja
        prompt=$'<|im_start|>system\nBe kind.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n'
        hex=$("$greedy" "$model" 16 "$prompt") || fail "greedy-ref failed"
        want=$(printf '%b' "$(printf '%s' "$hex" | sed 's/../\\x&/g')")
        got=$("$cli" -m "$model" --chat-template-file "$tmpl" -sys "Be kind." -p "Hi" -n 16 --temp 0) ||
            fail "llama-cli exited with $?"
        [ "$got" = "$want" ] || fail "reply differs from the rendered prompt's continuation: got [$got] want [$want]"
        # a template that refuses the conversation: one error line, exit 2
        dir=$(mktemp -d)
        trap 'rm -rf "$dir"' EXIT
        printf '%s' "{{ raise_exception('no system messages here') if messages[0].role == 'system' }}x" >"$dir/t.jinja"
        err=$("$cli" -m "$model" --chat-template-file "$dir/t.jinja" -sys S -p Hi -n 4 2>&1 >/dev/null)
        [ $? = 2 ] || fail "a failing template must exit 2"
        [[ "$err" == *"no system messages here"* ]] || fail "the template's message is not shown: $err"
        printf '%s' "{% if %}" >"$dir/bad.jinja"
        err=$("$cli" -m "$model" --chat-template-file "$dir/bad.jinja" -p Hi -n 4 2>&1 >/dev/null)
        [[ "$err" == *"does not parse"* ]] || fail "a syntax error must be reported: $err"
        "$cli" -m "$model" --chat-template-file "$dir/missing.jinja" -p Hi >/dev/null 2>&1
        [ $? = 1 ] || fail "a missing template file is a usage error"
        ;;
    grammar)
        # --grammar / --grammar-file / --json-schema / --json-schema-file constrain every reply
        dir=$(mktemp -d)
        trap 'rm -rf "$dir"' EXIT
        yn='root ::= ("yes" | "no") "!"'
        for seed in 1 2 3; do
            got=$("$cli" -m "$model" --raw -p "Once upon a time" -n 20 --temp 1 --seed $seed --grammar "$yn") ||
                fail "--grammar exit $?"
            [ "$got" = "yes!" ] || [ "$got" = "no!" ] || fail "--grammar output: [$got]"
        done
        printf '%s\n' 'root ::= [0-9]{3} "-" [a-z]{2}' >"$dir/g.gbnf"
        got=$("$cli" -m "$model" --raw -p "Once" -n 20 --temp 0 --grammar-file "$dir/g.gbnf") || fail "exit $?"
        [[ "$got" =~ ^[0-9]{3}-[a-z]{2}$ ]] || fail "--grammar-file output: [$got]"
        # speculative steps apply the grammar too: the same constrained text with drafts made
        for flags in "-md $model --draft-p-min 0" "--spec-type ngram"; do
            # shellcheck disable=SC2086
            spec=$("$cli" -m "$model" --raw -p "Once" -n 20 --temp 0 --grammar-file "$dir/g.gbnf" $flags 2>"$dir/err.log") ||
                fail "$flags with a grammar: exit $?"
            [ "$spec" = "$got" ] || fail "$flags with a grammar: got [$spec] want [$got]"
            grep -q "^speculative: [0-9]* drafted" "$dir/err.log" || fail "$flags with a grammar: no acceptance line"
        done
        want=$(printf 'Hi\nAgain\n' | "$cli" -m "$model" --temp 0 -n 20 --json --grammar "$yn") || fail "exit $?"
        spec=$(printf 'Hi\nAgain\n' | "$cli" -m "$model" --temp 0 -n 20 --json --grammar "$yn" -md "$model" 2>/dev/null) ||
            fail "chat with a grammar and -md: exit $?"
        [ "$(printf '%s' "$spec" | sed 's/"ms":[0-9.]*//')" = "$(printf '%s' "$want" | sed 's/"ms":[0-9.]*//')" ] ||
            fail "chat with a grammar and -md: [$spec] [$want]"
        # two chat turns, both constrained (the grammar restarts with each reply)
        out=$(printf 'Hi\nAgain\n' | "$cli" -m "$model" --temp 0.8 -n 20 --json --grammar "$yn") || fail "exit $?"
        n=$(printf '%s\n' "$out" | grep -cE '^\{"content":"(yes|no)!","finish_reason":"stop"')
        [ "$n" = 2 ] || fail "chat with a grammar: $out"
        if "$cli" -m "$model" -p x -n 1 -j '{}' 2>&1 | grep -q "built without"; then
            echo "SKIP: --json-schema (built without nlohmann/json)"
            exit 77
        fi
        schema='{"type":"object","properties":{"name":{"type":"string","maxLength":10},"age":{"type":"integer"},
                 "kind":{"enum":["cat","dog"]},"tags":{"type":"array","items":{"type":"boolean"},"maxItems":2}},
                 "required":["name","kind"],"additionalProperties":false}'
        printf '%s' "$schema" >"$dir/s.json"
        for how in "-j" "-jf"; do
            arg=$schema
            [ "$how" = -jf ] && arg=$dir/s.json
            got=$("$cli" -m "$model" --raw -p "Once upon a time" -n 300 --temp 0.9 --seed 4 "$how" "$arg") ||
                fail "$how exit $?"
            python3 -c '
import json, sys
v = json.loads(sys.argv[1])
assert isinstance(v, dict) and set(v) <= {"name", "age", "kind", "tags"}, v
assert isinstance(v["name"], str) and len(v["name"]) <= 10 and v["kind"] in ("cat", "dog"), v
assert "age" not in v or (isinstance(v["age"], int) and not isinstance(v["age"], bool)), v
assert "tags" not in v or (len(v["tags"]) <= 2 and all(isinstance(t, bool) for t in v["tags"])), v
' "$got" || fail "$how output does not match the schema: [$got]"
        done
        # refused before loading anything: exit 1 with the reason
        err=$("$cli" -m "$model" -p x -j '{"type":"integer","multipleOf":3}' 2>&1)
        [ $? = 1 ] && [[ "$err" == *multipleOf* ]] || fail "bad schema: $err"
        err=$("$cli" -m "$model" -p x --grammar 'root ::= ( "a"' 2>&1)
        [ $? = 1 ] && [[ "$err" == *"invalid grammar"* ]] || fail "bad grammar: $err"
        "$cli" -m "$model" -p x --grammar "$yn" -j '{}' >/dev/null 2>&1
        [ $? = 1 ] || fail "two constraints must exit 1"
        "$cli" -m "$model" -p x --grammar-file "$dir/missing" >/dev/null 2>&1
        [ $? = 1 ] || fail "a missing grammar file must exit 1"
        ;;
    samplers)
        # settings that leave only the most likely token reproduce greedy; DRY changes greedy
        hex=$("$greedy" "$model" 32 "Once upon a time") || fail "greedy-ref failed"
        want=$(printf '%b' "$(printf '%s' "$hex" | sed 's/../\\x&/g')")
        run() { "$cli" -m "$model" --raw -p "Once upon a time" --seed 7 "$@"; }
        got=$(run -n 32 --temp 1 --top-k 0 --top-p 1 --min-p 0 --top-nsigma 0.0001) || fail "exit $?"
        [ "$got" = "$want" ] || fail "--top-nsigma ~0 differs from greedy: [$got] [$want]"
        got=$(run -n 32 --temp 1 --mirostat 2 --mirostat-ent 0.0001 --mirostat-lr 0.1) || fail "exit $?"
        [ "$got" = "$want" ] || fail "--mirostat 2 tau ~0 differs from greedy: [$got] [$want]"
        plain=$(run -n 96 --temp 0) || fail "exit $?"
        dry=$(run -n 96 --temp 0 --dry-multiplier 5 --dry-base 3 --dry-allowed-length 1 --dry-sequence-breaker none) ||
            fail "exit $?"
        [ "$dry" != "$plain" ] || fail "--dry-multiplier did not change a greedy reply: [$dry]"
        got=$(run -n 16 --xtc-probability 0.5 --xtc-threshold 0.1 --dry-multiplier 0.8 --dry-sequence-breaker x) ||
            fail "xtc exit $?"
        [ -n "$got" ] || fail "xtc: empty reply"
        got=$(run -n 16 --mirostat 1 --mirostat-ent 3) || fail "mirostat 1 exit $?"
        [ -n "$got" ] || fail "mirostat 1: empty reply"
        run -n 4 --mirostat 3 >/dev/null 2>&1
        [ $? = 1 ] || fail "--mirostat 3 must exit 1"
        run -n 4 --dry-base 0.5 >/dev/null 2>&1
        [ $? = 1 ] || fail "--dry-base 0.5 must exit 1"
        ;;
    cache)
        # --prompt-cache: a warm run reuses the saved prompt and prints what a cold run prints
        dir=$(mktemp -d)
        trap 'rm -rf "$dir"' EXIT
        run() { "$cli" -m "$model" --raw -p "$1" -n 16 --temp 0 --json ${2:+--prompt-cache "$2"} "${@:3}"; }
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
        err=$(run "Once upon a time" "$dir/p.bin" 2>&1 >/dev/null) || fail "a damaged cache file must be a cold start"
        [[ "$err" == *"prompt cache $dir/p.bin: not a prompt-cache file (bad magic) (not used)"* ]] ||
            fail "no message naming the damaged file: $err"
        # --prompt-cache-ro: read, never written; --prompt-cache-all: the reply's tokens saved too
        run "Once upon a time there was a big dog" "$dir/ro.bin" --prompt-cache-ro >/dev/null || fail "ro exit $?"
        [ ! -e "$dir/ro.bin" ] || fail "--prompt-cache-ro wrote the file"
        cp "$dir/p.bin" "$dir/ro.bin"
        run "Once upon a time there was a big dog" "$dir/all.bin" >/dev/null || fail "exit $?"
        size_prompt=$(stat -c %s "$dir/all.bin")
        all=$(run "Once upon a time there was a big dog" "$dir/all.bin" --prompt-cache-all) || fail "all exit $?"
        [ "$(stat -c %s "$dir/all.bin")" -gt "$size_prompt" ] || fail "--prompt-cache-all did not save the reply"
        [ "${all%%\"context_shifts\"*}" = "${cold%%\"context_shifts\"*}" ] || fail "--prompt-cache-all changed the output"
        # the reply is in the file: the prompt plus the reply reuses more than the prompt
        [[ "$cold" =~ \"content\":\"([^\"\\]*)\".*\"tokens_prompt\":([0-9]+) ]] || fail "cold run: $cold"
        n_prompt=${BASH_REMATCH[2]}
        longer=$(run "Once upon a time there was a big dog${BASH_REMATCH[1]}" "$dir/all.bin" --prompt-cache-ro) ||
            fail "exit $?"
        [[ "$longer" =~ \"tokens_cached\":([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -gt "$n_prompt" ] ||
            fail "the saved reply was not reused: $longer (prompt $n_prompt)"
        "$cli" -m "$model" --raw -p x -n 1 --prompt-cache-all >/dev/null 2>&1
        [ $? = 1 ] || fail "--prompt-cache-all without --prompt-cache must exit 1"
        ;;
    tty)
        command -v script >/dev/null 2>&1 || { echo "SKIP: no script(1)"; exit 77; }
        out=$(printf 'Hello\n/exit\n' | script -qefc "'$cli' -m '$model' --temp 0 -n 8" /dev/null) || fail "exit $?"
        [[ "$out" == *"$esc[33m"* ]] || fail "no colours on a terminal: $out"
        ;;
    *) fail "unknown case $case" ;;
esac
echo PASS
