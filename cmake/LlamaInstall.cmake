# `cmake --install`: versioned libraries, the user tools, the headers, CMake package configs
# (find_package(llama) / find_package(ggml)) and pkg-config files (llama.pc / ggml.pc).
# The installed tree is relocatable: libraries and tools find each other through relative RUNPATHs
# ($ORIGIN), the package configs and .pc files locate the prefix from their own path, and nothing
# installed names the build tree. tests/install/ checks all of it; docs/embedding.md is the user's guide.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

if (APPLE)
    set(_llama_origin "@loader_path")
else()
    set(_llama_origin "$ORIGIN")
endif()

# ---- SONAME: lib<name>.so.<ABI> -> lib<name>.so.<version> ------------------------------------------
# The SONAME number is llama.h's LLAMA_ABI_VERSION, the number bumped whenever a change breaks binary
# compatibility of either library (llama.h exposes ggml's types, so they break together). The header's
# release version must be the project's.
file(STRINGS ${PROJECT_SOURCE_DIR}/include/llama.h _llama_h_defs
     REGEX "^#define LLAMA_(ABI_VERSION|VERSION_MAJOR|VERSION_MINOR|VERSION_PATCH) +[0-9]+")
foreach(_def ${_llama_h_defs})
    string(REGEX MATCH "^#define (LLAMA_[A-Z_]+) +([0-9]+)" _ "${_def}")
    set(_llama_h_${CMAKE_MATCH_1} ${CMAKE_MATCH_2})
endforeach()
if (NOT DEFINED _llama_h_LLAMA_ABI_VERSION OR NOT
    "${_llama_h_LLAMA_VERSION_MAJOR}.${_llama_h_LLAMA_VERSION_MINOR}.${_llama_h_LLAMA_VERSION_PATCH}"
    STREQUAL PROJECT_VERSION)
    message(FATAL_ERROR "include/llama.h must define LLAMA_ABI_VERSION and LLAMA_VERSION_MAJOR/MINOR/PATCH "
                        "equal to project(VERSION ${PROJECT_VERSION}) in CMakeLists.txt.")
endif()
set(LLAMA_SOVERSION ${_llama_h_LLAMA_ABI_VERSION})

set(_llama_libs ggml)
if (TARGET llama)
    list(APPEND _llama_libs llama)
endif()
# RUNPATH: libllama finds libggml next to it; a dependency outside the system's library dirs (a Vulkan
# SDK in /opt, say) is added after it by INSTALL_RPATH_USE_LINK_PATH, so nothing needs LD_LIBRARY_PATH.
set_target_properties(${_llama_libs} PROPERTIES
    VERSION ${PROJECT_VERSION}
    SOVERSION ${LLAMA_SOVERSION}
    INSTALL_RPATH "${_llama_origin}"
    INSTALL_RPATH_USE_LINK_PATH ON)

# ---- static libraries are C++ inside -----------------------------------------------------------------
# The C++ runtime libraries (those the C++ driver links and the C driver does not: libstdc++ for g++).
# A C program linking the static archives with the C driver needs them: the exported targets add them
# for consumers whose link language is C, and llama.pc / ggml.pc list them in Libs.private.
set(_llama_cxx_runtime "")
foreach(_lib ${CMAKE_CXX_IMPLICIT_LINK_LIBRARIES})
    if (NOT _lib IN_LIST CMAKE_C_IMPLICIT_LINK_LIBRARIES AND NOT _lib IN_LIST _llama_cxx_runtime)
        list(APPEND _llama_cxx_runtime ${_lib})
    endif()
endforeach()
if (NOT BUILD_SHARED_LIBS)
    foreach(_lib ${_llama_cxx_runtime})
        foreach(_target ${_llama_libs})
            target_link_libraries(${_target} PRIVATE "$<$<LINK_LANGUAGE:C>:${_lib}>")
        endforeach()
    endforeach()
endif()

