#!/usr/bin/python3
"""The instruction meter's report (tests/bench/insn_meter.sh).

Reads DIR/raw/: the plugin's delta.<n> files (the instructions each
translated block executed since the previous mark, keyed by the block's
start address; address 1 is all of user space, unless the plugin ran
with user=1), labels ("<n> <mode> <job> <side> <ios> <repeat>": what ran
before mark n), kallsyms.<mode> (the guest's /proc/kallsyms while that
mode ran), maps.<n> (the memory map of the fio job that ran before mark
n, for the bypass side) and meta.json. A delta line is "<hex address>
<instructions> <executions>"; the executions of the block at a symbol's
own address are the function's calls. A user address inside an object
that maps.<n> names is attributed by that object's own symbol table
(nm, readelf: the guest's files are the host's, its root is the host's
/ read-only), the object being the symbol's module ("user:<file name>").

Per job, mode, side and repeat, the figure of a symbol is its count in
the run of B I/Os minus its count in the run of A I/Os, divided by B - A:
what one more I/O costs, with everything a run pays once cancelled.

Writes DIR/meter.md and DIR/meter.json. Usage: meter_report.py DIR
"""
import bisect
import json
import os
import re
import subprocess
import sys

USER = 1
KERNEL_START = 0xffff800000000000

DRIVERS = {
    "rblk": ("rblk",),
    "nvme-rdma": ("nvme_rdma", "nvme_core", "nvme_fabrics"),
    # The kernel-bypass initiator: its library and fio engine's glue,
    # one shared object in fio's process.
    "bypass": ("user:librblk_fio.so",),
    # The same with 8 controllers (8 files of the job) on one poll group.
    "bypass8": ("user:librblk_fio.so",),
    # The same library serving /dev/ublkbN: the server's own code, rblkctl
    # (which links it) and liburing, in the server's process ("*": any
    # version of the object).
    "ublk": ("user:rblkctl", "user:liburing.so*"),
}
# The figures set against nvme-rdma's, in the tables' ratio columns, and
# 8 controllers' against one's.
RATIOS = (("rblk", "nvme-rdma"), ("bypass", "nvme-rdma"), ("bypass8", "nvme-rdma"), ("ublk", "nvme-rdma"),
          ("bypass8", "bypass"))


def in_driver(side, mod):
    """Whether module (or user object) `mod` is side's driver code."""
    return any(mod == m or (m.endswith("*") and mod.startswith(m[:-1])) for m in DRIVERS[side])

# Each driver's blk-mq poll entry and what it calls per poll before a
# completion's own handler: polled, their count per I/O is the number of
# polls until the answer came, which is the emulator's timing, not the
# driver's cost per I/O; they are reported apart.
POLL_LOOP = {
    "rblk": ("rblk_poll", "rblk_rdma_poll"),
    "nvme-rdma": ("nvme_rdma_poll",),
    "bypass": (),  # counted sleeping only (insn_meter.sh)
    "bypass8": (),
    "ublk": (),
}

# User-space objects: libibverbs, librdmacm and the providers
# (lib<name>-rdmav<N>.so) are the verbs layer; the C and C++ runtimes
# apart from the application (fio).
VERBS_RE = re.compile(r"^(libibverbs\.so|librdmacm\.so|lib[a-z0-9_]+-rdmav[0-9]+\.so)")
RUNTIME_RE = re.compile(r"^(libc\.so|libstdc\+\+\.so|libgcc_s\.so|libm\.so|ld-linux)")

# What stands for the hardware and the far end here: soft-RoCE and its
# CRC, the network stack under it, the target and its disk.
FAR_MODULES = {"rdma_rxe", "siw", "nvmet", "nvmet_rdma", "null_blk", "veth", "ip6_udp_tunnel",
               "udp_tunnel", "crc32_generic", "crc32c_generic", "crc32c_intel", "crc32_pclmul",
               "libcrc32c", "crc32c_x86_64"}
RDMA_MODULES = {"ib_core", "rdma_cm", "iw_cm", "ib_cm", "ib_uverbs"}

