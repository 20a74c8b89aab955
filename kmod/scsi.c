// SPDX-License-Identifier: GPL-2.0
/*
 * rblk: SG_IO on the namespace block devices, so that SCSI tools and stacks
 * work unchanged. scsi_xlate.c decides what a CDB means; this file moves
 * the sg_io_hdr, the data and the sense between the caller and the
 * translation, checks the caller's rights and runs the NVMe command.
 */
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/capability.h>
#include <linux/compat.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <scsi/scsi_status.h>
#include <scsi/sg.h>

#include "nvme.h"
#include "scsi_xlate.h"

#define RBLK_SG_VERSION		30527		/* as the block layer says */
#define RBLK_ONCS_VERIFY	BIT(7)		/* not in <linux/nvme.h> */

/* One SG_IO call. */
struct rblk_sgio {
	struct sg_io_hdr	hdr;
	struct rblk_ns		*ns;
	enum rblk_xlate_dir	dir;
	u8			cdb[16];
	struct iov_iter		iter;		/* the caller's data buffer */
	struct iovec		fast_iov[UIO_FASTIOV];
	struct iovec		*iov;		/* import_iovec()'s, to free */
	void			*param;		/* data-out the xlate reads */
	void			*scratch;	/* DATA_DISCARD, DATA_REPORT */
	struct rblk_xlate_ns	facts;
	struct rblk_xlate_out	out;
	u8			buf[RBLK_XLATE_BUF_LEN];
};

/* --- the header, native and compat --- */

static int rblk_sgio_get_hdr(struct sg_io_hdr *hdr, const void __user *argp)
{
#ifdef CONFIG_COMPAT
	if (in_compat_syscall()) {
		struct compat_sg_io_hdr h;

		if (copy_from_user(&h, argp, sizeof(h)))
			return -EFAULT;
		*hdr = (struct sg_io_hdr) {
			.interface_id	 = h.interface_id,
			.dxfer_direction = h.dxfer_direction,
			.cmd_len	 = h.cmd_len,
			.mx_sb_len	 = h.mx_sb_len,
			.iovec_count	 = h.iovec_count,
			.dxfer_len	 = h.dxfer_len,
			.dxferp		 = compat_ptr(h.dxferp),
			.cmdp		 = compat_ptr(h.cmdp),
			.sbp		 = compat_ptr(h.sbp),
			.timeout	 = h.timeout,
			.flags		 = h.flags,
			.pack_id	 = h.pack_id,
			.usr_ptr	 = compat_ptr(h.usr_ptr),
		};
		return 0;
	}
#endif
	if (copy_from_user(hdr, argp, sizeof(*hdr)))
		return -EFAULT;
	return 0;
}

static int rblk_sgio_put_hdr(const struct sg_io_hdr *hdr, void __user *argp)
{
#ifdef CONFIG_COMPAT
	if (in_compat_syscall()) {
		struct compat_sg_io_hdr h = {
			.interface_id	 = hdr->interface_id,
			.dxfer_direction = hdr->dxfer_direction,
			.cmd_len	 = hdr->cmd_len,
			.mx_sb_len	 = hdr->mx_sb_len,
			.iovec_count	 = hdr->iovec_count,
			.dxfer_len	 = hdr->dxfer_len,
			.dxferp		 = (uintptr_t)hdr->dxferp,
			.cmdp		 = (uintptr_t)hdr->cmdp,
			.sbp		 = (uintptr_t)hdr->sbp,
			.timeout	 = hdr->timeout,
			.flags		 = hdr->flags,
			.pack_id	 = hdr->pack_id,
			.usr_ptr	 = (uintptr_t)hdr->usr_ptr,
			.status		 = hdr->status,
			.masked_status	 = hdr->masked_status,
			.msg_status	 = hdr->msg_status,
			.sb_len_wr	 = hdr->sb_len_wr,
			.host_status	 = hdr->host_status,
			.driver_status	 = hdr->driver_status,
			.resid		 = hdr->resid,
			.duration	 = hdr->duration,
			.info		 = hdr->info,
		};

		return copy_to_user(argp, &h, sizeof(h)) ? -EFAULT : 0;
	}
#endif
	return copy_to_user(argp, hdr, sizeof(*hdr)) ? -EFAULT : 0;
}

