#!/bin/bash
# --host-traddr and --tos, as nvme-cli's: with two more addresses on the
# initiator's side, each controller's RDMA connections leave from the one
# it was given (rdma res show cm_id, on both sides: the target's ids see
# it as their peer); both carry I/O. sysfs, list --json, show and save
# report them. A source address that is not ours, one on a device without
# RDMA, one that cannot reach the target, one of the other family, a
# malformed one and a tos beyond 255 each fail with their own message.
# A target given by host name connects to its address; an IPv6 link-local
# one (fe80::...%veth0) connects and carries I/O.
#
# In this VM every address is local, so every RDMA connection is rxe0's
# loopback (10.99.0.1 to 10.99.0.1 by default, for nvme-rdma alike): the
# initiator's extra addresses go on veth0. A source on veth1 (rxe1) cannot
# reach the local 10.99.0.1, for nvme-rdma neither ("Connection reset by
# peer" there).
# The source address takes the same rdma_resolve_addr() path on both
# kernels (datapath_connect covers 6.1's RDMA CM): newest kernel only,
# for the suite's time.
# vm-kernels: newest
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
vm_require "$RBLKCTL"

nqn=nqn.2024-01.io.rblk:host-traddr
vm_rdma_target "$nqn" 32 > /dev/null
# Two source addresses on rxe0's netdev (rxe derives its RoCE GIDs from them).
ip addr add 10.99.0.3/24 dev veth0
ip addr add 10.99.0.4/24 dev veth0
vm_rblk_load

# cm_ids SRC: the rblk connections to the target's port (src-addr, one a line).
cm_srcs() {
	rdma res show cm_id | awk '/\[rblk\]/ && /dst-addr 10\.99\.0\.1:4420/ {
		for (i = 1; i < NF; i++) if ($i == "src-addr") { sub(/:[0-9]+$/, "", $(i + 1)); print $(i + 1) } }' |
		sort | uniq -c | awk '{ print $2 "x" $1 }' | paste -sd' '
}

out=$(vm_rblk_connect "$nqn" -i 1 -Q 32 --host-traddr 10.99.0.3 --tos 32)
vm_assert_eq $'rblk0\n/dev/rblk0n1' "$out" "connect --host-traddr 10.99.0.3"
rdma res show cm_id >&2
# Admin queue and one I/O queue, both from 10.99.0.3.
vm_assert_eq "10.99.0.3x2" "$(cm_srcs)" "source addresses of rblk0's connections"
# The target's side: its connected ids have the chosen address as their peer.
peers=$(rdma res show cm_id | awk '/\[nvmet_rdma\]/ && /state CONNECT/ {
	for (i = 1; i < NF; i++) if ($i == "dst-addr") { sub(/:[0-9]+$/, "", $(i + 1)); print $(i + 1) } }' | sort -u | paste -sd' ')
vm_assert_eq 10.99.0.3 "$peers" "peer address seen by the target"
if rdma -d res show cm_id | grep -q ' tos '; then
	vm_assert_eq 32 "$(rdma -d res show cm_id | awk '/src-addr 10\.99\.0\.3/ {
		for (i = 1; i < NF; i++) if ($i == "tos") print $(i + 1) }' | sort -u | paste -sd' ')" \
		"tos of rblk0's cm_ids"
else
	vm_log "rdma -d res show cm_id prints no tos here: not checked on the wire"
fi

c=/sys/class/rblk/rblk0
vm_assert_eq 10.99.0.3 "$(cat "$c/host_traddr")" "sysfs host_traddr"
vm_assert_eq 32 "$(cat "$c/tos")" "sysfs tos"
vm_assert_eq traddr=10.99.0.1,trsvcid=4420,host_traddr=10.99.0.3 "$(cat "$c/address")" "sysfs address"

