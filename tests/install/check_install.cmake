# cmake -DBUILD_DIR=... -DSRC=... -DWORK=... -P check_install.cmake
# Installs the build into WORK/prefix, builds the consumer against it, runs it.
file(REMOVE_RECURSE "${WORK}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${WORK}/prefix" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc})")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${SRC}" -B "${WORK}/consumer" -G Ninja
                        "-DCMAKE_PREFIX_PATH=${WORK}/prefix" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the consumer against the installed package failed (${rc})")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${WORK}/consumer" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the consumer failed (${rc})")
endif()
execute_process(COMMAND "${WORK}/consumer/consumer" RESULT_VARIABLE rc OUTPUT_VARIABLE out)
message("${out}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "instance uattn_gfx950_")
  message(FATAL_ERROR "the consumer did not select an instance (${rc})")
endif()
foreach(f include/uattn/table.hpp include/uattn/kernel/params.hpp include/uattn/kernel/config.hpp
          include/uattn/uattn.h include/uattn/generated/args.h include/uattn/generated/args.hpp
          lib/uattn/uattn_kernels-gfx950.hipfb lib/uattn/uattn_kernels-gfx950.hipfb.stamp
          lib/cmake/uattn/uattnConfig.cmake)
  if(NOT EXISTS "${WORK}/prefix/${f}")
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