/* Interface id, CDB length and direction; then the CDB itself. */
static int rblk_sgio_check_hdr(struct rblk_sgio *sg)
{
	struct sg_io_hdr *hdr = &sg->hdr;

	if (hdr->interface_id != 'S')
		return -EINVAL;
	if (hdr->cmd_len < 6 || hdr->cmd_len > sizeof(sg->cdb))
		return -EINVAL;
	switch (hdr->dxfer_direction) {
	case SG_DXFER_NONE:
		sg->dir = RBLK_XLATE_DIR_NONE;
		break;
	case SG_DXFER_TO_DEV:
		sg->dir = RBLK_XLATE_DIR_TO_DEV;
		break;
	case SG_DXFER_FROM_DEV:
	case SG_DXFER_TO_FROM_DEV:	/* a read into a preset buffer */
		sg->dir = RBLK_XLATE_DIR_FROM_DEV;
		break;
	default:
		if (hdr->dxfer_len)
			return -EINVAL;
		sg->dir = RBLK_XLATE_DIR_NONE;
		break;
	}
	if (copy_from_user(sg->cdb, hdr->cmdp, hdr->cmd_len))
		return -EFAULT;
	return 0;
}

/*
 * scsi_cmd_allowed() semantics: read-safe commands for any opener, writing
 * commands for openers with write access, the rest for CAP_SYS_RAWIO.
 */
static bool rblk_sgio_allowed(u8 opcode, rblk_mode_t mode)
{
	switch (rblk_xlate_access(opcode)) {
	case RBLK_XLATE_ACC_READ:
		return true;
	case RBLK_XLATE_ACC_WRITE:
		if (mode & RBLK_MODE_WRITE)
			return true;
		fallthrough;
	default:
		return capable(CAP_SYS_RAWIO);
	}
}

/* The caller's buffer (plain or iovec) as an iterator of dxfer_len bytes. */
static int rblk_sgio_import(struct rblk_sgio *sg)
{
	struct sg_io_hdr *hdr = &sg->hdr;
	int rw = sg->dir == RBLK_XLATE_DIR_TO_DEV ? WRITE : READ;
	ssize_t len;

	sg->iov = NULL;
	if (!hdr->dxfer_len) {
		iov_iter_init(&sg->iter, rw, NULL, 0, 0);
		return 0;
	}
	if (!hdr->iovec_count)
		return rblk_import_ubuf(rw, hdr->dxferp, hdr->dxfer_len,
					sg->fast_iov, &sg->iter);
	sg->iov = sg->fast_iov;
	len = import_iovec(rw, hdr->dxferp, hdr->iovec_count, UIO_FASTIOV,
			   &sg->iov, &sg->iter);
	if (len < 0) {
		sg->iov = NULL;
		return len;
	}
	if (len < hdr->dxfer_len)
		return -EINVAL;
	iov_iter_truncate(&sg->iter, hdr->dxfer_len);
	return 0;
}

/* --- namespace facts --- */

/* Identify strings are NUL terminated in the core, space padded in SCSI. */
static void rblk_sgio_pad(char *dst, const char *src, size_t len)
{
	memset(dst, ' ', len);
	memcpy(dst, src, strnlen(src, len));
}

