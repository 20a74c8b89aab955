// SPDX-License-Identifier: GPL-2.0
/*
 * rblk: SCSI -> NVMe translation, pure logic shared by the kernel and the
 * host unit tests. See scsi_xlate.h for the flow and the policy choices.
 */
#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include "kcompat.h"
#endif
#include "scsi_xlate.h"

/* SCSI operation codes (SPC-4, SBC-3). */
#define XL_TEST_UNIT_READY	0x00
#define XL_REQUEST_SENSE	0x03
#define XL_READ_6		0x08
#define XL_WRITE_6		0x0a
#define XL_INQUIRY		0x12
#define XL_MODE_SELECT_6	0x15
#define XL_MODE_SENSE_6		0x1a
#define XL_START_STOP_UNIT	0x1b
#define XL_READ_CAPACITY_10	0x25
#define XL_READ_10		0x28
#define XL_WRITE_10		0x2a
#define XL_VERIFY_10		0x2f
#define XL_SYNC_CACHE_10	0x35
#define XL_WRITE_SAME_10	0x41
#define XL_UNMAP		0x42
#define XL_MODE_SELECT_10	0x55
#define XL_MODE_SENSE_10	0x5a
#define XL_READ_16		0x88
#define XL_WRITE_16		0x8a
#define XL_VERIFY_16		0x8f
#define XL_SYNC_CACHE_16	0x91
#define XL_WRITE_SAME_16	0x93
#define XL_PR_IN		0x5e
#define XL_PR_OUT		0x5f
#define XL_SERVICE_ACTION_IN_16	0x9e
#define XL_REPORT_LUNS		0xa0
#define XL_READ_12		0xa8
#define XL_WRITE_12		0xaa

#define XL_SAI_READ_CAPACITY_16	0x10

/* Sense keys. */
#define XL_SK_NO_SENSE		0x0
#define XL_SK_NOT_READY		0x2
#define XL_SK_MEDIUM_ERROR	0x3
#define XL_SK_HARDWARE_ERROR	0x4
#define XL_SK_ILLEGAL_REQUEST	0x5
#define XL_SK_DATA_PROTECT	0x7
#define XL_SK_ABORTED_COMMAND	0xb
#define XL_SK_MISCOMPARE	0xe

/* Additional sense codes. */
#define XL_ASC_NOT_READY	0x04
#define XL_ASC_PARAM_LIST_LEN	0x1a
#define XL_ASC_INVALID_OPCODE	0x20
#define XL_ASC_LBA_OUT_OF_RANGE	0x21
#define XL_ASC_INVALID_CDB	0x24
#define XL_ASC_INVALID_PARAM	0x26
#define XL_ASC_WRITE_PROTECTED	0x27
#define XL_ASC_SAVING_NOT_SUPP	0x39
#define XL_ASC_TARGET_FAILURE	0x44

#define XL_NO_BIT		0xff	/* field pointer without a bit */

/* Step helpers return < 0 (errno), 0 (go on) or XL_DONE (answer set). */
#define XL_DONE			1

/* VPD pages, mode pages and their sizes. */
#define XL_VPD_SUPPORTED	0x00
#define XL_VPD_SERIAL		0x80
#define XL_VPD_DEVICE_ID	0x83
#define XL_VPD_BLOCK_LIMITS	0xb0
#define XL_VPD_BLOCK_CHAR	0xb1
#define XL_VPD_LB_PROV		0xb2
#define XL_STD_INQUIRY_LEN	36
#define XL_MP_CACHING		0x08
#define XL_MP_CONTROL		0x0a
#define XL_MP_ALL		0x3f
#define XL_MP_CACHING_LEN	20
#define XL_MP_CONTROL_LEN	12
#define XL_MP_WCE		0x04	/* caching page byte 2 */
#define XL_MP_D_SENSE		0x04	/* control page byte 2 */
#define XL_DSM_RANGE_LEN	16
#define XL_NQN_MAX		223	/* NVMe-oF NQN, without the NUL */
#define XL_UNMAP_HDR_LEN	8
#define XL_UNMAP_DESC_LEN	16

/* The state of one translation. */
struct xl_ctx {
	const struct rblk_xlate_ns	*ns;
	const struct rblk_xlate_req	*req;
	struct rblk_xlate_out		*out;
	const u8			*cdb;
};

/* LBA and length fields of a block command, wherever its CDB keeps them. */
struct xl_lba {
	u64		lba;
	u32		nlb;
	unsigned int	len_off;	/* byte offset of the length field */
};

/* --- sense data and the final answers --- */

static void xl_sense(struct xl_ctx *c, u8 key, u8 asc, u8 ascq,
		     const u8 *sks)
{
	struct rblk_xlate_out *out = c->out;
	u8 *s = out->sense;

	memset(s, 0, RBLK_XLATE_SENSE_LEN);
	if (out->d_sense) {
		s[0] = 0x72;		/* current error, descriptor format */
		s[1] = key;
		s[2] = asc;
		s[3] = ascq;
		out->sense_len = 8;
		if (sks) {		/* sense key specific descriptor */
			s[7] = 8;
			s[8] = 0x02;
			s[9] = 0x06;
			memcpy(&s[12], sks, 3);
			out->sense_len = 16;
		}
	} else {
		s[0] = 0x70;		/* current error, fixed format */
		s[2] = key;
		s[7] = 10;		/* additional sense length */
		s[12] = asc;
		s[13] = ascq;
		if (sks)
			memcpy(&s[15], sks, 3);
		out->sense_len = 18;
	}
	out->kind = RBLK_XLATE_DONE;
	out->status = RBLK_SAM_CHECK_CONDITION;
	out->data_len = 0;
	out->resid = out->dxfer_len;
	out->effects = 0;
}

static int xl_check(struct xl_ctx *c, u8 key, u8 asc, u8 ascq)
{
	xl_sense(c, key, asc, ascq, NULL);
	return XL_DONE;
}

/* INVALID FIELD IN CDB / PARAMETER LIST with the field pointer. */
static int xl_bad_field(struct xl_ctx *c, bool in_cdb, u16 byte, u8 bit)
{
	u8 sks[3];

	sks[0] = 0x80 | (in_cdb ? 0x40 : 0);		/* SKSV, C/D */
	if (bit != XL_NO_BIT)
		sks[0] |= 0x08 | (bit & 7);		/* BPV, bit pointer */
	put_unaligned_be16(byte, &sks[1]);
	xl_sense(c, XL_SK_ILLEGAL_REQUEST,
		 in_cdb ? XL_ASC_INVALID_CDB : XL_ASC_INVALID_PARAM, 0, sks);
	return XL_DONE;
}

static int xl_bad_cdb(struct xl_ctx *c, u16 byte, u8 bit)
{
	return xl_bad_field(c, true, byte, bit);
}

static int xl_bad_param(struct xl_ctx *c, u16 byte, u8 bit)
{
	return xl_bad_field(c, false, byte, bit);
}

static int xl_bad_opcode(struct xl_ctx *c)
{
	return xl_check(c, XL_SK_ILLEGAL_REQUEST, XL_ASC_INVALID_OPCODE, 0);
}

static int xl_param_len_error(struct xl_ctx *c)
{
	return xl_check(c, XL_SK_ILLEGAL_REQUEST, XL_ASC_PARAM_LIST_LEN, 0);
}

static int xl_out_of_range(struct xl_ctx *c)
{
	return xl_check(c, XL_SK_ILLEGAL_REQUEST, XL_ASC_LBA_OUT_OF_RANGE, 0);
}

static int xl_write_protected(struct xl_ctx *c)
{
	return xl_check(c, XL_SK_DATA_PROTECT, XL_ASC_WRITE_PROTECTED, 0);
}

/* GOOD, with @consumed bytes of the buffer used (data-out) or none. */
static int xl_good(struct xl_ctx *c, u32 consumed)
{
	struct rblk_xlate_out *out = c->out;

	out->kind = RBLK_XLATE_DONE;
	out->status = RBLK_SAM_GOOD;
	out->sense_len = 0;
	out->data_len = 0;
	out->resid = out->dxfer_len - min_t(u32, consumed, out->dxfer_len);
	return XL_DONE;
}

/* GOOD with @len bytes of local data in out->buf, cut to @alloc. */
static int xl_data(struct xl_ctx *c, u32 len, u32 alloc)
{
	struct rblk_xlate_out *out = c->out;

	xl_good(c, 0);
	out->data_len = min_t(u32, min_t(u32, len, alloc), out->dxfer_len);
	out->resid = out->dxfer_len - out->data_len;
	return XL_DONE;
}

/* --- helpers --- */

static u32 xl_block_size(const struct rblk_xlate_ns *ns)
{
	return 1U << ns->lba_shift;
}

/* Largest transfer in blocks: MDTS, the queue and the 16-bit NLB field. */
static u32 xl_max_blocks(const struct rblk_xlate_ns *ns)
{
	u32 max = RBLK_XLATE_MAX_NLB;

	if (ns->max_xfer_bytes)
		max = min_t(u32, max, ns->max_xfer_bytes >> ns->lba_shift);
	return max;
}

static u32 xl_max_wz_blocks(const struct rblk_xlate_ns *ns)
{
	if (ns->max_wz_lbas && ns->max_wz_lbas < RBLK_XLATE_MAX_NLB)
		return ns->max_wz_lbas;
	return RBLK_XLATE_MAX_NLB;
}

static u32 xl_max_dsm_ranges(const struct rblk_xlate_ns *ns)
{
	if (ns->max_dsm_ranges && ns->max_dsm_ranges < RBLK_XLATE_MAX_DSM_RANGES)
		return ns->max_dsm_ranges;
	return RBLK_XLATE_MAX_DSM_RANGES;
}

/* WRITE SAME needs Write Zeroes, or deallocation that reads back zeroes. */
static bool xl_write_same_ok(const struct rblk_xlate_ns *ns)
{
	return ns->write_zeroes_supported ||
	       (ns->dsm_supported && ns->dealloc_zeroes);
}

static bool xl_lba_past_end(const struct rblk_xlate_ns *ns, u64 lba, u64 nlb)
{
	return lba > ns->nr_lbas || nlb > ns->nr_lbas - lba;
}

