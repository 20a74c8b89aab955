#!/usr/bin/env python3
"""The analysis of tests/bench/vs_nvme_rdma.sh: rblk.ko against nvme-rdma,
the kernel-bypass path (fio's librblk_fio.so engine) and its ublk disk.

    report.py summarize DIR    results.json, results.md and latency.png
                               into DIR; prints results.md
    report.py rate DIR MODE    half the slowest side's median IOPS of
                               4k-randread-qd32 in MODE (the fixed-rate
                               job's rate_iops)

DIR is what the script leaves: meta.json (the run's settings: its "sides",
rblk and nvme-rdma when it names none), and per run
raw/MODE/JOB/ROUND.SIDE.fio.json (fio --output-format=json+),
ROUND.SIDE.cpu (the /proc/stat "cpu" line at the start and the end of the
timed part, tests/bench/fio-window.sh) and, with --profile,
ROUND.SIDE.perf.txt (perf report --sort comm,dso,sym -F
overhead,sample,comm,dso,sym -t '|').

Every figure of the table is a median over the rounds; a ratio A/B is
that of each round (the sides of a round ran back to back), its median,
min and max over the rounds. Each side is compared with rblk.ko ("the
kernel path") and with nvme-rdma, when those ran (PAIRS).

Latency is fio's total latency (submission to completion,
lat_percentiles=1). For a job that reads and writes, the two directions'
latency histograms (json+ "bins") are added and the percentiles taken
from the sum, as fio takes them from one direction's (the first bucket at
which the count reaches p% of the I/Os); the mean is the mean of both,
weighted by their I/O counts. IOPS and MiB/s are those of both directions.

CPU per I/O is the busy time of all vCPUs (user + nice + system + irq +
softirq of /proc/stat: everything but idle, iowait and steal) over the
timed part of the run, divided by the I/Os fio completed in it:
vCPU-microseconds per I/O, whatever ran (fio, both drivers, soft-RoCE,
the target: they share the VM). A busy-polling thread is busy time: it
counts as one CPU at 100%. IOPS per CPU-second is its inverse (I/Os per
second of busy vCPU time).

Issue 11's targets for the bypass path (TARGETS), busy polling and
sleeping each: at QD32, at least 1.5x rblk.ko's IOPS per CPU-second; at
QD1, a mean latency of at most 0.6x rblk.ko's. The report says whether this run met them; nothing fails on a
figure.
"""
import argparse
import json
import math
import os
import re
import statistics
import sys

# Every side the script knows, in the order of the tables.
ALL_SIDES = ("rblk", "nvme-rdma", "bypass", "bypass-event", "ublk")
DEFAULT_SIDES = ("rblk", "nvme-rdma")
REFERENCES = ("rblk", "nvme-rdma")
SIDE_LABELS = {
    "rblk": "rblk.ko", "nvme-rdma": "nvme-rdma", "bypass": "bypass (poll)",
    "bypass-event": "bypass (event)", "ublk": "ublk",
}
RATE_JOB = "4k-randread-qd32"
# (side, reference, job, metric, "ge"|"le", bound, what)
# Both ways of reaping: the poller pays for its CPU, the sleeper for its
# wake-ups, and each may meet a target the other misses.
TARGETS = tuple(
    (side, "rblk", job, key, how, bound, what)
    for side in ("bypass", "bypass-event")
    for job, key, how, bound, what in (
        ("4k-randread-qd32", "iops_per_cpu_s", "ge", 1.5,
         "4k randread QD32 IOPS per CPU-second >= 1.5x rblk.ko"),
        ("4k-randread-qd1", "lat_mean_us", "le", 0.6,
         "4k randread QD1 mean latency <= 0.6x rblk.ko"),
    ))
# (key, table label, format)
METRICS = (
    ("iops", "IOPS", "%.0f"),
    ("mib_s", "MiB/s", "%.1f"),
    ("lat_mean_us", "lat mean us", "%.0f"),
    ("lat_p50_us", "lat p50 us", "%.0f"),
    ("lat_p99_us", "lat p99 us", "%.0f"),
    ("lat_p999_us", "lat p99.9 us", "%.0f"),
    ("cpu_us_per_io", "CPU us/IO", "%.1f"),
    ("iops_per_cpu_s", "IOPS/CPU-s", "%.0f"),
)
PERCENTILES = (1, 5, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99)

