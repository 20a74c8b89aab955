// SPDX-License-Identifier: GPL-2.0
// PERSISTENT RESERVE OUT and IN -> NVMe Reservation Register, Acquire,
// Release and Report (SPC-4 6.15, 6.16; NVMe base spec 7.4-7.7), and the
// reservation helpers the block layer's pr_ops share with them.
#include "xlate_test_util.h"

#include <cstring>

namespace {

constexpr u8 kPrIn = 0x5e;
constexpr u8 kPrOut = 0x5f;
constexpr u8 kOpRegister = 0x0d;
constexpr u8 kOpReport = 0x0e;
constexpr u8 kOpAcquire = 0x11;
constexpr u8 kOpRelease = 0x15;
constexpr u16 kConflict = 0x083;

// PERSISTENT RESERVE OUT: service action, scope/type, parameter list length.
Bytes pr_out(u8 sa, u8 type = 0, u32 plen = 24, u8 scope = 0)
{
	Bytes c(10, 0);
	c[0] = kPrOut;
	c[1] = sa;
	c[2] = u8(scope << 4 | type);
	c[5] = plen >> 24;
	c[6] = plen >> 16;
	c[7] = plen >> 8;
	c[8] = plen;
	return c;
}

Bytes pr_in(u8 sa, u16 alloc = 8192)
{
	Bytes c(10, 0);
	c[0] = kPrIn;
	c[1] = sa;
	c[7] = alloc >> 8;
	c[8] = alloc;
	return c;
}

Bytes pr_param(u64 key, u64 sark, u8 flags = 0)
{
	Bytes p(24, 0);
	for (int i = 0; i < 8; i++) {
		p[i] = key >> (56 - 8 * i);
		p[8 + i] = sark >> (56 - 8 * i);
	}
	p[20] = flags;
	return p;
}

// An extended Reservation Report: header and entries as a target sends them.
struct Registrant {
	u16 cntlid;
	bool holder;
	u64 key;
	u8 hostid_last;
};

Bytes report(u32 gen, u8 rtype, const std::vector<Registrant> &regs,
	     bool ptpls = false, int regctl = -1, size_t len = 0)
{
	Bytes d(len ? len : 64 + 64 * regs.size(), 0);
	u16 n = regctl < 0 ? regs.size() : regctl;

	for (int i = 0; i < 4; i++)
		d[i] = gen >> (8 * i);
	d[4] = rtype;
	d[5] = n;
	d[6] = n >> 8;
	d[9] = ptpls;
	for (size_t i = 0; i < regs.size() && 64 + 64 * (i + 1) <= d.size(); i++) {
		u8 *e = &d[64 + 64 * i];

		e[0] = regs[i].cntlid;
		e[1] = regs[i].cntlid >> 8;
		e[2] = regs[i].holder;
		for (int b = 0; b < 8; b++)
			e[8 + b] = regs[i].key >> (8 * b);
		for (int b = 0; b < 16; b++)
			e[16 + b] = 0x40 + b;
		e[31] = regs[i].hostid_last;
	}
	return d;
}

class ResvTest : public XlateTest {
protected:
	ResvTest()
	{
		ns.resv_supported = true;
		ns.rescap = 0x7f;		// six types and PTPL
	}

	// Plans PR OUT with its parameter list.
	int out_cmd(u8 sa, const Bytes &param, u8 type = 0)
	{
		return run_out(pr_out(sa, type), 24, param);
	}

	// Plans PR IN and completes it with @data as the report read.
	void in_cmd(u8 sa, const Bytes &data, u16 alloc = 8192,
		    u32 dxfer = 8192)
	{
		ASSERT_EQ(run_in(pr_in(sa, alloc), dxfer), 0);
		ASSERT_EQ(out.kind, RBLK_XLATE_NVME);
		ASSERT_EQ(out.nvme.opcode, kOpReport);
		ASSERT_EQ(out.nvme.data, RBLK_XLATE_DATA_REPORT);
		Bytes read(out.nvme.data_len, 0);
		memcpy(read.data(), data.data(),
		       read.size() < data.size() ? read.size() : data.size());
		rblk_xlate_complete_data(&out, 0, read.data(), read.size());
	}

