// SPDX-License-Identifier: GPL-2.0
/*
 * rblk: native multipath. A namespace of a subsystem reached through
 * several controllers is one head disk, /dev/rblk<S>n<NSID>, a bio-based
 * disk that sends each bio down one path: the hidden blk-mq disk
 * rblk<S>c<C>n<NSID> of one controller. Which path follows the
 * subsystem's iopolicy among the usable ones: live controllers whose ANA
 * state for the namespace is optimized, or non-optimized when no path is
 * optimized.
 *
 * Failover: a request of a head's bio that meets a path error (status
 * type 3: ANA states, host path errors, the aborts of a recovery) or a
 * path that is not live hands its bios back to the head (blk_steal_bios())
 * and ends; the head resubmits them on another path. With no usable path
 * they wait on the head's requeue list while some path may come back
 * (its controller resetting or connecting, fast_io_fail_tmo not expired),
 * and fail when none may.
 *
 * ANA: the log page (0Ch) is read at every connect, on the ANA Change
 * notice and after an ANA error; a group that stays in change longer
 * than ANATT resets its controller.
 *
 * As nvme's multipath.c; the module parameter multipath=N gives every
 * controller disks of its own, for dm-multipath.
 */
#include <linux/blkdev.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "compat.h"
#include "nvme.h"
#include "scsi_xlate.h"

bool rblk_multipath = true;
module_param_named(multipath, rblk_multipath, bool, 0444);
MODULE_PARM_DESC(multipath,
		 "one disk per namespace over all paths to a subsystem (default Y)");

/* ANAGRPMAX above this is taken as absurd and ANA ignored. */
#define RBLK_ANA_MAX_GROUPS	1024
/* The log is sized for at most this many namespace ids. */
#define RBLK_ANA_MAX_NSIDS	1024

/* --- heads ---------------------------------------------------------- */

static void rblk_head_release(struct kref *ref)
{
	struct rblk_ns_head *head = container_of(ref, struct rblk_ns_head, ref);

	cleanup_srcu_struct(&head->srcu);
	rblk_subsys_put(head->subsys);
	kfree(head);
}

void rblk_mpath_put_head(struct rblk_ns_head *head)
{
	kref_put(&head->ref, rblk_head_release);
}

void rblk_mpath_xlate_ids(const struct rblk_ns_head *head,
			  struct rblk_xlate_ns *f)
{
	f->nsid = head->nsid;
	f->subnqn = head->subsys->subnqn;
	memcpy(f->nguid, head->nguid, sizeof(f->nguid));
	memcpy(f->eui64, head->eui64, sizeof(f->eui64));
	memcpy(f->uuid, head->uuid.b, sizeof(f->uuid));
}

/* Every I/O asks this of its path: inline, both flags in one read. */
static inline bool rblk_path_usable(struct rblk_ns *ns)
{
	if (rblk_ctrl_state(ns->ctrl) != RBLK_CTRL_LIVE ||
	    READ_ONCE(ns->gone) ||
	    (READ_ONCE(ns->ana_flags) &
	     (BIT(RBLK_NS_DETACHING) | BIT(RBLK_NS_ANA_PENDING))))
		return false;
	switch (READ_ONCE(ns->ana_state)) {
	case RBLK_ANA_OPTIMIZED:
	case RBLK_ANA_NONOPTIMIZED:
		return true;
	default:
		return false;
	}
}

static bool rblk_path_optimized(struct rblk_ns *ns)
{
	return rblk_path_usable(ns) &&
	       READ_ONCE(ns->ana_state) == RBLK_ANA_OPTIMIZED;
}

/*
 * What choosing @ns costs by the policy: its NUMA distance from @node, or
 * the commands its controller has outstanding (queue-depth).
 */
static unsigned int rblk_path_cost(struct rblk_ns *ns, int node, bool depth)
{
	int other = READ_ONCE(ns->ctrl->numa_node);

	if (depth)
		return atomic_read(&ns->ctrl->nr_mpath_active);
	if (node == NUMA_NO_NODE || other == NUMA_NO_NODE)
		return LOCAL_DISTANCE;
	return node_distance(node, other);
}

/* The cheapest optimized path, else the cheapest non-optimized one. */
static struct rblk_ns *rblk_find_cheapest(struct rblk_ns_head *head, int node,
					  bool depth)
{
	unsigned int best_opt = UINT_MAX, best_nonopt = UINT_MAX, cost;
	struct rblk_ns *ns, *opt = NULL, *nonopt = NULL;

	list_for_each_entry_srcu(ns, &head->paths, siblings,
				 srcu_read_lock_held(&head->srcu)) {
		if (!rblk_path_usable(ns))
			continue;
		cost = rblk_path_cost(ns, node, depth);
		if (READ_ONCE(ns->ana_state) == RBLK_ANA_OPTIMIZED) {
			if (cost < best_opt) {
				best_opt = cost;
				opt = ns;
			}
		} else if (cost < best_nonopt) {
			best_nonopt = cost;
			nonopt = ns;
		}
	}
	return opt ?: nonopt;
}

