#!/usr/bin/env python3
"""Checks rblkctl's output for tests/vm/cases/cli_control.sh.

The JSON forms against the schema documented in
userlib/client/include/rblk/json.hpp (every key, its type, no undocumented key),
plus the values a step expects. Usage: rblkctl_json_check.py KIND [ARGS...]
with the output on stdin; exits non-zero with the reason on stderr.
"""
import json
import re
import sys

STATES = {"new", "connecting", "live", "resetting", "deleting", "dead"}
INT, STR, NUM = "int", "str", "num"

NAMESPACE = {"nsid": INT, "device": STR, "size_bytes": INT, "lba_size": INT,
             "path_disk": STR, "ana_state": STR, "anagrpid": INT}
CONTROLLER = {"name": STR, "id": INT, "state": STR, "transport": STR, "traddr": STR,
              "trsvcid": INT, "subnqn": STR, "hostnqn": STR, "cntlid": INT,
              "nr_io_queues": INT, "nr_write_queues": INT, "nr_poll_queues": INT,
              "queue_size": INT, "host_traddr": STR, "tos": INT, "discovery": bool,
              "subsys_id": INT, "multipath": bool, "iopolicy": STR, "anatt": INT,
              "dhchap": STR,
              "namespaces": list}
SUBSYSTEM = {"name": STR, "id": INT, "subnqn": STR, "hostnqn": STR, "multipath": bool,
             "iopolicy": STR, "paths": list, "namespaces": list}
DETAIL = dict(CONTROLLER, hostid=STR, kato=INT, reconnect_delay=INT, ctrl_loss_tmo=INT,
              fast_io_fail_tmo=INT, model=STR, serial=STR, firmware=STR)
DETAIL_OPTIONAL = {"state_since_ms": INT, "next_reconnect_ms": INT, "loss_deadline_ms": INT}
STATS = {k: INT for k in ("reads", "writes", "read_bytes", "write_bytes", "errors",
                          "reconnects", "inflight", "failovers")}
RATES = {k: NUM for k in ("interval_s", "iops", "read_iops", "write_iops", "mib_s",
                          "read_mib_s", "write_mib_s")}
EVENT = {"event": STR, "id": INT, "name": STR, "state": STR, "old_state": STR}
# The settings a session is made of, as show --json reports them.
SESSION_KEYS = ("transport", "traddr", "trsvcid", "subnqn", "hostnqn", "hostid",
                "nr_io_queues", "nr_write_queues", "nr_poll_queues", "queue_size", "kato",
                "reconnect_delay", "ctrl_loss_tmo", "fast_io_fail_tmo", "host_traddr", "tos")


def fail(msg):
    sys.exit("rblkctl_json_check: " + msg)


def typed(value, kind):
    if kind == INT:
        return type(value) is int  # bool is not an int here
    if kind == NUM:
        return type(value) in (int, float)
    if kind == STR:
        return isinstance(value, str)
    return isinstance(value, kind)


def conform(obj, schema, what, optional=None):
    optional = optional or {}
    if not isinstance(obj, dict):
        fail(f"{what}: not an object: {obj!r}")
    missing = set(schema) - set(obj)
    extra = set(obj) - set(schema) - set(optional)
    if missing or extra:
        fail(f"{what}: missing keys {sorted(missing)}, undocumented keys {sorted(extra)}")
    for key, kind in list(schema.items()) + list(optional.items()):
        if key in obj and not typed(obj[key], kind):
            fail(f"{what}: {key} = {obj[key]!r} is not of type {kind}")


def controller(c, what, schema=CONTROLLER, optional=None):
    conform(c, schema, what, optional)
    if c["state"] not in STATES:
        fail(f"{what}: unknown state {c['state']!r}")
    # This case connects without DH-HMAC-CHAP keys.
    if c["dhchap"] != "none":
        fail(f"{what}: dhchap {c['dhchap']!r} without a key")
    if not re.fullmatch(r"rblk\d+", c["name"]) or c["name"] != f"rblk{c['id']}":
        fail(f"{what}: name {c['name']!r} does not match id {c['id']}")
    for ns in c["namespaces"]:
        conform(ns, NAMESPACE, f"{what}: namespace")
        if ns["device"] != f"/dev/{c['name']}n{ns['nsid']}":
            fail(f"{what}: device {ns['device']!r}")
    if len(c["namespaces"]) != 1 or c["namespaces"][0]["size_bytes"] != 32 << 20:
        fail(f"{what}: expected one 32 MiB namespace: {c['namespaces']}")


