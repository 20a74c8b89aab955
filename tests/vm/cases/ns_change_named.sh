#!/bin/bash
# A namespace change notice revalidates the namespaces its Changed
# Namespace List names, and only those (issue 31 §3): revalidating every
# one is two Identify commands per namespace, 2,048 for one change at
# 1,024 namespaces. The test target serves 12 namespaces, logs each
# Identify Namespace, and sends a notice each time its --ns-notice-file
# appears. After each notice a rescan (nvme ns-rescan) is queued behind
# the notice's scan, so the Identify Namespace commands between the two
# scans' active-list reads are the notice scan's. Lists of one and of
# three namespaces revalidate those; a list that overflowed, one that
# names none and the rescans revalidate all 12. Every disk stays the
# disk it was (diskseq), and the controller never reconnects.
# The scan is the module's own code, the same on both kernels: newest only.
# vm-kernels: newest
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
# shellcheck source=SCRIPTDIR/../lib-target.sh
. "$RBLK_SRC_DIR/tests/vm/lib-target.sh"

notice=/tmp/ns-notice
tgt_start none --namespaces 12 --ns-notice-file "$notice"
out=$(tgt_connect_ok ns-notice)
vm_assert_eq "rblk0 $(printf '/dev/rblk0n%s ' {1..12})" "$(tr '\n' ' ' <<< "$out")" "rblkctl connect output"
# The host asked for Namespace Attribute Notices (bit 8) and is listening.
vm_wait_for 30 grep -q '^async-event-config: 256$' "$TGT_LOG"
seqs() { for n in {1..12}; do cat "/sys/block/rblk0n$n/diskseq"; done | tr '\n' ' '; }
seq0=$(seqs)

scans_since() { [ "$(tail -n +"$(($1 + 1))" "$TGT_LOG" | grep -c '^identify-active-list: ')" -ge "$2" ]; }

# notice_scan WORDS...: a notice whose list holds WORDS, then a rescan
# queued once the notice's scan has begun (it has read the active list);
# prints the nsids the notice's scan revalidated, ascending. The rescan's
# list read comes after the notice scan's last Identify: one work runs
# both, one after the other.
notice_scan() {
	local mark
	mark=$(wc -l < "$TGT_LOG")
	echo "$*" > "$notice.tmp"
	mv "$notice.tmp" "$notice"
	vm_wait_for 30 scans_since "$mark" 1
	nvme ns-rescan /dev/rblk0 || vm_fail "nvme ns-rescan failed"
	vm_wait_for 30 scans_since "$mark" 2
	tail -n +"$((mark + 1))" "$TGT_LOG" |
		awk '/^identify-active-list: / { n++; next } n == 1 && /^identify-ns: nsid / { print $3 }' |
		sort -n | tr '\n' ' '
}

all="$(echo {1..12}) "
vm_assert_eq "5 " "$(notice_scan 5)" "nsids revalidated after a notice naming 5"
vm_assert_eq "3 7 11 " "$(notice_scan 11 3 7)" "nsids revalidated after a notice naming 11 3 7"
# Ids above NN are junk: dropped, the rest still counts.
vm_assert_eq "9 " "$(notice_scan 9 4000)" "nsids revalidated after a notice naming 9 and 4000"
vm_assert_eq "$all" "$(notice_scan overflow)" "nsids revalidated after a notice whose list overflowed"
vm_assert_eq "$all" "$(notice_scan)" "nsids revalidated after a notice naming none"
# The rescans revalidated everything each time, and nothing moved.
vm_wait_for 30 bash -c "[ \$(grep -c '^ns-notice: log page 04h read' '$TGT_LOG') -ge 5 ]"
vm_assert_eq "$(echo /dev/rblk0n{1..12} | tr ' ' '\n')" "$(vm_rblk_disks | sort -V)" "disks after the notices"
vm_assert_eq "$seq0" "$(seqs)" "the disks (diskseq) after the notices"
vm_assert_eq 0 "$(cat /sys/class/rblk/rblk0/reconnects)" "reconnects"
vm_assert_eq live "$(cat /sys/class/rblk/rblk0/state)" "state"
vm_dmesg_has 'rblk0: namespaces changed (1 listed): rescanning those' || vm_fail "no log line for a notice naming one"
vm_dmesg_has 'rblk0: namespaces changed (more than 1024): rescanning all' || vm_fail "no log line for an overflowed list"
vm_dmesg_has 'rblk0: changed namespace list names 1 ids above NN 12' || vm_fail "no log line for the id above NN"
echo "RESULT: notices naming 1, 3 and 1 of 12 namespaces revalidated those; overflow and none: all 12"
tgt_clean_slate ns-notice
