// SPDX-License-Identifier: GPL-2.0
// UNMAP -> DSM deallocate; WRITE SAME (10/16) -> Write Zeroes or DSM.
#include "xlate_test_util.h"

#include <utility>

namespace {

struct Desc {
	u64 lba;
	u32 nlb;
};

// An UNMAP parameter list; @bddl overrides the descriptor data length.
Bytes unmap_list(const std::vector<Desc> &descs, int bddl = -1)
{
	Bytes p(8 + 16 * descs.size(), 0);
	u16 len = bddl < 0 ? 16 * descs.size() : bddl;

	p[0] = (p.size() - 2) >> 8;
	p[1] = p.size() - 2;
	p[2] = len >> 8;
	p[3] = len;
	for (size_t i = 0; i < descs.size(); i++) {
		u8 *d = &p[8 + 16 * i];

		for (int b = 0; b < 8; b++)
			d[b] = descs[i].lba >> (56 - 8 * b);
		for (int b = 0; b < 4; b++)
			d[8 + b] = descs[i].nlb >> (24 - 8 * b);
	}
	return p;
}

class ProvisioningTest : public XlateTest {
protected:
	int unmap(const Bytes &p, u8 b1 = 0)
	{
		return run_out(cdb10(0x42, 0, p.size(), b1), p.size(), p);
	}

	void expect_dsm(const std::vector<Desc> &ranges, u32 resid)
	{
		expect_nvme(nvme_cmd_dsm, RBLK_XLATE_DATA_BUF,
			    16 * ranges.size(), resid);
		EXPECT_TRUE(out.nvme.write);
		EXPECT_EQ(out.nvme.nsid, 1u);
		EXPECT_EQ(out.nvme.cdw10, ranges.size() - 1);
		EXPECT_EQ(out.nvme.cdw11, NVME_DSMGMT_AD);
		for (size_t i = 0; i < ranges.size(); i++) {
			const u8 *r = &data()[16 * i];

			EXPECT_EQ(le32(&r[0]), 0u) << i;	// attributes
			EXPECT_EQ(le32(&r[4]), ranges[i].nlb) << i;
			EXPECT_EQ(le64(&r[8]), ranges[i].lba) << i;
		}
	}

	int write_same(bool ws16, u64 lba, u32 nlb, u8 b1, const Bytes &block)
	{
		Bytes c = ws16 ? cdb16(0x93, lba, nlb, b1) :
				 cdb10(0x41, lba, nlb, b1);

		if (block.empty())
			return run(c);
		return run_out(c, block.size(), block);
	}

