# Packages (docs/packaging.md): `cpack` in the build folder (or the CMake target
# `package`) writes, from this one build, Debian packages and tarballs in the
# ROCm libraries' style:
#   uattn_<ver>-<rel>_amd64.deb, uattn-<ver>-amd64.tar.gz
#       the common package: headers (C++ and C), libuattn (shared, SONAME
#       libuattn.so.0) and the static libuattn_table / libuattn_validate, the
#       tools, the CMake package (install component "uattn")
#   uattn-<arch>_<ver>-<rel>_amd64.deb, uattn-<arch>-<ver>-amd64.tar.gz
#       one per architecture of GPU_TARGETS: that architecture's compressed
#       bundle and its stamp in <libdir>/uattn/, where the runtime looks
#       (install component "<arch>"); depends on the common package of the same
#       version.
# The .deb files install under UATTN_PACKAGE_PREFIX (/usr); the tarballs hold a
# relocatable tree (bin/, include/, lib/, share/) to unpack into any one prefix.
set(UATTN_PACKAGE_PREFIX "/usr" CACHE PATH "Install prefix of the .deb/.tar.gz packages (CPack)")
set(UATTN_PACKAGE_MAINTAINER "uattn developers <uattn@lists.example.org>" CACHE STRING
    "Maintainer field of the Debian packages (\"Name <address>\")")
set(UATTN_PACKAGE_RELEASE 1 CACHE STRING "Debian revision of the packages (the part after the version's '-')")
set(UATTN_PACKAGE_HOMEPAGE "https://github.com/uattn/uattn" CACHE STRING "Homepage field of the Debian packages")

set(_deb_version "${PROJECT_VERSION}-${UATTN_PACKAGE_RELEASE}")
# Debian policy 12.5 and 12.7: every package ships /usr/share/doc/<package>/copyright
# and changelog.Debian.gz (gzip -9n: no timestamp in the header).
set(_pkgdir "${CMAKE_BINARY_DIR}/package")
file(MAKE_DIRECTORY "${_pkgdir}")
string(TIMESTAMP _date "%a, %d %b %Y 00:00:00 +0000" UTC)
set(_pkgs uattn)
foreach(_arch IN LISTS GPU_TARGETS)
  list(APPEND _pkgs uattn-${_arch})
endforeach()
find_program(UATTN_GZIP gzip)
foreach(_p IN LISTS _pkgs)
  if(_p STREQUAL "uattn")
    set(_comp uattn)
  else()
    string(REPLACE "uattn-" "" _comp "${_p}")
  endif()
  file(CONFIGURE OUTPUT "${_pkgdir}/${_p}/changelog.Debian" CONTENT
"${_p} (${_deb_version}) unstable; urgency=medium

  * Release ${PROJECT_VERSION} (uattn_gen ${UATTN_GENERATOR_VERSION}, matrix ${UATTN_MATRIX_HASH}).

 -- ${UATTN_PACKAGE_MAINTAINER}  ${_date}
")
  if(UATTN_GZIP)
    execute_process(COMMAND "${UATTN_GZIP}" -9nf "${_pkgdir}/${_p}/changelog.Debian")
    install(FILES "${_pkgdir}/${_p}/changelog.Debian.gz" DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${_p}
            COMPONENT ${_comp})
  endif()
  install(FILES "${CMAKE_CURRENT_SOURCE_DIR}/cmake/package/copyright" DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${_p}
          COMPONENT ${_comp})
  install(FILES "${CMAKE_CURRENT_SOURCE_DIR}/cmake/package/lintian-overrides-${_comp}"
          DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides RENAME ${_p} COMPONENT ${_comp} OPTIONAL)
endforeach()
# The per-architecture packages share one overrides file (the tags are the same).
foreach(_arch IN LISTS GPU_TARGETS)
  install(FILES "${CMAKE_CURRENT_SOURCE_DIR}/cmake/package/lintian-overrides-arch"
          DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides RENAME uattn-${_arch} COMPONENT ${_arch})
endforeach()

set(CPACK_PACKAGE_NAME uattn)
set(CPACK_PACKAGE_VENDOR "uattn")
set(CPACK_PACKAGE_CONTACT "${UATTN_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_GENERATOR "DEB;TGZ")
set(CPACK_COMPONENTS_ALL ${_pkgs})
list(TRANSFORM CPACK_COMPONENTS_ALL REPLACE "^uattn-" "")
set(CPACK_PACKAGING_INSTALL_PREFIX "${UATTN_PACKAGE_PREFIX}")
set(CPACK_OUTPUT_FILE_PREFIX "${CMAKE_BINARY_DIR}/packages")
set(CPACK_THREADS 1)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE "${UATTN_PACKAGE_RELEASE}")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${UATTN_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${UATTN_PACKAGE_HOMEPAGE}")
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_UATTN_PACKAGE_NAME uattn)
set(CPACK_DEBIAN_UATTN_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_UATTN_PACKAGE_SHLIBDEPS ON)      # libamdhip64, libstdc++, libc: from dpkg-shlibdeps
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)      # the shlibs control file: libuattn 0 uattn (= <version>)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY "=")
# ldconfig through dpkg's trigger, not from maintainer scripts (Debian policy 8.1.1); the
# postinst/postrm given here replace the ldconfig calls CPack would write and do nothing.
set(CPACK_DEBIAN_UATTN_PACKAGE_CONTROL_EXTRA "${CMAKE_CURRENT_SOURCE_DIR}/cmake/package/triggers"
    "${CMAKE_CURRENT_SOURCE_DIR}/cmake/package/postinst" "${CMAKE_CURRENT_SOURCE_DIR}/cmake/package/postrm")
