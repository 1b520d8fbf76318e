# Shared compile settings: warnings, hidden visibility, sanitizers, CPU flags.
set(LLAMA_SANITIZE_FLAGS "")
if (LLAMA_SANITIZE_ADDRESS)
    list(APPEND LLAMA_SANITIZE_FLAGS -fsanitize=address -fno-omit-frame-pointer)
endif()
if (LLAMA_SANITIZE_UNDEFINED)
    list(APPEND LLAMA_SANITIZE_FLAGS -fsanitize=undefined -fno-sanitize-recover=undefined)
    # clang's sanitizer runtimes come in a C and a C++ part (UBSan's vptr and function-type checks),
    # and its C driver links only the C part. libllama's C++ code calls the C++ part, so a C program
    # that links or dlopens it (the C99 and ABI tests) is linked by the C++ driver, which adds that
    # part and the C++ library it needs (GCC's libubsan holds both parts).
    if (CMAKE_C_COMPILER_ID MATCHES "Clang" AND CMAKE_CXX_COMPILER_ID MATCHES "Clang")
        # clang's -fsanitize=enum (GCC has no such check) reports loading a C++ enum outside its
        # enumerators' range. Our C API takes enums from C callers, for whom any int is a value,
        # and range-checks them (ggml_type_is_valid, the tests pass 999 and -1 on purpose): the
        # report would be of the check itself, not of a bug.
        list(APPEND LLAMA_SANITIZE_FLAGS -fno-sanitize=enum)
        string(REPLACE "<CMAKE_C_COMPILER>" "<CMAKE_CXX_COMPILER>" CMAKE_C_LINK_EXECUTABLE "${CMAKE_C_LINK_EXECUTABLE}")
    endif()
endif()
if (LLAMA_SANITIZE_THREAD)
    list(APPEND LLAMA_SANITIZE_FLAGS -fsanitize=thread)
endif()
if (LLAMA_SANITIZE_FLAGS)
    add_compile_options(${LLAMA_SANITIZE_FLAGS})
    add_link_options(${LLAMA_SANITIZE_FLAGS})
endif()

# Threads are needed by the CPU backend's pool and by tests.
find_package(Threads REQUIRED)

# Windows: MinGW's C99 printf (%zu, %lld) instead of msvcrt's; UTF-8 sources and execution charset
# under MSVC, whose C runtime has a C99 printf of its own.
if (MINGW)
    add_compile_definitions(__USE_MINGW_ANSI_STDIO=1)
endif()
if (MSVC)
    # C11 with its atomics (the log lock in ggml-types.c)
    add_compile_options(/utf-8 /Zc:__cplusplus $<$<COMPILE_LANGUAGE:C>:/std:c11> $<$<COMPILE_LANGUAGE:C>:/experimental:c11atomics>)
    add_compile_definitions(_CRT_SECURE_NO_WARNINGS)
endif()

# Applied to our own library targets: warnings on, symbols hidden unless exported.
function(llama_target_options target)
    if (MSVC)
        target_compile_options(${target} PRIVATE /W3)
    else()
        target_compile_options(${target} PRIVATE
            $<$<COMPILE_LANGUAGE:C,CXX>:-Wall -Wextra -Wno-unused-parameter>
            $<$<COMPILE_LANGUAGE:C>:-Wmissing-prototypes>)
    endif()
    set_target_properties(${target} PROPERTIES
        C_VISIBILITY_PRESET hidden
        CXX_VISIBILITY_PRESET hidden
        VISIBILITY_INLINES_HIDDEN ON)
    if (LLAMA_NATIVE)
        target_compile_options(${target} PRIVATE -march=native)
    endif()
endfunction()

function(llama_link_options target)
    target_link_libraries(${target} PRIVATE Threads::Threads ${CMAKE_DL_LIBS})
    if (NOT APPLE AND NOT WIN32)
        target_link_libraries(${target} PRIVATE m)
    endif()
endfunction()

# Shared libraries export exactly their C API: hidden visibility covers our own code, and a linker
# version script also keeps the C++ standard library's template instantiations out of the ABI.
function(llama_export_map target map)
    if (BUILD_SHARED_LIBS AND NOT APPLE AND NOT WIN32)
        target_link_options(${target} PRIVATE "-Wl,--version-script=${map}")
        set_target_properties(${target} PROPERTIES LINK_DEPENDS ${map})
    endif()
endfunction()
