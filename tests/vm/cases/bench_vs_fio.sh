#!/bin/bash
# rblkctl bench measures what fio measures: the same job (4k randread,
# QD16, direct, a few seconds) through fio's io_uring engine and through
# `rblkctl bench`, alternated (fio, bench, fio, bench, ...), on an rblk
# device and on a local null_blk; the medians agree within 10% on IOPS.
# Then `rblkctl bench --verify` writes and reads back the rblk device.
#
# Under emulation (TCG) the emulated CPU is the limit of a fast device,
# and the tools share it with the device's own work (rxe and nvmet run in
# the same VM): fio spends several times more CPU per I/O than rblkctl
# bench, so on a device that completes at once it reports a fraction of
# the rate (the efficiency comparison is tests/bench/bench_vs_fio.sh, not
# this). So both disks here complete each I/O after a fixed delay (null_blk
# irqmode=2, completion_nsec): the local one directly, the rblk one as the
# nvmet namespace behind it. The device, not the tool, is then the limit
# (about QD / delay), and both tools must report what it does.
# vm-timeout: 600
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
vm_require "$RBLKCTL"

nqn=nqn.2024-01.io.rblk:bench
# The host's load moves both tools' figures by ~10% from run to run here:
# medians of 5 alternated runs.
rounds=${RBLK_BENCH_ROUNDS:-5}
runtime=${RBLK_BENCH_RUNTIME:-3}
tolerance=10  # percent
work=$RBLK_VM_OUT/bench_vs_fio
mkdir -p "$work"

# latency_nullb NAME DELAY_NS: a memory-backed null_blk completing each
# I/O after DELAY_NS; prints its /dev path.
latency_nullb() {
	local d=$VM_NULLB/$1
	[ -d "$VM_NULLB" ] || vm_modprobe null_blk nr_devices=0
	mkdir "$d"
	echo 128 > "$d/size"
	echo 1 > "$d/memory_backed"
	echo 2 > "$d/irqmode"
	echo "$2" > "$d/completion_nsec"
	echo 1 > "$d/power"
	vm_wait_for 5 vm__nullb_dev "$d" > /dev/null
	vm__nullb_dev "$d"
}
# The delay must dwarf the time the rest takes: I/Os submitted together
# complete together and are then handled one by one, so each also waits up
# to QD x the CPU per I/O. Locally that is the tool's (fio's ~125 us here is
# 2 ms at QD16: 16% slower than rblkctl bench with a 10 ms delay, 4% with
# 40 ms); through rblk it is mostly the emulated RDMA stack's and nvmet's
# (~1 ms an I/O, ~13 ms a burst), whose share, and the host's noise in it,
# a 100 ms delay keeps small. At most QD / delay: 160 and 400 IOPS.
rblk_delay_ns=100000000 null_delay_ns=40000000
vm_setup_rxe
vm_nvmet_subsys "$nqn" "$(latency_nullb target "$rblk_delay_ns")"
vm_nvmet_port 1 10.99.0.1 4420
vm_nvmet_link 1 "$nqn"
vm_rblk_load
vm_rblk_connect "$nqn" > /dev/null
vm_assert_exists /dev/rblk0n1
null=$(latency_nullb local "$null_delay_ns")

# The job, in both tools' words. fio registers buffers and the file as
# rblkctl bench always does, and draws offsets like it (uniform, repeats).
job=(randread 4k 16)
# run_fio DEV [SECONDS] / run_bench DEV [SECONDS]: the read IOPS.
run_fio() {
	local out=$work/fio.json
	VM_FIO_TIMEOUT=60 vm_fio "$out" --name=job --filename="$1" --ioengine=io_uring \
		--rw="${job[0]}" --bs="${job[1]}" --iodepth="${job[2]}" --runtime="${2:-$runtime}s" \
		--time_based --direct=1 --fixedbufs=1 --registerfiles=1 --norandommap \
		--randrepeat=0 --thread
	iops < "$out"
}
run_bench() {
	local out=$work/bench.json
	timeout -k 5 60 "$RBLKCTL" bench --filename "$1" --rw "${job[0]}" --bs "${job[1]}" \
		--iodepth "${job[2]}" --runtime "${2:-$runtime}s" --json > "$out" ||
		vm_fail "rblkctl bench on $1 failed: $(tail -c 2000 "$out")"
	iops < "$out"
}
# Read IOPS of a JSON report on stdin (both use fio's field names).
iops() {
	python3 -c 'import json, sys
print(round(sum(j["read"]["iops"] for j in json.load(sys.stdin)["jobs"])))'
}
median() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }

