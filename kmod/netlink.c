// SPDX-License-Identifier: GPL-2.0
/*
 * rblk: generic netlink family "rblk" - the control plane.
 *
 * Every request is validated strictly: each command has its own policy, so
 * an attribute a command does not take is rejected, and a missing or
 * malformed one gets an errno plus an extack message naming it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cpumask.h>
#include <linux/inet.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>

#include "compat.h"
#include "rblk.h"

enum rblk_nl_mcgrp {
	RBLK_NL_MCGRP_EVENTS,
};

static struct genl_family rblk_family;

static const struct nla_policy rblk_connect_policy[RBLK_ATTR_MAX + 1] = {
	[RBLK_ATTR_TRANSPORT]	= { .type = NLA_NUL_STRING,
				    .len = RBLK_TRANSPORT_MAX },
	[RBLK_ATTR_TRADDR]	= { .type = NLA_NUL_STRING,
				    .len = RBLK_TRADDR_MAX },
	[RBLK_ATTR_TRSVCID]	= NLA_POLICY_MIN(NLA_U16, 1),
	[RBLK_ATTR_SUBNQN]	= { .type = NLA_NUL_STRING,
				    .len = RBLK_NQN_MAX },
	[RBLK_ATTR_HOSTNQN]	= { .type = NLA_NUL_STRING,
				    .len = RBLK_NQN_MAX },
	[RBLK_ATTR_HOSTID]	= NLA_POLICY_EXACT_LEN(RBLK_HOSTID_LEN),
	[RBLK_ATTR_NR_IO_QUEUES] = NLA_POLICY_RANGE(NLA_U32, 1,
						    RBLK_NR_IO_QUEUES_MAX),
	[RBLK_ATTR_QUEUE_SIZE]	= NLA_POLICY_RANGE(NLA_U32, RBLK_QUEUE_SIZE_MIN,
						   RBLK_QUEUE_SIZE_MAX),
	[RBLK_ATTR_KATO]	= NLA_POLICY_MAX(NLA_U32, RBLK_KATO_MAX),
	[RBLK_ATTR_RECONNECT_DELAY] = NLA_POLICY_RANGE(NLA_U32, 1,
						       RBLK_RECONNECT_DELAY_MAX),
	[RBLK_ATTR_CTRL_LOSS_TMO] = { .type = NLA_S32 },
	[RBLK_ATTR_FAST_IO_FAIL_TMO] = { .type = NLA_S32 },
	[RBLK_ATTR_DUPLICATE_CONNECT] = { .type = NLA_FLAG },
	[RBLK_ATTR_HOST_TRADDR]	= { .type = NLA_NUL_STRING,
				    .len = RBLK_TRADDR_MAX },
	/* u8 is nvme-fabrics' 0..255; it clamps larger values, we never see them */
	[RBLK_ATTR_TOS]		= { .type = NLA_U8 },
	[RBLK_ATTR_NR_WRITE_QUEUES] = NLA_POLICY_MAX(NLA_U32,
						     RBLK_NR_IO_QUEUES_MAX),
	[RBLK_ATTR_NR_POLL_QUEUES] = NLA_POLICY_MAX(NLA_U32,
						    RBLK_NR_IO_QUEUES_MAX),
	[RBLK_ATTR_DISCOVERY]	= { .type = NLA_FLAG },
	[RBLK_ATTR_DHCHAP_SECRET] = { .type = NLA_NUL_STRING,
				      .len = RBLK_DHCHAP_SECRET_MAX },
	[RBLK_ATTR_DHCHAP_CTRL_SECRET] = { .type = NLA_NUL_STRING,
					   .len = RBLK_DHCHAP_SECRET_MAX },
};

/* Commands that name one controller (or, for disconnect, a subsystem). */
static const struct nla_policy rblk_select_policy[RBLK_ATTR_MAX + 1] = {
	[RBLK_ATTR_CTRL_ID]	= { .type = NLA_U32 },
	[RBLK_ATTR_CTRL_NAME]	= { .type = NLA_NUL_STRING,
				    .len = RBLK_CTRL_NAME_MAX },
	[RBLK_ATTR_SUBNQN]	= { .type = NLA_NUL_STRING,
				    .len = RBLK_NQN_MAX },
};

/* GET_CTRL: one controller, or with a dump every one; secrets for root. */
static const struct nla_policy rblk_get_ctrl_policy[RBLK_ATTR_MAX + 1] = {
	[RBLK_ATTR_CTRL_ID]	= { .type = NLA_U32 },
	[RBLK_ATTR_CTRL_NAME]	= { .type = NLA_NUL_STRING,
				    .len = RBLK_CTRL_NAME_MAX },
	[RBLK_ATTR_SUBNQN]	= { .type = NLA_NUL_STRING,
				    .len = RBLK_NQN_MAX },
	[RBLK_ATTR_WITH_SECRETS] = { .type = NLA_FLAG },
};

/* SET_IOPOLICY: a subsystem by NQN (and host NQN) or by one controller. */
static const struct nla_policy rblk_iopolicy_policy[RBLK_ATTR_MAX + 1] = {
	[RBLK_ATTR_CTRL_ID]	= { .type = NLA_U32 },
	[RBLK_ATTR_CTRL_NAME]	= { .type = NLA_NUL_STRING,
				    .len = RBLK_CTRL_NAME_MAX },
	[RBLK_ATTR_SUBNQN]	= { .type = NLA_NUL_STRING,
				    .len = RBLK_NQN_MAX },
	[RBLK_ATTR_HOSTNQN]	= { .type = NLA_NUL_STRING,
				    .len = RBLK_NQN_MAX },
	[RBLK_ATTR_IOPOLICY]	= NLA_POLICY_MAX(NLA_U8, __RBLK_IOPOLICY_MAX - 1),
};

/*
 * NL_SET_ERR_MSG_ATTR() for a message chosen by the caller. @errmsg must
 * be a string literal: the extack keeps the pointer, not a copy.
 */
static void rblk_nl_set_err(struct netlink_ext_ack *extack,
			    const struct nlattr *attr, const char *errmsg)
{
	if (!extack)
		return;
	extack->_msg = errmsg;
	if (attr)
		extack->bad_attr = attr;
}

