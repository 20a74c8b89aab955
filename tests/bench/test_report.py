"""Host tests of tests/bench/report.py on synthetic fio reports, /proc/stat
samples and perf reports (python3 -m unittest, from tests/bench)."""
import contextlib
import io
import json
import os
import tempfile
import unittest

import report

CPU_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")


def ddir(ios=0, iops=0.0, bw=0, mean_ns=0.0, bins=None):
    bins = bins or {}
    return {"total_ios": ios, "iops": iops, "bw_bytes": bw,
            "lat_ns": {"mean": mean_ns, "N": sum(bins.values()),
                       "bins": {str(k): v for k, v in bins.items()}}}


def fio_report(read=None, write=None, error=0):
    return {"jobs": [{"jobname": "job", "error": error,
                      "read": read or ddir(), "write": write or ddir()}]}


def cpu_line(what, **ticks):
    return "%s cpu  %s 0 0\n" % (what, " ".join(str(ticks.get(f, 0)) for f in CPU_FIELDS))


def write_run(jobdir, rnd, side, iops, busy_ticks=50, lat_us=100, perf=None):
    """One run of IOPS 4k reads over 1 s, BUSY_TICKS of CPU in its window."""
    os.makedirs(jobdir, exist_ok=True)
    base = os.path.join(jobdir, "%d.%s" % (rnd, side))
    ios = int(iops)
    rep = fio_report(read=ddir(ios, iops, ios * 4096, lat_us * 1000.0,
                               {lat_us * 1000: ios - 1, lat_us * 10000: 1}))
    with open(base + ".fio.json", "w") as f:
        f.write("note: fio may print this first\n" + json.dumps(rep))
    with open(base + ".cpu", "w") as f:
        f.write(cpu_line("pre", user=1000, system=500, idle=9000))
        f.write(cpu_line("post", user=1000 + busy_ticks, system=500, idle=9100))
    if perf is not None:
        with open(base + ".perf.txt", "w") as f:
            f.write(perf)


PERF = """# To display the perf.data header info, please use --header/--header-only options.
#
# Samples: 100  of event 'cpu-clock'
# Overhead|     Samples|Command  |Shared Object        |Symbol
 40.00%  | 40         |swapper  |[kernel.kallsyms]    |[k] pv_native_safe_halt
 20.00%  | 20         |fio      |[rblk]               |[k] rblk_queue_rq
 10.00%  | 10         |fio      |[kernel.kallsyms]    |[k] blk_mq_submit_bio
 10.00%  | 10         |kworker  |[rdma_rxe]           |[k] rxe_requester
  5.00%  | 5          |fio      |fio                  |[.] get_io_u
  5.00%  | 5          |fio      |libc.so.6            |[.] memset
  5.00%  | 5          |swapper  |[kernel.kallsyms]    |[k] __netif_receive_skb_core
  3.00%  | 3          |bash     |bash                 |[.] main
  2.00%  | 2          |kworker  |[kernel.kallsyms]    |[k] schedule
"""


def make_dir(root, profile=False):
    """A run of the script: one mode, 4k-randread-qd32 over 3 rounds with
    rblk/nvme-rdma IOPS ratios 0.5, 1 and 2, and the fixed-rate job (a
    meta.json of before the bypass side: no "sides")."""
    meta = {"kernel": "test", "nr_io_queues": 2, "queue_size": 128, "runtime_s": 1,
            "rounds": 3, "clk_tck": 100, "modes": ["interrupt"],
            "rate_iops": {"interrupt": 100},
            "jobs": [{"name": "4k-randread-qd32", "title": "4k randread QD32"},
                     {"name": "4k-randread-halfrate", "title": "4k randread QD32",
                      "fixed_rate": True}]}
    with open(os.path.join(root, "meta.json"), "w") as f:
        json.dump(meta, f)
    jobdir = os.path.join(root, "raw", "interrupt", "4k-randread-qd32")
    perf = PERF if profile else None
    for rnd, (a, b) in enumerate([(100, 200), (300, 300), (400, 200)], 1):
        write_run(jobdir, rnd, "rblk", a, perf=perf)
        write_run(jobdir, rnd, "nvme-rdma", b, busy_ticks=100, perf=perf)
    jobdir = os.path.join(root, "raw", "interrupt", "4k-randread-halfrate")
    for rnd in (1, 2, 3):
        write_run(jobdir, rnd, "rblk", 100, busy_ticks=20)
        write_run(jobdir, rnd, "nvme-rdma", 100, busy_ticks=40)


