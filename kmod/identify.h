/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rblk: decisions taken from Identify data (core.c, ns.c): the transfer
 * limit MDTS allows, which namespace ids an active list may hold, and the
 * Namespace Identification Descriptor list. Free of kernel objects so
 * that the host unit tests cover them.
 */
#ifndef _RBLK_IDENTIFY_H
#define _RBLK_IDENTIFY_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include "rblk_shim.h"
#endif

/*
 * Largest transfer in 512-byte sectors that MDTS allows (in units of the
 * controller's minimum page, 2^(12 + mpsmin)); U32_MAX when unlimited.
 */
u32 rblk_mdts_sectors(u8 mdts, u8 mpsmin);

/* Is @nsid acceptable after @prev in an active list of a @nn controller? */
bool rblk_nsid_next_ok(u32 nsid, u32 prev, u32 nn);

/* Identifiers from the Namespace Identification Descriptor list. */
struct rblk_ns_ids {
	u8	eui64[8];
	u8	nguid[16];
	u8	uuid[16];
	bool	has_eui64;
	bool	has_nguid;
	bool	has_uuid;
};

/*
 * Parses @len bytes of CNS 03h data, stopping at the first zero type or
 * at anything that would run past the buffer. Descriptors whose length
 * does not match their type are skipped. Returns the descriptors taken.
 */
int rblk_parse_ns_descs(const u8 *buf, size_t len, struct rblk_ns_ids *ids);

#endif /* _RBLK_IDENTIFY_H */