def stdin_json():
    text = sys.stdin.read()
    try:
        return json.loads(text)
    except ValueError as e:
        fail(f"not JSON ({e}): {text!r}")


def expect(actual, wanted, what):
    if actual != wanted:
        fail(f"{what}: expected {wanted!r}, got {actual!r}")


def load(path):
    with open(path) as f:
        return json.load(f)


# --- kinds -------------------------------------------------------------------------

def k_connect(subnqn):
    c = stdin_json()
    controller(c, "connect")
    expect((c["state"], c["subnqn"], c["trsvcid"], c["nr_io_queues"], c["queue_size"]),
           ("live", subnqn, 4421, 2, 64), "connect --json")


def k_list(*subnqns):
    d = stdin_json()
    conform(d, {"controllers": list, "subsystems": list}, "list")
    for c in d["controllers"]:
        controller(c, "list entry")
        expect(c["state"], "live", f"{c['name']} state")
    expect(sorted(c["subnqn"] for c in d["controllers"]), sorted(subnqns), "list subnqns")
    # Single paths: each controller a subsystem of its own, numbered as it.
    for s in d["subsystems"]:
        conform(s, SUBSYSTEM, "list subsystem")
        expect((s["name"], [p["name"] for p in s["paths"]]),
               (f"rblk-subsys{s['id']}", [f"rblk{s['id']}"]), "subsystem of one path")
    expect(sorted(s["subnqn"] for s in d["subsystems"]), sorted(subnqns), "subsystem subnqns")


