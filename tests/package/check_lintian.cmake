# cmake -DLINTIAN=lintian -DDIR=<build>/packages -P check_lintian.cmake
# lintian on every .deb of DIR: fails on any error or warning (the packages ship their
# own overrides in /usr/share/lintian/overrides, each explained in docs/packaging.md).
file(GLOB debs "${DIR}/*.deb")
if(NOT debs)
  message(FATAL_ERROR "no .deb in ${DIR} (run package.install first)")
endif()
execute_process(COMMAND "${LINTIAN}" --fail-on error,warning --display-info --show-overrides ${debs}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "lintian: exit status ${rc}")
endif()
