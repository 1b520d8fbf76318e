# Tests that need more than one GoogleTest source (owned by the libllama engineer).

if (TARGET llama)
    # (a) llama.h is plain C99: a C file including it must compile with -pedantic -Werror
    add_executable(test-llama-c99 ${CMAKE_CURRENT_SOURCE_DIR}/c99/llama-c99.c)
    set_target_properties(test-llama-c99 PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
    target_compile_options(test-llama-c99 PRIVATE -std=c99 -pedantic -Wall -Wextra -Werror)
    target_link_libraries(test-llama-c99 PRIVATE llama)
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
             -P ${CMAKE_CURRENT_SOURCE_DIR}/abi/check-exports.cmake)
    add_test(NAME test-exports-ggml COMMAND ${CMAKE_COMMAND} -DLIB=$<TARGET_FILE:ggml> "-DPREFIXES=ggml_;gguf_"
             -P ${CMAKE_CURRENT_SOURCE_DIR}/abi/check-exports.cmake)
    set_tests_properties(test-exports-llama test-exports-ggml PROPERTIES LABELS unit)
endif()

# (e) the installed library works for a consumer outside the tree (find_package, pkg-config; shared, static)
include(${CMAKE_CURRENT_SOURCE_DIR}/install/install-tests.cmake)
