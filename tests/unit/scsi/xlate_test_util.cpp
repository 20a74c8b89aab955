// SPDX-License-Identifier: GPL-2.0
#include "xlate_test_util.h"

#include <cstring>

Sense decode_sense(const rblk_xlate_out &out)
{
	Sense s;
	const u8 *b = out.sense;
	const u8 *sks = nullptr;

	s.response = b[0];
	if (b[0] == 0x72) {
		EXPECT_TRUE(out.sense_len == 8 || out.sense_len == 16);
		s.key = b[1];
		s.asc = b[2];
		s.ascq = b[3];
		EXPECT_EQ(b[7], out.sense_len - 8);
		if (out.sense_len == 16) {
			EXPECT_EQ(b[8], 0x02);	// sense key specific
			EXPECT_EQ(b[9], 0x06);
			sks = &b[12];
		}
	} else {
		EXPECT_EQ(b[0], 0x70);
		EXPECT_EQ(out.sense_len, 18);
		EXPECT_EQ(b[7], 10);
		s.key = b[2] & 0x0f;
		s.asc = b[12];
		s.ascq = b[13];
		if (b[15] & 0x80)
			sks = &b[15];
	}
	if (sks) {
		s.sksv = sks[0] & 0x80;
		s.cd = sks[0] & 0x40;
		s.bit = (sks[0] & 0x08) ? (sks[0] & 7) : -1;
		s.field = be16(&sks[1]);
	}
	return s;
}

Bytes cdb6(u8 op, u8 b1, u8 b2, u8 b3, u8 b4, u8 b5)
{
	return { op, b1, b2, b3, b4, b5 };
}

Bytes cdb10(u8 op, u32 lba, u16 len, u8 b1, u8 control)
{
	Bytes c(10, 0);

	c[0] = op;
	c[1] = b1;
	for (int i = 0; i < 4; i++)
		c[2 + i] = lba >> (24 - 8 * i);
	c[7] = len >> 8;
	c[8] = len;
	c[9] = control;
	return c;
}

Bytes cdb12(u8 op, u32 lba, u32 len, u8 b1)
{
	Bytes c(12, 0);

	c[0] = op;
	c[1] = b1;
	for (int i = 0; i < 4; i++) {
		c[2 + i] = lba >> (24 - 8 * i);
		c[6 + i] = len >> (24 - 8 * i);
	}
	return c;
}

Bytes cdb16(u8 op, u64 lba, u32 len, u8 b1)
{
	Bytes c(16, 0);

	c[0] = op;
	c[1] = b1;
	for (int i = 0; i < 8; i++)
		c[2 + i] = lba >> (56 - 8 * i);
	for (int i = 0; i < 4; i++)
		c[10 + i] = len >> (24 - 8 * i);
	return c;
}

Bytes rw6(u8 op, u32 lba, u8 len)
{
	return { op, u8((lba >> 16) & 0x1f), u8(lba >> 8), u8(lba), len, 0 };
}

u16 be16(const u8 *p) { return u16(p[0] << 8 | p[1]); }
u32 be24(const u8 *p) { return u32(p[0]) << 16 | u32(p[1]) << 8 | p[2]; }
u32 be32(const u8 *p) { return u32(be16(p)) << 16 | be16(p + 2); }
u64 be64(const u8 *p) { return u64(be32(p)) << 32 | be32(p + 4); }
u32 le32(const u8 *p)
{
	return u32(p[0]) | u32(p[1]) << 8 | u32(p[2]) << 16 | u32(p[3]) << 24;
}
u64 le64(const u8 *p) { return u64(le32(p)) | u64(le32(p + 4)) << 32; }

std::string str(const u8 *p, size_t n)
{
	return std::string(reinterpret_cast<const char *>(p), n);
}

static void pad(char *dst, size_t n, const char *s)
{
	memset(dst, ' ', n);
	memcpy(dst, s, strlen(s));
}

