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
#include "../uapi/rblk.h"

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

static u32 rblk_le32(const u8 *p)
{
	return (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
}

static bool rblk_ana_state_known(u8 state)
{
	switch (state) {
	case RBLK_ANA_OPTIMIZED:
	case RBLK_ANA_NONOPTIMIZED:
	case RBLK_ANA_INACCESSIBLE:
	case RBLK_ANA_PERSISTENT_LOSS:
	case RBLK_ANA_CHANGE:
		return true;
	default:
		return false;
	}
}

u32 rblk_ana_desc_nsid(const struct rblk_ana_desc *d, u32 i)
{
	return rblk_le32(d->nsids + 4 * (size_t)i);
}

size_t rblk_ana_log_size(u32 anagrpmax, u32 nn)
{
	return RBLK_ANA_HDR_LEN + (size_t)anagrpmax * RBLK_ANA_DESC_LEN +
	       (size_t)nn * 4;
}

/* Descriptor at @off, or an error: the one place the log is bounded. */
static int rblk_ana_desc_at(const u8 *buf, size_t len, size_t off,
			    struct rblk_ana_desc *d, const char **why)
{
	if (off > len || len - off < RBLK_ANA_DESC_LEN) {
		*why = "group descriptor runs past the log";
		return -EINVAL;
	}
	d->grpid = rblk_le32(buf + off);
	d->nnsids = rblk_le32(buf + off + 4);
	d->state = buf[off + 16] & 0xf;
	d->nsids = buf + off + RBLK_ANA_DESC_LEN;
	if (d->nnsids > (len - off - RBLK_ANA_DESC_LEN) / 4) {
		*why = "namespace list runs past the log";
		return -EINVAL;
	}
	return 0;
}

int rblk_ana_log_parse(const u8 *buf, size_t len, u32 anagrpmax, u32 nn,
		       int (*fn)(void *priv, const struct rblk_ana_desc *d),
		       void *priv, const char **why)
{
	struct rblk_ana_desc d, e;
	size_t off, scan;
	u32 ngrps, g, i, nsid;
	int ret;

	if (len < RBLK_ANA_HDR_LEN) {
		*why = "log shorter than its header";
		return -EINVAL;
	}
	ngrps = (u32)buf[8] | (u32)buf[9] << 8;
	if (ngrps > anagrpmax) {
		*why = "more groups than ANAGRPMAX";
		return -EINVAL;
	}
	for (off = RBLK_ANA_HDR_LEN, g = 0; g < ngrps; g++) {
		ret = rblk_ana_desc_at(buf, len, off, &d, why);
		if (ret)
			return ret;
		if (!d.grpid || d.grpid > anagrpmax) {
			*why = "group id outside 1..ANAGRPMAX";
			return -EINVAL;
		}
		if (!rblk_ana_state_known(d.state)) {
			*why = "unknown ANA state";
			return -EINVAL;
		}
		for (i = 0; i < d.nnsids; i++) {
			nsid = rblk_ana_desc_nsid(&d, i);
			if (!nsid || nsid == 0xffffffffU || (nn && nsid > nn)) {
				*why = "namespace id outside 1..NN";
				return -EINVAL;
			}
		}
		/* The groups before it were bounded already; few (ANAGRPMAX). */
		for (scan = RBLK_ANA_HDR_LEN; scan < off;
		     scan += RBLK_ANA_DESC_LEN + 4 * (size_t)e.nnsids) {
			rblk_ana_desc_at(buf, len, scan, &e, why);
			if (e.grpid == d.grpid) {
				*why = "group listed twice";
				return -EINVAL;
			}
		}
		off += RBLK_ANA_DESC_LEN + 4 * (size_t)d.nnsids;
	}

	for (off = RBLK_ANA_HDR_LEN, g = 0; g < ngrps; g++) {
		rblk_ana_desc_at(buf, len, off, &d, why);
		if (fn(priv, &d))
			break;
		off += RBLK_ANA_DESC_LEN + 4 * (size_t)d.nnsids;
	}
	return ngrps;
}

void rblk_resv_log_parse(const u8 *buf, struct rblk_resv_log *log)
{
	log->count = (u64)rblk_le32(buf + 4) << 32 | rblk_le32(buf);
	log->type = buf[8];
	log->nr_avail = buf[9];
	log->nsid = rblk_le32(buf + 12);
}

const char *rblk_resv_notice_name(u8 type)
{
	switch (type) {
	case RBLK_RESV_NOTICE_REG_PREEMPTED:
		return "registration-preempted";
	case RBLK_RESV_NOTICE_RELEASED:
		return "reservation-released";
	case RBLK_RESV_NOTICE_PREEMPTED:
		return "reservation-preempted";
	default:
		return NULL;
	}
}

u64 rblk_resv_log_lost(u64 prev, u64 count)
{
	if (!prev || count <= prev)
		return 0;
	return count - prev - 1;
}
