/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rblk: the core's types (controller, namespace, request) and the
 * interfaces between its files: ctrl.c (registry, state machine, delete),
 * connect.c (association, recovery), core.c and fabrics.c (commands),
 * request.c and tagset.c (blk-mq), ns.c, aen.c, stats.c, sysfs.c,
 * debugfs.c. The
 * transport (rdma.c) is reached through rdma.h only. Not part of any ABI.
 */
#ifndef _RBLK_NVME_H
#define _RBLK_NVME_H

#include <linux/bio.h>
#include <linux/blk-mq.h>
#include <linux/device.h>
#include <linux/kdev_t.h>
#include <linux/llist.h>
#include <linux/srcu.h>
#include <linux/timer.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>

#include "cid.h"
#include "compat.h"
#include "ctrl_state.h"
#include "identify.h"
#include "rblk.h"
#include "rdma.h"

#define RBLK_AQ_SIZE		NVME_AQ_DEPTH	/* admin SQ/RQ entries */
#define RBLK_ADMIN_RESERVED	3		/* Connect, keep-alive, AER */
#define RBLK_IO_RESERVED	1		/* Connect */
/* core.c: module parameters admin_timeout and io_timeout, in seconds */
extern unsigned int rblk_admin_timeout;
extern unsigned int rblk_io_timeout;
#define RBLK_ADMIN_TIMEOUT	((unsigned long)READ_ONCE(rblk_admin_timeout) * HZ)
#define RBLK_IO_TIMEOUT		((unsigned long)READ_ONCE(rblk_io_timeout) * HZ)
#define RBLK_SHUTDOWN_TIMEOUT	(5 * HZ)
#define RBLK_SC_MASK		0x7ff	/* status code type + status code */
/* Controller ids are the minors of /dev/rblkN, as nvme's are. */
#define RBLK_MAX_CTRLS		BIT(MINORBITS)

struct cdev;
struct rblk_auth;
struct rblk_ctrl;
struct rblk_ns_head;
struct pr_ops;
struct rblk_subsys;
struct rblk_qlim;
struct rblk_xlate_ns;

/* Recovery and tear-down: ctrl->flags. */
enum rblk_ctrl_flag {
	RBLK_CTRL_FAILFAST,	/* fast_io_fail_tmo expired: fail, don't wait */
	RBLK_CTRL_NS_QUIESCED,	/* namespace queues held by recovery */
	RBLK_CTRL_TORN_DOWN,	/* final tear-down began: no more aborts */
	RBLK_CTRL_RESET_NOW,	/* a user reset: reconnect without the delay */
	RBLK_CTRL_REAPING,	/* reap_work polls the poll queues */
};

/* Asynchronous events (aen.c): ctrl->aen_flags. */
enum rblk_aen_flag {
	RBLK_AEN_ARMED,		/* an AER is outstanding */
	RBLK_AEN_EVENT,		/* aen_result holds an event to handle */
	RBLK_AEN_CONFIG,	/* new association: enable the events */
	RBLK_AEN_RESV_MASK_WARNED,	/* said once: 82h refused */
	RBLK_AEN_RESV_CAPPED,	/* said once: the log never emptied */
	RBLK_AEN_RESV_UNMASK,	/* new association: unmask every ns again */
};

struct rblk_rdma_ctrl;
struct rblk_rdma_queue;

/*
 * One NVMe queue as the core sees it; its connection and state (allocated,
 * live, lost) are the transport's, asked through rdma.h. Locking: ctrl
 * and qid are set once with the queue array; the association's owner sets
 * map, and size through rblk_rdma_alloc_queue(), and they stay while the
 * queue is allocated.
 */
struct rblk_queue {
	struct rblk_ctrl	*ctrl;
	u16			qid;
	u16			size;		/* SQ entries = posted receives */
	u8			map;		/* HCTX_TYPE_* it serves; admin: 0 */
	atomic_t		nr_active;	/* commands the target holds */
	/*
	 * The transport's (rdma.h): its half of the queue, set with the
	 * array and constant, and its state (enum rblk_rdma_queue_flag,
	 * atomic bitops, written by rdma.c alone), here so that the data
	 * path tests it without a call.
	 */
	struct rblk_rdma_queue	*xprt;
	unsigned long		xprt_flags;
};

/* Started and not stopped since (rdma.h). */
static inline bool rblk_rdma_queue_live(const struct rblk_queue *queue)
{
	return test_bit(RBLK_RDMA_Q_LIVE, &queue->xprt_flags);
}

