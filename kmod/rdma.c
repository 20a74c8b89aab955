// SPDX-License-Identifier: GPL-2.0
/*
 * rblk: the RDMA transport. One rdma_cm id, RC QP and CQ per NVMe queue.
 * Commands leave as SEND capsules, responses land in posted receive
 * buffers, and data moves by the target's RDMA READ/WRITE on memory that
 * is registered per request (FRWR) and invalidated before a request that
 * was answered completes, so the target cannot reach a page the host got
 * back from it. A request ended without its answer (a timeout while
 * connecting or deleting, the cancel of a recovery or delete) gives its
 * MR back uninvalidated, once its own QP is drained; the key then stays
 * valid in the controller's PD until its queue is freed (the MR pool goes
 * with the QP), and another QP of the association still connected could
 * use it: the other queues while a timeout's abort_work has not stopped
 * them yet (rblk_timeout(), rblk_ctrl_error()), the admin queue between a
 * teardown's cancel of the I/O requests and its freeing of their queues.
 * nvme-rdma leaves the same windows, wider (its PD is the device's,
 * shared by every controller on it). A poll queue's CQ raises no
 * interrupt: blk-mq's ->poll and our own drain reap it.
 *
 * The fast path costs one completion per command where it can: a SEND
 * whose only buffer is its own SQE is posted unsignaled (the response
 * proves the target has the capsule; a retransmission after that reads a
 * buffer that stays mapped and is dropped as a duplicate), every
 * sig_every-th one is signaled so the provider retires the send queue,
 * and the SQ's occupancy is counted so it can never overflow. blk-mq's
 * batch (bd->last, ->commit_rqs) goes out as one chain, one doorbell.
 * With the bh_posts parameter (off by default: it halves 6.1's QD32 on
 * rxe), an idle controller posts with bottom halves off, so that a
 * software provider's requester runs on our way out rather than in
 * ksoftirqd.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/log2.h>
#include <linux/wait.h>
#include <rdma/mr_pool.h>
#include <rdma/rdma_cm.h>

#include "compat.h"
#include "nvme.h"

#include <linux/nvme-rdma.h>	/* needs the types nvme.h pulls in */

#define RBLK_RDMA_MAX_FR_PAGES		256	/* pages per fast-reg MR */
#define RBLK_RDMA_MAX_INLINE_SGE	4	/* in-capsule data SGEs */
#define RBLK_RDMA_INLINE_SG_CNT		2	/* scatterlist chunk in the PDU */
#define RBLK_RDMA_CM_TIMEOUT_MS		3000	/* addr / route resolution */
#define RBLK_RDMA_CM_WAIT_MS		20000	/* whole rdma_cm bring-up */
#define RBLK_RDMA_DRAIN_TIMEOUT		(10 * HZ)
/* How long a teardown holds CM messages back for a port that is down. */
#define RBLK_RDMA_PORT_WAIT		(15 * HZ)	/* keep-alive off */
/* ib_dispatch_event() drops an event it has no memory for: look again. */
#define RBLK_RDMA_PORT_RECHECK		HZ
/* At most this many WRs (a read has 2) between two signaled ones. */
#define RBLK_RDMA_MAX_SIG_EVERY		32

/* As nvme-rdma's register_always: a trade-off, chosen at load time. */
static bool rblk_rdma_bh_posts;
module_param_named(bh_posts, rblk_rdma_bh_posts, bool, 0444);
MODULE_PARM_DESC(bh_posts,
		 "post with bottom halves off while the controller is idle, so that a software RDMA provider (rxe) sends at once: one I/O at a time gains (QD1 IOPS up to 1.4x), parallel I/O loses (QD32 IOPS a quarter to a half) (default N)");

/* Bumped and woken on every port event of every device we know. */
static DECLARE_WAIT_QUEUE_HEAD(rblk_rdma_port_wq);
static atomic_t rblk_rdma_port_events = ATOMIC_INIT(0);

/* A receive buffer's WR, built once with the QP: reposted as it is. */
struct rblk_rdma_recv {
	struct ib_cqe		cqe;
	struct ib_sge		sge;		/* cqes[idx] */
	struct ib_recv_wr	wr;
	u32			idx;
};

/*
 * A queue's state (enum rblk_rdma_queue_flag in rdma.h), ours alone (as
 * nvme-rdma's NVME_RDMA_Q_*), kept in the core queue's xprt_flags so that
 * its data path tests it without a call: the core asks for it through
 * rdma.h (rblk_rdma_queue_live(), _allocated(), _lost()), makes a queue
 * live with rblk_rdma_start_queue() and hears of a loss through
 * rblk_ctrl_queue_lost(). Atomic bitops, written here only.
 *
 * Memory ordering, all of it here. A loss must meet what the core does
 * at the same time, so that one side always sees the other:
 *  1. rblk_queue_rq() starts a bring-up command, then asks
 *     rblk_rdma_queue_lost(); rblk_rdma_conn_lost() sets LOST, then the
 *     core looks for started commands (rblk_req_expire_queue()).
 *  2. rblk_ctrl_connect() makes the controller LIVE, then asks
 *     rblk_rdma_queue_lost() of every queue; rblk_rdma_conn_lost() sets
 *     LOST, then rblk_ctrl_error() reads the state.
 * In both the asking side's barrier is the smp_mb() in
 * rblk_rdma_queue_lost(), the losing side's the test_and_set_bit() (a
 * value-returning atomic) in rblk_rdma_conn_lost(). ALLOCATED against a
 * poller: poll_lock (rblk_rdma_poll(), rblk_rdma_free_queue()).
 *
 * The RDMA side of one NVMe queue: its rdma_cm id, RC QP and CQ and the
 * buffers they use. Locking: ctrl, qid and nq are constant; the
 * association's owner sets up everything else before
 * RBLK_RDMA_Q_ALLOCATED and frees it only after rblk_rdma_stop_queue(),
 * so the data path reads it without a lock while the queue is allocated.
 */
struct rblk_rdma_queue {
	struct rblk_ctrl	*ctrl;
	u16			qid;
	struct rblk_queue	*nq;		/* the core's queue */
	unsigned long		*flags;		/* &nq->xprt_flags */
	struct mutex		stop_lock;	/* serialises stop vs. stop */
	/* A poll queue's reapers, one at a time, and its CQ's destruction. */
	spinlock_t		poll_lock;
	struct io_comp_batch	*poll_iob;	/* poll_lock: blk-mq's, while it reaps */
	struct rdma_cm_id	*cm_id;
	struct ib_device	*ibdev;
	struct ib_cq		*cq;
	struct ib_qp		*qp;
	bool			mr_pool;
	struct nvme_command	*sqes;		/* one per tag, DMA to device */
	dma_addr_t		sqes_dma;
	struct nvme_completion	*cqes;		/* receive buffers */
	dma_addr_t		cqes_dma;
	struct rblk_rdma_recv	*recvs;
	u32			inline_bytes;	/* in-capsule data allowed */
	u32			inline_sge;
	/* Written by the CM handler before cm_done completes, read after. */
	int			cm_error;
	const char		*cm_msg;	/* static: why, for the user */
	struct completion	cm_done;
	struct ib_cqe		drain_sq_cqe;
	struct ib_cqe		drain_rq_cqe;
	struct completion	drain_sq;
	struct completion	drain_rq;
	/*
	 * The send queue, under sq_lock: the chain blk-mq has not committed
	 * yet (batch, up to *batch_tail), the WRs ever handed over including
	 * that chain (sq_head), and the position of the last signaled one
	 * (sq_sig). The provider retires WRs in order, up to a signaled one
	 * when its completion is reaped: sq_done, written there (one CQ
	 * context at a time) and read here, trails sq_head by what the SQ
	 * holds. sig_every and sq_room are set with the QP.
	 */
	spinlock_t		sq_lock;
	struct ib_send_wr	*batch;
	struct ib_send_wr	**batch_tail;
	u32			sq_head;
	u32			sq_sig;
	u32			sq_done;
	u32			sig_every;
	u32			sq_room;	/* WRs new commands may hold */
	/*
	 * Responses received (CQ context), counted on from nr_cmds at the
	 * QP's setup: equal to nr_cmds when the queue is idle.
	 */
	unsigned long		nr_answered;
	/*
	 * For debugfs, under sq_lock; they count across reconnects. nr_cmds
	 * is also read unlocked, by rblk_rdma_queue_idle().
	 */
	unsigned long		nr_cmds;
	unsigned long		nr_signaled;
	unsigned long		nr_doorbells;	/* ib_post_send() calls */
	unsigned long		nr_inline;	/* posts with bottom halves off */
};

