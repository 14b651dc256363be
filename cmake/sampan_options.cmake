# sampan_options.cmake: build options, dependency detection and the configure summary.
#
# Included once from the top-level CMakeLists.txt, before any subdirectory.
#
# Options
#   SAMPAN_BUILD_TESTS   ON/OFF  build tests/cpp (turned off, with a warning, without GoogleTest)
#   SAMPAN_USE_CCACHE    ON/OFF  compile through ccache when it is installed (default ON)
#   SAMPAN_WITH_CUDA     AUTO/ON/OFF  CUDA kernels (needs nvcc)
#   SAMPAN_WITH_MPI      AUTO/ON/OFF  MPI communicator and distributed drivers
#   SAMPAN_WITH_RDKIT    AUTO/ON/OFF  helix's molecule featurization (needs RDKit's C++ libraries)
#   SAMPAN_WITH_LAMMPS   AUTO/ON/OFF  the LAMMPS pair style and sampan-lmp (needs LAMMPS and MPI)
#   SAMPAN_BLAS          system/scipy-openblas/AUTO  the BLAS behind matmul (see "BLAS" below)
#   AUTO (the default) builds what is found and says loudly what is not; ON makes a missing
#   dependency a configure error; OFF leaves the module out.
#
# Results for the module CMakeLists (TRUE/FALSE):
#   SAMPAN_HAVE_CUDA, SAMPAN_HAVE_MPI, SAMPAN_HAVE_RDKIT, SAMPAN_HAVE_LAMMPS,
#   SAMPAN_HAVE_GTEST, SAMPAN_HAVE_BENCHMARK, SAMPAN_HAVE_CBLAS
# Imported targets to link:
#   always:  Eigen3::Eigen  OpenMP::OpenMP_CXX  hdf5::hdf5  sampan::blas  pybind11::module
#            (pybind11_add_module)  Python3::Module
#   CUDA:    CUDA::cudart  CUDA::cublas ... (FindCUDAToolkit)   MPI:   MPI::MPI_CXX
#   RDKit:   RDKit::RDKit (cmake/FindRDKit.cmake)                LAMMPS: LAMMPS::lammps
#   tests:   GTest::gtest  GTest::gtest_main  GTest::gmock      bench: benchmark::benchmark
include_guard(GLOBAL)
include(sampan_config_probe)  # sampan_probe_config_package()

option(SAMPAN_BUILD_TESTS "Build the C++ tests (needs GoogleTest)" ON)
option(SAMPAN_USE_CCACHE "Compile through ccache when it is installed" ON)

# ---------------------------------------------------------------------------------------------
# Helpers for the AUTO/ON/OFF module options
# ---------------------------------------------------------------------------------------------

# Declares the cache option SAMPAN_WITH_<module> and sets _sampan_<module>_mode to AUTO, ON or
# OFF (the usual CMake spellings of true and false are accepted).
function(_sampan_module_option module doc)
  set(SAMPAN_WITH_${module} AUTO CACHE STRING "${doc}: AUTO (if found), ON (required) or OFF")
  set_property(CACHE SAMPAN_WITH_${module} PROPERTY STRINGS AUTO ON OFF)
  string(TOUPPER "${SAMPAN_WITH_${module}}" value)
  if(value MATCHES "^(ON|YES|Y|TRUE|1)$")
    set(value ON)
  elseif(value MATCHES "^(OFF|NO|N|FALSE|0)$")
    set(value OFF)
  elseif(NOT value STREQUAL "AUTO")
    message(FATAL_ERROR
      "SAMPAN_WITH_${module} is '${SAMPAN_WITH_${module}}'; expected AUTO, ON or OFF.")
  endif()
  set(_sampan_${module}_mode ${value} PARENT_SCOPE)
endfunction()

# Records that <module> is built, with a detail for the summary (version, location).
function(_sampan_module_on module detail)
  set(SAMPAN_HAVE_${module} TRUE PARENT_SCOPE)
  set(_sampan_${module}_detail "${detail}" PARENT_SCOPE)
endfunction()

# Records that <module> is not built and why; an error when SAMPAN_WITH_<module>=ON asked for it.
# hint: what to do about it (which package to install), shown with the error.
function(_sampan_module_off module reason hint)
  if(_sampan_${module}_mode STREQUAL "ON")
    message(FATAL_ERROR
      "SAMPAN_WITH_${module}=ON, but ${reason}.\n${hint}\n"
      "Or configure with -DSAMPAN_WITH_${module}=AUTO (build without it, with a warning) or OFF.")
  endif()
  set(SAMPAN_HAVE_${module} FALSE PARENT_SCOPE)
  set(_sampan_${module}_detail "${reason}" PARENT_SCOPE)
