// SPDX-License-Identifier: GPL-2.0
/*
 * rblk: the Linux NVMe ioctls (<linux/nvme_ioctl.h>), so nvme-cli works on
 * rblk devices as on nvme ones: a character device per controller,
 * /dev/rblkN (the controller's class device, given a dev_t), and the
 * namespace disks /dev/rblkNnM. Modelled on drivers/nvme/host/ioctl.c.
 *
 * Permissions: the stricter rule common to the kernels rblk supports.
 * 6.1 wants CAP_SYS_ADMIN for every passthrough command but lets anyone
 * who can open the disk use SUBMIT_IO; 6.12 lets unprivileged openers
 * send some Identify commands and, where the Commands Supported and
 * Effects log allows it, I/O, but wants CAP_SYS_ADMIN for SUBMIT_IO
 * otherwise. rblk asks CAP_SYS_ADMIN for every command, SUBMIT_IO, RESET
 * and RESCAN included (EACCES without); only NVME_IOCTL_ID is free.
 *
 * What the user sends is untrusted: the data length is bounded by the
 * queue's limits (the controller's MDTS and what one RDMA registration
 * maps), the buffer is mapped with blk_rq_map_user() (a bad one fails
 * with EFAULT), metadata is refused (rblk takes no namespace with
 * metadata), and the Fabrics commands and the AER stay the driver's own.
 */
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/capability.h>
#include <linux/cdev.h>
#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/module.h>
#include <linux/nvme_ioctl.h>
#include <linux/ptrace.h>	/* force_successful_syscall_return() */
#include <linux/uaccess.h>

#include "compat.h"
#include "nvme.h"
#include "scsi_xlate.h"

static dev_t rblk_chr_devt;

/* As nvme_to_user_ptr(): a 32-bit caller's pointer is its low 32 bits. */
static void __user *rblk_user_ptr(u64 val)
{
	if (in_compat_syscall())
		val = (compat_uptr_t)val;
	return (void __user *)(uintptr_t)val;
}

/* Commands whose success changes the namespace inventory: rescan after. */
static bool rblk_ioctl_changes_ns(const struct nvme_command *c)
{
	switch (c->common.opcode) {
	case nvme_admin_format_nvm:
	case nvme_admin_ns_mgmt:
	case nvme_admin_ns_attach:
		return true;
	default:
		return false;
	}
}

/*
 * Runs one user command on @q (the admin queue or a namespace's) through
 * the same request path as rblk's own. Returns 0, the NVMe status (> 0)
 * as nvme does, or a negative errno.
 */
static int rblk_ioctl_submit(struct request_queue *q, struct nvme_command *cmd,
			     u64 ubuf, u32 len, u32 timeout_ms, u64 *result)
{
	blk_opf_t op = nvme_is_write(cmd) ? REQ_OP_DRV_OUT : REQ_OP_DRV_IN;
	struct bio *bio = NULL;
	struct rblk_req *req;
	struct request *rq;
	blk_status_t sts;
	int ret, r;

	/* blk_rq_map_user() would refuse it too, but say EINVAL first. */
	if (len > (u64)queue_max_hw_sectors(q) << SECTOR_SHIFT)
		return -EINVAL;

	rq = blk_mq_alloc_request(q, op, 0);
	if (IS_ERR(rq))
		return PTR_ERR(rq);
	req = rblk_req(rq);
	rblk_req_set_cmd(rq, cmd);
	/* 0 keeps the tag set's timeout. */
	if (timeout_ms)
		rq->timeout = msecs_to_jiffies(timeout_ms);
	if (ubuf && len) {
		ret = blk_rq_map_user(q, rq, NULL, rblk_user_ptr(ubuf), len,
				      GFP_KERNEL);
		if (ret)
			goto out_free;
		bio = rq->bio;
	}

	sts = blk_execute_rq(rq, false);
	if (result)
		*result = le64_to_cpu(req->result.u64);
	ret = req->status ? req->status : blk_status_to_errno(sts);
	if (bio) {
		/* Copies a bounced read back: that may fault. */
		r = blk_rq_unmap_user(bio);
		if (!ret)
			ret = r;
	}
out_free:
	blk_mq_free_request(rq);
	return ret;
}

/* The driver's own: a second association, properties, a second AER. */
static bool rblk_ioctl_reserved_opcode(u8 opcode, bool admin)
{
	if (opcode == nvme_fabrics_command)
		return true;
	return admin && opcode == nvme_admin_async_event;
}

