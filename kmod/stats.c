// SPDX-License-Identifier: GPL-2.0
/*
 * rblk: per-controller counters. One table, indexed by enum rblk_stat,
 * names each counter for sysfs (/sys/class/rblk/rblkN/<name>) and netlink
 * (its RBLK_STAT_ATTR_*); the data path counts per CPU, readers sum.
 *
 * blk-mq's own disk statistics are per namespace and count what reaches
 * the disk, not what the target answered (a request whose bios were
 * handed back is no read, an error is not counted at all), so rblk keeps
 * its own.
 */
#include <linux/device.h>
#include <linux/percpu.h>
#include <linux/sysfs.h>

#include "nvme.h"

struct rblk_stat_desc {
	const char	*name;		/* NULL: internal, not exported */
	int		nl_attr;	/* enum rblk_stat_attr */
};

static const struct rblk_stat_desc rblk_stat_descs[RBLK_STAT_NR] = {
	[RBLK_STAT_READS]	= { "reads", RBLK_STAT_ATTR_READS },
	[RBLK_STAT_WRITES]	= { "writes", RBLK_STAT_ATTR_WRITES },
	[RBLK_STAT_READ_BYTES]	= { "read_bytes", RBLK_STAT_ATTR_READ_BYTES },
	[RBLK_STAT_WRITE_BYTES]	= { "write_bytes", RBLK_STAT_ATTR_WRITE_BYTES },
	[RBLK_STAT_ERRORS]	= { "errors", RBLK_STAT_ATTR_ERRORS },
	[RBLK_STAT_FAILOVERS]	= { "failovers", RBLK_STAT_ATTR_FAILOVERS },
	[RBLK_STAT_RECONNECTS]	= { "reconnects", RBLK_STAT_ATTR_RECONNECTS },
	[RBLK_STAT_INFLIGHT]	= { "inflight", RBLK_STAT_ATTR_INFLIGHT },
};

int rblk_stats_alloc(struct rblk_ctrl *ctrl)
{
	int cpu;

	ctrl->stats = alloc_percpu(struct rblk_pcpu_stats);
	if (!ctrl->stats)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(ctrl->stats, cpu)->syncp);
	atomic64_set(&ctrl->reconnects, 0);
	return 0;
}

void rblk_stats_free(struct rblk_ctrl *ctrl)
{
	free_percpu(ctrl->stats);
	ctrl->stats = NULL;
}

/*
 * Writers run in process context (queue_rq, aborts) and in the CQ's
 * softirq on the same CPU, hence the _irqsave variant; on 64-bit it
 * neither disables interrupts nor takes a seqcount (u64_stats_sync.h).
 */
static void rblk_stats_add(struct rblk_pcpu_stats *s, enum rblk_stat i, u64 v)
{
	u64_stats_add(&s->c[i], v);
}

/*
 * The end point: a request ends (request.c's rblk_req_finish(), its batch,
 * or an error queue_rq returns), with its outcome; the end of its start,
 * if it was started. @failover: it handed its bios back to its head.
 */
void rblk_stats_end(struct rblk_ctrl *ctrl, struct request *rq,
		    blk_status_t sts, bool failover)
{
	struct rblk_req *req = rblk_req(rq);
	struct rblk_pcpu_stats *s;
	unsigned long flags;

	if (blk_rq_is_passthrough(rq))
		return;
	s = get_cpu_ptr(ctrl->stats);
	flags = u64_stats_update_begin_irqsave(&s->syncp);
	if (req->in_stats)
		rblk_stats_add(s, RBLK_STAT_COMPLETED, 1);
	req->in_stats = false;
	if (sts != BLK_STS_OK) {
		rblk_stats_add(s, RBLK_STAT_ERRORS, 1);
	} else if (failover) {
		rblk_stats_add(s, RBLK_STAT_FAILOVERS, 1);
	} else if (!blk_rq_bytes(rq)) {
		/* Its bios were handed back for resubmission, or a flush. */
	} else if (req_op(rq) == REQ_OP_READ) {
		rblk_stats_add(s, RBLK_STAT_READS, 1);
		rblk_stats_add(s, RBLK_STAT_READ_BYTES, blk_rq_bytes(rq));
	} else if (req_op(rq) == REQ_OP_WRITE) {
		rblk_stats_add(s, RBLK_STAT_WRITES, 1);
		rblk_stats_add(s, RBLK_STAT_WRITE_BYTES, blk_rq_bytes(rq));
	}
	u64_stats_update_end_irqrestore(&s->syncp, flags);
	put_cpu_ptr(ctrl->stats);
}