BYPASS_PERF = """# Samples: 100  of event 'cpu-clock'
# Overhead|     Samples|Command  |Shared Object        |Symbol
 30.00%  | 30         |fio      |librblk_fio.so       |[.] rblk::bypass::Queue::poll
 20.00%  | 20         |fio      |libibverbs.so.1.14.44.0 |[.] ibv_poll_cq
 20.00%  | 20         |fio      |librxe-rdmav34.so    |[.] rxe_poll_cq
 10.00%  | 10         |fio      |[rdma_rxe]           |[k] rxe_post_send
 10.00%  | 10         |fio      |fio                  |[.] td_io_queue
 10.00%  | 10         |swapper  |[kernel.kallsyms]    |[k] default_idle
"""


def make_three(root, profile=False, with_bypass_round3=True):
    """Sides rblk, nvme-rdma and bypass, one mode, QD32 and QD1 over 3
    rounds (round 3 without bypass unless WITH_BYPASS_ROUND3)."""
    meta = {"kernel": "test", "nr_io_queues": 2, "queue_size": 128, "runtime_s": 1,
            "rounds": 3, "clk_tck": 100, "modes": ["polled"],
            "sides": ["rblk", "nvme-rdma", "bypass"],
            "notes": ["ublk left out: kernel test has no ublk (ublk_drv)"],
            "jobs": [{"name": "4k-randread-qd1", "title": "4k randread QD1"},
                     {"name": "4k-randread-qd32", "title": "4k randread QD32"}]}
    with open(os.path.join(root, "meta.json"), "w") as f:
        json.dump(meta, f)
    for job, scale in (("4k-randread-qd32", 10), ("4k-randread-qd1", 1)):
        jobdir = os.path.join(root, "raw", "polled", job)
        for rnd in (1, 2, 3):
            write_run(jobdir, rnd, "rblk", 100 * scale, busy_ticks=100, lat_us=100,
                      perf=PERF if profile else None)
            write_run(jobdir, rnd, "nvme-rdma", 100 * scale, busy_ticks=100, lat_us=100,
                      perf=PERF if profile else None)
            if rnd < 3 or with_bypass_round3:
                # Twice rblk's I/Os for the same CPU, latency 0.5x at round 1
                # and 0.7x at round 2 (1 000 I/Os of 50/70 us), 0.5x at 3.
                lat = {1: 50, 2: 70, 3: 50}[rnd]
                write_run(jobdir, rnd, "bypass", 200 * scale, busy_ticks=100, lat_us=lat,
                          perf=BYPASS_PERF if profile else None)


class Percentiles(unittest.TestCase):
    def test_fio_rule(self):
        # The first bucket at which the count reaches p% of the I/Os.
        bins = {100: 50, 200: 40, 300: 9, 1000: 1}
        self.assertEqual(report.percentile(bins, 50), 100)
        self.assertEqual(report.percentile(bins, 50.1), 200)
        self.assertEqual(report.percentile(bins, 90), 200)
        self.assertEqual(report.percentile(bins, 99), 300)
        self.assertEqual(report.percentile(bins, 99.9), 1000)
        self.assertIsNone(report.percentile({}, 50))

    def test_mixed_job_adds_both_directions(self):
        rep = fio_report(read=ddir(700, 700.0, 700 * 4096, 100000.0, {100000: 700}),
                         write=ddir(300, 300.0, 300 * 4096, 200000.0, {200000: 300}))
        m = report.fio_metrics(rep)
        self.assertEqual(m["ios"], 1000)
        self.assertEqual(m["iops"], 1000.0)
        self.assertAlmostEqual(m["mib_s"], 1000 * 4096 / 2**20)
        # Weighted by the I/O counts: (700 x 100 + 300 x 200) / 1000.
        self.assertAlmostEqual(m["lat_mean_us"], 130.0)
        self.assertEqual(m["lat_p50_us"], 100.0)
        self.assertEqual(m["lat_p99_us"], 200.0)
        # 70% of the I/Os took 100 us: p50 is a read's, p75 a write's.
        self.assertEqual(m["lat_percentiles_us"]["75"], 200.0)

    def test_fio_error_is_not_a_result(self):
        with self.assertRaises(ValueError):
            report.fio_metrics(fio_report(read=ddir(1, 1.0, 4096, 1.0, {1: 1}), error=5))


