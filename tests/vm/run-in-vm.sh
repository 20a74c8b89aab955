#!/usr/bin/env bash
# Run SCRIPT as root inside a throwaway qemu VM (TCG) booting the Debian
# kernel KVER with the host's / as a read-only root under a tmpfs overlay.
#
# Usage: run-in-vm.sh [--timeout SEC] [--mem MB] [--name NAME]
#                     [--build-dir DIR] [--kernel KVER] SCRIPT [ARGS...]
#        run-in-vm.sh [same options] --group NAME SECS:CASE...
#   --timeout SEC   wall-clock budget of the whole VM (default 600); the
#                   script itself gets a little less, so a hang still
#                   leaves dmesg behind
#   --group NAME    run several cases in one boot (tests/vm/group.sh), each
#                   CASE with a budget of SECS (its vm-timeout); results in
#                   <out>/NAME/<case>/{output.log,dmesg.log,exit_code}, read
#                   with case-result.sh. --timeout is then the group's
#                   (default: the sum of the budgets plus 120 s a boot)
#   --mem MB        guest memory (default 2048)
#   --name NAME     results go to <out>/NAME (default: SCRIPT's basename)
#   --build-dir DIR the cmake build dir (default $RBLK_BUILD_DIR, else ./build)
#   --kernel KVER   kernel release to boot, e.g. 6.12.117+deb12-amd64, or
#                   its major.minor (6.1, 6.12) when one such is installed,
#                   or "debug": the debug lane's kernel (ci/debug-kernel.sh)
#                   (--kver is the same; default $RBLK_KVER, else the
#                   newest /lib/modules/*/build that has a /boot/vmlinuz,
#                   never a *-rblk-debug one);
#                   the module is <build-dir>/kmod/KVER/rblk.ko
# Inside, SCRIPT sees RBLK_SRC_DIR, RBLK_BUILD_DIR, RBLK_KVER, RBLK_KO (the
# module for that kernel), RBLK_VM_OUT
# (a directory copied back to the host) and every RBLK_* variable of the
# caller. Its output is printed here; the exit code is SCRIPT's, or
#   97  the script passed but the kernel log has WARNING/BUG/Oops/...
#   124 timeout (in the VM or of the VM)
#   125 the VM did not boot or did not report (panic, harness failure);
#       a VM that ends before the job starts is booted once more (logged
#       as RETRY, first console in console.boot1.log): no case ran in it
# Results: <build-dir>/vm-out/NAME/{output,console,dmesg}.log.
# A group exits 0 once every case has a result (whatever it is), 125 when
# no VM could start the job. A case during which the VM died or hung gets
# 125 or 124 from here; the cases after it run in a fresh boot, as do
# those after a case the VM could not be reset from (group.sh).
# A guest that has not started its job within RBLK_VM_BOOT_TIMEOUT seconds
# (default 240, 1500 for the debug kernel; a TCG boot takes 10-30) counts
# as a boot that failed.
# RBLK_VM_VERBOSE=1 streams the serial console while the VM runs.
# RBLK_VM_PLUGIN=FILE,ARGS loads a TCG plugin (qemu -plugin) and runs
# the guest on one host thread (tests/bench/insn_meter.sh).
# RBLK_VM_APPEND adds kernel parameters; RBLK_VM_XTRACE=1 traces each
# case's commands with timestamps into its xtrace.log (group.sh).
# RBLK_VM_MEMCHECK: the memory checks of the boot: 1 (the default) KFENCE
# sampling where the kernel has it; slub adds slub_debug=FZPU (red zones,
# poisoning, sanity checks and owner tracking on every slab cache: 60-90%
# more time per case under TCG, tests/README.md); 0 none (the benchmarks).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$here/../.." && pwd)
timeout="" mem=2048 name="" group="" build_dir=${RBLK_BUILD_DIR:-$src/build} kver=${RBLK_KVER:-}

die() { echo "run-in-vm: $*" >&2; exit 125; }

