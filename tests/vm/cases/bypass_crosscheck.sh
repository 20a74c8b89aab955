#!/bin/bash
# The kernel-bypass path against the kernel's: data written with
# `rblkctl write --path bypass` (rblkctl itself the NVMe-oF/RDMA initiator)
# reads back byte-identical through rblk.ko (/dev/rblk0n1) and through the
# kernel's nvme-rdma, and what those two write reads back identical through
# `rblkctl read --path bypass`; in-capsule (4 KiB), keyed SGL over the
# registered file buffer (1 MiB) and staged through the
# queue's pool (--copy, --event); `rblkctl bench --path bypass --verify`
# stamps that rblk.ko's bench checks, and checks nvme-rdma's, also from
# --offset 24m, the bytes either side of that range left as they were; the
# library's asynchronous API (rblk_bypass_probe: QD 16, poll and wait, write
# zeroes, deallocate, flush) leaves what both kernel initiators read. No
# RDMA device, a wrong NQN, no listener, an address nobody answers, a bad
# size and a bench range beyond the namespace each give one line and a
# non-zero exit. A write survives the target going
# away and coming back under it.
# It checks the userspace initiator (rblk.ko's side is every datapath
# case's, on both kernels): newest kernel only, for the suite's time.
# vm-kernels: newest
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
PROBE=$RBLK_BUILD_DIR/tests/tools/rblk_bypass_probe
vm_require "$RBLKCTL" "$PROBE"

nqn=nqn.2024-01.io.rblk:bypass
t=10.99.0.1

# bypass_refused MESSAGE ARGS...: rblkctl ARGS fails with exactly that line.
bypass_refused() {
	local msg=$1 out rc=0
	shift
	out=$("$RBLKCTL" "$@" 2>&1 > /dev/null) || rc=$?
	vm_assert_ne 0 "$rc" "exit code of rblkctl $*"
	vm_assert_eq "rblkctl: $msg" "$out" "rblkctl $*"
	vm_log "refused as expected: $out"
}

head -c 4096 /dev/urandom > /tmp/w4k
head -c $((1 << 20)) /dev/urandom > /tmp/w1m
head -c $((192 << 10)) /dev/urandom > /tmp/wcopy

# --- before any RDMA device exists ----------------------------------------------
# A pair an earlier case of the boot left is removed first.
vm_no_rdma_device
bypass_refused "no RDMA device (load an RDMA driver and rdma_ucm, e.g. modprobe rdma_rxe rdma_ucm)" \
	write --path bypass -a "$t" -n "$nqn" --data /tmp/w4k

vm_rdma_target "$nqn" 32 > /dev/null

# --- user errors: one line each ----------------------------------------------------
bypass_refused "Connect refused: subsystem NQN not found on the target" \
	write --path bypass -a "$t" -n nqn.2024-01.io.rblk:no-such-subsystem --data /tmp/w4k
bypass_refused "connection rejected (no NVMe-oF listener at this address?)" \
	read --path bypass -a "$t" -s 4421 -n "$nqn" --length 4096 --data /tmp/x
bypass_refused "cannot resolve the target address" \
	read --path bypass -a 10.99.0.77 -n "$nqn" --length 4096 --data /tmp/x
bypass_refused "read failed: offset and length must be multiples of the LBA size (512)" \
	read --path bypass -a "$t" -n "$nqn" --offset 100 --length 4096 --data /tmp/x
bypass_refused "--offset: '200x' is not a size (e.g. 4k, 64m, 1g)" \
	read --path bypass -a "$t" -n "$nqn" --offset 200x --length 8m --data /tmp/x
bypass_refused "--offset (32m) + --size (1m) exceeds the size of $nqn@$t:4420/ns1 (33554432 bytes)" \
	bench --path bypass -a "$t" -n "$nqn" --rw read --offset 32m --size 1m

# --- bypass writes, the kernel's initiators read --------------------------------------
br() { "$RBLKCTL" read --path bypass -a "$t" -n "$nqn" "$@" || vm_fail "rblkctl read --path bypass $* failed"; }
sum() { sha256sum "$1" | cut -d' ' -f1; }