/* Allocated: connected, not yet freed; it takes its Fabrics Connect. */
static inline bool rblk_rdma_queue_allocated(const struct rblk_queue *queue)
{
	return test_bit(RBLK_RDMA_Q_ALLOCATED, &queue->xprt_flags);
}

enum rblk_req_flag {
	RBLK_REQ_CQE,		/* the CQE for this generation arrived */
	RBLK_REQ_DONE,		/* completion claimed: never complete twice */
	RBLK_REQ_MR_VALID,	/* the MR may still be accessed remotely */
	RBLK_REQ_ACTIVE,	/* holds one of queue->nr_active */
	RBLK_REQ_MPATH_CNT,	/* holds one of ctrl->nr_mpath_active */
	RBLK_REQ_MPATH_ACCT,	/* counted in its head disk's statistics */
};

/*
 * A bio the head sent down a path (multipath.c): its request fails over
 * instead of failing. REQ_DRV is the driver's own flag, as nvme's
 * REQ_NVME_MPATH.
 */
#define REQ_RBLK_MPATH		REQ_DRV

/*
 * A bio held back to be resubmitted later (the head's failover and its
 * requeue list, a controller's bios of a queue that went away) goes out
 * again from a kworker, not from its submitter: REQ_NOWAIT would then
 * end it with EAGAIN on a frozen queue or a short tag set, and io_uring
 * retries an EAGAIN only in the submitting task, so the application would
 * see the error. As nvme_failover_req() does.
 */
static inline void rblk_bio_clear_nowait(struct bio *bio)
{
	bio->bi_opf &= ~REQ_NOWAIT;
}

/*
 * Per-request driver data (blk-mq PDU). Locking: queue_rq owns it until
 * the command is posted; then the CQE handler (which wins RBLK_REQ_CQE)
 * writes status and result, and whoever wins RBLK_REQ_DONE (last
 * reference, abort or timeout) completes it; ->complete() owns it again.
 */
struct rblk_req {
	struct nvme_command	cmd;
	struct rblk_queue	*queue;
	unsigned long		flags;		/* enum rblk_req_flag, atomic */
	atomic_t		pending;	/* response (+ signaled SEND) */
	u8			gen;
	u8			retries;
	bool			in_stats;	/* stats.c's: started, not ended */
	u16			status;		/* NVMe status, DNR/MORE kept */
	union nvme_result	result;
	unsigned long		mpath_start;	/* RBLK_REQ_MPATH_ACCT: jiffies */
	/* The transport's part follows: rblk_rdma_req_size() bytes. */
};

/* Written by the CPU that owns it (get_cpu_ptr()), read by any. */
struct rblk_pcpu_stats {
	u64_stats_t		c[RBLK_STAT_NR_PCPU];	/* enum rblk_stat */
	struct u64_stats_sync	syncp;
};

/*
 * A namespace of a subsystem, over every path to it (multipath.c): the
 * disk users open, /dev/rblk<S>n<NSID>. Locking: the identity is that of
 * its first path and constant; entry and dying under rblk_subsys_lock;
 * the path list is written under it and read under srcu; current_path[]
 * is a hint written by any reader (RCU pointers).
 */
struct rblk_ns_head {
	struct kref		ref;		/* paths + the head disk */
	struct list_head	entry;		/* subsys->heads */
	struct rblk_subsys	*subsys;	/* a reference */
	u32			nsid;
	u8			lba_shift;
	u8			nguid[16];
	u8			eui64[8];
	uuid_t			uuid;
	struct gendisk		*disk;
	struct mutex		lock;		/* adding and deleting disk */
	bool			disk_added;	/* lock; lockless reads ONCE */
	bool			dying;		/* rblk_subsys_lock: last path left */
	struct work_struct	live_work;	/* adds disk once a path is usable */
	struct srcu_struct	srcu;
	struct list_head	paths;		/* rblk_ns.siblings */
	spinlock_t		requeue_lock;
	struct bio_list		requeue_list;	/* requeue_lock */
	struct work_struct	requeue_work;
	struct rblk_ns __rcu	*current_path[];	/* per NUMA node */
};

/*
 * Controllers with one subsystem NQN and host NQN (subsys.c). The head
 * disks are named after instance, the id of its first controller, which
 * the subsystem keeps until it goes. Locking: ctrls, heads and the
 * controllers' subsys_entry under rblk_subsys_lock; iopolicy ONCE.
 */