static void rblk_sgio_facts(struct rblk_sgio *sg, struct block_device *bdev)
{
	struct rblk_ns *ns = sg->ns;
	struct rblk_ctrl *ctrl = ns->ctrl;
	struct request_queue *q = ns->disk->queue;
	struct rblk_xlate_ns *f = &sg->facts;
	unsigned int shift = ns->lba_shift - SECTOR_SHIFT;
	struct rblk_ctrl_info info;

	memset(f, 0, sizeof(*f));
	rblk_ns_xlate_ids(ns, f);
	f->nr_lbas = ns->nsze;
	f->lba_shift = ns->lba_shift;
	f->max_xfer_bytes = queue_max_hw_sectors(q) << SECTOR_SHIFT;
	f->max_wz_lbas = q->limits.max_write_zeroes_sectors >> shift;
	f->max_dsm_ranges = queue_max_discard_segments(q);
	f->vwc_present = ctrl->vwc & NVME_CTRL_VWC_PRESENT;
	f->vwc_enabled = rblk_write_cache_enabled(q);
	f->dsm_supported = ctrl->oncs & NVME_CTRL_ONCS_DSM;
	f->write_zeroes_supported = ctrl->oncs & NVME_CTRL_ONCS_WRITE_ZEROES;
	f->verify_supported = ctrl->oncs & RBLK_ONCS_VERIFY;
	f->compare_supported = ctrl->oncs & NVME_CTRL_ONCS_COMPARE;
	f->resv_supported = ctrl->oncs & NVME_CTRL_ONCS_RESERVATIONS;
	f->rescap = ns->rescap;
	/* DLFEAT is not kept: never promise that deallocated LBAs read 0. */
	f->dealloc_zeroes = false;
	f->read_only = bdev_read_only(bdev);
	f->offline = rblk_ctrl_state(ctrl) != RBLK_CTRL_LIVE;
	/* No per-namespace place to keep D_SENSE yet: fixed sense only. */
	f->d_sense_fixed = true;
	/* A reconnect rewrites the strings: copy them under their lock. */
	rblk_ctrl_get_info(ctrl, &info);
	rblk_sgio_pad(f->model, info.model, sizeof(f->model));
	rblk_sgio_pad(f->serial, info.serial, sizeof(f->serial));
	rblk_sgio_pad(f->firmware, info.firmware, sizeof(f->firmware));
}

/*
 * Data-out the translation reads itself: the UNMAP, MODE SELECT and
 * PERSISTENT RESERVE OUT lists.
 */
static int rblk_sgio_param(struct rblk_sgio *sg, struct rblk_xlate_req *req)
{
	struct iov_iter it = sg->iter;
	u32 len;

	req->param = NULL;
	req->param_len = 0;
	if (sg->dir != RBLK_XLATE_DIR_TO_DEV)
		return 0;
	len = rblk_xlate_param_len(&sg->facts, sg->cdb, sg->hdr.cmd_len);
	len = min(len, sg->hdr.dxfer_len);
	if (!len)
		return 0;
	sg->param = kvmalloc(len, GFP_KERNEL);
	if (!sg->param)
		return -ENOMEM;
	if (copy_from_iter(sg->param, len, &it) != len)
		return -EFAULT;
	req->param = sg->param;
	req->param_len = len;
	return 0;
}

/* --- execution --- */

static unsigned int rblk_sgio_timeout(const struct sg_io_hdr *hdr)
{
	unsigned long timeout = msecs_to_jiffies(hdr->timeout);

	if (!timeout)
		timeout = BLK_DEFAULT_SG_TIMEOUT;
	return max_t(unsigned long, timeout, BLK_MIN_SG_TIMEOUT);
}

static void rblk_sgio_build_cmd(const struct rblk_xlate_nvme *p,
				struct nvme_command *cmd)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->common.opcode = p->opcode;
	cmd->common.nsid = cpu_to_le32(p->nsid);
	cmd->common.cdw10 = cpu_to_le32(p->cdw10);
	cmd->common.cdw11 = cpu_to_le32(p->cdw11);
	cmd->common.cdw12 = cpu_to_le32(p->cdw12);
	cmd->common.cdw13 = cpu_to_le32(p->cdw13);
	cmd->common.cdw14 = cpu_to_le32(p->cdw14);
	cmd->common.cdw15 = cpu_to_le32(p->cdw15);
}

/*
 * Attaches the data of the plan: the caller's pages, out->buf or scratch
 * (zeroed: what a target leaves unwritten never shows old heap).
 */