/* NUMA: the nearest, kept for the node until it is no longer optimized. */
static struct rblk_ns *rblk_find_numa(struct rblk_ns_head *head, int node)
{
	struct rblk_ns *ns = rblk_find_cheapest(head, node, false);

	if (ns)
		rcu_assign_pointer(head->current_path[node], ns);
	return ns;
}

static struct rblk_ns *rblk_next_sibling(struct rblk_ns_head *head,
					 struct rblk_ns *ns)
{
	return list_next_or_null_rcu(&head->paths, &ns->siblings,
				     struct rblk_ns, siblings);
}

/* A round-robin candidate: true when @ns is optimized, the choice made. */
static bool rblk_rr_take(struct rblk_ns *ns, struct rblk_ns **found)
{
	if (rblk_path_optimized(ns)) {
		*found = ns;
		return true;
	}
	if (!*found && rblk_path_usable(ns))
		*found = ns;
	return false;
}

/*
 * Round-robin: the next optimized path after the last one used, else the
 * next usable one. One lap at most, from @old's successor to the end of
 * the list, then from its start to @old: a walk that stopped only at @old
 * never ended once @old had left the list (rblk_mpath_detach() clears it
 * from current_path before it unlinks it, so that takes a bug; this bounds
 * what the bug would cost).
 */
static struct rblk_ns *rblk_find_round_robin(struct rblk_ns_head *head,
					     int node)
{
	struct rblk_ns *old = srcu_dereference(head->current_path[node],
					       &head->srcu);
	struct rblk_ns *ns, *found = NULL;

	if (!old)
		return rblk_find_numa(head, node);
	if (list_is_singular(&head->paths))
		return rblk_path_usable(old) ? old : NULL;

	for (ns = rblk_next_sibling(head, old); ns;
	     ns = rblk_next_sibling(head, ns))
		if (rblk_rr_take(ns, &found))
			goto out;
	for (ns = list_first_or_null_rcu(&head->paths, struct rblk_ns,
					 siblings);
	     ns && ns != old; ns = rblk_next_sibling(head, ns))
		if (rblk_rr_take(ns, &found))
			goto out;
	/* Only the last one is optimized: keep it. */
	if (rblk_path_optimized(old))
		found = old;
	else if (!found && rblk_path_usable(old))
		found = old;
out:
	if (found)
		rcu_assign_pointer(head->current_path[node], found);
	return found;
}

/* Under head->srcu; the path stays valid until srcu_read_unlock(). */
static struct rblk_ns *rblk_find_path(struct rblk_ns_head *head)
{
	int node = numa_node_id();
	struct rblk_ns *ns;

	switch (READ_ONCE(head->subsys->iopolicy)) {
	case RBLK_IOPOLICY_ROUND_ROBIN:
		return rblk_find_round_robin(head, node);
	case RBLK_IOPOLICY_QUEUE_DEPTH:
		return rblk_find_cheapest(head, node, true);
	default:
		ns = srcu_dereference(head->current_path[node], &head->srcu);
		if (unlikely(!ns || !rblk_path_optimized(ns)))
			ns = rblk_find_numa(head, node);
		return ns;
	}
}

/* May a path come back? Then I/O waits for it rather than fail. */
static bool rblk_available_path(struct rblk_ns_head *head)
{
	struct rblk_ns *ns;

	list_for_each_entry_srcu(ns, &head->paths, siblings,
				 srcu_read_lock_held(&head->srcu)) {
		if (READ_ONCE(ns->gone) ||
		    test_bit(RBLK_NS_DETACHING, &ns->ana_flags) ||
		    test_bit(RBLK_CTRL_FAILFAST, &ns->ctrl->flags))
			continue;
		switch (rblk_ctrl_state(ns->ctrl)) {
		case RBLK_CTRL_LIVE:
		case RBLK_CTRL_RESETTING:
		case RBLK_CTRL_CONNECTING:
			return true;
		default:
			break;
		}
	}
	return false;
}

static void rblk_head_submit_bio(struct bio *bio)
{
	struct rblk_ns_head *head = bio->bi_bdev->bd_disk->private_data;
	struct device *dev = disk_to_dev(head->disk);
	struct rblk_ns *ns;
	int idx;

	/*
	 * Split here, with the head's limits and bio set: the bio may be
	 * stolen back from a path that goes away.
	 */
	bio = bio_split_to_limits(bio);
	if (!bio)
		return;

	idx = srcu_read_lock(&head->srcu);
	ns = rblk_find_path(head);
	if (likely(ns)) {
		bio_set_dev(bio, ns->disk->part0);
		/* The head checked the end of the device already. */
		bio_set_flag(bio, BIO_REMAPPED);
		bio->bi_opf |= REQ_RBLK_MPATH;
		submit_bio_noacct(bio);
	} else if (rblk_available_path(head)) {
		dev_warn_ratelimited(dev, "no usable path: I/O waits\n");
		rblk_bio_clear_nowait(bio);
		spin_lock_irq(&head->requeue_lock);
		bio_list_add(&head->requeue_list, bio);
		spin_unlock_irq(&head->requeue_lock);
	} else {
		dev_warn_ratelimited(dev, "no path left: failing I/O\n");
		bio_io_error(bio);
	}
	srcu_read_unlock(&head->srcu, idx);
}

