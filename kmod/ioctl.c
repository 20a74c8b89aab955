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
 *
 * io_uring passthrough (NVME_URING_CMD_ADMIN and _IO) is on the character
 * device, under the same rules, and completes asynchronously.
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

/*
 * Commands that change the namespaces (their effects NCC, NIC; Format NVM
 * also LBCC and CSE): the disks are scanned before the ioctl returns.
 */
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
 * A request for one user command on @q (the admin queue or a
 * namespace's), its data mapped from @ubuf (@len bytes, or with @vec an
 * array of @len iovecs): it takes the same request path as rblk's own
 * commands.
 */
static struct request *rblk_ioctl_alloc_rq(struct request_queue *q,
					   struct nvme_command *cmd, u64 ubuf,
					   u32 len, bool vec, u32 timeout_ms,
					   blk_mq_req_flags_t flags)
{
	blk_opf_t op = nvme_is_write(cmd) ? REQ_OP_DRV_OUT : REQ_OP_DRV_IN;
	struct request *rq;
	int ret;

	/*
	 * The mapping refuses more than the queue takes (vectors included),
	 * but a plain length is told EINVAL before any pinning.
	 */
	if (!vec && len > (u64)queue_max_hw_sectors(q) << SECTOR_SHIFT)
		return ERR_PTR(-EINVAL);

	rq = blk_mq_alloc_request(q, op, flags);
	if (IS_ERR(rq))
		return rq;
	rblk_req_set_cmd(rq, cmd);
	/* 0 keeps the tag set's timeout. */
	if (timeout_ms)
		rq->timeout = msecs_to_jiffies(timeout_ms);
	if (ubuf && len) {
		ret = blk_rq_map_user_io(rq, NULL, rblk_user_ptr(ubuf), len,
					 GFP_KERNEL, vec, 0, false,
					 rq_data_dir(rq));
		if (ret) {
			blk_mq_free_request(rq);
			return ERR_PTR(ret);
		}
	}
	return rq;
}

/*
 * What an ended user command returns: 0, the NVMe status (> 0) as nvme
 * does, or a negative errno. Unmaps its data (which copies a bounced
 * read back, and may fault) and frees the request.
 */
static int rblk_ioctl_end_rq(struct request *rq, struct bio *bio,
			     blk_status_t sts, u64 *result)
{
	struct rblk_req *req = rblk_req(rq);
	int ret, r;

	if (result)
		*result = le64_to_cpu(req->result.u64);
	ret = req->status ? req->status : blk_status_to_errno(sts);
	if (bio) {
		r = blk_rq_unmap_user(bio);
		if (!ret)
			ret = r;
	}
	blk_mq_free_request(rq);
	return ret;
}

