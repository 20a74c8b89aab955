#!/usr/bin/env bash
# Compute on the host what `depmod -a` would write inside the VM once KO is
# copied to /lib/modules/KVER/updates/. depmod reads all ~4000 modules, which
# takes 100 s or more over 9p under TCG, and about 1 s here; vm_rblk_load
# installs these files, and the copy of KO made here, instead when KO is
# unchanged.
# Usage: prep-depmod.sh KVER KO OUTDIR
set -euo pipefail

kver=$1 ko=$2 outdir=$3
moddir=/lib/modules/$kver
farm=$(mktemp -d "$outdir.farm.XXXXXX")
trap 'rm -rf "$farm"' EXIT
tree=$farm/lib/modules/$kver
mkdir -p "$tree/updates" "$outdir"

# A tree of links to the real modules, plus KO under updates/.
for entry in "$moddir"/*; do
	name=$(basename "$entry")
	case $name in
	build|source|updates|modules.dep*|modules.alias*|modules.symbols*|modules.softdep|modules.devname|modules.weakdep|modules.builtin.bin|modules.builtin.alias.bin) ;;
	*) ln -s "$entry" "$tree/$name" ;;
	esac
done
if [ -d "$moddir/updates" ]; then
	for entry in "$moddir"/updates/*; do
		[ -e "$entry" ] && [ "$(basename "$entry")" != "$(basename "$ko")" ] &&
			ln -s "$entry" "$tree/updates/"
	done
fi
cp "$ko" "$tree/updates/$(basename "$ko")"
depmod -b "$farm" "$kver"

find "$tree" -maxdepth 1 -type f -name 'modules.*' -exec cp {} "$outdir/" \;
# What the VM loads: without its debug information (8-9 MB of the 9 MB;
# copying that over 9p cost seconds a boot under TCG). The symbol table
# stays, so kallsyms and the instruction meter still name its functions;
# the host's copy keeps the rest for decoding an oops.
objcopy --strip-debug "$ko" "$outdir/$(basename "$ko")"
