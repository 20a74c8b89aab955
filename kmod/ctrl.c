// SPDX-License-Identifier: GPL-2.0
/*
 * rblk: controller registry, state machine and create/delete.
 *
 * Every controller lives on rblk_ctrls from creation until its delete work
 * has torn it down; lookups only see it once the first connect succeeded,
 * so userspace can never delete a controller that is still being created.
 */
#include <linux/idr.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "nvme.h"

struct workqueue_struct *rblk_wq;		/* error recovery, reconnect, ka */
static struct workqueue_struct *rblk_delete_wq;	/* deletes: may wait on rblk_wq */

static DEFINE_MUTEX(rblk_ctrls_lock);
static LIST_HEAD(rblk_ctrls);
static DEFINE_IDA(rblk_ida);

static char rblk_hostnqn[NVMF_NQN_FIELD_LEN];
static uuid_t rblk_hostid;

/* Every event to userspace goes through here (rblk.h). */
static ATOMIC_NOTIFIER_HEAD(rblk_events);

int rblk_event_register(struct notifier_block *nb)
{
	return atomic_notifier_chain_register(&rblk_events, nb);
}

void rblk_event_unregister(struct notifier_block *nb)
{
	/* Waits for an RCU grace period: no listener of @nb runs after. */
	atomic_notifier_chain_unregister(&rblk_events, nb);
}

static void rblk_event_raise(struct rblk_ctrl *ctrl, enum rblk_event_kind kind,
			     struct rblk_event *ev)
{
	ev->ctrl = ctrl;
	ev->id = ctrl->id;
	ev->name = ctrl->name;
	atomic_notifier_call_chain(&rblk_events, kind, ev);
}

/* From aen_work: a discovery controller's log changed. */
void rblk_ctrl_event_aen(struct rblk_ctrl *ctrl, u32 result)
{
	struct rblk_event ev = { .aen_result = result };

	rblk_event_raise(ctrl, RBLK_EVENT_AEN, &ev);
}

/* From aen_work: a reservation notice for namespace @nsid, disk @disk. */
void rblk_ctrl_event_resv(struct rblk_ctrl *ctrl, u32 nsid, const char *disk,
			  u8 notice)
{
	struct rblk_event ev = {
		.nsid = nsid, .disk = disk, .resv_notice = notice,
	};

	rblk_event_raise(ctrl, RBLK_EVENT_RESV, &ev);
}

bool rblk_ctrl_change_state(struct rblk_ctrl *ctrl, enum rblk_ctrl_state new)
{
	enum rblk_ctrl_state old;
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&ctrl->lock, flags);
	old = ctrl->state;
	ok = rblk_state_allowed(old, new);
	if (ok) {
		ctrl->state = new;
		ctrl->state_since = jiffies;
		if (new == RBLK_CTRL_LIVE || new == RBLK_CTRL_DELETING) {
			ctrl->loss_deadline = 0;
			ctrl->next_reconnect = 0;
		} else if (new == RBLK_CTRL_RESETTING) {
			ctrl->lost_at = jiffies;
			if (ctrl->opts.ctrl_loss_tmo >= 0)
				ctrl->loss_deadline = jiffies +
					(unsigned long)ctrl->opts.ctrl_loss_tmo * HZ;
		}
	}
	spin_unlock_irqrestore(&ctrl->lock, flags);

	if (ok) {
		struct rblk_event ev = { .old = old, .new = new };

		dev_dbg(ctrl->dev, "state %s -> %s\n", rblk_state_name(old),
			rblk_state_name(new));
		rblk_event_raise(ctrl, RBLK_EVENT_STATE, &ev);
	}
	return ok;
}

/*
 * Going away: the one test for it. No new association will be set up and
 * waiting I/O fails (RBLK_CTRL_TORN_DOWN then marks the final tear-down's
 * start, and visible only says that creation finished).
 */
bool rblk_ctrl_deleting(struct rblk_ctrl *ctrl)
{
	enum rblk_ctrl_state st = rblk_ctrl_state(ctrl);

	return st == RBLK_CTRL_DELETING || st == RBLK_CTRL_DEAD;
}

