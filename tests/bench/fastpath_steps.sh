#!/usr/bin/env bash
# What rblk's one fast-path choice is worth (tests/bench/README.md,
# "Performance: the fast path, measured"): one
# VM, one nvmet-rdma target on null_blk, nvme-rdma connected once and rblk
# once per variant and round (the bh_posts module parameter is read-only:
# rblk is reloaded with it), all with 2 I/O queues x 128; per round, fio
# on rblk as shipped and on nvme-rdma back to back for each job, then on
# rblk with bh_posts=Y. Prints each variant's IOPS and CPU per I/O as the
# median of its per-round ratios to nvme-rdma, with min and max. A
# measurement to read: it fails only when a tool does, never on a ratio.
#
# On the host it boots the VM itself:
#   tests/bench/fastpath_steps.sh [--kernel 6.1|6.12] [--build-dir build]
#       [--rounds N] [--runtime S]
# Defaults: 3 rounds of 5 s, jobs 4k randread QD32 and QD1.
set -euo pipefail
# A benchmark boots without the suite's memory checks (KFENCE's sampling
# timer and guarded allocations are noise to it): RBLK_VM_MEMCHECK in
# run-in-vm.sh.
export RBLK_VM_MEMCHECK=${RBLK_VM_MEMCHECK:-0}

rounds=3 runtime=5
if [ -z "${RBLK_SRC_DIR:-}" ]; then
	vm=(--build-dir build --timeout 1800)
	args=()
	while [ $# -gt 0 ]; do
		case $1 in
		--kernel|--build-dir|--timeout) vm+=("$1" "$2"); shift 2 ;;
		--rounds|--runtime) args+=("$1" "$2"); shift 2 ;;
		*) echo "fastpath_steps: unknown option $1 (see the header of $0)" >&2; exit 2 ;;
		esac
	done
	exec "$(dirname "$0")/../vm/run-in-vm.sh" "${vm[@]}" --name bench.fastpath_steps \
		"$0" "${args[@]}"
fi
# shellcheck source=tests/vm/lib.sh
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=$2; shift 2 ;;
	--runtime) runtime=$2; shift 2 ;;
	*) vm_fail "fastpath_steps: unknown argument $1" ;;
	esac
done
vm_require "$RBLKCTL"

nqn=nqn.2024-01.io.rblk:steps
vm_setup_rxe
vm_modprobe null_blk nr_devices=0
nullb=$VM_NULLB/steps
mkdir "$nullb"
echo 1024 > "$nullb/size"
echo 1 > "$nullb/power"
vm_wait_for 30 vm__nullb_dev "$nullb" > /dev/null
vm_nvmet_subsys "$nqn" "$(vm__nullb_dev "$nullb")"
vm_nvmet_port 1 10.99.0.1 4420
vm_nvmet_link 1 "$nqn"
vm_modprobe nvme-rdma
ref=$(vm_nvme_ref_connect "$nqn" 10.99.0.1 4420 --nr-io-queues=2 --queue-size=128)

# rblk_as BH: rblk (re)loaded with bh_posts=BH and connected; sets dev.
rblk_as() {
	if [ -e /sys/module/rblk ]; then
		"$RBLKCTL" disconnect --all > /dev/null || vm_fail "rblkctl disconnect --all failed"
		vm_rblk_unload
	fi
	vm_rblk_load bh_posts="$1"
	vm_rblk_connect "$nqn" --nr-io-queues 2 --queue-size 128 > /dev/null
	dev=/dev/$(vm_rblk_ctrls)n1
	vm_assert_exists "$dev"
}
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }
out=/tmp/fastpath_steps
mkdir -p "$out"
# run VARIANT DEV JOB: one fio run, its line for the summary.
run() {
	local a b
	a=$(busy)
	# shellcheck disable=SC2086 # $3: the words of the fio job
	fio --output-format=json --output="$out/run.json" --name=j --filename="$2" \
		--ioengine=io_uring --direct=1 --time_based --runtime="$runtime" $3 > /dev/null ||
		vm_fail "fio on $2 failed"
	b=$(busy)
	python3 - "$round" "$3" "$1" "$((b - a))" "$out/run.json" <<'PY' >> "$out/lines"
import json, sys
rnd, job, name, busy, path = sys.argv[1:]
r = json.load(open(path))["jobs"][0]["read"]
print("%s|%s|%s|%.1f|%.1f" % (rnd, job, name, r["iops"], int(busy) * 1e6 / 100 / max(r["total_ios"], 1)))
PY
}
: > "$out/lines"
jobs=("--rw=randread --bs=4k --iodepth=32" "--rw=randread --bs=4k --iodepth=1")
for ((round = 1; round <= rounds; round++)); do
	rblk_as N
	for job in "${jobs[@]}"; do
		run default "$dev" "$job"
		run nvme-rdma "$ref" "$job"
	done
	rblk_as Y
	for job in "${jobs[@]}"; do
		run default+bh_posts "$dev" "$job"
	done
	vm_log "round $round done"
done
vm_nvme_ref_disconnect "$nqn"
"$RBLKCTL" disconnect --all > /dev/null || vm_fail "rblkctl disconnect --all failed"

echo "kernel $(uname -r): ${rounds} rounds of ${runtime} s, 4k randread on null_blk over soft-RoCE;"
echo "median [min-max] of the per-round ratios to nvme-rdma (CPU: us of busy vCPU per I/O)"
python3 - "$out/lines" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    rnd, job, name, iops, cpu = line.strip().split("|")
    runs[job, rnd][name] = (float(iops), float(cpu))
variants = ["default", "default+bh_posts"]
for job in dict.fromkeys(j for j, _ in runs):
    print("\n%s" % job)
    print("%-18s %-22s %s" % ("rblk variant", "IOPS", "CPU per I/O"))
    for v in variants:
        cells = []
        for i in (0, 1):
            r = [runs[k][v][i] / runs[k]["nvme-rdma"][i] for k in runs
                 if k[0] == job and runs[k]["nvme-rdma"][i]]
            cells.append("%.2f [%.2f-%.2f]" % (statistics.median(r), min(r), max(r)))
        print("%-18s %-22s %s" % (v, cells[0], cells[1]))
PY
