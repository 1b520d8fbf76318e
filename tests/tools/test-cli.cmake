# The command-line conventions of every tool (docs/tools.md), checked by running the programs:
# --help on stdout with exit 0; bad numbers, unknown flags and missing values are usage errors
# (exit 1) naming the flag; a missing file is a runtime failure (exit 2) with the real reason; every
# error is printed exactly once. With -DCASE=chat: llama-simple-chat piped through stdin prints no
# ESC byte and keeps answering after its context has filled up. With -DCASE=session:
# llama-save-load-state resumed from a session file continues exactly like an uninterrupted run.
# With -DCASE=embedding (and -DVOCAB=<bert vocab gguf>): llama-embedding on a synthetic BERT from
# llama-gguf-synth.
#   cmake [-DEMULATOR=qemu-aarch64|-L|<sysroot>] -DCASE=args|args-synth|chat|session|embedding -DBIN=<dir of the programs> -DMODEL=<gguf> -DLICENSE=<a non-GGUF file>
#         -DWORK=<scratch dir> [-DEXE=.exe] -P test-cli.cmake
cmake_minimum_required(VERSION 3.25)

# -DEMULATOR: a cross build's emulator command, its arguments joined with '|' (empty natively)
string(REPLACE "|" ";" emu "${EMULATOR}")

set(failures 0)
# cond is a condition as text ("rc EQUAL 1"), evaluated here so callers can build it.
macro(check cond message)
    cmake_language(EVAL CODE "if (${cond})\n set(ok TRUE)\n else()\n set(ok FALSE)\n endif()")
    if (NOT ok)
        message(SEND_ERROR "${message}\n  command: ${last_cmd}\n  exit: ${rc}\n  stdout: ${out}\n  stderr: ${err}")
        math(EXPR failures "${failures} + 1")
    endif()
endmacro()

# Occurrences of the literal `needle` in `text`.
function(count_of text needle result)
    set(n 0)
    string(LENGTH "${needle}" len)
    while (TRUE)
        string(FIND "${text}" "${needle}" at)
        if (at LESS 0)
            break()
        endif()
        math(EXPR n "${n} + 1")
        math(EXPR at "${at} + ${len}")
        string(SUBSTRING "${text}" ${at} -1 text)
    endwhile()
    set(${result} ${n} PARENT_SCOPE)
endfunction()

macro(run tool)
    set(last_cmd "${tool} ${ARGN}")
    execute_process(COMMAND ${emu} ${BIN}/${tool}${EXE} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                    INPUT_FILE /dev/null)
endmacro()

# A usage error: exit 1, `needle` once on stderr with the hint to --help, nothing on stdout.
macro(expect_usage needle tool)
    run(${tool} ${ARGN})
    count_of("${err}" "${needle}" n)
    count_of("${err}" "error:" n_err)
    check("rc EQUAL 1" "expected exit 1 (usage error)")
    check("n EQUAL 1" "expected '${needle}' exactly once on stderr")
    check("n_err EQUAL 1" "expected exactly one error line")
    check("err MATCHES \"--help\"" "expected a hint to --help")
    check("out STREQUAL \"\"" "expected nothing on stdout")
endmacro()

# A runtime failure: exit 2, `needle` exactly once and one error line.
macro(expect_failure needle tool)
    run(${tool} ${ARGN})
    count_of("${err}" "${needle}" n)
    count_of("${err}" "error:" n_err)
    check("rc EQUAL 2" "expected exit 2 (load/runtime failure)")
    check("n EQUAL 1" "expected '${needle}' exactly once on stderr")
    check("n_err EQUAL 1" "expected exactly one error line")
endmacro()

macro(expect_help tool)
    foreach(flag -h --help)
        run(${tool} ${flag})
        check("rc EQUAL 0" "${flag}: expected exit 0")
        check("out MATCHES \"^usage: ${tool} \"" "${flag}: expected the usage on stdout")
        check("out MATCHES \"exit status: 0 success, 1 usage error, 2 \"" "${flag}: expected the exit codes")
        check("err STREQUAL \"\"" "${flag}: expected nothing on stderr")
    endforeach()
endmacro()

