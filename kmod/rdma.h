/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rblk: what the NVMe core asks of its transport (rdma.c): bring a queue's
 * connection up, stop it (after which none of its completions runs) and
 * free it; map, unmap and post one command, reap a poll queue; the limits it imposes on a
 * request; whether a controller uses a given RDMA device. The transport
 * calls back into the core through request.c (rblk_req_from_cid(),
 * rblk_req_done(), rblk_req_expire_queue()) and rblk_ctrl_error().
 */
#ifndef _RBLK_RDMA_H
#define _RBLK_RDMA_H

#include <linux/sizes.h>
#include <linux/types.h>

struct ib_device;
struct netlink_ext_ack;
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

int rblk_rdma_alloc_queue(struct rblk_ctrl *ctrl, u16 qid, u16 size,
			  struct netlink_ext_ack *extack);
void rblk_rdma_stop_queue(struct rblk_queue *queue);
void rblk_rdma_free_queue(struct rblk_queue *queue);
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
int rblk_rdma_post_cmd(struct rblk_queue *queue, struct request *rq);
/* Reaps the completions of a poll queue; 0 on any other. */
int rblk_rdma_poll(struct rblk_queue *queue);

#endif /* _RBLK_RDMA_H */
