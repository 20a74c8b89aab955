// SPDX-License-Identifier: GPL-2.0
/*
 * rblk: an association's life. Bring-up (admin queue, enable, identify,
 * I/O queues, none for a discovery controller) and tear-down, and error
 * recovery: a transport error moves
 * a live controller to RESETTING, tears the association down with its
 * requests requeued, and reconnects every reconnect_delay until
 * ctrl_loss_tmo gives up and deletes the controller; fast_io_fail_tmo
 * fails the waiting I/O earlier. A reconnect takes what the target grants
 * now (I/O queue count and size) and rescans the namespaces once live.
 *
 * Serialisation: bring-up and tear-down only run from the creator, the
 * error work, the reconnect work or the delete work, and the state machine
 * lets at most one of them own the association at a time.
 */
#include <linux/jiffies.h>
#include <linux/slab.h>

#include "nvme.h"

#define RBLK_CONNECT_TIMEOUT	(10 * HZ)

void rblk_ctrl_error(struct rblk_ctrl *ctrl)
{
	if (rblk_ctrl_change_state(ctrl, RBLK_CTRL_RESETTING)) {
		dev_warn(ctrl->dev, "transport error: starting recovery\n");
		queue_work(rblk_wq, &ctrl->err_work);
		return;
	}
	/*
	 * Deleting over a broken association: end what is in flight now
	 * instead of one I/O timeout later each.
	 */
	if (rblk_ctrl_state(ctrl) == RBLK_CTRL_DELETING &&
	    !test_bit(RBLK_CTRL_TORN_DOWN, &ctrl->flags))
		queue_work(rblk_wq, &ctrl->abort_work);
}

/*
 * The transport's word that the peer broke @queue, once per loss (rdma.c,
 * which has marked it lost). A live controller recovers. During bring-up
 * nothing would notice before the command timeout, so the commands on the
 * queue end now, through the timeout handler: it stops the queue (after
 * the drain no completion of it runs) before it ends them, as
 * -ECONNRESET for rblk_submit_sync(), and RBLK_REQ_DONE keeps a late
 * response out. Callable from any context.
 */
void rblk_ctrl_queue_lost(struct rblk_queue *queue)
{
	struct rblk_ctrl *ctrl = queue->ctrl;
	enum rblk_ctrl_state st;

	rblk_ctrl_error(ctrl);
	st = rblk_ctrl_state(ctrl);
	if (st == RBLK_CTRL_NEW || st == RBLK_CTRL_CONNECTING)
		rblk_req_expire_queue(queue);
}

/*
 * NVME_IOCTL_RESET: tear the association down and connect again at once,
 * as nvme_reset_ctrl_sync() does. Returns 0 once live again.
 */
int rblk_ctrl_reset_sync(struct rblk_ctrl *ctrl)
{
	set_bit(RBLK_CTRL_RESET_NOW, &ctrl->flags);
	if (!rblk_ctrl_change_state(ctrl, RBLK_CTRL_RESETTING)) {
		clear_bit(RBLK_CTRL_RESET_NOW, &ctrl->flags);
		return -EBUSY;
	}
	dev_info(ctrl->dev, "resetting controller\n");
	queue_work(rblk_wq, &ctrl->err_work);
	flush_work(&ctrl->err_work);
	/* Queued by the error work (or cancelled by a delete meanwhile). */
	flush_delayed_work(&ctrl->reconnect_work);
	return rblk_ctrl_state(ctrl) == RBLK_CTRL_LIVE ? 0 : -ENETRESET;
}

static void rblk_abort_work(struct work_struct *work)
{
	struct rblk_ctrl *ctrl = container_of(work, struct rblk_ctrl,
					      abort_work);
	u32 i;

	if (!ctrl->queues)
		return;
	/* Stopped queues first: no completion races the aborts below. */
	for (i = 0; i < ctrl->max_queues; i++)
		rblk_rdma_stop_queue(&ctrl->queues[i]);
	if (ctrl->has_io_set)
		rblk_req_abort_all(&ctrl->io_set);
	if (ctrl->has_admin_set)
		rblk_req_abort_all(&ctrl->admin_set);
}

