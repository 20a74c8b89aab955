#!/bin/sh
# fio's exec_prerun / exec_postrun hook of tests/bench/vs_nvme_rdma.sh:
# marks the timed part of a fio run.
#   fio-window.sh pre|post STATE [PERF_CTL PERF_ACK]
# fio runs the prerun hook of each job right before the job's clock starts
# (after its files, io_uring rings and buffers are set up) and the postrun
# hook once its I/O is done, so what fio's startup and teardown cost falls
# outside. Each call appends the /proc/stat "cpu" line to STATE, as
# "pre cpu ..." or "post cpu ..."; the window is the earliest pre to the
# latest post (numjobs=2 runs the hooks twice). With PERF_CTL and PERF_ACK (the
# control FIFOs of a `perf record --control fifo:CTL,ACK -D -1`), the first
# pre enables perf's events before its line and the last post disables
# them after its line, so the profile covers the same window.
# It runs under fio's system(): /bin/sh, builtins where they do (each
# process costs ~0.1 s under TCG).
set -eu
what=$1 state=$2
# post: the sample first, then the lock (flock's start is not the run's).
[ "$what" != post ] || read -r line < /proc/stat
exec 9>> "$state.lock"
flock 9
open=0
[ ! -s "$state.open" ] || read -r open < "$state.open"
case $what in
pre)
	if [ "$open" -eq 0 ] && [ $# -ge 4 ]; then
		echo enable > "$3"
		read -r _ < "$4"
	fi
	echo $((open + 1)) > "$state.open"
	read -r line < /proc/stat
	echo "pre $line" >> "$state"
	;;
post)
	echo "post $line" >> "$state"
	open=$((open - 1))
	echo "$open" > "$state.open"
	if [ "$open" -le 0 ] && [ $# -ge 4 ]; then
		echo disable > "$3"
		read -r _ < "$4"
	fi
	;;
*)
	echo "fio-window.sh: pre or post, not $what" >&2
	exit 2
	;;
esac
