# sampan_install.cmake: install() rules, so that `pip install .` (pyproject.toml, scikit-build-core)
# and `cmake --install <build> --prefix <site-packages>` give a complete package that works
# without the checkout:
#
#   <prefix>/sampan/                     the Python package (*.py), _C, libsampan_core.so and the
#                                        module libraries (libsampan_quantum.so ...), RPATH $ORIGIN
#   <prefix>/sampan/_build_config.json   the op-library flag record, its paths relative to itself
#   <prefix>/sampan/include/sampan/      the headers an op author includes (op.h, tensor.h, ...)
#   <prefix>/sampan/share/cmake/sampan/  sampanConfig.cmake (+ version, targets: sampan::core) and
#                                        sampan_op_library.cmake (sampan_add_op_library())
#   <scripts>/sampan-lmp                 the LAMMPS driver, where LAMMPS is built
#
# scikit-build-core installs into the wheel's platlib, so <prefix> is site-packages. Included from
# the top-level CMakeLists.txt after the targets it names and before examples/ (whose
# sampan_add_op_library() writes the build record, so it must see the output folder set here).
#
# Nothing here changes what `make build` builds: the rules are on by default only in a wheel build
# (SKBUILD, set by scikit-build-core), and the output folders move only there. Why off elsewhere:
# a target with an install rule gets its build-tree RPATH padded for the rewrite at install time
# (CMake appends ':'), which would relink every library of build/ with a changed RPATH.
# -DSAMPAN_INSTALL=ON adds them to any build (then `cmake --install build --prefix <site-packages>`).
include_guard(GLOBAL)
include(CMakePackageConfigHelpers)

if(SKBUILD)
  set(_sampan_wheel_build ON)
else()
  set(_sampan_wheel_build OFF)
endif()
option(SAMPAN_INSTALL "Add the install() rules (on in a pip/scikit-build-core build)" ${_sampan_wheel_build})

# The package folder, relative to the install prefix (site-packages in a wheel).
set(SAMPAN_INSTALL_PACKAGE_DIR "sampan" CACHE STRING
  "Folder of the installed Python package, relative to CMAKE_INSTALL_PREFIX (a site-packages folder)")
set(_sampan_pkg "${SAMPAN_INSTALL_PACKAGE_DIR}")
set(_sampan_install_include "${_sampan_pkg}/include")
# share/cmake/sampan: found by find_package(sampan) with CMAKE_PREFIX_PATH=<site-packages>
# (<prefix>/<name>*/share/cmake/<name>*/) or =<site-packages>/sampan (<prefix>/share/cmake/<name>*/).
set(_sampan_install_cmake "${_sampan_pkg}/share/cmake/sampan")

# ---------------------------------------------------------------------------------------------
# Where the build puts the package's binaries
# ---------------------------------------------------------------------------------------------
# `make build` builds _C and the libraries into python/sampan, next to the sources, so the checkout
# imports (setup.sh's .pth file). A wheel build must not write into the checkout: a `make build`
# or `make test` may be using those very files at the same time. So there (SKBUILD, set by
# scikit-build-core) the default is the build folder's python/sampan.
if(_sampan_wheel_build)
  set(_sampan_inplace_default OFF)
else()
  set(_sampan_inplace_default ON)
endif()
option(SAMPAN_INPLACE_PACKAGE
  "Build _C, the libraries and the build record into the checkout's python/sampan (OFF: <build>/python/sampan)"
  ${_sampan_inplace_default})

set(_sampan_libraries "")
foreach(_sampan_target sampan_core sampan_quantum sampan_deepmd_bridge sampan_helix _C)
  if(TARGET ${_sampan_target})
    list(APPEND _sampan_libraries ${_sampan_target})
  endif()
endforeach()

