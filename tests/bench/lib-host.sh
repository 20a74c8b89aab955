# shellcheck shell=bash
# The host side that the VM benchmarks (insn_meter.sh, vs_nvme_rdma.sh)
# share: they are started on the host, boot the test VM and run
# themselves in it; these helpers take the host's options and bring the
# results back. The caller defines usage_error MESSAGE (exits 2).
#
#   bench_host_args ARGS...     takes --kernel KVER, --build-dir DIR,
#                               --timeout SEC and --out DIR; sets vm
#                               (run-in-vm.sh's --kernel), build,
#                               timeout (empty: the caller estimates it)
#                               and host_out; the other
#                               arguments go to args, for the VM side.
#                               BENCH_VM_ONLY (a |-separated list) names
#                               options refused here: they need a VM
#                               side that set the target up
#   bench_host_build            checks build and makes it absolute
#   bench_host_timeout          checks timeout, once it is set
#   bench_host_results DIR      where the run's results are, copied to
#                               --out when it was given; sets results

bench_host_args() {
	vm=() args=() build=build timeout="" host_out=""
	while [ $# -gt 0 ]; do
		case $1 in
		--kernel | --build-dir | --timeout | --out)
			[ $# -ge 2 ] || usage_error "$1 needs a value"
			case $1 in
			--kernel) vm+=(--kernel "$2") ;;
			--build-dir) build=$2 ;;
			--timeout) timeout=$2 ;;
			--out) host_out=$2 ;;
			esac
			shift 2
			;;
		*)
			if [ -n "${BENCH_VM_ONLY:-}" ] && [[ "|$BENCH_VM_ONLY|" == *"|$1|"* ]]; then
				usage_error "$1 is for a run inside a VM that set the target up"
			fi
			args+=("$1")
			shift
			;;
		esac
	done
}

bench_host_build() {
	[ -d "$build" ] || usage_error "no build directory $build (--build-dir)"
	build=$(realpath "$build")
}

bench_host_timeout() {
	[[ $timeout =~ ^[0-9]+$ ]] || usage_error "--timeout takes seconds, not '$timeout'"
}

bench_host_results() {
	results=$1
	if [ -n "$host_out" ] && [ -d "$results" ]; then
		mkdir -p "$host_out"
		cp -r "$results/." "$host_out/"
		results=$(realpath "$host_out")
	fi
}
