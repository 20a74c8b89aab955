"""Unit tests of meter_report.py (the instruction meter's analysis) on
synthetic plugin output: the per-I/O arithmetic, attribution by symbol,
the rows of the host side, and refusing output that does not add up."""
import json
import os
import tempfile
import unittest

import meter_report

KALLSYMS = """\
ffffffff81000000 T _stext
ffffffff81100000 T blk_mq_submit_bio
ffffffff81100400 T io_issue_sqe
ffffffff81100800 T tcp_sendmsg
ffffffff81100c00 t __schedule
ffffffff81101000 T strange_core_thing
ffffffffc0001000 t rblk_queue_rq\t[rblk]
ffffffffc0001400 t rblk_rdma_post_cmd\t[rblk]
ffffffffc0001800 t rblk_poll\t[rblk]
ffffffffc0002000 t nvme_rdma_queue_rq\t[nvme_rdma]
ffffffffc0002400 T nvme_setup_cmd\t[nvme_core]
ffffffffc0003000 t rxe_requester\t[rdma_rxe]
ffffffffc0004000 T ib_poll_cq\t[ib_core]
ffffffffc0005000 d rblk_data\t[rblk]
"""


def delta(counts, ios=0):
    # rblk_queue_rq's first block runs once per I/O, its second twice.
    execs = {0xffffffffc0001000: ios, 0xffffffffc0001100: 2 * ios, 0xffffffffc0001800: 2 * ios}
    return "".join(f"{a:x} {n} {execs.get(a, 3)}\n" for a, n in counts.items())


