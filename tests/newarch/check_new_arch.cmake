# cmake -DSRC=<repo> -DWORK=<dir> -DHIP=<clang++> -DPYTHON=<python3> -P check_new_arch.cmake
#
# Proof that an architecture is one record: tests/newarch/matrix.yaml declares
# gfx1099, the dot2 body compiled for its own processor (gfx1031) with its own
# CU count, LDS per workgroup and per CU, SIMDs per CU, wave slots and product
# name. This configures the project with that matrix and GPU_TARGETS=gfx1099,
# builds the lookup table, uattn-explain, uattn-run (CPU execution),
# uattn-bench-cpu (the runtime on the CPU-backed HIP device) and the bundle, and
# checks that generation, the table, the selector, uattn-explain, the host
# backend, the emulator, the CPU-backed device, the bench and co_report.py all
# take gfx1099's facts from its record: each expected value below is one no
# other record has (gfx1030: 72 CUs / 36 WGPs, 64 KiB per workgroup, 128 KiB per
# WGP, 2 SIMDs per CU, 16 waves per SIMD, gfx1030). Nothing outside the
# generated files knows its name.
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
  "-DCMAKE_HIP_COMPILER=${HIP}" "-DUATTN_MATRIX=${SRC}/tests/newarch/matrix.yaml" -DGPU_TARGETS=gfx1099)
expect("${step_out}" "uattn: 3 instances generated")

# Generation: the records reach C++ and CMake.
file(READ "${WORK}/generated/include/uattn/generated/arch.hpp" arch_hpp)
expect("${arch_hpp}" "gfx1099 = 2,")
expect("${arch_hpp}" "\\{\"gfx1099\", 32, MatrixInsn::dot2, 8, 4, 32, 49152u, 40, \"gfx1031\"\\}")
expect("${arch_hpp}" "#elif defined\\(__gfx1031__\\)\n#define UATTN_DEVICE_WAVE_SIZE 32\n#define UATTN_DEVICE_MATRIX_INSN_dot2 1")
file(READ "${WORK}/generated/include/uattn/generated/device.hpp" device_hpp)
# product, gcnArchName, gfx IP 10.3 (from gfx1031), 40 CUs = 20 WGPs, LDS per CU, SIMDs, VGPRs, wave slots, check kernel
expect("${device_hpp}" "\\{\"Fictitious RDNA2 part\", \"gfx1031\", 10, 3, 20, 98304u, 4, 1024, 12, \"uattn_gfx1099_check\"\\}")
file(READ "${WORK}/generated/archs.cmake" archs_cmake)
expect("${archs_cmake}" "set\\(UATTN_OFFLOAD_TARGET_gfx1099 gfx1031\\)")
file(READ "${WORK}/generated/table_rows.inc" rows)
# The fallback figures (no measured ones): 128 VGPRs; occupancy min(12 wave slots, 1024 / 128,
# (98304 // 2560 bytes of LDS) x 1 wave / (4 SIMDs x 2 CUs)) = 4.75 (gfx1030's record: 8).
expect("${rows}" "UATTN_ATTENTION_ROW\\(uattn_gfx1099_2d_f16_f16_d128_bany_all_m8n32w1, gfx1099, k2D, f16, f16, 128, 0, 0x1F, small, 8, 32, 1, 2560u, 8, false, false, false, 128, 4.75, [0-9.]+, [0-9.]+, [0-9.]+, [0-9.]+, 0, false\\)")
expect("${rows}" "UATTN_REDUCE_ROW\\(uattn_gfx1099_reduce_d128, gfx1099, 128, 4, 2048u\\)")

run_step("building the table, uattn-explain, uattn-run, uattn-bench-cpu and the bundle"
  "${CMAKE_COMMAND}" --build "${WORK}" --target uattn-explain uattn-run uattn-bench-cpu uattn_bundle)

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

# The code object compiled for gfx1031, instruction by instruction in the emulator.
run_step("uattn-run --engine isa on gfx1099"
  "${WORK}/tests/uattn-run" --engine isa --arch gfx1099 --head-size 128 --block-size 13 --seqs 3:40 --q-heads 2
  --kv-heads 1 --path 2d)
expect("${step_out}" "uattn_gfx1099_2d_f16_f16_d128_bany_all_m8n32w1")
expect("${step_out}" "\nOK\n")

# The runtime on the CPU-backed HIP device (one device per record): the device
# reports gfx1099's reference part, the runtime finds gfx1099 by its processor,
# loads the gfx1031 code object and launches its kernels (the bench's parity).
run_step("uattn-bench-cpu on gfx1099"
  "${WORK}/tools/bench/uattn-bench-cpu" --set default --arch gfx1099 --scenario decode_d128_b16
  --report "${WORK}/bench_gfx1099.json")
