# SPDX-License-Identifier: Apache-2.0
# Runs at install time (install(CODE) in CMakeLists.txt), when CMAKE_INSTALL_PREFIX is
# the prefix really used. Installs the systemd units with ExecStart= and EnvironmentFile=
# naming the installed files, and the example /etc/default/rdma_exporter. file(INSTALL) adds
# DESTDIR by itself.

macro(_rdma_exporter_abs out dir)
  if(IS_ABSOLUTE "${dir}")
    set(${out} "${dir}")
  else()
    set(${out} "${CMAKE_INSTALL_PREFIX}/${dir}")
  endif()
endmacro()

_rdma_exporter_abs(_bindir "${RDMA_EXPORTER_BINDIR}")
_rdma_exporter_abs(_unitdir "${RDMA_EXPORTER_UNITDIR}")
# GNUInstallDirs' rule: the /usr prefix keeps its configuration in /etc.
if(IS_ABSOLUTE "${RDMA_EXPORTER_SYSCONFDIR}")
  set(_etc "${RDMA_EXPORTER_SYSCONFDIR}")
elseif(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(_etc "/etc")
else()
  set(_etc "${CMAKE_INSTALL_PREFIX}/${RDMA_EXPORTER_SYSCONFDIR}")
endif()

file(READ "${RDMA_EXPORTER_SOURCE_DIR}/systemd/rdma_exporter.service" _unit)
string(REPLACE "ExecStart=/usr/bin/rdma_exporter" "ExecStart=${_bindir}/rdma_exporter"
  _unit "${_unit}")
string(REPLACE "EnvironmentFile=-/etc/default/rdma_exporter"
  "EnvironmentFile=-${_etc}/default/rdma_exporter" _unit "${_unit}")
file(WRITE "${RDMA_EXPORTER_STAGE_DIR}/rdma_exporter.service" "${_unit}")

file(INSTALL "${RDMA_EXPORTER_STAGE_DIR}/rdma_exporter.service"
  "${RDMA_EXPORTER_SOURCE_DIR}/systemd/rdma_exporter.socket"
  DESTINATION "${_unitdir}" FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
file(INSTALL "${RDMA_EXPORTER_SOURCE_DIR}/packaging/default/rdma_exporter"
  DESTINATION "${_etc}/default" FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)

# The state directory of `rdma_exporter check`'s flaps history (docs/check.md, "Flap
# history"): /var/lib/rdma_exporter for the /usr prefix, by GNUInstallDirs' rule as for
# /etc; empty, mode 0755. file(MAKE_DIRECTORY) does not add DESTDIR by itself.
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(_state "/var/lib/rdma_exporter")
else()
  set(_state "${CMAKE_INSTALL_PREFIX}/var/lib/rdma_exporter")
endif()
file(MAKE_DIRECTORY "$ENV{DESTDIR}${_state}")
