#!/usr/bin/env bash
# Build and install the debug-kernel lane's kernel: Debian's own 6.12
# source (linux-source-6.12) with tests/vm/debug-kernel-patches/*.patch
# applied in order (each says why), configured as `make allnoconfig` plus
# tests/vm/debug-kernel.config (what the VM harness needs, lockdep, KASAN,
# kmemleak, UBSAN, ...). Cached under RBLK_DEBUG_KERNEL_CACHE (default
# /var/tmp/rblk-debug-kernel) by the hash of the source package's version,
# the fragment, the patches and the recipe's version below: a second run
# with none of them changed only (re)installs. A new patch on top of a
# cached build, or a changed fragment, starts from a copy of that tree, so
# only what the change touches is rebuilt. Installed as release <version>-rblk-debug:
#   /boot/vmlinuz-<release>, /lib/modules/<release>/ (rblk-debug-build ->
#   the cached tree, which the module build uses as it does Debian's
#   headers, /lib/modules/<release>/build)
# No `build` link: whatever looks for kernels as /lib/modules/*/build (the
# suite's defaults, ci/sparse.sh, DKMS, checkouts older than the lane)
# never picks this one up; run-in-vm.sh boots it only as --kernel debug,
# CMake builds for it only when RBLK_KERNEL_RELEASES names it.
# Prints the release on stdout as its last line. Run as root.
#
# Usage: ci/debug-kernel.sh [--print-release]
#   --print-release  print the release the current fragment builds, if it
#                    is installed (exit 1 if not), and build nothing
set -euo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
fragment=$src/tests/vm/debug-kernel.config
patches=("$src"/tests/vm/debug-kernel-patches/*.patch)
[ -e "${patches[0]}" ] || patches=()
cache=${RBLK_DEBUG_KERNEL_CACHE:-/var/tmp/rblk-debug-kernel}
pkg=linux-source-6.12
tarball=/usr/src/$pkg.tar.xz
jobs=${RBLK_DEBUG_KERNEL_JOBS:-2}

log() { echo "debug-kernel: $*" >&2; }
die() { log "FAILED: $*"; exit 1; }

if [ "$(id -u)" -ne 0 ]; then
	die "run as root (it installs linux-source-6.12 and the kernel)"
fi
if ! dpkg-query -W -f='${Status}' "$pkg" 2> /dev/null | grep -q 'install ok installed'; then
	[ "${1:-}" != --print-release ] || exit 1
	log "installing $pkg and the build's tools"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"$pkg" libelf-dev libssl-dev bc flex bison xz-utils patch >&2
fi
version=$(dpkg-query -W -f='${Version}' "$pkg")
# The recipe's version: bump it when a change below alters what is built.
recipe=1
key=$( {
	echo "$pkg $version recipe $recipe"
	cat "$fragment"
	for p in "${patches[@]}"; do echo "patch ${p##*/}"; cat "$p"; done
} | sha256sum | cut -c1-16)
dir=$cache/$key
tree=$dir/linux

# installed_release: the release of the cached build, when complete.
installed_release() {
	[ -s "$dir/release" ] || return 1
	local rel
	rel=$(cat "$dir/release")
	[ -e "/boot/vmlinuz-$rel" ] && [ -e "/lib/modules/$rel/modules.dep" ] &&
		[ "$(readlink "/lib/modules/$rel/rblk-debug-build")" = "$tree" ] || return 1
	echo "$rel"
}

if [ "${1:-}" = --print-release ]; then
	installed_release
	exit
fi

# check_fragment: every option of the fragment as it ended up in .config;
# a line that did not survive olddefconfig (a dependency missing, a name
# wrong for this version) fails the build rather than silently building a
# kernel without a checker.
check_fragment() {
	local line name want got bad=0
	while IFS= read -r line; do
		if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]]; then
			name=${BASH_REMATCH[1]} want=${BASH_REMATCH[2]}
		elif [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
			name=${BASH_REMATCH[1]} want=n
		else
			continue
		fi
		got=$(grep -E "^$name=" "$tree/.config" | cut -d= -f2- || true)
		[ -n "$got" ] || got=n
		if [ "$got" != "$want" ]; then
			log "$name: the fragment says $want, the configuration has $got"
			bad=1
		fi
	done < "$fragment"
	[ "$bad" -eq 0 ] || die "options of $fragment did not survive olddefconfig (above)"
}