# Another source address is another path, not a duplicate: of the same head.
out=$(vm_rblk_connect "$nqn" -i 1 -Q 32 -w 10.99.0.4)
vm_assert_eq $'rblk1\n/dev/rblk0n1' "$out" "connect --host-traddr 10.99.0.4"
vm_assert_eq "10.99.0.3x2 10.99.0.4x2" "$(cm_srcs)" "source addresses of rblk0 and rblk1"
vm_assert_eq -1 "$(cat /sys/class/rblk/rblk1/tos)" "sysfs tos, not given"
rc=0
out=$("$RBLKCTL" connect -a 10.99.0.1 -n "$nqn" -w 10.99.0.4 2>&1) || rc=$?
vm_assert_ne 0 "$rc" "exit code of a duplicate with the same host_traddr"
vm_assert_contains "$out" "already exists" "a duplicate with the same host_traddr"

# Data through both paths: round-robin takes turns (per bio: 64 KiB
# reads, where one 1 MiB read would be one bio), so both source addresses
# carry the reads back.
echo round-robin > /sys/class/rblk-subsystem/rblk-subsys0/iopolicy
r0=$(cat /sys/class/rblk/rblk0/reads) r1=$(cat /sys/class/rblk/rblk1/reads)
head -c $((1 << 20)) /dev/urandom > /tmp/data
vm_put /tmp/data /dev/rblk0n1 0
vm_assert_eq "$(sha256sum < /tmp/data | cut -d' ' -f1)" \
	"$(dd if=/dev/rblk0n1 bs=64k count=16 iflag=direct status=none | sha256sum | cut -d' ' -f1)" \
	"written and read through 10.99.0.3 and 10.99.0.4"
[ "$(cat /sys/class/rblk/rblk0/reads)" -gt "$r0" ] && [ "$(cat /sys/class/rblk/rblk1/reads)" -gt "$r1" ] ||
	vm_fail "round-robin reads did not use both paths"
echo numa > /sys/class/rblk-subsystem/rblk-subsys0/iopolicy

json=$("$RBLKCTL" list --json)
JSON=$json python3 - <<'PY' || vm_fail "rblkctl list --json: $json"
import json, os
c = {x["name"]: x for x in json.loads(os.environ["JSON"])["controllers"]}
assert (c["rblk0"]["host_traddr"], c["rblk0"]["tos"]) == ("10.99.0.3", 32), c["rblk0"]
assert (c["rblk1"]["host_traddr"], c["rblk1"]["tos"]) == ("10.99.0.4", -1), c["rblk1"]
PY
show=$("$RBLKCTL" show rblk0)
vm_assert_match '^host_traddr: +10\.99\.0\.3$' "$(grep '^host_traddr:' <<< "$show")" "show rblk0"
vm_assert_match '^tos: +32$' "$(grep '^tos:' <<< "$show")" "show rblk0"
saved=$("$RBLKCTL" save -)
SAVED=$saved python3 - <<'PY' || vm_fail "rblkctl save: $saved"
import json, os
ports = [p for h in json.loads(os.environ["SAVED"])["hosts"] for s in h["subsystems"] for p in s["ports"]]
got = sorted((p.get("host_traddr"), p.get("tos")) for p in ports)
assert got == [("10.99.0.3", 32), ("10.99.0.4", None)], got
PY
"$RBLKCTL" disconnect --all > /dev/null || vm_fail "rblkctl disconnect --all failed"
vm_wait_for 10 test -z "$(vm_rblk_disks)"

# A host name, as nvme connect takes it (resolved with getaddrinfo), and
# nvme-cli's spellings -F and -o json.
cp /etc/hosts /tmp/hosts.orig
trap 'cat /tmp/hosts.orig > /etc/hosts' EXIT
echo "10.99.0.1 rblk-target.test" >> /etc/hosts
out=$("$RBLKCTL" connect -a rblk-target.test -n "$nqn" -i 1 -Q 32 -F 30 -o json) ||
	vm_fail "connect -a rblk-target.test failed: $out"
name=$(python3 -c 'import json, sys; c = json.load(sys.stdin); print(c["name"], c["traddr"])' <<< "$out")
vm_assert_eq "rblk0 10.99.0.1" "$name" "name and traddr of a connect by host name"
vm_assert_eq 30 "$("$RBLKCTL" show rblk0 -o json | python3 -c 'import json, sys; print(json.load(sys.stdin)["fast_io_fail_tmo"])')" \
	"fast_io_fail_tmo given as -F"
"$RBLKCTL" disconnect --all > /dev/null || vm_fail "rblkctl disconnect --all failed"
vm_wait_for 10 test -z "$(vm_rblk_disks)"

