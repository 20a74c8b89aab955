// SPDX-License-Identifier: GPL-2.0
/*
 * rblk: the block layer's persistent reservations (IOC_PR_* and in-kernel
 * users of struct pr_ops) as NVMe Reservation Register, Acquire, Release
 * and Report, on a namespace's disk and on a multipath head, which sends
 * them down one usable path as its ioctls go. Modelled on
 * drivers/nvme/host/pr.c; what a verb means in NVMe is decided in
 * shared/scsi_xlate.c (rblk_resv_*), which SG_IO's PERSISTENT RESERVE
 * shares, so both speak the same NVMe.
 *
 * Differences from nvme's: a key of 0 is an ordinary key (no IEKEY is
 * implied), unregistering is Unregister (not Replace with key 0),
 * PR_FL_IGNORE_KEY registers an unregistered host too (Register, then
 * Replace on its conflict), PTPL is asked for only where RESCAP offers it
 * (sd asks for APTPL; a target without PTPL refuses CPTPL 11b), and the
 * report is the extended one only: Fabrics hosts have 128-bit Host IDs.
 * Every count in a report is bounded by the bytes asked for.
 */
#include <linux/blkdev.h>
#include <linux/pr.h>
#include <linux/slab.h>

#include "compat.h"
#include "nvme.h"
#include "scsi_xlate.h"

/* A Reservation Report larger than this is not asked for. */
#define RBLK_PR_REPORT_MAX	SZ_64K

int rblk_ns_pr(struct rblk_ns *ns, const struct rblk_pr_op *op)
{
	struct nvme_command c = { };
	struct rblk_resv_cmd rc;
	u32 cdw10, cdw11;
	int ret;

	if (op->report) {
		rblk_resv_report_cmd(op->report_len, &cdw10, &cdw11);
		c.common.opcode = nvme_cmd_resv_report;
		c.common.cdw10 = cpu_to_le32(cdw10);
		c.common.cdw11 = cpu_to_le32(cdw11);
		return rblk_ns_submit_sync(ns, &c, op->report, op->report_len);
	}
	ret = rblk_resv_build(op->verb, op->key, op->sa_key, op->type,
			      ns->rescap & RBLK_RESCAP_PTPL ? RBLK_CPTPL_ON :
							      RBLK_CPTPL_KEEP,
			      &rc);
	if (ret)
		return ret < 0 ? ret : 0;
	c.common.opcode = rc.opcode;
	c.common.cdw10 = cpu_to_le32(rc.cdw10);
	ret = rblk_ns_submit_sync(ns, &c, rc.data, rc.data_len);
	if (ret > 0 && rc.retry_cdw10 &&
	    (ret & RBLK_SC_MASK) == NVME_SC_RESERVATION_CONFLICT) {
		c.common.cdw10 = cpu_to_le32(rc.retry_cdw10);
		ret = rblk_ns_submit_sync(ns, &c, rc.data, rc.data_len);
	}
	return ret;
}

/*
 * The shared helpers speak SCSI's type codes (SG_IO's own); the block
 * layer's enum pr_type has codes of its own (1..6, NVMe's order).
 */
static u8 rblk_pr_scsi_type(enum pr_type type)
{
	switch (type) {
	case PR_WRITE_EXCLUSIVE:
		return 1;
	case PR_EXCLUSIVE_ACCESS:
		return 3;
	case PR_WRITE_EXCLUSIVE_REG_ONLY:
		return 5;
	case PR_EXCLUSIVE_ACCESS_REG_ONLY:
		return 6;
	case PR_WRITE_EXCLUSIVE_ALL_REGS:
		return 7;
	case PR_EXCLUSIVE_ACCESS_ALL_REGS:
		return 8;
	}
	return 0;		/* rblk_resv_build() refuses it: EINVAL */
}

/* 0, a positive NVMe status or a negative errno. */
static int rblk_pr_send(struct block_device *bdev, const struct rblk_pr_op *op)
{
	struct gendisk *disk = bdev->bd_disk;

	if (rblk_disk_is_head(disk))
		return rblk_mpath_pr(disk->private_data, op);
	return rblk_ns_pr(disk->private_data, op);
}

static int rblk_pr_verb(struct block_device *bdev, int verb, u64 key,
			u64 sa_key, enum pr_type type)
{
	struct rblk_pr_op op = {
		.verb = verb, .key = key, .sa_key = sa_key,
		.type = rblk_pr_scsi_type(type),
	};

	return rblk_pr_status(rblk_pr_send(bdev, &op));
}