static void rblk_head_requeue_work(struct work_struct *work)
{
	struct rblk_ns_head *head = container_of(work, struct rblk_ns_head,
						 requeue_work);
	struct bio *bio, *next;

	spin_lock_irq(&head->requeue_lock);
	next = bio_list_get(&head->requeue_list);
	spin_unlock_irq(&head->requeue_lock);

	while ((bio = next) != NULL) {
		next = bio->bi_next;
		bio->bi_next = NULL;
		submit_bio_noacct(bio);
	}
}

static void rblk_head_kick(struct rblk_ns_head *head)
{
	kblockd_schedule_work(&head->requeue_work);
}

/*
 * NVMe and SCSI ioctls on the head go to one usable path, as nvme's head
 * ioctls do; with none, they fail rather than wait.
 *
 * A controller's command runs outside the head's SRCU, on a path whose
 * disk is referenced (which keeps the namespace and its controller), as
 * nvme_ns_head_ctrl_ioctl() does: a Format NVM or a namespace management
 * command may take as long as its timeout, and the synchronous scan after
 * it may remove a path of this very head, whose rblk_mpath_detach() waits
 * for every SRCU reader. A namespace's command holds the SRCU, as nvme's
 * do: it ends when the target answers, or when its controller's recovery
 * or delete ends it.
 */
static int rblk_head_ioctl(struct block_device *bdev, rblk_mode_t mode,
			   unsigned int cmd, unsigned long arg)
{
	struct rblk_ns_head *head = bdev->bd_disk->private_data;
	struct device *path;
	struct rblk_ns *ns;
	int idx, ret;

	idx = srcu_read_lock(&head->srcu);
	ns = rblk_find_path(head);
	if (!ns || !rblk_ioctl_is_ctrl(cmd)) {
		ret = ns ? rblk_ns_ioctl_path(ns, bdev, mode, cmd, arg) :
			   -EWOULDBLOCK;
		srcu_read_unlock(&head->srcu, idx);
		return ret;
	}
	path = get_device(disk_to_dev(ns->disk));
	srcu_read_unlock(&head->srcu, idx);
	ret = rblk_ns_ioctl_path(ns, bdev, mode, cmd, arg);
	put_device(path);
	return ret;
}

/* As the head's ioctls: one usable path, or fail rather than wait. */
int rblk_mpath_pr(struct rblk_ns_head *head, const struct rblk_pr_op *op)
{
	struct rblk_ns *ns;
	int idx, ret;

	idx = srcu_read_lock(&head->srcu);
	ns = rblk_find_path(head);
	ret = ns ? rblk_ns_pr(ns, op) : -EWOULDBLOCK;
	srcu_read_unlock(&head->srcu, idx);
	return ret;
}

static void rblk_head_free_disk(struct gendisk *disk)
{
	struct rblk_ns_head *head = disk->private_data;

	rblk_disk_minor_free(disk);
	rblk_mpath_put_head(head);
}

static const struct block_device_operations rblk_head_ops = {
	.owner		= THIS_MODULE,
	.submit_bio	= rblk_head_submit_bio,
	.ioctl		= rblk_head_ioctl,
	.compat_ioctl	= blkdev_compat_ptr_ioctl,
	.free_disk	= rblk_head_free_disk,
	.pr_ops		= &rblk_pr_ops,
};

bool rblk_disk_is_head(struct gendisk *disk)
{
	return disk->fops == &rblk_head_ops;
}

static bool rblk_ids_equal(const struct rblk_ns_head *head,
			   const struct rblk_ns *ns)
{
	return !memcmp(head->nguid, ns->nguid, sizeof(head->nguid)) &&
	       !memcmp(head->eui64, ns->eui64, sizeof(head->eui64)) &&
	       uuid_equal(&head->uuid, &ns->uuid);
}

static bool rblk_ns_has_ids(const struct rblk_ns *ns)
{
	return memchr_inv(ns->nguid, 0, sizeof(ns->nguid)) ||
	       memchr_inv(ns->eui64, 0, sizeof(ns->eui64)) ||
	       !uuid_is_null(&ns->uuid);
}

static void rblk_head_live_work(struct work_struct *work);

/* A head whose disk was never added: ->free_disk() will not run. */
static void rblk_head_discard(struct rblk_ns_head *head)
{
	rblk_disk_minor_free(head->disk);
	put_disk(head->disk);
	rblk_mpath_put_head(head);
}

/*
 * The head's disk takes the first path's limits and the subsystem's name;
 * each path's disk stacks its own into them (rblk_mpath_stack_limits()).
 */
