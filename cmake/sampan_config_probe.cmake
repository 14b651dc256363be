# sampan_config_probe.cmake: is a CMake package configuration usable, before we load it?
#
# A package's generated <Pkg>Targets.cmake ends with a check that every file its imported
# targets reference exists, and stops the configure with FATAL_ERROR when one does not. That
# error cannot be caught, so a package that is installed incompletely (Debian's liblammps-dev
# without the package lammps, which holds /usr/bin/lmp that LAMMPS::lmp names) would fail the
# whole configure of an AUTO option. The probe loads the package in a child CMake first; only
# when the child succeeds does the caller find_package() it for real.
include_guard(GLOBAL)

set(_sampan_config_probe_dir "${CMAKE_CURRENT_LIST_DIR}")

# sampan_probe_config_package(<package> <result_var> <missing_file_var> [COMPONENTS ...])
#   result_var        TRUE: loading <package>'s config works (or no config was found at all,
#                     which the caller's own find_package reports); FALSE: it stops with an error.
#   missing_file_var  the file its targets reference that does not exist ("" if it failed
#                     another way; then <result_var>_ERROR holds the child's first error lines).
# The child sees the same compilers, prefix paths and <package>_DIR as this configure.
function(sampan_probe_config_package package result_var missing_var)
  set(probe_src "${_sampan_config_probe_dir}/config_probe")
  set(probe_bin "${CMAKE_BINARY_DIR}/CMakeFiles/sampan_config_probe_${package}")
  file(REMOVE_RECURSE "${probe_bin}")
  set(args -S "${probe_src}" -B "${probe_bin}" "-DSAMPAN_PROBE_PACKAGE=${package}")
  foreach(var IN ITEMS CMAKE_CXX_COMPILER CMAKE_C_COMPILER CMAKE_PREFIX_PATH CMAKE_FIND_ROOT_PATH
                       CMAKE_MODULE_PATH ${package}_DIR ${package}_ROOT MPI_CXX_SKIP_MPICXX)
    if(DEFINED ${var})
      string(REPLACE ";" "\\;" value "${${var}}")
      list(APPEND args "-D${var}=${value}")
    endif()
  endforeach()
  execute_process(COMMAND "${CMAKE_COMMAND}" ${args}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  file(REMOVE_RECURSE "${probe_bin}")
  set(${missing_var} "" PARENT_SCOPE)
  if(rc EQUAL 0)
    set(${result_var} TRUE PARENT_SCOPE)
    return()
  endif()
  set(${result_var} FALSE PARENT_SCOPE)
  # The generated check's wording: references the file\n   "<path>"\nbut this file does not exist.
  if(err MATCHES "references the file[ \t\r\n]*\"([^\"]+)\"[ \t\r\n]*but this file does not exist")
    set(${missing_var} "${CMAKE_MATCH_1}" PARENT_SCOPE)
  endif()
  string(SUBSTRING "${err}" 0 600 head)
  set(${result_var}_ERROR "${head}" PARENT_SCOPE)
endfunction()
