# `cmake --install` layout; install components (the packages of cmake/UattnPackage.cmake):
#   component uattn (the common package):
#   include/uattn/           table.hpp, table_row.hpp, runtime.hpp, validate.hpp, uattn.h,
#                            kernel/{params,config}.hpp, generated/{arch,vocab,args}.hpp, generated/{vocab,args}.h
#   lib/libuattn_table.a     the lookup table + selector (no GPU dependency)
#   lib/libuattn_validate.a  argument validation
#   lib/libuattn.so*         the HIP runtime (when the HIP runtime was found; SONAME libuattn.so.0)
#   lib/cmake/uattn/         find_package(uattn) -> uattn::uattn_table, uattn::uattn_validate, uattn::uattn
#   bin/uattn-explain, bin/uattn-inspect (-> share/uattn/tools/)
#   share/doc/uattn/         copyright, changelog.Debian.gz
#   component <arch> (one package per architecture, uattn-<arch>):
#   lib/uattn/uattn_kernels-<arch>.hipfb(.stamp)   that architecture's compressed bundle and its stamp
#                                                   (Runtime::create looks here)
#   share/doc/uattn-<arch>/  copyright, changelog.Debian.gz
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(_targets uattn_kernel_headers uattn_table)
if(TARGET uattn_validate)
  list(APPEND _targets uattn_validate)
endif()
if(TARGET uattn)
  list(APPEND _targets uattn)
endif()
install(TARGETS ${_targets} EXPORT uattnTargets COMPONENT uattn
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT uattn
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT uattn
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY dispatch/include/uattn DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT uattn)
install(FILES templates/uattn/kernel/params.hpp templates/uattn/kernel/config.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/uattn/kernel COMPONENT uattn)
install(FILES ${UATTN_GENERATED_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/uattn/generated COMPONENT uattn)
foreach(_arch IN LISTS GPU_TARGETS)
  install(FILES "${UATTN_ARCH_BUNDLE_${_arch}}" "${UATTN_ARCH_BUNDLE_${_arch}}.stamp"
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/uattn COMPONENT ${_arch})
endforeach()
install(EXPORT uattnTargets NAMESPACE uattn:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/uattn COMPONENT uattn)
file(WRITE "${CMAKE_BINARY_DIR}/uattnConfig.cmake.in" [=[
@PACKAGE_INIT@
include("${CMAKE_CURRENT_LIST_DIR}/uattnTargets.cmake")
check_required_components(uattn)
]=])
configure_package_config_file("${CMAKE_BINARY_DIR}/uattnConfig.cmake.in" "${CMAKE_BINARY_DIR}/uattnConfig.cmake"
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/uattn)
write_basic_package_version_file("${CMAKE_BINARY_DIR}/uattnConfigVersion.cmake" COMPATIBILITY SameMinorVersion)
install(FILES "${CMAKE_BINARY_DIR}/uattnConfig.cmake" "${CMAKE_BINARY_DIR}/uattnConfigVersion.cmake"
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/uattn COMPONENT uattn)