/*
 * NQNs are free-form, as the kernel's nvme-fabrics takes them: nvmet and
 * blktests name subsystems "blktests-subsystem-1". The policy bounds the
 * length (RBLK_NQN_MAX, what the Connect data holds before its NUL); an
 * empty one is the only other thing refused.
 */
static int rblk_nl_parse_nqn(struct genl_info *info, int type, char *dst,
			     size_t size, const char *errmsg)
{
	struct nlattr *attr = info->attrs[type];
	const char *nqn = nla_data(attr);

	if (!nqn[0]) {
		rblk_nl_set_err(info->extack, attr, errmsg);
		return -EINVAL;
	}
	strscpy(dst, nqn, size);
	return 0;
}

static int rblk_nl_require(struct genl_info *info, int type,
			   const char *errmsg)
{
	if (info->attrs[type])
		return 0;
	rblk_nl_set_err(info->extack, NULL, errmsg);
	NL_SET_ERR_ATTR_MISS(info->extack, NULL, type);
	return -EINVAL;
}

/*
 * The source address rdma_resolve_addr() binds to, as nvme-rdma's
 * host_traddr: an address literal of the target's family. Whether it is
 * one of ours is found out when the queue binds to it.
 */
static int rblk_nl_parse_host_traddr(struct genl_info *info,
				     struct rblk_ctrl_opts *opts)
{
	struct nlattr *attr = info->attrs[RBLK_ATTR_HOST_TRADDR];

	if (!attr)
		return 0;
	nla_strscpy(opts->host_traddr, attr, sizeof(opts->host_traddr));
	if (inet_pton_with_scope(&init_net, AF_UNSPEC, opts->host_traddr, NULL,
				 &opts->src_addr)) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "host_traddr is not an IPv4 or IPv6 address");
		return -EINVAL;
	}
	if (opts->src_addr.ss_family != opts->addr.ss_family) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "host_traddr and traddr are of different address families");
		return -EINVAL;
	}
	return 0;
}

/*
 * A DH-HMAC-CHAP secret into @dst, checked as nvme-auth reads it (format,
 * key length, CRC) so that a bad one is refused here, with the reason.
 */
static int rblk_nl_parse_secret(struct genl_info *info, int type, char *dst,
				size_t size)
{
	struct nlattr *attr = info->attrs[type];
	int ret;

	if (!attr)
		return 0;
	nla_strscpy(dst, attr, size);
	ret = rblk_auth_check_secret(dst);
	if (!ret)
		return 0;
	memzero_explicit(dst, size);
	if (ret == -EOPNOTSUPP) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "DH-HMAC-CHAP needs a kernel with nvme-auth (CONFIG_NVME_AUTH), which this one lacks");
		return ret;
	}
	NL_SET_ERR_MSG_ATTR(info->extack, attr,
			    "not a DH-HMAC-CHAP secret: want DHHC-1:<hash 00-03>:<base64 of a 32, 48 or 64-byte key and its CRC-32>:");
	return ret == -ENOMEM ? ret : -EINVAL;
}

static int rblk_nl_parse_secrets(struct genl_info *info,
				 struct rblk_ctrl_opts *opts)
{
	int ret;

	if (info->attrs[RBLK_ATTR_DHCHAP_CTRL_SECRET] &&
	    !info->attrs[RBLK_ATTR_DHCHAP_SECRET]) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[RBLK_ATTR_DHCHAP_CTRL_SECRET],
				    "dhchap_ctrl_secret needs dhchap_secret: the controller is checked only in a bidirectional exchange");
		return -EINVAL;
	}
	ret = rblk_nl_parse_secret(info, RBLK_ATTR_DHCHAP_SECRET,
				   opts->dhchap_secret,
				   sizeof(opts->dhchap_secret));
	if (ret)
		return ret;
	return rblk_nl_parse_secret(info, RBLK_ATTR_DHCHAP_CTRL_SECRET,
				    opts->dhchap_ctrl_secret,
				    sizeof(opts->dhchap_ctrl_secret));
}

