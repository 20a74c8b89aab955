# shellcheck shell=bash
# Helpers shared by the recovery_* VM cases; source it after lib.sh
# (which has the clock and the controller's sysfs state and attributes).
#   rec_show_json CTRL            rblkctl show CTRL --json
#   rec_json KEY                  KEY of the JSON object on stdin (fails
#                                 when it is missing)
#   rec_fio_job_error JSON        the error code of fio's (only) job
#   rec_result NAME VALUE...      a "RESULT:" line for kmod/README.md
#   rec_timed_read DEV OFFSET     one 4 KiB O_DIRECT read: prints "ok MS"
#                                 or "ERRNO MS", timed inside the process
#   rec_pread FD                  reads 4 KiB at 8 MiB from the open FD:
#                                 prints "data", "eof" (a deleted disk has
#                                 no capacity left) or the errno name
#   rec_setup NQN MIB DELAY LOSS FF   target (vm_rdma_target), module and
#                                 controller rblk0 with reconnect_delay,
#                                 ctrl_loss_tmo and fast_io_fail_tmo
#   rec_wait_io SECS ATTR N       until rblk0's counter ATTR reaches N
#   rec_port_bounce NQN SECS      port 1 drops NQN until rblk0 is
#                                 reconnecting, SECS more, then takes it
#                                 back: returns once rblk0 is live again
#   rec_ms_to_eio NQN RW ATTR     fio RW (4k, QD8, time based) on rblk0n1;
#                                 once ATTR counts 200 I/Os, port 1 drops
#                                 NQN; fio must end with EIO: prints
#                                 "DETECT_MS FAIL_MS": from the drop to
#                                 rblk's "starting recovery" (the loss
#                                 seen, where its timers start), and from
#                                 there to the first failed request (block
#                                 layer's "I/O error" or rblk's "...
#                                 expired" line, whichever comes first),
#                                 from the kernel log's clock (a busy TCG
#                                 guest takes seconds more just to let fio
#                                 exit, which is logged too)

rec_show_json() {
	"$RBLKCTL" show "$1" --json || vm_fail "rblkctl show $1 --json failed"
}

rec_json() {
	python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1" ||
		vm_fail "no '$1' in the JSON"
}

rec_fio_job_error() {
	python3 - "$1" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
print(json.loads(text[text.index("{"):])["jobs"][0]["error"])
PY
}

# Both bounded at 120 s, long enough to tell a hang from a busy TCG
# guest, where python alone took up to 14 s to start and read (measured).
rec_pread() {
	timeout 120 python3 - "$1" <<'PY' || echo hung
import errno, os, sys
try:
    print("data" if os.pread(int(sys.argv[1]), 4096, 8 << 20) else "eof")
except OSError as e:
    print(errno.errorcode.get(e.errno, e.errno))
PY
}

rec_timed_read() {
	timeout 120 python3 - "$1" "$2" <<'PY' || echo "hung -"
import errno, mmap, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECT)
buf = mmap.mmap(-1, 4096)
t0 = time.monotonic()
try:
    os.preadv(fd, [buf], int(sys.argv[2]))
    res = "ok"
except OSError as e:
    res = errno.errorcode.get(e.errno, str(e.errno))
print(res, int((time.monotonic() - t0) * 1000))
PY
}

rec_result() {
	local name=$1
	shift
	echo "RESULT: $name $*"
}

rec_setup() {
	vm_rdma_target "$1" "$2" > /dev/null
	vm_rblk_load
	vm_rblk_connect "$1" --reconnect-delay "$3" --ctrl-loss-tmo "$4" \
		--fast-io-fail-tmo "$5" > /dev/null
}

rec__io_at_least() { [ "$(vm_rblk_attr rblk0 "$1")" -ge "$2" ]; }

rec_wait_io() { vm_wait_for "$1" rec__io_at_least "$2" "$3"; }

rec_port_bounce() {
	vm_nvmet_unlink 1 "$1"
	vm_rblk_wait_state 30 rblk0 connecting
	sleep "$2"
	vm_nvmet_link 1 "$1"
	vm_rblk_wait_state 60 rblk0 live
}

rec_ms_to_eio() {
	local nqn=$1 rw=$2 attr=$3 json=/tmp/rec_eio.json pid rc=0 t_down ms err
	timeout -k 5 120 fio --output-format=json --output="$json" --name="$rw" \
		--filename=/dev/rblk0n1 --ioengine=io_uring --direct=1 --rw="$rw" \
		--bs=4k --iodepth=8 --size=16M --offset=8M --time_based --runtime=100 &
	pid=$!
	rec_wait_io 60 "$attr" 200
	t_down=$(vm_now_ms)
	echo "rblk-test: target down" > /dev/kmsg
	vm_nvmet_unlink 1 "$nqn"
	wait "$pid" || rc=$?
	case $rc in
	0) vm_fail "fio succeeded although the target is away" ;;
	124 | 137) vm_fail "fio hung: killed by timeout" ;;
	esac
	err=$(rec_fio_job_error "$json")
	vm_assert_eq 5 "$err" "fio's error (EIO)"
	ms=$(dmesg | python3 -c '
import re, sys
# The block layer logs "I/O error" only while the disk is alive: at
# ctrl_loss_tmo the disk is marked dead before its requests fail, so
# the line rblk logs when it fails the I/O counts as well.
failed = r"^I/O error, dev rblk0n1|rblk0: (ctrl_loss_tmo|fast_io_fail_tmo) expired"
down = seen = None
for line in sys.stdin:
    m = re.match(r"\[\s*(\d+\.\d+)\] (.*)", line)
    if not m:
        continue
    t, text = float(m.group(1)), m.group(2)
    if text.startswith("rblk-test: target down"):
        down = t
    elif down is None:
        continue
    elif seen is None and "rblk0: transport error: starting recovery" in text:
        seen = t
    elif seen is not None and re.search(failed, text):
        print(int((seen - down) * 1000), int((t - seen) * 1000))
        break
') || vm_fail "no kernel log line for the failed I/O"
	[ -n "$ms" ] || vm_fail "no 'starting recovery', then failed I/O, in the kernel log after the target went away"
	vm_log "fio $rw: loss seen ${ms% *} ms after the target went away, first request" \
		"failed ${ms#* } ms after that; fio exited after $(vm_ms_since "$t_down") ms"
	echo "$ms"
}
