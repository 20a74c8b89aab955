// SPDX-License-Identifier: GPL-2.0
// INQUIRY: standard data and the VPD pages, and the wwid.
#include "xlate_test_util.h"

#include <cstring>

namespace {

Bytes inquiry(u8 page, u16 alloc, bool evpd)
{
	return cdb6(0x12, evpd ? 1 : 0, page, alloc >> 8, alloc & 0xff);
}

class InquiryTest : public XlateTest {
protected:
	// Runs INQUIRY EVPD for @page and returns the page length field.
	u16 vpd(u8 page)
	{
		EXPECT_EQ(run_in(inquiry(page, 512, true), 512), 0);
		EXPECT_EQ(out.status, RBLK_SAM_GOOD);
		EXPECT_EQ(data()[0], 0x00);
		EXPECT_EQ(data()[1], page);
		return be16(&data()[2]);
	}
};

TEST_F(InquiryTest, StandardDataFieldByField)
{
	ASSERT_EQ(run_in(inquiry(0, 96, false), 96), 0);
	expect_good(36, 60);
	const u8 *d = data();
	EXPECT_EQ(d[0], 0x00);	// qualifier 0, direct access block device
	EXPECT_EQ(d[1], 0x00);	// not removable
	EXPECT_EQ(d[2], 0x06);	// SPC-4
	EXPECT_EQ(d[3], 0x02);	// response data format 2
	EXPECT_EQ(d[4], 31);	// additional length
	EXPECT_EQ(d[5], 0x00);	// no PROTECT
	EXPECT_EQ(d[6], 0x00);
	EXPECT_EQ(d[7], 0x02);	// CMDQUE
	EXPECT_EQ(str(&d[8], 8), "NVMe    ");
	EXPECT_EQ(str(&d[16], 16), "RBLK Test Model ");
	EXPECT_EQ(str(&d[32], 4), "2345");
}

TEST_F(InquiryTest, RevisionIsLastFourOfTrimmedFirmware)
{
	memcpy(ns.firmware, "1.0     ", 8);
	ASSERT_EQ(run_in(inquiry(0, 36, false), 36), 0);
	EXPECT_EQ(str(&data()[32], 4), "1.0 ");	// shorter than 4: from start
	memcpy(ns.firmware, "ABCDEF  ", 8);
	ASSERT_EQ(run_in(inquiry(0, 36, false), 36), 0);
	EXPECT_EQ(str(&data()[32], 4), "CDEF");
}

TEST_F(InquiryTest, NonPrintableIdentifyBytesBecomeSpaces)
{
	ns.model[0] = '\0';
	ns.model[1] = '\x7f';
	ns.model[2] = '\n';
	ns.firmware[7] = '\x01';
	ASSERT_EQ(run_in(inquiry(0, 36, false), 36), 0);
	EXPECT_EQ(str(&data()[16], 4), "   K");
	EXPECT_EQ(str(&data()[32], 4), "234 ");
}

TEST_F(InquiryTest, AllocationLengthTruncates)
{
	ASSERT_EQ(run_in(inquiry(0, 5, false), 64), 0);
	expect_good(5, 59);
}

TEST_F(InquiryTest, ShortBufferTruncatesWithoutResid)
{
	ASSERT_EQ(run_in(inquiry(0, 255, false), 20), 0);
	expect_good(20, 0);
}

TEST_F(InquiryTest, ZeroBufferNoDirectionIsGood)
{
	ASSERT_EQ(run(inquiry(0, 36, false)), 0);
	expect_good(0, 0);
}

TEST_F(InquiryTest, DataOutDirectionIsEinval)
{
	EXPECT_EQ(run_out(inquiry(0, 36, false), 36), -EINVAL);
}

TEST_F(InquiryTest, CmdDtIsInvalidField)
{
	ASSERT_EQ(run_in(cdb6(0x12, 0x02, 0, 0, 36), 36), 0);
	expect_bad_cdb(1, 1);
}

TEST_F(InquiryTest, PageCodeWithoutEvpdIsInvalidField)
{
	ASSERT_EQ(run_in(inquiry(0x80, 36, false), 36), 0);
	expect_bad_cdb(2, -1);
}

TEST_F(InquiryTest, UnsupportedVpdPageIsInvalidField)
{
	for (u8 page : { 0x01, 0x86, 0x89, 0xb3, 0xff }) {
		ASSERT_EQ(run_in(inquiry(page, 64, true), 64), 0);
		expect_bad_cdb(2, -1);
	}
}

TEST_F(InquiryTest, SupportedPages)
{
	EXPECT_EQ(vpd(0x00), 6);
	const u8 want[] = { 0x00, 0x80, 0x83, 0xb0, 0xb1, 0xb2 };
	EXPECT_EQ(memcmp(&data()[4], want, sizeof(want)), 0);
	EXPECT_EQ(out.data_len, 10u);
	EXPECT_EQ(out.resid, 502u);
}

TEST_F(InquiryTest, EveryListedPageIsServed)
{
	vpd(0x00);
	Bytes pages(&data()[4], &data()[4] + be16(&data()[2]));
	for (u8 page : pages)
		EXPECT_GT(vpd(page) + 0, 0) << int(page);
}

TEST_F(InquiryTest, UnitSerialFromNguid)
{
	EXPECT_EQ(vpd(0x80), 40);
	EXPECT_EQ(str(&data()[4], 40),
		  "1011_1213_1415_1617_1819_1A1B_1C1D_1E1F.");
}

TEST_F(InquiryTest, UnitSerialFromEui64)
{
	memset(ns.nguid, 0, sizeof(ns.nguid));
	EXPECT_EQ(vpd(0x80), 20);
	EXPECT_EQ(str(&data()[4], 20), "E0E1_E2E3_E4E5_E6E7.");
}

TEST_F(InquiryTest, UnitSerialFromSerialAndNsid)
{
	memset(ns.nguid, 0, sizeof(ns.nguid));
	memset(ns.eui64, 0, sizeof(ns.eui64));
	ns.nsid = 0x2a;
	EXPECT_EQ(vpd(0x80), 29);
	EXPECT_EQ(str(&data()[4], 29), "SN0123456789        _0000002a");
}

TEST_F(InquiryTest, DeviceIdentificationAllDesignators)
{
	u16 len = vpd(0x83);
	const u8 *d = &data()[4];

	// NGUID as a 16-byte EUI-64 based designator
	EXPECT_EQ(d[0], 0x01);		// binary
	EXPECT_EQ(d[1], 0x02);		// LU, EUI-64
	EXPECT_EQ(d[3], 16);
	EXPECT_EQ(memcmp(&d[4], ns.nguid, 16), 0);
	d += 20;
	EXPECT_EQ(d[0], 0x01);
	EXPECT_EQ(d[1], 0x02);
	EXPECT_EQ(d[3], 8);
	EXPECT_EQ(memcmp(&d[4], ns.eui64, 8), 0);
	d += 12;
	EXPECT_EQ(d[0], 0x01);
	EXPECT_EQ(d[1], 0x0a);		// UUID
	EXPECT_EQ(d[3], 18);
	EXPECT_EQ(d[4], 0x10);		// RFC 4122
	EXPECT_EQ(d[5], 0x00);
	EXPECT_EQ(memcmp(&d[6], ns.uuid, 16), 0);
	d += 22;
	EXPECT_EQ(d[0], 0x03);		// UTF-8
	EXPECT_EQ(d[1], 0x08);		// SCSI name string
	EXPECT_EQ(d[3] % 4, 0);
	std::string name(reinterpret_cast<const char *>(&d[4]));
	EXPECT_EQ(name, "uuid.a0a1a2a3-a4a5-a6a7-a8a9-aaabacadaeaf");
	EXPECT_EQ(d[3], 44);		// 41 + NUL, padded to 44
	for (unsigned int i = name.size(); i < d[3]; i++)
		EXPECT_EQ(d[4 + i], 0);
	EXPECT_EQ(len, 20 + 12 + 22 + 4 + 44);
	EXPECT_EQ(out.data_len, len + 4u);
}

TEST_F(InquiryTest, DeviceIdentificationNameStringIsWwid)
{
	char wwid[RBLK_XLATE_WWID_LEN];

	memset(ns.uuid, 0, sizeof(ns.uuid));
	vpd(0x83);
	const u8 *d = &data()[4 + 20 + 12];
	ASSERT_EQ(d[1], 0x08);
	ASSERT_GT(rblk_xlate_wwid(&ns, wwid, sizeof(wwid)), 0);
	EXPECT_STREQ(reinterpret_cast<const char *>(&d[4]), wwid);
	EXPECT_STREQ(wwid, "eui.101112131415161718191a1b1c1d1e1f");
}

TEST_F(InquiryTest, DeviceIdentificationWithoutIdsHasNameStringOnly)
{
	memset(ns.nguid, 0, sizeof(ns.nguid));
	memset(ns.eui64, 0, sizeof(ns.eui64));
	memset(ns.uuid, 0, sizeof(ns.uuid));
	u16 len = vpd(0x83);
	const u8 *d = &data()[4];
	EXPECT_EQ(d[0], 0x03);
	EXPECT_EQ(d[1], 0x08);
	EXPECT_EQ(len, 4 + d[3]);
	EXPECT_EQ(d[3], 48);		// 45 + NUL, padded
	EXPECT_EQ(std::string(reinterpret_cast<const char *>(&d[4])),
		  "rblk.nqn.2014-08.org.example:rblk-test-nsid1");
}

TEST_F(InquiryTest, DeviceIdentificationIsStable)
{
	vpd(0x83);
	Bytes first(data(), data() + out.data_len);
	vpd(0x83);
	EXPECT_EQ(Bytes(data(), data() + out.data_len), first);
}

TEST_F(InquiryTest, WwidOrderFollowsTheNvmeDriver)
{
	char w[RBLK_XLATE_WWID_LEN];

	EXPECT_EQ(rblk_xlate_wwid(&ns, w, sizeof(w)), 41);
	EXPECT_STREQ(w, "uuid.a0a1a2a3-a4a5-a6a7-a8a9-aaabacadaeaf");
	memset(ns.uuid, 0, sizeof(ns.uuid));
	EXPECT_STREQ((rblk_xlate_wwid(&ns, w, sizeof(w)), w),
		     "eui.101112131415161718191a1b1c1d1e1f");
	memset(ns.nguid, 0, sizeof(ns.nguid));
	EXPECT_STREQ((rblk_xlate_wwid(&ns, w, sizeof(w)), w),
		     "eui.e0e1e2e3e4e5e6e7");
}

class WwidFallbackTest : public InquiryTest {
protected:
	WwidFallbackTest()
	{
		memset(ns.nguid, 0, sizeof(ns.nguid));
		memset(ns.eui64, 0, sizeof(ns.eui64));
		memset(ns.uuid, 0, sizeof(ns.uuid));
	}