# bw_via ERE ARGS...: a bypass write whose --verbose summary matches ERE
# (how the commands carried the data).
bw_via() {
	local re=$1 out
	shift
	out=$("$RBLKCTL" write --path bypass -a "$t" -n "$nqn" -v "$@" 2>&1 > /dev/null) ||
		vm_fail "rblkctl write --path bypass $* failed: $out"
	vm_log "$out"
	vm_assert_match "$re" "$out" "how rblkctl write --path bypass $* carried the data"
}
bw_via ' 0 in-capsule, 0 through the pool, [1-9][0-9]* through the registered buffer' \
	--offset $((1 << 20)) --data /tmp/w1m
bw_via ' 1 in-capsule, 0 through the pool, 0 through the registered buffer' \
	--offset $((3 << 20)) --data /tmp/w4k
bw_via ' 0 in-capsule, [1-9][0-9]* through the pool, 0 through the registered buffer' \
	--offset $((5 << 20)) --data /tmp/wcopy --copy --event

vm_rblk_load
vm_assert_eq $'rblk0\n/dev/rblk0n1' "$(vm_rblk_connect "$nqn" -i 1)" "rblkctl connect"
ref=$(vm_nvme_ref_connect "$nqn")
for dev in /dev/rblk0n1 "$ref"; do
	vm_assert_eq "$(sum /tmp/w1m)" "$(vm_sum "$dev" $((1 << 20)) $((1 << 20)))" "1 MiB bypass write, read by $dev"
	vm_assert_eq "$(sum /tmp/w4k)" "$(vm_sum "$dev" $((3 << 20)) 4096)" "4 KiB bypass write, read by $dev"
	vm_assert_eq "$(sum /tmp/wcopy)" "$(vm_sum "$dev" $((5 << 20)) $((192 << 10)))" "staged bypass write, read by $dev"
done

# --- the library's asynchronous API: QD 16, poll and wait, write zeroes,
# deallocate, flush (tests/tools/rblk_bypass_probe.cpp) --------------------------------
out=$("$PROBE" -a "$t" -n "$nqn" --offset $((16 << 20)) --expect /tmp/expect 2>&1) ||
	vm_fail "rblk_bypass_probe failed: $out"
vm_log "$out"
for dev in /dev/rblk0n1 "$ref"; do
	vm_assert_eq "$(sum /tmp/expect)" "$(vm_sum "$dev" $((16 << 20)) $((320 << 10)))" \
		"the probe's region (zeroed, deallocated, written), read by $dev"
done

# --- the kernel's initiators write, bypass reads ----------------------------------------
head -c $((1 << 20)) /dev/urandom > /tmp/k1
head -c $((64 << 10)) /dev/urandom > /tmp/k2
vm_put /tmp/k1 /dev/rblk0n1 $((8 << 20))
vm_put /tmp/k2 "$ref" $((12 << 20))
br --offset 8m --length 1m --data /tmp/r1  # the bench's size suffixes
br --offset $((12 << 20)) --length $((64 << 10)) --data /tmp/r2 --copy
br --offset $((12 << 20)) --length $((64 << 10)) --event > /tmp/r3
vm_assert_eq "$(sum /tmp/k1)" "$(sum /tmp/r1)" "rblk.ko write, read by bypass"
vm_assert_eq "$(sum /tmp/k2)" "$(sum /tmp/r2)" "nvme-rdma write, read by bypass (staged)"
vm_assert_eq "$(sum /tmp/k2)" "$(sum /tmp/r3)" "nvme-rdma write, read by bypass to stdout"
# What the bypass wrote, read back by bypass too.
br --offset $((3 << 20)) --length 4096 --data /tmp/r4
vm_assert_eq "$(sum /tmp/w4k)" "$(sum /tmp/r4)" "bypass write, read by bypass"

# --- rblkctl bench --verify across the paths (the first MiB, 2 jobs) --------------------
# bench_ok WHAT QD ARGS...: the bench at iodepth QD passes and checked
# every block of the MiB. The bypass runs at QD32 and QD1, each checked by
# another path.
bench_ok() {
	local what=$1 qd=$2 out
	shift 2
	out=$("$RBLKCTL" bench --size 1M --bs 4k --iodepth "$qd" --numjobs 2 --verify "$@" 2>&1) ||
		vm_fail "$what: rblkctl bench $* failed: $out"
	vm_assert_match 'verify: 256 blocks checked, 0 mismatch' "$out" "$what: rblkctl bench $*"
	vm_log "$what: $(grep -m1 -E '^ *(read|write):' <<< "$out")"
}
bench_ok "bypass stamps at QD32" 32 --path bypass -a "$t" -n "$nqn" --rw write
bench_ok "rblk.ko checks the bypass stamps" 8 --filename /dev/rblk0n1 --rw read
bench_ok "nvme-rdma stamps" 8 --filename "$ref" --rw write
bench_ok "bypass checks the nvme-rdma stamps at QD1" 1 --path bypass -a "$t" -n "$nqn" --rw randread
bench_ok "bypass stamps at QD1" 1 --path bypass -a "$t" -n "$nqn" --rw write
bench_ok "bypass checks its own stamps at QD32" 32 --path bypass -a "$t" -n "$nqn" --rw randread

