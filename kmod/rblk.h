/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rblk: module-internal interface between the control plane (netlink.c,
 * main.c) and the controller core (ctrl.c and the transport below it).
 */
#ifndef _RBLK_H
#define _RBLK_H

#include <linux/blkdev.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/socket.h>
#include <linux/uuid.h>
#include <linux/nvme.h>
#include <net/netlink.h>

#include "uapi/rblk.h"

/* Validated connect parameters, filled by netlink.c, owned by the controller. */
struct rblk_ctrl_opts {
	char			traddr[RBLK_TRADDR_MAX + 1];
	u16			trsvcid;
	struct sockaddr_storage	addr;		/* traddr:trsvcid, parsed */
	char			host_traddr[RBLK_TRADDR_MAX + 1];	/* "" = any */
	struct sockaddr_storage	src_addr;	/* host_traddr parsed; family 0 = any */
	int			tos;		/* type of service, < 0 = default */
	char			subnqn[NVMF_NQN_FIELD_LEN];
	char			hostnqn[NVMF_NQN_FIELD_LEN];
	uuid_t			hostid;
	u32			nr_io_queues;	/* requested; 0 only if discovery */
	u32			nr_write_queues;/* requested, 0 = none */
	u32			nr_poll_queues;	/* requested, 0 = none */
	u32			queue_size;
	u32			kato;		/* seconds, 0 = off */
	u32			reconnect_delay;/* seconds */
	int			ctrl_loss_tmo;	/* seconds, < 0 = forever */
	int			fast_io_fail_tmo;/* seconds, < 0 = off */
	bool			duplicate_connect;
	/* An admin queue only, no namespaces: see RBLK_ATTR_DISCOVERY. */
	bool			discovery;
	/* DH-HMAC-CHAP secrets, "" = none: never shown, wiped when freed. */
	char			dhchap_secret[RBLK_DHCHAP_SECRET_MAX + 1];
	char			dhchap_ctrl_secret[RBLK_DHCHAP_SECRET_MAX + 1];
};

/*
 * Per-controller counters. One table in stats.c, indexed by this enum,
 * drives the per-cpu sum, sysfs and netlink: a new counter is an entry
 * here, one there, and its RBLK_STAT_ATTR_* in the uapi.
 */
enum rblk_stat {
	/* Counted per CPU by the data path. */
	RBLK_STAT_READS,
	RBLK_STAT_WRITES,
	RBLK_STAT_READ_BYTES,
	RBLK_STAT_WRITE_BYTES,
	RBLK_STAT_ERRORS,
	RBLK_STAT_FAILOVERS,		/* multipath: handed back to the head */
	RBLK_STAT_STARTED,		/* internal: for inflight */
	RBLK_STAT_COMPLETED,		/* internal: for inflight */
	RBLK_STAT_NR_PCPU,
	/* Counted otherwise. */
	RBLK_STAT_RECONNECTS = RBLK_STAT_NR_PCPU,
	RBLK_STAT_INFLIGHT,		/* started - completed */
	RBLK_STAT_NR,
};

struct rblk_ctrl_stats {
	u64	v[RBLK_STAT_NR];
};

/* What netlink.c reports for one namespace. */
struct rblk_ns_info {
	u32	nsid;
	char	disk_name[DISK_NAME_LEN];	/* to open: the head's, if any */
	char	path_disk_name[DISK_NAME_LEN];	/* "": not a path of a head */
	u64	size_bytes;
	u32	lba_size;
	bool	has_ana;
	u8	ana_state;			/* enum rblk_ana_state */
	u32	anagrpid;
};

/* What netlink.c reports for one controller (a consistent snapshot). */
struct rblk_ctrl_info {
	u32			id;
	char			name[RBLK_CTRL_NAME_MAX + 1];
	enum rblk_ctrl_state	state;
	u64			state_since_ms;
	u64			next_reconnect_ms;	/* 0: none scheduled */
	u64			loss_deadline_ms;	/* 0: none */
	u16			cntlid;
	u32			nr_io_queues;		/* granted: default (and read) */
	u32			nr_write_queues;	/* granted */
	u32			nr_poll_queues;		/* granted */
	u32			queue_size;		/* granted */
	char			model[41];
	char			serial[21];
	char			firmware[9];
	bool			has_subsys;		/* not a discovery controller */
	u32			subsys_id;
	bool			multipath;
	u8			iopolicy;		/* enum rblk_iopolicy */
	u8			anatt;			/* 0: no ANA */
};