def k_show(name, subnqn, kato):
    c = stdin_json()
    controller(c, "show", DETAIL, DETAIL_OPTIONAL)
    expect((c["name"], c["subnqn"], c["kato"], c["state"]), (name, subnqn, int(kato), "live"),
           "show --json")
    if "state_since_ms" not in c:
        fail("show --json: a live controller reports state_since_ms")
    if not re.fullmatch(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", c["hostid"]):
        fail(f"show --json: hostid {c['hostid']!r}")


def k_stats(name):
    s = stdin_json()
    conform(s, {"name": STR, "id": INT, "stats": dict}, "stats")
    conform(s["stats"], STATS, "stats.stats")
    expect(s["name"], name, "stats name")


def k_moved(before_path, after_path, nbytes):
    b, a = load(before_path)["stats"], load(after_path)["stats"]
    nbytes = int(nbytes)
    for ops, nb in (("reads", "read_bytes"), ("writes", "write_bytes")):
        if a[ops] <= b[ops] or a[nb] - b[nb] < nbytes:
            fail(f"{ops}/{nb} did not move by {nbytes} bytes: {b} -> {a}")
    expect((a["errors"], a["inflight"], a["reconnects"]), (0, 0, 0), "errors, inflight, reconnects")


def k_watch(name):
    lines = [ln for ln in sys.stdin.read().splitlines() if ln.strip()]
    if len(lines) < 2:
        fail(f"stats --watch printed {len(lines)} lines: {lines}")
    prev = None
    for ln in lines:
        try:
            s = json.loads(ln)
        except ValueError:
            fail(f"stats --watch: not one JSON object a line: {ln!r}")
        conform(s, {"name": STR, "id": INT, "stats": dict, "rates": dict}, "watch line")
        conform(s["stats"], STATS, "watch line stats")
        conform(s["rates"], RATES, "watch line rates")
        expect(s["name"], name, "watch name")
        if not 0.5 < s["rates"]["interval_s"] < 3:
            fail(f"stats --watch 1: interval {s['rates']['interval_s']}")
        if prev and any(s["stats"][k] < prev["stats"][k] for k in ("reads", "read_bytes")):
            fail(f"stats --watch: counters went backwards: {prev} -> {s}")
        prev = s
    if not any(json.loads(ln)["rates"]["read_iops"] > 0 and
               json.loads(ln)["rates"]["read_mib_s"] > 0 for ln in lines):
        fail("stats --watch: no read rate while reads ran")


def k_watch_table(name):
    lines = sys.stdin.read().splitlines()
    header = lines[0].split()
    expect(header, ["NAME", "IOPS", "R_IOPS", "W_IOPS", "MiB/s", "R_MiB/s", "W_MiB/s",
                    "INFLIGHT", "ERRORS", "RECONNECTS"], "stats --watch header")
    rows = lines[1:]
    if not rows:
        fail("stats --watch printed no row")
    for row in rows:
        if len(row) != len(lines[0]) or row.split()[0] != name or len(row.split()) != 10:
            fail(f"stats --watch row does not line up:\n{lines[0]}\n{row}")


def k_table(nrows):
    lines = sys.stdin.read().splitlines()
    expect(len(lines), 1 + int(nrows), "table lines")
    starts = [m.start() for m in re.finditer(r"\S+", lines[0])]
    expect(lines[0].split(), ["NAME", "STATE", "ANA", "TRANSPORT", "TRADDR", "TRSVCID", "QUEUES",
                              "QSIZE", "SUBSYS", "SUBNQN", "DEVICES", "SIZE"], "list header")
    for row in lines[1:]:
        expect([m.start() for m in re.finditer(r"\S+", row)], starts, f"columns of {row!r}")


def k_saved(file_path, *subnqns):
    saved = stdin_json()
    expect(saved, load(file_path), "save - vs save FILE")
    ports = {}
    for host in saved["hosts"]:
        for sub in host["subsystems"]:
            for p in sub["ports"]:
                ports[sub["nqn"]] = p
    expect(sorted(ports), sorted(subnqns), "saved subsystems")
    a, b = (ports[n] for n in subnqns)
    expect((a["traddr"], a["trsvcid"], a["nr_io_queues"], a["queue_size"], a["keep_alive_tmo"]),
           ("10.99.0.1", 4420, 1, 32, 10), "saved session a")
    expect((b["trsvcid"], b["nr_io_queues"], b["queue_size"], b["reconnect_delay"],
            b["ctrl_loss_tmo"], b["fast_io_fail_tmo"]), (4421, 2, 64, 5, 60, 30), "saved session b")


def k_same(*paths):
    half = len(paths) // 2

    def sessions(ps):
        out = {}
        for p in ps:
            c = load(p)
            expect(c["state"], "live", f"{p}: state")
            out[c["subnqn"]] = {k: c[k] for k in SESSION_KEYS}
        return out
    expect(sessions(paths[half:]), sessions(paths[:half]), "sessions")


def k_apply_existing(*subnqns):
    d = stdin_json()
    conform(d, {"sessions": list}, "apply --json")
    seen = []
    for r in d["sessions"]:
        conform(r, {"subnqn": STR, "traddr": STR, "trsvcid": INT, "result": STR, "name": STR},
                "apply session")
        expect(r["result"], "existing", f"second apply of {r['subnqn']}")
        seen.append(r["subnqn"])
    expect(sorted(seen), sorted(subnqns), "apply sessions")


def k_same_list(path):
    expect(stdin_json(), load(path), "list --json")


def k_events(lives):
    """Every line an event object; per controller name, lifecycles
    new -> connecting -> ... -> dead whose states chain; `lives` reached live."""
    chains, live = {}, 0
    for ln in sys.stdin.read().splitlines():
        try:
            e = json.loads(ln)
        except ValueError:
            fail(f"monitor: not one JSON object a line: {ln!r}")
        conform(e, EVENT, "event")
        expect(e["event"], "state", "event kind")
        if e["state"] not in STATES or e["old_state"] not in STATES:
            fail(f"event with an unknown state: {e}")
        chain = chains.setdefault(e["name"], [])
        if e["old_state"] == "new":
            if chain and chain[-1] != "dead":
                fail(f"{e['name']}: a new lifecycle before the last ended: {chain} then {e}")
            chain.append("new")
        elif not chain or chain[-1] != e["old_state"]:
            fail(f"{e['name']}: {e['old_state']} -> {e['state']} does not follow {chain}")
        chain.append(e["state"])
        live += e["state"] == "live"
    expect(live, int(lives), "events reaching live")
    for name, chain in chains.items():
        if chain[-1] != "dead":
            fail(f"{name}: ended in {chain[-1]}, not dead: {chain}")


KINDS = {name[2:]: fn for name, fn in globals().items() if name.startswith("k_")}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in KINDS:
        fail(f"usage: rblkctl_json_check.py {{{','.join(sorted(KINDS))}}} [ARGS...]")
    KINDS[sys.argv[1]](*sys.argv[2:])