static struct rblk_ns_head *rblk_head_alloc(struct rblk_ns *ns,
					    const struct rblk_qlim *lim)
{
	struct rblk_subsys *subsys = ns->ctrl->subsys;
	struct rblk_ns_head *head;
	struct gendisk *disk;
	int ret;

	head = kzalloc(struct_size(head, current_path, nr_node_ids),
		       GFP_KERNEL);
	if (!head)
		return ERR_PTR(-ENOMEM);
	ret = init_srcu_struct(&head->srcu);
	if (ret) {
		kfree(head);
		return ERR_PTR(ret);
	}
	/* The head disk's reference; each path takes one more. */
	kref_init(&head->ref);
	INIT_LIST_HEAD(&head->paths);
	INIT_LIST_HEAD(&head->entry);
	spin_lock_init(&head->requeue_lock);
	bio_list_init(&head->requeue_list);
	INIT_WORK(&head->requeue_work, rblk_head_requeue_work);
	INIT_WORK(&head->live_work, rblk_head_live_work);
	mutex_init(&head->lock);
	head->nsid = ns->nsid;
	head->lba_shift = ns->lba_shift;
	memcpy(head->nguid, ns->nguid, sizeof(head->nguid));
	memcpy(head->eui64, ns->eui64, sizeof(head->eui64));
	uuid_copy(&head->uuid, &ns->uuid);
	get_device(&subsys->dev);
	head->subsys = subsys;

	/*
	 * A polled bio is polled on the path's queue it went down (bio_poll()
	 * follows bi_bdev): the head polls if its first path can, as nvme
	 * assumes every path of a namespace alike.
	 */
	disk = rblk_alloc_bio_disk(lim, ns->ctrl->io_queues[HCTX_TYPE_POLL],
				   READ_ONCE(ns->ctrl->numa_node));
	if (IS_ERR(disk)) {
		rblk_mpath_put_head(head);
		return ERR_CAST(disk);
	}
	ret = rblk_disk_minor_alloc(disk);
	if (ret) {
		put_disk(disk);
		rblk_mpath_put_head(head);
		return ERR_PTR(ret);
	}
	/* From here the disk owns the head's first reference. */
	head->disk = disk;
	disk->fops = &rblk_head_ops;
	disk->private_data = head;
	snprintf(disk->disk_name, DISK_NAME_LEN, "rblk%un%u",
		 subsys->instance, ns->nsid);
	set_capacity(disk, ns->nsze << (ns->lba_shift - SECTOR_SHIFT));
	return head;
}

static struct rblk_ns_head *rblk_head_find(struct rblk_subsys *subsys,
					   u32 nsid)
{
	struct rblk_ns_head *head;

	list_for_each_entry(head, &subsys->heads, entry) {
		if (head->nsid == nsid)
			return head;
	}
	return NULL;
}

/*
 * Before the path's disk exists: @ns becomes a path of its subsystem's
 * head for its nsid, which is made if it is the first. A namespace whose
 * identity differs from the head's is refused: merging it would mix two
 * namespaces' data.
 */
int rblk_mpath_attach(struct rblk_ns *ns, const struct rblk_qlim *lim)
{
	struct rblk_ctrl *ctrl = ns->ctrl;
	struct rblk_subsys *subsys = ctrl->subsys;
	struct rblk_ns_head *head, *made = NULL;

	if (!rblk_ns_has_ids(ns)) {
		dev_err(ctrl->dev, "nsid %u: no unique identifier (NGUID, EUI-64 or UUID): cannot be a multipath namespace\n",
			ns->nsid);
		return -EINVAL;
	}
again:
	mutex_lock(&rblk_subsys_lock);
	head = rblk_head_find(subsys, ns->nsid);
	if (head && head->dying) {
		mutex_unlock(&rblk_subsys_lock);
		dev_warn(ctrl->dev, "nsid %u: its previous head is still going away\n",
			 ns->nsid);
		if (made)
			rblk_head_discard(made);
		return -EBUSY;
	}
	if (head && (!rblk_ids_equal(head, ns) ||
		     head->lba_shift != ns->lba_shift)) {
		mutex_unlock(&rblk_subsys_lock);
		/* The head may go once unlocked: named by what ns knows. */
		dev_err(ctrl->dev, "nsid %u: identifiers differ from rblk%un%u's on the other paths: not merged\n",
			ns->nsid, subsys->instance, ns->nsid);
		if (made)
			rblk_head_discard(made);
		return -EINVAL;
	}
	if (!head && !made) {
		/* Allocates and sleeps: outside the lock, then look again. */
		mutex_unlock(&rblk_subsys_lock);
		made = rblk_head_alloc(ns, lim);
		if (IS_ERR(made))
			return PTR_ERR(made);
		goto again;
	}
	if (!head) {
		head = made;
		made = NULL;
		list_add_tail(&head->entry, &subsys->heads);
	}
	kref_get(&head->ref);
	ns->head = head;
	list_add_tail_rcu(&ns->siblings, &head->paths);
	mutex_unlock(&rblk_subsys_lock);
	if (made)
		rblk_head_discard(made);	/* lost a race to another path */
	return 0;
}

