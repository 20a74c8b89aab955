#!/bin/bash
# Sessions beside nvme-cli (issue 32 section 2): /etc/nvme/config.json as
# nvme-cli writes it (`nvme config --modify --update`), with an rdma port,
# a tcp port and DH-HMAC-CHAP keys. `rblkctl apply --format libnvme` reads
# it through libnvme and connects the rdma port only, with its values and
# its host key (the tcp port is a warning line, and no key is printed);
# `rblkctl save` writes the key into rblk's sessions file, mode 600, and
# neither it nor a refused `save --format libnvme` (no FILE) touches
# config.json (sha256); `save --format libnvme COPY`
# merges into a copy, keeps every key nvme-cli wrote and takes the copy
# out of everyone's reach (keys), and apply from it finds the session there.
# Newest kernel only: it checks rblkctl and libnvme's file; cli_control and
# netlink_control cover the kernel's side of connect and list.
# vm-kernels: newest
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
vm_require "$RBLKCTL"
command -v nvme > /dev/null || vm_fail "nvme-cli is not installed"

a=nqn.2024-01.io.rblk:libnvme-a
uuid=5e1f0c3a-7d2b-4c8e-9a61-0b3c5d7e9f12
hostnqn=nqn.2014-08.org.nvmexpress:uuid:$uuid
host_key=DHHC-1:00:ia6zGodOr4SEG0Zzaw398rpY0wqipUWj4jWjUh4HWUz6aQ2n:
ctrl_key=DHHC-1:00:P7wDosaMEdMTBxsXxMgaL5mBH0ZxRyPSMh1dNAb3qm6hEtZW:
work=$RBLK_VM_OUT/cli_libnvme_config
mkdir -p "$work"
cfg=/etc/nvme/config.json
sessions=/etc/rblk/sessions.json

# /etc is the boot's tmpfs overlay: put back what this case changes there,
# however it ends, so the cases after it see the boot's files.
for f in "$cfg" "$sessions"; do
	[ ! -e "$f" ] || cp -a "$f" "$work/$(basename "$f").boot"
done
restore() {
	local f
	for f in "$cfg" "$sessions"; do
		if [ -e "$work/$(basename "$f").boot" ]; then
			cp -a "$work/$(basename "$f").boot" "$f"
		else
			rm -f "$f"
		fi
	done
}
trap restore EXIT

vm_rdma_target "$a" 32 > /dev/null
vm_rblk_load

# nvme-cli writes the file: the rdma port (host key, keep-alive 15 s),
# then a tcp port of the same subsystem (controller key,
# header digest). A file that is there makes `nvme config` exit 0.
mkdir -p /etc/nvme
echo '[]' > "$cfg"
nvme config --modify --update -J "$cfg" -q "$hostnqn" -I "$uuid" -n "$a" \
	-t rdma -a 10.99.0.1 -s 4420 -S "$host_key" -k 15 ||
	vm_fail "nvme config (rdma port) failed"
nvme config --modify --update -J "$cfg" -q "$hostnqn" -I "$uuid" -n "$a" \
	-t tcp -a 10.99.0.1 -s 4420 -C "$ctrl_key" -g ||
	vm_fail "nvme config (tcp port) failed"
cp "$cfg" "$work/config.json.nvme-cli"
vm_assert_contains "$(cat "$cfg")" '"hdr_digest":true' "nvme-cli's file"
sum() { sha256sum "$1" | cut -d' ' -f1; }
before=$(sum "$cfg")
# Readable by all, with a key in it: apply says so (and connects).
chmod 0644 "$cfg"

# apply: the rdma port, connected with the file's values and host identity.
out=$("$RBLKCTL" apply --format libnvme 2> "$work/apply.stderr") ||
	vm_fail "apply --format libnvme failed: $(cat "$work/apply.stderr")"
