/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rblk: the API differences between the kernels rblk builds for, and the
 * only place for them. 6.1 applies request queue limits through setters
 * after allocation; 6.12 takes a struct queue_limits when the queue is
 * allocated. Kbuild probes the headers (RBLK_HAVE_*), which also tells
 * which <linux/nvme.h> names 6.1 lacks. What the shared code also needs
 * (the unaligned accessors, those <linux/nvme.h> names) is in
 * shared/kcompat.h, included here.
 */
#ifndef _RBLK_COMPAT_H
#define _RBLK_COMPAT_H

#include <linux/blk-mq.h>
#include <linux/uio.h>

#include "kcompat.h"

/* What rblk sets on a queue; 0 leaves the block layer's default. */
struct rblk_qlim {
	unsigned int	max_hw_sectors;
	unsigned short	max_segments;
	unsigned long	virt_boundary;
	unsigned int	logical_block_size;
	unsigned int	physical_block_size;
	unsigned int	io_min;
	unsigned int	io_opt;
	unsigned int	discard_granularity;
	unsigned int	max_discard_sectors;
	unsigned short	max_discard_segments;
	unsigned int	max_write_zeroes_sectors;
	bool		write_cache;	/* volatile cache: flush and FUA */
};

struct request_queue *rblk_alloc_queue(struct blk_mq_tag_set *set,
				       const struct rblk_qlim *l);
struct gendisk *rblk_alloc_disk(struct blk_mq_tag_set *set,
				const struct rblk_qlim *l, void *queuedata);
/*
 * A bio-based disk (a multipath head) with the limits of @l; @poll: its
 * bios may be polled (on the path they go down).
 */
struct gendisk *rblk_alloc_bio_disk(const struct rblk_qlim *l, bool poll,
				    int node);
/* A request counted in another disk's statistics (a multipath head's). */
unsigned long rblk_io_acct_start(struct block_device *bdev,
				 struct request *rq);
void rblk_io_acct_end(struct block_device *bdev, struct request *rq,
		      unsigned long start);
/*
 * @bottom's limits stacked into @top's, a bio-based disk above it (a
 * multipath head): each becomes the stricter of the two, so that @top
 * splits a bio as @bottom would. @top is frozen meanwhile.
 */
int rblk_stack_limits(struct gendisk *top, struct gendisk *bottom);
/* max_hw_sectors and max_segments of @l on a live queue. */
int rblk_set_xfer_limits(struct request_queue *q, const struct rblk_qlim *l);
bool rblk_write_cache_enabled(struct request_queue *q);
/* One user buffer as an iov_iter (6.4 replaced import_single_range()). */
int rblk_import_ubuf(int rw, void __user *buf, size_t len, struct iovec *iov,
		     struct iov_iter *iter);

/* 6.3 made the device of a class's dev_uevent const. */
#ifdef RBLK_HAVE_CONST_DEV_UEVENT
#define RBLK_CONST_DEV	const
#else
#define RBLK_CONST_DEV
#endif

/* 6.5 replaced fmode_t with blk_mode_t in block_device_operations. */
#ifdef RBLK_HAVE_BLK_MODE_T
#define rblk_mode_t	blk_mode_t
#define RBLK_MODE_WRITE	BLK_OPEN_WRITE
#else
#define rblk_mode_t	fmode_t
#define RBLK_MODE_WRITE	FMODE_WRITE
#endif

/*
 * The command bytes of a uring_cmd: 6.1 points at them, 6.12 (whose
 * header has moved) keeps the whole SQE.
 */
#ifdef RBLK_HAVE_IO_URING_CMD_H
#include <linux/io_uring/cmd.h>
static inline const void *rblk_uring_cmd_sqe(struct io_uring_cmd *ioucmd)
{
	return io_uring_sqe_cmd(ioucmd->sqe);
}
#else
#include <linux/io_uring.h>
static inline const void *rblk_uring_cmd_sqe(struct io_uring_cmd *ioucmd)
{
	return ioucmd->cmd;
}
#endif

/* 6.12's <linux/nvme.h> calls the rw command's apptag/appmask lbat/lbatm. */
static inline void rblk_rw_set_apptag(struct nvme_rw_command *rw, u16 tag,
				      u16 mask)
{
#ifdef RBLK_HAVE_NVME_RW_LBAT
	rw->lbat = cpu_to_le16(tag);
	rw->lbatm = cpu_to_le16(mask);
#else
	rw->apptag = cpu_to_le16(tag);
	rw->appmask = cpu_to_le16(mask);
#endif
}

/*
 * A reservation conflict's block status (-EBADE): 6.5 renamed
 * BLK_STS_NEXUS to BLK_STS_RESV_CONFLICT, with the same value.
 */
#ifndef BLK_STS_RESV_CONFLICT
#define BLK_STS_RESV_CONFLICT	BLK_STS_NEXUS
#endif

/*
 * What a pr_ops verb returns for an NVMe status (> 0): 6.5 gave the
 * block layer its own enum pr_status, which 6.12's nvme maps to; 6.1's
 * nvme returns the NVMe status itself, and so does rblk there. Errnos
 * (< 0) and success pass through.
 */
#ifdef RBLK_HAVE_PR_STATUS
#include <linux/pr.h>
static inline int rblk_pr_status(int ret)
{
	if (ret <= 0)
		return ret;
	if ((ret & NVME_SCT_MASK) == NVME_SCT_PATH)
		return PR_STS_PATH_FAILED;
	switch (ret & NVME_SCT_SC_MASK) {
	case NVME_SC_RESERVATION_CONFLICT:
		return PR_STS_RESERVATION_CONFLICT;
	case NVME_SC_BAD_ATTRIBUTES:
	case NVME_SC_INVALID_OPCODE:
	case NVME_SC_INVALID_FIELD:
	case NVME_SC_INVALID_NS:
		return -EINVAL;
	default:
		return PR_STS_IOERR;
	}
}
#else
static inline int rblk_pr_status(int ret)
{
	return ret;
}
#endif

/*
 * A dump's request attributes, parsed by the command's policy: 6.1 keeps
 * them in struct genl_dumpit_info, 6.12 in the struct genl_info in it.
 */
#include <net/genetlink.h>
static inline struct nlattr **rblk_genl_dump_attrs(struct netlink_callback *cb)
{
#ifdef RBLK_HAVE_GENL_INFO_DUMP
	return genl_info_dump(cb)->attrs;
#else
	return genl_dumpit_info(cb)->attrs;
#endif
}

#endif /* _RBLK_COMPAT_H */