struct rblk_subsys {
	struct device		dev;		/* rblk-subsys<instance>; the ref */
	struct list_head	entry;		/* rblk_subsystems */
	u32			instance;
	char			subnqn[NVMF_NQN_FIELD_LEN];
	char			hostnqn[NVMF_NQN_FIELD_LEN];
	bool			multipath;	/* head disks; constant */
	/* Its first controller's Identify strings; constant (udev's names). */
	char			model[41];
	char			serial[21];
	char			firmware[9];
	u8			iopolicy;	/* enum rblk_iopolicy; ONCE */
	struct list_head	ctrls;
	struct list_head	heads;
};

/* ANA and the head, per path: ns->ana_flags. */
enum rblk_ns_ana_flag {
	RBLK_NS_ANA_PENDING,	/* an ANA error: the log is being read again */
	RBLK_NS_DETACHING,	/* leaving its head: never chosen again */
};

/*
 * A namespace and its disk. Locking: the identity (nsid, lba_shift, the
 * ids) is set before the disk is added and never changes (a namespace
 * that changes it is replaced); entry, added and frozen are under
 * ctrl->ns_lock; scan_entry, scan_stale, nsze and resv_unmasked belong to
 * the scan (ctrl->scan_lock; scan_stale and nsze to the one revalidation
 * of the namespace it runs).
 * With multipath the disk is this path's, hidden, under head: siblings
 * under rblk_subsys_lock (read under head->srcu); ana_state and anagrpid
 * are written by the ANA log's reader (ONCE).
 */
struct rblk_ns {
	struct list_head	entry;		/* ctrl->namespaces */
	struct list_head	scan_entry;	/* rblk_ns_scan_changed()'s lists */
	bool			scan_stale;	/* its revalidation: replace */
	struct rblk_ctrl	*ctrl;
	u32			nsid;
	struct gendisk		*disk;
	struct rblk_ns_head	*head;		/* NULL: a disk of its own */
	struct list_head	siblings;	/* head->paths */
	u8			ana_state;	/* enum rblk_ana_state; ONCE */
	u32			anagrpid;	/* ONCE */
	unsigned long		ana_flags;	/* enum rblk_ns_ana_flag */
	u8			lba_shift;
	u64			nsze;		/* in LBAs */
	u8			rescap;		/* Identify Namespace RESCAP */
	bool			resv_unmasked;	/* 82h sent this association */
	u8			nguid[16];
	u8			eui64[8];
	uuid_t			uuid;
	bool			added;
	bool			gone;		/* left the target: fail I/O; ONCE */
	bool			frozen;		/* by rblk_ns_freeze_start() */
};

/*
 * A controller. Locking, by field group:
 *  - registry: entry and visible under rblk_ctrls_lock (ctrl.c); id, name,
 *    opts, dev and cdev are set before the controller is visible and
 *    constant until its delete work unregisters them.
 *  - lock: the state with its timestamps, and the Identify strings
 *    (serial, model, firmware), which readers copy as one snapshot.
 *    rblk_ctrl_state() reads the state without it (READ_ONCE).
 *  - association: only its owner (the creator, the error, reconnect or
 *    delete work; the state machine admits one at a time) writes it.
 *    Fields other contexts read are marked ONCE: written with WRITE_ONCE,
 *    read with READ_ONCE, no lock.
 *  - flags and aen_flags are atomic bitops.
 */
struct rblk_ctrl {
	struct kref		ref;
	struct list_head	entry;		/* registry */
	bool			visible;	/* lookups see it */
	u32			id;
	char			name[RBLK_CTRL_NAME_MAX + 1];
	struct rblk_ctrl_opts	opts;
	struct rblk_auth	*auth;		/* auth.c: its keys; NULL = none */
	struct device		*dev;		/* /sys/class/rblk/rblkN, /dev/rblkN */
	struct cdev		*cdev;		/* of dev; ioctl.c */
	struct dentry		*debugfs;	/* with dev */

	unsigned long		flags;		/* enum rblk_ctrl_flag */
	spinlock_t		lock;		/* state, times, id strings */
	enum rblk_ctrl_state	state;		/* lock; lockless reads ONCE */
	unsigned long		state_since;	/* lock; jiffies */
	unsigned long		lost_at;	/* lock; jiffies: entered RESETTING */
	unsigned long		loss_deadline;	/* lock; jiffies, 0 = none */
	unsigned long		next_reconnect;	/* lock; jiffies, 0 = none */

