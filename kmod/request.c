// SPDX-License-Identifier: GPL-2.0
/*
 * rblk: the life of one request: queue_rq (admission, the NVMe command,
 * posting), completion with status mapping and retry, the timeout
 * handler, and ending requests nobody will answer. Admin and I/O tag sets
 * complete through the same path, the only place a request is ever ended.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/slab.h>

#include "compat.h"
#include "nvme.h"

#define RBLK_MAX_RETRIES	5

/* Connect and authentication: what a queue takes before it is live. */
static bool rblk_is_bringup(struct request *rq)
{
	struct nvme_command *c = &rblk_req(rq)->cmd;

	return blk_rq_is_passthrough(rq) &&
	       c->common.opcode == nvme_fabrics_command &&
	       (c->fabrics.fctype == nvme_fabrics_type_connect ||
		c->fabrics.fctype == nvme_fabrics_type_auth_send ||
		c->fabrics.fctype == nvme_fabrics_type_auth_receive);
}

/* For the log: the commands of bring-up and keep-alive by name. */
static const char *rblk_cmd_name(struct rblk_queue *queue,
				 const struct nvme_command *c)
{
	if (c->common.opcode == nvme_fabrics_command) {
		switch (c->fabrics.fctype) {
		case nvme_fabrics_type_connect:
			return "Connect";
		case nvme_fabrics_type_property_get:
			return "Property Get";
		case nvme_fabrics_type_property_set:
			return "Property Set";
		case nvme_fabrics_type_auth_send:
			return "Authentication Send";
		case nvme_fabrics_type_auth_receive:
			return "Authentication Receive";
		default:
			return "a Fabrics command";
		}
	}
	if (queue->qid)
		return "an I/O command";
	switch (c->common.opcode) {
	case nvme_admin_identify:
		return "Identify";
	case nvme_admin_set_features:
		return "Set Features";
	case nvme_admin_keep_alive:
		return "Keep Alive";
	default:
		return "an admin command";
	}
}

/* Should a request that met a dead or missing queue wait for reconnect? */
static bool rblk_may_wait(struct rblk_ctrl *ctrl, struct request *rq)
{
	return !blk_rq_is_passthrough(rq) && !rblk_ctrl_deleting(ctrl) &&
	       !test_bit(RBLK_CTRL_FAILFAST, &ctrl->flags) &&
	       !(rq->cmd_flags & REQ_FAILFAST_MASK);
}

/*
 * A head's request that met a path error may go down another path: a
 * retry on a path, not of the command, so the target's DNR holds only for
 * the statuses it sent (the host's own, when a path broke, carry it to
 * stop retries on this one). As nvme, not a request that must not retry.
 */
static bool rblk_may_fail_over(struct request *rq, u16 status)
{
	u16 sc = status & RBLK_SC_MASK;
	bool host = sc == NVME_SC_HOST_PATH_ERROR ||
		    sc == NVME_SC_HOST_ABORTED_CMD;

	return rblk_mpath_rq(rq) && !(rq->cmd_flags & REQ_FAILFAST_MASK) &&
	       rblk_mpath_is_path_error(status) &&
	       (host || !(status & NVME_STATUS_DNR));
}

/* A head's request on a path that cannot take it now: to another path. */
static bool rblk_fail_over_now(struct request *rq)
{
	if (!rblk_mpath_rq(rq) || (rq->cmd_flags & REQ_FAILFAST_MASK))
		return false;
	blk_mq_start_request(rq);
	rblk_req(rq)->status = NVME_SC_HOST_PATH_ERROR;
	return rblk_mpath_failover(rq);
}

