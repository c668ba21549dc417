# Included by dispatch/CMakeLists.txt when UATTN_BUILD_RUNTIME is ON.
#
#   uattn_validate  STATIC  argument validation, describe(), make_params(); no HIP dependency
#   uattn           SHARED  HIP runtime (uattn/runtime.hpp) + C API (uattn/uattn.h);
#                           links uattn_table, uattn_validate and libamdhip64
#
# The HIP runtime is found through ROCM_PATH (CMake or environment) and
# /opt/rocm, then the system paths (Debian's libamdhip64-dev puts it in
# /usr/lib/<triplet>). When it is missing the uattn target is skipped with a
# STATUS message; uattn_validate and the explain tool build regardless.

add_library(uattn_validate STATIC ${CMAKE_CURRENT_LIST_DIR}/src/validate.cpp)
target_include_directories(uattn_validate PUBLIC
  $<BUILD_INTERFACE:${CMAKE_CURRENT_LIST_DIR}/include> $<INSTALL_INTERFACE:include>)
target_link_libraries(uattn_validate PUBLIC uattn_table)

set(_uattn_rocm_hints "")
foreach(_r "${ROCM_PATH}" "$ENV{ROCM_PATH}" /opt/rocm)
  if(_r)
    list(APPEND _uattn_rocm_hints "${_r}")
  endif()
endforeach()
list(TRANSFORM _uattn_rocm_hints APPEND "/lib" OUTPUT_VARIABLE _uattn_lib_hints)
list(TRANSFORM _uattn_rocm_hints APPEND "/include" OUTPUT_VARIABLE _uattn_inc_hints)
find_library(UATTN_AMDHIP64_LIBRARY NAMES amdhip64 HINTS ${_uattn_lib_hints})
find_path(UATTN_HIP_INCLUDE_DIR NAMES hip/hip_runtime_api.h HINTS ${_uattn_inc_hints})

if(NOT UATTN_AMDHIP64_LIBRARY OR NOT UATTN_HIP_INCLUDE_DIR)
  message(STATUS "uattn: HIP runtime not found (libamdhip64: ${UATTN_AMDHIP64_LIBRARY}, "
                 "hip/hip_runtime_api.h: ${UATTN_HIP_INCLUDE_DIR}); skipping the uattn runtime library. "
                 "Set ROCM_PATH or install the HIP runtime (Debian: libamdhip64-dev).")
  return()
endif()
message(STATUS "uattn: HIP runtime ${UATTN_AMDHIP64_LIBRARY}")

add_library(uattn SHARED
  ${CMAKE_CURRENT_LIST_DIR}/src/runtime.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/runtime_bundle.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/c_api.cpp)
target_include_directories(uattn
  PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_LIST_DIR}/include> $<INSTALL_INTERFACE:include>)
target_include_directories(uattn SYSTEM PRIVATE "${UATTN_HIP_INCLUDE_DIR}")
target_compile_definitions(uattn PRIVATE __HIP_PLATFORM_AMD__)
# Last entry of the bundle search (Runtime::create): this build tree's bundle.
if(DEFINED UATTN_BUNDLE)
  target_compile_definitions(uattn PRIVATE "UATTN_BUILD_BUNDLE_PATH=\"${UATTN_BUNDLE}\"")
endif()
# The folder the per-architecture packages install their bundles into (cmake/UattnPackage.cmake).
include(GNUInstallDirs)
set(UATTN_PACKAGE_PREFIX "/usr" CACHE PATH "Install prefix of the .deb/.tar.gz packages (CPack)")
set(UATTN_PACKAGE_BUNDLE_DIR "${UATTN_PACKAGE_PREFIX}/${CMAKE_INSTALL_LIBDIR}/uattn")
target_compile_definitions(uattn PRIVATE "UATTN_PACKAGE_BUNDLE_DIR=\"${UATTN_PACKAGE_BUNDLE_DIR}\""
  "UATTN_STAMP_UATTN_VERSION=\"${PROJECT_VERSION}\"" "UATTN_STAMP_GENERATOR_VERSION=\"${UATTN_GENERATOR_VERSION}\""
  "UATTN_STAMP_MATRIX_HASH=\"${UATTN_MATRIX_HASH}\"")
# Debian shared-library naming: libuattn.so.0 (SONAME) -> libuattn.so.0.1.0.
set_target_properties(uattn PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR})
target_link_libraries(uattn PUBLIC uattn_table uattn_validate PRIVATE "${UATTN_AMDHIP64_LIBRARY}" ${CMAKE_DL_LIBS})

# Installed with the other targets by cmake/UattnInstall.cmake.
