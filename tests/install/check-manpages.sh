#!/bin/bash
# check-manpages.sh DIR: each built page in DIR renders with man -l, with a
# NAME section and nothing on stderr; rblkctl(8) and rblkctl-connect(8)
# are among them.
set -euo pipefail
dir=$1
for f in rblkctl.8 rblkctl-connect.8; do
	[ -f "$dir/$f" ] || { echo "$dir/$f: not built" >&2; exit 1; }
done
for f in "$dir"/*.8; do
	err=$(MANWIDTH=80 man -l -P cat "$f" 2>&1 > /dev/null)
	[ -z "$err" ] || { echo "$f: $err" >&2; exit 1; }
	MANWIDTH=80 man -l -P cat "$f" | grep -q '^NAME' || { echo "$f: no NAME section" >&2; exit 1; }
done
echo "$(find "$dir" -name '*.8' | wc -l) pages render"