static bool xl_all_zero(const u8 *p, u32 len, u32 *first)
{
	u32 i;

	for (i = 0; i < len; i++) {
		if (p[i]) {
			*first = i;
			return false;
		}
	}
	return true;
}

/* A data transfer must flow the way the opcode moves data. */
static int xl_want_dir(struct xl_ctx *c, enum rblk_xlate_dir dir)
{
	if (c->req->dxfer_len && c->req->dir != dir)
		return -EINVAL;
	return 0;
}

/* LBA and length of the block commands, by CDB size. */
static void xl_decode_lba(const u8 *cdb, struct xl_lba *l)
{
	switch (cdb[0] >> 5) {
	case 0:		/* 6 bytes: 21-bit LBA, 0 blocks means 256 */
		l->lba = get_unaligned_be24(&cdb[1]) & 0x1fffff;
		l->nlb = cdb[4] ? cdb[4] : 256;
		l->len_off = 4;
		break;
	case 5:		/* 12 bytes */
		l->lba = get_unaligned_be32(&cdb[2]);
		l->nlb = get_unaligned_be32(&cdb[6]);
		l->len_off = 6;
		break;
	case 4:		/* 16 bytes */
		l->lba = get_unaligned_be64(&cdb[2]);
		l->nlb = get_unaligned_be32(&cdb[10]);
		l->len_off = 10;
		break;
	default:	/* 10 bytes */
		l->lba = get_unaligned_be32(&cdb[2]);
		l->nlb = get_unaligned_be16(&cdb[7]);
		l->len_off = 7;
		break;
	}
}

/* Plans an NVMe command on the namespace; success leaves @resid. */
static struct rblk_xlate_nvme *xl_plan(struct xl_ctx *c, u8 opcode,
				       enum rblk_xlate_data data, u32 len,
				       u32 consumed)
{
	struct rblk_xlate_out *out = c->out;
	struct rblk_xlate_nvme *cmd = &out->nvme;

	xl_good(c, consumed);
	out->kind = RBLK_XLATE_NVME;
	memset(cmd, 0, sizeof(*cmd));
	cmd->opcode = opcode;
	cmd->nsid = c->ns->nsid;
	cmd->data = data;
	cmd->data_len = len;
	return cmd;
}

/* SLBA in CDW10/11 and the 0's based NLB in CDW12, as I/O commands want. */
static struct rblk_xlate_nvme *xl_plan_lba(struct xl_ctx *c, u8 opcode,
					   const struct xl_lba *l,
					   enum rblk_xlate_data data,
					   u32 consumed)
{
	u32 len = data == RBLK_XLATE_DATA_NONE ? 0 :
		  l->nlb << c->ns->lba_shift;
	struct rblk_xlate_nvme *cmd = xl_plan(c, opcode, data, len, consumed);

	cmd->cdw10 = (u32)l->lba;
	cmd->cdw11 = (u32)(l->lba >> 32);
	cmd->cdw12 = l->nlb - 1;
	return cmd;
}

/* Copies a string of an Identify structure as printable ASCII. */
static void xl_ascii(u8 *dst, const char *src, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		dst[i] = src[i] >= 0x20 && src[i] < 0x7f ? src[i] : ' ';
}

/* Length of an Identify string without its trailing spaces and NULs. */
static unsigned int xl_trim(const char *s, unsigned int len)
{
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\0'))
		len--;
	return len;
}

static bool xl_nonzero(const u8 *p, unsigned int len)
{
	u32 first;

	return !xl_all_zero(p, len, &first);
}

static char *xl_hex(char *d, const u8 *p, unsigned int len, bool upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	unsigned int i;

	for (i = 0; i < len; i++) {
		*d++ = digits[p[i] >> 4];
		*d++ = digits[p[i] & 0xf];
	}
	return d;
}

static char *xl_dec(char *d, u32 v)
{
	char tmp[10];
	unsigned int n = 0;

	do {
		tmp[n++] = '0' + v % 10;
		v /= 10;
	} while (v);
	while (n)
		*d++ = tmp[--n];
	return d;
}

static char *xl_hex32(char *d, u32 v, unsigned int digits)
{
	u8 be[4];

	put_unaligned_be32(v, be);
	return xl_hex(d, be + 4 - digits / 2, digits / 2, false);
}

/* --- INQUIRY --- */

static int xl_inq_standard(struct xl_ctx *c, u32 alloc)
{
	const struct rblk_xlate_ns *ns = c->ns;
	unsigned int fw = xl_trim(ns->firmware, sizeof(ns->firmware));
	u8 *d = c->out->buf;

	memset(d, 0, XL_STD_INQUIRY_LEN);
	d[0] = 0x00;		/* connected, direct access block device */
	d[2] = 0x06;		/* SPC-4 */
	d[3] = 0x02;		/* response data format 2 */
	d[4] = XL_STD_INQUIRY_LEN - 5;
	d[7] = 0x02;		/* CMDQUE */
	memcpy(&d[8], "NVMe    ", 8);
	xl_ascii(&d[16], ns->model, 16);
	/* revision: the last four characters of FR before trailing spaces */
	fw = fw < 4 ? 0 : fw - 4;
	xl_ascii(&d[32], &ns->firmware[fw], 4);
	return xl_data(c, XL_STD_INQUIRY_LEN, alloc);
}

static const u8 xl_vpd_pages[] = {
	XL_VPD_SUPPORTED, XL_VPD_SERIAL, XL_VPD_DEVICE_ID,
	XL_VPD_BLOCK_LIMITS, XL_VPD_BLOCK_CHAR, XL_VPD_LB_PROV,
};

static u32 xl_vpd_supported(u8 *d)
{
	memcpy(&d[4], xl_vpd_pages, sizeof(xl_vpd_pages));
	return sizeof(xl_vpd_pages);
}

/*
 * Unit serial number: the NGUID, else the EUI-64, in hex with '_' every
 * four digits and a closing '.', else the controller serial number and
 * the NSID; stable across reconnects.
 */
static u32 xl_vpd_serial(const struct rblk_xlate_ns *ns, u8 *d)
{
	const u8 *id = NULL;
	char *s = (char *)&d[4];
	unsigned int i, len = 0;

	if (xl_nonzero(ns->nguid, sizeof(ns->nguid))) {
		id = ns->nguid;
		len = sizeof(ns->nguid);
	} else if (xl_nonzero(ns->eui64, sizeof(ns->eui64))) {
		id = ns->eui64;
		len = sizeof(ns->eui64);
	}
	if (id) {
		for (i = 0; i < len; i += 2) {
			if (i)
				*s++ = '_';
			s = xl_hex(s, &id[i], 2, true);
		}
		*s++ = '.';
	} else {
		xl_ascii((u8 *)s, ns->serial, sizeof(ns->serial));
		s += sizeof(ns->serial);
		*s++ = '_';
		s = xl_hex32(s, ns->nsid, 8);
	}
	return s - (char *)&d[4];
}

/* Appends one designation descriptor (LU association) at @d. */
static u32 xl_designator(u8 *d, u8 code_set, u8 type, const void *id,
			 u32 len)
{
	d[0] = code_set;	/* protocol identifier 0 */
	d[1] = type;		/* PIV 0, associated with the LU */
	d[2] = 0;
	d[3] = len;
	memcpy(&d[4], id, len);
	return 4 + len;
}

static u32 xl_vpd_device_id(const struct rblk_xlate_ns *ns, u8 *d)
{
	char wwid[RBLK_XLATE_WWID_LEN];
	u8 uuid[18] = { 0x10 };		/* UUID type 1: RFC 4122 */
	u32 len, n = 4;

	if (xl_nonzero(ns->nguid, sizeof(ns->nguid)))
		n += xl_designator(&d[n], 0x01, 0x02, ns->nguid,
				   sizeof(ns->nguid));
	if (xl_nonzero(ns->eui64, sizeof(ns->eui64)))
		n += xl_designator(&d[n], 0x01, 0x02, ns->eui64,
				   sizeof(ns->eui64));
	if (xl_nonzero(ns->uuid, sizeof(ns->uuid))) {
		memcpy(&uuid[2], ns->uuid, sizeof(ns->uuid));
		n += xl_designator(&d[n], 0x01, 0x0a, uuid, sizeof(uuid));
	}
	/* SCSI name string: the wwid, NUL terminated, padded to 4 bytes */
	len = rblk_xlate_wwid(ns, wwid, sizeof(wwid));
	memset(wwid + len, 0, sizeof(wwid) - len);
	n += xl_designator(&d[n], 0x03, 0x08, wwid, (len + 4) & ~3U);
	return n - 4;
}

static u32 xl_vpd_block_limits(const struct rblk_xlate_ns *ns, u8 *d)
{
	d[4] = 0x01;				/* WSNZ */
	put_unaligned_be32(xl_max_blocks(ns), &d[8]);
	if (ns->dsm_supported) {
		put_unaligned_be32(0xffffffff, &d[20]);	/* unmap LBA count */
		put_unaligned_be32(xl_max_dsm_ranges(ns), &d[24]);
	}
	if (ns->write_zeroes_supported)
		put_unaligned_be64(xl_max_wz_blocks(ns), &d[36]);
	else if (xl_write_same_ok(ns))
		put_unaligned_be64(0xffffffff, &d[36]);
	return 0x3c;
}

static u32 xl_vpd_block_char(u8 *d)
{
	put_unaligned_be16(0x0001, &d[4]);	/* non-rotating medium */
	return 0x3c;
}

static u32 xl_vpd_lb_prov(const struct rblk_xlate_ns *ns, u8 *d)
{
	if (ns->dsm_supported)
		d[5] |= 0x80;			/* LBPU */
	if (xl_write_same_ok(ns))
		d[5] |= 0x60;			/* LBPWS, LBPWS10 */
	if (ns->dsm_supported && ns->dealloc_zeroes)
		d[5] |= 0x01 << 2;		/* LBPRZ: unmapped reads zero */
	if (ns->dsm_supported)
		d[6] = 0x02;			/* thin provisioned */
	return 4;
}

