#!/usr/bin/env bash
# What `cmake --install` puts where, staged under a DESTDIR with prefix
# /usr as a package build does: rblkctl, its bash and zsh completion, the udev
# rules and the boot unit (which systemd-analyze verifies), librblk with
# its headers and rblk.pc (a program builds and links against the staged
# tree through pkg-config alone), rblk.ko in each kernel's updates/ with no
# depmod run on the staging tree, and the DKMS source tree. With --dkms
# KREL, DKMS then builds the module for KREL from that tree (its own trees
# under the staging dir; of the host's DKMS state only the signing key it
# makes once, /var/lib/dkms/mok.key, is touched).
# Usage: check-install.sh BUILD_DIR [--dkms KREL] KREL...
set -euo pipefail

build=$(realpath "$1")
shift
dkms_krel=""
if [ "${1:-}" = --dkms ]; then
	dkms_krel=$2
	shift 2
fi
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
[ -n "$version" ] || { echo "check-install: no project version in $build/CMakeCache.txt" >&2; exit 1; }

dest=$(mktemp -d /var/tmp/rblk-install.XXXXXX)
trap 'rm -rf -- "$dest"' EXIT
fail() { echo "check-install: FAIL: $*" >&2; exit 1; }

DESTDIR=$dest cmake --install "$build" --prefix /usr > "$dest.log" 2>&1 ||
	{ cat "$dest.log" >&2; rm -f "$dest.log"; fail "cmake --install failed"; }
rm -f "$dest.log"

# GNUInstallDirs' choice at configure time (lib, or lib/<multiarch> when
# configured for /usr).
libdir=usr/$(sed -n 's/^CMAKE_INSTALL_LIBDIR:PATH=//p' "$build/CMakeCache.txt")
src=usr/src/rblk-$version
want=(
	usr/bin/rblkctl
	usr/share/bash-completion/completions/rblkctl
	usr/share/zsh/vendor-completions/_rblkctl
	"$libdir/librblk.a" "$libdir/pkgconfig/rblk.pc"
	usr/include/rblk/client.hpp usr/include/rblk/uapi/rblk.h
	lib/udev/rules.d/60-rblk.rules lib/systemd/system/rblk-autoconnect.service
	lib/systemd/system/rblk-ublk@.service
	"$src/dkms.conf" "$src/Kbuild" "$src/main.c" "$src/uapi/rblk.h" "$src/shared/cid.h"
)
for k in "$@"; do
	want+=("lib/modules/$k/updates/rblk.ko")
done
for f in "${want[@]}"; do
	[ -f "$dest/$f" ] || fail "$f is not installed ($(cd "$dest" && find . -type f | sort | head -40 | tr '\n' ' '))"
done
for k in "$@"; do
	# A staged install leaves the index to the system it lands on.
	[ ! -e "$dest/lib/modules/$k/modules.dep" ] || fail "depmod ran on the staging tree for $k"
done
# Every source file Kbuild names is in the DKMS tree (shared/ too); the
# host's kernel shim is not.
for o in $(sed -n 's/^rblk-y := //p; s/^\t *//p' "$dest/$src/Kbuild" | grep -o '[a-z_/]*\.o'); do
	[ -f "$dest/$src/${o%.o}.c" ] || fail "${o%.o}.c is missing from the DKMS tree"
done
[ ! -e "$dest/$src/shared/shim" ] || fail "the DKMS tree holds the host's kernel shim (shared/shim)"
grep -qx "PACKAGE_VERSION=\"$version\"" "$dest/$src/dkms.conf" || fail "dkms.conf does not say version $version"

# The boot unit runs the installed rblkctl, and systemd takes it as it is
# (a copy pointing at the staged binary: verify wants it to exist).
unit=$dest/lib/systemd/system/rblk-autoconnect.service
grep -qx 'ExecStart=/usr/bin/rblkctl apply' "$unit" || fail "the unit does not run /usr/bin/rblkctl apply"
grep -qx 'ExecStop=/usr/bin/rblkctl disconnect --all' "$unit" || fail "the unit does not disconnect at stop"
grep -qx 'ExecStart=/usr/bin/rblkctl ublk-server $RBLK_UBLK_ARGS' "$dest/lib/systemd/system/rblk-ublk@.service" ||
	fail "the ublk server's unit does not run /usr/bin/rblkctl ublk-server"
mkdir "$dest/unit"
sed "s|/usr/bin/rblkctl|$dest/usr/bin/rblkctl|" "$unit" > "$dest/unit/rblk-autoconnect.service"
out=$(systemd-analyze verify "$dest/unit/rblk-autoconnect.service" 2>&1) ||
	fail "systemd-analyze verify: $out"
[ -z "$out" ] || fail "systemd-analyze verify complains: $out"

# A program of our users', built against the staged tree only.
cat > "$dest/consumer.cpp" <<'CPP'
#include <rblk/connect_options.hpp>
#include <cstdio>
int main()
{
	auto id = rblk::parse_uuid("d3b6a9a2-43a6-4a51-8f34-2f4f6a2b1f8e");
	if (!id)
		return 1;
	std::printf("%s %d\n", rblk::format_uuid(*id).c_str(), RBLK_HOSTID_LEN);
	return 0;
}
CPP
# rblk.pc finds its prefix from where it lies; what it requires (libnl,
# nlohmann_json) comes from the system's own .pc files.
flags=$(PKG_CONFIG_PATH="$dest/$libdir/pkgconfig" pkg-config --cflags --libs rblk) ||
	fail "pkg-config rblk failed"
# shellcheck disable=SC2086 # pkg-config's flags are words
g++ -std=c++20 -Wall -Werror -o "$dest/consumer" "$dest/consumer.cpp" $flags ||
	fail "a program does not build against the installed librblk (flags: $flags)"
out=$("$dest/consumer")
[ "$out" = "d3b6a9a2-43a6-4a51-8f34-2f4f6a2b1f8e 16" ] || fail "the consumer printed '$out'"
echo "check-install: staged install complete ($(find "$dest" -type f | wc -l) files)"

if [ -n "$dkms_krel" ]; then
	tree=$dest/dkms
	mkdir -p "$tree"
	if ! dkms build "rblk/$version" -k "$dkms_krel" --sourcetree "$dest/usr/src" \
		--dkmstree "$tree" > "$dest/dkms.log" 2>&1; then
		cat "$dest/dkms.log" >&2
		find "$tree" -name make.log -exec cat {} + >&2
		fail "dkms build rblk/$version -k $dkms_krel failed"
	fi
	ko=$(find "$tree/rblk/$version/$dkms_krel" -name 'rblk.ko*' | head -n 1)
	[ -n "$ko" ] || fail "dkms built no rblk.ko for $dkms_krel"
	modinfo -F vermagic "$ko" | grep -q "^$dkms_krel " || fail "$ko is not built for $dkms_krel"
	echo "check-install: dkms built $(basename "$ko") for $dkms_krel"
fi
