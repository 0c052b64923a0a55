# SPDX-License-Identifier: Apache-2.0
# Cross build for Debian arm64 (scripts/cross-build.sh arm64):
#   cmake -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64-linux-gnu.cmake ...
set(RDMA_EXPORTER_CROSS_TRIPLET aarch64-linux-gnu)
set(RDMA_EXPORTER_CROSS_PROCESSOR aarch64)
set(RDMA_EXPORTER_CROSS_DEB_ARCH arm64)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