static int xl_inq_vpd(struct xl_ctx *c, u8 page, u32 alloc)
{
	const struct rblk_xlate_ns *ns = c->ns;
	u8 *d = c->out->buf;
	u32 len;

	memset(d, 0, 512);
	switch (page) {
	case XL_VPD_SUPPORTED:
		len = xl_vpd_supported(d);
		break;
	case XL_VPD_SERIAL:
		len = xl_vpd_serial(ns, d);
		break;
	case XL_VPD_DEVICE_ID:
		len = xl_vpd_device_id(ns, d);
		break;
	case XL_VPD_BLOCK_LIMITS:
		len = xl_vpd_block_limits(ns, d);
		break;
	case XL_VPD_BLOCK_CHAR:
		len = xl_vpd_block_char(d);
		break;
	case XL_VPD_LB_PROV:
		len = xl_vpd_lb_prov(ns, d);
		break;
	default:
		return xl_bad_cdb(c, 2, XL_NO_BIT);
	}
	d[1] = page;
	put_unaligned_be16(len, &d[2]);
	return xl_data(c, len + 4, alloc);
}

static int xl_inquiry(struct xl_ctx *c)
{
	const u8 *cdb = c->cdb;
	u32 alloc = get_unaligned_be16(&cdb[3]);

	if (xl_want_dir(c, RBLK_XLATE_DIR_FROM_DEV))
		return -EINVAL;
	if (cdb[1] & 0x02)			/* CMDDT, obsolete */
		return xl_bad_cdb(c, 1, 1);
	if (cdb[1] & 0x01)
		return xl_inq_vpd(c, cdb[2], alloc);
	if (cdb[2])
		return xl_bad_cdb(c, 2, XL_NO_BIT);
	return xl_inq_standard(c, alloc);
}

/* --- simple commands --- */

static int xl_test_unit_ready(struct xl_ctx *c)
{
	if (c->ns->offline)
		return xl_check(c, XL_SK_NOT_READY, XL_ASC_NOT_READY, 0);
	return xl_good(c, 0);
}

/* Sense is returned with each CHECK CONDITION, so none is pending. */
static int xl_request_sense(struct xl_ctx *c)
{
	const u8 *cdb = c->cdb;
	u8 *d = c->out->buf;
	u32 len;

	if (xl_want_dir(c, RBLK_XLATE_DIR_FROM_DEV))
		return -EINVAL;
	memset(d, 0, 18);
	if (cdb[1] & 0x01) {			/* DESC */
		d[0] = 0x72;
		len = 8;
	} else {
		d[0] = 0x70;
		d[7] = 10;
		len = 18;
	}
	return xl_data(c, len, cdb[4]);
}

static int xl_report_luns(struct xl_ctx *c)
{
	const u8 *cdb = c->cdb;
	u8 *d = c->out->buf;
	u32 luns;

	if (xl_want_dir(c, RBLK_XLATE_DIR_FROM_DEV))
		return -EINVAL;
	switch (cdb[2]) {			/* SELECT REPORT */
	case 0x00:				/* all addressable LUs */
	case 0x02:				/* all LUs */
		luns = 1;			/* LUN 0 only */
		break;
	case 0x01:				/* well known LUs */
	case 0x10:				/* administrative LUs */
	case 0x11:
	case 0x12:
		luns = 0;
		break;
	default:
		return xl_bad_cdb(c, 2, XL_NO_BIT);
	}
	memset(d, 0, 16);
	put_unaligned_be32(luns * 8, &d[0]);
	return xl_data(c, 8 + luns * 8, get_unaligned_be32(&cdb[6]));
}

static int xl_read_capacity_10(struct xl_ctx *c)
{
	const struct rblk_xlate_ns *ns = c->ns;
	const u8 *cdb = c->cdb;
	u8 *d = c->out->buf;
	u64 last = ns->nr_lbas ? ns->nr_lbas - 1 : 0;

	if (xl_want_dir(c, RBLK_XLATE_DIR_FROM_DEV))
		return -EINVAL;
	if (!(cdb[8] & 0x01) && get_unaligned_be32(&cdb[2]))
		return xl_bad_cdb(c, 2, XL_NO_BIT);	/* LBA without PMI */
	/* 0xffffffff tells the initiator to use READ CAPACITY(16) */
	put_unaligned_be32(min_t(u64, last, 0xffffffff), &d[0]);
	put_unaligned_be32(xl_block_size(ns), &d[4]);
	return xl_data(c, 8, 8);
}

static int xl_read_capacity_16(struct xl_ctx *c)
{
	const struct rblk_xlate_ns *ns = c->ns;
	const u8 *cdb = c->cdb;
	u8 *d = c->out->buf;

	if (xl_want_dir(c, RBLK_XLATE_DIR_FROM_DEV))
		return -EINVAL;
	if (!(cdb[14] & 0x01) && get_unaligned_be64(&cdb[2]))
		return xl_bad_cdb(c, 2, XL_NO_BIT);
	memset(d, 0, 32);
	put_unaligned_be64(ns->nr_lbas ? ns->nr_lbas - 1 : 0, &d[0]);
	put_unaligned_be32(xl_block_size(ns), &d[8]);
	if (ns->dsm_supported) {
		d[14] |= 0x80;				/* LBPME */
		if (ns->dealloc_zeroes)
			d[14] |= 0x40;			/* LBPRZ */
	}
	return xl_data(c, 32, get_unaligned_be32(&cdb[10]));
}

static int xl_service_action_in(struct xl_ctx *c)
{
	if ((c->cdb[1] & 0x1f) == XL_SAI_READ_CAPACITY_16)
		return xl_read_capacity_16(c);
	return xl_bad_cdb(c, 1, 4);
}

/* Stop writes the cache back first (unless NO_FLUSH); power is not ours. */
static int xl_start_stop_unit(struct xl_ctx *c)
{
	const u8 *cdb = c->cdb;

	if (cdb[4] & 0xf0)			/* POWER CONDITION */
		return xl_bad_cdb(c, 4, 7);
	if (cdb[4] & 0x02)			/* LOEJ: not removable */
		return xl_bad_cdb(c, 4, 1);
	if (!(cdb[4] & 0x01) && !(cdb[4] & 0x04) && c->ns->vwc_present) {
		xl_plan(c, nvme_cmd_flush, RBLK_XLATE_DATA_NONE, 0, 0);
		return 0;
	}
	return xl_good(c, 0);
}

/* --- block commands --- */

static bool xl_is_write(u8 opcode)
{
	return opcode == XL_WRITE_6 || opcode == XL_WRITE_10 ||
	       opcode == XL_WRITE_12 || opcode == XL_WRITE_16;
}

static int xl_read_write(struct xl_ctx *c)
{
	const struct rblk_xlate_ns *ns = c->ns;
	bool write = xl_is_write(c->cdb[0]);
	struct rblk_xlate_nvme *cmd;
	struct xl_lba l;
	u8 flags = c->cdb[0] >> 5 ? c->cdb[1] : 0;

	if (xl_want_dir(c, write ? RBLK_XLATE_DIR_TO_DEV :
				   RBLK_XLATE_DIR_FROM_DEV))
		return -EINVAL;
	xl_decode_lba(c->cdb, &l);
	if (flags & 0xe0)			/* RD/WRPROTECT: no PI here */
		return xl_bad_cdb(c, 1, 7);
	if (l.nlb > xl_max_blocks(ns))
		return xl_bad_cdb(c, l.len_off, XL_NO_BIT);
	if (xl_lba_past_end(ns, l.lba, l.nlb))
		return xl_out_of_range(c);
	if (write && ns->read_only)
		return xl_write_protected(c);
	if (!l.nlb)
		return xl_good(c, 0);
	if (((u64)l.nlb << ns->lba_shift) > c->req->dxfer_len)
		return xl_bad_cdb(c, l.len_off, XL_NO_BIT);
	cmd = xl_plan_lba(c, write ? nvme_cmd_write : nvme_cmd_read,
			  &l, RBLK_XLATE_DATA_USER, l.nlb << ns->lba_shift);
	cmd->write = write;
	if (flags & 0x08)			/* FUA */
		cmd->cdw12 |= RBLK_XLATE_CDW12_CONTROL(NVME_RW_FUA);
	return 0;
}

/* BYTCHK 0: NVMe Verify (or a read dropped in the kernel); 1: Compare. */
static int xl_verify(struct xl_ctx *c)
{
	const struct rblk_xlate_ns *ns = c->ns;
	u8 bytchk = (c->cdb[1] >> 1) & 0x03;
	struct rblk_xlate_nvme *cmd;
	struct xl_lba l;
	u32 max;

	if (bytchk && xl_want_dir(c, RBLK_XLATE_DIR_TO_DEV))
		return -EINVAL;
	xl_decode_lba(c->cdb, &l);
	if (c->cdb[1] & 0xe0)			/* VRPROTECT */
		return xl_bad_cdb(c, 1, 7);
	if (bytchk > 1 || (bytchk && !ns->compare_supported))
		return xl_bad_cdb(c, 1, 2);
	max = !bytchk && ns->verify_supported ? RBLK_XLATE_MAX_NLB :
						xl_max_blocks(ns);
	if (l.nlb > max)
		return xl_bad_cdb(c, l.len_off, XL_NO_BIT);
	if (xl_lba_past_end(ns, l.lba, l.nlb))
		return xl_out_of_range(c);
	if (!l.nlb)
		return xl_good(c, 0);
	if (bytchk) {
		if (((u64)l.nlb << ns->lba_shift) > c->req->dxfer_len)
			return xl_bad_cdb(c, l.len_off, XL_NO_BIT);
		cmd = xl_plan_lba(c, nvme_cmd_compare, &l,
				  RBLK_XLATE_DATA_USER, l.nlb << ns->lba_shift);
		cmd->write = true;
	} else if (ns->verify_supported) {
		xl_plan_lba(c, nvme_cmd_verify, &l, RBLK_XLATE_DATA_NONE,
			    0);
	} else {
		xl_plan_lba(c, nvme_cmd_read, &l, RBLK_XLATE_DATA_DISCARD,
			    0);
	}
	return 0;
}

static int xl_sync_cache(struct xl_ctx *c)
{
	struct xl_lba l;

	xl_decode_lba(c->cdb, &l);
	if (xl_lba_past_end(c->ns, l.lba, l.nlb))
		return xl_out_of_range(c);
	if (!c->ns->vwc_present)		/* nothing is ever cached */
		return xl_good(c, 0);
	xl_plan(c, nvme_cmd_flush, RBLK_XLATE_DATA_NONE, 0, 0);
	return 0;
}

