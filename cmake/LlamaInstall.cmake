# install(EXPORT) packaging and pkg-config, so `find_package(llama)` works downstream.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
if (TARGET llama)
    install(TARGETS llama ggml EXPORT llama-targets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
    install(EXPORT llama-targets NAMESPACE llama:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/llama)
    configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/llama-config.cmake.in
        ${CMAKE_CURRENT_BINARY_DIR}/llama-config.cmake
        INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/llama)
    write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/llama-config-version.cmake
        COMPATIBILITY SameMinorVersion)
    install(FILES ${CMAKE_CURRENT_BINARY_DIR}/llama-config.cmake
                  ${CMAKE_CURRENT_BINARY_DIR}/llama-config-version.cmake
            DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/llama)
    configure_file(${CMAKE_CURRENT_LIST_DIR}/llama.pc.in ${CMAKE_CURRENT_BINARY_DIR}/llama.pc @ONLY)
    install(FILES ${CMAKE_CURRENT_BINARY_DIR}/llama.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()
install(DIRECTORY include/ ggml/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