static int rblk_sgio_map(struct rblk_sgio *sg, struct request *rq)
{
	const struct rblk_xlate_nvme *p = &sg->out.nvme;
	struct iov_iter it = sg->iter;

	switch (p->data) {
	case RBLK_XLATE_DATA_USER:
		iov_iter_truncate(&it, p->data_len);
		return blk_rq_map_user_iov(rq->q, rq, NULL, &it, GFP_KERNEL);
	case RBLK_XLATE_DATA_BUF:
		return blk_rq_map_kern(rq->q, rq, sg->buf, p->data_len,
				       GFP_KERNEL);
	case RBLK_XLATE_DATA_DISCARD:
	case RBLK_XLATE_DATA_REPORT:
		if (!sg->scratch)
			sg->scratch = kvzalloc(p->data_len, GFP_KERNEL);
		if (!sg->scratch)
			return -ENOMEM;
		return blk_rq_map_kern(rq->q, rq, sg->scratch, p->data_len,
				       GFP_KERNEL);
	default:
		return 0;
	}
}

/*
 * Runs the planned I/O command on the namespace queue. Returns 0 with the
 * NVMe status in *status, -ETIMEDOUT or -EIO when no NVMe status came
 * back, or another errno when the request could not be built.
 */
static int rblk_sgio_exec_io(struct rblk_sgio *sg, u16 *status)
{
	const struct rblk_xlate_nvme *p = &sg->out.nvme;
	struct request_queue *q = sg->ns->disk->queue;
	unsigned long start;
	struct request *rq;
	struct bio *bio;
	blk_status_t sts;
	int ret;

	rq = blk_mq_alloc_request(q, p->write ? REQ_OP_DRV_OUT : REQ_OP_DRV_IN,
				  0);
	if (IS_ERR(rq))
		return PTR_ERR(rq);
	rblk_sgio_build_cmd(p, &rblk_req(rq)->cmd);
	rblk_req(rq)->status = 0;
	rq->timeout = rblk_sgio_timeout(&sg->hdr);
	ret = rblk_sgio_map(sg, rq);
	if (ret)
		goto out_free;
	bio = rq->bio;

	start = jiffies;
	sts = blk_execute_rq(rq, sg->hdr.flags & SG_FLAG_Q_AT_HEAD);
	*status = rblk_req(rq)->status;
	if ((*status & RBLK_SC_MASK) == NVME_SC_HOST_ABORTED_CMD &&
	    time_after_eq(jiffies, start + rq->timeout))
		ret = -ETIMEDOUT;	/* ended by the timeout handler */
	else if (!*status && sts != BLK_STS_OK)
		ret = -EIO;		/* never reached the target */
	if (p->data == RBLK_XLATE_DATA_USER) {
		int r = blk_rq_unmap_user(bio);

		if (!ret)
			ret = r;
	}
out_free:
	blk_mq_free_request(rq);
	return ret;
}

/* Runs the plan; transport failures become host status, not errors. */
static int rblk_sgio_execute(struct rblk_sgio *sg)
{
	struct sg_io_hdr *hdr = &sg->hdr;
	u16 status = 0;
	int ret;

	do {
		ret = rblk_sgio_exec_io(sg, &status);
	} while (!ret && rblk_xlate_retry(&sg->out, status));
	switch (ret) {
	case 0:
		rblk_xlate_complete_data(&sg->out, status, sg->scratch,
					 sg->out.nvme.data_len);
		return 0;
	case -ETIMEDOUT:
		hdr->host_status = DID_TIME_OUT;
		break;
	case -EIO:
		hdr->host_status =
			rblk_ctrl_state(sg->ns->ctrl) == RBLK_CTRL_LIVE ?
			DID_ERROR : DID_TRANSPORT_DISRUPTED;
		break;
	default:
		return ret;
	}
	sg->out.status = RBLK_SAM_GOOD;
	sg->out.sense_len = 0;
	sg->out.data_len = 0;
	sg->out.resid = hdr->dxfer_len;
	return 0;
}

/* --- the answer --- */

