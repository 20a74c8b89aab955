#!/bin/bash
# SG_IO on live rblk disks, driven by sg3_utils as on an sd disk: TEST UNIT
# READY; standard INQUIRY and every VPD page (identity checked against
# nvmet's configfs and /sys/block/*/wwid, limits against the block queue);
# READ CAPACITY(10/16) against blockdev; sg_dd over SG_IO with 10- and
# 16-byte CDBs compared byte for byte with O_DIRECT I/O; SYNCHRONIZE CACHE;
# UNMAP reading back zeros; MODE SENSE; REPORT LUNS; CHECK CONDITION sense
# for an unknown opcode, LBAs past the end, an oversized transfer and an
# unsupported VPD page; a read-only opener without CAP_SYS_RAWIO may READ
# but not WRITE. Namespace 2 has an NGUID, so the NGUID forms of VPD 0x80
# and 0x83 are checked too; the identity survives a reconnect.
# A busy host stretches it to ~440 s (measured): the budget allows that.
# vm-timeout: 900
# vm-mem: 1024
set -euo pipefail
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
vm_require "$RBLKCTL"

nqn=nqn.2024-01.io.rblk:scsi
size_mib=64
nguid=00112233-4455-6677-8899-aabbccddeeff
sub=$VM_NVMET/subsystems/$nqn
tmp=$(mktemp -d)
# The unprivileged opener below reads its WRITE data from here.
chmod 0755 "$tmp"

vm_rdma_target "$nqn" "$size_mib" > /dev/null
# nvmet gives each namespace a random UUID but no NGUID unless told.
disk2=$(vm_membacked_disk 1 8 512 1)
mkdir "$sub/namespaces/2"
echo "$disk2" > "$sub/namespaces/2/device_path"
echo "$nguid" > "$sub/namespaces/2/device_nguid"
echo 1 > "$sub/namespaces/2/enable"
vm_rblk_load
vm_rblk_connect "$nqn" > /dev/null
vm_wait_for 10 test -b /dev/rblk0n1 -a -b /dev/rblk0n2
dev=/dev/rblk0n1 dev2=/dev/rblk0n2 q=/sys/block/rblk0n1/queue

# --- helpers ------------------------------------------------------------------