static blk_status_t rblk_error_status(u16 status)
{
	switch (status & RBLK_SC_MASK) {
	case NVME_SC_SUCCESS:
		return BLK_STS_OK;
	case NVME_SC_CAP_EXCEEDED:
		return BLK_STS_NOSPC;
	case NVME_SC_RESERVATION_CONFLICT:
		return BLK_STS_RESV_CONFLICT;
	case NVME_SC_LBA_RANGE:
	case NVME_SC_NS_NOT_READY:
		return BLK_STS_TARGET;
	case NVME_SC_INVALID_OPCODE:
	case NVME_SC_INVALID_FIELD:
	case NVME_SC_INVALID_NS:
	case NVME_SC_BAD_ATTRIBUTES:
		return BLK_STS_NOTSUPP;
	case NVME_SC_READ_ERROR:
	case NVME_SC_WRITE_FAULT:
	case NVME_SC_UNWRITTEN_BLOCK:
	case NVME_SC_READ_ONLY:
	case NVME_SC_ACCESS_DENIED:
	case NVME_SC_COMPARE_FAILED:
		return BLK_STS_MEDIUM;
	case NVME_SC_GUARD_CHECK:
	case NVME_SC_APPTAG_CHECK:
	case NVME_SC_REFTAG_CHECK:
		return BLK_STS_PROTECTION;
	case NVME_SC_HOST_PATH_ERROR:
	case NVME_SC_HOST_ABORTED_CMD:
		return BLK_STS_TRANSPORT;
	default:
		return BLK_STS_IOERR;
	}
}

/* The single gate to blk_mq_complete_request(): first caller wins. */
void rblk_req_done(struct request *rq)
{
	if (!test_and_set_bit(RBLK_REQ_DONE, &rblk_req(rq)->flags))
		blk_mq_complete_request(rq);
}

/*
 * Ends a request its queue will never answer, with our own @status; the
 * queue must be stopped so that no completion races it.
 */
static void rblk_req_end(struct request *rq, u16 status)
{
	struct rblk_req *req = rblk_req(rq);

	if (!test_and_set_bit(RBLK_REQ_DONE, &req->flags)) {
		req->status = status;
		blk_mq_complete_request(rq);
	}
}

/*
 * A reconnect may be granted a smaller SQ than the tag set is deep (the
 * depth is fixed once disks exist): each queue then admits no more
 * commands than its SQ holds, the rest wait in blk-mq, which runs the
 * queue again when a request ends. Only then is the count kept; otherwise
 * blk-mq's tags already bound what is in flight.
 */
static bool rblk_slots_limited(const struct rblk_queue *queue)
{
	return queue->size < rblk_queue_nr_sqes(queue);
}

static bool rblk_slot_get(struct rblk_queue *queue, struct rblk_req *req)
{
	if (likely(!rblk_slots_limited(queue)))
		return true;
	if (atomic_inc_return(&queue->nr_active) < queue->size) {
		set_bit(RBLK_REQ_ACTIVE, &req->flags);
		return true;
	}
	atomic_dec(&queue->nr_active);
	return false;
}

static void rblk_slot_put(struct rblk_queue *queue, struct rblk_req *req)
{
	if (test_and_clear_bit(RBLK_REQ_ACTIVE, &req->flags))
		atomic_dec(&queue->nr_active);
}

/*
 * Releases what a request holds from queue_rq on: its data mapping, its
 * SQ slot, a discard's range list. Whether it was sent or not; a second
 * call finds nothing left.
 */
static void rblk_req_cleanup(struct rblk_queue *queue, struct request *rq)
{
	struct rblk_req *req = rblk_req(rq);

	rblk_rdma_unmap_data(queue, rq);
	rblk_slot_put(queue, req);
	rblk_mpath_end_rq(rq);
	if (rq->rq_flags & RQF_SPECIAL_PAYLOAD) {
		kfree(bvec_virt(&rq->special_vec));
		rq->rq_flags &= ~RQF_SPECIAL_PAYLOAD;
	}
}

/*
 * Where a request ends, unless queue_rq fails it (rblk_fail_early()) or
 * it ends in a polled batch (rblk_complete_batch()): answered, failed, or
 * its bios handed back (@failover: to its head, multipath.c; else for
 * resubmission), hence where its end is counted.
 */
void rblk_req_finish(struct rblk_ctrl *ctrl, struct request *rq,
		     blk_status_t sts, bool failover)
{
	rblk_stats_end(ctrl, rq, sts, failover);
	blk_mq_end_request(rq, sts);
}