# Where the VM's CPU goes, in the order of the table: (key, label).
CATEGORIES = (
    ("rblk", "rblk"),
    ("nvme_rdma", "nvme-rdma"),
    ("bypass", "librblk bypass"),
    ("verbs", "verbs user"),
    ("ublk", "ublk"),
    ("rxe", "soft-RoCE"),
    ("net", "net stack"),
    ("nvmet", "nvmet"),
    ("null_blk", "null_blk"),
    ("block", "block+io_uring"),
    ("fio", "fio"),
    ("idle", "idle"),
    ("other_kernel", "other kernel"),
    ("other_user", "other user"),
)
# The same samples by the process they ran in: the I/O's own process
# (fio, or rblkctl serving ublk: the application and, on the kernel path,
# the submission's syscalls) against the kernel threads where soft-RoCE,
# the target and the completion work run. An initiator can only save
# what runs in the first: it bounds what any initiator gains here.
PROCESSES = (
    ("app", "fio + rblkctl"),
    ("kworker", "kworkers"),
    ("softirq", "ksoftirqd"),
    ("swapper", "idle task"),
    ("other", "other"),
)
MODULES = {
    "rblk": "rblk",
    "nvme_rdma": "nvme_rdma", "nvme_core": "nvme_rdma", "nvme_fabrics": "nvme_rdma",
    "nvme_keyring": "nvme_rdma", "nvme_auth": "nvme_rdma",
    "rdma_rxe": "rxe", "ib_core": "rxe", "ib_uverbs": "rxe", "ib_cm": "rxe", "iw_cm": "rxe",
    "rdma_cm": "rxe", "rdma_ucm": "rxe", "udp_tunnel": "rxe", "ip6_udp_tunnel": "rxe",
    "veth": "net",
    "nvmet": "nvmet", "nvmet_rdma": "nvmet",
    "null_blk": "null_blk",
    "ublk_drv": "ublk",
}
# User-space objects: rblk's bypass initiator (in the fio engine, or in
# rblkctl serving ublk) and the verbs libraries with their providers.
BYPASS_DSO = re.compile(r"^(librblk[^/]*\.so.*|rblkctl)$")
VERBS_DSO = re.compile(r"^(libibverbs|librdmacm|librxe|libmlx[45]|libefa|libhns|libbnxt_re"
                       r"|libsiw|libirdma)[-.]")
IDLE_SYM = re.compile(r"^(default_idle|default_idle_call|native_safe_halt|pv_native_safe_halt"
                      r"|arch_cpu_idle|cpu_idle_poll|acpi_idle_do_entry|acpi_safe_halt"
                      r"|mwait_idle|intel_idle|poll_idle|do_idle|cpuidle_enter_state|halt)$")
BLOCK_SYM = re.compile(r"^_*(blk|blkcg|bio|bdev|blkdev|submit_bio|io_uring|io|sbitmap|elv|dd"
                       r"|disk|part)(_|$)")
NET_SYM = re.compile(r"skb|^_*(net|netif|napi|ip|ip6|ipv6|udp|udp4|udp6|dev|neigh|sock|sk"
                     r"|inet|nf|fib|eth|arp|gro|veth)(_|$)")


def median(values):
    return statistics.median(values) if values else None


# --- one run ---------------------------------------------------------------

def load_json(path):
    with open(path) as f:
        text = f.read()
    # fio may print notes before its report.
    return json.loads(text[text.index("{"):])


def percentile(bins, p):
    """fio's percentile of a latency histogram {value: count}."""
    total = sum(bins.values())
    if not total:
        return None
    threshold = p / 100.0 * total
    seen = 0
    for value in sorted(bins):
        seen += bins[value]
        if seen >= threshold:
            return value
    return max(bins)