set(missing ${WORK}/no-such-model.gguf)
file(REMOVE ${missing})
set(enoent "No such file or directory")

if (CASE STREQUAL "args")
    # llama-simple
    expect_help(llama-simple)
    expect_usage("invalid value 'abc' for -n: expected an integer in [0, 1048576]" llama-simple -m ${MODEL} -n abc)
    expect_usage("invalid value '-5' for -n" llama-simple -m ${MODEL} -n -5)
    expect_usage("invalid value '5x' for -n" llama-simple -m ${MODEL} -n 5x)
    expect_usage("invalid value '99999999999999999999' for -n" llama-simple -m ${MODEL} -n 99999999999999999999)
    expect_usage("invalid value '0' for -t: expected an integer in [1, 512]" llama-simple -m ${MODEL} -t 0)
    expect_usage("unknown argument: --bogus" llama-simple -m ${MODEL} --bogus)
    expect_usage("-m needs a value" llama-simple -m)
    expect_usage("no model given" llama-simple)
    expect_failure(${enoent} llama-simple -m ${missing})
    # an empty value (a list element CMake would drop, hence spelled out)
    set(last_cmd "llama-simple -n ''")
    execute_process(COMMAND ${emu} ${BIN}/llama-simple${EXE} -m ${MODEL} -n "" RESULT_VARIABLE rc OUTPUT_VARIABLE out
                    ERROR_VARIABLE err)
    check("rc EQUAL 1 AND err MATCHES \"invalid value '' for -n\"" "expected an empty -n to be rejected")

    # llama-simple-chat
    expect_help(llama-simple-chat)
    expect_usage("invalid value 'abc' for -c: expected an integer in [16, 1048576]" llama-simple-chat -m ${MODEL} -c abc)
    expect_usage("invalid value '8' for -c" llama-simple-chat -m ${MODEL} -c 8)
    expect_usage("invalid value '-1' for --seed: expected an integer in [0, 4294967295]" llama-simple-chat
                 -m ${MODEL} --seed -1)
    expect_usage("unknown argument: --bogus" llama-simple-chat --bogus)
    expect_failure(${enoent} llama-simple-chat -m ${missing})

    # llama-gguf-dump: a missing file says why, not "not a valid GGUF file"
    expect_help(llama-gguf-dump)
    expect_usage("invalid value 'x' for --max-array" llama-gguf-dump --max-array x ${MODEL})
    expect_usage("unknown argument: --bogus" llama-gguf-dump --bogus ${MODEL})
    expect_usage("unexpected argument: b.gguf" llama-gguf-dump a.gguf b.gguf)
    expect_failure("cannot open ${missing}: ${enoent}" llama-gguf-dump ${missing})
    check("NOT err MATCHES \"not a valid GGUF\"" "a missing file is not an invalid one")
    expect_failure("is not a valid GGUF file" llama-gguf-dump ${LICENSE})

    # llama-quantize
    expect_help(llama-quantize)
    expect_usage("invalid value 'abc' for NTHREADS: expected an integer in [0, 512]" llama-quantize
                 ${MODEL} ${WORK}/q.gguf Q8_0 abc)
    expect_usage("unknown type 'Q9_9'" llama-quantize ${MODEL} ${WORK}/q.gguf Q9_9)
    expect_usage("invalid value 'k=int:1x' for --override-kv" llama-quantize --override-kv k=int:1x
                 ${MODEL} ${WORK}/q.gguf Q8_0)
    expect_usage("unknown argument: --bogus" llama-quantize --bogus ${MODEL} ${WORK}/q.gguf Q8_0)
    expect_failure("cannot quantize ${missing}" llama-quantize ${missing} ${WORK}/q.gguf Q8_0)
