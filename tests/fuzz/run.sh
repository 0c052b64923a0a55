#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Runs every libFuzzer target for a set time against a copy of its committed
# corpus and prints, per target: runs, coverage, new corpus entries, crashes.
#
#   tests/fuzz/run.sh SECONDS [TARGET...]     (default: every target)
#
# Builds with clang (-fsanitize=fuzzer,address,undefined -g -O1) in build-fuzz/
# (FUZZ_BUILD_DIR to change it). Installs clang and libFuzzer's runtime when they
# are missing (they are not in scripts/install-deps.sh --test: the ctest replays of
# the corpora need only the normal compiler).
#
# FUZZ_MERGE=1 afterwards merges what the run found into tests/fuzz/corpus/TARGET/
# (libFuzzer -merge=1: only inputs that add coverage are kept); review and commit.
#
# Exits 1 when a target crashed (leak, sanitizer report, broken invariant,
# timeout) or did not build; the crashing input's path is printed. Reproduce with
#   build-fuzz/tests/fuzz/fuzz_TARGET PATH      (or the gcc replay_TARGET PATH)
set -euo pipefail

usage() {
	echo "usage: $0 SECONDS [TARGET...]" >&2
	exit 2
}
[ $# -ge 1 ] || usage
secs=$1
shift
[[ $secs =~ ^[0-9]+$ ]] && [ "$secs" -gt 0 ] || usage

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${FUZZ_BUILD_DIR:-$root/build-fuzz}

# clang and the libFuzzer runtime (Debian: clang, libclang-rt-N-dev)
install_pkgs() {
	local sudo=
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null || {
			echo "fuzz: need root (or sudo) to install: $*" >&2
			exit 1
		}
		sudo=sudo
	fi
	echo "fuzz: installing $*"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}
command -v clang >/dev/null || install_pkgs clang
if [ ! -e "$(clang --print-runtime-dir)/libclang_rt.fuzzer-x86_64.a" ] &&
	[ ! -e "$(clang -print-file-name=libclang_rt.fuzzer-x86_64.a)" ]; then
	major=$(clang -dumpversion | cut -d. -f1)
	install_pkgs "libclang-rt-$major-dev"
fi

# Everything gets coverage and sanitizers; only the fuzz_* binaries link libFuzzer.
cmake -S "$root" -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug \
	-DCMAKE_C_FLAGS_DEBUG="-g -O1" \
	-DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
	-DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
	-DRDMA_EXPORTER_FUZZ=ON -DRDMA_EXPORTER_TESTS=ON -DRDMA_EXPORTER_WERROR=OFF >/dev/null
if [ $# -gt 0 ]; then
	targets=("$@")
else
	read -r -a targets <<<"$(tr ';' ' ' <"$build/tests/fuzz/fuzz-targets.txt")"
fi

work=$build/fuzz-work
mkdir -p "$work"
crashed=0
printf '%-16s %10s %8s %8s %8s %6s %s\n' target runs cov ft corpus new crashes
for t in "${targets[@]}"; do
	bin=$build/tests/fuzz/fuzz_$t
	seeds=$root/tests/fuzz/corpus/$t
	if ! cmake --build "$build" -j"$(nproc)" --target "fuzz_$t" >"$work/build-$t.log" 2>&1; then
		crashed=1
		printf '%-16s build failed: %s\n' "$t" "$work/build-$t.log"
		continue
	fi
	rm -rf "${work:?}/$t"
	mkdir -p "$work/$t/corpus" "$work/$t/artifacts"
	cp -r "$seeds/." "$work/$t/corpus/"
	before=$(find "$work/$t/corpus" -type f | wc -l)
	rc=0
	"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$work/$t/artifacts/" "$work/$t/corpus" >"$work/$t/log" 2>&1 || rc=$?
	after=$(find "$work/$t/corpus" -type f | wc -l)
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t/log" | tail -1)
	last=$(grep -E '^#[0-9]+.*cov: ' "$work/$t/log" | tail -1 || true)
	cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
	ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
	crashes=$(find "$work/$t/artifacts" -type f | wc -l)
	printf '%-16s %10s %8s %8s %8s %6s %s\n' "$t" "${runs:-?}" "${cov:-?}" "${ft:-?}" \
		"$after" "$((after - before))" "$crashes"
	if [ "$rc" -ne 0 ] || [ "$crashes" -gt 0 ]; then
		crashed=1
		echo "fuzz: $t exited $rc; log: $work/$t/log" >&2
		find "$work/$t/artifacts" -type f -printf 'fuzz: crashing input: %p\n' >&2
		grep -E '^(==[0-9]+==ERROR|SUMMARY|.*invariant broken|.*runtime error)' "$work/$t/log" |
			head -5 >&2 || true
	elif [ "${FUZZ_MERGE:-0}" = 1 ]; then
		"$bin" -merge=1 "$seeds" "$work/$t/corpus" >"$work/$t/merge.log" 2>&1
		echo "fuzz: $t: corpus now $(find "$seeds" -type f | wc -l) files" \
			"($(du -sk "$seeds" | cut -f1) KiB)"
	fi
done
exit $crashed
