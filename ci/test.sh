#!/usr/bin/env bash
# Everything CI checks: install the dependencies, configure and build from
# scratch, run every ctest test (host unit tests, static checks, VM suite).
# Exits with ctest's code; ctest's summary is the last thing printed.
#
# Usage: ci/test.sh [--build-dir DIR] [--keep] [--no-deps] [--kernel KVER]...
#                   [--debug-kernel] [CTEST_ARGS...]
#   --build-dir DIR  default: build (wiped first unless --keep); build-debug
#                    with --debug-kernel
#   --no-deps        skip ci/install-deps.sh (also: RBLK_SKIP_DEPS=1)
#   --kernel KVER    build for and boot only these kernels (repeatable;
#                    default: every installed one, i.e. Debian's 6.1 and
#                    6.12); to run one kernel's cases of a full build,
#                    pass ctest's -L 6.12
#   --debug-kernel   the debug-kernel lane instead (tests/README.md): build
#                    or reuse ci/debug-kernel.sh's kernel (lockdep, KASAN,
#                    kmemleak, UBSAN, siw), build the module for it alone
#                    and run the tests labelled debug: every case that runs
#                    rblk.ko's kernel side (vm.debug.*, soft-RoCE) and the
#                    data-path, recovery and multipath ones over soft-iWARP
#                    (vm.debug-siw.*); a kmemleak scan after each case
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
start=$(date +%s)
build="" keep=0 deps=${RBLK_SKIP_DEPS:-0} kernels="" debug=0
while [ $# -gt 0 ]; do
	case $1 in
	--build-dir) build=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	--no-deps) deps=1; shift ;;
	--kernel) kernels=${kernels:+$kernels;}$2; shift 2 ;;
	--debug-kernel) debug=1; shift ;;
	*) break ;;
	esac
done

if [ "$deps" != 1 ]; then
	ci/install-deps.sh
fi

if [ "$debug" = 1 ]; then
	build=${build:-build-debug}
	kstart=$(date +%s)
	# Its last line is the installed release.
	kernels=$(ci/debug-kernel.sh | tail -n 1)
	echo "ci: debug kernel $kernels ready in $(( $(date +%s) - kstart ))s"
	set -- -L debug "$@"
fi
build=${build:-build}

[ "$keep" = 1 ] || rm -rf -- "$build"
# -O2 as the default build (RelWithDebInfo) but without its debug
# information: -g is about 40% of a compile here and most of the link, and
# nothing the tests check reads it.
cmake_args=(-S . -B "$build" -DCMAKE_BUILD_TYPE=Release
	"-DCMAKE_C_FLAGS_RELEASE=-O2 -DNDEBUG" "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG")
[ -n "$kernels" ] && cmake_args+=(-DRBLK_KERNEL_RELEASES="$kernels")
cmake "${cmake_args[@]}"
cmake --build "$build" -j "$(nproc)"
echo "ci: dependencies and build took $(( $(date +%s) - start ))s"

log=$build/ctest.log
rc=0
# One test per host CPU at a time: two 2-vCPU VM groups side by side on
# two cores finish sooner than one after the other, since a TCG guest
# alone leaves a third of the host idle. A -j in CTEST_ARGS overrides.
# pipefail: the pipeline's status is ctest's (tee succeeds).
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" "$@" 2>&1 | tee "$log" || rc=$?
echo "ci: total wall time $(( $(date +%s) - start ))s"
# Nothing may skip to green: a skipped test (gtest's SKIPPED, which the
# unit tests report to ctest as a skip) fails the run.
if grep -q '\*\*\*Skipped\|Not Run' "$log"; then
	echo "ci: FAILED: tests were skipped:" >&2
	grep '\*\*\*Skipped\|Not Run' "$log" >&2
	[ "$rc" -ne 0 ] || rc=1
fi
# Each failed VM case's reason, near the end where a truncated CI log still
# shows it (its whole output is in ctest's log above and in its directory).
# ctest's list of failures names them: "<n> - vm.<kernel>.<case> (Failed)".
sed -n '/The following tests FAILED:/,$p' "$log" |
	sed -n 's/^[[:space:]]*[0-9]* - vm\.\(.*\)\.\([a-z0-9_]*\) (.*$/\1 \2/p' |
	while read -r k case; do
		for dir in "$build/vm-out/$k"/group.*/"$case"; do
			[ -d "$dir" ] || continue
			echo "ci: VM case $k/$case ($(basename "$(dirname "$dir")")), exit $(cat "$dir/exit_code" 2> /dev/null || echo none):"
			# group.sh's and run-in-vm.sh's one line a cause.
			sed 's/^/ci:   /' "$dir/reason" 2> /dev/null || echo "ci:   (no reason recorded)"
		done
	done
# Repeat ctest's summary so that it closes the output.
sed -n '/tests passed, [0-9]* tests* failed out of/,$p' "$log"
exit "$rc"
