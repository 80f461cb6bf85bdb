# The GPU correctness sweeps: thousands of cases each against a double-precision host reference.
# Tests, so built with the tests (included by unit_tests) even where TESSERA_BUILD_PERF_TESTS is
# OFF; also by perf_tests, for builds without the tests (a GPU machine without GoogleTest).
# ctest runs a quick subset of each (every kernel, type and layout at small sizes, spmm_tca and nv24
# also on small real matrices: 8, 1 and 13 s on an H100), labelled gpu. The full sweeps, by hand (or
# through perf_tests/<family>/run_device.sh <build>, which adds compute-sanitizer runs):
#   <build>/perf_tests/spmm_tca_check <data>/matrices   (all 66 matrices: about 220 s in one process)
#   <build>/perf_tests/nv24_check <data>/matrices
#   <build>/perf_tests/vnm_check
include_guard(GLOBAL)
include(${CMAKE_CURRENT_LIST_DIR}/cuda_programs.cmake)

tessera_add_cuda_program(spmm_tca_check ${CMAKE_CURRENT_LIST_DIR}/spmm_tca/spmm_tca_check.cu LIBS tessera_perf_io)
tessera_add_cuda_program(nv24_check ${CMAKE_CURRENT_LIST_DIR}/nv24/nv24_check.cu LIBS tessera_perf_io)
tessera_add_cuda_program(vnm_check ${CMAKE_CURRENT_LIST_DIR}/vnm/vnm_check.cu)

if(TESSERA_BUILD_TESTS)
  # A sweep that finds a wrong result exits 1 (2 when it cannot run), failing its test.
  function(tessera_add_sweep_test NAME FAMILY)
    add_test(NAME ${NAME} COMMAND ${ARGN})
    set_tests_properties(${NAME} PROPERTIES LABELS "kernels;gpu;${FAMILY}" TIMEOUT 300
                                            ENVIRONMENT "TESSERA_DATA_DIR=${TESSERA_DATA_DIR}")
  endfunction()
  set(matrices ${TESSERA_DATA_DIR}/matrices)
  # Square unsymmetric, rectangular (wide) and a power-law pattern graph.
  tessera_add_sweep_test(spmm_tca_check_quick spmm spmm_tca_check --quick --matrix ${matrices}/west0497.mtx.gz
                         --matrix ${matrices}/lp_fit2p.mtx.gz --matrix ${matrices}/ca-HepTh.mtx.gz)
  # Reads west0497 and cryg2500 from the folder.
  tessera_add_sweep_test(nv24_check_quick nv24 nv24_check ${matrices} --quick)
  tessera_add_sweep_test(vnm_check_quick vnm vnm_check --quick)
endif()