	/* Association: rebuilt by every (re)connect. */
	struct rblk_rdma_ctrl	*rdma;		/* the transport's; with queues */
	struct rblk_queue	*queues;	/* [0] admin, [1..]; first connect */
	u32			max_queues;	/* entries in queues[] */
	u32			nr_io_queues;	/* granted, all types; ONCE */
	/*
	 * Of them, per blk-mq map (HCTX_TYPE_*; ONCE): qids 1.. are the
	 * DEFAULT ones, then READ, then POLL. READ is 0 unless write
	 * queues split reads from the rest (rblk_io_queue_types()).
	 */
	u32			io_queues[HCTX_MAX_TYPES];
	u32			queue_size;	/* I/O SQ entries; ONCE */
	u32			io_tags;	/* I/O tags per queue: fixed */

	struct blk_mq_tag_set	admin_set;
	struct blk_mq_tag_set	io_set;
	struct request_queue	*admin_q;
	struct request_queue	*connect_q;	/* I/O queue Connect only */
	bool			has_admin_set;	/* ONCE: completions look */
	bool			has_io_set;	/* ONCE */

	/* From the target; validated by fabrics.c, before LIVE. */
	u64			cap;
	u32			vs;
	u32			cc;
	u16			cntlid;		/* ONCE */
	u32			max_hw_sectors;
	u32			ioccsz;		/* bytes of command capsule */
	u32			max_cmds;	/* MAXCMD, 0 = no limit */
	u16			oncs;
	u8			vwc;
	u32			nn;
	u16			kas;		/* 100 ms units */
	u32			oaes;		/* optional async events */
	u32			kato;		/* seconds in effect */
	char			serial[21];	/* lock */
	char			model[41];	/* lock */
	char			firmware[9];	/* lock */

	struct delayed_work	ka_work;
	struct work_struct	err_work;
	struct delayed_work	reconnect_work;
	struct delayed_work	failfast_work;
	struct work_struct	abort_work;
	struct work_struct	delete_work;
	struct work_struct	scan_work;	/* namespaces after reconnect */
	/*
	 * Uevents (sysfs.c): sent by uevent_work, as the events' listener
	 * may not sleep. A set bit 0 of uevent_pending asks for the state's
	 * (the state then), aen_uevents holds the AENs' in reverse order.
	 */
	struct work_struct	uevent_work;
	unsigned long		uevent_pending;	/* atomic bit */
	struct llist_head	aen_uevents;

	/*
	 * Async events (aen.c): at most one AER is outstanding, and only its
	 * end_io and then aen_work touch these.
	 */
	struct delayed_work	aen_work;
	unsigned long		aen_flags;	/* enum rblk_aen_flag */
	u32			aen_result;	/* ONCE: dword 0 of the last event */
	u32			aen_burst;	/* events since aen_burst_start */
	unsigned long		aen_burst_start;	/* jiffies */
	/* The last Reservation Notification log page's count; 0: none yet. */
	u64			resv_log_count;

	struct delayed_work	reap_work;	/* poll queues while disks go */
	struct work_struct	requeue_work;	/* resubmits requeue_bios */
	spinlock_t		requeue_lock;	/* requeue_bios */
	struct bio_list		requeue_bios;	/* from vanished hw queues */

	/* Scans, and the creator's first scan vs. delete's removal. */
	struct mutex		scan_lock;
	/*
	 * What scan_work revalidates (ns.c): the nsids that notices named
	 * since it last started, or every namespace (changed_all; nothing
	 * named). Under changed_lock.
	 */
	spinlock_t		changed_lock;
	u32			*changed;	/* NULL: none named */
	u32			nr_changed;
	bool			changed_all;
	/* namespaces, each ns's entry/added/frozen, NS_QUIESCED changes */
	struct mutex		ns_lock;
	struct list_head	namespaces;

	struct rblk_pcpu_stats __percpu *stats;
	atomic64_t		reconnects;