if(NOT SAMPAN_INPLACE_PACKAGE)
  set(SAMPAN_PACKAGE_BUILD_DIR "${PROJECT_BINARY_DIR}/python/sampan")
  set_target_properties(${_sampan_libraries} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${SAMPAN_PACKAGE_BUILD_DIR}")
  if(TARGET sampan-lmp)
    set_target_properties(sampan-lmp PROPERTIES BUILD_RPATH "${SAMPAN_PACKAGE_BUILD_DIR}")
  endif()
  # The build record follows the libraries (read lazily by sampan_add_op_library and the deferred
  # writer, both after this point); a -DSAMPAN_BUILD_CONFIG_JSON=... on the command line wins.
  if(NOT DEFINED CACHE{SAMPAN_BUILD_CONFIG_JSON})
    set(SAMPAN_BUILD_CONFIG_JSON "${SAMPAN_PACKAGE_BUILD_DIR}/_build_config.json")
  endif()
endif()

if(NOT SAMPAN_INSTALL)
  return()
endif()

# ---------------------------------------------------------------------------------------------
# The Python package
# ---------------------------------------------------------------------------------------------
# Only the *.py files: python/sampan also holds what `make build` put there (_C, lib*.so, the
# build record of the checkout), which must not reach a wheel. An editable install
# (pip install -e .) takes the sources from the checkout instead (pyproject.toml's override).
if(NOT SKBUILD_STATE STREQUAL "editable")
  install(DIRECTORY "${PROJECT_SOURCE_DIR}/python/sampan/" DESTINATION "${_sampan_pkg}"
          FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
endif()

# _C and the libraries sit in one folder and find each other through $ORIGIN. USE_LINK_PATH keeps
# the folders of outside libraries that are not on the loader's default path (CUDA's
# /usr/local/cuda/lib64, Debian's hdf5/serial); folders of the build tree are never kept.
set_target_properties(${_sampan_libraries} PROPERTIES
  INSTALL_RPATH "$ORIGIN" INSTALL_RPATH_USE_LINK_PATH TRUE)
# libsampan_core.so is exported (sampan::core) for find_package(sampan) users' op libraries.
set_target_properties(sampan_core PROPERTIES EXPORT_NAME core)
install(TARGETS sampan_core EXPORT sampanTargets
        LIBRARY DESTINATION "${_sampan_pkg}"
        INCLUDES DESTINATION "${_sampan_install_include}")
list(REMOVE_ITEM _sampan_libraries sampan_core)
if(_sampan_libraries)
  install(TARGETS ${_sampan_libraries} LIBRARY DESTINATION "${_sampan_pkg}")
endif()

# The op-library flag record. The build's copy names the checkout's include folders and the
# build's libsampan_core.so; the installed copy names the installed ones, relative to its own
# folder (a wheel is built in a staging folder, so the final site-packages is not known here).
# cpp_extension.build_config() and sampan_add_op_library() resolve relative paths that way.
install(CODE "set(SAMPAN_RECORD_IN \"${SAMPAN_BUILD_CONFIG_JSON}\")
  set(SAMPAN_RECORD_PACKAGE_DIR \"${_sampan_pkg}\")
  set(SAMPAN_RECORD_CORE \"${CMAKE_SHARED_LIBRARY_PREFIX}sampan_core${CMAKE_SHARED_LIBRARY_SUFFIX}\")
  include(\"${CMAKE_CURRENT_LIST_DIR}/sampan_install_record.cmake\")")

# ---------------------------------------------------------------------------------------------
# The op author's headers and CMake package
# ---------------------------------------------------------------------------------------------
# framework/include/sampan/: the single include folder of the record.
install(DIRECTORY "${PROJECT_SOURCE_DIR}/framework/include/"
        DESTINATION "${_sampan_install_include}" FILES_MATCHING PATTERN "*.h" PATTERN "*.cuh")
install(EXPORT sampanTargets NAMESPACE sampan:: DESTINATION "${_sampan_install_cmake}"
        FILE sampanTargets.cmake)
configure_file("${CMAKE_CURRENT_LIST_DIR}/sampanConfig.cmake.in"
               "${PROJECT_BINARY_DIR}/sampan_install/sampanConfig.cmake" @ONLY)
write_basic_package_version_file("${PROJECT_BINARY_DIR}/sampan_install/sampanConfigVersion.cmake"
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/sampan_install/sampanConfig.cmake"
              "${PROJECT_BINARY_DIR}/sampan_install/sampanConfigVersion.cmake"
              "${CMAKE_CURRENT_LIST_DIR}/sampan_op_library.cmake"
        DESTINATION "${_sampan_install_cmake}")

# ---------------------------------------------------------------------------------------------
# sampan-lmp (where LAMMPS is built)
# ---------------------------------------------------------------------------------------------
if(TARGET sampan-lmp)
  if(SKBUILD)
    # The wheel's scripts go to <env>/bin, the package to <env>/lib/pythonX.Y/site-packages (a
    # venv, pip --user) or .../dist-packages (Debian's /usr/local): the RPATH names both.
    set(_sampan_py "python${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}")
    set(_sampan_lmp_destination "${SKBUILD_SCRIPTS_DIR}")
    set(_sampan_lmp_rpath "$ORIGIN/../lib/${_sampan_py}/site-packages/${_sampan_pkg}"
                          "$ORIGIN/../lib/${_sampan_py}/dist-packages/${_sampan_pkg}")
  else()
    set(_sampan_lmp_destination "${_sampan_pkg}/bin")
    set(_sampan_lmp_rpath "$ORIGIN/..")
  endif()
  set_target_properties(sampan-lmp PROPERTIES
    INSTALL_RPATH "${_sampan_lmp_rpath}" INSTALL_RPATH_USE_LINK_PATH TRUE)
  install(TARGETS sampan-lmp RUNTIME DESTINATION "${_sampan_lmp_destination}")
endif()