/*
 * The I/O queues wanted per blk-mq map, as nvme-fabrics counts them: each
 * kind at most one per CPU. Write queues make the DEFAULT map (writes and
 * everything but reads) and the I/O queues the READ map; without them
 * the I/O queues are the DEFAULT map and reads share it.
 */
static void rblk_io_queues_wanted(struct rblk_ctrl *ctrl,
				  u32 want[HCTX_MAX_TYPES])
{
	u32 cpus = num_online_cpus();
	u32 io = min(ctrl->opts.nr_io_queues, cpus);

	if (ctrl->opts.nr_write_queues) {
		want[HCTX_TYPE_DEFAULT] = min(ctrl->opts.nr_write_queues, cpus);
		want[HCTX_TYPE_READ] = io;
	} else {
		want[HCTX_TYPE_DEFAULT] = io;
		want[HCTX_TYPE_READ] = 0;
	}
	want[HCTX_TYPE_POLL] = min(ctrl->opts.nr_poll_queues, cpus);
}

/*
 * A grant of @count queues fills the maps in qid order and drops from the
 * end: poll queues first, then the separate read queues. So a qid keeps
 * its kind from one association to the next, whatever each grants, and
 * the resize never hands a connected queue to another map.
 */
static void rblk_io_queue_types(struct rblk_ctrl *ctrl, u32 count)
{
	u32 want[HCTX_MAX_TYPES], got;
	int t;

	rblk_io_queues_wanted(ctrl, want);
	for (t = 0; t < HCTX_MAX_TYPES; t++) {
		got = min(want[t], count);
		WRITE_ONCE(ctrl->io_queues[t], got);
		count -= got;
	}
}

/* The map I/O queue @qid serves, by rblk_io_queue_types(). */
static u8 rblk_qid_map(struct rblk_ctrl *ctrl, u32 qid)
{
	u32 end = 0;
	int t;

	for (t = 0; t < HCTX_MAX_TYPES - 1; t++) {
		end += ctrl->io_queues[t];
		if (qid <= end)
			return t;
	}
	return HCTX_TYPE_POLL;
}

static int rblk_alloc_queue_array(struct rblk_ctrl *ctrl)
{
	u32 want[HCTX_MAX_TYPES], i, n;
	int ret;

	if (ctrl->queues)
		return 0;
	rblk_io_queues_wanted(ctrl, want);
	n = 1 + want[HCTX_TYPE_DEFAULT] + want[HCTX_TYPE_READ] +
	    want[HCTX_TYPE_POLL];
	ctrl->queues = kcalloc(n, sizeof(*ctrl->queues), GFP_KERNEL);
	if (!ctrl->queues)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		ctrl->queues[i].ctrl = ctrl;
		ctrl->queues[i].qid = i;
	}
	ctrl->max_queues = n;
	ret = rblk_rdma_alloc_ctrl(ctrl);
	if (ret) {
		kfree(ctrl->queues);
		ctrl->queues = NULL;
		ctrl->max_queues = 0;
	}
	return ret;
}

static void rblk_teardown_admin(struct rblk_ctrl *ctrl)
{
	if (ctrl->has_admin_set) {
		blk_mq_quiesce_queue(ctrl->admin_q);
		/* A running timeout handler must not end a request late. */
		blk_sync_queue(ctrl->admin_q);
	}
	rblk_rdma_stop_queue(rblk_admin_queue(ctrl));
	if (ctrl->has_admin_set) {
		rblk_req_cancel_all(&ctrl->admin_set);
		/*
		 * Later admin commands fail fast instead of hanging. The queue
		 * itself lives as long as the controller: a disk still open
		 * may reach it (SG_IO) after the delete.
		 */
		blk_mq_unquiesce_queue(ctrl->admin_q);
	}
	rblk_rdma_free_queue(rblk_admin_queue(ctrl));
}