static void rblk_ctrl_release(struct kref *ref)
{
	struct rblk_ctrl *ctrl = container_of(ref, struct rblk_ctrl, ref);

	/*
	 * A scan queued by a holder of a reference (an ioctl) that found the
	 * controller live just before its delete ran to the end.
	 */
	cancel_work_sync(&ctrl->scan_work);
	rblk_tagset_free_admin(ctrl);
	/* The first controller's id is its subsystem's while that lives. */
	if (!ctrl->subsys || ctrl->subsys->instance != ctrl->id)
		ida_free(&rblk_ida, ctrl->id);
	if (ctrl->subsys)
		rblk_subsys_put(ctrl->subsys);
	rblk_ana_free_ctrl(ctrl);
	rblk_stats_free(ctrl);
	mutex_destroy(&ctrl->ns_lock);
	mutex_destroy(&ctrl->scan_lock);
	kfree(ctrl->changed);
	rblk_rdma_free_ctrl(ctrl);
	kfree(ctrl->queues);
	rblk_auth_free(ctrl);
	/* The secrets in opts. */
	kfree_sensitive(ctrl);
}

void rblk_ctrl_id_free(u32 id)
{
	ida_free(&rblk_ida, id);
}

void rblk_ctrl_put(struct rblk_ctrl *ctrl)
{
	kref_put(&ctrl->ref, rblk_ctrl_release);
}

const struct rblk_ctrl_opts *rblk_ctrl_opts(struct rblk_ctrl *ctrl)
{
	return &ctrl->opts;
}

struct rblk_ctrl *rblk_ctrl_get_by_id(u32 id)
{
	struct rblk_ctrl *ctrl, *found = NULL;

	mutex_lock(&rblk_ctrls_lock);
	list_for_each_entry(ctrl, &rblk_ctrls, entry) {
		if (ctrl->visible && ctrl->id == id) {
			kref_get(&ctrl->ref);
			found = ctrl;
			break;
		}
	}
	mutex_unlock(&rblk_ctrls_lock);
	return found;
}

struct rblk_ctrl *rblk_ctrl_get_by_name(const char *name)
{
	struct rblk_ctrl *ctrl, *found = NULL;

	mutex_lock(&rblk_ctrls_lock);
	list_for_each_entry(ctrl, &rblk_ctrls, entry) {
		if (ctrl->visible && !strcmp(ctrl->name, name)) {
			kref_get(&ctrl->ref);
			found = ctrl;
			break;
		}
	}
	mutex_unlock(&rblk_ctrls_lock);
	return found;
}

struct rblk_ctrl *rblk_ctrl_get_next(u32 *id)
{
	struct rblk_ctrl *ctrl, *found = NULL;

	mutex_lock(&rblk_ctrls_lock);
	list_for_each_entry(ctrl, &rblk_ctrls, entry) {
		if (!ctrl->visible || ctrl->id < *id)
			continue;
		if (!found || ctrl->id < found->id)
			found = ctrl;
	}
	if (found) {
		kref_get(&found->ref);
		*id = found->id;
	}
	mutex_unlock(&rblk_ctrls_lock);
	return found;
}

static u64 rblk_ms_since(unsigned long then)
{
	return jiffies_to_msecs(jiffies - then);
}

static u64 rblk_ms_until(unsigned long when)
{
	if (!when)
		return 0;
	if (time_after_eq(jiffies, when))
		return 1;	/* due now; 0 would mean "none" */
	return jiffies_to_msecs(when - jiffies);
}

void rblk_ctrl_get_info(struct rblk_ctrl *ctrl, struct rblk_ctrl_info *info)
{
	unsigned long flags;

	memset(info, 0, sizeof(*info));
	info->id = ctrl->id;
	strscpy(info->name, ctrl->name, sizeof(info->name));

	spin_lock_irqsave(&ctrl->lock, flags);
	info->state = ctrl->state;
	info->state_since_ms = rblk_ms_since(ctrl->state_since);
	info->next_reconnect_ms = rblk_ms_until(ctrl->next_reconnect);
	info->loss_deadline_ms = rblk_ms_until(ctrl->loss_deadline);
	strscpy(info->model, ctrl->model, sizeof(info->model));
	strscpy(info->serial, ctrl->serial, sizeof(info->serial));
	strscpy(info->firmware, ctrl->firmware, sizeof(info->firmware));
	spin_unlock_irqrestore(&ctrl->lock, flags);
	/* Written by the association's owner, no lock: each on its own. */
	info->cntlid = READ_ONCE(ctrl->cntlid);
	info->queue_size = READ_ONCE(ctrl->queue_size);
	/* In nvme-fabrics' terms: write queues exist when reads are apart. */
	info->nr_io_queues = READ_ONCE(ctrl->io_queues[HCTX_TYPE_READ]);
	if (info->nr_io_queues)
		info->nr_write_queues = READ_ONCE(ctrl->io_queues[HCTX_TYPE_DEFAULT]);
	else
		info->nr_io_queues = READ_ONCE(ctrl->io_queues[HCTX_TYPE_DEFAULT]);
	info->nr_poll_queues = READ_ONCE(ctrl->io_queues[HCTX_TYPE_POLL]);
	/* Set before the controller is visible, constant after. */
	if (ctrl->subsys) {
		info->has_subsys = true;
		info->subsys_id = ctrl->subsys->instance;
		info->multipath = ctrl->subsys->multipath;
		info->iopolicy = READ_ONCE(ctrl->subsys->iopolicy);
	}
	info->anatt = rblk_ctrl_ana(ctrl) ? ctrl->anatt : 0;
}