def fio_metrics(report):
    """IOPS, MiB/s, I/Os and total latency of one fio run (one job, or
    one group with group_reporting): reads and writes together."""
    ios = iops = bw = lat_sum = 0
    bins = {}
    for job in report["jobs"]:
        if job.get("error"):
            raise ValueError("fio job %s failed: error %s" % (job["jobname"], job["error"]))
        for ddir in ("read", "write"):
            d = job[ddir]
            if not d["total_ios"]:
                continue
            ios += d["total_ios"]
            iops += d["iops"]
            bw += d["bw_bytes"]
            lat = d["lat_ns"]
            lat_sum += lat["mean"] * lat["N"]
            for value, count in lat["bins"].items():
                bins[int(value)] = bins.get(int(value), 0) + count
    n = sum(bins.values())
    m = {
        "ios": ios,
        "iops": iops,
        "mib_s": bw / 2**20,
        "lat_mean_us": lat_sum / n / 1000 if n else None,
        "lat_percentiles_us": {str(p): percentile(bins, p) / 1000 if n else None
                               for p in PERCENTILES},
    }
    pct = m["lat_percentiles_us"]
    m["lat_p50_us"], m["lat_p99_us"], m["lat_p999_us"] = pct["50"], pct["99"], pct["99.9"]
    return m


def cpu_window(path):
    """(busy, total) clock ticks of all vCPUs between the earliest "pre"
    and the latest "post" /proc/stat line of a run (the counters only
    grow: earliest is smallest)."""
    pre = post = None
    with open(path) as f:
        for line in f:
            words = line.split()
            if len(words) < 9 or words[1] != "cpu":
                continue
            ticks = [int(w) for w in words[2:]]
            if words[0] == "pre" and (pre is None or sum(ticks) < sum(pre)):
                pre = ticks
            elif words[0] == "post" and (post is None or sum(ticks) > sum(post)):
                post = ticks
    if pre is None or post is None:
        raise ValueError("%s: no pre and post /proc/stat lines" % path)
    d = [b - a for a, b in zip(pre, post)]
    # user nice system idle iowait irq softirq steal [guest guest_nice]:
    # guest time is already in user.
    busy = d[0] + d[1] + d[2] + d[5] + d[6]
    return busy, sum(d[:8])


def module_symbols(path):
    """{symbol: module} from the module lines of /proc/kallsyms ("ADDR T
    NAME [MODULE]"); a name in several modules keeps the first."""
    syms = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                words = line.split()
                if len(words) >= 2 and words[1].startswith("["):
                    syms.setdefault(words[0], "[%s]" % words[1].strip("[]"))
    return syms


def classify(comm, dso, sym, modsyms=None):
    """The category of one perf report row. perf report --kallsyms names
    every kernel sample's object [kernel.kallsyms], a module's too:
    MODSYMS ({symbol: "[module]"}) gives a module symbol its module."""
    kernel = sym.startswith("[k]")
    name = sym[3:].strip()
    if kernel and dso == "[kernel.kallsyms]" and modsyms and name in modsyms:
        dso = modsyms[name]
    if dso.startswith("[") and dso.endswith("]") and dso[1:-1] in MODULES:
        return MODULES[dso[1:-1]]
    if not kernel:
        base = os.path.basename(dso)
        if BYPASS_DSO.match(base):
            return "bypass"
        if VERBS_DSO.match(base):
            return "verbs"
        return "fio" if comm == "fio" else "other_user"
    if IDLE_SYM.match(name):
        return "idle"
    if BLOCK_SYM.match(name):
        return "block"
    if NET_SYM.search(name):
        return "net"
    return "other_kernel"


def process_of(comm):
    """The PROCESSES class of a sample's command name (perf's comm: a
    kernel thread's name carries its workqueue, kworker/u8:1-rxe_wq)."""
    if comm in ("fio", "rblkctl"):
        return "app"
    for prefix, key in (("kworker", "kworker"), ("ksoftirqd", "softirq"), ("swapper", "swapper")):
        if comm.startswith(prefix):
            return key
    return "other"


def perf_samples(path, modsyms=None, processes=None):
    """Samples per category of one perf report (-F
    overhead,sample,comm,dso,sym -t '|'); per PROCESSES class too, added
    into PROCESSES if given."""
    counts = {k: 0 for k, _ in CATEGORIES}
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            fields = [x.strip() for x in line.split("|")]
            if len(fields) < 5:
                continue
            n = int(fields[1])
            counts[classify(fields[2], fields[3], "|".join(fields[4:]), modsyms)] += n
            if processes is not None:
                processes[process_of(fields[2])] += n
    return counts


