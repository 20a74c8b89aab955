// SPDX-License-Identifier: GPL-2.0
/*
 * rblk: Asynchronous Event Requests. One AER is kept outstanding on the
 * admin queue while the controller is live; a Namespace Attribute Changed
 * notice reads the Changed Namespace List (which clears the event on the
 * target) and rescans the namespaces, without a reconnect; an ANA Change
 * notice reads the ANA log (multipath.c); a Reservation Log Page
 * Available notice reads the Reservation Notification log to its end and
 * raises each notice to userspace (RBLK_CMD_RESV_NOTICE, and a uevent
 * RBLK_EVENT=reservation). A discovery
 * controller's Discovery Log Change notice goes to userspace as a netlink
 * event (RBLK_CMD_AEN) and a uevent (RBLK_EVENT=discovery): the tool that
 * reads the log again is what clears it, as nvme-cli does after nvme's.
 *
 * Design: nvme-rdma sends its AER with a command id outside the blk-mq tag
 * space, so that it needs a send buffer and a completion path of its own.
 * rblk's admin queue instead gives the AER a reserved tag of the admin tag
 * set (next to Connect and keep-alive): a full admin queue cannot starve
 * it, its response takes the path every command takes (command id and
 * generation checks included), and the tear-down that cancels every
 * admin request aborts it like any other. What is special about it is only
 * that it waits for an event, not a response: rblk_timeout() re-arms its
 * timer instead of starting recovery (keep-alive detects a dead target),
 * and the abort status tear-down gives it is neither counted nor logged.
 *
 * Everything past the completion runs in one work item (aen_work), so
 * arming, configuring and handling an event never race each other.
 */
#include <linux/slab.h>

#include "nvme.h"

#define RBLK_AEN_TYPE(r)	((r) & 0x7)
#define RBLK_AEN_INFO(r)	(((r) >> 8) & 0xff)
#define RBLK_AEN_LID(r)		(((r) >> 16) & 0xff)
#define RBLK_AEN_CHANGED_LEN	(NVME_MAX_CHANGED_NAMESPACES * sizeof(__le32))
/* Type I/O Command Set specific (NVME_AER_CSS), info 0: log page 80h. */
#define RBLK_AER_RESV_LOG	0x00
/*
 * Pages read for one Reservation Log Page Available event at most: the
 * log holds few (the spec's count saturates at 255), and a target that
 * never says "empty" must not keep aen_work reading. The last read (RAE
 * clear) re-arms the event, so what is left comes with the next one,
 * under the storm limit below.
 */
#define RBLK_RESV_LOG_READS	32
/*
 * A target answering every AER at once gets RBLK_AEN_BURST events handled
 * at full speed per RBLK_AEN_WINDOW, then one per RBLK_AEN_STORM_DELAY.
 */
#define RBLK_AEN_BURST		8
#define RBLK_AEN_WINDOW		(10 * HZ)
#define RBLK_AEN_STORM_DELAY	HZ

/* The log pages an event may name, and how much of each clears it. */
static unsigned int rblk_aen_log_len(u8 lid)
{
	switch (lid) {
	case NVME_LOG_ERROR:
		return sizeof(struct nvme_error_slot);
	case NVME_LOG_SMART:
		return sizeof(struct nvme_smart_log);
	case NVME_LOG_FW_SLOT:
		return sizeof(struct nvme_fw_slot_info_log);
	case NVME_LOG_CHANGED_NS:
		return RBLK_AEN_CHANGED_LEN;
	default:
		return 0;	/* unknown or absurd: not read */
	}
}

/*
 * The list says which namespaces to revalidate; the scan still reads the
 * active list, so it adds and removes whatever the list leaves out. Junk
 * in it costs a log line. A list that overflowed, names no namespace the
 * controller can have, or does not fit in memory: all of them.
 */
static void rblk_aen_ns_changed(struct rblk_ctrl *ctrl, const __le32 *list)
{
	u32 i, nsid, n = 0, bogus = 0;
	bool overflow = false;
	u32 *ids;

	ids = kmalloc_array(NVME_MAX_CHANGED_NAMESPACES, sizeof(*ids),
			    GFP_KERNEL);
	for (i = 0; i < NVME_MAX_CHANGED_NAMESPACES; i++) {
		nsid = le32_to_cpu(list[i]);
		if (!nsid)
			break;
		if (nsid == NVME_NSID_ALL && !i) {
			overflow = true;
			break;
		}
		if (nsid > ctrl->nn)
			bogus++;
		else if (ids)
			ids[n++] = nsid;
	}
	if (bogus)
		dev_warn_ratelimited(ctrl->dev, "changed namespace list names %u ids above NN %u\n",
				     bogus, ctrl->nn);
	if (overflow || !n || !ids) {
		dev_info_ratelimited(ctrl->dev, "namespaces changed (%s): rescanning all\n",
				     overflow ? "more than 1024" :
				     ids ? "none listed" : "list not kept");
		kfree(ids);
		rblk_ns_queue_scan(ctrl);
		return;
	}
	dev_info_ratelimited(ctrl->dev, "namespaces changed (%u listed): rescanning those\n",
			     n);
	/* Coalesces: a storm of notices is one running and one queued scan. */
	rblk_ns_queue_scan_changed(ctrl, ids, n);
}