/* One DSM range in out->buf. */
static void xl_dsm_range(u8 *r, u64 lba, u32 nlb)
{
	put_unaligned_le32(0, &r[0]);		/* context attributes */
	put_unaligned_le32(nlb, &r[4]);
	put_unaligned_le64(lba, &r[8]);
}

static int xl_plan_dsm(struct xl_ctx *c, u32 ranges, u32 consumed)
{
	struct rblk_xlate_nvme *cmd;

	cmd = xl_plan(c, nvme_cmd_dsm, RBLK_XLATE_DATA_BUF,
		      ranges * XL_DSM_RANGE_LEN, consumed);
	cmd->write = true;
	cmd->cdw10 = ranges - 1;
	cmd->cdw11 = NVME_DSMGMT_AD;
	return 0;
}

/* The WRITE SAME data block must be zeroes: NVMe cannot replicate data. */
static int xl_write_same_data(struct xl_ctx *c, u32 *consumed)
{
	u32 bs = xl_block_size(c->ns);
	u32 first;

	if (c->cdb[0] == XL_WRITE_SAME_16 && (c->cdb[1] & 0x01)) {
		*consumed = 0;				/* NDOB */
		return 0;
	}
	if (xl_want_dir(c, RBLK_XLATE_DIR_TO_DEV))
		return -EINVAL;
	if (c->req->dxfer_len < bs || c->req->param_len < bs)
		return xl_param_len_error(c);
	if (!xl_all_zero(c->req->param, bs, &first))
		return xl_bad_param(c, first, XL_NO_BIT);
	*consumed = bs;
	return 0;
}

static int xl_write_same(struct xl_ctx *c)
{
	const struct rblk_xlate_ns *ns = c->ns;
	bool ws16 = c->cdb[0] == XL_WRITE_SAME_16;
	bool unmap = c->cdb[1] & 0x08;
	struct rblk_xlate_nvme *cmd;
	struct xl_lba l;
	u32 consumed;
	int ret;

	if (!xl_write_same_ok(ns))
		return xl_bad_opcode(c);
	xl_decode_lba(c->cdb, &l);
	if (c->cdb[1] & 0xe0)			/* WRPROTECT */
		return xl_bad_cdb(c, 1, 7);
	if (c->cdb[1] & 0x10)			/* ANCHOR */
		return xl_bad_cdb(c, 1, 4);
	if (c->cdb[1] & 0x04)			/* PBDATA */
		return xl_bad_cdb(c, 1, 2);
	if (c->cdb[1] & 0x02)			/* LBDATA */
		return xl_bad_cdb(c, 1, 1);
	if (!ws16 && (c->cdb[1] & 0x01))	/* obsolete RELADR */
		return xl_bad_cdb(c, 1, 0);
	if (!ns->write_zeroes_supported && !unmap)
		return xl_bad_cdb(c, 1, 3);	/* only deallocation here */
	if (!l.nlb || (ns->write_zeroes_supported &&
		       l.nlb > xl_max_wz_blocks(ns)))
		return xl_bad_cdb(c, l.len_off, XL_NO_BIT);
	ret = xl_write_same_data(c, &consumed);
	if (ret)
		return ret;
	if (xl_lba_past_end(ns, l.lba, l.nlb))
		return xl_out_of_range(c);
	if (ns->read_only)
		return xl_write_protected(c);
	if (!ns->write_zeroes_supported) {
		xl_dsm_range(c->out->buf, l.lba, l.nlb);
		return xl_plan_dsm(c, 1, consumed);
	}
	cmd = xl_plan_lba(c, nvme_cmd_write_zeroes, &l,
			  RBLK_XLATE_DATA_NONE, consumed);
	if (unmap)
		cmd->cdw12 |= RBLK_XLATE_CDW12_CONTROL(NVME_WZ_DEAC);
	return 0;
}

/* Parameter list length and its CDB offset, for the data-out commands. */
static u32 xl_param_list_len(const u8 *cdb, unsigned int *off)
{
	if (cdb[0] == XL_MODE_SELECT_6) {
		*off = 4;
		return cdb[4];
	}
	*off = 7;
	return get_unaligned_be16(&cdb[7]);
}

/* A parameter list must lie within the data-out buffer; 0 is a no-op. */
static int xl_param_list(struct xl_ctx *c, u32 *plen)
{
	unsigned int off;

	*plen = xl_param_list_len(c->cdb, &off);
	if (!*plen)
		return xl_good(c, 0);
	if (xl_want_dir(c, RBLK_XLATE_DIR_TO_DEV))
		return -EINVAL;
	if (*plen > c->req->dxfer_len)
		return xl_bad_cdb(c, off, XL_NO_BIT);
	return 0;
}

static int xl_unmap(struct xl_ctx *c)
{
	const struct rblk_xlate_ns *ns = c->ns;
	const u8 *p = c->req->param;
	u32 plen, n, i, ranges = 0;
	int ret;

	if (!ns->dsm_supported)
		return xl_bad_opcode(c);
	if (c->cdb[1] & 0x01)			/* ANCHOR */
		return xl_bad_cdb(c, 1, 0);
	ret = xl_param_list(c, &plen);
	if (ret)
		return ret;
	if (plen < XL_UNMAP_HDR_LEN || c->req->param_len < XL_UNMAP_HDR_LEN)
		return xl_param_len_error(c);
	/* a partial last descriptor is ignored (SBC-3) */
	n = min_t(u32, get_unaligned_be16(&p[2]), plen - XL_UNMAP_HDR_LEN) /
	    XL_UNMAP_DESC_LEN;
	if (n > xl_max_dsm_ranges(ns))
		return xl_bad_param(c, 2, XL_NO_BIT);
	if (c->req->param_len < XL_UNMAP_HDR_LEN + n * XL_UNMAP_DESC_LEN)
		return xl_param_len_error(c);
	for (i = 0; i < n; i++) {
		const u8 *desc = &p[XL_UNMAP_HDR_LEN + i * XL_UNMAP_DESC_LEN];
		u64 lba = get_unaligned_be64(&desc[0]);
		u32 nlb = get_unaligned_be32(&desc[8]);

		if (xl_lba_past_end(ns, lba, nlb))
			return xl_out_of_range(c);
		if (!nlb)
			continue;
		xl_dsm_range(&c->out->buf[ranges * XL_DSM_RANGE_LEN], lba, nlb);
		ranges++;
	}
	if (ns->read_only)
		return xl_write_protected(c);
	if (!ranges)
		return xl_good(c, plen);
	return xl_plan_dsm(c, ranges, plen);
}

/* --- persistent reservations (SPC-4 6.15, 6.16) --- */

/* PERSISTENT RESERVE OUT service actions and its parameter list. */
#define XL_PRO_REGISTER		0x00
#define XL_PRO_RESERVE		0x01
#define XL_PRO_RELEASE		0x02
#define XL_PRO_CLEAR		0x03
#define XL_PRO_PREEMPT		0x04
#define XL_PRO_PREEMPT_ABORT	0x05
#define XL_PRO_REGISTER_IGNORE	0x06
#define XL_PRO_PARAM_LEN	24
#define XL_PRO_SPEC_I_PT	0x08	/* parameter list byte 20 */
#define XL_PRO_APTPL		0x01

/* PERSISTENT RESERVE IN service actions. */
#define XL_PRI_READ_KEYS	0x00
#define XL_PRI_READ_RESERVATION	0x01
#define XL_PRI_REPORT_CAPS	0x02
#define XL_PRI_READ_FULL_STATUS	0x03

/*
 * The Reservation Report a PERSISTENT RESERVE IN reads: 63 registrants,
 * whose full status (48 bytes each) fits out->buf.
 */
#define XL_PRI_REPORT_LEN	4096
#define XL_PRI_HDR_LEN		8
#define XL_PRI_FULL_DESC_LEN	48	/* descriptor and its TransportID */
#define XL_PRI_TRANSPORT_ID_LEN	24
#define XL_PRI_SRP_PROTOCOL	0x04	/* SPC-4 protocol identifier: SRP */

/* CDW10 of the three reservation commands (NVMe base spec 7.4-7.7). */
#define XL_RESV_IEKEY		BIT(3)
#define XL_RESV_RTYPE(t)	((u32)(t) << 8)
#define XL_RESV_CPTPL(c)	((u32)(c) << 30)
#define XL_RREGA_REGISTER	0
#define XL_RREGA_UNREGISTER	1
#define XL_RREGA_REPLACE	2
#define XL_RACQA_ACQUIRE	0
#define XL_RACQA_PREEMPT	1
#define XL_RACQA_PREEMPT_ABORT	2
#define XL_RRELA_RELEASE	0
#define XL_RRELA_CLEAR		1
#define XL_RTYPE_WEAR		5	/* Write Exclusive - All Registrants */
#define XL_RTYPE_EAAR		6	/* Exclusive Access - All Registrants */

/* SCSI's type codes in NVMe RTYPE order (1..6). */
static const u8 xl_scsi_types[] = { 1, 3, 5, 6, 7, 8 };

u8 rblk_resv_type_to_nvme(u8 scsi_type)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(xl_scsi_types); i++)
		if (xl_scsi_types[i] == scsi_type)
			return i + 1;
	return 0;
}

u8 rblk_resv_type_to_scsi(u8 rtype)
{
	if (!rtype || rtype > ARRAY_SIZE(xl_scsi_types))
		return 0;
	return xl_scsi_types[rtype - 1];
}

/* Reservation Register: the SCSI register verbs' cases. */
static int xl_resv_register(bool ignore, u64 key, u64 sa_key, u8 cptpl,
			    struct rblk_resv_cmd *cmd)
{
	u32 flags = XL_RESV_CPTPL(cptpl);

	cmd->opcode = nvme_cmd_resv_register;
	if (!sa_key) {
		/* key 0 to key 0: an unregistered host stays so (SPC-4) */
		if (!key && !ignore)
			return 1;
		cmd->cdw10 = XL_RREGA_UNREGISTER | flags |
			     (ignore ? XL_RESV_IEKEY : 0);
	} else if (ignore) {
		/*
		 * NVMe has no "register whatever is registered": Register
		 * fails for a host registered with another key, Replace for
		 * one not registered. Register first; on its conflict the
		 * host is registered, and Replace ignoring the key follows.
		 */
		cmd->cdw10 = XL_RREGA_REGISTER | flags;
		cmd->retry_cdw10 = XL_RREGA_REPLACE | XL_RESV_IEKEY | flags;
	} else {
		cmd->cdw10 = (key ? XL_RREGA_REPLACE : XL_RREGA_REGISTER) |
			     flags;
	}
	return 0;
}

