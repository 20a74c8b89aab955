// SPDX-License-Identifier: GPL-2.0
/*
 * rblk: the tag sets. The admin tag set carries Connect, properties,
 * Identify, keep-alive and the AER; the I/O tag set has one hardware
 * queue per granted NVMe I/O queue. Also here: synchronous submission of
 * our own commands, the resize when a reconnect grants another queue
 * count, and the resubmission of bios that vanished queues handed back.
 */
#include <linux/blk-mq.h>
#include <linux/slab.h>

#include "compat.h"
#include "nvme.h"

void rblk_tagset_requeue_work(struct work_struct *work)
{
	struct rblk_ctrl *ctrl = container_of(work, struct rblk_ctrl,
					      requeue_work);
	struct bio *bio, *next;
	unsigned long flags;
	unsigned int n = 0;

	spin_lock_irqsave(&ctrl->requeue_lock, flags);
	next = bio_list_get(&ctrl->requeue_bios);
	spin_unlock_irqrestore(&ctrl->requeue_lock, flags);

	while ((bio = next) != NULL) {
		next = bio->bi_next;
		bio->bi_next = NULL;
		submit_bio_noacct(bio);
		n++;
	}
	if (n)
		dev_info(ctrl->dev, "%u bios of vanished I/O queues resubmitted\n",
			 n);
}

/* Limits every queue of the I/O tag set shares: the transport's and MDTS. */
void rblk_tagset_base_limits(struct rblk_ctrl *ctrl, struct rblk_qlim *l)
{
	struct rblk_xprt_limits xl;

	rblk_rdma_limits(ctrl, &xl);
	memset(l, 0, sizeof(*l));
	l->max_hw_sectors = ctrl->max_hw_sectors;
	l->max_segments = xl.max_segments;
	l->virt_boundary = xl.virt_boundary;
}

/*
 * The admin queue starts at one page (Connect, Identify); once Identify
 * told MDTS it takes what an I/O queue takes, for the NVMe ioctls (an
 * error log page alone is 8 KiB on nvmet). A reconnect sets it again.
 */
int rblk_tagset_admin_limits(struct rblk_ctrl *ctrl)
{
	struct rblk_qlim l;

	rblk_tagset_base_limits(ctrl, &l);
	return rblk_set_xfer_limits(ctrl->admin_q, &l);
}

/*
 * A tag set and one request queue of it for our own commands: the admin
 * queue, or the queue I/O Connect uses to reach each hardware context.
 */
static int rblk_alloc_set(struct rblk_ctrl *ctrl, struct blk_mq_tag_set *set,
			  const struct blk_mq_ops *ops, unsigned int nr_hw,
			  unsigned int nr_maps, unsigned int depth,
			  unsigned int reserved, unsigned int flags,
			  unsigned int timeout, struct request_queue **q)
{
	const struct rblk_qlim lim = {
		.max_hw_sectors	= PAGE_SIZE >> SECTOR_SHIFT,
		.virt_boundary	= RBLK_RDMA_VIRT_BOUNDARY,
	};
	int ret;

	memset(set, 0, sizeof(*set));
	set->ops = ops;
	set->nr_hw_queues = nr_hw;
	set->nr_maps = nr_maps;
	set->queue_depth = depth;
	set->reserved_tags = reserved;
	set->flags = flags;
	set->timeout = timeout;
	set->numa_node = NUMA_NO_NODE;
	set->cmd_size = sizeof(struct rblk_req) + rblk_rdma_req_size();
	set->driver_data = ctrl;
	ret = blk_mq_alloc_tag_set(set);
	if (ret)
		return ret;

	/* Identify data and the Connect payload: a page at most. */
	*q = rblk_alloc_queue(set, &lim);
	if (IS_ERR(*q)) {
		ret = PTR_ERR(*q);
		*q = NULL;
		blk_mq_free_tag_set(set);
		return ret;
	}
	return 0;
}

static void rblk_free_set(struct blk_mq_tag_set *set, struct request_queue **q)
{
	blk_mq_destroy_queue(*q);
	blk_put_queue(*q);
	*q = NULL;
	blk_mq_free_tag_set(set);
}

