/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rblk: SCSI -> NVMe translation as pure logic (no I/O, no allocation, no
 * locking), after the NVM Express "NVMe to SCSI Translation Reference".
 *
 * The same source builds in the kernel (scsi.c is the SG_IO glue) and in
 * userspace against shim/, where GoogleTest covers it (tests/unit/scsi).
 *
 * Flow for one SG_IO request:
 *   1. rblk_xlate_param_len(): how much of the data-out buffer the
 *      translation itself must see (UNMAP / MODE SELECT parameter lists,
 *      the WRITE SAME block); the caller copies that much in.
 *   2. rblk_xlate_cmd(): validates and plans. The plan is either
 *      RBLK_XLATE_DONE (answered locally: data in out->buf, or a CHECK
 *      CONDITION with sense), or RBLK_XLATE_NVME (one NVMe command in
 *      out->nvme, described neutrally, to execute on the namespace).
 *   3. For RBLK_XLATE_NVME, rblk_xlate_complete() turns the NVMe status
 *      into SCSI status, sense data and residual.
 *   4. On GOOD status, out->effects says which cached namespace facts the
 *      caller must update (D_SENSE).
 *
 * Transfers larger than the namespace's maximum transfer size are
 * rejected (INVALID FIELD IN CDB on the transfer length), not split: VPD
 * page 0xB0 advertises the limit, a split command would lose its atomic
 * completion status, and sd's SG_IO refuses oversized transfers as well.
 */
#ifndef _RBLK_SCSI_XLATE_H
#define _RBLK_SCSI_XLATE_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/types.h>
#include "kcompat.h"	/* <linux/nvme.h> and the names 6.1 lacks */
#else
#include "rblk_shim.h"
#include "rblk_nvme_shim.h"
#endif

/* Sizes of the caller-provided buffers. */
#define RBLK_XLATE_BUF_LEN	4096	/* out->buf: local data, DSM ranges */
#define RBLK_XLATE_SENSE_LEN	32	/* out->sense */
#define RBLK_XLATE_WWID_LEN	256	/* rblk_xlate_wwid() incl. the NUL */
#define RBLK_XLATE_MAX_DSM_RANGES 256	/* NVMe: at most 256 DSM ranges */
#define RBLK_XLATE_MAX_NLB	65536	/* NVMe: 16-bit, 0's based NLB */

/* SAM status codes that the translation produces. */
#define RBLK_SAM_GOOD			0x00
#define RBLK_SAM_CHECK_CONDITION	0x02
#define RBLK_SAM_RESERVATION_CONFLICT	0x18

/* The control field (NVME_RW_FUA, NVME_WZ_DEAC) is CDW12's upper half. */
#define RBLK_XLATE_CDW12_CONTROL(c)	((u32)(c) << 16)

/*
 * What the translation knows of the namespace and its controller. The core
 * fills it from Identify Controller / Namespace and its own limits.
 */
struct rblk_xlate_ns {
	u32	nsid;
	u64	nr_lbas;		/* NSZE */
	u8	lba_shift;		/* log2 of the LBA data size, 9..16 */
	u32	max_xfer_bytes;		/* min(MDTS, queue limit); 0: none */
	u32	max_wz_lbas;		/* Write Zeroes limit; 0: 65536 */
	u16	max_dsm_ranges;		/* DSM ranges per command; 0: 256 */
	bool	vwc_present;		/* Identify Controller VWC bit 0 */
	bool	vwc_enabled;		/* Volatile Write Cache feature */
	bool	dsm_supported;		/* ONCS bit 2 */
	bool	write_zeroes_supported;	/* ONCS bit 3 */
	bool	verify_supported;	/* ONCS bit 7 */
	bool	compare_supported;	/* ONCS bit 0 */
	bool	resv_supported;		/* ONCS bit 5: reservations */
	u8	rescap;			/* Identify Namespace RESCAP */
	bool	dealloc_zeroes;		/* DLFEAT: deallocated LBAs read 0 */
	bool	read_only;		/* write protected */
	bool	offline;		/* controller not live: TUR NOT READY */
	bool	d_sense;		/* control mode page D_SENSE */
	bool	d_sense_fixed;		/* D_SENSE not changeable */
	const char *subnqn;		/* NUL terminated, for the fallback id */
	char	model[40];		/* Identify Controller MN, space padded */
	char	serial[20];		/* SN */
	char	firmware[8];		/* FR */
	u8	nguid[16];		/* all zero: absent */
	u8	eui64[8];
	u8	uuid[16];
};

enum rblk_xlate_dir {
	RBLK_XLATE_DIR_NONE,
	RBLK_XLATE_DIR_TO_DEV,		/* data-out (SG_DXFER_TO_DEV) */
	RBLK_XLATE_DIR_FROM_DEV,	/* data-in (FROM_DEV, TO_FROM_DEV) */
};

