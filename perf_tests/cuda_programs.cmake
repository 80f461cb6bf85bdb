# The stand-alone CUDA programs of perf_tests (correctness sweeps, benchmarks, probes): nvcc
# programs on the raw-pointer kernels of Tessera::kernels_cuda, without Kokkos, whose flags stay
# out of their compiles as out of the library's. Included by every folder that defines some
# (unit_tests through gpu_sweeps.cmake, perf_tests); all of them land in <build>/perf_tests.

# Per folder: CMake keeps a language's compile rules in the scope that enabled it.
enable_language(CUDA)

# Matrix Market reading (gzip included) from core's sources, which need no Kokkos: Tessera::core
# itself would bring Kokkos' flags along.
if(NOT TARGET tessera_perf_io)
  add_library(tessera_perf_io STATIC ${PROJECT_SOURCE_DIR}/core/src/io/matrix_market.cpp
                                     ${PROJECT_SOURCE_DIR}/core/src/io/text_file.cpp)
  target_include_directories(tessera_perf_io PUBLIC ${PROJECT_SOURCE_DIR}/core/include)
  target_link_libraries(tessera_perf_io PRIVATE ZLIB::ZLIB)
endif()

# tessera_add_cuda_program(<name> <sources...> [LIBS <libraries...>])
# For the library's GPU architectures; -O3 whatever the build type (the benchmarks' numbers),
# -lineinfo (compute-sanitizer's reports name source lines), OpenMP for the host references.
# Linked by the host compiler (the CUDA link rule), which takes -fopenmp as it is.
function(tessera_add_cuda_program NAME)
  cmake_parse_arguments(P "" "" "LIBS" ${ARGN})
  add_executable(${NAME} ${P_UNPARSED_ARGUMENTS})
  get_target_property(archs tessera_kernels_cuda CUDA_ARCHITECTURES)
  set_target_properties(${NAME} PROPERTIES CUDA_ARCHITECTURES "${archs}" CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON
                                           LINKER_LANGUAGE CUDA RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/perf_tests)
  target_compile_options(${NAME} PRIVATE -O3 -lineinfo -Xcompiler=-fopenmp)
  target_link_options(${NAME} PRIVATE -fopenmp)
  target_include_directories(${NAME} PRIVATE ${PROJECT_SOURCE_DIR}/core/include ${PROJECT_SOURCE_DIR}/formats/include)
  target_link_libraries(${NAME} PRIVATE Tessera::kernels_cuda ${P_LIBS})
  add_dependencies(tessera_cuda_targets ${NAME})
endfunction()