set(CPACK_STRIP_FILES ON)                         # debug information stays in the build tree
set(CPACK_DEBIAN_UATTN_PACKAGE_DEPENDS "python3")  # uattn-inspect
# First line: the synopsis; the rest: the extended description (Debian policy 3.4).
set(CPACK_DEBIAN_UATTN_DESCRIPTION
"paged unified-attention kernels for AMD GPUs (common files)
uattn is an ahead-of-time generated library of paged unified-attention
kernels (paged KV cache, packed variable-length queries, GQA, causal,
sliding window, softcap, sinks, ALiBi, fp8 KV) for AMD GPUs.

This package holds the C++ and C headers, the HIP runtime libuattn, the
static lookup-table library libuattn_table (no GPU dependency), the
argument-validation library, the uattn-explain and uattn-inspect tools and
the CMake package (find_package(uattn)). The code objects come in one
package per GPU architecture (uattn-<arch>).")
set(_archs_or "")
foreach(_arch IN LISTS GPU_TARGETS)
  string(TOUPPER "${_arch}" _A)
  set(CPACK_DEBIAN_${_A}_PACKAGE_NAME uattn-${_arch})
  set(CPACK_DEBIAN_${_A}_PACKAGE_SECTION libs)
  set(CPACK_DEBIAN_${_A}_PACKAGE_DEPENDS "uattn (= ${_deb_version})")
  set(CPACK_DEBIAN_${_A}_DESCRIPTION
"uattn code objects for AMD ${_arch} GPUs
uattn is an ahead-of-time generated library of paged unified-attention
kernels for AMD GPUs.

This package holds the ${_arch} code objects of every uattn instance, as one
compressed offload bundle that libuattn loads on ${_arch} devices.")
  list(APPEND _archs_or "uattn-${_arch}")
endforeach()
list(JOIN _archs_or " | " _archs_or)
set(CPACK_DEBIAN_UATTN_PACKAGE_RECOMMENDS "${_archs_or}")

set(CPACK_ARCHIVE_COMPONENT_INSTALL ON)
set(CPACK_INCLUDE_TOPLEVEL_DIRECTORY OFF)
set(CPACK_ARCHIVE_UATTN_FILE_NAME "uattn-${PROJECT_VERSION}-amd64")
foreach(_arch IN LISTS GPU_TARGETS)
  string(TOUPPER "${_arch}" _A)
  set(CPACK_ARCHIVE_${_A}_FILE_NAME "uattn-${_arch}-${PROJECT_VERSION}-amd64")
endforeach()
# Tarballs are relocatable: no install prefix inside them.
set(CPACK_PROJECT_CONFIG_FILE "${CMAKE_CURRENT_LIST_DIR}/package/cpack_per_generator.cmake")
include(CPack)
