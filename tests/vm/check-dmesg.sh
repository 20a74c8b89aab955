#!/usr/bin/env bash
# Fail (exit 1) when a kernel log holds any line matching dmesg-patterns
# (one extended regex a line); print those lines, then the first one with
# the lines after it (the backtrace). Usage: check-dmesg.sh FILE
# group.sh sources it and calls check_dmesg once a case: in a TCG guest
# each process costs a few hundred ms, so the check is one grep.

check_dmesg() {
	local bad first rc=0
	bad=$(grep -E -n -f "$CHECK_DMESG_PATTERNS" "$1") || rc=$?
	[ "$rc" -ne 1 ] || return 0
	if [ "$rc" -ne 0 ]; then
		echo "run-in-vm: cannot check the kernel log $1 (grep: exit $rc)" >&2
		return 1
	fi
	echo "run-in-vm: the kernel log has warnings/bugs ($1):" >&2
	printf '%s\n' "$bad" | head -n 40 >&2
	first=${bad%%:*}
	echo "run-in-vm: first report in context:" >&2
	sed -n "${first},$((first + 30))p" "$1" >&2
	return 1
}

case ${BASH_SOURCE[0]} in
*/*) CHECK_DMESG_PATTERNS=${BASH_SOURCE[0]%/*}/dmesg-patterns ;;
*) CHECK_DMESG_PATTERNS=dmesg-patterns ;;
esac
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -euo pipefail
	check_dmesg "$1"
fi