struct rblk_ctrl;

/* ctrl.c: controller registry and lifecycle. */
int rblk_core_init(void);
void rblk_core_exit(void);		/* deletes every controller */

/*
 * Connects synchronously (the controller is LIVE or the call failed). The
 * opts are copied. Returns the controller with a reference held for the
 * caller (release with rblk_ctrl_put()), or an ERR_PTR with @extack set.
 */
struct rblk_ctrl *rblk_ctrl_create(const struct rblk_ctrl_opts *opts,
				   struct netlink_ext_ack *extack);
/* Synchronous delete; drops the registry's reference. */
void rblk_ctrl_delete(struct rblk_ctrl *ctrl);

/*
 * auth.c: 0 if @secret is a DH-HMAC-CHAP secret nvme-auth takes,
 * -EOPNOTSUPP on a kernel without nvme-auth, else -EINVAL (or -ENOMEM).
 */
int rblk_auth_check_secret(const char *secret);

/* Lookups take a reference; release it with rblk_ctrl_put(). */
struct rblk_ctrl *rblk_ctrl_get_by_id(u32 id);
struct rblk_ctrl *rblk_ctrl_get_by_name(const char *name);
/* Next controller with id >= *id (for dumps); updates *id. */
struct rblk_ctrl *rblk_ctrl_get_next(u32 *id);
void rblk_ctrl_put(struct rblk_ctrl *ctrl);

const struct rblk_ctrl_opts *rblk_ctrl_opts(struct rblk_ctrl *ctrl);
void rblk_ctrl_get_info(struct rblk_ctrl *ctrl, struct rblk_ctrl_info *info);

/*
 * subsys.c: the I/O policy of a subsystem, named by NQN (@hostnqn NULL:
 * any host NQN) or by one of its controllers; @why (static text) says
 * why not.
 */
int rblk_subsys_set_iopolicy_nqn(const char *subnqn, const char *hostnqn,
				 u8 policy, const char **why);
int rblk_ctrl_set_iopolicy(struct rblk_ctrl *ctrl, u8 policy,
			   const char **why);

/* stats.c */
void rblk_ctrl_get_stats(struct rblk_ctrl *ctrl, struct rblk_ctrl_stats *st);
/* The exported counters as RBLK_ATTR_STATS' nest, in table order. */
int rblk_stats_nl_put(struct sk_buff *msg, struct rblk_ctrl *ctrl);
/*
 * Copies up to @max namespaces into @ns; returns how many the controller
 * has (which may exceed @max).
 */
int rblk_ctrl_get_namespaces(struct rblk_ctrl *ctrl, struct rblk_ns_info *ns,
			     int max);

/*
 * ctrl.c: events leave the core through one atomic notifier chain, whose
 * listeners (netlink.c's messages, sysfs.c's uevents) must not sleep: a
 * state change may be raised in softirq (a CQ, a timer), an AEN in
 * aen_work. @action is the kind, @data the event.
 */
enum rblk_event_kind {
	RBLK_EVENT_STATE,		/* after every state change */
	RBLK_EVENT_AEN,			/* a discovery log change notice */
	RBLK_EVENT_RESV,		/* a reservation notice (aen_work) */
};

struct rblk_event {
	struct rblk_ctrl	*ctrl;		/* valid while listeners run */
	u32			id;
	const char		*name;
	enum rblk_ctrl_state	old;		/* RBLK_EVENT_STATE */
	enum rblk_ctrl_state	new;		/* RBLK_EVENT_STATE */
	u32			aen_result;	/* RBLK_EVENT_AEN: dword 0 */
	u32			nsid;		/* RBLK_EVENT_RESV */
	const char		*disk;		/* RBLK_EVENT_RESV: the disk to open */
	u8			resv_notice;	/* RBLK_EVENT_RESV: enum rblk_resv_notice */
};

int rblk_event_register(struct notifier_block *nb);
/* Returns once no listener of @nb runs any more. */
void rblk_event_unregister(struct notifier_block *nb);

/* netlink.c: family registration, and its listener to the events. */
int rblk_nl_init(void);
void rblk_nl_exit(void);

#endif /* _RBLK_H */
