# Device build: each instance is one translation unit compiled for its
# architecture to a relocatable AMDGPU object (HIP -> LLVM bitcode -> object,
# no link-time optimisation, so compiles stay independent and parallel); lld
# links the objects of one architecture into one code object and llvm-objcopy
# adds the build stamp to it (section ".uattn.stamp", cmake/UattnStamp.cmake);
# the offload bundler packs the code objects into compressed bundles:
#   ${CMAKE_BINARY_DIR}/uattn_kernels.hipfb          every architecture (the build tree's)
#   ${CMAKE_BINARY_DIR}/uattn_kernels-<arch>.hipfb   one architecture (what its package installs)
# each with its stamp beside it in "<bundle>.stamp" (the stamp lines + "archs ...").
# Launchers (cmake/UattnLaunchers.cmake): UATTN_DEVICE_LAUNCHER (ccache, distcc, or the
# HIP/CXX compiler launcher) prefixes the front-end compile; UATTN_IR_LAUNCHER (ccache)
# the code generation. `-cuid=<instance>` names the HIP compilation unit after the
# instance instead of a hash of the source path, so an object does not depend on where
# the build tree lives (and a distcc-built object equals a local one byte for byte).
set(UATTN_DEVICE_FLAGS -O3 -std=c++17 -nogpuinc -nogpulib -fgpu-rdc -Wall -Werror=switch)
set(_launcher ${UATTN_DEVICE_LAUNCHER})
set(_ir_launcher ${UATTN_IR_LAUNCHER})
set(_tpl "${CMAKE_CURRENT_SOURCE_DIR}/templates")
set(UATTN_CODE_OBJECTS "")
set(UATTN_ARCH_BUNDLES "")
# Device-only HIP compiles emit no depfile; every instance depends on the templates.
file(GLOB_RECURSE _tpl_headers CONFIGURE_DEPENDS "${_tpl}/*.hpp")
set(_bundle_targets host-x86_64-unknown-linux-gnu)
set(_bundle_inputs -input=/dev/null)
foreach(_arch IN LISTS GPU_TARGETS)
  set(_target ${UATTN_OFFLOAD_TARGET_${_arch}})   # the processor of the arch's record
  set(_objs "")
  set(_odir "${CMAKE_BINARY_DIR}/device/${_arch}")
  file(MAKE_DIRECTORY "${_odir}")
  foreach(_inst IN LISTS UATTN_INSTANCES_${_arch} UATTN_CHECK_KERNEL_${_arch})
    if(_inst STREQUAL UATTN_CHECK_KERNEL_${_arch})
      set(_src "${UATTN_GEN_DIR}/checks/${_inst}.hip")
    else()
      set(_src "${UATTN_GEN_DIR}/instances/${_inst}.hip")
    endif()
    set(_dev -x hip --cuda-device-only --offload-arch=${_target} ${UATTN_DEVICE_FLAGS} -cuid=${_inst})
    set(_codegen COMMAND ${_ir_launcher} "${UATTN_CLANG}" -target amdgcn-amd-amdhsa -mcpu=${_target} -O3 -x ir
                 -c "${_odir}/${_inst}.bc" -o "${_odir}/${_inst}.o")
    if(UATTN_DISTCC)
      # preprocess here, compile the .ii wherever distcc sends it (docs/building.md)
      set(_frontend
        COMMAND "${CMAKE_HIP_COMPILER}" ${_dev} -I "${_tpl}" -I "${UATTN_GEN_INCLUDE}" -E "${_src}" -o "${_odir}/${_inst}.ii"
        COMMAND ${_launcher} "${CMAKE_HIP_COMPILER}" --language=hip --cuda-device-only --offload-arch=${_target}
                ${UATTN_DEVICE_FLAGS} -cuid=${_inst} -c "${_odir}/${_inst}.ii" -o "${_odir}/${_inst}.bc")
    else()
      set(_frontend
        COMMAND ${_launcher} "${CMAKE_HIP_COMPILER}" ${_dev} -I "${_tpl}" -I "${UATTN_GEN_INCLUDE}"
                -c "${_src}" -o "${_odir}/${_inst}.bc")
    endif()
    add_custom_command(
      OUTPUT "${_odir}/${_inst}.o"
      ${_frontend}
      ${_codegen}
      DEPENDS "${_src}" ${_tpl_headers} ${UATTN_KERNEL_GENERATED_HEADERS}
      COMMENT "uattn device ${_arch}: ${_inst}"
      VERBATIM)
    list(APPEND _objs "${_odir}/${_inst}.o")
  endforeach()
  set(_co "${CMAKE_BINARY_DIR}/uattn_${_arch}.co")
  add_custom_command(
    OUTPUT "${_co}"
    COMMAND "${UATTN_LLD}" -shared -o "${_co}" ${_objs}
    COMMAND "${UATTN_OBJCOPY}" "--add-section=.uattn.stamp=${UATTN_STAMP_FILE}" "${_co}"
    DEPENDS ${_objs} "${UATTN_STAMP_FILE}"
    COMMENT "uattn: linking the ${_arch} code object"
    VERBATIM)
  list(APPEND UATTN_CODE_OBJECTS "${_co}")
  set(_one "${CMAKE_BINARY_DIR}/uattn_kernels-${_arch}.hipfb")
  add_custom_command(
    OUTPUT "${_one}" "${_one}.stamp"
    COMMAND "${UATTN_BUNDLER}" -type=o "-targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--${_target}"
            -input=/dev/null "-input=${_co}" "-output=${_one}" --compress
    COMMAND "${CMAKE_COMMAND}" "-DIN=${UATTN_STAMP_FILE}" "-DOUT=${_one}.stamp" "-DARCHS=${_arch}"
            -P "${CMAKE_CURRENT_LIST_DIR}/UattnStampSidecar.cmake"
    DEPENDS "${_co}" "${UATTN_STAMP_FILE}"
    COMMENT "uattn: packing the ${_arch} bundle"
    VERBATIM)
  list(APPEND UATTN_ARCH_BUNDLES "${_one}")
  set(UATTN_ARCH_BUNDLE_${_arch} "${_one}")
  string(APPEND _bundle_targets ",hipv4-amdgcn-amd-amdhsa--${_target}")
  list(APPEND _bundle_inputs "-input=${_co}")
endforeach()
set(UATTN_BUNDLE "${CMAKE_BINARY_DIR}/uattn_kernels.hipfb")
string(REPLACE ";" "," _all_archs "${GPU_TARGETS}")
add_custom_command(
  OUTPUT "${UATTN_BUNDLE}" "${UATTN_BUNDLE}.stamp"
  COMMAND "${UATTN_BUNDLER}" -type=o "-targets=${_bundle_targets}" ${_bundle_inputs}
          "-output=${UATTN_BUNDLE}" --compress
  COMMAND "${CMAKE_COMMAND}" "-DIN=${UATTN_STAMP_FILE}" "-DOUT=${UATTN_BUNDLE}.stamp" "-DARCHS=${_all_archs}"
          -P "${CMAKE_CURRENT_LIST_DIR}/UattnStampSidecar.cmake"
  DEPENDS ${UATTN_CODE_OBJECTS}
  COMMENT "uattn: packing the offload bundle"
  VERBATIM)
add_custom_target(uattn_bundle ALL DEPENDS "${UATTN_BUNDLE}" ${UATTN_ARCH_BUNDLES})
