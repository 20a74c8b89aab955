// Host unit tests of the controller core's pure decisions: the state
// machine (ctrl_state.c), command ids (cid.h), Identify data (identify.c).
#include <cstring>

#include <gtest/gtest.h>
extern "C" {
#include "cid.h"
#include "ctrl_state.h"
#include "identify.h"
}

TEST(State, LegalEdgesOnly) {
	const int n = __RBLK_CTRL_STATE_MAX;
	bool want[6][6] = {};
	auto allow = [&](rblk_ctrl_state a, rblk_ctrl_state b) { want[a][b] = true; };
	allow(RBLK_CTRL_NEW, RBLK_CTRL_CONNECTING);
	allow(RBLK_CTRL_RESETTING, RBLK_CTRL_CONNECTING);
	allow(RBLK_CTRL_CONNECTING, RBLK_CTRL_LIVE);
	allow(RBLK_CTRL_LIVE, RBLK_CTRL_RESETTING);
	for (auto s : {RBLK_CTRL_NEW, RBLK_CTRL_CONNECTING, RBLK_CTRL_LIVE, RBLK_CTRL_RESETTING})
		allow(s, RBLK_CTRL_DELETING);
	allow(RBLK_CTRL_DELETING, RBLK_CTRL_DEAD);
	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++)
			EXPECT_EQ(want[a][b], rblk_state_allowed((rblk_ctrl_state)a, (rblk_ctrl_state)b)) << a << "->" << b;
	EXPECT_FALSE(rblk_state_allowed(RBLK_CTRL_LIVE, (rblk_ctrl_state)99));
	EXPECT_STREQ("live", rblk_state_name(RBLK_CTRL_LIVE));
	EXPECT_STREQ("unknown", rblk_state_name((rblk_ctrl_state)42));
}

TEST(Cid, RoundTrip) {
	for (unsigned tag = 0; tag < 4096; tag += 511)
		for (unsigned gen = 0; gen < 16; gen++) {
			u16 cid = rblk_cid(tag, gen);
			EXPECT_EQ(tag, rblk_cid_tag(cid));
			EXPECT_EQ(gen, rblk_cid_gen(cid));
		}
	EXPECT_EQ(0x1000, rblk_cid(0, 17));	/* generation wraps in 4 bits */
}

TEST(Mdts, Sectors) {
	EXPECT_EQ(~0U, rblk_mdts_sectors(0, 0));
	EXPECT_EQ(256U, rblk_mdts_sectors(5, 0));	/* 4k << 5 = 128k */
	EXPECT_EQ(512U, rblk_mdts_sectors(5, 1));	/* 8k pages */
	EXPECT_EQ(~0U, rblk_mdts_sectors(255, 15));	/* no overflow */
	EXPECT_EQ(~0U, rblk_mdts_sectors(19, 0));	/* 2^31 */
}

TEST(Nsid, Next) {
	EXPECT_TRUE(rblk_nsid_next_ok(1, 0, 0));
	EXPECT_TRUE(rblk_nsid_next_ok(5, 1, 5));
	EXPECT_FALSE(rblk_nsid_next_ok(1, 1, 0));	/* not ascending */
	EXPECT_FALSE(rblk_nsid_next_ok(6, 5, 5));	/* beyond NN */
	EXPECT_FALSE(rblk_nsid_next_ok(0xffffffffU, 5, 0));
}

TEST(NsDescs, ParsesAndBounds) {
	u8 buf[64] = {};
	struct rblk_ns_ids ids;
	/* EUI64 then UUID then a truncated NGUID */
	buf[0] = 1; buf[1] = 8; memset(buf + 4, 0xaa, 8);
	buf[12] = 3; buf[13] = 16; memset(buf + 16, 0xbb, 16);
	buf[32] = 2; buf[33] = 16;	/* needs 36..52 */
	EXPECT_EQ(3, rblk_parse_ns_descs(buf, sizeof(buf), &ids));
	EXPECT_TRUE(ids.has_eui64 && ids.has_uuid && ids.has_nguid);
	EXPECT_EQ(2, rblk_parse_ns_descs(buf, 40, &ids));	/* NGUID runs past */
	EXPECT_FALSE(ids.has_nguid);
	buf[1] = 9;	/* EUI64 of the wrong length: skipped, walk goes on */
	EXPECT_EQ(0, rblk_parse_ns_descs(buf, 20, &ids));
	u8 z[8] = {};
	EXPECT_EQ(0, rblk_parse_ns_descs(z, sizeof(z), &ids));
	u8 big[4] = {2, 255, 0, 0};
	EXPECT_EQ(0, rblk_parse_ns_descs(big, sizeof(big), &ids));
}
