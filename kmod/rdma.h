/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rblk: what the NVMe core asks of its transport (rdma.c): bring a queue's
 * connection up, start it once its Fabrics Connect is done, stop it (after
 * which none of its completions runs) and free it; whether it is live or
 * lost; map, unmap and post one command (or a batch: post, then commit),
 * reap a poll queue; the limits it imposes on a request; whether a
 * controller uses a given RDMA device. A queue's state is the transport's
 * own. The transport calls back into the core through request.c
 * (rblk_req_from_cid(), rblk_req_done(), rblk_req_done_polled()) and
 * connect.c (rblk_ctrl_queue_lost() when the peer breaks a queue,
 * rblk_ctrl_error() on any other error).
 */
#ifndef _RBLK_RDMA_H
#define _RBLK_RDMA_H

#include <linux/sizes.h>
#include <linux/types.h>

struct blk_mq_hw_ctx;
struct ib_device;
struct io_comp_batch;
struct rblk_ctrl;
struct rblk_queue;
struct request;

/* ib_map_mr_sg() takes 4 KiB pages: no gap may fall inside one. */
#define RBLK_RDMA_VIRT_BOUNDARY	(SZ_4K - 1)

/* What one request may be, given how the transport maps it. */
struct rblk_xprt_limits {
	u32		max_hw_sectors;
	u16		max_segments;
	unsigned long	virt_boundary;
};

int rblk_rdma_init(void);
void rblk_rdma_exit(void);

/*
 * On failure *@reason may say why, for the user: static text, or NULL
 * when there is nothing to add to the error code.
 */
int rblk_rdma_alloc_queue(struct rblk_ctrl *ctrl, u16 qid, u16 size,
			  const char **reason);
/* Its Fabrics Connect succeeded: every command may go now (live). */
void rblk_rdma_start_queue(struct rblk_queue *queue);
void rblk_rdma_stop_queue(struct rblk_queue *queue);
void rblk_rdma_free_queue(struct rblk_queue *queue);

/*
 * A queue's state, the transport's alone (rdma.c's ordering rules), in
 * struct rblk_queue's xprt_flags. Allocated and live are asked inline
 * (nvme.h: rblk_rdma_queue_allocated(), rblk_rdma_queue_live()).
 */
enum rblk_rdma_queue_flag {
	RBLK_RDMA_Q_ALLOCATED,	/* QP, CQ and buffers exist */
	RBLK_RDMA_Q_CONNECTED,	/* RC connection up and not yet drained */
	RBLK_RDMA_Q_LIVE,	/* Fabrics Connect done: all commands allowed */
	RBLK_RDMA_Q_LOST,	/* peer broke the connection: end commands */
};

/*
 * The peer broke it (and rblk_ctrl_queue_lost() was called), till it is
 * allocated again. A full barrier orders the caller's stores before the
 * test: rdma.c's ordering rules say what it pairs with.
 */
bool rblk_rdma_queue_lost(struct rblk_queue *queue);
/* After the last queue is freed: what the queues shared (the PD). */
void rblk_rdma_put_device(struct rblk_ctrl *ctrl);
/* The transport's part of a controller: with its queue array, till release. */
int rblk_rdma_alloc_ctrl(struct rblk_ctrl *ctrl);
void rblk_rdma_free_ctrl(struct rblk_ctrl *ctrl);

/* Valid once the admin queue is allocated. */
void rblk_rdma_limits(struct rblk_ctrl *ctrl, struct rblk_xprt_limits *l);
bool rblk_rdma_uses_device(struct rblk_ctrl *ctrl, struct ib_device *ibdev);

/* Bytes the transport keeps behind each struct rblk_req. */
unsigned int rblk_rdma_req_size(void);
int rblk_rdma_map_data(struct rblk_queue *queue, struct request *rq);
void rblk_rdma_unmap_data(struct rblk_queue *queue, struct request *rq);
int rblk_rdma_post_cmd(struct rblk_queue *queue, struct request *rq, bool last);
void rblk_rdma_commit(struct rblk_queue *queue);
/*
 * Reaps the completions of a poll queue, those that succeed into @iob
 * (may be NULL); 0 on any other queue.
 */
int rblk_rdma_poll(struct rblk_queue *queue, struct io_comp_batch *iob);
/* The same as blk-mq's ->poll (polled I/O, Connect on a poll queue). */
int rblk_rdma_poll_hctx(struct blk_mq_hw_ctx *hctx, struct io_comp_batch *iob);

/* What a queue's send side did, ever (debugfs). */
struct rblk_xprt_counts {
	unsigned long	cmds;		/* commands posted */
	unsigned long	signaled;	/* signaled WRs among them */
	unsigned long	doorbells;	/* ib_post_send() calls */
	unsigned long	inline_tx;	/* posts with bottom halves off */
};

void rblk_rdma_queue_counts(struct rblk_queue *queue,
			    struct rblk_xprt_counts *c);

#endif /* _RBLK_RDMA_H */
