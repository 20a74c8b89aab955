#!/usr/bin/env bash
# Fail (exit 1) when a kernel log holds any line matching dmesg-patterns
# (one extended regex a line); print those lines, then the first one with
# the lines after it (the backtrace). Usage: check-dmesg.sh FILE
set -euo pipefail

log=$1
patterns="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/dmesg-patterns"
if bad=$(grep -E -n -f "$patterns" "$log"); then
	echo "run-in-vm: the kernel log has warnings/bugs ($log):" >&2
	printf '%s\n' "$bad" | head -n 40 >&2
	first=${bad%%:*}
	echo "run-in-vm: first report in context:" >&2
	sed -n "${first},$((first + 30))p" "$log" >&2
	exit 1
fi
