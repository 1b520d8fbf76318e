# Runs the probe on stories260K (8 and 40 steps) and compares with tests/data/reference.
# -DPROBE, -DCOMPARE, -DDATA (tests/data), -DOUT and -DEMULATOR (a cross build's emulator, '|' for
# ';'; empty natively) are set by tests/extra-tests.cmake.
string(REPLACE "|" ";" emu "${EMULATOR}")
file(MAKE_DIRECTORY ${OUT})
foreach(run "once;8" "once40;40")
    list(GET run 0 name)
    list(GET run 1 steps)
    execute_process(
        COMMAND ${emu} ${PROBE} ${DATA}/models/stories260K.gguf "Once upon a time" ${steps} ${OUT}/${name}.logits.f32
        OUTPUT_FILE ${OUT}/${name}.jsonl
        RESULT_VARIABLE rc)
    if (NOT rc EQUAL 0)
        message(FATAL_ERROR "probe failed (${rc}) for ${name}")
    endif()
    set(logit_args "")
    if (EXISTS ${DATA}/reference/stories260K.${name}.logits.f32)
        set(logit_args ${OUT}/${name}.logits.f32 ${DATA}/reference/stories260K.${name}.logits.f32)
    endif()
    execute_process(
        COMMAND ${emu} ${COMPARE} ${OUT}/${name}.jsonl ${DATA}/reference/stories260K.${name}.jsonl ${logit_args}
        RESULT_VARIABLE rc)
    if (NOT rc EQUAL 0)
        message(FATAL_ERROR "probe output differs from the reference for ${name}")
    endif()
endforeach()
