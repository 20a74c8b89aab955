# shellcheck shell=bash
# Helpers of the lifecycle_* VM cases (source after lib.sh):
#   lc_ms_between A B              milliseconds from A to B (seconds, decimals)
#   lc_last_at ERE                 kernel timestamp (seconds) of the last dmesg
#                                  line matching ERE, empty if none
#   lc_delete_ms CTRL              how long the kernel's last delete of CTRL
#                                  took (state -> deleting to deleting -> dead;
#                                  needs rblk loaded with dyndbg=+p)
#   lc_fio_qd32_start DEV          fio randrw 4k QD32 on DEV in the background
#                                  (LC_FIO_PID); killed if the case fails
#   lc_fio_qd32_end BOUND WHAT     fio must end within BOUND seconds, with an
#                                  error (its disk is gone); prints a RESULT line

lc_ms_between() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%d", (b - a) * 1000 }'; }

lc_last_at() { dmesg | awk -F'[][]' -v re="$1" '$0 ~ re { t = $2 } END { print t }'; }

lc_delete_ms() {
	local from to
	from=$(lc_last_at "$1: state [a-z]+ -> deleting")
	to=$(lc_last_at "$1: state deleting -> dead")
	[ -n "$from" ] && [ -n "$to" ] || vm_fail "no $1: state ... -> deleting -> dead in dmesg (dyndbg=+p?)"
	lc_ms_between "$from" "$to"
}

lc_fio_qd32_start() {
	fio --name=qd32 --filename="$1" --ioengine=libaio --direct=1 --rw=randrw --bs=4k \
		--iodepth=32 --time_based --runtime=120 --output-format=json \
		--output=/tmp/qd32.json > /dev/null 2>&1 &
	LC_FIO_PID=$!
	trap 'kill -9 "$LC_FIO_PID" 2> /dev/null || true' EXIT
}

lc_fio_qd32_end() {
	local bound=$1 what=$2 t0 i rc=0
	t0=$(vm_now_ms)
	for ((i = 0; i < bound * 5; i++)); do
		kill -0 "$LC_FIO_PID" 2> /dev/null || break
		vm_sleep 0.2
	done
	kill -0 "$LC_FIO_PID" 2> /dev/null && vm_fail "$what: fio still running ${bound}s after the disconnect"
	wait "$LC_FIO_PID" || rc=$?
	trap - EXIT
	echo "RESULT: $what: fio ended $(vm_ms_since "$t0") ms after the disconnect returned, exit $rc"
	vm_assert_ne 0 "$rc" "$what: fio's exit code (its disk vanished)"
}
