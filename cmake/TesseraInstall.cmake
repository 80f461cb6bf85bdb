# Packaging: the umbrella target Tessera::tessera, the exported targets
# (Tessera::core, ::formats, ::workspace, ::kernels, ::dist when MPI is found, ::tessera), TesseraConfig.cmake
# and its version file. Each module's CMakeLists installs its own target into the
# export set TesseraTargets and its include/ folder; this file is included last
# from the top-level CMakeLists.txt.
include(CMakePackageConfigHelpers)

set(TESSERA_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/Tessera" CACHE STRING
    "Where TesseraConfig.cmake is installed, relative to the prefix")

# Tessera::tessera = every module, for users who want all of it.
add_library(tessera INTERFACE)
add_library(Tessera::tessera ALIAS tessera)
set_target_properties(tessera PROPERTIES EXPORT_NAME tessera)
foreach(_module IN ITEMS tessera_core tessera_formats tessera_workspace tessera_kernels tessera_dist)
  if(TARGET ${_module})
    target_link_libraries(tessera INTERFACE ${_module})
  endif()
endforeach()
install(TARGETS tessera EXPORT TesseraTargets)

install(EXPORT TesseraTargets
  NAMESPACE Tessera::
  FILE TesseraTargets.cmake
  DESTINATION "${TESSERA_INSTALL_CMAKEDIR}")

# What the installed config must look for again: it has to match what this build used.
set(TESSERA_CONFIG_HAVE_CUDA ${TESSERA_HAVE_CUDA})
set(TESSERA_CONFIG_HAVE_KOKKOSKERNELS ${TESSERA_HAVE_KOKKOSKERNELS})
# MPI: look at what the modules link (its imported target is directory-scoped, so
# `if(TARGET MPI::MPI_CXX)` would not see a find_package(MPI) made in a module).
set(TESSERA_CONFIG_HAVE_MPI OFF)
foreach(_module IN ITEMS tessera_core tessera_formats tessera_workspace tessera_kernels tessera_dist)
  if(TARGET ${_module})
    get_target_property(_libs ${_module} INTERFACE_LINK_LIBRARIES)
    if(_libs MATCHES "MPI::")
      set(TESSERA_CONFIG_HAVE_MPI ON)
    endif()
  endif()
endforeach()

configure_package_config_file(
  "${CMAKE_CURRENT_LIST_DIR}/TesseraConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/cmake/TesseraConfig.cmake"
  INSTALL_DESTINATION "${TESSERA_INSTALL_CMAKEDIR}")
# 0.x: a minor version bump may break the API, so only the same minor version matches.
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/cmake/TesseraConfigVersion.cmake"
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  "${PROJECT_BINARY_DIR}/cmake/TesseraConfig.cmake"
  "${PROJECT_BINARY_DIR}/cmake/TesseraConfigVersion.cmake"
  DESTINATION "${TESSERA_INSTALL_CMAKEDIR}")