static void rblk_teardown_io(struct rblk_ctrl *ctrl, bool remove)
{
	u32 i;

	rblk_ns_quiesce(ctrl);
	rblk_ns_sync(ctrl);
	if (ctrl->has_io_set)
		blk_sync_queue(ctrl->connect_q);
	for (i = 1; i < ctrl->max_queues; i++)
		rblk_rdma_stop_queue(&ctrl->queues[i]);
	if (ctrl->has_io_set)
		rblk_req_cancel_all(&ctrl->io_set);
	for (i = 1; i < ctrl->max_queues; i++)
		rblk_rdma_free_queue(&ctrl->queues[i]);
	if (remove)
		rblk_tagset_free_io(ctrl);
	/*
	 * A path's waiting requests go to the other paths now rather than
	 * wait for this one: its queue_rq hands them back to their head.
	 */
	else if (rblk_ctrl_mpath(ctrl))
		rblk_ns_unquiesce(ctrl);
}

/* The transport's reason for a failure, if it has one, to the user. */
static int rblk_alloc_xprt_queue(struct rblk_ctrl *ctrl, u16 qid, u16 size,
				 struct netlink_ext_ack *extack)
{
	const char *reason = NULL;
	int ret;

	ret = rblk_rdma_alloc_queue(ctrl, qid, size, &reason);
	if (ret)
		rblk_set_err(extack, reason);
	return ret;
}

/*
 * Fabrics Connect on an allocated queue, authentication if the controller
 * asks for it, then the transport takes it all.
 */
static int rblk_start_queue(struct rblk_ctrl *ctrl, u16 qid,
			    struct netlink_ext_ack *extack)
{
	u32 result;
	int ret;

	ret = rblk_fabrics_connect(ctrl, qid, &result, extack) ?:
	      rblk_auth_queue(ctrl, qid, result, extack);
	if (!ret)
		rblk_rdma_start_queue(&ctrl->queues[qid]);
	return ret;
}

static int rblk_setup_admin(struct rblk_ctrl *ctrl, bool first,
			    struct netlink_ext_ack *extack)
{
	int ret;

	ret = rblk_alloc_xprt_queue(ctrl, 0, RBLK_AQ_SIZE, extack);
	if (ret)
		return ret;
	if (first) {
		ret = rblk_tagset_alloc_admin(ctrl);
		if (ret) {
			NL_SET_ERR_MSG(extack, "cannot allocate the admin tag set");
			goto out;
		}
	}

	ret = rblk_start_queue(ctrl, 0, extack);
	if (ret)
		goto out;

	ret = rblk_ctrl_enable(ctrl, extack);
	if (ret)
		goto out;
	ret = rblk_identify_ctrl(ctrl, extack);
	if (ret)
		goto out;
	/* Passthrough admin commands may be as large as MDTS allows. */
	ret = rblk_tagset_admin_limits(ctrl);
	if (ret)
		goto out;
	return 0;
out:
	rblk_teardown_admin(ctrl);
	return ret;
}

/*
 * The I/O SQ size: what we asked for, within CAP.MQES and MAXCMD. The tag
 * set's depth is fixed by the first association; a later one may grant
 * less, and then each queue admits no more commands than its SQ holds
 * (see rblk_slot_get()).
 */
static int rblk_io_queue_size(struct rblk_ctrl *ctrl, bool first,
			      struct netlink_ext_ack *extack)
{
	u32 size = min_t(u32, ctrl->opts.queue_size,
			 NVME_CAP_MQES(ctrl->cap) + 1);

	if (ctrl->max_cmds)
		size = min(size, ctrl->max_cmds);
	if (size < 4) {
		NL_SET_ERR_MSG(extack, "controller queues are too small");
		return -EINVAL;
	}
	if (first)
		ctrl->io_tags = size;
	size = min(size, ctrl->io_tags);
	if (!first && size != ctrl->queue_size)
		dev_warn(ctrl->dev, "I/O queue size now %u (was %u)\n", size,
			 ctrl->queue_size);
	WRITE_ONCE(ctrl->queue_size, size);
	return 0;
}

/* Fabrics Connect on I/O queues @from..@to: they must have a hw context. */
static int rblk_connect_io(struct rblk_ctrl *ctrl, u32 from, u32 to,
			   struct netlink_ext_ack *extack)
{
	u32 i;
	int ret;

