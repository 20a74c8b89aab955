// SPDX-License-Identifier: GPL-2.0
/*
 * rblk: temporary stand-ins until the transport lands. A controller
 * "connects" without touching the network, so the control plane can be
 * exercised end to end.
 */
#include "core.h"

int rblk_ctrl_connect(struct rblk_ctrl *ctrl, bool first,
		      struct netlink_ext_ack *extack)
{
	rblk_ctrl_change_state(ctrl, RBLK_CTRL_LIVE);
	return 0;
}

void rblk_ctrl_teardown(struct rblk_ctrl *ctrl, bool remove)
{
}

void rblk_ctrl_init_works(struct rblk_ctrl *ctrl)
{
}

void rblk_ctrl_stop_works(struct rblk_ctrl *ctrl)
{
}

void rblk_ns_remove_all(struct rblk_ctrl *ctrl)
{
}

int rblk_rdma_init(void)
{
	return 0;
}

void rblk_rdma_exit(void)
{
}
