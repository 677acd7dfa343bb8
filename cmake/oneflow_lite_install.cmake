# `cmake --install` puts the public headers, liboneflow_lite, the oflite tool and a CMake
# package in the prefix. A consumer then needs only
#
#   find_package(oneflow_lite REQUIRED)
#   target_link_libraries(app PRIVATE oneflow_lite::oneflow_lite)
#
# Layout: every public header keeps its include path ("oneflow_lite/...", "functional/...",
# "primitive/...") under <prefix>/include/oneflow_lite, the one include root the installed
# target carries, so the prefix's include directory gains only the folder oneflow_lite/.
# Installed: the umbrella oneflow_lite/oneflow_lite.h and what it reaches: common/,
# framework/, the generated version.h and proto/*.pb.h, the provider interfaces (ep/include),
# the functional API and the primitive interfaces. Internal, not installed: ep/cpu, ep/cuda,
# ops/, kernels/, tools/, functional/dim_utils.h and the providers' primitive helpers.
include(CMakePackageConfigHelpers)

set(oflite_include_root ${CMAKE_INSTALL_INCLUDEDIR}/oneflow_lite)
set(oflite_package_dir ${CMAKE_INSTALL_LIBDIR}/cmake/oneflow_lite)

install(FILES oneflow_lite/oneflow_lite.h ${PROJECT_BINARY_DIR}/oneflow_lite/version.h
  DESTINATION ${oflite_include_root}/oneflow_lite)
install(DIRECTORY oneflow_lite/common oneflow_lite/framework ep/include/oneflow_lite/ep
  DESTINATION ${oflite_include_root}/oneflow_lite FILES_MATCHING PATTERN "*.h")
install(DIRECTORY ${PROJECT_BINARY_DIR}/oneflow_lite/proto
  DESTINATION ${oflite_include_root}/oneflow_lite FILES_MATCHING PATTERN "*.pb.h")
install(FILES functional/functional.h functional/operators.h
  DESTINATION ${oflite_include_root}/functional)
# The primitive interfaces and factories; the rest of primitive/ serves the providers.
file(GLOB oflite_primitive_headers primitive/*.h)
list(REMOVE_ITEM oflite_primitive_headers
  ${PROJECT_SOURCE_DIR}/primitive/broadcast_dims.h
  ${PROJECT_SOURCE_DIR}/primitive/elementwise_functors.h
  ${PROJECT_SOURCE_DIR}/primitive/floating_factory.h)
install(FILES ${oflite_primitive_headers} DESTINATION ${oflite_include_root}/primitive)

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
