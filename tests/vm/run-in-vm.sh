#!/usr/bin/env bash
# Run SCRIPT as root inside a throwaway qemu VM (TCG) booting the Debian
# kernel KVER with the host's / as a read-only root under a tmpfs overlay.
#
# Usage: run-in-vm.sh [--timeout SEC] [--mem MB] [--name NAME]
#                     [--build-dir DIR] [--kernel KVER] SCRIPT [ARGS...]
#   --timeout SEC   wall-clock budget of the whole VM (default 600); the
#                   script itself gets a little less, so a hang still
#                   leaves dmesg behind
#   --mem MB        guest memory (default 2048)
#   --name NAME     results go to <out>/NAME (default: SCRIPT's basename)
#   --build-dir DIR the cmake build dir (default $RBLK_BUILD_DIR, else ./build)
#   --kernel KVER   kernel release to boot, e.g. 6.12.117+deb12-amd64, or
#                   its major.minor (6.1, 6.12) when one such is installed
#                   (--kver is the same; default $RBLK_KVER, else the
#                   newest /lib/modules/*/build that has a /boot/vmlinuz);
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
# RBLK_VM_VERBOSE=1 streams the serial console while the VM runs.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$here/../.." && pwd)
timeout=600 mem=2048 name="" build_dir=${RBLK_BUILD_DIR:-$src/build} kver=${RBLK_KVER:-}

die() { echo "run-in-vm: $*" >&2; exit 125; }

while [ $# -gt 0 ]; do
	case $1 in
	--timeout) timeout=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--name) name=$2; shift 2 ;;
	--build-dir) build_dir=$2; shift 2 ;;
	--kernel|--kver) kver=$2; shift 2 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	--) shift; break ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || die "usage: run-in-vm.sh [options] SCRIPT [ARGS...]"
[[ $timeout =~ ^[0-9]+$ && $mem =~ ^[0-9]+$ ]] || die "--timeout and --mem take numbers"

script=$(realpath -e -- "$1") || die "no such script: $1"
shift
case $script in
/tmp/*|/run/*) die "$script is under /tmp or /run, which the VM mounts afresh: put it under the repo or /var/tmp" ;;
esac
name=${name:-$(basename "$script" .sh)}
[ -d "$build_dir" ] && build_dir=$(realpath "$build_dir")

# The bootable releases: headers to build against and an image to boot.
bootable=()
for d in $(printf '%s\n' /lib/modules/*/build | sort -rV); do
	k=$(basename "$(dirname "$d")")
	[ -e "/boot/vmlinuz-$k" ] && bootable+=("$k")
done
if [ -z "$kver" ]; then
	kver=${bootable[0]:-}
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
	dep=$cache/depmod-$kver-$(sha256sum "$ko" | cut -c1-16)
	if [ ! -s "$dep/rblk.ko" ]; then
		rm -rf -- "$dep.tmp"
		"$here/prep-depmod.sh" "$kver" "$ko" "$dep.tmp" || die "depmod for $ko failed"
		# Another run may have won the race; either copy is good.
		mv -T "$dep.tmp" "$dep" 2> /dev/null || rm -rf -- "$dep.tmp"
	fi
	cp -r "$dep" "$out/depmod"
fi

# The script's share of the budget: what boot and shutdown leave over.
margin=$(( timeout / 5 > 45 ? timeout / 5 : 45 ))
script_timeout=$(( timeout - margin > 10 ? timeout - margin : 10 ))

# The job: environment and command line for stage2.sh to source.
cmd=("$script" "$@")
[ -x "$script" ] || cmd=(/bin/bash "$script" "$@")
{
	while IFS='=' read -r var _; do
		printf 'export %s=%q\n' "$var" "${!var}"
	done < <(env | grep -E '^RBLK_[A-Za-z0-9_]*=' || true)
	printf 'export %s=%q\n' RBLK_SRC_DIR "$src" RBLK_BUILD_DIR "$build_dir" \
		RBLK_KVER "$kver" RBLK_KO "$ko" RBLK_VM_OUT /run/rblk-vm RBLK_VM_NAME "$name" \
		RBLK_VM_SCRIPT_TIMEOUT "$script_timeout"
	printf 'set --'
	printf ' %q' "${cmd[@]}"
	echo
} > "$out/job.env"

