#!/usr/bin/env bash
# checkpatch.pl --strict on the module's sources, with the checkpatch of
# Debian's linux-source-6.1 (extracted once into a cache: just the script
# and the two data files it reads from its own directory).
# Usage: ci/checkpatch.sh [FILE...]
#   (default: kmod/*.[ch], kmod/shared/*.[ch], kmod/uapi/*.h; not kmod/shared/shim/,
#   userspace C that stands in for the kernel's headers)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
tarball=${RBLK_LINUX_SOURCE:-/usr/src/linux-source-6.1.tar.xz}
[ -r "$tarball" ] || { echo "checkpatch: $tarball missing (apt-get install linux-source-6.1)" >&2; exit 1; }

key=$(stat -c '%s-%Y' "$tarball")
dir=${RBLK_CACHE_DIR:-/var/tmp/rblk-cache}/checkpatch-$key
if [ ! -x "$dir/checkpatch.pl" ]; then
	mkdir -p "$(dirname "$dir")"
	tmp=$(mktemp -d "$dir.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	top=$(basename "$tarball" .tar.xz)
	tar -xJf "$tarball" -C "$tmp" --strip-components=2 \
		"$top/scripts/checkpatch.pl" "$top/scripts/spelling.txt" \
		"$top/scripts/const_structs.checkpatch"
	# Another run may have won the race; either copy is good.
	mv -T "$tmp" "$dir" 2> /dev/null || true
fi

if [ $# -eq 0 ]; then
	shopt -s nullglob
	set -- kmod/*.c kmod/*.h kmod/shared/*.c kmod/shared/*.h kmod/uapi/*.h
fi
[ $# -gt 0 ] || { echo "checkpatch: no files to check" >&2; exit 1; }
"$dir/checkpatch.pl" --strict --no-tree --terse --show-types -f "$@"