endfunction()

# ---------------------------------------------------------------------------------------------
# CUDA
# ---------------------------------------------------------------------------------------------
_sampan_module_option(CUDA "Build the CUDA kernels")
if(_sampan_CUDA_mode STREQUAL "OFF")
  _sampan_module_off(CUDA "disabled with -DSAMPAN_WITH_CUDA=OFF" "")
else()
  # nvcc often sits in /usr/local/cuda/bin without being on PATH; CMake's compiler detection
  # (run by check_language in a child CMake) looks at CUDACXX, so point that at it.
  if(NOT DEFINED CMAKE_CUDA_COMPILER AND "$ENV{CUDACXX}" STREQUAL "")
    find_program(SAMPAN_NVCC_EXECUTABLE nvcc
      HINTS ENV CUDA_HOME ENV CUDA_PATH /usr/local/cuda
      PATH_SUFFIXES bin
      DOC "nvcc used to detect CUDA support")
    mark_as_advanced(SAMPAN_NVCC_EXECUTABLE)
    if(SAMPAN_NVCC_EXECUTABLE)
      set(ENV{CUDACXX} "${SAMPAN_NVCC_EXECUTABLE}")
    endif()
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # Must be known before enable_language(CUDA), which compiles a test for these targets.
    # 80 = Ampere (A100), 90 = Hopper (H100/H200): the data-centre GPUs sampan is tuned for.
    # For the GPU of this machine only: -DCMAKE_CUDA_ARCHITECTURES=native.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES "80;90" CACHE STRING "CUDA architectures to compile for")
    endif()
    enable_language(CUDA)
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit QUIET)  # CUDA::cudart, CUDA::cublas ...
    _sampan_module_on(CUDA
      "nvcc ${CMAKE_CUDA_COMPILER_VERSION}, architectures ${CMAKE_CUDA_ARCHITECTURES}")
  else()
    _sampan_module_off(CUDA "nvcc not found"
      "Install the CUDA toolkit, or point CUDACXX (or -DCMAKE_CUDA_COMPILER) at nvcc.")
  endif()
endif()