static int rblk_sgio_complete(struct rblk_sgio *sg)
{
	struct rblk_xlate_out *out = &sg->out;
	struct sg_io_hdr *hdr = &sg->hdr;
	unsigned int len;

	if (out->data_len &&
	    copy_to_iter(sg->buf, out->data_len, &sg->iter) != out->data_len)
		return -EFAULT;
	hdr->status = out->status;
	hdr->masked_status = (out->status >> 1) & 0x7f;
	hdr->msg_status = 0;
	hdr->driver_status =
		out->status == RBLK_SAM_CHECK_CONDITION ? DRIVER_SENSE : 0;
	hdr->info = 0;
	if (hdr->masked_status || hdr->host_status || hdr->driver_status)
		hdr->info |= SG_INFO_CHECK;
	hdr->resid = out->resid;
	hdr->sb_len_wr = 0;
	len = min_t(unsigned int, hdr->mx_sb_len, out->sense_len);
	if (len && hdr->sbp) {
		if (copy_to_user(hdr->sbp, out->sense, len))
			return -EFAULT;
		hdr->sb_len_wr = len;
	}
	return 0;
}

static int rblk_sgio_run(struct rblk_sgio *sg, struct block_device *bdev,
			 rblk_mode_t mode)
{
	struct rblk_xlate_req req = { };
	unsigned long start = jiffies;
	int ret;

	ret = rblk_sgio_check_hdr(sg);
	if (ret)
		return ret;
	if (!rblk_sgio_allowed(sg->cdb[0], mode))
		return -EPERM;
	ret = rblk_sgio_import(sg);
	if (ret)
		return ret;
	rblk_sgio_facts(sg, bdev);
	ret = rblk_sgio_param(sg, &req);
	if (ret)
		return ret;

	req.cdb = sg->cdb;
	req.cdb_len = sg->hdr.cmd_len;
	req.dir = sg->dir;
	req.dxfer_len = sg->hdr.dxfer_len;
	sg->out.buf = sg->buf;
	ret = rblk_xlate_cmd(&sg->facts, &req, &sg->out);
	if (ret)
		return ret;
	sg->hdr.host_status = 0;
	if (sg->out.kind == RBLK_XLATE_NVME) {
		ret = rblk_sgio_execute(sg);
		if (ret)
			return ret;
	}
	sg->hdr.duration = jiffies_to_msecs(jiffies - start);
	return rblk_sgio_complete(sg);
}

static int rblk_sg_io(struct block_device *bdev, struct rblk_ns *ns,
		      rblk_mode_t mode, void __user *argp)
{
	struct rblk_sgio *sg;
	int ret;

	sg = kzalloc(sizeof(*sg), GFP_KERNEL);
	if (!sg)
		return -ENOMEM;
	sg->ns = ns;
	ret = rblk_sgio_get_hdr(&sg->hdr, argp);
	if (!ret)
		ret = rblk_sgio_run(sg, bdev, mode);
	if (!ret)
		ret = rblk_sgio_put_hdr(&sg->hdr, argp);
	kfree(sg->iov);		/* NULL, or what import_iovec() allocated */
	kvfree(sg->param);
	kvfree(sg->scratch);
	kfree(sg);
	return ret;
}

int rblk_scsi_ioctl(struct block_device *bdev, struct rblk_ns *ns,
		    rblk_mode_t mode, unsigned int cmd, unsigned long arg)
{
	struct request_queue *q = ns->disk->queue;
	void __user *argp = (void __user *)arg;

	/* An fd may outlive del_gendisk(); the namespace is gone then. */
	if (!disk_live(bdev->bd_disk))
		return -ENODEV;
	switch (cmd) {
	case SG_IO:
		return rblk_sg_io(bdev, ns, mode, argp);
	case SG_GET_VERSION_NUM:
		return put_user(RBLK_SG_VERSION, (int __user *)argp);
	case SG_GET_RESERVED_SIZE:
		return put_user((int)queue_max_hw_sectors(q) << SECTOR_SHIFT,
				(int __user *)argp);
	default:
		return -ENOTTY;
	}
}