while [ $# -gt 0 ]; do
	case $1 in
	--timeout) timeout=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--name) name=$2; shift 2 ;;
	--group) group=$2; shift 2 ;;
	--build-dir) build_dir=$2; shift 2 ;;
	--kernel|--kver) kver=$2; shift 2 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	--) shift; break ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || die "usage: run-in-vm.sh [options] SCRIPT [ARGS...] | --group NAME SECS:CASE..."

in_vm_path() {
	local p
	p=$(realpath -e -- "$1") || die "no such script: $1"
	case $p in
	/tmp/*|/run/*) die "$p is under /tmp or /run, which the VM mounts afresh: put it under the repo or /var/tmp" ;;
	esac
	echo "$p"
}

# A group's cases: "budget:path", the budget being what the case gets
# inside the VM (its vm-timeout less a margin for teardown and the log).
cases=() budgets=()
if [ -n "$group" ]; then
	sum=0
	for a in "$@"; do
		[[ $a =~ ^([0-9]+):(.+)$ ]] || die "--group takes SECS:CASE arguments, not '$a'"
		secs=${BASH_REMATCH[1]}
		cases+=("$(in_vm_path "${BASH_REMATCH[2]}")")
		budgets+=("$(( secs - 30 > 10 ? secs - 30 : 10 ))")
		sum=$((sum + secs))
	done
	timeout=${timeout:-$((sum + 120))}
	name=${name:-$group}
else
	script=$(in_vm_path "$1")
	shift
	name=${name:-$(basename "$script" .sh)}
	timeout=${timeout:-600}
fi
[[ $timeout =~ ^[0-9]+$ && $mem =~ ^[0-9]+$ ]] || die "--timeout and --mem take numbers"
[ -d "$build_dir" ] && build_dir=$(realpath "$build_dir")

# The bootable releases: headers to build against and an image to boot.
# The debug lane's kernel (ci/debug-kernel.sh, *-rblk-debug) is booted
# only when asked for by name or as "debug", never as the default or a
# major.minor: the suite runs on Debian's kernels.
bootable=() debug=()
for d in $(printf '%s\n' /lib/modules/*/build | sort -rV); do
	k=$(basename "$(dirname "$d")")
	[ -e "/boot/vmlinuz-$k" ] && bootable+=("$k")