def run_metrics(base, clk_tck):
    m = fio_metrics(load_json(base + ".fio.json"))
    busy, total = cpu_window(base + ".cpu")
    m["cpu_busy_ticks"] = busy
    m["cpu_busy_pct"] = 100.0 * busy / total if total else None
    m["cpu_us_per_io"] = busy * 1e6 / clk_tck / m["ios"] if m["ios"] else None
    m["iops_per_cpu_s"] = m["ios"] * clk_tck / busy if busy else None
    return m


# --- a run of the script -----------------------------------------------------

def pairs(sides):
    """The ratios to take: every side against rblk.ko and against
    nvme-rdma (rblk/nvme-rdma once), as "A/B"."""
    out = []
    for ref in REFERENCES:
        if ref not in sides:
            continue
        for side in sides:
            if side != ref and not (ref == "rblk" and side == "nvme-rdma"):
                out.append((side, ref))
    order = {s: i for i, s in enumerate(sides)}
    out.sort(key=lambda p: (order[p[0]], REFERENCES.index(p[1])))
    return ["%s/%s" % p for p in out]


def rounds_of(jobdir, sides=DEFAULT_SIDES):
    """Round numbers that have every side."""
    found = set()
    for f in os.listdir(jobdir):
        m = re.match(r"^(\d+)\.(.+)\.fio\.json$", f)
        if m and m.group(2) in sides:
            found.add(int(m.group(1)))
    return sorted(r for r in found
                  if all(os.path.exists(os.path.join(jobdir, "%d.%s.fio.json" % (r, s)))
                         for s in sides))


def ratio_stats(rounds, key, pair="rblk/nvme-rdma"):
    num, den = pair.split("/")
    per_round = []
    for r in rounds:
        a, b = r[num][key], r[den][key]
        per_round.append(a / b if a is not None and b else None)
    valid = [x for x in per_round if x is not None]
    return {"per_round": per_round, "median": median(valid),
            "min": min(valid) if valid else None, "max": max(valid) if valid else None}


def summarize_job(jobdir, clk_tck, modsyms=None, sides=DEFAULT_SIDES):
    rounds = []
    profile = {s: {k: 0 for k, _ in CATEGORIES} for s in sides}
    procs = {s: {k: 0 for k, _ in PROCESSES} for s in sides}
    profiled = False
    for r in rounds_of(jobdir, sides):
        entry = {"round": r}
        for side in sides:
            base = os.path.join(jobdir, "%d.%s" % (r, side))
            entry[side] = run_metrics(base, clk_tck)
            if os.path.exists(base + ".perf.txt"):
                profiled = True
                for k, n in perf_samples(base + ".perf.txt", modsyms, procs[side]).items():
                    profile[side][k] += n
        rounds.append(entry)
    keys = [k for k, _, _ in METRICS] + ["ios", "cpu_busy_pct"]
    res = {
        "rounds": rounds,
        "median": {s: {k: median([r[s][k] for r in rounds if r[s][k] is not None])
                       for k in keys} for s in sides},
        "ratios": {p: {k: ratio_stats(rounds, k, p) for k, _, _ in METRICS}
                   for p in pairs(sides)},
    }
    if "rblk/nvme-rdma" in res["ratios"]:
        res["ratio"] = res["ratios"]["rblk/nvme-rdma"]
    for s in sides:
        res["median"][s]["lat_percentiles_us"] = {
            p: median([r[s]["lat_percentiles_us"][p] for r in rounds
                       if r[s]["lat_percentiles_us"][p] is not None])
            for p in (str(x) for x in PERCENTILES)}
    if profiled:
        res["profile"] = {}
        for s in sides:
            total = sum(profile[s].values())
            res["profile"][s] = {
                "samples": profile[s],
                "shares_pct": {k: 100.0 * n / total if total else 0.0
                               for k, n in profile[s].items()},
                "process_pct": {k: 100.0 * n / total if total else 0.0
                                for k, n in procs[s].items()},
            }
    return res