elseif (CASE STREQUAL "args-synth")
    # the second half of the conventions (its own test, so that ctest runs the halves side by side:
    # each program start costs seconds under Wine or qemu)
    # llama-gguf-synth
    expect_help(llama-gguf-synth)
    expect_usage("invalid value '12k' for --n-embd: expected an integer in [1, 1048576]" llama-gguf-synth
                 -o ${WORK}/s.gguf --n-embd 12k)
    expect_usage("invalid value 'nan' for --std" llama-gguf-synth -o ${WORK}/s.gguf --std nan)
    expect_usage("invalid value '0.5junk' for --rms-eps" llama-gguf-synth -o ${WORK}/s.gguf --rms-eps 0.5junk)
    expect_usage("unknown argument: --bogus" llama-gguf-synth -o ${WORK}/s.gguf --bogus)
    expect_usage("unknown preset 'huge'" llama-gguf-synth -o ${WORK}/s.gguf --preset huge)
    expect_failure("--quiet-from: a decoder's block count, 1 to --n-layer (2)" llama-gguf-synth -o ${WORK}/s.gguf
                   --preset micro --quiet-from 3)
    expect_failure("cannot create ${WORK}/no-such-dir/s.gguf: ${enoent}" llama-gguf-synth
                   -o ${WORK}/no-such-dir/s.gguf)
    # adapters: a LoRA, a control vector and the merged model for a small F32 model; then misuse
    run(llama-gguf-synth -o ${WORK}/ad-base.gguf --preset micro --n-layer 1 --type f32)
    check("rc EQUAL 0" "expected the base model to be written")
    run(llama-gguf-synth -o ${WORK}/ad-lora.gguf --lora-of ${WORK}/ad-base.gguf --rank 2 --alpha 4
        --targets attn_q,ffn_up --invocation 5,6)
    check("rc EQUAL 0 AND EXISTS ${WORK}/ad-lora.gguf" "expected the LoRA to be written")
    run(llama-gguf-synth -o ${WORK}/ad-cvec.gguf --cvec-of ${WORK}/ad-base.gguf)
    check("rc EQUAL 0 AND EXISTS ${WORK}/ad-cvec.gguf" "expected the control vector to be written")
    run(llama-gguf-synth -o ${WORK}/ad-merged.gguf --merge ${WORK}/ad-base.gguf --lora ${WORK}/ad-lora.gguf:0.5)
    check("rc EQUAL 0 AND EXISTS ${WORK}/ad-merged.gguf" "expected the merged model to be written")
    expect_usage("invalid value '0' for --rank" llama-gguf-synth -o ${WORK}/l.gguf --lora-of ${WORK}/ad-base.gguf
                 --rank 0)
    expect_usage("--lora-of, --cvec-of and --merge exclude each other" llama-gguf-synth -o ${WORK}/l.gguf
                 --lora-of ${WORK}/ad-base.gguf --cvec-of ${WORK}/ad-base.gguf)
    expect_usage("--merge needs at least one --lora" llama-gguf-synth -o ${WORK}/l.gguf --merge ${WORK}/ad-base.gguf)
    expect_failure("no weight of the model matches the targets" llama-gguf-synth -o ${WORK}/l.gguf
                   --lora-of ${WORK}/ad-base.gguf --targets nothing)
    expect_failure("cannot read the model" llama-gguf-synth -o ${WORK}/l.gguf --lora-of ${WORK}/no-such.gguf)

    # llama-bench (its tests list: -p 4 -n 4 are two tests on one model, yet one load error)
    expect_help(llama-bench)
    expect_usage("unknown argument: --bogus" llama-bench --bogus)
    expect_usage("invalid value '1,x' for -p: expected comma-separated integers in [0, 1048576]" llama-bench
                 -m ${MODEL} -p 1,x)
    expect_usage("invalid value '0' for -r: expected an integer in [1, 100000]" llama-bench -m ${MODEL} -r 0)
    expect_usage("invalid value '8' for -pg: expected 2 values" llama-bench -m ${MODEL} -pg 8)
    expect_failure(${enoent} llama-bench -m ${missing} -p 4 -n 4 -r 1 --bw-mib 1)

    # llama-bench-lite (positional numbers)
    if (EXISTS ${BIN}/llama-bench-lite${EXE})
        expect_help(llama-bench-lite)
        expect_usage("invalid value 'abc' for N_PROMPT: expected an integer in [1, 65536]" llama-bench-lite
                     ${MODEL} 2 abc)
        expect_usage("unknown argument: --bogus" llama-bench-lite ${MODEL} --bogus)
        expect_usage("invalid value '2' for MTP: expected an integer in [0, 1]" llama-bench-lite
                     ${MODEL} 2 4 4 1 0 2)
        expect_failure(${enoent} llama-bench-lite ${missing})
        # MTP=1 needs an architecture with an MTP graph
        expect_failure("no multi-token-prediction (MTP) graph" llama-bench-lite ${MODEL} 2 4 4 1 0 1)
    endif()