/* What ->complete() does for a success, for a whole batch at once. */
static void rblk_complete_batch(struct io_comp_batch *iob)
{
	struct request *rq;

	rq_list_for_each(&iob->req_list, rq) {
		struct rblk_req *req = rblk_req(rq);

		rblk_stats_end(req->queue->ctrl, rq, BLK_STS_OK, false);
	}
	blk_mq_end_request_batch(iob);
}

/*
 * The same gate, from an io_uring poll: a success joins blk-mq's batch,
 * which ends them together once the poll is over; anything else (an
 * error may be retried, a passthrough has its own end) goes one by one.
 * The transport lets go of it here, under the poll: the batch ends after
 * the reaper has left, when a teardown may already have freed the QP.
 * (rblk_req_cleanup() does nothing the second time, in ->complete().)
 */
void rblk_req_done_polled(struct request *rq, struct io_comp_batch *iob)
{
	struct rblk_req *req = rblk_req(rq);

	if (test_and_set_bit(RBLK_REQ_DONE, &req->flags))
		return;
	if (req->status || blk_rq_is_passthrough(rq)) {
		blk_mq_complete_request(rq);
		return;
	}
	rblk_req_cleanup(req->queue, rq);
	if (!blk_mq_add_to_batch(rq, iob, false, rblk_complete_batch))
		blk_mq_complete_request(rq);
}

static void rblk_complete_rq(struct request *rq)
{
	struct rblk_req *req = rblk_req(rq);
	struct rblk_ctrl *ctrl = req->queue->ctrl;
	blk_status_t sts = rblk_error_status(req->status);

	rblk_req_cleanup(req->queue, rq);

	if (unlikely(sts != BLK_STS_OK) && !blk_rq_is_passthrough(rq)) {
		/* Another path may serve it: the head resubmits its bios there. */
		if (rblk_may_fail_over(rq, req->status) &&
		    rblk_mpath_failover(rq))
			return;
		/* Still started: its end is counted once, when it ends. */
		if (!(req->status & NVME_STATUS_DNR) &&
		    req->retries < RBLK_MAX_RETRIES && rblk_may_wait(ctrl, rq)) {
			req->retries++;
			blk_mq_requeue_request(rq, true);
			return;
		}
	}
	rblk_req_finish(ctrl, rq, sts, false);
}

static blk_status_t rblk_setup_rw(struct rblk_ns *ns, struct request *rq,
				  struct nvme_command *c, u8 opcode)
{
	u16 control = 0;

	if (rq->cmd_flags & REQ_FUA)
		control |= NVME_RW_FUA;
	if (rq->cmd_flags & (REQ_FAILFAST_DEV | REQ_RAHEAD))
		control |= NVME_RW_LR;

	c->rw.opcode = opcode;
	c->rw.nsid = cpu_to_le32(ns->nsid);
	c->rw.slba = cpu_to_le64(blk_rq_pos(rq) >> (ns->lba_shift - SECTOR_SHIFT));
	c->rw.length = cpu_to_le16((blk_rq_bytes(rq) >> ns->lba_shift) - 1);
	c->rw.control = cpu_to_le16(control);
	return BLK_STS_OK;
}

/* Discard becomes DSM deallocate, one range per bio of the request. */
static blk_status_t rblk_setup_discard(struct rblk_ns *ns, struct request *rq,
				       struct nvme_command *c)
{
	unsigned short segs = blk_rq_nr_discard_segments(rq);
	struct nvme_dsm_range *range;
	unsigned int n = 0;
	struct bio *bio;

	if (segs > NVME_DSM_MAX_RANGES)
		return BLK_STS_IOERR;
	range = kmalloc_array(segs, sizeof(*range), GFP_ATOMIC | __GFP_NOWARN);
	if (!range)
		return BLK_STS_RESOURCE;

