#!/usr/bin/env bash
# Build (once per kernel release and init-script version) the test VM's
# initramfs: busybox-static, the virtio/9p/overlay modules with their
# dependencies, and the two init stages. Prints the path of the cached
# .cpio.gz. Usage: mkinitramfs.sh KVER CACHE_DIR
set -euo pipefail

kver=$1
cache=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mods=(virtio_pci 9pnet_virtio 9p overlay)

busybox=$(command -v busybox || true)
[ -n "$busybox" ] || { echo "mkinitramfs: busybox not found (apt-get install busybox-static)" >&2; exit 1; }
case $(ldd "$busybox" 2>&1 || true) in
*"not a dynamic"*) ;;
*) echo "mkinitramfs: $busybox is not static (apt-get install busybox-static)" >&2; exit 1 ;;
esac

# The key covers everything that goes in, so edits rebuild it; also which
# modules are built in, which a rebuilt debug kernel (same release) changes.
key=$(cat "$here/init/stage1.sh" "$here/init/stage2.sh" "$0" "$busybox" \
	"/lib/modules/$kver/modules.builtin" | sha256sum | cut -c1-16)
image="$cache/initramfs-$kver-$key.cpio.gz"
if [ -s "$image" ]; then
	echo "$image"
	exit 0
fi

mkdir -p "$cache"
work=$(mktemp -d "$cache/.build.XXXXXX")
trap 'rm -rf "$work"' EXIT
root="$work/root"
mkdir -p "$root"/{bin,dev,proc,sys,lib/modules}
cp "$busybox" "$root/bin/busybox"
install -m 0755 "$here/init/stage1.sh" "$root/init"
install -m 0755 "$here/init/stage2.sh" "$root/stage2.sh"

# modprobe prints "insmod PATH [params]" in load order; "builtin" lines are
# skipped. Modules may be compressed (.ko.xz/.ko.zst/.ko.gz): decompress,
# since busybox insmod cannot.
: > "$root/modules.list"
for mod in "${mods[@]}"; do
	while read -r verb path _; do
		[ "$verb" = insmod ] || continue
		name=$(basename "$path")
		name=${name%.xz}; name=${name%.zst}; name=${name%.gz}
		grep -qxF "$name" "$root/modules.list" && continue
		case $path in
		*.xz) xz -dc "$path" > "$root/lib/modules/$name" ;;
		*.zst) zstd -qdc "$path" > "$root/lib/modules/$name" ;;
		*.gz) gzip -dc "$path" > "$root/lib/modules/$name" ;;
		*) cp "$path" "$root/lib/modules/$name" ;;
		esac
		echo "$name" >> "$root/modules.list"
	done < <(modprobe -S "$kver" --show-depends "$mod")
done

(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 > "$work/image"
mv -f "$work/image" "$image"
echo "$image"