void rblk_ctrl_get_stats(struct rblk_ctrl *ctrl, struct rblk_ctrl_stats *st)
{
	u64 started, completed;
	unsigned int seq, i;
	int cpu;

	memset(st, 0, sizeof(*st));
	for_each_possible_cpu(cpu) {
		struct rblk_pcpu_stats *s = per_cpu_ptr(ctrl->stats, cpu);
		u64 v[RBLK_STAT_NR_PCPU];

		do {
			seq = u64_stats_fetch_begin(&s->syncp);
			for (i = 0; i < RBLK_STAT_NR_PCPU; i++)
				v[i] = u64_stats_read(&s->c[i]);
		} while (u64_stats_fetch_retry(&s->syncp, seq));
		for (i = 0; i < RBLK_STAT_NR_PCPU; i++)
			st->v[i] += v[i];
	}
	st->v[RBLK_STAT_RECONNECTS] = atomic64_read(&ctrl->reconnects);
	/* Per-cpu sums are not one snapshot: never report a negative. */
	started = st->v[RBLK_STAT_STARTED];
	completed = st->v[RBLK_STAT_COMPLETED];
	st->v[RBLK_STAT_INFLIGHT] = started > completed ? started - completed : 0;
}

int rblk_stats_nl_put(struct sk_buff *msg, struct rblk_ctrl *ctrl)
{
	struct rblk_ctrl_stats st;
	struct nlattr *nest;
	unsigned int i;

	rblk_ctrl_get_stats(ctrl, &st);
	nest = nla_nest_start(msg, RBLK_ATTR_STATS);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < RBLK_STAT_NR; i++) {
		if (!rblk_stat_descs[i].name)
			continue;
		if (nla_put_u64_64bit(msg, rblk_stat_descs[i].nl_attr, st.v[i],
				      RBLK_STAT_ATTR_PAD))
			return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

/* sysfs: one read-only file per exported counter, built from the table. */
struct rblk_stat_dev_attr {
	struct device_attribute	attr;
	enum rblk_stat		stat;
};

static ssize_t rblk_stat_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	struct rblk_stat_dev_attr *a;
	struct rblk_ctrl_stats st;

	a = container_of(attr, struct rblk_stat_dev_attr, attr);
	rblk_ctrl_get_stats(dev_get_drvdata(dev), &st);
	return sysfs_emit(buf, "%llu\n", st.v[a->stat]);
}

static struct rblk_stat_dev_attr rblk_stat_attrs[RBLK_STAT_NR];
static struct attribute *rblk_stat_attr_ptrs[RBLK_STAT_NR + 1];

const struct attribute_group rblk_stats_attr_group = {
	.attrs		= rblk_stat_attr_ptrs,
};

/* Before the class registers: fills the group from the table. */
void rblk_stats_sysfs_init(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < RBLK_STAT_NR; i++) {
		struct rblk_stat_dev_attr *a = &rblk_stat_attrs[i];

		if (!rblk_stat_descs[i].name)
			continue;
		a->attr.attr.name = rblk_stat_descs[i].name;
		a->attr.attr.mode = 0444;
		a->attr.show = rblk_stat_show;
		a->stat = i;
		rblk_stat_attr_ptrs[n++] = &a->attr.attr;
	}
}
