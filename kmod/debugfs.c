// SPDX-License-Identifier: GPL-2.0
/*
 * rblk: /sys/kernel/debug/rblk/rblkN/, what a developer or an operator
 * checks when I/O does not go where it should: "queues" lists each I/O
 * queue with its blk-mq map (default, read, poll), its size, the commands
 * posted on it, the signaled work requests among them, the doorbells rung
 * (ib_post_send() calls) and the posts made with bottom halves off (the
 * bh_posts parameter). Debugfs is no ABI; sysfs and netlink are.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "nvme.h"

static struct dentry *rblk_debugfs_root;

static const char * const rblk_map_names[HCTX_MAX_TYPES] = {
	[HCTX_TYPE_DEFAULT]	= "default",
	[HCTX_TYPE_READ]	= "read",
	[HCTX_TYPE_POLL]	= "poll",
};

static int rblk_queues_show(struct seq_file *m, void *unused)
{
	struct rblk_ctrl *ctrl = m->private;
	u32 i, n = READ_ONCE(ctrl->nr_io_queues);

	seq_puts(m, "qid map size posted signaled doorbells inline\n");
	/* nr_io_queues is set once the queue array exists, which stays. */
	for (i = 1; i <= n && i < ctrl->max_queues; i++) {
		struct rblk_queue *q = &ctrl->queues[i];
		struct rblk_xprt_counts c;

		rblk_rdma_queue_counts(q, &c);
		seq_printf(m, "%u %s %u %lu %lu %lu %lu\n", q->qid,
			   rblk_map_names[q->map], READ_ONCE(q->size), c.cmds,
			   c.signaled, c.doorbells, c.inline_tx);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rblk_queues);

void rblk_debugfs_add(struct rblk_ctrl *ctrl)
{
	ctrl->debugfs = debugfs_create_dir(ctrl->name, rblk_debugfs_root);
	debugfs_create_file("queues", 0400, ctrl->debugfs, ctrl,
			    &rblk_queues_fops);
}

void rblk_debugfs_del(struct rblk_ctrl *ctrl)
{
	debugfs_remove_recursive(ctrl->debugfs);
	ctrl->debugfs = NULL;
}

void rblk_debugfs_init(void)
{
	rblk_debugfs_root = debugfs_create_dir("rblk", NULL);
}

void rblk_debugfs_exit(void)
{
	debugfs_remove_recursive(rblk_debugfs_root);
}
