#!/bin/bash
# DH-HMAC-CHAP (issue 32 §1) against nvmet, which asks this host for it:
# no key, a wrong key, a malformed one and a wrong controller key are
# each refused with their reason; the right keys connect (SHA-256 with
# ffdhe2048, SHA-512 with the null group, unidirectional and
# bidirectional), carry I/O, and authenticate again on a reconnect; the
# kernel's nvme-rdma connects with the same keys in the same run (keys
# from rblkctl gen-dhchap-key). A key changed on the target fails the
# reconnects, with the reason in the kernel log, until the host has it.
# save writes the keys into a file only root reads (the kernel gives them
# to root alone), never to stdout, and apply connects from it. No key
# shows in rblkctl's output, sysfs or the kernel log. On a kernel without
# nvme-auth (Debian's 6.1) a secret is refused in one line.
# vm-group: protocol
# vm-timeout: 600
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
vm_require "$RBLKCTL"

nqn=nqn.2024-01.io.rblk:auth
host=nqn.2014-08.org.nvmexpress:uuid:0c0c0c0c-0000-4000-8000-00000000000c
hostid=0c0c0c0c-0000-4000-8000-00000000000c
vm_setup_rxe
vm_rblk_load

# connect_fails MESSAGE ARGS...: rblkctl connect as this host must fail,
# on one line of stderr containing MESSAGE, and leave nothing behind.
connect_fails() {
	local msg=$1 out rc=0
	shift
	out=$(timeout 120 "$RBLKCTL" connect -a 10.99.0.1 -n "$nqn" -q "$host" -I "$hostid" \
		-c 1 -l 2 "$@" 2>&1) || rc=$?
	vm_assert_ne 0 "$rc" "exit code of a connect that must fail ($msg)"
	vm_assert_ne 124 "$rc" "connect hung ($msg)"
	vm_assert_eq 1 "$(wc -l <<< "$out")" "lines of a refused connect: $out"
	vm_assert_contains "$out" "$msg" "refused connect"
	vm_assert_eq "" "$(vm_rblk_ctrls)" "controllers left after a refused connect"
	vm_log "refused as expected: $out"
}

if ! grep -Eq '^CONFIG_NVME_AUTH=[ym]' "/boot/config-$(uname -r)"; then
	# A well-formed secret (nvme gen-dhchap-key's form), refused by the module.
	connect_fails "DH-HMAC-CHAP needs a kernel with nvme-auth" \
		-S "DHHC-1:00:ia6zGodOr4SEG0Zzaw398rpY0wqipUWj4jWjUh4HWUz6aQ2n:"
	echo "RESULT: auth: refused without nvme-auth, in one line"
	vm_rblk_unload
	vm_dmesg_clean
	exit 0
fi

# rblkctl's keys for what must connect (nvmet and nvme-rdma take them as
# nvme-cli's), nvme-cli's for the rest.
key=$("$RBLKCTL" gen-dhchap-key --hmac=1 --nqn="$host") || vm_fail "rblkctl gen-dhchap-key failed"
other=$(nvme gen-dhchap-key --key-length=32 --hmac=1 --nqn="$host") || vm_fail "nvme gen-dhchap-key failed"
ckey=$("$RBLKCTL" gen-dhchap-key -m 2 -n "$nqn")
wrong_ckey=$(nvme gen-dhchap-key --key-length=48 --hmac=2 --nqn="$nqn")
vm_assert_match '^DHHC-1:01:.*:$' "$key" "the generated host key"

# The subsystem admits this host only, with its keys (nvmet asks for
# authentication of a host that has a dhchap_key).
vm_modprobe nvmet
h=$VM_NVMET/hosts/$host
mkdir "$h"
# nvmet takes a DH group only if its kpp is there already: Debian's 6.12
# has it built in, the debug kernel as a module that nothing loads.
if grep -q '^CONFIG_CRYPTO_DH=m' "/boot/config-$(uname -r)"; then
	vm_modprobe dh_generic
fi
target_keys() {  # HASH DHGROUP [CTRL_KEY]
	echo "$1" > "$h/dhchap_hash"
	echo "$2" > "$h/dhchap_dhgroup"
	echo "$key" > "$h/dhchap_key"
	[ -z "${3:-}" ] || echo "$3" > "$h/dhchap_ctrl_key"
}
target_keys "hmac(sha256)" ffdhe2048
vm_nvmet_subsys "$nqn" "$(vm_membacked_disk 1 32)"
echo 0 > "$VM_NVMET/subsystems/$nqn/attr_allow_any_host"
ln -s "$h" "$VM_NVMET/subsystems/$nqn/allowed_hosts/$host"
vm_nvmet_port 1 10.99.0.1 4420
vm_nvmet_link 1 "$nqn"

