// SPDX-License-Identifier: GPL-2.0
/*
 * rblk: decisions taken from Identify data; see identify.h. Also builds in
 * userspace for the host unit tests.
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/nvme.h>
#include <linux/string.h>
#else
#include "rblk_nvme_shim.h"
#endif

#include "identify.h"

u32 rblk_mdts_sectors(u8 mdts, u8 mpsmin)
{
	u32 shift = (u32)mdts + 12 + (mpsmin & 0xf);

	/* 2^31 bytes and more: no limit worth the name. */
	if (!mdts || shift >= 31)
		return ~0U;
	return 1U << (shift - 9);
}

bool rblk_nsid_next_ok(u32 nsid, u32 prev, u32 nn)
{
	return nsid > prev && nsid != NVME_NSID_ALL && (!nn || nsid <= nn);
}

int rblk_parse_ns_descs(const u8 *buf, size_t len, struct rblk_ns_ids *ids)
{
	size_t pos = 0;
	int taken = 0;

	memset(ids, 0, sizeof(*ids));
	/* Each descriptor: type, length, 2 reserved bytes, then the id. */
	while (pos + 4 <= len) {
		u8 type = buf[pos], idlen = buf[pos + 1];
		const u8 *id = buf + pos + 4;

		if (!type || pos + 4 + idlen > len)
			break;
		if (type == NVME_NIDT_EUI64 && idlen == sizeof(ids->eui64)) {
			memcpy(ids->eui64, id, idlen);
			ids->has_eui64 = true;
			taken++;
		} else if (type == NVME_NIDT_NGUID &&
			   idlen == sizeof(ids->nguid)) {
			memcpy(ids->nguid, id, idlen);
			ids->has_nguid = true;
			taken++;
		} else if (type == NVME_NIDT_UUID && idlen == sizeof(ids->uuid)) {
			memcpy(ids->uuid, id, idlen);
			ids->has_uuid = true;
			taken++;
		}
		pos += 4 + idlen;
	}
	return taken;
}
