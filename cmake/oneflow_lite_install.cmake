# `cmake --install` puts the public headers, liboneflow_lite, the oflite tool and a CMake
# package in the prefix. A consumer then needs only
#
#   find_package(oneflow_lite REQUIRED)
#   target_link_libraries(app PRIVATE oneflow_lite::oneflow_lite)
#
# Layout: the public headers are the tree under oneflow_lite/ (common, framework, ep,
# functional, primitive) with the generated version.h; they go to <prefix>/include/oneflow_lite
# and are included as <oneflow_lite/...>. Internal: oneflow_lite/proto (the library's protobuf
# side) and everything outside oneflow_lite/ (ep/cpu, ep/cuda, ops/, kernels/, tools/, the
# providers' helpers in primitive/ and functional/).
include(CMakePackageConfigHelpers)

set(oflite_package_dir ${CMAKE_INSTALL_LIBDIR}/cmake/oneflow_lite)

install(DIRECTORY oneflow_lite/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/oneflow_lite
  FILES_MATCHING PATTERN "*.h" PATTERN proto EXCLUDE)
install(FILES ${PROJECT_BINARY_DIR}/oneflow_lite/version.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/oneflow_lite)

# Installed binaries find liboneflow_lite next to them, and the libraries it was linked with
# (CUDA's, when outside the system's directories) where they were.
file(RELATIVE_PATH oflite_bin_to_lib ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})
set_target_properties(oflite PROPERTIES INSTALL_RPATH "$ORIGIN/${oflite_bin_to_lib}"
  INSTALL_RPATH_USE_LINK_PATH ON)
set_target_properties(oneflow_lite PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)

set_target_properties(oflite_headers PROPERTIES EXPORT_NAME headers)
install(TARGETS oneflow_lite oflite_headers oflite EXPORT oneflow_liteTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT oneflow_liteTargets NAMESPACE oneflow_lite:: DESTINATION ${oflite_package_dir})

configure_package_config_file(cmake/oneflow_liteConfig.cmake.in
  ${PROJECT_BINARY_DIR}/oneflow_liteConfig.cmake INSTALL_DESTINATION ${oflite_package_dir})
# Before 1.0 a minor version may break the ABI (the soname carries it too).
write_basic_package_version_file(${PROJECT_BINARY_DIR}/oneflow_liteConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/oneflow_liteConfig.cmake
  ${PROJECT_BINARY_DIR}/oneflow_liteConfigVersion.cmake DESTINATION ${oflite_package_dir})
