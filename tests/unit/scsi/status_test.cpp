// SPDX-License-Identifier: GPL-2.0
// NVMe completion status -> SCSI status, sense data and residual.
#include "xlate_test_util.h"

namespace {

struct StatusCase {
	u16 nvme;	// SCT << 8 | SC
	u8 sam;
	u8 key;
	u8 asc;
	u8 ascq;
};

void PrintTo(const StatusCase &c, std::ostream *os)
{
	*os << "nvme status 0x" << std::hex << c.nvme;
}

const StatusCase kCases[] = {
	// generic command status
	{ 0x001, 0x02, 0x05, 0x20, 0x00 },	// invalid opcode
	{ 0x002, 0x02, 0x05, 0x24, 0x00 },	// invalid field
	{ 0x003, 0x02, 0x0b, 0x00, 0x00 },	// command id conflict
	{ 0x004, 0x02, 0x03, 0x00, 0x00 },	// data transfer error
	{ 0x005, 0x02, 0x0b, 0x0b, 0x08 },	// power loss notification
	{ 0x006, 0x02, 0x04, 0x44, 0x00 },	// internal error
	{ 0x007, 0x02, 0x0b, 0x00, 0x00 },	// abort requested
	{ 0x008, 0x02, 0x0b, 0x00, 0x00 },	// SQ deletion
	{ 0x009, 0x02, 0x0b, 0x00, 0x00 },	// failed fused
	{ 0x00a, 0x02, 0x0b, 0x00, 0x00 },	// missing fused
	{ 0x00b, 0x02, 0x05, 0x20, 0x09 },	// invalid namespace
	{ 0x00c, 0x02, 0x05, 0x2c, 0x00 },	// command sequence error
	{ 0x015, 0x02, 0x07, 0x20, 0x02 },	// operation denied
	{ 0x01d, 0x02, 0x02, 0x04, 0x1b },	// sanitize in progress
	{ 0x020, 0x02, 0x07, 0x27, 0x00 },	// namespace write protected
	{ 0x021, 0x02, 0x0b, 0x00, 0x00 },	// command interrupted
	{ 0x022, 0x02, 0x0b, 0x00, 0x00 },	// transient transport error
	{ 0x080, 0x02, 0x05, 0x21, 0x00 },	// LBA out of range
	{ 0x081, 0x02, 0x03, 0x00, 0x00 },	// capacity exceeded
	{ 0x082, 0x02, 0x02, 0x04, 0x00 },	// namespace not ready
	{ 0x083, 0x18, 0x00, 0x00, 0x00 },	// reservation conflict
	{ 0x084, 0x02, 0x02, 0x04, 0x04 },	// format in progress
	// command specific status
	{ 0x10a, 0x02, 0x05, 0x31, 0x01 },	// invalid format
	{ 0x180, 0x02, 0x05, 0x24, 0x00 },	// conflicting attributes
	{ 0x181, 0x02, 0x05, 0x24, 0x00 },	// invalid protection info
	{ 0x182, 0x02, 0x07, 0x27, 0x00 },	// write to read only range
	// media and data integrity errors
	{ 0x280, 0x02, 0x03, 0x03, 0x00 },	// write fault
	{ 0x281, 0x02, 0x03, 0x11, 0x00 },	// unrecovered read error
	{ 0x282, 0x02, 0x03, 0x10, 0x01 },	// guard check
	{ 0x283, 0x02, 0x03, 0x10, 0x02 },	// application tag check
	{ 0x284, 0x02, 0x03, 0x10, 0x03 },	// reference tag check
	{ 0x285, 0x02, 0x0e, 0x1d, 0x00 },	// compare failure
	{ 0x286, 0x02, 0x07, 0x20, 0x02 },	// access denied
	{ 0x287, 0x02, 0x03, 0x11, 0x00 },	// deallocated or unwritten
	// path related status
	{ 0x301, 0x02, 0x02, 0x04, 0x0c },	// ANA persistent loss
	{ 0x302, 0x02, 0x02, 0x04, 0x0b },	// ANA inaccessible
	{ 0x303, 0x02, 0x02, 0x04, 0x0a },	// ANA transition
	// codes the table does not list, by status code type
	{ 0x0ff, 0x02, 0x04, 0x44, 0x00 },
	{ 0x1c0, 0x02, 0x04, 0x44, 0x00 },
	{ 0x2ff, 0x02, 0x03, 0x00, 0x00 },
	{ 0x360, 0x02, 0x0b, 0x00, 0x00 },	// controller pathing error
	{ 0x371, 0x02, 0x0b, 0x00, 0x00 },	// aborted by host
	{ 0x700, 0x02, 0x04, 0x44, 0x00 },	// vendor specific
	{ 0x401, 0x02, 0x04, 0x44, 0x00 },	// reserved type
};

class StatusTest : public XlateTest,
		   public ::testing::WithParamInterface<StatusCase> {
protected:
	// A READ(10) of 8 blocks into a 4 KiB buffer, as executed.
	void plan_read()
	{
		ASSERT_EQ(run_in(cdb10(0x28, 0, 8), 8192), 0);
		ASSERT_EQ(out.kind, RBLK_XLATE_NVME);
		ASSERT_EQ(out.resid, 4096u);
	}
};

TEST_P(StatusTest, MapsToScsi)
{
	const StatusCase &c = GetParam();

	plan_read();
	rblk_xlate_complete(&out, c.nvme);
	EXPECT_EQ(out.kind, RBLK_XLATE_DONE);
	EXPECT_EQ(out.status, c.sam);
	EXPECT_EQ(out.resid, 8192u);
	EXPECT_EQ(out.data_len, 0u);
	if (c.sam != RBLK_SAM_CHECK_CONDITION) {
		EXPECT_EQ(out.sense_len, 0);
		return;
	}
	Sense s = decode_sense(out);
	EXPECT_EQ(s.response, 0x70);
	EXPECT_EQ(s.key, c.key);
	EXPECT_EQ(s.asc, c.asc);
	EXPECT_EQ(s.ascq, c.ascq);
	EXPECT_FALSE(s.sksv);
}

TEST_P(StatusTest, IgnoresDnrMoreAndCrd)
{
	const StatusCase &c = GetParam();

	plan_read();
	rblk_xlate_complete(&out, c.nvme | 0x4000 | 0x2000 | 0x1800);
	EXPECT_EQ(out.status, c.sam);
	if (c.sam == RBLK_SAM_CHECK_CONDITION) {
		EXPECT_EQ(decode_sense(out).asc, c.asc);
	}
}

TEST_P(StatusTest, DescriptorFormatWhenDSense)
{
	const StatusCase &c = GetParam();

	ns.d_sense = true;
	plan_read();
	rblk_xlate_complete(&out, c.nvme);
	if (c.sam != RBLK_SAM_CHECK_CONDITION)
		return;
	ASSERT_EQ(out.sense_len, 8);
	EXPECT_EQ(out.sense[0], 0x72);
	EXPECT_EQ(out.sense[1], c.key);
	EXPECT_EQ(out.sense[2], c.asc);
	EXPECT_EQ(out.sense[3], c.ascq);
}

INSTANTIATE_TEST_SUITE_P(Table, StatusTest, ::testing::ValuesIn(kCases));

using CompleteTest = XlateTest;

TEST_F(CompleteTest, SuccessKeepsTheResidual)
{
	ASSERT_EQ(run_in(cdb10(0x28, 0, 8), 8192), 0);
	rblk_xlate_complete(&out, 0);
	EXPECT_EQ(out.kind, RBLK_XLATE_DONE);
	EXPECT_EQ(out.status, RBLK_SAM_GOOD);
	EXPECT_EQ(out.sense_len, 0);
	EXPECT_EQ(out.resid, 4096u);
}

TEST_F(CompleteTest, SuccessWithDnrBitAloneIsStillSuccess)
{
	ASSERT_EQ(run_in(cdb10(0x28, 0, 8), 4096), 0);
	rblk_xlate_complete(&out, 0x4000);
	EXPECT_EQ(out.status, RBLK_SAM_GOOD);
	EXPECT_EQ(out.resid, 0u);
}

TEST_F(CompleteTest, MiscompareOfVerifyByteCheck)
{
	ASSERT_EQ(run_out(cdb10(0x2f, 0, 1, 0x02), 512), 0);
	rblk_xlate_complete(&out, 0x285);
	expect_sense(0x0e, 0x1d, 0x00);
}

TEST_F(CompleteTest, NvmeStatusAloneFillsSense)
{
	out.dxfer_len = 100;
	out.d_sense = false;
	rblk_xlate_nvme_status(&out, 0x281);
	EXPECT_EQ(out.status, RBLK_SAM_CHECK_CONDITION);
	EXPECT_EQ(out.resid, 100u);
	EXPECT_EQ(decode_sense(out).asc, 0x11);
}

} // namespace
