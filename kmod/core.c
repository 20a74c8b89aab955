// SPDX-License-Identifier: GPL-2.0
/*
 * rblk: the base-specification admin commands and what is decided from
 * their answers: enable and shutdown (over the Fabrics properties),
 * Identify (controller, namespace, active list, descriptors), Set
 * Features, Get Log Page and Keep Alive. Everything the target returns is
 * checked before it is used.
 */
#include <linux/ctype.h>
#include <linux/delay.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

#include "nvme.h"

#define RBLK_CTRL_PAGE_SHIFT	12	/* CC.MPS = 0: 4 KiB */
#define RBLK_SGLS_SUPPORTED	0x3	/* SGLS bits 1:0 */
#define RBLK_SGLS_KEYED		BIT(2)	/* keyed SGL data block descriptor */
#define RBLK_MAX_IOCCSZ		(64 * 1024)
#define RBLK_RDY_POLL_MS	20

/*
 * The command timeouts, in seconds, as nvme_core's admin_timeout and
 * io_timeout: a controller's queues take them when created. 0 is refused:
 * blk-mq would take it as its own default, and a wait bounded by it would
 * not wait at all.
 */
static int rblk_timeout_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, 3600);
}

static const struct kernel_param_ops rblk_timeout_ops = {
	.set	= rblk_timeout_set,
	.get	= param_get_uint,
};

unsigned int rblk_admin_timeout = 30;
module_param_cb(admin_timeout, &rblk_timeout_ops, &rblk_admin_timeout, 0644);
MODULE_PARM_DESC(admin_timeout, "timeout of admin commands in seconds (default 30)");

unsigned int rblk_io_timeout = 30;
module_param_cb(io_timeout, &rblk_timeout_ops, &rblk_io_timeout, 0644);
MODULE_PARM_DESC(io_timeout, "timeout of I/O commands in seconds (default 30)");

/* Polls CSTS until (CSTS & mask) == want, for at most @timeout jiffies. */
static int rblk_wait_csts(struct rblk_ctrl *ctrl, u32 mask, u32 want,
			  unsigned long timeout)
{
	unsigned long deadline = jiffies + timeout;
	u64 csts;
	int ret;

	for (;;) {
		ret = rblk_prop_get(ctrl, NVME_REG_CSTS, false, &csts);
		if (ret)
			return ret < 0 ? ret : -EIO;
		if (csts == ~0U || (csts & NVME_CSTS_CFS))
			return -EIO;
		if ((csts & mask) == want)
			return 0;
		if (time_after(jiffies, deadline))
			return -ETIMEDOUT;
		msleep(RBLK_RDY_POLL_MS);
	}
}

int rblk_ctrl_enable(struct rblk_ctrl *ctrl, struct netlink_ext_ack *extack)
{
	unsigned long timeout;
	u64 cap, vs;
	int ret;

	ret = rblk_prop_get(ctrl, NVME_REG_CAP, true, &cap);
	if (!ret)
		ret = rblk_prop_get(ctrl, NVME_REG_VS, false, &vs);
	if (ret) {
		NL_SET_ERR_MSG(extack, "cannot read the controller's CAP/VS properties");
		return ret < 0 ? ret : -EIO;
	}
	ctrl->cap = cap;
	ctrl->vs = vs;

	if (!(NVME_CAP_CSS(cap) & NVME_CAP_CSS_NVM)) {
		NL_SET_ERR_MSG(extack, "controller does not support the NVM command set");
		return -EOPNOTSUPP;
	}
	if (NVME_CAP_MPSMIN(cap) + 12 > RBLK_CTRL_PAGE_SHIFT ||
	    NVME_CAP_MPSMAX(cap) + 12 < RBLK_CTRL_PAGE_SHIFT) {
		NL_SET_ERR_MSG(extack, "controller does not support 4 KiB pages");
		return -EOPNOTSUPP;
	}

	ctrl->cc = NVME_CC_CSS_NVM | NVME_CC_AMS_RR | NVME_CC_SHN_NONE |
		   ((RBLK_CTRL_PAGE_SHIFT - 12) << NVME_CC_MPS_SHIFT) |
		   NVME_CC_IOSQES | NVME_CC_IOCQES | NVME_CC_ENABLE;
	ret = rblk_prop_set(ctrl, NVME_REG_CC, ctrl->cc);
	if (ret) {
		NL_SET_ERR_MSG(extack, "cannot enable the controller (CC.EN)");
		return ret < 0 ? ret : -EIO;
	}

	/* CAP.TO is in 500 ms units. */
	timeout = (NVME_CAP_TIMEOUT(cap) + 1) * HZ / 2;
	ret = rblk_wait_csts(ctrl, NVME_CSTS_RDY, NVME_CSTS_RDY, timeout);
	if (ret) {
		NL_SET_ERR_MSG(extack, "controller did not become ready (CSTS.RDY)");
		return ret;
	}
	return 0;
}