struct rblk_xlate_req {
	const u8		*cdb;
	unsigned int		cdb_len;
	enum rblk_xlate_dir	dir;
	u32			dxfer_len;
	/* The first rblk_xlate_param_len() bytes of data-out, or fewer. */
	const u8		*param;
	u32			param_len;
};

enum rblk_xlate_kind {
	RBLK_XLATE_DONE,	/* status, sense, data and resid are final */
	RBLK_XLATE_NVME,	/* execute out->nvme, then rblk_xlate_complete */
};

/* Where the data of the NVMe command lives. */
enum rblk_xlate_data {
	RBLK_XLATE_DATA_NONE,
	RBLK_XLATE_DATA_USER,		/* the SG_IO buffer, data_len bytes */
	RBLK_XLATE_DATA_BUF,		/* out->buf (DSM ranges) */
	RBLK_XLATE_DATA_DISCARD,	/* read into scratch, then dropped */
	/*
	 * Read into a scratch buffer of data_len bytes, which the caller
	 * hands to rblk_xlate_complete_data(): the answer is built from it.
	 */
	RBLK_XLATE_DATA_REPORT,
};

struct rblk_xlate_nvme {
	u8			opcode;
	bool			write;		/* host -> controller data */
	enum rblk_xlate_data	data;
	u32			data_len;
	u32			nsid;
	u32			cdw10, cdw11, cdw12, cdw13, cdw14, cdw15;
};

/* out->effects: to apply to the namespace facts after GOOD status. */
#define RBLK_XLATE_FX_DSENSE_ON	BIT(0)
#define RBLK_XLATE_FX_DSENSE_OFF BIT(1)

struct rblk_xlate_out {
	u8			*buf;		/* caller's, RBLK_XLATE_BUF_LEN */
	enum rblk_xlate_kind	kind;
	u8			status;		/* SAM status */
	u8			sense_len;
	u8			sense[RBLK_XLATE_SENSE_LEN];
	u32			data_len;	/* DONE: bytes of buf for the user */
	u32			resid;		/* dxfer_len - bytes transferred */
	u32			effects;
	struct rblk_xlate_nvme	nvme;
	/* private to the translation */
	u32			dxfer_len;
	bool			d_sense;
	u32			retry_cdw10;	/* see rblk_xlate_retry() */
	u8			pr_in_sa;	/* PERSISTENT RESERVE IN */
	u8			rescap;
	u32			alloc_len;
};

/* Who may send a CDB through SG_IO, as scsi_cmd_allowed() decides. */
enum rblk_xlate_access {
	RBLK_XLATE_ACC_READ,	/* any opener */
	RBLK_XLATE_ACC_WRITE,	/* an opener with write access */
	RBLK_XLATE_ACC_RAWIO,	/* CAP_SYS_RAWIO only */
};

enum rblk_xlate_access rblk_xlate_access(u8 opcode);

/* Bytes of data-out the translation needs in req->param (0: none). */
u32 rblk_xlate_param_len(const struct rblk_xlate_ns *ns, const u8 *cdb,
			 unsigned int cdb_len);

/*
 * Plans one CDB. Returns 0 with *out filled, or -EINVAL when the request
 * itself is malformed (CDB shorter than its opcode needs or longer than 16
 * bytes, data direction contradicting the opcode, a buffer without a
 * direction), -EIO when the namespace facts are unusable (LBA size outside
 * 512 B..64 KiB). out->buf must be set by the caller.
 */
int rblk_xlate_cmd(const struct rblk_xlate_ns *ns,
		   const struct rblk_xlate_req *req, struct rblk_xlate_out *out);

/*
 * Finishes an RBLK_XLATE_NVME plan with the NVMe status as the kernel keeps
 * it in nvme_req(rq)->status: the CQE status field shifted right by one
 * (SC in bits 7:0, SCT in bits 10:8, DNR in bit 14).
 */
void rblk_xlate_complete(struct rblk_xlate_out *out, u16 nvme_status);

/*
 * As rblk_xlate_complete(), for a plan whose data is RBLK_XLATE_DATA_REPORT:
 * @data holds the @len bytes the command read into the scratch buffer.
 * What the target wrote there is untrusted: every count in it is bounded
 * by @len, and a malformed report ends in CHECK CONDITION, not an answer.
 */
void rblk_xlate_complete_data(struct rblk_xlate_out *out, u16 nvme_status,
			      const u8 *data, u32 len);

/*
 * Some SCSI verbs take two NVMe commands when the first one conflicts
 * (REGISTER AND IGNORE EXISTING KEY: Register if not yet registered, else
 * Replace). After an RBLK_XLATE_NVME plan ends with @nvme_status, true
 * means: out->nvme has been changed, run it again (at most once).
 */