static int rblk_nl_parse_connect(struct genl_info *info,
				 struct rblk_ctrl_opts *opts)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **tb = info->attrs;
	const char *transport;
	char port[8];
	int ret;

	ret = rblk_nl_require(info, RBLK_ATTR_TRANSPORT,
			      "missing required attribute: transport") ?:
	      rblk_nl_require(info, RBLK_ATTR_TRADDR,
			      "missing required attribute: traddr") ?:
	      rblk_nl_require(info, RBLK_ATTR_SUBNQN,
			      "missing required attribute: subnqn");
	if (ret)
		return ret;

	transport = nla_data(tb[RBLK_ATTR_TRANSPORT]);
	if (strcmp(transport, "rdma")) {
		NL_SET_ERR_MSG_ATTR(extack, tb[RBLK_ATTR_TRANSPORT],
				    "unsupported transport (rblk supports: rdma)");
		return -EPROTONOSUPPORT;
	}

	nla_strscpy(opts->traddr, tb[RBLK_ATTR_TRADDR], sizeof(opts->traddr));
	opts->trsvcid = tb[RBLK_ATTR_TRSVCID] ?
			nla_get_u16(tb[RBLK_ATTR_TRSVCID]) :
			RBLK_DEFAULT_TRSVCID;
	snprintf(port, sizeof(port), "%u", opts->trsvcid);
	if (inet_pton_with_scope(&init_net, AF_UNSPEC, opts->traddr, port,
				 &opts->addr)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[RBLK_ATTR_TRADDR],
				    "traddr is not an IPv4 or IPv6 address");
		return -EINVAL;
	}

	ret = rblk_nl_parse_host_traddr(info, opts);
	if (ret)
		return ret;
	opts->tos = tb[RBLK_ATTR_TOS] ? nla_get_u8(tb[RBLK_ATTR_TOS]) : -1;

	ret = rblk_nl_parse_nqn(info, RBLK_ATTR_SUBNQN, opts->subnqn,
				sizeof(opts->subnqn),
				"subnqn is empty");
	if (ret)
		return ret;
	/* An absent hostnqn or hostid leaves the module's own default. */
	if (tb[RBLK_ATTR_HOSTNQN]) {
		ret = rblk_nl_parse_nqn(info, RBLK_ATTR_HOSTNQN, opts->hostnqn,
					sizeof(opts->hostnqn),
					"hostnqn is empty");
		if (ret)
			return ret;
	}
	if (tb[RBLK_ATTR_HOSTID])
		import_uuid(&opts->hostid, nla_data(tb[RBLK_ATTR_HOSTID]));

	opts->nr_io_queues = tb[RBLK_ATTR_NR_IO_QUEUES] ?
			     nla_get_u32(tb[RBLK_ATTR_NR_IO_QUEUES]) :
			     min_t(u32, num_online_cpus(),
				   RBLK_NR_IO_QUEUES_MAX);
	if (tb[RBLK_ATTR_NR_WRITE_QUEUES])
		opts->nr_write_queues = nla_get_u32(tb[RBLK_ATTR_NR_WRITE_QUEUES]);
	if (tb[RBLK_ATTR_NR_POLL_QUEUES])
		opts->nr_poll_queues = nla_get_u32(tb[RBLK_ATTR_NR_POLL_QUEUES]);
	opts->queue_size = tb[RBLK_ATTR_QUEUE_SIZE] ?
			   nla_get_u32(tb[RBLK_ATTR_QUEUE_SIZE]) :
			   RBLK_DEFAULT_QUEUE_SIZE;
	opts->kato = tb[RBLK_ATTR_KATO] ? nla_get_u32(tb[RBLK_ATTR_KATO]) :
		     RBLK_DEFAULT_KATO;
	opts->reconnect_delay = tb[RBLK_ATTR_RECONNECT_DELAY] ?
				nla_get_u32(tb[RBLK_ATTR_RECONNECT_DELAY]) :
				RBLK_DEFAULT_RECONNECT_DELAY;
	opts->ctrl_loss_tmo = tb[RBLK_ATTR_CTRL_LOSS_TMO] ?
			      nla_get_s32(tb[RBLK_ATTR_CTRL_LOSS_TMO]) :
			      RBLK_DEFAULT_CTRL_LOSS_TMO;
	opts->fast_io_fail_tmo = tb[RBLK_ATTR_FAST_IO_FAIL_TMO] ?
				 nla_get_s32(tb[RBLK_ATTR_FAST_IO_FAIL_TMO]) :
				 RBLK_DEFAULT_FAST_IO_FAIL_TMO;
	opts->duplicate_connect = nla_get_flag(tb[RBLK_ATTR_DUPLICATE_CONNECT]);

	/*
	 * As nvme-fabrics: a discovery controller gets no I/O queues (asked
	 * for or not), may be connected any number of times (each `discover`
	 * makes its own), and keeps no keep-alive unless asked to.
	 */
	opts->discovery = nla_get_flag(tb[RBLK_ATTR_DISCOVERY]) ||
			  !strcmp(opts->subnqn, RBLK_DISC_SUBNQN);
	if (opts->discovery) {
		opts->nr_io_queues = 0;
		opts->nr_write_queues = 0;
		opts->nr_poll_queues = 0;
		opts->duplicate_connect = true;
		if (!tb[RBLK_ATTR_KATO])
			opts->kato = 0;
	}

	/* Reconnecting more slowly than the loss timeout never reconnects. */
	if (opts->ctrl_loss_tmo >= 0 &&
	    opts->reconnect_delay > (u32)opts->ctrl_loss_tmo) {
		NL_SET_ERR_MSG_ATTR(extack, tb[RBLK_ATTR_RECONNECT_DELAY],
				    "reconnect_delay exceeds ctrl_loss_tmo");
		return -EINVAL;
	}
	return rblk_nl_parse_secrets(info, opts);
}

/*
 * Most namespace entries that a GET_CTRL doit or CONNECT reply carries:
 * what fits in about 32 KiB, the largest message a dump sends. More would
 * ask for a high-order allocation, and a reader with a fixed buffer could
 * not take it; the dump has them all (uapi: RBLK_ATTR_NR_NAMESPACES).
 */
#define RBLK_NL_NS_ENTRY_MAX	(8 * NLA_HDRLEN + 2 * DISK_NAME_LEN + 40)
#define RBLK_NL_REPLY_MAX	(SKB_WITH_OVERHEAD(32768) - NLMSG_HDRLEN - \
				 GENL_HDRLEN)

/* A controller's namespaces, by NSID: where a dump resumes is an NSID. */
struct rblk_nl_ns {
	struct rblk_ns_info	*ns;
	int			nr;
};

static int rblk_nl_ns_cmp(const void *a, const void *b)
{
	const struct rblk_ns_info *x = a, *y = b;

	return x->nsid < y->nsid ? -1 : x->nsid > y->nsid;
}

static int rblk_nl_get_ns(struct rblk_ctrl *ctrl, struct rblk_nl_ns *set)
{
	int nr;

	set->ns = NULL;
	set->nr = 0;
	nr = rblk_ctrl_get_namespaces(ctrl, NULL, 0);
	if (nr <= 0)
		return 0;
	/* 1024 of them (nvmet's most) are 90 KiB: not a high-order kmalloc. */
	set->ns = kvcalloc(nr, sizeof(*set->ns), GFP_KERNEL);
	if (!set->ns)
		return -ENOMEM;
	/* The set may have shrunk (never grown past nr) in between. */
	set->nr = min(nr, rblk_ctrl_get_namespaces(ctrl, set->ns, nr));
	sort(set->ns, set->nr, sizeof(*set->ns), rblk_nl_ns_cmp, NULL);
	return 0;
}