# Kernel (vmlinux) symbols by name: a guide, not a proof; what matches
# nothing is "other kernel".
CLASSES = [
    ("network stack", r"(tcp|udp|__udp|ip_|__ip_|ip6|__ip6|ipv6|inet|__inet|skb|__skb|kfree_skb|consume_skb|"
                      r"alloc_skb|__alloc_skb|build_skb|napi|__napi|net_|__net_|netif|__netif|netdev|__netdev|"
                      r"dev_queue|__dev_queue|dev_hard|dev_xmit|neigh|__neigh|arp|eth_|sk_|__sk_|sock|__sock|"
                      r"nf_|fib|dst_|rt_|ipt_|validate_xmit|sch_|qdisc|__qdisc|pfifo|gro_|__gro|dev_gro|"
                      r"csum|__csum|rps_|flow_|xfrm|icmp|raw_)"),
    ("crc", r"(crc32|__crc32|crc_)"),
    ("block layer", r"(blk|__blk|bio|__bio|submit_bio|__submit_bio|bvec|bdev|__bdev|part_|disk_|"
                    r"blkdev|__blkdev|sbitmap|__sbitmap|elv_|dd_|rq_|__rq_|kyber|bfq|iov_iter|__iov_iter|"
                    r"dio_|__dio|iomap)"),
    ("io_uring", r"(io_|__io_|io_uring|__io_uring)"),
    ("syscalls and entry", r"(entry_SYSCALL|do_syscall|__x64_sys|__do_sys|__se_sys|x64_sys_call|syscall_|"
                           r"ksys_|fput|fdget|__fget|fget|__fdget|exit_to_user|arch_exit|restore_fpregs|"
                           r"switch_fpu|fpregs|do_sys|__do_fast|futex|__futex|vfs_|rw_verify)"),
    ("interrupts, timers and scheduling",
     r"(irq|__irq|handle_|common_interrupt|asm_|sysvec_|__sysvec|__do_softirq|do_softirq|__softirq|"
     r"softirq|run_ksoftirqd|raise_softirq|__raise_softirq|tasklet|sched|__sched|schedule|__schedule|"
     r"pick_|enqueue_|dequeue_|update_|try_to_wake_up|ttwu|wake_up|__wake_up|finish_task_switch|"
     r"context_switch|__switch_to|hrtimer|__hrtimer|tick_|timer|__run_timers|run_timer|ktime|"
     r"clockevents|lapic|apic|x2apic|native_|default_idle|cpu_idle|do_idle|arch_cpu_idle|__cpuidle|"
     r"cpuidle|rcu_|__rcu|kthread|worker_thread|process_one_work|queue_work|__queue_work|psi_|"
     r"account_|cpuacct|load_balance|select_task|set_next|put_prev|check_preempt|resched|smp_|"
     r"generic_smp|flush_smp|call_function|llist_|preempt|__preempt|idle|poll_idle|__wake|"
     r"autoremove_wake|prepare_to_wait|finish_wait|complete|wait_for|__cond_resched|_raw_spin|"
     r"_raw_read|_raw_write|queued_spin|__lock|mutex|__mutex|up_|down_|rwsem)"),
    ("memory and DMA", r"(kmem|kmalloc|__kmalloc|kfree|__kfree|slab|__slab|___slab|mempool|alloc_pages|"
                       r"__alloc_pages|get_page|put_page|__put_page|free_|__free|memcg|__memcg|mem_cgroup|"
                       r"dma_|__dma|iommu|swiotlb|memcpy|memset|__memcpy|__memset|copy_|_copy|"
                       r"percpu|__percpu|folio|__folio|__mod_|mod_)"),
]
CLASS_RES = [(name, re.compile(pat)) for name, pat in CLASSES]
FAR_CLASSES = {"network stack", "crc"}


def load_kallsyms(path):
    """Sorted (address, name, module) of the guest's code symbols."""
    syms = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) < 3 or parts[1] not in "tTwW":
                continue
            addr = int(parts[0], 16)
            if addr == 0:
                raise SystemExit(f"meter_report: {path} has no addresses (read as root?)")
            mod = parts[3].strip("[]") if len(parts) > 3 else "vmlinux"
            syms.append((addr, parts[2], mod))
    syms.sort()
    return syms


