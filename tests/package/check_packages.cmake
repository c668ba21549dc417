# cmake -DBUILD_DIR= -DSRC= -DWORK= -DCPACK= -DDPKG_DEB= -DARCHS= -DVERSION= -DRELEASE= -DPREFIX= -DLIBDIR=
#       -DSTAMP= -DEXPLAIN= -DSCENARIOS= -P check_packages.cmake
# Builds the packages of BUILD_DIR (cpack), extracts the .deb files into WORK/root
# (dpkg-deb -x; nothing is installed on this system), checks their control fields and
# contents, builds SRC/examples against WORK/root and runs both examples, checks the
# installed tools, then unpacks the tarballs into WORK/tgz and compares the trees.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "${cmd}: exit status ${rc}\n${out}${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()
function(expect what text regex)
  if(NOT text MATCHES "${regex}")
    message(FATAL_ERROR "${what}: expected to match '${regex}', got:\n${text}")
  endif()
endfunction()

file(REMOVE_RECURSE "${WORK}" "${BUILD_DIR}/packages")
file(MAKE_DIRECTORY "${WORK}/root" "${WORK}/tgz")
run("${CPACK}" --config "${BUILD_DIR}/CPackConfig.cmake" -B "${BUILD_DIR}/packages")
message("${out}")

set(deb_version "${VERSION}-${RELEASE}")
set(debs "${BUILD_DIR}/packages/uattn_${deb_version}_amd64.deb")
set(tgzs "${BUILD_DIR}/packages/uattn-${VERSION}-amd64.tar.gz")
foreach(arch IN LISTS ARCHS)
  list(APPEND debs "${BUILD_DIR}/packages/uattn-${arch}_${deb_version}_amd64.deb")
  list(APPEND tgzs "${BUILD_DIR}/packages/uattn-${arch}-${VERSION}-amd64.tar.gz")
endforeach()
foreach(f IN LISTS debs tgzs)
  if(NOT EXISTS "${f}")
    file(GLOB made "${BUILD_DIR}/packages/*")
    message(FATAL_ERROR "cpack did not write ${f}; it wrote: ${made}")
  endif()
endforeach()

# --- control fields and contents
list(GET debs 0 common)
run("${DPKG_DEB}" -f "${common}" Package Version Architecture Depends Section)
expect("uattn control" "${out}" "Package: uattn\nVersion: ${deb_version}\nArchitecture: amd64\nDepends: [^\n]*libamdhip64")
run("${DPKG_DEB}" -c "${common}")
set(common_files "${out}")
set(lib "${PREFIX}/${LIBDIR}")
string(REGEX REPLACE "^/" "" lib_rel "${lib}")
foreach(f "usr/include/uattn/runtime.hpp" "usr/include/uattn/uattn.h" "usr/include/uattn/table.hpp"
          "usr/include/uattn/generated/vocab.h" "usr/include/uattn/generated/args.h"
          "usr/include/uattn/generated/args.hpp" "${lib_rel}/libuattn.so.0" "${lib_rel}/libuattn_table.a"
          "${lib_rel}/libuattn_validate.a" "${lib_rel}/cmake/uattn/uattnConfig.cmake" "usr/bin/uattn-explain"
          "usr/bin/uattn-inspect" "usr/share/doc/uattn/copyright" "usr/share/doc/uattn/changelog.Debian.gz")
  expect("uattn contents" "${common_files}" " \\./${f}")
endforeach()
if(common_files MATCHES "\\.hipfb")
  message(FATAL_ERROR "the common package holds a bundle:\n${common_files}")
endif()
foreach(arch IN LISTS ARCHS)
  set(deb "${BUILD_DIR}/packages/uattn-${arch}_${deb_version}_amd64.deb")
  run("${DPKG_DEB}" -f "${deb}" Package Version Depends)
  expect("uattn-${arch} control" "${out}" "Package: uattn-${arch}\nVersion: ${deb_version}\nDepends: uattn \\(= ${deb_version}\\)\n")
  run("${DPKG_DEB}" -c "${deb}")
  # Only this architecture's bundle and its stamp, and the Debian doc files.
  string(REGEX MATCHALL "\\./[^ \n]+[^/\n]\n" files "${out}")
  list(TRANSFORM files STRIP)
  list(SORT files)
  set(want "./${lib_rel}/uattn/uattn_kernels-${arch}.hipfb" "./${lib_rel}/uattn/uattn_kernels-${arch}.hipfb.stamp"
           "./usr/share/doc/uattn-${arch}/changelog.Debian.gz" "./usr/share/doc/uattn-${arch}/copyright"
           "./usr/share/lintian/overrides/uattn-${arch}")
  list(SORT want)
  if(NOT files STREQUAL want)
    message(FATAL_ERROR "uattn-${arch} holds ${files}; expected ${want}")
  endif()