int rblk_resv_build(enum rblk_resv_verb verb, u64 key, u64 sa_key,
		    u8 scsi_type, u8 cptpl, struct rblk_resv_cmd *cmd)
{
	u8 rtype = rblk_resv_type_to_nvme(scsi_type);

	memset(cmd, 0, sizeof(*cmd));
	put_unaligned_le64(key, &cmd->data[0]);
	cmd->data_len = 16;
	switch (verb) {
	case RBLK_RESV_REGISTER:
	case RBLK_RESV_REGISTER_IGNORE:
		put_unaligned_le64(sa_key, &cmd->data[8]);
		return xl_resv_register(verb == RBLK_RESV_REGISTER_IGNORE,
					key, sa_key, cptpl, cmd);
	case RBLK_RESV_CLEAR:
		cmd->opcode = nvme_cmd_resv_release;
		cmd->cdw10 = XL_RRELA_CLEAR;
		cmd->data_len = 8;
		return 0;
	default:
		break;
	}
	if (!rtype)
		return -EINVAL;
	switch (verb) {
	case RBLK_RESV_RESERVE:
		cmd->opcode = nvme_cmd_resv_acquire;
		cmd->cdw10 = XL_RACQA_ACQUIRE | XL_RESV_RTYPE(rtype);
		return 0;
	case RBLK_RESV_RELEASE:
		cmd->opcode = nvme_cmd_resv_release;
		cmd->cdw10 = XL_RRELA_RELEASE | XL_RESV_RTYPE(rtype);
		cmd->data_len = 8;
		return 0;
	case RBLK_RESV_PREEMPT:
	case RBLK_RESV_PREEMPT_ABORT:
		put_unaligned_le64(sa_key, &cmd->data[8]);
		cmd->opcode = nvme_cmd_resv_acquire;
		cmd->cdw10 = XL_RESV_RTYPE(rtype) |
			     (verb == RBLK_RESV_PREEMPT ? XL_RACQA_PREEMPT :
							  XL_RACQA_PREEMPT_ABORT);
		return 0;
	default:
		return -EINVAL;
	}
}

void rblk_resv_report_cmd(u32 len, u32 *cdw10, u32 *cdw11)
{
	*cdw10 = len / 4 - 1;		/* NUMD, 0's based dwords */
	*cdw11 = 1;			/* EDS: 128-bit Host IDs */
}

static const u8 *xl_resv_entry(const struct rblk_resv_report *r,
			       unsigned int i)
{
	return &r->entries[i * RBLK_RESV_ENTRY_LEN];
}

u64 rblk_resv_key(const struct rblk_resv_report *r, unsigned int i)
{
	return get_unaligned_le64(&xl_resv_entry(r, i)[8]);
}

static bool xl_resv_all_registrants(u8 rtype)
{
	return rtype == XL_RTYPE_WEAR || rtype == XL_RTYPE_EAAR;
}

bool rblk_resv_holder(const struct rblk_resv_report *r, unsigned int i)
{
	if (!r->rtype)
		return false;
	return xl_resv_all_registrants(r->rtype) ||
	       (xl_resv_entry(r, i)[2] & 0x01);		/* RCSTS */
}

const u8 *rblk_resv_hostid(const struct rblk_resv_report *r, unsigned int i)
{
	return &xl_resv_entry(r, i)[16];
}

int rblk_resv_report_parse(const u8 *data, u32 len,
			   struct rblk_resv_report *r)
{
	u32 n;

	if (len < RBLK_RESV_HDR_LEN)
		return -EINVAL;
	r->gen = get_unaligned_le32(&data[0]);
	r->rtype = data[4];
	r->regctl = get_unaligned_le16(&data[5]);
	r->ptpls = data[9] & 0x01;
	r->entries = &data[RBLK_RESV_HDR_LEN];
	if (r->rtype && !rblk_resv_type_to_scsi(r->rtype))
		return -EPROTO;
	/*
	 * A registrant has a Host ID (reservations need one): an entry
	 * without is what the target never wrote (the host cannot tell how
	 * many bytes an RDMA transfer held; the buffer was zeroed), and the
	 * report ends there.
	 */
	n = min_t(u32, r->regctl,
		  (len - RBLK_RESV_HDR_LEN) / RBLK_RESV_ENTRY_LEN);
	for (r->nr = 0; r->nr < n; r->nr++)
		if (!xl_nonzero(rblk_resv_hostid(r, r->nr),
				RBLK_RESV_HOSTID_LEN))
			break;
	return 0;
}

u64 rblk_resv_holder_key(const struct rblk_resv_report *r)
{
	unsigned int i;

	if (!r->rtype || xl_resv_all_registrants(r->rtype))
		return 0;
	for (i = 0; i < r->nr; i++)
		if (rblk_resv_holder(r, i))
			return rblk_resv_key(r, i);
	return 0;
}

static bool xl_pr_out_registers(u8 sa)
{
	return sa == XL_PRO_REGISTER || sa == XL_PRO_REGISTER_IGNORE;
}

/* PERSISTENT RESERVE OUT service action -> verb; false: not supported. */
static bool xl_pr_out_verb(u8 sa, enum rblk_resv_verb *verb)
{
	static const enum rblk_resv_verb verbs[] = {
		[XL_PRO_REGISTER]	= RBLK_RESV_REGISTER,
		[XL_PRO_RESERVE]	= RBLK_RESV_RESERVE,
		[XL_PRO_RELEASE]	= RBLK_RESV_RELEASE,
		[XL_PRO_CLEAR]		= RBLK_RESV_CLEAR,
		[XL_PRO_PREEMPT]	= RBLK_RESV_PREEMPT,
		[XL_PRO_PREEMPT_ABORT]	= RBLK_RESV_PREEMPT_ABORT,
		[XL_PRO_REGISTER_IGNORE] = RBLK_RESV_REGISTER_IGNORE,
	};

	/* REGISTER AND MOVE and REPLACE LOST RESERVATION have no NVMe verb */
	if (sa >= ARRAY_SIZE(verbs))
		return false;
	*verb = verbs[sa];
	return true;
}

/*
 * APTPL as CPTPL: only the register verbs carry it; without PTPL in
 * RESCAP there is no state to set, and APTPL 1 cannot be honoured.
 */
static int xl_pr_out_cptpl(struct xl_ctx *c, u8 sa, u8 *cptpl)
{
	bool capable = c->ns->rescap & RBLK_RESCAP_PTPL;
	bool aptpl = c->req->param[20] & XL_PRO_APTPL;

	*cptpl = RBLK_CPTPL_KEEP;
	if (!xl_pr_out_registers(sa))
		return 0;
	if (aptpl && !capable)
		return xl_bad_param(c, 20, 0);
	if (capable)
		*cptpl = aptpl ? RBLK_CPTPL_ON : RBLK_CPTPL_OFF;
	return 0;
}

static int xl_pr_out(struct xl_ctx *c)
{
	const u8 *cdb = c->cdb, *p = c->req->param;
	u8 sa = cdb[1] & 0x1f, scope = cdb[2] >> 4, type = cdb[2] & 0x0f;
	u32 plen = get_unaligned_be32(&cdb[5]);
	struct rblk_xlate_nvme *cmd;
	enum rblk_resv_verb verb;
	struct rblk_resv_cmd rc;
	u8 cptpl;
	int ret;

	if (!c->ns->resv_supported)
		return xl_bad_opcode(c);
	if (xl_want_dir(c, RBLK_XLATE_DIR_TO_DEV))
		return -EINVAL;
	if (!xl_pr_out_verb(sa, &verb))
		return xl_bad_cdb(c, 1, 4);
	/* the type and scope of RESERVE, RELEASE and the PREEMPTs */
	if (!xl_pr_out_registers(sa) && sa != XL_PRO_CLEAR) {
		if (scope)			/* LU_SCOPE only */
			return xl_bad_cdb(c, 2, 7);
		if (!rblk_resv_type_to_nvme(type))
			return xl_bad_cdb(c, 2, 3);
	}
	if (plen > c->req->dxfer_len)
		return xl_bad_cdb(c, 5, XL_NO_BIT);
	if (plen != XL_PRO_PARAM_LEN || c->req->param_len < plen)
		return xl_param_len_error(c);
	/*
	 * ALL_TG_PT is accepted either way: an NVMe registration is the
	 * host's, on every controller (target port) of the subsystem.
	 */
	if (p[20] & XL_PRO_SPEC_I_PT)
		return xl_bad_param(c, 20, 3);
	ret = xl_pr_out_cptpl(c, sa, &cptpl);
	if (ret)
		return ret;
	ret = rblk_resv_build(verb, get_unaligned_be64(&p[0]),
			      get_unaligned_be64(&p[8]), type, cptpl, &rc);
	if (ret < 0)
		return xl_bad_cdb(c, 2, 3);
	if (ret > 0)
		return xl_good(c, plen);
	memcpy(c->out->buf, rc.data, rc.data_len);
	cmd = xl_plan(c, rc.opcode, RBLK_XLATE_DATA_BUF, rc.data_len, plen);
	cmd->write = true;
	cmd->cdw10 = rc.cdw10;
	c->out->retry_cdw10 = rc.retry_cdw10;
	return 0;
}