class Cpu(unittest.TestCase):
    def test_window_and_busy_fields(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "w.cpu")
            with open(path, "w") as f:
                # Two jobs (numjobs=2): the first pre to the last post.
                f.write(cpu_line("pre", user=10, nice=1, system=20, idle=100, iowait=5,
                                 irq=2, softirq=3, steal=7))
                f.write(cpu_line("pre", user=11, nice=1, system=20, idle=100, iowait=5,
                                 irq=2, softirq=3, steal=7))
                # The hooks sample before they lock: the latest may
                # come first.
                f.write(cpu_line("post", user=20, nice=3, system=30, idle=200, iowait=10,
                                 irq=4, softirq=8, steal=9))
                f.write(cpu_line("post", user=15, nice=2, system=28, idle=150, iowait=9,
                                 irq=3, softirq=6, steal=8))
            busy, total = report.cpu_window(path)
            # user 10 + nice 2 + system 10 + irq 2 + softirq 5; not idle
            # 100, iowait 5, steal 2.
            self.assertEqual(busy, 29)
            self.assertEqual(total, 29 + 100 + 5 + 2)

    def test_no_window_is_an_error(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "w.cpu")
            with open(path, "w") as f:
                f.write(cpu_line("pre", user=1))
            with self.assertRaises(ValueError):
                report.cpu_window(path)

    def test_cpu_per_io(self):
        with tempfile.TemporaryDirectory() as d:
            write_run(d, 1, "rblk", 1000, busy_ticks=50)
            m = report.run_metrics(os.path.join(d, "1.rblk"), 100)
            # 50 ticks of 10 ms = 0.5 s of vCPU time over 1000 I/Os.
            self.assertAlmostEqual(m["cpu_us_per_io"], 500.0)
            # 1000 I/Os per 0.5 busy CPU-second.
            self.assertAlmostEqual(m["iops_per_cpu_s"], 2000.0)
            self.assertAlmostEqual(m["cpu_busy_pct"], 100.0 * 50 / 150)


class Profile(unittest.TestCase):
    def test_classify(self):
        c = report.classify
        self.assertEqual(c("fio", "[rblk]", "[k] rblk_queue_rq"), "rblk")
        self.assertEqual(c("fio", "[nvme_core]", "[k] nvme_setup_cmd"), "nvme_rdma")
        self.assertEqual(c("fio", "[nvme_rdma]", "[k] nvme_rdma_queue_rq"), "nvme_rdma")
        self.assertEqual(c("kworker/0:1", "[ib_core]", "[k] ib_poll_cq"), "rxe")
        self.assertEqual(c("kworker/0:1", "[nvmet_rdma]", "[k] nvmet_rdma_recv_done"), "nvmet")
        self.assertEqual(c("kworker/0:1", "[null_blk]", "[k] null_queue_rq"), "null_blk")
        self.assertEqual(c("fio", "[kernel.kallsyms]", "[k] io_submit_sqes"), "block")
        self.assertEqual(c("fio", "[kernel.kallsyms]", "[k] __blk_mq_end_request"), "block")
        self.assertEqual(c("swapper", "[kernel.kallsyms]", "[k] default_idle"), "idle")
        self.assertEqual(c("swapper", "[kernel.kallsyms]", "[k] net_rx_action"), "net")
        self.assertEqual(c("fio", "fio", "[.] td_io_queue"), "fio")
        self.assertEqual(c("fio", "libc.so.6", "[.] memcpy"), "fio")
        self.assertEqual(c("perf", "perf", "[.] main"), "other_user")
        self.assertEqual(c("kworker", "[kernel.kallsyms]", "[k] schedule"), "other_kernel")
        self.assertEqual(c("kworker", "[virtio_pci]", "[k] vp_notify"), "other_kernel")
        # The bypass path's user space: rblk's code, the verbs libraries.
        self.assertEqual(c("fio", "librblk_fio.so", "[.] rblk_fio_reap"), "bypass")
        self.assertEqual(c("fio", "/usr/lib/rblk/librblk_fio.so", "[.] x"), "bypass")
        self.assertEqual(c("rblkctl", "rblkctl", "[.] rblk::bypass::Queue::poll"), "bypass")
        self.assertEqual(c("fio", "libibverbs.so.1.14.44.0", "[.] ibv_poll_cq"), "verbs")
        self.assertEqual(c("fio", "librxe-rdmav34.so", "[.] rxe_post_send"), "verbs")
        self.assertEqual(c("fio", "librdmacm.so.1.3.44.0", "[.] rdma_get_cm_event"), "verbs")
        self.assertEqual(c("rblkctl", "[ublk_drv]", "[k] ublk_ch_uring_cmd"), "ublk")
        # --kallsyms: a module's symbol under [kernel.kallsyms].
        mods = {"rblk_queue_rq": "[rblk]", "rxe_requester": "[rdma_rxe]"}
        self.assertEqual(c("fio", "[kernel.kallsyms]", "[k] rblk_queue_rq", mods), "rblk")
        self.assertEqual(c("kw", "[kernel.kallsyms]", "[k] rxe_requester", mods), "rxe")
        self.assertEqual(c("kw", "[kernel.kallsyms]", "[k] schedule", mods), "other_kernel")

    def test_module_symbols(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "module-symbols.txt")
            with open(path, "w") as f:
                f.write("rblk_queue_rq [rblk]\nrxe_requester [rdma_rxe]\ninit_module [rblk]\n"
                        "init_module [null_blk]\n")
            self.assertEqual(report.module_symbols(path), {
                "rblk_queue_rq": "[rblk]", "rxe_requester": "[rdma_rxe]",
                "init_module": "[rblk]"})
            self.assertEqual(report.module_symbols(os.path.join(d, "none")), {})

    def test_samples(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "p.txt")
            with open(path, "w") as f:
                f.write(PERF)
            procs = {k: 0 for k, _ in report.PROCESSES}
            got = report.perf_samples(path, None, procs)
        self.assertEqual(procs, {"app": 40, "kworker": 12, "softirq": 0, "swapper": 45, "other": 3})
        self.assertEqual(sum(got.values()), 100)
        self.assertEqual(got["idle"], 40)
        self.assertEqual(got["rblk"], 20)
        self.assertEqual(got["block"], 10)
        self.assertEqual(got["rxe"], 10)
        self.assertEqual(got["fio"], 10)
        self.assertEqual(got["net"], 5)
        self.assertEqual(got["other_user"], 3)
        self.assertEqual(got["other_kernel"], 2)