# ---------------------------------------------------------------------------------------------
# ccache (after CUDA, so that nvcc goes through it too)
# ---------------------------------------------------------------------------------------------
set(_sampan_launcher "none")
if(SAMPAN_USE_CCACHE)
  find_program(SAMPAN_CCACHE_EXECUTABLE ccache DOC "ccache used as compiler launcher")
  mark_as_advanced(SAMPAN_CCACHE_EXECUTABLE)
  if(SAMPAN_CCACHE_EXECUTABLE)
    # A launcher script rather than ccache itself: it carries CCACHE_DIR and CCACHE_BASEDIR, which
    # `make` exports but a plain `cmake --build` would not (a fresh clone then missed the cache).
    set(SAMPAN_CCACHE_DEFAULT_DIR "$ENV{HOME}/.cache/sampan-ccache")
    set(_sampan_ccache_launcher "${PROJECT_BINARY_DIR}/ccache_launcher.sh")
    configure_file("${CMAKE_CURRENT_LIST_DIR}/ccache_launcher.sh.in" "${_sampan_ccache_launcher}"
                   @ONLY FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
                   GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
    get_property(_sampan_languages GLOBAL PROPERTY ENABLED_LANGUAGES)
    foreach(_lang IN ITEMS C CXX CUDA)
      if(_lang IN_LIST _sampan_languages AND NOT CMAKE_${_lang}_COMPILER_LAUNCHER)
        set(CMAKE_${_lang}_COMPILER_LAUNCHER "${_sampan_ccache_launcher}")
      endif()
    endforeach()
  endif()
endif()
if(CMAKE_CXX_COMPILER_LAUNCHER)
  set(_sampan_launcher "${CMAKE_CXX_COMPILER_LAUNCHER}")
endif()

# ---------------------------------------------------------------------------------------------
# MPI
# ---------------------------------------------------------------------------------------------
_sampan_module_option(MPI "Build the MPI communicator and distributed drivers")
if(_sampan_MPI_mode STREQUAL "OFF")
  _sampan_module_off(MPI "disabled with -DSAMPAN_WITH_MPI=OFF" "")
else()
  # Ask FindMPI for the implementation's name and version (a small try_run), for the summary.
  set(MPI_DETERMINE_LIBRARY_VERSION TRUE)
  # sampan calls MPI's C API: do not link the C++ bindings (deprecated since MPI 2.2).
  if(NOT DEFINED MPI_CXX_SKIP_MPICXX)
    set(MPI_CXX_SKIP_MPICXX ON CACHE BOOL "Do not use MPI's deprecated C++ bindings")
  endif()
  find_package(MPI COMPONENTS CXX QUIET)
  if(MPI_CXX_FOUND)
    # "Open MPI v4.1.4, package: Debian OpenMPI, ..." -> "Open MPI 4.1.4"
    set(_sampan_mpi_impl "MPI")
    if(MPI_CXX_LIBRARY_VERSION_STRING MATCHES "^(Open MPI) v?([0-9][0-9.]*)")
      set(_sampan_mpi_impl "${CMAKE_MATCH_1} ${CMAKE_MATCH_2}")
    elseif(MPI_CXX_LIBRARY_VERSION_STRING MATCHES "^(MPICH|Intel\\(R\\) MPI)[^0-9]*([0-9][0-9.]*)")
      set(_sampan_mpi_impl "${CMAKE_MATCH_1} ${CMAKE_MATCH_2}")
    endif()
    _sampan_module_on(MPI "${_sampan_mpi_impl}, MPI standard ${MPI_CXX_VERSION}")
  else()
    _sampan_module_off(MPI "no MPI C++ library found"
      "On Debian: apt-get install libopenmpi-dev openmpi-bin")
  endif()
endif()

# ---------------------------------------------------------------------------------------------
# RDKit (cmake/FindRDKit.cmake: Debian's librdkit-dev has no CMake configuration)
# ---------------------------------------------------------------------------------------------
_sampan_module_option(RDKIT "Build helix's RDKit featurization")
if(_sampan_RDKIT_mode STREQUAL "OFF")
  _sampan_module_off(RDKIT "disabled with -DSAMPAN_WITH_RDKIT=OFF" "")
else()
  find_package(RDKit QUIET)
  if(RDKit_FOUND)
    _sampan_module_on(RDKIT "RDKit ${RDKit_VERSION}, ${RDKit_INCLUDE_DIR}")
  else()
    set(_sampan_rdkit_missing "")
    foreach(_comp IN LISTS RDKit_FIND_COMPONENTS)
      if(RDKit_FIND_REQUIRED_${_comp} AND NOT RDKit_${_comp}_FOUND)
        list(APPEND _sampan_rdkit_missing ${_comp})
      endif()
    endforeach()
    if(NOT RDKit_INCLUDE_DIR)
      set(_sampan_rdkit_reason "RDKit headers (GraphMol/ROMol.h) not found")
    else()
      list(JOIN _sampan_rdkit_missing ", " _sampan_rdkit_missing)
      set(_sampan_rdkit_reason "RDKit libraries not found: ${_sampan_rdkit_missing}")
    endif()
    _sampan_module_off(RDKIT "${_sampan_rdkit_reason}"
      "On Debian: apt-get install librdkit-dev rdkit-data; elsewhere set RDKit_ROOT.")
  endif()
endif()

# ---------------------------------------------------------------------------------------------
# LAMMPS (Debian's liblammps-dev ships LAMMPSConfig.cmake; its library is built with MPI)
# ---------------------------------------------------------------------------------------------
_sampan_module_option(LAMMPS "Build the LAMMPS pair style and sampan-lmp")
if(_sampan_LAMMPS_mode STREQUAL "OFF")
  _sampan_module_off(LAMMPS "disabled with -DSAMPAN_WITH_LAMMPS=OFF" "")
elseif(NOT SAMPAN_HAVE_MPI)
  _sampan_module_off(LAMMPS "it runs under MPI, which is off (${_sampan_MPI_detail})"
    "Enable MPI first (apt-get install libopenmpi-dev openmpi-bin).")
else()
  # Debian's liblammps-dev config names /usr/bin/lmp (package lammps) and stops the configure
  # when it is missing: probe it in a child CMake first (cmake/sampan_config_probe.cmake).
  sampan_probe_config_package(LAMMPS _sampan_lammps_loads _sampan_lammps_missing)
  if(_sampan_lammps_loads)
    find_package(LAMMPS CONFIG QUIET)
  endif()
  if(NOT _sampan_lammps_loads)
    if(_sampan_lammps_missing MATCHES "/bin/lmp$")
      set(_sampan_hint "On Debian it comes with the package lammps: apt-get install lammps")
    elseif(_sampan_lammps_missing)
      set(_sampan_hint "Install the package that provides it (Debian: apt-file search ${_sampan_lammps_missing})")
    else()
      set(_sampan_hint "Loading it failed with: ${_sampan_lammps_loads_ERROR}")
    endif()
    if(_sampan_lammps_missing)
      set(_sampan_reason "LAMMPS's CMake configuration references ${_sampan_lammps_missing}, which does not exist")
    else()
      set(_sampan_reason "LAMMPS's CMake configuration fails to load")
    endif()
    # The reason carries the hint too, so the summary's warning names the package to install.
    _sampan_module_off(LAMMPS "${_sampan_reason}. ${_sampan_hint}" "${_sampan_hint}.")
  elseif(LAMMPS_FOUND AND TARGET LAMMPS::lammps)
    _sampan_module_on(LAMMPS "LAMMPS ${LAMMPS_VERSION}")
  else()
    _sampan_module_off(LAMMPS "no LAMMPSConfig.cmake found"
      "On Debian: apt-get install liblammps-dev; elsewhere set LAMMPS_DIR to its cmake folder.")
  endif()
endif()

# ---------------------------------------------------------------------------------------------
# Always required
# ---------------------------------------------------------------------------------------------
find_package(Eigen3 3.3 CONFIG REQUIRED)           # Eigen3::Eigen
find_package(OpenMP REQUIRED COMPONENTS CXX)       # OpenMP::OpenMP_CXX

# The serial HDF5 library (Debian: /usr/include/hdf5/serial), also where MPI is on: checkpoints
# are written by one rank.
set(HDF5_PREFER_PARALLEL FALSE)
find_package(HDF5 REQUIRED COMPONENTS C)           # hdf5::hdf5

# Python: the interpreter of the project's .venv where there is one and none was named, so that
# the extension module matches the Python that the tests and notebooks run.
if(NOT DEFINED Python3_EXECUTABLE AND EXISTS "${PROJECT_SOURCE_DIR}/.venv/bin/python")
  set(Python3_EXECUTABLE "${PROJECT_SOURCE_DIR}/.venv/bin/python")
endif()
find_package(Python3 REQUIRED COMPONENTS Interpreter Development.Module)
# Found after Python3, pybind11 uses that interpreter (its FindPython mode).
find_package(pybind11 CONFIG REQUIRED)             # pybind11_add_module, pybind11::module

# BLAS, after Python because the optional one lives in the project's Python environment.
# SAMPAN_BLAS = system (default): the system's (Debian's OpenBLAS); scipy-openblas: PyPI's
#   scipy-openblas32 wheel from the Python above, or a configure error; AUTO: the wheel when that
#   Python has it, else the system's with a warning in the summary.
# Why system by default: measured in one run (bench/matmul_vs_numpy.py --system-openblas), Debian
# 12's OpenBLAS 0.3.21 is 0.96-1.02 of the 0.3.3x that PyPI's NumPy ships on this Sapphire Rapids
# CPU (both pick the SkylakeX kernels), so the wheel buys no speed for a C++ library tied to one
# virtual environment. The wheel's names are prefixed (scipy_cblas_sgemm), so it never clashes
# with NumPy's copy or Debian's in one process; framework/src/kernels/blas_api.h maps the names.
# Everything reaches the BLAS through the INTERFACE target sampan::blas (include folder, library
# with its folder on the RPATH, the SAMPAN_BLAS_SCIPY_OPENBLAS define).
set(SAMPAN_BLAS system CACHE STRING "BLAS behind matmul: system, scipy-openblas or AUTO")
set_property(CACHE SAMPAN_BLAS PROPERTY STRINGS AUTO scipy-openblas system)
if(NOT SAMPAN_BLAS MATCHES "^(AUTO|scipy-openblas|system)$")
  message(FATAL_ERROR "SAMPAN_BLAS is '${SAMPAN_BLAS}'; expected AUTO, scipy-openblas or system.")
endif()
add_library(sampan_blas INTERFACE)
add_library(sampan::blas ALIAS sampan_blas)
set(SAMPAN_BLAS_KIND "system")
set(_sampan_blas_why "SAMPAN_BLAS=system")
if(NOT SAMPAN_BLAS STREQUAL "system")
  execute_process(
    COMMAND "${Python3_EXECUTABLE}" -c
      "import scipy_openblas32 as s; print(s.get_include_dir()); print(s.get_lib_dir()); print(s.get_library()); print(s.__version__)"
    RESULT_VARIABLE _sampan_wheel_rc OUTPUT_VARIABLE _sampan_wheel_out ERROR_VARIABLE _sampan_wheel_err
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(_sampan_blas_why "scipy-openblas32 is not importable by ${Python3_EXECUTABLE}")
  if(_sampan_wheel_rc EQUAL 0)
    string(REPLACE "\n" ";" _sampan_wheel_out "${_sampan_wheel_out}")
    list(GET _sampan_wheel_out 0 _sampan_wheel_include)
    list(GET _sampan_wheel_out 1 _sampan_wheel_libdir)
    list(GET _sampan_wheel_out 2 _sampan_wheel_libname)
    list(GET _sampan_wheel_out 3 SAMPAN_BLAS_VERSION)
    set(SAMPAN_BLAS_LIBRARY "${_sampan_wheel_libdir}/lib${_sampan_wheel_libname}${CMAKE_SHARED_LIBRARY_SUFFIX}")
    if(EXISTS "${SAMPAN_BLAS_LIBRARY}" AND EXISTS "${_sampan_wheel_include}/cblas.h")
      set(SAMPAN_BLAS_KIND "scipy-openblas")
      set(SAMPAN_HAVE_CBLAS TRUE)
      # The library by full path: CMake puts its folder on the build RPATH of whatever links it
      # (libsampan_core, so the Python module, the LAMMPS plugin and the C++ tools find it).
      target_link_libraries(sampan_blas INTERFACE "${SAMPAN_BLAS_LIBRARY}")
      target_include_directories(sampan_blas INTERFACE "${_sampan_wheel_include}")
      target_compile_definitions(sampan_blas INTERFACE SAMPAN_BLAS_SCIPY_OPENBLAS=1)
    else()
      set(_sampan_blas_why "scipy-openblas32 ${SAMPAN_BLAS_VERSION} has no ${SAMPAN_BLAS_LIBRARY} or cblas.h")
    endif()
  endif()
  if(SAMPAN_BLAS STREQUAL "scipy-openblas" AND NOT SAMPAN_BLAS_KIND STREQUAL "scipy-openblas")
    message(FATAL_ERROR "SAMPAN_BLAS=scipy-openblas, but ${_sampan_blas_why} ${_sampan_wheel_err}"
      "Install it with: ${Python3_EXECUTABLE} -m pip install scipy-openblas32, "
      "or configure with -DSAMPAN_BLAS=system.")
  endif()
endif()
if(SAMPAN_BLAS_KIND STREQUAL "system")
  if(DEFINED BLA_VENDOR)
    find_package(BLAS REQUIRED)
  else()
    set(BLA_VENDOR OpenBLAS)
    find_package(BLAS QUIET)
    if(NOT BLAS_FOUND)
      message(STATUS "OpenBLAS not found; looking for any BLAS")
      unset(BLA_VENDOR)
      find_package(BLAS REQUIRED)
    endif()
  endif()
  set(_sampan_blas_vendor "${BLA_VENDOR}")
  if(NOT _sampan_blas_vendor)
    set(_sampan_blas_vendor "generic")
  endif()
  # The C interface header. Debian puts cblas.h in /usr/include/<multiarch>/ (found here as such).
  find_path(SAMPAN_CBLAS_INCLUDE_DIR cblas.h PATH_SUFFIXES openblas DOC "folder holding cblas.h")
  mark_as_advanced(SAMPAN_CBLAS_INCLUDE_DIR)
  if(SAMPAN_CBLAS_INCLUDE_DIR)
    set(SAMPAN_HAVE_CBLAS TRUE)
    if(TARGET BLAS::BLAS)
      set_property(TARGET BLAS::BLAS APPEND PROPERTY
        INTERFACE_INCLUDE_DIRECTORIES "${SAMPAN_CBLAS_INCLUDE_DIR}")
    endif()
  else()
    set(SAMPAN_HAVE_CBLAS FALSE)
  endif()

  if(TARGET BLAS::BLAS)
    target_link_libraries(sampan_blas INTERFACE BLAS::BLAS)
  endif()
endif()

# ---------------------------------------------------------------------------------------------
# Test and benchmark frameworks (optional)
# ---------------------------------------------------------------------------------------------
find_package(GTest QUIET)                          # GTest::gtest, GTest::gtest_main, GTest::gmock
if(GTest_FOUND OR GTEST_FOUND)
  set(SAMPAN_HAVE_GTEST TRUE)
else()
  set(SAMPAN_HAVE_GTEST FALSE)
  if(SAMPAN_BUILD_TESTS)
    message(WARNING "sampan: GoogleTest not found, so the C++ tests are not built "
      "(On Debian: apt-get install libgtest-dev libgmock-dev).")
    set(SAMPAN_BUILD_TESTS OFF)  # shadows the cache option for this configure run
  endif()
endif()
find_package(benchmark CONFIG QUIET)               # benchmark::benchmark
if(benchmark_FOUND)
  set(SAMPAN_HAVE_BENCHMARK TRUE)
else()
  set(SAMPAN_HAVE_BENCHMARK FALSE)
  message(WARNING "sampan: Google Benchmark not found, so the C++ benchmarks are not built "
    "(On Debian: apt-get install libbenchmark-dev).")
endif()

# ---------------------------------------------------------------------------------------------
# Summary
# ---------------------------------------------------------------------------------------------

# Prints what is built and with what, then one warning for every module that is left out.
# Called at the end of the top-level CMakeLists.txt.
function(sampan_print_summary)
  set(modules CUDA MPI RDKIT LAMMPS)
  set(label_CUDA "CUDA")
  set(label_MPI "MPI")
  set(label_RDKIT "RDKit")
  set(label_LAMMPS "LAMMPS")
  set(effect_CUDA "GPU kernels are not built; every op runs on the CPU and GPU tests skip")
  set(effect_MPI "distributed training, the distributed quantum state and LAMMPS are not built")
  set(effect_RDKIT "helix cannot featurize molecules (SMILES/SDF input) in C++")
  set(effect_LAMMPS "the sampan/deepmd pair style and sampan-lmp are not built")

  message(STATUS "sampan configuration summary")
  message(STATUS "  build type : ${CMAKE_BUILD_TYPE}")
  message(STATUS "  compiler   : ${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION} (launcher: ${_sampan_launcher})")
  foreach(module IN LISTS modules)
    string(SUBSTRING "${label_${module}}          " 0 10 label)
    if(SAMPAN_HAVE_${module})
      message(STATUS "  ${label} : ON (${_sampan_${module}_detail})")
    else()
      message(STATUS "  ${label} : OFF (${_sampan_${module}_detail})")
    endif()
  endforeach()
  if(SAMPAN_BLAS_KIND STREQUAL "scipy-openblas")
    message(STATUS "  BLAS       : scipy-openblas32 ${SAMPAN_BLAS_VERSION}: ${SAMPAN_BLAS_LIBRARY}")
  else()
    list(JOIN BLAS_LIBRARIES " " blas_libraries)
    message(STATUS "  BLAS       : system ${_sampan_blas_vendor}: ${blas_libraries} (cblas.h: ${SAMPAN_HAVE_CBLAS})")
    if(SAMPAN_BLAS STREQUAL "AUTO")
      message(STATUS "               (SAMPAN_BLAS=AUTO: ${_sampan_blas_why})")
    endif()
  endif()
  message(STATUS "  bf16 GEMM  : ${SAMPAN_BF16_GEMM_DETAIL}")
  message(STATUS "  Eigen      : ${Eigen3_VERSION}")
  message(STATUS "  OpenMP     : ${OpenMP_CXX_VERSION}")
  if(HDF5_IS_PARALLEL)
    set(hdf5_kind "parallel")
  else()
    set(hdf5_kind "serial")
  endif()
  message(STATUS "  HDF5       : ${HDF5_VERSION} (${hdf5_kind})")
  message(STATUS "  Python     : ${Python3_VERSION} (${Python3_EXECUTABLE}), pybind11 ${pybind11_VERSION}")
  if(SAMPAN_BUILD_TESTS)
    message(STATUS "  C++ tests  : ON (GoogleTest)")
  else()
    message(STATUS "  C++ tests  : OFF")
  endif()
  if(SAMPAN_HAVE_BENCHMARK)
    message(STATUS "  benchmarks : Google Benchmark ${benchmark_VERSION}")
  else()
    message(STATUS "  benchmarks : Google Benchmark not found")
  endif()

  foreach(module IN LISTS modules)
    if(NOT SAMPAN_HAVE_${module})
      message(WARNING "sampan: ${label_${module}} is OFF: ${_sampan_${module}_detail}. "
        "Effect: ${effect_${module}}.")
    endif()
  endforeach()
endfunction()
