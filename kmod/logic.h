/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rblk: pure decisions of the controller core, free of kernel objects so
 * that they also build in userspace (against a tiny shim) for host unit
 * tests: the state machine's legal edges, command ids, limits derived
 * from Identify, and parsing of the target's namespace descriptor list.
 */
#ifndef _RBLK_LOGIC_H
#define _RBLK_LOGIC_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include "rblk_shim.h"
#endif

#include "uapi/rblk.h"

/* Command id = tag | generation << 12: catches stale or replayed CQEs. */
#define RBLK_CID_TAG_BITS	12
#define RBLK_CID_TAG_MASK	((1U << RBLK_CID_TAG_BITS) - 1)
#define RBLK_CID_GEN_MASK	0xfU

static inline u16 rblk_cid(u16 tag, u8 gen)
{
	return (tag & RBLK_CID_TAG_MASK) |
	       (u16)((gen & RBLK_CID_GEN_MASK) << RBLK_CID_TAG_BITS);
}

static inline u16 rblk_cid_tag(u16 cid)
{
	return cid & RBLK_CID_TAG_MASK;
}

static inline u8 rblk_cid_gen(u16 cid)
{
	return cid >> RBLK_CID_TAG_BITS;
}

bool rblk_state_allowed(enum rblk_ctrl_state from, enum rblk_ctrl_state to);
const char *rblk_state_name(enum rblk_ctrl_state state);

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

#endif /* _RBLK_LOGIC_H */
