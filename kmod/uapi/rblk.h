/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * rblk: NVMe over Fabrics (RDMA) block initiator - kernel/user contract.
 *
 * Generic netlink family "rblk". This header is the single definition of
 * the commands, attributes and enums; the module and librblk both build
 * from it. Append only: never renumber an existing value.
 */
#ifndef _UAPI_LINUX_RBLK_H
#define _UAPI_LINUX_RBLK_H

#include <linux/types.h>

#define RBLK_GENL_NAME		"rblk"
#define RBLK_GENL_VERSION	1
#define RBLK_GENL_MCGRP_EVENTS	"events"

/* Limits shared by the kernel policy and userspace validation. */
#define RBLK_TRANSPORT_MAX	15	/* "rdma" */
#define RBLK_TRADDR_MAX		255	/* NVMF_TRADDR_SIZE - 1 */
/*
 * NQNs are free-form: any non-empty text of at most RBLK_NQN_MAX bytes (the
 * NVMe spec's maximum, NVMF_NQN_SIZE; nvme-fabrics itself refuses from 223 on).
 */
#define RBLK_NQN_MAX		223
/* The well-known discovery subsystem NQN (NVME_DISC_SUBSYS_NAME). */
#define RBLK_DISC_SUBNQN	"nqn.2014-08.org.nvmexpress.discovery"
#define RBLK_HOSTID_LEN		16	/* UUID, binary */
#define RBLK_DHCHAP_SECRET_MAX	127	/* "DHHC-1:03:" + base64 of 68 bytes + ":" */
#define RBLK_CTRL_NAME_MAX	31
#define RBLK_QUEUE_SIZE_MIN	16
#define RBLK_QUEUE_SIZE_MAX	1024
#define RBLK_NR_IO_QUEUES_MAX	128
#define RBLK_KATO_MAX		3600	/* seconds */
#define RBLK_RECONNECT_DELAY_MAX 3600	/* seconds */

/* Connect defaults (applied by the kernel when an attribute is absent). */
#define RBLK_DEFAULT_TRSVCID		4420
#define RBLK_DEFAULT_QUEUE_SIZE		128
#define RBLK_DEFAULT_KATO		5	/* seconds */
#define RBLK_DEFAULT_RECONNECT_DELAY	10	/* seconds */
#define RBLK_DEFAULT_CTRL_LOSS_TMO	600	/* seconds, < 0: forever */
#define RBLK_DEFAULT_FAST_IO_FAIL_TMO	(-1)	/* seconds, < 0: off */

enum rblk_cmd {
	RBLK_CMD_UNSPEC,
	RBLK_CMD_CONNECT,	/* admin: create a controller; reply: CTRL */
	RBLK_CMD_DISCONNECT,	/* admin: delete by CTRL_NAME, CTRL_ID or SUBNQN */
	/*
	 * Doit: one controller (CTRL_NAME or CTRL_ID). Dump: every
	 * controller, or with CTRL_NAME or CTRL_ID that one only (ENODEV
	 * when there is none). See RBLK_ATTR_NR_NAMESPACES for how the
	 * namespaces of a controller come when they do not fit in one
	 * message.
	 */
	RBLK_CMD_GET_CTRL,
	RBLK_CMD_GET_STATS,	/* doit: counters of one controller */
	RBLK_CMD_EVENT,		/* multicast "events": state change */
	/*
	 * Multicast "events": an asynchronous event that userspace acts on,
	 * today the Discovery Log Page Change notice of a discovery
	 * controller (CTRL_ID, CTRL_NAME, AEN_RESULT). The kernel reads no
	 * log for it: the next read of the discovery log (RAE clear)
	 * re-enables the event on the target.
	 */
	RBLK_CMD_AEN,
	/*
	 * Admin: the I/O policy of the subsystem SUBNQN (of HOSTNQN's only,
	 * else of every host NQN's) as IOPOLICY; the controllers of a
	 * subsystem share it, so any of them may be named instead
	 * (CTRL_NAME or CTRL_ID).
	 */
	RBLK_CMD_SET_IOPOLICY,
	/*
	 * Multicast "events": a reservation notice the controller's
	 * Reservation Notification log (80h) held for this host (CTRL_ID,
	 * CTRL_NAME, NSID, DISK, RESV_NOTICE), one message per log page.
	 * The kernel read the page (RAE clear), which consumed it: the
	 * message is the only copy. Userspace re-reads the reservation
	 * (Reservation Report, READ KEYS) to learn the new state.
	 */
	RBLK_CMD_RESV_NOTICE,
	__RBLK_CMD_MAX,
};

#define RBLK_CMD_MAX (__RBLK_CMD_MAX - 1)

