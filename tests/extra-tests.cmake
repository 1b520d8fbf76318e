# Tests that need more than one GoogleTest source (owned by the libllama engineer).

# The tests driven by a CMake script start the programs themselves; in a cross build they must go
# through the emulator (qemu-user; nothing registers it with binfmt_misc). The list is passed with
# '|' for ';' so that it survives the -D argument.
string(REPLACE ";" "|" LLAMA_TEST_EMULATOR "${CMAKE_CROSSCOMPILING_EMULATOR}")

if (TARGET llama)
    # (a) llama.h is plain C99: a C file including it must compile with -pedantic -Werror
    add_executable(test-llama-c99 ${CMAKE_CURRENT_SOURCE_DIR}/c99/llama-c99.c)
    set_target_properties(test-llama-c99 PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
    target_compile_options(test-llama-c99 PRIVATE -std=c99 -pedantic -Wall -Wextra -Werror)
    target_link_libraries(test-llama-c99 PRIVATE llama)
    # ... and so must every public header included first and alone (llama.h includes the others at
    # its end; each includes llama.h): one translation unit each, compiled into the same program
    file(GLOB _llama_public_headers RELATIVE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/include/*.h)
    foreach(_h ${_llama_public_headers})
        string(REGEX REPLACE "[^A-Za-z0-9]" "_" _tu "${_h}")
        file(CONFIGURE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/c99/alone-${_tu}.c
             CONTENT "#include \"${_h}\"\nint llama_c99_alone_${_tu}(void) { return (int) sizeof(struct llama_model_params); }\n")
        target_sources(test-llama-c99 PRIVATE ${CMAKE_CURRENT_BINARY_DIR}/c99/alone-${_tu}.c)
    endforeach()
    add_test(NAME test-llama-c99 COMMAND test-llama-c99)
    set_tests_properties(test-llama-c99 PROPERTIES LABELS unit)

    # (b) probe/probe.cpp (the project's llama.h client, kept unchanged: the reference outputs in
    # data/reference were made with it) must reproduce the reference engine's output on stories260K
    # (tokens exactly, logits within 1% of row RMS)
    block()
        add_executable(llama-probe ${CMAKE_CURRENT_SOURCE_DIR}/probe/probe.cpp)
        target_link_libraries(llama-probe PRIVATE llama)
        add_executable(probe-compare ${CMAKE_CURRENT_SOURCE_DIR}/probe/probe-compare.cpp)
        add_test(NAME test-probe-stories260K
                 COMMAND ${CMAKE_COMMAND}
                     -DPROBE=$<TARGET_FILE:llama-probe>
                     -DCOMPARE=$<TARGET_FILE:probe-compare>
                     "-DEMULATOR=${LLAMA_TEST_EMULATOR}"
                     -DDATA=${LLAMA_TEST_DATA_DIR}
                     -DOUT=${CMAKE_CURRENT_BINARY_DIR}/probe-out
                     -P ${CMAKE_CURRENT_SOURCE_DIR}/probe/run-probe.cmake)
        set_tests_properties(test-probe-stories260K PROPERTIES LABELS model)
    endblock()
endif()

if (TARGET llama)
    # (c) a client written like llama.cpp's examples/simple and simple-chat compiles and runs unchanged
    add_executable(llamacpp-style-simple ${CMAKE_CURRENT_SOURCE_DIR}/compat/llamacpp-style-simple.cpp)
    target_link_libraries(llamacpp-style-simple PRIVATE llama)
    target_compile_options(llamacpp-style-simple PRIVATE -Wall -Wextra -Werror)
    add_test(NAME test-llamacpp-style-simple
             COMMAND llamacpp-style-simple ${PROJECT_SOURCE_DIR}/models/stories260K.gguf)
    set_tests_properties(test-llamacpp-style-simple PROPERTIES LABELS model
        PASS_REGULAR_EXPRESSION "Once upon a time, there was a little girl")
endif()

if (TARGET llama AND BUILD_SHARED_LIBS)
    # (d) the shared libraries export their C API and nothing else
    add_test(NAME test-exports-llama COMMAND ${CMAKE_COMMAND} -DLIB=$<TARGET_FILE:llama> -DPREFIXES=llama_
             -DOBJDUMP=${CMAKE_OBJDUMP}
             -P ${CMAKE_CURRENT_SOURCE_DIR}/abi/check-exports.cmake)
    add_test(NAME test-exports-ggml COMMAND ${CMAKE_COMMAND} -DLIB=$<TARGET_FILE:ggml> "-DPREFIXES=ggml_;gguf_"
             -DOBJDUMP=${CMAKE_OBJDUMP}
             -P ${CMAKE_CURRENT_SOURCE_DIR}/abi/check-exports.cmake)
    set_tests_properties(test-exports-llama test-exports-ggml PROPERTIES LABELS unit)
endif()

if (TARGET llama)
    # (e) the tokenizers through the public API only: linked against the llama library itself (not
    # llama-internal), so it sees exactly what an application sees. Every bundled vocab loads with
    # vocab_only and passes its vectors (tests/public-api/)
    add_executable(test-vocab-public-api ${CMAKE_CURRENT_SOURCE_DIR}/public-api/test-vocab-public-api.cpp
                                         ${CMAKE_CURRENT_SOURCE_DIR}/common/test-common.cpp)
    target_include_directories(test-vocab-public-api PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/common
                                                             ${CMAKE_CURRENT_SOURCE_DIR}/unit)
    target_compile_definitions(test-vocab-public-api PRIVATE LLAMA_TEST_DATA_DIR="${LLAMA_TEST_DATA_DIR}"
                                                             LLAMA_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
    target_compile_options(test-vocab-public-api PRIVATE -Wall -Wextra)
    target_link_libraries(test-vocab-public-api PRIVATE llama GTest::gtest_main)
    add_test(NAME test-vocab-public-api COMMAND test-vocab-public-api WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
    set_tests_properties(test-vocab-public-api PROPERTIES LABELS unit)
endif()

if (TARGET llama-simple AND TARGET llama-simple-chat AND TARGET llama-gguf-dump AND TARGET llama-quantize
    AND TARGET llama-gguf-synth AND LLAMA_BUILD_BENCH)
    # (f) the tools' command-line conventions (docs/tools.md): strict numbers, unknown flags, --help,
    # exit codes, one error line, a missing file's real reason; simple-chat piped: no colours, and it
    # keeps answering once its context is full. The programs are all in CMAKE_RUNTIME_OUTPUT_DIRECTORY.
    foreach(case args args-synth chat)
        add_test(NAME test-cli-${case}
                 COMMAND ${CMAKE_COMMAND} "-DEMULATOR=${LLAMA_TEST_EMULATOR}" -DEXE=${CMAKE_EXECUTABLE_SUFFIX} -DCASE=${case} -DBIN=${CMAKE_RUNTIME_OUTPUT_DIRECTORY}
                     -DMODEL=${PROJECT_SOURCE_DIR}/models/stories260K.gguf -DLICENSE=${PROJECT_SOURCE_DIR}/LICENSE
                     -DWORK=${CMAKE_CURRENT_BINARY_DIR}
                     -P ${CMAKE_CURRENT_SOURCE_DIR}/tools/test-cli.cmake)
    endforeach()
    set_tests_properties(test-cli-args test-cli-args-synth PROPERTIES LABELS unit)
    set_tests_properties(test-cli-chat PROPERTIES LABELS model)
endif()

if (TARGET llama-simple AND GGML_BACKEND_MODULES)
    # (f'') the GPU modules found by a program, each loaded or skipped with one line (tools/test-gpu-modules.cmake)
    string(REPLACE ";" "," _llama_modules "${GGML_BACKEND_MODULES}")
    add_test(NAME test-gpu-modules
             COMMAND ${CMAKE_COMMAND} -DBIN=${CMAKE_RUNTIME_OUTPUT_DIRECTORY} -DMODEL=${PROJECT_SOURCE_DIR}/models/stories260K.gguf
                 -DMODULE_DIR=$<TARGET_FILE_DIR:ggml> -DMODULES=${_llama_modules}
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/tools/test-gpu-modules.cmake)
    set_tests_properties(test-gpu-modules PROPERTIES LABELS model)
endif()

if (TARGET llama-save-load-state)
    # (f') a session saved after a long prompt and resumed in a second run continues exactly
    add_test(NAME test-cli-session
             COMMAND ${CMAKE_COMMAND} "-DEMULATOR=${LLAMA_TEST_EMULATOR}" -DEXE=${CMAKE_EXECUTABLE_SUFFIX} -DCASE=session -DBIN=${CMAKE_RUNTIME_OUTPUT_DIRECTORY}
                 -DMODEL=${PROJECT_SOURCE_DIR}/models/stories260K.gguf -DLICENSE=${PROJECT_SOURCE_DIR}/LICENSE
                 -DWORK=${CMAKE_CURRENT_BINARY_DIR}
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/tools/test-cli.cmake)
    set_tests_properties(test-cli-session PROPERTIES LABELS model)
endif()
if (TARGET llama-embedding AND TARGET llama-gguf-synth)
    # llama-embedding on a synthetic BERT (written by llama-gguf-synth with the bert-bge vocab)
    add_test(NAME test-cli-embedding
             COMMAND ${CMAKE_COMMAND} "-DEMULATOR=${LLAMA_TEST_EMULATOR}" -DEXE=${CMAKE_EXECUTABLE_SUFFIX} -DCASE=embedding -DBIN=${CMAKE_RUNTIME_OUTPUT_DIRECTORY}
                 -DVOCAB=${LLAMA_TEST_DATA_DIR}/vocab/ggml-vocab-bert-bge.gguf -DWORK=${CMAKE_CURRENT_BINARY_DIR}
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/tools/test-cli.cmake)
    set_tests_properties(test-cli-embedding PROPERTIES LABELS model)
endif()

if (TARGET llama-tool-common)
    # (g) the tools' strict number parsers
    add_executable(test-arg-parse ${CMAKE_CURRENT_SOURCE_DIR}/tools/test-arg-parse.cpp)
    target_link_libraries(test-arg-parse PRIVATE llama-tool-common GTest::gtest_main)
    target_include_directories(test-arg-parse PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/common)
    target_compile_options(test-arg-parse PRIVATE -Wall -Wextra)
    add_test(NAME test-arg-parse COMMAND test-arg-parse)
    set_tests_properties(test-arg-parse PROPERTIES LABELS unit)
endif()
if (TARGET llama-tool-args)
    # (g) the option table llama-cli and llama-server share
    add_executable(test-arg-table ${CMAKE_CURRENT_SOURCE_DIR}/tools/test-arg-table.cpp)
    target_link_libraries(test-arg-table PRIVATE llama-tool-args GTest::gtest_main)
    target_include_directories(test-arg-table PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/common)
    target_compile_options(test-arg-table PRIVATE -Wall -Wextra)
    add_test(NAME test-arg-table COMMAND test-arg-table)
    set_tests_properties(test-arg-table PROPERTIES LABELS unit)
endif()

# (h) the installed library works for a consumer outside the tree (find_package, pkg-config; shared, static)
include(${CMAKE_CURRENT_SOURCE_DIR}/install/install-tests.cmake)

# (c) the CUDA backend's host-testable math (ggml-cuda/ops-math.cuh, quantize.cuh) is compared bit for bit
# with the reference quantizers, which are built with -ffp-contract=off: so is its host test
set_property(SOURCE ${CMAKE_CURRENT_SOURCE_DIR}/unit/test-cuda-host-math.cpp APPEND PROPERTY COMPILE_OPTIONS
             -ffp-contract=off)

# (d) the CUDA basic ops on a real device against the CPU backend (skips without a device; fails then
# when LLAMA_TEST_REQUIRE_CUDA=1). Assumes the CUDA build (ggml/src/ggml-cuda/CMakeLists.txt) has enabled
# the CUDA language and compiled the backend's .cu files into ggml-internal.
if (LLAMA_CUDA AND CMAKE_CUDA_COMPILER)
    add_executable(test-cuda-basic-ops ${CMAKE_CURRENT_SOURCE_DIR}/cuda/test-cuda-basic-ops.cu)
    target_link_libraries(test-cuda-basic-ops PRIVATE ggml-cuda-internal test-common GTest::gtest_main)
    if (TARGET CUDA::cudart)
        target_link_libraries(test-cuda-basic-ops PRIVATE CUDA::cudart)
    endif()
    set_target_properties(test-cuda-basic-ops PROPERTIES ENABLE_EXPORTS ${GGML_BACKEND_DL})  # as tests/CMakeLists.txt
    add_test(NAME test-cuda-basic-ops COMMAND test-cuda-basic-ops WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
    set_tests_properties(test-cuda-basic-ops PROPERTIES LABELS backend)
endif()

# (e) the CUDA mat-vec kernels (dp4a, vector-load float, general) on a real device against a double reference,
# plus a decode-bandwidth report of the Llama-3-8B projection shapes; same skip rules as (d)
if (LLAMA_CUDA AND CMAKE_CUDA_COMPILER)
    add_executable(test-cuda-mm-vec ${CMAKE_CURRENT_SOURCE_DIR}/cuda/test-cuda-mm-vec.cu)
    target_link_libraries(test-cuda-mm-vec PRIVATE ggml-cuda-internal test-common GTest::gtest_main)
    if (TARGET CUDA::cudart)
        target_link_libraries(test-cuda-mm-vec PRIVATE CUDA::cudart)
    endif()
    set_target_properties(test-cuda-mm-vec PROPERTIES ENABLE_EXPORTS ${GGML_BACKEND_DL})  # as tests/CMakeLists.txt
    add_test(NAME test-cuda-mm-vec COMMAND test-cuda-mm-vec WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
    set_tests_properties(test-cuda-mm-vec PROPERTIES LABELS backend)
endif()

if (TARGET test-backend-ops AND LLAMA_VULKAN)
    # (h) the Vulkan GEMV without subgroup operations: the plain mul_mat shader takes single columns
    # too (devices without subgroupAdd); the default run above covers the subgroup GEMV (mul_mv)
    add_test(NAME test-backend-ops-vk-no-subgroups COMMAND test-backend-ops --gtest_filter=BackendOps.MatMul)
    set_tests_properties(test-backend-ops-vk-no-subgroups PROPERTIES LABELS backend
        ENVIRONMENT "GGML_VK_DISABLE_SUBGROUPS=1")
endif()

if (TARGET test-vulkan-flash-attn AND LLAMA_VULKAN)
    # (i) Vulkan flash attention: the file reads the plan (vk-context.h), and runs again with each
    # kernel forced for every case, and with the tiled shader's shared-memory row reductions
    target_compile_definitions(test-vulkan-flash-attn PRIVATE LLAMA_TEST_VK_INTERNALS)
    foreach(path tiled split row)
        add_test(NAME test-vulkan-flash-attn-${path} COMMAND test-vulkan-flash-attn)
        set_tests_properties(test-vulkan-flash-attn-${path} PROPERTIES LABELS backend ENVIRONMENT "GGML_VK_FA=${path}")
    endforeach()
    add_test(NAME test-vulkan-flash-attn-no-subgroups COMMAND test-vulkan-flash-attn)
    set_tests_properties(test-vulkan-flash-attn-no-subgroups PROPERTIES LABELS backend
        ENVIRONMENT "GGML_VK_DISABLE_SUBGROUPS=1;GGML_VK_FA=tiled")
    # end to end with flash attention (on by default) through the tiled and the split-K kernel: the
    # default run's short prompts and 128-cell cache take the per-row kernel only
    if (TARGET test-vulkan-e2e)
        foreach(path tiled split)
            add_test(NAME test-vulkan-e2e-fa-${path} COMMAND test-vulkan-e2e
                --gtest_filter=VulkanE2E.Stories260KOffloadMatchesCpu:VulkanE2E.SyntheticMicroModelsOffloadMatchCpu)
            set_tests_properties(test-vulkan-e2e-fa-${path} PROPERTIES LABELS backend ENVIRONMENT "GGML_VK_FA=${path}")
        endforeach()
    endif()
endif()

if (TARGET llama)
    # (g) drop-in ABI with llama.cpp's llama.h at 4df29be4 (docs/abi.md):
    # - layout: sizes, offsets, enum values and macros of our header equal the golden table made
    #   from llama.cpp's headers (x86-64 only: the table is that platform's)
    if (CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64" AND NOT WIN32)  # the SysV ABI's table (LP64)
        add_executable(abi-layout-probe ${CMAKE_CURRENT_SOURCE_DIR}/abi/abi-layout-probe.c)
        target_link_libraries(abi-layout-probe PRIVATE llama)
        add_test(NAME test-abi-layout
                 COMMAND ${CMAKE_COMMAND} -DPROBE=$<TARGET_FILE:abi-layout-probe>
                     -DGOLDEN=${LLAMA_TEST_DATA_DIR}/abi/layout-x86_64.txt
                     -P ${CMAKE_CURRENT_SOURCE_DIR}/abi/compare-probe.cmake)
        set_tests_properties(test-abi-layout PROPERTIES LABELS unit)
    endif()
    # - signatures: every function's type, as the C++ compiler spells it, equals llama.cpp's (the
    #   golden table is GCC's spelling, "const char* (*)(long unsigned int)"; clang's differs, and
    #   the header is the same for both, so GCC builds check it; the SysV ABI's types: not on Windows,
    #   where long is 32 bits)
    if (CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64" AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND NOT WIN32)
        add_executable(abi-signature-probe ${CMAKE_CURRENT_SOURCE_DIR}/abi/abi-signature-probe.cpp)
        target_link_libraries(abi-signature-probe PRIVATE llama)
        add_test(NAME test-abi-signatures
                 COMMAND ${CMAKE_COMMAND} -DPROBE=$<TARGET_FILE:abi-signature-probe>
                     -DGOLDEN=${LLAMA_TEST_DATA_DIR}/abi/signatures.txt
                     -P ${CMAKE_CURRENT_SOURCE_DIR}/abi/compare-probe.cmake)
        set_tests_properties(test-abi-signatures PROPERTIES LABELS unit)
    endif()
    # - a C99 client relying on what llama.h includes, as llama.cpp's does
    add_executable(test-abi-c99-client ${CMAKE_CURRENT_SOURCE_DIR}/abi/c99-upstream-style.c)
    set_target_properties(test-abi-c99-client PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
    target_compile_options(test-abi-c99-client PRIVATE -std=c99 -Wall -Wextra -Werror
                                                       -Werror=implicit-function-declaration)
    target_link_libraries(test-abi-c99-client PRIVATE llama)
    add_test(NAME test-abi-c99-client COMMAND test-abi-c99-client)
    set_tests_properties(test-abi-c99-client PROPERTIES LABELS unit)
endif()

if (TARGET llama AND BUILD_SHARED_LIBS)
    # - exports: every function llama.cpp's llama.h declares resolves with dlsym
    add_executable(abi-dlsym-check ${CMAKE_CURRENT_SOURCE_DIR}/abi/abi-dlsym-check.c
                                   $<TARGET_OBJECTS:ggml-platform>)
    target_include_directories(abi-dlsym-check PRIVATE ${PROJECT_SOURCE_DIR}/ggml/src/platform)
    target_link_libraries(abi-dlsym-check PRIVATE Threads::Threads ${CMAKE_DL_LIBS})
    set_target_properties(abi-dlsym-check PROPERTIES LINKER_LANGUAGE CXX)
    add_test(NAME test-abi-exports
             COMMAND abi-dlsym-check $<TARGET_FILE:llama> ${LLAMA_TEST_DATA_DIR}/abi/llama-functions.txt
                     ${LLAMA_TEST_DATA_DIR}/abi/pending-functions.txt)
    set_tests_properties(test-abi-exports PROPERTIES LABELS unit)
endif()

# the JSON schema converter of the tools (tools/common) exists only with nlohmann/json
if (TARGET test-json-schema-grammar AND TARGET llama-json-schema)
    target_link_libraries(test-json-schema-grammar PRIVATE llama-json-schema)
    target_compile_definitions(test-json-schema-grammar PRIVATE LLAMA_TEST_JSON_SCHEMA=1)
endif()
if (TARGET test-json-schema-fuzz AND TARGET llama-json-schema)
    find_package(nlohmann_json 3.10 REQUIRED)  # found before for llama-json-schema; the test's oracle reads JSON too
    target_link_libraries(test-json-schema-fuzz PRIVATE llama-json-schema nlohmann_json::nlohmann_json)
    target_compile_definitions(test-json-schema-fuzz PRIVATE LLAMA_TEST_JSON_SCHEMA=1)
endif()
# the chat output formats of the tools (tools/common/chat-format*), likewise
if (TARGET test-chat-roundtrip AND TARGET llama-chat-format)
    target_link_libraries(test-chat-roundtrip PRIVATE llama-chat-format)
    target_compile_definitions(test-chat-roundtrip PRIVATE LLAMA_TEST_CHAT_ROUNDTRIP=1)
endif()
if (TARGET test-chat-format AND TARGET llama-chat-format)
    target_link_libraries(test-chat-format PRIVATE llama-chat-format llama-json-schema)
    target_compile_definitions(test-chat-format PRIVATE LLAMA_TEST_CHAT_FORMAT=1)
endif()

if (TARGET test-quantize-iq-golden AND NOT MSVC)
    # (j) the i-quant searches' SSE2 lanes against their plain loops: the iq1 / iq2 quantizers built a
    # second time without SSE2 (the #else branches), entry points renamed *_scalar, linked into the test
    # that compares the two on random rows (tests/unit/test-quantize-iq-golden.cpp)
    add_library(iq-quantize-scalar OBJECT ${PROJECT_SOURCE_DIR}/ggml/src/ggml-quantize-iq1.c
                                          ${PROJECT_SOURCE_DIR}/ggml/src/ggml-quantize-iq2.c)
    target_include_directories(iq-quantize-scalar PRIVATE ${PROJECT_SOURCE_DIR}/ggml/include
                                                          ${PROJECT_SOURCE_DIR}/ggml/src
                                                          ${PROJECT_SOURCE_DIR}/ggml/src/platform)
    target_compile_options(iq-quantize-scalar PRIVATE -U__SSE2__ -ffp-contract=off)
    foreach(t iq1_s iq1_m iq2_xxs iq2_xs iq2_s)
        target_compile_definitions(iq-quantize-scalar PRIVATE ggml_quantize_row_${t}=ggml_quantize_row_${t}_scalar)
    endforeach()
    target_sources(test-quantize-iq-golden PRIVATE $<TARGET_OBJECTS:iq-quantize-scalar>)
    target_compile_definitions(test-quantize-iq-golden PRIVATE LLAMA_TEST_IQ_SCALAR_BUILD=1)
endif()

if (TARGET test-platform AND BUILD_SHARED_LIBS)
    # the platform layer's loader test opens the project's own shared libggml
    target_compile_definitions(test-platform PRIVATE LLAMA_TEST_GGML_LIB="$<TARGET_FILE:ggml>")
    add_dependencies(test-platform ggml)
endif()

# the prompt-cache files of the tools (tools/common/prompt-cache.*): compiled into the tests, which
# link the library's static archive rather than the shared library llama-prompt-cache uses
foreach(_t test-prompt-cache test-prompt-cache-state)
    if (TARGET ${_t} AND TARGET llama-internal)
        target_sources(${_t} PRIVATE ${PROJECT_SOURCE_DIR}/tools/common/prompt-cache.cpp)
        target_include_directories(${_t} PRIVATE ${PROJECT_SOURCE_DIR}/tools/common)
        target_compile_definitions(${_t} PRIVATE LLAMA_TEST_PROMPT_CACHE=1)
    endif()
endforeach()