static int rblk_nl_put_ns(struct sk_buff *msg, const struct rblk_ns_info *ns)
{
	if (nla_put_u32(msg, RBLK_NS_ATTR_NSID, ns->nsid) ||
	    nla_put_string(msg, RBLK_NS_ATTR_DISK, ns->disk_name) ||
	    nla_put_u64_64bit(msg, RBLK_NS_ATTR_SIZE_BYTES, ns->size_bytes,
			      RBLK_NS_ATTR_PAD) ||
	    nla_put_u32(msg, RBLK_NS_ATTR_LBA_SIZE, ns->lba_size))
		return -EMSGSIZE;
	if (ns->path_disk_name[0] &&
	    nla_put_string(msg, RBLK_NS_ATTR_PATH_DISK, ns->path_disk_name))
		return -EMSGSIZE;
	if (ns->has_ana &&
	    (nla_put_u8(msg, RBLK_NS_ATTR_ANA_STATE, ns->ana_state) ||
	     nla_put_u32(msg, RBLK_NS_ATTR_ANAGRPID, ns->anagrpid)))
		return -EMSGSIZE;
	return 0;
}

/*
 * As many namespaces of @set from index *@pos on as fit in @msg (none
 * may); *@pos moves past them. No RBLK_ATTR_NAMESPACES when none went in.
 */
static void rblk_nl_put_namespaces(struct sk_buff *msg,
				   const struct rblk_nl_ns *set, int *pos)
{
	struct nlattr *list, *entry;
	int i = *pos;

	if (i >= set->nr)
		return;
	list = nla_nest_start(msg, RBLK_ATTR_NAMESPACES);
	if (!list)
		return;
	for (; i < set->nr; i++) {
		entry = nla_nest_start(msg, RBLK_NS_ATTR_ENTRY);
		if (!entry)
			break;
		if (rblk_nl_put_ns(msg, &set->ns[i])) {
			nla_nest_cancel(msg, entry);
			break;
		}
		nla_nest_end(msg, entry);
	}
	if (i == *pos) {
		nla_nest_cancel(msg, list);
		return;
	}
	nla_nest_end(msg, list);
	*pos = i;
}

static int rblk_nl_put_times(struct sk_buff *msg,
			     const struct rblk_ctrl_info *info)
{
	if (nla_put_u64_64bit(msg, RBLK_ATTR_STATE_SINCE_MS,
			      info->state_since_ms, RBLK_ATTR_PAD))
		return -EMSGSIZE;
	if (info->next_reconnect_ms &&
	    nla_put_u64_64bit(msg, RBLK_ATTR_NEXT_RECONNECT_MS,
			      info->next_reconnect_ms, RBLK_ATTR_PAD))
		return -EMSGSIZE;
	if (info->loss_deadline_ms &&
	    nla_put_u64_64bit(msg, RBLK_ATTR_LOSS_DEADLINE_MS,
			      info->loss_deadline_ms, RBLK_ATTR_PAD))
		return -EMSGSIZE;
	return 0;
}

/* Which secrets @opts holds, and with @secrets their values. */
static int rblk_nl_put_dhchap(struct sk_buff *msg,
			      const struct rblk_ctrl_opts *opts, bool secrets)
{
	if (!opts->dhchap_secret[0])
		return 0;
	if (nla_put_u8(msg, RBLK_ATTR_DHCHAP, opts->dhchap_ctrl_secret[0] ?
		       RBLK_DHCHAP_BIDIRECTIONAL : RBLK_DHCHAP_HOST))
		return -EMSGSIZE;
	if (!secrets)
		return 0;
	if (nla_put_string(msg, RBLK_ATTR_DHCHAP_SECRET, opts->dhchap_secret) ||
	    (opts->dhchap_ctrl_secret[0] &&
	     nla_put_string(msg, RBLK_ATTR_DHCHAP_CTRL_SECRET,
			    opts->dhchap_ctrl_secret)))
		return -EMSGSIZE;
	return 0;
}

static int rblk_nl_put_ctrl_attrs(struct sk_buff *msg, struct rblk_ctrl *ctrl,
				  bool secrets)
{
	const struct rblk_ctrl_opts *opts = rblk_ctrl_opts(ctrl);
	struct rblk_ctrl_info info;

	rblk_ctrl_get_info(ctrl, &info);
	if (nla_put_u32(msg, RBLK_ATTR_CTRL_ID, info.id) ||
	    nla_put_string(msg, RBLK_ATTR_CTRL_NAME, info.name) ||
	    nla_put_u8(msg, RBLK_ATTR_STATE, info.state) ||
	    nla_put_string(msg, RBLK_ATTR_TRANSPORT, "rdma") ||
	    nla_put_string(msg, RBLK_ATTR_TRADDR, opts->traddr) ||
	    nla_put_u16(msg, RBLK_ATTR_TRSVCID, opts->trsvcid) ||
	    nla_put_string(msg, RBLK_ATTR_SUBNQN, opts->subnqn) ||
	    nla_put_string(msg, RBLK_ATTR_HOSTNQN, opts->hostnqn) ||
	    nla_put(msg, RBLK_ATTR_HOSTID, RBLK_HOSTID_LEN, &opts->hostid) ||
	    nla_put_u32(msg, RBLK_ATTR_NR_IO_QUEUES, info.nr_io_queues) ||
	    nla_put_u32(msg, RBLK_ATTR_NR_WRITE_QUEUES, info.nr_write_queues) ||
	    nla_put_u32(msg, RBLK_ATTR_NR_POLL_QUEUES, info.nr_poll_queues) ||
	    nla_put_u32(msg, RBLK_ATTR_QUEUE_SIZE, info.queue_size) ||
	    nla_put_u32(msg, RBLK_ATTR_KATO, opts->kato) ||
	    nla_put_u32(msg, RBLK_ATTR_RECONNECT_DELAY, opts->reconnect_delay) ||
	    nla_put_s32(msg, RBLK_ATTR_CTRL_LOSS_TMO, opts->ctrl_loss_tmo) ||
	    nla_put_s32(msg, RBLK_ATTR_FAST_IO_FAIL_TMO,
			opts->fast_io_fail_tmo) ||
	    nla_put_u16(msg, RBLK_ATTR_CNTLID, info.cntlid) ||
	    nla_put_string(msg, RBLK_ATTR_MODEL, info.model) ||
	    nla_put_string(msg, RBLK_ATTR_SERIAL, info.serial) ||
	    nla_put_string(msg, RBLK_ATTR_FIRMWARE, info.firmware))
		return -EMSGSIZE;
	if (opts->host_traddr[0] &&
	    nla_put_string(msg, RBLK_ATTR_HOST_TRADDR, opts->host_traddr))
		return -EMSGSIZE;
	if (opts->tos >= 0 && nla_put_u8(msg, RBLK_ATTR_TOS, opts->tos))
		return -EMSGSIZE;
	if (opts->discovery && nla_put_flag(msg, RBLK_ATTR_DISCOVERY))
		return -EMSGSIZE;
	if (rblk_nl_put_dhchap(msg, opts, secrets))
		return -EMSGSIZE;
	if (info.has_subsys &&
	    (nla_put_u32(msg, RBLK_ATTR_SUBSYS_ID, info.subsys_id) ||
	     nla_put_u8(msg, RBLK_ATTR_IOPOLICY, info.iopolicy) ||
	     (info.multipath && nla_put_flag(msg, RBLK_ATTR_MULTIPATH))))
		return -EMSGSIZE;
	if (info.anatt && nla_put_u8(msg, RBLK_ATTR_ANATT, info.anatt))
		return -EMSGSIZE;
	/* What was asked for: a smaller grant must not become the request. */
	if (nla_put_u32(msg, RBLK_ATTR_REQ_NR_IO_QUEUES, opts->nr_io_queues) ||
	    nla_put_u32(msg, RBLK_ATTR_REQ_NR_WRITE_QUEUES,
			opts->nr_write_queues) ||
	    nla_put_u32(msg, RBLK_ATTR_REQ_NR_POLL_QUEUES,
			opts->nr_poll_queues) ||
	    nla_put_u32(msg, RBLK_ATTR_REQ_QUEUE_SIZE, opts->queue_size))
		return -EMSGSIZE;
	return rblk_nl_put_times(msg, &info) ?:
	       rblk_stats_nl_put(msg, ctrl);
}

