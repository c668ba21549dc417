# `cmake --install` layout (a prebuilt per-architecture package is this tree):
#   include/uattn/           table.hpp, table_row.hpp, runtime.hpp, validate.hpp, uattn.h,
#                            kernel/{params,config}.hpp, generated/{arch,vocab}.hpp, generated/vocab.h
#   lib/libuattn_table.a     the lookup table + selector (no GPU dependency)
#   lib/libuattn_validate.a  argument validation
#   lib/libuattn.so          the HIP runtime (when the HIP runtime was found)
#   lib/uattn/uattn_kernels.hipfb   the offload bundle (Runtime::create looks here)
#   lib/cmake/uattn/         find_package(uattn) -> uattn::uattn_table, uattn::uattn_validate, uattn::uattn
#   bin/uattn-explain
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(_targets uattn_kernel_headers uattn_table)
if(TARGET uattn_validate)
  list(APPEND _targets uattn_validate)
endif()
if(TARGET uattn)
  list(APPEND _targets uattn)
endif()
install(TARGETS ${_targets} EXPORT uattnTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY dispatch/include/uattn DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES templates/uattn/kernel/params.hpp templates/uattn/kernel/config.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/uattn/kernel)
install(FILES ${UATTN_GENERATED_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/uattn/generated)
install(FILES "${UATTN_BUNDLE}" DESTINATION ${CMAKE_INSTALL_LIBDIR}/uattn OPTIONAL)
install(EXPORT uattnTargets NAMESPACE uattn:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/uattn)
file(WRITE "${CMAKE_BINARY_DIR}/uattnConfig.cmake.in" [=[
@PACKAGE_INIT@
include("${CMAKE_CURRENT_LIST_DIR}/uattnTargets.cmake")
check_required_components(uattn)
]=])
configure_package_config_file("${CMAKE_BINARY_DIR}/uattnConfig.cmake.in" "${CMAKE_BINARY_DIR}/uattnConfig.cmake"
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/uattn)
write_basic_package_version_file("${CMAKE_BINARY_DIR}/uattnConfigVersion.cmake" COMPATIBILITY SameMinorVersion)
install(FILES "${CMAKE_BINARY_DIR}/uattnConfig.cmake" "${CMAKE_BINARY_DIR}/uattnConfigVersion.cmake"
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/uattn)
