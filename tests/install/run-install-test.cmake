# Installs libllama into a temporary prefix outside the build tree, moves that prefix (the tree must be
# relocatable), then checks it like a user would: the SONAME chain and RUNPATHs, the installed tools,
# and two consumers (tests/install/consumer) built with find_package(llama) and with pkg-config, run
# without LD_LIBRARY_PATH. MODE=shared or static; the build of the other kind than the main build is a
# second, library-only configure+build in LIB_BUILD_DIR (kept between runs, so it is incremental).
#
#   cmake -DMODE=shared|static -DSOURCE_DIR= -DBUILD_DIR= -DMAIN_SHARED= -DLIB_BUILD_DIR= -DLIBDIR=
#         -DMODEL= -DSOVERSION= -DVERSION= -DGENERATOR= -DBUILD_TYPE= -DC_COMPILER= -DCXX_COMPILER=
#         -DVULKAN= [-DVULKAN_INCLUDE_DIR= -DVULKAN_LIBRARY= -DGLSL_COMPILER=] -DREADELF= [-DPKG_CONFIG=]
#         [-DMODULES=ggml-vulkan,ggml-cuda]  (the main build's GPU backend modules)
#         -P run-install-test.cmake
cmake_minimum_required(VERSION 3.25)

unset(ENV{LD_LIBRARY_PATH}) # installed programs must find their libraries by themselves
unset(ENV{GGML_BACKEND_DIR}) # and their backend modules (ctest points the build's tests at the build tree)
set(PROMPT "Once upon a time")
set(EXPECTED "Once upon a time, there was a little girl") # greedy continuation of stories260K

