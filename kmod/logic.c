// SPDX-License-Identifier: GPL-2.0
/*
 * rblk: pure decisions of the controller core; see logic.h. No kernel
 * objects here: this file also builds in userspace for unit tests.
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/string.h>
#endif

#include "logic.h"

/* NVMe Namespace Identifier Types (NVMe base spec, CNS 03h). */
#define RBLK_NIDT_EUI64		0x01
#define RBLK_NIDT_NGUID		0x02
#define RBLK_NIDT_UUID		0x03
#define RBLK_NSID_ALL		0xffffffffU

static const char * const rblk_state_names[] = {
	[RBLK_CTRL_NEW]		= "new",
	[RBLK_CTRL_CONNECTING]	= "connecting",
	[RBLK_CTRL_LIVE]	= "live",
	[RBLK_CTRL_RESETTING]	= "resetting",
	[RBLK_CTRL_DELETING]	= "deleting",
	[RBLK_CTRL_DEAD]	= "dead",
};

const char *rblk_state_name(enum rblk_ctrl_state state)
{
	if ((unsigned int)state >= ARRAY_SIZE(rblk_state_names))
		return "unknown";
	return rblk_state_names[state];
}

/* The legal edges; everything else is refused. */
bool rblk_state_allowed(enum rblk_ctrl_state from, enum rblk_ctrl_state to)
{
	switch (to) {
	case RBLK_CTRL_CONNECTING:
		return from == RBLK_CTRL_NEW || from == RBLK_CTRL_RESETTING;
	case RBLK_CTRL_LIVE:
		return from == RBLK_CTRL_CONNECTING;
	case RBLK_CTRL_RESETTING:
		return from == RBLK_CTRL_LIVE;
	case RBLK_CTRL_DELETING:
		return from == RBLK_CTRL_NEW || from == RBLK_CTRL_CONNECTING ||
		       from == RBLK_CTRL_LIVE || from == RBLK_CTRL_RESETTING;
	case RBLK_CTRL_DEAD:
		return from == RBLK_CTRL_DELETING;
	default:
		return false;
	}
}

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
	return nsid > prev && nsid != RBLK_NSID_ALL && (!nn || nsid <= nn);
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
		if (type == RBLK_NIDT_EUI64 && idlen == sizeof(ids->eui64)) {
			memcpy(ids->eui64, id, idlen);
			ids->has_eui64 = true;
			taken++;
		} else if (type == RBLK_NIDT_NGUID &&
			   idlen == sizeof(ids->nguid)) {
			memcpy(ids->nguid, id, idlen);
			ids->has_nguid = true;
			taken++;
		} else if (type == RBLK_NIDT_UUID && idlen == sizeof(ids->uuid)) {
			memcpy(ids->uuid, id, idlen);
			ids->has_uuid = true;
			taken++;
		}
		pos += 4 + idlen;
	}
	return taken;
}