/*
 * The transport's part of a request, right behind struct rblk_req in the
 * blk-mq PDU (rblk_rdma_req_size() bytes). Owned like the request.
 */
struct rblk_rdma_req {
	struct ib_cqe		send_cqe;
	struct ib_cqe		reg_cqe;
	struct ib_cqe		inv_cqe;
	struct ib_reg_wr	reg_wr;
	struct ib_send_wr	send_wr;	/* may wait in the batch */
	/* SQ positions of its signaled SEND and LOCAL_INV (sq_head's count). */
	u32			send_seq;
	u32			inv_seq;
	struct ib_sge		sge[1 + RBLK_RDMA_MAX_INLINE_SGE];
	u8			num_sge;
	struct ib_mr		*mr;
	int			dma_nents;
	struct sg_table		sgt;
	struct scatterlist	first_sgl[];
};

static struct rblk_rdma_req *rblk_rdma_req(struct rblk_req *req)
{
	return (struct rblk_rdma_req *)(req + 1);
}

static struct rblk_req *rblk_rdma_to_req(struct rblk_rdma_req *rr)
{
	return (struct rblk_req *)rr - 1;
}

unsigned int rblk_rdma_req_size(void)
{
	return sizeof(struct rblk_rdma_req) +
	       sizeof(struct scatterlist) * RBLK_RDMA_INLINE_SG_CNT;
}

/* What a controller's queues share; lives as long as the controller. */
struct rblk_rdma_ctrl {
	struct ib_pd		*pd;		/* per association */
	u32			max_fr_pages;	/* with the PD */
	unsigned long		port_wait_end;	/* cmpxchg; jiffies, 0 = not waiting */
	struct rblk_rdma_queue	queues[];	/* as ctrl->queues[] */
};

static struct rblk_rdma_queue *rblk_rdma_q(struct rblk_queue *nq)
{
	return nq->xprt;
}

/*
 * The last reference ends the request: into blk-mq's completion batch
 * when an io_uring poll reaps it (poll_iob), one by one otherwise.
 */
static void rblk_rdma_req_put(struct rblk_rdma_queue *queue,
			      struct rblk_req *req)
{
	if (!atomic_dec_and_test(&req->pending))
		return;
	if (queue->poll_iob)
		rblk_req_done_polled(blk_mq_rq_from_pdu(req), queue->poll_iob);
	else
		rblk_req_done(blk_mq_rq_from_pdu(req));
}

/*
 * The peer broke the connection of @queue (CM disconnect, QP error, failed
 * work request): the core hears of it once, through
 * rblk_ctrl_queue_lost(), and of anything after as an error. Callable
 * from any context; our own stop clears CONNECTED first and so never
 * gets here.
 */
static void rblk_rdma_conn_lost(struct rblk_rdma_queue *queue)
{
	if (!test_bit(RBLK_RDMA_Q_CONNECTED, queue->flags) ||
	    test_and_set_bit(RBLK_RDMA_Q_LOST, queue->flags)) {
		rblk_ctrl_error(queue->ctrl);
		return;
	}
	/*
	 * Full barrier (value-returning atomic): LOST, then the core looks
	 * for what pairs with it (the ordering rules above).
	 */
	rblk_ctrl_queue_lost(queue->nq);
}

bool rblk_rdma_queue_lost(struct rblk_queue *nq)
{
	/*
	 * The caller's last store (a started command, the controller's LIVE
	 * state), then LOST. Pairs with the test_and_set_bit() in
	 * rblk_rdma_conn_lost() (the ordering rules above).
	 */
	smp_mb();
	return test_bit(RBLK_RDMA_Q_LOST, &nq->xprt_flags);
}

/* Its Fabrics Connect succeeded: every command may go now. */
void rblk_rdma_start_queue(struct rblk_queue *nq)
{
	set_bit(RBLK_RDMA_Q_LIVE, &nq->xprt_flags);
}

static void rblk_rdma_wr_error(struct ib_cq *cq, struct ib_wc *wc,
			       const char *op)
{
	struct rblk_rdma_queue *queue = cq->cq_context;

	/*
	 * A flush on a queue that nobody stopped and that was not lost yet:
	 * the QP went to the error state and said nothing else, so say it,
	 * or the recovery that follows has no cause in the log.
	 */
	if (wc->status != IB_WC_WR_FLUSH_ERR)
		dev_err_ratelimited(queue->ctrl->dev,
				    "qid %u: %s failed: %s (%d)\n", queue->qid,
				    op, ib_wc_status_msg(wc->status),
				    wc->status);
	else if (test_bit(RBLK_RDMA_Q_CONNECTED, queue->flags) &&
		 !test_bit(RBLK_RDMA_Q_LOST, queue->flags))
		dev_err_ratelimited(queue->ctrl->dev,
				    "qid %u: %s flushed: the QP is in the error state\n",
				    queue->qid, op);
	rblk_rdma_conn_lost(queue);
}

/*
 * Only a signaled SEND succeeds here; an unsignaled one may fail here
 * after its request was answered and reused, so a failure touches the
 * queue only, never the request.
 */
static void rblk_rdma_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rblk_rdma_req *rr = container_of(wc->wr_cqe,
						struct rblk_rdma_req, send_cqe);
	struct rblk_rdma_queue *queue = cq->cq_context;

	/* A failed request is left to error recovery to cancel. */
	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		rblk_rdma_wr_error(cq, wc, "SEND");
		return;
	}
	/* Retired up to here; read by rblk_rdma_sq_admit(). */
	WRITE_ONCE(queue->sq_done, rr->send_seq);
	rblk_rdma_req_put(queue, rblk_rdma_to_req(rr));
}

/* REG_MR is posted unsignaled: only its failures end up here (see above). */
static void rblk_rdma_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	if (unlikely(wc->status != IB_WC_SUCCESS))
		rblk_rdma_wr_error(cq, wc, "REG_MR");
}

static void rblk_rdma_inv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rblk_rdma_req *rr = container_of(wc->wr_cqe,
						struct rblk_rdma_req, inv_cqe);
	struct rblk_rdma_queue *queue = cq->cq_context;
	struct rblk_req *req = rblk_rdma_to_req(rr);

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		rblk_rdma_wr_error(cq, wc, "LOCAL_INV");
		return;
	}
	WRITE_ONCE(queue->sq_done, rr->inv_seq);
	clear_bit(RBLK_REQ_MR_VALID, &req->flags);
	rblk_rdma_req_put(queue, req);
}

static bool rblk_rdma_queue_idle(struct rblk_rdma_queue *queue)
{
	return READ_ONCE(queue->nr_cmds) == READ_ONCE(queue->nr_answered);
}

/*
 * Should this doorbell run a software provider's transmit inline? Posting
 * with bottom halves off makes the softirq it raises to send (rxe's
 * requester tasklet on 6.1) run when we unlock, here, instead of waking
 * ksoftirqd: a context switch less, which is latency when nothing else
 * is in flight (6.1, QD1: 1.3x the IOPS). With I/O in flight it is worse
 * (QD32: half the IOPS): the softirq work then runs serially in the
 * submitter instead of in ksoftirqd beside it, on another CPU than the
 * submitter moves to. So only when every I/O queue of the controller is
 * idle (each queue alone is idle often: a submitter moves between CPUs,
 * and so between queues). The counts are read unlocked: a guess is enough.
 */
static noinline bool rblk_rdma_ctrl_idle(struct rblk_rdma_queue *queue)
{
	struct rblk_ctrl *ctrl = queue->ctrl;
	u32 i, n;

	if (!rblk_rdma_queue_idle(queue))
		return false;
	n = min_t(u32, READ_ONCE(ctrl->nr_io_queues), ctrl->max_queues - 1);
	for (i = 1; i <= n; i++)
		if (!rblk_rdma_queue_idle(&ctrl->rdma->queues[i]))
			return false;
	return true;
}

/* The parameter's test inline: with it off (the default) that is all. */
static inline bool rblk_rdma_tx_inline(struct rblk_rdma_queue *queue)
{
	return unlikely(rblk_rdma_bh_posts) && rblk_rdma_ctrl_idle(queue);
}

/* sq_lock, with bottom halves off for @bh. Also taken from completions. */
static bool rblk_rdma_sq_lock(struct rblk_rdma_queue *queue,
			      unsigned long *flags, bool bh)
	__acquires(&queue->sq_lock)
{
	if (bh) {
		spin_lock_bh(&queue->sq_lock);
		queue->nr_inline++;
		return true;
	}
	spin_lock_irqsave(&queue->sq_lock, *flags);
	return false;
}