/*
 * Once @ns's disk exists, before it carries any of the head's I/O: the
 * head's limits become the strictest of its paths' (a smaller MDTS, fewer
 * segments), as nvme_update_ns_info() stacks them. The head splits its
 * bios to fit any path, with its own bio set: a path that split them
 * with its queue's would hand back, on failover, bios allocated from a
 * bio set that goes with its disk. A path leaving relaxes nothing, as in
 * nvme.
 */
int rblk_mpath_stack_limits(struct rblk_ns *ns)
{
	struct rblk_ns_head *head = ns->head;
	int ret;

	if (!head)
		return 0;
	ret = rblk_stack_limits(head->disk, ns->disk);
	if (ret)
		dev_err(ns->ctrl->dev, "nsid %u: the limits of %s do not stack into %s: %d\n",
			ns->nsid, ns->disk->disk_name, head->disk->disk_name,
			ret);
	return ret;
}

/*
 * The head disk appears once a path can carry its I/O: adding it reads
 * the partition table. Runs from a work item, never under a lock the
 * path's recovery takes.
 */
static void rblk_head_live_work(struct work_struct *work)
{
	struct rblk_ns_head *head = container_of(work, struct rblk_ns_head,
						 live_work);
	int ret;

	mutex_lock(&head->lock);
	if (!head->disk_added && !head->dying) {
		ret = device_add_disk(&head->subsys->dev, head->disk,
				      rblk_ns_attr_groups);
		if (ret)
			dev_err(&head->subsys->dev, "%s not added: %d\n",
				head->disk->disk_name, ret);
		else
			WRITE_ONCE(head->disk_added, true);
	}
	mutex_unlock(&head->lock);
}

/*
 * A path of @ns may carry I/O now: its head shows, the paths are chosen
 * again (a path that came back is the nearest again, as after nvme's
 * nvme_mpath_set_live()), and what waits goes on.
 */
void rblk_mpath_path_ready(struct rblk_ns *ns)
{
	struct rblk_ns_head *head = ns->head;
	int node;

	if (!head)
		return;
	if (rblk_path_usable(ns)) {
		if (!READ_ONCE(head->disk_added))
			queue_work(rblk_wq, &head->live_work);
		for_each_node(node)
			rcu_assign_pointer(head->current_path[node], NULL);
	}
	rblk_head_kick(head);
}

static void rblk_head_clear_path(struct rblk_ns_head *head,
				 struct rblk_ns *ns)
{
	int node;

	for_each_node(node)
		if (rcu_access_pointer(head->current_path[node]) == ns)
			rcu_assign_pointer(head->current_path[node], NULL);
}

/*
 * Before the path's disk is deleted: no new bio goes down it, and what
 * waits on the head goes to another path or fails. The last path takes
 * the head disk with it (an open file keeps the gendisk).
 *
 * In nvme's order (nvme_ns_remove()): unusable, then out of current_path,
 * then off the list, a grace period after each. A submitter that still
 * found the path cached after it left the list walked the others looking
 * for it (rblk_find_round_robin()).
 */
void rblk_mpath_detach(struct rblk_ns *ns)
{
	struct rblk_ns_head *head = ns->head;
	bool last, added;

	if (!head)
		return;
	set_bit(RBLK_NS_DETACHING, &ns->ana_flags);
	/* No reader chooses it now, so none caches it again once cleared. */
	synchronize_srcu(&head->srcu);
	rblk_head_clear_path(head, ns);
	/* No reader holds it cached: none starts a walk from it. */
	synchronize_srcu(&head->srcu);
	mutex_lock(&rblk_subsys_lock);
	list_del_rcu(&ns->siblings);
	last = list_empty(&head->paths);
	if (last)
		head->dying = true;
	mutex_unlock(&rblk_subsys_lock);
	/* No reader walks through it: its disk may go. */
	synchronize_srcu(&head->srcu);
	rblk_head_kick(head);
	if (!last)
		return;

	/* A partition scan waiting for a path fails now: none is left. */
	flush_work(&head->requeue_work);
	cancel_work_sync(&head->live_work);
	mutex_lock(&head->lock);
	added = head->disk_added;
	if (added)
		del_gendisk(head->disk);
	mutex_unlock(&head->lock);
	/* del_gendisk()'s writeback found no path either. */
	rblk_head_kick(head);
	flush_work(&head->requeue_work);

	mutex_lock(&rblk_subsys_lock);
	list_del_init(&head->entry);
	mutex_unlock(&rblk_subsys_lock);
	if (added)
		put_disk(head->disk);	/* ->free_disk() on the last close */
	else
		rblk_head_discard(head);
}

/* The head disk's size follows the namespace's. */
void rblk_mpath_set_capacity(struct rblk_ns *ns)
{
	if (ns->head && READ_ONCE(ns->head->disk_added))
		set_capacity_and_notify(ns->head->disk,
					ns->nsze << (ns->lba_shift - SECTOR_SHIFT));
}