endforeach()

# --- extract (no system change) and build the examples against the extracted tree only
foreach(deb IN LISTS debs)
  run("${DPKG_DEB}" -x "${deb}" "${WORK}/root")
endforeach()
set(root "${WORK}/root${PREFIX}")
run("${CMAKE_COMMAND}" -S "${SRC}/examples" -B "${WORK}/examples" -G Ninja "-DCMAKE_PREFIX_PATH=${root}"
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_BUILD_TYPE=Release)
run("${CMAKE_COMMAND}" --build "${WORK}/examples")
file(READ "${WORK}/examples/CMakeCache.txt" cache)
expect("examples configured against the extracted packages" "${cache}" "uattn_DIR:PATH=${root}/${LIBDIR}/cmake/uattn\n")

# uattn_pick (uattn::uattn_table alone): every scenario resolves on every architecture, to
# the instance the build tree's uattn-explain names for it.
run("${WORK}/examples/uattn_pick" "${SCENARIOS}" ${ARCHS})
set(pick "${out}")
message("${pick}")
expect("uattn_pick" "${pick}" "^lookup table: uattn ${STAMP} \\([0-9]+ rows\\)\n")
foreach(arch IN LISTS ARCHS)
  run("${EXPLAIN}" --scenarios "${SCENARIOS}" --arch ${arch})
  set(explained "${out}")
  foreach(sc decode_d128_b16 prefill_d128_b16)
    string(REGEX MATCH "${sc} +${arch} +(uattn_${arch}_[a-z0-9_]+) grid" m "${pick}")
    if(NOT m)
      message(FATAL_ERROR "uattn_pick chose nothing for ${sc} on ${arch}:\n${pick}")
    endif()
    string(FIND "${explained}" "${CMAKE_MATCH_1}" at)
    if(at LESS 0)
      message(FATAL_ERROR "uattn_pick chose ${CMAKE_MATCH_1} for ${sc} on ${arch}; uattn-explain does not name it:\n${explained}")
    endif()
  endforeach()
endforeach()

# uattn_run_attention (uattn::uattn): finds the bundles the packages installed next to
# libuattn; with no GPU here it says so and exits 0.
if(EXISTS "${WORK}/examples/uattn_run_attention")
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env --unset=UATTN_LIBRARY_PATH "${WORK}/examples/uattn_run_attention"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "uattn_run_attention: exit status ${rc}")
  endif()
  expect("uattn_run_attention" "${out}" "^libuattn: uattn ${STAMP}\nkernel bundle: ${root}/${LIBDIR}/uattn/uattn_kernels-")
  expect("uattn_run_attention" "${out}" "no AMD GPU is visible|no ROCm-capable device|ran [0-9]+ tokens")
else()
  message(FATAL_ERROR "uattn_run_attention was not built (HIP runtime not found)")
endif()

# The installed tools.
run("${root}/bin/uattn-explain" --version)
expect("uattn-explain --version" "${out}" "^uattn ${STAMP}; lookup table of [0-9]+ rows")
file(GLOB bundles "${root}/${LIBDIR}/uattn/*.hipfb")
run("${CMAKE_COMMAND}" -E env PYTHONDONTWRITEBYTECODE=1 "${root}/bin/uattn-inspect" --stamp ${bundles})
foreach(arch IN LISTS ARCHS)
  expect("uattn-inspect --stamp" "${out}" "uattn_kernels-${arch}.hipfb \\([^)]+\\): uattn ${STAMP}, archs ${arch}\n")
endforeach()

# --- the tarballs: the same files, relative to any prefix
foreach(t IN LISTS tgzs)
  run("${CMAKE_COMMAND}" -E chdir "${WORK}/tgz" "${CMAKE_COMMAND}" -E tar xzf "${t}")
endforeach()
file(GLOB_RECURSE from_deb LIST_DIRECTORIES false RELATIVE "${root}" "${root}/*")
file(GLOB_RECURSE from_tgz LIST_DIRECTORIES false RELATIVE "${WORK}/tgz" "${WORK}/tgz/*")
list(SORT from_deb)
list(SORT from_tgz)
if(NOT from_deb STREQUAL from_tgz)
  message(FATAL_ERROR "the tarballs hold\n${from_tgz}\nthe .deb files\n${from_deb}")
endif()
list(LENGTH debs n)
message("package.install: ${n} .deb files and ${n} tarballs checked; examples built against ${root}")