# The helpers stay in bash where they can: each process costs 100-300 ms
# under TCG, and this case calls them hundreds of times.
# load FILE: its bytes into B (decimal), for be/hexat; ${#B[@]} is its size.
load() { read -r -d '' -a B < <(od -An -v -tu1 "$1") || true; }
# be OFF LEN: the big-endian number in B[OFF..OFF+LEN-1].
be() {
	local v=0 i
	for ((i = $1; i < $1 + $2; i++)); do v=$((v * 256 + B[i])); done
	echo "$v"
}
# hexat OFF LEN: those bytes as "xx xx ...".
hexat() {
	local i x h=()
	for ((i = $1; i < $1 + $2; i++)); do
		printf -v x %02x "${B[i]}"
		h+=("$x")
	done
	echo "${h[*]}"
}
# hexof STRING: its bytes as "xx xx ..."; hexnum N LEN: N as LEN bytes, BE.
hexof() {
	local i x h=() LC_ALL=C
	for ((i = 0; i < ${#1}; i++)); do
		printf -v x %02x "'${1:i:1}"
		h+=("$x")
	done
	echo "${h[*]}"
}
hexnum() {
	local n i h=()
	printf -v n "%0$(($2 * 2))x" "$1"
	for ((i = 0; i < ${#n}; i += 2)); do h+=("${n:i:2}"); done
	echo "${h[*]}"
}

# run_ok WHAT CMD...: CMD must exit 0; its stdout+stderr in $out.
run_ok() {
	local what=$1 rc=0
	shift
	out=$("$@" 2>&1) || rc=$?
	[ "$rc" -eq 0 ] || vm_fail "$what: $* exited $rc: $out$(major_hint "$dev" "$out")"
}

# raw_to FILE WHAT CMD...: CMD (a binary answer on stdout) into FILE; it
# must exit 0.
raw_to() {
	local f=$1 what=$2 rc=0
	shift 2
	"$@" > "$f" 2> "$tmp/stderr" || rc=$?
	[ "$rc" -eq 0 ] || vm_fail "$what: $* exited $rc: $(cat "$tmp/stderr")$(major_hint "$dev" "$(cat "$tmp/stderr")")"
	load "$f"
}

# A disk on BLOCK_EXT_MAJOR (259) is taken by sg3_utils (lib/sg_pt_linux.c,
# check_file_type) for an NVMe namespace: it asks NVME_IOCTL_ID and gives
# up on the answer ENOTTY before any SG_IO. major_hint DEV OUTPUT says so
# when that is why a tool failed.
major_hint() {
	[[ $2 =~ "Inappropriate ioctl for device"|"unable to construct pt object" ]] || return 0
	[ "$(cut -d: -f1 "/sys/class/block/$(basename "$1")/dev")" = 259 ] || return 0
	echo " [$1 is on major 259 (BLOCK_EXT_MAJOR), which sg3_utils takes for an NVMe namespace; an sd-like disk needs a block major of its own]"
}

# vpd DEV PAGE FILE: the VPD page, raw, with its header checked.
vpd() {
	raw_to "$3" "VPD page $2 of $1" sg_inq -p "$2" -r "$1"
	vm_assert_eq "$(printf %02x "$2")" "$(hexat 1 1)" "page code in VPD page $2"
	vm_assert_eq $((4 + $(be 2 2))) "${#B[@]}" "VPD page $2: length field vs bytes returned"
}

# sg_check RC KEY ASC SKS DEV CDB: sg_raw sends CDB ("xx xx ...") and gets CHECK
# CONDITION with fixed-format sense of KEY/ASC (ASCQ 0), the sense-key
# specific bytes 15-17 equal to SKS unless SKS is "" (all hex); RC is the
# sg3_utils category exit code (9 invalid opcode, 22 LBA out of range,
# 5 other ILLEGAL REQUEST).
# With SG_CHECK_OUT=FILE, FILE is the data-out instead of 4 KiB data-in.
sg_check() {
	local rc_want=$1 key=$2 asc=$3 sks=$4 dev=$5 rc=0 s cdb io=(-r 4096)
	read -r -a cdb <<< "$6"
	[ -z "${SG_CHECK_OUT:-}" ] || io=(-s "$(stat -c %s "$SG_CHECK_OUT")" -i "$SG_CHECK_OUT")
	out=$(sg_raw -vv "${io[@]}" "$dev" "${cdb[@]}" 2>&1) || rc=$?
	vm_assert_eq "$rc_want" "$rc" "sg_raw exit code of $6 ($out)"
	vm_assert_contains "$out" "SCSI Status: Check Condition" "sg_raw $6"
	# The hex lines after "Raw sense data", up to the blank line.
	s=$(sed -n '/Raw sense data/,/^$/{/Raw sense data/d;p}' <<< "$out" | tr -s ' \n' '  ')
	read -r -a S <<< "$s"
	[ "${#S[@]}" -ge 18 ] || vm_fail "sg_raw $6: no 18-byte sense in: $out"
	vm_assert_eq "70 $key" "${S[0]} ${S[2]}" "sense response code (fixed, current) and key of $6"
	vm_assert_eq "$asc 00" "${S[12]} ${S[13]}" "ASC and ASCQ of $6"
	[ -z "$sks" ] || vm_assert_eq "$sks" "${S[15]} ${S[16]} ${S[17]}" "sense-key specific bytes of $6"
}

# cdb16 OPCODE LBA BLOCKS / cdb10 ...: the hex bytes of a READ/WRITE CDB.
cdb16() { echo "$1 00 $(hexnum "$2" 8) $(hexnum "$3" 4) 00 00"; }
cdb10() { echo "$1 00 $(hexnum "$2" 4) 00 $(hexnum "$3" 2) 00"; }

# zeros N: N blocks of zeros; region DEV LBA N FILE: read O_DIRECT, in
# I/Os of up to 1 MiB (one a block took 13 s for 2048 blocks under TCG).
zeros() { head -c $(($1 * lbs)) /dev/zero; }
region() {
	dd if="$1" of="$4" bs=1M skip=$(($2 * lbs)) count=$(($3 * lbs)) \
		iflag=direct,skip_bytes,count_bytes status=none ||
		vm_fail "dd read of $1 at LBA $2 failed"
}
# no_disks: no /dev/rblk* left (evaluated on each try of vm_wait_for).
no_disks() { [ -z "$(vm_rblk_disks)" ]; }
# same WHAT EXPECTED ACTUAL: files byte for byte.
same() { cmp -- "$2" "$3" > /dev/null || vm_fail "$1: $(cmp -- "$2" "$3" 2>&1 | head -n 1)"; }

# --- TEST UNIT READY ------------------------------------------------------------
vm_log "TEST UNIT READY"
rc=0
out=$(sg_turs "$dev" 2>&1) || rc=$?
[ "$rc" -eq 0 ] || vm_fail "sg_turs $dev exited $rc: $out$(major_hint "$dev" "$out")"
vm_assert_eq "" "$out" "sg_turs output"

# --- standard INQUIRY -----------------------------------------------------------
lbs=$(blockdev --getss "$dev")
size=$(blockdev --getsize64 "$dev")
vm_assert_eq $((size_mib << 20)) "$size" "size of $dev"
model=$(cat "$sub/attr_model")
serial=$(cat "$sub/attr_serial")
# nvmet reports the first 8 characters of its kernel release as FR (6.1 has
# no attr_firmware yet); the target runs the VM's kernel.
if [ -r "$sub/attr_firmware" ]; then fr=$(cat "$sub/attr_firmware"); else fr=$(uname -r | cut -c1-8); fi
fr=${fr%"${fr##*[! ]}"}
raw_to "$tmp/std" "standard INQUIRY" sg_inq -r "$dev"
vm_assert_eq 36 "$(stat -c %s "$tmp/std")" "standard INQUIRY length"
vm_assert_eq "00 00 06" "$(hexat 0 3)" "PQ/PDT (disk), RMB, VERSION (SPC-4)"
vm_assert_eq 2 $((B[3] & 0x0f)) "response data format"
vm_assert_eq 31 "${B[4]}" "additional length"
vm_assert_eq 2 $((B[7] & 0x02)) "CMDQUE"
vm_assert_eq "$(hexof "NVMe    ")" "$(hexat 8 8)" "vendor identification"
vm_assert_eq "$(hexof "$(printf '%-16.16s' "$model")")" "$(hexat 16 16)" "product identification (model '$model')"
vm_assert_eq "$(hexof "${fr: -4}")" "$(hexat 32 4)" "product revision (last 4 of FR '$fr')"

# --- VPD pages ------------------------------------------------------------------
vm_log "VPD pages"
vpd "$dev" 0 "$tmp/vpd00"
vm_assert_eq "00 00 00 06 00 80 83 b0 b1 b2" "$(hexat 0 10)" "supported VPD pages"
# Each page it lists answers; one it does not list is an invalid CDB field
# (byte 2, no bit pointer: SKSV|C/D, field pointer 2).
for p in 0x80 0x83 0xb0 0xb1 0xb2; do vpd "$dev" "$p" "$tmp/p"; done
sg_check 5 05 24 "c0 00 02" "$dev" "12 01 89 00 ff 00"

# 0x80 and 0x83, on both namespaces. Unit serial number, as scsi_xlate.c
# defines it: the NGUID in hex, '_' every 4 digits, closing '.'; without
# one, SN (20 characters) '_' NSID in 8 hex digits.
check_identity() {
	local d=$1 nsid=$2 ns_nguid=$3 uuid sn name pad off want got
	uuid=$(cat "$sub/namespaces/$nsid/device_uuid")
	if [ "${ns_nguid//[-0]/}" ]; then
		sn=$(echo "${ns_nguid//-/}" | tr a-f A-F | sed 's/..../&_/g; s/_$/./')
	else
		sn=$(printf '%-20s_%08x' "$serial" "$nsid")
	fi
	vpd "$d" 0x80 "$tmp/sn$nsid"
	vm_assert_eq "$sn" "$(dd if="$tmp/sn$nsid" bs=1 skip=4 status=none)" "unit serial number of $d"

	# The wwid is the NVMe uuid (nvme's order: uuid, NGUID, EUI-64).
	name=uuid.$uuid
	vm_assert_eq "$name" "$(cat "/sys/block/$(basename "$d")/wwid")" "wwid of $d"
	# Designators, all LU-associated: NGUID (EUI-64 based, binary),
	# UUID (type 0xa: 0x10 = locally assigned RFC 4122, reserved byte),
	# the wwid as SCSI name string (UTF-8, NUL terminated, padded to 4).
	pad=$((4 - ${#name} % 4))
	want=("0a 01 12 10 00 $(echo "${uuid//-/}" | sed 's/../& /g; s/ $//')")
	want+=("08 03 $(hexnum $((${#name} + pad)) 1) $(hexof "$name") $(hexnum 0 "$pad")")
	[ -z "${ns_nguid//[-0]/}" ] ||
		want+=("02 01 10 $(echo "${ns_nguid//-/}" | sed 's/../& /g; s/ $//')")
	vpd "$d" 0x83 "$tmp/id$nsid"
	load "$tmp/id$nsid"
	got=()
	for ((off = 4; off < ${#B[@]}; off += 4 + B[off + 3])); do
		vm_assert_eq 0 $((B[off] >> 4)) "protocol identifier of a designator of $d"
		vm_assert_eq 0 $((B[off + 1] & 0xb0)) "PIV and association (LU) of a designator of $d"
		got+=("$(printf %02x $((B[off + 1] & 0x0f))) $(printf %02x $((B[off] & 0x0f))) $(hexat $((off + 3)) $((1 + B[off + 3])))")
	done
	vm_assert_eq "$(printf '%s\n' "${want[@]}" | sort)" "$(printf '%s\n' "${got[@]}" | sort)" \
		"designators (type code_set length id) of $d"
}
check_identity "$dev" 1 "$(cat "$sub/namespaces/1/device_nguid")"
check_identity "$dev2" 2 "$nguid"
# sg_inq's own decoding of the standard data and the serial number.
run_ok "sg_inq" sg_inq "$dev"
for l in " Vendor identification: NVMe" " Product identification: $model" \
	" Product revision level: ${fr: -4}" " Unit serial number: $(dd if="$tmp/sn1" bs=1 skip=4 status=none)"; do
	printf '%s\n' "$out" | sed 's/ *$//' | grep -xF -- "$l" > /dev/null || vm_fail "sg_inq $dev does not show '$l': $out"
done

# 0xb0 block limits, against the queue limits the block layer uses.
vpd "$dev" 0xb0 "$tmp/b0"
vm_assert_eq 60 "$(be 2 2)" "block limits page length"
max=$(( $(cat "$q/max_hw_sectors_kb") * 1024 / lbs ))
max=$((max > 65536 ? 65536 : max))
vm_assert_eq "$max" "$(be 8 4)" "maximum transfer length (max_hw_sectors_kb)"
discard=$(cat "$q/discard_max_bytes")
wz=$(( $(cat "$q/write_zeroes_max_bytes") / lbs ))
if [ "$discard" -gt 0 ]; then
	vm_assert_eq 4294967295 "$(be 20 4)" "maximum unmap LBA count (unbounded)"
	vm_assert_eq "$(cat "$q/max_discard_segments")" "$(be 24 4)" "maximum unmap block descriptor count"
fi
vm_assert_eq $((wz > 65536 ? 65536 : wz)) "$(be 36 8)" "maximum write same length (write_zeroes_max_bytes)"

# 0xb1: non-rotating, as the queue says.
vpd "$dev" 0xb1 "$tmp/b1"
vm_assert_eq 60 "$(be 2 2)" "block device characteristics page length"
vm_assert_eq 0 "$(cat "$q/rotational")" "queue/rotational"
vm_assert_eq 1 "$(be 4 2)" "medium rotation rate (non-rotating)"

# 0xb2: nvmet sets DSM in ONCS for every namespace (and passes deallocate
# on as discard; the null_blk disk has discard on), so UNMAP is supported.
vpd "$dev" 0xb2 "$tmp/b2"
vm_assert_eq 4 "$(be 2 2)" "logical block provisioning page length"
[ "$discard" -gt 0 ] || vm_fail "discard_max_bytes is 0: nvmet's ONCS has DSM"
vm_assert_eq 1 $((B[5] >> 7)) "LBPU"
ws=$((wz > 0 ? 1 : 0))
vm_assert_eq "$ws $ws" "$(((B[5] >> 6) & 1)) $(((B[5] >> 5) & 1))" "LBPWS LBPWS10 (WRITE SAME UNMAP = Write Zeroes)"
lbprz=$(((B[5] >> 2) & 7))
ptype=$((B[6] & 7))
case $ptype in 1|2) ;; *) vm_fail "provisioning type $ptype: LBPU needs resource (1) or thin (2)" ;; esac

# --- READ CAPACITY ----------------------------------------------------------------
vm_log "READ CAPACITY"
raw_to "$tmp/rc10" "READ CAPACITY(10)" sg_readcap -r "$dev"
vm_assert_eq 8 "$(stat -c %s "$tmp/rc10")" "READ CAPACITY(10) length"
vm_assert_eq "$size" $(( ($(be 0 4) + 1) * $(be 4 4) )) "READ CAPACITY(10) size"
vm_assert_eq "$lbs" "$(be 4 4)" "READ CAPACITY(10) block length"
raw_to "$tmp/rc16" "READ CAPACITY(16)" sg_readcap --16 -r "$dev"
vm_assert_eq 32 "$(stat -c %s "$tmp/rc16")" "READ CAPACITY(16) length"
nr_lbas=$(( $(be 0 8) + 1 ))
vm_assert_eq "$size" $((nr_lbas * $(be 8 4))) "READ CAPACITY(16) size"
vm_assert_eq "$lbs" "$(be 8 4)" "READ CAPACITY(16) block length"
vm_assert_eq 0 "${B[12]}" "P_TYPE/PROT_EN (no protection information)"
vm_assert_eq "$(blockdev --getpbsz "$dev")" $((lbs << (B[13] & 0xf))) "physical block size (LBPPBE)"
vm_assert_eq 1 $((B[14] >> 7)) "LBPME (with LBPU)"
vm_assert_eq $((lbprz & 1)) $(((B[14] >> 6) & 1)) "LBPRZ of READ CAPACITY(16) vs VPD 0xb2"
raw_to "$tmp/rc16b" "READ CAPACITY(16) of $dev2" sg_readcap --16 -r "$dev2"
vm_assert_eq "$(blockdev --getsize64 "$dev2")" $(( ($(be 0 8) + 1) * $(be 8 4) )) "READ CAPACITY(16) size of $dev2"

# --- READ/WRITE through sg_dd (SG_IO) vs O_DIRECT ------------------------------------
vm_log "READ/WRITE: sg_dd vs O_DIRECT"
# 2048 blocks per region, 16 commands each (bpt 128); odd start LBAs; the
# last region ends at the last LBA. Blocks around each region stay zero.
n=2048
head -c $((n * lbs)) /dev/urandom > "$tmp/rand"
# sgdd WHAT ARGS...: sg_dd over SG_IO moving the n blocks.
sgdd() {
	local what=$1
	shift
	run_ok "$what" sg_dd blk_sgio=1 bs="$lbs" count="$n" "$@"
	vm_assert_contains "$out" "$n+0 records out" "$what: sg_dd summary"
}
for spec in "4097 10" "40001 16 oflag=fua" "$((nr_lbas - n)) 10"; do
	read -r lba cdb flag <<< "$spec"
	sgdd "write LBA $lba cdbsz=$cdb" if="$tmp/rand" of="$dev" seek="$lba" cdbsz="$cdb" ${flag:+"$flag"}
	for rd in 10 16; do
		sgdd "read LBA $lba cdbsz=$rd" if="$dev" of="$tmp/sg$rd" skip="$lba" cdbsz="$rd"
		same "SG_IO READ($rd) of LBA $lba vs the data written" "$tmp/rand" "$tmp/sg$rd"
	done
	region "$dev" "$lba" "$n" "$tmp/direct"
	same "O_DIRECT read of LBA $lba vs the SG_IO WRITE($cdb)" "$tmp/rand" "$tmp/direct"
	zeros 1 > "$tmp/z1"
	region "$dev" $((lba - 1)) 1 "$tmp/before"
	same "block before LBA $lba" "$tmp/z1" "$tmp/before"
	if [ $((lba + n)) -lt "$nr_lbas" ]; then
		region "$dev" $((lba + n)) 1 "$tmp/after"
		same "block after LBA $lba+$n" "$tmp/z1" "$tmp/after"
	fi
done
# The other way: O_DIRECT write, SG_IO READ(16).
head -c $((n * lbs)) /dev/urandom > "$tmp/rand2"
dd if="$tmp/rand2" of="$dev" bs=1M seek=$((70001 * lbs)) oflag=direct,seek_bytes conv=notrunc status=none ||
	vm_fail "O_DIRECT write at LBA 70001 failed"
sgdd "read LBA 70001 cdbsz=16" if="$dev" of="$tmp/sg16" skip=70001 cdbsz=16
same "SG_IO READ(16) of an O_DIRECT write" "$tmp/rand2" "$tmp/sg16"

# --- SYNCHRONIZE CACHE ----------------------------------------------------------------
vm_log "SYNCHRONIZE CACHE"
run_ok "SYNCHRONIZE CACHE(10)" sg_sync "$dev"
run_ok "SYNCHRONIZE CACHE(16)" sg_sync --16 "$dev"
rc=0
out=$(sg_sync --16 --lba="$nr_lbas" --count=1 "$dev" 2>&1) || rc=$?
vm_assert_eq 22 "$rc" "SYNCHRONIZE CACHE(16) past the end: LBA out of range ($out)"

# --- UNMAP: two descriptors inside the first region; the rest keeps its data ---------
vm_log "UNMAP"
run_ok "UNMAP" sg_unmap --force --lba=$((4097 + 8)),$((4097 + 1000)) --num=64,200 "$dev"
cp "$tmp/rand" "$tmp/expect"
dd if=/dev/zero of="$tmp/expect" bs="$lbs" seek=8 count=64 conv=notrunc status=none
dd if=/dev/zero of="$tmp/expect" bs="$lbs" seek=1000 count=200 conv=notrunc status=none
region "$dev" 4097 "$n" "$tmp/direct"
same "region after UNMAP (zeros where unmapped, data elsewhere)" "$tmp/expect" "$tmp/direct"

# --- MODE SENSE ---------------------------------------------------------------------
vm_log "MODE SENSE"
wce=0
[ "$(cat "$q/write_cache")" = "write back" ] && wce=1
ro=$(cat /sys/block/rblk0n1/ro)
# check_mode FILE HDR: header, the 8-byte block descriptor; sets pages to
# "code:offset ..." of the pages that follow.
check_mode() {
	local f=$1 hdr=$2 bdl off
	load "$f"
	if [ "$hdr" -eq 8 ]; then
		vm_assert_eq $((${#B[@]} - 2)) "$(be 0 2)" "MODE SENSE(10) mode data length"
		vm_assert_eq $((ro * 0x80 | 0x10)) "${B[3]}" "WP, DPOFUA"
		bdl=$(be 6 2)
	else
		vm_assert_eq $((${#B[@]} - 1)) "${B[0]}" "MODE SENSE(6) mode data length"
		vm_assert_eq $((ro * 0x80 | 0x10)) "${B[2]}" "WP, DPOFUA"
		bdl=${B[3]}
	fi
	vm_assert_eq 8 "$bdl" "block descriptor length"
	vm_assert_eq "$nr_lbas $lbs" "$(be "$hdr" 4) $(be $((hdr + 5)) 3)" "block descriptor: blocks, block length"
	pages=""
	for ((off = hdr + 8; off < ${#B[@]}; off += 2 + B[off + 1])); do
		pages+="$(printf %02x $((B[off] & 0x3f))):$off "
	done
}
for hdr in 8 4; do
	six=""
	[ "$hdr" -eq 8 ] || six=-6
	raw_to "$tmp/mode" "MODE SENSE caching ${six:-(10)}" sg_modes ${six:+"$six"} -r -p 8 "$dev"
	check_mode "$tmp/mode" "$hdr"
	off=${pages#08:}
	off=${off%% *}
	[ "$pages" = "08:$off " ] || vm_fail "MODE SENSE ${six:-(10)} page 8 returned pages '$pages'"
	vm_assert_eq 18 "${B[off + 1]}" "caching page length"
	vm_assert_eq "$wce" $(((B[off + 2] >> 2) & 1)) "WCE vs queue/write_cache"
done
raw_to "$tmp/mode" "MODE SENSE all pages" sg_modes -r -a "$dev"
check_mode "$tmp/mode" 8
[[ $pages =~ ^08:[0-9]+\ 0a:([0-9]+)\ $ ]] || vm_fail "MODE SENSE all pages: pages '$pages', want caching and control"
off=${BASH_REMATCH[1]}
vm_assert_eq 10 "${B[off + 1]}" "control page length"
# Sense came back fixed-format above: D_SENSE must say so.
vm_assert_eq 0 $(((B[off + 2] >> 2) & 1)) "control page D_SENSE"

# --- the write cache is the controller's ---------------------------------------------
# The caching page is one logical unit's; NVMe's Volatile Write Cache
# feature is the whole controller's (Set Features, nsid 0), and a new
# association starts from its default. An opener of rblk0n1 must not
# switch rblk0n2's cache under it (and leave rblk0n2's write_cache
# stale): WCE is not changeable, MODE SELECT changing it is refused
# (INVALID FIELD IN PARAMETER LIST at the caching page's byte 2), and
# neither namespace's queue/write_cache moves.
vm_log "MODE SELECT WCE"
wc_before="$(cat /sys/block/rblk0n1/queue/write_cache),$(cat /sys/block/rblk0n2/queue/write_cache)"
raw_to "$tmp/mode" "MODE SENSE caching, changeable values" sg_modes -r -c 1 -p 8 "$dev"
off=$((8 + $(be 6 2)))
vm_assert_eq "08 0" "$(printf %02x $((B[off] & 0x3f))) $(((B[off + 2] >> 2) & 1))" \
	"changeable caching page: WCE not changeable"
# MODE SELECT(6), PF: header, then the current caching page with WCE flipped.
printf -v page '\\x%02x' 0 0 0 0 8 18 $(((1 - wce) * 4)) 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
printf %b "$page" > "$tmp/select"
SG_CHECK_OUT=$tmp/select sg_check 5 05 26 "80 00 06" "$dev" "15 10 00 00 18 00"
vm_assert_eq "$wc_before" "$(cat /sys/block/rblk0n1/queue/write_cache),$(cat /sys/block/rblk0n2/queue/write_cache)" \
	"queue/write_cache of rblk0n1, rblk0n2 after MODE SELECT WCE=$((1 - wce)) on rblk0n1"

# --- REPORT LUNS ---------------------------------------------------------------------
vm_log "REPORT LUNS"
raw_to "$tmp/luns" "REPORT LUNS" sg_luns -r "$dev"
vm_assert_eq "00 00 00 08 00 00 00 00 00 00 00 00 00 00 00 00" "$(hexat 0 ${#B[@]})" "REPORT LUNS: LUN 0 only"
raw_to "$tmp/luns" "REPORT LUNS (well known)" sg_luns -r -s 1 "$dev"
vm_assert_eq "00 00 00 00 00 00 00 00" "$(hexat 0 ${#B[@]})" "REPORT LUNS, well known LUs: none"

# --- CHECK CONDITION ---------------------------------------------------------------------
vm_log "CHECK CONDITION"
# Unknown opcodes: vendor specific 0xc0, SEND DIAGNOSTIC (not translated).
sg_check 9 05 20 "" "$dev" "c0 00 00 00 00 00"
sg_check 9 05 20 "" "$dev" "1d 00 00 00 00 00"
# LBAs past the end: the first block after the last, and a range across it.
sg_check 22 05 21 "" "$dev" "$(cdb16 88 "$nr_lbas" 1)"
sg_check 22 05 21 "" "$dev" "$(cdb16 88 $((nr_lbas - 1)) 2)"
sg_check 22 05 21 "" "$dev" "$(cdb10 28 "$nr_lbas" 1)"
read -r -a cdb <<< "$(cdb16 88 $((nr_lbas - 1)) 1)"
run_ok "READ(16) of the last block" sg_raw -r "$lbs" -o "$tmp/last" "$dev" "${cdb[@]}"
vm_assert_eq "$lbs" "$(stat -c %s "$tmp/last")" "READ(16) of the last block: bytes"
# More than VPD 0xb0's maximum transfer length: INVALID FIELD IN CDB,
# pointing at the transfer length (byte 10); the maximum itself is fine.
read -r -a cdb <<< "$(cdb16 88 0 "$max")"
run_ok "READ(16) of the maximum transfer length" sg_raw -r $((max * lbs)) -o "$tmp/max" "$dev" "${cdb[@]}"
vm_assert_eq $((max * lbs)) "$(stat -c %s "$tmp/max")" "READ(16) of $max blocks: bytes"
sg_check 5 05 24 "c0 00 0a" "$dev" "$(cdb16 88 0 $((max + 1)))"

# --- rights: a read-only opener without CAP_SYS_RAWIO ------------------------------------
vm_log "SG_IO rights"
# SG_IO as sd allows it (scsi_cmd_allowed): READ for any opener, WRITE with
# write access, anything else only with CAP_SYS_RAWIO.
# sgio DEV O_RDONLY|O_RDWR READ|WRITE LBA: one READ(10)/WRITE(10) of one
# block (0xa5 bytes) through SG_IO; prints "GOOD" (READ: and the sha256 of
# the data), "CHECK <status> <host> <driver>" or the errno's name.
sgio_py='
import ctypes as c, errno, fcntl, hashlib, os, sys
class Hdr(c.Structure):
    _fields_ = [("interface_id", c.c_int), ("dxfer_direction", c.c_int),
                ("cmd_len", c.c_ubyte), ("mx_sb_len", c.c_ubyte),
                ("iovec_count", c.c_ushort), ("dxfer_len", c.c_uint),
                ("dxferp", c.c_void_p), ("cmdp", c.c_void_p), ("sbp", c.c_void_p),
                ("timeout", c.c_uint), ("flags", c.c_uint), ("pack_id", c.c_int),
                ("usr_ptr", c.c_void_p), ("status", c.c_ubyte),
                ("masked_status", c.c_ubyte), ("msg_status", c.c_ubyte),
                ("sb_len_wr", c.c_ubyte), ("host_status", c.c_ushort),
                ("driver_status", c.c_ushort), ("resid", c.c_int),
                ("duration", c.c_uint), ("info", c.c_uint)]
SG_IO, SG_DXFER_TO_DEV, SG_DXFER_FROM_DEV = 0x2285, -2, -3
dev, flags, op, lba, lbs = sys.argv[1:4] + [int(a) for a in sys.argv[4:6]]
fd = os.open(dev, getattr(os, flags))
data = c.create_string_buffer(b"\xa5" * lbs, lbs)
cdb = (c.c_ubyte * 10)(0x2a if op == "WRITE" else 0x28, 0, *lba.to_bytes(4, "big"), 0, 0, 1, 0)
sense = (c.c_ubyte * 32)()
h = Hdr(interface_id=ord("S"), cmd_len=10, mx_sb_len=32, dxfer_len=lbs,
        dxfer_direction=SG_DXFER_TO_DEV if op == "WRITE" else SG_DXFER_FROM_DEV,
        dxferp=c.addressof(data), cmdp=c.addressof(cdb), sbp=c.addressof(sense),
        timeout=20000)
try:
    fcntl.ioctl(fd, SG_IO, h)
except OSError as e:
    sys.exit(print(errno.errorcode[e.errno]))
if h.status or h.host_status or h.driver_status:
    sys.exit(print("CHECK %#x %#x %#x" % (h.status, h.host_status, h.driver_status)))
print("GOOD" + (" " + hashlib.sha256(data.raw).hexdigest() if op == "READ" else ""))
'
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all)
sgio() { python3 -c "$sgio_py" "$@" "$lbs"; }
sha() { vm_sum "$dev" $(($1 * lbs)) "$lbs"; }
vm_assert_eq $'Uid:\t65534\t65534\t65534\t65534\nCapEff:\t0000000000000000' \
	"$("${nobody[@]}" grep -E '^(Uid|CapEff):' /proc/self/status)" "uids and capabilities of the unprivileged opener"
head -c "$lbs" /dev/zero | tr '\0' '\245' > "$tmp/a5"
scratch=60000
chmod 0444 "$dev"
vm_assert_eq "GOOD $(sha 4097)" "$("${nobody[@]}" python3 -c "$sgio_py" "$dev" O_RDONLY READ 4097 "$lbs")" \
	"READ(10) by a read-only opener without CAP_SYS_RAWIO"
before=$(sha "$scratch")
vm_assert_eq EPERM "$("${nobody[@]}" python3 -c "$sgio_py" "$dev" O_RDONLY WRITE "$scratch" "$lbs")" \
	"WRITE(10) by a read-only opener without CAP_SYS_RAWIO"
vm_assert_eq "$before" "$(sha "$scratch")" "block $scratch after the refused WRITE(10)"
# The same through sg3_utils: sg_raw --readonly.
read -r -a cdb <<< "$(cdb10 2a "$scratch" 1)"
rc=0
out=$("${nobody[@]}" sg_raw -R -s "$lbs" -i "$tmp/a5" "$dev" "${cdb[@]}" 2>&1) || rc=$?
vm_assert_ne 0 "$rc" "exit code of sg_raw -R WRITE(10) without CAP_SYS_RAWIO"
vm_assert_contains "$out" "do_scsi_pt: Operation not permitted" "sg_raw -R WRITE(10) without CAP_SYS_RAWIO"
vm_assert_eq "$before" "$(sha "$scratch")" "block $scratch after sg_raw -R WRITE(10)"
read -r -a cdb <<< "$(cdb10 28 4097 1)"
out=$("${nobody[@]}" sg_raw -R -b -r "$lbs" "$dev" "${cdb[@]}" 2> "$tmp/stderr" | sha256sum | cut -d' ' -f1) ||
	vm_fail "sg_raw -R READ(10) without CAP_SYS_RAWIO failed: $(cat "$tmp/stderr")"
vm_assert_contains "$(cat "$tmp/stderr")" "SCSI Status: Good" "sg_raw -R READ(10) without CAP_SYS_RAWIO"
vm_assert_eq "$(sha 4097)" "$out" "data of sg_raw -R READ(10) without CAP_SYS_RAWIO"
# Controls: with CAP_SYS_RAWIO a read-only descriptor may write; without,
# write access suffices for WRITE(10) but not for a vendor opcode.
vm_assert_eq GOOD "$(sgio "$dev" O_RDONLY WRITE "$scratch")" "WRITE(10) by root through a read-only descriptor"
vm_assert_eq "$(sha256sum < "$tmp/a5" | cut -d' ' -f1)" "$(sha "$scratch")" "block $scratch after root's WRITE(10)"
dd if=/dev/zero of="$dev" bs="$lbs" seek="$scratch" count=1 oflag=direct conv=notrunc status=none
chmod 0666 "$dev"
vm_assert_eq GOOD "$("${nobody[@]}" python3 -c "$sgio_py" "$dev" O_RDWR WRITE "$scratch" "$lbs")" \
	"WRITE(10) by a read-write opener without CAP_SYS_RAWIO"
vm_assert_eq "$(sha256sum < "$tmp/a5" | cut -d' ' -f1)" "$(sha "$scratch")" "block $scratch after that WRITE(10)"
rc=0
out=$("${nobody[@]}" sg_raw "$dev" c0 00 00 00 00 00 2>&1) || rc=$?
vm_assert_ne 0 "$rc" "exit code of a vendor opcode by a read-write opener without CAP_SYS_RAWIO"
vm_assert_contains "$out" "do_scsi_pt: Operation not permitted" "vendor opcode by a read-write opener without CAP_SYS_RAWIO"
chmod 0600 "$dev"

# --- identity across a reconnect ------------------------------------------------------
vm_log "identity across a reconnect"
for nsid in 1 2; do
	cat "/sys/block/rblk0n$nsid/wwid" > "$tmp/wwid$nsid"
done
vm_assert_eq rblk0 "$("$RBLKCTL" disconnect rblk0)" "disconnect"
vm_wait_for 10 no_disks
vm_rblk_connect "$nqn" > /dev/null
vm_wait_for 10 test -b /dev/rblk0n1 -a -b /dev/rblk0n2
for nsid in 1 2; do
	d=/dev/rblk0n$nsid
	same "wwid of $d after a reconnect" "$tmp/wwid$nsid" "/sys/block/rblk0n$nsid/wwid"
	sg_inq -p 0x80 -r "$d" > "$tmp/p" || vm_fail "VPD 0x80 of $d after a reconnect"
	same "VPD 0x80 of $d after a reconnect" "$tmp/sn$nsid" "$tmp/p"
	sg_inq -p 0x83 -r "$d" > "$tmp/p" || vm_fail "VPD 0x83 of $d after a reconnect"
	same "VPD 0x83 of $d after a reconnect" "$tmp/id$nsid" "$tmp/p"
done
"$RBLKCTL" disconnect rblk0 > /dev/null || vm_fail "rblkctl disconnect rblk0 failed"
vm_wait_for 10 no_disks
vm_rblk_unload
vm_dmesg_clean
