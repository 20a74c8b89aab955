// SPDX-License-Identifier: GPL-2.0
/*
 * rblk: /sys/class/rblk/rblkN, one read-only directory per controller
 * (its counters come from stats.c).
 * The namespaces' disks are its children, so their sysfs links point here.
 *
 * Its uevents, for udev rules, as nvme's: every one carries the address
 * (RBLK_TRTYPE, RBLK_TRADDR, RBLK_TRSVCID, RBLK_SUBNQN, RBLK_HOST_TRADDR
 * if set); a change event with RBLK_EVENT=state and RBLK_STATE follows
 * state changes (from a work item: several quick changes may give one
 * event, of the latest state), RBLK_EVENT=discovery with RBLK_AEN a
 * discovery controller's log change (nvme's NVME_EVENT/NVME_AEN), and
 * RBLK_EVENT=reservation with RBLK_RESV (registration-preempted,
 * reservation-released, reservation-preempted), RBLK_NSID and RBLK_DISK
 * a reservation notice. That one too is the controller's, not the disk's:
 * the notice came through this controller (a head's paths each get their
 * own), and rules for rblk's events match one device class.
 */
#include <linux/device.h>
#include <linux/llist.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "compat.h"
#include "nvme.h"

enum rblk_attr_kind {
	RBLK_A_STATE, RBLK_A_TRANSPORT, RBLK_A_TRADDR, RBLK_A_TRSVCID,
	RBLK_A_SUBNQN, RBLK_A_HOSTNQN, RBLK_A_HOSTID, RBLK_A_CNTLID,
	RBLK_A_NR_IO_QUEUES, RBLK_A_QUEUE_SIZE, RBLK_A_MODEL, RBLK_A_SERIAL,
	RBLK_A_FIRMWARE, RBLK_A_KATO, RBLK_A_HOST_TRADDR, RBLK_A_TOS,
	RBLK_A_ADDRESS, RBLK_A_NR_WRITE_QUEUES, RBLK_A_NR_POLL_QUEUES,
	RBLK_A_CNTRLTYPE,
};

struct rblk_dev_attr {
	struct device_attribute	attr;
	enum rblk_attr_kind	kind;
};

static ssize_t rblk_info_show(struct rblk_ctrl *ctrl, enum rblk_attr_kind k,
			      char *buf)
{
	struct rblk_ctrl_info info;

	rblk_ctrl_get_info(ctrl, &info);
	switch (k) {
	case RBLK_A_CNTLID:
		return sysfs_emit(buf, "%u\n", info.cntlid);
	case RBLK_A_NR_IO_QUEUES:
		return sysfs_emit(buf, "%u\n", info.nr_io_queues);
	case RBLK_A_NR_WRITE_QUEUES:
		return sysfs_emit(buf, "%u\n", info.nr_write_queues);
	case RBLK_A_NR_POLL_QUEUES:
		return sysfs_emit(buf, "%u\n", info.nr_poll_queues);
	case RBLK_A_QUEUE_SIZE:
		return sysfs_emit(buf, "%u\n", info.queue_size);
	case RBLK_A_MODEL:
		return sysfs_emit(buf, "%s\n", info.model);
	case RBLK_A_SERIAL:
		return sysfs_emit(buf, "%s\n", info.serial);
	default:
		return sysfs_emit(buf, "%s\n", info.firmware);
	}
}

static ssize_t rblk_attr_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	struct rblk_dev_attr *a = container_of(attr, struct rblk_dev_attr,
					       attr);
	struct rblk_ctrl *ctrl = dev_get_drvdata(dev);
	const struct rblk_ctrl_opts *o = &ctrl->opts;

	switch (a->kind) {
	case RBLK_A_STATE:
		return sysfs_emit(buf, "%s\n",
				  rblk_state_name(rblk_ctrl_state(ctrl)));
	case RBLK_A_TRANSPORT:
		return sysfs_emit(buf, "rdma\n");
	case RBLK_A_TRADDR:
		return sysfs_emit(buf, "%s\n", o->traddr);
	case RBLK_A_TRSVCID:
		return sysfs_emit(buf, "%u\n", o->trsvcid);
	case RBLK_A_SUBNQN:
		return sysfs_emit(buf, "%s\n", o->subnqn);
	case RBLK_A_HOSTNQN:
		return sysfs_emit(buf, "%s\n", o->hostnqn);
	case RBLK_A_HOSTID:
		return sysfs_emit(buf, "%pUb\n", &o->hostid);
	case RBLK_A_KATO:
		return sysfs_emit(buf, "%u\n", o->kato);
	case RBLK_A_HOST_TRADDR:
		return sysfs_emit(buf, "%s\n", o->host_traddr);
	case RBLK_A_TOS:
		return sysfs_emit(buf, "%d\n", o->tos);
	case RBLK_A_ADDRESS:
		/* nvme's "address" attribute, so scripts read both alike. */
		return sysfs_emit(buf, "traddr=%s,trsvcid=%u%s%s\n", o->traddr,
				  o->trsvcid,
				  o->host_traddr[0] ? ",host_traddr=" : "",
				  o->host_traddr);
	case RBLK_A_CNTRLTYPE:
		/* nvme's values; "io" whatever Identify said, as for nvme. */
		return sysfs_emit(buf, "%s\n", o->discovery ? "discovery" : "io");
	default:
		return rblk_info_show(ctrl, a->kind, buf);
	}
}

