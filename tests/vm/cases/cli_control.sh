#!/bin/bash
# Every rblkctl command against live controllers (nvmet-rdma over rxe):
# connect prints the controller and its devices; list/show/stats tables line
# up and their --json follows the schema of userlib/client/include/rblk/json.hpp
# (keys and types); counters move with I/O; stats --watch prints rates;
# monitor --json sees every state change; save -> disconnect --all -> apply
# restores the same sessions and a second apply changes nothing; disconnect
# by name, --nqn and --all; bad input gets one specific line, the exit code
# of its kind (2 usage, 1 failure) and changes nothing.
# A busy host stretches it to ~430 s (measured): the budget allows that.
# Newest kernel only: it checks rblkctl; netlink_control covers the
# kernel's side of the same commands on both.
# vm-timeout: 900
# vm-kernels: newest
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
vm_require "$RBLKCTL"

a=nqn.2024-01.io.rblk:cli-a
b=nqn.2024-01.io.rblk:cli-b
work=$RBLK_VM_OUT/cli_control  # copied back to the host for a look afterwards
mkdir -p "$work"
schema=$RBLK_SRC_DIR/tests/tools/rblkctl_json_check.py

# Two subsystems: a on 10.99.0.1:4420, b on 10.99.0.1:4421.
vm_rdma_target "$a" 32 > /dev/null
vm_nvmet_subsys "$b" "$(vm_membacked_disk 1 32)"
vm_nvmet_port 2 10.99.0.1 4421
vm_nvmet_link 2 "$b"
vm_rblk_load

# ctl ARGS...: rblkctl's stdout; fail with its stderr unless it exits 0.
ctl() {
	local out rc=0
	out=$("$RBLKCTL" "$@" 2> "$work/stderr") || rc=$?
	[ "$rc" -eq 0 ] || vm_fail "rblkctl $* exited $rc: $(cat "$work/stderr")"
	printf '%s\n' "$out"
}

# check KIND [ARGS...] < JSON: the schema (and values) of tests/tools/rblkctl_json_check.py.
check() {
	local json
	json=$(cat)
	python3 "$schema" "$@" <<< "$json" || vm_fail "rblkctl $1 --json output is wrong: $json"
}

