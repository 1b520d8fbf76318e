# The GPU backend modules of this build, as a program finds them: llama-simple -v on the bundled model
# generates the reference text and its log names each module exactly once, loaded or "not loaded" with
# the reason (the CUDA module on a machine without an NVIDIA device), nothing else about it. With
# GGML_BACKEND_LOAD_ALL=1 the CUDA module is opened whatever the machine: without a GPU it reports
# 0 devices in one line and the CPU still generates the same text.
#   cmake -DBIN=<dir> -DMODEL=<gguf> -DMODULE_DIR=<dir> -DMODULES=ggml-vulkan,ggml-cuda -P test-gpu-modules.cmake
cmake_minimum_required(VERSION 3.25)
string(REPLACE "," ";" modules "${MODULES}")
set(expected "Once upon a time, there was a little girl")

function(run_simple out_var err_var)
    execute_process(COMMAND ${ARGN} ${BIN}/llama-simple -v -m ${MODEL} -n 8 "Once upon a time"
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if (NOT rc EQUAL 0)
        message(FATAL_ERROR "llama-simple failed (${rc}):\n${out}\n${err}")
    endif()
    if (NOT out MATCHES "${expected}")
        message(FATAL_ERROR "llama-simple did not generate the reference text:\n${out}")
    endif()
    set(${out_var} "${out}" PARENT_SCOPE)
    set(${err_var} "${err}" PARENT_SCOPE)
endfunction()

run_simple(out err)
string(REPLACE "\n" ";" lines "${err}")
foreach(m ${modules})
    set(n 0)
    set(line "")
    foreach(l ${lines})
        if (l MATCHES "ggml_backend_load: .*lib${m}\\.")
            math(EXPR n "${n} + 1")
            set(line "${l}")
        endif()
    endforeach()
    if (NOT n EQUAL 1)
        message(FATAL_ERROR "expected one ggml_backend_load line naming lib${m}, got ${n}:\n${err}")
    endif()
    if (NOT line MATCHES "loaded [A-Za-z]+ from ${MODULE_DIR}/lib${m}\\.|lib${m}\\.[a-z]+ not loaded: ")
        message(FATAL_ERROR "lib${m}: neither loaded from ${MODULE_DIR} nor skipped with a reason:\n${line}")
    endif()
    message(STATUS "${line}")
endforeach()

if ("ggml-cuda" IN_LIST modules)
    run_simple(out err ${CMAKE_COMMAND} -E env GGML_BACKEND_LOAD_ALL=1)
    if (NOT err MATCHES "loaded CUDA from ${MODULE_DIR}/libggml-cuda\\.")
        message(FATAL_ERROR "GGML_BACKEND_LOAD_ALL=1 did not load the CUDA module:\n${err}")
    endif()
    string(REGEX MATCH "ggml-cuda: [^\n]*" cuda_line "${err}")
    message(STATUS "with GGML_BACKEND_LOAD_ALL=1: ${cuda_line}")
endif()