# run(<what> COMMAND ...): runs a command, fails the test with its output if it fails; output in OUT
function(run what)
    execute_process(${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if (NOT rc EQUAL 0)
        message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
    endif()
    set(OUT "${out}" PARENT_SCOPE)
endfunction()

function(expect what text regex)
    if (NOT "${text}" MATCHES "${regex}")
        message(FATAL_ERROR "${what}: expected /${regex}/ in:\n${text}")
    endif()
endfunction()

# literal(<var> <text>): <text> as a regular expression that matches exactly it
function(literal var text)
    string(REGEX REPLACE "([][+.*?()^$|\\\\])" "\\\\\\1" text "${text}")
    set(${var} "${text}" PARENT_SCOPE)
endfunction()

# dynamic(<file> <tag>): the values of one dynamic-section tag (NEEDED, SONAME, RUNPATH), as a list
function(dynamic file tag)
    run("readelf ${file}" COMMAND ${READELF} -d ${file})
    string(REGEX MATCHALL "\\(${tag}\\)[^\n]*\\[[^]\n]*\\]" lines "${OUT}")
    set(values "")
    foreach(line ${lines})
        string(REGEX REPLACE ".*\\[(.*)\\]" "\\1" v "${line}")
        list(APPEND values "${v}")
    endforeach()
    set(VALUES "${values}" PARENT_SCOPE)
endfunction()

if (MODE STREQUAL "shared")
    set(shared ON)
else()
    set(shared OFF)
endif()

# ---- 1. the library build to install -------------------------------------------------------------
set(vk_hints "")
foreach(var VULKAN_INCLUDE_DIR VULKAN_LIBRARY)
    if (${var})
        string(REPLACE "VULKAN_" "Vulkan_" cache_name ${var})
        list(APPEND vk_hints "-D${cache_name}=${${var}}")
    endif()
endforeach()
if (MAIN_SHARED) # as given to the main build: ON, 1, TRUE...
    set(main_shared ON)
else()
    set(main_shared OFF)
endif()
if (shared STREQUAL main_shared)
    set(lib_build ${BUILD_DIR}) # the main build, with its tools
else()
    set(lib_build ${LIB_BUILD_DIR})
    set(glsl "")
    if (GLSL_COMPILER)
        set(glsl "-DLLAMA_GLSL_COMPILER=${GLSL_COMPILER}")
    endif()
    run("configure (${MODE} libraries only)" COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${lib_build}
        -G ${GENERATOR} -DCMAKE_BUILD_TYPE=${BUILD_TYPE}
        -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
        -DBUILD_SHARED_LIBS=${shared} -DLLAMA_VULKAN=${VULKAN} ${vk_hints} ${glsl}
        -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_BENCH=OFF)
    cmake_host_system_information(RESULT jobs QUERY NUMBER_OF_LOGICAL_CORES)
    run("build (${MODE} libraries only)" COMMAND ${CMAKE_COMMAND} --build ${lib_build} -j ${jobs})
endif()

# ---- 2. install into a stage, then move it: nothing may remember where it was installed -------------
if (DEFINED ENV{TMPDIR} AND IS_DIRECTORY "$ENV{TMPDIR}")
    set(tmp "$ENV{TMPDIR}")
else()
    set(tmp /tmp)
endif()
string(RANDOM LENGTH 8 tag)
set(work ${tmp}/llama-install-test-${MODE}-${tag})
set(stage ${work}/stage)
set(prefix ${work}/prefix)
file(REMOVE_RECURSE ${work})
file(MAKE_DIRECTORY ${work})
run("cmake --install" COMMAND ${CMAKE_COMMAND} --install ${lib_build} --prefix ${stage})
file(RENAME ${stage} ${prefix})
set(libdir ${prefix}/${LIBDIR})

# no_build_paths(<what> <text>): <text> names neither the build nor the source tree nor the stage
function(no_build_paths what text)
    foreach(p ${BUILD_DIR} ${lib_build} ${SOURCE_DIR} ${stage})
        string(FIND "${text}" "${p}" pos)
        if (NOT pos EQUAL -1)
            message(FATAL_ERROR "${what} names ${p}: the installed tree must not refer to the build")
        endif()
    endforeach()
endfunction()
file(GLOB_RECURSE text_files ${prefix}/*.cmake ${prefix}/*.pc)
foreach(f ${text_files})
    file(READ ${f} content)
    no_build_paths(${f} "${content}")
endforeach()
# every public header of the source tree (llama.h includes the others of include/ at its end)
file(GLOB public_headers RELATIVE ${SOURCE_DIR} ${SOURCE_DIR}/include/*.h)
if (NOT "include/llama.h" IN_LIST public_headers OR NOT "include/llama-api-sampling.h" IN_LIST public_headers)
    message(FATAL_ERROR "no public headers found in ${SOURCE_DIR}/include")
endif()
foreach(f ${public_headers} include/ggml.h include/gguf.h ${LIBDIR}/pkgconfig/llama.pc ${LIBDIR}/pkgconfig/ggml.pc
          ${LIBDIR}/cmake/llama/llama-config.cmake ${LIBDIR}/cmake/llama/llama-config-version.cmake
          ${LIBDIR}/cmake/ggml/ggml-config.cmake ${LIBDIR}/cmake/ggml/ggml-config-version.cmake)
    if (NOT EXISTS ${prefix}/${f})
        message(FATAL_ERROR "not installed: ${f}")
    endif()
endforeach()

# ---- 3. the libraries: SONAME chain and RUNPATH (shared) or archives only (static) -----------------------
foreach(lib llama ggml)
    if (shared)
        set(real ${libdir}/lib${lib}.so.${VERSION})
        if (NOT EXISTS ${real} OR IS_SYMLINK ${real})
            message(FATAL_ERROR "lib${lib}.so.${VERSION} is not installed as a file")
        endif()
        foreach(link lib${lib}.so lib${lib}.so.${SOVERSION})
            file(READ_SYMLINK ${libdir}/${link} target) # fails unless a symlink
            file(REAL_PATH ${libdir}/${link} resolved)
            file(REAL_PATH ${real} real_resolved)
            if (NOT resolved STREQUAL real_resolved)
                message(FATAL_ERROR "${link} -> ${target} does not lead to lib${lib}.so.${VERSION}")
            endif()
        endforeach()
        dynamic(${real} SONAME)
        expect("SONAME of lib${lib}" "${VALUES}" "^lib${lib}\\.so\\.${SOVERSION}$")
        dynamic(${real} RUNPATH)
        expect("RUNPATH of lib${lib}" "${VALUES}" "^\\$ORIGIN(:/[^:]+)*$")
        no_build_paths("RUNPATH of lib${lib}" "${VALUES}")
    else()
        if (NOT EXISTS ${libdir}/lib${lib}.a)
            message(FATAL_ERROR "lib${lib}.a is not installed")
        endif()
        file(GLOB so ${libdir}/lib${lib}.so*)
        if (so)
            message(FATAL_ERROR "a static install holds ${so}")
        endif()
    endif()
endforeach()

# ---- 4. the installed tools (when the installed build had them) run as they are -------------------
file(GLOB tools ${prefix}/bin/*)
if (lib_build STREQUAL BUILD_DIR AND NOT tools)
    message(FATAL_ERROR "no tool installed to bin/")
endif()
foreach(tool ${tools})
    get_filename_component(name ${tool} NAME)
    if (shared)
        dynamic(${tool} RUNPATH)
        file(RELATIVE_PATH rel ${prefix}/bin ${libdir})
        expect("RUNPATH of bin/${name}" "${VALUES}" "^\\$ORIGIN/${rel}(:/[^:]+)*$")
        no_build_paths("RUNPATH of bin/${name}" "${VALUES}")
    endif()
    if (name STREQUAL "llama-simple")
        run("installed llama-simple" COMMAND ${tool} -m ${MODEL} -n 8 "${PROMPT}")
        expect("installed llama-simple" "${OUT}" "${EXPECTED}")
    elseif (name STREQUAL "llama-gguf-dump")
        run("installed llama-gguf-dump" COMMAND ${tool} ${MODEL})
        expect("installed llama-gguf-dump" "${OUT}" "general\\.architecture.*llama")
    endif()
endforeach()
set(names "")
foreach(tool ${tools})
    get_filename_component(name ${tool} NAME)
    list(APPEND names ${name})
endforeach()
message(STATUS "${MODE} install: libraries and tools (${names}): ok")

# ---- 4b. the GPU backend modules: in <libdir>/ggml-backends, reaching libggml through $ORIGIN/.., and
# found there by the installed libggml (each one loaded, or named in one "not loaded" line) --------------
string(REPLACE "," ";" modules "${MODULES}")
if (shared AND lib_build STREQUAL BUILD_DIR AND modules)
    foreach(m ${modules})
        set(f ${libdir}/ggml-backends/lib${m}.so)
        if (NOT EXISTS ${f})
            message(FATAL_ERROR "module not installed: ${f}")
        endif()
        dynamic(${f} RUNPATH)
        expect("RUNPATH of ${m}" "${VALUES}" "^\\$ORIGIN/\\.\\.(:/[^:]+)*$")
        no_build_paths("RUNPATH of ${m}" "${VALUES}")
    endforeach()
    execute_process(COMMAND ${prefix}/bin/llama-simple -v -m ${MODEL} -n 1 "${PROMPT}"
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if (NOT rc EQUAL 0)
        message(FATAL_ERROR "installed llama-simple -v failed (${rc}):\n${out}\n${err}")
    endif()
    literal(prefix_re ${prefix})
    foreach(m ${modules})
        # libggml's folder as the dynamic loader found it (bin/../lib through the tools' RUNPATH)
        set(path_re "${prefix_re}/[^ \n]*ggml-backends/lib${m}\\.so")
        expect("installed libggml finds ${m}" "${err}" "ggml_backend_load: (loaded [A-Za-z]+ from ${path_re}|${path_re} not loaded)")
        if (err MATCHES "/ggml/lib${m}\\.so")
            message(FATAL_ERROR "the installed libggml loaded ${m} from the build tree:\n${err}")
        endif()
    endforeach()
    message(STATUS "${MODE} install: GPU modules (${modules}): ok")
endif()

# check_consumers(<how> <dir>): runs the two consumer programs built in <dir>
function(check_consumers how dir)
    run("${how} consumer-llama" COMMAND ${dir}/consumer-llama ${MODEL} 8 "${PROMPT}")
    expect("${how} consumer-llama" "${OUT}" "libllama ${VERSION}\n${EXPECTED}")
    run("${how} consumer-ggml" COMMAND ${dir}/consumer-ggml ${MODEL})
    expect("${how} consumer-ggml" "${OUT}" "arch=llama tensors=[1-9]")
    foreach(lib llama ggml)
        dynamic(${dir}/consumer-${lib} NEEDED)
        if (shared)
            expect("${how} consumer-${lib} NEEDED" "${VALUES}" "lib${lib}\\.so\\.${SOVERSION}")
        elseif (VALUES MATCHES "lib(llama|ggml)")
            message(FATAL_ERROR "${how} consumer-${lib} against the static install needs ${VALUES}")
        endif()
    endforeach()
    message(STATUS "${how} consumers (${MODE}): ok")
endfunction()

# ---- 5. a CMake project: find_package(ggml), find_package(llama) ----------------------------------------
set(consumer_src ${CMAKE_CURRENT_LIST_DIR}/consumer)
set(consumer_vk "")
if (NOT shared AND VULKAN)
    set(consumer_vk ${vk_hints}) # a static libggml brings find_dependency(Vulkan) to the consumer
endif()
run("configure the find_package consumer" COMMAND ${CMAKE_COMMAND} -S ${consumer_src} -B ${work}/cmake-consumer
    -G ${GENERATOR} -DCMAKE_BUILD_TYPE=${BUILD_TYPE} -DCMAKE_C_COMPILER=${C_COMPILER}
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON
    ${consumer_vk})
literal(libdir_re ${libdir})
expect("find_package" "${OUT}" "llama_DIR=${libdir_re}/cmake/llama ggml_DIR=${libdir_re}/cmake/ggml")
run("build the find_package consumer" COMMAND ${CMAKE_COMMAND} --build ${work}/cmake-consumer)
check_consumers(find_package ${work}/cmake-consumer)

# ---- 6. pkg-config: cc main.c $(pkg-config --cflags --libs llama) ---------------------------------------
if (NOT PKG_CONFIG)
    # a machine without pkg-config cannot have pkg-config users; reported as a skipped test
    message(STATUS "pkg-config consumers skipped: pkg-config not found")
    return()
endif()
set(ENV{PKG_CONFIG_PATH} ${libdir}/pkgconfig)
set(static_flag "")
if (NOT shared)
    set(static_flag --static)
endif()
file(MAKE_DIRECTORY ${work}/pc-consumer)
foreach(pkg llama ggml)
    run("pkg-config ${pkg}" COMMAND ${PKG_CONFIG} --cflags ${pkg})
    separate_arguments(cflags UNIX_COMMAND "${OUT}")
    run("pkg-config ${pkg}" COMMAND ${PKG_CONFIG} ${static_flag} --libs ${pkg})
    separate_arguments(libs UNIX_COMMAND "${OUT}")
    if (pkg STREQUAL "llama")
        expect("pkg-config --libs llama" "${libs}" "-lllama;.*-lggml")
    endif()
    run("pkg-config ${pkg}" COMMAND ${PKG_CONFIG} --variable=libdir ${pkg})
    string(STRIP "${OUT}" pc_libdir)
    file(REAL_PATH ${pc_libdir} pc_libdir_real)
    file(REAL_PATH ${libdir} libdir_real)
    literal(libdir_re ${libdir_real})
    expect("pkg-config --variable=libdir ${pkg}" "${pc_libdir_real}" "^${libdir_re}$")
    # .pc files carry no rpath (an install in /usr needs none); a program linked against libraries
    # elsewhere says where they are, as docs/embedding.md tells users to
    set(rpath "")
    foreach(flag ${libs})
        if (flag MATCHES "^-L(.+)")
            list(APPEND rpath "-Wl,-rpath,${CMAKE_MATCH_1}")
        endif()
    endforeach()
    run("compile consumer-${pkg} with pkg-config" COMMAND ${C_COMPILER} ${consumer_src}/consumer-${pkg}.c ${cflags}
        -o ${work}/pc-consumer/consumer-${pkg} ${libs} ${rpath})
endforeach()
check_consumers(pkg-config ${work}/pc-consumer)

file(REMOVE_RECURSE ${work})