/* Resubmits what waits on the heads of @ctrl's namespaces. */
void rblk_mpath_kick(struct rblk_ctrl *ctrl)
{
	struct rblk_ns *ns;

	if (!rblk_ctrl_mpath(ctrl))
		return;
	mutex_lock(&ctrl->ns_lock);
	list_for_each_entry(ns, &ctrl->namespaces, entry)
		rblk_mpath_path_ready(ns);
	mutex_unlock(&ctrl->ns_lock);
}

/* A new policy: no path cached by the old one is kept. */
void rblk_mpath_reset_policy(struct rblk_subsys *subsys)
{
	struct rblk_ns_head *head;
	int node;

	lockdep_assert_held(&rblk_subsys_lock);
	list_for_each_entry(head, &subsys->heads, entry)
		for_each_node(node)
			rcu_assign_pointer(head->current_path[node], NULL);
}

/* --- failover -------------------------------------------------------- */

/* Status code type 3: the path, not the command, failed. */
bool rblk_mpath_is_path_error(u16 status)
{
	return (status & 0x700) == 0x300;
}

static bool rblk_is_ana_error(u16 status)
{
	switch (status & RBLK_SC_MASK) {
	case NVME_SC_ANA_TRANSITION:
	case NVME_SC_ANA_INACCESSIBLE:
	case NVME_SC_ANA_PERSISTENT_LOSS:
		return true;
	default:
		return false;
	}
}

/*
 * Hands @rq's bios back to its head, which sends them down another path,
 * and ends @rq; false when it has none to hand back (not a head's I/O, a
 * flush of the flush machinery), and then nothing was done.
 */
bool rblk_mpath_failover(struct request *rq)
{
	struct rblk_ns *ns = rq->q->queuedata;
	struct rblk_req *req = rblk_req(rq);
	struct rblk_ns_head *head;
	unsigned long flags;
	struct bio *bio;

	if (!rblk_mpath_rq(rq))
		return false;
	head = ns->head;

	if (rblk_is_ana_error(req->status) && rblk_ctrl_ana(ns->ctrl)) {
		/* The controller is alive but not for this namespace. */
		set_bit(RBLK_NS_ANA_PENDING, &ns->ana_flags);
		queue_work(rblk_wq, &ns->ctrl->ana_work);
	}
	rblk_head_clear_path(head, ns);

	spin_lock_irqsave(&head->requeue_lock, flags);
	for (bio = rq->bio; bio; bio = bio->bi_next) {
		bio_set_dev(bio, head->disk->part0);
		/*
		 * Another path may have no poll queue: it then ends in
		 * softirq, where 6.1's bio_put() warns about (and must not
		 * recycle) a bio of the per-cpu alloc cache, so that goes too.
		 */
		if (bio->bi_opf & REQ_POLLED) {
			bio_clear_polled(bio);
			bio->bi_cookie = BLK_QC_T_NONE;
		}
		rblk_bio_clear_nowait(bio);
	}
	blk_steal_bios(&head->requeue_list, rq);
	spin_unlock_irqrestore(&head->requeue_lock, flags);

	rblk_req_finish(ns->ctrl, rq, BLK_STS_OK, true);
	rblk_head_kick(head);
	return true;
}

/*
 * A head's command is sent: the head disk's I/O statistics count it (its
 * bios skip the block layer's own accounting, as a bio-based disk's do),
 * and so does the queue-depth policy, only while it is in use: that is
 * an atomic per command on a counter all CPUs share.
 */
void rblk_mpath_start_rq(struct request *rq)
{
	struct rblk_req *req = rblk_req(rq);
	struct rblk_ns *ns = rq->q->queuedata;
	struct gendisk *disk;

	if (!(rq->cmd_flags & REQ_RBLK_MPATH) || !ns || !ns->head)
		return;
	disk = ns->head->disk;
	if (blk_queue_io_stat(disk->queue) &&
	    !test_and_set_bit(RBLK_REQ_MPATH_ACCT, &req->flags))
		req->mpath_start = rblk_io_acct_start(disk->part0, rq);
	if (READ_ONCE(ns->head->subsys->iopolicy) == RBLK_IOPOLICY_QUEUE_DEPTH &&
	    !test_and_set_bit(RBLK_REQ_MPATH_CNT, &req->flags))
		atomic_inc(&ns->ctrl->nr_mpath_active);
}

/* Before the request ends or hands its bios back (then 0 bytes). */
void rblk_mpath_end_rq(struct request *rq)
{
	struct rblk_req *req = rblk_req(rq);
	struct rblk_ns *ns = rq->q->queuedata;

	if (test_and_clear_bit(RBLK_REQ_MPATH_ACCT, &req->flags))
		rblk_io_acct_end(ns->head->disk->part0, rq, req->mpath_start);
	if (test_and_clear_bit(RBLK_REQ_MPATH_CNT, &req->flags))
		atomic_dec(&req->queue->ctrl->nr_mpath_active);
}

/* --- ANA -------------------------------------------------------------- */

