#!/usr/bin/python3
"""The instruction meter's smoke check (ctest vm.bench.insn_meter): the
report of a short run of tests/bench/insn_meter.sh is well formed. It
checks the shape and that each side's driver executed instructions, never
a figure's size.

Usage: meter_smoke.py RESULTS_DIR SIDE...
"""
import json
import os
import sys


def check(d, sides):
    errors = []
    with open(os.path.join(d, "meter.json")) as f:
        data = json.load(f)
    with open(os.path.join(d, "meter.md")) as f:
        md = f.read()
    jobs = list(data["meta"]["jobs"])
    if not data["table"]:
        errors.append("meter.json has no rows")
    for row in data["table"]:
        if row["job"] not in jobs:
            errors.append(f"row for an unknown job {row['job']}")
        for s in sides:
            cell = row.get(s)
            if not cell:
                errors.append(f"{row['mode']} {row['job']}: no figures for {s}")
                continue
            if cell["repeats"] != data["meta"]["repeats"]:
                errors.append(f"{row['mode']} {row['job']} {s}: {cell['repeats']} repeats, "
                              f"not {data['meta']['repeats']}")
            if not cell["driver"] > 0:
                errors.append(f"{row['mode']} {row['job']} {s}: the driver executed "
                              f"{cell['driver']} instructions per I/O")
    for r in data["runs"]:
        if not r["driver_symbols"]:
            errors.append(f"{r['mode']} {r['job']} {r['side']} repeat {r['repeat']}: no driver symbol")
        if r["side"] in ("bypass", "bypass8", "ublk"):
            # The library's own names, and what it instantiates (std::...).
            if not any(name.startswith(("rblk_", "rblk::")) for name, _ in r["driver_symbols"]):
                errors.append(f"{r['side']}: no symbol of the library among {r['driver_symbols'][:5]}")
            continue
        prefix = "rblk_" if r["side"] == "rblk" else "nvme"
        for name, _ in r["driver_symbols"]:
            if not name.startswith(prefix) and not name.startswith("__" + prefix):
                errors.append(f"{r['side']}: driver symbol {name} is not the driver's")
                break
    if "## The driver's own code" not in md:
        errors.append("meter.md has no driver table")
    return errors


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    errors = check(argv[1], argv[2:])
    for e in errors:
        print(f"meter_smoke: {e}", file=sys.stderr)
    if not errors:
        print(f"meter_smoke: {argv[1]}/meter.json is well formed")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
