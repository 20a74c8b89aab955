// SPDX-License-Identifier: GPL-2.0
/*
 * rblk: namespaces. One gendisk per active namespace of a controller, its
 * limits derived from Identify Controller/Namespace, plus a wwid: the
 * disk /dev/rblk<C>n<NSID>, or with multipath (multipath.c) the hidden
 * path rblk<S>c<C>n<NSID> below the subsystem's head disk.
 */
#include <linux/async.h>
#include <linux/blkdev.h>
#include <linux/bsearch.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "compat.h"
#include "nvme.h"
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

/* The disk's numbers: our major, RBLK_PART_MINORS minors of it. */
int rblk_disk_minor_alloc(struct gendisk *disk)
{
	int minor = ida_alloc_max(&rblk_minor_ida,
				  (MINORMASK + 1) / RBLK_PART_MINORS - 1,
				  GFP_KERNEL);

	if (minor < 0)
		return minor;
	disk->major = rblk_major;
	disk->first_minor = minor * RBLK_PART_MINORS;
	disk->minors = RBLK_PART_MINORS;
	return 0;
}

void rblk_disk_minor_free(struct gendisk *disk)
{
	ida_free(&rblk_minor_ida, disk->first_minor / RBLK_PART_MINORS);
}

/*
 * What the disk owns: its minors, the namespace and a controller
 * reference, and a path's head reference.
 */
static void rblk_ns_free(struct rblk_ns *ns)
{
	rblk_disk_minor_free(ns->disk);
	if (ns->head)
		rblk_mpath_put_head(ns->head);
	rblk_ctrl_put(ns->ctrl);
	kfree(ns);
}

/*
 * The last reference to an added disk: an open fd may outlive
 * del_gendisk(). (The block layer calls it only for a disk once added.)
 */
static void rblk_free_disk(struct gendisk *disk)
{
	rblk_ns_free(disk->private_data);
}

static const struct block_device_operations rblk_bdev_ops = {
	.owner		= THIS_MODULE,
	.ioctl		= rblk_ns_ioctl,
	.compat_ioctl	= blkdev_compat_ptr_ioctl,
	.free_disk	= rblk_free_disk,
	.pr_ops		= &rblk_pr_ops,
};

/* A namespace's disk or a head's: both show the namespace's identity. */
static void rblk_disk_ids(struct device *dev, struct rblk_xlate_ns *f)
{
	struct gendisk *disk = dev_to_disk(dev);

	memset(f, 0, sizeof(*f));
	if (rblk_disk_is_head(disk))
		rblk_mpath_xlate_ids(disk->private_data, f);
	else
		rblk_ns_xlate_ids(disk->private_data, f);
}

/*
 * The namespace's identity as the SCSI translation sees it: sysfs wwid and
 * VPD page 0x83 both come from rblk_xlate_wwid() over these, so they agree.
 */
void rblk_ns_xlate_ids(const struct rblk_ns *ns, struct rblk_xlate_ns *f)
{
	f->nsid = ns->nsid;
	f->subnqn = ns->ctrl->opts.subnqn;
	memcpy(f->nguid, ns->nguid, sizeof(f->nguid));
	memcpy(f->eui64, ns->eui64, sizeof(f->eui64));
	memcpy(f->uuid, ns->uuid.b, sizeof(f->uuid));
}

static ssize_t wwid_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct rblk_xlate_ns ids;
	char wwid[RBLK_XLATE_WWID_LEN];
	int len;

	rblk_disk_ids(dev, &ids);
	len = rblk_xlate_wwid(&ids, wwid, sizeof(wwid));
	if (len < 0)
		return len;
	return sysfs_emit(buf, "%s\n", wwid);
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
	struct rblk_xlate_ns ids;

	rblk_disk_ids(dev, &ids);
	if (attr == &dev_attr_nguid)
		return sysfs_emit(buf, "%pU\n", ids.nguid);
	if (attr == &dev_attr_eui)
		return sysfs_emit(buf, "%8ph\n", ids.eui64);
	if (attr == &dev_attr_uuid)
		return sysfs_emit(buf, "%pU\n", ids.uuid);
	return sysfs_emit(buf, "%u\n", ids.nsid);
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
	struct rblk_xlate_ns ids;

	rblk_disk_ids(kobj_to_dev(kobj), &ids);
	if (a == &dev_attr_nguid.attr)
		return memchr_inv(ids.nguid, 0, sizeof(ids.nguid)) ? a->mode : 0;
	if (a == &dev_attr_eui.attr)
		return memchr_inv(ids.eui64, 0, sizeof(ids.eui64)) ? a->mode : 0;
	if (a == &dev_attr_uuid.attr)
		return memchr_inv(ids.uuid, 0, sizeof(ids.uuid)) ? a->mode : 0;
	return a->mode;
}