# An IPv6 link-local target with its interface, as nvme connect takes it:
# nvmet listens on veth0's fe80:: address, rblk connects and does I/O.
ll=$(ip -6 addr show dev veth0 scope link | awk '/inet6/ { sub(/\/.*/, "", $2); print $2; exit }')
[ -n "$ll" ] || vm_fail "veth0 has no IPv6 link-local address"
p=$VM_NVMET/ports/2
mkdir "$p"
echo rdma > "$p/addr_trtype"
echo ipv6 > "$p/addr_adrfam"
echo "$ll%veth0" > "$p/addr_traddr"
echo 4420 > "$p/addr_trsvcid"
vm_nvmet_link 2 "$nqn"
out=$("$RBLKCTL" connect -a "$ll%veth0" -n "$nqn" -i 1 -Q 32 2>&1) || vm_fail "connect -a $ll%veth0 failed: $out"
vm_assert_eq "$ll%veth0 live" "$(cat /sys/class/rblk/rblk0/traddr) $(cat /sys/class/rblk/rblk0/state)" \
	"traddr and state of an IPv6 link-local connect"
head -c 65536 /dev/urandom > /tmp/ll
vm_put /tmp/ll /dev/rblk0n1 0
vm_assert_eq "$(sha256sum < /tmp/ll | cut -d' ' -f1)" "$(vm_sum /dev/rblk0n1 0 65536)" "I/O over IPv6 link-local"
"$RBLKCTL" disconnect --all > /dev/null || vm_fail "rblkctl disconnect --all failed"
vm_wait_for 10 test -z "$(vm_rblk_disks)"

# connect_fails MESSAGE ARGS...: refused with MESSAGE, nothing left behind.
connect_fails() {
	local msg=$1 out rc=0
	shift
	out=$("$RBLKCTL" connect -a 10.99.0.1 -n "$nqn" "$@" 2>&1) || rc=$?
	vm_assert_ne 0 "$rc" "exit code of connect $*"
	vm_assert_eq "rblkctl: $msg" "$out" "connect $*"
	vm_assert_eq "" "$(ls /sys/class/rblk)" "controllers after connect $*"
	vm_log "refused as expected: $out"
}
connect_fails "host_traddr is not an address of this host" -w 10.99.0.77
# Ours, but on no RDMA device (lo), or on one that cannot reach the target.
# Over iWARP, lo reaches it: rdma_cm binds a loopback source to an RDMA
# device and siw's TCP runs over lo; nvme-rdma connects so too.
if [ "$VM_RDMA" = siw ]; then
	out=$("$RBLKCTL" connect -a 10.99.0.1 -n "$nqn" -w 127.0.0.1 2>&1) ||
		vm_fail "connect -w 127.0.0.1 over siw failed: $out"
	"$RBLKCTL" disconnect --all > /dev/null || vm_fail "rblkctl disconnect --all failed"
	vm_wait_for 10 test -z "$(vm_rblk_disks)"
else
	connect_fails "cannot reach the target address from host_traddr" -w 127.0.0.1
fi
connect_fails "cannot reach the target address from host_traddr" -w 10.99.0.2
# Ours, on a netdev without RDMA.
ip link add veth8 type veth peer name veth9
ip addr add 10.98.0.1/24 dev veth8
ip link set veth8 up
rc=0
out=$("$RBLKCTL" connect -a 10.99.0.1 -n "$nqn" -w 10.98.0.1 2>&1) || rc=$?
vm_assert_ne 0 "$rc" "exit code of connect -w 10.98.0.1 (no RDMA device)"
vm_assert_eq "rblkctl: host_traddr is not on an RDMA device" "$out" "connect -w 10.98.0.1 (no RDMA device)"
vm_log "refused as expected: $out"
connect_fails "--host-traddr 'fd00::1' and --traddr '10.99.0.1' are of different address families" -w fd00::1
connect_fails "--host-traddr '10.99.0' is not an IPv4 or IPv6 address literal" -w 10.99.0
connect_fails "--tos 256 is out of range (-1..255, -1 = the transport's default)" --tos 256

vm_rblk_unload
vm_dmesg_clean
