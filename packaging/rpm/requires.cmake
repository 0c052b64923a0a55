# SPDX-License-Identifier: Apache-2.0
# Included by cpack (CPACK_PROJECT_CONFIG_FILE) once per generator. For RPM:
# Requires: from the binary's DT_NEEDED through requires.map (RHEL package names),
# instead of rpmbuild's automatic soname requirements, which on this build host
# would describe Debian's libraries; each with the minimum version of requires.map's
# third column, glibc with the newest symbol version the binary uses.
# RDMA_EXPORTER_BIN, RDMA_EXPORTER_READELF and RDMA_EXPORTER_REQUIRES_MAP are set by
# the file that includes this one.
if(NOT CPACK_GENERATOR STREQUAL "RPM")
  return()
endif()
execute_process(COMMAND "${RDMA_EXPORTER_READELF}" -dW "${RDMA_EXPORTER_BIN}"
  OUTPUT_VARIABLE _dyn RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "readelf -d ${RDMA_EXPORTER_BIN} failed: RPM Requires unknown")
endif()
string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*\\[[^]\n]+\\]" _needed "${_dyn}")
# glibc: the newest GLIBC_ symbol version the binary's dynamic symbols use (2.31 at
# most for a Debian 11 build, scripts/build-in-root.sh), so that rpm refuses a
# system whose glibc is older (RHEL 8's 2.28).
execute_process(COMMAND "${RDMA_EXPORTER_READELF}" -W --dyn-syms "${RDMA_EXPORTER_BIN}"
  OUTPUT_VARIABLE _syms RESULT_VARIABLE _rc)
string(REGEX MATCHALL "@GLIBC_[0-9.]+" _vers "${_syms}")
set(_glibc "2.2.5")
foreach(_v IN LISTS _vers)
  string(REPLACE "@GLIBC_" "" _v "${_v}")
  if(_v VERSION_GREATER _glibc)
    set(_glibc "${_v}")
  endif()
endforeach()
file(STRINGS "${RDMA_EXPORTER_REQUIRES_MAP}" _map REGEX "^[^#]")
set(_requires "")
foreach(_line IN LISTS _needed)
  string(REGEX REPLACE ".*\\[([^]]+)\\]" "\\1" _so "${_line}")
  set(_pkg "")
  foreach(_entry IN LISTS _map)
    if(_entry MATCHES "^([^ \t]+)[ \t]+([^ \t#]+)([ \t]+>=[ \t]*([^ \t#]+))?" AND
        CMAKE_MATCH_1 STREQUAL _so)
      set(_pkg "${CMAKE_MATCH_2}")
      if(_pkg STREQUAL "glibc")
        set(_pkg "glibc >= ${_glibc}")
      elseif(CMAKE_MATCH_4)
        set(_pkg "${_pkg} >= ${CMAKE_MATCH_4}")
      endif()
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