vm_assert_match "^rblk0 +$a +10\.99\.0\.1:4420 +connected$" "$out" "apply"
vm_assert_eq 1 "$(wc -l <<< "$out")" "apply: one session (the rdma port): $out"
err=$(cat "$work/apply.stderr")
vm_assert_match "^rblkctl: warning: $cfg holds DH-HMAC-CHAP keys and anyone can read it: chmod o-r it$" \
	"$err" "apply: the file's mode"
vm_assert_eq host "$("$RBLKCTL" show rblk0 --json |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["dhchap"])')" "apply: the host key"
vm_assert_match "^rblkctl: warning: $cfg: \[0\]\.subsystems\[0\]\.ports\[[01]\]: transport 'tcp' skipped: rblk connects over rdma only$" \
	"$err" "apply: the tcp port"
case $err in *DHHC-1*) vm_fail "apply printed a key: $err" ;; esac
vm_assert_eq 15 "$(vm_rblk_attr rblk0 kato)" "kato from config.json"
vm_assert_eq "$hostnqn" "$(vm_rblk_attr rblk0 hostnqn)" "hostnqn from config.json"
vm_assert_eq "$before" "$(sum "$cfg")" "config.json after apply"

# save (rblk's own file), and save --format libnvme without a FILE: refused
# with exit 2; nvme-cli's file unchanged by either.
"$RBLKCTL" save || vm_fail "save failed"
vm_assert_exists "$sessions"
vm_assert_eq 600 "$(stat -c %a "$sessions")" "mode of the sessions file holding a key"
grep -qF "\"dhchap_key\": \"$host_key\"" "$sessions" || vm_fail "save left the host key out"
rc=0
"$RBLKCTL" save --format libnvme 2> "$work/save.stderr" || rc=$?
vm_assert_eq 2 "$rc" "exit code of save --format libnvme without FILE"
vm_assert_contains "$(cat "$work/save.stderr")" \
	"save --format libnvme needs a FILE: /etc/nvme/config.json is nvme-cli's" "the refusal"
vm_assert_eq "$before" "$(sum "$cfg")" "config.json after save and a refused save"

# save into a copy: merged, every key nvme-cli wrote kept (the rdma port's
# values are rblk's own now), the copy not readable by others (it holds keys).
copy=$work/copy.json
cp "$cfg" "$copy"
chmod 0644 "$copy"
"$RBLKCTL" save --format libnvme "$copy" || vm_fail "save --format libnvme COPY failed"
vm_assert_eq 640 "$(stat -c %a "$copy")" "mode of the copy holding keys"
python3 - "$cfg" "$copy" << 'EOF' || vm_fail "save into the copy lost what nvme-cli wrote"
import json, sys
owned = {"nr_io_queues", "nr_write_queues", "nr_poll_queues", "queue_size", "keep_alive_tmo",
         "reconnect_delay", "ctrl_loss_tmo", "fast_io_fail_tmo", "tos"}
before, after = (json.load(open(p)) for p in sys.argv[1:3])
def walk(b, a, path):
    if isinstance(b, dict):
        rdma = b.get("transport") == "rdma"
        for k, v in b.items():
            if rdma and k in owned:
                continue
            assert k in a, f"{path}.{k} gone"
            walk(v, a[k], f"{path}.{k}")
    elif isinstance(b, list):
        assert len(a) >= len(b), f"{path}: entries gone"
        for i, v in enumerate(b):
            walk(v, a[i], f"{path}[{i}]")
    else:
        assert a == b, f"{path}: {b!r} became {a!r}"
walk(before, after, "")
ports = after[0]["subsystems"][0]["ports"]
assert len(ports) == 2, ports
EOF
out=$("$RBLKCTL" apply --format libnvme "$copy" 2> /dev/null) ||
	vm_fail "apply from the copy failed"
vm_assert_match "^rblk0 +$a +10\.99\.0\.1:4420 +existing$" "$out" "apply from the copy"
vm_assert_eq "$before" "$(sum "$cfg")" "config.json at the end"
vm_assert_eq 1 "$(vm_rblk_ctrls | wc -l)" "controllers at the end"