	/*
	 * Multipath (subsys.c, multipath.c): subsys and the ANA fields are
	 * set by the first association's Identify and constant after.
	 */
	struct rblk_subsys	*subsys;	/* a reference; NULL: discovery */
	struct list_head	subsys_entry;	/* subsys->ctrls */
	u8			cmic;
	u8			anacap;
	u8			anatt;		/* seconds */
	u32			anagrpmax;
	u32			nanagrpid;
	struct mutex		ana_lock;	/* the log buffer, ana_grp_state */
	void			*ana_log_buf;
	size_t			ana_log_size;
	u8			*ana_grp_state;	/* [1..anagrpmax] */
	struct work_struct	ana_work;
	struct timer_list	anatt_timer;	/* a group stuck in change */
	atomic_t		nr_mpath_active;	/* queue-depth policy */
	int			numa_node;	/* the HCA's; WRITE_ONCE at setup */
};

/* @msg must be static: extack keeps the pointer. */
static inline void rblk_set_err(struct netlink_ext_ack *extack,
				const char *msg)
{
	if (extack && msg)
		extack->_msg = msg;
}

static inline struct rblk_req *rblk_req(struct request *rq)
{
	return blk_mq_rq_to_pdu(rq);
}

/* A passthrough request carries @cmd as given; queue_rq sets its cid. */
static inline void rblk_req_set_cmd(struct request *rq,
				    const struct nvme_command *cmd)
{
	struct rblk_req *req = rblk_req(rq);

	memcpy(&req->cmd, cmd, sizeof(*cmd));
	req->status = 0;
	req->result.u64 = 0;
}

/* The disk users open for @ns: its head's, when it is a path of one. */
static inline const char *rblk_ns_open_name(const struct rblk_ns *ns)
{
	return ns->head ? ns->head->disk->disk_name : ns->disk->disk_name;
}

/* A poll queue's completions are reaped, never signalled. */
static inline bool rblk_queue_polled(const struct rblk_queue *queue)
{
	return queue->qid && queue->map == HCTX_TYPE_POLL;
}

static inline struct rblk_queue *rblk_admin_queue(struct rblk_ctrl *ctrl)
{
	return &ctrl->queues[0];
}

/*
 * sqes[] is indexed by tag, and the I/O tag set keeps the depth of the
 * first association even when a reconnect is granted a smaller SQ.
 */
static inline u32 rblk_queue_nr_sqes(const struct rblk_queue *queue)
{
	return queue->qid ? max_t(u32, queue->size, queue->ctrl->io_tags) :
			    queue->size;
}

/* ctrl.c */
extern struct workqueue_struct *rblk_wq;
bool rblk_ctrl_change_state(struct rblk_ctrl *ctrl, enum rblk_ctrl_state new);
void rblk_ctrl_event_aen(struct rblk_ctrl *ctrl, u32 result);
void rblk_ctrl_event_resv(struct rblk_ctrl *ctrl, u32 nsid, const char *disk,
			  u8 notice);
/* Without ctrl->lock: a snapshot (every path choice reads it). */
static inline enum rblk_ctrl_state rblk_ctrl_state(struct rblk_ctrl *ctrl)
{
	return READ_ONCE(ctrl->state);
}

bool rblk_ctrl_deleting(struct rblk_ctrl *ctrl);
void rblk_ctrl_schedule_delete(struct rblk_ctrl *ctrl);
void rblk_ctrls_delete_on_device(struct ib_device *ibdev);

/* ioctl.c: the NVMe ioctls; the character device /dev/rblkN */
int rblk_chr_init(void);
void rblk_chr_exit(void);
int rblk_chr_add(struct rblk_ctrl *ctrl, dev_t *devt);
void rblk_chr_del(struct rblk_ctrl *ctrl);

/* debugfs.c: the queues as blk-mq maps them */
void rblk_debugfs_init(void);
void rblk_debugfs_exit(void);
void rblk_debugfs_add(struct rblk_ctrl *ctrl);
void rblk_debugfs_del(struct rblk_ctrl *ctrl);

/* sysfs.c */
int rblk_sysfs_init(void);
void rblk_sysfs_exit(void);
int rblk_sysfs_add(struct rblk_ctrl *ctrl);
void rblk_sysfs_del(struct rblk_ctrl *ctrl);
void rblk_sysfs_uevent_work(struct work_struct *work);
extern const struct attribute_group *rblk_ns_attr_groups[];

/* connect.c: an association's bring-up and tear-down; error recovery */
int rblk_ctrl_connect(struct rblk_ctrl *ctrl, bool first,
		      struct netlink_ext_ack *extack);