class Symbols:
    def __init__(self, syms):
        self.addrs = [s[0] for s in syms]
        self.syms = syms

    def lookup(self, addr, user=None):
        """(name, module, whether addr is the symbol's first byte); a user
        address through `user` (a UserMap of the run) when there is one."""
        if addr == USER:
            return ("(user space)", "user", False)
        if addr < KERNEL_START:
            return user.lookup(addr) if user else ("(user space)", "user", False)
        i = bisect.bisect_right(self.addrs, addr) - 1
        if i < 0:
            return (f"0x{addr:x}", "unknown", False)
        return self.syms[i][1], self.syms[i][2], self.syms[i][0] == addr


def _run(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, check=False).stdout
    except OSError:
        return ""


def short_name(name):
    """A demangled C++ name without its parameter list."""
    i = name.find("(", name.find("operator()") + len("operator()") if "operator()" in name else 0)
    return name[:i] if i > 0 else name


class ElfSymbols:
    """An object file's code symbols (its static table, else its dynamic
    one, as a stripped system library has) and its loadable segments."""

    def __init__(self, path):
        self.segments = []  # (file offset, virtual address, file size)
        for line in _run(["readelf", "-lW", path]).splitlines():
            parts = line.split()
            if len(parts) >= 5 and parts[0] == "LOAD":
                self.segments.append((int(parts[1], 16), int(parts[2], 16), int(parts[4], 16)))
        syms = {}
        for extra in ([], ["-D"]):
            for line in _run(["nm", "--defined-only", "-C", *extra, path]).splitlines():
                m = re.match(r"^([0-9a-fA-F]+) ([tTwWi]) (.+)$", line)
                if m:
                    syms.setdefault(int(m.group(1), 16), short_name(m.group(3)))
        self.addrs = sorted(syms)
        self.names = [syms[a] for a in self.addrs]

    def vaddr(self, file_off):
        for off, va, size in self.segments:
            if off <= file_off < off + size:
                return file_off - off + va
        return file_off

    def lookup(self, file_off):
        va = self.vaddr(file_off)
        i = bisect.bisect_right(self.addrs, va) - 1
        if i < 0:
            return "(no symbol)", False
        return self.names[i], self.addrs[i] == va


_elf_cache = {}


def elf_symbols(path):
    if path not in _elf_cache:
        _elf_cache[path] = ElfSymbols(path)
    return _elf_cache[path]


class UserMap:
    """A process's executable mappings (/proc/PID/maps): a user address
    to (symbol, "user:<object>", entry); addresses outside them are other
    processes' ("user:(other)")."""

    def __init__(self, path, elf=elf_symbols):
        self.maps = []  # (start, end, file offset, object path)
        self.elf = elf
        with open(path) as f:
            for line in f:
                parts = line.split(None, 5)
                # Files, and the vDSO (clock_gettime()).
                if len(parts) < 6 or "x" not in parts[1] or not (
                        parts[5].strip().startswith("/") or parts[5].strip() == "[vdso]"):
                    continue
                lo, hi = (int(x, 16) for x in parts[0].split("-"))
                self.maps.append((lo, hi, int(parts[2], 16), parts[5].strip()))
        self.maps.sort()
        self.starts = [m[0] for m in self.maps]

    def lookup(self, addr):
        i = bisect.bisect_right(self.starts, addr) - 1
        if i < 0 or addr >= self.maps[i][1]:
            return ("(another process)", "user:(other)", False)
        lo, _, off, path = self.maps[i]
        if path == "[vdso]":
            return "[vdso]", "user:[vdso]", addr == lo
        name, entry = self.elf(path).lookup(addr - lo + off)
        return name, "user:" + os.path.basename(path), entry


def category(side, name, mod):
    """The row of the host-side table that a symbol belongs to."""
    if in_driver(side, mod):
        return "the driver"
    for s in DRIVERS:
        if in_driver(s, mod):
            # Another side's user-space object in this side's process
            # (liburing) is this side's application code.
            if not mod.startswith("user:"):
                return "the other driver (idle)"
    if mod == "user:(other)":
        return "other processes (user space)"
    if mod == "user:[vdso]":
        # fio reads the clock by time, not by I/O: noise to a count.
        return "vDSO clock reads (user space)"
    if mod.startswith("user:"):
        obj = mod[5:]
        if VERBS_RE.match(obj):
            return "verbs and provider (user space)"
        if RUNTIME_RE.match(obj):
            return "C and C++ runtime (user space)"
        return "application (user space)"
    if mod == "user":
        return "application (user space)"
    if mod in RDMA_MODULES:
        return "RDMA core"
    if mod in FAR_MODULES:
        return "far end: " + mod
    if mod != "vmlinux":
        return "other modules"
    for cname, cre in CLASS_RES:
        if cre.match(name):
            return ("far end: " + cname) if cname in FAR_CLASSES else cname
    return "other kernel"