compare() {
	local dev=$1 what=$2 i f r fios=() benches=() fm bm
	# Warm-up, not counted: the first run of each pages its binary in over 9p.
	f=$(run_fio "$dev" 1)
	r=$(run_bench "$dev" 1)
	echo "$what warm-up (1 s): fio $f IOPS, rblkctl bench $r IOPS"
	for ((i = 1; i <= rounds; i++)); do
		f=$(run_fio "$dev")
		r=$(run_bench "$dev")
		fios+=("$f") benches+=("$r")
		echo "$what round $i: fio $f IOPS, rblkctl bench $r IOPS"
	done
	fm=$(median "${fios[@]}") bm=$(median "${benches[@]}")
	echo "$what: median fio $fm IOPS, rblkctl bench $bm IOPS," \
		"bench/fio $(python3 -c "print('%.3f' % ($bm / $fm))")" \
		"(median of the rounds' ratios $(python3 -c "import statistics as s
print('%.3f' % s.median([b / f for b, f in zip([${benches[*]/%/,}], [${fios[*]/%/,}])]))"))"
	[ "$fm" -gt 0 ] || vm_fail "$what: fio measured no I/O"
	python3 -c "import sys; sys.exit(abs($bm - $fm) * 100 > $tolerance * $fm)" ||
		vm_fail "$what: rblkctl bench ($bm IOPS) and fio ($fm IOPS) differ by more than $tolerance%"
}

echo "job: ${job[0]} bs=${job[1]} iodepth=${job[2]} runtime=${runtime}s direct," \
	"$rounds rounds alternated"
compare /dev/rblk0n1 "rblk (nvmet-rdma over rxe, $((rblk_delay_ns / 1000)) us per I/O)"
compare "$null" "null_blk ($null, $((null_delay_ns / 1000)) us per I/O)"

# --verify: a timed random write pass, then the whole write pass read back
# and checked block by block.
out=$work/verify.json
timeout -k 5 120 "$RBLKCTL" bench --filename /dev/rblk0n1 --rw randwrite --bs 4k --iodepth 8 \
	--size 32m --runtime 3s --verify --json > "$out" ||
	vm_fail "rblkctl bench --verify failed: $(tail -c 2000 "$out")"
python3 - "$out" <<'PY' || vm_fail "rblkctl bench --verify report: $(cat "$out")"
import json, sys
agg = json.load(open(sys.argv[1]))["aggregate"]
v = agg["verify"]
print("verify: %d blocks written, %d checked, %d mismatches"
      % (agg["write"]["total_ios"], v["blocks_checked"], v["mismatches"]))
assert agg["error"] == 0, agg["error_message"]
assert agg["write"]["total_ios"] > 0 and v["blocks_checked"] > 0, v
assert v["mismatches"] == 0 and not v["errors"], v
PY
# Sequential too, over a whole range: every block written is checked.
out=$work/verify-seq.json
timeout -k 5 120 "$RBLKCTL" bench --filename /dev/rblk0n1 --rw write --bs 64k --iodepth 4 \
	--size 16m --verify --json > "$out" ||
	vm_fail "rblkctl bench --rw write --verify failed: $(tail -c 2000 "$out")"
python3 - "$out" <<'PY' || vm_fail "rblkctl bench --rw write --verify report: $(cat "$out")"
import json, sys
agg = json.load(open(sys.argv[1]))["aggregate"]
v = agg["verify"]
print("verify (sequential 16 MiB): %d blocks checked, %d mismatches"
      % (v["blocks_checked"], v["mismatches"]))
assert agg["error"] == 0 and v["mismatches"] == 0, v
assert v["blocks_checked"] == 256, v
PY

"$RBLKCTL" disconnect rblk0 > /dev/null || vm_fail "rblkctl disconnect rblk0 failed"
vm_wait_for 10 test -z "$(vm_rblk_disks)"
vm_rblk_unload
vm_dmesg_clean