/* Best effort, bounded: the association is going away anyway. */
void rblk_ctrl_shutdown(struct rblk_ctrl *ctrl)
{
	u32 cc = (ctrl->cc & ~NVME_CC_SHN_MASK) | NVME_CC_SHN_NORMAL;

	if (rblk_prop_set(ctrl, NVME_REG_CC, cc))
		return;
	if (rblk_wait_csts(ctrl, NVME_CSTS_SHST_MASK, NVME_CSTS_SHST_CMPLT,
			   RBLK_SHUTDOWN_TIMEOUT))
		dev_warn(ctrl->dev, "shutdown did not complete\n");
}

static int rblk_identify(struct rblk_ctrl *ctrl, u8 cns, u32 nsid, void *buf)
{
	struct nvme_command cmd = { };

	cmd.identify.opcode = nvme_admin_identify;
	cmd.identify.nsid = cpu_to_le32(nsid);
	cmd.identify.cns = cns;
	return rblk_submit_sync(ctrl, 0, &cmd, buf, NVME_IDENTIFY_DATA_SIZE,
				NULL, false);
}

/* Identify strings are space padded ASCII; keep them printable. */
static void rblk_copy_string(char *dst, const char *src, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		dst[i] = isprint(src[i]) ? src[i] : ' ';
	while (len && dst[len - 1] == ' ')
		len--;
	dst[len] = '\0';
}

static int rblk_check_id_ctrl(struct rblk_ctrl *ctrl, struct nvme_id_ctrl *id,
			      struct netlink_ext_ack *extack)
{
	u32 sgls = le32_to_cpu(id->sgls);
	u32 ioccsz = le32_to_cpu(id->ioccsz);

	/* As nvme_init_subsystem(): the well-known name needs no CNTRLTYPE. */
	if (id->cntrltype == NVME_CTRL_DISC && !ctrl->opts.discovery) {
		NL_SET_ERR_MSG(extack, "NQN names a discovery controller (connect with discovery)");
		return -EINVAL;
	}
	if (ctrl->opts.discovery && id->cntrltype != NVME_CTRL_DISC &&
	    strcmp(ctrl->opts.subnqn, RBLK_DISC_SUBNQN)) {
		NL_SET_ERR_MSG(extack, "NQN names no discovery controller");
		return -EINVAL;
	}
	if (!(sgls & RBLK_SGLS_SUPPORTED) || !(sgls & RBLK_SGLS_KEYED)) {
		NL_SET_ERR_MSG(extack, "controller lacks keyed SGL support");
		return -EOPNOTSUPP;
	}
	/* Capsule sizes are the I/O queues' (nvmet's discovery leaves them 0). */
	if (!ctrl->opts.discovery &&
	    (ioccsz < sizeof(struct nvme_command) / 16 ||
	     le32_to_cpu(id->iorcsz) < sizeof(struct nvme_completion) / 16)) {
		NL_SET_ERR_MSG(extack, "controller reports invalid capsule sizes");
		return -EINVAL;
	}
	if (le16_to_cpu(id->cntlid) != ctrl->cntlid)
		dev_warn(ctrl->dev, "Identify cntlid %u differs from Connect's %u\n",
			 le16_to_cpu(id->cntlid), ctrl->cntlid);
	return 0;
}

int rblk_identify_ctrl(struct rblk_ctrl *ctrl, struct netlink_ext_ack *extack)
{
	struct rblk_xprt_limits xl;
	struct nvme_id_ctrl *id;
	u32 ioccsz;
	unsigned long flags;
	int ret;

	id = kzalloc(sizeof(*id), GFP_KERNEL);
	if (!id)
		return -ENOMEM;
	ret = rblk_identify(ctrl, NVME_ID_CNS_CTRL, 0, id);
	if (ret) {
		NL_SET_ERR_MSG(extack, "Identify Controller failed");
		ret = ret < 0 ? ret : -EIO;
		goto out;
	}
	ret = rblk_check_id_ctrl(ctrl, id, extack);
	if (ret)
		goto out;

	ioccsz = min_t(u32, le32_to_cpu(id->ioccsz), RBLK_MAX_IOCCSZ / 16) * 16;
	/* In-capsule data at an offset is not supported: send none. */
	if (le16_to_cpu(id->icdoff) || ioccsz < sizeof(struct nvme_command))
		ioccsz = sizeof(struct nvme_command);
	ctrl->ioccsz = ioccsz;

	rblk_rdma_limits(ctrl, &xl);
	ctrl->max_hw_sectors = min(xl.max_hw_sectors,
				   rblk_mdts_sectors(id->mdts,
						     NVME_CAP_MPSMIN(ctrl->cap)));
	ctrl->oncs = le16_to_cpu(id->oncs);
	ctrl->vwc = id->vwc;
	ctrl->nn = le32_to_cpu(id->nn);
	ctrl->kas = le16_to_cpu(id->kas);
	ctrl->oaes = le32_to_cpu(id->oaes);
	/* KATO is honoured in KAS units (100 ms); 0 means no keep-alive. */
	if (ctrl->kato && !ctrl->kas)
		dev_warn(ctrl->dev, "controller reports no keep-alive support (KAS 0)\n");
	ctrl->max_cmds = le16_to_cpu(id->maxcmd);
	ret = rblk_ana_init_ctrl(ctrl, id);
	if (ret)
		goto out;

	spin_lock_irqsave(&ctrl->lock, flags);
	rblk_copy_string(ctrl->serial, id->sn, sizeof(id->sn));
	rblk_copy_string(ctrl->model, id->mn, sizeof(id->mn));
	rblk_copy_string(ctrl->firmware, id->fr, sizeof(id->fr));
	spin_unlock_irqrestore(&ctrl->lock, flags);
out:
	kfree(id);
	return ret;
}