def read_delta(path):
    """{address: (instructions, executions)}"""
    counts = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            counts[int(parts[0], 16)] = (int(parts[1]), int(parts[2]) if len(parts) > 2 else 0)
    return counts


def per_symbol(delta, symbols, user=None):
    """{(name, module): instructions}, {(name, module): calls}"""
    insns, calls = {}, {}
    for addr, (n, execs) in delta.items():
        name, mod, entry = symbols.lookup(addr, user)
        key = (name, mod)
        insns[key] = insns.get(key, 0) + n
        if entry:
            calls[key] = calls.get(key, 0) + execs
    return insns, calls


def summarize(d):
    raw = os.path.join(d, "raw")
    with open(os.path.join(raw, "meta.json")) as f:
        meta = json.load(f)
    ios_a, ios_b = meta["ios"]
    runs = {}  # (mode, job, side, repeat) -> {ios: delta index}
    n_labels = 0
    with open(os.path.join(raw, "labels")) as f:
        for line in f:
            parts = line.split()
            n_labels += 1
            if len(parts) == 6 and parts[4] != "warm":
                mode, job, side, ios, rep = parts[1], parts[2], parts[3], int(parts[4]), int(parts[5])
                runs.setdefault((mode, job, side, rep), {})[ios] = int(parts[0])
    n_deltas = len([f for f in os.listdir(raw) if f.startswith("delta.")])
    if n_deltas != n_labels:
        raise SystemExit(f"meter_report: {n_labels} marks labelled but {n_deltas} delta files: "
                         "was the plugin loaded and the guest run on one thread?")
    symtabs = {}
    results = []
    for (mode, job, side, rep), idx in sorted(runs.items()):
        if ios_a not in idx or ios_b not in idx:
            raise SystemExit(f"meter_report: {mode} {job} {side} repeat {rep} lacks a run")
        if mode not in symtabs:
            symtabs[mode] = Symbols(load_kallsyms(os.path.join(raw, f"kallsyms.{mode}")))
        sy = symtabs[mode]

        def user_map(n):
            path = os.path.join(raw, f"maps.{n}")
            return UserMap(path) if os.path.exists(path) else None
        a, a_calls = per_symbol(read_delta(os.path.join(raw, f"delta.{idx[ios_a]}")), sy,
                                user_map(idx[ios_a]))
        b, b_calls = per_symbol(read_delta(os.path.join(raw, f"delta.{idx[ios_b]}")), sy,
                                user_map(idx[ios_b]))
        diff, calls = {}, {}
        for key in set(a) | set(b):
            v = (b.get(key, 0) - a.get(key, 0)) / (ios_b - ios_a)
            if v:
                diff[key] = v
            calls[key] = (b_calls.get(key, 0) - a_calls.get(key, 0)) / (ios_b - ios_a)
        cats = {}
        for (name, mod), v in diff.items():
            c = category(side, name, mod)
            cats[c] = cats.get(c, 0) + v
        driver_syms = sorted(((v, name) for (name, mod), v in diff.items()
                              if in_driver(side, mod)), reverse=True)
        loop = POLL_LOOP[side]
        poll_insns = sum(v for v, name in driver_syms if name in loop)
        results.append({
            "mode": mode, "job": job, "side": side, "repeat": rep,
            "driver": sum(v for v, _ in driver_syms),
            "poll_loop": poll_insns,
            "polls": sum(calls.get((name, mod), 0) for (name, mod) in calls
                         if loop and name == loop[0] and in_driver(side, mod)),
            # The verbs layer's system calls into the RDMA core: a
            # provider's doorbell and completion-channel work (soft-RoCE
            # rings its doorbells through the kernel).
            "uverbs_calls": {name: c for (name, mod), c in calls.items()
                             if mod == "ib_uverbs" and name.startswith("ib_uverbs_") and c >= 0.01},
            "host_side": sum(v for c, v in cats.items() if not c.startswith("far end")
                             and c != "the other driver (idle)"),
            "categories": cats,
            "driver_symbols": [[name, v] for v, name in driver_syms if abs(v) >= 0.5],
            # Calls per I/O of each driver function (0 where a symbol's
            # first block never ran, e.g. a label within a function).
            "driver_calls": {name: calls.get((name, mod), 0) for (name, mod) in diff
                             if in_driver(side, mod) and abs(diff[(name, mod)]) >= 0.5},
        })
    return meta, results


