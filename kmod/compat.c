// SPDX-License-Identifier: GPL-2.0
/*
 * rblk: queue allocation with limits, for 6.1 (setters) and 6.12
 * (struct queue_limits at allocation time). See compat.h.
 */
#include <linux/blkdev.h>
#include <linux/part_stat.h>

#include "compat.h"

#ifdef RBLK_HAVE_QUEUE_LIMITS

static void rblk_fill_limits(struct queue_limits *lim,
			     const struct rblk_qlim *l)
{
	lim->max_hw_sectors = l->max_hw_sectors;
	lim->max_segments = l->max_segments;
	lim->virt_boundary_mask = l->virt_boundary;
	lim->logical_block_size = l->logical_block_size;
	lim->physical_block_size = l->physical_block_size;
	lim->io_min = l->io_min;
	lim->io_opt = l->io_opt;
	lim->discard_granularity = l->discard_granularity;
	lim->max_hw_discard_sectors = l->max_discard_sectors;
	lim->max_discard_segments = l->max_discard_segments;
	lim->max_write_zeroes_sectors = l->max_write_zeroes_sectors;
	if (l->write_cache)
		lim->features |= BLK_FEAT_WRITE_CACHE | BLK_FEAT_FUA;
}

struct request_queue *rblk_alloc_queue(struct blk_mq_tag_set *set,
				       const struct rblk_qlim *l)
{
	struct queue_limits lim = { };

	rblk_fill_limits(&lim, l);
	return blk_mq_alloc_queue(set, &lim, NULL);
}

struct gendisk *rblk_alloc_disk(struct blk_mq_tag_set *set,
				const struct rblk_qlim *l, void *queuedata)
{
	struct queue_limits lim = { };

	rblk_fill_limits(&lim, l);
	return blk_mq_alloc_disk(set, &lim, queuedata);
}

/*
 * A multipath head stacks its paths' limits into its own, and
 * blk_stack_limits() takes the top's as a stacking driver's: started
 * from zero, max_dev_sectors stacked to one page, and every bio of the
 * head was split to 4 KiB.
 */
struct gendisk *rblk_alloc_bio_disk(const struct rblk_qlim *l, bool poll,
				    int node)
{
	struct queue_limits lim;

	blk_set_stacking_limits(&lim);
	lim.max_zone_append_sectors = 0;	/* no zoned namespaces */
	rblk_fill_limits(&lim, l);
	/* REQ_NOWAIT passes through to the path, which honours it. */
	lim.features |= BLK_FEAT_NOWAIT | BLK_FEAT_IO_STAT;
	if (poll)
		lim.features |= BLK_FEAT_POLL;
	return blk_alloc_disk(&lim, node);
}

bool rblk_write_cache_enabled(struct request_queue *q)
{
	return blk_queue_write_cache(q);
}

int rblk_stack_limits(struct gendisk *top, struct gendisk *bottom)
{
	struct queue_limits lim;
	int ret;

	blk_mq_freeze_queue(top->queue);
	lim = queue_limits_start_update(top->queue);
	queue_limits_stack_bdev(&lim, bottom->part0, 0, top->disk_name);
	ret = queue_limits_commit_update(top->queue, &lim);
	blk_mq_unfreeze_queue(top->queue);
	return ret;
}

int rblk_set_xfer_limits(struct request_queue *q, const struct rblk_qlim *l)
{
	struct queue_limits lim = queue_limits_start_update(q);

	lim.max_hw_sectors = l->max_hw_sectors;
	lim.max_segments = l->max_segments;
	return queue_limits_commit_update(q, &lim);
}

#else /* !RBLK_HAVE_QUEUE_LIMITS */

static void rblk_apply_limits(struct request_queue *q,
			      const struct rblk_qlim *l)
{
	if (l->max_hw_sectors)
		blk_queue_max_hw_sectors(q, l->max_hw_sectors);
	if (l->max_segments)
		blk_queue_max_segments(q, l->max_segments);
	if (l->virt_boundary)
		blk_queue_virt_boundary(q, l->virt_boundary);
	if (l->logical_block_size)
		blk_queue_logical_block_size(q, l->logical_block_size);
	if (l->physical_block_size)
		blk_queue_physical_block_size(q, l->physical_block_size);
	if (l->io_min)
		blk_queue_io_min(q, l->io_min);
	if (l->io_opt)
		blk_queue_io_opt(q, l->io_opt);
	if (l->max_discard_sectors) {
		q->limits.discard_granularity = l->discard_granularity;
		blk_queue_max_discard_sectors(q, l->max_discard_sectors);
		blk_queue_max_discard_segments(q, l->max_discard_segments);
	}
	if (l->max_write_zeroes_sectors)
		blk_queue_max_write_zeroes_sectors(q,
						   l->max_write_zeroes_sectors);
	blk_queue_flag_set(QUEUE_FLAG_NONROT, q);
	blk_queue_write_cache(q, l->write_cache, l->write_cache);
}

