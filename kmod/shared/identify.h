/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rblk: decisions taken from Identify data (core.c, ns.c): the transfer
 * limit MDTS allows, which namespace ids an active list may hold, and the
 * Namespace Identification Descriptor list, and the Asymmetric Namespace
 * Access log (multipath.c), and a Reservation Notification log page
 * (aen.c). Free of kernel objects so
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

/* The ANA log page (LID 0Ch): a 16-byte header, then group descriptors. */
#define RBLK_ANA_HDR_LEN	16
#define RBLK_ANA_DESC_LEN	32

/* One ANA group descriptor; nsids points into the log, little-endian. */
struct rblk_ana_desc {
	u32		grpid;
	u32		nnsids;
	u8		state;		/* enum rblk_ana_state */
	const u8	*nsids;
};

/*
 * The whole log of @len bytes is checked before anything is taken from
 * it: every descriptor inside the buffer, a group id in 1..@anagrpmax
 * listed once, a known state, namespace ids in 1..@nn (@nn 0: any but
 * FFFFFFFFh). Then @fn is called per descriptor, in order, until it
 * returns non-zero. Returns the number of groups, or -EINVAL with @why
 * saying what was wrong (static text).
 */
int rblk_ana_log_parse(const u8 *buf, size_t len, u32 anagrpmax, u32 nn,
		       int (*fn)(void *priv, const struct rblk_ana_desc *d),
		       void *priv, const char **why);
/* The @i-th namespace id of @d. */
u32 rblk_ana_desc_nsid(const struct rblk_ana_desc *d, u32 i);
/* The log's size for @anagrpmax groups and @nn namespaces at most. */
size_t rblk_ana_log_size(u32 anagrpmax, u32 nn);

/*
 * The Reservation Notification log page (LID 80h): one notice a page;
 * each read with RAE clear consumes the oldest.
 */
#define RBLK_RESV_LOG_LEN	64

struct rblk_resv_log {
	u64	count;		/* Log Page Count: +1 a notice, gaps were lost */
	u8	type;		/* 0: empty; enum rblk_resv_notice, or unknown */
	u8	nr_avail;	/* pages after this one (saturates at 255) */
	u32	nsid;
};

/* Decodes RBLK_RESV_LOG_LEN bytes of the page; every field as sent. */
void rblk_resv_log_parse(const u8 *buf, struct rblk_resv_log *log);
/* The uevent's spelling of a notice type; NULL for empty and unknown. */
const char *rblk_resv_notice_name(u8 type);
/*
 * Notices lost between the page of count @prev and one of count @count
 * (the controller drops the oldest when its log is full): 0 when @prev is
 * 0 (nothing read yet on this association) or @count does not follow it
 * (a count that wrapped, or a new controller), which tells nothing.
 */
u64 rblk_resv_log_lost(u64 prev, u64 count);

#endif /* _RBLK_IDENTIFY_H */
