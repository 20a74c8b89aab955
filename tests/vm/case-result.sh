#!/usr/bin/env bash
# The result of one case of a grouped VM run (run-in-vm.sh --group): print
# its output and exit with its exit code (see group.sh for 97, 98; 124 and
# 125 from run-in-vm.sh when the VM hung or died during it).
# Usage: case-result.sh DIR   (DIR: <build>/vm-out/<kernel>/group.<g>/<case>)
set -euo pipefail

dir=$1
if [ ! -s "$dir/exit_code" ]; then
	echo "case-result: FAILED: no result in $dir: its group did not run it" \
		"(ctest runs a case's group first: ctest -R 'vm\\.<kernel>\\.(group\\.<g>|<case>)$')" >&2
	exit 125
fi
[ -f "$dir/output.log" ] && cat "$dir/output.log"
rc=$(cat "$dir/exit_code")
if [ "$rc" -ne 0 ] && [ -s "$dir/reason" ]; then
	sed 's/^/case-result: reason: /' "$dir/reason" >&2
fi
echo "case-result: $(basename "$dir"): exit $rc ($(cat "$dir/ms" 2> /dev/null || echo "?") ms in the VM; logs in $dir)" >&2
exit "$rc"