# --- bench --offset on both paths: the MiB at 24 MiB ------------------------------------
# The MiB either side is zeroed first and must stay so: the jobs keep to
# [offset, offset + size). The stamps carry each block's absolute offset,
# so the kernel paths' checks there also show where the bypass wrote.
head -c $((3 << 20)) /dev/zero > /tmp/z3m
vm_put /tmp/z3m /dev/rblk0n1 $((23 << 20))
bench_ok "bypass stamps from --offset 24m" 32 --path bypass -a "$t" -n "$nqn" --rw write --offset 24m
bench_ok "rblk.ko checks them from --offset 24m" 8 --filename /dev/rblk0n1 --rw randread --offset 24m
bench_ok "nvme-rdma stamps from --offset 24m" 8 --filename "$ref" --rw write --offset 24m
bench_ok "bypass checks them from --offset 24m" 1 --path bypass -a "$t" -n "$nqn" --rw read --offset 24m
zero=$(head -c $((1 << 20)) /dev/zero | sha256sum | cut -d' ' -f1)
for dev in /dev/rblk0n1 "$ref"; do
	vm_assert_eq "$zero" "$(vm_sum "$dev" $((23 << 20)) $((1 << 20)))" "the MiB before --offset 24m, by $dev"
	vm_assert_eq "$zero" "$(vm_sum "$dev" $((25 << 20)) $((1 << 20)))" "the MiB after --offset 24m --size 1m, by $dev"
	vm_assert_ne "$zero" "$(vm_sum "$dev" $((24 << 20)) $((1 << 20)))" "the MiB at --offset 24m, by $dev"
done
bypass_refused "--offset (32m) leaves less than --bs (4k) of /dev/rblk0n1 (33554432 bytes)" \
	bench --filename /dev/rblk0n1 --rw read --offset 32m

# --- the target restarted during a bypass write -----------------------------------------
# nvmet takes the subsystem off its port while a 16 MiB write is in
# flight (its namespace completes each I/O after 2 s) and puts it back 2 s
# later: the queues fail, the initiator reconnects within ctrl_loss_tmo
# and sends again what had not completed; the write succeeds after one
# reconnect and the data reads back.
rnqn=nqn.2024-01.io.rblk:bypass-restart
rdisk=$(vm_membacked_disk 1 32 512 0 2000000000)
vm_nvmet_subsys "$rnqn" "$rdisk"
vm_nvmet_link 1 "$rnqn"
head -c $((16 << 20)) /dev/urandom > /tmp/w16m
timeout 120 "$RBLKCTL" write --path bypass -a "$t" -n "$rnqn" -c 1 -l 60 -v --data /tmp/w16m \
	> /dev/null 2> /tmp/restart.log &
writer=$!
vm_nvmet_bounce_under_writes "$rnqn" "$rdisk"
rc=0
wait "$writer" || rc=$?
vm_assert_eq 0 "$rc" "exit code of the write the target restarted under: $(cat /tmp/restart.log)"
vm_assert_match '; 1 reconnect\(s\)$' "$(cat /tmp/restart.log)" "reconnects of the write"
"$RBLKCTL" read --path bypass -a "$t" -n "$rnqn" --length $((16 << 20)) --data /tmp/r16m ||
	vm_fail "reading back the write the target restarted under failed"
vm_assert_eq "$(sum /tmp/w16m)" "$(sum /tmp/r16m)" "16 MiB written across a target restart, read back"
echo "RESULT: target restarted during a 16 MiB bypass write: $(tail -n 1 /tmp/restart.log)"

vm_nvme_ref_disconnect "$nqn"
"$RBLKCTL" disconnect rblk0 > /dev/null || vm_fail "rblkctl disconnect rblk0 failed"
vm_rblk_unload
vm_dmesg_clean
