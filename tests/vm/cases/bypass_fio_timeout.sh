#!/bin/bash
# The fio engine's reap honours fio's getevents timeout (a zero one looks
# once, a limit returns fewer than asked once it has passed, none waits),
# as libaio's io_getevents() does: tests/tools/rblk_fio_reap_probe against
# the test target holding every I/O response 8 s (--reply-delay-ms). With
# a read in flight, reaps with a 0 and a 100 ms timeout come back empty
# and without an error, then a reap without one gets the read; in the
# engine's busy-polling and sleeping modes.
# Userspace only (the module is not involved): newest kernel only.
# vm-group: protocol
# vm-kernels: newest
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
# shellcheck source=SCRIPTDIR/../lib-target.sh
. "$RBLK_SRC_DIR/tests/vm/lib-target.sh"
PROBE=$RBLK_BUILD_DIR/tests/tools/rblk_fio_reap_probe
vm_require "$PROBE"

tgt_start none --reply-delay-ms 8000
spec="trtype=rdma adrfam=IPv4 traddr=10.99.0.1 trsvcid=4420 subnqn=$TGT_NQN ns=1"
out=$(timeout 120 "$PROBE" --spec "$spec" --limit-ms 100 2>&1) || vm_fail "rblk_fio_reap_probe: $out"
vm_assert_match '^ok: ' "$out" "the probe's verdict"
echo "RESULT: $out"
tgt_stop
vm_dmesg_clean