static void rblk_rdma_sq_unlock(struct rblk_rdma_queue *queue,
				unsigned long flags, bool bh)
	__releases(&queue->sq_lock)
{
	if (bh)
		spin_unlock_bh(&queue->sq_lock);
	else
		spin_unlock_irqrestore(&queue->sq_lock, flags);
}

/* A post failed: the queue is broken, recovery ends what did not go. */
static void rblk_rdma_sq_broken(struct rblk_rdma_queue *queue, int ret)
{
	dev_err_ratelimited(queue->ctrl->dev,
			    "qid %u: cannot post to the send queue: %d\n",
			    queue->qid, ret);
	rblk_ctrl_error(queue->ctrl);
}

/*
 * Under sq_lock, with no chain waiting: rings the doorbell for @wr and
 * those behind it. Returns whether they all got onto the QP (a partial
 * post leaves the last, a command's SEND, behind).
 */
static bool rblk_rdma_sq_post(struct rblk_rdma_queue *queue,
			      const struct ib_send_wr *wr)
{
	int ret;

	queue->nr_doorbells++;
	ret = ib_post_send(queue->qp, wr, NULL);
	if (likely(!ret))
		return true;
	rblk_rdma_sq_broken(queue, ret);
	return false;
}

/*
 * Under sq_lock: rings the doorbell for the chain. Returns whether the
 * caller's WRs, up to @mine (NULL: none), all got onto the QP. A failed
 * post breaks the queue; recovery ends the commands whose WRs did not.
 */
static bool rblk_rdma_sq_flush(struct rblk_rdma_queue *queue,
			       const struct ib_send_wr *mine)
{
	const struct ib_send_wr *bad = NULL, *wr;
	struct ib_send_wr *chain = queue->batch;
	int ret;

	if (!chain)
		return true;
	queue->batch = NULL;
	queue->batch_tail = &queue->batch;
	queue->nr_doorbells++;
	ret = ib_post_send(queue->qp, chain, &bad);
	if (likely(!ret))
		return true;
	rblk_rdma_sq_broken(queue, ret);
	for (wr = chain; wr && wr != bad; wr = wr->next)
		if (wr == mine)
			return true;
	return !mine;
}

/* Under sq_lock: puts first..last at the end of the chain. */
static void rblk_rdma_sq_append(struct rblk_rdma_queue *queue,
				struct ib_send_wr *first, struct ib_send_wr *last,
				u32 nwr)
{
	last->next = NULL;
	*queue->batch_tail = first;
	queue->batch_tail = &last->next;
	queue->sq_head += nwr;
}

/* From a completion: a LOCAL_INV goes out at once, behind the chain. */
static int rblk_rdma_post_inv(struct rblk_rdma_queue *queue,
			      struct rblk_req *req)
{
	struct rblk_rdma_req *rr = rblk_rdma_req(req);
	struct ib_send_wr wr = {
		.opcode		    = IB_WR_LOCAL_INV,
		.send_flags	    = IB_SEND_SIGNALED,
		.ex.invalidate_rkey = rr->mr->rkey,
		.wr_cqe		    = &rr->inv_cqe,
	};
	unsigned long flags = 0;
	bool bh, posted;

	rr->inv_cqe.done = rblk_rdma_inv_done;
	bh = rblk_rdma_sq_lock(queue, &flags, false);
	/* No room check: sq_room leaves one slot per command for this. */
	rblk_rdma_sq_append(queue, &wr, &wr, 1);
	rr->inv_seq = queue->sq_head;
	queue->sq_sig = queue->sq_head;
	queue->nr_signaled++;
	posted = rblk_rdma_sq_flush(queue, &wr);
	rblk_rdma_sq_unlock(queue, flags, bh);
	return posted ? 0 : -EIO;
}

/* Never trusts the CQE: unknown, stale or repeated ids reset the ctrl. */
static void rblk_rdma_process_cqe(struct rblk_rdma_queue *queue,
				  struct nvme_completion *cqe, struct ib_wc *wc)
{
	u16 cid = cqe->command_id;
	struct rblk_rdma_req *rr;
	struct rblk_req *req;
	struct request *rq;

	rq = rblk_req_from_cid(queue->nq, cid);
	if (unlikely(!rq))
		goto invalid;
	req = rblk_req(rq);
	rr = rblk_rdma_req(req);
	if (unlikely(req->queue != queue->nq ||
		     req->gen != rblk_cid_gen(cid) ||
		     test_bit(RBLK_REQ_DONE, &req->flags) ||
		     test_and_set_bit(RBLK_REQ_CQE, &req->flags)))
		goto invalid;

	req->status = le16_to_cpu(cqe->status) >> 1;
	req->result = cqe->result;

	if (wc->wc_flags & IB_WC_WITH_INVALIDATE) {
		if (unlikely(!rr->mr ||
			     wc->ex.invalidate_rkey != rr->mr->rkey)) {
			dev_err_ratelimited(queue->ctrl->dev,
					    "qid %u: bogus remote invalidation of rkey %#x\n",
					    queue->qid, wc->ex.invalidate_rkey);
			rblk_ctrl_error(queue->ctrl);
			return;
		}
		clear_bit(RBLK_REQ_MR_VALID, &req->flags);
	} else if (test_bit(RBLK_REQ_MR_VALID, &req->flags)) {
		/*
		 * The local invalidation's completion drops this reference;
		 * if it cannot be posted, recovery ends the request.
		 */
		rblk_rdma_post_inv(queue, req);
		return;
	}
	rblk_rdma_req_put(queue, req);
	return;

invalid:
	dev_err_ratelimited(queue->ctrl->dev,
			    "qid %u: completion with invalid command id %#x\n",
			    queue->qid, cid);
	rblk_ctrl_error(queue->ctrl);
}

static int rblk_rdma_post_recv(struct rblk_rdma_queue *queue,
			       struct rblk_rdma_recv *r)
{
	return ib_post_recv(queue->qp, &r->wr, NULL);
}

static void rblk_rdma_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rblk_rdma_recv *r = container_of(wc->wr_cqe,
						struct rblk_rdma_recv, cqe);
	struct rblk_rdma_queue *queue = cq->cq_context;
	dma_addr_t dma = r->sge.addr;
	int ret;

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		rblk_rdma_wr_error(cq, wc, "RECV");
		return;
	}
	if (unlikely(wc->byte_len < sizeof(struct nvme_completion))) {
		dev_err_ratelimited(queue->ctrl->dev,
				    "qid %u: short response (%u bytes)\n",
				    queue->qid, wc->byte_len);
		rblk_ctrl_error(queue->ctrl);
		return;
	}

	ib_dma_sync_single_for_cpu(queue->ibdev, dma,
				   sizeof(struct nvme_completion),
				   DMA_FROM_DEVICE);
	WRITE_ONCE(queue->nr_answered, queue->nr_answered + 1);
	rblk_rdma_process_cqe(queue, &queue->cqes[r->idx], wc);
	ib_dma_sync_single_for_device(queue->ibdev, dma,
				      sizeof(struct nvme_completion),
				      DMA_FROM_DEVICE);
	ret = rblk_rdma_post_recv(queue, r);
	if (unlikely(ret)) {
		dev_err_ratelimited(queue->ctrl->dev,
				    "qid %u: cannot repost a receive: %d\n",
				    queue->qid, ret);
		rblk_ctrl_error(queue->ctrl);
	}
}

static void rblk_rdma_recv_init(struct rblk_rdma_queue *queue,
				struct rblk_rdma_recv *r, u32 idx)
{
	r->idx = idx;
	r->cqe.done = rblk_rdma_recv_done;
	r->sge.addr = queue->cqes_dma + idx * sizeof(struct nvme_completion);
	r->sge.length = sizeof(struct nvme_completion);
	r->sge.lkey = queue->ctrl->rdma->pd->local_dma_lkey;
	r->wr.next = NULL;
	r->wr.wr_cqe = &r->cqe;
	r->wr.sg_list = &r->sge;
	r->wr.num_sge = 1;
}

/* One pass over a poll queue's CQ, bounded by what the queue can hold. */
static int rblk_rdma_reap(struct rblk_rdma_queue *queue)
{
	return ib_process_cq_direct(queue->cq, 4 * queue->nq->size);
}

/*
 * A drain marker's completion. A direct CQ delivers it only when reaped,
 * and a stopped queue may have no poller left: reap it ourselves.
 */
