#!/usr/bin/env bash
# Harness self-test of run-in-vm.sh --group: run a group whose first case
# panics the kernel (panic.sh) and whose second exits 3 (exit3.sh). The
# group must report both: panic.sh cut short (125, the panic named in its
# output), exit3.sh run in a second boot with its own exit code.
# Usage: group-restart.sh OUT_DIR RUN_IN_VM_CMD...
set -euo pipefail

out=$1
shift
rc=0
log=$("$@" 2>&1) || rc=$?
printf '%s\n' "$log"
fail() { echo "group-restart: FAIL: $*" >&2; exit 1; }
[ "$rc" -eq 0 ] || fail "the group exited $rc, expected 0 (every case has a result)"
[ "$(cat "$out/panic/exit_code")" = 125 ] || fail "panic.sh: exit $(cat "$out/panic/exit_code"), expected 125"
grep -q 'Kernel panic' "$out/panic/output.log" || fail "panic.sh's output does not name the panic"
grep -q '^did not finish: ' "$out/panic/reason" || fail "panic.sh's reason: $(cat "$out/panic/reason" 2> /dev/null)"
[ "$(cat "$out/exit3/exit_code")" = 3 ] || fail "exit3.sh: exit $(cat "$out/exit3/exit_code"), expected 3"
grep -q 'exiting with 3 on purpose' "$out/exit3/output.log" || fail "exit3.sh's output is missing"
[ "$(cat "$out/exit3/reason")" = "exit 3" ] || fail "exit3.sh's reason: $(cat "$out/exit3/reason" 2> /dev/null)"
grep -q 'booting a fresh VM' <<< "$log" || fail "no second boot was logged"
[ -s "$out/console.boot2.log" ] || fail "no second console"
echo "group-restart: ok"
