// SPDX-License-Identifier: GPL-2.0
/*
 * rblk: subsystems. Controllers with the same subsystem NQN and host NQN
 * are paths to one NVM subsystem; the subsystem groups them and the
 * namespace heads multipath.c builds over them, and carries the I/O
 * policy. /sys/class/rblk-subsystem/rblk-subsys<S> shows it, S being the
 * id of its first controller, which the subsystem keeps (as nvme's
 * subsystem keeps its first controller's instance) so that head disks
 * rblk<S>n<N> never share a name with another controller's disks.
 *
 * A subsystem lives as long as a controller or a head refers to it: its
 * struct device is the reference count.
 */
#include <linux/device.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "nvme.h"

/* rblk_subsystems, each one's ctrls and heads, the heads' path lists. */
DEFINE_MUTEX(rblk_subsys_lock);
static LIST_HEAD(rblk_subsystems);

static const char *const rblk_iopolicy_names[] = {
	[RBLK_IOPOLICY_NUMA]		= "numa",
	[RBLK_IOPOLICY_ROUND_ROBIN]	= "round-robin",
	[RBLK_IOPOLICY_QUEUE_DEPTH]	= "queue-depth",
};

static struct rblk_subsys *dev_to_subsys(struct device *dev)
{
	return container_of(dev, struct rblk_subsys, dev);
}

static ssize_t subsysnqn_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", dev_to_subsys(dev)->subnqn);
}
static DEVICE_ATTR_RO(subsysnqn);

static ssize_t hostnqn_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%s\n", dev_to_subsys(dev)->hostnqn);
}
static DEVICE_ATTR_RO(hostnqn);

static ssize_t iopolicy_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  rblk_iopolicy_names[READ_ONCE(dev_to_subsys(dev)->iopolicy)]);
}

static ssize_t iopolicy_store(struct device *dev, struct device_attribute *attr,
			      const char *buf, size_t count)
{
	int i = sysfs_match_string(rblk_iopolicy_names, buf);

	if (i < 0)
		return i;
	rblk_subsys_set_iopolicy(dev_to_subsys(dev), i);
	return count;
}
static DEVICE_ATTR_RW(iopolicy);

/* What udev's rules take from a disk's parents (ATTRS{model}, ...). */
static ssize_t rblk_subsys_id_show(struct device *dev,
				   struct device_attribute *attr, char *buf);
static struct device_attribute dev_attr_model =
	__ATTR(model, 0444, rblk_subsys_id_show, NULL);
static struct device_attribute dev_attr_serial =
	__ATTR(serial, 0444, rblk_subsys_id_show, NULL);
static struct device_attribute dev_attr_firmware =
	__ATTR(firmware, 0444, rblk_subsys_id_show, NULL);

static ssize_t rblk_subsys_id_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	struct rblk_subsys *subsys = dev_to_subsys(dev);

	if (attr == &dev_attr_model)
		return sysfs_emit(buf, "%s\n", subsys->model);
	if (attr == &dev_attr_serial)
		return sysfs_emit(buf, "%s\n", subsys->serial);
	return sysfs_emit(buf, "%s\n", subsys->firmware);
}

static ssize_t multipath_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", dev_to_subsys(dev)->multipath);
}
static DEVICE_ATTR_RO(multipath);

static struct attribute *rblk_subsys_attrs[] = {
	&dev_attr_subsysnqn.attr,
	&dev_attr_hostnqn.attr,
	&dev_attr_iopolicy.attr,
	&dev_attr_multipath.attr,
	&dev_attr_model.attr,
	&dev_attr_serial.attr,
	&dev_attr_firmware.attr,
	NULL,
};
ATTRIBUTE_GROUPS(rblk_subsys);

static struct class rblk_subsys_class = {
	.name		= "rblk-subsystem",
	.dev_groups	= rblk_subsys_groups,
};

static void rblk_subsys_release(struct device *dev)
{
	struct rblk_subsys *subsys = dev_to_subsys(dev);

	if (subsys->instance < RBLK_MAX_CTRLS)
		rblk_ctrl_id_free(subsys->instance);
	kfree(subsys);
}

/* Under rblk_subsys_lock. */
static void __rblk_subsys_set_iopolicy(struct rblk_subsys *subsys, u8 policy)
{
	if (READ_ONCE(subsys->iopolicy) == policy)
		return;
	WRITE_ONCE(subsys->iopolicy, policy);
	/* The cached paths were picked by the old rule. */
	rblk_mpath_reset_policy(subsys);
	dev_info(&subsys->dev, "iopolicy %s\n", rblk_iopolicy_names[policy]);
}

int rblk_subsys_set_iopolicy(struct rblk_subsys *subsys, u8 policy)
{
	if (policy >= __RBLK_IOPOLICY_MAX)
		return -EINVAL;
	mutex_lock(&rblk_subsys_lock);
	__rblk_subsys_set_iopolicy(subsys, policy);
	mutex_unlock(&rblk_subsys_lock);
	return 0;
}

const char *rblk_iopolicy_name(u8 policy)
{
	return policy < __RBLK_IOPOLICY_MAX ? rblk_iopolicy_names[policy] : "?";
}

static struct rblk_subsys *rblk_subsys_find(const struct rblk_ctrl *ctrl)
{
	struct rblk_subsys *subsys;

	list_for_each_entry(subsys, &rblk_subsystems, entry) {
		if (!strcmp(subsys->subnqn, ctrl->opts.subnqn) &&
		    !strcmp(subsys->hostnqn, ctrl->opts.hostnqn))
			return subsys;
	}
	return NULL;
}

/*
 * After the first Identify Controller: the controller becomes a path of
 * its subsystem, which is made if it is the first. A discovery
 * controller has no namespaces and belongs to none.
 */