static int rblk_pr_register(struct block_device *bdev, u64 old_key,
			    u64 new_key, u32 flags)
{
	if (flags & ~PR_FL_IGNORE_KEY)
		return -EOPNOTSUPP;
	return rblk_pr_verb(bdev, flags & PR_FL_IGNORE_KEY ?
			    RBLK_RESV_REGISTER_IGNORE : RBLK_RESV_REGISTER,
			    old_key, new_key, 0);
}

static int rblk_pr_reserve(struct block_device *bdev, u64 key,
			   enum pr_type type, u32 flags)
{
	/* IEKEY in Acquire is obsolete (an invalid field since NVMe 1.3) */
	if (flags)
		return -EOPNOTSUPP;
	return rblk_pr_verb(bdev, RBLK_RESV_RESERVE, key, 0, type);
}

static int rblk_pr_release(struct block_device *bdev, u64 key,
			   enum pr_type type)
{
	return rblk_pr_verb(bdev, RBLK_RESV_RELEASE, key, 0, type);
}

static int rblk_pr_preempt(struct block_device *bdev, u64 old_key,
			   u64 new_key, enum pr_type type, bool abort)
{
	return rblk_pr_verb(bdev, abort ? RBLK_RESV_PREEMPT_ABORT :
			    RBLK_RESV_PREEMPT, old_key, new_key, type);
}

static int rblk_pr_clear(struct block_device *bdev, u64 key)
{
	return rblk_pr_verb(bdev, RBLK_RESV_CLEAR, key, 0, 0);
}

#ifdef RBLK_HAVE_PR_READ_KEYS
/*
 * Reads a report of room for @entries registrants, as far as one transfer
 * of the disk carries, into *@buf (the caller frees it), parsed into @r.
 */
static int rblk_pr_report(struct block_device *bdev, u32 entries, void **buf,
			  struct rblk_resv_report *r)
{
	u32 max = min_t(u32, RBLK_PR_REPORT_MAX,
			queue_max_hw_sectors(bdev_get_queue(bdev)) <<
			SECTOR_SHIFT);
	struct rblk_pr_op op = { };
	u32 len;
	int ret;

	max -= max % RBLK_RESV_ENTRY_LEN;
	entries = min_t(u32, entries, U16_MAX);	/* REGCTL is 16 bits */
	len = min_t(u32, RBLK_RESV_HDR_LEN + entries * RBLK_RESV_ENTRY_LEN,
		    max);
	len = max_t(u32, len, RBLK_RESV_HDR_LEN);
	/* zeroed: what a target leaves unwritten reads as no registrant */
	*buf = kvzalloc(len, GFP_KERNEL);
	if (!*buf)
		return -ENOMEM;
	op.report = *buf;
	op.report_len = len;
	ret = rblk_pr_status(rblk_pr_send(bdev, &op));
	if (ret)
		return ret;
	return rblk_resv_report_parse(*buf, len, r) ? -EIO : 0;
}

static int rblk_pr_read_keys(struct block_device *bdev,
			     struct pr_keys *keys_info)
{
	struct rblk_resv_report r;
	void *buf = NULL;
	u32 i, n;
	int ret;

	ret = rblk_pr_report(bdev, keys_info->num_keys, &buf, &r);
	if (ret)
		goto out;
	n = min_t(u32, keys_info->num_keys, r.nr);
	for (i = 0; i < n; i++)
		keys_info->keys[i] = rblk_resv_key(&r, i);
	keys_info->generation = r.gen;
	/*
	 * More than the caller has room for: say how many, so it may ask
	 * again; otherwise those read, never more than the report held.
	 */
	keys_info->num_keys = r.regctl > keys_info->num_keys ? r.regctl : r.nr;
out:
	kvfree(buf);
	return ret;
}

static int rblk_pr_read_reservation(struct block_device *bdev,
				    struct pr_held_reservation *rsv)
{
	struct rblk_resv_report r;
	void *buf = NULL;
	int ret;

	ret = rblk_pr_report(bdev, U16_MAX, &buf, &r);
	if (ret)
		goto out;
	rsv->generation = r.gen;
	/* NVMe's RTYPE is enum pr_type's code (0: none) */
	rsv->type = r.rtype;
	rsv->key = rblk_resv_holder_key(&r);
out:
	kvfree(buf);
	return ret;
}
#endif

const struct pr_ops rblk_pr_ops = {
	.pr_register	= rblk_pr_register,
	.pr_reserve	= rblk_pr_reserve,
	.pr_release	= rblk_pr_release,
	.pr_preempt	= rblk_pr_preempt,
	.pr_clear	= rblk_pr_clear,
#ifdef RBLK_HAVE_PR_READ_KEYS
	.pr_read_keys	= rblk_pr_read_keys,
	.pr_read_reservation = rblk_pr_read_reservation,
#endif
};
