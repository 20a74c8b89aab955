# shellcheck shell=bash
# Helpers of the target_misbehave_* cases: the misbehaving test target
# (tests/target/rblk_test_target) on the soft-RoCE link, rblkctl connect
# with short timeouts, and the check that nothing of rblk's is left after
# each mode. Source it after lib.sh; it sets up rxe and loads rblk.
#   TGT_BIN, TGT_NQN, TGT_LOG     the target binary, its subsystem NQN, its log
#   TGT_TRAP_OFF                  byte offset whose read the --misbehave I/O
#                                 modes answer wrongly
#   TGT_COPTS                     rblkctl connect options (an array; a case
#                                 may set it for the modes that follow)
#   tgt_start MODE [ARGS...]      start the target with --misbehave MODE, a
#                                 port on each address of TGT_ADDR (default
#                                 10.99.0.1; 0.0.0.0: every address), wait
#                                 until it listens
#   tgt_stop                      stop it; it must not have died, and
#                                 must exit 0 (by the case's end at the
#                                 latest: tgt_reap)
#   tgt_hits MODE                 how often the target misbehaved in MODE
#   tgt_s_since T0_MS             seconds since T0_MS (a vm_now_ms), one decimal
#   tgt_clean_slate WHAT          disconnect everything, stop the target,
#                                 the module unloads and comes back, no
#                                 kernel warning
#   tgt_connect_ok MODE           rblkctl connect must succeed; prints its
#                                 output (controller, then disks)
#   tgt_connect_fails MODE MESSAGE [MAX_S]   rblkctl connect must fail with
#                                 MESSAGE (within MAX_S seconds), nothing left
#   tgt_read_trap DEV             sha256 of the 4 KiB at TGT_TRAP_OFF, O_DIRECT
#   TGT_HOST_A, TGT_ID_A, TGT_HOST_B, TGT_ID_B
#                                 two hosts' NQN and Host ID (the reservation
#                                 cases: the target tells them apart)
#   tgt_connect_as ADDR HOSTNQN HOSTID [ARGS...]   connect as that host,
#                                 which must succeed; prints "CTRL DISK"
#   tgt_connect_hosts             connect as host A (rblk0, /dev/rblk0n1),
#                                 then as host B (rblk1, /dev/rblk1n1)
#   tgt_sg ARGS...                sg_persist -n ARGS, which must succeed; its
#                                 output in /tmp/sg.out
TGT_BIN=$RBLK_BUILD_DIR/tests/target/rblk_test_target
vm_require "$RBLKCTL" "$TGT_BIN"
TGT_NQN=nqn.2024-01.io.rblk:badtarget
TGT_LOG=/tmp/target.log
TGT_TRAP_OFF=$((8 << 20))
# Short timeouts: keep-alive 2 s, reconnect every 1 s, give up after 4 s.
TGT_COPTS=(-k 2 -c 1 -l 4)
TGT_PID=
TGT_STOPPING=()

vm_setup_rxe
vm_rblk_load
# On failure, what the target saw. Every stopped target must have exited 0.
trap 'tgt_reap 120; [ -s "$TGT_LOG" ] && { echo "--- target log:"; tail -n 30 "$TGT_LOG"; } >&2' EXIT

tgt_s_since() { awk -v ms="$(vm_ms_since "$1")" 'BEGIN { printf "%.1f", ms / 1000 }'; }

tgt_start() {
	local a addrs=()
	for a in ${TGT_ADDR:-10.99.0.1}; do
		addrs+=(-a "$a")
	done
	: > "$TGT_LOG"
	"$TGT_BIN" "${addrs[@]}" -p 4420 -n "$TGT_NQN" --misbehave "$@" > "$TGT_LOG" 2>&1 &
	TGT_PID=$!
	vm_wait_for 60 grep -q '^listening' "$TGT_LOG"
}

# The target must still be alive (it never crashed) and exit cleanly. It
# logs "stopped" once its report is out and its ports are free, then
# tears its queues down. That can take a minute: a queue the target hung
# up on during Connect sits in ib_cm's TIMEWAIT, and destroying its cm_id
# waits that out in the kernel (cm_destroy_id_wait_timeout, 10 s a
# report). The case goes on meanwhile; tgt_reap collects the exit code.
tgt_stop() {
	kill -0 "$TGT_PID" 2> /dev/null || vm_fail "the target died: $(cat "$TGT_LOG")"
	kill "$TGT_PID"
	vm_wait_for 30 grep -q '^stopped$' "$TGT_LOG"
	TGT_STOPPING+=("$TGT_PID")
	tgt_reap 5
}

