#!/bin/bash
# Failover without errors, under fio randrw with crc32c verify on the head
# of a two-path subsystem: (1) the port of the path carrying the I/O goes
# away (nvmet unlinks the subsystem) and comes back: the I/O moves to the
# other path (per-path counters) and the path reconnects; (2) the ANA
# state of the path carrying the I/O goes optimized -> inaccessible: the
# I/O moves off it within ANATT, and back once it is optimized again and
# the other port is inaccessible; (3) one path is disconnected: the other
# carries on. fio ends with 0 errors, every block it wrote verified.
# vm-timeout: 400
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
. "$RBLK_SRC_DIR/tests/vm/lib-mpath.sh"
vm_require "$RBLKCTL"

nqn=nqn.2024-01.io.rblk:mp-failover
mp_target "$nqn" 64 > /dev/null
vm_rblk_load
mp_connect "$nqn" 1 --reconnect-delay 1 --ctrl-loss-tmo 300 > /dev/null
mp_connect "$nqn" 2 --reconnect-delay 1 --ctrl-loss-tmo 300 > /dev/null
dev=/dev/rblk0n1
port_of=([0]=1 [1]=2)

# The path (0 or 1) whose counter moves by 200 I/Os first.
busy_path() {
	local a0 a1
	a0=$(mp_ctrl_io rblk0) a1=$(mp_ctrl_io rblk1)
	vm_wait_for 60 moved_by_either "$a0" "$a1"
	if [ $(($(mp_ctrl_io rblk0) - a0)) -ge 200 ]; then echo 0; else echo 1; fi
}
moved_by_either() {
	[ $(($(mp_ctrl_io rblk0) - $1)) -ge 200 ] || [ $(($(mp_ctrl_io rblk1) - $2)) -ge 200 ]
}
# moved CTRL N: CTRL's counter moved by N from what it is now.
moved() {
	local base
	base=$(mp_ctrl_io "$1")
	vm_wait_for 60 at_least "$1" $((base + $2))
}
at_least() { [ "$(mp_ctrl_io "$1")" -ge "$2" ]; }
# idle CTRL SECS: CTRL carries (almost) nothing for SECS seconds: at most
# what was in flight when it stopped being chosen.
idle() {
	local before after
	before=$(mp_ctrl_io "$1")
	vm_sleep "$2"
	after=$(mp_ctrl_io "$1")
	[ $((after - before)) -le 16 ] || vm_fail "$1 carried $((after - before)) I/Os in $2 s, expected none"
}

# The steps took 21-26 s under I/O (both kernels, two VMs on the host),
# over 120 s on the debug kernel (its fio of 100 s ended before them, 2 of
# 2 runs): the runtime is a bound, mp_fio_finish stops fio when they end.
runtime=$((150 * VM_SLOW))
mp_fio_start /tmp/failover.json "$dev" "$runtime"
t_fio=$EPOCHSECONDS

# (1) The busy path's port goes away and comes back.
p=$(busy_path)
q=$((1 - p))
vm_log "I/O on rblk$p (port ${port_of[$p]})"
t0=$(vm_now_ms)
mp_port_down "${port_of[$p]}" "$nqn"
vm_rblk_wait_state 60 "rblk$p" connecting
moved "rblk$q" 500
vm_log "port ${port_of[$p]} removed: rblk$q carries the I/O after $(vm_ms_since "$t0") ms"
echo "RESULT: mpath failover, port removed: I/O on the other path after $(vm_ms_since "$t0") ms"
idle "rblk$p" 2
mp_port_up "${port_of[$p]}" "$nqn"
vm_rblk_wait_state 60 "rblk$p" live
vm_log "port ${port_of[$p]} back: rblk$p live after $(vm_ms_since "$t0") ms"

# (2) ANA: the path carrying the I/O becomes inaccessible.
p=$(busy_path)
q=$((1 - p))
t0=$(vm_now_ms)
mp_ana_set "${port_of[$p]}" inaccessible
mp_wait_ana 30 "rblk0c${p}n1" inaccessible
moved "rblk$q" 200
ms=$(vm_ms_since "$t0")
anatt=$("$RBLKCTL" show "rblk$p" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["anatt"])')
vm_log "ANA inaccessible on port ${port_of[$p]}: I/O on rblk$q after $ms ms (ANATT $anatt s)"
echo "RESULT: mpath failover, ANA optimized -> inaccessible: I/O on the other path after $ms ms (ANATT $anatt s)"
[ "$ms" -le $((anatt * 1000)) ] || vm_fail "the I/O moved after $ms ms, beyond ANATT ($anatt s)"
idle "rblk$p" 2
# Back: optimized again, and the other port inaccessible.
mp_ana_set "${port_of[$p]}" optimized
mp_wait_ana 30 "rblk0c${p}n1" optimized
mp_ana_set "${port_of[$q]}" inaccessible
mp_wait_ana 30 "rblk0c${q}n1" inaccessible
moved "rblk$p" 500
idle "rblk$q" 2
mp_ana_set "${port_of[$q]}" optimized
mp_wait_ana 30 "rblk0c${q}n1" optimized

# (3) The busy path disconnected: the other carries on.
p=$(busy_path)
q=$((1 - p))
"$RBLKCTL" disconnect "rblk$p" > /dev/null || vm_fail "rblkctl disconnect rblk$p failed"
moved "rblk$q" 500
vm_assert_not_exists "/sys/block/rblk0c${p}n1"

vm_log "the steps took $((EPOCHSECONDS - t_fio)) s of fio's $runtime s"
[ $((EPOCHSECONDS - t_fio)) -lt "$runtime" ] ||
	vm_fail "the steps took $((EPOCHSECONDS - t_fio)) s, longer than fio ran ($runtime s): not all under I/O"
mp_fio_finish /tmp/failover.json
vm_assert_eq 0 "$(cat "/sys/class/rblk/rblk$q/errors")" "errors of rblk$q"
