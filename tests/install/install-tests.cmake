# test-install-shared / test-install-static: `cmake --install` into a temporary prefix, then consumers
# built with find_package(llama) and with pkg-config against it, run without LD_LIBRARY_PATH
# (run-install-test.cmake says what is checked). The kind the main build is not (static for the default
# build) is a second, library-only build under tests/install/; its first build takes about a minute
# on two cores, later runs are incremental. Not registered for sanitizer builds: consumers built
# without the sanitizer runtime cannot load instrumented libraries.
if (TARGET llama AND NOT LLAMA_SANITIZE_FLAGS)
    find_program(LLAMA_READELF NAMES readelf REQUIRED)
    find_program(LLAMA_PKG_CONFIG NAMES pkg-config pkgconf)
    include(GNUInstallDirs)
    string(REPLACE ";" "," _llama_install_modules "${GGML_BACKEND_MODULES}")  # the GPU modules, if any
    foreach(mode shared static)
        add_test(NAME test-install-${mode}
                 COMMAND ${CMAKE_COMMAND}
                     -DMODE=${mode}
                     -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
                     -DBUILD_DIR=${PROJECT_BINARY_DIR}
                     -DMAIN_SHARED=${BUILD_SHARED_LIBS}
                     -DLIB_BUILD_DIR=${CMAKE_CURRENT_BINARY_DIR}/install/${mode}-lib-build
                     -DLIBDIR=${CMAKE_INSTALL_LIBDIR}
                     -DMODEL=${PROJECT_SOURCE_DIR}/models/stories260K.gguf
                     -DVERSION=$<TARGET_PROPERTY:llama,VERSION>
                     -DSOVERSION=$<TARGET_PROPERTY:llama,SOVERSION>
                     -DGENERATOR=${CMAKE_GENERATOR}
                     -DBUILD_TYPE=${CMAKE_BUILD_TYPE}
                     -DC_COMPILER=${CMAKE_C_COMPILER}
                     -DCXX_COMPILER=${CMAKE_CXX_COMPILER}
                     -DVULKAN=${LLAMA_VULKAN}
                     "-DMODULES=${_llama_install_modules}"
                     -DVULKAN_INCLUDE_DIR=${Vulkan_INCLUDE_DIR}
                     -DVULKAN_LIBRARY=${Vulkan_LIBRARY}
                     -DGLSL_COMPILER=${LLAMA_GLSL_COMPILER}
                     -DREADELF=${LLAMA_READELF}
                     -DPKG_CONFIG=${LLAMA_PKG_CONFIG}
                     -P ${CMAKE_CURRENT_LIST_DIR}/run-install-test.cmake)
        # COST: started first, so the second build (minutes) overlaps the other tests instead of
        # running alone at the end of the suite (a fresh build directory has no timing history)
        set_tests_properties(test-install-${mode} PROPERTIES LABELS slow TIMEOUT 600 COST 1000
            SKIP_REGULAR_EXPRESSION "pkg-config consumers skipped")
    endforeach()
endif()