static bool rblk_rdma_drain_wait(struct rblk_rdma_queue *queue,
				 struct completion *done)
{
	unsigned long end = jiffies + RBLK_RDMA_DRAIN_TIMEOUT;

	if (!rblk_queue_polled(queue->nq))
		return wait_for_completion_timeout(done,
						   RBLK_RDMA_DRAIN_TIMEOUT);
	for (;;) {
		spin_lock(&queue->poll_lock);
		rblk_rdma_reap(queue);
		spin_unlock(&queue->poll_lock);
		if (wait_for_completion_timeout(done, 1))
			return true;
		if (time_after(jiffies, end))
			return false;
	}
}

/*
 * A poller spins on this, mostly finding nothing: it keeps to the queue,
 * @iob and the count, so that an empty reap costs little beyond the lock.
 */
static int __rblk_rdma_poll(struct rblk_rdma_queue *queue,
			    struct io_comp_batch *iob)
{
	int n = 0;

	spin_lock(&queue->poll_lock);
	/* Pairs with rblk_rdma_free_queue(): no CQ once ALLOCATED is clear. */
	if (likely(test_bit(RBLK_RDMA_Q_ALLOCATED, queue->flags))) {
		queue->poll_iob = iob;
		n = rblk_rdma_reap(queue);
		queue->poll_iob = NULL;
	}
	spin_unlock(&queue->poll_lock);
	return n;
}

int rblk_rdma_poll(struct rblk_queue *nq, struct io_comp_batch *iob)
{
	if (!rblk_queue_polled(nq))
		return 0;
	return __rblk_rdma_poll(rblk_rdma_q(nq), iob);
}

int rblk_rdma_poll_hctx(struct blk_mq_hw_ctx *hctx, struct io_comp_batch *iob)
{
	return rblk_rdma_poll(hctx->driver_data, iob);
}

static void rblk_rdma_drain_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rblk_rdma_queue *queue = cq->cq_context;

	if (wc->wr_cqe == &queue->drain_sq_cqe)
		complete(&queue->drain_sq);
	else
		complete(&queue->drain_rq);
}

/*
 * Like ib_drain_qp(), but bounded: a provider that never flushes must not
 * hang delete. Devices with their own drain (iWARP refuses posts on an
 * errored QP) keep using theirs.
 */
static void rblk_rdma_drain_qp(struct rblk_rdma_queue *queue)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct ib_rdma_wr swr = {
		.wr = {
			.opcode	= IB_WR_RDMA_WRITE,
			.wr_cqe	= &queue->drain_sq_cqe,
		},
	};
	struct ib_recv_wr rwr = { .wr_cqe = &queue->drain_rq_cqe };
	int ret;

	/* What blk-mq handed us goes first: the marker must be last. */
	rblk_rdma_commit(queue->nq);

	if (queue->ibdev->ops.drain_sq || queue->ibdev->ops.drain_rq) {
		ib_drain_qp(queue->qp);
		return;
	}

	queue->drain_sq_cqe.done = rblk_rdma_drain_done;
	queue->drain_rq_cqe.done = rblk_rdma_drain_done;
	init_completion(&queue->drain_sq);
	init_completion(&queue->drain_rq);

	ret = ib_modify_qp(queue->qp, &attr, IB_QP_STATE);
	if (ret) {
		dev_err(queue->ctrl->dev,
			"qid %u: cannot move QP to error: %d\n", queue->qid,
			ret);
		return;
	}
	if (ib_post_send(queue->qp, &swr.wr, NULL))
		complete(&queue->drain_sq);
	if (ib_post_recv(queue->qp, &rwr, NULL))
		complete(&queue->drain_rq);
	if (!rblk_rdma_drain_wait(queue, &queue->drain_sq) ||
	    !rblk_rdma_drain_wait(queue, &queue->drain_rq))
		dev_err(queue->ctrl->dev, "qid %u: QP drain timed out\n",
			queue->qid);
}

/* The device's own view: the port cache is updated later, from a work. */
static bool rblk_rdma_port_active(struct rblk_rdma_queue *queue)
{
	struct ib_port_attr attr;

	if (ib_query_port(queue->ibdev, queue->cm_id->port_num, &attr))
		return true;	/* unknown: do not hold anything back */
	return attr.state == IB_PORT_ACTIVE;
}

/*
 * soft-RoCE looks up the IP route of every packet as it sends it, and
 * while the netdev is down that fails. On an RC QP the failure is what
 * starts recovery (LOC_QP_OP_ERR), but on the GSI QP it moves the QP to
 * error: ib_mad moves it back to RTS, yet rxe (6.1) leaves its receive
 * side in error for good, so the device never takes another CM message
 * and no connection over it can be made again. rdma_disconnect() and
 * destroying a connected cm_id both send a DREQ: while the port is down,
 * wait for it, once per controller and for one keep-alive timeout at
 * most: by then the target drops the association and sends its own DREQ.
 */
static void rblk_rdma_wait_port_active(struct rblk_rdma_queue *queue)
{
	struct rblk_ctrl *ctrl = queue->ctrl;
	unsigned long start = jiffies, end;

	if (rblk_rdma_port_active(queue)) {
		WRITE_ONCE(ctrl->rdma->port_wait_end, 0);
		return;
	}
	end = jiffies + (ctrl->kato ? ctrl->kato * HZ : RBLK_RDMA_PORT_WAIT);
	/* The first queue to find the port down sets the deadline. */
	if (cmpxchg(&ctrl->rdma->port_wait_end, 0, end ?: 1))
		end = READ_ONCE(ctrl->rdma->port_wait_end);
	dev_info(ctrl->dev,
		 "qid %u: RDMA port down: holding back the disconnect\n",
		 queue->qid);
	/*
	 * Not wait_event on rblk_rdma_port_active(): the query may sleep (rxe
	 * takes a mutex). An event after the snapshot ends the wait at once.
	 */
	for (;;) {
		int seen = atomic_read(&rblk_rdma_port_events);
		long left;

		/* The snapshot, then the port: rblk_rdma_ib_event() does it backwards. */
		smp_rmb();
		if (rblk_rdma_port_active(queue)) {
			dev_info(ctrl->dev,
				 "qid %u: RDMA port active after %u ms\n",
				 queue->qid, jiffies_to_msecs(jiffies - start));
			return;
		}
		left = (long)(end - jiffies);
		if (left <= 0) {
			dev_info(ctrl->dev,
				 "qid %u: RDMA port still down: disconnecting\n",
				 queue->qid);
			return;
		}
		wait_event_timeout(rblk_rdma_port_wq,
				   atomic_read(&rblk_rdma_port_events) != seen,
				   min_t(long, left, RBLK_RDMA_PORT_RECHECK));
	}
}

/*
 * After this no completion of the queue runs any more, so its in-flight
 * requests can be cancelled without racing the CQ.
 */
static void __rblk_rdma_stop_queue(struct rblk_rdma_queue *queue)
{
	mutex_lock(&queue->stop_lock);
	clear_bit(RBLK_RDMA_Q_LIVE, queue->flags);
	if (test_and_clear_bit(RBLK_RDMA_Q_CONNECTED, queue->flags)) {
		rblk_rdma_wait_port_active(queue);
		rdma_disconnect(queue->cm_id);
		rblk_rdma_drain_qp(queue);
	}
	mutex_unlock(&queue->stop_lock);
}

static void rblk_rdma_unmap_buf(struct rblk_rdma_queue *queue, void **buf,
				dma_addr_t dma, size_t len,
				enum dma_data_direction dir)
{
	if (!*buf)
		return;
	if (dma)
		ib_dma_unmap_single(queue->ibdev, dma, len, dir);
	kfree(*buf);
	*buf = NULL;
}

/*
 * An unsignaled REG_MR of @mr under a fresh key: keys the target kept
 * from the last registration are dead.
 */
static void rblk_rdma_reg_wr_init(struct ib_reg_wr *reg, struct ib_cqe *cqe,
				  struct ib_mr *mr, int access)
{
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	memset(reg, 0, sizeof(*reg));
	cqe->done = rblk_rdma_reg_done;
	reg->wr.opcode = IB_WR_REG_MR;
	reg->wr.wr_cqe = cqe;
	reg->mr = mr;
	reg->key = mr->rkey;
	reg->access = access;
}