# apply_patches FIRST: the patches from index FIRST on, into $tree, each
# recorded in $dir/patches as it lands.
apply_patches() {
	local i
	for ((i = $1; i < ${#patches[@]}; i++)); do
		log "applying ${patches[i]##*/}"
		patch -d "$tree" -p1 -s -N < "${patches[i]}" >&2 ||
			die "${patches[i]} does not apply to $pkg $version"
		echo "${patches[i]##*/}" >> "$dir/patches"
	done
}

# seed: a complete build of the same source whose patches are the first
# of ours, to start from (its directory on stdout): one of the same
# fragment if there is one, else of another fragment, which is then
# configured again (kbuild rebuilds what the changed options reach).
seed() {
	local pass
	for pass in same other; do
		seed_pass "$pass" && return 0
	done
	return 1
}

seed_pass() {
	local d n i ok best="" most=0
	for d in "$cache"/*/; do
		d=${d%/}
		if [ "$d" = "$dir" ] || [ ! -s "$d/release" ] || [ ! -d "$d/linux" ]; then
			continue
		fi
		[ "$(cat "$d/source" 2> /dev/null)" = "$pkg $version" ] || continue
		if [ "$1" = same ]; then
			cmp -s "$d/fragment.config" "$fragment" || continue
		fi
		mapfile -t n < <(cat "$d/patches" 2> /dev/null)
		[ "${#n[@]}" -le "${#patches[@]}" ] || continue
		ok=1
		for ((i = 0; i < ${#n[@]}; i++)); do
			[ "${n[i]}" = "${patches[i]##*/}" ] || ok=0
		done
		# The one with the most of our patches: the least to rebuild.
		if [ "$ok" = 1 ] && [ "${#n[@]}" -ge "$most" ]; then
			best=$d most=${#n[@]}
		fi
	done
	[ -n "$best" ] && echo "$best"
}

if [ ! -s "$dir/release" ]; then
	# A build cut short (killed, the machine stopped) resumes: make picks
	# up where it was. Only a tree never configured is unpacked again.
	if [ ! -s "$dir/configured" ] && from=$(seed); then
		rm -rf -- "$dir"
		mkdir -p "$dir"
		log "starting from $from's build: copying its tree"
		cp -a --reflink=auto "$from/linux" "$tree"
		cp "$from/fragment.config" "$from/source" "$dir/"
		if [ -s "$from/patches" ]; then cp "$from/patches" "$dir/"; else : > "$dir/patches"; fi
		apply_patches "$(wc -l < "$dir/patches")"
		if ! cmp -s "$dir/fragment.config" "$fragment"; then
			log "configuring again: allnoconfig + $fragment"
			cp "$fragment" "$dir/fragment.config"
			make -C "$tree" -s KCONFIG_ALLCONFIG="$dir/fragment.config" allnoconfig >&2
			make -C "$tree" -s olddefconfig >&2
		fi
		# objtool's own build records absolute paths, so the copy builds
		# it again, and every object depends on it: its sources are the
		# same, so it keeps the old one's time and the objects stay.
		make -C "$tree" -s tools/objtool >&2
		find "$tree/tools/objtool" -exec touch -h -r "$from/linux/tools/objtool/objtool" {} +
		check_fragment
		date +%s > "$dir/configured"
	elif [ ! -s "$dir/configured" ]; then
		rm -rf -- "$dir"
		mkdir -p "$dir"
		log "unpacking $tarball ($version) into $dir"
		tar -C "$dir" -xJf "$tarball"
		mv "$dir/$pkg" "$tree"
		echo "$pkg $version" > "$dir/source"
		: > "$dir/patches"
		apply_patches 0
		log "configuring: allnoconfig + $fragment"
		cp "$fragment" "$dir/fragment.config"
		make -C "$tree" -s KCONFIG_ALLCONFIG="$dir/fragment.config" allnoconfig >&2
		make -C "$tree" -s olddefconfig >&2
		check_fragment
		date +%s > "$dir/configured"
	else
		log "resuming the build in $tree"
		check_fragment
	fi
	log "building (nice -n 19 make -j$jobs; log in $dir/build.log)"
	t0=$(date +%s)
	if ! nice -n 19 make -C "$tree" -j"$jobs" bzImage modules >> "$dir/build.log" 2>&1; then
		tail -n 40 "$dir/build.log" >&2
		die "the kernel build failed (log: $dir/build.log)"
	fi
	echo "$(( $(date +%s) - t0 ))" > "$dir/build_seconds"
	log "built in $(cat "$dir/build_seconds") s"
	make -C "$tree" -s kernelrelease > "$dir/release"
fi

rel=$(cat "$dir/release")
case $rel in
*-rblk-debug) ;;
*) die "release $rel does not end in -rblk-debug: the harness would boot it by default" ;;
esac
if ! installed_release > /dev/null; then
	log "installing $rel"
	rm -rf -- "/lib/modules/$rel"
	make -C "$tree" -s INSTALL_MOD_PATH=/ modules_install >&2
	rm -f "/lib/modules/$rel/build" "/lib/modules/$rel/source"
	ln -sfn "$tree" "/lib/modules/$rel/rblk-debug-build"
	install -m 0644 "$tree/arch/x86/boot/bzImage" "/boot/vmlinuz-$rel"
	cp "$tree/System.map" "/boot/System.map-$rel"
	cp "$tree/.config" "/boot/config-$rel"
fi
log "$rel is installed (built in $(cat "$dir/build_seconds" 2> /dev/null || echo "?") s; tree $tree)"
echo "$rel"