int rblk_ctrl_get_namespaces(struct rblk_ctrl *ctrl, struct rblk_ns_info *ns,
			     int max)
{
	struct rblk_ns *n;
	int count = 0;

	mutex_lock(&ctrl->ns_lock);
	list_for_each_entry(n, &ctrl->namespaces, entry) {
		if (!n->added)
			continue;
		if (count < max) {
			struct rblk_ns_info *i = &ns[count];

			memset(i, 0, sizeof(*i));
			i->nsid = n->nsid;
			/* The device to open: the head, when there is one. */
			strscpy(i->disk_name, rblk_ns_open_name(n),
				sizeof(i->disk_name));
			if (n->head)
				strscpy(i->path_disk_name, n->disk->disk_name,
					sizeof(i->path_disk_name));
			i->size_bytes = get_capacity(n->disk) << SECTOR_SHIFT;
			i->lba_size = 1U << n->lba_shift;
			if (rblk_ctrl_ana(ctrl)) {
				i->has_ana = true;
				i->ana_state = READ_ONCE(n->ana_state);
				i->anagrpid = READ_ONCE(n->anagrpid);
			}
		}
		count++;
	}
	mutex_unlock(&ctrl->ns_lock);
	return count;
}

/*
 * Same target, subsystem and host identity as a live session? As in
 * nvme-fabrics, another source address (or one given against none) makes
 * another path, not a duplicate.
 */
static bool rblk_ctrl_same(struct rblk_ctrl *a, const struct rblk_ctrl_opts *o)
{
	const struct rblk_ctrl_opts *p = &a->opts;

	if (rblk_ctrl_deleting(a))
		return false;
	return p->trsvcid == o->trsvcid && !strcmp(p->traddr, o->traddr) &&
	       !strcmp(p->subnqn, o->subnqn) && !strcmp(p->hostnqn, o->hostnqn) &&
	       !strcmp(p->host_traddr, o->host_traddr);
}

/*
 * The one way a controller goes away, once its state is DELETING: from
 * its delete work, or from a create whose connect failed. Drops the
 * registry's reference.
 */
static void rblk_ctrl_remove(struct rblk_ctrl *ctrl)
{
	rblk_ctrl_stop_works(ctrl);
	/* Disks first: their writeback may still need abort_work. */
	rblk_ns_remove_all(ctrl);
	rblk_subsys_leave(ctrl);
	/* From here on the tag sets go away: no abort may walk them. */
	set_bit(RBLK_CTRL_TORN_DOWN, &ctrl->flags);
	cancel_work_sync(&ctrl->abort_work);
	rblk_ctrl_teardown(ctrl, true);
	rblk_aen_stop(ctrl);
	rblk_ana_stop(ctrl);
	/* Its last uevents (deleting, an AEN) go out; DEAD queues none. */
	flush_work(&ctrl->uevent_work);
	rblk_ctrl_change_state(ctrl, RBLK_CTRL_DEAD);
	rblk_debugfs_del(ctrl);
	rblk_sysfs_del(ctrl);

	mutex_lock(&rblk_ctrls_lock);
	list_del(&ctrl->entry);
	mutex_unlock(&rblk_ctrls_lock);
	rblk_ctrl_put(ctrl);
}

static void rblk_ctrl_delete_work(struct work_struct *work)
{
	struct rblk_ctrl *ctrl = container_of(work, struct rblk_ctrl,
					      delete_work);

	dev_info(ctrl->dev, "removing controller for %s\n", ctrl->opts.subnqn);
	rblk_ctrl_remove(ctrl);
}

void rblk_ctrl_schedule_delete(struct rblk_ctrl *ctrl)
{
	if (rblk_ctrl_change_state(ctrl, RBLK_CTRL_DELETING))
		queue_work(rblk_delete_wq, &ctrl->delete_work);
}

void rblk_ctrl_delete(struct rblk_ctrl *ctrl)
{
	/* The caller's reference keeps ctrl valid across the flush. */
	rblk_ctrl_schedule_delete(ctrl);
	flush_work(&ctrl->delete_work);
}