console=$out/console.log
: > "$console"
tail_pid=""
if [ "${RBLK_VM_VERBOSE:-0}" = 1 ]; then
	tail -n +1 -F "$console" 2> /dev/null &
	tail_pid=$!
fi

# One boot. no_timer_check: under a loaded host TCG's early timer IRQ test
# can fail and panic the kernel ("IO-APIC + timer doesn't work!", seen
# here); the VM's timer is fine. log_buf_len: the whole kernel log of a
# case, for the cases' dmesg checks and the final one.
boot_vm() {
	echo "run-in-vm: $name: booting $kver (timeout ${1}s, ${mem} MiB)" >&2
	qemu_rc=0
	timeout -k 10 "$1" qemu-system-x86_64 \
		-accel tcg,thread=multi -cpu max -smp 2 -m "$mem" \
		-nodefaults -no-user-config -display none -no-reboot \
		-kernel "$kernel" -initrd "$image" \
		-append "console=ttyS0 panic=-1 rdinit=/init no_timer_check log_buf_len=4M" \
		-serial "file:$console" \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
		-virtfs "local,path=$out,mount_tag=rblkout,security_model=none,multidevs=remap" \
		< /dev/null > "$out/qemu.log" 2>&1 || qemu_rc=$?
}

start=$(date +%s%N)
boot_vm "$timeout"
# The guest never started the job (early panic, stage 1 failure, qemu
# error): nothing of the case ran, so boot once more, with the reason
# logged and the first console kept. A job that started is never re-run,
# nor a VM that timed out or was killed (exit 124 or >= 128).
if ! grep -aq 'RBLK-VM-START' "$console" && [ "$qemu_rc" -ne 124 ] && [ "$qemu_rc" -lt 128 ]; then
	left=$(( timeout - ($(date +%s%N) - start) / 1000000000 ))
	if [ "$left" -gt 60 ]; then
		mv "$console" "$out/console.boot1.log"
		echo "run-in-vm: $name: RETRY: the VM ended before the job started (qemu exit $qemu_rc):" \
			"$(grep -a -m1 -E 'Kernel panic|RBLK-VM-STAGE1-FAILED|RBLK-VM-EXIT' "$out/console.boot1.log" ||
				tail -n 1 "$out/console.boot1.log")" >&2
		rm -f "$out/exit_code" "$out/output.log" "$out/dmesg.log" "$out/boot_seconds" "$out/end_seconds"
		: > "$console"
		boot_vm "$left"
	fi
fi
ms=$(( ($(date +%s%N) - start) / 1000000 ))
wall=$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))
[ -n "$tail_pid" ] && kill "$tail_pid" 2> /dev/null
wait 2> /dev/null || true

[ "${RBLK_VM_VERBOSE:-0}" = 1 ] || { [ -f "$out/output.log" ] && cat "$out/output.log"; }

rc=""
if [ -s "$out/exit_code" ]; then
	rc=$(cat "$out/exit_code")
elif marker=$(grep -a -o 'RBLK-VM-EXIT: [0-9]*' "$console" | tail -n 1) && [ -n "$marker" ]; then
	rc=${marker#RBLK-VM-EXIT: }
fi

if [ -z "$rc" ]; then
	if [ "$qemu_rc" -eq 124 ] || [ "$qemu_rc" -eq 137 ]; then
		echo "run-in-vm: $name: FAILED: the VM timed out after ${timeout}s (no exit code)" >&2
		rc=124
	elif grep -aq 'Kernel panic' "$console"; then
		echo "run-in-vm: $name: FAILED: kernel panic" >&2
		rc=125
	else
		echo "run-in-vm: $name: FAILED: the VM ended without an exit code (qemu exit $qemu_rc: boot failure?)" >&2
		rc=125
	fi
	echo "run-in-vm: last console lines ($console):" >&2
	tail -n 40 "$console" >&2
	[ -s "$out/qemu.log" ] && { echo "run-in-vm: qemu said:" >&2; cat "$out/qemu.log" >&2; }
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
echo "run-in-vm: $name: exit $rc (guest boot ${boot}s, guest end ${end}s, wall ${wall}s; logs in $out)" >&2
exit "$rc"