/* One page of the Reservation Notification log; nothing in it trusted. */
static void rblk_aen_resv_notice(struct rblk_ctrl *ctrl,
				 const struct rblk_resv_log *log)
{
	const char *kind = rblk_resv_notice_name(log->type);
	u64 lost = rblk_resv_log_lost(ctrl->resv_log_count, log->count);
	char disk[DISK_NAME_LEN];

	ctrl->resv_log_count = log->count;
	if (lost)
		dev_warn_ratelimited(ctrl->dev, "reservation notification log: %llu notices lost (the target's log overflowed)\n",
				     lost);
	if (!kind) {
		dev_warn_ratelimited(ctrl->dev, "reservation notice of unknown type %u ignored\n",
				     log->type);
		return;
	}
	if (!rblk_ns_disk_name(ctrl, log->nsid, disk, sizeof(disk))) {
		dev_warn_ratelimited(ctrl->dev, "reservation notice %s for unknown nsid %u ignored\n",
				     kind, log->nsid);
		return;
	}
	dev_info_ratelimited(ctrl->dev, "reservation notice for nsid %u (%s): %s\n",
			     log->nsid, disk, kind);
	rblk_ctrl_event_resv(ctrl, log->nsid, disk, log->type);
}

/*
 * Reservation Log Page Available: the log holds one notice a page, each
 * read (RAE clear) consuming the oldest, until an empty page (type 0) or
 * one after which none is left.
 */
static void rblk_aen_resv(struct rblk_ctrl *ctrl)
{
	struct rblk_resv_log log;
	unsigned int i;
	u8 *buf;
	int ret;

	buf = kmalloc(RBLK_RESV_LOG_LEN, GFP_KERNEL);
	if (!buf)
		return;		/* the notices wait for the next association */
	for (i = 0; i < RBLK_RESV_LOG_READS; i++) {
		/* What a target leaves unwritten reads as an empty page. */
		memset(buf, 0, RBLK_RESV_LOG_LEN);
		ret = rblk_get_log_page(ctrl, NVME_LOG_RESERVATION, buf,
					RBLK_RESV_LOG_LEN);
		if (ret) {
			dev_warn_ratelimited(ctrl->dev, "reservation notification log unreadable: %d\n",
					     ret);
			break;
		}
		rblk_resv_log_parse(buf, &log);
		if (!log.type)
			break;
		rblk_aen_resv_notice(ctrl, &log);
		if (!log.nr_avail)
			break;
	}
	if (i == RBLK_RESV_LOG_READS &&
	    !test_and_set_bit(RBLK_AEN_RESV_CAPPED, &ctrl->aen_flags))
		dev_warn(ctrl->dev, "reservation notification log not empty after %u pages: the rest with its next event\n",
			 RBLK_RESV_LOG_READS);
	kfree(buf);
}

/*
 * Every reservation-capable namespace's notices unmasked (Set Features
 * 82h with no bit set). Their default is unmasked, but a controller's
 * mask is not ours to assume, and without notices a fenced host learns
 * of it from its first failed write only. Once per namespace and
 * association: a mask lives in the target's controller, which a
 * reconnect replaces, and a rescan changes nothing of it. From the scan,
 * which follows every connect and reconnect, under scan_lock: the list
 * holds still.
 */
