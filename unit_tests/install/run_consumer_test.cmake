# cmake -P script behind the install_consumer test (see CMakeLists.txt next to it).
#   1. cmake --install TESSERA_BUILD_DIR --prefix WORK_DIR/prefix
#   2. configure + build the consumer project against that prefix
#   3. run it (it returns non-zero when spmv gives a wrong answer)
cmake_minimum_required(VERSION 3.20)
foreach(v TESSERA_BUILD_DIR WORK_DIR CONSUMER_SOURCE_DIR CONSUMER_CXX_COMPILER CONSUMER_GENERATOR)
  if(NOT DEFINED ${v} OR "${${v}}" STREQUAL "")
    message(FATAL_ERROR "run_consumer_test.cmake: -D${v}=... is required")
  endif()
endforeach()
if(NOT CONSUMER_BUILD_TYPE)
  set(CONSUMER_BUILD_TYPE Release)
endif()

set(prefix "${WORK_DIR}/prefix")
set(build "${WORK_DIR}/build")
file(REMOVE_RECURSE "${WORK_DIR}")  # start clean: a stale install could hide a missing file

message(STATUS "install_consumer: installing ${TESSERA_BUILD_DIR} into ${prefix}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${TESSERA_BUILD_DIR}"
                        --prefix "${prefix}" --config "${CONSUMER_BUILD_TYPE}"
                OUTPUT_QUIET COMMAND_ERROR_IS_FATAL ANY)

string(REPLACE "|" ";" deps "${CONSUMER_PREFIX_PATH}")
set(search_path "${prefix}" ${deps})
set(hints "")
if(CONSUMER_KOKKOS_DIR)
  list(APPEND hints "-DKokkos_DIR=${CONSUMER_KOKKOS_DIR}")
endif()
if(CONSUMER_KOKKOSKERNELS_DIR)
  list(APPEND hints "-DKokkosKernels_DIR=${CONSUMER_KOKKOSKERNELS_DIR}")
endif()
message(STATUS "install_consumer: configuring the consumer (CMAKE_PREFIX_PATH=${search_path})")
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${CONSUMER_SOURCE_DIR}" -B "${build}"
                        -G "${CONSUMER_GENERATOR}"
                        "-DCMAKE_BUILD_TYPE=${CONSUMER_BUILD_TYPE}"
                        "-DCMAKE_CXX_COMPILER=${CONSUMER_CXX_COMPILER}"
                        "-DCMAKE_PREFIX_PATH=${search_path}" ${hints}
                COMMAND_ERROR_IS_FATAL ANY)

message(STATUS "install_consumer: building the consumer")
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${build}" --config "${CONSUMER_BUILD_TYPE}"
                COMMAND_ERROR_IS_FATAL ANY)

find_program(consumer tessera_consumer PATHS "${build}" "${build}/${CONSUMER_BUILD_TYPE}" NO_DEFAULT_PATH)
if(NOT consumer)
  message(FATAL_ERROR "install_consumer: tessera_consumer was not built")
endif()
message(STATUS "install_consumer: running ${consumer}")
execute_process(COMMAND "${consumer}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "install_consumer: the consumer failed (exit ${rc})")
endif()
message(STATUS "install_consumer: OK")