void rblk_ctrl_teardown(struct rblk_ctrl *ctrl, bool remove);
void rblk_ctrl_error(struct rblk_ctrl *ctrl);
void rblk_ctrl_queue_lost(struct rblk_queue *queue);
int rblk_ctrl_reset_sync(struct rblk_ctrl *ctrl);
void rblk_ctrl_init_works(struct rblk_ctrl *ctrl);
void rblk_ctrl_stop_works(struct rblk_ctrl *ctrl);
unsigned int rblk_sync_timeout(struct rblk_ctrl *ctrl);

/* core.c: base-specification admin commands */
int rblk_ctrl_enable(struct rblk_ctrl *ctrl, struct netlink_ext_ack *extack);
void rblk_ctrl_shutdown(struct rblk_ctrl *ctrl);
int rblk_identify_ctrl(struct rblk_ctrl *ctrl, struct netlink_ext_ack *extack);
int rblk_identify_ns(struct rblk_ctrl *ctrl, struct rblk_ns *ns,
		     struct nvme_id_ns *id);
int rblk_identify_active_ns(struct rblk_ctrl *ctrl, u32 start, __le32 *list);
void rblk_identify_ns_descs(struct rblk_ctrl *ctrl, struct rblk_ns *ns);
int rblk_set_features(struct rblk_ctrl *ctrl, u8 fid, u32 dword11,
		      u32 *result);
int rblk_set_features_ns(struct rblk_ctrl *ctrl, u8 fid, u32 nsid,
			 u32 dword11, u32 *result);
int rblk_set_queue_count(struct rblk_ctrl *ctrl, u32 *count);
int rblk_get_log_page(struct rblk_ctrl *ctrl, u8 lid, void *buf,
		      unsigned int len);
void rblk_ka_init(struct rblk_ctrl *ctrl);
void rblk_ka_start(struct rblk_ctrl *ctrl);
void rblk_ka_stop(struct rblk_ctrl *ctrl);

/* auth.c: DH-HMAC-CHAP (and rblk_auth_check_secret(), rblk.h) */
int rblk_auth_init(struct rblk_ctrl *ctrl);
void rblk_auth_free(struct rblk_ctrl *ctrl);
int rblk_auth_queue(struct rblk_ctrl *ctrl, u16 qid, u32 connect_result,
		    struct netlink_ext_ack *extack);

/* fabrics.c: Fabrics-only commands */
int rblk_auth_send(struct rblk_ctrl *ctrl, u16 qid, void *data, size_t len);
int rblk_auth_receive(struct rblk_ctrl *ctrl, u16 qid, void *buf, size_t len);
int rblk_fabrics_connect(struct rblk_ctrl *ctrl, u16 qid, u32 *result,
			 struct netlink_ext_ack *extack);
int rblk_prop_get(struct rblk_ctrl *ctrl, u32 off, bool wide, u64 *val);
int rblk_prop_set(struct rblk_ctrl *ctrl, u32 off, u32 val);

/* request.c: one request's life */
extern const struct blk_mq_ops rblk_admin_mq_ops;
extern const struct blk_mq_ops rblk_io_mq_ops;
void rblk_req_done(struct request *rq);
void rblk_req_finish(struct rblk_ctrl *ctrl, struct request *rq,
		     blk_status_t sts, bool failover);
void rblk_req_done_polled(struct request *rq, struct io_comp_batch *iob);
struct request *rblk_req_from_cid(struct rblk_queue *queue, u16 cid);
void rblk_req_expire_queue(struct rblk_queue *queue);
void rblk_req_abort_all(struct blk_mq_tag_set *set);
void rblk_req_cancel_all(struct blk_mq_tag_set *set);

/* tagset.c: tag sets, synchronous submission, resize and requeue */
int rblk_tagset_alloc_admin(struct rblk_ctrl *ctrl);
void rblk_tagset_free_admin(struct rblk_ctrl *ctrl);
int rblk_tagset_alloc_io(struct rblk_ctrl *ctrl);
void rblk_tagset_free_io(struct rblk_ctrl *ctrl);
int rblk_tagset_resize_io(struct rblk_ctrl *ctrl);
void rblk_tagset_requeue_work(struct work_struct *work);
void rblk_tagset_map_queues(struct blk_mq_tag_set *set);
void rblk_tagset_reap_work(struct work_struct *work);
void rblk_tagset_reap_start(struct rblk_ctrl *ctrl);
void rblk_tagset_reap_stop(struct rblk_ctrl *ctrl);
void rblk_tagset_base_limits(struct rblk_ctrl *ctrl, struct rblk_qlim *l);
int rblk_tagset_admin_limits(struct rblk_ctrl *ctrl);
int rblk_submit_sync(struct rblk_ctrl *ctrl, u16 qid, struct nvme_command *cmd,
		     void *buf, unsigned int len, union nvme_result *result,
		     bool reserved);
