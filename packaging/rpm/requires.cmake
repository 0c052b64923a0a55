# SPDX-License-Identifier: Apache-2.0
# Included by cpack (CPACK_PROJECT_CONFIG_FILE) once per generator. For RPM:
# Requires: from the binary's DT_NEEDED through requires.map (RHEL package names),
# instead of rpmbuild's automatic soname requirements, which on this build host
# would describe Debian's libraries. RDMA_EXPORTER_BIN, RDMA_EXPORTER_READELF and
# RDMA_EXPORTER_REQUIRES_MAP are set by the file that includes this one.
if(NOT CPACK_GENERATOR STREQUAL "RPM")
  return()
endif()
execute_process(COMMAND "${RDMA_EXPORTER_READELF}" -dW "${RDMA_EXPORTER_BIN}"
  OUTPUT_VARIABLE _dyn RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "readelf -d ${RDMA_EXPORTER_BIN} failed: RPM Requires unknown")
endif()
string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*\\[[^]\n]+\\]" _needed "${_dyn}")
file(STRINGS "${RDMA_EXPORTER_REQUIRES_MAP}" _map REGEX "^[^#]")
set(_requires "")
foreach(_line IN LISTS _needed)
  string(REGEX REPLACE ".*\\[([^]]+)\\]" "\\1" _so "${_line}")
  set(_pkg "")
  foreach(_entry IN LISTS _map)
    if(_entry MATCHES "^([^ \t]+)[ \t]+([^ \t#]+)" AND CMAKE_MATCH_1 STREQUAL _so)
      set(_pkg "${CMAKE_MATCH_2}")
    endif()
  endforeach()
  if(NOT _pkg)
    message(FATAL_ERROR "${_so} (DT_NEEDED of rdma_exporter) has no RHEL package in "
      "${RDMA_EXPORTER_REQUIRES_MAP}: add it there")
  endif()
  list(APPEND _requires "${_pkg}")
endforeach()
list(REMOVE_DUPLICATES _requires)
list(SORT _requires)
list(JOIN _requires ", " CPACK_RPM_PACKAGE_REQUIRES)
