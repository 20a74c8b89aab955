#!/bin/bash
# tests/bench/vs_nvme_rdma.sh for real, on a tiny subset: one job
# (4k-randread-qd32), 1 round of 1 s, both modes, profiled. Its outputs
# must be well formed: every job x side x mode x round ran and has IOPS,
# latency and CPU per I/O above 0 (results.json, with the raw fio report,
# /proc/stat window and perf report of each run beside it), the table has
# every metric of each mode, each profile's shares add up to 100% and
# name soft-RoCE (the module attribution works), its shares by process
# too, with fio's process and the kworkers in them, the plot is a PNG. Bad
# options are refused with one line and exit 2. Nothing is said of the
# figures themselves: they are the benchmark's to show, not to judge.
# It checks a userspace script, so it runs on the newest kernel only.
# One round, for the suite's time: the order of the sides from round to
# round is the script's (unit.bench_report checks the report's ratios over
# rounds). Measured on 6.12 beside other VMs: 289 s with 2 rounds, of
# which setup ~50 s and each profiled 1 s run 10-25 s (fio's and perf's
# start, perf report): hence the budget.
# vm-timeout: 480
# vm-kernels: newest
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
bench=$RBLK_SRC_DIR/tests/bench/vs_nvme_rdma.sh
out=$RBLK_VM_OUT/bench

for bad in "--jobs nope" "--mode fast" "--frobnicate" "--jobs 4k-randread-halfrate"; do
	rc=0
	# shellcheck disable=SC2086 # the words of one bad option
	err=$("$bench" $bad 2>&1 > /dev/null) || rc=$?
	vm_assert_eq 2 "$rc" "exit code of vs_nvme_rdma.sh $bad"
	vm_assert_match '^vs_nvme_rdma: ' "$err" "stderr of vs_nvme_rdma.sh $bad"
	vm_assert_eq 1 "$(wc -l <<< "$err")" "lines on stderr of vs_nvme_rdma.sh $bad"
done

t0=$(vm_now_ms)
"$bench" --jobs 4k-randread-qd32 --rounds 1 --runtime 1 --mode both --sides rblk,nvme-rdma --profile --out "$out" \
	> "$RBLK_VM_OUT/bench.log" 2>&1 ||
	vm_fail "vs_nvme_rdma.sh failed: $(tail -n 20 "$RBLK_VM_OUT/bench.log")"
echo "RESULT: vs_nvme_rdma.sh ran in $(vm_ms_since "$t0") ms"
cat "$out/results.md"

python3 - "$out" <<'PY' || vm_fail "the benchmark's outputs are not well formed"
import json, os, sys
out = sys.argv[1]
res = json.load(open(os.path.join(out, "results.json")))
modes, sides, jobs = ["interrupt", "polled"], ["rblk", "nvme-rdma"], ["4k-randread-qd32"]
assert res["meta"]["modes"] == modes, res["meta"]["modes"]
assert [j["name"] for j in res["meta"]["jobs"]] == jobs, res["meta"]["jobs"]
metrics = ["iops", "mib_s", "lat_mean_us", "lat_p50_us", "lat_p99_us", "lat_p999_us",
           "cpu_us_per_io", "iops_per_cpu_s"]
md = open(os.path.join(out, "results.md")).read()
for mode in modes:
    assert "## %s mode" % mode in md, "no %s table" % mode
    assert sorted(res["modes"][mode]) == jobs, res["modes"][mode].keys()
    for name in jobs:
        job = res["modes"][mode][name]
        assert [r["round"] for r in job["rounds"]] == [1], (mode, name, job["rounds"])
        for r in job["rounds"]:
            for side in sides:
                base = os.path.join(out, "raw", mode, name, "%d.%s" % (r["round"], side))
                for ext in (".fio.json", ".cpu", ".perf.txt"):
                    assert os.path.getsize(base + ext) > 0, base + ext
                for m in metrics:
                    v = r[side][m]
                    assert v is not None and v > 0, (mode, name, r["round"], side, m, v)
        for m in metrics:
            ratio = job["ratio"][m]
            assert ratio["min"] <= ratio["median"] <= ratio["max"], (mode, name, m, ratio)
        for side in sides:
            p = job["profile"][side]
            total = sum(p["samples"].values())
            shares = sum(p["shares_pct"].values())
            assert total > 0, (mode, side, "no perf samples")
            assert abs(shares - 100) < 0.01, (mode, side, shares)
            assert p["samples"]["rxe"] > 0, (mode, side, "no soft-RoCE samples", p["samples"])
            procs = p["process_pct"]
            assert abs(sum(procs.values()) - 100) < 0.01, (mode, side, procs)
            assert procs["app"] > 0 and procs["kworker"] > 0, (mode, side, procs)
# Per mode and job: a row per metric, a profile row and a by-process row per side.
rows = [l for l in md.splitlines() if l.startswith("| 4k randread QD32 | ")]
assert len(rows) == len(modes) * (len(metrics) + 2 * len(sides)), rows
png = open(os.path.join(out, "latency.png"), "rb").read(8)
assert png == b"\x89PNG\r\n\x1a\n", png
print("outputs well formed: %d modes x %d jobs x 1 round x 2 sides" % (len(modes), len(jobs)))
PY
