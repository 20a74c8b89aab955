// SPDX-License-Identifier: GPL-2.0
// MODE SENSE (6/10) and MODE SELECT (6/10).
#include "xlate_test_util.h"

#include <cstring>

namespace {

Bytes sense6(u8 pc, u8 page, u8 sub, u8 alloc, bool dbd = false)
{
	return cdb6(0x1a, dbd ? 0x08 : 0, u8(pc << 6 | page), sub, alloc);
}

Bytes sense10(u8 pc, u8 page, u8 sub, u16 alloc, bool dbd = false,
	      bool llbaa = false)
{
	Bytes c(10, 0);

	c[0] = 0x5a;
	c[1] = (dbd ? 0x08 : 0) | (llbaa ? 0x10 : 0);
	c[2] = pc << 6 | page;
	c[3] = sub;
	c[7] = alloc >> 8;
	c[8] = alloc;
	return c;
}

Bytes caching_page(bool wce)
{
	Bytes p(20, 0);

	p[0] = 0x08;
	p[1] = 0x12;
	p[2] = wce ? 0x04 : 0;
	return p;
}

Bytes control_page(bool d_sense)
{
	Bytes p(12, 0);

	p[0] = 0x0a;
	p[1] = 0x0a;
	p[2] = 0x02 | (d_sense ? 0x04 : 0);
	p[3] = 0x10;
	p[8] = 0xff;
	p[9] = 0xff;
	return p;
}

Bytes cat(Bytes a, const Bytes &b)
{
	a.insert(a.end(), b.begin(), b.end());
	return a;
}

// MODE SELECT parameter list: header, optional block descriptor, pages.
Bytes select_list(bool ten, const Bytes &bd, const Bytes &pages)
{
	Bytes h(ten ? 8 : 4, 0);

	if (ten) {
		h[6] = bd.size() >> 8;
		h[7] = bd.size();
		if (bd.size() == 16)
			h[4] = 0x01;
	} else {
		h[3] = bd.size();
	}
	return cat(cat(h, bd), pages);
}

Bytes short_bd(u32 blocks, u32 size)
{
	return { u8(blocks >> 24), u8(blocks >> 16), u8(blocks >> 8),
		 u8(blocks), 0, u8(size >> 16), u8(size >> 8), u8(size) };
}

class ModeTest : public XlateTest {
protected:
	int select(bool ten, const Bytes &list, u8 b1 = 0x10)
	{
		Bytes c = ten ? cdb10(0x55, 0, list.size(), b1) :
				cdb6(0x15, b1, 0, 0, list.size());

		return run_out(c, list.size(), list);
	}
};

// --- MODE SENSE ---

TEST_F(ModeTest, Sense6CachingPageWithBlockDescriptor)
{
	ASSERT_EQ(run_in(sense6(0, 0x08, 0, 255), 255), 0);
	const u8 *d = data();
	expect_good(4 + 8 + 20, 255 - 32);
	EXPECT_EQ(d[0], 31);			// mode data length
	EXPECT_EQ(d[1], 0);			// medium type
	EXPECT_EQ(d[2], 0x10);			// DPOFUA, not WP
	EXPECT_EQ(d[3], 8);			// block descriptor length
	EXPECT_EQ(be32(&d[4]), 2097152u);	// blocks
	EXPECT_EQ(d[8], 0);			// density
	EXPECT_EQ(be24(&d[9]), 512u);		// block length
	EXPECT_EQ(d[12], 0x08);
	EXPECT_EQ(d[13], 0x12);
	EXPECT_EQ(d[14], 0x04);			// WCE
	for (int i = 15; i < 32; i++)
		EXPECT_EQ(d[i], 0) << i;
}

TEST_F(ModeTest, Sense6CachingPageFollowsTheCache)
{
	ns.vwc_enabled = false;
	ASSERT_EQ(run_in(sense6(0, 0x08, 0, 255, true), 255), 0);
	expect_good(24, 231);
	EXPECT_EQ(data()[3], 0);		// DBD: no descriptor
	EXPECT_EQ(data()[4], 0x08);
	EXPECT_EQ(data()[6], 0x00);
	ns.vwc_present = false;
	ns.vwc_enabled = true;
	ASSERT_EQ(run_in(sense6(0, 0x08, 0, 255, true), 255), 0);
	EXPECT_EQ(data()[6], 0x00);
}

TEST_F(ModeTest, ChangeableAndDefaultValues)
{
	ns.vwc_enabled = false;
	ASSERT_EQ(run_in(sense6(1, 0x3f, 0, 255, true), 255), 0);
	const u8 *d = data() + 4;
	EXPECT_EQ(d[0], 0x08);
	EXPECT_EQ(d[2], 0x00);			// WCE: the controller's
	EXPECT_EQ(d[20], 0x0a);
	EXPECT_EQ(d[22], 0x04);			// D_SENSE changeable
	EXPECT_EQ(d[23], 0x00);
	EXPECT_EQ(be16(&d[28]), 0);
	ASSERT_EQ(run_in(sense6(2, 0x08, 0, 255, true), 255), 0);
	EXPECT_EQ(data()[6], 0x04);		// default: cache on
	ns.vwc_present = false;
	ASSERT_EQ(run_in(sense6(1, 0x08, 0, 255, true), 255), 0);
	EXPECT_EQ(data()[6], 0x00);		// nothing to change
}

TEST_F(ModeTest, ControlPage)
{
	ASSERT_EQ(run_in(sense10(0, 0x0a, 0, 512, true), 512), 0);
	expect_good(8 + 12, 512 - 20);
	const u8 *d = data() + 8;
	EXPECT_EQ(d[0], 0x0a);
	EXPECT_EQ(d[1], 0x0a);
	EXPECT_EQ(d[2], 0x02);			// GLTSD, D_SENSE 0
	EXPECT_EQ(d[3], 0x10);			// unrestricted reordering
	EXPECT_EQ(d[4], 0x00);
	EXPECT_EQ(d[5], 0x00);
	EXPECT_EQ(be16(&d[8]), 0xffff);		// busy timeout
	EXPECT_EQ(be16(&d[10]), 0);
	ns.d_sense = true;
	ASSERT_EQ(run_in(sense10(0, 0x0a, 0, 512, true), 512), 0);
	EXPECT_EQ(data()[8 + 2], 0x06);
	ASSERT_EQ(run_in(sense10(2, 0x0a, 0, 512, true), 512), 0);
	EXPECT_EQ(data()[8 + 2], 0x02);		// default D_SENSE 0
}

TEST_F(ModeTest, AllPages)
{
	for (u8 sub : { 0x00, 0xff }) {
		ASSERT_EQ(run_in(sense10(0, 0x3f, sub, 512), 512), 0);
		expect_good(8 + 8 + 20 + 12, 512 - 48);
		EXPECT_EQ(be16(&data()[0]), 46);
		EXPECT_EQ(data()[16], 0x08);
		EXPECT_EQ(data()[36], 0x0a);
	}
}

TEST_F(ModeTest, Sense10HeaderAndLongDescriptor)
{
	ns.nr_lbas = 0x123456789ull;
	ns.lba_shift = 12;
	ns.read_only = true;
	ASSERT_EQ(run_in(sense10(0, 0x08, 0, 512, false, true), 512), 0);
	const u8 *d = data();
	expect_good(8 + 16 + 20, 512 - 44);
	EXPECT_EQ(be16(&d[0]), 42);
	EXPECT_EQ(d[2], 0);
	EXPECT_EQ(d[3], 0x90);			// WP, DPOFUA
	EXPECT_EQ(d[4], 0x01);			// LONGLBA
	EXPECT_EQ(be16(&d[6]), 16);
	EXPECT_EQ(be64(&d[8]), 0x123456789ull);
	EXPECT_EQ(be32(&d[20]), 4096u);
	EXPECT_EQ(d[24], 0x08);
}

TEST_F(ModeTest, ShortDescriptorSaturatesBlockCount)
{
	ns.nr_lbas = 0x123456789ull;
	ASSERT_EQ(run_in(sense10(0, 0x08, 0, 512), 512), 0);
	EXPECT_EQ(data()[4], 0x00);		// no LONGLBA
	EXPECT_EQ(be16(&data()[6]), 8);
	EXPECT_EQ(be32(&data()[8]), 0xffffffffu);
}

TEST_F(ModeTest, LlbaaIgnoredBySense6Field)
{
	// bit 4 of MODE SENSE(6) byte 1 is reserved: short descriptor
	Bytes c = sense6(0, 0x08, 0, 255);
	c[1] |= 0x10;
	ASSERT_EQ(run_in(c, 255), 0);
	EXPECT_EQ(data()[3], 8);
}

TEST_F(ModeTest, AllocationLengthTruncates)
{
	ASSERT_EQ(run_in(sense6(0, 0x3f, 0, 10), 255), 0);
	expect_good(10, 245);
	EXPECT_EQ(data()[0], 4 + 8 + 32 - 1);	// full length reported
	ASSERT_EQ(run_in(sense10(0, 0x3f, 0, 0), 255), 0);
	expect_good(0, 255);
}

TEST_F(ModeTest, SavedValuesAreNotSupported)
{
	ASSERT_EQ(run_in(sense6(3, 0x08, 0, 255), 255), 0);
	expect_sense(0x05, 0x39, 0x00);
}

TEST_F(ModeTest, UnknownPageIsInvalid)
{
	for (u8 page : { 0x00, 0x01, 0x1c, 0x19, 0x3e }) {
		ASSERT_EQ(run_in(sense6(0, page, 0, 255), 255), 0);
		expect_bad_cdb(2, 5);
	}
}

TEST_F(ModeTest, UnknownSubpageIsInvalid)
{
	ASSERT_EQ(run_in(sense6(0, 0x08, 0x01, 255), 255), 0);
	expect_bad_cdb(3, -1);
	ASSERT_EQ(run_in(sense10(0, 0x0a, 0xff, 255), 255), 0);
	expect_bad_cdb(3, -1);
	ASSERT_EQ(run_in(sense10(0, 0x3f, 0x05, 255), 255), 0);
	expect_bad_cdb(3, -1);
}

TEST_F(ModeTest, SenseDataOutIsEinval)
{
	EXPECT_EQ(run_out(sense6(0, 0x08, 0, 255), 255), -EINVAL);
}

// --- MODE SELECT ---

// The Volatile Write Cache feature is the controller's (Set Features
// nsid 0): an opener of one namespace must not switch every other
// namespace's cache under it. WCE is not changeable; a change is refused.
TEST_F(ModeTest, SelectWceOffIsRefused)
{
	ASSERT_EQ(select(false, select_list(false, {}, caching_page(false))),
		  0);
	expect_bad_param(4 + 2, -1);
	EXPECT_EQ(out.effects, 0u);
}

TEST_F(ModeTest, SelectWceOnIsRefused)
{
	ns.vwc_enabled = false;
	ASSERT_EQ(select(true, select_list(true, {}, caching_page(true))), 0);
	expect_bad_param(8 + 2, -1);
	EXPECT_EQ(out.effects, 0u);
}

TEST_F(ModeTest, SelectUnchangedWceIsGoodWithoutCommand)
{
	ASSERT_EQ(select(false, select_list(false, {}, caching_page(true))),
		  0);
	expect_good(0, 0);
	EXPECT_EQ(out.effects, 0u);
}

TEST_F(ModeTest, SelectIgnoresPsBit)
{
	Bytes page = caching_page(true);

	page[0] |= 0x80;
	ASSERT_EQ(select(false, select_list(false, {}, page)), 0);
	expect_good(0, 0);
}

TEST_F(ModeTest, SelectWceWithoutCacheIsInvalid)
{
	ns.vwc_present = false;
	ASSERT_EQ(select(false, select_list(false, {}, caching_page(true))),
		  0);
	expect_bad_param(4 + 2, -1);
	ASSERT_EQ(select(false, select_list(false, {}, caching_page(false))),
		  0);
	expect_good(0, 0);
}

TEST_F(ModeTest, SelectOtherCachingFieldIsInvalid)
{
	Bytes page = caching_page(true);

	page[2] |= 0x01;			// RCD
	ASSERT_EQ(select(false, select_list(false, {}, page)), 0);
	expect_bad_param(4 + 2, -1);
	page = caching_page(true);
	page[12] = 0x20;			// DRA etc.
	ASSERT_EQ(select(true, select_list(true, {}, page)), 0);
	expect_bad_param(8 + 12, -1);
}

TEST_F(ModeTest, SelectDescriptorSense)
{
	ASSERT_EQ(select(false, select_list(false, {}, control_page(true))),
		  0);
	expect_good(0, 0);
	EXPECT_EQ(out.effects, u32(RBLK_XLATE_FX_DSENSE_ON));
	ns.d_sense = true;
	ASSERT_EQ(select(false, select_list(false, {}, control_page(false))),
		  0);
	EXPECT_EQ(out.effects, u32(RBLK_XLATE_FX_DSENSE_OFF));
	ASSERT_EQ(select(false, select_list(false, {}, control_page(true))),
		  0);
	EXPECT_EQ(out.effects, 0u);
}

TEST_F(ModeTest, FixedDescriptorSenseIsNotChangeable)
{
	ns.d_sense_fixed = true;
	ASSERT_EQ(run_in(sense6(1, 0x0a, 0, 255, true), 255), 0);
	EXPECT_EQ(data()[4 + 2], 0x00);
	ASSERT_EQ(select(false, select_list(false, {}, control_page(true))),
		  0);
	expect_bad_param(4 + 2, -1);
	ASSERT_EQ(select(false, select_list(false, {}, control_page(false))),
		  0);
	expect_good(0, 0);
	EXPECT_EQ(out.effects, 0u);
}

TEST_F(ModeTest, SelectOtherControlFieldIsInvalid)
{
	Bytes page = control_page(false);

	page[3] = 0x12;				// QERR
	ASSERT_EQ(select(false, select_list(false, {}, page)), 0);
	expect_bad_param(4 + 3, -1);
}

TEST_F(ModeTest, SelectBothPagesTakesDescriptorSenseKeepsWce)
{
	Bytes pages = cat(control_page(true), caching_page(true));

	ASSERT_EQ(select(true, select_list(true, {}, pages)), 0);
	expect_good(0, 0);
	EXPECT_EQ(out.effects, u32(RBLK_XLATE_FX_DSENSE_ON));
	pages = cat(control_page(true), caching_page(false));
	ASSERT_EQ(select(true, select_list(true, {}, pages)), 0);
	expect_bad_param(8 + 12 + 2, -1);
	EXPECT_EQ(out.effects, 0u);
}

TEST_F(ModeTest, SelectBlockDescriptorMustKeepBlockSize)
{
	ASSERT_EQ(select(false, select_list(false, short_bd(0, 512),
					    caching_page(true))), 0);
	expect_good(0, 0);
	ASSERT_EQ(select(false, select_list(false, short_bd(0, 4096),
					    caching_page(true))), 0);
	expect_bad_param(4 + 5, -1);
}

TEST_F(ModeTest, SelectLongBlockDescriptor)
{
	Bytes bd(16, 0);

	bd[14] = 0x02;				// 512
	ASSERT_EQ(select(true, select_list(true, bd, caching_page(true))), 0);
	expect_good(0, 0);
	bd[14] = 0x10;				// 4096
	ASSERT_EQ(select(true, select_list(true, bd, caching_page(true))), 0);
	expect_bad_param(8 + 12, -1);
}

TEST_F(ModeTest, SelectBadBlockDescriptorLength)
{
	Bytes list = select_list(false, Bytes(4, 0), caching_page(true));

	ASSERT_EQ(select(false, list), 0);
	expect_bad_param(3, -1);
	Bytes bd(16, 0);
	list = select_list(true, bd, caching_page(true));
	list[4] = 0;				// 16 bytes without LONGLBA
	ASSERT_EQ(select(true, list), 0);
	expect_bad_param(6, -1);
}

TEST_F(ModeTest, SelectBlockDescriptorPastListIsLengthError)
{
	Bytes list = select_list(false, {}, {});

	list[3] = 8;
	ASSERT_EQ(select(false, list), 0);
	expect_sense(0x05, 0x1a, 0x00);
}

TEST_F(ModeTest, SelectWrongPageLengthIsInvalid)
{
	Bytes page = caching_page(true);

	page[1] = 0x0a;
	page.resize(12);
	ASSERT_EQ(select(false, select_list(false, {}, page)), 0);
	expect_bad_param(4 + 1, -1);
}

TEST_F(ModeTest, SelectTruncatedPageIsLengthError)
{
	Bytes page = caching_page(true);

	page.resize(10);
	ASSERT_EQ(select(false, select_list(false, {}, page)), 0);
	expect_sense(0x05, 0x1a, 0x00);
	page.resize(1);
	ASSERT_EQ(select(false, select_list(false, {}, page)), 0);
	expect_sense(0x05, 0x1a, 0x00);
}

TEST_F(ModeTest, SelectUnknownPageIsInvalid)
{
	Bytes page = { 0x1c, 0x0a, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };

	ASSERT_EQ(select(false, select_list(false, {}, page)), 0);
	expect_bad_param(4, 5);
}

TEST_F(ModeTest, SelectSubpageFormatIsInvalid)
{
	Bytes page = caching_page(true);

	page[0] |= 0x40;
	ASSERT_EQ(select(false, select_list(false, {}, page)), 0);
	expect_bad_param(4, 6);
}

TEST_F(ModeTest, SelectSaveOrNoPageFormatIsInvalid)
{
	Bytes list = select_list(false, {}, caching_page(true));

	ASSERT_EQ(select(false, list, 0x11), 0);
	expect_bad_cdb(1, 0);
	ASSERT_EQ(select(true, list, 0x00), 0);
	expect_bad_cdb(1, 4);
}

TEST_F(ModeTest, SelectEmptyListIsGood)
{
	ASSERT_EQ(run(cdb6(0x15, 0x10, 0, 0, 0)), 0);
	expect_good(0, 0);
	ASSERT_EQ(select(false, select_list(false, {}, {})), 0);
	expect_good(0, 0);
}

TEST_F(ModeTest, SelectListShorterThanHeaderIsLengthError)
{
	Bytes list(6, 0);

	ASSERT_EQ(select(true, list), 0);
	expect_sense(0x05, 0x1a, 0x00);
}

TEST_F(ModeTest, SelectListLongerThanBufferIsInvalid)
{
	Bytes list = select_list(false, {}, caching_page(true));

	ASSERT_EQ(run_out(cdb6(0x15, 0x10, 0, 0, list.size()), 10, list), 0);
	expect_bad_cdb(4, -1);
	ASSERT_EQ(run_out(cdb10(0x55, 0, list.size(), 0x10), 10, list), 0);
	expect_bad_cdb(7, -1);
}

TEST_F(ModeTest, SelectParamShorterThanListIsLengthError)
{
	Bytes list = select_list(false, {}, caching_page(true));
	Bytes cut(list.begin(), list.begin() + 10);

	ASSERT_EQ(run_out(cdb6(0x15, 0x10, 0, 0, list.size()), list.size(),
			  cut), 0);
	expect_sense(0x05, 0x1a, 0x00);
}

TEST_F(ModeTest, SelectBufferLargerThanListLeavesResidual)
{
	Bytes list = select_list(false, {}, caching_page(true));

	ASSERT_EQ(run_out(cdb6(0x15, 0x10, 0, 0, list.size()), 100, list), 0);
	expect_good(0, 100 - 24);
}

TEST_F(ModeTest, SelectDataInIsEinval)
{
	EXPECT_EQ(run_in(cdb6(0x15, 0x10, 0, 0, 24), 24), -EINVAL);
}

} // namespace