/*
 * One message of controller @ctrl: all its attributes (with @secrets its
 * DH-HMAC-CHAP secrets too), or with @cont only CTRL_ID, CTRL_NAME and
 * NS_CONTINUED (uapi: RBLK_ATTR_NS_CONTINUED); then
 * as many of @set's namespaces from *@pos on as fit. -EMSGSIZE, and @msg
 * as it was, when a continuation would carry no namespace or the
 * attributes do not fit.
 */
static int rblk_nl_fill_ctrl(struct sk_buff *msg, struct rblk_ctrl *ctrl,
			     const struct rblk_nl_ns *set, int *pos, bool cont,
			     bool secrets, u32 portid, u32 seq, int flags,
			     u8 cmd)
{
	int from = *pos, ret;
	void *hdr;

	hdr = genlmsg_put(msg, portid, seq, &rblk_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (cont) {
		struct rblk_ctrl_info info;

		rblk_ctrl_get_info(ctrl, &info);
		ret = nla_put_u32(msg, RBLK_ATTR_CTRL_ID, info.id) ||
		      nla_put_string(msg, RBLK_ATTR_CTRL_NAME, info.name) ||
		      nla_put_flag(msg, RBLK_ATTR_NS_CONTINUED) ? -EMSGSIZE : 0;
	} else {
		ret = rblk_nl_put_ctrl_attrs(msg, ctrl, secrets) ?:
		      nla_put_u32(msg, RBLK_ATTR_NR_NAMESPACES, set->nr);
	}
	if (!ret) {
		rblk_nl_put_namespaces(msg, set, pos);
		if (cont && *pos == from)
			ret = -EMSGSIZE;
	}
	if (ret) {
		genlmsg_cancel(msg, hdr);
		return ret;
	}
	genlmsg_end(msg, hdr);
	return 0;
}

static int rblk_nl_reply_ctrl(struct genl_info *info, struct rblk_ctrl *ctrl,
			      bool secrets, u8 cmd)
{
	struct rblk_nl_ns set;
	struct sk_buff *msg;
	size_t size;
	int pos = 0, ret;

	ret = rblk_nl_get_ns(ctrl, &set);
	if (ret)
		return ret;
	size = min_t(size_t, RBLK_NL_REPLY_MAX,
		     NLMSG_GOODSIZE + (size_t)set.nr * RBLK_NL_NS_ENTRY_MAX);
	msg = genlmsg_new(size, GFP_KERNEL);
	if (!msg) {
		ret = -ENOMEM;
		goto out;
	}
	ret = rblk_nl_fill_ctrl(msg, ctrl, &set, &pos, false, secrets,
				info->snd_portid, info->snd_seq, 0, cmd);
	if (ret) {
		nlmsg_free(msg);
		goto out;
	}
	ret = genlmsg_reply(msg, info);
out:
	kvfree(set.ns);
	return ret;
}

/*
 * What changes controllers needs CAP_SYS_ADMIN, as nbd's netlink family
 * asks and as nvme-fabrics' root-only /dev/nvme-fabrics amounts to: a
 * connect makes block devices of whatever a target serves (the kernel's
 * partition scan and udev's probes read it) and presents this host's NQN,
 * which targets admit hosts by; a disconnect pulls disks from under their
 * users. GENL_ADMIN_PERM (CAP_NET_ADMIN) has refused the unprivileged
 * already, before the policy: this is the reason for the rest.
 */
static int rblk_nl_sys_admin(struct sk_buff *skb, struct genl_info *info)
{
	if (netlink_capable(skb, CAP_SYS_ADMIN))
		return 0;
	NL_SET_ERR_MSG(info->extack, "needs CAP_SYS_ADMIN");
	return -EPERM;
}

static int rblk_nl_connect(struct sk_buff *skb, struct genl_info *info)
{
	struct rblk_ctrl_opts *opts;
	struct rblk_ctrl *ctrl;
	int ret;

	ret = rblk_nl_sys_admin(skb, info);
	if (ret)
		return ret;
	opts = kzalloc(sizeof(*opts), GFP_KERNEL);
	if (!opts)
		return -ENOMEM;
	ret = rblk_nl_parse_connect(info, opts);
	if (ret)
		goto out;

	ctrl = rblk_ctrl_create(opts, info->extack);
	if (IS_ERR(ctrl)) {
		ret = PTR_ERR(ctrl);
		goto out;
	}
	ret = rblk_nl_reply_ctrl(info, ctrl, false, RBLK_CMD_CONNECT);
	rblk_ctrl_put(ctrl);
out:
	kfree_sensitive(opts);	/* the secrets */
	return ret;
}

/* The controller a request names by RBLK_ATTR_CTRL_NAME or RBLK_ATTR_CTRL_ID. */
static struct rblk_ctrl *rblk_nl_get_named(struct genl_info *info)
{
	struct nlattr *name = info->attrs[RBLK_ATTR_CTRL_NAME];
	struct nlattr *id = info->attrs[RBLK_ATTR_CTRL_ID];
	struct rblk_ctrl *ctrl;

	if (name && id) {
		NL_SET_ERR_MSG_ATTR(info->extack, id,
				    "give either ctrl_name or ctrl_id, not both");
		return ERR_PTR(-EINVAL);
	}
	if (name) {
		ctrl = rblk_ctrl_get_by_name(nla_data(name));
		if (!ctrl)
			NL_SET_ERR_MSG_ATTR(info->extack, name,
					    "no controller with that name");
	} else if (id) {
		ctrl = rblk_ctrl_get_by_id(nla_get_u32(id));
		if (!ctrl)
			NL_SET_ERR_MSG_ATTR(info->extack, id,
					    "no controller with that id");
	} else {
		NL_SET_ERR_MSG(info->extack,
			       "missing required attribute: ctrl_name or ctrl_id");
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, RBLK_ATTR_CTRL_NAME);
		return ERR_PTR(-EINVAL);
	}
	return ctrl ?: ERR_PTR(-ENODEV);
}