int rblk_ns_submit_sync(struct rblk_ns *ns, struct nvme_command *cmd,
			void *buf, unsigned int len);

/* stats.c */
int rblk_stats_alloc(struct rblk_ctrl *ctrl);
void rblk_stats_free(struct rblk_ctrl *ctrl);
void rblk_stats_end(struct rblk_ctrl *ctrl, struct request *rq,
		    blk_status_t sts, bool failover);

/*
 * The start point: once per request however often it is sent, and before
 * the post (its completion can run before ib_post_send() returns, seen on
 * 6.12's rxe, and must find it counted). Passthrough is never counted.
 * Inline, as every I/O passes here; the writers' rules are stats.c's
 * (rblk_stats_add()).
 */
static inline void rblk_stats_start(struct rblk_ctrl *ctrl, struct request *rq)
{
	struct rblk_req *req = rblk_req(rq);
	struct rblk_pcpu_stats *s;
	unsigned long flags;

	if (blk_rq_is_passthrough(rq) || req->in_stats)
		return;
	req->in_stats = true;
	s = get_cpu_ptr(ctrl->stats);
	flags = u64_stats_update_begin_irqsave(&s->syncp);
	u64_stats_inc(&s->c[RBLK_STAT_STARTED]);
	u64_stats_update_end_irqrestore(&s->syncp, flags);
	put_cpu_ptr(ctrl->stats);
}

extern const struct attribute_group rblk_stats_attr_group;
void rblk_stats_sysfs_init(void);

/* aen.c */
void rblk_aen_init(struct rblk_ctrl *ctrl);
void rblk_aen_start(struct rblk_ctrl *ctrl);
void rblk_aen_stop(struct rblk_ctrl *ctrl);
bool rblk_aen_rq(struct request *rq);
void rblk_aen_resv_unmask(struct rblk_ctrl *ctrl);

/* ns.c */
int rblk_ns_init(void);
void rblk_ns_exit(void);
int rblk_ns_scan(struct rblk_ctrl *ctrl);
void rblk_ns_remove_all(struct rblk_ctrl *ctrl);
void rblk_ns_quiesce(struct rblk_ctrl *ctrl);
void rblk_ns_unquiesce(struct rblk_ctrl *ctrl);
void rblk_ns_sync(struct rblk_ctrl *ctrl);
void rblk_ns_scan_work(struct work_struct *work);
void rblk_ns_queue_scan(struct rblk_ctrl *ctrl);
void rblk_ns_queue_scan_changed(struct rblk_ctrl *ctrl, u32 *ids, u32 n);
int rblk_ns_format_start(struct rblk_ctrl *ctrl);
void rblk_ns_format_end(struct rblk_ctrl *ctrl);
void rblk_ns_scan_sync(struct rblk_ctrl *ctrl);
void rblk_ns_xlate_ids(const struct rblk_ns *ns, struct rblk_xlate_ns *f);
bool rblk_ns_disk_name(struct rblk_ctrl *ctrl, u32 nsid, char *name,
		       size_t size);
void rblk_ns_freeze_start(struct rblk_ctrl *ctrl);
int rblk_disk_minor_alloc(struct gendisk *disk);
void rblk_disk_minor_free(struct gendisk *disk);
int rblk_ns_freeze_wait(struct rblk_ctrl *ctrl, unsigned long timeout);
void rblk_ns_unfreeze(struct rblk_ctrl *ctrl);

/* subsys.c: subsystems, the controllers and heads they group */
extern struct mutex rblk_subsys_lock;
int rblk_subsys_init(void);
void rblk_subsys_exit(void);
int rblk_subsys_join(struct rblk_ctrl *ctrl, struct netlink_ext_ack *extack);
void rblk_subsys_leave(struct rblk_ctrl *ctrl);
void rblk_subsys_put(struct rblk_subsys *subsys);
int rblk_subsys_set_iopolicy(struct rblk_subsys *subsys, u8 policy);
const char *rblk_iopolicy_name(u8 policy);
/* ctrl.c: a controller id the subsystem kept, when the subsystem goes */
void rblk_ctrl_id_free(u32 id);