/* Frees whatever rblk_rdma_queue_create_ib() got to; the cm_id is gone. */
static void rblk_rdma_queue_destroy_ib(struct rblk_rdma_queue *queue)
{
	if (queue->mr_pool)
		ib_mr_pool_destroy(queue->qp, &queue->qp->rdma_mrs);
	queue->mr_pool = false;
	if (queue->qp)
		ib_destroy_qp(queue->qp);
	queue->qp = NULL;
	if (queue->cq)
		ib_free_cq(queue->cq);
	queue->cq = NULL;
	rblk_rdma_unmap_buf(queue, (void **)&queue->sqes, queue->sqes_dma,
			    rblk_queue_nr_sqes(queue->nq) * sizeof(struct nvme_command),
			    DMA_TO_DEVICE);
	rblk_rdma_unmap_buf(queue, (void **)&queue->cqes, queue->cqes_dma,
			    queue->nq->size * sizeof(struct nvme_completion),
			    DMA_FROM_DEVICE);
	queue->sqes_dma = 0;
	queue->cqes_dma = 0;
	kfree(queue->recvs);
	queue->recvs = NULL;
}

static int rblk_rdma_map_buf(struct rblk_rdma_queue *queue, void **buf, dma_addr_t *dma,
			     size_t len, enum dma_data_direction dir)
{
	*buf = kzalloc(len, GFP_KERNEL);
	if (!*buf)
		return -ENOMEM;
	*dma = ib_dma_map_single(queue->ibdev, *buf, len, dir);
	if (ib_dma_mapping_error(queue->ibdev, *dma)) {
		*dma = 0;
		return -ENOMEM;
	}
	return 0;
}

static void rblk_rdma_qp_event(struct ib_event *ev, void *context)
{
	struct rblk_rdma_queue *queue = context;

	switch (ev->event) {
	case IB_EVENT_COMM_EST:
	case IB_EVENT_SQ_DRAINED:
	case IB_EVENT_QP_LAST_WQE_REACHED:
		break;
	default:
		dev_err(queue->ctrl->dev, "qid %u: QP event %s (%d)\n",
			queue->qid, ib_event_msg(ev->event), ev->event);
		rblk_rdma_conn_lost(queue);
	}
}

/* The controller's PD lives on the device the admin queue resolved to. */
static int rblk_rdma_queue_check_device(struct rblk_rdma_queue *queue)
{
	struct rblk_ctrl *ctrl = queue->ctrl;
	struct ib_device *ibdev = queue->cm_id->device;
	const struct ib_device_attr *attrs = &ibdev->attrs;

	queue->ibdev = ibdev;
	if (queue->qid) {
		if (ctrl->rdma->pd && ctrl->rdma->pd->device == ibdev)
			return 0;
		queue->cm_msg = "I/O queue resolved to another RDMA device";
		return -EXDEV;
	}
	if (ctrl->rdma->pd) {
		queue->cm_msg = "internal error: stale protection domain";
		return -EINVAL;
	}
	if (!(attrs->device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS) ||
	    attrs->max_fast_reg_page_list_len < 2) {
		queue->cm_msg = "RDMA device lacks fast registration (FRWR)";
		return -EOPNOTSUPP;
	}
	ctrl->rdma->pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(ctrl->rdma->pd)) {
		int ret = PTR_ERR(ctrl->rdma->pd);

		ctrl->rdma->pd = NULL;
		queue->cm_msg = "cannot allocate an RDMA protection domain";
		return ret;
	}
	/* The numa iopolicy prefers paths whose HCA is near the submitter. */
	WRITE_ONCE(ctrl->numa_node, ibdev_to_node(ibdev));
	/* One page less: an unaligned start costs a page of the MR. */
	ctrl->rdma->max_fr_pages = min_t(u32,
					 attrs->max_fast_reg_page_list_len - 1,
					 RBLK_RDMA_MAX_FR_PAGES);
	return 0;
}

static int rblk_rdma_queue_create_ib(struct rblk_rdma_queue *queue)
{
	struct rblk_ctrl *ctrl = queue->ctrl;
	struct ib_qp_init_attr init = {};
	const struct ib_device_attr *attrs;
	struct ib_device *ibdev;
	int cq_size, send_sge, ret, i;

	ret = rblk_rdma_queue_check_device(queue);
	if (ret)
		return ret;
	ibdev = queue->ibdev;
	attrs = &ibdev->attrs;

	/* Per request: REG_MR + SEND + LOCAL_INV; one more for the drain. */
	init.cap.max_send_wr = 3 * queue->nq->size + 1;
	init.cap.max_recv_wr = queue->nq->size + 1;
	/* Every WR may complete (flushes do), plus both drain markers. */
	cq_size = init.cap.max_send_wr + init.cap.max_recv_wr;
	if (init.cap.max_send_wr > attrs->max_qp_wr ||
	    cq_size > attrs->max_cqe) {
		queue->cm_msg = "queue size exceeds the RDMA device's limits";
		return -EINVAL;
	}

	/*
	 * New commands may hold 2 WRs each of the SQ (REG_MR, SEND) and
	 * wait there unretired, up to 2 x size; the third share is for the
	 * LOCAL_INVs of the commands in flight, posted from completions
	 * without a check. A signaled SEND at least every sig_every: when
	 * the SQ is full, its command still waits for it, and its end
	 * restarts the hardware queue.
	 */
	queue->sq_room = 2 * queue->nq->size;
	queue->sig_every = clamp_t(u32, queue->nq->size / 2, 1,
				   RBLK_RDMA_MAX_SIG_EVERY);
	queue->batch = NULL;
	queue->batch_tail = &queue->batch;
	queue->sq_head = 0;
	queue->sq_sig = 0;
	queue->sq_done = 0;
	queue->nr_answered = queue->nr_cmds;

	send_sge = min_t(int, attrs->max_send_sge,
			 1 + RBLK_RDMA_MAX_INLINE_SGE);
	queue->inline_sge = queue->inline_bytes ? send_sge - 1 : 0;
	if (!queue->inline_sge)
		queue->inline_bytes = 0;

	queue->cq = ib_alloc_cq(ibdev, queue, cq_size,
				queue->qid % ibdev->num_comp_vectors,
				rblk_queue_polled(queue->nq) ? IB_POLL_DIRECT :
							       IB_POLL_SOFTIRQ);
	if (IS_ERR(queue->cq)) {
		ret = PTR_ERR(queue->cq);
		queue->cq = NULL;
		goto err;
	}

	init.event_handler = rblk_rdma_qp_event;
	init.qp_context = queue;
	init.cap.max_send_sge = 1 + queue->inline_sge;
	init.cap.max_recv_sge = 1;
	init.sq_sig_type = IB_SIGNAL_REQ_WR;
	init.qp_type = IB_QPT_RC;
	init.send_cq = queue->cq;
	init.recv_cq = queue->cq;
	ret = rdma_create_qp(queue->cm_id, ctrl->rdma->pd, &init);
	if (ret)
		goto err;
	queue->qp = queue->cm_id->qp;

	ret = rblk_rdma_map_buf(queue, (void **)&queue->sqes, &queue->sqes_dma,
				rblk_queue_nr_sqes(queue->nq) * sizeof(struct nvme_command),
				DMA_TO_DEVICE);
	if (ret)
		goto err;
	ret = rblk_rdma_map_buf(queue, (void **)&queue->cqes, &queue->cqes_dma,
				queue->nq->size * sizeof(struct nvme_completion),
				DMA_FROM_DEVICE);
	if (ret)
		goto err;
	queue->recvs = kcalloc(queue->nq->size, sizeof(*queue->recvs), GFP_KERNEL);
	if (!queue->recvs) {
		ret = -ENOMEM;
		goto err;
	}

	ret = ib_mr_pool_init(queue->qp, &queue->qp->rdma_mrs, queue->nq->size,
			      IB_MR_TYPE_MEM_REG, ctrl->rdma->max_fr_pages + 1, 0);
	if (ret)
		goto err;
	queue->mr_pool = true;

	for (i = 0; i < queue->nq->size; i++) {
		rblk_rdma_recv_init(queue, &queue->recvs[i], i);
		ret = rblk_rdma_post_recv(queue, &queue->recvs[i]);
		if (ret)
			goto err;
	}
	return 0;

err:
	if (!queue->cm_msg)
		queue->cm_msg = "cannot allocate RDMA queue resources";
	return ret;
}