static int xl_pr_in(struct xl_ctx *c)
{
	const struct rblk_xlate_ns *ns = c->ns;
	struct rblk_xlate_out *out = c->out;
	struct rblk_xlate_nvme *cmd;
	u8 sa = c->cdb[1] & 0x1f;
	u32 len = XL_PRI_REPORT_LEN;

	if (!ns->resv_supported)
		return xl_bad_opcode(c);
	if (xl_want_dir(c, RBLK_XLATE_DIR_FROM_DEV))
		return -EINVAL;
	if (sa > XL_PRI_READ_FULL_STATUS)
		return xl_bad_cdb(c, 1, 4);
	/* The capabilities need the header only (PTPLS). */
	if (sa == XL_PRI_REPORT_CAPS)
		len = RBLK_RESV_HDR_LEN;
	/* Fewer registrants rather than a transfer the queue refuses. */
	if (ns->max_xfer_bytes && ns->max_xfer_bytes < len)
		len = max_t(u32, RBLK_RESV_HDR_LEN, ns->max_xfer_bytes -
			    ns->max_xfer_bytes % RBLK_RESV_ENTRY_LEN);
	cmd = xl_plan(c, nvme_cmd_resv_report, RBLK_XLATE_DATA_REPORT, len,
		      0);
	rblk_resv_report_cmd(len, &cmd->cdw10, &cmd->cdw11);
	out->pr_in_sa = sa;
	out->alloc_len = get_unaligned_be16(&c->cdb[7]);
	out->rescap = ns->rescap;
	return 0;
}

/* The PRgeneration and ADDITIONAL LENGTH header; returns the answer's size. */
static u32 xl_pri_header(u8 *d, const struct rblk_resv_report *r, u32 len)
{
	put_unaligned_be32(r->gen, &d[0]);
	put_unaligned_be32(len, &d[4]);
	return XL_PRI_HDR_LEN + len;
}

/* How many of the entries read fit out->buf at @size bytes each. */
static u32 xl_pri_count(const struct rblk_resv_report *r, u32 size)
{
	return min_t(u32, r->nr,
		     (RBLK_XLATE_BUF_LEN - XL_PRI_HDR_LEN) / size);
}

static u32 xl_pri_read_keys(u8 *d, const struct rblk_resv_report *r)
{
	u32 i, n = xl_pri_count(r, 8);

	for (i = 0; i < n; i++)
		put_unaligned_be64(rblk_resv_key(r, i),
				   &d[XL_PRI_HDR_LEN + i * 8]);
	return xl_pri_header(d, r, n * 8);
}

static u32 xl_pri_read_reservation(u8 *d, const struct rblk_resv_report *r)
{
	u8 *rsv = &d[XL_PRI_HDR_LEN];

	if (!r->rtype)
		return xl_pri_header(d, r, 0);
	memset(rsv, 0, 16);
	put_unaligned_be64(rblk_resv_holder_key(r), &rsv[0]);
	rsv[13] = rblk_resv_type_to_scsi(r->rtype);	/* LU_SCOPE */
	return xl_pri_header(d, r, 16);
}

/* The capabilities are the namespace's RESCAP, and PTPLS as PTPL_A. */
static u32 xl_pri_report_caps(u8 *d, const struct rblk_resv_report *r,
			      u8 rescap)
{
	/* type mask bits of RESCAP bits 1..6: WE, EA, WERO, EARO, WEAR */
	static const u8 mask4[] = { 0x02, 0x08, 0x20, 0x40, 0x80 };
	unsigned int i;

	memset(d, 0, 8);
	put_unaligned_be16(8, &d[0]);
	d[2] = 0x04;					/* ATP_C */
	if (rescap & RBLK_RESCAP_PTPL)
		d[2] |= 0x01;				/* PTPL_C */
	d[3] = 0x80 | (r->ptpls ? 0x01 : 0);		/* TMV, PTPL_A */
	for (i = 0; i < ARRAY_SIZE(mask4); i++)
		if (rescap & BIT(i + 1))
			d[4] |= mask4[i];
	if (rescap & BIT(6))
		d[5] = 0x01;				/* EX_AC_AR */
	return 8;
}

/*
 * Each registrant with an SRP TransportID (SPC-4 7.6.4.5), whose 16-byte
 * initiator port identifier holds the 128-bit Host ID exactly: an NVMe
 * host has no SCSI port name, and SRP is SCSI's RDMA transport.
 */
static u32 xl_pri_full_status(u8 *d, const struct rblk_resv_report *r)
{
	u32 i, n = xl_pri_count(r, XL_PRI_FULL_DESC_LEN);

	for (i = 0; i < n; i++) {
		u8 *e = &d[XL_PRI_HDR_LEN + i * XL_PRI_FULL_DESC_LEN];

		memset(e, 0, XL_PRI_FULL_DESC_LEN);
		put_unaligned_be64(rblk_resv_key(r, i), &e[0]);
		e[12] = 0x02;				/* ALL_TG_PT */
		if (rblk_resv_holder(r, i)) {
			e[12] |= 0x01;			/* R_HOLDER */
			e[13] = rblk_resv_type_to_scsi(r->rtype);
		}
		put_unaligned_be32(XL_PRI_TRANSPORT_ID_LEN, &e[20]);
		e[24] = XL_PRI_SRP_PROTOCOL;
		memcpy(&e[32], rblk_resv_hostid(r, i), RBLK_RESV_HOSTID_LEN);
	}
	return xl_pri_header(d, r, n * XL_PRI_FULL_DESC_LEN);
}

/* --- mode pages --- */

enum xl_pc { XL_PC_CURRENT, XL_PC_CHANGEABLE, XL_PC_DEFAULT, XL_PC_SAVED };

static u32 xl_mp_caching(const struct rblk_xlate_ns *ns, enum xl_pc pc,
			 u8 *p)
{
	/*
	 * WCE is the Volatile Write Cache feature, the controller's: set
	 * through one namespace it would switch every other one's cache
	 * under its openers. Not changeable here.
	 */
	bool wce = ns->vwc_present && pc != XL_PC_CHANGEABLE &&
		   (pc != XL_PC_CURRENT || ns->vwc_enabled);

	memset(p, 0, XL_MP_CACHING_LEN);
	p[0] = XL_MP_CACHING;
	p[1] = XL_MP_CACHING_LEN - 2;
	if (wce)
		p[2] = XL_MP_WCE;
	return XL_MP_CACHING_LEN;
}

static u32 xl_mp_control(const struct rblk_xlate_ns *ns, enum xl_pc pc,
			 u8 *p)
{
	memset(p, 0, XL_MP_CONTROL_LEN);
	p[0] = XL_MP_CONTROL;
	p[1] = XL_MP_CONTROL_LEN - 2;
	if (pc == XL_PC_CHANGEABLE) {
		if (!ns->d_sense_fixed)
			p[2] = XL_MP_D_SENSE;
		return XL_MP_CONTROL_LEN;
	}
	p[2] = 0x02;				/* GLTSD: no log pages */
	if (pc == XL_PC_CURRENT && ns->d_sense)
		p[2] |= XL_MP_D_SENSE;
	p[3] = 0x10;				/* unrestricted reordering */
	put_unaligned_be16(0xffff, &p[8]);	/* busy timeout: unlimited */
	return XL_MP_CONTROL_LEN;
}

/* Mode pages asked for by page and subpage code; 0 if none match. */
static u32 xl_mode_pages(struct xl_ctx *c, u8 page, u8 sub, enum xl_pc pc,
			 u8 *p)
{
	u32 n = 0;

	if (sub && !(page == XL_MP_ALL && sub == 0xff))
		return 0;
	if (page == XL_MP_CACHING || page == XL_MP_ALL)
		n += xl_mp_caching(c->ns, pc, &p[n]);
	if (page == XL_MP_CONTROL || page == XL_MP_ALL)
		n += xl_mp_control(c->ns, pc, &p[n]);
	return n;
}

static u32 xl_block_descriptor(const struct rblk_xlate_ns *ns, bool llba,
			       u8 *d)
{
	if (llba) {
		memset(d, 0, 16);
		put_unaligned_be64(ns->nr_lbas, &d[0]);
		put_unaligned_be32(xl_block_size(ns), &d[12]);
		return 16;
	}
	memset(d, 0, 8);
	put_unaligned_be32(min_t(u64, ns->nr_lbas, 0xffffffff), &d[0]);
	put_unaligned_be24(xl_block_size(ns), &d[5]);
	return 8;
}

static int xl_mode_sense(struct xl_ctx *c)
{
	const u8 *cdb = c->cdb;
	bool ten = cdb[0] == XL_MODE_SENSE_10;
	bool llba = ten && (cdb[1] & 0x10);
	enum xl_pc pc = cdb[2] >> 6;
	u8 page = cdb[2] & 0x3f;
	u32 hdr = ten ? 8 : 4, bd = 0, n;
	u8 *d = c->out->buf;
	u8 devspec;

	if (xl_want_dir(c, RBLK_XLATE_DIR_FROM_DEV))
		return -EINVAL;
	if (pc == XL_PC_SAVED)
		return xl_check(c, XL_SK_ILLEGAL_REQUEST,
				XL_ASC_SAVING_NOT_SUPP, 0);
	memset(d, 0, hdr);
	if (!(cdb[1] & 0x08))			/* DBD */
		bd = xl_block_descriptor(c->ns, llba, &d[hdr]);
	n = xl_mode_pages(c, page, cdb[3], pc, &d[hdr + bd]);
	if (!n) {
		if (page == XL_MP_CACHING || page == XL_MP_CONTROL ||
		    page == XL_MP_ALL)
			return xl_bad_cdb(c, 3, XL_NO_BIT);
		return xl_bad_cdb(c, 2, 5);
	}
	n += hdr + bd;
	devspec = 0x10 | (c->ns->read_only ? 0x80 : 0);	/* DPOFUA, WP */
	if (ten) {
		put_unaligned_be16(n - 2, &d[0]);
		d[3] = devspec;
		d[4] = bd == 16 ? 0x01 : 0;		/* LONGLBA */
		put_unaligned_be16(bd, &d[6]);
		return xl_data(c, n, get_unaligned_be16(&cdb[7]));
	}
	d[0] = n - 1;
	d[2] = devspec;
	d[3] = bd;
	return xl_data(c, n, cdb[4]);
}

