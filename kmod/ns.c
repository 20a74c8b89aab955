// SPDX-License-Identifier: GPL-2.0
/*
 * rblk: namespaces. One gendisk /dev/rblk<C>n<NSID> per active namespace,
 * its limits derived from Identify Controller/Namespace, plus a wwid.
 */
#include <linux/blkdev.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "compat.h"
#include "core.h"
#include "scsi_xlate.h"

#define RBLK_MAX_NAMESPACES	1024
#define RBLK_NS_LIST_LEN	(NVME_IDENTIFY_DATA_SIZE / sizeof(__le32))
/* Minors per disk: the whole disk and 15 partitions. */
#define RBLK_PART_MINORS	16

/*
 * rblk disks get a block major of their own rather than the shared
 * extended major 259, which SCSI tools (sg3_utils) take for NVMe
 * namespaces and then never send SG_IO to.
 */
static int rblk_major;
static DEFINE_IDA(rblk_minor_ida);

int rblk_ns_init(void)
{
	rblk_major = register_blkdev(0, "rblk");
	return rblk_major < 0 ? rblk_major : 0;
}

void rblk_ns_exit(void)
{
	unregister_blkdev(rblk_major, "rblk");
	ida_destroy(&rblk_minor_ida);
}

/* The last reference to the disk: an open fd may outlive del_gendisk(). */
static void rblk_free_disk(struct gendisk *disk)
{
	struct rblk_ns *ns = disk->private_data;

	ida_free(&rblk_minor_ida, disk->first_minor / RBLK_PART_MINORS);
	rblk_ctrl_put(ns->ctrl);
	kfree(ns);
}

static const struct block_device_operations rblk_bdev_ops = {
	.owner		= THIS_MODULE,
	.ioctl		= rblk_scsi_ioctl,
	.compat_ioctl	= blkdev_compat_ptr_ioctl,
	.free_disk	= rblk_free_disk,
};

static struct rblk_ns *dev_to_ns(struct device *dev)
{
	return dev_to_disk(dev)->private_data;
}

static ssize_t wwid_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct rblk_ns *ns = dev_to_ns(dev);

	if (!uuid_is_null(&ns->uuid))
		return sysfs_emit(buf, "uuid.%pU\n", &ns->uuid);
	if (memchr_inv(ns->nguid, 0, sizeof(ns->nguid)))
		return sysfs_emit(buf, "eui.%16phN\n", ns->nguid);
	if (memchr_inv(ns->eui64, 0, sizeof(ns->eui64)))
		return sysfs_emit(buf, "eui.%8phN\n", ns->eui64);
	return sysfs_emit(buf, "rblk.%s-nsid%u\n", ns->ctrl->opts.subnqn,
			  ns->nsid);
}
static DEVICE_ATTR_RO(wwid);

static ssize_t rblk_ns_id_show(struct device *dev,
			       struct device_attribute *attr, char *buf);
static struct device_attribute dev_attr_nsid =
	__ATTR(nsid, 0444, rblk_ns_id_show, NULL);
static struct device_attribute dev_attr_nguid =
	__ATTR(nguid, 0444, rblk_ns_id_show, NULL);
static struct device_attribute dev_attr_eui =
	__ATTR(eui, 0444, rblk_ns_id_show, NULL);
static struct device_attribute dev_attr_uuid =
	__ATTR(uuid, 0444, rblk_ns_id_show, NULL);

static ssize_t rblk_ns_id_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct rblk_ns *ns = dev_to_ns(dev);

	if (attr == &dev_attr_nguid)
		return sysfs_emit(buf, "%pU\n", ns->nguid);
	if (attr == &dev_attr_eui)
		return sysfs_emit(buf, "%8ph\n", ns->eui64);
	if (attr == &dev_attr_uuid)
		return sysfs_emit(buf, "%pU\n", &ns->uuid);
	return sysfs_emit(buf, "%u\n", ns->nsid);
}

static struct attribute *rblk_ns_attrs[] = {
	&dev_attr_wwid.attr,
	&dev_attr_nsid.attr,
	&dev_attr_nguid.attr,
	&dev_attr_eui.attr,
	&dev_attr_uuid.attr,
	NULL,
};

static umode_t rblk_ns_attr_visible(struct kobject *kobj,
				    struct attribute *a, int n)
{
	struct rblk_ns *ns = dev_to_ns(kobj_to_dev(kobj));

	if (a == &dev_attr_nguid.attr)
		return memchr_inv(ns->nguid, 0, sizeof(ns->nguid)) ? a->mode : 0;
	if (a == &dev_attr_eui.attr)
		return memchr_inv(ns->eui64, 0, sizeof(ns->eui64)) ? a->mode : 0;
	if (a == &dev_attr_uuid.attr)
		return uuid_is_null(&ns->uuid) ? 0 : a->mode;
	return a->mode;
}