	std::string wwid()
	{
		char w[RBLK_XLATE_WWID_LEN];
		int len = rblk_xlate_wwid(&ns, w, sizeof(w));

		EXPECT_EQ(size_t(len), strlen(w));
		return w;
	}
};

TEST_F(WwidFallbackTest, SubsystemNqnAndDecimalNsid)
{
	ns.nsid = 4294967295u;
	EXPECT_EQ(wwid(), "rblk.nqn.2014-08.org.example:rblk-test-nsid4294967295");
	ns.nsid = 0;
	EXPECT_EQ(wwid(), "rblk.nqn.2014-08.org.example:rblk-test-nsid0");
}

TEST_F(WwidFallbackTest, NoNqn)
{
	ns.subnqn = nullptr;
	EXPECT_EQ(wwid(), "rblk.-nsid1");
}

TEST_F(WwidFallbackTest, LongestNqnFitsAndLongerIsCut)
{
	std::string nqn(223, 'q');
	std::string longer(300, 'q');

	ns.subnqn = nqn.c_str();
	ns.nsid = 4294967295u;
	EXPECT_EQ(wwid(), "rblk." + nqn + "-nsid4294967295");
	vpd(0x83);
	EXPECT_EQ(data()[4 + 3], 244);	// 243 + NUL, a multiple of 4
	EXPECT_EQ(be16(&data()[2]), 4 + 244);
	ns.subnqn = longer.c_str();
	EXPECT_EQ(wwid(), "rblk." + nqn + "-nsid4294967295");
}

TEST_F(InquiryTest, WwidRefusesShortBuffer)
{
	char w[RBLK_XLATE_WWID_LEN];

	EXPECT_EQ(rblk_xlate_wwid(&ns, w, sizeof(w) - 1), -EINVAL);
}

TEST_F(InquiryTest, BlockLimits)
{
	EXPECT_EQ(vpd(0xb0), 0x3c);
	const u8 *d = data();
	EXPECT_EQ(d[4], 0x01);				// WSNZ
	EXPECT_EQ(d[5], 0x00);				// no COMPARE AND WRITE
	EXPECT_EQ(be32(&d[8]), 256u);			// 128 KiB / 512
	EXPECT_EQ(be32(&d[20]), 0xffffffffu);		// max unmap LBAs
	EXPECT_EQ(be32(&d[24]), 256u);			// max descriptors
	EXPECT_EQ(be64(&d[36]), 65536u);		// max write same
	EXPECT_EQ(out.data_len, 64u);
}

TEST_F(InquiryTest, BlockLimitsFollowTheNamespace)
{
	ns.max_xfer_bytes = 0;
	ns.max_dsm_ranges = 4;
	ns.max_wz_lbas = 1024;
	ns.lba_shift = 12;
	vpd(0xb0);
	EXPECT_EQ(be32(&data()[8]), 65536u);		// only the NLB field
	EXPECT_EQ(be32(&data()[24]), 4u);
	EXPECT_EQ(be64(&data()[36]), 1024u);
	ns.max_xfer_bytes = 1 << 20;
	vpd(0xb0);
	EXPECT_EQ(be32(&data()[8]), 256u);		// 1 MiB / 4 KiB
}

TEST_F(InquiryTest, BlockLimitsWithoutDsmOrWriteZeroes)
{
	ns.dsm_supported = false;
	ns.write_zeroes_supported = false;
	vpd(0xb0);
	EXPECT_EQ(be32(&data()[20]), 0u);
	EXPECT_EQ(be32(&data()[24]), 0u);
	EXPECT_EQ(be64(&data()[36]), 0u);
}

TEST_F(InquiryTest, BlockLimitsWriteSameByDeallocation)
{
	ns.write_zeroes_supported = false;
	vpd(0xb0);
	EXPECT_EQ(be64(&data()[36]), 0xffffffffu);
}

TEST_F(InquiryTest, BlockDeviceCharacteristics)
{
	EXPECT_EQ(vpd(0xb1), 0x3c);
	EXPECT_EQ(be16(&data()[4]), 1);		// non-rotating
	EXPECT_EQ(data()[7] & 0x0f, 0);		// form factor not reported
}

TEST_F(InquiryTest, LogicalBlockProvisioning)
{
	EXPECT_EQ(vpd(0xb2), 4);
	EXPECT_EQ(data()[4], 0);			// threshold exponent
	EXPECT_EQ(data()[5], 0x80 | 0x40 | 0x20 | 0x04);	// LBPU LBPWS
							// LBPWS10 LBPRZ=1
	EXPECT_EQ(data()[6] & 0x07, 0x02);		// thin provisioned
}

TEST_F(InquiryTest, LogicalBlockProvisioningWithoutDsm)
{
	ns.dsm_supported = false;
	vpd(0xb2);
	EXPECT_EQ(data()[5], 0x60);	// write zeroes still serves WRITE SAME
	EXPECT_EQ(data()[6], 0x00);
	ns.write_zeroes_supported = false;
	vpd(0xb2);
	EXPECT_EQ(data()[5], 0x00);
}

TEST_F(InquiryTest, LogicalBlockProvisioningDeallocatedNotZero)
{
	ns.dealloc_zeroes = false;
	vpd(0xb2);
	EXPECT_EQ(data()[5], 0xe0);	// LBPRZ 0
}

TEST_F(InquiryTest, VpdAllocationLengthTruncates)
{
	ASSERT_EQ(run_in(inquiry(0x83, 8, true), 512), 0);
	expect_good(8, 504);
	EXPECT_EQ(data()[1], 0x83);
	EXPECT_GT(be16(&data()[2]), 4);	// the full length is still reported
}

} // namespace
