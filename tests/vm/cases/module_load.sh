#!/bin/bash
# rblk.ko loads with modprobe and unloads cleanly, 6 times over: the module,
# its sysfs entry and its generic netlink family come and go together.
# The first rblkctl request loads it (MODULE_ALIAS_GENL_FAMILY), as the
# first `nvme connect` loads nvme-fabrics. Its timeout parameters take
# what they should.
# vm-timeout: 600
. "$RBLK_SRC_DIR/tests/vm/lib.sh"

rounds=6

# A dump, not `genl ctrl get`: a lookup by name may auto-load the module.
genl_has_rblk() { genl ctrl list | grep -Eq '^Name: rblk$'; }

check_loaded() {
	vm_assert_exists /sys/module/rblk
	vm_assert_eq live "$(cat /sys/module/rblk/initstate)" "initstate"
	vm_assert_eq 0 "$(cat /sys/module/rblk/refcnt)" "refcnt with nothing open"
	genl_has_rblk || vm_fail "round $1: genl family 'rblk' is not registered"
}

check_unloaded() {
	vm_assert_not_exists /sys/module/rblk
	! genl_has_rblk || vm_fail "round $1: genl family 'rblk' still registered after rmmod"
}

vm_rblk_load
check_loaded 1
vm_rblk_unload
check_unloaded 1
for ((i = 2; i <= rounds; i++)); do
	modprobe rblk || vm_fail "round $i: modprobe rblk failed"
	check_loaded "$i"
	rmmod rblk || vm_fail "round $i: rmmod rblk failed"
	check_unloaded "$i"
done
vm_log "modprobe/rmmod rblk x$rounds ok"

# Loaded on demand by the family's alias: rblkctl works without modprobe.
grep -q '^alias net-pf-16-proto-16-family-rblk rblk$' "/lib/modules/$(uname -r)/modules.alias" ||
	vm_fail "modules.alias has no generic netlink alias for rblk"
out=$("$RBLKCTL" list --json 2>&1) || vm_fail "rblkctl list without the module loaded: $out"
check_loaded auto
vm_assert_eq '{"controllers":[],"subsystems":[]}' "$(tr -d ' \n' <<< "$out")" "rblkctl list --json after the auto-load"
rmmod rblk || vm_fail "rmmod rblk after the auto-load failed"
check_unloaded auto

# The command timeouts (seconds, as nvme_core's): given at load, changed
# at run time, never 0.
p=/sys/module/rblk/parameters
modprobe rblk io_timeout=0 2> /dev/null && vm_fail "modprobe rblk io_timeout=0 succeeded"
check_unloaded io_timeout=0
vm_rblk_load io_timeout=45
vm_assert_eq "45 30" "$(cat $p/io_timeout) $(cat $p/admin_timeout)" "io_timeout, admin_timeout"
echo 0 2> /dev/null > $p/admin_timeout && vm_fail "admin_timeout 0 was taken"
echo 3601 2> /dev/null > $p/admin_timeout && vm_fail "admin_timeout 3601 was taken"
echo 60 > $p/admin_timeout || vm_fail "admin_timeout 60 was refused"
vm_assert_eq 60 "$(cat $p/admin_timeout)" "admin_timeout after a change"
vm_rblk_unload
vm_dmesg_clean