/* @count in: wanted, out: granted by the controller (never more). */
int rblk_set_queue_count(struct rblk_ctrl *ctrl, u32 *count)
{
	u32 want = *count, nsqa, ncqa, res;
	int ret;

	ret = rblk_set_features(ctrl, NVME_FEAT_NUM_QUEUES,
				(want - 1) | ((want - 1) << 16), &res);
	if (ret)
		return ret < 0 ? ret : -EIO;
	nsqa = (res & 0xffff) + 1;
	ncqa = (res >> 16) + 1;
	*count = min3(want, nsqa, ncqa);
	return 0;
}

int rblk_identify_active_ns(struct rblk_ctrl *ctrl, u32 start, __le32 *list)
{
	int ret = rblk_identify(ctrl, NVME_ID_CNS_NS_ACTIVE_LIST, start, list);

	return ret > 0 ? -EIO : ret;
}

int rblk_identify_ns(struct rblk_ctrl *ctrl, struct rblk_ns *ns,
		     struct nvme_id_ns *id)
{
	struct nvme_lbaf *lbaf;
	unsigned int idx;
	int ret;

	/*
	 * A target may answer success and transfer nothing: @id then reads
	 * as inactive, not as what it held (a rescan reuses it for every
	 * namespace: the one before's data would pass for this one's).
	 */
	memset(id, 0, sizeof(*id));
	ret = rblk_identify(ctrl, NVME_ID_CNS_NS, ns->nsid, id);
	if (ret)
		return ret > 0 ? -EIO : ret;
	if (!id->nsze)
		return -ENODEV;		/* inactive */

	idx = nvme_lbaf_index(id->flbas);
	if (idx > id->nlbaf || idx >= ARRAY_SIZE(id->lbaf)) {
		dev_err(ctrl->dev, "nsid %u: LBA format %u out of range\n",
			ns->nsid, idx);
		return -EINVAL;
	}
	lbaf = &id->lbaf[idx];
	if (lbaf->ds < SECTOR_SHIFT || lbaf->ds > PAGE_SHIFT) {
		dev_err(ctrl->dev, "nsid %u: unsupported LBA data size 2^%u\n",
			ns->nsid, lbaf->ds);
		return -EOPNOTSUPP;
	}
	if (lbaf->ms) {
		dev_err(ctrl->dev, "nsid %u: metadata formats are not supported\n",
			ns->nsid);
		return -EOPNOTSUPP;
	}
	ns->lba_shift = lbaf->ds;
	ns->nsze = le64_to_cpu(id->nsze);
	/* Capacity in sectors must not overflow. */
	if (ns->nsze > (U64_MAX >> ns->lba_shift))
		return -EINVAL;
	ns->rescap = id->rescap;
	memcpy(ns->nguid, id->nguid, sizeof(ns->nguid));
	memcpy(ns->eui64, id->eui64, sizeof(ns->eui64));
	return 0;
}

/* Prefers the descriptor list; a target without it keeps Identify's IDs. */
void rblk_identify_ns_descs(struct rblk_ctrl *ctrl, struct rblk_ns *ns)
{
	struct rblk_ns_ids ids;
	u8 *buf;

	buf = kzalloc(NVME_IDENTIFY_DATA_SIZE, GFP_KERNEL);
	if (!buf)
		return;
	if (!rblk_identify(ctrl, NVME_ID_CNS_NS_DESC_LIST, ns->nsid, buf) &&
	    rblk_parse_ns_descs(buf, NVME_IDENTIFY_DATA_SIZE, &ids)) {
		if (ids.has_eui64)
			memcpy(ns->eui64, ids.eui64, sizeof(ns->eui64));
		if (ids.has_nguid)
			memcpy(ns->nguid, ids.nguid, sizeof(ns->nguid));
		if (ids.has_uuid)
			import_uuid(&ns->uuid, ids.uuid);
	}
	kfree(buf);
}

