#!/bin/bash
# rblk_nlfuzz against the module: thousands of random and malformed requests
# as root (a few well-formed connects reach a real nvmet target and succeed,
# others a closed port) and as an unprivileged user (CONNECT/DISCONNECT get
# EPERM and the controller list does not change). Each request is answered
# with an allowed errno, policy errors carry an extack message; afterwards no
# controller is left, a normal connect/list/disconnect works, the module
# unloads and the kernel log is clean. The seed is random and printed:
# replay a failure with rblk_nlfuzz --seed N.
# vm-timeout: 420
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
nlfuzz=$RBLK_BUILD_DIR/tests/tools/rblk_nlfuzz
vm_require "$RBLKCTL" "$nlfuzz"

nqn=nqn.2024-01.io.rblk:nlfuzz
work=$RBLK_VM_OUT/netlink_fuzz
mkdir -p "$work"
seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')

vm_rdma_target "$nqn" 16 > /dev/null
vm_rblk_load
slab0=$(vm_slab_kib)

# fuzz LABEL LOG [SETPRIV...] -- ARGS...: one run; its output goes to LOG
# and the RESULT lines to ours. A request stuck in the kernel never returns
# to the fuzzer's own alarm: after 180 s, show where it sleeps and fail.
fuzz() {
	local label=$1 log=$2 rc=0 start pid i
	shift 2
	local pre=()
	while [ "$1" != -- ]; do
		pre+=("$1")
		shift
	done
	shift
	start=$EPOCHSECONDS
	"${pre[@]}" "$nlfuzz" --label "$label" "$@" > "$log" 2>&1 &
	pid=$!
	for ((i = 0; i < 900; i++)); do
		kill -0 "$pid" 2> /dev/null || break
		vm_sleep 0.2
	done
	if kill -0 "$pid" 2> /dev/null; then
		vm_log "rblk_nlfuzz ($label) stalled: $(grep State /proc/"$pid"/status) wchan=$(cat /proc/"$pid"/wchan)"
		cat /proc/"$pid"/stack >&2 || true
		echo w > /proc/sysrq-trigger
		vm_fail "rblk_nlfuzz ($label) still running after 180 s: $(head -n 1 "$log")"
	fi
	wait "$pid" || rc=$?
	grep '^RESULT:' "$log" || true
	echo "RESULT: nlfuzz[$label] wall_s=$(( $EPOCHSECONDS - start ))"
	[ "$rc" -eq 0 ] || vm_fail "rblk_nlfuzz ($label) exited $rc: $(grep -E '^(FAIL|rblk_nlfuzz):' "$log" | head -n 20)"
}

# The controllers' names, one line (python is slow in the VM: the table).
list_names() {
	local out
	out=$("$RBLKCTL" list) || vm_fail "rblkctl list failed"
	awk 'NR > 1 { printf "%s%s", sep, $1; sep = " " }' <<< "$out"
}
state_of() {
	local out
	out=$("$RBLKCTL" show "$1") || vm_fail "rblkctl show $1 failed"
	awk '$1 == "state:" { print $2 }' <<< "$out"
}

# --- root: every command, flags, layouts; some connects succeed -----------------------
fuzz root "$work/root.log" env -- --seed "$seed" --count 3000 \
	--target-nqn "$nqn" --target-every 600 --network-budget 15 --expect-empty
grep -q '^RESULT: nlfuzz\[root\] .* connected=[1-9]' "$work/root.log" ||
	vm_fail "no fuzzed connect to the real target succeeded: $(grep '^RESULT:' "$work/root.log")"
vm_assert_eq "" "$(list_names)" "controllers left after the root run"

# --- unprivileged: with a live controller to (not) delete --------------------------------
vm_rblk_connect "$nqn" -i 1 -Q 32 > /dev/null
before=$(list_names)
vm_assert_eq rblk0 "$before" "controllers before the unprivileged run"
fuzz unprivileged "$work/unpriv.log" setpriv --reuid=65534 --regid=65534 --clear-groups \
	--inh-caps=-all --bounding-set=-all -- --seed "$((seed + 1))" --count 1500 --unprivileged
grep -q '^RESULT: nlfuzz\[unprivileged\] admin_requests=[1-9][0-9]* eperm=[1-9]' "$work/unpriv.log" ||
	vm_fail "the unprivileged run sent no refused admin request"
vm_assert_eq "$before" "$(list_names)" "controllers after the unprivileged run"
vm_assert_eq live "$(state_of rblk0)" "rblk0 state after the unprivileged run"

# --- the module still works ------------------------------------------------------------
"$RBLKCTL" disconnect rblk0 > /dev/null || vm_fail "disconnect rblk0 failed"
vm_wait_for 20 test -z "$(vm_rblk_disks)"
out=$(vm_rblk_connect "$nqn" -i 1 -Q 32)
vm_assert_match '^rblk[0-9]+$' "$(head -n 1 <<< "$out")" "connect after the fuzzing"
name=$(head -n 1 <<< "$out")
vm_assert_eq "$name" "$(list_names)" "list after the fuzzing"
"$RBLKCTL" disconnect "$name" > /dev/null || vm_fail "disconnect $name failed"
vm_wait_for 20 test -z "$(list_names)"
vm_wait_for 20 test -z "$(vm_rblk_disks)"

slab1=$(vm_slab_kib)
echo "RESULT: nlfuzz slab_delta_kib=$((slab1 - slab0)) (before the fuzzing -> after, module loaded)"
vm_rblk_unload
vm_dmesg_clean