	__rq_for_each_bio(bio, rq) {
		u64 slba = bio->bi_iter.bi_sector >> (ns->lba_shift - SECTOR_SHIFT);
		u32 nlb = bio->bi_iter.bi_size >> ns->lba_shift;

		if (n < segs) {
			range[n].cattr = 0;
			range[n].nlb = cpu_to_le32(nlb);
			range[n].slba = cpu_to_le64(slba);
		}
		n++;
	}
	if (n != segs) {
		kfree(range);
		return BLK_STS_IOERR;
	}

	c->dsm.opcode = nvme_cmd_dsm;
	c->dsm.nsid = cpu_to_le32(ns->nsid);
	c->dsm.nr = cpu_to_le32(segs - 1);
	c->dsm.attributes = cpu_to_le32(NVME_DSMGMT_AD);

	rq->special_vec.bv_page = virt_to_page(range);
	rq->special_vec.bv_offset = offset_in_page(range);
	rq->special_vec.bv_len = sizeof(*range) * segs;
	rq->rq_flags |= RQF_SPECIAL_PAYLOAD;
	return BLK_STS_OK;
}

static blk_status_t rblk_setup_cmd(struct rblk_ns *ns, struct request *rq,
				   struct nvme_command *c)
{
	memset(c, 0, sizeof(*c));
	switch (req_op(rq)) {
	case REQ_OP_READ:
		return rblk_setup_rw(ns, rq, c, nvme_cmd_read);
	case REQ_OP_WRITE:
		return rblk_setup_rw(ns, rq, c, nvme_cmd_write);
	case REQ_OP_FLUSH:
		c->common.opcode = nvme_cmd_flush;
		c->common.nsid = cpu_to_le32(ns->nsid);
		return BLK_STS_OK;
	case REQ_OP_DISCARD:
		return rblk_setup_discard(ns, rq, c);
	case REQ_OP_WRITE_ZEROES:
		c->write_zeroes.opcode = nvme_cmd_write_zeroes;
		c->write_zeroes.nsid = cpu_to_le32(ns->nsid);
		c->write_zeroes.slba = cpu_to_le64(blk_rq_pos(rq) >>
						   (ns->lba_shift - SECTOR_SHIFT));
		c->write_zeroes.length =
			cpu_to_le16((blk_rq_bytes(rq) >> ns->lba_shift) - 1);
		return BLK_STS_OK;
	default:
		return BLK_STS_NOTSUPP;
	}
}

/*
 * A reconnect granted fewer I/O queues: a request still bound to a
 * hardware context that lost its queue hands its bios back, to be
 * resubmitted once the tag set has the new count (as nvme multipath
 * fails over). Passthrough and flush-sequence requests carry no bios
 * that could be resubmitted: they fail (an fsync sees EIO; nothing is
 * lost silently).
 */
static bool rblk_requeue_bios(struct rblk_ctrl *ctrl, struct request *rq)
{
	unsigned long flags;
	struct bio *bio;

	if (blk_rq_is_passthrough(rq) || !rq->bio ||
	    (rq->rq_flags & RQF_FLUSH_SEQ))
		return false;
	for (bio = rq->bio; bio; bio = bio->bi_next)
		rblk_bio_clear_nowait(bio);
	spin_lock_irqsave(&ctrl->requeue_lock, flags);
	blk_steal_bios(&ctrl->requeue_bios, rq);
	spin_unlock_irqrestore(&ctrl->requeue_lock, flags);
	blk_mq_start_request(rq);
	rblk_req_finish(ctrl, rq, BLK_STS_OK, false);
	return true;
}

/*
 * Fails a request before it reaches the target: blk-mq ends it with the
 * error queue_rq returns, counted here like the rest.
 */
static blk_status_t rblk_fail_early(struct rblk_ctrl *ctrl, struct request *rq)
{
	rblk_stats_end(ctrl, rq, BLK_STS_IOERR, false);
	return BLK_STS_IOERR;
}

/* Neither a live queue nor a Connect on a connected one. */
static blk_status_t rblk_queue_not_ready(struct rblk_queue *queue,
					 struct request *rq)
{
	struct rblk_ctrl *ctrl = queue->ctrl;

