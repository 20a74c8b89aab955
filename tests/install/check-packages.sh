#!/usr/bin/env bash
# The Debian packages CPack makes from a complete build (the build's own
# CPackConfig.cmake, into a scratch directory): rblk holds rblkctl, librblk
# and its headers, the udev rules, the boot unit, the manual pages and the
# bash completion, with dependencies from dpkg-shlibdeps; rblk-dkms holds
# the module's source and dkms.conf, depends on dkms, and its maintainer
# scripts pass sh -n. Neither holds a built rblk.ko (DKMS builds it).
# Usage: check-packages.sh BUILD_DIR
set -euo pipefail

build=$(realpath "$1")
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
[ -n "$version" ] || { echo "check-packages: no project version in $build/CMakeCache.txt" >&2; exit 1; }
out=$(mktemp -d /var/tmp/rblk-cpack.XXXXXX)
trap 'rm -rf -- "$out"' EXIT
fail() { echo "check-packages: FAIL: $*" >&2; exit 1; }

(cd "$out" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$out") > "$out/cpack.log" 2>&1 ||
	{ cat "$out/cpack.log" >&2; fail "cpack failed"; }

arch=$(dpkg --print-architecture)
user=$out/rblk_${version}_$arch.deb dkms=$out/rblk-dkms_${version}_all.deb
for deb in "$user" "$dkms"; do
	[ -f "$deb" ] || fail "no $(basename "$deb") (made: $(cd "$out" && echo *.deb))"
done

has() {  # has DEB PATH...: each PATH is in DEB
	local deb=$1 list p
	shift
	list=$(dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|')
	for p in "$@"; do
		grep -qxF -- "$p" <<< "$list" || fail "$(basename "$deb") lacks $p"
	done
	if grep -q '\.ko$' <<< "$list"; then
		fail "$(basename "$deb") holds a built module: $(grep '\.ko$' <<< "$list" | tr '\n' ' ')"
	fi
}
# librblk goes where GNUInstallDirs put it at configure time: lib/, or
# lib/<multiarch>/ when the build was configured for prefix /usr.
libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:[A-Z]*=//p' "$build/CMakeCache.txt")
has "$user" /usr/bin/rblkctl "/usr/$libdir/librblk.a" /usr/include/rblk/client.hpp \
	"/usr/$libdir/pkgconfig/rblk.pc" /lib/udev/rules.d/60-rblk.rules \
	/lib/systemd/system/rblk-autoconnect.service /usr/share/man/man8/rblkctl.8 \
	/usr/share/man/man8/rblkctl-connect.8 /usr/share/bash-completion/completions/rblkctl
# fio's engine, when the build made it (fio's source present).
if [ -e "$build/userlib/initiator/fio/librblk_fio.so" ]; then
	has "$user" "/usr/$libdir/rblk/librblk_fio.so"
fi
has "$dkms" "/usr/src/rblk-$version/dkms.conf" "/usr/src/rblk-$version/Kbuild" \
	"/usr/src/rblk-$version/core.c" "/usr/src/rblk-$version/uapi/rblk.h" \
	"/usr/src/rblk-$version/shared/scsi_xlate.c"

field() { dpkg-deb -f "$1" "$2"; }
# Stripped: the package carries no debug information.
dpkg-deb -x "$user" "$out/root"
file "$out/root/usr/bin/rblkctl" | grep -q ', stripped' || fail "rblkctl is not stripped: $(file "$out/root/usr/bin/rblkctl")"
[ "$(field "$user" Package)" = rblk ] || fail "rblk's Package field: $(field "$user" Package)"
for lib in libnl-3 libnl-genl-3 libnvme; do
	field "$user" Depends | grep -q "$lib" || fail "rblk does not depend on $lib: $(field "$user" Depends)"
done
[ "$(field "$dkms" Package)" = rblk-dkms ] || fail "rblk-dkms's Package field: $(field "$dkms" Package)"
field "$dkms" Depends | grep -qw dkms || fail "rblk-dkms does not depend on dkms"

ctl=$out/control
dpkg-deb -e "$dkms" "$ctl"
for s in postinst prerm; do
	[ -x "$ctl/$s" ] || fail "rblk-dkms has no executable $s"
	sh -n "$ctl/$s" || fail "rblk-dkms $s: syntax error"
	grep -q "dkms .*-v $version" "$ctl/$s" || fail "rblk-dkms $s does not name version $version"
done
echo "check-packages: rblk and rblk-dkms $version: ok"
