# Compiler launchers (docs/building.md).
#
# UATTN_CCACHE=ON finds ccache and makes it the HIP, CXX and C compiler launcher
# where none is set. ccache (checked: 4.14.2) caches both halves of a device compile: the
# HIP front end (.hip -> .bc) and the AMDGPU code generation (clang -x ir:
# .bc -> .o), so a rebuild with a warm cache compiles nothing.
#
# UATTN_DISTCC=ON sends the device front-end compiles to the distcc servers of
# DISTCC_HOSTS (read by distcc at build time, not by CMake). distcc 3.4 runs
# every compile with `-x LANG` (LANG not C/C++/Objective-C) locally and ships
# only files with a C-family extension, so in this mode each instance is first
# preprocessed on the build host (`-E` -> device/<arch>/<inst>.ii) and the .ii
# is compiled as HIP with `--language=hip`, which distcc ships as-is. Code
# generation from the bitcode (.bc -> .o) stays on the build host (bitcode has
# no extension distcc ships).
option(UATTN_CCACHE "Compile through ccache (sets the HIP/CXX/C compiler launchers not set already)" OFF)
option(UATTN_DISTCC "Send the device front-end compiles to distcc (hosts from DISTCC_HOSTS at build time)" OFF)

if(UATTN_CCACHE)
  find_program(UATTN_CCACHE_PROGRAM ccache)
  if(NOT UATTN_CCACHE_PROGRAM)
    message(FATAL_ERROR "uattn: UATTN_CCACHE=ON but no ccache was found on PATH; install ccache "
                        "(Debian: apt install ccache) or set UATTN_CCACHE_PROGRAM=/path/to/ccache")
  endif()
  foreach(_lang HIP CXX C)
    if(NOT CMAKE_${_lang}_COMPILER_LAUNCHER)
      set(CMAKE_${_lang}_COMPILER_LAUNCHER "${UATTN_CCACHE_PROGRAM}")
    endif()
  endforeach()
  message(STATUS "uattn: compiling through ${UATTN_CCACHE_PROGRAM}")
endif()

# UATTN_DEVICE_LAUNCHER prefixes the device front-end compile (cmake/UattnBundle.cmake).
if(UATTN_DISTCC)
  find_program(UATTN_DISTCC_PROGRAM distcc)
  if(NOT UATTN_DISTCC_PROGRAM)
    message(FATAL_ERROR "uattn: UATTN_DISTCC=ON but no distcc was found on PATH; install distcc "
                        "(Debian: apt install distcc) or set UATTN_DISTCC_PROGRAM=/path/to/distcc")
  endif()
  # distcc alone: ccache's CCACHE_PREFIX=distcc reorders the arguments to `-c -o OUT IN`,
  # and distcc 3.4 then ships the compile without its input (docs/building.md).
  set(UATTN_DEVICE_LAUNCHER "${UATTN_DISTCC_PROGRAM}")
  message(STATUS "uattn: device front-end compiles through ${UATTN_DISTCC_PROGRAM} (hosts: DISTCC_HOSTS at build time)")
elseif(CMAKE_HIP_COMPILER_LAUNCHER)
  set(UATTN_DEVICE_LAUNCHER ${CMAKE_HIP_COMPILER_LAUNCHER})
else()
  set(UATTN_DEVICE_LAUNCHER ${CMAKE_CXX_COMPILER_LAUNCHER})
endif()
# The code generation step (clang -x ir) goes through a caching launcher only.
set(UATTN_IR_LAUNCHER "")
if(UATTN_CCACHE)
  set(UATTN_IR_LAUNCHER "${UATTN_CCACHE_PROGRAM}")
else()
  foreach(_l IN LISTS CMAKE_HIP_COMPILER_LAUNCHER CMAKE_CXX_COMPILER_LAUNCHER)
    get_filename_component(_ln "${_l}" NAME)
    if(_ln MATCHES "^s?ccache$" AND NOT UATTN_IR_LAUNCHER)
      set(UATTN_IR_LAUNCHER "${_l}")
    endif()
  endforeach()
endif()