/*
 * The common part of NVME_IOCTL_{ADMIN,IO}{,64}_CMD: @ns NULL for an admin
 * command. Fills @c from the user's fields; the data pointer (DPTR) is
 * the transport's to set.
 */
static int rblk_ioctl_check_cmd(struct rblk_ctrl *ctrl, struct rblk_ns *ns,
				const struct nvme_passthru_cmd64 *p,
				struct nvme_command *c)
{
	if (p->flags || p->metadata_len || p->metadata)
		return -EINVAL;
	if (rblk_ioctl_reserved_opcode(p->opcode, !ns))
		return -EINVAL;
	if (ns && p->nsid != ns->nsid) {
		dev_err_ratelimited(ctrl->dev,
				    "%s: nsid %u in the command is not the namespace's %u\n",
				    current->comm, p->nsid, ns->nsid);
		return -EINVAL;
	}

	memset(c, 0, sizeof(*c));
	c->common.opcode = p->opcode;
	c->common.nsid = cpu_to_le32(p->nsid);
	c->common.cdw2[0] = cpu_to_le32(p->cdw2);
	c->common.cdw2[1] = cpu_to_le32(p->cdw3);
	c->common.cdw10 = cpu_to_le32(p->cdw10);
	c->common.cdw11 = cpu_to_le32(p->cdw11);
	c->common.cdw12 = cpu_to_le32(p->cdw12);
	c->common.cdw13 = cpu_to_le32(p->cdw13);
	c->common.cdw14 = cpu_to_le32(p->cdw14);
	c->common.cdw15 = cpu_to_le32(p->cdw15);
	return 0;
}

static int rblk_ioctl_run(struct rblk_ctrl *ctrl, struct rblk_ns *ns,
			  struct nvme_passthru_cmd64 *p)
{
	struct request_queue *q = ns ? ns->disk->queue : ctrl->admin_q;
	struct nvme_command c;
	int ret;

	ret = rblk_ioctl_check_cmd(ctrl, ns, p, &c);
	if (ret)
		return ret;
	ret = rblk_ioctl_submit(q, &c, p->addr, p->data_len, p->timeout_ms,
				&p->result);
	if (!ret && !ns && rblk_ioctl_changes_ns(&c))
		queue_work(rblk_wq, &ctrl->scan_work);
	return ret;
}

/* struct nvme_passthru_cmd: a 32-bit result. */
static int rblk_ioctl_user_cmd(struct rblk_ctrl *ctrl, struct rblk_ns *ns,
			       struct nvme_passthru_cmd __user *ucmd)
{
	struct nvme_passthru_cmd cmd;
	struct nvme_passthru_cmd64 p;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EACCES;
	if (copy_from_user(&cmd, ucmd, sizeof(cmd)))
		return -EFAULT;
	p = (struct nvme_passthru_cmd64) {
		.opcode		= cmd.opcode,
		.flags		= cmd.flags,
		.rsvd1		= cmd.rsvd1,
		.nsid		= cmd.nsid,
		.cdw2		= cmd.cdw2,
		.cdw3		= cmd.cdw3,
		.metadata	= cmd.metadata,
		.addr		= cmd.addr,
		.metadata_len	= cmd.metadata_len,
		.data_len	= cmd.data_len,
		.cdw10		= cmd.cdw10,
		.cdw11		= cmd.cdw11,
		.cdw12		= cmd.cdw12,
		.cdw13		= cmd.cdw13,
		.cdw14		= cmd.cdw14,
		.cdw15		= cmd.cdw15,
		.timeout_ms	= cmd.timeout_ms,
	};
	ret = rblk_ioctl_run(ctrl, ns, &p);
	/* As nvme: the result is written back whenever the target answered. */
	if (ret >= 0 && put_user((u32)p.result, &ucmd->result))
		return -EFAULT;
	return ret;
}

static int rblk_ioctl_user_cmd64(struct rblk_ctrl *ctrl, struct rblk_ns *ns,
				 struct nvme_passthru_cmd64 __user *ucmd)
{
	struct nvme_passthru_cmd64 p;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EACCES;
	if (copy_from_user(&p, ucmd, sizeof(p)))
		return -EFAULT;
	ret = rblk_ioctl_run(ctrl, ns, &p);
	if (ret >= 0 && put_user(p.result, &ucmd->result))
		return -EFAULT;
	return ret;
}

/* NVME_IOCTL_SUBMIT_IO: read, write or compare of whole LBAs. */
static int rblk_ioctl_submit_io(struct rblk_ns *ns,
				struct nvme_user_io __user *uio)
{
	struct request_queue *q = ns->disk->queue;
	struct nvme_user_io io;
	struct nvme_command c;
	u64 len;