static const struct attribute_group rblk_ns_attr_group = {
	.attrs		= rblk_ns_attrs,
	.is_visible	= rblk_ns_attr_visible,
};

const struct attribute_group *rblk_ns_attr_groups[] = {
	&rblk_ns_attr_group,
	&rblk_path_attr_group,
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

	rblk_tagset_base_limits(ctrl, l);
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

/*
 * A disk never added: the block layer will not call ->free_disk(). Its
 * minor is read before put_disk() frees it.
 */
static void rblk_ns_discard(struct rblk_ns *ns)
{
	struct gendisk *disk = ns->disk;

	rblk_mpath_detach(ns);
	rblk_ns_free(ns);
	put_disk(disk);
}

/*
 * Under ns_lock: @ns into the controller's list in nsid order, which
 * listings and dumps keep, whatever order the scan's adds finish in.
 */
static void rblk_ns_list_insert(struct rblk_ctrl *ctrl, struct rblk_ns *ns)
{
	struct rblk_ns *pos;

	list_for_each_entry_reverse(pos, &ctrl->namespaces, entry)
		if (pos->nsid < ns->nsid)
			break;
	list_add(&ns->entry, &pos->entry);
}

static int rblk_ns_add(struct rblk_ctrl *ctrl, u32 nsid)
{
	struct rblk_qlim lim;
	struct nvme_id_ns *id;
	struct gendisk *disk;
	struct rblk_ns *ns;
	int ret;

	ns = kzalloc(sizeof(*ns), GFP_KERNEL);
	id = kzalloc(sizeof(*id), GFP_KERNEL);
	if (!ns || !id) {
		ret = -ENOMEM;
		goto out_free;
	}
	ns->ctrl = ctrl;
	ns->nsid = nsid;
	INIT_LIST_HEAD(&ns->siblings);
	ret = rblk_identify_ns(ctrl, ns, id);
	if (ret)
		goto out_free;
	rblk_identify_ns_descs(ctrl, ns);
	ns->anagrpid = le32_to_cpu(id->anagrpid);
	ns->ana_state = rblk_ana_group_state(ctrl, ns->anagrpid);

	rblk_ns_limits(ns, id, &lim);
	if (rblk_ctrl_mpath(ctrl)) {
		ret = rblk_mpath_attach(ns, &lim);
		if (ret)
			goto out_free;
	}
	disk = rblk_alloc_disk(&ctrl->io_set, &lim, ns);
	if (IS_ERR(disk)) {
		ret = PTR_ERR(disk);
		goto out_detach;
	}
	ret = rblk_disk_minor_alloc(disk);
	if (ret) {
		put_disk(disk);
		goto out_detach;
	}
	/* From here ns owns the disk's minors and a controller reference. */
	kref_get(&ctrl->ref);
	ns->disk = disk;
	disk->fops = &rblk_bdev_ops;
	disk->private_data = ns;
	if (ns->head) {
		/* The head is what users open; the path only carries its I/O. */
		disk->flags |= GENHD_FL_HIDDEN;
		snprintf(disk->disk_name, DISK_NAME_LEN, "rblk%uc%un%u",
			 ctrl->subsys->instance, ctrl->id, nsid);
	} else {
		snprintf(disk->disk_name, DISK_NAME_LEN, "rblk%un%u", ctrl->id,
			 nsid);
	}
	set_capacity(disk, ns->nsze << (ns->lba_shift - SECTOR_SHIFT));
	kfree(id);

	ret = rblk_mpath_stack_limits(ns);
	if (ret) {
		rblk_ns_discard(ns);
		return ret;
	}

	mutex_lock(&ctrl->ns_lock);
	/* Recovery holds every namespace queue; this one joins them. */
	if (test_bit(RBLK_CTRL_NS_QUIESCED, &ctrl->flags))
		blk_mq_quiesce_queue(disk->queue);
	rblk_ns_list_insert(ctrl, ns);
	mutex_unlock(&ctrl->ns_lock);

	ret = device_add_disk(ctrl->dev, disk, rblk_ns_attr_groups);
	if (ret) {
		mutex_lock(&ctrl->ns_lock);
		list_del(&ns->entry);
		mutex_unlock(&ctrl->ns_lock);
		rblk_ns_discard(ns);
		return ret;
	}
	mutex_lock(&ctrl->ns_lock);
	ns->added = true;
	mutex_unlock(&ctrl->ns_lock);
	rblk_mpath_path_ready(ns);
	return 0;

out_detach:
	rblk_mpath_detach(ns);
	if (ns->head)
		rblk_mpath_put_head(ns->head);
out_free:
	kfree(id);
	kfree(ns);
	return ret;
}

/*
 * Reads the active namespace list into @ids (ascending, at most @max):
 * returns how many, or a negative errno when the list is unreadable.
 */
static int rblk_ns_active_ids(struct rblk_ctrl *ctrl, u32 *ids, int max)
{
	u32 start = 0, nsid;
	__le32 *list;
	int n = 0, ret;
	unsigned int i;

	list = kmalloc(NVME_IDENTIFY_DATA_SIZE, GFP_KERNEL);
	if (!list)
		return -ENOMEM;
	for (;;) {
		/*
		 * A target may answer success and transfer nothing: the page
		 * then reads as the end of the list, not as the previous page
		 * or old heap (kmalloc'ed: init_on_alloc is only a default).
		 */
		memset(list, 0, NVME_IDENTIFY_DATA_SIZE);
		ret = rblk_identify_active_ns(ctrl, start, list);
		if (ret) {
			dev_err(ctrl->dev, "Identify active namespaces failed: %d\n",
				ret);
			goto out;
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
			if (n >= max) {
				dev_warn(ctrl->dev, "more than %u namespaces: ignoring the rest\n",
					 max);
				goto out;
			}
			ids[n++] = nsid;
			start = nsid;
		}
	}
out:
	kfree(list);
	return ret ?: n;
}

/*
 * Resubmits what vanished hardware queues handed back: those bios must
 * not outlive their disk. On kblockd, as every requeue of ours: the scan
 * that flushes it runs on rblk_wq, whose rescuer, under memory pressure
 * the one worker left, would wait for itself (lockdep's report on the
 * debug kernel).
 */
static void rblk_ns_flush_requeue(struct rblk_ctrl *ctrl)
{
	kblockd_schedule_work(&ctrl->requeue_work);
	flush_work(&ctrl->requeue_work);
}

/*
 * The namespace left the target (or came back as another one): its I/O
 * fails from now on, and its disk goes; an open file or a mount keeps
 * the gendisk until the last close.
 */
static void rblk_ns_remove(struct rblk_ctrl *ctrl, struct rblk_ns *ns)
{
	struct request_queue *q = ns->disk->queue;

	dev_info(ctrl->dev, "nsid %u: gone from the target: removing %s\n",
		 ns->nsid, ns->disk->disk_name);
	WRITE_ONCE(ns->gone, true);
	mutex_lock(&ctrl->ns_lock);
	list_del(&ns->entry);
	/* It leaves the set recovery holds: what waits there now fails. */
	if (test_bit(RBLK_CTRL_NS_QUIESCED, &ctrl->flags))
		blk_mq_unquiesce_queue(q);
	if (ns->frozen)
		blk_mq_unfreeze_queue(q);
	ns->frozen = false;
	mutex_unlock(&ctrl->ns_lock);
	blk_mq_kick_requeue_list(q);
	rblk_ns_flush_requeue(ctrl);
	/* No new I/O down this path; what it holds fails over. */
	rblk_mpath_detach(ns);
	rblk_tagset_reap_start(ctrl);
	del_gendisk(ns->disk);
	rblk_tagset_reap_stop(ctrl);
	put_disk(ns->disk);
}

/* Same identity and format as the one we know? Then only the size moves. */
static bool rblk_ns_same(const struct rblk_ns *a, const struct rblk_ns *b)
{
	return a->lba_shift == b->lba_shift &&
	       !memcmp(a->nguid, b->nguid, sizeof(a->nguid)) &&
	       !memcmp(a->eui64, b->eui64, sizeof(a->eui64)) &&
	       uuid_equal(&a->uuid, &b->uuid);
}

/*
 * A namespace we know and the target still lists: false when it must be
 * replaced (other identity or LBA size), true when it stays.
 */
static bool rblk_ns_revalidate(struct rblk_ctrl *ctrl, struct rblk_ns *ns)
{
	struct rblk_ns tmp = { .ctrl = ctrl, .nsid = ns->nsid };
	struct nvme_id_ns *id;
	bool same = true;

	/* Without memory it stays as it was, as when the Identify fails. */
	id = kmalloc(sizeof(*id), GFP_KERNEL);
	if (!id)
		return true;
	/* A failure here is the association's: recovery will scan again. */
	if (rblk_identify_ns(ctrl, &tmp, id))
		goto out;
	rblk_identify_ns_descs(ctrl, &tmp);
	if (!rblk_ns_same(ns, &tmp)) {
		dev_warn(ctrl->dev, "nsid %u: identity or LBA size changed\n",
			 ns->nsid);
		same = false;
		goto out;
	}
	if (tmp.nsze != ns->nsze) {
		ns->nsze = tmp.nsze;
		set_capacity_and_notify(ns->disk,
					ns->nsze << (ns->lba_shift - SECTOR_SHIFT));
		rblk_mpath_set_capacity(ns);
	}
out:
	kfree(id);
	return same;
}

static void rblk_ns_revalidate_async(void *data, async_cookie_t cookie)
{
	struct rblk_ns *ns = data;

	ns->scan_stale = !rblk_ns_revalidate(ns->ctrl, ns);
}

/*
 * The namespaces on @check (by scan_entry), revalidated side by side as
 * nvme's scan does: each waits for two Identify round trips, and one
 * after the other a rescan at 1,024 namespaces took 2.2 times
 * nvme-rdma's. Each sets only its own scan_stale and size.
 */
static void rblk_ns_revalidate_list(struct rblk_ctrl *ctrl,
				    struct list_head *check)
{
	ASYNC_DOMAIN(domain);
	struct rblk_ns *ns;

	list_for_each_entry(ns, check, scan_entry) {
		ns->scan_stale = false;
		if (!rblk_ctrl_deleting(ctrl))
			async_schedule_domain(rblk_ns_revalidate_async, ns,
					      &domain);
	}
	async_synchronize_full_domain(&domain);
}

struct rblk_ns_add_work {
	struct rblk_ctrl *ctrl;
	u32 nsid;
};

static void rblk_ns_add_one(struct rblk_ctrl *ctrl, u32 nsid)
{
	int ret = rblk_ns_add(ctrl, nsid);

	/* A target may list many it then calls inactive: no flood. */
	if (ret)
		dev_err_ratelimited(ctrl->dev, "nsid %u: not added: %d\n", nsid,
				    ret);
}

static void rblk_ns_add_async(void *data, async_cookie_t cookie)
{
	struct rblk_ns_add_work *w = data;

	rblk_ns_add_one(w->ctrl, w->nsid);
}

/*
 * The namespaces @ids (none of them known, no two alike), added side by
 * side as nvme's scan adds them: each add waits for two Identify round
 * trips and registers two disks, and with hundreds of namespaces one
 * after the other the connect took 1.7 times nvme-rdma's. The scan waits
 * for all of them. Without memory for the work items, one at a time.
 */
static void rblk_ns_add_new(struct rblk_ctrl *ctrl, const u32 *ids, u32 n)
{
	ASYNC_DOMAIN(domain);
	struct rblk_ns_add_work *work;
	u32 i;

	work = kvmalloc_array(n, sizeof(*work), GFP_KERNEL);
	for (i = 0; i < n; i++) {
		if (rblk_ctrl_deleting(ctrl))
			break;
		if (!work) {
			rblk_ns_add_one(ctrl, ids[i]);
			continue;
		}
		work[i].ctrl = ctrl;
		work[i].nsid = ids[i];
		async_schedule_domain(rblk_ns_add_async, &work[i], &domain);
	}
	async_synchronize_full_domain(&domain);
	kvfree(work);
}

static int rblk_ns_cmp_nsid(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/* Did a notice name @nsid? @changed NULL: every namespace counts. */
static bool rblk_ns_named(const u32 *changed, u32 nr_changed, u32 nsid)
{
	return !changed || bsearch(&nsid, changed, nr_changed, sizeof(nsid),
				   rblk_ns_cmp_nsid);
}

/*
 * Brings the disks in line with the target's active namespaces: new ones
 * are added, vanished or replaced ones removed, sizes updated. Survivors
 * keep their disk (name, minor, open files). Only the known namespaces
 * @changed names are revalidated (NULL: all of them): a notice's Changed
 * Namespace List says whose Identify data changed, so a change of one
 * namespace among 1,024 costs its own two Identify commands, not 2,048.
 * @changed is sorted here. Caller holds scan_lock.
 */
static int rblk_ns_scan_changed(struct rblk_ctrl *ctrl, u32 *changed,
				u32 nr_changed)
{
	struct rblk_ns *ns, *next;
	LIST_HEAD(check);
	LIST_HEAD(gone);
	u32 *ids, i = 0, nr_new = 0;
	int n;

	/* A discovery controller has none (and refuses the Identify). */
	if (ctrl->opts.discovery)
		return 0;
	ids = kmalloc_array(RBLK_MAX_NAMESPACES, sizeof(*ids), GFP_KERNEL);
	if (!ids)
		return -ENOMEM;
	n = rblk_ns_active_ids(ctrl, ids, RBLK_MAX_NAMESPACES);
	if (n < 0) {
		kfree(ids);
		return n;
	}
	if (changed)
		sort(changed, nr_changed, sizeof(*changed), rblk_ns_cmp_nsid,
		     NULL);

	/*
	 * Both ascending (the list is kept in nsid order): one merge sorts
	 * the known ones into those to revalidate and those gone, and moves
	 * the ids not known to the front of @ids, as the ones to add. Only
	 * this scan changes the list, so the two hold still after.
	 */
	mutex_lock(&ctrl->ns_lock);
	list_for_each_entry(ns, &ctrl->namespaces, entry) {
		while (i < n && ids[i] < ns->nsid)
			ids[nr_new++] = ids[i++];
		ns->scan_stale = false;
		if (i < n && ids[i] == ns->nsid) {
			i++;
			if (rblk_ns_named(changed, nr_changed, ns->nsid))
				list_add_tail(&ns->scan_entry, &check);
		} else {
			list_add_tail(&ns->scan_entry, &gone);
		}
	}
	mutex_unlock(&ctrl->ns_lock);
	while (i < n)
		ids[nr_new++] = ids[i++];

	rblk_ns_revalidate_list(ctrl, &check);
	list_for_each_entry_safe(ns, next, &check, scan_entry) {
		list_del(&ns->scan_entry);
		if (ns->scan_stale)
			list_add_tail(&ns->scan_entry, &gone);
	}
	list_for_each_entry_safe(ns, next, &gone, scan_entry) {
		u32 nsid = ns->nsid;
		bool stale = ns->scan_stale;

		list_del(&ns->scan_entry);
		if (rblk_ctrl_state(ctrl) != RBLK_CTRL_LIVE)
			continue;
		rblk_ns_remove(ctrl, ns);
		/*
		 * Back as what it is now. Room: each id the merge passed
		 * went to the front at most once, a replaced one not at all.
		 */
		if (stale)
			ids[nr_new++] = nsid;
	}

	rblk_ns_add_new(ctrl, ids, nr_new);
	rblk_aen_resv_unmask(ctrl);
	kfree(ids);
	return 0;
}

int rblk_ns_scan(struct rblk_ctrl *ctrl)
{
	return rblk_ns_scan_changed(ctrl, NULL, 0);
}

/*
 * The disk to open for namespace @nsid into @name (@size bytes); false
 * when the controller has no disk of that id (a notice naming another).
 */
bool rblk_ns_disk_name(struct rblk_ctrl *ctrl, u32 nsid, char *name,
		       size_t size)
{
	struct rblk_ns *ns;
	bool found = false;

	mutex_lock(&ctrl->ns_lock);
	list_for_each_entry(ns, &ctrl->namespaces, entry) {
		if (ns->added && ns->nsid == nsid) {
			strscpy(name, rblk_ns_open_name(ns), size);
			found = true;
			break;
		}
	}
	mutex_unlock(&ctrl->ns_lock);
	return found;
}

/*
 * As nvme_queue_scan(): only a live controller scans. A delete moves the
 * state first and then cancels what was queued before
 * (rblk_ns_remove_all(), rblk_aen_stop()), so nothing queued here
 * outlives it; rblk_ctrl_release() cancels one that read LIVE just before.
 * The scan revalidates every namespace: a reconnect, a rescan ioctl, a
 * notice whose list overflowed or could not be read.
 */
void rblk_ns_queue_scan(struct rblk_ctrl *ctrl)
{
	u32 *drop;

	spin_lock(&ctrl->changed_lock);
	drop = ctrl->changed;
	ctrl->changed = NULL;
	ctrl->changed_all = true;
	spin_unlock(&ctrl->changed_lock);
	kfree(drop);
	if (rblk_ctrl_state(ctrl) == RBLK_CTRL_LIVE)
		queue_work(rblk_wq, &ctrl->scan_work);
}

/*
 * A notice named the @n namespaces @ids (kmalloc'ed with room for
 * NVME_MAX_CHANGED_NAMESPACES; taken): the scan revalidates those, unless
 * it is to revalidate all anyway. Lists pile up until the scan work
 * starts; more than one Changed Namespace List holds, and it is all.
 */
void rblk_ns_queue_scan_changed(struct rblk_ctrl *ctrl, u32 *ids, u32 n)
{
	u32 *drop = ids, *drop2 = NULL;

	spin_lock(&ctrl->changed_lock);
	if (ctrl->changed_all) {
		/* Already all of them. */
	} else if (!ctrl->changed) {
		ctrl->changed = ids;
		ctrl->nr_changed = n;
		drop = NULL;
	} else if (n <= NVME_MAX_CHANGED_NAMESPACES - ctrl->nr_changed) {
		memcpy(ctrl->changed + ctrl->nr_changed, ids, n * sizeof(*ids));
		ctrl->nr_changed += n;
	} else {
		drop2 = ctrl->changed;
		ctrl->changed = NULL;
		ctrl->changed_all = true;
	}
	spin_unlock(&ctrl->changed_lock);
	kfree(drop);
	kfree(drop2);
	if (rblk_ctrl_state(ctrl) == RBLK_CTRL_LIVE)
		queue_work(rblk_wq, &ctrl->scan_work);
}

/*
 * The disks as the target has them now, before returning: after a
 * passthrough command that changed the namespaces (nvme_passthru_end()
 * queues the scan and flushes it).
 */
void rblk_ns_scan_sync(struct rblk_ctrl *ctrl)
{
	mutex_lock(&ctrl->scan_lock);
	if (rblk_ctrl_state(ctrl) == RBLK_CTRL_LIVE)
		rblk_ns_scan(ctrl);
	mutex_unlock(&ctrl->scan_lock);
}

/* The namespace's queues, its head's first: blk-mq counts freezes. */
static void rblk_ns_format_freeze(struct rblk_ns *ns, bool freeze)
{
	struct request_queue *qs[2] = {
		ns->head ? ns->head->disk->queue : NULL, ns->disk->queue
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(qs); i++) {
		if (!qs[i])
			continue;
		if (freeze)
			blk_freeze_queue_start(qs[i]);
		else
			blk_mq_unfreeze_queue(qs[i]);
	}
}

/*
 * Format NVM changes the LBA format under the namespaces: as
 * nvme_passthru_start(), no scan runs and no I/O is in flight through the
 * namespaces or their heads until rblk_ns_format_end(). Apart from
 * rblk_ns_freeze_start(): recovery's resize may freeze and unfreeze
 * meanwhile. The wait is bounded (I/O stuck in a recovery), -EBUSY then,
 * with nothing held; 0 with scan_lock held.
 */
int rblk_ns_format_start(struct rblk_ctrl *ctrl)
{
	long left = RBLK_IO_TIMEOUT;
	struct rblk_ns *ns;

	mutex_lock(&ctrl->scan_lock);
	mutex_lock(&ctrl->ns_lock);
	list_for_each_entry(ns, &ctrl->namespaces, entry)
		rblk_ns_format_freeze(ns, true);
	mutex_unlock(&ctrl->ns_lock);
	/*
	 * Without ns_lock, which recovery needs to end what we wait for; the
	 * list holds still: only a scan or a delete changes it, each under
	 * scan_lock.
	 */
	list_for_each_entry(ns, &ctrl->namespaces, entry) {
		if (left > 0 && ns->head)
			left = blk_mq_freeze_queue_wait_timeout(ns->head->disk->queue,
								left);
		if (left > 0)
			left = blk_mq_freeze_queue_wait_timeout(ns->disk->queue,
								left);
	}
	if (left > 0)
		return 0;
	dev_warn(ctrl->dev, "Format NVM: namespace I/O did not drain\n");
	rblk_ns_format_end(ctrl);
	return -EBUSY;
}

void rblk_ns_format_end(struct rblk_ctrl *ctrl)
{
	struct rblk_ns *ns;

	mutex_lock(&ctrl->ns_lock);
	list_for_each_entry(ns, &ctrl->namespaces, entry)
		rblk_ns_format_freeze(ns, false);
	mutex_unlock(&ctrl->ns_lock);
	mutex_unlock(&ctrl->scan_lock);
}

/*
 * What rblk_ns_queue_scan() and rblk_ns_queue_scan_changed() asked for
 * since the work last started: the namespaces named, or (nothing named)
 * all of them. A notice that comes meanwhile queues the work again.
 */
void rblk_ns_scan_work(struct work_struct *work)
{
	struct rblk_ctrl *ctrl = container_of(work, struct rblk_ctrl,
					      scan_work);
	u32 *changed, nr_changed;

	spin_lock(&ctrl->changed_lock);
	changed = ctrl->changed;
	nr_changed = ctrl->nr_changed;
	ctrl->changed = NULL;
	ctrl->changed_all = false;
	spin_unlock(&ctrl->changed_lock);

	mutex_lock(&ctrl->scan_lock);
	if (rblk_ctrl_state(ctrl) == RBLK_CTRL_LIVE)
		rblk_ns_scan_changed(ctrl, changed, nr_changed);
	mutex_unlock(&ctrl->scan_lock);
	kfree(changed);
}

/*
 * Holds new I/O off while the I/O tag set changes its hardware queue
 * count; unlike quiescing, what is already queued still runs.
 */
void rblk_ns_freeze_start(struct rblk_ctrl *ctrl)
{
	struct rblk_ns *ns;

	mutex_lock(&ctrl->ns_lock);
	list_for_each_entry(ns, &ctrl->namespaces, entry) {
		if (!ns->frozen)
			blk_freeze_queue_start(ns->disk->queue);
		ns->frozen = true;
	}
	mutex_unlock(&ctrl->ns_lock);
}

int rblk_ns_freeze_wait(struct rblk_ctrl *ctrl, unsigned long timeout)
{
	long left = timeout;
	struct rblk_ns *ns;

	mutex_lock(&ctrl->ns_lock);
	list_for_each_entry(ns, &ctrl->namespaces, entry) {
		if (!ns->frozen)
			continue;
		left = blk_mq_freeze_queue_wait_timeout(ns->disk->queue, left);
		if (left <= 0)
			break;
	}
	mutex_unlock(&ctrl->ns_lock);
	return left > 0 ? 0 : -ETIMEDOUT;
}

void rblk_ns_unfreeze(struct rblk_ctrl *ctrl)
{
	struct rblk_ns *ns;

	mutex_lock(&ctrl->ns_lock);
	list_for_each_entry(ns, &ctrl->namespaces, entry) {
		if (ns->frozen)
			blk_mq_unfreeze_queue(ns->disk->queue);
		ns->frozen = false;
	}
	mutex_unlock(&ctrl->ns_lock);
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

	/* A scan work queued before the delete began now finds DELETING. */
	cancel_work_sync(&ctrl->scan_work);
	rblk_ns_flush_requeue(ctrl);

	rblk_tagset_reap_start(ctrl);
	list_for_each_entry_safe(ns, next, &gone, entry) {
		list_del(&ns->entry);
		rblk_mpath_detach(ns);
		del_gendisk(ns->disk);
		put_disk(ns->disk);
	}
	rblk_tagset_reap_stop(ctrl);
}