	if (!rblk_may_wait(ctrl, rq))
		return rblk_fail_over_now(rq) ? BLK_STS_OK :
						rblk_fail_early(ctrl, rq);
	/*
	 * Its queue will never come back: waiting would stall the resize,
	 * and the head would pick this path and queue again until it ends.
	 */
	if (queue->qid > READ_ONCE(ctrl->nr_io_queues))
		return rblk_requeue_bios(ctrl, rq) ? BLK_STS_OK :
						     rblk_fail_early(ctrl, rq);
	return rblk_fail_over_now(rq) ? BLK_STS_OK : BLK_STS_RESOURCE;
}

/* A live queue takes anything; a connected one only its bring-up. */
static bool rblk_queue_ready(struct rblk_queue *queue, struct request *rq)
{
	return rblk_rdma_queue_live(queue) ||
	       (rblk_is_bringup(rq) && rblk_rdma_queue_allocated(queue));
}

/* The command, and a new generation: a late CQE of the last is refused. */
static blk_status_t rblk_req_prep(struct rblk_queue *queue,
				  struct rblk_ns *ns, struct request *rq)
{
	struct rblk_req *req = rblk_req(rq);
	blk_status_t sts;

	if (!(rq->rq_flags & RQF_DONTPREP)) {
		req->retries = 0;
		rq->rq_flags |= RQF_DONTPREP;
	}
	if (!blk_rq_is_passthrough(rq)) {
		sts = rblk_setup_cmd(ns, rq, &req->cmd);
		if (sts)
			return sts;
	}

	req->queue = queue;
	req->gen = (req->gen + 1) & RBLK_CID_GEN_MASK;
	req->cmd.common.command_id = rblk_cid(rq->tag, req->gen);
	req->status = 0;
	req->result.u64 = 0;
	/* Out of idle (RBLK_REQ_DONE); the slot and count taken stay. */
	req->flags &= BIT(RBLK_REQ_ACTIVE) | BIT(RBLK_REQ_MPATH_CNT) |
		      BIT(RBLK_REQ_MPATH_ACCT);
	rblk_mpath_start_rq(rq);
	/*
	 * The response; LOCAL_INV reuses it. A signaled SEND adds its own
	 * completion (rblk_rdma_post_cmd()).
	 */
	atomic_set(&req->pending, 1);
	return BLK_STS_OK;
}

/*
 * Starts @rq and posts it, or queues it for the doorbell blk-mq rings
 * with the batch's @last command or ->commit_rqs(); on failure nothing of
 * it is on the wire.
 */
static blk_status_t rblk_req_send(struct rblk_queue *queue, struct request *rq,
				  bool last)
{
	struct rblk_req *req = rblk_req(rq);
	int ret;

	blk_mq_start_request(rq);

	/* Bring-up commands wait for their answer: on a broken queue, none. */
	if (blk_rq_is_passthrough(rq)) {
		/* Started, then ask: ordered there (rdma.c's ordering rules). */
		if (unlikely(rblk_rdma_queue_lost(queue))) {
			req->status = NVME_SC_HOST_PATH_ERROR | NVME_STATUS_DNR;
			return BLK_STS_TRANSPORT;
		}
	}

	ret = rblk_rdma_map_data(queue, rq);
	if (unlikely(ret))
		return ret == -ENOMEM || ret == -EAGAIN ? BLK_STS_RESOURCE :
							  BLK_STS_IOERR;
	rblk_stats_start(queue->ctrl, rq);
	ret = rblk_rdma_post_cmd(queue, rq, last);
	/* The SQ is full of answered commands: one that is not restarts us. */
	if (unlikely(ret == -EBUSY))
		return BLK_STS_DEV_RESOURCE;
	if (unlikely(ret)) {
		/*
		 * The QP is broken and recovery is on its way: retried later
		 * (still counted as started), or ended here.
		 */
		if (rblk_may_wait(queue->ctrl, rq))
			return BLK_STS_RESOURCE;
		return rblk_fail_early(queue->ctrl, rq);
	}
	return BLK_STS_OK;
}