void rblk_aen_resv_unmask(struct rblk_ctrl *ctrl)
{
	bool again = test_and_clear_bit(RBLK_AEN_RESV_UNMASK, &ctrl->aen_flags);
	struct rblk_ns *ns;
	int ret;

	if (!(ctrl->oncs & NVME_CTRL_ONCS_RESERVATIONS))
		return;
	list_for_each_entry(ns, &ctrl->namespaces, entry) {
		if (again)
			ns->resv_unmasked = false;
		if (!ns->rescap || ns->resv_unmasked ||
		    rblk_ctrl_state(ctrl) != RBLK_CTRL_LIVE)
			continue;
		ret = rblk_set_features_ns(ctrl, NVME_FEAT_RESV_MASK, ns->nsid,
					   0, NULL);
		/* A lost association: the reconnect's scan sends it again. */
		if (ret < 0)
			continue;
		ns->resv_unmasked = true;
		if (ret > 0 &&
		    !test_and_set_bit(RBLK_AEN_RESV_MASK_WARNED, &ctrl->aen_flags))
			dev_warn(ctrl->dev, "nsid %u: target refused to unmask reservation notices (status %#x): it may send none\n",
				 ns->nsid, ret);
	}
}

static void rblk_aen_handle(struct rblk_ctrl *ctrl, u32 result)
{
	u8 type = RBLK_AEN_TYPE(result), info = RBLK_AEN_INFO(result);
	bool ns_changed = type == NVME_AER_NOTICE &&
			  info == NVME_AER_NOTICE_NS_CHANGED;
	/* That notice names LID 04h by definition: no other is read for it. */
	u8 lid = ns_changed ? NVME_LOG_CHANGED_NS : RBLK_AEN_LID(result);
	unsigned int len = rblk_aen_log_len(lid);
	void *buf;
	int ret;

	/* The ANA log page is ours to read: that clears the event. */
	if (type == NVME_AER_NOTICE && info == NVME_AER_NOTICE_ANA) {
		dev_info_ratelimited(ctrl->dev, "ANA state changed: reading the ANA log\n");
		if (rblk_ctrl_ana(ctrl))
			queue_work(rblk_wq, &ctrl->ana_work);
		return;
	}
	/* That notice names log page 80h by definition, as above. */
	if (type == NVME_AER_CSS && info == RBLK_AER_RESV_LOG) {
		rblk_aen_resv(ctrl);
		return;
	}
	if (ctrl->opts.discovery && type == NVME_AER_NOTICE &&
	    info == NVME_AER_NOTICE_DISC_CHANGED) {
		dev_info_ratelimited(ctrl->dev, "discovery log changed\n");
		rblk_ctrl_event_aen(ctrl, result);
		return;
	}
	if (!ns_changed)
		dev_info_ratelimited(ctrl->dev, "async event %#08x (type %u, info %#x, log page %#x)%s\n",
				     result, type, info, RBLK_AEN_LID(result),
				     len ? "" : ": not handled");
	if (!len)
		return;
	buf = kzalloc(len, GFP_KERNEL);
	if (!buf) {
		/* The scan does not need the list; the event stays set. */
		if (ns_changed)
			rblk_ns_queue_scan(ctrl);
		return;
	}
	ret = rblk_get_log_page(ctrl, lid, buf, len);
	if (ret)
		dev_warn_ratelimited(ctrl->dev, "async event %#08x: log page %#x unreadable: %d\n",
				     result, lid, ret);
	if (ns_changed && ret)
		rblk_ns_queue_scan(ctrl);
	else if (ns_changed)
		rblk_aen_ns_changed(ctrl, buf);
	kfree(buf);
}

/*
 * Namespace Attribute Notices, or a discovery controller's Discovery Log
 * Change ones, if the controller can send them.
 */
static void rblk_aen_configure(struct rblk_ctrl *ctrl)
{
	u32 cfg = ctrl->opts.discovery ? NVME_AEN_CFG_DISC_CHANGE :
					 NVME_AEN_CFG_NS_ATTR;
	int ret;

	if (rblk_ctrl_ana(ctrl))
		cfg |= NVME_AEN_CFG_ANA_CHANGE;
	cfg &= ctrl->oaes;
	if (!cfg)
		return;
	ret = rblk_set_features(ctrl, NVME_FEAT_ASYNC_EVENT, cfg, NULL);
	if (ret)
		dev_warn(ctrl->dev, "cannot enable %s change events: %d\n",
			 ctrl->opts.discovery ? "discovery log" : "namespace",
			 ret);
}

/* Aborted by tear-down, or the queue was lost under it: not the target's. */
static bool rblk_aen_ended_by_host(u16 status)
{
	return (status & RBLK_SC_MASK) == NVME_SC_HOST_ABORTED_CMD ||
	       (status & RBLK_SC_MASK) == NVME_SC_HOST_PATH_ERROR;
}

static enum rq_end_io_ret rblk_aen_end_io(struct request *rq, blk_status_t sts)
{
	struct rblk_ctrl *ctrl = rq->end_io_data;
	u16 status = rblk_req(rq)->status;
	unsigned long delay = 0;

