# cmake -DSRC=<repo> -DWORK=<dir> -DHIP=<clang++> -P check_new_arch.cmake
#
# Proof that an architecture is one record: tests/newarch/matrix.yaml declares
# gfx1099 (gfx1030's record under another name, 40 CUs). This configures the
# project with that matrix and GPU_TARGETS=gfx1099, builds the lookup table,
# uattn-explain, uattn-run (CPU execution) and the bundle, and checks that
# generation, the table, the selector, uattn-explain and the host backend all
# handle gfx1099. Nothing outside the generated files knows its name.
file(REMOVE_RECURSE "${WORK}")
function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}${err}")
  endif()
  set(step_out "${out}${err}" PARENT_SCOPE)
endfunction()
function(expect text regex)
  if(NOT text MATCHES "${regex}")
    message(FATAL_ERROR "expected '${regex}' in:\n${text}")
  endif()
endfunction()

run_step("configuring with the gfx1099 matrix"
  "${CMAKE_COMMAND}" -S "${SRC}" -B "${WORK}" -G Ninja -DCMAKE_BUILD_TYPE=Release
  "-DCMAKE_HIP_COMPILER=${HIP}" "-DUATTN_MATRIX=${SRC}/tests/newarch/matrix.yaml" -DGPU_TARGETS=gfx1099
  -DUATTN_BUILD_RUNTIME=OFF)
expect("${step_out}" "uattn: 3 instances generated")

# Generation: the records reach C++ and CMake.
file(READ "${WORK}/generated/include/uattn/generated/arch.hpp" arch_hpp)
expect("${arch_hpp}" "gfx1099 = 2,")
expect("${arch_hpp}" "\\{\"gfx1099\", 32, MatrixInsn::dot2, 8, 4, 32, 65536u, 40, \"gfx1030\"\\}")
file(READ "${WORK}/generated/archs.cmake" archs_cmake)
expect("${archs_cmake}" "set\\(UATTN_OFFLOAD_TARGET_gfx1099 gfx1030\\)")
file(READ "${WORK}/generated/table_rows.inc" rows)
expect("${rows}" "UATTN_ATTENTION_ROW\\(uattn_gfx1099_2d_f16_f16_d128_bany_all_m8n32w1, gfx1099, k2D, f16, f16, 128, 0, 0x1F, small, 8, 32, 1, [0-9]+, [0-9.]+, [0-9.]+, (true|false)\\)")
expect("${rows}" "UATTN_REDUCE_ROW\\(uattn_gfx1099_reduce_d128, gfx1099, 128\\)")

run_step("building the table, uattn-explain, uattn-run and the bundle"
  "${CMAKE_COMMAND}" --build "${WORK}" --target uattn-explain uattn-run uattn_bundle)

# The table and the selector, through uattn-explain (40 CUs from the record).
run_step("uattn-explain on gfx1099"
  "${WORK}/tools/uattn-explain" --arch gfx1099 --head-size 128 --q-heads 16 --kv-heads 2 --seqs 1:4096,1:4000)
expect("${step_out}" "gfx1099 \\(40 CUs\\): path 3d")
expect("${step_out}" "uattn_gfx1099_3d_f16_f16_d128_bany_all_m8n32w1")
expect("${step_out}" "reduce +uattn_gfx1099_reduce_d128")
expect("${step_out}" "workgroup 32 threads \\(1 wave x 32\\), LDS 2560 bytes")
run_step("uattn-explain --help"  "${WORK}/tools/uattn-explain" --help)
expect("${step_out}" "gfx950, gfx1030, gfx1099 or all")

# CPU execution of the new architecture's instances against the fp64 reference.
foreach(path 2d 3d)
  run_step("uattn-run on gfx1099, path ${path}"
    "${WORK}/tests/uattn-run" --arch gfx1099 --head-size 128 --block-size 13 --seqs 3:100,1:40 --window 20
    --sinks --path ${path})
  expect("${step_out}" "uattn_gfx1099_${path}_f16_f16_d128_bany_all_m8n32w1")
  expect("${step_out}" "\nOK\n")
endforeach()

# The bundle holds one code object, for gfx1099's offload target, with the table's kernels.
file(STRINGS "${WORK}/CMakeCache.txt" bundler REGEX "^UATTN_BUNDLER:")
file(STRINGS "${WORK}/CMakeCache.txt" readelf REGEX "^UATTN_READELF:")
string(REGEX REPLACE "^[^=]*=" "" bundler "${bundler}")
string(REGEX REPLACE "^[^=]*=" "" readelf "${readelf}")
file(REAL_PATH "${bundler}" bundler)   # it finds llvm-objcopy next to its real path
run_step("listing the bundle" "${bundler}" -list -type=o "-input=${WORK}/uattn_kernels.hipfb")
expect("${step_out}" "hipv4-amdgcn-amd-amdhsa--gfx1030")
run_step("reading the code object" "${readelf}" --notes "${WORK}/uattn_gfx1099.co")
foreach(k uattn_gfx1099_2d_f16_f16_d128_bany_all_m8n32w1 uattn_gfx1099_3d_f16_f16_d128_bany_all_m8n32w1
          uattn_gfx1099_reduce_d128)
  expect("${step_out}" "\\.name: +${k}\n")
endforeach()
expect("${step_out}" "\\.wavefront_size: +32")
message(STATUS "gfx1099: generated, tabled, selected, explained, executed on the CPU and compiled")