def mean(xs):
    return sum(xs) / len(xs) if xs else 0.0


def spread(xs):
    m = mean(xs)
    return (max(xs) - min(xs)) / m if m and len(xs) > 1 else 0.0


def ratio_key(a, key, b="nvme-rdma"):
    """The row's key of side a's ratio to side b: rblk's to nvme-rdma keep
    the plain name, the others' to nvme-rdma the side's name first."""
    if b != "nvme-rdma":
        return f"{a}_per_{b}_{key}"
    return key if a == "rblk" else f"{a}_{key}"


def side_table(rows, sides, head, ratio, cell):
    """A markdown table, a row per (mode, job): each side's cell(row[side])
    under head.format(side), then each of RATIOS whose sides both ran
    (row[ratio], or row["bypass_" + ratio]); "-" where a side did not run
    in that row (the bypass side, polled)."""
    pairs = [(a, b) for a, b in RATIOS if a in sides and b in sides]
    hdr = "| mode | job | " + " | ".join(head.format(s) for s in sides)
    hdr += "".join(f" | {a} / {b}" for a, b in pairs)
    out = [hdr + " |", "|" + "---|" * (2 + len(sides) + len(pairs))]
    for row in rows:
        cells = [cell(row[s]) if s in row else "-" for s in sides]
        for a, b in pairs:
            k = ratio_key(a, ratio, b)
            cells.append(f"{row[k]:.2f}x" if k in row else "-")
        out.append(f"| {row['mode']} | {row['job']} | " + " | ".join(cells) + " |")
    return out