def targets(results):
    """Per mode, issue 11's targets as this run measured them."""
    out = {}
    for mode, jobs in results["modes"].items():
        rows = []
        for side, ref, job, key, how, bound, what in TARGETS:
            pair = "%s/%s" % (side, ref)
            j = jobs.get(job)
            if j is None or pair not in j["ratios"]:
                continue
            r = j["ratios"][pair][key]
            v = r["median"]
            met = None if v is None else (v >= bound if how == "ge" else v <= bound)
            rows.append({"what": what, "pair": pair, "job": job, "metric": key, "bound": bound,
                         "median": v, "min": r["min"], "max": r["max"], "met": met})
        out[mode] = rows
    return out


def summarize(outdir):
    with open(os.path.join(outdir, "meta.json")) as f:
        meta = json.load(f)
    clk_tck = meta.get("clk_tck", 100)
    sides = tuple(meta.get("sides") or DEFAULT_SIDES)
    modsyms = module_symbols(os.path.join(outdir, "module-symbols.txt"))
    results = {"meta": meta, "sides": list(sides), "modes": {}}
    for mode in meta["modes"]:
        jobs = {}
        for job in meta["jobs"]:
            jobdir = os.path.join(outdir, "raw", mode, job["name"])
            if not os.path.isdir(jobdir) or not rounds_of(jobdir, sides):
                continue
            jobs[job["name"]] = dict(title=job["title"],
                                     **summarize_job(jobdir, clk_tck, modsyms, sides))
            rate = meta.get("rate_iops", {}).get(mode)
            if job.get("fixed_rate") and rate:
                jobs[job["name"]]["title"] = "%s at %d IOPS" % (job["title"], rate)
        results["modes"][mode] = jobs
    results["targets"] = targets(results)
    return results


def sides_in(jobdir):
    """The sides with runs in JOBDIR (meta.json comes at the end)."""
    found = {m.group(1) for m in (re.match(r"^\d+\.(.+)\.fio\.json$", f)
                                  for f in os.listdir(jobdir)) if m}
    return tuple(s for s in ALL_SIDES if s in found)


def rate_iops(outdir, mode):
    jobdir = os.path.join(outdir, "raw", mode, RATE_JOB)
    sides = sides_in(jobdir)
    res = summarize_job(jobdir, 100, sides=sides)
    slower = min(res["median"][s]["iops"] for s in sides)
    return max(1, int(slower / 2))


# --- output ---------------------------------------------------------------------

def fmt(f, v):
    return "-" if v is None else f % v


def fmt_ratio(r):
    if r["median"] is None:
        return "-"
    return "%.2f [%.2f-%.2f]" % (r["median"], r["min"], r["max"])


