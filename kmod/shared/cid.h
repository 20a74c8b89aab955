/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rblk: the NVMe command id of a request: its blk-mq tag and a generation
 * that every (re)submission bumps, so that a stale or replayed CQE names
 * no live command. Also used by the host unit tests.
 */
#ifndef _RBLK_CID_H
#define _RBLK_CID_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include "rblk_shim.h"
#endif

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

#endif /* _RBLK_CID_H */