#define RBLK_ATTR(_name, _kind) {					\
	.attr = __ATTR(_name, 0444, rblk_attr_show, NULL),		\
	.kind = _kind,							\
}

static struct rblk_dev_attr rblk_dev_attrs[] = {
	RBLK_ATTR(state, RBLK_A_STATE),
	RBLK_ATTR(transport, RBLK_A_TRANSPORT),
	RBLK_ATTR(traddr, RBLK_A_TRADDR),
	RBLK_ATTR(trsvcid, RBLK_A_TRSVCID),
	RBLK_ATTR(subnqn, RBLK_A_SUBNQN),
	RBLK_ATTR(hostnqn, RBLK_A_HOSTNQN),
	RBLK_ATTR(hostid, RBLK_A_HOSTID),
	RBLK_ATTR(cntlid, RBLK_A_CNTLID),
	RBLK_ATTR(nr_io_queues, RBLK_A_NR_IO_QUEUES),
	RBLK_ATTR(nr_write_queues, RBLK_A_NR_WRITE_QUEUES),
	RBLK_ATTR(nr_poll_queues, RBLK_A_NR_POLL_QUEUES),
	RBLK_ATTR(queue_size, RBLK_A_QUEUE_SIZE),
	RBLK_ATTR(model, RBLK_A_MODEL),
	RBLK_ATTR(serial, RBLK_A_SERIAL),
	RBLK_ATTR(firmware, RBLK_A_FIRMWARE),
	RBLK_ATTR(kato, RBLK_A_KATO),
	RBLK_ATTR(host_traddr, RBLK_A_HOST_TRADDR),
	RBLK_ATTR(tos, RBLK_A_TOS),
	RBLK_ATTR(address, RBLK_A_ADDRESS),
	RBLK_ATTR(cntrltype, RBLK_A_CNTRLTYPE),
};

static struct attribute *rblk_ctrl_attrs[ARRAY_SIZE(rblk_dev_attrs) + 1];

static const struct attribute_group rblk_ctrl_group = {
	.attrs = rblk_ctrl_attrs,
};

/* The counters follow, from stats.c's table. */
static const struct attribute_group *rblk_ctrl_groups[] = {
	&rblk_ctrl_group,
	&rblk_stats_attr_group,
	NULL,
};

static int rblk_class_uevent(RBLK_CONST_DEV struct device *dev,
			     struct kobj_uevent_env *env)
{
	struct rblk_ctrl *ctrl = dev_get_drvdata(dev);
	const struct rblk_ctrl_opts *o;
	int ret;

	if (!ctrl)
		return 0;
	o = &ctrl->opts;
	ret = add_uevent_var(env, "RBLK_TRTYPE=rdma") ?:
	      add_uevent_var(env, "RBLK_TRADDR=%s", o->traddr) ?:
	      add_uevent_var(env, "RBLK_TRSVCID=%u", o->trsvcid) ?:
	      add_uevent_var(env, "RBLK_SUBNQN=%s", o->subnqn);
	if (!ret && o->host_traddr[0])
		ret = add_uevent_var(env, "RBLK_HOST_TRADDR=%s", o->host_traddr);
	return ret;
}

static struct class rblk_class = {
	.name = "rblk",
	.dev_uevent = rblk_class_uevent,
};

static void rblk_sysfs_uevent(struct rblk_ctrl *ctrl, char **envp)
{
	kobject_uevent_env(&ctrl->dev->kobj, KOBJ_CHANGE, envp);
}

#define RBLK_UEVENT_STATE	0	/* bit of uevent_pending */

/* An AEN's uevent, waiting for uevent_work; resv 0: a discovery one. */
struct rblk_aen_uevent {
	struct llist_node	node;
	u32			result;
	u8			resv;		/* enum rblk_resv_notice */
	u32			nsid;
	char			disk[DISK_NAME_LEN];
};