/* One MODE SELECT page: only D_SENSE may differ from current. */
static int xl_select_page(struct xl_ctx *c, const u8 *p, u32 off, bool *dsense)
{
	u8 cur[XL_MP_CACHING_LEN];
	u32 len, i;
	u8 mask;

	if (p[off] & 0x40)			/* SPF: no subpages */
		return xl_bad_param(c, off, 6);
	switch (p[off] & 0x3f) {
	case XL_MP_CACHING:
		len = xl_mp_caching(c->ns, XL_PC_CURRENT, cur);
		mask = 0;			/* WCE: see xl_mp_caching() */
		break;
	case XL_MP_CONTROL:
		len = xl_mp_control(c->ns, XL_PC_CURRENT, cur);
		mask = c->ns->d_sense_fixed ? 0 : XL_MP_D_SENSE;
		break;
	default:
		return xl_bad_param(c, off, 5);
	}
	if (p[off + 1] != len - 2)
		return xl_bad_param(c, off + 1, XL_NO_BIT);
	for (i = 1; i < len; i++) {
		u8 ign = i == 2 ? mask : 0;

		if ((p[off + i] & ~ign) != (cur[i] & ~ign))
			return xl_bad_param(c, off + i, XL_NO_BIT);
	}
	if (cur[0] == XL_MP_CONTROL)
		*dsense = p[off + 2] & XL_MP_D_SENSE;
	return 0;
}

/* The block descriptor of MODE SELECT may only restate the block size. */
static int xl_select_bd(struct xl_ctx *c, const u8 *p, u32 hdr, u32 bd,
			bool ten)
{
	u32 size;

	if (bd != 8 && !(bd == 16 && ten && (p[4] & 0x01)))
		return xl_bad_param(c, ten ? 6 : 3, XL_NO_BIT);
	size = bd == 16 ? get_unaligned_be32(&p[hdr + 12]) :
			  get_unaligned_be24(&p[hdr + 5]);
	if (size != xl_block_size(c->ns))
		return xl_bad_param(c, hdr + (bd == 16 ? 12 : 5),
				    XL_NO_BIT);
	return 0;
}

static int xl_mode_select(struct xl_ctx *c)
{
	const struct rblk_xlate_ns *ns = c->ns;
	bool ten = c->cdb[0] == XL_MODE_SELECT_10;
	bool dsense = ns->d_sense;
	const u8 *p = c->req->param;
	u32 plen, hdr = ten ? 8 : 4, bd, off;
	int ret;

	if (c->cdb[1] & 0x01)			/* SP: nothing is saved */
		return xl_bad_cdb(c, 1, 0);
	if (!(c->cdb[1] & 0x10))		/* PF: standard pages only */
		return xl_bad_cdb(c, 1, 4);
	ret = xl_param_list(c, &plen);
	if (ret)
		return ret;
	if (plen < hdr || c->req->param_len < plen)
		return xl_param_len_error(c);
	bd = ten ? get_unaligned_be16(&p[6]) : p[3];
	if (bd > plen - hdr)
		return xl_param_len_error(c);
	ret = bd ? xl_select_bd(c, p, hdr, bd, ten) : 0;
	if (ret)
		return ret;
	for (off = hdr + bd; off < plen; off += p[off + 1] + 2) {
		if (plen - off < 2 || plen - off < p[off + 1] + 2U)
			return xl_param_len_error(c);
		ret = xl_select_page(c, p, off, &dsense);
		if (ret)
			return ret;
	}
	xl_good(c, plen);
	if (dsense != ns->d_sense)
		c->out->effects = dsense ? RBLK_XLATE_FX_DSENSE_ON :
					   RBLK_XLATE_FX_DSENSE_OFF;
	return 0;
}

/* --- dispatch --- */

struct xl_op {
	u8	opcode;
	int	(*fn)(struct xl_ctx *c);
};

static const struct xl_op xl_ops[] = {
	{ XL_TEST_UNIT_READY,	xl_test_unit_ready },
	{ XL_REQUEST_SENSE,	xl_request_sense },
	{ XL_READ_6,		xl_read_write },
	{ XL_WRITE_6,		xl_read_write },
	{ XL_INQUIRY,		xl_inquiry },
	{ XL_MODE_SELECT_6,	xl_mode_select },
	{ XL_MODE_SENSE_6,	xl_mode_sense },
	{ XL_START_STOP_UNIT,	xl_start_stop_unit },
	{ XL_READ_CAPACITY_10,	xl_read_capacity_10 },
	{ XL_READ_10,		xl_read_write },
	{ XL_WRITE_10,		xl_read_write },
	{ XL_VERIFY_10,		xl_verify },
	{ XL_SYNC_CACHE_10,	xl_sync_cache },
	{ XL_WRITE_SAME_10,	xl_write_same },
	{ XL_UNMAP,		xl_unmap },
	{ XL_MODE_SELECT_10,	xl_mode_select },
	{ XL_MODE_SENSE_10,	xl_mode_sense },
	{ XL_PR_IN,		xl_pr_in },
	{ XL_PR_OUT,		xl_pr_out },
	{ XL_READ_16,		xl_read_write },
	{ XL_WRITE_16,		xl_read_write },
	{ XL_VERIFY_16,		xl_verify },
	{ XL_SYNC_CACHE_16,	xl_sync_cache },
	{ XL_WRITE_SAME_16,	xl_write_same },
	{ XL_SERVICE_ACTION_IN_16, xl_service_action_in },
	{ XL_REPORT_LUNS,	xl_report_luns },
	{ XL_READ_12,		xl_read_write },
	{ XL_WRITE_12,		xl_read_write },
};

/* CDB size by group code; 0 for the variable and vendor groups. */
static unsigned int xl_cdb_size(u8 opcode)
{
	switch (opcode >> 5) {
	case 0:
		return 6;
	case 1:
	case 2:
		return 10;
	case 4:
		return 16;
	case 5:
		return 12;
	default:
		return 0;
	}
}

static const struct xl_op *xl_find_op(u8 opcode)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(xl_ops); i++)
		if (xl_ops[i].opcode == opcode)
			return &xl_ops[i];
	return NULL;
}

int rblk_xlate_cmd(const struct rblk_xlate_ns *ns,
		   const struct rblk_xlate_req *req, struct rblk_xlate_out *out)
{
	struct xl_ctx c = { .ns = ns, .req = req, .out = out, .cdb = req->cdb };
	const struct xl_op *op;
	unsigned int size;
	u8 control;
	int ret;

	/* The core derives the facts from the target: refuse odd ones. */
	if (ns->lba_shift < 9 || ns->lba_shift > 16)
		return -EIO;
	if (req->cdb_len < 6 || req->cdb_len > 16)
		return -EINVAL;
	if (req->dxfer_len && req->dir == RBLK_XLATE_DIR_NONE)
		return -EINVAL;
	out->dxfer_len = req->dxfer_len;
	out->d_sense = ns->d_sense;
	out->effects = 0;
	out->retry_cdw10 = 0;
	out->kind = RBLK_XLATE_DONE;
	size = xl_cdb_size(req->cdb[0]);
	if (size > req->cdb_len)
		return -EINVAL;
	op = xl_find_op(req->cdb[0]);
	if (!op) {
		xl_bad_opcode(&c);
		return 0;
	}
	control = req->cdb[size - 1];		/* every op has a fixed size */
	if (control & 0x04)			/* NACA */
		ret = xl_bad_cdb(&c, size - 1, 2);
	else if (control & 0x01)		/* obsolete LINK */
		ret = xl_bad_cdb(&c, size - 1, 0);
	else
		ret = op->fn(&c);
	return ret < 0 ? ret : 0;
}

u32 rblk_xlate_param_len(const struct rblk_xlate_ns *ns, const u8 *cdb,
			 unsigned int cdb_len)
{
	unsigned int off;

	if (cdb_len < 6 || xl_cdb_size(cdb[0]) > cdb_len)
		return 0;
	switch (cdb[0]) {
	case XL_MODE_SELECT_6:
	case XL_MODE_SELECT_10:
		return xl_param_list_len(cdb, &off);
	case XL_PR_OUT:
		return min_t(u32, get_unaligned_be32(&cdb[5]),
			     XL_PRO_PARAM_LEN);
	case XL_UNMAP:
		/* descriptors past the DSM limit are refused unread */
		return min_t(u32, xl_param_list_len(cdb, &off),
			     XL_UNMAP_HDR_LEN + XL_UNMAP_DESC_LEN *
			     RBLK_XLATE_MAX_DSM_RANGES);
	case XL_WRITE_SAME_16:
		if (cdb[1] & 0x01)		/* NDOB */
			return 0;
		fallthrough;
	case XL_WRITE_SAME_10:
		return xl_block_size(ns);
	default:
		return 0;
	}
}

/* --- access rights --- */

/*
 * Mirrors scsi_cmd_allowed(): the opcodes an opener without write access
 * may send, and those an opener with write access may send; the rest need
 * CAP_SYS_RAWIO. One deliberate difference: UNMAP (0x42, which the kernel
 * lets through as the CD-ROM READ SUBCHANNEL) needs write access here.
 */
static const u8 xl_acc_read[] = {
	0x00, 0x03, 0x08, 0x28, 0xa8, 0x88, 0x3c, 0x37, 0x25, 0x3e, 0x12,
	0x1a, 0x5a, 0x4d, 0x1b, 0x2f, 0x8f, 0xa0, 0x9e, 0x1c, 0xa3, 0x5c,
	0xbc, 0x45, 0x47, 0x48, 0x4b, 0xbe, 0xb9, 0x51, 0xad, 0x44, 0x52,
	0x43, 0xa4, 0xba, 0x46, 0x23, 0x4a, 0xac, 0x2b, 0x4e, 0x95,
};

static const u8 xl_acc_write[] = {
	0x0a, 0x2a, 0x2e, 0xaa, 0xae, 0x8a, 0x3f, 0xea, 0x41, 0x93, 0x0d,
	0x19, 0x55, 0x15, 0x4c, 0xa1, 0x5b, 0x35, 0x04, 0x58, 0x53, 0xbf,
	0xa2, 0x54, 0x5d, 0xbb, 0x1e, 0xa6, 0xb6, 0xa7, 0x94, XL_UNMAP,
};

static bool xl_in(const u8 *set, unsigned int n, u8 opcode)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (set[i] == opcode)
			return true;
	return false;
}

enum rblk_xlate_access rblk_xlate_access(u8 opcode)
{
	if (xl_in(xl_acc_write, ARRAY_SIZE(xl_acc_write), opcode))
		return RBLK_XLATE_ACC_WRITE;
	if (xl_in(xl_acc_read, ARRAY_SIZE(xl_acc_read), opcode))
		return RBLK_XLATE_ACC_READ;
	return RBLK_XLATE_ACC_RAWIO;
}

/* --- NVMe status -> SCSI --- */

