#!/bin/bash
# Usage: tests/vm/run-in-vm.sh --build-dir build --kernel 6.1|6.12 \
#            tests/vm/investigate/kernel_differences.sh
# Prints what nvmet-rdma of the booted kernel grants and answers, as rblk
# and the kernel's nvme-rdma see it, for kmod/README.md's table of differences
# between 6.1 and 6.12: the I/O queue size granted for -Q 1024 and for the
# default, the I/O queue count granted for -i 8 on 2 vCPUs, and the status
# a read of a disabled namespace gets. Not a test: it reports and exits 0.
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
set +e
nqn=nqn.2024-01.io.rblk:kdiff
echo "kernel: $(uname -r)"
vm_rdma_target "$nqn" 64 > /dev/null
vm_rblk_load

for q in 1024 128; do
	"$RBLKCTL" connect -t rdma -a 10.99.0.1 -s 4420 -n "$nqn" -i 8 -Q "$q" > /dev/null 2> /tmp/err ||
		echo "rblk -Q $q: $(cat /tmp/err)"
	"$RBLKCTL" list --json > /tmp/list.json
	python3 - "$q" <<'PY'
import json, sys
c = json.load(open("/tmp/list.json"))["controllers"][0]
print("rblk asked -i 8 -Q %s: granted %s I/O queues of %s" % (sys.argv[1], c["nr_io_queues"], c["queue_size"]))
PY
	"$RBLKCTL" disconnect --all > /dev/null
done

for q in 1024 128; do
	dev=$(vm_nvme_ref_connect "$nqn" 10.99.0.1 4420 --nr-io-queues=8 --queue-size="$q")
	c=$(ls /sys/class/nvme | head -n 1)
	echo "nvme-rdma asked -i 8 -Q $q: sqsize $(cat "/sys/class/nvme/$c/sqsize") (0's based), queue_count $(cat "/sys/class/nvme/$c/queue_count" 2> /dev/null), disk $dev"
	vm_nvme_ref_disconnect "$nqn"
done

# A read held open on a namespace while it is disabled: the status the
# target answers before the AEN removes the disk.
"$RBLKCTL" connect -t rdma -a 10.99.0.1 -s 4420 -n "$nqn" > /dev/null
exec 7< /dev/rblk0n1
echo 0 > "/sys/kernel/config/nvmet/subsystems/$nqn/namespaces/1/enable"
python3 - <<'PY'
import os, time, errno
t0 = time.monotonic()
while time.monotonic() - t0 < 20:
    try:
        os.pread(7, 4096, 0)
        os.posix_fadvise(7, 0, 0, os.POSIX_FADV_DONTNEED)
    except OSError as e:
        print("disabled namespace, rblk read through an open fd: %s" % errno.errorcode[e.errno])
        break
    time.sleep(0.05)
PY
exec 7<&-
dmesg | grep -E 'rblk0.*(status|Internal|Invalid|error)' | tail -n 3 | sed 's/^/  dmesg: /'
"$RBLKCTL" disconnect --all > /dev/null
exit 0