static blk_status_t rblk_queue_rq(struct blk_mq_hw_ctx *hctx,
				  const struct blk_mq_queue_data *bd)
{
	struct rblk_queue *queue = hctx->driver_data;
	struct rblk_ns *ns = hctx->queue->queuedata;
	struct request *rq = bd->rq;
	struct rblk_req *req = rblk_req(rq);
	blk_status_t sts;

	/* The namespace left the target: its disk is being deleted. */
	if (unlikely(ns && READ_ONCE(ns->gone)))
		return rblk_fail_over_now(rq) ? BLK_STS_OK :
						rblk_fail_early(queue->ctrl, rq);
	if (unlikely(!rblk_queue_ready(queue, rq)))
		return rblk_queue_not_ready(queue, rq);
	if (unlikely(!rblk_slot_get(queue, req)))
		return BLK_STS_RESOURCE;

	sts = rblk_req_prep(queue, ns, rq);
	if (sts) {
		rblk_slot_put(queue, req);
		return sts;
	}
	sts = rblk_req_send(queue, rq, bd->last);
	if (unlikely(sts)) {
		/* Idle again: no response may claim it. */
		rblk_req_cleanup(queue, rq);
		set_bit(RBLK_REQ_DONE, &req->flags);
		return sts;
	}
	return BLK_STS_OK;
}

static enum blk_eh_timer_return rblk_timeout(struct request *rq)
{
	struct rblk_req *req = rblk_req(rq);
	struct rblk_queue *queue = req->queue;
	struct rblk_ctrl *ctrl = queue->ctrl;
	enum rblk_ctrl_state st = rblk_ctrl_state(ctrl);
	/* Set before rblk_ctrl_queue_lost() aborted it: no timeout, a hang-up. */
	bool lost = rblk_rdma_queue_lost(queue);

	/* It waits for an event, not a response: never late (aen.c). */
	if (rblk_aen_rq(rq) && !lost)
		return BLK_EH_RESET_TIMER;
	/* Polled, answered, but nobody reaped the answer: done, not late. */
	if (rblk_queue_polled(queue)) {
		rblk_rdma_poll(queue, NULL);
		if (test_bit(RBLK_REQ_DONE, &req->flags))
			return BLK_EH_DONE;
	}
	if (lost)
		dev_warn(ctrl->dev,
			 "qid %u: target closed the connection during %s\n",
			 queue->qid, rblk_cmd_name(queue, &req->cmd));
	else
		dev_warn_ratelimited(ctrl->dev,
				     "qid %u: command %#x (opcode %#x) timed out\n",
				     queue->qid, req->cmd.common.command_id,
				     req->cmd.common.opcode);

	/* Recovery cancels every request of the association. */
	if (st == RBLK_CTRL_LIVE || st == RBLK_CTRL_RESETTING) {
		rblk_ctrl_error(ctrl);
		return BLK_EH_RESET_TIMER;
	}

	/*
	 * Connecting or deleting: nobody else will end it. Once the queue is
	 * stopped no completion can race with ending it here.
	 */
	rblk_rdma_stop_queue(queue);
	rblk_req_end(rq, (lost ? NVME_SC_HOST_PATH_ERROR :
				 NVME_SC_HOST_ABORTED_CMD) | NVME_STATUS_DNR);
	return BLK_EH_DONE;
}

static bool rblk_abort_rq(struct request *rq, void *data)
{
	rblk_req_end(rq, NVME_SC_HOST_ABORTED_CMD);
	return true;
}

/* The request a CQE names, if its tag exists: the transport checks the rest. */
struct request *rblk_req_from_cid(struct rblk_queue *queue, u16 cid)
{
	struct rblk_ctrl *ctrl = queue->ctrl;
	struct blk_mq_tags *tags;