/*
 * Returns 0, a positive NVMe status or a negative errno. @nsid 0: a
 * controller feature; else that namespace's.
 */
int rblk_set_features_ns(struct rblk_ctrl *ctrl, u8 fid, u32 nsid,
			 u32 dword11, u32 *result)
{
	struct nvme_command cmd = { };
	union nvme_result res;
	int ret;

	cmd.features.opcode = nvme_admin_set_features;
	cmd.features.nsid = cpu_to_le32(nsid);
	cmd.features.fid = cpu_to_le32(fid);
	cmd.features.dword11 = cpu_to_le32(dword11);
	ret = rblk_submit_sync(ctrl, 0, &cmd, NULL, 0, &res, false);
	if (!ret && result)
		*result = le32_to_cpu(res.u32);
	return ret;
}

int rblk_set_features(struct rblk_ctrl *ctrl, u8 fid, u32 dword11, u32 *result)
{
	return rblk_set_features_ns(ctrl, fid, 0, dword11, result);
}

/* Get Log Page with RAE clear: reading an event's page clears it. */
int rblk_get_log_page(struct rblk_ctrl *ctrl, u8 lid, void *buf,
		      unsigned int len)
{
	struct nvme_command cmd = { };
	u32 numd = len / sizeof(u32) - 1;

	cmd.get_log_page.opcode = nvme_admin_get_log_page;
	cmd.get_log_page.nsid = cpu_to_le32(NVME_NSID_ALL);
	cmd.get_log_page.lid = lid;
	cmd.get_log_page.numdl = cpu_to_le16(numd & 0xffff);
	cmd.get_log_page.numdu = cpu_to_le16(numd >> 16);
	return rblk_submit_sync(ctrl, 0, &cmd, buf, len, NULL, false);
}

void rblk_ka_start(struct rblk_ctrl *ctrl)
{
	if (ctrl->kato)
		mod_delayed_work(rblk_wq, &ctrl->ka_work, ctrl->kato * HZ / 2);
}

void rblk_ka_stop(struct rblk_ctrl *ctrl)
{
	cancel_delayed_work_sync(&ctrl->ka_work);
}

/*
 * Live, or being deleted over a still working association: the target
 * must not drop it while del_gendisk() writes back and CC.SHN is sent.
 */
static bool rblk_ka_wanted(struct rblk_ctrl *ctrl)
{
	enum rblk_ctrl_state st = rblk_ctrl_state(ctrl);

	return (st == RBLK_CTRL_LIVE || st == RBLK_CTRL_DELETING) &&
	       rblk_rdma_queue_live(rblk_admin_queue(ctrl));
}

static enum rq_end_io_ret rblk_ka_end_io(struct request *rq, blk_status_t sts)
{
	struct rblk_ctrl *ctrl = rq->end_io_data;

	if (sts != BLK_STS_OK || rblk_req(rq)->status) {
		dev_err(ctrl->dev, "keep-alive failed (status %#x)\n",
			rblk_req(rq)->status);
		rblk_ctrl_error(ctrl);
	} else if (rblk_ka_wanted(ctrl)) {
		queue_delayed_work(rblk_wq, &ctrl->ka_work,
				   ctrl->kato * HZ / 2);
	}
	return RQ_END_IO_FREE;
}

static void rblk_ka_work(struct work_struct *work)
{
	struct rblk_ctrl *ctrl = container_of(to_delayed_work(work),
					      struct rblk_ctrl, ka_work);
	struct request *rq;

	if (!rblk_ka_wanted(ctrl))
		return;
	/* A reserved tag: a full admin queue cannot starve keep-alive. */
	rq = blk_mq_alloc_request(ctrl->admin_q, REQ_OP_DRV_OUT,
				  BLK_MQ_REQ_RESERVED | BLK_MQ_REQ_NOWAIT);
	if (IS_ERR(rq)) {
		dev_err(ctrl->dev, "no tag for keep-alive: %ld\n", PTR_ERR(rq));
		rblk_ctrl_error(ctrl);
		return;
	}
	memset(&rblk_req(rq)->cmd, 0, sizeof(struct nvme_command));
	rblk_req(rq)->cmd.common.opcode = nvme_admin_keep_alive;
	rblk_req(rq)->status = 0;
	rq->timeout = ctrl->kato * HZ;
	rq->end_io = rblk_ka_end_io;
	rq->end_io_data = ctrl;
	blk_execute_rq_nowait(rq, false);
}

void rblk_ka_init(struct rblk_ctrl *ctrl)
{
	INIT_DELAYED_WORK(&ctrl->ka_work, rblk_ka_work);
}