	for (i = from; i <= to; i++) {
		ret = rblk_start_queue(ctrl, i, extack);
		if (ret)
			return ret;
	}
	return 0;
}

/* Every association asks for as many I/O queues as the first one did. */
static int rblk_io_queue_count(struct rblk_ctrl *ctrl, bool first,
			       struct netlink_ext_ack *extack)
{
	u32 count = ctrl->max_queues - 1;
	int ret;

	ret = rblk_set_queue_count(ctrl, &count);
	if (ret || !count) {
		NL_SET_ERR_MSG(extack, "controller granted no I/O queues");
		return ret ?: -EIO;
	}
	if (!first && count != ctrl->nr_io_queues)
		dev_warn(ctrl->dev, "%u I/O queues granted (had %u)\n", count,
			 ctrl->nr_io_queues);
	WRITE_ONCE(ctrl->nr_io_queues, count);
	rblk_io_queue_types(ctrl, count);
	return 0;
}

/*
 * A grant other than the tag set's count resizes the tag set in between
 * (as nvme_rdma_configure_io_queues() does): queues the tag set already
 * has connect first, the resize drains what waits into them, new ones
 * after.
 */
static int rblk_start_io_queues(struct rblk_ctrl *ctrl,
				struct netlink_ext_ack *extack)
{
	u32 count = ctrl->nr_io_queues, hw = ctrl->io_set.nr_hw_queues;
	int ret;

	ret = rblk_connect_io(ctrl, 1, min(count, hw), extack);
	if (ret || count == hw)
		return ret;
	ret = rblk_tagset_resize_io(ctrl);
	if (ret)
		return ret;
	return rblk_connect_io(ctrl, hw + 1, count, extack);
}

static int rblk_setup_io(struct rblk_ctrl *ctrl, bool first,
			 struct netlink_ext_ack *extack)
{
	u32 i;
	int ret;

	ret = rblk_io_queue_size(ctrl, first, extack);
	if (ret)
		return ret;
	ret = rblk_io_queue_count(ctrl, first, extack);
	if (ret)
		return ret;

	for (i = 1; i <= ctrl->nr_io_queues; i++) {
		ctrl->queues[i].map = rblk_qid_map(ctrl, i);
		ret = rblk_alloc_xprt_queue(ctrl, i, ctrl->queue_size, extack);
		if (ret)
			goto out;
	}
	if (first) {
		ret = rblk_tagset_alloc_io(ctrl);
		if (ret) {
			NL_SET_ERR_MSG(extack, "cannot allocate the I/O tag set");
			goto out;
		}
	}
	ret = rblk_start_io_queues(ctrl, extack);
	if (ret)
		goto out;
	return 0;
out:
	rblk_teardown_io(ctrl, first);
	return ret;
}

/*
 * A queue the peer broke once its Connect was done found no live
 * controller to recover (rblk_ctrl_queue_lost()): recover now. Live, then
 * ask: rblk_rdma_queue_lost() orders the two (rdma.c's ordering rules).
 */
static void rblk_check_lost(struct rblk_ctrl *ctrl)
{
	u32 i;

	for (i = 0; i <= ctrl->nr_io_queues; i++) {
		if (rblk_rdma_queue_lost(&ctrl->queues[i])) {
			rblk_ctrl_error(ctrl);
			return;
		}
	}
}

int rblk_ctrl_connect(struct rblk_ctrl *ctrl, bool first,
		      struct netlink_ext_ack *extack)
{
	int ret;

	if (first) {
		ret = rblk_alloc_queue_array(ctrl);
		if (ret)
			return ret;
		ctrl->kato = ctrl->opts.kato;
	}

	ret = rblk_setup_admin(ctrl, first, extack);
	if (ret)
		goto out_pd;
	if (first) {
		ret = rblk_subsys_join(ctrl, extack);
		if (ret)
			goto out_admin;
	}
	ret = rblk_ana_read(ctrl);
	if (ret) {
		NL_SET_ERR_MSG(extack, "ANA log page unreadable or malformed");
		goto out_admin;
	}
	/* A discovery controller is its admin queue. */
	ret = ctrl->opts.discovery ? 0 : rblk_setup_io(ctrl, first, extack);
	if (ret)
		goto out_admin;