def report(d):
    meta, results = summarize(d)
    groups = {}
    for r in results:
        groups.setdefault((r["mode"], r["job"]), {}).setdefault(r["side"], []).append(r)
    modes = sorted({r["mode"] for r in results}, key=lambda m: (m != "interrupt", m))
    jobs = list(meta["jobs"])
    sides = [s for s in DRIVERS if any(r["side"] == s for r in results)]
    table = []
    for mode in modes:
        for job in jobs:
            g = groups.get((mode, job))
            if not g:
                continue
            row = {"mode": mode, "job": job}
            for s in sides:
                rs = g.get(s, [])
                if not rs:
                    continue
                row[s] = {"driver": mean([r["driver"] for r in rs]),
                          "driver_wo_poll": mean([r["driver"] - r["poll_loop"] for r in rs]),
                          "driver_wo_poll_spread": spread([r["driver"] - r["poll_loop"] for r in rs]),
                          "polls": mean([r["polls"] for r in rs]),
                          "driver_spread": spread([r["driver"] for r in rs]),
                          "host_side": mean([r["host_side"] for r in rs]),
                          "repeats": len(rs)}
            for a, b in RATIOS:
                ref = row.get(b)
                if a not in row or not ref or not ref["driver"]:
                    continue
                row[ratio_key(a, "driver_ratio", b)] = row[a]["driver"] / ref["driver"]
                if ref["driver_wo_poll"]:
                    row[ratio_key(a, "driver_wo_poll_ratio", b)] = row[a]["driver_wo_poll"] / ref["driver_wo_poll"]
                row[ratio_key(a, "host_side_ratio", b)] = row[a]["host_side"] / ref["host_side"]
            table.append(row)

    lines = [f"# Instructions per I/O: rblk.ko and nvme-rdma ({meta['kernel']})", "",
             f"Guest instructions executed per I/O, counted by QEMU's TCG (tests/bench/insn_meter.sh): "
             f"the run of {meta['ios'][1]} I/Os minus the run of {meta['ios'][0]}, divided by the "
             f"difference; the mean of {meta['repeats']} repeats, with their spread ((max-min)/mean). "
             f"{meta['nr_io_queues']} I/O queues x {meta['queue_size']} each side; {meta['target']}.", "",
             "## The driver's own code", "",
             "rblk.ko: module `rblk`. nvme-rdma: `nvme_rdma` + `nvme_core` + `nvme_fabrics`. "
             "bypass: the kernel-bypass initiator's library with fio's engine glue "
             "(`librblk_fio.so`, user space), sleeping on its completion channel. "
             "bypass8: the same job over 8 files, 8 controllers whose queues share one poll group. "
             "ublk: the same library serving `/dev/ublkbN` (`rblkctl connect --path bypass`): "
             "the server's user space, `rblkctl` and `liburing`; fio's io_uring on the disk.", ""]
    lines += side_table(table, sides, "{} (spread)", "driver_ratio",
                        lambda r: f"{r['driver']:,.0f} ({r['driver_spread']:.1%})")
    polled = [row for row in table if row["mode"] != "interrupt"]
    psides = [s for s in sides if any(s in row for row in polled)]
    if polled:
        lines += ["", "Polled, the driver's figure holds its blk-mq poll entry (rblk: `" +
                  "`, `".join(POLL_LOOP["rblk"]) + "`; nvme-rdma: `" + "`, `".join(POLL_LOOP["nvme-rdma"]) +
                  "`), called until the answer is there: how often is the emulator's timing. "
                  "Without them (each completion's own handling stays in):", ""]
        lines += side_table(polled, psides, "{} (spread; polls per I/O)", "driver_wo_poll_ratio",
                            lambda r: f"{r['driver_wo_poll']:,.0f} ({r['driver_wo_poll_spread']:.1%}; "
                                      f"{r['polls']:,.0f})")
    lines += ["", "## The initiator's host side", "",
              "Everything but what stands for the hardware and the far end (rxe, the network stack, "
              "CRC, nvmet, null_blk) and the other side's idle driver: the driver, the RDMA core, the "
              "block layer and io_uring, syscalls, interrupts and scheduling, memory, fio; for the "
              "bypass side its library, the verbs libraries in user space and the system calls they "
              "make. Kernel symbols are put in rows by their names' prefixes: a guide.", ""]
    lines += side_table(table, sides, "{}", "host_side_ratio", lambda r: f"{r['host_side']:,.0f}")

    for mode in modes:
        for job in jobs:
            g = groups.get((mode, job))
            if not g:
                continue
            lines += ["", f"### {mode}, {job}", ""]
            cats = sorted({c for s in sides for r in g.get(s, []) for c in r["categories"]})
            lines += ["| where | " + " | ".join(sides) + " |", "|---|" + "---|" * len(sides)]
            for c in cats:
                vals = [mean([r["categories"].get(c, 0) for r in g.get(s, [])]) for s in sides]
                if all(abs(v) < 0.5 for v in vals):
                    continue
                lines.append(f"| {c} | " + " | ".join(f"{v:,.0f}" for v in vals) + " |")
            for s in sides:
                rs = g.get(s, [])
                if not rs:
                    continue
                top = rs[0]["driver_symbols"][:15]
                calls = rs[0].get("driver_calls", {})
                lines.append("")
                lines.append(f"{s}'s top symbols (instructions, calls per I/O): " +
                             ", ".join(f"`{n}` {v:,.0f} ({calls.get(n, 0):,.1f})" for n, v in top))
                uv = sorted(rs[0].get("uverbs_calls", {}).items(), key=lambda kv: -kv[1])
                if uv and s in ("bypass", "ublk"):
                    lines.append("")
                    lines.append(f"{s}'s system calls into the RDMA core, per I/O: " +
                                 ", ".join(f"`{n}` {c:,.2f}" for n, c in uv))
    md = "\n".join(lines) + "\n"
    with open(os.path.join(d, "meter.md"), "w") as f:
        f.write(md)
    with open(os.path.join(d, "meter.json"), "w") as f:
        json.dump({"meta": meta, "table": table, "runs": results}, f, indent=1)
    return md


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    sys.stdout.write(report(argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