connect_fails "the subsystem requires authentication: give the host's key (--dhchap-secret)"
# nvmet answers a wrong response with a failure 1 and hangs up at once:
# the host reads one or meets the other.
connect_fails "(check --dhchap-secret)" -S "$other"
connect_fails "not a DH-HMAC-CHAP secret" -S "DHHC-1:01:bm90IGEga2V5:"
connect_fails "dhchap-ctrl-secret needs" -C "$ckey"

# connect_ok WHAT ARGS...: connects with the host's key, moves 1 MiB
# through the disk and disconnects; no key anywhere in what rblk shows.
connect_ok() {
	local what=$1 out t0 disk shown
	shift
	t0=$(vm_now_ms)
	out=$(vm_rblk_connect "$nqn" -q "$host" -I "$hostid" -S "$key" "$@")
	echo "RESULT: auth $what: connected in $(vm_ms_since "$t0") ms"
	disk=$(sed -n 2p <<< "$out")
	vm_assert_match '^/dev/rblk[0-9]+n1$' "$disk" "$what: the disk"
	head -c 1M /dev/urandom > /tmp/auth.blk
	vm_put /tmp/auth.blk "$disk" 0
	vm_assert_eq "$(sha256sum < /tmp/auth.blk | cut -d' ' -f1)" "$(vm_sum "$disk" 0 1048576)" \
		"$what: data read back"
	shown=$("$RBLKCTL" list --json; "$RBLKCTL" show rblk0 --json; "$RBLKCTL" show rblk0
		for f in /sys/class/rblk/rblk0/*; do [ -f "$f" ] && cat "$f" 2> /dev/null; done; true)
	for k in "$key" "$ckey"; do
		[[ $shown != *"${k:10:20}"* ]] || vm_fail "$what: a key shows in rblkctl's output or sysfs"
	done
}

# ref_ok WHAT ARGS...: the reference, nvme-rdma, connects with the
# host's key (and ARGS) to the same target, reads, disconnects.
ref_ok() {
	local what=$1 t0 disk
	shift
	t0=$(vm_now_ms)
	disk=$(vm_nvme_ref_connect "$nqn" 10.99.0.1 4420 -q "$host" -I "$hostid" "$@")
	echo "RESULT: auth $what: nvme-rdma connected in $(vm_ms_since "$t0") ms"
	dd if="$disk" of=/dev/null bs=4k count=1 iflag=direct status=none ||
		vm_fail "$what: a read through nvme-rdma failed"
	vm_nvme_ref_disconnect "$nqn"
}
connect_ok "SHA-256, ffdhe2048"
# A reconnect authenticates again: the port goes and comes back.
state_is() { [ "$(cat /sys/class/rblk/rblk0/state)" = "$1" ]; }
state_not() { ! state_is "$1"; }
vm_nvmet_unlink 1 "$nqn"
vm_wait_for 30 state_not live
vm_nvmet_link 1 "$nqn"
vm_wait_for 60 state_is live
vm_assert_ne 0 "$(cat /sys/class/rblk/rblk0/reconnects)" "reconnects after the port's return"
dd if=/dev/rblk0n1 of=/dev/null bs=4k count=1 iflag=direct status=none ||
	vm_fail "a read after the re-authenticated reconnect failed"
echo "RESULT: auth: reconnected and authenticated again"
"$RBLKCTL" disconnect rblk0 > /dev/null || vm_fail "disconnect failed"
vm_wait_for 10 test -z "$(vm_rblk_ctrls)"
ref_ok "SHA-256, ffdhe2048" --dhchap-secret="$key"
# Not the reference with a wrong host key: nvmet hangs up as it fails
# the host, and nvme-rdma's Authentication Receive then waits for the
# admin timeout, twice (6.12: over 120 s), where rblk takes the hang-up
# for the refusal it is (about a second, above).

# Bidirectional: the host checks the controller with its key.
target_keys "hmac(sha384)" ffdhe3072 "$ckey"
connect_fails "does not match --dhchap-ctrl-secret" -S "$key" -C "$wrong_ckey"
connect_ok "SHA-384, ffdhe3072, bidirectional" -C "$ckey"
dhchap=$("$RBLKCTL" show rblk0 --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["dhchap"])')
vm_assert_eq bidirectional "$dhchap" "show's dhchap"

# save: both keys into a file only root reads (the kernel gives them to
# root alone), never to stdout; apply brings the session back, and the
# host checks the controller again.
saved=/tmp/auth-sessions.json
"$RBLKCTL" save "$saved" || vm_fail "save failed"
vm_assert_eq 600 "$(stat -c %a "$saved")" "mode of a sessions file with keys"
grep -qF "\"dhchap_key\": \"$key\"" "$saved" || vm_fail "save left the host key out"
grep -qF "\"dhchap_ctrl_key\": \"$ckey\"" "$saved" || vm_fail "save left the controller key out"
printed=$("$RBLKCTL" save - 2> /tmp/auth-save.err) || vm_fail "save - failed"
[[ $printed != *DHHC-1* ]] || vm_fail "save - printed a key"
vm_assert_contains "$(cat /tmp/auth-save.err)" "DH-HMAC-CHAP keys are not printed" "save -"
rc=0
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	"$RBLK_NLPROBE" get --dump --with-secrets) || rc=$?
vm_assert_eq 1 "$rc" "exit code of an unprivileged dump with secrets ($out)"
vm_assert_match '^error EPERM attr=with_secrets msg=the DH-HMAC-CHAP secrets are for root' "$out" \
	"an unprivileged dump with secrets"
"$RBLKCTL" disconnect rblk0 > /dev/null || vm_fail "disconnect failed"
vm_wait_for 10 test -z "$(vm_rblk_ctrls)"
out=$("$RBLKCTL" apply "$saved") || vm_fail "apply of the saved session failed: $out"
vm_assert_match "^rblk[0-9]+ +$nqn +10\.99\.0\.1:4420 +connected$" "$out" "apply"
vm_assert_eq bidirectional "$("$RBLKCTL" show "$(vm_rblk_ctrls)" --json |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["dhchap"])')" "dhchap after apply"
echo "RESULT: auth: saved (mode 600) and applied back, bidirectional"
"$RBLKCTL" disconnect --all > /dev/null || vm_fail "disconnect failed"
vm_wait_for 10 test -z "$(vm_rblk_ctrls)"
ref_ok "SHA-384, ffdhe3072, bidirectional" --dhchap-secret="$key" --dhchap-ctrl-secret="$ckey"
# Nor with a wrong controller key: under load nvme-rdma's connect then
# sat in nvme_auth_wait past the hung-task timeout (120 s) in one run.

target_keys "hmac(sha512)" null
connect_ok "SHA-512, no DH" -c 1

# The target's key changes: every reconnect is refused, its reason in the
# kernel log, until the host is given the new key.
echo "$other" > "$h/dhchap_key"
vm_nvmet_unlink 1 "$nqn"
vm_wait_for 30 state_not live
vm_nvmet_link 1 "$nqn"
refused() { dmesg | grep -q 'rblk0: reconnect failed: authentication failed: .*(check --dhchap-secret)'; }
vm_wait_for 60 refused
vm_assert_eq connecting "$(cat /sys/class/rblk/rblk0/state)" "state with the old key"
"$RBLKCTL" disconnect rblk0 > /dev/null || vm_fail "disconnect failed"
vm_wait_for 10 test -z "$(vm_rblk_ctrls)"
vm_rblk_connect "$nqn" -q "$host" -I "$hostid" -S "$other" > /dev/null
dd if=/dev/rblk0n1 of=/dev/null bs=4k count=1 iflag=direct status=none ||
	vm_fail "a read with the target's new key failed"
echo "RESULT: auth: a changed target key refused at reconnect, the new one taken"
"$RBLKCTL" disconnect rblk0 > /dev/null || vm_fail "disconnect failed"
vm_wait_for 10 test -z "$(vm_rblk_ctrls)"
echo "$key" > "$h/dhchap_key"

ref_ok "SHA-512, no DH" --dhchap-secret="$key"

for k in "$key" "$other" "$ckey" "$wrong_ckey"; do
	dmesg | grep -qF "${k:10:20}" && vm_fail "a key is in the kernel log"
done
vm_rblk_unload
vm_nvmet_teardown
vm_dmesg_clean