static int rblk_nl_disconnect_nqn(struct genl_info *info)
{
	struct nlattr *attr = info->attrs[RBLK_ATTR_SUBNQN];
	struct rblk_ctrl *ctrl;
	unsigned int found = 0;
	u32 id = 0;

	while ((ctrl = rblk_ctrl_get_next(&id))) {
		if (!strcmp(rblk_ctrl_opts(ctrl)->subnqn, nla_data(attr))) {
			rblk_ctrl_delete(ctrl);
			found++;
		}
		rblk_ctrl_put(ctrl);
		id++;
	}
	if (found)
		return 0;
	NL_SET_ERR_MSG_ATTR(info->extack, attr,
			    "no controller is connected to that subnqn");
	return -ENODEV;
}

static int rblk_nl_disconnect(struct sk_buff *skb, struct genl_info *info)
{
	struct rblk_ctrl *ctrl;
	int ret;

	ret = rblk_nl_sys_admin(skb, info);
	if (ret)
		return ret;
	if (info->attrs[RBLK_ATTR_SUBNQN]) {
		if (info->attrs[RBLK_ATTR_CTRL_NAME] ||
		    info->attrs[RBLK_ATTR_CTRL_ID]) {
			NL_SET_ERR_MSG_ATTR(info->extack,
					    info->attrs[RBLK_ATTR_SUBNQN],
					    "give a controller or a subnqn, not both");
			return -EINVAL;
		}
		return rblk_nl_disconnect_nqn(info);
	}

	ctrl = rblk_nl_get_named(info);
	if (IS_ERR(ctrl))
		return PTR_ERR(ctrl);
	rblk_ctrl_delete(ctrl);
	rblk_ctrl_put(ctrl);
	return 0;
}

static int rblk_nl_set_iopolicy(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *nqn = info->attrs[RBLK_ATTR_SUBNQN];
	struct nlattr *host = info->attrs[RBLK_ATTR_HOSTNQN];
	struct rblk_ctrl *ctrl;
	const char *why = NULL;
	u8 policy;
	int ret;

	ret = rblk_nl_sys_admin(skb, info);
	if (ret)
		return ret;
	if (!info->attrs[RBLK_ATTR_IOPOLICY]) {
		NL_SET_ERR_MSG(info->extack, "missing required attribute: iopolicy");
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, RBLK_ATTR_IOPOLICY);
		return -EINVAL;
	}
	policy = nla_get_u8(info->attrs[RBLK_ATTR_IOPOLICY]);
	if (nqn) {
		if (info->attrs[RBLK_ATTR_CTRL_NAME] ||
		    info->attrs[RBLK_ATTR_CTRL_ID]) {
			NL_SET_ERR_MSG_ATTR(info->extack, nqn,
					    "give a controller or a subnqn, not both");
			return -EINVAL;
		}
		ret = rblk_subsys_set_iopolicy_nqn(nla_data(nqn),
						   host ? nla_data(host) : NULL,
						   policy, &why);
		if (ret)
			rblk_nl_set_err(info->extack, nqn, why);
		return ret;
	}
	if (host) {
		NL_SET_ERR_MSG_ATTR(info->extack, host,
				    "hostnqn selects a subsystem only with subnqn");
		return -EINVAL;
	}
	ctrl = rblk_nl_get_named(info);
	if (IS_ERR(ctrl))
		return PTR_ERR(ctrl);
	ret = rblk_ctrl_set_iopolicy(ctrl, policy, &why);
	if (ret)
		rblk_nl_set_err(info->extack, NULL, why);
	rblk_ctrl_put(ctrl);
	return ret;
}

/* GET_CTRL and GET_STATS name exactly one controller, never a subsystem. */
static struct rblk_ctrl *rblk_nl_get_one(struct genl_info *info)
{
	if (info->attrs[RBLK_ATTR_SUBNQN]) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[RBLK_ATTR_SUBNQN],
				    "subnqn selects controllers only for disconnect");
		return ERR_PTR(-EINVAL);
	}
	return rblk_nl_get_named(info);
}

/*
 * Whether GET_CTRL's @attrs ask for the secrets; -EPERM, with the reason,
 * for a sender of @skb without CAP_SYS_ADMIN.
 */
static int rblk_nl_with_secrets(struct sk_buff *skb, struct nlattr **attrs,
				struct netlink_ext_ack *extack)
{
	struct nlattr *flag = attrs ? attrs[RBLK_ATTR_WITH_SECRETS] : NULL;

	if (!flag)
		return 0;
	if (!netlink_capable(skb, CAP_SYS_ADMIN)) {
		rblk_nl_set_err(extack, flag,
				"the DH-HMAC-CHAP secrets are for root (CAP_SYS_ADMIN) only");
		return -EPERM;
	}
	return 1;
}