/* The RDMA device is going away: its controllers must be gone first. */
void rblk_ctrls_delete_on_device(struct ib_device *ibdev)
{
	struct rblk_ctrl *ctrl;

	mutex_lock(&rblk_ctrls_lock);
	list_for_each_entry(ctrl, &rblk_ctrls, entry) {
		if (ctrl->visible && rblk_rdma_uses_device(ctrl, ibdev))
			rblk_ctrl_schedule_delete(ctrl);
	}
	mutex_unlock(&rblk_ctrls_lock);
	flush_workqueue(rblk_delete_wq);
}

/* A controller in state NEW, with its id and one reference: unlisted. */
static struct rblk_ctrl *rblk_ctrl_alloc(const struct rblk_ctrl_opts *opts)
{
	struct rblk_ctrl *ctrl;
	int ret;

	ctrl = kzalloc(sizeof(*ctrl), GFP_KERNEL);
	if (!ctrl)
		return ERR_PTR(-ENOMEM);
	ctrl->opts = *opts;
	if (!ctrl->opts.hostnqn[0])
		strscpy(ctrl->opts.hostnqn, rblk_hostnqn,
			sizeof(ctrl->opts.hostnqn));
	if (uuid_is_null(&ctrl->opts.hostid))
		uuid_copy(&ctrl->opts.hostid, &rblk_hostid);

	kref_init(&ctrl->ref);
	spin_lock_init(&ctrl->lock);
	mutex_init(&ctrl->scan_lock);
	spin_lock_init(&ctrl->changed_lock);
	mutex_init(&ctrl->ns_lock);
	INIT_LIST_HEAD(&ctrl->namespaces);
	INIT_LIST_HEAD(&ctrl->entry);
	INIT_LIST_HEAD(&ctrl->subsys_entry);
	INIT_WORK(&ctrl->delete_work, rblk_ctrl_delete_work);
	INIT_WORK(&ctrl->uevent_work, rblk_sysfs_uevent_work);
	rblk_ctrl_init_works(ctrl);
	rblk_aen_init(ctrl);
	rblk_ana_init(ctrl);
	ctrl->state = RBLK_CTRL_NEW;
	ctrl->state_since = jiffies;

	ret = rblk_auth_init(ctrl);
	if (ret)
		goto out_free;
	ret = rblk_stats_alloc(ctrl);
	if (ret)
		goto out_free_auth;
	ret = ida_alloc_max(&rblk_ida, RBLK_MAX_CTRLS - 1, GFP_KERNEL);
	if (ret < 0)
		goto out_free_stats;
	ctrl->id = ret;
	snprintf(ctrl->name, sizeof(ctrl->name), "rblk%u", ctrl->id);
	/* From here on rblk_ctrl_put() frees it. */
	return ctrl;

out_free_stats:
	rblk_stats_free(ctrl);
out_free_auth:
	rblk_auth_free(ctrl);
out_free:
	mutex_destroy(&ctrl->ns_lock);
	mutex_destroy(&ctrl->scan_lock);
	kfree_sensitive(ctrl);
	return ERR_PTR(ret);
}

/* Lists the controller, unless it duplicates one, and adds its device. */
static int rblk_ctrl_register(struct rblk_ctrl *ctrl,
			      struct netlink_ext_ack *extack)
{
	struct rblk_ctrl *other;
	int ret;

	mutex_lock(&rblk_ctrls_lock);
	if (!ctrl->opts.duplicate_connect) {
		list_for_each_entry(other, &rblk_ctrls, entry) {
			if (rblk_ctrl_same(other, &ctrl->opts)) {
				mutex_unlock(&rblk_ctrls_lock);
				NL_SET_ERR_MSG(extack,
					       "a controller for this traddr, trsvcid, subnqn and hostnqn already exists");
				return -EALREADY;
			}
		}
	}
	list_add_tail(&ctrl->entry, &rblk_ctrls);
	mutex_unlock(&rblk_ctrls_lock);

	ret = rblk_sysfs_add(ctrl);
	if (ret) {
		NL_SET_ERR_MSG(extack, "cannot register the controller device");
		mutex_lock(&rblk_ctrls_lock);
		list_del(&ctrl->entry);
		mutex_unlock(&rblk_ctrls_lock);
		return ret;
	}
	rblk_debugfs_add(ctrl);
	return 0;
}

/*
 * The first connect, then lookups see the controller, then its namespaces.
 * Once live, recovery may delete the controller, but the scan lock holds
 * that delete off until the namespaces are scanned.
 */
static int rblk_ctrl_start(struct rblk_ctrl *ctrl,
			   struct netlink_ext_ack *extack)
{
	int ret;