def markdown(results):
    meta = results["meta"]
    sides = results.get("sides") or list(DEFAULT_SIDES)
    names = [SIDE_LABELS.get(s, s) for s in sides]
    out = ["# %s" % " vs ".join(names), ""]
    out.append("kernel %s; every side connected to the same nvmet-rdma target (null_blk "
               "namespace) over soft-RoCE; the kernel drivers with %s I/O queues x %s, fio "
               "io_uring, direct; the bypass path through fio's librblk_fio.so engine "
               "(thread=1, a controller per filename shared by fio's threads, an I/O queue each); "
               "%s rounds of %s s, sides in the order %s, reversed every other round."
               % (meta.get("kernel", "?"), meta.get("nr_io_queues", "?"),
                  meta.get("queue_size", "?"), meta.get("rounds", "?"), meta.get("runtime_s", "?"),
                  ", ".join(sides)))
    out.append("")
    out.append("Sides: median over the rounds. A/B: median of the per-round ratios "
               "[min-max over the rounds]; rblk is rblk.ko, the kernel path. Latency: fio's "
               "total latency (submission to completion; reads and writes together for a "
               "mixed job). CPU us/IO: busy time of all vCPUs (not idle, iowait, steal) "
               "during the timed part, per completed I/O; a busy-polling thread counts as "
               "one CPU at 100%. IOPS/CPU-s: completed I/Os per second of that busy time.")
    for note in meta.get("notes", []):
        out += ["", "Note: %s." % note]
    for mode, jobs in results["modes"].items():
        out += ["", "## %s mode" % mode, ""]
        if any(s.startswith("bypass") or s == "ublk" for s in sides):
            out.append("(%s mode is that of the kernel drivers; bypass busy-polls and "
                       "bypass (event) sleeps on its completion channel in both modes; ublk "
                       "never polls.)" % mode)
            out.append("")
        prs = pairs(sides)
        out.append("| job | metric | " + " | ".join(names) + " | " + " | ".join(prs) + " |")
        out.append("|---|---|" + "---:|" * (len(sides) + len(prs)))
        for job in jobs.values():
            for key, label, f in METRICS:
                out.append("| %s | %s | %s | %s |" % (
                    job["title"], label,
                    " | ".join(fmt(f, job["median"][s][key]) for s in sides),
                    " | ".join(fmt_ratio(job["ratios"][p][key]) for p in prs)))
        rows = results.get("targets", {}).get(mode, [])
        if rows:
            out += ["", "### issue 11's targets (%s mode)" % mode, ""]
            out.append("| target | %s | this run | met |" % "ratio")
            out.append("|---|---|---:|---|")
            for t in rows:
                met = "-" if t["met"] is None else ("yes" if t["met"] else "no")
                out.append("| %s | %s | %s | %s |" % (
                    t["what"], t["pair"], fmt_ratio(t), met))
        profiled = [j for j in jobs.values() if "profile" in j]
        # The same samples twice: by what ran (with the sample count), then
        # by the process it ran in.
        tables = (("where the CPU goes (%s mode, %% of perf samples, all rounds)",
                   CATEGORIES, "shares_pct", True),
                  ("the same samples by process (%s mode, %%)", PROCESSES, "process_pct", False))
        for title, classes, key, counted in (tables if profiled else ()):
            out += ["", "### " + title % mode, ""]
            out.append("| job | side | " + ("samples | " if counted else "") +
                       " | ".join(l for _, l in classes) + " |")
            out.append("|---|---|" + ("---:|" if counted else "") + "---:|" * len(classes))
            for job in profiled:
                for s in sides:
                    p = job["profile"][s]
                    cells = [job["title"], s]
                    if counted:
                        cells.append("%d" % sum(p["samples"].values()))
                    cells += ["%.1f" % p[key][k] for k, _ in classes]
                    out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def nines(p):
    return -math.log10(1 - p / 100.0)


def plot(results, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    modes = list(results["modes"])
    names = []
    for jobs in results["modes"].values():
        names += [n for n in jobs if n not in names]
    fig, axes = plt.subplots(len(names) or 1, len(modes) or 1, squeeze=False,
                             figsize=(5.5 * max(1, len(modes)), 3.2 * max(1, len(names))))
    ticks = [p for p in PERCENTILES if p in (1, 10, 50, 90, 99, 99.9, 99.99)]
    for col, mode in enumerate(modes):
        for row, name in enumerate(names):
            ax = axes[row][col]
            job = results["modes"][mode].get(name)
            if job is None:
                ax.set_visible(False)
                continue
            for side, style in zip(results.get("sides") or DEFAULT_SIDES,
                                   ("o-", "s--", "^-.", "v:", "d-")):
                pct = job["median"][side]["lat_percentiles_us"]
                xs = [nines(p) for p in PERCENTILES if pct[str(p)] is not None]
                ys = [pct[str(p)] for p in PERCENTILES if pct[str(p)] is not None]
                ax.plot(xs, ys, style, label=SIDE_LABELS.get(side, side), markersize=3)
            ax.set_xticks([nines(p) for p in ticks])
            ax.set_xticklabels(["p%g" % p for p in ticks])
            ax.set_yscale("log")
            ax.set_ylabel("total latency (us)")
            ax.set_title("%s, %s" % (job["title"], mode), fontsize=9)
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def main(argv):
    ap = argparse.ArgumentParser(description="rblk.ko vs nvme-rdma vs bypass: the analysis")
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("summarize")
    s.add_argument("dir")
    r = sub.add_parser("rate")
    r.add_argument("dir")
    r.add_argument("mode")
    a = ap.parse_args(argv)
    if a.cmd == "rate":
        print(rate_iops(a.dir, a.mode))
        return 0
    results = summarize(a.dir)
    with open(os.path.join(a.dir, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    text = markdown(results)
    with open(os.path.join(a.dir, "results.md"), "w") as f:
        f.write(text)
    plot(results, os.path.join(a.dir, "latency.png"))
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