	u64 key_at(unsigned int off) const { return le64(&buf[off]); }
};

// --- PERSISTENT RESERVE OUT ---

TEST_F(ResvTest, RegisterNewKey)
{
	ASSERT_EQ(out_cmd(0x00, pr_param(0, 0xabcd)), 0);
	expect_nvme(kOpRegister, RBLK_XLATE_DATA_BUF, 16, 0);
	EXPECT_TRUE(out.nvme.write);
	EXPECT_EQ(out.nvme.nsid, 1u);
	// RREGA 0 (register), CPTPL 10b: APTPL 0 clears PTPL where it exists
	EXPECT_EQ(out.nvme.cdw10, 0x80000000u);
	EXPECT_EQ(key_at(0), 0u);
	EXPECT_EQ(key_at(8), 0xabcdu);
	EXPECT_FALSE(rblk_xlate_retry(&out, kConflict));
}

TEST_F(ResvTest, RegisterReplaceAndUnregister)
{
	ASSERT_EQ(out_cmd(0x00, pr_param(0x1122334455667788ULL, 0x99)), 0);
	EXPECT_EQ(out.nvme.cdw10 & 0x7, 2u);		// replace
	EXPECT_EQ(key_at(0), 0x1122334455667788ULL);	// BE in, LE out
	EXPECT_EQ(key_at(8), 0x99u);

	ASSERT_EQ(out_cmd(0x00, pr_param(0x5, 0)), 0);
	EXPECT_EQ(out.nvme.cdw10 & 0xf, 1u);		// unregister, no IEKEY
	EXPECT_EQ(key_at(0), 0x5u);
}

TEST_F(ResvTest, RegisterZeroToZeroIsNothing)
{
	ASSERT_EQ(out_cmd(0x00, pr_param(0, 0)), 0);
	expect_good(0, 0);
}

TEST_F(ResvTest, AptplIsPtpl)
{
	ASSERT_EQ(out_cmd(0x00, pr_param(0, 7, 0x01)), 0);
	EXPECT_EQ(out.nvme.cdw10 >> 30, 3u);		// PTPL on
	ns.rescap = 0x7e;				// no PTPL
	ASSERT_EQ(out_cmd(0x00, pr_param(0, 7, 0x00)), 0);
	EXPECT_EQ(out.nvme.cdw10 >> 30, 0u);		// nothing to change
	ASSERT_EQ(out_cmd(0x00, pr_param(0, 7, 0x01)), 0);
	expect_bad_param(20, 0);
	// APTPL of the other verbs is not theirs to carry
	ASSERT_EQ(out_cmd(0x01, pr_param(7, 0, 0x01), 5), 0);
	EXPECT_EQ(out.kind, RBLK_XLATE_NVME);
}

TEST_F(ResvTest, RegisterIgnoreRegistersThenReplaces)
{
	ASSERT_EQ(out_cmd(0x06, pr_param(0xdead, 0xb)), 0);
	expect_nvme(kOpRegister, RBLK_XLATE_DATA_BUF, 16, 0);
	EXPECT_EQ(out.nvme.cdw10 & 0xf, 0u);		// register first
	EXPECT_EQ(key_at(8), 0xbu);
	EXPECT_FALSE(rblk_xlate_retry(&out, 0));	// it worked
	EXPECT_FALSE(rblk_xlate_retry(&out, 0x002));	// not a conflict
	ASSERT_TRUE(rblk_xlate_retry(&out, kConflict | 0x4000));	// DNR too
	EXPECT_EQ(out.nvme.cdw10 & 0xf, 2u | 8u);	// replace, IEKEY
	EXPECT_EQ(out.nvme.cdw10 >> 30, 2u);
	EXPECT_FALSE(rblk_xlate_retry(&out, kConflict));	// once only

	ASSERT_EQ(out_cmd(0x06, pr_param(0, 0)), 0);
	EXPECT_EQ(out.nvme.cdw10 & 0xf, 1u | 8u);	// unregister, IEKEY
}

TEST_F(ResvTest, ReserveReleasePreemptClear)
{
	// SCSI types 1, 3, 5, 6, 7, 8 are NVMe 1..6
	const u8 types[] = { 1, 3, 5, 6, 7, 8 };

	for (unsigned int i = 0; i < 6; i++) {
		ASSERT_EQ(out_cmd(0x01, pr_param(0xa, 0), types[i]), 0);
		expect_nvme(kOpAcquire, RBLK_XLATE_DATA_BUF, 16, 0);
		EXPECT_EQ(out.nvme.cdw10, (i + 1) << 8);
		EXPECT_EQ(key_at(0), 0xau);
		EXPECT_EQ(key_at(8), 0u);
	}
	ASSERT_EQ(out_cmd(0x02, pr_param(0xa, 0), 5), 0);
	expect_nvme(kOpRelease, RBLK_XLATE_DATA_BUF, 8, 0);
	EXPECT_EQ(out.nvme.cdw10, 3u << 8);
	ASSERT_EQ(out_cmd(0x03, pr_param(0xa, 0), 0), 0);
	expect_nvme(kOpRelease, RBLK_XLATE_DATA_BUF, 8, 0);
	EXPECT_EQ(out.nvme.cdw10, 1u);
	ASSERT_EQ(out_cmd(0x04, pr_param(0xa, 0xb), 5), 0);
	expect_nvme(kOpAcquire, RBLK_XLATE_DATA_BUF, 16, 0);
	EXPECT_EQ(out.nvme.cdw10, 3u << 8 | 1);
	EXPECT_EQ(key_at(8), 0xbu);
	ASSERT_EQ(out_cmd(0x05, pr_param(0xa, 0xb), 6), 0);
	EXPECT_EQ(out.nvme.cdw10, 4u << 8 | 2);
}

TEST_F(ResvTest, MalformedCdbs)
{
	// REGISTER AND MOVE, REPLACE LOST RESERVATION, reserved actions
	for (u8 sa : { 0x07, 0x08, 0x1f }) {
		ASSERT_EQ(out_cmd(sa, pr_param(1, 2), 1), 0);
		expect_bad_cdb(1, 4);
	}
	for (u8 type : { 0, 2, 4, 9, 15 }) {
		ASSERT_EQ(out_cmd(0x01, pr_param(1, 0), type), 0);
		expect_bad_cdb(2, 3);
	}
	ASSERT_EQ(run_out(pr_out(0x01, 1, 24, 1), 24, pr_param(1, 0)), 0);
	expect_bad_cdb(2, 7);				// element scope
	// the type of REGISTER and CLEAR is ignored
	ASSERT_EQ(out_cmd(0x03, pr_param(1, 0), 9), 0);
	EXPECT_EQ(out.kind, RBLK_XLATE_NVME);
	// a list longer than the buffer
	ASSERT_EQ(run_out(pr_out(0x00, 0, 24), 16, pr_param(1, 2)), 0);
	expect_bad_cdb(5, -1);
	// the data flows the wrong way
	EXPECT_EQ(run_in(pr_out(0x00), 24), -EINVAL);
	EXPECT_EQ(run_out(pr_in(0x00), 24), -EINVAL);
	// NACA in the control byte
	Bytes c = pr_out(0x00);
	c[9] = 0x04;
	ASSERT_EQ(run_out(c, 24, pr_param(0, 1)), 0);
	expect_bad_cdb(9, 2);
}

TEST_F(ResvTest, MalformedParameterLists)
{
	for (u32 plen : { 0u, 8u, 23u, 25u, 28u }) {
		ASSERT_EQ(run_out(pr_out(0x00, 0, plen), 64, pr_param(0, 1)), 0);
		expect_sense(0x05, 0x1a, 0x00);		// parameter list length
	}
	// the list announced but fewer bytes reached the translation
	ASSERT_EQ(run_out(pr_out(0x00, 0, 24), 24, Bytes(10, 0)), 0);
	expect_sense(0x05, 0x1a, 0x00);
	ASSERT_EQ(run_out(pr_out(0x00, 0, 24), 24, {}), 0);
	expect_sense(0x05, 0x1a, 0x00);
	ASSERT_EQ(out_cmd(0x00, pr_param(0, 1, 0x08)), 0);	// SPEC_I_PT
	expect_bad_param(20, 3);
	ASSERT_EQ(out_cmd(0x00, pr_param(0, 1, 0x04)), 0);	// ALL_TG_PT
	EXPECT_EQ(out.kind, RBLK_XLATE_NVME);
}

TEST_F(ResvTest, ParamLenAsksForTheListOnly)
{
	EXPECT_EQ(rblk_xlate_param_len(&ns, pr_out(0, 0, 24).data(), 10), 24u);
	EXPECT_EQ(rblk_xlate_param_len(&ns, pr_out(0, 0, 0xffffffff).data(), 10),
		  24u);
	EXPECT_EQ(rblk_xlate_param_len(&ns, pr_out(0, 0, 3).data(), 10), 3u);
	EXPECT_EQ(rblk_xlate_param_len(&ns, pr_in(0).data(), 10), 0u);
}

TEST_F(ResvTest, WithoutReservationsTheOpcodesAreInvalid)
{
	ns.resv_supported = false;
	ASSERT_EQ(out_cmd(0x00, pr_param(0, 1)), 0);
	expect_sense(0x05, 0x20, 0x00);
	ASSERT_EQ(run_in(pr_in(0x00), 512), 0);
	expect_sense(0x05, 0x20, 0x00);
}

TEST_F(ResvTest, ConflictIsReservationConflict)
{
	ASSERT_EQ(out_cmd(0x01, pr_param(0xa, 0), 1), 0);
	rblk_xlate_complete(&out, kConflict);
	EXPECT_EQ(out.status, RBLK_SAM_RESERVATION_CONFLICT);
	EXPECT_EQ(out.sense_len, 0);
}

// --- PERSISTENT RESERVE IN ---

TEST_F(ResvTest, ReportCommand)
{
	ASSERT_EQ(run_in(pr_in(0x00), 8192), 0);
	expect_nvme(kOpReport, RBLK_XLATE_DATA_REPORT, 4096, 8192);
	EXPECT_FALSE(out.nvme.write);
	EXPECT_EQ(out.nvme.cdw10, 1023u);		// NUMD, 0's based
	EXPECT_EQ(out.nvme.cdw11, 1u);			// extended
	ASSERT_EQ(run_in(pr_in(0x02), 8), 0);
	EXPECT_EQ(out.nvme.data_len, 64u);		// the header for PTPLS
	ns.max_xfer_bytes = 1000;
	ASSERT_EQ(run_in(pr_in(0x00), 8192), 0);
	EXPECT_EQ(out.nvme.data_len, 960u);		// whole entries only
	ASSERT_EQ(run_in(pr_in(0x04), 8192), 0);
	expect_bad_cdb(1, 4);
}

TEST_F(ResvTest, ReadKeys)
{
	in_cmd(0x00, report(7, 3, { { 1, true, 0xa, 0x0a },
				     { 2, false, 0x1122334455667788ULL, 0x0b } }));
	expect_good(24, 8192 - 24);
	EXPECT_EQ(be32(&buf[0]), 7u);			// PRgeneration
	EXPECT_EQ(be32(&buf[4]), 16u);
	EXPECT_EQ(be64(&buf[8]), 0xau);
	EXPECT_EQ(be64(&buf[16]), 0x1122334455667788ULL);
	// the allocation length cuts the data, not the additional length
	in_cmd(0x00, report(7, 3, { { 1, true, 0xa, 0x0a }, { 2, false, 0xb, 0xb } }),
	       12);
	expect_good(12, 8192 - 12);
	EXPECT_EQ(be32(&buf[4]), 16u);
}

TEST_F(ResvTest, ReadReservation)
{
	in_cmd(0x01, report(9, 0, { { 1, false, 0xa, 0x0a } }));
	expect_good(8, 8192 - 8);
	EXPECT_EQ(be32(&buf[0]), 9u);
	EXPECT_EQ(be32(&buf[4]), 0u);

	in_cmd(0x01, report(9, 3, { { 1, false, 0xa, 0x0a }, { 2, true, 0xb, 0x0b } }));
	expect_good(24, 8192 - 24);
	EXPECT_EQ(be32(&buf[4]), 16u);
	EXPECT_EQ(be64(&buf[8]), 0xbu);			// the holder's key
	EXPECT_EQ(buf[21], 0x05);			// LU_SCOPE, WE-RO

	// all registrants: the key is zero (SPC-4 6.16.3)
	in_cmd(0x01, report(9, 6, { { 1, true, 0xa, 0x0a }, { 2, true, 0xb, 0x0b } }));
	EXPECT_EQ(be64(&buf[8]), 0u);
	EXPECT_EQ(buf[21], 0x08);
}

TEST_F(ResvTest, ReportCapabilities)
{
	in_cmd(0x02, report(1, 0, {}, true));
	expect_good(8, 8192 - 8);
	EXPECT_EQ(be16(&buf[0]), 8u);
	EXPECT_EQ(buf[2], 0x05);			// ATP_C, PTPL_C
	EXPECT_EQ(buf[3], 0x81);			// TMV, PTPL_A
	EXPECT_EQ(buf[4], 0xea);			// WR_EX_AR EX_AC_RO WR_EX_RO EX_AC WR_EX
	EXPECT_EQ(buf[5], 0x01);			// EX_AC_AR

	ns.rescap = 0x0a;				// WE and WE-RO only
	in_cmd(0x02, report(1, 0, {}, false));
	EXPECT_EQ(buf[2], 0x04);
	EXPECT_EQ(buf[3], 0x80);
	EXPECT_EQ(buf[4], 0x22);
	EXPECT_EQ(buf[5], 0x00);
}

TEST_F(ResvTest, ReadFullStatus)
{
	in_cmd(0x03, report(4, 3, { { 1, true, 0xa, 0x0a }, { 2, false, 0xb, 0x0b } }));
	expect_good(8 + 96, 8192 - 104);
	EXPECT_EQ(be32(&buf[0]), 4u);
	EXPECT_EQ(be32(&buf[4]), 96u);
	const u8 *e = &buf[8];
	EXPECT_EQ(be64(&e[0]), 0xau);
	EXPECT_EQ(e[12], 0x03);				// ALL_TG_PT, R_HOLDER
	EXPECT_EQ(e[13], 0x05);
	EXPECT_EQ(be32(&e[20]), 24u);
	EXPECT_EQ(e[24], 0x04);				// SRP TransportID
	EXPECT_EQ(e[32], 0x40);				// Host ID
	EXPECT_EQ(e[47], 0x0a);
	e += 48;
	EXPECT_EQ(be64(&e[0]), 0xbu);
	EXPECT_EQ(e[12], 0x02);
	EXPECT_EQ(e[13], 0x00);
	EXPECT_EQ(e[47], 0x0b);
}

// A target that claims more registrants than it sent: the counts are
// those of the bytes read, never past them.
TEST_F(ResvTest, MalformedReportCountsBoundedByBytesRead)
{
	Bytes d = report(3, 3, { { 1, true, 0xd, 0x0a } }, false, 0xffff);
	ASSERT_EQ(d.size(), 128u);
	ASSERT_EQ(run_in(pr_in(0x00), 8192), 0);
	rblk_xlate_complete_data(&out, 0, d.data(), d.size());
	expect_good(16, 8192 - 16);
	EXPECT_EQ(be32(&buf[4]), 8u);
	EXPECT_EQ(be64(&buf[8]), 0xdu);

	ASSERT_EQ(run_in(pr_in(0x03), 8192), 0);
	rblk_xlate_complete_data(&out, 0, d.data(), d.size());
	expect_good(56, 8192 - 56);

	// 4096 bytes read of REGCTL 65535, all entries with a Host ID: 63
	std::vector<Registrant> many(70, { 1, false, 0xe, 0x0e });
	in_cmd(0x00, report(3, 0, many, false, 0xffff, 4096));
	EXPECT_EQ(be32(&buf[4]), 63u * 8);
	in_cmd(0x03, report(3, 0, many, false, 0xffff, 4096));
	EXPECT_EQ(be32(&buf[4]), 63u * 48);
}

// What the target did not write reads zero: an entry without a Host ID
// ends the report, though REGCTL says more and the buffer holds more.
TEST_F(ResvTest, ZeroHostIdEndsTheReport)
{
	in_cmd(0x00, report(3, 0, { { 1, false, 0xd, 0x0a } }, false, 0xffff, 4096));
	expect_good(16, 8192 - 16);
	EXPECT_EQ(be64(&buf[8]), 0xdu);
	in_cmd(0x03, report(3, 0, { { 1, false, 0xd, 0x0a } }, false, 0xffff, 4096));
	expect_good(56, 8192 - 56);
}

TEST_F(ResvTest, MalformedReportRefused)
{
	// shorter than its header
	ASSERT_EQ(run_in(pr_in(0x00), 8192), 0);
	Bytes d(63, 0);
	rblk_xlate_complete_data(&out, 0, d.data(), d.size());
	expect_sense(0x04, 0x44, 0x00);
	EXPECT_EQ(out.resid, 8192u);
	// no data at all
	ASSERT_EQ(run_in(pr_in(0x01), 8192), 0);
	rblk_xlate_complete_data(&out, 0, nullptr, 0);
	expect_sense(0x04, 0x44, 0x00);
	// a reservation type that is none of the six
	for (u8 rtype : { 7, 0x80, 0xff }) {
		in_cmd(0x01, report(1, rtype, { { 1, true, 0xa, 0x0a } }));
		expect_sense(0x04, 0x44, 0x00);
	}
	// the holder not among the entries read: no key invented
	in_cmd(0x01, report(1, 1, {}, false, 5));
	expect_good(24, 8192 - 24);
	EXPECT_EQ(be64(&buf[8]), 0u);
}

TEST_F(ResvTest, ReportErrorStatus)
{
	ASSERT_EQ(run_in(pr_in(0x00), 8192), 0);
	Bytes d = report(1, 0, {});
	rblk_xlate_complete_data(&out, 0x002, d.data(), d.size());
	expect_sense(0x05, 0x24, 0x00);
	EXPECT_EQ(out.resid, 8192u);
}

// --- the helpers pr_ops use ---

TEST(ResvHelpers, TypesBothWays)
{
	const u8 scsi[] = { 1, 3, 5, 6, 7, 8 };

	for (u8 t = 1; t <= 6; t++) {
		EXPECT_EQ(rblk_resv_type_to_scsi(t), scsi[t - 1]);
		EXPECT_EQ(rblk_resv_type_to_nvme(scsi[t - 1]), t);
	}
	for (u8 bad : { 0, 2, 4, 9, 0xff })
		EXPECT_EQ(rblk_resv_type_to_nvme(bad), 0);
	for (u8 bad : { 0, 7, 0xff })
		EXPECT_EQ(rblk_resv_type_to_scsi(bad), 0);
}

TEST(ResvHelpers, BuildNeedsATypeWhereTheVerbHasOne)
{
	rblk_resv_cmd c;

	EXPECT_EQ(rblk_resv_build(RBLK_RESV_RESERVE, 1, 0, 2, 0, &c), -EINVAL);
	EXPECT_EQ(rblk_resv_build(RBLK_RESV_RELEASE, 1, 0, 0, 0, &c), -EINVAL);
	EXPECT_EQ(rblk_resv_build(RBLK_RESV_PREEMPT_ABORT, 1, 2, 9, 0, &c),
		  -EINVAL);
	ASSERT_EQ(rblk_resv_build(RBLK_RESV_CLEAR, 1, 0, 0, 0, &c), 0);
	EXPECT_EQ(c.opcode, kOpRelease);
	EXPECT_EQ(c.data_len, 8u);
	ASSERT_EQ(rblk_resv_build(RBLK_RESV_REGISTER, 0, 5, 0, RBLK_CPTPL_ON, &c),
		  0);
	EXPECT_EQ(c.cdw10, 0xc0000000u);
	EXPECT_EQ(c.retry_cdw10, 0u);
	EXPECT_EQ(rblk_resv_build(RBLK_RESV_REGISTER, 0, 0, 0, 0, &c), 1);
}

TEST(ResvHelpers, ParseBounds)
{
	rblk_resv_report r;
	Bytes d = report(0x01020304, 3, { { 1, false, 0xa, 1 }, { 2, true, 0xb, 2 } },
			 true, 9);

	ASSERT_EQ(rblk_resv_report_parse(d.data(), d.size(), &r), 0);
	EXPECT_EQ(r.gen, 0x01020304u);
	EXPECT_EQ(r.rtype, 3);
	EXPECT_TRUE(r.ptpls);
	EXPECT_EQ(r.regctl, 9);
	EXPECT_EQ(r.nr, 2);
	EXPECT_EQ(rblk_resv_key(&r, 1), 0xbu);
	EXPECT_FALSE(rblk_resv_holder(&r, 0));
	EXPECT_TRUE(rblk_resv_holder(&r, 1));
	EXPECT_EQ(rblk_resv_hostid(&r, 1)[15], 2);
	EXPECT_EQ(rblk_resv_holder_key(&r), 0xbu);
	// a partial entry is not an entry
	ASSERT_EQ(rblk_resv_report_parse(d.data(), d.size() - 1, &r), 0);
	EXPECT_EQ(r.nr, 1);
	EXPECT_EQ(rblk_resv_holder_key(&r), 0u);
	// nor one without a Host ID, nor any after it
	Bytes z = d;
	memset(&z[64 + 16], 0, 16);
	ASSERT_EQ(rblk_resv_report_parse(z.data(), z.size(), &r), 0);
	EXPECT_EQ(r.nr, 0);
	EXPECT_EQ(rblk_resv_report_parse(d.data(), 63, &r), -EINVAL);
	d[4] = 7;
	EXPECT_EQ(rblk_resv_report_parse(d.data(), d.size(), &r), -EPROTO);
}

}  // namespace