	mutex_lock(&ctrl->scan_lock);
	rblk_ctrl_change_state(ctrl, RBLK_CTRL_CONNECTING);
	ret = rblk_ctrl_connect(ctrl, true, extack);
	if (ret) {
		mutex_unlock(&ctrl->scan_lock);
		return ret;
	}
	if (ctrl->opts.discovery)
		dev_info(ctrl->dev, "connected to discovery controller %s at %s:%u\n",
			 ctrl->opts.subnqn, ctrl->opts.traddr,
			 ctrl->opts.trsvcid);
	else
		dev_info(ctrl->dev, "connected to %s at %s:%u, %u I/O queues of %u (%u default, %u read, %u poll)\n",
			 ctrl->opts.subnqn, ctrl->opts.traddr,
			 ctrl->opts.trsvcid, ctrl->nr_io_queues,
			 ctrl->queue_size, ctrl->io_queues[HCTX_TYPE_DEFAULT],
			 ctrl->io_queues[HCTX_TYPE_READ],
			 ctrl->io_queues[HCTX_TYPE_POLL]);

	mutex_lock(&rblk_ctrls_lock);
	ctrl->visible = true;
	mutex_unlock(&rblk_ctrls_lock);
	rblk_ns_scan(ctrl);
	mutex_unlock(&ctrl->scan_lock);
	return 0;
}

struct rblk_ctrl *rblk_ctrl_create(const struct rblk_ctrl_opts *opts,
				   struct netlink_ext_ack *extack)
{
	struct rblk_ctrl *ctrl;
	int ret;

	ctrl = rblk_ctrl_alloc(opts);
	if (IS_ERR(ctrl))
		return ctrl;
	ret = rblk_ctrl_register(ctrl, extack);
	if (ret) {
		rblk_ctrl_put(ctrl);
		return ERR_PTR(ret);
	}

	kref_get(&ctrl->ref);		/* the reply's */
	ret = rblk_ctrl_start(ctrl, extack);
	if (ret) {
		/* Not visible: nothing else can have started a delete. */
		rblk_ctrl_change_state(ctrl, RBLK_CTRL_DELETING);
		rblk_ctrl_remove(ctrl);
		rblk_ctrl_put(ctrl);
		return ERR_PTR(ret);
	}
	return ctrl;
}

int rblk_core_init(void)
{
	int ret;

	uuid_gen(&rblk_hostid);
	snprintf(rblk_hostnqn, sizeof(rblk_hostnqn),
		 "nqn.2014-08.org.nvmexpress:uuid:%pUb", &rblk_hostid);

	rblk_wq = alloc_workqueue("rblk_wq", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!rblk_wq)
		return -ENOMEM;
	rblk_delete_wq = alloc_workqueue("rblk_delete_wq",
					 WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!rblk_delete_wq) {
		ret = -ENOMEM;
		goto out_wq;
	}
	ret = rblk_sysfs_init();
	if (ret)
		goto out_delete_wq;
	ret = rblk_subsys_init();
	if (ret)
		goto out_sysfs;
	ret = rblk_ns_init();
	if (ret)
		goto out_subsys;
	ret = rblk_chr_init();
	if (ret)
		goto out_ns;
	ret = rblk_rdma_init();
	if (ret)
		goto out_chr;
	/* Last: it cannot fail, and no controller exists before it. */
	rblk_debugfs_init();
	return 0;

out_chr:
	rblk_chr_exit();
out_ns:
	rblk_ns_exit();
out_subsys:
	rblk_subsys_exit();
out_sysfs:
	rblk_sysfs_exit();
out_delete_wq:
	destroy_workqueue(rblk_delete_wq);
out_wq:
	destroy_workqueue(rblk_wq);
	return ret;
}

void rblk_core_exit(void)
{
	struct rblk_ctrl *ctrl;

	/* Controllers still being created are the creator's to finish. */
	mutex_lock(&rblk_ctrls_lock);
	list_for_each_entry(ctrl, &rblk_ctrls, entry) {
		if (ctrl->visible)
			rblk_ctrl_schedule_delete(ctrl);
	}
	mutex_unlock(&rblk_ctrls_lock);
	flush_workqueue(rblk_delete_wq);

	rblk_rdma_exit();
	rblk_debugfs_exit();
	rblk_chr_exit();
	rblk_ns_exit();
	rblk_subsys_exit();
	rblk_sysfs_exit();
	destroy_workqueue(rblk_delete_wq);
	destroy_workqueue(rblk_wq);
	ida_destroy(&rblk_ida);
}