static const struct attribute_group rblk_ns_attr_group = {
	.attrs		= rblk_ns_attrs,
	.is_visible	= rblk_ns_attr_visible,
};

const struct attribute_group *rblk_ns_attr_groups[] = {
	&rblk_ns_attr_group,
	NULL,
};

static void rblk_ns_limits(struct rblk_ns *ns, struct nvme_id_ns *id,
			   struct rblk_qlim *l)
{
	struct rblk_ctrl *ctrl = ns->ctrl;
	u32 bs = 1U << ns->lba_shift, phys = bs, opt = 0;
	/* NLB is a 16-bit 0's based count. */
	u32 max_lbas = 0x10000U << (ns->lba_shift - SECTOR_SHIFT);

	if (id->nsfeat & NVME_NS_FEAT_IO_OPT) {
		u32 npwg = bs * (1 + le16_to_cpu(id->npwg));

		if (is_power_of_2(npwg) && npwg <= SZ_64K)
			phys = npwg;
		opt = bs * (1 + le16_to_cpu(id->nows));
	}

	rblk_blk_base_limits(ctrl, l);
	l->max_hw_sectors = min(ctrl->max_hw_sectors, max_lbas);
	l->logical_block_size = bs;
	l->physical_block_size = phys;
	l->io_min = phys;
	if (opt && opt <= (ctrl->max_hw_sectors << SECTOR_SHIFT))
		l->io_opt = opt;
	l->write_cache = ctrl->vwc & NVME_CTRL_VWC_PRESENT;
	if (ctrl->oncs & NVME_CTRL_ONCS_DSM) {
		l->discard_granularity = bs;
		l->max_discard_sectors = UINT_MAX;
		l->max_discard_segments = NVME_DSM_MAX_RANGES;
	}
	if (ctrl->oncs & NVME_CTRL_ONCS_WRITE_ZEROES)
		l->max_write_zeroes_sectors = l->max_hw_sectors;
}

static int rblk_ns_add(struct rblk_ctrl *ctrl, u32 nsid)
{
	struct rblk_qlim lim;
	struct nvme_id_ns *id;
	struct gendisk *disk;
	struct rblk_ns *ns;
	int ret, minor;

	ns = kzalloc(sizeof(*ns), GFP_KERNEL);
	id = kzalloc(sizeof(*id), GFP_KERNEL);
	if (!ns || !id) {
		ret = -ENOMEM;
		goto out_free;
	}
	ns->ctrl = ctrl;
	ns->nsid = nsid;
	ret = rblk_fabrics_identify_ns(ctrl, ns, id);
	if (ret)
		goto out_free;
	rblk_fabrics_ns_ids(ctrl, ns);

	rblk_ns_limits(ns, id, &lim);
	minor = ida_alloc_max(&rblk_minor_ida,
			      (MINORMASK + 1) / RBLK_PART_MINORS - 1, GFP_KERNEL);
	if (minor < 0) {
		ret = minor;
		goto out_free;
	}
	disk = rblk_alloc_disk(&ctrl->io_set, &lim, ns);
	if (IS_ERR(disk)) {
		ida_free(&rblk_minor_ida, minor);
		ret = PTR_ERR(disk);
		goto out_free;
	}
	/* From here the disk owns ns, its minors and a controller reference. */
	kref_get(&ctrl->ref);
	ns->disk = disk;
	disk->major = rblk_major;
	disk->first_minor = minor * RBLK_PART_MINORS;
	disk->minors = RBLK_PART_MINORS;
	disk->fops = &rblk_bdev_ops;
	disk->private_data = ns;
	snprintf(disk->disk_name, DISK_NAME_LEN, "rblk%un%u", ctrl->id, nsid);
	set_capacity(disk, ns->nsze << (ns->lba_shift - SECTOR_SHIFT));
	kfree(id);

	mutex_lock(&ctrl->ns_lock);
	/* Recovery holds every namespace queue; this one joins them. */
	if (test_bit(RBLK_CTRL_NS_QUIESCED, &ctrl->flags))
		blk_mq_quiesce_queue(disk->queue);
	list_add_tail(&ns->entry, &ctrl->namespaces);
	mutex_unlock(&ctrl->ns_lock);

	ret = device_add_disk(ctrl->dev, disk, rblk_ns_attr_groups);
	if (ret) {
		mutex_lock(&ctrl->ns_lock);
		list_del(&ns->entry);
		mutex_unlock(&ctrl->ns_lock);
		put_disk(disk);
		return ret;
	}
	mutex_lock(&ctrl->ns_lock);
	ns->added = true;
	mutex_unlock(&ctrl->ns_lock);
	return 0;

out_free:
	kfree(id);
	kfree(ns);
	return ret;
}

