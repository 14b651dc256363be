# sampan_install_record.cmake: run at install time (install(CODE) in cmake/sampan_install.cmake)
# to write the installed copy of the op-library build record, <package>/_build_config.json.
#
# In:  SAMPAN_RECORD_IN           the build's record (names the checkout and the build folder)
#      SAMPAN_RECORD_PACKAGE_DIR  the package folder relative to CMAKE_INSTALL_PREFIX
#      SAMPAN_RECORD_CORE         the file name of libsampan_core.so
#
# The copy differs in two fields, both made relative to the copy's own folder: include_dirs
# (the installed include/, a copy of framework/include) and
# core_library. Relative, because a wheel is installed into a staging folder and moved into
# site-packages later: no absolute path written now would be right.
if(NOT EXISTS "${SAMPAN_RECORD_IN}")
  message(FATAL_ERROR "sampan install: the build record ${SAMPAN_RECORD_IN} does not exist; "
    "configure sampan first (it writes that file).")
endif()
file(READ "${SAMPAN_RECORD_IN}" _sampan_json)
string(JSON _sampan_json SET "${_sampan_json}" include_dirs "[\"include\"]")
string(JSON _sampan_json SET "${_sampan_json}" core_library "\"${SAMPAN_RECORD_CORE}\"")
string(JSON _sampan_json SET "${_sampan_json}" comment
  "\"The installed copy of sampan's build record (cmake/sampan_install_record.cmake): relative paths are relative to this file's folder. Read by sampan_add_op_library() and sampan.utils.cpp_extension.\"")

set(_sampan_dest "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/${SAMPAN_RECORD_PACKAGE_DIR}/_build_config.json")
message(STATUS "Installing: ${_sampan_dest}")
file(WRITE "${_sampan_dest}" "${_sampan_json}\n")
list(APPEND CMAKE_INSTALL_MANIFEST_FILES "${_sampan_dest}")