# ---- the user tools, to bin/ (not tests, not micro-benchmarks) -------------------------------------
file(RELATIVE_PATH _llama_bin_to_lib ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})
set(_llama_tools "")
foreach(_tool llama-simple llama-simple-chat llama-tokenize llama-quantize llama-gguf-synth llama-bench llama-gguf-dump llama-save-load-state llama-embedding llama-cli llama-server)
    if (TARGET ${_tool})
        list(APPEND _llama_tools ${_tool})
    endif()
endforeach()
if (_llama_tools)
    if (BUILD_SHARED_LIBS)
        set_target_properties(${_llama_tools} PROPERTIES INSTALL_RPATH "${_llama_origin}/${_llama_bin_to_lib}"
                              INSTALL_RPATH_USE_LINK_PATH ON)
    endif()
    install(TARGETS ${_llama_tools} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# ---- libraries, headers, CMake packages ------------------------------------------------------------
install(DIRECTORY ${PROJECT_SOURCE_DIR}/ggml/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
if (TARGET llama)
    # llama.h and the headers it includes at its end (its include/ folder holds nothing else;
    # test-install-* checks that every header there is installed)
    set(_llama_public_headers llama.h llama-api-memory.h llama-api-vocab.h llama-api-sampling.h llama-api-extras.h
                              llama-chat-template.h llama-speculative.h)
    list(TRANSFORM _llama_public_headers PREPEND ${PROJECT_SOURCE_DIR}/include/)
    install(FILES ${_llama_public_headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endif()

# ---- GPU backend modules (GGML_BACKEND_DL): <libdir>/ggml-backends, <bindir>/ggml-backends on Windows ----
# libggml looks in the folder "ggml-backends" beside its own file, so the installed tree stays relocatable.
# A module's RUNPATH reaches libggml one folder up, and its GPU runtime where it was linked from.
if (WIN32)
    set(GGML_BACKEND_INSTALL_DIR ${CMAKE_INSTALL_BINDIR}/ggml-backends)
else()
    set(GGML_BACKEND_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/ggml-backends)
endif()
if (GGML_BACKEND_MODULES)
    set_target_properties(${GGML_BACKEND_MODULES} PROPERTIES INSTALL_RPATH "${_llama_origin}/.."
                          INSTALL_RPATH_USE_LINK_PATH ON)
    install(TARGETS ${GGML_BACKEND_MODULES} LIBRARY DESTINATION ${GGML_BACKEND_INSTALL_DIR}
            RUNTIME DESTINATION ${GGML_BACKEND_INSTALL_DIR})
endif()
list(JOIN GGML_BACKEND_MODULES " " GGML_PC_MODULES)

# What the packages need to know about this build: a static library carries its dependencies
# (threads, Vulkan) to the consumer's link, so the config must find them there.
set(LLAMA_PKG_SHARED ${BUILD_SHARED_LIBS})
# a Windows program importing from the DLLs declares so (__declspec(dllimport) in the headers)
set(GGML_PC_CFLAGS "")
set(LLAMA_PC_CFLAGS "")
if (BUILD_SHARED_LIBS AND WIN32)
    set(GGML_PC_CFLAGS " -DGGML_SHARED")
    set(LLAMA_PC_CFLAGS " -DLLAMA_SHARED")
endif()
set(LLAMA_PKG_VULKAN ${LLAMA_VULKAN})
set(LLAMA_PKG_CUDA ${LLAMA_CUDA})
set(LLAMA_PKG_BACKEND_DL ${GGML_BACKEND_DL})

foreach(_pkg ${_llama_libs})
    set(_cmakedir ${CMAKE_INSTALL_LIBDIR}/cmake/${_pkg})
    install(TARGETS ${_pkg} EXPORT ${_pkg}-targets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
    install(EXPORT ${_pkg}-targets NAMESPACE ${_pkg}:: DESTINATION ${_cmakedir})
    configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/${_pkg}-config.cmake.in
        ${PROJECT_BINARY_DIR}/${_pkg}-config.cmake INSTALL_DESTINATION ${_cmakedir}
        PATH_VARS GGML_BACKEND_INSTALL_DIR)
    # 0.x releases may break the API with every minor version (1.x and later: every major one)
    write_basic_package_version_file(${PROJECT_BINARY_DIR}/${_pkg}-config-version.cmake
        COMPATIBILITY SameMinorVersion)
    install(FILES ${PROJECT_BINARY_DIR}/${_pkg}-config.cmake ${PROJECT_BINARY_DIR}/${_pkg}-config-version.cmake
            DESTINATION ${_cmakedir})
endforeach()

# ---- pkg-config ---------------------------------------------------------------------------------------
# prefix is computed from the .pc file's own location (${pcfiledir}), so a moved tree and any
# `cmake --install --prefix` work; absolute LIBDIR/INCLUDEDIR settings are kept as given.
file(RELATIVE_PATH LLAMA_PC_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" LLAMA_PC_PREFIX "\${pcfiledir}/${LLAMA_PC_PREFIX}")
foreach(_dir LIBDIR INCLUDEDIR)
    if (IS_ABSOLUTE "${CMAKE_INSTALL_${_dir}}")
        set(LLAMA_PC_${_dir} "${CMAKE_INSTALL_${_dir}}")
    else()
        set(LLAMA_PC_${_dir} "\${prefix}/${CMAKE_INSTALL_${_dir}}")
    endif()
endforeach()

# Libs.private: what a static link against libggml/libllama also needs (pkg-config --static).
set(_llama_pc_private "")
foreach(_lib ${_llama_cxx_runtime} m pthread ${CMAKE_DL_LIBS})
    if (NOT "-l${_lib}" IN_LIST _llama_pc_private)
        list(APPEND _llama_pc_private "-l${_lib}")
    endif()
endforeach()
set(GGML_PC_LIBS_PRIVATE ${_llama_pc_private})
if (LLAMA_VULKAN AND NOT GGML_BACKEND_DL)
    get_filename_component(_vk_dir "${Vulkan_LIBRARY}" DIRECTORY)
    if (_vk_dir IN_LIST CMAKE_C_IMPLICIT_LINK_DIRECTORIES)
        list(PREPEND GGML_PC_LIBS_PRIVATE "-lvulkan")
    else()
        list(PREPEND GGML_PC_LIBS_PRIVATE "-L${_vk_dir}" "-lvulkan")
    endif()
endif()
if (LLAMA_VULKAN)
    set(GGML_PC_BACKENDS "CPU and Vulkan backends")
else()
    set(GGML_PC_BACKENDS "CPU backend")
endif()
if (LLAMA_CUDA AND NOT GGML_BACKEND_DL)
    list(PREPEND GGML_PC_LIBS_PRIVATE "-L${CUDAToolkit_LIBRARY_DIR}" "-lcublas" "-lcudart")
endif()
if (LLAMA_CUDA)
    if (LLAMA_VULKAN)
        set(GGML_PC_BACKENDS "CPU, Vulkan and CUDA backends")
    else()
        set(GGML_PC_BACKENDS "CPU and CUDA backends")
    endif()
endif()
if (GGML_BACKEND_MODULES)
    string(APPEND GGML_PC_BACKENDS "; GPU backends as modules in ggml-backends")
endif()
list(JOIN GGML_PC_LIBS_PRIVATE " " GGML_PC_LIBS_PRIVATE)
list(JOIN _llama_pc_private " " LLAMA_PC_LIBS_PRIVATE)

foreach(_pkg ${_llama_libs})
    configure_file(${CMAKE_CURRENT_LIST_DIR}/${_pkg}.pc.in ${PROJECT_BINARY_DIR}/${_pkg}.pc @ONLY)
    install(FILES ${PROJECT_BINARY_DIR}/${_pkg}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