struct request_queue *rblk_alloc_queue(struct blk_mq_tag_set *set,
				       const struct rblk_qlim *l)
{
	struct request_queue *q = blk_mq_init_queue(set);

	if (!IS_ERR(q))
		rblk_apply_limits(q, l);
	return q;
}

struct gendisk *rblk_alloc_disk(struct blk_mq_tag_set *set,
				const struct rblk_qlim *l, void *queuedata)
{
	struct gendisk *disk = blk_mq_alloc_disk(set, queuedata);

	if (!IS_ERR(disk))
		rblk_apply_limits(disk->queue, l);
	return disk;
}

struct gendisk *rblk_alloc_bio_disk(const struct rblk_qlim *l, bool poll,
				    int node)
{
	struct gendisk *disk = blk_alloc_disk(node);

	if (!disk)
		return ERR_PTR(-ENOMEM);
	/* A stacking driver's limits, as on 6.12 above. */
	blk_set_stacking_limits(&disk->queue->limits);
	disk->queue->limits.max_write_zeroes_sectors = 0;
	disk->queue->limits.max_zone_append_sectors = 0;
	rblk_apply_limits(disk->queue, l);
	blk_queue_flag_set(QUEUE_FLAG_NOWAIT, disk->queue);
	blk_queue_flag_set(QUEUE_FLAG_IO_STAT, disk->queue);
	if (poll)
		blk_queue_flag_set(QUEUE_FLAG_POLL, disk->queue);
	return disk;
}

bool rblk_write_cache_enabled(struct request_queue *q)
{
	return test_bit(QUEUE_FLAG_WC, &q->queue_flags);
}

/* 6.1 stacks into the live limits, as its nvme_update_ns_info() does. */
int rblk_stack_limits(struct gendisk *top, struct gendisk *bottom)
{
	blk_mq_freeze_queue(top->queue);
	/* Negative only for a misaligned bottom, which still stacks. */
	blk_stack_limits(&top->queue->limits, &bottom->queue->limits, 0);
	disk_update_readahead(top);
	blk_mq_unfreeze_queue(top->queue);
	return 0;
}

int rblk_set_xfer_limits(struct request_queue *q, const struct rblk_qlim *l)
{
	blk_queue_max_hw_sectors(q, l->max_hw_sectors);
	blk_queue_max_segments(q, l->max_segments);
	return 0;
}

#endif /* RBLK_HAVE_QUEUE_LIMITS */

/*
 * 6.3 moved the sector count from the start of the I/O to its end. A
 * flush is counted as the block layer counts a blk-mq disk's (flush_end_io()):
 * in the flush columns, never in flight, which bdev_*_io_acct() would not do.
 */
unsigned long rblk_io_acct_start(struct block_device *bdev,
				 struct request *rq)
{
	if (req_op(rq) == REQ_OP_FLUSH)
		return jiffies;
#ifdef RBLK_HAVE_BDEV_ACCT_END_SECTORS
	return bdev_start_io_acct(bdev, req_op(rq), jiffies);
#else
	return bdev_start_io_acct(bdev, blk_rq_sectors(rq), req_op(rq),
				  jiffies);
#endif
}

void rblk_io_acct_end(struct block_device *bdev, struct request *rq,
		      unsigned long start)
{
	if (req_op(rq) == REQ_OP_FLUSH) {
		part_stat_lock();
		part_stat_inc(bdev, ios[STAT_FLUSH]);
		part_stat_add(bdev, nsecs[STAT_FLUSH],
			      jiffies_to_nsecs(jiffies - start));
		part_stat_unlock();
		return;
	}
#ifdef RBLK_HAVE_BDEV_ACCT_END_SECTORS
	bdev_end_io_acct(bdev, req_op(rq), blk_rq_sectors(rq), start);
#else
	bdev_end_io_acct(bdev, req_op(rq), start);
#endif
}

int rblk_import_ubuf(int rw, void __user *buf, size_t len, struct iovec *iov,
		     struct iov_iter *iter)
{
#ifdef RBLK_HAVE_IMPORT_UBUF
	return import_ubuf(rw, buf, len, iter);
#else
	return import_single_range(rw, buf, len, iov, iter);
#endif
}
