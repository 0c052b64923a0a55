# SPDX-License-Identifier: Apache-2.0
# The body of the cross toolchain files (toolchain-<triplet>.cmake), which set
# RDMA_EXPORTER_CROSS_TRIPLET, RDMA_EXPORTER_CROSS_PROCESSOR and
# RDMA_EXPORTER_CROSS_DEB_ARCH and include this: a Debian multiarch cross build
# on a Debian host, no sysroot. The compiler is <triplet>-gcc
# (gcc-<triplet>), the libraries and .pc files are the :ARCH -dev packages in
# /usr/lib/<triplet> (scripts/install-deps.sh --cross ARCH), and programs run
# at build time (help2man on --help) run under qemu-user with the ARCH loader
# and libraries from / (-L /). Only what CMake 3.18 (Debian 11) has.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR ${RDMA_EXPORTER_CROSS_PROCESSOR})
set(CMAKE_C_COMPILER ${RDMA_EXPORTER_CROSS_TRIPLET}-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE ${RDMA_EXPORTER_CROSS_TRIPLET})
# The package architecture (packaging/CMakeLists.txt), not the build machine's.
set(RDMA_EXPORTER_DEB_ARCH ${RDMA_EXPORTER_CROSS_DEB_ARCH})

find_program(RDMA_EXPORTER_CROSS_QEMU qemu-${RDMA_EXPORTER_CROSS_PROCESSOR})
if(RDMA_EXPORTER_CROSS_QEMU)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${RDMA_EXPORTER_CROSS_QEMU} -L /)
endif()

# Host programs (protoc-c, help2man, gzip) from the build machine; libraries and
# headers from the multiarch directories of the target only.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)

# pkg-config reads the target's .pc files only: PKG_CONFIG_LIBDIR replaces the
# default search path (the build machine's), PKG_CONFIG_PATH adds nothing.
set(ENV{PKG_CONFIG_LIBDIR}
  "/usr/lib/${RDMA_EXPORTER_CROSS_TRIPLET}/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