class MeterReport(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = self.tmp.name
        self.raw = os.path.join(self.d, "raw")
        os.mkdir(self.raw)
        with open(os.path.join(self.raw, "kallsyms.interrupt"), "w") as f:
            f.write(KALLSYMS)
        with open(os.path.join(self.raw, "meta.json"), "w") as f:
            json.dump({"kernel": "6.12.0-test", "nr_io_queues": 2, "queue_size": 128, "ios": [100, 300],
                       "repeats": 1, "target": "test", "jobs": {"4k-randread-qd1": "--rw=randread"}}, f)
        # Per I/O: rblk 50 + 30 (two blocks in rblk_queue_rq's body count
        # for it), nvme-rdma 40 + 20; both: 10 in the block layer, 7 in
        # rxe; a start-up cost that the difference cancels.
        self.files = []

        def run(ios, rblk, base=1000):
            c = {0xffffffff81100010: 10 * ios + base, 0xffffffffc0003010: 7 * ios,
                 0x1: 100 * ios + 5 * base}
            if rblk:
                c.update({0xffffffffc0001000: 20 * ios, 0xffffffffc0001100: 30 * ios + base,
                          0xffffffffc0001400: 30 * ios, 0xffffffffc0001800: 8 * ios})
            else:
                c.update({0xffffffffc0002010: 40 * ios + base, 0xffffffffc0002400: 20 * ios})
            return c

        marks = [("start", {0x1: 5}, 0),
                 ("interrupt 4k-randread-qd1 rblk warm 0", run(100, True), 100),
                 ("interrupt 4k-randread-qd1 rblk 100 1", run(100, True), 100),
                 ("interrupt 4k-randread-qd1 rblk 300 1", run(300, True), 300),
                 ("interrupt 4k-randread-qd1 nvme-rdma warm 0", run(100, False), 100),
                 ("interrupt 4k-randread-qd1 nvme-rdma 100 1", run(100, False), 100),
                 ("interrupt 4k-randread-qd1 nvme-rdma 300 1", run(300, False), 300),
                 ("interrupt teardown", {0x1: 9}, 0)]
        with open(os.path.join(self.raw, "labels"), "w") as f:
            for i, (label, counts, ios) in enumerate(marks):
                f.write(f"{i} {label}\n")
                with open(os.path.join(self.raw, f"delta.{i}"), "w") as g:
                    g.write(delta(counts, ios))

    def tearDown(self):
        self.tmp.cleanup()

    def test_per_io_driver_and_ratio(self):
        meter_report.report(self.d)
        with open(os.path.join(self.d, "meter.json")) as f:
            data = json.load(f)
        row = data["table"][0]
        self.assertAlmostEqual(row["rblk"]["driver"], 88)
        self.assertAlmostEqual(row["nvme-rdma"]["driver"], 60)
        self.assertAlmostEqual(row["driver_ratio"], 88 / 60)
        # The poll entry (two polls per I/O, 4 instructions each) apart.
        self.assertAlmostEqual(row["rblk"]["driver_wo_poll"], 80)
        self.assertAlmostEqual(row["rblk"]["polls"], 2)
        self.assertAlmostEqual(row["driver_wo_poll_ratio"], 80 / 60)

    def test_symbols_and_rows(self):
        _, runs = meter_report.summarize(self.d)
        rblk = [r for r in runs if r["side"] == "rblk"][0]
        self.assertEqual(rblk["driver_symbols"], [["rblk_queue_rq", 50.0], ["rblk_rdma_post_cmd", 30.0],
                                                  ["rblk_poll", 8.0]])
        cats = rblk["categories"]
        self.assertAlmostEqual(cats["block layer"], 10)
        self.assertAlmostEqual(cats["far end: rdma_rxe"], 7)
        self.assertAlmostEqual(cats["application (user space)"], 100)
        # The far end is not the host's: driver + block layer + fio.
        self.assertAlmostEqual(rblk["host_side"], 88 + 10 + 100)
        # Calls: the executions of a function's first block only.
        self.assertEqual(rblk["driver_calls"], {"rblk_queue_rq": 1.0, "rblk_rdma_post_cmd": 0.0,
                                                "rblk_poll": 2.0})
        nv = [r for r in runs if r["side"] == "nvme-rdma"][0]
        self.assertEqual([n for n, _ in nv["driver_symbols"]], ["nvme_rdma_queue_rq", "nvme_setup_cmd"])

    def test_classify_core_symbols(self):
        self.assertEqual(meter_report.category("rblk", "tcp_sendmsg", "vmlinux"), "far end: network stack")
        self.assertEqual(meter_report.category("rblk", "io_issue_sqe", "vmlinux"), "io_uring")
        self.assertEqual(meter_report.category("rblk", "__schedule", "vmlinux"),
                         "interrupts, timers and scheduling")
        self.assertEqual(meter_report.category("rblk", "strange_core_thing", "vmlinux"), "other kernel")
        self.assertEqual(meter_report.category("rblk", "nvme_setup_cmd", "nvme_core"),
                         "the other driver (idle)")
        self.assertEqual(meter_report.category("rblk", "ib_poll_cq", "ib_core"), "RDMA core")

    def test_a_missing_delta_is_refused(self):
        os.unlink(os.path.join(self.raw, "delta.7"))
        with self.assertRaises(SystemExit) as cm:
            meter_report.summarize(self.d)
        self.assertIn("8 marks labelled but 7 delta files", str(cm.exception))

    def test_a_run_without_its_pair_is_refused(self):
        with open(os.path.join(self.raw, "labels")) as f:
            lines = f.read().replace("rblk 300 1", "rblk warm 0")
        with open(os.path.join(self.raw, "labels"), "w") as f:
            f.write(lines)
        with self.assertRaises(SystemExit) as cm:
            meter_report.summarize(self.d)
        self.assertIn("lacks a run", str(cm.exception))


class FakeElf:
    """An object's symbols by file offset: (offset, name) sorted."""

    def __init__(self, syms):
        self.syms = syms

    def lookup(self, off):
        best = ("(no symbol)", False)
        for a, n in self.syms:
            if a <= off:
                best = (n, a == off)
        return best


LIB = "/build/userlib/initiator/fio/librblk_fio.so"
VERBS = "/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.47.0"
PROVIDER = "/usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so"


def maps(shift):
    """fio's memory map, its libraries `shift` bytes up (ASLR)."""
    def r(lo, hi):
        return f"{lo + shift:x}-{hi + shift:x}"
    return (f"555555554000-555555600000 r-xp 00000000 00:1f 11 /usr/bin/fio\n"
            f"{r(0x7f0000000000, 0x7f0000001000)} r--p 00000000 00:1f 12 {LIB}\n"
            f"{r(0x7f0000001000, 0x7f0000010000)} r-xp 00001000 00:1f 12 {LIB}\n"
            f"{r(0x7f0000100000, 0x7f0000110000)} r-xp 00004000 00:1f 13 {VERBS}\n"
            f"{r(0x7f0000200000, 0x7f0000210000)} r-xp 00002000 00:1f 14 {PROVIDER}\n"
            f"{r(0x7f0000300000, 0x7f0000301000)} rw-p 00000000 00:00 0\n"
            f"{r(0x7f0000400000, 0x7f0000402000)} r-xp 00000000 00:00 0 [vdso]\n")


class MeterReportBypass(unittest.TestCase):
    """The bypass side: user blocks by address, attributed through the
    run's memory map to the library's own symbols."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = self.tmp.name
        raw = os.path.join(self.d, "raw")
        os.mkdir(raw)
        with open(os.path.join(raw, "kallsyms.interrupt"), "w") as f:
            f.write(KALLSYMS + "ffffffffc0006000 t ib_uverbs_post_send\t[ib_uverbs]\n")
        with open(os.path.join(raw, "meta.json"), "w") as f:
            json.dump({"kernel": "6.12.0-test", "nr_io_queues": 2, "queue_size": 128, "ios": [100, 300],
                       "repeats": 1, "target": "test", "jobs": {"4k-randread-qd1": "--rw=randread"}}, f)
        meter_report._elf_cache.update({
            LIB: FakeElf([(0x1000, "rblk_fio_submit"), (0x1400, "rblk::bypass::Queue::submit")]),
            VERBS: FakeElf([(0x4000, "ibv_cmd_post_send")]),
            PROVIDER: FakeElf([]),
            "/usr/bin/fio": FakeElf([(0, "td_io_queue")]),
        })

        def run(ios, base, shift, k=1):
            # The library moves between runs (ASLR): each run's own map.
            # k: the library's cost per I/O, scaled (the bypass8 side's).
            lib = 0x7f0000001000 + shift
            return {lib: round(40 * k * ios) + base, lib + 0x10: round(20 * k * ios), lib + 0x400: round(30 * k * ios),
                    0x7f0000100000 + shift: 15 * ios, 0x7f0000200010 + shift: 5 * ios,
                    0x555555554100: 200 * ios + base, 0x1234000: 3 * base,
                    0xffffffffc0006000: ios, 0xffffffffc0003010: 7 * ios, 0xffffffffc0001000: 9}

        marks = [("start", {0x1234000: 5}, 0, None),
                 ("interrupt 4k-randread-qd1 bypass 100 1", run(100, 1000, 0), 100, 0),
                 ("interrupt 4k-randread-qd1 bypass 300 1", run(300, 1000, 0x40000000), 300, 0x40000000),
                 ("interrupt 4k-randread-qd1 bypass8 100 1", run(100, 1000, 0x1000000, 1.1), 100, 0x1000000),
                 ("interrupt 4k-randread-qd1 bypass8 300 1", run(300, 1000, 0x2000000, 1.1), 300, 0x2000000)]
        with open(os.path.join(raw, "labels"), "w") as f:
            for i, (label, counts, ios, shift) in enumerate(marks):
                f.write(f"{i} {label}\n")
                with open(os.path.join(raw, f"delta.{i}"), "w") as g:
                    g.write("".join(f"{a:x} {n} {ios if a in (0x7f0000001000 + (shift or 0), 0xffffffffc0006000) else 0}\n"
                                    for a, n in counts.items()))
                if shift is not None:
                    with open(os.path.join(raw, f"maps.{i}"), "w") as g:
                        g.write(maps(shift))

    def tearDown(self):
        self.tmp.cleanup()
        meter_report._elf_cache.clear()

    def test_library_symbols_and_rows(self):
        _, runs = meter_report.summarize(self.d)
        (r,) = [r for r in runs if r["side"] == "bypass"]
        self.assertEqual(r["driver_symbols"], [["rblk_fio_submit", 60.0], ["rblk::bypass::Queue::submit", 30.0]])
        self.assertAlmostEqual(r["driver"], 90)
        self.assertEqual(r["driver_calls"]["rblk_fio_submit"], 1.0)
        cats = r["categories"]
        self.assertAlmostEqual(cats["verbs and provider (user space)"], 20)
        self.assertAlmostEqual(cats["application (user space)"], 200)
        self.assertAlmostEqual(cats["far end: rdma_rxe"], 7)
        self.assertNotIn("other processes (user space)", cats)  # a constant: it cancels
        self.assertEqual(r["uverbs_calls"], {"ib_uverbs_post_send": 1.0})
        self.assertAlmostEqual(r["host_side"], 90 + 20 + 200 + 1)

    def test_table_sets_bypass_against_nvme_rdma(self):
        md = meter_report.report(self.d)
        self.assertIn("| interrupt | 4k-randread-qd1 | 90 (0.0%) | 99 (0.0%) | 1.10x |", md)
        self.assertIn("`ib_uverbs_post_send` 1.00", md)

    def test_an_address_outside_the_map_is_another_process(self):
        um = meter_report.UserMap(os.path.join(self.d, "raw", "maps.1"))
        self.assertEqual(um.lookup(0x1234000), ("(another process)", "user:(other)", False))
        self.assertEqual(um.lookup(0x7f0000001400), ("rblk::bypass::Queue::submit", "user:librblk_fio.so", True))
        # A mapping that is not executable names nothing.
        self.assertEqual(um.lookup(0x7f0000000010)[1], "user:(other)")
        # The vDSO's clock reads have a row of their own.
        self.assertEqual(um.lookup(0x7f0000400010), ("[vdso]", "user:[vdso]", False))
        self.assertEqual(meter_report.category("bypass", "[vdso]", "user:[vdso]"),
                         "vDSO clock reads (user space)")


    def test_eight_controllers_library_is_their_driver(self):
        # The same object as the bypass side's: the side's own driver,
        # not another side's object in its process.
        self.assertEqual(meter_report.category("bypass8", "rblk_fio_submit", "user:librblk_fio.so"),
                         "the driver")
        _, runs = meter_report.summarize(self.d)
        (r,) = [r for r in runs if r["side"] == "bypass8"]
        self.assertAlmostEqual(r["driver"], 99)


class MeterReportUblk(unittest.TestCase):
    """The ublk side's driver is the server's user space: rblkctl, which
    links the library, and liburing of whatever version; the library in
    fio's engine and the verbs layer are not."""

    def test_the_servers_objects_are_its_driver(self):
        self.assertTrue(meter_report.in_driver("ublk", "user:rblkctl"))
        self.assertTrue(meter_report.in_driver("ublk", "user:liburing.so.2.3"))
        self.assertFalse(meter_report.in_driver("ublk", "user:librblk_fio.so"))
        self.assertFalse(meter_report.in_driver("ublk", "user:libibverbs.so.1.14.44.0"))
        self.assertFalse(meter_report.in_driver("bypass", "user:liburing.so.2.3"))
        self.assertEqual(meter_report.category("ublk", "rblk::bypass::Queue::submit", "user:rblkctl"),
                         "the driver")
        self.assertEqual(meter_report.category("bypass", "io_uring_submit", "user:liburing.so.2.3"),
                         "application (user space)")
        self.assertEqual(meter_report.category("ublk", "(another process)", "user:(other)"),
                         "other processes (user space)")
        self.assertIn(("ublk", "nvme-rdma"), meter_report.RATIOS)


if __name__ == "__main__":
    unittest.main()
