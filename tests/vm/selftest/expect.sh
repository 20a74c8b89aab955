#!/usr/bin/env bash
# Run a command (run-in-vm.sh ...) and pass only if it exits with EXPECTED
# and, when given, its combined output matches each ERE.
# Usage: expect.sh EXPECTED [--output ERE]... -- CMD...
set -euo pipefail

expected=$1
shift
patterns=()
while [ "$1" = --output ]; do
	patterns+=("$2")
	shift 2
done
[ "$1" = -- ] && shift

rc=0
out=$("$@" 2>&1) || rc=$?
printf '%s\n' "$out"
if [ "$rc" -ne "$expected" ]; then
	echo "expect: FAIL: exit $rc, expected $expected: $*" >&2
	exit 1
fi
for pattern in "${patterns[@]}"; do
	if ! printf '%s\n' "$out" | grep -Eq -- "$pattern"; then
		echo "expect: FAIL: output does not match /$pattern/" >&2
		exit 1
	fi
done
echo "expect: ok: exit $rc as expected"
