# sampan_op_library.cmake: build op libraries (shared objects that register ops with SAMPAN_OP)
# and keep ONE record of the flags they are compiled with.
#
#   sampan_add_op_library(<name> SOURCES a.cpp b.cpp [CUDA_SOURCES k.cu ...] [OUTPUT_DIRECTORY dir])
#
# builds lib<name>.so against sampan: -O3, C++17, -fPIC, OpenMP, sampan's public headers
# (framework/include) and SAMPAN_ABI_VERSION, linked to libsampan_core.so.
# Load it with `sampan::load_op_library(path)` in C++ or `sp.load_op_library(path)` in Python.
# CUDA_SOURCES are compiled with nvcc, and SAMPAN_CUDA_KERNELS=1 is defined for every source of
# the library, only where the CUDA language is enabled in the calling project; elsewhere they are
# skipped with a status message and the library has its CPU kernels only. A `.cu` file listed in
# SOURCES is an op in one file (its CUDA parts under `#if defined(__CUDACC__)`): compiled with
# nvcc where CUDA is enabled, and as C++ elsewhere (docs/examples/morse/morse_op.cu).
#
# The single flag record
# ----------------------
# sampan's own configure writes python/sampan/_build_config.json (git-ignored): compiler, flags,
# include directories, definitions, link flags, the core library and the CUDA settings. This
# function reads its flags from that file, and so does the just-in-time loader
# (python/sampan/utils/cpp_extension.py), which runs the recorded compiler with the recorded flags:
# an op library built ahead of time and one built just in time cannot diverge. CMake puts its own
# per-configuration flags (CMAKE_CXX_FLAGS_<CONFIG>) before the recorded ones, so -O3 holds in any
# build type.
#
# Use from another CMake project
# ------------------------------
# sampan's configure also writes <sampan build dir>/sampan-config.cmake, so:
#
#   cmake_minimum_required(VERSION 3.22)
#   project(my_ops LANGUAGES CXX)
#   include(CheckLanguage)                       # optional: only for CUDA_SOURCES
#   check_language(CUDA)
#   if(CMAKE_CUDA_COMPILER)
#     enable_language(CUDA)
#   endif()
#   find_package(sampan CONFIG REQUIRED)         # -Dsampan_DIR=<sampan build dir>, or an installed
#                                                # package: docs/install.md
#   sampan_add_op_library(my_ops SOURCES my_op.cpp CUDA_SOURCES my_kernels.cu)
#
# examples/lennard_jones/CMakeLists.txt is such a project when configured on its own.
include_guard(GLOBAL)

# Where the record lives: next to the Python package's _C module and libsampan_core.so, which is
# where the JIT looks. A package config sets SAMPAN_BUILD_CONFIG_JSON before including this file.
if(NOT SAMPAN_BUILD_CONFIG_JSON)
  set(SAMPAN_BUILD_CONFIG_JSON "${CMAKE_CURRENT_LIST_DIR}/../python/sampan/_build_config.json")
  get_filename_component(SAMPAN_BUILD_CONFIG_JSON "${SAMPAN_BUILD_CONFIG_JSON}" ABSOLUTE)
endif()

# True inside sampan's own build (this file included from its top-level CMakeLists.txt).
if(TARGET sampan_core OR (PROJECT_NAME STREQUAL "sampan" AND DEFINED SAMPAN_ABI_VERSION))
  set(_SAMPAN_IN_TREE TRUE)
else()
  set(_SAMPAN_IN_TREE FALSE)
endif()

# ---------------------------------------------------------------------------------------------
# JSON helpers
# ---------------------------------------------------------------------------------------------

# _sampan_json_array(<out> items...): a JSON array of strings.
function(_sampan_json_array out)
  set(items "")
  foreach(v IN LISTS ARGN)
    string(REPLACE "\\" "\\\\" v "${v}")
    string(REPLACE "\"" "\\\"" v "${v}")
    list(APPEND items "\"${v}\"")
  endforeach()
  list(JOIN items ", " joined)
  set(${out} "[${joined}]" PARENT_SCOPE)