	/* A response may arrive before the tag set exists: never trust it. */
	if (queue->qid) {
		if (!READ_ONCE(ctrl->has_io_set) ||
		    queue->qid > ctrl->io_set.nr_hw_queues)
			return NULL;
		tags = ctrl->io_set.tags[queue->qid - 1];
	} else {
		if (!READ_ONCE(ctrl->has_admin_set))
			return NULL;
		tags = ctrl->admin_set.tags[0];
	}
	/* Bounds-checked against the tag map; NULL for a tag never used. */
	return blk_mq_tag_to_rq(tags, rblk_cid_tag(cid));
}

static bool rblk_expire_rq(struct request *rq, void *data)
{
	struct rblk_req *req = rblk_req(rq);

	/* The timeout handler re-checks RBLK_REQ_DONE: a stale look is fine. */
	if (req->queue == data && !test_bit(RBLK_REQ_DONE, &req->flags))
		blk_abort_request(rq);
	return true;
}

/*
 * The transport lost @queue during bring-up, when nothing would notice
 * before the command timeout: its commands end now, through the timeout
 * handler, which stops the queue first (see rblk_ctrl_queue_lost()).
 */
void rblk_req_expire_queue(struct rblk_queue *queue)
{
	struct rblk_ctrl *ctrl = queue->ctrl;
	struct blk_mq_tag_set *set = NULL;

	if (!queue->qid && READ_ONCE(ctrl->has_admin_set))
		set = &ctrl->admin_set;
	else if (queue->qid && READ_ONCE(ctrl->has_io_set))
		set = &ctrl->io_set;
	if (set)
		blk_mq_tagset_busy_iter(set, rblk_expire_rq, queue);
}

/* Ends every request of @set; only after its queues are stopped. */
void rblk_req_abort_all(struct blk_mq_tag_set *set)
{
	blk_mq_tagset_busy_iter(set, rblk_abort_rq, NULL);
}

/* The same, and returns once their completions have run. */
void rblk_req_cancel_all(struct blk_mq_tag_set *set)
{
	rblk_req_abort_all(set);
	blk_mq_tagset_wait_completed_request(set);
}

static int rblk_init_request(struct blk_mq_tag_set *set, struct request *rq,
			     unsigned int hctx_idx, unsigned int numa_node)
{
	struct rblk_req *req = rblk_req(rq);

	/* The transport's part too: nothing is mapped yet. */
	memset(req, 0, set->cmd_size);
	/* Idle: a response naming this tag is refused. */
	set_bit(RBLK_REQ_DONE, &req->flags);
	return 0;
}

static int rblk_init_admin_hctx(struct blk_mq_hw_ctx *hctx, void *data,
				unsigned int hctx_idx)
{
	struct rblk_ctrl *ctrl = data;

	hctx->driver_data = &ctrl->queues[0];
	return 0;
}

static int rblk_init_io_hctx(struct blk_mq_hw_ctx *hctx, void *data,
			     unsigned int hctx_idx)
{
	struct rblk_ctrl *ctrl = data;

	if (hctx_idx + 1 >= ctrl->max_queues)
		return -EINVAL;
	hctx->driver_data = &ctrl->queues[hctx_idx + 1];
	return 0;
}

/* The batch ended on an error, before its last command: ring anyway. */
static void rblk_commit_rqs(struct blk_mq_hw_ctx *hctx)
{
	rblk_rdma_commit(hctx->driver_data);
}

const struct blk_mq_ops rblk_admin_mq_ops = {
	.queue_rq	= rblk_queue_rq,
	.commit_rqs	= rblk_commit_rqs,
	.complete	= rblk_complete_rq,
	.init_request	= rblk_init_request,
	.init_hctx	= rblk_init_admin_hctx,
	.timeout	= rblk_timeout,
};

const struct blk_mq_ops rblk_io_mq_ops = {
	.queue_rq	= rblk_queue_rq,
	.commit_rqs	= rblk_commit_rqs,
	.complete	= rblk_complete_rq,
	.init_request	= rblk_init_request,
	.init_hctx	= rblk_init_io_hctx,
	.timeout	= rblk_timeout,
	.map_queues	= rblk_tagset_map_queues,
	.poll		= rblk_rdma_poll_hctx,
};