/* Walks the active namespace list; ids must ascend and respect NN. */
int rblk_ns_scan(struct rblk_ctrl *ctrl)
{
	unsigned int added = 0, i;
	u32 start = 0, nsid;
	__le32 *list;
	int ret;

	list = kmalloc(NVME_IDENTIFY_DATA_SIZE, GFP_KERNEL);
	if (!list)
		return -ENOMEM;
	for (;;) {
		ret = rblk_fabrics_active_ns(ctrl, start, list);
		if (ret) {
			dev_err(ctrl->dev, "Identify active namespaces failed: %d\n",
				ret);
			break;
		}
		for (i = 0; i < RBLK_NS_LIST_LEN; i++) {
			nsid = le32_to_cpu(list[i]);
			if (!nsid)
				goto out;
			if (!rblk_nsid_next_ok(nsid, start, ctrl->nn)) {
				dev_err(ctrl->dev, "bogus namespace id %u in active list\n",
					nsid);
				goto out;
			}
			start = nsid;
			if (rblk_ctrl_state(ctrl) == RBLK_CTRL_DELETING)
				goto out;
			if (added >= RBLK_MAX_NAMESPACES) {
				dev_warn(ctrl->dev, "more than %u namespaces: ignoring the rest\n",
					 RBLK_MAX_NAMESPACES);
				goto out;
			}
			ret = rblk_ns_add(ctrl, nsid);
			if (ret)
				dev_err(ctrl->dev, "nsid %u: not added: %d\n",
					nsid, ret);
			else
				added++;
		}
	}
out:
	kfree(list);
	return ret;
}

/* Capacity may have changed while we were away. */
void rblk_ns_revalidate(struct rblk_ctrl *ctrl)
{
	struct nvme_id_ns *id;
	struct rblk_ns *ns;

	id = kmalloc(sizeof(*id), GFP_KERNEL);
	if (!id)
		return;
	mutex_lock(&ctrl->ns_lock);
	list_for_each_entry(ns, &ctrl->namespaces, entry) {
		struct rblk_ns tmp = { .ctrl = ctrl, .nsid = ns->nsid };

		if (rblk_fabrics_identify_ns(ctrl, &tmp, id))
			continue;
		if (tmp.lba_shift != ns->lba_shift) {
			dev_warn(ctrl->dev, "nsid %u: LBA size changed: keeping the old one\n",
				 ns->nsid);
			continue;
		}
		ns->nsze = tmp.nsze;
		set_capacity_and_notify(ns->disk,
					ns->nsze << (ns->lba_shift - SECTOR_SHIFT));
	}
	mutex_unlock(&ctrl->ns_lock);
	kfree(id);
}

/* The flag changes under ns_lock so rblk_ns_add() sees it consistently. */
void rblk_ns_quiesce(struct rblk_ctrl *ctrl)
{
	struct rblk_ns *ns;

	mutex_lock(&ctrl->ns_lock);
	if (!test_and_set_bit(RBLK_CTRL_NS_QUIESCED, &ctrl->flags)) {
		list_for_each_entry(ns, &ctrl->namespaces, entry)
			blk_mq_quiesce_queue(ns->disk->queue);
	}
	mutex_unlock(&ctrl->ns_lock);
}

void rblk_ns_unquiesce(struct rblk_ctrl *ctrl)
{
	struct rblk_ns *ns;

	mutex_lock(&ctrl->ns_lock);
	if (test_and_clear_bit(RBLK_CTRL_NS_QUIESCED, &ctrl->flags)) {
		list_for_each_entry(ns, &ctrl->namespaces, entry) {
			blk_mq_unquiesce_queue(ns->disk->queue);
			blk_mq_kick_requeue_list(ns->disk->queue);
		}
	}
	mutex_unlock(&ctrl->ns_lock);
}

/* Waits for timeout handlers: after it none can end a request late. */
void rblk_ns_sync(struct rblk_ctrl *ctrl)
{
	struct rblk_ns *ns;

	mutex_lock(&ctrl->ns_lock);
	list_for_each_entry(ns, &ctrl->namespaces, entry)
		blk_sync_queue(ns->disk->queue);
	mutex_unlock(&ctrl->ns_lock);
}

/*
 * Waiting requests must fail rather than block del_gendisk() or a scan
 * still adding disks, so the queues run again first: with the state
 * DELETING they end with an error unless the association is still live,
 * in which case they complete. The scan lock then waits for the creator.
 */
void rblk_ns_remove_all(struct rblk_ctrl *ctrl)
{
	struct rblk_ns *ns, *next;
	LIST_HEAD(gone);

	rblk_ns_unquiesce(ctrl);
	mutex_lock(&ctrl->scan_lock);
	mutex_lock(&ctrl->ns_lock);
	list_splice_init(&ctrl->namespaces, &gone);
	mutex_unlock(&ctrl->ns_lock);
	mutex_unlock(&ctrl->scan_lock);

	list_for_each_entry_safe(ns, next, &gone, entry) {
		list_del(&ns->entry);
		del_gendisk(ns->disk);
		put_disk(ns->disk);
	}
}