	Bytes zero_block() const { return Bytes(1u << ns.lba_shift, 0); }
};

// --- UNMAP ---

TEST_F(ProvisioningTest, UnmapOneDescriptor)
{
	ASSERT_EQ(unmap(unmap_list({ { 2048, 8 } })), 0);
	expect_dsm({ { 2048, 8 } }, 0);
}

TEST_F(ProvisioningTest, UnmapManyDescriptors)
{
	std::vector<Desc> d = { { 0, 1 }, { 100, 0x10000 },
				{ 0x1fff00, 0x100 }, { 5000, 7 } };

	ASSERT_EQ(unmap(unmap_list(d)), 0);
	expect_dsm(d, 0);
}

TEST_F(ProvisioningTest, UnmapLargeRangeBeyondNlbField)
{
	ASSERT_EQ(unmap(unmap_list({ { 0, 2097152 } })), 0);	// whole disk
	expect_dsm({ { 0, 2097152 } }, 0);
}

TEST_F(ProvisioningTest, UnmapSkipsEmptyDescriptors)
{
	ASSERT_EQ(unmap(unmap_list({ { 1, 0 }, { 10, 2 }, { 3, 0 } })), 0);
	expect_dsm({ { 10, 2 } }, 0);
}

TEST_F(ProvisioningTest, UnmapOnlyEmptyDescriptorsIsGood)
{
	ASSERT_EQ(unmap(unmap_list({ { 1, 0 } })), 0);
	expect_good(0, 0);
	ASSERT_EQ(unmap(unmap_list({})), 0);
	expect_good(0, 0);
}

TEST_F(ProvisioningTest, UnmapZeroParameterListIsGood)
{
	ASSERT_EQ(run(cdb10(0x42, 0, 0)), 0);
	expect_good(0, 0);
}

TEST_F(ProvisioningTest, UnmapShortParameterListIsLengthError)
{
	Bytes p(7, 0);

	ASSERT_EQ(run_out(cdb10(0x42, 0, 7), 7, p), 0);
	expect_sense(0x05, 0x1a, 0x00);
}

TEST_F(ProvisioningTest, UnmapPartialDescriptorIsIgnored)
{
	Bytes p = unmap_list({ { 10, 2 }, { 20, 4 } });

	p.resize(8 + 16 + 15);		// cut the second descriptor short
	ASSERT_EQ(run_out(cdb10(0x42, 0, p.size()), p.size(), p), 0);
	expect_dsm({ { 10, 2 } }, 0);
	p = unmap_list({ { 10, 2 }, { 20, 4 } }, 16 + 8);
	ASSERT_EQ(unmap(p), 0);
	expect_dsm({ { 10, 2 } }, 0);
}

TEST_F(ProvisioningTest, UnmapDescriptorLengthBeyondListIsClamped)
{
	Bytes p = unmap_list({ { 10, 2 } }, 0x1000);

	ASSERT_EQ(unmap(p), 0);
	expect_dsm({ { 10, 2 } }, 0);
}

TEST_F(ProvisioningTest, UnmapBufferLargerThanListLeavesResidual)
{
	Bytes p = unmap_list({ { 10, 2 } });

	ASSERT_EQ(run_out(cdb10(0x42, 0, p.size()), 512, p), 0);
	expect_dsm({ { 10, 2 } }, 512 - 24);
}

TEST_F(ProvisioningTest, UnmapListLongerThanBufferIsInvalid)
{
	Bytes p = unmap_list({ { 10, 2 } });

	ASSERT_EQ(run_out(cdb10(0x42, 0, p.size()), 16, p), 0);
	expect_bad_cdb(7, -1);
}

TEST_F(ProvisioningTest, UnmapParamShorterThanDescriptorsIsLengthError)
{
	Bytes p = unmap_list({ { 10, 2 }, { 20, 2 } });
	Bytes cut(p.begin(), p.begin() + 30);

	// the glue copied in less than the list claims
	ASSERT_EQ(run_out(cdb10(0x42, 0, p.size()), p.size(), cut), 0);
	expect_sense(0x05, 0x1a, 0x00);
}

TEST_F(ProvisioningTest, UnmapTooManyDescriptors)
{
	std::vector<Desc> d(257, Desc{ 0, 1 });

	ASSERT_EQ(unmap(unmap_list(d)), 0);
	expect_bad_param(2, -1);
	d.resize(256);
	ASSERT_EQ(unmap(unmap_list(d)), 0);
	expect_dsm(d, 0);
	ns.max_dsm_ranges = 2;
	ASSERT_EQ(unmap(unmap_list({ { 0, 1 }, { 1, 1 }, { 2, 1 } })), 0);
	expect_bad_param(2, -1);
}

TEST_F(ProvisioningTest, UnmapPastTheEnd)
{
	ASSERT_EQ(unmap(unmap_list({ { 0, 1 }, { 2097151, 2 } })), 0);
	expect_sense(0x05, 0x21, 0x00);
	ASSERT_EQ(unmap(unmap_list({ { ~0ull, 1 } })), 0);
	expect_sense(0x05, 0x21, 0x00);
	ASSERT_EQ(unmap(unmap_list({ { 2097153, 0 } })), 0);
	expect_sense(0x05, 0x21, 0x00);
}

TEST_F(ProvisioningTest, UnmapAnchorIsInvalid)
{
	ASSERT_EQ(unmap(unmap_list({ { 0, 1 } }), 0x01), 0);
	expect_bad_cdb(1, 0);
}

TEST_F(ProvisioningTest, UnmapWithoutDsmIsInvalidOpcode)
{
	ns.dsm_supported = false;
	ASSERT_EQ(unmap(unmap_list({ { 0, 1 } })), 0);
	expect_sense(0x05, 0x20, 0x00);
}

TEST_F(ProvisioningTest, UnmapReadOnlyIsWriteProtected)
{
	ns.read_only = true;
	ASSERT_EQ(unmap(unmap_list({ { 0, 1 } })), 0);
	expect_sense(0x07, 0x27, 0x00);
}

TEST_F(ProvisioningTest, UnmapDataInIsEinval)
{
	Bytes p = unmap_list({ { 0, 1 } });

	EXPECT_EQ(run_in(cdb10(0x42, 0, p.size()), p.size()), -EINVAL);
}

// --- WRITE SAME ---

TEST_F(ProvisioningTest, WriteSame10ZeroesWithWriteZeroes)
{
	ASSERT_EQ(write_same(false, 1000, 64, 0, zero_block()), 0);
	expect_nvme(nvme_cmd_write_zeroes, RBLK_XLATE_DATA_NONE, 0, 0);
	EXPECT_EQ(out.nvme.nsid, 1u);
	EXPECT_EQ(out.nvme.cdw10, 1000u);
	EXPECT_EQ(out.nvme.cdw11, 0u);
	EXPECT_EQ(out.nvme.cdw12, 63u);
}

TEST_F(ProvisioningTest, WriteSame16UnmapSetsDeallocate)
{
	ns.nr_lbas = 1ull << 40;
	ASSERT_EQ(write_same(true, 0x123456789aull, 65536, 0x08, zero_block()),
		  0);
	expect_nvme(nvme_cmd_write_zeroes, RBLK_XLATE_DATA_NONE, 0, 0);
	EXPECT_EQ(out.nvme.cdw10, 0x3456789au);
	EXPECT_EQ(out.nvme.cdw11, 0x12u);
	EXPECT_EQ(out.nvme.cdw12, 0xffffu | RBLK_XLATE_CDW12_CONTROL(NVME_WZ_DEAC));
}

TEST_F(ProvisioningTest, WriteSame16NoDataOutBuffer)
{
	ASSERT_EQ(write_same(true, 0, 8, 0x01, {}), 0);
	expect_nvme(nvme_cmd_write_zeroes, RBLK_XLATE_DATA_NONE, 0, 0);
	EXPECT_EQ(out.nvme.cdw12, 7u);
}

TEST_F(ProvisioningTest, WriteSameBufferLargerThanBlockLeavesResidual)
{
	Bytes block = zero_block();

	ASSERT_EQ(run_out(cdb10(0x41, 0, 8), 4096, block), 0);
	expect_nvme(nvme_cmd_write_zeroes, RBLK_XLATE_DATA_NONE, 0,
		    4096 - 512);
}

TEST_F(ProvisioningTest, WriteSameNonZeroDataIsInvalidParameter)
{
	Bytes block = zero_block();

	block[300] = 0x5a;
	ASSERT_EQ(write_same(false, 0, 8, 0, block), 0);
	expect_bad_param(300, -1);
}

TEST_F(ProvisioningTest, WriteSameShortDataIsLengthError)
{
	Bytes block(511, 0);

	ASSERT_EQ(write_same(false, 0, 8, 0, block), 0);
	expect_sense(0x05, 0x1a, 0x00);
	ASSERT_EQ(write_same(true, 0, 8, 0, {}), 0);	// no NDOB, no data
	expect_sense(0x05, 0x1a, 0x00);
}

TEST_F(ProvisioningTest, WriteSameDataInIsEinval)
{
	EXPECT_EQ(run_in(cdb10(0x41, 0, 8), 512), -EINVAL);
}

TEST_F(ProvisioningTest, WriteSameZeroBlocksIsInvalid)
{
	ASSERT_EQ(write_same(false, 0, 0, 0, zero_block()), 0);
	expect_bad_cdb(7, -1);
	ASSERT_EQ(write_same(true, 0, 0, 0x01, {}), 0);
	expect_bad_cdb(10, -1);
}

TEST_F(ProvisioningTest, WriteSameOverWriteZeroesLimitIsInvalid)
{
	ASSERT_EQ(write_same(true, 0, 65537, 0x01, {}), 0);
	expect_bad_cdb(10, -1);
	ns.max_wz_lbas = 128;
	ASSERT_EQ(write_same(true, 0, 129, 0x01, {}), 0);
	expect_bad_cdb(10, -1);
	ASSERT_EQ(write_same(true, 0, 128, 0x01, {}), 0);
	EXPECT_EQ(out.kind, RBLK_XLATE_NVME);
}

TEST_F(ProvisioningTest, WriteSameFieldChecks)
{
	const std::pair<u8, int> bad[] = {
		{ 0x20, 7 },	// WRPROTECT
		{ 0x10, 4 },	// ANCHOR
		{ 0x04, 2 },	// PBDATA
		{ 0x02, 1 },	// LBDATA
	};

	for (auto [b1, bit] : bad) {
		ASSERT_EQ(write_same(false, 0, 8, b1, zero_block()), 0);
		expect_bad_cdb(1, bit);
		ASSERT_EQ(write_same(true, 0, 8, b1, zero_block()), 0);
		expect_bad_cdb(1, bit);
	}
	ASSERT_EQ(write_same(false, 0, 8, 0x01, zero_block()), 0);
	expect_bad_cdb(1, 0);		// bit 0 of WRITE SAME(10) is obsolete
}

TEST_F(ProvisioningTest, WriteSameRangeAndReadOnly)
{
	ASSERT_EQ(write_same(false, 2097150, 3, 0, zero_block()), 0);
	expect_sense(0x05, 0x21, 0x00);
	ns.read_only = true;
	ASSERT_EQ(write_same(false, 0, 3, 0, zero_block()), 0);
	expect_sense(0x07, 0x27, 0x00);
}

TEST_F(ProvisioningTest, WriteSameUnmapFallsBackToDeallocate)
{
	ns.write_zeroes_supported = false;
	ASSERT_EQ(write_same(true, 4096, 1000000, 0x08 | 0x01, {}), 0);
	expect_dsm({ { 4096, 1000000 } }, 0);
	ASSERT_EQ(write_same(false, 8, 16, 0x08, zero_block()), 0);
	expect_dsm({ { 8, 16 } }, 0);
}

TEST_F(ProvisioningTest, WriteSameWithoutUnmapNeedsWriteZeroes)
{
	ns.write_zeroes_supported = false;
	ASSERT_EQ(write_same(false, 8, 16, 0, zero_block()), 0);
	expect_bad_cdb(1, 3);
}

TEST_F(ProvisioningTest, WriteSameUnsupportedIsInvalidOpcode)
{
	ns.write_zeroes_supported = false;
	ns.dealloc_zeroes = false;
	ASSERT_EQ(write_same(false, 8, 16, 0x08, zero_block()), 0);
	expect_sense(0x05, 0x20, 0x00);
	ns.dealloc_zeroes = true;
	ns.dsm_supported = false;
	ASSERT_EQ(write_same(true, 8, 16, 0x09, {}), 0);
	expect_sense(0x05, 0x20, 0x00);
}

} // namespace
