#!/bin/bash
# Data integrity: fio io_uring write + crc32c verify, random 4k at QD16 and
# sequential 128k, one job per I/O queue (each job pinned to a CPU of its
# own hardware queue, and each queue's RDMA QP seen carrying that job's
# commands); then data written through rblk reads back byte-identical
# through the kernel's nvme-rdma on the same namespace, and the reverse.
# A busy host stretches it to ~290 s (measured): the budget allows that.
# vm-timeout: 900
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
vm_require "$RBLKCTL"

nqn=nqn.2024-01.io.rblk:fio-verify
mib=$((1 << 20))
vm_rdma_target "$nqn" 192 > /dev/null
vm_rblk_load
vm_rblk_connect "$nqn" > /dev/null
dev=/dev/rblk0n1
nq=$(cat /sys/class/rblk/rblk0/nr_io_queues)
vm_assert_eq "$(nproc)" "$nq" "I/O queues (one per CPU by default)"

# Job i runs on CPU i (cpus_allowed_policy=split), so every hardware queue
# gets one: blk-mq maps CPU i to queue i.
path=$(vm_rblk_path_disk rblk0)
for ((i = 0; i < nq; i++)); do
	vm_assert_eq "$i" "$(cat "/sys/block/$path/mq/$i/cpu_list")" "CPUs of hardware queue $i"
done

# Packets each of rblk's queues has sent, in queue order (admin first):
# the sq-psn of each RC QP of soft-RoCE that rblk owns. Of the two QPs of
# a connection, the initiator's is the lower number: it is created before
# the target accepts. PSNs are 24 bits and start anywhere.
qp_psns() {
	rdma -j resource show qp | python3 -c '
import json, sys
qps = [q for q in json.load(sys.stdin) if q.get("type") == "RC"]
print(" ".join(str(q["sq-psn"]) for q in sorted(qps, key=lambda q: q["lqpn"])
               if q["lqpn"] < q["rqpn"]))'
}
# soft-iWARP (RBLK_VM_RDMA=siw) has no PSN to read: its QPs ride TCP.
# There, the commands each queue posted as rblk's debugfs counts them
# (the admin queue, which it does not list, as 0): one SEND a command.
if [ "$VM_RDMA" = siw ]; then
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	qp_psns() {
		local qid posted out=0
		while read -r qid _ _ posted _; do
			[ "$qid" = qid ] || out+=" $posted"
		done < /sys/kernel/debug/rblk/rblk0/queues
		echo "$out"
	}
fi
read -ra psn0 <<< "$(qp_psns)"
vm_assert_eq $((nq + 1)) "${#psn0[@]}" "rblk's RDMA queue pairs (admin + I/O)"

# verify_job NAME MIN_SENDS FIO_ARGS...: write, then read back and check
# every block; each I/O queue must have sent MIN_SENDS commands at least.
verify_job() {
	local name=$1 min=$2 psn1 i sent
	shift 2
	read -ra psn0 <<< "$(qp_psns)"
	vm_fio "/tmp/$name.json" --name="$name" --filename="$dev" --ioengine=io_uring \
		--direct=1 --numjobs="$nq" --cpus_allowed="0-$((nq - 1))" \
		--cpus_allowed_policy=split --verify=crc32c --do_verify=1 --verify_fatal=1 "$@"
	read -ra psn1 <<< "$(qp_psns)"
	for ((i = 1; i <= nq; i++)); do
		sent=$(( (psn1[i] - psn0[i]) & 0xffffff ))
		vm_log "$name: I/O queue $i sent $sent packets"
		[ "$sent" -ge "$min" ] || vm_fail "$name: I/O queue $i sent $sent packets, expected $min at least"
	done
	python3 - "/tmp/$name.json" "$nq" <<'PY' || vm_fail "$name: fio report"
import json, sys
jobs = json.load(open(sys.argv[1]))["jobs"]
assert len(jobs) == int(sys.argv[2]), len(jobs)
for j in jobs:
    w, r = j["write"], j["read"]
    # Everything written was read back (fio counts verify reads as reads).
    assert w["io_bytes"] > 0 and r["io_bytes"] == w["io_bytes"], (j["jobname"], w["io_bytes"], r["io_bytes"])
    print("%s: %d KiB written and verified, %.0f write IOPS" % (j["jobname"], w["io_bytes"] // 1024, w["iops"]))
PY
}

# Each job has its own region (offset_increment), so no job checks blocks
# another one rewrote.
# A job's commands: its writes and as many verify reads.
verify_job rand4k $((2 * 8 * 256)) --rw=randwrite --bs=4k --iodepth=16 --size=8M --offset_increment=8M
verify_job seq128k $((2 * 16 * 8)) --rw=write --bs=128k --iodepth=8 --size=16M --offset=64M --offset_increment=16M
vm_assert_eq 0 "$(cat /sys/class/rblk/rblk0/errors)" "controller errors"

# rblk -> nvme-rdma: the regions fio wrote, and a fresh random 16 MiB.
ref=$(vm_nvme_ref_connect "$nqn")
for region in "0 $((8 * nq))" "64 $((16 * nq))"; do
	read -r off len <<< "$region"
	vm_assert_eq "$(vm_sum "$dev" $((off * mib)) $((len * mib)))" \
		"$(vm_sum "$ref" $((off * mib)) $((len * mib)))" \
		"fio's $len MiB at $off MiB through rblk and through nvme-rdma"
done
head -c 16M /dev/urandom > /tmp/a
vm_put /tmp/a "$dev" $((140 * mib))
vm_assert_eq "$(sha256sum < /tmp/a | cut -d' ' -f1)" "$(vm_sum "$ref" $((140 * mib)) $((16 * mib)))" \
	"written through rblk, read through nvme-rdma"
# nvme-rdma -> rblk, at an offset that is not a multiple of 4k.
head -c 8M /dev/urandom > /tmp/b
off=$((160 * mib + 3 * 512))
vm_put /tmp/b "$ref" "$off"
vm_assert_eq "$(sha256sum < /tmp/b | cut -d' ' -f1)" "$(vm_sum "$dev" "$off" $((8 * mib)))" \
	"written through nvme-rdma, read through rblk"
vm_nvme_ref_disconnect "$nqn"

vm_assert_eq 0 "$(cat /sys/class/rblk/rblk0/errors)" "controller errors"
"$RBLKCTL" disconnect rblk0 > /dev/null || vm_fail "rblkctl disconnect rblk0 failed"
vm_rblk_unload
vm_dmesg_clean