static void rblk_sysfs_aen_uevent(struct rblk_ctrl *ctrl,
				  const struct rblk_aen_uevent *a)
{
	char var[3][DISK_NAME_LEN + 16];
	char *envp[5] = { "RBLK_EVENT=discovery", var[0], NULL };

	if (!a->resv) {
		snprintf(var[0], sizeof(var[0]), "RBLK_AEN=%#08x", a->result);
		rblk_sysfs_uevent(ctrl, envp);
		return;
	}
	envp[0] = "RBLK_EVENT=reservation";
	/* aen.c raises only the notices it names */
	snprintf(var[0], sizeof(var[0]), "RBLK_RESV=%s",
		 rblk_resv_notice_name(a->resv));
	snprintf(var[1], sizeof(var[1]), "RBLK_NSID=%u", a->nsid);
	snprintf(var[2], sizeof(var[2]), "RBLK_DISK=%s", a->disk);
	envp[2] = var[1];
	envp[3] = var[2];
	rblk_sysfs_uevent(ctrl, envp);
}

/*
 * Flushed before the device goes, once no more events come: the last
 * state event (deleting) goes out, and DEAD queues none.
 */
void rblk_sysfs_uevent_work(struct work_struct *work)
{
	struct rblk_ctrl *ctrl = container_of(work, struct rblk_ctrl,
					      uevent_work);
	struct rblk_aen_uevent *a, *next;
	struct llist_node *aens;
	char var[32];
	char *envp[3] = { "RBLK_EVENT=state", var, NULL };

	if (test_and_clear_bit(RBLK_UEVENT_STATE, &ctrl->uevent_pending)) {
		snprintf(var, sizeof(var), "RBLK_STATE=%s",
			 rblk_state_name(rblk_ctrl_state(ctrl)));
		rblk_sysfs_uevent(ctrl, envp);
	}
	aens = llist_reverse_order(llist_del_all(&ctrl->aen_uevents));
	llist_for_each_entry_safe(a, next, aens, node) {
		rblk_sysfs_aen_uevent(ctrl, a);
		kfree(a);
	}
}

/* The events' listener: it may not sleep, uevent_work sends them. */
static int rblk_sysfs_event(struct notifier_block *nb, unsigned long kind,
			    void *data)
{
	const struct rblk_event *ev = data;
	struct rblk_ctrl *ctrl = ev->ctrl;
	struct rblk_aen_uevent *a;

	switch (kind) {
	case RBLK_EVENT_STATE:
		/* DEAD: the device goes, and says so with its remove event. */
		if (ev->new == RBLK_CTRL_DEAD)
			break;
		/*
		 * queue_work() orders the bit (and the state, set before the
		 * event) before the work's test_and_clear_bit(), its pair.
		 */
		set_bit(RBLK_UEVENT_STATE, &ctrl->uevent_pending);
		queue_work(rblk_wq, &ctrl->uevent_work);
		break;
	case RBLK_EVENT_AEN:
	case RBLK_EVENT_RESV:
		/* Each its own: the work may still be pending at the next. */
		a = kzalloc(sizeof(*a), GFP_ATOMIC);
		if (!a)
			break;
		a->result = ev->aen_result;
		if (kind == RBLK_EVENT_RESV) {
			a->resv = ev->resv_notice;
			a->nsid = ev->nsid;
			strscpy(a->disk, ev->disk, sizeof(a->disk));
		}
		llist_add(&a->node, &ctrl->aen_uevents);
		queue_work(rblk_wq, &ctrl->uevent_work);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block rblk_sysfs_nb = {
	.notifier_call	= rblk_sysfs_event,
};

/* The class device carries the character device's dev_t: /dev/rblkN. */
int rblk_sysfs_add(struct rblk_ctrl *ctrl)
{
	struct device *dev;
	dev_t devt;
	int ret;

	ret = rblk_chr_add(ctrl, &devt);
	if (ret)
		return ret;
	dev = device_create_with_groups(&rblk_class, NULL, devt, ctrl,
					rblk_ctrl_groups, "%s", ctrl->name);
	if (IS_ERR(dev)) {
		rblk_chr_del(ctrl);
		return PTR_ERR(dev);
	}
	ctrl->dev = dev;
	return 0;
}

/* Returns once no attribute callback runs any more. */
void rblk_sysfs_del(struct rblk_ctrl *ctrl)
{
	device_unregister(ctrl->dev);
	ctrl->dev = NULL;
	rblk_chr_del(ctrl);
}

int rblk_sysfs_init(void)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(rblk_dev_attrs); i++)
		rblk_ctrl_attrs[i] = &rblk_dev_attrs[i].attr.attr;
	rblk_stats_sysfs_init();
	ret = class_register(&rblk_class);
	if (ret)
		return ret;
	ret = rblk_event_register(&rblk_sysfs_nb);
	if (ret)
		class_unregister(&rblk_class);
	return ret;
}

void rblk_sysfs_exit(void)
{
	rblk_event_unregister(&rblk_sysfs_nb);
	class_unregister(&rblk_class);
}
