# FindRDKit
# ---------
# Finds the RDKit C++ libraries. Debian's librdkit-dev ships headers (/usr/include/rdkit) and
# libraries (/usr/lib/libRDKit<Name>.so) but no CMake package configuration, hence this module.
#
#   find_package(RDKit [version] [COMPONENTS <Name>...])
#
# Components are RDKit library names without the "RDKit" prefix (GraphMol, SmilesParse ...).
# Without COMPONENTS the set that sampan's helix module uses is looked for: GraphMol,
# SmilesParse, FileParsers, Descriptors, MolDraw2D, ChemTransforms, RDGeneral, DataStructs,
# SubstructMatch, and RingDecomposerLib where the installation has it as a library of its own
# (some builds link it into GraphMol).
#
# Result variables:
#   RDKit_FOUND, RDKit_VERSION (e.g. 2022.09.3, read from the shared library's file name since
#   Debian's RDGeneral/versions.h is shipped unconfigured), RDKit_INCLUDE_DIRS, RDKit_LIBRARIES,
#   RDKit_<Name>_FOUND, RDKit_<Name>_LIBRARY.
# Imported targets:
#   RDKit::<Name> for each component found, and RDKit::RDKit, an INTERFACE target linking all
#   of them (plus Boost's headers, which RDKit's public headers include).
#
# Hints: RDKit_ROOT (CMake or environment variable), or RDBASE / CONDA_PREFIX in the environment.

set(_rdkit_default_components
    GraphMol SmilesParse FileParsers Descriptors MolDraw2D ChemTransforms RDGeneral DataStructs
    SubstructMatch)
set(_rdkit_optional_components RingDecomposerLib)

if(NOT RDKit_FIND_COMPONENTS)
  # As if called with COMPONENTS <defaults> OPTIONAL_COMPONENTS <optional>, so that
  # find_package_handle_standard_args checks them.
  set(RDKit_FIND_COMPONENTS ${_rdkit_default_components} ${_rdkit_optional_components})
  foreach(_comp IN LISTS _rdkit_default_components)
    set(RDKit_FIND_REQUIRED_${_comp} TRUE)
  endforeach()
  foreach(_comp IN LISTS _rdkit_optional_components)
    set(RDKit_FIND_REQUIRED_${_comp} FALSE)
  endforeach()
endif()
set(_rdkit_components ${RDKit_FIND_COMPONENTS})
# RDGeneral carries the version and is needed by everything else.
list(APPEND _rdkit_components RDGeneral)
list(REMOVE_DUPLICATES _rdkit_components)

set(_rdkit_hints $ENV{RDBASE} $ENV{CONDA_PREFIX})

find_path(RDKit_INCLUDE_DIR
  NAMES GraphMol/ROMol.h
  HINTS ${_rdkit_hints}
  PATH_SUFFIXES rdkit include/rdkit Code
  DOC "RDKit include directory (the one holding GraphMol/)")
mark_as_advanced(RDKit_INCLUDE_DIR)

set(RDKit_LIBRARIES "")
foreach(_comp IN LISTS _rdkit_components)
  # RDKit's own CMake names the library RDKit<Name>; a ring-decomposer built outside RDKit is
  # plain libRingDecomposerLib.
  set(_names RDKit${_comp} RDKit${_comp}_static)
  if(_comp STREQUAL "RingDecomposerLib")
    list(APPEND _names RingDecomposerLib)
  endif()
  find_library(RDKit_${_comp}_LIBRARY
    NAMES ${_names}
    HINTS ${_rdkit_hints}
    PATH_SUFFIXES lib lib64
    DOC "RDKit ${_comp} library")
  mark_as_advanced(RDKit_${_comp}_LIBRARY)
  if(RDKit_${_comp}_LIBRARY)
    set(RDKit_${_comp}_FOUND TRUE)
    list(APPEND RDKit_LIBRARIES ${RDKit_${_comp}_LIBRARY})
  else()
    set(RDKit_${_comp}_FOUND FALSE)
  endif()
endforeach()

# Version: from the real file behind libRDKitRDGeneral.so (libRDKitRDGeneral.so.1.2022.09.3),
# else from the conda/pip-style header where it is configured.
unset(RDKit_VERSION)
if(RDKit_RDGeneral_LIBRARY)
  file(REAL_PATH "${RDKit_RDGeneral_LIBRARY}" _rdkit_real)
  get_filename_component(_rdkit_real_name "${_rdkit_real}" NAME)
  if(_rdkit_real_name MATCHES "\\.so\\.[0-9]+\\.([0-9]+\\.[0-9]+\\.[0-9]+)$")
    set(RDKit_VERSION "${CMAKE_MATCH_1}")
  endif()
endif()
if(NOT RDKit_VERSION AND RDKit_INCLUDE_DIR AND EXISTS "${RDKit_INCLUDE_DIR}/RDGeneral/versions.h")
  file(STRINGS "${RDKit_INCLUDE_DIR}/RDGeneral/versions.h" _rdkit_version_line
       REGEX "RDKIT_VERSION_CHECK\\([0-9]+, *[0-9]+, *[0-9]+\\)")
  if(_rdkit_version_line MATCHES "\\(([0-9]+), *([0-9]+), *([0-9]+)\\)")
    set(RDKit_VERSION "${CMAKE_MATCH_1}.${CMAKE_MATCH_2}.${CMAKE_MATCH_3}")
  endif()
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(RDKit
  REQUIRED_VARS RDKit_INCLUDE_DIR RDKit_RDGeneral_LIBRARY
  VERSION_VAR RDKit_VERSION
  HANDLE_COMPONENTS)

if(RDKit_FOUND)
  set(RDKit_INCLUDE_DIRS "${RDKit_INCLUDE_DIR}")
  # Boost headers are part of RDKit's public interface (boost/shared_ptr, boost/dynamic_bitset ...).
  if(NOT TARGET Boost::headers)
    find_package(Boost QUIET)
  endif()
  foreach(_comp IN LISTS _rdkit_components)
    if(RDKit_${_comp}_FOUND AND NOT TARGET RDKit::${_comp})
      add_library(RDKit::${_comp} UNKNOWN IMPORTED)
      set_target_properties(RDKit::${_comp} PROPERTIES
        IMPORTED_LOCATION "${RDKit_${_comp}_LIBRARY}"
        INTERFACE_INCLUDE_DIRECTORIES "${RDKit_INCLUDE_DIR}")
    endif()
  endforeach()
  if(NOT TARGET RDKit::RDKit)
    add_library(RDKit::RDKit INTERFACE IMPORTED)
    foreach(_comp IN LISTS _rdkit_components)
      if(RDKit_${_comp}_FOUND)
        target_link_libraries(RDKit::RDKit INTERFACE RDKit::${_comp})
      endif()
    endforeach()
    target_include_directories(RDKit::RDKit INTERFACE "${RDKit_INCLUDE_DIR}")
    if(TARGET Boost::headers)
      target_link_libraries(RDKit::RDKit INTERFACE Boost::headers)
    endif()
  endif()
endif()

unset(_rdkit_components)
unset(_rdkit_default_components)
unset(_rdkit_optional_components)
unset(_rdkit_hints)
unset(_rdkit_real)
unset(_rdkit_real_name)
unset(_rdkit_version_line)
unset(_names)
unset(_comp)
