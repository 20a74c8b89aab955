// SPDX-License-Identifier: GPL-2.0
// Request validation, sense formats, access rights and the commands that
// need no NVMe I/O: TEST UNIT READY, REQUEST SENSE, REPORT LUNS,
// READ CAPACITY, START STOP UNIT.
#include "xlate_test_util.h"

#include <cstring>

namespace {

using SimpleTest = XlateTest;

// --- request validation ---

TEST_F(SimpleTest, CdbShorterThanSixIsEinval)
{
	EXPECT_EQ(run(Bytes{ 0x00, 0, 0, 0, 0 }), -EINVAL);
}

TEST_F(SimpleTest, CdbLongerThanSixteenIsEinval)
{
	EXPECT_EQ(run(Bytes(17, 0)), -EINVAL);
	EXPECT_EQ(run(Bytes(32, 0)), -EINVAL);
}

TEST_F(SimpleTest, CdbShorterThanItsGroupIsEinval)
{
	EXPECT_EQ(run_in(Bytes{ 0x28, 0, 0, 0, 0, 0, 0, 0, 1 }, 512), -EINVAL);
	EXPECT_EQ(run_in(Bytes(12, 0x88), 512), -EINVAL);	// READ(16)
	Bytes r12(11, 0);
	r12[0] = 0xa8;
	EXPECT_EQ(run_in(r12, 512), -EINVAL);
}

TEST_F(SimpleTest, LongerCdbThanItsGroupIsAccepted)
{
	Bytes tur(16, 0);
	ASSERT_EQ(run(tur), 0);
	expect_good(0, 0);
}

TEST_F(SimpleTest, UnusableLbaSizeIsEio)
{
	for (u8 shift : { 0, 8, 17, 40 }) {
		ns.lba_shift = shift;
		EXPECT_EQ(run(cdb6(0x00)), -EIO) << int(shift);
	}
	ns.lba_shift = 16;
	ASSERT_EQ(run(cdb6(0x00)), 0);
	expect_good(0, 0);
}

TEST_F(SimpleTest, BufferWithoutDirectionIsEinval)
{
	EXPECT_EQ(run(cdb6(0x00), RBLK_XLATE_DIR_NONE, 512), -EINVAL);
}

TEST_F(SimpleTest, UnknownOpcodeIsInvalidOperationCode)
{
	for (u8 op : { 0x01, 0x04, 0x07, 0x3b, 0x42 + 1, 0x7f, 0x85, 0x89,
		       0xa3, 0xc0, 0xff }) {
		Bytes c(16, 0);

		c[0] = op;
		ASSERT_EQ(run_in(c, 64), 0) << int(op);
		expect_sense(0x05, 0x20, 0x00);
		EXPECT_FALSE(decode_sense(out).sksv);
		EXPECT_EQ(out.resid, 64u);
	}
}

TEST_F(SimpleTest, NacaInControlByteIsInvalidField)
{
	ASSERT_EQ(run(cdb6(0x00, 0, 0, 0, 0, 0x04)), 0);
	expect_bad_cdb(5, 2);
	ASSERT_EQ(run_in(cdb10(0x28, 0, 1, 0, 0x04), 512), 0);
	expect_bad_cdb(9, 2);
	Bytes r16 = cdb16(0x88, 0, 1);
	r16[15] = 0x04;
	ASSERT_EQ(run_in(r16, 512), 0);
	expect_bad_cdb(15, 2);
}

TEST_F(SimpleTest, LinkInControlByteIsInvalidField)
{
	ASSERT_EQ(run(cdb6(0x00, 0, 0, 0, 0, 0x01)), 0);
	expect_bad_cdb(5, 0);
	Bytes r12 = cdb12(0xa8, 0, 1);
	r12[11] = 0x01;
	ASSERT_EQ(run_in(r12, 512), 0);
	expect_bad_cdb(11, 0);
}

TEST_F(SimpleTest, VendorBitsInControlByteAreIgnored)
{
	ASSERT_EQ(run(cdb6(0x00, 0, 0, 0, 0, 0xc0)), 0);
	expect_good(0, 0);
}

// --- sense formats ---

TEST_F(SimpleTest, FixedSenseLayout)
{
	ASSERT_EQ(run_in(cdb6(0x12, 0x02, 0, 0, 36), 36), 0);
	const u8 *s = out.sense;
	ASSERT_EQ(out.sense_len, 18);
	EXPECT_EQ(s[0], 0x70);
	EXPECT_EQ(s[1], 0x00);
	EXPECT_EQ(s[2], 0x05);		// ILLEGAL REQUEST
	EXPECT_EQ(be32(&s[3]), 0u);	// no INFORMATION
	EXPECT_EQ(s[7], 10);
	EXPECT_EQ(be32(&s[8]), 0u);
	EXPECT_EQ(s[12], 0x24);
	EXPECT_EQ(s[13], 0x00);
	EXPECT_EQ(s[14], 0x00);
	EXPECT_EQ(s[15], 0x80 | 0x40 | 0x08 | 1);	// SKSV C/D BPV bit 1
	EXPECT_EQ(be16(&s[16]), 1);
}

TEST_F(SimpleTest, FixedSenseWithoutFieldPointer)
{
	ASSERT_EQ(run_in(cdb10(0x28, 0xffffffff, 1), 512), 0);
	ASSERT_EQ(out.sense_len, 18);
	EXPECT_EQ(out.sense[15], 0x00);
	EXPECT_EQ(be16(&out.sense[16]), 0);
	EXPECT_EQ(out.sense[12], 0x21);
}

TEST_F(SimpleTest, DescriptorSenseLayout)
{
	ns.d_sense = true;
	ASSERT_EQ(run_in(cdb6(0x12, 0x02, 0, 0, 36), 36), 0);
	const u8 *s = out.sense;
	ASSERT_EQ(out.sense_len, 16);
	EXPECT_EQ(s[0], 0x72);
	EXPECT_EQ(s[1], 0x05);
	EXPECT_EQ(s[2], 0x24);
	EXPECT_EQ(s[3], 0x00);
	EXPECT_EQ(s[7], 8);		// one descriptor
	EXPECT_EQ(s[8], 0x02);		// sense key specific
	EXPECT_EQ(s[9], 0x06);
	EXPECT_EQ(s[12], 0x80 | 0x40 | 0x08 | 1);
	EXPECT_EQ(be16(&s[13]), 1);
	EXPECT_EQ(s[15], 0);
}

TEST_F(SimpleTest, DescriptorSenseWithoutDescriptors)
{
	ns.d_sense = true;
	ASSERT_EQ(run_in(cdb10(0x28, 0xffffffff, 1), 512), 0);
	ASSERT_EQ(out.sense_len, 8);
	EXPECT_EQ(out.sense[0], 0x72);
	EXPECT_EQ(out.sense[1], 0x05);
	EXPECT_EQ(out.sense[2], 0x21);
	EXPECT_EQ(out.sense[7], 0);
}

// --- access rights (scsi_cmd_allowed) ---

TEST_F(SimpleTest, ReadClassOpcodes)
{
	for (u8 op : { 0x00, 0x03, 0x08, 0x12, 0x1a, 0x1b, 0x25, 0x28, 0x2f,
		       0x5a, 0x88, 0x8f, 0x9e, 0xa0, 0xa8 })
		EXPECT_EQ(rblk_xlate_access(op), RBLK_XLATE_ACC_READ) << int(op);
}

TEST_F(SimpleTest, WriteClassOpcodes)
{
	for (u8 op : { 0x0a, 0x15, 0x2a, 0x35, 0x41, 0x55, 0x8a, 0x93, 0xaa,
		       0x04, 0x2e })
		EXPECT_EQ(rblk_xlate_access(op), RBLK_XLATE_ACC_WRITE)
			<< int(op);
}

TEST_F(SimpleTest, UnmapNeedsWriteAccessUnlikeTheCdromAlias)
{
	EXPECT_EQ(rblk_xlate_access(0x42), RBLK_XLATE_ACC_WRITE);
}

TEST_F(SimpleTest, OtherOpcodesNeedRawio)
{
	for (u8 op : { 0x91, 0x89, 0x7f, 0xc0, 0xff, 0x01, 0x07 })
		EXPECT_EQ(rblk_xlate_access(op), RBLK_XLATE_ACC_RAWIO)
			<< int(op);
}

// --- TEST UNIT READY ---

TEST_F(SimpleTest, TestUnitReady)
{
	ASSERT_EQ(run(cdb6(0x00)), 0);
	expect_good(0, 0);
}

TEST_F(SimpleTest, TestUnitReadyIgnoresABuffer)
{
	ASSERT_EQ(run_in(cdb6(0x00), 512), 0);
	expect_good(0, 512);
}

TEST_F(SimpleTest, TestUnitReadyOfflineIsNotReady)
{
	ns.offline = true;
	ASSERT_EQ(run(cdb6(0x00)), 0);
	expect_sense(0x02, 0x04, 0x00);
}

// --- REQUEST SENSE ---

TEST_F(SimpleTest, RequestSenseFixed)
{
	ASSERT_EQ(run_in(cdb6(0x03, 0, 0, 0, 252), 252), 0);
	expect_good(18, 234);
	EXPECT_EQ(data()[0], 0x70);
	EXPECT_EQ(data()[2], 0x00);	// NO SENSE
	EXPECT_EQ(data()[7], 10);
	EXPECT_EQ(data()[12], 0x00);
	EXPECT_EQ(data()[13], 0x00);
}

TEST_F(SimpleTest, RequestSenseDescriptor)
{
	ASSERT_EQ(run_in(cdb6(0x03, 0x01, 0, 0, 252), 252), 0);
	expect_good(8, 244);
	EXPECT_EQ(data()[0], 0x72);
	EXPECT_EQ(data()[1], 0x00);
	EXPECT_EQ(data()[2], 0x00);
	EXPECT_EQ(data()[7], 0);
}

TEST_F(SimpleTest, RequestSenseAllocationLength)
{
	ASSERT_EQ(run_in(cdb6(0x03, 0, 0, 0, 4), 18), 0);
	expect_good(4, 14);
	ASSERT_EQ(run_in(cdb6(0x03, 0, 0, 0, 0), 18), 0);
	expect_good(0, 18);
}

TEST_F(SimpleTest, RequestSenseDataOutIsEinval)
{
	EXPECT_EQ(run_out(cdb6(0x03, 0, 0, 0, 18), 18), -EINVAL);
}

// --- REPORT LUNS ---

Bytes report_luns(u8 select, u32 alloc)
{
	Bytes c(12, 0);

	c[0] = 0xa0;
	c[2] = select;
	for (int i = 0; i < 4; i++)
		c[6 + i] = alloc >> (24 - 8 * i);
	return c;
}

TEST_F(SimpleTest, ReportLunsListsLunZero)
{
	for (u8 select : { 0x00, 0x02 }) {
		ASSERT_EQ(run_in(report_luns(select, 64), 64), 0);
		expect_good(16, 48);
		EXPECT_EQ(be32(&data()[0]), 8u);
		EXPECT_EQ(be32(&data()[4]), 0u);
		EXPECT_EQ(be64(&data()[8]), 0u);
	}
}

TEST_F(SimpleTest, ReportLunsWellKnownAndAdministrativeAreEmpty)
{
	for (u8 select : { 0x01, 0x10, 0x11, 0x12 }) {
		ASSERT_EQ(run_in(report_luns(select, 64), 64), 0);
		expect_good(8, 56);
		EXPECT_EQ(be32(&data()[0]), 0u);
	}
}

TEST_F(SimpleTest, ReportLunsBadSelectReport)
{
	ASSERT_EQ(run_in(report_luns(0x03, 64), 64), 0);
	expect_bad_cdb(2, -1);
	ASSERT_EQ(run_in(report_luns(0xff, 64), 64), 0);
	expect_bad_cdb(2, -1);
}

TEST_F(SimpleTest, ReportLunsAllocationLength)
{
	ASSERT_EQ(run_in(report_luns(0, 8), 64), 0);
	expect_good(8, 56);
	EXPECT_EQ(be32(&data()[0]), 8u);	// list length still says one
}

// --- READ CAPACITY ---

TEST_F(SimpleTest, ReadCapacity10)
{
	ASSERT_EQ(run_in(cdb10(0x25, 0, 0), 8), 0);
	expect_good(8, 0);
	EXPECT_EQ(be32(&data()[0]), 2097151u);
	EXPECT_EQ(be32(&data()[4]), 512u);
}

TEST_F(SimpleTest, ReadCapacity10LargeDiskSaysUse16)
{
	ns.nr_lbas = 0x100000001ull;
	ns.lba_shift = 12;
	ASSERT_EQ(run_in(cdb10(0x25, 0, 0), 16), 0);
	expect_good(8, 8);
	EXPECT_EQ(be32(&data()[0]), 0xffffffffu);
	EXPECT_EQ(be32(&data()[4]), 4096u);
}

TEST_F(SimpleTest, ReadCapacity10ExactlyFourGiBlocks)
{
	ns.nr_lbas = 0x100000000ull;	// last LBA 0xffffffff still fits
	ASSERT_EQ(run_in(cdb10(0x25, 0, 0), 8), 0);
	EXPECT_EQ(be32(&data()[0]), 0xffffffffu);
}

TEST_F(SimpleTest, ReadCapacity10LbaWithoutPmiIsInvalid)
{
	ASSERT_EQ(run_in(cdb10(0x25, 5, 0), 8), 0);
	expect_bad_cdb(2, -1);
	Bytes c = cdb10(0x25, 5, 0);
	c[8] = 0x01;			// PMI: accepted, same answer
	ASSERT_EQ(run_in(c, 8), 0);
	expect_good(8, 0);
}

TEST_F(SimpleTest, ReadCapacity10ShortBuffer)
{
	ASSERT_EQ(run_in(cdb10(0x25, 0, 0), 4), 0);
	expect_good(4, 0);
}

TEST_F(SimpleTest, ReadCapacity10DataOutIsEinval)
{
	EXPECT_EQ(run_out(cdb10(0x25, 0, 0), 8), -EINVAL);
}

Bytes read_capacity16(u32 alloc)
{
	return cdb16(0x9e, 0, alloc, 0x10);
}

TEST_F(SimpleTest, ReadCapacity16)
{
	ns.nr_lbas = 0x123456789aull;
	ns.lba_shift = 12;
	ASSERT_EQ(run_in(read_capacity16(32), 32), 0);
	expect_good(32, 0);
	const u8 *d = data();
	EXPECT_EQ(be64(&d[0]), 0x1234567899ull);
	EXPECT_EQ(be32(&d[8]), 4096u);
	EXPECT_EQ(d[12], 0x00);			// no protection
	EXPECT_EQ(d[13], 0x00);			// one block per physical
	EXPECT_EQ(d[14], 0x80 | 0x40);		// LBPME, LBPRZ
	EXPECT_EQ(d[15], 0x00);
	for (int i = 16; i < 32; i++)
		EXPECT_EQ(d[i], 0) << i;
}

TEST_F(SimpleTest, ReadCapacity16ProvisioningBits)
{
	ns.dealloc_zeroes = false;
	ASSERT_EQ(run_in(read_capacity16(32), 32), 0);
	EXPECT_EQ(data()[14], 0x80);
	ns.dsm_supported = false;
	ASSERT_EQ(run_in(read_capacity16(32), 32), 0);
	EXPECT_EQ(data()[14], 0x00);
}

TEST_F(SimpleTest, ReadCapacity16AllocationLength)
{
	ASSERT_EQ(run_in(read_capacity16(12), 32), 0);
	expect_good(12, 20);
	ASSERT_EQ(run_in(read_capacity16(0), 32), 0);
	expect_good(0, 32);
}

TEST_F(SimpleTest, ReadCapacity16LbaWithoutPmiIsInvalid)
{
	ASSERT_EQ(run_in(cdb16(0x9e, 1, 32, 0x10), 32), 0);
	expect_bad_cdb(2, -1);
}

TEST_F(SimpleTest, ServiceActionInOtherActionsAreInvalid)
{
	for (u8 sa : { 0x00, 0x11, 0x12, 0x1f }) {
		ASSERT_EQ(run_in(cdb16(0x9e, 0, 32, sa), 32), 0);
		expect_bad_cdb(1, 4);
	}
}

// --- START STOP UNIT ---

TEST_F(SimpleTest, StartUnitIsGood)
{
	ASSERT_EQ(run(cdb6(0x1b, 0, 0, 0, 0x01)), 0);
	expect_good(0, 0);
	ASSERT_EQ(run(cdb6(0x1b, 0x01, 0, 0, 0x01)), 0);	// IMMED
	expect_good(0, 0);
}

TEST_F(SimpleTest, StopUnitFlushesTheCache)
{
	ASSERT_EQ(run(cdb6(0x1b, 0, 0, 0, 0x00)), 0);
	expect_nvme(nvme_cmd_flush, RBLK_XLATE_DATA_NONE, 0, 0);
	EXPECT_EQ(out.nvme.nsid, 1u);
}

TEST_F(SimpleTest, StopUnitNoFlushOrNoCache)
{
	ASSERT_EQ(run(cdb6(0x1b, 0, 0, 0, 0x04)), 0);	// NO_FLUSH
	expect_good(0, 0);
	ns.vwc_present = false;
	ASSERT_EQ(run(cdb6(0x1b, 0, 0, 0, 0x00)), 0);
	expect_good(0, 0);
}

TEST_F(SimpleTest, StartStopPowerConditionIsInvalid)
{
	ASSERT_EQ(run(cdb6(0x1b, 0, 0, 0, 0x11)), 0);
	expect_bad_cdb(4, 7);
}

TEST_F(SimpleTest, StartStopLoadEjectIsInvalid)
{
	ASSERT_EQ(run(cdb6(0x1b, 0, 0, 0, 0x02)), 0);
	expect_bad_cdb(4, 1);
}

// --- parameter data the glue must copy in ---

TEST_F(SimpleTest, ParamLength)
{
	Bytes c;

	EXPECT_EQ(rblk_xlate_param_len(&ns, cdb6(0x15, 0x10, 0, 0, 28).data(),
				       6), 28u);
	c = cdb10(0x55, 0, 300, 0x10);
	EXPECT_EQ(rblk_xlate_param_len(&ns, c.data(), 10), 300u);
	c = cdb10(0x42, 0, 24);
	EXPECT_EQ(rblk_xlate_param_len(&ns, c.data(), 10), 24u);
	c = cdb10(0x42, 0, 65535);	// capped: 256 descriptors at most
	EXPECT_EQ(rblk_xlate_param_len(&ns, c.data(), 10), 8u + 256 * 16);
	c = cdb10(0x41, 0, 8);
	EXPECT_EQ(rblk_xlate_param_len(&ns, c.data(), 10), 512u);
	c = cdb16(0x93, 0, 8);
	ns.lba_shift = 12;
	EXPECT_EQ(rblk_xlate_param_len(&ns, c.data(), 16), 4096u);
	c = cdb16(0x93, 0, 8, 0x01);	// NDOB
	EXPECT_EQ(rblk_xlate_param_len(&ns, c.data(), 16), 0u);
	c = cdb10(0x2a, 0, 8);
	EXPECT_EQ(rblk_xlate_param_len(&ns, c.data(), 10), 0u);
	c = cdb10(0x42, 0, 24);		// CDB too short for its group
	EXPECT_EQ(rblk_xlate_param_len(&ns, c.data(), 6), 0u);
}

} // namespace
