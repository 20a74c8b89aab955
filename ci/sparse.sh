#!/usr/bin/env bash
# Build the module with W=1 C=2 (sparse on every file) in a scratch copy of
# kmod/ and fail on any warning or error line.
# Usage: ci/sparse.sh [SCRATCH_DIR] [KVER]
#   defaults: /var/tmp/rblk-sparse, the newest /lib/modules/*/build
set -euo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
scratch=${1:-/var/tmp/rblk-sparse}
kver=${2:-}
if [ -z "$kver" ]; then
	kver=$(printf '%s\n' /lib/modules/*/build | sort -V | tail -n 1 | cut -d/ -f4)
fi
kdir=/lib/modules/$kver/build
if [ ! -e "$kdir/Makefile" ]; then
	echo "sparse: no kernel headers at $kdir (apt-get install linux-headers-amd64)" >&2
	exit 1
fi
command -v sparse > /dev/null || { echo "sparse: not installed (apt-get install sparse)" >&2; exit 1; }

rm -rf "$scratch"
mkdir -p "$scratch"
cp -r "$src/kmod/." "$scratch/"
rm -f "$scratch/CMakeLists.txt"
# Objects left in the source tree would be "up to date": W=1 must compile all.
find "$scratch" \( -name '*.o' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' \
	-o -name '.*.cmd' -o -name modules.order -o -name Module.symvers \) -delete

log=$scratch/build.log
rc=0
make -C "$kdir" M="$scratch" W=1 C=2 -j2 modules > "$log" 2>&1 || rc=$?
cat "$log"
if [ "$rc" -ne 0 ]; then
	echo "sparse: the W=1 C=2 build failed (exit $rc)" >&2
	exit 1
fi
if grep -E -q '(warning|error):' "$log"; then
	echo "sparse: $(grep -E -c '(warning|error):' "$log") warning/error line(s) in the W=1 C=2 build" >&2
	exit 1
fi
echo "sparse: W=1 C=2 build clean"