expect("${step_out}" "device 2: Fictitious RDNA2 part \\(CPU-backed\\) \\(gfx1031, 20 CUs\\)")
run_step("check_report.py on the gfx1099 report"
  "${PYTHON}" "${SRC}/tools/bench/check_report.py" "${WORK}/bench_gfx1099.json" --arch gfx1099
  --matrix "${SRC}/tests/newarch/matrix.yaml" --backend cpu)

# The bundle holds one code object, for gfx1099's offload target, with the table's kernels.
file(STRINGS "${WORK}/CMakeCache.txt" bundler REGEX "^UATTN_BUNDLER:")
file(STRINGS "${WORK}/CMakeCache.txt" readelf REGEX "^UATTN_READELF:")
string(REGEX REPLACE "^[^=]*=" "" bundler "${bundler}")
string(REGEX REPLACE "^[^=]*=" "" readelf "${readelf}")
file(REAL_PATH "${bundler}" bundler)   # it finds llvm-objcopy next to its real path
run_step("listing the bundle" "${bundler}" -list -type=o "-input=${WORK}/uattn_kernels.hipfb")
expect("${step_out}" "hipv4-amdgcn-amd-amdhsa--gfx1031")
run_step("reading the code object" "${readelf}" --notes "${WORK}/uattn_gfx1099.co")
foreach(k uattn_gfx1099_2d_f16_f16_d128_bany_all_m8n32w1 uattn_gfx1099_3d_f16_f16_d128_bany_all_m8n32w1
          uattn_gfx1099_reduce_d128)
  expect("${step_out}" "\\.name: +${k}\n")
endforeach()
expect("${step_out}" "\\.wavefront_size: +32")
expect("${step_out}" "amdhsa\\.target: +'?amdgcn-amd-amdhsa--gfx1031")

# co_report.py: gfx1099's record only through the matrix that declares it (none
# borrowed from the processor's neighbour), and its occupancy model.
execute_process(COMMAND "${PYTHON}" "${SRC}/tools/co_report.py" --readelf "${readelf}" "${WORK}/uattn_gfx1099.co"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "co_report.py without the matrix read gfx1099's code object:\n${out}")
endif()
expect("${out}${err}" "target processor 'gfx1031' has no architecture record")
run_step("co_report.py on gfx1099's code object"
  "${PYTHON}" "${SRC}/tools/co_report.py" --readelf "${readelf}" --json --matrix "${SRC}/tests/newarch/matrix.yaml"
  "${WORK}/uattn_gfx1099.co")
set(report "${step_out}")
string(JSON n LENGTH "${report}")
math(EXPR last "${n} - 1")
foreach(i RANGE ${last})
  string(JSON arch GET "${report}" ${i} arch)
  string(JSON vgprs GET "${report}" ${i} vgpr_count)
  string(JSON lds GET "${report}" ${i} group_segment_fixed_size)
  string(JSON threads ERROR_VARIABLE no_threads GET "${report}" ${i} max_flat_workgroup_size)
  if(no_threads)
    set(threads 32)  # co_report.py: one wave
  endif()
  string(JSON occ GET "${report}" ${i} occupancy_waves_per_simd)
  if(NOT arch STREQUAL "gfx1099")
    message(FATAL_ERROR "co_report.py: kernel ${i} of gfx1099's code object has arch ${arch}")
  endif()
  # gfx1099's model: min(12, 1024 // align8(VGPRs), (98304 // LDS) x waves / 8), in hundredths.
  math(EXPR regs "(${vgprs} + 7) / 8 * 8")
  math(EXPR want "1024 / ${regs}")
  if(want GREATER 12)
    set(want 12)
  endif()
  math(EXPR want "${want} * 100")
  if(lds GREATER 0)
    math(EXPR by_lds "98304 / ${lds} * (${threads} / 32) * 100 / 8")
    if(by_lds LESS want)
      set(want ${by_lds})
    endif()
  endif()
  string(REGEX REPLACE "\\.([0-9])$" ".\\10" occ2 "${occ}")
  string(REGEX REPLACE "^([0-9]+)$" "\\1.00" occ2 "${occ2}")
  string(REPLACE "." "" got "${occ2}")
  math(EXPR diff "${got} - ${want}")  # co_report rounds to hundredths, this truncates
  if(diff GREATER 1 OR diff LESS -1)
    message(FATAL_ERROR "co_report.py: occupancy ${occ} of kernel ${i} (VGPRs ${vgprs}, LDS ${lds}, ${threads} "
                        "threads), expected ${want} / 100 from gfx1099's record")
  endif()
endforeach()
message(STATUS "gfx1099: generated, tabled, selected, explained, executed on the CPU (twin and emulator), run "
               "through the runtime on the CPU-backed device, compiled for gfx1031 and reported")
