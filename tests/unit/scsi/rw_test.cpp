// SPDX-License-Identifier: GPL-2.0
// READ and WRITE (6/10/12/16), VERIFY (10/16), SYNCHRONIZE CACHE (10/16).
#include "xlate_test_util.h"

namespace {

class RwTest : public XlateTest {
protected:
	void expect_rw(u8 opcode, u64 lba, u32 nlb, bool fua, u32 resid)
	{
		expect_nvme(opcode, RBLK_XLATE_DATA_USER, nlb << ns.lba_shift,
			    resid);
		EXPECT_EQ(out.nvme.write, opcode == nvme_cmd_write);
		EXPECT_EQ(out.nvme.nsid, ns.nsid);
		EXPECT_EQ(out.nvme.cdw10, u32(lba));
		EXPECT_EQ(out.nvme.cdw11, u32(lba >> 32));
		EXPECT_EQ(out.nvme.cdw12 & 0xffff, nlb - 1);
		EXPECT_EQ(!!(out.nvme.cdw12 & RBLK_XLATE_CDW12_CONTROL(NVME_RW_FUA)), fua);
		EXPECT_EQ(out.nvme.cdw12 & ~(0xffffu | RBLK_XLATE_CDW12_CONTROL(NVME_RW_FUA)), 0u);
		EXPECT_EQ(out.nvme.cdw13, 0u);
		EXPECT_EQ(out.nvme.cdw14, 0u);
		EXPECT_EQ(out.nvme.cdw15, 0u);
		EXPECT_EQ(out.effects, 0u);
	}
};

// --- the four sizes ---

TEST_F(RwTest, Read6)
{
	ASSERT_EQ(run_in(rw6(0x08, 0x12345, 8), 4096), 0);
	expect_rw(nvme_cmd_read, 0x12345, 8, false, 0);
}

TEST_F(RwTest, Read6ZeroLengthMeans256Blocks)
{
	ASSERT_EQ(run_in(rw6(0x08, 0, 0), 256 * 512), 0);
	expect_rw(nvme_cmd_read, 0, 256, false, 0);
}

TEST_F(RwTest, Read6Uses21BitLba)
{
	Bytes c = rw6(0x08, 0x1fffff, 1);
	c[1] |= 0xe0;			// reserved bits above the LBA
	ASSERT_EQ(run_in(c, 512), 0);
	expect_rw(nvme_cmd_read, 0x1fffff, 1, false, 0);
}

TEST_F(RwTest, Write6)
{
	ASSERT_EQ(run_out(rw6(0x0a, 100, 2), 1024), 0);
	expect_rw(nvme_cmd_write, 100, 2, false, 0);
}

TEST_F(RwTest, Read10)
{
	ASSERT_EQ(run_in(cdb10(0x28, 0x1ffff0, 16), 8192), 0);
	expect_rw(nvme_cmd_read, 0x1ffff0, 16, false, 0);
}

TEST_F(RwTest, Write10Fua)
{
	ASSERT_EQ(run_out(cdb10(0x2a, 7, 1, 0x08), 512), 0);
	expect_rw(nvme_cmd_write, 7, 1, true, 0);
}

TEST_F(RwTest, Read10FuaDpoAndGroupIgnoredButFua)
{
	Bytes c = cdb10(0x28, 7, 1, 0x08 | 0x10 | 0x02);	// FUA DPO FUA_NV
	c[6] = 0x1f;						// group
	ASSERT_EQ(run_in(c, 512), 0);
	expect_rw(nvme_cmd_read, 7, 1, true, 0);
}

TEST_F(RwTest, Read12AndWrite12)
{
	ASSERT_EQ(run_in(cdb12(0xa8, 0x10000, 256), 256 * 512), 0);
	expect_rw(nvme_cmd_read, 0x10000, 256, false, 0);
	ASSERT_EQ(run_out(cdb12(0xaa, 3, 4, 0x08), 2048), 0);
	expect_rw(nvme_cmd_write, 3, 4, true, 0);
}

TEST_F(RwTest, Read16AndWrite16HighLba)
{
	ns.nr_lbas = 0x20000000000ull;
	ASSERT_EQ(run_in(cdb16(0x88, 0x123456789aull, 8), 4096), 0);
	expect_rw(nvme_cmd_read, 0x123456789aull, 8, false, 0);
	ASSERT_EQ(run_out(cdb16(0x8a, 0x1ffffffffffull, 1, 0x08), 512), 0);
	expect_rw(nvme_cmd_write, 0x1ffffffffffull, 1, true, 0);
}

TEST_F(RwTest, LargeBlockSize)
{
	ns.lba_shift = 12;
	ns.nr_lbas = 1000;
	ASSERT_EQ(run_in(cdb10(0x28, 999, 1), 4096), 0);
	expect_rw(nvme_cmd_read, 999, 1, false, 0);
	EXPECT_EQ(out.nvme.data_len, 4096u);
}

// --- lengths, residuals and limits ---

TEST_F(RwTest, ZeroLengthIsGoodWithoutNvme)
{
	ASSERT_EQ(run_in(cdb10(0x28, 5, 0), 0), 0);
	expect_good(0, 0);
	ASSERT_EQ(run_out(cdb16(0x8a, 5, 0), 512), 0);
	expect_good(0, 512);
}

TEST_F(RwTest, LargerBufferLeavesResidual)
{
	ASSERT_EQ(run_in(cdb10(0x28, 0, 2), 4096), 0);
	expect_rw(nvme_cmd_read, 0, 2, false, 4096 - 1024);
}

TEST_F(RwTest, SmallerBufferIsInvalidTransferLength)
{
	ASSERT_EQ(run_in(cdb10(0x28, 0, 2), 1023), 0);
	expect_bad_cdb(7, -1);
	EXPECT_EQ(out.resid, 1023u);
	ASSERT_EQ(run_in(rw6(0x08, 0, 2), 512), 0);
	expect_bad_cdb(4, -1);
	ASSERT_EQ(run_out(cdb12(0xaa, 0, 2), 512), 0);
	expect_bad_cdb(6, -1);
	ASSERT_EQ(run_out(cdb16(0x8a, 0, 2), 512), 0);
	expect_bad_cdb(10, -1);
}

TEST_F(RwTest, NoBufferForNonZeroLength)
{
	ASSERT_EQ(run(cdb10(0x28, 0, 1)), 0);
	expect_bad_cdb(7, -1);
}

TEST_F(RwTest, MaximumTransferIsAccepted)
{
	ASSERT_EQ(run_in(cdb10(0x28, 0, 256), 256 * 512), 0);
	expect_rw(nvme_cmd_read, 0, 256, false, 0);
}

TEST_F(RwTest, TransferOverMdtsIsInvalidField)
{
	ASSERT_EQ(run_in(cdb10(0x28, 0, 257), 257 * 512), 0);
	expect_bad_cdb(7, -1);
	ASSERT_EQ(run_out(cdb16(0x8a, 0, 1000), 1000 * 512), 0);
	expect_bad_cdb(10, -1);
}

TEST_F(RwTest, WithoutMdtsTheNlbFieldLimits)
{
	ns.max_xfer_bytes = 0;
	ASSERT_EQ(run_in(cdb12(0xa8, 0, 65536), 65536u * 512), 0);
	expect_rw(nvme_cmd_read, 0, 65536, false, 0);
	EXPECT_EQ(out.nvme.cdw12, 0xffffu);
	ASSERT_EQ(run_in(cdb12(0xa8, 0, 65537), 65537u * 512), 0);
	expect_bad_cdb(6, -1);
}

TEST_F(RwTest, LastBlockIsInRange)
{
	ASSERT_EQ(run_in(cdb10(0x28, 2097151, 1), 512), 0);
	expect_rw(nvme_cmd_read, 2097151, 1, false, 0);
	ASSERT_EQ(run_in(cdb10(0x28, 2097150, 2), 1024), 0);
	expect_rw(nvme_cmd_read, 2097150, 2, false, 0);
}

TEST_F(RwTest, PastTheEndIsLbaOutOfRange)
{
	ASSERT_EQ(run_in(cdb10(0x28, 2097151, 2), 1024), 0);
	expect_sense(0x05, 0x21, 0x00);
	ASSERT_EQ(run_in(cdb10(0x28, 2097152, 1), 512), 0);
	expect_sense(0x05, 0x21, 0x00);
	ASSERT_EQ(run_out(rw6(0x0a, 0x1fffff, 1), 512), 0);
	ns.nr_lbas = 0x1fffff;
	ASSERT_EQ(run_out(rw6(0x0a, 0x1fffff, 1), 512), 0);
	expect_sense(0x05, 0x21, 0x00);
}

TEST_F(RwTest, ZeroLengthPastTheEndIsOutOfRange)
{
	ASSERT_EQ(run_in(cdb10(0x28, 2097152, 0), 0), 0);
	expect_good(0, 0);		// LBA == capacity: nothing touched
	ASSERT_EQ(run_in(cdb10(0x28, 2097153, 0), 0), 0);
	expect_sense(0x05, 0x21, 0x00);
}

TEST_F(RwTest, LbaNearWrapIsOutOfRange)
{
	ASSERT_EQ(run_in(cdb16(0x88, ~0ull, 2), 1024), 0);
	expect_sense(0x05, 0x21, 0x00);
	ASSERT_EQ(run_in(cdb16(0x88, ~0ull - 1, 2), 1024), 0);
	expect_sense(0x05, 0x21, 0x00);
}

TEST_F(RwTest, ProtectFieldIsInvalid)
{
	for (u8 b1 : { 0x20, 0x40, 0xe0 }) {
		ASSERT_EQ(run_in(cdb10(0x28, 0, 1, b1), 512), 0);
		expect_bad_cdb(1, 7);
		ASSERT_EQ(run_out(cdb16(0x8a, 0, 1, b1), 512), 0);
		expect_bad_cdb(1, 7);
		ASSERT_EQ(run_out(cdb12(0xaa, 0, 1, b1), 512), 0);
		expect_bad_cdb(1, 7);
	}
}

TEST_F(RwTest, WriteToReadOnlyIsWriteProtected)
{
	ns.read_only = true;
	ASSERT_EQ(run_out(cdb10(0x2a, 0, 1), 512), 0);
	expect_sense(0x07, 0x27, 0x00);
	ASSERT_EQ(run_in(cdb10(0x28, 0, 1), 512), 0);	// reads still work
	expect_rw(nvme_cmd_read, 0, 1, false, 0);
}

TEST_F(RwTest, DirectionContradictingOpcodeIsEinval)
{
	EXPECT_EQ(run_out(cdb10(0x28, 0, 1), 512), -EINVAL);
	EXPECT_EQ(run_in(cdb10(0x2a, 0, 1), 512), -EINVAL);
	EXPECT_EQ(run_in(rw6(0x0a, 0, 1), 512), -EINVAL);
	EXPECT_EQ(run_out(cdb16(0x88, 0, 1), 512), -EINVAL);
	EXPECT_EQ(run_in(cdb12(0xaa, 0, 1), 512), -EINVAL);
}

// --- VERIFY ---

TEST_F(RwTest, Verify10UsesNvmeVerify)
{
	ASSERT_EQ(run(cdb10(0x2f, 1000, 16)), 0);
	expect_nvme(nvme_cmd_verify, RBLK_XLATE_DATA_NONE, 0, 0);
	EXPECT_EQ(out.nvme.cdw10, 1000u);
	EXPECT_EQ(out.nvme.cdw11, 0u);
	EXPECT_EQ(out.nvme.cdw12, 15u);
	EXPECT_EQ(out.nvme.nsid, 1u);
}

TEST_F(RwTest, Verify16IsNotLimitedByMdts)
{
	ASSERT_EQ(run(cdb16(0x8f, 0x100000, 65536)), 0);
	expect_nvme(nvme_cmd_verify, RBLK_XLATE_DATA_NONE, 0, 0);
	EXPECT_EQ(out.nvme.cdw12, 0xffffu);
	ASSERT_EQ(run(cdb16(0x8f, 0, 65537)), 0);
	expect_bad_cdb(10, -1);
}

TEST_F(RwTest, VerifyWithoutNvmeVerifyReadsAndDrops)
{
	ns.verify_supported = false;
	ASSERT_EQ(run_in(cdb10(0x2f, 8, 4), 4096), 0);
	expect_nvme(nvme_cmd_read, RBLK_XLATE_DATA_DISCARD, 2048, 4096);
	EXPECT_FALSE(out.nvme.write);
	EXPECT_EQ(out.nvme.cdw10, 8u);
	EXPECT_EQ(out.nvme.cdw12, 3u);
	ASSERT_EQ(run(cdb10(0x2f, 0, 257)), 0);		// now MDTS applies
	expect_bad_cdb(7, -1);
}

TEST_F(RwTest, VerifyByteCheckCompares)
{
	ASSERT_EQ(run_out(cdb10(0x2f, 64, 2, 0x02), 2048), 0);
	expect_nvme(nvme_cmd_compare, RBLK_XLATE_DATA_USER, 1024, 1024);
	EXPECT_TRUE(out.nvme.write);
	EXPECT_EQ(out.nvme.cdw10, 64u);
	EXPECT_EQ(out.nvme.cdw12, 1u);
	ASSERT_EQ(run_out(cdb16(0x8f, 64, 2, 0x02), 512), 0);
	expect_bad_cdb(10, -1);				// buffer too small
	ASSERT_EQ(run_out(cdb16(0x8f, 0, 257, 0x02), 257 * 512), 0);
	expect_bad_cdb(10, -1);				// over MDTS
}

TEST_F(RwTest, VerifyByteCheckDataInIsEinval)
{
	EXPECT_EQ(run_in(cdb10(0x2f, 0, 1, 0x02), 512), -EINVAL);
}

TEST_F(RwTest, VerifyByteCheckWithoutCompareIsInvalid)
{
	ns.compare_supported = false;
	ASSERT_EQ(run_out(cdb10(0x2f, 0, 1, 0x02), 512), 0);
	expect_bad_cdb(1, 2);
}

TEST_F(RwTest, VerifyByteCheckTwoAndThreeAreInvalid)
{
	ASSERT_EQ(run_out(cdb10(0x2f, 0, 1, 0x04), 512), 0);
	expect_bad_cdb(1, 2);
	ASSERT_EQ(run_out(cdb16(0x8f, 0, 1, 0x06), 512), 0);
	expect_bad_cdb(1, 2);
}

TEST_F(RwTest, VerifyProtectIsInvalid)
{
	ASSERT_EQ(run(cdb10(0x2f, 0, 1, 0x20)), 0);
	expect_bad_cdb(1, 7);
}

TEST_F(RwTest, VerifyZeroLengthAndRange)
{
	ASSERT_EQ(run(cdb10(0x2f, 0, 0)), 0);
	expect_good(0, 0);
	ASSERT_EQ(run(cdb16(0x8f, 2097151, 2)), 0);
	expect_sense(0x05, 0x21, 0x00);
}

// --- SYNCHRONIZE CACHE ---

TEST_F(RwTest, SynchronizeCache10Flushes)
{
	ASSERT_EQ(run(cdb10(0x35, 0, 0)), 0);
	expect_nvme(nvme_cmd_flush, RBLK_XLATE_DATA_NONE, 0, 0);
	EXPECT_EQ(out.nvme.nsid, 1u);
	EXPECT_EQ(out.nvme.cdw10, 0u);
	EXPECT_EQ(out.nvme.cdw12, 0u);
}

TEST_F(RwTest, SynchronizeCache16FlushesWithRangeAndImmed)
{
	ASSERT_EQ(run(cdb16(0x91, 100, 100, 0x02)), 0);
	expect_nvme(nvme_cmd_flush, RBLK_XLATE_DATA_NONE, 0, 0);
}

TEST_F(RwTest, SynchronizeCacheRangeIsChecked)
{
	ASSERT_EQ(run(cdb10(0x35, 2097152, 1)), 0);
	expect_sense(0x05, 0x21, 0x00);
	ASSERT_EQ(run(cdb16(0x91, 0x100000000ull, 0)), 0);
	expect_sense(0x05, 0x21, 0x00);
}

TEST_F(RwTest, SynchronizeCacheWithoutVolatileCacheIsGood)
{
	ns.vwc_present = false;
	ASSERT_EQ(run(cdb10(0x35, 0, 0)), 0);
	expect_good(0, 0);
}

TEST_F(RwTest, SynchronizeCacheIgnoresABuffer)
{
	ASSERT_EQ(run_in(cdb10(0x35, 0, 0), 512), 0);
	expect_nvme(nvme_cmd_flush, RBLK_XLATE_DATA_NONE, 0, 512);
}

} // namespace
