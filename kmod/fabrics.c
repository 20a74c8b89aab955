// SPDX-License-Identifier: GPL-2.0
/*
 * rblk: the Fabrics-only commands: Connect (with the decoding of its
 * status into a user-facing reason), Property Get/Set, which stand in
 * for the register reads and writes of PCIe, and Authentication Send and
 * Receive, which carry auth.c's messages. Everything the target returns
 * is checked before it is used.
 */
#include <linux/slab.h>

#include "nvme.h"

static const char *rblk_connect_error(struct nvme_command *cmd, u16 status,
				      u32 result, int *err)
{
	u32 ipo = result & 0xffff;

	*err = -ECONNREFUSED;
	switch (status & 0x7ff) {
	case NVME_SC_CONNECT_INVALID_HOST:
		*err = -EACCES;
		return "Connect refused: host not allowed by the subsystem";
	case NVME_SC_CONNECT_CTRL_BUSY:
		*err = -EBUSY;
		return "Connect refused: controller busy";
	case NVME_SC_CONNECT_FORMAT:
		return "Connect refused: unsupported Connect format";
	case NVME_SC_CONNECT_RESTART_DISC:
		return "Connect refused: restart discovery";
	case NVME_SC_CONNECT_INVALID_PARAM:
		if (!(result & BIT(16)))
			return "Connect refused: invalid Connect command field";
		if (ipo == offsetof(struct nvmf_connect_data, subsysnqn)) {
			*err = -ENOENT;
			return "Connect refused: subsystem NQN not found on the target";
		}
		if (ipo == offsetof(struct nvmf_connect_data, hostnqn)) {
			*err = -EACCES;
			return "Connect refused: host NQN not accepted";
		}
		if (ipo == offsetof(struct nvmf_connect_data, cntlid))
			return "Connect refused: controller ID no longer valid";
		return "Connect refused: invalid Connect data";
	default:
		*err = -EIO;
		return "Connect failed";
	}
}

/* *@result: the response's dword 0, whose AUTHREQ says what auth.c must do. */
int rblk_fabrics_connect(struct rblk_ctrl *ctrl, u16 qid, u32 *result,
			 struct netlink_ext_ack *extack)
{
	struct nvme_command cmd = { };
	struct nvmf_connect_data *data;
	union nvme_result res;
	int ret, err;

	cmd.connect.opcode = nvme_fabrics_command;
	cmd.connect.fctype = nvme_fabrics_type_connect;
	cmd.connect.recfmt = 0;
	cmd.connect.qid = cpu_to_le16(qid);
	cmd.connect.sqsize = cpu_to_le16(ctrl->queues[qid].size - 1);
	if (!qid)
		cmd.connect.kato = cpu_to_le32(ctrl->kato * MSEC_PER_SEC);

	data = kzalloc(sizeof(*data), GFP_KERNEL);
	if (!data)
		return -ENOMEM;
	uuid_copy(&data->hostid, &ctrl->opts.hostid);
	data->cntlid = qid ? cpu_to_le16(ctrl->cntlid) : cpu_to_le16(0xffff);
	strscpy(data->subsysnqn, ctrl->opts.subnqn, sizeof(data->subsysnqn));
	strscpy(data->hostnqn, ctrl->opts.hostnqn, sizeof(data->hostnqn));

	ret = rblk_submit_sync(ctrl, qid, &cmd, data, sizeof(*data), &res,
			       true);
	kfree(data);
	if (ret > 0) {
		const char *msg = rblk_connect_error(&cmd, ret,
						     le32_to_cpu(res.u32), &err);

		dev_err(ctrl->dev, "qid %u: %s (status %#x)\n", qid, msg, ret);
		rblk_set_err(extack, msg);
		return err;
	}
	if (ret == -ECONNRESET) {
		NL_SET_ERR_MSG(extack, "target closed the connection during Connect");
		return ret;
	}
	if (ret < 0) {
		dev_err(ctrl->dev, "qid %u: Connect got no response: %d\n",
			qid, ret);
		NL_SET_ERR_MSG(extack, "no response to the Fabrics Connect command");
		return ret;
	}
	if (!qid)
		WRITE_ONCE(ctrl->cntlid, le16_to_cpu(res.u16));
	*result = le32_to_cpu(res.u32);
	return 0;
}

/*
 * DH-HMAC-CHAP's transport (SECP E9h, SPSP 0101h), on the queue being
 * authenticated, before it is live: 0, an errno, or the NVMe status.
 */
static void rblk_auth_cmd(struct nvme_command *cmd, u8 fctype, size_t len)
{
	cmd->auth_send.opcode = nvme_fabrics_command;
	cmd->auth_send.fctype = fctype;
	cmd->auth_send.secp = NVME_AUTH_DHCHAP_PROTOCOL_IDENTIFIER;
	cmd->auth_send.spsp0 = 0x01;
	cmd->auth_send.spsp1 = 0x01;
	/* TL of AUTH_Send and AL of AUTH_Receive share the dword. */
	cmd->auth_send.tl = cpu_to_le32(len);
}

int rblk_auth_send(struct rblk_ctrl *ctrl, u16 qid, void *data, size_t len)
{
	struct nvme_command cmd = { };

	rblk_auth_cmd(&cmd, nvme_fabrics_type_auth_send, len);
	return rblk_submit_sync(ctrl, qid, &cmd, data, len, NULL, true);
}

int rblk_auth_receive(struct rblk_ctrl *ctrl, u16 qid, void *buf, size_t len)
{
	struct nvme_command cmd = { };

	rblk_auth_cmd(&cmd, nvme_fabrics_type_auth_receive, len);
	return rblk_submit_sync(ctrl, qid, &cmd, buf, len, NULL, true);
}

int rblk_prop_get(struct rblk_ctrl *ctrl, u32 off, bool wide, u64 *val)
{
	struct nvme_command cmd = { };
	union nvme_result res;
	int ret;

	cmd.prop_get.opcode = nvme_fabrics_command;
	cmd.prop_get.fctype = nvme_fabrics_type_property_get;
	cmd.prop_get.attrib = wide;
	cmd.prop_get.offset = cpu_to_le32(off);
	ret = rblk_submit_sync(ctrl, 0, &cmd, NULL, 0, &res, false);
	if (ret)
		return ret;
	*val = wide ? le64_to_cpu(res.u64) : le32_to_cpu(res.u32);
	return 0;
}

int rblk_prop_set(struct rblk_ctrl *ctrl, u32 off, u32 val)
{
	struct nvme_command cmd = { };

	cmd.prop_set.opcode = nvme_fabrics_command;
	cmd.prop_set.fctype = nvme_fabrics_type_property_set;
	cmd.prop_set.attrib = 0;
	cmd.prop_set.offset = cpu_to_le32(off);
	cmd.prop_set.value = cpu_to_le64(val);
	return rblk_submit_sync(ctrl, 0, &cmd, NULL, 0, NULL, false);
}