elseif (CASE STREQUAL "chat")
    # 8 turns with replies of up to 24 tokens overflow a 64-token context several times over
    set(turns "")
    foreach(i RANGE 1 8)
        string(APPEND turns "Tell me story number ${i}.\n")
    endforeach()
    file(WRITE ${WORK}/chat-input.txt "${turns}")
    set(last_cmd "llama-simple-chat -m MODEL -c 64 -n 24 --seed 7 -v < chat-input.txt")
    execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=NO_COLOR
                            ${emu} ${BIN}/llama-simple-chat${EXE} -m ${MODEL} -c 64 -n 24 --seed 7 -v
                    INPUT_FILE ${WORK}/chat-input.txt RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    string(ASCII 27 esc)
    count_of("${out}" "${esc}" n_esc)
    count_of("${err}" "[context full" n_shift)
    count_of("${out}" "> " n_prompts)
    check("rc EQUAL 0" "expected the chat to end normally")
    check("n_esc EQUAL 0" "expected no ESC byte in piped output")
    check("n_shift GREATER 0" "expected the context to fill up and shift")
    check("NOT err MATCHES \"context size exceeded|error:\"" "expected no error once the context is full")
    check("n_prompts EQUAL 9" "expected 8 turns and the final prompt")
    # the replies of the last three turns (after the shifts): at least two must have text
    string(REPLACE "> " ";" replies "${out}")
    list(LENGTH replies n_replies)
    set(n_text 0)
    foreach(k 6 7 8)
        if (k LESS n_replies)
            list(GET replies ${k} reply)
            string(STRIP "${reply}" reply)
            if (NOT reply STREQUAL "")
                math(EXPR n_text "${n_text} + 1")
            endif()
        endif()
    endforeach()
    check("n_text GREATER_EQUAL 2" "expected the late turns to produce text")
elseif (CASE STREQUAL "session")
    # llama-save-load-state: a run resumed from a saved session prints exactly what one
    # uninterrupted run prints (the session restores the KV cache and the last logits)
    set(prompt "")
    foreach(i RANGE 1 12)
        string(APPEND prompt "Once upon a time, there was a little dog named Max number ${i}. ")
    endforeach()
    file(WRITE ${WORK}/session-prompt.txt "${prompt}")
    set(session ${WORK}/session.bin)
    file(REMOVE ${session})
    run(llama-save-load-state -m ${MODEL} -n 40 -f ${WORK}/session-prompt.txt)
    set(whole "${out}")
    check("rc EQUAL 0" "expected the uninterrupted run to succeed")
    run(llama-save-load-state -m ${MODEL} -n 0 --save ${session} -f ${WORK}/session-prompt.txt)
    set(saved "${out}")
    check("rc EQUAL 0" "expected the saving run to succeed")
    check("EXISTS \"${session}\"" "expected the session file")
    run(llama-save-load-state -m ${MODEL} -n 40 --load ${session})
    check("rc EQUAL 0" "expected the resumed run to succeed")
    check("out STREQUAL whole" "expected the resumed run to print what the uninterrupted run printed")
    string(LENGTH "${saved}" n_saved)
    string(LENGTH "${whole}" n_whole)
    check("n_whole GREATER n_saved" "expected the continuation to add text")
    # saving and continuing in one run prints the same too
    run(llama-save-load-state -m ${MODEL} -n 40 --save ${session} -f ${WORK}/session-prompt.txt)
    check("out STREQUAL whole" "expected --save with -n to print the uninterrupted run")
    # a corrupt session: exit 2 with the reason once, nothing restored
    file(WRITE ${WORK}/session-bad.bin "truncated")
    expect_failure("cannot load session" llama-save-load-state -m ${MODEL} --load ${WORK}/session-bad.bin)
    check("err MATCHES \"not a session file\"" "expected the reason")
    expect_failure("No such file or directory" llama-save-load-state -m ${MODEL} --load ${WORK}/no-such-session)
    expect_usage("--save and --load exclude each other" llama-save-load-state -m ${MODEL} --save a --load b)
    expect_usage("invalid value '5' for -c" llama-save-load-state -m ${MODEL} -c 5)