	/* A delete may have won the race while we were connecting. */
	if (!rblk_ctrl_change_state(ctrl, RBLK_CTRL_LIVE)) {
		ret = -ENODEV;
		goto out_io;
	}
	rblk_ka_start(ctrl);
	rblk_aen_start(ctrl);

	if (!first) {
		cancel_delayed_work_sync(&ctrl->failfast_work);
		clear_bit(RBLK_CTRL_FAILFAST, &ctrl->flags);
		rblk_ns_unquiesce(ctrl);
		/* What waits on the heads for a path may take this one. */
		rblk_mpath_kick(ctrl);
		/* Namespaces may have come, gone or grown meanwhile. */
		rblk_ns_queue_scan(ctrl);
		atomic64_inc(&ctrl->reconnects);
		dev_info(ctrl->dev, "reconnected: %u I/O queues of %u (%u default, %u read, %u poll)\n",
			 ctrl->nr_io_queues, ctrl->queue_size,
			 ctrl->io_queues[HCTX_TYPE_DEFAULT],
			 ctrl->io_queues[HCTX_TYPE_READ],
			 ctrl->io_queues[HCTX_TYPE_POLL]);
	}
	/* Last: the recovery it may start quiesces what was resumed above. */
	rblk_check_lost(ctrl);
	return 0;

out_io:
	rblk_teardown_io(ctrl, first);
out_admin:
	rblk_teardown_admin(ctrl);
out_pd:
	rblk_rdma_put_device(ctrl);
	return ret;
}

/* @remove: the final one (after RBLK_CTRL_TORN_DOWN): frees the I/O tag set. */
void rblk_ctrl_teardown(struct rblk_ctrl *ctrl, bool remove)
{
	if (!ctrl->queues)
		return;
	rblk_ka_stop(ctrl);
	/* A group in change: the next association reads the log anew. */
	del_timer_sync(&ctrl->anatt_timer);
	rblk_teardown_io(ctrl, remove);
	if (remove && rblk_rdma_queue_live(rblk_admin_queue(ctrl)))
		rblk_ctrl_shutdown(ctrl);
	rblk_teardown_admin(ctrl);
	/*
	 * An ANA read that had its log before the admin queue stopped may
	 * have re-armed the timer since: it ends now, then the timer goes.
	 */
	rblk_ana_stop(ctrl);
	/* A keep-alive that ended while we stopped may have re-armed it. */
	rblk_ka_stop(ctrl);
	rblk_rdma_put_device(ctrl);
}

/* @now: a user's reset, the first attempt without reconnect_delay. */
static void rblk_reconnect_or_delete(struct rblk_ctrl *ctrl, bool now)
{
	unsigned long delay = now ? 0 :
			      (unsigned long)ctrl->opts.reconnect_delay * HZ;
	unsigned long flags;
	bool expired;

	spin_lock_irqsave(&ctrl->lock, flags);
	expired = ctrl->loss_deadline &&
		  time_after_eq(jiffies + delay, ctrl->loss_deadline);
	if (!expired)
		ctrl->next_reconnect = jiffies + delay;
	spin_unlock_irqrestore(&ctrl->lock, flags);

	if (expired) {
		dev_warn(ctrl->dev, "ctrl_loss_tmo expired: removing controller\n");
		rblk_ctrl_schedule_delete(ctrl);
		return;
	}
	queue_delayed_work(rblk_wq, &ctrl->reconnect_work, delay);
}

