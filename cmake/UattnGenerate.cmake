# Runs generator/uattn_gen at configure time. Besides the instances it writes the
# architecture records and vocabularies: ${UATTN_GEN_DIR}/archs.cmake (UATTN_ARCHS,
# UATTN_OFFLOAD_TARGET_<arch>) and the C++ headers in ${UATTN_GEN_INCLUDE}/uattn/generated. The generator writes files only
# when their content changes, so re-running it is cheap and Ninja rebuilds only
# the instances that changed. The matrix and the generator are configure
# dependencies: editing either re-runs this step on the next build.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
set(UATTN_GEN_DIR "${CMAKE_BINARY_DIR}/generated")
set(UATTN_GEN_INCLUDE "${UATTN_GEN_DIR}/include")
# `--matrix FILE` for every matrix; also used by tests/CMakeLists.txt to list subsets.
set(UATTN_MATRIX_ARGS "")
foreach(_m IN LISTS UATTN_MATRIX)
  list(APPEND UATTN_MATRIX_ARGS --matrix "${_m}")
endforeach()
# Per-instance figures of built code objects for the selector's cost model
# (instances/measured.yaml: tools/uattn-measured writes it, the test measured.fresh checks it).
set(UATTN_MEASURED "${CMAKE_CURRENT_SOURCE_DIR}/instances/measured.yaml" CACHE FILEPATH
    "per-instance figures of the code objects for the selector's cost model (empty: the fallback figures)")
set(_gen_args generate --out "${UATTN_GEN_DIR}" ${UATTN_MATRIX_ARGS})
if(UATTN_MEASURED)
  list(APPEND _gen_args --measured "${UATTN_MEASURED}")
endif()
if(UATTN_SUBSET)
  list(APPEND _gen_args --subset "${UATTN_SUBSET}")
endif()
# Only the architectures of GPU_TARGETS enter the bundle and the table.
foreach(_arch IN LISTS GPU_TARGETS)
  list(APPEND _gen_args --arch "${_arch}")
endforeach()
foreach(_f IN LISTS UATTN_FILTER)   # several globs: an instance matching any is built
  list(APPEND _gen_args --filter "${_f}")
endforeach()
execute_process(
  COMMAND "${CMAKE_COMMAND}" -E env "PYTHONPATH=${CMAKE_CURRENT_SOURCE_DIR}/generator"
          "${Python3_EXECUTABLE}" -m uattn_gen ${_gen_args}
  RESULT_VARIABLE _rc ERROR_VARIABLE _err OUTPUT_VARIABLE _out)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "uattn: instance generation failed:\n${_err}${_out}")
endif()
include("${UATTN_GEN_DIR}/archs.cmake")
set(_uattn_every_arch OFF)
if(NOT GPU_TARGETS)
  set(GPU_TARGETS ${UATTN_ARCHS})
  set(_uattn_every_arch ON)
endif()
include("${UATTN_GEN_DIR}/instances.cmake")
# With GPU_TARGETS left empty, an architecture UATTN_FILTER leaves without
# instances is not built (a code object needs at least one kernel). The
# generator refuses a filter that matches nothing for a GPU_TARGETS entry or at all.
if(_uattn_every_arch)
  foreach(_arch IN LISTS UATTN_ARCHS)
    if(NOT UATTN_INSTANCES_${_arch})
      message(STATUS "uattn: UATTN_FILTER '${UATTN_FILTER}' selects no ${_arch} instance; ${_arch} is not built")
      list(REMOVE_ITEM GPU_TARGETS ${_arch})
    endif()
  endforeach()
endif()
# The generated headers the kernels include (device compiles depend on these) and
# all of them (select.hpp, the selector's records and policy defaults, is host-only).
set(UATTN_KERNEL_GENERATED_HEADERS "${UATTN_GEN_INCLUDE}/uattn/generated/arch.hpp"
    "${UATTN_GEN_INCLUDE}/uattn/generated/vocab.hpp" "${UATTN_GEN_INCLUDE}/uattn/generated/vocab.h"
    "${UATTN_GEN_INCLUDE}/uattn/generated/args.hpp" "${UATTN_GEN_INCLUDE}/uattn/generated/args.h")
set(UATTN_GENERATED_HEADERS ${UATTN_KERNEL_GENERATED_HEADERS} "${UATTN_GEN_INCLUDE}/uattn/generated/select.hpp")
file(GLOB_RECURSE _gen_py CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/generator/uattn_gen/*.py" "${CMAKE_CURRENT_SOURCE_DIR}/generator/uattn_gen/*.j2")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${UATTN_MATRIX} ${UATTN_MEASURED} ${_gen_py})

# Instances of this build, per architecture requested in GPU_TARGETS.
set(UATTN_ALL_INSTANCES "")
foreach(_arch IN LISTS UATTN_ARCHS)
  if(NOT _arch IN_LIST GPU_TARGETS)
    set(UATTN_INSTANCES_${_arch} "")
  endif()
  list(APPEND UATTN_ALL_INSTANCES ${UATTN_INSTANCES_${_arch}})
endforeach()
list(LENGTH UATTN_ALL_INSTANCES _n)
message(STATUS "uattn: ${_n} instances generated in ${UATTN_GEN_DIR}")