done
for d in /lib/modules/*-rblk-debug/rblk-debug-build; do
	k=$(basename "$(dirname "$d")")
	[ -e "/boot/vmlinuz-$k" ] && debug+=("$k")
done
if [ -z "$kver" ]; then
	kver=${bootable[0]:-}
elif [ "$kver" = debug ]; then
	[ "${#debug[@]}" -eq 1 ] || die "--kernel debug: ${#debug[@]} debug kernels installed (${debug[*]:-none}; ci/debug-kernel.sh installs one); give the whole release"
	kver=${debug[0]}
elif [[ $kver =~ ^[0-9]+\.[0-9]+$ ]]; then
	# A major.minor names the one installed release of that series.
	match=()
	for k in "${bootable[@]}"; do
		[[ $k == "$kver".* ]] && match+=("$k")
	done
	[ "${#match[@]}" -eq 1 ] || die "--kernel $kver: ${#match[@]} installed releases match (${bootable[*]:-none}); give the whole release"
	kver=${match[0]}
fi
[ -n "$kver" ] || die "no kernel found: run ci/install-deps.sh (it installs the 6.1 and 6.12 images and headers)"
kernel=/boot/vmlinuz-$kver
[ -r "$kernel" ] || die "$kernel is missing (apt-get install linux-image-$kver)"

cache=${RBLK_VM_CACHE:-/var/tmp/rblk-vm}
image=$("$here/mkinitramfs.sh" "$kver" "$cache") || die "cannot build the initramfs"

if [ -d "$build_dir" ]; then out_base=$build_dir/vm-out; else out_base=$cache/out; fi
out=$out_base/$name
mkdir -p "$(dirname "$out")"
# Two runs of the same NAME take turns rather than mix their results.
exec 9> "$out.lock"
flock 9
rm -rf -- "$out"
mkdir -p "$out"

# The module built for this kernel, and the index vm_rblk_load installs
# with it (depmod -a is slow in the VM), cached per kernel and module.
ko=$build_dir/kmod/$kver/rblk.ko
if [ -f "$ko" ]; then
	dep=$cache/depmod2-$kver-$(sha256sum "$ko" | cut -c1-16)
	if [ ! -s "$dep/rblk.ko" ]; then
		# A directory of this run's own: two runs of one kernel may start
		# together (they once shared one and removed each other's files).
		tmp=$(mktemp -d "$dep.tmp.XXXXXX") || die "cannot make a directory in $cache"
		"$here/prep-depmod.sh" "$kver" "$ko" "$tmp" || { rm -rf -- "$tmp"; die "depmod for $ko failed"; }
		# Another run may have won the race; either copy is good.
		mv -T "$tmp" "$dep" 2> /dev/null || rm -rf -- "$tmp"
	fi
	cp -r "$dep" "$out/depmod"
	# vm_rblk_load checks KO against this, not its 9 MB against the copy.
	stat -c '%s %Y' "$ko" > "$out/depmod/source"
fi

# The script's share of the budget: what boot and shutdown leave over.
margin=$(( timeout / 5 > 45 ? timeout / 5 : 45 ))
script_timeout=$(( timeout - margin > 10 ? timeout - margin : 10 ))

# write_job CMD...: the environment and command line for stage2.sh to
# source, into job.env of the out share.
write_job() {
	{
		while IFS='=' read -r var _; do
			printf 'export %s=%q\n' "$var" "${!var}"
		done < <(env | grep -E '^RBLK_[A-Za-z0-9_]*=' || true)
		printf 'export %s=%q\n' RBLK_SRC_DIR "$src" RBLK_BUILD_DIR "$build_dir" \
			RBLK_KVER "$kver" RBLK_KO "$ko" RBLK_VM_OUT /run/rblk-vm RBLK_VM_NAME "$name" \
			RBLK_VM_DEPMOD /run/rblk-vm/depmod RBLK_VM_SCRIPT_TIMEOUT "$script_timeout"
		printf 'set --'
		printf ' %q' "$@"
		echo
	} > "$out/job.env"
}

console=$out/console.log
tail_pid=""
stream_console() {
	[ "${RBLK_VM_VERBOSE:-0}" = 1 ] || return 0
	tail -n +1 -F "$console" 2> /dev/null &
	tail_pid=$!
}
stop_stream() {
	[ -z "$tail_pid" ] || kill "$tail_pid" 2> /dev/null || true
	tail_pid=""
}

# The debug kernel boots several times slower under TCG (KASAN, lockdep,
# kmemleak). It has no PCI MSI, so virtio's interrupts are INTx, routed
# by ACPI's _PRT method; KASAN makes the interpreted AML so slow that on
# a loaded host ACPICA gave up on it (AE_AML_LOOP_TIMEOUT, "virtio-pci
# ...: PCI INT A: no GSI"), the 9p root never answered, and the guest
# idled after "Run /init" until the boot budget ran out (2026-12-05, four
# boots in a row beside two builds and another VM). acpi=noirq routes
# them by the BIOS's PIRQ table instead (ACPI stays for power-off and
# -numa): 32 s of guest time, 62 s wall, under that same load. The
# soft-lockup threshold goes from 20 to 120 s (watchdog_thresh=60, the
# most): TCG under load stalls a vCPU for tens of seconds; a real lockup
# in a case still shows.
debug_append=""
case $kver in
*-rblk-debug)
	boot_timeout=${RBLK_VM_BOOT_TIMEOUT:-1500}
	debug_append="acpi=noirq watchdog_thresh=60"
	;;
*) boot_timeout=${RBLK_VM_BOOT_TIMEOUT:-240} ;;
esac

# started: the guest began the job of the last boot.
started() { grep -aq 'RBLK-VM-START' "$console"; }

# watchdog QEMU_PID: kill a guest that never starts its job, or (group)
# whose current case has overrun its budget by far, which only a wedged
# kernel does (the budget itself is enforced inside); the reason goes to
# <out>/watchdog. In a group, a case's own output does not go to the
# console, so it cannot fake the case markers.
watchdog() {
	local pid=$1 t0 now cur="" cur_t=0 last
	t0=$(date +%s)
	rm -f "$out/watchdog"
	while kill -0 "$pid" 2> /dev/null; do
		sleep 2
		now=$(date +%s)
		if ! started; then
			if [ $((now - t0)) -gt "$boot_timeout" ]; then
				echo "the guest did not start its job within ${boot_timeout}s" > "$out/watchdog"
				kill "$pid" 2> /dev/null
			fi
			continue
		fi
		[ -n "$group" ] || continue
		last=$(grep -a -o -E 'RBLK-VM-CASE-(START|END): [^ ]+ [0-9]+' "$console" | tail -n 1)
		if [[ $last =~ ^RBLK-VM-CASE-START:\ ([^ ]+)\ ([0-9]+)$ ]]; then
			if [ "$cur" != "${BASH_REMATCH[1]}" ]; then
				cur=${BASH_REMATCH[1]} cur_t=$now
			elif [ $((now - cur_t)) -gt $((BASH_REMATCH[2] + 150)) ]; then
				echo "case $cur ran ${BASH_REMATCH[2]}s past its budget: the guest is wedged" > "$out/watchdog"
				kill "$pid" 2> /dev/null
			fi
		else
			cur=""
		fi
	done
}

# One boot. no_timer_check: under a loaded host TCG's early timer IRQ test
# can fail and panic the kernel ("IO-APIC + timer doesn't work!", seen
# here); the VM's timer is fine. log_buf_len: the whole kernel log of a
# case, for the cases' dmesg checks and the final one. mitigations=off:
# the guest runs nothing but the tests, and under TCG its retpolines and
# RSB fills cost a fifth of a case's time (datapath_fio_verify on 6.12:
# 51.7 s with them, 43.1 s without); nothing rblk does depends on them.
# memcheck: Debian's kernels have no KASAN, but 6.12 has KFENCE built in
# (sampling off) and both have SLUB_DEBUG: a use-after-free, an overflow
# into a red zone or a double free then prints a `BUG` report that the
# dmesg check fails the case on (dmesg-patterns). kfence.sample_interval
# is ignored by 6.1, which has no KFENCE. slub_debug takes every
# allocation off its fast path, and the fabric here (rxe, the network
# stack) allocates per packet: it is not the default.
case ${RBLK_VM_MEMCHECK:-1} in
0) memcheck="" ;;
slub) memcheck="kfence.sample_interval=10 slub_debug=FZPU" ;;
*) memcheck="kfence.sample_interval=10" ;;
esac
# RBLK_VM_PLUGIN: a TCG plugin and its arguments (qemu's -plugin
# FILE,ARG=...; tests/bench/insn_meter.sh's instruction meter). Its guest
# runs every vCPU on one host thread: a plugin's inline counters are not
# atomic, and a multi-threaded TCG would lose counts to races.
accel=tcg,thread=multi plugin=()
if [ -n "${RBLK_VM_PLUGIN:-}" ]; then
	accel=tcg,thread=single plugin=(-plugin "$RBLK_VM_PLUGIN")
fi
boot_vm() {
	local qpid wpid
	echo "run-in-vm: $name: booting $kver (timeout ${1}s, ${mem} MiB)" >&2
	: > "$console"
	stream_console
	qemu_rc=0
	timeout -k 10 "$1" qemu-system-x86_64 \
		-accel "$accel" "${plugin[@]}" -cpu max -smp 2 -m "$mem" \
		-nodefaults -no-user-config -display none -no-reboot \
		-kernel "$kernel" -initrd "$image" \
		-append "console=ttyS0 panic=-1 rdinit=/init no_timer_check log_buf_len=4M mitigations=off $memcheck $debug_append ${RBLK_VM_APPEND:-}" \
		-serial "file:$console" \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
		-virtfs "local,path=$out,mount_tag=rblkout,security_model=none,multidevs=remap" \
		< /dev/null > "$out/qemu.log" 2>&1 &
	qpid=$!
	watchdog "$qpid" &
	wpid=$!
	wait "$qpid" || qemu_rc=$?
	kill "$wpid" 2> /dev/null || true
	wait "$wpid" 2> /dev/null || true
	stop_stream
	if [ -s "$out/watchdog" ]; then
		echo "run-in-vm: $name: watchdog: $(cat "$out/watchdog")" >&2
	fi
}

# killed: the last boot ended by a timeout or a kill (ours or a signal),
# not by the guest.
killed() { [ "$qemu_rc" -eq 124 ] || [ "$qemu_rc" -ge 128 ] || [ -s "$out/watchdog" ]; }

# why_ended: one line on how the last boot ended, for a case it cut short.
why_ended() {
	if [ -s "$out/watchdog" ]; then
		cat "$out/watchdog"
	elif [ "$qemu_rc" -eq 124 ] || [ "$qemu_rc" -eq 137 ]; then
		echo "the VM timed out after its ${timeout}s"
	elif grep -aq 'Kernel panic' "$console"; then
		grep -a -m1 'Kernel panic' "$console"
	else
		echo "the VM ended (qemu exit $qemu_rc)"
	fi
}

console_tail() {
	echo "run-in-vm: last console lines ($console):"
	tail -n 40 "$console"
	if [ -s "$out/qemu.log" ]; then
		echo "run-in-vm: qemu said:"
		cat "$out/qemu.log"
	fi
}

start=$(date +%s%N)
left() { echo $(( timeout - ($(date +%s%N) - start) / 1000000000 )); }
wall() {
	local ms=$(( ($(date +%s%N) - start) / 1000000 ))
	printf '%d.%03d' $((ms / 1000)) $((ms % 1000))
}

# ---- a group: cases in as few boots as they allow ---------------------------
if [ -n "$group" ]; then
	pending=() boot=0 failed_boots=0 rc=0
	for ((i = 0; i < ${#cases[@]}; i++)); do pending+=("$i"); done
	while [ "${#pending[@]}" -gt 0 ]; do
		if [ "$(left)" -lt 60 ]; then
			echo "run-in-vm: $name: the group's ${timeout}s ran out" >&2
			break
		fi
		boot=$((boot + 1))
		job=()
		for i in "${pending[@]}"; do job+=("${budgets[$i]}:${cases[$i]}"); done
		# The runner's budget in the guest: this boot's time less the boot
		# and the shutdown.
		script_timeout=$(( $(left) - 60 ))
		write_job "$here/group.sh" "${job[@]}"
		rm -f "$out/exit_code" "$out/output.log" "$out/dmesg.log"
		boot_vm "$(left)"
		cp "$console" "$out/console.boot$boot.log"
		if ! started; then
			failed_boots=$((failed_boots + 1))
			echo "run-in-vm: $name: RETRY: the VM ended before the job started: $(why_ended)" >&2
			# Once more, unless the VM used up the group's time.
			if [ "$failed_boots" -lt 2 ] && { ! killed || [ -s "$out/watchdog" ]; }; then
				continue
			fi
			echo "run-in-vm: $name: FAILED: no VM started the job" >&2
			console_tail >&2
			rc=125
			break
		fi
		failed_boots=0
		still=()
		for i in "${pending[@]}"; do
			d=$out/$(basename "${cases[$i]}" .sh)
			if [ -s "$d/exit_code" ]; then
				continue
			elif [ -e "$d/started" ]; then
				# The VM died or hung in this case: it fails here.
				{
					echo "run-in-vm: this case did not finish: $(why_ended)"
					console_tail
				} >> "$d/output.log" 2>&1
				echo "did not finish: $(why_ended)" > "$d/reason"
				if killed; then echo 124; else echo 125; fi > "$d/exit_code"
				echo "run-in-vm: $name: $(basename "$d") cut short: $(why_ended)" >&2
			else
				still+=("$i")
			fi
		done
		pending=("${still[@]}")
		[ "${#pending[@]}" -eq 0 ] || echo "run-in-vm: $name: ${#pending[@]} case(s) left: booting a fresh VM for them" >&2
	done
	for i in "${pending[@]}"; do
		d=$out/$(basename "${cases[$i]}" .sh)
		mkdir -p "$d"
		echo "run-in-vm: this case did not run: the group ended first (see $out/console.boot*.log)" >> "$d/output.log"
		echo "did not run: the group ended first" > "$d/reason"
		echo 125 > "$d/exit_code"
		[ "$rc" -ne 0 ] || rc=125
	done
	# What ran after the last case (the runner's own lines) must be clean too.
	if [ -f "$out/dmesg.log" ] && ! "$here/check-dmesg.sh" "$out/dmesg.log" && [ "$rc" -eq 0 ]; then
		rc=97
	fi
	for c in "${cases[@]}"; do
		d=$out/$(basename "$c" .sh)
		printf 'run-in-vm: %s: %-32s exit %s (%s ms)\n' "$name" "$(basename "$d")" \
			"$(cat "$d/exit_code" 2> /dev/null)" "$(cat "$d/ms" 2> /dev/null || echo "?")" >&2
	done
	echo "run-in-vm: $name: exit $rc ($boot boot(s), wall $(wall)s; logs in $out)" >&2
	exit "$rc"
fi

# ---- one script ----------------------------------------------------------------
cmd=("$script" "$@")
[ -x "$script" ] || cmd=(/bin/bash "$script" "$@")
write_job "${cmd[@]}"

boot_vm "$timeout"
# The guest never started the job (early panic, stage 1 failure, qemu
# error, a boot the watchdog gave up on): nothing of the case ran, so
# boot once more, with the reason logged and the first console kept. A
# job that started is never re-run, nor a VM that timed out.
if ! started && { ! killed || [ -s "$out/watchdog" ]; }; then
	if [ "$(left)" -gt 60 ]; then
		mv "$console" "$out/console.boot1.log"
		echo "run-in-vm: $name: RETRY: the VM ended before the job started (qemu exit $qemu_rc):" \
			"$(grep -a -m1 -E 'Kernel panic|RBLK-VM-STAGE1-FAILED|RBLK-VM-EXIT' "$out/console.boot1.log" ||
				why_ended)" >&2
		rm -f "$out/exit_code" "$out/output.log" "$out/dmesg.log" "$out/boot_seconds" "$out/end_seconds"
		boot_vm "$(left)"
	fi
fi

[ "${RBLK_VM_VERBOSE:-0}" = 1 ] || { [ -f "$out/output.log" ] && cat "$out/output.log"; }

rc=""
if [ -s "$out/exit_code" ]; then
	rc=$(cat "$out/exit_code")
elif marker=$(grep -a -o 'RBLK-VM-EXIT: [0-9]*' "$console" | tail -n 1) && [ -n "$marker" ]; then
	rc=${marker#RBLK-VM-EXIT: }
fi

if [ -z "$rc" ]; then
	if ! started; then
		echo "run-in-vm: $name: FAILED: the VM did not start the job: $(why_ended)" >&2
		rc=125
	elif killed; then
		echo "run-in-vm: $name: FAILED: $(why_ended) (no exit code)" >&2
		rc=124
	elif grep -aq 'Kernel panic' "$console"; then
		echo "run-in-vm: $name: FAILED: kernel panic" >&2
		rc=125
	else
		echo "run-in-vm: $name: FAILED: the VM ended without an exit code (qemu exit $qemu_rc: boot failure?)" >&2
		rc=125
	fi
	console_tail >&2
fi

if [ -f "$out/dmesg.log" ]; then
	if ! "$here/check-dmesg.sh" "$out/dmesg.log" && [ "$rc" -eq 0 ]; then
		rc=97
	fi
elif [ "$rc" -eq 0 ]; then
	echo "run-in-vm: $name: FAILED: no dmesg came back" >&2
	rc=125
fi

boot=$(cat "$out/boot_seconds" 2> /dev/null || echo "?")
end=$(cat "$out/end_seconds" 2> /dev/null || echo "?")
echo "run-in-vm: $name: exit $rc (guest boot ${boot}s, guest end ${end}s, wall $(wall)s; logs in $out)" >&2
exit "$rc"
