# shellcheck shell=bash
# Helpers of the target_misbehave_* cases: the misbehaving test target
# (tests/target/rblk_test_target) on the soft-RoCE link, rblkctl connect
# with short timeouts, and the check that nothing of rblk's is left after
# each mode. Source it after lib.sh; it sets up rxe and loads rblk.
TARGET=$RBLK_BUILD_DIR/tests/target/rblk_test_target
vm_require "$RBLKCTL" "$TARGET"
nqn=nqn.2024-01.io.rblk:badtarget
tlog=/tmp/target.log
trap_off=$((8 << 20))
# Short timeouts: keep-alive 2 s, reconnect every 1 s, give up after 4 s.
copts=(-k 2 -c 1 -l 4)
tpid=

vm_setup_rxe
vm_rblk_load
# On failure, what the target saw.
trap '[ -s "$tlog" ] && { echo "--- target log:"; tail -n 30 "$tlog"; } >&2' EXIT

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

start_target() {
	: > "$tlog"
	"$TARGET" -a 10.99.0.1 -p 4420 -n "$nqn" --misbehave "$@" > "$tlog" 2>&1 &
	tpid=$!
	vm_wait_for 60 grep -q '^listening' "$tlog"
}

# The target must still be alive (it never crashed) and exit cleanly.
stop_target() {
	local rc=0
	kill -0 "$tpid" 2> /dev/null || vm_fail "the target died: $(cat "$tlog")"
	kill "$tpid"
	wait "$tpid" || rc=$?
	vm_assert_eq 0 "$rc" "exit code of the target"
}

hits() { grep -c "^misbehave: $1" "$tlog" || true; }

ctrls() { find /sys/class/rblk -mindepth 1 -maxdepth 1 -printf '%f\n' 2> /dev/null | sort; }

no_ctrl() { [ -z "$(ctrls)" ] && [ -z "$(vm_rblk_disks)" ]; }

# Nothing of rblk's is left; the module unloads and comes back.
clean_slate() {
	local what=$1
	if [ -n "$(ctrls)" ]; then
		"$RBLKCTL" disconnect -A > /dev/null || vm_fail "$what: rblkctl disconnect -A failed"
	fi
	vm_wait_for 20 no_ctrl
	stop_target
	modprobe -r rblk || vm_fail "$what: modprobe -r rblk failed"
	vm_assert_not_exists /sys/module/rblk
	vm_modprobe rblk
	vm_dmesg_clean
}

# connect_ok MODE: prints rblkctl's output (controller, then disks).
connect_ok() {
	local out
	out=$(timeout 120 "$RBLKCTL" connect -a 10.99.0.1 -n "$nqn" "${copts[@]}" 2>&1) ||
		vm_fail "$1: rblkctl connect failed: $out"
	echo "$out"
}

# connect_fails MODE MESSAGE [MAX_S]: exit non-zero with MESSAGE (within
# MAX_S seconds), nothing left.
connect_fails() {
	local mode=$1 msg=$2 max=${3:-} out rc=0 t0 t
	t0=$(now)
	out=$(timeout 120 "$RBLKCTL" connect -a 10.99.0.1 -n "$nqn" "${copts[@]}" 2>&1) || rc=$?
	t=$(since "$t0")
	vm_assert_ne 0 "$rc" "$mode: exit code of rblkctl connect"
	vm_assert_ne 124 "$rc" "$mode: rblkctl connect hung"
	vm_assert_eq "rblkctl: $msg" "$out" "$mode: rblkctl connect"
	vm_assert_eq "" "$(ctrls)" "$mode: controllers after the failed connect"
	echo "RESULT: $mode: connect failed in $t s: $out"
	if [ -n "$max" ] && awk -v t="$t" -v m="$max" 'BEGIN { exit !(t >= m) }'; then
		vm_fail "$mode: connect took $t s, more than $max s"
	fi
}

read_trap() { dd if="$1" bs=4k count=1 skip=$((trap_off / 4096)) iflag=direct status=none | sha256sum | cut -d' ' -f1; }