# tgt_reap SECS: the stopped targets that end within SECS s must have
# exited 0; the others are left for the next call (the case's EXIT trap
# calls it with 120).
tgt_reap() {
	local pid st="" rc left=() deadline=$((EPOCHSECONDS + $1))
	for pid in "${TGT_STOPPING[@]}"; do
		# (braces: a target gone already fails the redirection, not read)
		while { read -r _ _ st _ < "/proc/$pid/stat"; } 2> /dev/null && [ "$st" != Z ] &&
			[ "$EPOCHSECONDS" -lt "$deadline" ]; do
			vm_sleep 0.2
		done
		if [ -e "/proc/$pid" ] && [ "$st" != Z ]; then
			left+=("$pid")
			continue
		fi
		rc=0
		wait "$pid" || rc=$?
		vm_assert_eq 0 "$rc" "exit code of the target (pid $pid)"
	done
	TGT_STOPPING=("${left[@]}")
	[ "$1" -lt 120 ] || [ ${#left[@]} -eq 0 ] ||
		vm_fail "targets still tearing down after $1 s: ${left[*]}"
}

tgt_hits() { grep -c "^misbehave: $1" "$TGT_LOG" || true; }

# Nothing of rblk's is left; the module unloads and comes back.
tgt_clean_slate() {
	local what=$1
	if [ -n "$(vm_rblk_ctrls)" ]; then
		"$RBLKCTL" disconnect -A > /dev/null || vm_fail "$what: rblkctl disconnect -A failed"
	fi
	vm_wait_for 20 vm_rblk_none
	tgt_stop
	modprobe -r rblk || vm_fail "$what: modprobe -r rblk failed"
	vm_assert_not_exists /sys/module/rblk
	vm_modprobe rblk
	vm_dmesg_clean
}

TGT_HOST_A=nqn.2014-08.org.nvmexpress:uuid:0a0a0a0a-0000-4000-8000-00000000000a
TGT_HOST_B=nqn.2014-08.org.nvmexpress:uuid:0b0b0b0b-0000-4000-8000-00000000000b
TGT_ID_A=0a0a0a0a-0000-4000-8000-00000000000a
TGT_ID_B=0b0b0b0b-0000-4000-8000-00000000000b

# tgt_connect_as ADDR HOSTNQN HOSTID [ARGS...]: connect as that host;
# prints what connect printed, on one line ("rblk0 /dev/rblk0n1").
tgt_connect_as() {
	local addr=$1 host=$2 id=$3 out
	shift 3
	out=$(timeout 120 "$RBLKCTL" connect -a "$addr" -n "$TGT_NQN" -q "$host" -I "$id" "$@" 2>&1) ||
		vm_fail "connect to $addr as $host: $out"
	echo "${out//$'\n'/ }"
}

tgt_connect_hosts() {
	vm_assert_eq "rblk0 /dev/rblk0n1" "$(tgt_connect_as 10.99.0.1 "$TGT_HOST_A" "$TGT_ID_A")" "connect as A"
	vm_assert_eq "rblk1 /dev/rblk1n1" "$(tgt_connect_as 10.99.0.1 "$TGT_HOST_B" "$TGT_ID_B")" "connect as B"
}

tgt_connect_ok() {
	local out
	out=$(timeout 120 "$RBLKCTL" connect -a 10.99.0.1 -n "$TGT_NQN" "${TGT_COPTS[@]}" 2>&1) ||
		vm_fail "$1: rblkctl connect failed: $out"
	echo "$out"
}

tgt_connect_fails() {
	local mode=$1 msg=$2 max=${3:-} out rc=0 t0 t
	t0=$(vm_now_ms)
	out=$(timeout 120 "$RBLKCTL" connect -a 10.99.0.1 -n "$TGT_NQN" "${TGT_COPTS[@]}" 2>&1) || rc=$?
	t=$(tgt_s_since "$t0")
	vm_assert_ne 0 "$rc" "$mode: exit code of rblkctl connect"
	vm_assert_ne 124 "$rc" "$mode: rblkctl connect hung"
	vm_assert_eq "rblkctl: $msg" "$out" "$mode: rblkctl connect"
	vm_assert_eq "" "$(vm_rblk_ctrls)" "$mode: controllers after the failed connect"
	echo "RESULT: $mode: connect failed in $t s: $out"
	if [ -n "$max" ] && awk -v t="$t" -v m="$max" 'BEGIN { exit !(t >= m) }'; then
		vm_fail "$mode: connect took $t s, more than $max s"
	fi
}

tgt_read_trap() {
	dd if="$1" bs=4k count=1 skip=$((TGT_TRAP_OFF / 4096)) iflag=direct status=none |
		sha256sum | cut -d' ' -f1
}

tgt_sg() { sg_persist -n "$@" > /tmp/sg.out 2>&1 || vm_fail "sg_persist $*: $(cat /tmp/sg.out)"; }
