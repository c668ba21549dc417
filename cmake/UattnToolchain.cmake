# Locate the AMD device toolchain. Order: CMAKE_HIP_COMPILER, ROCM_PATH/llvm,
# then clang++ on PATH (the toolchain root of tools/toolchain-root.sh puts
# clang++-21 there). The compiler must know gfx950 (LLVM >= 19 / ROCm >= 6.4).
if(NOT CMAKE_HIP_COMPILER)
  set(_hints "")
  if(DEFINED ROCM_PATH)
    list(APPEND _hints "${ROCM_PATH}/llvm/bin" "${ROCM_PATH}/lib/llvm/bin")
  elseif(DEFINED ENV{ROCM_PATH})
    list(APPEND _hints "$ENV{ROCM_PATH}/llvm/bin" "$ENV{ROCM_PATH}/lib/llvm/bin")
  endif()
  find_program(CMAKE_HIP_COMPILER NAMES clang++ clang++-21 clang++-20 clang++-19 HINTS ${_hints} NO_CACHE)
  if(NOT CMAKE_HIP_COMPILER)
    message(FATAL_ERROR "uattn: no HIP-capable clang++ found. Set CMAKE_HIP_COMPILER or ROCM_PATH (ROCm >= 6.4), "
                        "or build through tools/uattn, which provides a toolchain root.")
  endif()
endif()
get_filename_component(_hipdir "${CMAKE_HIP_COMPILER}" DIRECTORY)
string(REGEX MATCH "-[0-9]+$" _sfx "${CMAKE_HIP_COMPILER}")
find_program(UATTN_CLANG NAMES clang${_sfx} clang HINTS "${_hipdir}" REQUIRED)
find_program(UATTN_LLD NAMES ld.lld${_sfx} ld.lld HINTS "${_hipdir}" REQUIRED)
find_program(UATTN_BUNDLER NAMES clang-offload-bundler${_sfx} clang-offload-bundler HINTS "${_hipdir}" REQUIRED)
# Adds the build stamp section to each code object (cmake/UattnStamp.cmake).
find_program(UATTN_OBJCOPY NAMES llvm-objcopy${_sfx} llvm-objcopy HINTS "${_hipdir}" REQUIRED)
find_program(UATTN_READELF NAMES llvm-readelf${_sfx} llvm-readelf HINTS "${_hipdir}" REQUIRED)
# Static cost of a kernel's loops (tools/uattn-inspect): disassembler and LLVM's scheduling model.
find_program(UATTN_OBJDUMP NAMES llvm-objdump${_sfx} llvm-objdump HINTS "${_hipdir}" REQUIRED)
find_program(UATTN_MCA NAMES llvm-mca${_sfx} llvm-mca HINTS "${_hipdir}")
# The bundler looks for llvm-objcopy next to its own path: call it by its real
# path (Debian's /usr/bin/clang-offload-bundler-21 links into /usr/lib/llvm-21/bin).
file(REAL_PATH "${UATTN_BUNDLER}" UATTN_BUNDLER)

execute_process(COMMAND "${CMAKE_HIP_COMPILER}" -print-targets OUTPUT_VARIABLE _targets ERROR_QUIET)
# GPU_TARGETS names architecture records (UATTN_ARCHS, from the generator).
foreach(_arch IN LISTS GPU_TARGETS)
  if(NOT _arch IN_LIST UATTN_ARCHS)
    string(REPLACE ";" ", " _known "${UATTN_ARCHS}")
    message(FATAL_ERROR "uattn: GPU_TARGETS entry '${_arch}': expected one or more of ${_known}")
  endif()
endforeach()
message(STATUS "uattn: HIP compiler ${CMAKE_HIP_COMPILER}; targets ${GPU_TARGETS}")