static int rblk_rdma_cm_connect(struct rblk_rdma_queue *queue)
{
	struct nvme_rdma_cm_req priv = {
		.recfmt	 = cpu_to_le16(NVME_RDMA_CM_FMT_1_0),
		.qid	 = cpu_to_le16(queue->qid),
		/* Our receive queue, and the 0's based SQ size. */
		.hrqsize = cpu_to_le16(queue->nq->size),
		.hsqsize = cpu_to_le16(queue->nq->size - 1),
	};
	struct rdma_conn_param param = {
		.qp_num			= queue->qp->qp_num,
		.flow_control		= 1,
		/* The target reads our write payloads. */
		.responder_resources	= queue->ibdev->attrs.max_qp_rd_atom,
		.retry_count		= 7,
		.rnr_retry_count	= 7,
		.private_data		= &priv,
		.private_data_len	= sizeof(priv),
	};

	return rdma_connect_locked(queue->cm_id, &param);
}

struct rblk_rdma_rej_reason {
	const char	*msg;
	int		err;
};

static const struct rblk_rdma_rej_reason rblk_rdma_rej_reasons[] = {
	[NVME_RDMA_CM_INVALID_LEN] = {
		"target rejected the RDMA connection: invalid private data length",
		-EINVAL },
	[NVME_RDMA_CM_INVALID_RECFMT] = {
		"target rejected the RDMA connection: invalid record format",
		-EINVAL },
	[NVME_RDMA_CM_INVALID_QID] = {
		"target rejected the RDMA connection: invalid queue ID",
		-EINVAL },
	[NVME_RDMA_CM_INVALID_HSQSIZE] = {
		"target rejected the RDMA connection: invalid host SQ size",
		-EINVAL },
	[NVME_RDMA_CM_INVALID_HRQSIZE] = {
		"target rejected the RDMA connection: invalid host RQ size",
		-EINVAL },
	[NVME_RDMA_CM_NO_RSC] = {
		"target rejected the RDMA connection: no resources",
		-ENOSPC },
	[NVME_RDMA_CM_INVALID_IRD] = {
		"target rejected the RDMA connection: invalid IRD",
		-EINVAL },
	[NVME_RDMA_CM_INVALID_ORD] = {
		"target rejected the RDMA connection: invalid ORD",
		-EINVAL },
};

static int rblk_rdma_cm_rejected(struct rblk_rdma_queue *queue,
				 struct rdma_cm_event *ev)
{
	const struct nvme_rdma_cm_rej *rej;
	u8 len = 0;
	u16 sts;

	rej = rdma_consumer_reject_data(queue->cm_id, ev, &len);
	if (!rej || len < sizeof(*rej)) {
		dev_err(queue->ctrl->dev, "qid %u: connection rejected: %s\n",
			queue->qid, rdma_reject_msg(queue->cm_id, ev->status));
		queue->cm_msg = "connection rejected (no NVMe-oF listener at this address?)";
		return -ECONNREFUSED;
	}
	sts = le16_to_cpu(rej->sts);
	dev_err(queue->ctrl->dev,
		"qid %u: target rejected the connection: %s (%u)\n", queue->qid,
		nvme_rdma_cm_msg(sts), sts);
	if (sts < ARRAY_SIZE(rblk_rdma_rej_reasons) &&
	    rblk_rdma_rej_reasons[sts].msg) {
		queue->cm_msg = rblk_rdma_rej_reasons[sts].msg;
		return rblk_rdma_rej_reasons[sts].err;
	}
	queue->cm_msg = "target rejected the RDMA connection: unknown reason";
	return -ECONNREFUSED;
}

/* The target's receive queue must hold every command we may send. */
static int rblk_rdma_cm_established(struct rblk_rdma_queue *queue,
				    struct rdma_cm_event *ev)
{
	const struct nvme_rdma_cm_rep *rep = ev->param.conn.private_data;
	u16 crqsize;

	if (!rep || ev->param.conn.private_data_len < sizeof(*rep))
		return 0;
	crqsize = le16_to_cpu(rep->crqsize);
	if (crqsize && crqsize < queue->nq->size - 1) {
		dev_err(queue->ctrl->dev,
			"qid %u: target receive queue (%u) smaller than our SQ (%u)\n",
			queue->qid, crqsize, queue->nq->size - 1);
		queue->cm_msg = "target receive queue smaller than the host SQ";
		return -EINVAL;
	}
	return 0;
}

static int rblk_rdma_cm_handler(struct rdma_cm_id *cm_id,
				struct rdma_cm_event *ev)
{
	struct rblk_rdma_queue *queue = cm_id->context;
	int err = 0;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		err = rblk_rdma_queue_create_ib(queue);
		/* Before the route: it is part of the path that is looked up. */
		if (!err && queue->ctrl->opts.tos >= 0)
			rdma_set_service_type(cm_id, queue->ctrl->opts.tos);
		if (!err)
			err = rdma_resolve_route(cm_id,
						 RBLK_RDMA_CM_TIMEOUT_MS);
		if (!err)
			return 0;
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		/* A REQ sent now would break the device's CM for good. */
		if (!rblk_rdma_port_active(queue)) {
			queue->cm_msg = "RDMA port is down";
			err = -ENETDOWN;
			break;
		}
		err = rblk_rdma_cm_connect(queue);
		if (!err)
			return 0;
		/*
		 * iWARP makes its TCP connection inside rdma_connect(): a port
		 * nobody listens on refuses it here, not by a REJECTED event.
		 */
		queue->cm_msg = err == -ECONNREFUSED ?
			"connection rejected (no NVMe-oF listener at this address?)" :
			"cannot start the RDMA connection";
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		set_bit(RBLK_RDMA_Q_CONNECTED, queue->flags);
		err = rblk_rdma_cm_established(queue, ev);
		break;
	case RDMA_CM_EVENT_REJECTED:
		err = rblk_rdma_cm_rejected(queue, ev);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
		queue->cm_msg = queue->ctrl->opts.src_addr.ss_family ?
				"cannot reach the target address from host_traddr" :
				"cannot resolve the target address";
		err = -EHOSTUNREACH;
		break;
	case RDMA_CM_EVENT_ROUTE_ERROR:
		queue->cm_msg = "cannot resolve a route to the target";
		err = -EHOSTUNREACH;
		break;
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
		queue->cm_msg = "target unreachable over RDMA";
		err = -ECONNRESET;
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		/* The ib_client removes the controllers; unblock a connect. */
		if (!completion_done(&queue->cm_done)) {
			queue->cm_msg = "RDMA device removed";
			err = -ENETDOWN;
			break;
		}
		return 0;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		/* Not of our own making (stop clears CONNECTED first)? */
		if (test_bit(RBLK_RDMA_Q_CONNECTED, queue->flags)) {
			dev_info(queue->ctrl->dev, "qid %u: %s\n", queue->qid,
				 rdma_event_msg(ev->event));
			rblk_rdma_conn_lost(queue);
		}
		return 0;
	default:
		return 0;
	}

	if (err)
		dev_dbg(queue->ctrl->dev, "qid %u: %s: %d\n", queue->qid,
			rdma_event_msg(ev->event), err);
	queue->cm_error = err;
	complete(&queue->cm_done);
	/* Never non-zero: the cm_id is ours to destroy. */
	return 0;
}

static void rblk_rdma_queue_release(struct rblk_rdma_queue *queue)
{
	/* Waits for a handler still running and stops new events. */
	rdma_destroy_id(queue->cm_id);
	queue->cm_id = NULL;
	rblk_rdma_queue_destroy_ib(queue);
}

/* Why rdma_resolve_addr() refused at once, for the one who connects. */
static const char *rblk_rdma_resolve_err(struct rblk_ctrl *ctrl, int err)
{
	if (!ctrl->opts.src_addr.ss_family)
		return "cannot resolve the target address";
	switch (err) {
	case -EADDRNOTAVAIL:
		return "host_traddr is not an address of this host";
	case -ENODEV:
		return "host_traddr is not on an RDMA device";
	default:
		return "cannot bind to host_traddr and resolve the target address";
	}
}