int rblk_tagset_alloc_admin(struct rblk_ctrl *ctrl)
{
	int ret;

	ret = rblk_alloc_set(ctrl, &ctrl->admin_set, &rblk_admin_mq_ops, 1, 1,
			     RBLK_AQ_SIZE - 1, RBLK_ADMIN_RESERVED,
			     BLK_MQ_F_NO_SCHED, RBLK_ADMIN_TIMEOUT,
			     &ctrl->admin_q);
	ctrl->has_admin_set = !ret;
	return ret;
}

void rblk_tagset_free_admin(struct rblk_ctrl *ctrl)
{
	if (ctrl->has_admin_set)
		rblk_free_set(&ctrl->admin_set, &ctrl->admin_q);
	ctrl->has_admin_set = false;
}

/*
 * The CPUs of each map (HCTX_TYPE_*) over its queues: the hardware
 * contexts are the I/O queues in qid order, DEFAULT, READ, POLL
 * (rblk_io_queue_types()). Without queues of its own READ shares
 * DEFAULT's; an empty POLL map sends polled I/O to DEFAULT as well,
 * where it completes by interrupt. Runs again on every resize.
 */
void rblk_tagset_map_queues(struct blk_mq_tag_set *set)
{
	struct rblk_ctrl *ctrl = set->driver_data;
	unsigned int off = 0;
	int t;

	for (t = 0; t < set->nr_maps; t++) {
		struct blk_mq_queue_map *map = &set->map[t];
		unsigned int n = READ_ONCE(ctrl->io_queues[t]);

		/* Each map has its own mq_map: only the ranges are shared. */
		if (t == HCTX_TYPE_READ && !n) {
			map->nr_queues = set->map[HCTX_TYPE_DEFAULT].nr_queues;
			map->queue_offset = 0;
		} else {
			map->nr_queues = n;
			map->queue_offset = off;
			off += n;
		}
		if (map->nr_queues)
			blk_mq_map_queues(map);
	}
}

/*
 * A disk being deleted takes no bio_poll() (6.1 refuses it at
 * bio_queue_enter()), so the polled commands in flight would wait for
 * their timeout, and del_gendisk() with them. While disks go, we reap.
 */
#define RBLK_REAP_INTERVAL	msecs_to_jiffies(2)

void rblk_tagset_reap_work(struct work_struct *work)
{
	struct rblk_ctrl *ctrl = container_of(to_delayed_work(work),
					      struct rblk_ctrl, reap_work);
	u32 i, n = READ_ONCE(ctrl->nr_io_queues);

	for (i = 1; i <= n && i < ctrl->max_queues; i++)
		rblk_rdma_poll(&ctrl->queues[i], NULL);
	if (test_bit(RBLK_CTRL_REAPING, &ctrl->flags))
		queue_delayed_work(rblk_wq, &ctrl->reap_work,
				   RBLK_REAP_INTERVAL);
}

void rblk_tagset_reap_start(struct rblk_ctrl *ctrl)
{
	if (!READ_ONCE(ctrl->io_queues[HCTX_TYPE_POLL]) ||
	    test_and_set_bit(RBLK_CTRL_REAPING, &ctrl->flags))
		return;
	queue_delayed_work(rblk_wq, &ctrl->reap_work, 0);
}

void rblk_tagset_reap_stop(struct rblk_ctrl *ctrl)
{
	if (test_and_clear_bit(RBLK_CTRL_REAPING, &ctrl->flags))
		cancel_delayed_work_sync(&ctrl->reap_work);
}

int rblk_tagset_alloc_io(struct rblk_ctrl *ctrl)
{
	/* The maps are fixed by the first association's request. */
	unsigned int nr_maps = ctrl->opts.nr_poll_queues ? HCTX_MAX_TYPES :
			       ctrl->opts.nr_write_queues ? 2 : 1;
	int ret;

	ret = rblk_alloc_set(ctrl, &ctrl->io_set, &rblk_io_mq_ops,
			     ctrl->nr_io_queues, nr_maps, ctrl->queue_size - 1,
			     RBLK_IO_RESERVED, BLK_MQ_F_SHOULD_MERGE,
			     RBLK_IO_TIMEOUT, &ctrl->connect_q);
	ctrl->has_io_set = !ret;
	return ret;
}

