# SPDX-License-Identifier: Apache-2.0
#
# Sourced by scripts/run.sh and scripts/test.sh (and by the test of the two in
# sequence, tests/e2e/scripts-sequence.sh): how each configures its build
# directory. Every configure names all it depends on, so that a directory
# configured by one script and then by the other (the README's two commands in
# order share build/) builds what the second one needs: a CMake cache keeps
# any option that is not given again.

# configure_run DIR: the exporter alone, optimised, no tests.
configure_run() {
	cmake -S . -B "$1" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRDMA_EXPORTER_TESTS=OFF \
		-DRDMA_EXPORTER_SANITIZE=OFF -DRDMA_EXPORTER_TSAN=OFF -DRDMA_EXPORTER_WERROR=OFF >/dev/null
}

# configure_test DIR [asan|tsan]: with every test, -Werror; "asan" adds
# ASan+UBSan, "tsan" ThreadSanitizer (the two cannot share a build).
configure_test() {
	local san=OFF tsan=OFF type=RelWithDebInfo
	case "${2:-}" in
	asan)
		san=ON
		type=Debug
		;;
	tsan)
		tsan=ON
		;;
	esac
	cmake -S . -B "$1" -DCMAKE_BUILD_TYPE=$type -DRDMA_EXPORTER_TESTS=ON \
		-DRDMA_EXPORTER_SANITIZE=$san -DRDMA_EXPORTER_TSAN=$tsan \
		-DRDMA_EXPORTER_WERROR=ON >/dev/null
}