int rblk_subsys_join(struct rblk_ctrl *ctrl, struct netlink_ext_ack *extack)
{
	struct rblk_subsys *subsys, *found;
	unsigned long flags;
	int ret;

	if (ctrl->opts.discovery || ctrl->subsys)
		return 0;
	subsys = kzalloc(sizeof(*subsys), GFP_KERNEL);
	if (!subsys)
		return -ENOMEM;
	spin_lock_irqsave(&ctrl->lock, flags);
	strscpy(subsys->model, ctrl->model, sizeof(subsys->model));
	strscpy(subsys->serial, ctrl->serial, sizeof(subsys->serial));
	strscpy(subsys->firmware, ctrl->firmware, sizeof(subsys->firmware));
	spin_unlock_irqrestore(&ctrl->lock, flags);
	subsys->instance = ctrl->id;
	strscpy(subsys->subnqn, ctrl->opts.subnqn, sizeof(subsys->subnqn));
	strscpy(subsys->hostnqn, ctrl->opts.hostnqn, sizeof(subsys->hostnqn));
	/* As nvme: heads only for a subsystem that may have several. */
	subsys->multipath = rblk_multipath &&
			    (ctrl->cmic & NVME_CTRL_CMIC_MULTI_CTRL);
	subsys->iopolicy = RBLK_IOPOLICY_NUMA;
	INIT_LIST_HEAD(&subsys->ctrls);
	INIT_LIST_HEAD(&subsys->heads);
	device_initialize(&subsys->dev);
	subsys->dev.class = &rblk_subsys_class;
	subsys->dev.release = rblk_subsys_release;
	ret = dev_set_name(&subsys->dev, "rblk-subsys%u", subsys->instance);
	if (ret) {
		/* Not ours yet: the controller still frees its own id. */
		subsys->instance = RBLK_MAX_CTRLS;
		put_device(&subsys->dev);
		return ret;
	}

	mutex_lock(&rblk_subsys_lock);
	found = rblk_subsys_find(ctrl);
	if (found) {
		if (found->multipath !=
		    (rblk_multipath && (ctrl->cmic & NVME_CTRL_CMIC_MULTI_CTRL)))
			dev_warn(ctrl->dev, "CMIC differs from the subsystem's first controller\n");
		get_device(&found->dev);
		ctrl->subsys = found;
		list_add_tail(&ctrl->subsys_entry, &found->ctrls);
		mutex_unlock(&rblk_subsys_lock);
		subsys->instance = RBLK_MAX_CTRLS;
		put_device(&subsys->dev);
		dev_info(ctrl->dev, "another path to %s (%s)\n",
			 dev_name(&found->dev), found->subnqn);
		return 0;
	}
	ret = device_add(&subsys->dev);
	if (ret) {
		mutex_unlock(&rblk_subsys_lock);
		NL_SET_ERR_MSG(extack, "cannot register the subsystem device");
		subsys->instance = RBLK_MAX_CTRLS;
		put_device(&subsys->dev);
		return ret;
	}
	list_add_tail(&subsys->entry, &rblk_subsystems);
	/* The controller's reference; device_add() took none. */
	get_device(&subsys->dev);
	ctrl->subsys = subsys;
	list_add_tail(&ctrl->subsys_entry, &subsys->ctrls);
	mutex_unlock(&rblk_subsys_lock);
	return 0;
}

/*
 * The controller is gone (its disks first): it leaves the subsystem,
 * which goes with the last one. The controller's reference is dropped
 * when the controller is freed: its id may be the subsystem's.
 */
void rblk_subsys_leave(struct rblk_ctrl *ctrl)
{
	struct rblk_subsys *subsys = ctrl->subsys;
	bool last;

	if (!subsys)
		return;
	mutex_lock(&rblk_subsys_lock);
	list_del_init(&ctrl->subsys_entry);
	/* Its namespaces left their heads before (rblk_ns_remove_all()). */
	last = list_empty(&subsys->ctrls);
	if (last)
		list_del(&subsys->entry);
	mutex_unlock(&rblk_subsys_lock);
	if (last) {
		device_del(&subsys->dev);
		/* The list's; heads and controllers hold their own. */
		put_device(&subsys->dev);
	}
}

/* The last reference of a controller that joined. */
void rblk_subsys_put(struct rblk_subsys *subsys)
{
	put_device(&subsys->dev);
}

int rblk_subsys_set_iopolicy_nqn(const char *subnqn, const char *hostnqn,
				 u8 policy, const char **why)
{
	struct rblk_subsys *subsys;
	unsigned int found = 0;

	if (policy >= __RBLK_IOPOLICY_MAX)
		return -EINVAL;
	mutex_lock(&rblk_subsys_lock);
	list_for_each_entry(subsys, &rblk_subsystems, entry) {
		if (!strcmp(subsys->subnqn, subnqn) &&
		    (!hostnqn || !strcmp(subsys->hostnqn, hostnqn))) {
			__rblk_subsys_set_iopolicy(subsys, policy);
			found++;
		}
	}
	mutex_unlock(&rblk_subsys_lock);
	if (!found) {
		*why = "no subsystem with that NQN is connected";
		return -ENODEV;
	}
	return 0;
}

int rblk_ctrl_set_iopolicy(struct rblk_ctrl *ctrl, u8 policy,
			   const char **why)
{
	/* Set before the controller is visible: lookups never see NULL late. */
	if (!ctrl->subsys) {
		*why = "a discovery controller has no I/O policy";
		return -EOPNOTSUPP;
	}
	return rblk_subsys_set_iopolicy(ctrl->subsys, policy);
}

int rblk_subsys_init(void)
{
	return class_register(&rblk_subsys_class);
}

void rblk_subsys_exit(void)
{
	class_unregister(&rblk_subsys_class);
}