static int rblk_nl_get_ctrl(struct sk_buff *skb, struct genl_info *info)
{
	struct rblk_ctrl *ctrl;
	int secrets, ret;

	secrets = rblk_nl_with_secrets(skb, info->attrs, info->extack);
	if (secrets < 0)
		return secrets;
	ctrl = rblk_nl_get_one(info);
	if (IS_ERR(ctrl))
		return PTR_ERR(ctrl);
	ret = rblk_nl_reply_ctrl(info, ctrl, secrets, RBLK_CMD_GET_CTRL);
	rblk_ctrl_put(ctrl);
	return ret;
}

/*
 * Where a GET_CTRL dump resumes: the controller (its id), the NSID its
 * next message starts at (0: its first message, with all attributes), the
 * one controller asked for (its id + 1; 0: every controller), whether
 * the first round has resolved that selector, and whether the secrets
 * were asked for (and allowed).
 */
enum {
	RBLK_NL_DUMP_ID,
	RBLK_NL_DUMP_NSID,
	RBLK_NL_DUMP_ONE,
	RBLK_NL_DUMP_BEGUN,
	RBLK_NL_DUMP_SECRETS,
};

/*
 * A dump's selector is resolved in its first round, not in ->start():
 * before 6.5 what ->start() sets in extack never reaches the reader, while
 * a round's rides in NLMSG_DONE on every kernel.
 */
static int rblk_nl_dump_ctrl_select(struct netlink_callback *cb)
{
	struct nlattr **tb = rblk_genl_dump_attrs(cb);
	struct genl_info info = { .attrs = tb, .extack = cb->extack };
	struct rblk_ctrl_info cinfo;
	struct rblk_ctrl *ctrl;
	int secrets;

	cb->args[RBLK_NL_DUMP_BEGUN] = 1;
	secrets = rblk_nl_with_secrets(cb->skb, tb, cb->extack);
	if (secrets < 0)
		return secrets;
	cb->args[RBLK_NL_DUMP_SECRETS] = secrets;
	if (!tb || (!tb[RBLK_ATTR_CTRL_NAME] && !tb[RBLK_ATTR_CTRL_ID] &&
		    !tb[RBLK_ATTR_SUBNQN]))
		return 0;
	ctrl = rblk_nl_get_one(&info);
	if (IS_ERR(ctrl))
		return PTR_ERR(ctrl);
	rblk_ctrl_get_info(ctrl, &cinfo);
	rblk_ctrl_put(ctrl);
	cb->args[RBLK_NL_DUMP_ID] = cinfo.id;
	cb->args[RBLK_NL_DUMP_ONE] = cinfo.id + 1UL;
	return 0;
}

/*
 * The messages of @ctrl from NSID *@nsid on (0: from its first) that fit
 * in @skb. -EMSGSIZE when it is full, *@nsid then where the next round
 * resumes.
 */
static int rblk_nl_dump_one(struct sk_buff *skb, struct netlink_callback *cb,
			    struct rblk_ctrl *ctrl, u32 *nsid)
{
	struct rblk_nl_ns set;
	int pos = 0, ret;

	ret = rblk_nl_get_ns(ctrl, &set);
	if (ret)
		return ret;
	/* A namespace detached in between is skipped, not sent again. */
	while (pos < set.nr && set.ns[pos].nsid < *nsid)
		pos++;
	/* What was left to send was detached in between: nothing is. */
	if (*nsid && pos == set.nr)
		goto out;
	do {
		ret = rblk_nl_fill_ctrl(skb, ctrl, &set, &pos, *nsid != 0,
					cb->args[RBLK_NL_DUMP_SECRETS],
					NETLINK_CB(cb->skb).portid,
					cb->nlh->nlmsg_seq, NLM_F_MULTI,
					RBLK_CMD_GET_CTRL);
		if (ret)
			break;
		/* NSIDs are never 0: from here on, continuations. */
		*nsid = pos < set.nr ? set.ns[pos].nsid : U32_MAX;
	} while (pos < set.nr);
out:
	kvfree(set.ns);
	return ret;
}

static int rblk_nl_dump_ctrl(struct sk_buff *skb, struct netlink_callback *cb)
{
	unsigned long one;
	struct rblk_ctrl *ctrl;
	u32 id, nsid;
	int ret;

	if (!cb->args[RBLK_NL_DUMP_BEGUN]) {
		ret = rblk_nl_dump_ctrl_select(cb);
		if (ret)
			return ret;
	}
	one = cb->args[RBLK_NL_DUMP_ONE];
	id = cb->args[RBLK_NL_DUMP_ID];
	nsid = cb->args[RBLK_NL_DUMP_NSID];
	ret = 0;
	while ((ctrl = rblk_ctrl_get_next(&id))) {
		if (one && id != one - 1) {
			rblk_ctrl_put(ctrl);
			break;
		}
		ret = rblk_nl_dump_one(skb, cb, ctrl, &nsid);
		rblk_ctrl_put(ctrl);
		if (ret)
			break;
		id++;
		nsid = 0;
	}
	cb->args[RBLK_NL_DUMP_ID] = id;
	cb->args[RBLK_NL_DUMP_NSID] = nsid;
	/* A full skb ends this round; an empty one means it can never fit. */
	if (ret == -EMSGSIZE && skb->len)
		return skb->len;
	return ret ?: skb->len;
}

static int rblk_nl_get_stats(struct sk_buff *skb, struct genl_info *info)
{
	struct rblk_ctrl_info cinfo;
	struct rblk_ctrl *ctrl;
	struct sk_buff *msg;
	void *hdr;
	int ret = -EMSGSIZE;

	ctrl = rblk_nl_get_one(info);
	if (IS_ERR(ctrl))
		return PTR_ERR(ctrl);

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg) {
		ret = -ENOMEM;
		goto out_put;
	}
	hdr = genlmsg_put_reply(msg, info, &rblk_family, 0,
				RBLK_CMD_GET_STATS);
	if (!hdr)
		goto out_free;
	rblk_ctrl_get_info(ctrl, &cinfo);
	if (nla_put_u32(msg, RBLK_ATTR_CTRL_ID, cinfo.id) ||
	    nla_put_string(msg, RBLK_ATTR_CTRL_NAME, cinfo.name) ||
	    rblk_stats_nl_put(msg, ctrl))
		goto out_free;
	genlmsg_end(msg, hdr);
	rblk_ctrl_put(ctrl);
	return genlmsg_reply(msg, info);