# The monitor runs through the whole case, ended at the end (or on failure).
events=$work/monitor.jsonl
"$RBLKCTL" monitor --json > "$events" 2> "$work/monitor.err" &
mon=$!
trap 'kill "$mon" 2> /dev/null || true' EXIT
event_count() { wc -l < "$events"; }
# monitor_joined: its generic netlink socket is in a multicast group
# (/proc/net/netlink shows groups 1-32 as a mask; rblk's "events" is one).
monitor_joined() {
	local link
	for link in /proc/"$mon"/fd/*; do
		link=$(readlink "$link") || continue
		[[ $link =~ ^socket:\[([0-9]+)\]$ ]] || continue
		awk -v ino="${BASH_REMATCH[1]}" '$2 == 16 && $10 == ino && $4 != "00000000" { f = 1 }
			END { exit !f }' /proc/net/netlink && return 0
	done
	return 1
}
# Events before the join would be lost, and the count below fail.
vm_wait_for 60 monitor_joined

# --- connect, list, show ---------------------------------------------------------
out=$(ctl connect -a 10.99.0.1 -n "$a" -i 1 -Q 32 -k 10)
vm_assert_eq $'rblk0\n/dev/rblk0n1' "$out" "rblkctl connect output"
ctl connect -t rdma -a 10.99.0.1 -s 4421 -n "$b" -i 2 -Q 64 -c 5 -l 60 --fast-io-fail-tmo 30 \
	--json | check connect "$b"
vm_assert_exists /dev/rblk1n1

ctl list > "$work/list.txt"
python3 "$schema" table 2 < "$work/list.txt" || vm_fail "rblkctl list table: $(cat "$work/list.txt")"
vm_assert_match '^rblk0 +live +optimized +rdma +10\.99\.0\.1 +4420 +1 +32 +rblk-subsys0 +nqn\.2024-01\.io\.rblk:cli-a +/dev/rblk0n1 +32\.0M$' \
	"$(sed -n 2p "$work/list.txt")" "rblkctl list row of rblk0"
ctl list --json | check list "$a" "$b"
ctl show rblk0 --json | check show rblk0 "$a" 10
out=$(ctl show rblk1)
vm_assert_match '^state: +live$' "$(grep '^state:' <<< "$out")" "rblkctl show: state"
vm_assert_match '^ctrl_loss_tmo: +60 s$' "$(grep '^ctrl_loss_tmo:' <<< "$out")" "rblkctl show: ctrl_loss_tmo"
vm_assert_match '^1 +/dev/rblk1n1 +33554432 +512$' "$(tail -n 1 <<< "$out")" "rblkctl show: namespace row"
# A disk, or its /dev path, names its controller.
# (All but "state since", which moves on between two calls.)
steady() { grep -v '^state since:' <<< "$1"; }
vm_assert_eq "$(steady "$out")" "$(steady "$(ctl show rblk1n1)")" "rblkctl show DISK"
vm_assert_eq "$(steady "$out")" "$(steady "$(ctl show /dev/rblk1n1)")" "rblkctl show /dev/DISK"

# --- stats ---------------------------------------------------------------------------
ctl stats rblk0 --json > "$work/stats0.json"
check stats rblk0 < "$work/stats0.json"
dd if=/dev/urandom of="$work/1m" bs=1M count=1 status=none
vm_put "$work/1m" /dev/rblk0n1 0
vm_assert_eq "$(sha256sum < "$work/1m" | cut -d' ' -f1)" "$(vm_sum /dev/rblk0n1 0 1048576)" "data read back"
ctl stats rblk0 --json > "$work/stats1.json"
python3 "$schema" moved "$work/stats0.json" "$work/stats1.json" 1048576 ||
	vm_fail "stats did not move with 1 MiB written and read: $(cat "$work/stats0.json" "$work/stats1.json")"
out=$(ctl stats rblk0)
vm_assert_match '^write_bytes: +[0-9]+$' "$(grep '^write_bytes:' <<< "$out")" "rblkctl stats table"

# --watch: rates while reads run, one JSON object a line; --count ends it.
# The reads must fall into an interval after the first line, and reading
# 4 MiB takes well under the 3 s left.
rc=0
timeout 30 "$RBLKCTL" stats rblk0 --watch 1 --count 4 --json > "$work/watch.jsonl" 2>&1 &
watch=$!
vm_wait_for 9 test -s "$work/watch.jsonl"  # the reads go into a later interval
dd if=/dev/rblk0n1 of=/dev/null bs=64k count=64 iflag=direct status=none
wait "$watch" || rc=$?
vm_assert_eq 0 "$rc" "stats --watch --count 4 exit code"
vm_assert_eq 4 "$(wc -l < "$work/watch.jsonl")" "lines of stats --watch --count 4"
check watch rblk0 < "$work/watch.jsonl"
# Without --count it runs until interrupted.
rc=0
timeout 6 "$RBLKCTL" stats rblk1 --watch 1 > "$work/watch.txt" 2>&1 || rc=$?
vm_assert_eq 124 "$rc" "stats --watch (table) ended by timeout"
python3 "$schema" watch_table rblk1 < "$work/watch.txt" ||
	vm_fail "stats --watch table: $(cat "$work/watch.txt")"

# --- save -> disconnect --all -> apply ---------------------------------------------------
sessions=$work/sessions.json
ctl save "$sessions" > /dev/null
ctl save - | check saved "$sessions" "$a" "$b"
snapshot() { ctl show rblk0 --json > "$work/$1.rblk0"; ctl show rblk1 --json > "$work/$1.rblk1"; }
same_sessions() {
	python3 "$schema" same "$work/before.rblk0" "$work/before.rblk1" \
		"$work/$1.rblk0" "$work/$1.rblk1" || vm_fail "$2: sessions differ from before"
}
snapshot before
vm_assert_eq $'rblk0\nrblk1' "$(ctl disconnect --all)" "disconnect --all"
vm_wait_for 10 test -z "$(vm_rblk_disks)"
ctl list --json | check list
out=$(ctl apply "$sessions")
vm_assert_match "^rblk[01] +$a +10\.99\.0\.1:4420 +connected$" "$(grep -- "$a" <<< "$out")" "apply: a"
vm_assert_match "^rblk[01] +$b +10\.99\.0\.1:4421 +connected$" "$(grep -- "$b" <<< "$out")" "apply: b"
snapshot after
same_sessions after "apply after disconnect --all"

# A second apply: every session already there, nothing connected, no event.
n=$(event_count)
ctl list --json > "$work/list-before-reapply.json"
ctl apply --json "$sessions" | check apply_existing "$a" "$b"
sleep 1
ctl list --json | check same_list "$work/list-before-reapply.json"
vm_assert_eq "$n" "$(event_count)" "monitor events after a no-op apply"
vm_assert_eq $'/dev/rblk0n1\n/dev/rblk1n1' "$(vm_rblk_disks)" "disks after a no-op apply"

# --- bad input: one specific line, its exit code, nothing changed --------------------------
# refused EXIT_CODE MESSAGE_ERE RBLKCTL_ARGS...: 2 for a usage error, 1 for
# a failure (README.md, "Exit status").
refused() {
	local want=$1 msg=$2 out rc=0 n
	shift 2
	n=$(event_count)
	out=$("$RBLKCTL" "$@" 2>&1) || rc=$?
	vm_assert_eq "$want" "$rc" "exit code of rblkctl $*"
	vm_assert_eq 1 "$(wc -l <<< "$out")" "lines printed by rblkctl $*: $out"
	vm_assert_match "^rblkctl: $msg\$" "$out" "rblkctl $*"
	# The same text as list-before-reapply.json (which the schema check
	# above read): a python3 a refusal costs a second under TCG.
	vm_assert_eq "$(cat "$work/list-before-reapply.json")" "$(ctl list --json)" "list --json after rblkctl $*"
	vm_assert_eq "$n" "$(event_count)" "monitor events after rblkctl $*"
	vm_log "refused as expected: $out"
}
long_nqn=nqn.2024-01.io.rblk:$(printf 'x%.0s' {1..220})
refused 2 "--traddr '10\.99\.0' is not an IPv4 or IPv6 address or a host name" connect -a 10.99.0 -n "$a"
refused 2 "--nqn is 240 bytes long, the maximum is 223" connect -a 10.99.0.1 -n "$long_nqn"
refused 2 "--queue-size 2048 is out of range \(16\.\.1024\)" connect -a 10.99.0.1 -n "$a" -Q 2048
refused 2 "--nr-io-queues 0 is out of range \(1\.\.128\)" connect -a 10.99.0.1 -n "$a" -i 0
refused 2 "unknown option '--bogus'" connect -a 10.99.0.1 -n "$a" --bogus
refused 2 "unknown option '--nqm'; did you mean '--nqn'\?" connect -a 10.99.0.1 --nqm="$a"
refused 2 "unknown command 'lsit'; did you mean 'list'\?" lsit
refused 2 "name: 'sda' is not a controller \(rblk0\), a disk \(rblk0n1\) or a /dev path of one" show sda
refused 1 "a controller for this traddr, trsvcid, subnqn and hostnqn already exists" \
	connect -a 10.99.0.1 -n "$a"
refused 1 "$work/absent\.json: No such file or directory" apply "$work/absent.json"
printf '{\n  "hosts": [\n    {"subsystems": [}\n  ]\n}\n' > "$work/bad.json"
refused 1 "$work/bad\.json: not valid JSON: line 3, column 21: syntax error .*" apply "$work/bad.json"
sed 's/"queue_size": 32/"queue_size": 5000/' "$sessions" > "$work/badq.json"
refused 1 "$work/badq\.json: hosts\[0\]\.subsystems\[[01]\]\.ports\[0\]: queue-size 5000 is out of range \(16\.\.1024\)" \
	apply "$work/badq.json"
refused 1 "no controller with that name \(attribute: ctrl_name\)" show rblk9
refused 1 "no controller with that name \(attribute: ctrl_name\)" stats rblk9n1
refused 1 "no controller is connected to that subnqn" disconnect --nqn nqn.2024-01.io.rblk:none

# A failed apply reports each session's outcome and leaves no controller
# for the one that failed (nobody listens on 4422).
python3 - "$sessions" "$work/partial.json" <<'PY'
import json, sys
cfg = json.load(open(sys.argv[1]))
port = dict(cfg["hosts"][0]["subsystems"][0]["ports"][0], trsvcid=4422)
cfg["hosts"][0]["subsystems"][0]["ports"].append(port)
json.dump(cfg, open(sys.argv[2], "w"))
PY
rc=0
out=$("$RBLKCTL" apply "$work/partial.json" 2> "$work/stderr") || rc=$?
vm_assert_eq 1 "$rc" "exit code of a partly failing apply"
vm_assert_eq 3 "$(wc -l <<< "$out")" "apply: one line a session: $out"
vm_assert_match ':4422 +failed: .+' "$(grep ':4422 ' <<< "$out")" "apply: the failed session"
vm_assert_eq 2 "$(grep -c ' existing$' <<< "$out")" "apply: the existing sessions"
vm_assert_eq "rblkctl: apply: 1 of 3 sessions failed" "$(cat "$work/stderr")" "apply: stderr"
ctl list --json | check same_list "$work/list-before-reapply.json"

# --- disconnect by name, --nqn, --all ---------------------------------------------------------
name_a=$(ctl list --json | python3 -c "import json,sys
print([c['name'] for c in json.load(sys.stdin)['controllers'] if c['subnqn'] == '$a'][0])")
vm_assert_eq "$name_a" "$(ctl disconnect "$name_a")" "disconnect NAME"
vm_assert_eq '{"disconnected":["'"$([ "$name_a" = rblk0 ] && echo rblk1 || echo rblk0)"'"]}' \
	"$(ctl disconnect --nqn "$b" --json)" "disconnect --nqn --json"
vm_wait_for 10 test -z "$(vm_rblk_disks)"
ctl apply "$sessions" > /dev/null
vm_assert_eq '{"disconnected":["rblk0","rblk1"]}' "$(ctl disconnect --all --json)" "disconnect --all --json"
vm_wait_for 10 test -z "$(vm_rblk_disks)"
ctl list --json | check list
vm_assert_eq "" "$(ctl disconnect --all)" "disconnect --all with nothing connected"

# --- monitor ---------------------------------------------------------------------------------
# 3 applies/connects of 2 sessions, the failed one, and as many deletions.
vm_wait_for 30 python3 "$schema" events 6 < "$events"
kill "$mon"
wait "$mon" || true
python3 "$schema" events 6 < "$events" || vm_fail "monitor --json: $(cat "$events")"
vm_assert_eq "" "$(cat "$work/monitor.err")" "monitor's stderr"

vm_rblk_unload
vm_dmesg_clean