int rblk_rdma_alloc_queue(struct rblk_ctrl *ctrl, u16 qid, u16 size,
			  const char **reason)
{
	struct rblk_rdma_queue *queue = &ctrl->rdma->queues[qid];
	long left;
	int ret;

	queue->nq->size = size;
	*queue->flags = 0;
	queue->cm_error = -ETIMEDOUT;
	queue->cm_msg = NULL;
	queue->inline_bytes = 0;
	/* In-capsule data on I/O queues only, as nvmet-rdma allows. */
	if (qid && ctrl->ioccsz > sizeof(struct nvme_command))
		queue->inline_bytes = ctrl->ioccsz - sizeof(struct nvme_command);
	init_completion(&queue->cm_done);

	queue->cm_id = rdma_create_id(&init_net, rblk_rdma_cm_handler, queue,
				      RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(queue->cm_id)) {
		ret = PTR_ERR(queue->cm_id);
		queue->cm_id = NULL;
		*reason = "cannot create an RDMA CM id";
		return ret;
	}

	/* Binds to host_traddr first: that fails now, before any event. */
	ret = rdma_resolve_addr(queue->cm_id,
				ctrl->opts.src_addr.ss_family ?
				(struct sockaddr *)&ctrl->opts.src_addr : NULL,
				(struct sockaddr *)&ctrl->opts.addr,
				RBLK_RDMA_CM_TIMEOUT_MS);
	if (ret) {
		*reason = rblk_rdma_resolve_err(ctrl, ret);
		goto out_release;
	}

	left = msecs_to_jiffies(RBLK_RDMA_CM_WAIT_MS);
	left = wait_for_completion_interruptible_timeout(&queue->cm_done, left);
	if (left < 0) {
		ret = -EINTR;
		*reason = "interrupted while connecting";
		goto out_release;
	}
	ret = left ? queue->cm_error : -ETIMEDOUT;
	if (ret) {
		*reason = left ? queue->cm_msg :
				 "timed out connecting the RDMA queue";
		goto out_release;
	}

	set_bit(RBLK_RDMA_Q_ALLOCATED, queue->flags);
	/* Connected: a later loss of the port gets a fresh wait. */
	WRITE_ONCE(ctrl->rdma->port_wait_end, 0);
	return 0;

out_release:
	dev_dbg(ctrl->dev, "qid %u: connect failed: %d\n", qid, ret);
	rblk_rdma_queue_release(queue);
	clear_bit(RBLK_RDMA_Q_CONNECTED, queue->flags);
	return ret;
}

void rblk_rdma_stop_queue(struct rblk_queue *nq)
{
	__rblk_rdma_stop_queue(rblk_rdma_q(nq));
}

void rblk_rdma_free_queue(struct rblk_queue *nq)
{
	struct rblk_rdma_queue *queue = rblk_rdma_q(nq);

	if (!test_and_clear_bit(RBLK_RDMA_Q_ALLOCATED, queue->flags))
		return;
	/* A reaper that saw ALLOCATED is done before the CQ goes. */
	spin_lock(&queue->poll_lock);
	spin_unlock(&queue->poll_lock);
	__rblk_rdma_stop_queue(queue);
	rblk_rdma_queue_release(queue);
}

/* With the core's queue array: one RDMA queue behind each. */
int rblk_rdma_alloc_ctrl(struct rblk_ctrl *ctrl)
{
	struct rblk_rdma_ctrl *rc;
	u32 i;

	rc = kzalloc(struct_size(rc, queues, ctrl->max_queues), GFP_KERNEL);
	if (!rc)
		return -ENOMEM;
	for (i = 0; i < ctrl->max_queues; i++) {
		mutex_init(&rc->queues[i].stop_lock);
		spin_lock_init(&rc->queues[i].poll_lock);
		spin_lock_init(&rc->queues[i].sq_lock);
		rc->queues[i].ctrl = ctrl;
		rc->queues[i].qid = i;
		rc->queues[i].nq = &ctrl->queues[i];
		rc->queues[i].flags = &ctrl->queues[i].xprt_flags;
		ctrl->queues[i].xprt = &rc->queues[i];
	}
	ctrl->rdma = rc;
	return 0;
}

void rblk_rdma_free_ctrl(struct rblk_ctrl *ctrl)
{
	kfree(ctrl->rdma);
	ctrl->rdma = NULL;
}

void rblk_rdma_put_device(struct rblk_ctrl *ctrl)
{
	if (ctrl->rdma->pd)
		ib_dealloc_pd(ctrl->rdma->pd);
	ctrl->rdma->pd = NULL;
}

/* One fast-registration MR maps a request: its page list bounds it. */
void rblk_rdma_limits(struct rblk_ctrl *ctrl, struct rblk_xprt_limits *l)
{
	l->max_hw_sectors = ctrl->rdma->max_fr_pages << (ilog2(SZ_4K) - SECTOR_SHIFT);
	l->max_segments = ctrl->rdma->max_fr_pages;
	l->virt_boundary = RBLK_RDMA_VIRT_BOUNDARY;
}

bool rblk_rdma_uses_device(struct rblk_ctrl *ctrl, struct ib_device *ibdev)
{
	/* Before its first connect a controller has no transport part yet. */
	return ctrl->rdma && ctrl->rdma->pd && ctrl->rdma->pd->device == ibdev;
}

/* Small writes ride in the command capsule: no registration at all. */
static void rblk_rdma_map_inline(struct rblk_rdma_queue *queue,
				 struct rblk_req *req, int nents)
{
	struct rblk_rdma_req *rr = rblk_rdma_req(req);
	struct nvme_sgl_desc *sg = &req->cmd.common.dptr.sgl;
	struct scatterlist *s;
	u32 len = 0;
	int i;

	for_each_sg(rr->sgt.sgl, s, nents, i) {
		rr->sge[1 + i].addr = sg_dma_address(s);
		rr->sge[1 + i].length = sg_dma_len(s);
		rr->sge[1 + i].lkey = queue->ctrl->rdma->pd->local_dma_lkey;
		len += sg_dma_len(s);
	}
	rr->num_sge = 1 + nents;
	sg->addr = 0;	/* ICDOFF is 0: data follows the SQE */
	sg->length = cpu_to_le32(len);
	sg->type = (NVME_SGL_FMT_DATA_DESC << 4) | NVME_SGL_FMT_OFFSET;
}

static int rblk_rdma_map_fr(struct rblk_rdma_queue *queue, struct request *rq,
			    int nents)
{
	struct rblk_req *req = rblk_req(rq);
	struct rblk_rdma_req *rr = rblk_rdma_req(req);
	struct nvme_keyed_sgl_desc *sg = &req->cmd.common.dptr.ksgl;
	int n;

	rr->mr = ib_mr_pool_get(queue->qp, &queue->qp->rdma_mrs);
	if (unlikely(!rr->mr))
		return -EAGAIN;

	n = ib_map_mr_sg(rr->mr, rr->sgt.sgl, nents, NULL, SZ_4K);
	if (unlikely(n < nents)) {
		ib_mr_pool_put(queue->qp, &queue->qp->rdma_mrs, rr->mr);
		rr->mr = NULL;
		return n < 0 ? n : -EINVAL;
	}
	rblk_rdma_reg_wr_init(&rr->reg_wr, &rr->reg_cqe, rr->mr,
			      rq_data_dir(rq) == WRITE ? IB_ACCESS_REMOTE_READ :
			      IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE);

	sg->addr = cpu_to_le64(rr->mr->iova);
	put_unaligned_le24(rr->mr->length, sg->length);
	put_unaligned_le32(rr->mr->rkey, sg->key);
	/* Ask the target to invalidate with its response (SEND_WITH_INV). */
	sg->type = (NVME_KEY_SGL_FMT_DATA_DESC << 4) | NVME_SGL_FMT_INVALIDATE;
	return 0;
}

int rblk_rdma_map_data(struct rblk_queue *nq, struct request *rq)
{
	struct rblk_rdma_queue *queue = rblk_rdma_q(nq);
	struct rblk_req *req = rblk_req(rq);
	struct rblk_rdma_req *rr = rblk_rdma_req(req);
	struct nvme_command *c = &req->cmd;
	int nents, ret;

	rr->num_sge = 1;
	rr->mr = NULL;
	rr->dma_nents = 0;
	c->common.flags |= NVME_CMD_SGL_METABUF;

	if (!blk_rq_nr_phys_segments(rq)) {
		struct nvme_keyed_sgl_desc *sg = &c->common.dptr.ksgl;

		sg->addr = 0;
		put_unaligned_le24(0, sg->length);
		put_unaligned_le32(0, sg->key);
		sg->type = NVME_KEY_SGL_FMT_DATA_DESC << 4;
		return 0;
	}

	rr->sgt.sgl = rr->first_sgl;
	ret = sg_alloc_table_chained(&rr->sgt, blk_rq_nr_phys_segments(rq),
				     rr->sgt.sgl, RBLK_RDMA_INLINE_SG_CNT);
	if (ret)
		return -ENOMEM;
	rr->sgt.nents = blk_rq_map_sg(rq->q, rq, rr->sgt.sgl);

	nents = ib_dma_map_sg(queue->ibdev, rr->sgt.sgl, rr->sgt.nents,
			      rq_dma_dir(rq));
	if (unlikely(nents <= 0)) {
		ret = -EIO;
		goto out_free_table;
	}

	if (rq_data_dir(rq) == WRITE && nents <= queue->inline_sge &&
	    blk_rq_payload_bytes(rq) <= queue->inline_bytes) {
		rblk_rdma_map_inline(queue, req, nents);
	} else {
		ret = rblk_rdma_map_fr(queue, rq, nents);
		if (ret)
			goto out_unmap;
	}
	rr->dma_nents = nents;
	return 0;

out_unmap:
	ib_dma_unmap_sg(queue->ibdev, rr->sgt.sgl, rr->sgt.nents,
			rq_dma_dir(rq));
out_free_table:
	sg_free_table_chained(&rr->sgt, RBLK_RDMA_INLINE_SG_CNT);
	return ret;
}