void rblk_tagset_free_io(struct rblk_ctrl *ctrl)
{
	if (ctrl->has_io_set)
		rblk_free_set(&ctrl->io_set, &ctrl->connect_q);
	ctrl->has_io_set = false;
}

/*
 * The target granted another I/O queue count than the tag set has. Like
 * nvme_rdma_configure_io_queues(): freeze the disks so no new I/O enters,
 * let what waits drain into the connected queues (requests of vanished
 * ones hand their bios back), resize, unfreeze, resubmit those bios.
 */
int rblk_tagset_resize_io(struct rblk_ctrl *ctrl)
{
	int ret;

	rblk_ns_freeze_start(ctrl);
	rblk_ns_unquiesce(ctrl);
	ret = rblk_ns_freeze_wait(ctrl, RBLK_IO_TIMEOUT);
	if (ret)
		dev_err(ctrl->dev, "I/O did not drain for the queue count change\n");
	else
		blk_mq_update_nr_hw_queues(&ctrl->io_set, ctrl->nr_io_queues);
	rblk_ns_unfreeze(ctrl);
	kblockd_schedule_work(&ctrl->requeue_work);	/* as ns.c's flush */
	return ret;
}

/*
 * Maps @buf into @rq, runs it and frees it. Returns 0, a positive NVMe
 * status from the target, or a negative errno when the command never got
 * a response.
 */
static int rblk_execute_sync(struct request *rq, void *buf, unsigned int len,
			     union nvme_result *result)
{
	struct rblk_req *req = rblk_req(rq);
	blk_status_t sts;
	int ret;

	if (buf && len) {
		ret = blk_rq_map_kern(rq->q, rq, buf, len, GFP_KERNEL);
		if (ret)
			goto out;
	}

	sts = blk_execute_rq(rq, false);
	if (result)
		*result = req->result;
	/* Ended by us (timeout, queue torn down): there was no response. */
	if ((req->status & RBLK_SC_MASK) == NVME_SC_HOST_ABORTED_CMD)
		ret = -ECONNABORTED;
	/* Ended by us because the peer broke the connection. */
	else if ((req->status & RBLK_SC_MASK) == NVME_SC_HOST_PATH_ERROR)
		ret = -ECONNRESET;
	else if (req->status)
		ret = req->status;
	else
		ret = blk_status_to_errno(sts);
out:
	blk_mq_free_request(rq);
	return ret;
}

/* On the admin queue (@qid 0) or I/O queue @qid: rblk_execute_sync(). */
int rblk_submit_sync(struct rblk_ctrl *ctrl, u16 qid, struct nvme_command *cmd,
		     void *buf, unsigned int len, union nvme_result *result,
		     bool reserved)
{
	blk_opf_t op = nvme_is_write(cmd) ? REQ_OP_DRV_OUT : REQ_OP_DRV_IN;
	blk_mq_req_flags_t flags = reserved ? BLK_MQ_REQ_RESERVED : 0;
	struct request *rq;

	if (qid)
		rq = blk_mq_alloc_request_hctx(ctrl->connect_q, op,
					       flags | BLK_MQ_REQ_NOWAIT,
					       qid - 1);
	else
		rq = blk_mq_alloc_request(ctrl->admin_q, op, flags);
	if (IS_ERR(rq))
		return PTR_ERR(rq);

	rblk_req_set_cmd(rq, cmd);
	rq->timeout = rblk_sync_timeout(ctrl);
	return rblk_execute_sync(rq, buf, len, result);
}

/*
 * On the namespace's own queue, as its I/O (the tag set's timeout, and it
 * waits out a reconnect as I/O does): rblk_execute_sync().
 */
int rblk_ns_submit_sync(struct rblk_ns *ns, struct nvme_command *cmd,
			void *buf, unsigned int len)
{
	blk_opf_t op = nvme_is_write(cmd) ? REQ_OP_DRV_OUT : REQ_OP_DRV_IN;
	struct request *rq;

	cmd->common.nsid = cpu_to_le32(ns->nsid);
	rq = blk_mq_alloc_request(ns->disk->queue, op, 0);
	if (IS_ERR(rq))
		return PTR_ERR(rq);
	rblk_req_set_cmd(rq, cmd);
	return rblk_execute_sync(rq, buf, len, NULL);
}