/* Runs one user command on @q and waits for it. */
static int rblk_ioctl_submit(struct request_queue *q, struct nvme_command *cmd,
			     u64 ubuf, u32 len, u32 timeout_ms, u64 *result)
{
	struct request *rq;
	struct bio *bio;

	rq = rblk_ioctl_alloc_rq(q, cmd, ubuf, len, false, timeout_ms, 0);
	if (IS_ERR(rq))
		return PTR_ERR(rq);
	bio = rq->bio;
	return rblk_ioctl_end_rq(rq, bio, blk_execute_rq(rq, false), result);
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

/*
 * As nvme_passthru_start() and _end() by the known effects: a Format NVM
 * runs with the namespaces' I/O held off, and a command that changes the
 * namespaces returns once the disks follow, failed or not (it may have
 * done part of its work).
 */
static int rblk_ioctl_run(struct rblk_ctrl *ctrl, struct rblk_ns *ns,
			  struct nvme_passthru_cmd64 *p)
{
	struct request_queue *q = ns ? ns->disk->queue : ctrl->admin_q;
	bool changes, format;
	struct nvme_command c;
	int ret;

	ret = rblk_ioctl_check_cmd(ctrl, ns, p, &c);
	if (ret)
		return ret;
	changes = !ns && rblk_ioctl_changes_ns(&c);
	format = changes && c.common.opcode == nvme_admin_format_nvm;
	if (format) {
		ret = rblk_ns_format_start(ctrl);
		if (ret)
			return ret;
	}
	ret = rblk_ioctl_submit(q, &c, p->addr, p->data_len, p->timeout_ms,
				&p->result);
	if (format)
		rblk_ns_format_end(ctrl);
	if (changes)
		rblk_ns_scan_sync(ctrl);
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

/*
 * Namespace @nsid, referenced as by rblk_ioctl_only_ns(). @nowait: a scan
 * holding the lock (Identify commands) must not block an io_uring
 * submitter; -EAGAIN sends it to io_uring's worker.
 */
static struct rblk_ns *rblk_ioctl_get_ns(struct rblk_ctrl *ctrl, u32 nsid,
					 bool nowait)
{
	struct rblk_ns *ns, *found = NULL;

	if (!nowait)
		mutex_lock(&ctrl->ns_lock);
	else if (!mutex_trylock(&ctrl->ns_lock))
		return ERR_PTR(-EAGAIN);
	list_for_each_entry(ns, &ctrl->namespaces, entry) {
		if (ns->added && ns->nsid == nsid) {
			get_device(disk_to_dev(ns->disk));
			found = ns;
			break;
		}
	}
	mutex_unlock(&ctrl->ns_lock);
	if (!found) {
		dev_err_ratelimited(ctrl->dev, "%s: no namespace %u\n",
				    current->comm, nsid);
		return ERR_PTR(-EINVAL);
	}
	return found;
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
		rblk_ns_queue_scan(ctrl);
		return 0;
	default:
		return -ENOTTY;
	}
}

bool rblk_ioctl_is_ctrl(unsigned int cmd)
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

/*
 * The namespace disks: NVMe ioctls here, SCSI ones in scsi.c, carried by
 * @ns, which is the disk's own or one path of the head @bdev opens.
 */
int rblk_ns_ioctl_path(struct rblk_ns *ns, struct block_device *bdev,
		       rblk_mode_t mode, unsigned int cmd, unsigned long arg)
{
	void __user *argp = (void __user *)arg;

	if (_IOC_TYPE(cmd) != 'N')
		return rblk_scsi_ioctl(bdev, ns, mode, cmd, arg);
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

int rblk_ns_ioctl(struct block_device *bdev, rblk_mode_t mode,
		  unsigned int cmd, unsigned long arg)
{
	return rblk_ns_ioctl_path(bdev->bd_disk->private_data, bdev, mode, cmd,
				  arg);
}

/* --- io_uring passthrough: NVME_URING_CMD_ADMIN and _IO --- */

/* A command's state from issue to completion, in its io_uring_cmd. */
struct rblk_uring_pdu {
	struct request	*rq;
	struct bio	*bio;		/* the mapped data, to unmap */
	struct rblk_ns	*ns;		/* referenced; NULL: an admin command */
	blk_status_t	sts;
};

static struct rblk_uring_pdu *rblk_uring_pdu(struct io_uring_cmd *ioucmd)
{
	BUILD_BUG_ON(sizeof(struct rblk_uring_pdu) > sizeof(ioucmd->pdu));
	return (struct rblk_uring_pdu *)ioucmd->pdu;
}

/* In the submitter's task: the unmap copies to its memory. */
static void rblk_uring_done(struct io_uring_cmd *ioucmd,
			    unsigned int issue_flags)
{
	struct rblk_uring_pdu *pdu = rblk_uring_pdu(ioucmd);
	struct rblk_ns *ns = pdu->ns;
	u64 result;
	int ret;

	ret = rblk_ioctl_end_rq(pdu->rq, pdu->bio, pdu->sts, &result);
	if (ns)
		rblk_ioctl_put_ns(ns);
	/* As nvme: res is the status (or -errno), res2 the 64-bit result. */
	io_uring_cmd_done(ioucmd, ret, result, issue_flags);
}

static enum rq_end_io_ret rblk_uring_end_io(struct request *rq,
					    blk_status_t sts)
{
	struct io_uring_cmd *ioucmd = rq->end_io_data;

	rblk_uring_pdu(ioucmd)->sts = sts;
	io_uring_cmd_complete_in_task(ioucmd, rblk_uring_done);
	/* rblk_uring_done() frees it, after the unmap. */
	return RQ_END_IO_NONE;
}

/*
 * On the controller's character device (each also _VEC: data_len
 * counts the iovecs at addr), admin commands and, unlike
 * nvme's (which has a generic device per namespace for them), I/O
 * commands to the namespace their nsid names. The rules are the ioctls':
 * CAP_SYS_ADMIN, no metadata, no Fabrics commands or AER. A 72-byte
 * command needs an SQE128 ring and its result a CQE32 one, as for nvme;
 * IOPOLL rings and registered buffers are refused (EOPNOTSUPP).
 */
static int rblk_chr_uring_cmd(struct io_uring_cmd *ioucmd,
			      unsigned int issue_flags)
{
	const u32 big = IO_URING_F_SQE128 | IO_URING_F_CQE32;
	struct rblk_uring_pdu *pdu = rblk_uring_pdu(ioucmd);
	struct rblk_ctrl *ctrl = ioucmd->file->private_data;
	const struct nvme_uring_cmd *u = rblk_uring_cmd_sqe(ioucmd);
	bool nowait = issue_flags & IO_URING_F_NONBLOCK, vec = false;
	struct nvme_passthru_cmd64 p;
	struct rblk_ns *ns = NULL;
	struct nvme_command c;
	struct request *rq;
	int ret;

	if (rblk_ctrl_deleting(ctrl))
		return -ENODEV;
	if ((issue_flags & big) != big || (issue_flags & IO_URING_F_IOPOLL) ||
	    (ioucmd->flags & IORING_URING_CMD_FIXED))
		return -EOPNOTSUPP;
	switch (ioucmd->cmd_op) {
	case NVME_URING_CMD_ADMIN_VEC:
	case NVME_URING_CMD_IO_VEC:
		vec = true;
		fallthrough;
	case NVME_URING_CMD_ADMIN:
	case NVME_URING_CMD_IO:
		break;
	default:
		return -ENOTTY;
	}
	if (!capable(CAP_SYS_ADMIN))
		return -EACCES;

	/* The user may rewrite the SQE meanwhile: each field is read once. */
	p = (struct nvme_passthru_cmd64) {
		.opcode		= READ_ONCE(u->opcode),
		.flags		= READ_ONCE(u->flags),
		.nsid		= READ_ONCE(u->nsid),
		.cdw2		= READ_ONCE(u->cdw2),
		.cdw3		= READ_ONCE(u->cdw3),
		.metadata	= READ_ONCE(u->metadata),
		.addr		= READ_ONCE(u->addr),
		.metadata_len	= READ_ONCE(u->metadata_len),
		.data_len	= READ_ONCE(u->data_len),
		.cdw10		= READ_ONCE(u->cdw10),
		.cdw11		= READ_ONCE(u->cdw11),
		.cdw12		= READ_ONCE(u->cdw12),
		.cdw13		= READ_ONCE(u->cdw13),
		.cdw14		= READ_ONCE(u->cdw14),
		.cdw15		= READ_ONCE(u->cdw15),
		.timeout_ms	= READ_ONCE(u->timeout_ms),
	};
	if (ioucmd->cmd_op == NVME_URING_CMD_IO ||
	    ioucmd->cmd_op == NVME_URING_CMD_IO_VEC) {
		ns = rblk_ioctl_get_ns(ctrl, p.nsid, nowait);
		if (IS_ERR(ns))
			return PTR_ERR(ns);
	}
	ret = rblk_ioctl_check_cmd(ctrl, ns, &p, &c);
	if (ret)
		goto out_put;
	rq = rblk_ioctl_alloc_rq(ns ? ns->disk->queue : ctrl->admin_q, &c,
				 p.addr, p.data_len, vec, p.timeout_ms,
				 nowait ? BLK_MQ_REQ_NOWAIT : 0);
	if (IS_ERR(rq)) {
		/* -EAGAIN (no tag now) retries from io_uring's worker. */
		ret = PTR_ERR(rq);
		goto out_put;
	}
	pdu->rq = rq;
	pdu->bio = rq->bio;
	pdu->ns = ns;
	rq->end_io = rblk_uring_end_io;
	rq->end_io_data = ioucmd;
	blk_execute_rq_nowait(rq, false);
	return -EIOCBQUEUED;

out_put:
	if (ns)
		rblk_ioctl_put_ns(ns);
	return ret;
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
	.uring_cmd	= rblk_chr_uring_cmd,
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