bool rblk_xlate_retry(struct rblk_xlate_out *out, u16 nvme_status);

/* Fills out with CHECK CONDITION for an NVMe status (also used above). */
void rblk_xlate_nvme_status(struct rblk_xlate_out *out, u16 nvme_status);

/*
 * The namespace's world wide identifier, as VPD page 0x83 reports it in its
 * SCSI name string designator and as /sys/block/.../wwid should show it:
 * "uuid.<UUID>", else "eui.<NGUID>", else "eui.<EUI64>" (the nvme
 * driver's order), else "rblk.<subsystem NQN>-nsid<NSID>": stable across
 * reconnects. Returns the length without the NUL, or -EINVAL when len is
 * below RBLK_XLATE_WWID_LEN.
 */
int rblk_xlate_wwid(const struct rblk_xlate_ns *ns, char *buf, unsigned int len);

/*
 * --- Reservations: what SCSI's PERSISTENT RESERVE and the block layer's
 * pr_ops share (scsi.c and pr.c). Types are SCSI's codes here; pr.c maps
 * the block layer's enum pr_type (NVMe's order) to them.
 */

/* Identify Namespace RESCAP bits. */
#define RBLK_RESCAP_PTPL	BIT(0)	/* persist through power loss */

/* The extended Reservation Report (128-bit Host IDs, as Fabrics has). */
#define RBLK_RESV_HDR_LEN	64
#define RBLK_RESV_ENTRY_LEN	64
#define RBLK_RESV_HOSTID_LEN	16

/* SCSI type code (1, 3, 5, 6, 7, 8) -> NVMe RTYPE (1..6); 0: none. */
u8 rblk_resv_type_to_nvme(u8 scsi_type);
/* NVMe RTYPE -> SCSI type code; 0: none (0 or not a type). */
u8 rblk_resv_type_to_scsi(u8 rtype);

enum rblk_resv_verb {
	RBLK_RESV_REGISTER,		/* key: current (0: none), sa_key: new */
	RBLK_RESV_REGISTER_IGNORE,	/* as REGISTER, whatever is registered */
	RBLK_RESV_RESERVE,
	RBLK_RESV_RELEASE,
	RBLK_RESV_CLEAR,
	RBLK_RESV_PREEMPT,		/* sa_key: the key preempted */
	RBLK_RESV_PREEMPT_ABORT,
};

/* CPTPL of Reservation Register: leave PTPL alone, clear it, set it. */
#define RBLK_CPTPL_KEEP		0
#define RBLK_CPTPL_OFF		2
#define RBLK_CPTPL_ON		3

/* One NVMe reservation command, without the namespace. */
struct rblk_resv_cmd {
	u8	opcode;
	u32	cdw10;
	/* != 0: if the command conflicts, send it again with this CDW10 */
	u32	retry_cdw10;
	u32	data_len;		/* 8 or 16 */
	u8	data[16];		/* CRKEY, then NRKEY or PRKEY (LE) */
};

/*
 * The command for one verb: 0 with *cmd filled; 1 when nothing is to be
 * sent and the verb succeeds (registering key 0 from key 0); -EINVAL for
 * a type that is none of the six where the verb needs one. @cptpl only
 * matters to the register verbs.
 */
int rblk_resv_build(enum rblk_resv_verb verb, u64 key, u64 sa_key,
		    u8 scsi_type, u8 cptpl, struct rblk_resv_cmd *cmd);

/* CDW10 and CDW11 of an extended Reservation Report of @len bytes. */
void rblk_resv_report_cmd(u32 len, u32 *cdw10, u32 *cdw11);

/* An extended Reservation Report as read: every count within the bytes. */
struct rblk_resv_report {
	u32		gen;
	u8		rtype;		/* NVMe RTYPE; 0: no reservation */
	bool		ptpls;
	u16		regctl;		/* the target's count */
	/* entries in the bytes read, up to the first without a Host ID */
	u16		nr;
	const u8	*entries;
};

/*
 * Parses @len bytes of a report: -EINVAL when @len is short of the header,
 * -EPROTO when its RTYPE is none of the six.
 */
int rblk_resv_report_parse(const u8 *data, u32 len,
			   struct rblk_resv_report *r);
u64 rblk_resv_key(const struct rblk_resv_report *r, unsigned int i);
bool rblk_resv_holder(const struct rblk_resv_report *r, unsigned int i);
const u8 *rblk_resv_hostid(const struct rblk_resv_report *r, unsigned int i);
/*
 * The reservation's key as SCSI's READ RESERVATION reports it: 0 for the
 * all-registrants types (every registrant holds it) and when the holder
 * is not among the entries read.
 */
u64 rblk_resv_holder_key(const struct rblk_resv_report *r);

#endif /* _RBLK_SCSI_XLATE_H */