out_free:
	nlmsg_free(msg);
out_put:
	rblk_ctrl_put(ctrl);
	return ret;
}

static const struct genl_ops rblk_nl_ops[] = {
	{
		.cmd		= RBLK_CMD_CONNECT,
		.doit		= rblk_nl_connect,
		.policy		= rblk_connect_policy,
		.maxattr	= RBLK_ATTR_MAX,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= RBLK_CMD_DISCONNECT,
		.doit		= rblk_nl_disconnect,
		.policy		= rblk_select_policy,
		.maxattr	= RBLK_ATTR_MAX,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= RBLK_CMD_GET_CTRL,
		.doit		= rblk_nl_get_ctrl,
		.dumpit		= rblk_nl_dump_ctrl,
		.policy		= rblk_get_ctrl_policy,
		.maxattr	= RBLK_ATTR_MAX,
	},
	{
		.cmd		= RBLK_CMD_GET_STATS,
		.doit		= rblk_nl_get_stats,
		.policy		= rblk_select_policy,
		.maxattr	= RBLK_ATTR_MAX,
	},
	{
		.cmd		= RBLK_CMD_SET_IOPOLICY,
		.doit		= rblk_nl_set_iopolicy,
		.policy		= rblk_iopolicy_policy,
		.maxattr	= RBLK_ATTR_MAX,
		.flags		= GENL_ADMIN_PERM,
	},
};

static const struct genl_multicast_group rblk_nl_mcgrps[] = {
	[RBLK_NL_MCGRP_EVENTS] = { .name = RBLK_GENL_MCGRP_EVENTS },
};

static struct genl_family rblk_family __ro_after_init = {
	.name		= RBLK_GENL_NAME,
	.version	= RBLK_GENL_VERSION,
	.maxattr	= RBLK_ATTR_MAX,
	.module		= THIS_MODULE,
	/* Connect sleeps for seconds: do not hold genl_mutex meanwhile. */
	.parallel_ops	= true,
	/* Every command gets strict validation: unknown attributes fail. */
	.resv_start_op	= RBLK_CMD_CONNECT,
	.ops		= rblk_nl_ops,
	.n_ops		= ARRAY_SIZE(rblk_nl_ops),
	.mcgrps		= rblk_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(rblk_nl_mcgrps),
};

/* An event message naming controller @id, @name; NULL if out of memory. */
static struct sk_buff *rblk_nl_event_new(u8 cmd, u32 id, const char *name,
					 void **hdr)
{
	struct sk_buff *msg;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_ATOMIC);
	if (!msg)
		return NULL;
	*hdr = genlmsg_put(msg, 0, 0, &rblk_family, 0, cmd);
	if (!*hdr ||
	    nla_put_u32(msg, RBLK_ATTR_CTRL_ID, id) ||
	    nla_put_string(msg, RBLK_ATTR_CTRL_NAME, name)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

static void rblk_nl_event_send(struct sk_buff *msg, void *hdr)
{
	genlmsg_end(msg, hdr);
	genlmsg_multicast(&rblk_family, msg, 0, RBLK_NL_MCGRP_EVENTS,
			  GFP_ATOMIC);
}

/* The attributes of one event kind, after the controller's. */
static int rblk_nl_put_event(struct sk_buff *msg, unsigned long kind,
			     const struct rblk_event *ev)
{
	switch (kind) {
	case RBLK_EVENT_STATE:
		return nla_put_u8(msg, RBLK_ATTR_STATE, ev->new) ?:
		       nla_put_u8(msg, RBLK_ATTR_OLD_STATE, ev->old);
	case RBLK_EVENT_AEN:
		return nla_put_u32(msg, RBLK_ATTR_AEN_RESULT, ev->aen_result);
	default:
		return nla_put_u32(msg, RBLK_ATTR_NSID, ev->nsid) ?:
		       nla_put_string(msg, RBLK_ATTR_DISK, ev->disk) ?:
		       nla_put_u8(msg, RBLK_ATTR_RESV_NOTICE, ev->resv_notice);
	}
}

/* The events' listener: any context, hence GFP_ATOMIC. */
static int rblk_nl_event(struct notifier_block *nb, unsigned long kind,
			 void *data)
{
	static const u8 cmds[] = {
		[RBLK_EVENT_STATE]	= RBLK_CMD_EVENT,
		[RBLK_EVENT_AEN]	= RBLK_CMD_AEN,
		[RBLK_EVENT_RESV]	= RBLK_CMD_RESV_NOTICE,
	};
	const struct rblk_event *ev = data;
	struct sk_buff *msg;
	void *hdr;

	if (kind >= ARRAY_SIZE(cmds))
		return NOTIFY_DONE;
	msg = rblk_nl_event_new(cmds[kind], ev->id, ev->name, &hdr);
	if (!msg)
		return NOTIFY_DONE;
	if (rblk_nl_put_event(msg, kind, ev))
		nlmsg_free(msg);
	else
		rblk_nl_event_send(msg, hdr);
	return NOTIFY_DONE;
}

static struct notifier_block rblk_nl_nb = {
	.notifier_call	= rblk_nl_event,
	/* Ahead of the uevents' listener, which queues them: sent first. */
	.priority	= 1,
};

/* Events flow only while the family is registered. */
int __init rblk_nl_init(void)
{
	int ret;

	ret = genl_register_family(&rblk_family);
	if (ret) {
		pr_err("cannot register generic netlink family: %d\n", ret);
		return ret;
	}
	ret = rblk_event_register(&rblk_nl_nb);
	if (ret)
		genl_unregister_family(&rblk_family);
	return ret;
}

void rblk_nl_exit(void)
{
	rblk_event_unregister(&rblk_nl_nb);
	genl_unregister_family(&rblk_family);
}