struct xl_status_map {
	u16	nvme;		/* NVME_SC_*: SCT << 8 | SC */
	u8	sam;
	u8	key;
	u8	asc;
	u8	ascq;
};

#define XL_CC(nvme, key, asc, ascq) \
	{ nvme, RBLK_SAM_CHECK_CONDITION, key, asc, ascq }

static const struct xl_status_map xl_status_map[] = {
	/* generic command status */
	XL_CC(NVME_SC_INVALID_OPCODE, XL_SK_ILLEGAL_REQUEST, 0x20, 0x00),
	XL_CC(NVME_SC_INVALID_FIELD, XL_SK_ILLEGAL_REQUEST, 0x24, 0x00),
	XL_CC(NVME_SC_CMDID_CONFLICT, XL_SK_ABORTED_COMMAND, 0x00, 0x00),
	XL_CC(NVME_SC_DATA_XFER_ERROR, XL_SK_MEDIUM_ERROR, 0x00, 0x00),
	XL_CC(NVME_SC_POWER_LOSS, XL_SK_ABORTED_COMMAND, 0x0b, 0x08),
	XL_CC(NVME_SC_INTERNAL, XL_SK_HARDWARE_ERROR, 0x44, 0x00),
	XL_CC(NVME_SC_ABORT_REQ, XL_SK_ABORTED_COMMAND, 0x00, 0x00),
	XL_CC(NVME_SC_ABORT_QUEUE, XL_SK_ABORTED_COMMAND, 0x00, 0x00),
	XL_CC(NVME_SC_FUSED_FAIL, XL_SK_ABORTED_COMMAND, 0x00, 0x00),
	XL_CC(NVME_SC_FUSED_MISSING, XL_SK_ABORTED_COMMAND, 0x00, 0x00),
	XL_CC(NVME_SC_INVALID_NS, XL_SK_ILLEGAL_REQUEST, 0x20, 0x09),
	XL_CC(NVME_SC_CMD_SEQ_ERROR, XL_SK_ILLEGAL_REQUEST, 0x2c, 0x00),
	XL_CC(NVME_SC_OP_DENIED, XL_SK_DATA_PROTECT, 0x20, 0x02),
	XL_CC(NVME_SC_SANITIZE_IN_PROGRESS, XL_SK_NOT_READY, 0x04, 0x1b),
	XL_CC(NVME_SC_NS_WRITE_PROTECTED, XL_SK_DATA_PROTECT, 0x27, 0x00),
	XL_CC(NVME_SC_CMD_INTERRUPTED, XL_SK_ABORTED_COMMAND, 0x00, 0x00),
	XL_CC(NVME_SC_TRANSIENT_TR_ERR, XL_SK_ABORTED_COMMAND, 0x00, 0x00),
	XL_CC(NVME_SC_LBA_RANGE, XL_SK_ILLEGAL_REQUEST, 0x21, 0x00),
	XL_CC(NVME_SC_CAP_EXCEEDED, XL_SK_MEDIUM_ERROR, 0x00, 0x00),
	XL_CC(NVME_SC_NS_NOT_READY, XL_SK_NOT_READY, 0x04, 0x00),
	{ NVME_SC_RESERVATION_CONFLICT, RBLK_SAM_RESERVATION_CONFLICT, 0, 0, 0 },
	XL_CC(NVME_SC_FORMAT_IN_PROGRESS, XL_SK_NOT_READY, 0x04, 0x04),
	/* command specific status */
	XL_CC(NVME_SC_INVALID_FORMAT, XL_SK_ILLEGAL_REQUEST, 0x31, 0x01),
	XL_CC(NVME_SC_BAD_ATTRIBUTES, XL_SK_ILLEGAL_REQUEST, 0x24, 0x00),
	XL_CC(NVME_SC_INVALID_PI, XL_SK_ILLEGAL_REQUEST, 0x24, 0x00),
	XL_CC(NVME_SC_READ_ONLY, XL_SK_DATA_PROTECT, 0x27, 0x00),
	/* media and data integrity errors */
	XL_CC(NVME_SC_WRITE_FAULT, XL_SK_MEDIUM_ERROR, 0x03, 0x00),
	XL_CC(NVME_SC_READ_ERROR, XL_SK_MEDIUM_ERROR, 0x11, 0x00),
	XL_CC(NVME_SC_GUARD_CHECK, XL_SK_MEDIUM_ERROR, 0x10, 0x01),
	XL_CC(NVME_SC_APPTAG_CHECK, XL_SK_MEDIUM_ERROR, 0x10, 0x02),
	XL_CC(NVME_SC_REFTAG_CHECK, XL_SK_MEDIUM_ERROR, 0x10, 0x03),
	XL_CC(NVME_SC_COMPARE_FAILED, XL_SK_MISCOMPARE, 0x1d, 0x00),
	XL_CC(NVME_SC_ACCESS_DENIED, XL_SK_DATA_PROTECT, 0x20, 0x02),
	XL_CC(NVME_SC_UNWRITTEN_BLOCK, XL_SK_MEDIUM_ERROR, 0x11, 0x00),
	/* path related status */
	XL_CC(NVME_SC_ANA_PERSISTENT_LOSS, XL_SK_NOT_READY, 0x04, 0x0c),
	XL_CC(NVME_SC_ANA_INACCESSIBLE, XL_SK_NOT_READY, 0x04, 0x0b),
	XL_CC(NVME_SC_ANA_TRANSITION, XL_SK_NOT_READY, 0x04, 0x0a),
};

/*
 * Codes the table does not know: media errors stay media errors, path
 * errors are worth a retry, anything else is a target failure.
 */
static const struct xl_status_map xl_status_default[] = {
	XL_CC(0x000, XL_SK_HARDWARE_ERROR, 0x44, 0x00),
	XL_CC(0x100, XL_SK_HARDWARE_ERROR, 0x44, 0x00),
	XL_CC(0x200, XL_SK_MEDIUM_ERROR, 0x00, 0x00),
	XL_CC(0x300, XL_SK_ABORTED_COMMAND, 0x00, 0x00),
};

void rblk_xlate_nvme_status(struct rblk_xlate_out *out, u16 nvme_status)
{
	struct xl_ctx c = { .out = out };
	const struct xl_status_map *m = &xl_status_default[0];
	u16 code = nvme_status & NVME_SCT_SC_MASK;
	unsigned int i;

	if ((code >> 8) < ARRAY_SIZE(xl_status_default))
		m = &xl_status_default[code >> 8];
	for (i = 0; i < ARRAY_SIZE(xl_status_map); i++) {
		if (xl_status_map[i].nvme == code) {
			m = &xl_status_map[i];
			break;
		}
	}
	xl_sense(&c, m->key, m->asc, m->ascq, NULL);
	if (m->sam != RBLK_SAM_CHECK_CONDITION) {
		out->status = m->sam;
		out->sense_len = 0;
	}
}

void rblk_xlate_complete(struct rblk_xlate_out *out, u16 nvme_status)
{
	out->kind = RBLK_XLATE_DONE;
	if (nvme_status & NVME_SCT_SC_MASK) {
		rblk_xlate_nvme_status(out, nvme_status);
		return;
	}
	out->status = RBLK_SAM_GOOD;
	out->sense_len = 0;
}

bool rblk_xlate_retry(struct rblk_xlate_out *out, u16 nvme_status)
{
	if (!out->retry_cdw10 || (nvme_status & NVME_SCT_SC_MASK) !=
				 NVME_SC_RESERVATION_CONFLICT)
		return false;
	out->nvme.cdw10 = out->retry_cdw10;
	out->retry_cdw10 = 0;
	return true;
}

void rblk_xlate_complete_data(struct rblk_xlate_out *out, u16 nvme_status,
			      const u8 *data, u32 len)
{
	struct xl_ctx c = { .out = out };
	struct rblk_resv_report r;
	u32 n;

	rblk_xlate_complete(out, nvme_status);
	if (out->status != RBLK_SAM_GOOD ||
	    out->nvme.data != RBLK_XLATE_DATA_REPORT)
		return;
	if (!data || rblk_resv_report_parse(data, len, &r)) {
		xl_check(&c, XL_SK_HARDWARE_ERROR, XL_ASC_TARGET_FAILURE, 0);
		return;
	}
	switch (out->pr_in_sa) {
	case XL_PRI_READ_KEYS:
		n = xl_pri_read_keys(out->buf, &r);
		break;
	case XL_PRI_READ_RESERVATION:
		n = xl_pri_read_reservation(out->buf, &r);
		break;
	case XL_PRI_REPORT_CAPS:
		n = xl_pri_report_caps(out->buf, &r, out->rescap);
		break;
	default:
		n = xl_pri_full_status(out->buf, &r);
		break;
	}
	xl_data(&c, n, out->alloc_len);
}

/* --- world wide identifier --- */

int rblk_xlate_wwid(const struct rblk_xlate_ns *ns, char *buf,
		    unsigned int len)
{
	static const u8 uuid_groups[] = { 4, 2, 2, 2, 6 };
	unsigned int i, off = 0;
	char *s = buf;

	if (len < RBLK_XLATE_WWID_LEN)
		return -EINVAL;
	if (xl_nonzero(ns->uuid, sizeof(ns->uuid))) {
		memcpy(s, "uuid.", 5);
		s += 5;
		for (i = 0; i < ARRAY_SIZE(uuid_groups); i++) {
			if (i)
				*s++ = '-';
			s = xl_hex(s, &ns->uuid[off], uuid_groups[i], false);
			off += uuid_groups[i];
		}
	} else if (xl_nonzero(ns->nguid, sizeof(ns->nguid))) {
		memcpy(s, "eui.", 4);
		s = xl_hex(s + 4, ns->nguid, sizeof(ns->nguid), false);
	} else if (xl_nonzero(ns->eui64, sizeof(ns->eui64))) {
		memcpy(s, "eui.", 4);
		s = xl_hex(s + 4, ns->eui64, sizeof(ns->eui64), false);
	} else {
		memcpy(s, "rblk.", 5);
		s += 5;
		for (i = 0; ns->subnqn && i < XL_NQN_MAX && ns->subnqn[i]; i++)
			*s++ = ns->subnqn[i];
		memcpy(s, "-nsid", 5);
		s = xl_dec(s + 5, ns->nsid);
	}
	*s = '\0';
	return s - buf;
}
