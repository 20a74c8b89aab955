#!/bin/bash
# Userspace across `rmmod rblk; modprobe rblk`, twice: the generic netlink
# family comes back under a new id and a new events group. rblkctl monitor
# (--json and text) reports the module going away and coming back, joins the
# new events group and prints the state events of a controller connected
# after the reload; a long-lived librblk client (one socket, family resolved
# at start) gets "module not loaded" while it is gone and works again after.
# It checks userspace (module_load covers 6.1's unload and reload):
# newest kernel only, for the suite's time.
# vm-timeout: 420
# vm-kernels: newest
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
client=$RBLK_BUILD_DIR/tests/tools/rblk_reload_client
vm_require "$RBLKCTL" "$client"

nqn=nqn.2024-01.io.rblk:reload
work=$RBLK_VM_OUT/cli_module_reload
mkdir -p "$work"
vm_rdma_target "$nqn" 16 > /dev/null
vm_rblk_load

events=$work/monitor.jsonl
"$RBLKCTL" monitor --json > "$events" 2> "$work/monitor.err" &
mon=$!
"$RBLKCTL" monitor > "$work/monitor.txt" 2> "$work/monitor-text.err" &
mon_text=$!
# It outlives the case (killed at the end), however slow the VM is.
"$client" --seconds 900 --interval 100 > "$work/client.out" 2> "$work/client.err" &
cli=$!
# The client polls the family: while rblk is gone each poll would load it
# back by the family's alias. Alias loading is off for this case, as a
# blacklist does it (modprobe rblk still loads it), so "gone" lasts.
echo "blacklist rblk" > /etc/modprobe.d/rblk-test-noauto.conf
trap 'kill "$mon" "$mon_text" "$cli" 2> /dev/null || true; rm -f /etc/modprobe.d/rblk-test-noauto.conf' EXIT

# at_least N FILE ERE: FILE has N or more lines matching ERE.
at_least() { [ "$(grep -Ec -- "$3" "$2" || true)" -ge "$1" ]; }
# client_now ANSWER: the long-lived client's latest answer is ANSWER.
client_now() { [ "$(tail -n 1 "$work/client.out" | cut -d' ' -f2-)" = "$1" ]; }
# state_event NAME STATE: an event of NAME entering STATE (JSON keys are sorted).
state_event() { printf '"name":"%s","old_state":"[a-z]+","state":"%s"' "$1" "$2"; }

vm_wait_for 20 vm_netlink_groups_joined "$mon" 2
vm_wait_for 20 vm_netlink_groups_joined "$mon_text" 2
vm_wait_for 20 client_now "ok 0"

for cycle in 1 2; do
	t0=$(vm_now_ms)
	vm_rblk_unload
	vm_wait_for 20 at_least "$cycle" "$events" '"state":"unloaded"'
	t_gone=$(vm_ms_since "$t0")
	vm_wait_for 20 client_now module-not-loaded

	t0=$(vm_now_ms)
	vm_modprobe rblk
	vm_wait_for 20 at_least "$cycle" "$events" '"state":"loaded"'
	t_back=$(vm_ms_since "$t0")
	# The same client, its family id stale: it must find the new one.
	vm_wait_for 20 client_now "ok 0"
	# The monitor must have joined the new events group by now.
	vm_wait_for 20 vm_netlink_groups_joined "$mon" 2

	out=$(vm_rblk_connect "$nqn" -i 1 -Q 32)
	name=$(head -n 1 <<< "$out")
	vm_wait_for 30 at_least "$cycle" "$events" "$(state_event "$name" live)"
	vm_wait_for 20 client_now "ok 1"
	"$RBLKCTL" disconnect "$name" > /dev/null || vm_fail "disconnect $name failed"
	vm_wait_for 30 at_least "$cycle" "$events" "$(state_event "$name" dead)"
	vm_wait_for 20 test -z "$(vm_rblk_disks)"
	echo "RESULT: module_reload cycle=$cycle monitor_saw_unload_ms=$t_gone monitor_saw_load_ms=$t_back"
done

# The whole JSON stream: per cycle, unloaded, loaded (with a family id),
# then the new controller from new to live and to dead.
python3 - "$events" <<'PY' || vm_fail "monitor --json output is wrong: $(cat "$events")"
import json, sys
ev = [json.loads(line) for line in open(sys.argv[1])]
kinds = [(e["event"], e["state"]) for e in ev]
mods = [k for k in kinds if k[0] == "module"]
assert mods == [("module", "unloaded"), ("module", "loaded")] * 2, mods
ids = [e["family_id"] for e in ev if e["event"] == "module" and e["state"] == "loaded"]
assert all(isinstance(i, int) and i > 0 for i in ids), ids
bounds = [i for i, k in enumerate(kinds) if k[0] == "module"] + [len(kinds)]
for cycle in range(2):
    start, end = bounds[2 * cycle + 1], bounds[2 * cycle + 2]  # loaded .. next unloaded
    after = [k[1] for k in kinds[start + 1:end] if k[0] == "state"]
    assert after[-2:] == ["live", "dead"] or ("live" in after and after[-1] == "dead"), (cycle, after)
print("RESULT: module_reload monitor_events=%d family_ids=%s" % (len(ev), ids))
PY
vm_wait_for 10 at_least 2 "$work/monitor.txt" '^rblk module loaded \(family id [0-9]+\)$'
vm_assert_eq 2 "$(grep -c '^rblk module unloaded$' "$work/monitor.txt")" "text monitor: unloaded lines"
vm_assert_match ': connecting -> live$' "$(cat "$work/monitor.txt")" "text monitor: state events"

kill "$cli"
wait "$cli" || true
vm_assert_eq "0 ok 0" "$(head -n 1 "$work/client.out")" "client's first answer"
echo "RESULT: module_reload client_transitions=$(wc -l < "$work/client.out") ($(tr '\n' ';' < "$work/client.out"))"
vm_assert_eq "" "$(cat "$work/client.err")" "client's stderr"
kill "$mon" "$mon_text"
wait "$mon" "$mon_text" || true
vm_assert_eq "" "$(cat "$work/monitor.err" "$work/monitor-text.err")" "monitors' stderr"

vm_rblk_unload
vm_dmesg_clean