void rblk_rdma_unmap_data(struct rblk_queue *nq, struct request *rq)
{
	struct rblk_rdma_queue *queue = rblk_rdma_q(nq);
	struct rblk_req *req = rblk_req(rq);
	struct rblk_rdma_req *rr = rblk_rdma_req(req);

	if (!rr->dma_nents)
		return;
	if (rr->mr) {
		ib_mr_pool_put(queue->qp, &queue->qp->rdma_mrs, rr->mr);
		rr->mr = NULL;
	}
	ib_dma_unmap_sg(queue->ibdev, rr->sgt.sgl, rr->sgt.nents,
			rq_dma_dir(rq));
	sg_free_table_chained(&rr->sgt, RBLK_RDMA_INLINE_SG_CNT);
	rr->dma_nents = 0;
}

/*
 * Under sq_lock: may @nwr more WRs of a new command go on the SQ? When
 * they may not, a signaled WR is among those it holds (sq_room is at
 * least sig_every), and its command's end reruns the hardware queue.
 */
static bool rblk_rdma_sq_admit(struct rblk_rdma_queue *queue, u32 nwr)
{
	return queue->sq_head + nwr - READ_ONCE(queue->sq_done) <= queue->sq_room;
}

/*
 * Queues the command's REG_MR and SEND on the chain, and rings the
 * doorbell when @last (or batching is off). Returns 0, -EBUSY when the SQ
 * has no room (try again when a command ends), or -EIO: the QP is broken
 * and recovery is on its way.
 */
int rblk_rdma_post_cmd(struct rblk_queue *nq, struct request *rq, bool last)
{
	struct rblk_rdma_queue *queue = rblk_rdma_q(nq);
	struct rblk_req *req = rblk_req(rq);
	struct rblk_rdma_req *rr = rblk_rdma_req(req);
	struct nvme_command *sqe = &queue->sqes[rq->tag];
	dma_addr_t dma = queue->sqes_dma + rq->tag * sizeof(*sqe);
	struct ib_send_wr *wr = &rr->send_wr, *first = wr;
	u32 nwr = rr->mr ? 2 : 1;
	unsigned long flags = 0;
	bool bh, signal, posted = true;
	int ret = 0;

	ib_dma_sync_single_for_cpu(queue->ibdev, dma, sizeof(*sqe),
				   DMA_TO_DEVICE);
	memcpy(sqe, &req->cmd, sizeof(*sqe));
	ib_dma_sync_single_for_device(queue->ibdev, dma, sizeof(*sqe),
				      DMA_TO_DEVICE);

	rr->sge[0].addr = dma;
	rr->sge[0].length = sizeof(*sqe);
	rr->sge[0].lkey = queue->ctrl->rdma->pd->local_dma_lkey;

	rr->send_cqe.done = rblk_rdma_send_done;
	wr->wr_cqe = &rr->send_cqe;
	wr->sg_list = rr->sge;
	wr->num_sge = rr->num_sge;
	wr->opcode = IB_WR_SEND;

	if (rr->mr) {
		set_bit(RBLK_REQ_MR_VALID, &req->flags);
		rr->reg_wr.wr.next = wr;
		first = &rr->reg_wr.wr;
	}

	bh = rblk_rdma_sq_lock(queue, &flags, rblk_rdma_tx_inline(queue));
	if (unlikely(!rblk_rdma_sq_admit(queue, nwr))) {
		/* Nothing of it is on the wire: no key to invalidate. */
		clear_bit(RBLK_REQ_MR_VALID, &req->flags);
		ret = -EBUSY;
		goto flush;
	}
	/* In-capsule data must not be unmapped before the HCA is done. */
	signal = rr->num_sge > 1 ||
		 queue->sq_head + nwr - queue->sq_sig >= queue->sig_every;
	wr->send_flags = signal ? IB_SEND_SIGNALED : 0;
	wr->next = NULL;
	queue->sq_head += nwr;
	WRITE_ONCE(queue->nr_cmds, queue->nr_cmds + 1);
	if (signal) {
		/* Its completion is one more reference than the response. */
		atomic_inc(&req->pending);
		rr->send_seq = queue->sq_head;
		queue->sq_sig = queue->sq_head;
		queue->nr_signaled++;
	}
	if (likely(last && !queue->batch)) {
		/* Alone, as every command at QD1: no chain to build. */
		posted = rblk_rdma_sq_post(queue, first);
	} else {
		*queue->batch_tail = first;
		queue->batch_tail = &wr->next;
		if (last)
			posted = rblk_rdma_sq_flush(queue, wr);
	}
	rblk_rdma_sq_unlock(queue, flags, bh);
	return posted ? 0 : -EIO;

flush:
	/* blk-mq commits what it queued before an error, but why wait. */
	rblk_rdma_sq_flush(queue, NULL);
	rblk_rdma_sq_unlock(queue, flags, bh);
	return ret;
}

/* blk-mq's batch ended without a last command: ring for what it queued. */
void rblk_rdma_commit(struct rblk_queue *nq)
{
	struct rblk_rdma_queue *queue = rblk_rdma_q(nq);
	unsigned long flags = 0;
	bool bh;

	bh = rblk_rdma_sq_lock(queue, &flags, rblk_rdma_tx_inline(queue));
	rblk_rdma_sq_flush(queue, NULL);
	rblk_rdma_sq_unlock(queue, flags, bh);
}

void rblk_rdma_queue_counts(struct rblk_queue *nq, struct rblk_xprt_counts *c)
{
	struct rblk_rdma_queue *queue = rblk_rdma_q(nq);

	c->cmds = READ_ONCE(queue->nr_cmds);
	c->signaled = READ_ONCE(queue->nr_signaled);
	c->doorbells = READ_ONCE(queue->nr_doorbells);
	c->inline_tx = READ_ONCE(queue->nr_inline);
}

/* Runs from ib_wq once the device reports the new port state. */
static void rblk_rdma_ib_event(struct ib_event_handler *handler,
			       struct ib_event *ev)
{
	if (ev->event != IB_EVENT_PORT_ACTIVE && ev->event != IB_EVENT_PORT_ERR)
		return;
	/* The port state, then the count: pairs with rblk_rdma_wait_port_active(). */
	smp_mb__before_atomic();
	atomic_inc(&rblk_rdma_port_events);
	wake_up_all(&rblk_rdma_port_wq);
}

static struct ib_client rblk_rdma_ib_client;

static int rblk_rdma_ib_add_one(struct ib_device *ibdev)
{
	struct ib_event_handler *handler;

	/* Without it a port wait only looks once a second: not fatal. */
	handler = kzalloc(sizeof(*handler), GFP_KERNEL);
	if (!handler)
		return 0;
	INIT_IB_EVENT_HANDLER(handler, ibdev, rblk_rdma_ib_event);
	ib_register_event_handler(handler);
	ib_set_client_data(ibdev, &rblk_rdma_ib_client, handler);
	return 0;
}

static void rblk_rdma_ib_remove_one(struct ib_device *ibdev, void *client_data)
{
	struct ib_event_handler *handler = client_data;

	rblk_ctrls_delete_on_device(ibdev);
	if (handler) {
		ib_unregister_event_handler(handler);
		kfree(handler);
	}
}

static struct ib_client rblk_rdma_ib_client = {
	.name	= "rblk",
	.add	= rblk_rdma_ib_add_one,
	.remove	= rblk_rdma_ib_remove_one,
};

int rblk_rdma_init(void)
{
	return ib_register_client(&rblk_rdma_ib_client);
}

void rblk_rdma_exit(void)
{
	ib_unregister_client(&rblk_rdma_ib_client);
}