XlateTest::XlateTest()
{
	ns.nsid = 1;
	ns.nr_lbas = 2097152;			// 1 GiB of 512-byte blocks
	ns.lba_shift = 9;
	ns.max_xfer_bytes = 128 * 1024;		// 256 blocks
	ns.subnqn = "nqn.2014-08.org.example:rblk-test";
	ns.vwc_present = true;
	ns.vwc_enabled = true;
	ns.dsm_supported = true;
	ns.write_zeroes_supported = true;
	ns.verify_supported = true;
	ns.compare_supported = true;
	ns.dealloc_zeroes = true;
	pad(ns.model, sizeof(ns.model), "RBLK Test Model Number 4000");
	pad(ns.serial, sizeof(ns.serial), "SN0123456789");
	pad(ns.firmware, sizeof(ns.firmware), "FW1.2345");
	for (int i = 0; i < 16; i++) {
		ns.nguid[i] = 0x10 + i;
		ns.uuid[i] = 0xa0 + i;
	}
	for (int i = 0; i < 8; i++)
		ns.eui64[i] = 0xe0 + i;
	out.buf = buf.data();
}

int XlateTest::run(const Bytes &cdb, rblk_xlate_dir dir, u32 dxfer,
		   const Bytes &param)
{
	rblk_xlate_req req{};

	req.cdb = cdb.data();
	req.cdb_len = cdb.size();
	req.dir = dir;
	req.dxfer_len = dxfer;
	req.param = param.empty() ? nullptr : param.data();
	req.param_len = param.size();
	memset(&out, 0xee, sizeof(out));
	out.buf = buf.data();
	return rblk_xlate_cmd(&ns, &req, &out);
}

void XlateTest::expect_good(u32 data_len, u32 resid)
{
	EXPECT_EQ(out.kind, RBLK_XLATE_DONE);
	EXPECT_EQ(out.status, RBLK_SAM_GOOD);
	EXPECT_EQ(out.sense_len, 0);
	EXPECT_EQ(out.data_len, data_len);
	EXPECT_EQ(out.resid, resid);
}

void XlateTest::expect_nvme(u8 opcode, rblk_xlate_data data, u32 data_len,
			    u32 resid)
{
	EXPECT_EQ(out.kind, RBLK_XLATE_NVME);
	EXPECT_EQ(out.status, RBLK_SAM_GOOD);
	EXPECT_EQ(out.nvme.opcode, opcode);
	EXPECT_EQ(out.nvme.data, data);
	EXPECT_EQ(out.nvme.data_len, data_len);
	EXPECT_EQ(out.resid, resid);
	EXPECT_EQ(out.data_len, 0u);
}

void XlateTest::expect_sense(u8 key, u8 asc, u8 ascq)
{
	EXPECT_EQ(out.kind, RBLK_XLATE_DONE);
	EXPECT_EQ(out.status, RBLK_SAM_CHECK_CONDITION);
	EXPECT_EQ(out.data_len, 0u);
	EXPECT_EQ(out.resid, out.dxfer_len);
	EXPECT_EQ(out.effects, 0u);
	Sense s = decode_sense(out);
	EXPECT_EQ(s.key, key);
	EXPECT_EQ(s.asc, asc);
	EXPECT_EQ(s.ascq, ascq);
}

// INVALID FIELD IN CDB (0x24) or IN PARAMETER LIST (0x26), with pointer.
static void expect_field(const rblk_xlate_out &out, bool in_cdb,
			 unsigned int byte, int bit)
{
	Sense s = decode_sense(out);

	EXPECT_EQ(s.asc, in_cdb ? 0x24 : 0x26);
	EXPECT_TRUE(s.sksv);
	EXPECT_EQ(s.cd, in_cdb);
	EXPECT_EQ(s.field, byte);
	EXPECT_EQ(s.bit, bit);
}

void XlateTest::expect_bad_cdb(unsigned int byte, int bit)
{
	expect_sense(0x05, 0x24, 0x00);
	expect_field(out, true, byte, bit);
}

void XlateTest::expect_bad_param(unsigned int byte, int bit)
{
	expect_sense(0x05, 0x26, 0x00);
	expect_field(out, false, byte, bit);
}
