#!/bin/bash
# Recovery without data loss: the target's port goes away (subsystem
# unlinked, nvmet drops the controller) in the middle of an fio randwrite
# with crc32c verify, and comes back after a few failed reconnects. fio
# must finish with zero errors and every block verified, the controller
# must reconnect (counter moves), keep its disk, and while it is
# CONNECTING `rblkctl show` must say since when, when the next attempt
# and the ctrl_loss_tmo deadline fall.
# vm-timeout: 400
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
. "$RBLK_SRC_DIR/tests/vm/lib-recovery.sh"
vm_require "$RBLKCTL"

nqn=nqn.2024-01.io.rblk:recovery-port
delay=1
# Far beyond the outage, which a busy TCG guest stretches to ~30 s (measured).
loss=300
rec_setup "$nqn" 64 "$delay" "$loss" -1
dev=/dev/rblk0n1
size0=$(blockdev --getsize64 "$dev")

# 16 MiB of 4k random writes, then every block read back and checked; the
# rate keeps the write phase going while the port is away.
vm_fio /tmp/port.json --name=port --filename="$dev" --ioengine=io_uring --direct=1 \
	--rw=randwrite --bs=4k --iodepth=16 --size=16M --rate_iops=400 \
	--verify=crc32c --do_verify=1 --verify_fatal=1 &
fio_pid=$!
rec_wait_io 60 writes 200

t_down=$(vm_now_ms)
vm_nvmet_unlink 1 "$nqn"
vm_rblk_wait_state 30 rblk0 connecting
vm_log "port removed: controller connecting after $(vm_ms_since "$t_down") ms"

# The show output while reconnecting: state, since when, next attempt,
# deadline. The next attempt is unset while one is running: retry.
show_connecting() {
	local json
	json=$(rec_show_json rblk0)
	[ "$(rec_json state <<< "$json")" = connecting ] || return 1
	python3 - "$json" "$delay" "$loss" <<'PY'
import json, sys
j, delay, loss = json.loads(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
since, nxt, dl = j.get("state_since_ms"), j.get("next_reconnect_ms"), j.get("loss_deadline_ms")
print("show --json: since %s ms, next attempt in %s ms, deadline in %s ms" % (since, nxt, dl), file=sys.stderr)
ok = (since is not None and since >= 0 and nxt is not None and 0 < nxt <= delay * 1000
      and dl is not None and 0 < dl <= loss * 1000)
sys.exit(0 if ok else 1)
PY
}
# Each try runs rblkctl and python (slow in TCG): a generous bound.
vm_wait_for 60 show_connecting
# The table, likewise between two attempts ("next reconnect: -" during one).
show_text() {
	text=$("$RBLKCTL" show rblk0) || vm_fail "rblkctl show rblk0 failed"
	grep -Eq '^next reconnect: +in [0-9]+\.[0-9] s$' <<< "$text"
}
vm_wait_for 60 show_text
vm_assert_match '^state: +connecting$' "$(grep '^state:' <<< "$text")" "show: state"
vm_assert_match '^state since: +[0-9]+\.[0-9] s ago$' "$(grep '^state since:' <<< "$text")" "show: since"
vm_assert_match '^loss deadline: +in [0-9]+\.[0-9] s$' "$(grep '^loss deadline:' <<< "$text")" "show: deadline"

# Let a few attempts fail against the missing port, then restore it.
sleep $((3 * delay))
vm_assert_eq connecting "$(vm_rblk_state rblk0)" "state while the port is away"
t_up=$(vm_now_ms)
vm_nvmet_link 1 "$nqn"
vm_rblk_wait_state 30 rblk0 live
t_live=$(vm_now_ms)

wait "$fio_pid" || vm_fail "fio failed across the port loss (see above)"
python3 - /tmp/port.json <<'PY' || vm_fail "fio report"
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
w, r = j["write"]["io_bytes"], j["read"]["io_bytes"]
assert j["error"] == 0 and w == 16 << 20 and r == w, (j["error"], w, r)
print("fio: %d KiB written, %d KiB read back and verified" % (w >> 10, r >> 10))
PY
reconnects=$(vm_rblk_attr rblk0 reconnects)
errors=$(vm_rblk_attr rblk0 errors)
[ "$reconnects" -ge 1 ] || vm_fail "reconnect counter did not move: $reconnects"
vm_assert_eq 0 "$errors" "controller I/O errors"
vm_assert_eq "$size0" "$(blockdev --getsize64 "$dev")" "disk size after the reconnect"
rec_result recovery_port "outage_ms=$((t_up - t_down)) restore_to_live_ms=$((t_live - t_up))" \
	"reconnects=$reconnects fio_errors=0 io_errors=$errors verified_kib=16384"

"$RBLKCTL" disconnect rblk0 > /dev/null || vm_fail "rblkctl disconnect rblk0 failed"
vm_rblk_unload
vm_dmesg_clean