/* multipath.c: heads, path selection, failover, ANA */
extern bool rblk_multipath;
static inline bool rblk_ctrl_mpath(const struct rblk_ctrl *ctrl)
{
	return ctrl->subsys && ctrl->subsys->multipath;
}

/*
 * A head's request with bios to hand back (a flush of the flush
 * machinery has none): it may fail over.
 */
static inline bool rblk_mpath_rq(struct request *rq)
{
	struct rblk_ns *ns = rq->q->queuedata;

	return (rq->cmd_flags & REQ_RBLK_MPATH) && rq->bio && ns && ns->head;
}

static inline bool rblk_ctrl_ana(const struct rblk_ctrl *ctrl)
{
	return ctrl->anacap && ctrl->ana_log_buf;
}

int rblk_mpath_attach(struct rblk_ns *ns, const struct rblk_qlim *lim);
int rblk_mpath_stack_limits(struct rblk_ns *ns);
void rblk_mpath_path_ready(struct rblk_ns *ns);
void rblk_mpath_detach(struct rblk_ns *ns);
void rblk_mpath_put_head(struct rblk_ns_head *head);
void rblk_mpath_set_capacity(struct rblk_ns *ns);
bool rblk_disk_is_head(struct gendisk *disk);
void rblk_mpath_xlate_ids(const struct rblk_ns_head *head,
			  struct rblk_xlate_ns *f);
bool rblk_mpath_failover(struct request *rq);
bool rblk_mpath_is_path_error(u16 status);
void rblk_mpath_kick(struct rblk_ctrl *ctrl);
void rblk_mpath_reset_policy(struct rblk_subsys *subsys);
void rblk_mpath_start_rq(struct request *rq);
void rblk_mpath_end_rq(struct request *rq);
void rblk_ana_init(struct rblk_ctrl *ctrl);
int rblk_ana_init_ctrl(struct rblk_ctrl *ctrl, const struct nvme_id_ctrl *id);
void rblk_ana_free_ctrl(struct rblk_ctrl *ctrl);
int rblk_ana_read(struct rblk_ctrl *ctrl);
void rblk_ana_stop(struct rblk_ctrl *ctrl);
u8 rblk_ana_group_state(struct rblk_ctrl *ctrl, u32 grpid);
const char *rblk_ana_state_name(u8 state);
/* ioctl.c: a namespace's ioctls, also reached through its head */
int rblk_ns_ioctl_path(struct rblk_ns *ns, struct block_device *bdev,
		       rblk_mode_t mode, unsigned int cmd, unsigned long arg);
/* ioctl.c: an NVMe ioctl that the controller carries, not a namespace */
bool rblk_ioctl_is_ctrl(unsigned int cmd);
/*
 * ioctl.c: the namespace disks' .ioctl: the NVMe ioctls (type 'N'), the
 * rest to rblk_scsi_ioctl().
 */
int rblk_ns_ioctl(struct block_device *bdev, rblk_mode_t mode,
		  unsigned int cmd, unsigned long arg);
/*
 * scsi.c: SG_IO, SG_GET_VERSION_NUM and SG_GET_RESERVED_SIZE on a namespace
 * block device (its .ioctl; .compat_ioctl is blkdev_compat_ptr_ioctl),
 * carried by @ns: the disk's own, or a path of the head @bdev opens.
 * Returns -ENOTTY for other commands.
 */
int rblk_scsi_ioctl(struct block_device *bdev, struct rblk_ns *ns,
		    rblk_mode_t mode, unsigned int cmd, unsigned long arg);
extern const struct attribute_group rblk_path_attr_group;

/*
 * pr.c: the block layer's persistent reservations on a namespace's disk
 * and a head's (rblk_pr_ops). One verb of enum rblk_resv_verb
 * (scsi_xlate.h), or with @report an extended Reservation Report of
 * @report_len bytes.
 */
struct rblk_pr_op {
	int		verb;		/* enum rblk_resv_verb */
	u64		key;
	u64		sa_key;
	u8		type;		/* SCSI's code (1, 3, 5, 6, 7, 8) */
	void		*report;
	u32		report_len;
};

extern const struct pr_ops rblk_pr_ops;
/* 0, a positive NVMe status or a negative errno. */
int rblk_ns_pr(struct rblk_ns *ns, const struct rblk_pr_op *op);
/* multipath.c: rblk_ns_pr() on one usable path of @head. */
int rblk_mpath_pr(struct rblk_ns_head *head, const struct rblk_pr_op *op);

#endif /* _RBLK_NVME_H */