/* Controller state machine (mirrors the NVMe host driver's states). */
enum rblk_ctrl_state {
	RBLK_CTRL_NEW,
	RBLK_CTRL_CONNECTING,
	RBLK_CTRL_LIVE,
	RBLK_CTRL_RESETTING,
	RBLK_CTRL_DELETING,
	RBLK_CTRL_DEAD,
	__RBLK_CTRL_STATE_MAX,
};

enum rblk_attr {
	RBLK_ATTR_UNSPEC,
	RBLK_ATTR_PAD,
	RBLK_ATTR_CTRL_ID,		/* u32: N of rblkN */
	RBLK_ATTR_CTRL_NAME,		/* string: "rblkN" */
	RBLK_ATTR_STATE,		/* u8: enum rblk_ctrl_state */
	RBLK_ATTR_TRANSPORT,		/* string: "rdma" */
	RBLK_ATTR_TRADDR,		/* string: IPv4 or IPv6 literal */
	RBLK_ATTR_TRSVCID,		/* u16: port, default 4420 */
	RBLK_ATTR_SUBNQN,		/* string */
	RBLK_ATTR_HOSTNQN,		/* string */
	RBLK_ATTR_HOSTID,		/* binary[16] */
	RBLK_ATTR_NR_IO_QUEUES,		/* u32: requested (connect), granted (get) */
	RBLK_ATTR_QUEUE_SIZE,		/* u32: I/O queue depth */
	RBLK_ATTR_KATO,			/* u32: keep-alive timeout, seconds, 0 = off */
	RBLK_ATTR_RECONNECT_DELAY,	/* u32: seconds */
	RBLK_ATTR_CTRL_LOSS_TMO,	/* s32: seconds, < 0 = forever */
	RBLK_ATTR_FAST_IO_FAIL_TMO,	/* s32: seconds, < 0 = off */
	RBLK_ATTR_DUPLICATE_CONNECT,	/* flag: allow a second identical session */
	RBLK_ATTR_CNTLID,		/* u16: controller id given by the target */
	RBLK_ATTR_MODEL,		/* string */
	RBLK_ATTR_SERIAL,		/* string */
	RBLK_ATTR_FIRMWARE,		/* string */
	RBLK_ATTR_NAMESPACES,		/* nested: RBLK_NS_ATTR_ENTRY each; see NR_NAMESPACES */
	RBLK_ATTR_STATS,		/* nested: enum rblk_stat_attr */
	RBLK_ATTR_OLD_STATE,		/* u8: in EVENT, the previous state */
	RBLK_ATTR_STATE_SINCE_MS,	/* u64: ms since the state was entered */
	RBLK_ATTR_NEXT_RECONNECT_MS,	/* u64: ms until the next reconnect attempt */
	RBLK_ATTR_LOSS_DEADLINE_MS,	/* u64: ms until ctrl_loss_tmo expires */
	RBLK_ATTR_HOST_TRADDR,		/* string: source address, IPv4 or IPv6 literal */
	RBLK_ATTR_TOS,			/* u8: RDMA type of service; absent = default */
	/*
	 * Queue types, as nvme-fabrics' nr_write_queues and nr_poll_queues:
	 * u32, 0..RBLK_NR_IO_QUEUES_MAX, absent = 0. Connect: the number
	 * requested besides RBLK_ATTR_NR_IO_QUEUES; get: the number granted.
	 * With write queues granted, NR_IO_QUEUES carries reads only and
	 * the write queues everything else; poll queues take only polled
	 * I/O (io_uring IOPOLL, RWF_HIPRI), completed without interrupts.
	 */
	RBLK_ATTR_NR_WRITE_QUEUES,
	RBLK_ATTR_NR_POLL_QUEUES,
	/*
	 * Flag. Connect: SUBNQN names a discovery controller, as
	 * nvme-fabrics' "discovery" option (the well-known
	 * RBLK_DISC_SUBNQN implies it); such a controller has an admin
	 * queue only and no namespaces, allows duplicates, and keeps no
	 * keep-alive unless KATO is given (a persistent discovery
	 * controller). Its log is read through /dev/rblkN with
	 * NVME_IOCTL_ADMIN_CMD (Get Log Page 70h). Get: the
	 * controller is a discovery controller.
	 */
	RBLK_ATTR_DISCOVERY,
	RBLK_ATTR_AEN_RESULT,		/* u32: in AEN, the event's completion dword 0 */
	/*
	 * Get only, u32: what connect asked for, where NR_IO_QUEUES,
	 * NR_WRITE_QUEUES, NR_POLL_QUEUES and QUEUE_SIZE tell what the
	 * target granted, which may be less. REQ_NR_IO_QUEUES is the
	 * number of online CPUs (at most RBLK_NR_IO_QUEUES_MAX) when
	 * connect gave none; REQ_NR_WRITE_QUEUES and REQ_NR_POLL_QUEUES
	 * are 0 for none. Not taken by connect (strict validation refuses
	 * them there, as every attribute outside its policy).
	 */
	RBLK_ATTR_REQ_NR_IO_QUEUES,
	RBLK_ATTR_REQ_NR_WRITE_QUEUES,
	RBLK_ATTR_REQ_NR_POLL_QUEUES,
	RBLK_ATTR_REQ_QUEUE_SIZE,
	/*
	 * Multipath (get only, but IOPOLICY in SET_IOPOLICY). Controllers
	 * with the same SUBNQN and HOSTNQN are paths of one subsystem,
	 * numbered SUBSYS_ID: with MULTIPATH its namespaces are one head
	 * disk each, rblk<SUBSYS_ID>n<NSID>, over hidden per-path disks
	 * rblk<SUBSYS_ID>c<CTRL_ID>n<NSID>. Without it (module parameter
	 * multipath=N, or a target that does not report a multi-controller
	 * subsystem in CMIC) each controller has disks of its own,
	 * rblk<CTRL_ID>n<NSID>.
	 */
	RBLK_ATTR_SUBSYS_ID,		/* u32 */
	RBLK_ATTR_MULTIPATH,		/* flag */
	RBLK_ATTR_IOPOLICY,		/* u8: enum rblk_iopolicy, the subsystem's */
	RBLK_ATTR_ANATT,		/* u8: ANA transition time, seconds; 0 = no ANA */
	/*
	 * RESV_NOTICE only (events carry them; no command takes them):
	 * the namespace the notice names, its disk (the device to open:
	 * the multipath head's when there is one, as RBLK_NS_ATTR_DISK)
	 * and the kind, enum rblk_resv_notice.
	 */
	RBLK_ATTR_NSID,			/* u32 */
	RBLK_ATTR_DISK,			/* string: "rblk0n1" */
	RBLK_ATTR_RESV_NOTICE,		/* u8: enum rblk_resv_notice */
	/*
	 * A controller's namespaces may not fit in one message (a dump's
	 * message is no larger than the reader's buffer, 16 KiB for libnl,
	 * at most 32 KiB; an entry takes about 100 bytes; nvmet serves up
	 * to 1024). So:
	 *
	 * NR_NAMESPACES (u32, get and connect): how many namespaces the
	 * controller had when the message was built. A GET_CTRL doit or
	 * CONNECT reply carries the first ones (by NSID) that fit in about
	 * 32 KiB; when it carries fewer entries than NR_NAMESPACES, the
	 * GET_CTRL dump of that controller (CTRL_ID) has them all.
	 *
	 * NS_CONTINUED (flag, dump only): in a GET_CTRL dump a controller
	 * is one message with all its attributes and its first namespaces,
	 * followed by as many messages as its other namespaces need, each
	 * with CTRL_ID, CTRL_NAME, NS_CONTINUED and the next namespaces.
	 * A client appends the NAMESPACES of a message with NS_CONTINUED
	 * to the controller of the message before it (the same CTRL_ID).
	 * Namespaces come in ascending NSID order; one that is attached or
	 * detached while the dump runs may be missing from it.
	 */
	RBLK_ATTR_NR_NAMESPACES,
	RBLK_ATTR_NS_CONTINUED,
	/*
	 * DH-HMAC-CHAP, NVMe in-band authentication. Strings as nvme-cli's
	 * --dhchap-secret and --dhchap-ctrl-secret: the host's secret,
	 * which the controller checks whenever it asks for authentication,
	 * and the controller's, with which the host checks the controller
	 * in turn (it needs the host's). "DHHC-1:<hash>:<base64 of the key
	 * and its CRC-32>:". A kernel without nvme-auth refuses them.
	 * Given to CONNECT; never in an event, and in a GET_CTRL reply or
	 * dump only when it asks with RBLK_ATTR_WITH_SECRETS.
	 */
	RBLK_ATTR_DHCHAP_SECRET,
	RBLK_ATTR_DHCHAP_CTRL_SECRET,
	/*
	 * GET_CTRL (doit and dump), flag: put the controller's secrets in
	 * the reply, for `rblkctl save`. Needs CAP_SYS_ADMIN, as root alone
	 * reads nvme's dhchap_secret attributes (mode 0600).
	 */
	RBLK_ATTR_WITH_SECRETS,
	/*
	 * u8 enum rblk_dhchap: the secrets the controller was given (not
	 * whether the target asked for them); absent: none.
	 */
	RBLK_ATTR_DHCHAP,
	__RBLK_ATTR_MAX,
};