	/* Only this AER was outstanding: nothing else touches these. */
	if (!status && sts == BLK_STS_OK) {
		WRITE_ONCE(ctrl->aen_result, le32_to_cpu(rblk_req(rq)->result.u32));
		if (time_after(jiffies, ctrl->aen_burst_start + RBLK_AEN_WINDOW)) {
			ctrl->aen_burst_start = jiffies;
			ctrl->aen_burst = 0;
		}
		if (++ctrl->aen_burst > RBLK_AEN_BURST)
			delay = RBLK_AEN_STORM_DELAY;
		set_bit(RBLK_AEN_EVENT, &ctrl->aen_flags);
	}
	clear_bit(RBLK_AEN_ARMED, &ctrl->aen_flags);
	if (test_bit(RBLK_AEN_EVENT, &ctrl->aen_flags)) {
		queue_delayed_work(rblk_wq, &ctrl->aen_work, delay);
	} else if (status && !rblk_aen_ended_by_host(status)) {
		/* Like nvme: a refused AER is not sent again on this association. */
		dev_info(ctrl->dev, "target refused the Asynchronous Event Request (status %#x): no change notices\n",
			 status);
	}
	/* Else ended by tear-down or a dead queue: the next connect re-arms. */
	return RQ_END_IO_FREE;
}

bool rblk_aen_rq(struct request *rq)
{
	return rq->end_io == rblk_aen_end_io;
}

static void rblk_aen_arm(struct rblk_ctrl *ctrl)
{
	struct request *rq;

	if (rblk_ctrl_state(ctrl) != RBLK_CTRL_LIVE ||
	    test_and_set_bit(RBLK_AEN_ARMED, &ctrl->aen_flags))
		return;
	rq = blk_mq_alloc_request(ctrl->admin_q, REQ_OP_DRV_IN,
				  BLK_MQ_REQ_RESERVED | BLK_MQ_REQ_NOWAIT);
	if (IS_ERR(rq)) {
		clear_bit(RBLK_AEN_ARMED, &ctrl->aen_flags);
		dev_warn_ratelimited(ctrl->dev, "no tag for the Asynchronous Event Request: %ld\n",
				     PTR_ERR(rq));
		return;
	}
	memset(&rblk_req(rq)->cmd, 0, sizeof(struct nvme_command));
	rblk_req(rq)->cmd.common.opcode = nvme_admin_async_event;
	rblk_req(rq)->status = 0;
	rq->rq_flags |= RQF_QUIET;
	rq->timeout = RBLK_ADMIN_TIMEOUT;	/* rblk_timeout() re-arms it */
	rq->end_io = rblk_aen_end_io;
	rq->end_io_data = ctrl;
	blk_execute_rq_nowait(rq, false);
}

static void rblk_aen_work(struct work_struct *work)
{
	struct rblk_ctrl *ctrl = container_of(to_delayed_work(work),
					      struct rblk_ctrl, aen_work);

	if (test_and_clear_bit(RBLK_AEN_EVENT, &ctrl->aen_flags)) {
		if (ctrl->aen_burst > RBLK_AEN_BURST)
			dev_warn_ratelimited(ctrl->dev, "async event storm: handling one a second\n");
		rblk_aen_handle(ctrl, READ_ONCE(ctrl->aen_result));
	}
	if (rblk_ctrl_state(ctrl) != RBLK_CTRL_LIVE)
		return;
	if (test_and_clear_bit(RBLK_AEN_CONFIG, &ctrl->aen_flags)) {
		/* A new controller on the target: its own count. */
		ctrl->resv_log_count = 0;
		rblk_aen_configure(ctrl);
	}
	rblk_aen_arm(ctrl);
}

void rblk_aen_init(struct rblk_ctrl *ctrl)
{
	INIT_DELAYED_WORK(&ctrl->aen_work, rblk_aen_work);
}

/* Each new association: configure the events and arm the first AER. */
void rblk_aen_start(struct rblk_ctrl *ctrl)
{
	set_bit(RBLK_AEN_CONFIG, &ctrl->aen_flags);
	/* Before the scan that follows: it is the one that unmasks. */
	set_bit(RBLK_AEN_RESV_UNMASK, &ctrl->aen_flags);
	queue_delayed_work(rblk_wq, &ctrl->aen_work, 0);
}

/*
 * After the final tear-down: no AER can complete any more, and the work
 * finds the controller not live, so neither comes back once cancelled.
 */
void rblk_aen_stop(struct rblk_ctrl *ctrl)
{
	cancel_delayed_work_sync(&ctrl->aen_work);
	cancel_work_sync(&ctrl->scan_work);
}