const char *rblk_ana_state_name(u8 state)
{
	switch (state) {
	case RBLK_ANA_OPTIMIZED:
		return "optimized";
	case RBLK_ANA_NONOPTIMIZED:
		return "non-optimized";
	case RBLK_ANA_INACCESSIBLE:
		return "inaccessible";
	case RBLK_ANA_PERSISTENT_LOSS:
		return "persistent-loss";
	case RBLK_ANA_CHANGE:
		return "change";
	default:
		return "invalid";
	}
}

/* What a namespace added now starts with: its group's last state. */
u8 rblk_ana_group_state(struct rblk_ctrl *ctrl, u32 grpid)
{
	u8 state = 0;

	if (!rblk_ctrl_ana(ctrl))
		return RBLK_ANA_OPTIMIZED;
	mutex_lock(&ctrl->ana_lock);
	if (grpid && grpid <= ctrl->anagrpmax)
		state = ctrl->ana_grp_state[grpid];
	mutex_unlock(&ctrl->ana_lock);
	return state;
}

struct rblk_ana_apply {
	struct rblk_ctrl	*ctrl;
	bool			changing;	/* a group is in change */
};

/* Under ana_lock and ns_lock: a group's state, and who is in it now. */
static int rblk_ana_apply_desc(void *priv, const struct rblk_ana_desc *d)
{
	struct rblk_ana_apply *a = priv;
	struct rblk_ctrl *ctrl = a->ctrl;
	struct rblk_ns *ns;
	u32 i, nsid;

	ctrl->ana_grp_state[d->grpid] = d->state;
	if (d->state == RBLK_ANA_CHANGE)
		a->changing = true;
	for (i = 0; i < d->nnsids; i++) {
		nsid = rblk_ana_desc_nsid(d, i);
		list_for_each_entry(ns, &ctrl->namespaces, entry) {
			if (ns->nsid == nsid)
				WRITE_ONCE(ns->anagrpid, d->grpid);
		}
	}
	return 0;
}

/*
 * Reads and applies the ANA log: each namespace takes its group's state.
 * A log that fails its checks changes nothing and is an error.
 */
int rblk_ana_read(struct rblk_ctrl *ctrl)
{
	struct rblk_ana_apply a = { .ctrl = ctrl };
	const char *why = NULL;
	struct rblk_ns *ns;
	u8 state;
	int ret;

	if (!rblk_ctrl_ana(ctrl))
		return 0;
	mutex_lock(&ctrl->ana_lock);
	memset(ctrl->ana_log_buf, 0, ctrl->ana_log_size);
	ret = rblk_get_log_page(ctrl, NVME_LOG_ANA, ctrl->ana_log_buf,
				ctrl->ana_log_size);
	if (ret) {
		mutex_unlock(&ctrl->ana_lock);
		dev_warn(ctrl->dev, "ANA log page unreadable: %d\n", ret);
		return ret < 0 ? ret : -EIO;
	}
	mutex_lock(&ctrl->ns_lock);
	ret = rblk_ana_log_parse(ctrl->ana_log_buf, ctrl->ana_log_size,
				 ctrl->anagrpmax, ctrl->nn, rblk_ana_apply_desc,
				 &a, &why);
	if (ret < 0) {
		mutex_unlock(&ctrl->ns_lock);
		mutex_unlock(&ctrl->ana_lock);
		dev_err(ctrl->dev, "ANA log page refused: %s\n", why);
		return -EPROTO;
	}
	list_for_each_entry(ns, &ctrl->namespaces, entry) {
		state = ns->anagrpid <= ctrl->anagrpmax ?
			ctrl->ana_grp_state[ns->anagrpid] : 0;
		if (state != READ_ONCE(ns->ana_state))
			dev_info(ctrl->dev, "nsid %u: ANA group %u %s\n",
				 ns->nsid, ns->anagrpid,
				 rblk_ana_state_name(state));
		WRITE_ONCE(ns->ana_state, state);
		clear_bit(RBLK_NS_ANA_PENDING, &ns->ana_flags);
		if (ns->head)
			rblk_head_clear_path(ns->head, ns);
	}
	mutex_unlock(&ctrl->ns_lock);
	mutex_unlock(&ctrl->ana_lock);

	if (a.changing && ctrl->anatt)
		mod_timer(&ctrl->anatt_timer, jiffies + ctrl->anatt * HZ);
	else
		del_timer_sync(&ctrl->anatt_timer);
	rblk_mpath_kick(ctrl);
	return 0;
}

static void rblk_ana_work(struct work_struct *work)
{
	struct rblk_ctrl *ctrl = container_of(work, struct rblk_ctrl,
					      ana_work);

	if (rblk_ctrl_state(ctrl) == RBLK_CTRL_LIVE)
		rblk_ana_read(ctrl);
}

static void rblk_anatt_timeout(struct timer_list *t)
{
	struct rblk_ctrl *ctrl = from_timer(ctrl, t, anatt_timer);

	dev_warn(ctrl->dev, "ANA group still in change after ANATT (%u s): resetting\n",
		 ctrl->anatt);
	rblk_ctrl_error(ctrl);
}