static void rblk_reconnect_work(struct work_struct *work)
{
	struct rblk_ctrl *ctrl = container_of(to_delayed_work(work),
					      struct rblk_ctrl, reconnect_work);
	/* The reason a connect gives the user, here for the kernel log. */
	struct netlink_ext_ack why = {};
	unsigned long flags;
	int ret;

	if (rblk_ctrl_state(ctrl) != RBLK_CTRL_CONNECTING)
		return;
	spin_lock_irqsave(&ctrl->lock, flags);
	ctrl->next_reconnect = 0;
	spin_unlock_irqrestore(&ctrl->lock, flags);

	ret = rblk_ctrl_connect(ctrl, false, &why);
	if (!ret)
		return;
	if (why._msg)
		dev_info(ctrl->dev, "reconnect failed: %s (%d)\n", why._msg, ret);
	else
		dev_info(ctrl->dev, "reconnect failed: %d\n", ret);
	if (rblk_ctrl_state(ctrl) == RBLK_CTRL_CONNECTING)
		rblk_reconnect_or_delete(ctrl, false);
}

static void rblk_failfast_work(struct work_struct *work)
{
	struct rblk_ctrl *ctrl = container_of(to_delayed_work(work),
					      struct rblk_ctrl, failfast_work);

	if (rblk_ctrl_state(ctrl) != RBLK_CTRL_CONNECTING)
		return;
	dev_info(ctrl->dev, "fast_io_fail_tmo expired: failing I/O\n");
	set_bit(RBLK_CTRL_FAILFAST, &ctrl->flags);
	/* Waiting requests now reach queue_rq and fail there. */
	rblk_ns_unquiesce(ctrl);
	/* And what waits on a head for this path fails, if no other is left. */
	rblk_mpath_kick(ctrl);
}

static void rblk_err_work(struct work_struct *work)
{
	struct rblk_ctrl *ctrl = container_of(work, struct rblk_ctrl,
					      err_work);
	bool now = test_and_clear_bit(RBLK_CTRL_RESET_NOW, &ctrl->flags);

	rblk_ctrl_teardown(ctrl, false);
	/* Requests wait, quiesced, for the reconnect or the fail-fast. */
	if (!rblk_ctrl_change_state(ctrl, RBLK_CTRL_CONNECTING))
		return;
	if (ctrl->opts.fast_io_fail_tmo >= 0) {
		/*
		 * Counted from the loss of the connection, like ctrl_loss_tmo:
		 * a tear-down that waited for a port to come back used part
		 * of it already.
		 */
		unsigned long tmo = (unsigned long)ctrl->opts.fast_io_fail_tmo * HZ;
		unsigned long spent = jiffies - READ_ONCE(ctrl->lost_at);

		queue_delayed_work(rblk_wq, &ctrl->failfast_work,
				   spent < tmo ? tmo - spent : 0);
	}
	rblk_reconnect_or_delete(ctrl, now);
}

void rblk_ctrl_init_works(struct rblk_ctrl *ctrl)
{
	rblk_ka_init(ctrl);
	INIT_WORK(&ctrl->err_work, rblk_err_work);
	INIT_DELAYED_WORK(&ctrl->reconnect_work, rblk_reconnect_work);
	INIT_DELAYED_WORK(&ctrl->failfast_work, rblk_failfast_work);
	INIT_WORK(&ctrl->abort_work, rblk_abort_work);
	INIT_WORK(&ctrl->scan_work, rblk_ns_scan_work);
	INIT_WORK(&ctrl->requeue_work, rblk_tagset_requeue_work);
	INIT_DELAYED_WORK(&ctrl->reap_work, rblk_tagset_reap_work);
	spin_lock_init(&ctrl->requeue_lock);
	bio_list_init(&ctrl->requeue_bios);
}

/* Only once the state is DELETING: nothing can queue them again. */
void rblk_ctrl_stop_works(struct rblk_ctrl *ctrl)
{
	cancel_work_sync(&ctrl->err_work);
	cancel_delayed_work_sync(&ctrl->reconnect_work);
	cancel_delayed_work_sync(&ctrl->failfast_work);
}

unsigned int rblk_sync_timeout(struct rblk_ctrl *ctrl)
{
	return rblk_ctrl_state(ctrl) == RBLK_CTRL_LIVE ? RBLK_ADMIN_TIMEOUT :
							 RBLK_CONNECT_TIMEOUT;
}