class Summary(unittest.TestCase):
    def test_medians_of_ratios(self):
        with tempfile.TemporaryDirectory() as d:
            make_dir(d)
            res = report.summarize(d)
        job = res["modes"]["interrupt"]["4k-randread-qd32"]
        self.assertEqual(len(job["rounds"]), 3)
        self.assertEqual(job["median"]["rblk"]["iops"], 300)
        self.assertEqual(job["median"]["nvme-rdma"]["iops"], 200)
        r = job["ratio"]["iops"]
        self.assertEqual(r["per_round"], [0.5, 1.0, 2.0])
        self.assertEqual((r["median"], r["min"], r["max"]), (1.0, 0.5, 2.0))
        # CPU: rblk 50 ticks, nvme-rdma 100 ticks a round.
        c = job["ratio"]["cpu_us_per_io"]
        for got, want in zip(c["per_round"], [1.0, 0.5, 0.25]):
            self.assertAlmostEqual(got, want)
        self.assertAlmostEqual(c["median"], 0.5)
        self.assertAlmostEqual(job["median"]["rblk"]["cpu_us_per_io"], 500000 / 300)
        fixed = res["modes"]["interrupt"]["4k-randread-halfrate"]
        self.assertEqual(fixed["title"], "4k randread QD32 at 100 IOPS")
        self.assertAlmostEqual(fixed["ratio"]["cpu_us_per_io"]["median"], 0.5)
        self.assertNotIn("profile", job)

    def test_rate_is_half_the_slower_side(self):
        with tempfile.TemporaryDirectory() as d:
            make_dir(d)
            # Medians: rblk 300, nvme-rdma 200.
            self.assertEqual(report.rate_iops(d, "interrupt"), 100)

    def test_outputs(self):
        with tempfile.TemporaryDirectory() as d:
            make_dir(d, profile=True)
            with contextlib.redirect_stdout(io.StringIO()) as printed:
                self.assertEqual(report.main(["summarize", d]), 0)
            with open(os.path.join(d, "results.json")) as f:
                res = json.load(f)
            with open(os.path.join(d, "results.md")) as f:
                md = f.read()
            with open(os.path.join(d, "latency.png"), "rb") as f:
                png = f.read(8)
        self.assertEqual(printed.getvalue(), md)
        self.assertEqual(png, b"\x89PNG\r\n\x1a\n")
        self.assertEqual(set(res), {"meta", "sides", "modes", "targets"})
        self.assertEqual(res["sides"], ["rblk", "nvme-rdma"])
        job = res["modes"]["interrupt"]["4k-randread-qd32"]
        self.assertEqual(set(job), {"title", "rounds", "median", "ratio", "ratios", "profile"})
        self.assertEqual(list(job["ratios"]), ["rblk/nvme-rdma"])
        for rnd in job["rounds"]:
            for side in report.DEFAULT_SIDES:
                for key, _, _ in report.METRICS:
                    self.assertIn(key, rnd[side])
        self.assertEqual(set(job["ratio"]["iops"]), {"per_round", "median", "min", "max"})
        for side in report.DEFAULT_SIDES:
            p = job["profile"][side]
            self.assertEqual(sum(p["samples"].values()), 300)  # 3 rounds of 100
            self.assertAlmostEqual(sum(p["shares_pct"].values()), 100.0)
        self.assertIn("| 4k randread QD32 | IOPS | 300 | 200 | 1.00 [0.50-2.00] |", md)
        self.assertIn("| 4k randread QD32 at 100 IOPS | CPU us/IO |", md)
        self.assertIn("| 4k randread QD32 | rblk | 300 | 20.0 | 0.0 |", md)

    def test_three_sides(self):
        with tempfile.TemporaryDirectory() as d:
            make_three(d)
            res = report.summarize(d)
        self.assertEqual(res["sides"], ["rblk", "nvme-rdma", "bypass"])
        qd32 = res["modes"]["polled"]["4k-randread-qd32"]
        self.assertEqual(list(qd32["ratios"]), ["rblk/nvme-rdma", "bypass/rblk", "bypass/nvme-rdma"])
        self.assertEqual(qd32["median"]["bypass"]["iops"], 2000)
        r = qd32["ratios"]["bypass/rblk"]["iops_per_cpu_s"]
        self.assertEqual((r["median"], r["min"], r["max"]), (2.0, 2.0, 2.0))
        self.assertAlmostEqual(qd32["ratios"]["bypass/rblk"]["cpu_us_per_io"]["median"], 0.5)
        lat = res["modes"]["polled"]["4k-randread-qd1"]["ratios"]["bypass/rblk"]["lat_mean_us"]
        for got, want in zip(lat["per_round"], [0.5, 0.7, 0.5]):
            self.assertAlmostEqual(got, want)
        self.assertAlmostEqual(lat["median"], 0.5)
        t = {x["metric"]: x for x in res["targets"]["polled"]}
        self.assertEqual(set(t), {"iops_per_cpu_s", "lat_mean_us"})
        self.assertTrue(t["iops_per_cpu_s"]["met"])  # 2.0 >= 1.5
        self.assertTrue(t["lat_mean_us"]["met"])  # 0.5 <= 0.6
        self.assertAlmostEqual(t["lat_mean_us"]["max"], 0.7)

    def test_target_missed(self):
        with tempfile.TemporaryDirectory() as d:
            make_three(d)
            # Round 3's bypass QD1 at 90 us: latency ratios 0.5, 0.7, 0.9.
            write_run(os.path.join(d, "raw", "polled", "4k-randread-qd1"), 3, "bypass", 200,
                      busy_ticks=100, lat_us=90)
            res = report.summarize(d)
            md = report.markdown(res)
        t = {x["metric"]: x for x in res["targets"]["polled"]}
        self.assertAlmostEqual(t["lat_mean_us"]["median"], 0.7)
        self.assertFalse(t["lat_mean_us"]["met"])
        self.assertIn("| 4k randread QD1 mean latency <= 0.6x rblk.ko | bypass/rblk | "
                      "0.70 [0.50-0.90] | no |", md)
        self.assertIn("| 4k randread QD32 IOPS per CPU-second >= 1.5x rblk.ko | bypass/rblk | "
                      "2.00 [2.00-2.00] | yes |", md)

    def test_targets_of_each_bypass_side(self):
        def ratio(v):
            return {"median": v, "min": v - 0.1, "max": v + 0.1}
        results = {"modes": {"interrupt": {
            "4k-randread-qd32": {"ratios": {"bypass/rblk": {"iops_per_cpu_s": ratio(0.8)},
                                            "bypass-event/rblk": {"iops_per_cpu_s": ratio(1.6)}}},
            "4k-randread-qd1": {"ratios": {"bypass/rblk": {"lat_mean_us": ratio(0.55)},
                                           "bypass-event/rblk": {"lat_mean_us": ratio(0.8)}}},
        }}}
        got = {(t["pair"], t["metric"]): t["met"] for t in report.targets(results)["interrupt"]}
        self.assertEqual(got, {("bypass/rblk", "iops_per_cpu_s"): False,
                               ("bypass/rblk", "lat_mean_us"): True,
                               ("bypass-event/rblk", "iops_per_cpu_s"): True,
                               ("bypass-event/rblk", "lat_mean_us"): False})

    def test_process_of(self):
        p = report.process_of
        self.assertEqual([p("fio"), p("rblkctl"), p("kworker/u8:1-rxe_wq"), p("ksoftirqd/1"),
                          p("swapper"), p("swapper/1"), p("fio2"), p("kthreadd")],
                         ["app", "app", "kworker", "softirq", "swapper", "swapper", "other", "other"])

    def test_round_without_a_side_is_left_out(self):
        with tempfile.TemporaryDirectory() as d:
            make_three(d, with_bypass_round3=False)
            res = report.summarize(d)
        job = res["modes"]["polled"]["4k-randread-qd32"]
        self.assertEqual([r["round"] for r in job["rounds"]], [1, 2])

    def test_no_reference_no_target(self):
        with tempfile.TemporaryDirectory() as d:
            make_three(d)
            with open(os.path.join(d, "meta.json")) as f:
                meta = json.load(f)
            meta["sides"] = ["nvme-rdma", "bypass"]
            with open(os.path.join(d, "meta.json"), "w") as f:
                json.dump(meta, f)
            res = report.summarize(d)
        job = res["modes"]["polled"]["4k-randread-qd32"]
        self.assertEqual(list(job["ratios"]), ["bypass/nvme-rdma"])
        self.assertNotIn("ratio", job)
        self.assertEqual(res["targets"]["polled"], [])

    def test_three_sides_outputs(self):
        with tempfile.TemporaryDirectory() as d:
            make_three(d, profile=True)
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(report.main(["summarize", d]), 0)
            with open(os.path.join(d, "results.md")) as f:
                md = f.read()
            with open(os.path.join(d, "results.json")) as f:
                res = json.load(f)
        self.assertIn("# rblk.ko vs nvme-rdma vs bypass (poll)", md)
        self.assertIn("Note: ublk left out: kernel test has no ublk (ublk_drv).", md)
        self.assertIn("| job | metric | rblk.ko | nvme-rdma | bypass (poll) | rblk/nvme-rdma | "
                      "bypass/rblk | bypass/nvme-rdma |", md)
        self.assertIn("| 4k randread QD32 | IOPS/CPU-s | 1000 | 1000 | 2000 | 1.00 [1.00-1.00] | "
                      "2.00 [2.00-2.00] | 2.00 [2.00-2.00] |", md)
        self.assertIn("### issue 11's targets (polled mode)", md)
        p = res["modes"]["polled"]["4k-randread-qd32"]["profile"]["bypass"]["samples"]
        self.assertEqual((p["bypass"], p["verbs"], p["rxe"], p["fio"], p["idle"]),
                         (90, 120, 30, 30, 30))
        self.assertIn("| 4k randread QD32 | bypass | 300 | 0.0 | 0.0 | 30.0 | 40.0 | 0.0 | 10.0 |", md)
        self.assertIn("### the same samples by process (polled mode, %)", md)

    def test_rate_of_three_sides(self):
        with tempfile.TemporaryDirectory() as d:
            make_three(d)
            # QD32 medians: rblk 1000, nvme-rdma 1000, bypass 2000.
            self.assertEqual(report.rate_iops(d, "polled"), 500)

    def test_pairs(self):
        self.assertEqual(report.pairs(["rblk", "nvme-rdma"]), ["rblk/nvme-rdma"])
        self.assertEqual(report.pairs(["bypass", "rblk", "nvme-rdma", "ublk"]),
                         ["bypass/rblk", "bypass/nvme-rdma", "rblk/nvme-rdma", "ublk/rblk",
                          "ublk/nvme-rdma"])
        self.assertEqual(report.pairs(["bypass"]), [])

    def test_rate_command(self):
        with tempfile.TemporaryDirectory() as d:
            make_dir(d)
            with contextlib.redirect_stdout(io.StringIO()) as printed:
                self.assertEqual(report.main(["rate", d, "interrupt"]), 0)
        self.assertEqual(printed.getvalue(), "100\n")


if __name__ == "__main__":
    unittest.main()