/* On every Identify Controller; the first one sizes the log buffer. */
int rblk_ana_init_ctrl(struct rblk_ctrl *ctrl, const struct nvme_id_ctrl *id)
{
	u32 anagrpmax = le32_to_cpu(id->anagrpmax);
	size_t size;

	ctrl->cmic = id->cmic;
	if (ctrl->ana_log_buf || ctrl->opts.discovery ||
	    !(id->cmic & NVME_CTRL_CMIC_ANA) || !id->anacap)
		return 0;
	if (!anagrpmax || anagrpmax > RBLK_ANA_MAX_GROUPS ||
	    le32_to_cpu(id->nanagrpid) > anagrpmax) {
		dev_warn(ctrl->dev, "ANAGRPMAX %u, NANAGRPID %u out of range: ANA ignored\n",
			 anagrpmax, le32_to_cpu(id->nanagrpid));
		return 0;
	}
	size = rblk_ana_log_size(anagrpmax,
				 min_t(u32, ctrl->nn ?: RBLK_ANA_MAX_NSIDS,
				       RBLK_ANA_MAX_NSIDS));
	size = round_up(size, sizeof(u32));
	if (size > ((size_t)ctrl->max_hw_sectors << SECTOR_SHIFT)) {
		dev_warn(ctrl->dev, "ANA log (%zu bytes) exceeds MDTS: ANA ignored\n",
			 size);
		return 0;
	}
	ctrl->ana_grp_state = kcalloc(anagrpmax + 1, 1, GFP_KERNEL);
	ctrl->ana_log_buf = kvzalloc(size, GFP_KERNEL);
	if (!ctrl->ana_grp_state || !ctrl->ana_log_buf) {
		rblk_ana_free_ctrl(ctrl);
		return -ENOMEM;
	}
	ctrl->ana_log_size = size;
	ctrl->anacap = id->anacap;
	ctrl->anatt = id->anatt;
	ctrl->anagrpmax = anagrpmax;
	ctrl->nanagrpid = le32_to_cpu(id->nanagrpid);
	return 0;
}

void rblk_ana_init(struct rblk_ctrl *ctrl)
{
	mutex_init(&ctrl->ana_lock);
	INIT_WORK(&ctrl->ana_work, rblk_ana_work);
	timer_setup(&ctrl->anatt_timer, rblk_anatt_timeout, 0);
	atomic_set(&ctrl->nr_mpath_active, 0);
	ctrl->numa_node = NUMA_NO_NODE;
}

/*
 * With the association: no ANA work or timer outlives it. The work first:
 * a running one re-arms the timer (rblk_ana_read()), and nothing queues
 * it again once the AER and the queues are gone.
 */
void rblk_ana_stop(struct rblk_ctrl *ctrl)
{
	cancel_work_sync(&ctrl->ana_work);
	del_timer_sync(&ctrl->anatt_timer);
}

void rblk_ana_free_ctrl(struct rblk_ctrl *ctrl)
{
	kvfree(ctrl->ana_log_buf);
	ctrl->ana_log_buf = NULL;
	kfree(ctrl->ana_grp_state);
	ctrl->ana_grp_state = NULL;
	ctrl->anacap = 0;
}

/* --- sysfs of a path's disk ------------------------------------------ */

static ssize_t ana_state_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	struct rblk_ns *ns = dev_to_disk(dev)->private_data;

	return sysfs_emit(buf, "%s\n",
			  rblk_ana_state_name(READ_ONCE(ns->ana_state)));
}
static DEVICE_ATTR_RO(ana_state);

static ssize_t ana_grpid_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	struct rblk_ns *ns = dev_to_disk(dev)->private_data;

	return sysfs_emit(buf, "%u\n", READ_ONCE(ns->anagrpid));
}
static DEVICE_ATTR_RO(ana_grpid);

/*
 * What the queue-depth policy weighs this path by: its controller's
 * commands started under that policy (nvme's queue_depth); empty under
 * the others, which do not count.
 */
static ssize_t queue_depth_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	struct rblk_ns *ns = dev_to_disk(dev)->private_data;

	if (READ_ONCE(ns->head->subsys->iopolicy) != RBLK_IOPOLICY_QUEUE_DEPTH)
		return 0;
	return sysfs_emit(buf, "%d\n", atomic_read(&ns->ctrl->nr_mpath_active));
}
static DEVICE_ATTR_RO(queue_depth);

static struct attribute *rblk_path_attrs[] = {
	&dev_attr_ana_state.attr,
	&dev_attr_ana_grpid.attr,
	&dev_attr_queue_depth.attr,
	NULL,
};

static umode_t rblk_path_attr_visible(struct kobject *kobj,
				      struct attribute *a, int n)
{
	struct gendisk *disk = dev_to_disk(kobj_to_dev(kobj));
	struct rblk_ns *ns;

	if (rblk_disk_is_head(disk))
		return 0;
	ns = disk->private_data;
	return ns->head && rblk_ctrl_ana(ns->ctrl) ? a->mode : 0;
}

const struct attribute_group rblk_path_attr_group = {
	.attrs		= rblk_path_attrs,
	.is_visible	= rblk_path_attr_visible,
};