	if (!capable(CAP_SYS_ADMIN))
		return -EACCES;
	if (copy_from_user(&io, uio, sizeof(io)))
		return -EFAULT;
	if (io.flags)
		return -EINVAL;
	switch (io.opcode) {
	case nvme_cmd_write:
	case nvme_cmd_read:
	case nvme_cmd_compare:
		break;
	default:
		return -EINVAL;
	}
	/* No namespace with metadata gets a disk: io.metadata is unused. */
	len = ((u64)io.nblocks + 1) << ns->lba_shift;
	if (len > (u64)queue_max_hw_sectors(q) << SECTOR_SHIFT)
		return -EINVAL;

	memset(&c, 0, sizeof(c));
	c.rw.opcode = io.opcode;
	c.rw.nsid = cpu_to_le32(ns->nsid);
	c.rw.slba = cpu_to_le64(io.slba);
	c.rw.length = cpu_to_le16(io.nblocks);
	c.rw.control = cpu_to_le16(io.control);
	c.rw.dsmgmt = cpu_to_le32(io.dsmgmt);
	c.rw.reftag = cpu_to_le32(io.reftag);
	rblk_rw_set_apptag(&c.rw, io.apptag, io.appmask);
	return rblk_ioctl_submit(q, &c, io.addr, len, 0, NULL);
}

/*
 * The controller's only namespace, with a reference on its disk (which
 * keeps the namespace): the deprecated NVME_IOCTL_IO_CMD on the character
 * device allows no other, as in nvme; NVME_IOCTL_ID follows the same rule.
 */
static struct rblk_ns *rblk_ioctl_only_ns(struct rblk_ctrl *ctrl)
{
	struct rblk_ns *ns, *found = NULL;
	int n = 0;

	mutex_lock(&ctrl->ns_lock);
	list_for_each_entry(ns, &ctrl->namespaces, entry) {
		if (!ns->added)
			continue;
		found = ns;
		n++;
	}
	if (n == 1)
		get_device(disk_to_dev(found->disk));
	mutex_unlock(&ctrl->ns_lock);
	if (!n)
		return ERR_PTR(-ENOTTY);
	if (n > 1) {
		dev_warn_ratelimited(ctrl->dev,
				     "%s: several namespaces: use a namespace device\n",
				     current->comm);
		return ERR_PTR(-EINVAL);
	}
	return found;
}

static void rblk_ioctl_put_ns(struct rblk_ns *ns)
{
	put_device(disk_to_dev(ns->disk));
}

static long rblk_ioctl_only_ns_cmd(struct rblk_ctrl *ctrl, unsigned int cmd,
				   void __user *argp)
{
	struct rblk_ns *ns;
	long ret;

	ns = rblk_ioctl_only_ns(ctrl);
	if (IS_ERR(ns))
		return PTR_ERR(ns);
	switch (cmd) {
	case NVME_IOCTL_ID:
		force_successful_syscall_return();
		ret = ns->nsid;
		break;
	case NVME_IOCTL_IO_CMD:
		ret = rblk_ioctl_user_cmd(ctrl, ns, argp);
		break;
	default:
		ret = rblk_ioctl_user_cmd64(ctrl, ns, argp);
		break;
	}
	rblk_ioctl_put_ns(ns);
	return ret;
}

/* The controller-wide ioctls, on the character device and on the disks. */
static long rblk_ioctl_ctrl(struct rblk_ctrl *ctrl, unsigned int cmd,
			    void __user *argp)
{
	switch (cmd) {
	case NVME_IOCTL_ADMIN_CMD:
		return rblk_ioctl_user_cmd(ctrl, NULL, argp);
	case NVME_IOCTL_ADMIN64_CMD:
		return rblk_ioctl_user_cmd64(ctrl, NULL, argp);
	case NVME_IOCTL_RESET:
		if (!capable(CAP_SYS_ADMIN))
			return -EACCES;
		return rblk_ctrl_reset_sync(ctrl);
	case NVME_IOCTL_RESCAN:
		if (!capable(CAP_SYS_ADMIN))
			return -EACCES;
		queue_work(rblk_wq, &ctrl->scan_work);
		return 0;
	default:
		return -ENOTTY;
	}
}

static bool rblk_ioctl_is_ctrl(unsigned int cmd)
{
	switch (cmd) {
	case NVME_IOCTL_ADMIN_CMD:
	case NVME_IOCTL_ADMIN64_CMD:
	case NVME_IOCTL_RESET:
	case NVME_IOCTL_RESCAN:
		return true;
	default:
		return false;
	}
}