elseif (CASE STREQUAL "embedding")
    set(bert ${WORK}/embd-cli-bert.gguf)
    set(rank ${WORK}/embd-cli-rank.gguf)
    set(shape --n-embd 32 --n-layer 2 --n-ff 64 --n-head 4 --n-ctx 128 --type f32 --vocab ${VOCAB})
    run(llama-gguf-synth -o ${bert} --arch bert ${shape})
    check("rc EQUAL 0" "expected the synthetic BERT to be written")
    run(llama-gguf-synth -o ${rank} --arch bert --cls-out 1 ${shape})
    check("rc EQUAL 0" "expected the synthetic reranker to be written")

    expect_help(llama-embedding)
    # JSON, two prompts; max-abs normalisation puts one component of each vector at +-32760 exactly
    run(llama-embedding -m ${bert} -p "hello world" -p "北京 is a city" --json --normalize 0)
    count_of("${out}" "\"object\": \"embedding\"" n_vec)
    count_of("${out}" "32760" n_max)
    check("rc EQUAL 0" "expected success")
    check("out MATCHES \"^{\n  .object.: .list.\"" "expected a JSON list")
    check("n_vec EQUAL 2" "expected two embeddings")
    check("n_max EQUAL 2" "expected one max-abs component per vector")
    # pooling none: [CLS] hello world [SEP] gives four vectors of 32 values
    run(llama-embedding -m ${bert} -p "hello world" --pooling none --normalize -1)
    count_of("${out}" "embedding " n_vec)
    check("rc EQUAL 0 AND n_vec EQUAL 4" "expected one vector per token")
    check("out MATCHES \"embedding 3:( [^ \n]+)+\n$\"" "expected the last token's vector")
    # prompts from a file, one per line; a reranker prints one score per prompt
    file(WRITE ${WORK}/embd-prompts.txt "first prompt\n\nsecond prompt\nthird\n")
    run(llama-embedding -m ${rank} -f ${WORK}/embd-prompts.txt)
    count_of("${out}" "score " n_score)
    check("rc EQUAL 0 AND n_score EQUAL 3" "expected three reranker scores")
    check("out MATCHES \"score 0: [^ \n]+\n\"" "expected one number per score line")
    # a dense output projection (LFM2-ColBERT's shape): each token's vector has its 16 values
    set(colbert ${WORK}/embd-cli-colbert.gguf)
    run(llama-gguf-synth -o ${colbert} --arch lfm2 --n-embd 32 --n-layer 2 --n-ff 64 --n-head 4 --n-head-kv 2
        --conv-layers 10 --n-ctx 128 --type f32 --vocab ${VOCAB} --dense-out 16 --pooling 0)
    check("rc EQUAL 0" "expected the synthetic ColBERT model to be written")
    run(llama-embedding -m ${colbert} -p "hello world" --normalize -1)
    string(REPEAT " [^ \n]+" 16 sixteen)
    check("rc EQUAL 0 AND out MATCHES \"embedding 0:${sixteen}\n\"" "expected 16 values per token vector")
    file(REMOVE ${colbert})
    # errors
    expect_usage("invalid value 'median' for --pooling" llama-embedding -m ${bert} -p x --pooling median)
    expect_usage("invalid value '65' for --normalize" llama-embedding -m ${bert} -p x --normalize 65)
    expect_usage("no prompts given" llama-embedding -m ${bert})
    expect_failure("pooling RANK needs a classifier head" llama-embedding -m ${bert}
                   -p x --pooling rank)
    expect_failure(${enoent} llama-embedding -m ${missing} -p x)
    file(REMOVE ${bert} ${rank} ${WORK}/embd-prompts.txt)
else()
    message(FATAL_ERROR "unknown CASE '${CASE}'")
endif()

if (failures GREATER 0)
    message(FATAL_ERROR "${failures} check(s) failed")
endif()