endfunction()

# _sampan_json_string(<out> value): a JSON string.
function(_sampan_json_string out value)
  string(REPLACE "\\" "\\\\" value "${value}")
  string(REPLACE "\"" "\\\"" value "${value}")
  set(${out} "\"${value}\"" PARENT_SCOPE)
endfunction()

# _sampan_json_get_list(<out> <json> key...): the JSON array at key... as a CMake list.
function(_sampan_json_get_list out json)
  string(JSON n ERROR_VARIABLE err LENGTH "${json}" ${ARGN})
  set(result "")
  if(NOT err AND n GREATER 0)
    math(EXPR last "${n} - 1")
    foreach(i RANGE ${last})
      string(JSON item GET "${json}" ${ARGN} ${i})
      list(APPEND result "${item}")
    endforeach()
  endif()
  set(${out} "${result}" PARENT_SCOPE)
endfunction()

# ---------------------------------------------------------------------------------------------
# Writing the record (sampan's own build only)
# ---------------------------------------------------------------------------------------------

# Writes SAMPAN_BUILD_CONFIG_JSON and <build>/sampan-config.cmake once per configure (the files
# are rewritten only when their content changes, so nothing downstream rebuilds needlessly).
# Runs when sampan_core exists: lazily from sampan_add_op_library, and deferred to the end of
# the top-level directory for a build that adds no op library.
function(_sampan_write_build_config)
  get_property(done GLOBAL PROPERTY _SAMPAN_BUILD_CONFIG_WRITTEN)
  if(done OR NOT TARGET sampan_core)
    return()
  endif()
  set_property(GLOBAL PROPERTY _SAMPAN_BUILD_CONFIG_WRITTEN TRUE)

  # The flags an op library is compiled with. -O3 -DNDEBUG match sampan's Release build; OpenMP
  # because kernels use it and libsampan_core.so links libgomp.
  separate_arguments(openmp_flags UNIX_COMMAND "${OpenMP_CXX_FLAGS}")
  set(cxx_flags -O3 -DNDEBUG -std=c++17 -fPIC ${openmp_flags})
  set(link_flags -shared ${openmp_flags})
  set(include_dirs "${PROJECT_SOURCE_DIR}/framework/include")
  set(definitions "SAMPAN_ABI_VERSION=${SAMPAN_ABI_VERSION}")
  get_target_property(core_dir sampan_core LIBRARY_OUTPUT_DIRECTORY)
  if(NOT core_dir)
    set(core_dir "${CMAKE_BINARY_DIR}")
  endif()
  set(core_library
      "${core_dir}/${CMAKE_SHARED_LIBRARY_PREFIX}sampan_core${CMAKE_SHARED_LIBRARY_SUFFIX}")

  _sampan_json_array(j_cxx_flags ${cxx_flags})
  _sampan_json_array(j_link_flags ${link_flags})
  _sampan_json_array(j_include_dirs ${include_dirs})
  _sampan_json_array(j_definitions ${definitions})
  _sampan_json_string(j_compiler "${CMAKE_CXX_COMPILER}")
  _sampan_json_string(j_core "${core_library}")

  # CUDA: nvcc and the architectures sampan itself is built for (the JIT prefers the GPUs it
  # detects and falls back to these).
  if(SAMPAN_HAVE_CUDA AND CMAKE_CUDA_COMPILER)
    set(cudart "")
    if(TARGET CUDA::cudart)
      get_target_property(cudart CUDA::cudart IMPORTED_LOCATION)
    endif()
    if(NOT cudart AND CUDAToolkit_LIBRARY_DIR)
      set(cudart "${CUDAToolkit_LIBRARY_DIR}/libcudart.so")
    endif()
    set(cuda_flags -O3 -DNDEBUG -std=c++17 -Xcompiler=-fPIC)
    _sampan_json_array(j_cuda_flags ${cuda_flags})
    _sampan_json_array(j_cuda_arch ${CMAKE_CUDA_ARCHITECTURES})
    _sampan_json_string(j_nvcc "${CMAKE_CUDA_COMPILER}")
    _sampan_json_string(j_cudart "${cudart}")
    set(j_cuda "{\"available\": true, \"nvcc\": ${j_nvcc}, \"version\": \"${CMAKE_CUDA_COMPILER_VERSION}\", \"flags\": ${j_cuda_flags}, \"architectures\": ${j_cuda_arch}, \"cudart\": ${j_cudart}}")
  else()
    set(j_cuda "{\"available\": false}")
  endif()

  set(json "{
  \"comment\": \"Written by sampan's CMake configure (cmake/sampan_op_library.cmake); read by sampan_add_op_library() and sampan.utils.cpp_extension. Do not edit: reconfigure.\",
  \"sampan_version\": \"${sampan_VERSION}\",
  \"abi_version\": ${SAMPAN_ABI_VERSION},
  \"cxx_compiler\": ${j_compiler},
  \"cxx_compiler_id\": \"${CMAKE_CXX_COMPILER_ID}\",
  \"cxx_compiler_version\": \"${CMAKE_CXX_COMPILER_VERSION}\",
  \"cxx_flags\": ${j_cxx_flags},
  \"include_dirs\": ${j_include_dirs},
  \"definitions\": ${j_definitions},
  \"link_flags\": ${j_link_flags},
  \"core_library\": ${j_core},
  \"cuda\": ${j_cuda}
}
")
  set(old "")
  if(EXISTS "${SAMPAN_BUILD_CONFIG_JSON}")
    file(READ "${SAMPAN_BUILD_CONFIG_JSON}" old)
  endif()
  if(NOT old STREQUAL json)
    file(WRITE "${SAMPAN_BUILD_CONFIG_JSON}" "${json}")
  endif()

  set(_sampan_nvcc "")
  if(SAMPAN_HAVE_CUDA AND CMAKE_CUDA_COMPILER)
    set(_sampan_nvcc "${CMAKE_CUDA_COMPILER}")
  endif()
  # The package configuration for other CMake projects: find_package(sampan) with
  # sampan_DIR=<this build folder>.
  file(CONFIGURE OUTPUT "${CMAKE_BINARY_DIR}/sampan-config.cmake" @ONLY CONTENT
"# sampan package configuration (written by sampan's configure): provides sampan::core and
# sampan_add_op_library(). Use: find_package(sampan CONFIG REQUIRED) with sampan_DIR=@CMAKE_BINARY_DIR@
set(SAMPAN_BUILD_CONFIG_JSON \"@SAMPAN_BUILD_CONFIG_JSON@\")
# The nvcc sampan was built with, for a later check_language(CUDA) / enable_language(CUDA).
if(NOT DEFINED CMAKE_CUDA_COMPILER AND \"\$ENV{CUDACXX}\" STREQUAL \"\" AND EXISTS \"@_sampan_nvcc@\")
  set(ENV{CUDACXX} \"@_sampan_nvcc@\")
endif()
include(\"@PROJECT_SOURCE_DIR@/cmake/sampan_op_library.cmake\")
")
  include(CMakePackageConfigHelpers)
  write_basic_package_version_file("${CMAKE_BINARY_DIR}/sampan-config-version.cmake"
    VERSION ${sampan_VERSION} COMPATIBILITY SameMinorVersion)
endfunction()

if(_SAMPAN_IN_TREE)
  cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _sampan_write_build_config)
endif()

# ---------------------------------------------------------------------------------------------
# Reading the record
# ---------------------------------------------------------------------------------------------

# Reads the record into _SAMPAN_OPLIB_* variables of the caller.
macro(_sampan_read_build_config)
  if(NOT EXISTS "${SAMPAN_BUILD_CONFIG_JSON}")
    message(FATAL_ERROR
      "sampan_add_op_library: sampan's build record ${SAMPAN_BUILD_CONFIG_JSON} does not exist; "
      "configure sampan first (cmake -S <sampan> -B <build>), it writes that file.")
  endif()
  file(READ "${SAMPAN_BUILD_CONFIG_JSON}" _sampan_json)
  _sampan_json_get_list(_SAMPAN_OPLIB_CXX_FLAGS "${_sampan_json}" cxx_flags)
  _sampan_json_get_list(_SAMPAN_OPLIB_INCLUDE_DIRS "${_sampan_json}" include_dirs)
  _sampan_json_get_list(_SAMPAN_OPLIB_DEFINITIONS "${_sampan_json}" definitions)
  _sampan_json_get_list(_SAMPAN_OPLIB_LINK_FLAGS "${_sampan_json}" link_flags)
  _sampan_json_get_list(_SAMPAN_OPLIB_CUDA_FLAGS "${_sampan_json}" cuda flags)
  _sampan_json_get_list(_SAMPAN_OPLIB_CUDA_ARCH "${_sampan_json}" cuda architectures)
  string(JSON _SAMPAN_OPLIB_CORE GET "${_sampan_json}" core_library)
  string(JSON _SAMPAN_OPLIB_ABI GET "${_sampan_json}" abi_version)
  string(JSON _SAMPAN_OPLIB_COMPILER_ID GET "${_sampan_json}" cxx_compiler_id)
  # The installed record (cmake/sampan_install_record.cmake) names its files relative to its own
  # folder, so that the installed package can sit anywhere; the build's record names them absolute.
  get_filename_component(_sampan_json_dir "${SAMPAN_BUILD_CONFIG_JSON}" DIRECTORY)
  set(_sampan_dirs "")
  foreach(_sampan_dir IN LISTS _SAMPAN_OPLIB_INCLUDE_DIRS)
    if(NOT IS_ABSOLUTE "${_sampan_dir}")
      set(_sampan_dir "${_sampan_json_dir}/${_sampan_dir}")
    endif()
    list(APPEND _sampan_dirs "${_sampan_dir}")
  endforeach()
  set(_SAMPAN_OPLIB_INCLUDE_DIRS ${_sampan_dirs})
  if(NOT IS_ABSOLUTE "${_SAMPAN_OPLIB_CORE}")
    set(_SAMPAN_OPLIB_CORE "${_sampan_json_dir}/${_SAMPAN_OPLIB_CORE}")
  endif()
  # -shared is how the JIT links a shared object; CMake's add_library(SHARED) says it itself.
  list(REMOVE_ITEM _SAMPAN_OPLIB_LINK_FLAGS -shared)
endmacro()

# ---------------------------------------------------------------------------------------------
# sampan_add_op_library
# ---------------------------------------------------------------------------------------------
function(sampan_add_op_library name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "OUTPUT_DIRECTORY" "SOURCES;CUDA_SOURCES")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "sampan_add_op_library(${name}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}; "
      "expected SOURCES <files...> [CUDA_SOURCES <files...>] [OUTPUT_DIRECTORY <dir>]")
  endif()
  if(NOT ARG_SOURCES AND NOT ARG_CUDA_SOURCES)
    message(FATAL_ERROR "sampan_add_op_library(${name}): no SOURCES given")
  endif()
  if(_SAMPAN_IN_TREE)
    _sampan_write_build_config()
  endif()
  _sampan_read_build_config()
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL _SAMPAN_OPLIB_COMPILER_ID)
    message(WARNING "sampan_add_op_library(${name}): sampan was built with ${_SAMPAN_OPLIB_COMPILER_ID}, "
      "this project compiles with ${CMAKE_CXX_COMPILER_ID}; the recorded flags are GCC-style.")
  endif()

  # CUDA sources only where this project has the CUDA language enabled.
  set(cuda_sources "")
  if(ARG_CUDA_SOURCES)
    get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
    if("CUDA" IN_LIST languages AND CMAKE_CUDA_COMPILER)
      set(cuda_sources ${ARG_CUDA_SOURCES})
    else()
      message(STATUS "sampan_add_op_library(${name}): CUDA is not enabled in this project (no nvcc, "
        "or no enable_language(CUDA)); ${ARG_CUDA_SOURCES} skipped, CPU kernels only")
    endif()
  endif()

  # .cu files among SOURCES: nvcc where CUDA is enabled, else compiled as C++.
  set(one_file_ops "")
  foreach(src IN LISTS ARG_SOURCES)
    if(src MATCHES "\\.cu$")
      list(APPEND one_file_ops "${src}")
    endif()
  endforeach()
  if(one_file_ops)
    get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
    if("CUDA" IN_LIST languages AND CMAKE_CUDA_COMPILER)
      list(APPEND cuda_sources ${one_file_ops})
      list(REMOVE_ITEM ARG_SOURCES ${one_file_ops})
    else()
      set_source_files_properties(${one_file_ops} PROPERTIES LANGUAGE CXX COMPILE_OPTIONS "-xc++")
    endif()
  endif()

  add_library(${name} SHARED ${ARG_SOURCES} ${cuda_sources})
  target_compile_options(${name} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:${_SAMPAN_OPLIB_CXX_FLAGS}>")
  target_include_directories(${name} PRIVATE ${_SAMPAN_OPLIB_INCLUDE_DIRS})
  target_compile_definitions(${name} PRIVATE ${_SAMPAN_OPLIB_DEFINITIONS})
  target_link_options(${name} PRIVATE ${_SAMPAN_OPLIB_LINK_FLAGS})
  # The standard is in the recorded flags; keep CMake from adding -std=gnu++17 in front of it.
  set_target_properties(${name} PROPERTIES
    CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF
    POSITION_INDEPENDENT_CODE ON)
  if(ARG_OUTPUT_DIRECTORY)
    set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${ARG_OUTPUT_DIRECTORY}")
  endif()

  # libsampan_core.so: the registry the library's static initializers register into. Inside
  # sampan's build the target (for build order), elsewhere the recorded file.
  get_filename_component(core_dir "${_SAMPAN_OPLIB_CORE}" DIRECTORY)
  if(TARGET sampan_core)
    target_link_libraries(${name} PRIVATE sampan_core)
  else()
    if(NOT EXISTS "${_SAMPAN_OPLIB_CORE}")
      message(FATAL_ERROR "sampan_add_op_library(${name}): ${_SAMPAN_OPLIB_CORE} does not exist; "
        "build sampan first.")
    endif()
    if(NOT TARGET sampan::core)
      add_library(sampan::core SHARED IMPORTED)
      set_target_properties(sampan::core PROPERTIES IMPORTED_LOCATION "${_SAMPAN_OPLIB_CORE}")
    endif()
    target_link_libraries(${name} PRIVATE sampan::core)
  endif()
  set_target_properties(${name} PROPERTIES BUILD_RPATH "${core_dir}")

  if(cuda_sources)
    target_compile_options(${name} PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:${_SAMPAN_OPLIB_CUDA_FLAGS}>")
    target_compile_definitions(${name} PRIVATE SAMPAN_CUDA_KERNELS=1)
    set_target_properties(${name} PROPERTIES
      CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON CUDA_RUNTIME_LIBRARY Shared)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND _SAMPAN_OPLIB_CUDA_ARCH)
      set_target_properties(${name} PROPERTIES CUDA_ARCHITECTURES "${_SAMPAN_OPLIB_CUDA_ARCH}")
    endif()
    if(NOT TARGET CUDA::cudart)
      find_package(CUDAToolkit REQUIRED)
    endif()
    target_link_libraries(${name} PRIVATE CUDA::cudart)
  endif()
endfunction()