#define RBLK_ATTR_MAX (__RBLK_ATTR_MAX - 1)

/* RBLK_ATTR_DHCHAP */
enum rblk_dhchap {
	RBLK_DHCHAP_NONE,
	RBLK_DHCHAP_HOST,		/* the host's secret: the target checks the host */
	RBLK_DHCHAP_BIDIRECTIONAL,	/* and the controller's: the host checks it too */
};

/* Nested inside RBLK_ATTR_NAMESPACES, one RBLK_NS_ATTR_ENTRY per namespace. */
enum rblk_ns_attr {
	RBLK_NS_ATTR_UNSPEC,
	RBLK_NS_ATTR_PAD,
	RBLK_NS_ATTR_ENTRY,		/* nested: the attributes below */
	RBLK_NS_ATTR_NSID,		/* u32 */
	RBLK_NS_ATTR_DISK,		/* string: "rblk0n1" */
	RBLK_NS_ATTR_SIZE_BYTES,	/* u64 */
	RBLK_NS_ATTR_LBA_SIZE,		/* u32 */
	/*
	 * Multipath: DISK is the device to open (the head), PATH_DISK this
	 * controller's hidden path below it; ANA_STATE (enum rblk_ana_state)
	 * and ANAGRPID as the path's controller last reported them, absent
	 * when the controller does not report ANA.
	 */
	RBLK_NS_ATTR_PATH_DISK,		/* string: "rblk0c1n1" */
	RBLK_NS_ATTR_ANA_STATE,		/* u8 */
	RBLK_NS_ATTR_ANAGRPID,		/* u32 */
	__RBLK_NS_ATTR_MAX,
};