/* The namespace disks: NVMe ioctls here, SCSI ones in scsi.c. */
int rblk_ns_ioctl(struct block_device *bdev, rblk_mode_t mode,
		  unsigned int cmd, unsigned long arg)
{
	struct rblk_ns *ns = bdev->bd_disk->private_data;
	void __user *argp = (void __user *)arg;

	if (_IOC_TYPE(cmd) != 'N')
		return rblk_scsi_ioctl(bdev, mode, cmd, arg);
	/* An fd may outlive del_gendisk(); the namespace is gone then. */
	if (!disk_live(bdev->bd_disk))
		return -ENODEV;
	if (rblk_ioctl_is_ctrl(cmd))
		return rblk_ioctl_ctrl(ns->ctrl, cmd, argp);
	switch (cmd) {
	case NVME_IOCTL_ID:
		force_successful_syscall_return();
		return ns->nsid;
	case NVME_IOCTL_IO_CMD:
		return rblk_ioctl_user_cmd(ns->ctrl, ns, argp);
	case NVME_IOCTL_IO64_CMD:
		return rblk_ioctl_user_cmd64(ns->ctrl, ns, argp);
	case NVME_IOCTL_SUBMIT_IO:
		return rblk_ioctl_submit_io(ns, argp);
	default:
		return -ENOTTY;
	}
}

/* --- the character device --- */

/*
 * The minor is the controller id: a lookup takes a reference, which the
 * file keeps (the cdev may outlive the controller's delete, not the
 * controller's memory; see rblk_chr_add()).
 */
static int rblk_chr_open(struct inode *inode, struct file *file)
{
	struct rblk_ctrl *ctrl = rblk_ctrl_get_by_id(iminor(inode));

	if (!ctrl)
		return -ENODEV;
	/* As nvme_dev_open(): only a live controller takes commands. */
	if (rblk_ctrl_state(ctrl) != RBLK_CTRL_LIVE) {
		rblk_ctrl_put(ctrl);
		return -EWOULDBLOCK;
	}
	file->private_data = ctrl;
	return 0;
}

static int rblk_chr_release(struct inode *inode, struct file *file)
{
	rblk_ctrl_put(file->private_data);
	return 0;
}

static long rblk_chr_ioctl(struct file *file, unsigned int cmd,
			   unsigned long arg)
{
	struct rblk_ctrl *ctrl = file->private_data;
	void __user *argp = (void __user *)arg;

	if (rblk_ctrl_deleting(ctrl))
		return -ENODEV;
	switch (cmd) {
	case NVME_IOCTL_ID:
	case NVME_IOCTL_IO_CMD:
	case NVME_IOCTL_IO64_CMD:
		return rblk_ioctl_only_ns_cmd(ctrl, cmd, argp);
	default:
		return rblk_ioctl_ctrl(ctrl, cmd, argp);
	}
}

static const struct file_operations rblk_chr_fops = {
	.owner		= THIS_MODULE,
	.open		= rblk_chr_open,
	.release	= rblk_chr_release,
	.unlocked_ioctl	= rblk_chr_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

/*
 * A dynamically allocated cdev: an open file keeps it (and the module)
 * after cdev_del(), and its own reference keeps the controller, so
 * neither frees the other's memory under it. Added before the class
 * device, so /dev/rblkN opens as soon as it appears.
 */
int rblk_chr_add(struct rblk_ctrl *ctrl, dev_t *devt)
{
	struct cdev *cdev;
	int ret;

	if (ctrl->id >= RBLK_MAX_CTRLS)
		return -ENOSPC;
	cdev = cdev_alloc();
	if (!cdev)
		return -ENOMEM;
	cdev->owner = THIS_MODULE;
	cdev->ops = &rblk_chr_fops;
	*devt = MKDEV(MAJOR(rblk_chr_devt), ctrl->id);
	ret = cdev_add(cdev, *devt, 1);
	if (ret) {
		kobject_put(&cdev->kobj);
		return ret;
	}
	ctrl->cdev = cdev;
	return 0;
}

/* No new opens; files still open keep the controller until they close. */
void rblk_chr_del(struct rblk_ctrl *ctrl)
{
	if (ctrl->cdev)
		cdev_del(ctrl->cdev);
	ctrl->cdev = NULL;
}

int rblk_chr_init(void)
{
	return alloc_chrdev_region(&rblk_chr_devt, 0, RBLK_MAX_CTRLS, "rblk");
}

void rblk_chr_exit(void)
{
	unregister_chrdev_region(rblk_chr_devt, RBLK_MAX_CTRLS);
}
