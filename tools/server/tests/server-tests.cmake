# llama-server tests (ctest, loopback only). run-server-test.sh starts the server on a free port with
# models/stories260K.gguf and runs one node script against it; the `openai` npm package is installed
# into the build tree (tools/server/tests/node_modules) on first use. Without node/npm the tests skip
# (exit 77), unless LLAMA_TEST_REQUIRE_NODE=1 (set by .ci/run), where they fail; test-server-webui
# also needs chromium (same rule).
foreach(name openai bad-input structured timeout tools metrics router anthropic logprobs native webui args bench-slots
             slots infill lora sampling tool-formats speculative)
    add_test(NAME test-server-${name}
             COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/run-server-test.sh ${name}
                     $<TARGET_FILE:llama-server> $<TARGET_FILE:greedy-ref>
                     ${PROJECT_SOURCE_DIR}/models/stories260K.gguf ${CMAKE_CURRENT_BINARY_DIR}/tests)
    set_tests_properties(test-server-${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
set_tests_properties(test-server-openai test-server-bad-input test-server-structured test-server-timeout test-server-tools
                     test-server-metrics test-server-router test-server-anthropic test-server-logprobs
                     test-server-native test-server-webui test-server-args test-server-slots test-server-infill
                     test-server-lora
                     test-server-sampling test-server-tool-formats test-server-speculative
                     PROPERTIES LABELS model)
set_tests_properties(test-server-bench-slots PROPERTIES LABELS slow RUN_SERIAL ON)

# a hybrid model (lfm2 micro: recurrent + attention layers) with 4 slots: concurrent requests and the
# prompt reuse of a state that cannot be cut back
add_test(NAME test-server-hybrid
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/run-server-test.sh hybrid
                 $<TARGET_FILE:llama-server> $<TARGET_FILE:greedy-ref>
                 ${PROJECT_SOURCE_DIR}/tests/data/models/synthetic/lfm2-micro-f16.gguf ${CMAKE_CURRENT_BINARY_DIR}/tests)
set_tests_properties(test-server-hybrid PROPERTIES LABELS model SKIP_RETURN_CODE 77 TIMEOUT 300)
# speculative decoding on that hybrid target (its states restored after rejected drafts)
add_test(NAME test-server-hybrid-spec
         COMMAND ${CMAKE_COMMAND} -E env
                 "DRAFT=${PROJECT_SOURCE_DIR}/tests/data/models/synthetic/llama-micro-f16.gguf"
                 bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/run-server-test.sh hybrid-spec
                 $<TARGET_FILE:llama-server> $<TARGET_FILE:greedy-ref>
                 ${PROJECT_SOURCE_DIR}/tests/data/models/synthetic/lfm2-micro-f16.gguf ${CMAKE_CURRENT_BINARY_DIR}/tests)
set_tests_properties(test-server-hybrid-spec PROPERTIES LABELS model SKIP_RETURN_CODE 77 TIMEOUT 300)

# --prompt-cache-dir: restarts, damaged files, the cap, and files shared with llama-cli --prompt-cache
add_test(NAME test-server-prompt-cache
         COMMAND ${CMAKE_COMMAND} -E env "CLI=$<$<TARGET_EXISTS:llama-cli>:$<TARGET_FILE:llama-cli>>"
                 bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/run-server-test.sh prompt-cache
                 $<TARGET_FILE:llama-server> $<TARGET_FILE:greedy-ref>
                 ${PROJECT_SOURCE_DIR}/models/stories260K.gguf ${CMAKE_CURRENT_BINARY_DIR}/tests)
set_tests_properties(test-server-prompt-cache PROPERTIES LABELS model SKIP_RETURN_CODE 77 TIMEOUT 300)

# reranking and the model's pooling, on BERT models llama-gguf-synth writes at test time
if (TARGET llama-gguf-synth)
    add_test(NAME test-server-rerank
             COMMAND ${CMAKE_COMMAND} -E env SYNTH=$<TARGET_FILE:llama-gguf-synth>
                     bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/run-server-test.sh rerank
                     $<TARGET_FILE:llama-server> $<TARGET_FILE:greedy-ref>
                     ${PROJECT_SOURCE_DIR}/models/stories260K.gguf ${CMAKE_CURRENT_BINARY_DIR}/tests)
    set_tests_properties(test-server-rerank PROPERTIES LABELS model SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()

# examples/nginx: 3 replicas behind nginx, one killed mid-run (runs when nginx is installed)
add_test(NAME test-server-nginx
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/run-server-test.sh nginx-failover
                 $<TARGET_FILE:llama-server> $<TARGET_FILE:greedy-ref>
                 ${PROJECT_SOURCE_DIR}/models/stories260K.gguf ${CMAKE_CURRENT_BINARY_DIR}/tests)
set_tests_properties(test-server-nginx PROPERTIES LABELS model SKIP_RETURN_CODE 77 TIMEOUT 300 RUN_SERIAL ON)

# test-server-lora writes its adapter with llama-gguf-synth
if (TARGET llama-gguf-synth)
    set_tests_properties(test-server-lora PROPERTIES ENVIRONMENT "GGUF_SYNTH=$<TARGET_FILE:llama-gguf-synth>")
endif()

# SIGTERM / SIGINT at varied moments (before listen, right after, idle, a request in flight, router
# mode) end the server promptly and cleanly; no node needed
add_test(NAME test-server-signals
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/test-signals.sh $<TARGET_FILE:llama-server>
                 ${PROJECT_SOURCE_DIR}/models/stories260K.gguf ${CMAKE_CURRENT_BINARY_DIR}/tests 24)
set_tests_properties(test-server-signals PROPERTIES LABELS model TIMEOUT 300)