#define RBLK_NS_ATTR_MAX (__RBLK_NS_ATTR_MAX - 1)

/* Nested inside RBLK_ATTR_STATS; all u64. */
enum rblk_stat_attr {
	RBLK_STAT_ATTR_UNSPEC,
	RBLK_STAT_ATTR_PAD,
	RBLK_STAT_ATTR_READS,
	RBLK_STAT_ATTR_WRITES,
	RBLK_STAT_ATTR_READ_BYTES,
	RBLK_STAT_ATTR_WRITE_BYTES,
	RBLK_STAT_ATTR_ERRORS,
	RBLK_STAT_ATTR_RECONNECTS,
	RBLK_STAT_ATTR_INFLIGHT,
	RBLK_STAT_ATTR_FAILOVERS,	/* requests handed back to their head */
	__RBLK_STAT_ATTR_MAX,
};

#define RBLK_STAT_ATTR_MAX (__RBLK_STAT_ATTR_MAX - 1)

/*
 * How a head disk picks a path among the usable ones (ANA optimized, or
 * non-optimized when none is), as nvme's iopolicy: NUMA the nearest
 * (the default), ROUND_ROBIN the next in turn, QUEUE_DEPTH the one with
 * the fewest commands outstanding. sysfs spells them "numa",
 * "round-robin" and "queue-depth".
 */
enum rblk_iopolicy {
	RBLK_IOPOLICY_NUMA,
	RBLK_IOPOLICY_ROUND_ROBIN,
	RBLK_IOPOLICY_QUEUE_DEPTH,
	__RBLK_IOPOLICY_MAX,
};

/* ANA states: the NVMe values (Asymmetric Namespace Access log, 0Ch). */
enum rblk_ana_state {
	RBLK_ANA_OPTIMIZED		= 0x01,
	RBLK_ANA_NONOPTIMIZED		= 0x02,
	RBLK_ANA_INACCESSIBLE		= 0x03,
	RBLK_ANA_PERSISTENT_LOSS	= 0x04,
	RBLK_ANA_CHANGE			= 0x0f,
};

/*
 * Reservation notices: the NVMe values (Reservation Notification log
 * page type). REG_PREEMPTED: this host's registration was preempted
 * (and its commands aborted, for Preempt and Abort): it is fenced.
 * RELEASED: a registrants-only or all-registrants reservation this host
 * had access through was released. PREEMPTED: such a reservation was
 * preempted or cleared. Uevents spell them "registration-preempted",
 * "reservation-released", "reservation-preempted".
 */
enum rblk_resv_notice {
	RBLK_RESV_NOTICE_REG_PREEMPTED	= 0x01,
	RBLK_RESV_NOTICE_RELEASED	= 0x02,
	RBLK_RESV_NOTICE_PREEMPTED	= 0x03,
};

#endif /* _UAPI_LINUX_RBLK_H */
