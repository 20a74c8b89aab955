// Host unit tests of the controller core's pure decisions: the state
// machine (ctrl_state.c), command ids (cid.h), Identify data, the ANA log
// and the Reservation Notification log (identify.c).
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
extern "C" {
#include "cid.h"
#include "ctrl_state.h"
#include "identify.h"
#include "uapi/rblk.h"
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

/* --- The ANA log page (identify.c: rblk_ana_log_parse) --- */

namespace {

/* A log as a target would send it: header, then groups with their nsids. */
struct AnaLog {
	std::vector<uint8_t> b = std::vector<uint8_t>(RBLK_ANA_HDR_LEN);

	static void le32(uint8_t *p, uint32_t v)
	{
		for (int i = 0; i < 4; i++)
			p[i] = (uint8_t)(v >> (8 * i));
	}
	AnaLog &group(uint32_t grpid, uint8_t state, std::vector<uint32_t> nsids)
	{
		size_t off = b.size();

		b.resize(off + RBLK_ANA_DESC_LEN + 4 * nsids.size());
		le32(&b[off], grpid);
		le32(&b[off + 4], (uint32_t)nsids.size());
		b[off + 16] = state;
		for (size_t i = 0; i < nsids.size(); i++)
			le32(&b[off + RBLK_ANA_DESC_LEN + 4 * i], nsids[i]);
		uint16_t n = (uint16_t)(b[8] | b[9] << 8);
		n++;
		b[8] = (uint8_t)n;
		b[9] = (uint8_t)(n >> 8);
		return *this;
	}
};

struct Seen {
	std::vector<std::pair<uint32_t, uint8_t>> groups;
	std::vector<uint32_t> nsids;
};

int collect(void *priv, const struct rblk_ana_desc *d)
{
	auto *s = static_cast<Seen *>(priv);

	s->groups.emplace_back(d->grpid, d->state);
	for (uint32_t i = 0; i < d->nnsids; i++)
		s->nsids.push_back(rblk_ana_desc_nsid(d, i));
	return 0;
}

int parse(const AnaLog &log, Seen *seen, const char **why, size_t len = 0,
	  uint32_t anagrpmax = 4, uint32_t nn = 8)
{
	*why = nullptr;
	return rblk_ana_log_parse(log.b.data(), len ? len : log.b.size(),
				  anagrpmax, nn, collect, seen, why);
}

}  // namespace

TEST(AnaLog, TakesEveryGroupInOrder)
{
	AnaLog log;
	Seen seen;
	const char *why;

	log.group(1, RBLK_ANA_OPTIMIZED, {1, 2}).group(2, RBLK_ANA_INACCESSIBLE, {3});
	ASSERT_EQ(2, parse(log, &seen, &why));
	EXPECT_EQ(nullptr, why);
	ASSERT_EQ(2u, seen.groups.size());
	EXPECT_EQ(std::make_pair(1u, (uint8_t)RBLK_ANA_OPTIMIZED), seen.groups[0]);
	EXPECT_EQ(std::make_pair(2u, (uint8_t)RBLK_ANA_INACCESSIBLE), seen.groups[1]);
	EXPECT_EQ((std::vector<uint32_t>{1, 2, 3}), seen.nsids);
}

TEST(AnaLog, EmptyAndChangeStatesAccepted)
{
	AnaLog empty, change;
	Seen seen;
	const char *why;

	EXPECT_EQ(0, parse(empty, &seen, &why));
	change.group(3, RBLK_ANA_CHANGE, {}).group(4, RBLK_ANA_PERSISTENT_LOSS, {8});
	EXPECT_EQ(2, parse(change, &seen, &why));
}

/* Malformed: refused whole, before anything is taken from it. */
TEST(AnaLog, RefusesMalformedLogsWhole)
{
	const char *why;
	Seen seen;

	{
		AnaLog log;
		EXPECT_EQ(-EINVAL, parse(log, &seen, &why, RBLK_ANA_HDR_LEN - 1));
		EXPECT_STREQ("log shorter than its header", why);
	}
	{
		AnaLog log;
		log.group(1, RBLK_ANA_OPTIMIZED, {1}).group(2, RBLK_ANA_OPTIMIZED, {2, 3});
		/* The second group's namespace list is cut short. */
		EXPECT_EQ(-EINVAL, parse(log, &seen, &why, log.b.size() - 4));
		EXPECT_STREQ("namespace list runs past the log", why);
		EXPECT_EQ(-EINVAL, parse(log, &seen, &why, RBLK_ANA_HDR_LEN + 40));
		EXPECT_STREQ("group descriptor runs past the log", why);
	}
	{
		AnaLog log;
		log.group(5, RBLK_ANA_OPTIMIZED, {1});
		EXPECT_EQ(-EINVAL, parse(log, &seen, &why));
		EXPECT_STREQ("group id outside 1..ANAGRPMAX", why);
	}
	{
		AnaLog log;
		log.group(0, RBLK_ANA_OPTIMIZED, {1});
		EXPECT_EQ(-EINVAL, parse(log, &seen, &why));
	}
	{
		AnaLog log;
		log.group(1, 0x7, {1});
		EXPECT_EQ(-EINVAL, parse(log, &seen, &why));
		EXPECT_STREQ("unknown ANA state", why);
	}
	{
		AnaLog log;
		log.group(1, RBLK_ANA_OPTIMIZED, {9});
		EXPECT_EQ(-EINVAL, parse(log, &seen, &why));
		EXPECT_STREQ("namespace id outside 1..NN", why);
		AnaLog bcast;
		bcast.group(1, RBLK_ANA_OPTIMIZED, {0xffffffffu});
		EXPECT_EQ(-EINVAL, parse(bcast, &seen, &why, 0, 4, 0));
	}
	{
		AnaLog log;
		log.group(2, RBLK_ANA_OPTIMIZED, {1}).group(2, RBLK_ANA_INACCESSIBLE, {2});
		EXPECT_EQ(-EINVAL, parse(log, &seen, &why));
		EXPECT_STREQ("group listed twice", why);
	}
	{
		AnaLog log;
		log.group(1, RBLK_ANA_OPTIMIZED, {1}).group(2, RBLK_ANA_OPTIMIZED, {2});
		EXPECT_EQ(-EINVAL, parse(log, &seen, &why, 0, 1));
		EXPECT_STREQ("more groups than ANAGRPMAX", why);
	}
	{
		/* An nnsids that would overflow the offset arithmetic. */
		AnaLog log;
		log.group(1, RBLK_ANA_OPTIMIZED, {1});
		AnaLog::le32(&log.b[RBLK_ANA_HDR_LEN + 4], 0xffffffffu);
		EXPECT_EQ(-EINVAL, parse(log, &seen, &why));
	}
	EXPECT_TRUE(seen.groups.empty()) << "nothing taken from a refused log";
}

TEST(AnaLog, SizeCoversGroupsAndNamespaces)
{
	EXPECT_EQ((size_t)RBLK_ANA_HDR_LEN + 2 * RBLK_ANA_DESC_LEN + 3 * 4,
		  rblk_ana_log_size(2, 3));
}

/* --- The Reservation Notification log page (identify.c: rblk_resv_log_*) --- */

namespace {

std::vector<uint8_t> resv_page(uint64_t count, uint8_t type, uint8_t avail, uint32_t nsid)
{
	std::vector<uint8_t> p(RBLK_RESV_LOG_LEN, 0);
	for (int i = 0; i < 8; i++)
		p[i] = uint8_t(count >> (8 * i));
	p[8] = type;
	p[9] = avail;
	for (int i = 0; i < 4; i++)
		p[12 + i] = uint8_t(nsid >> (8 * i));
	return p;
}

}  // namespace

TEST(ResvLog, DecodesEveryFieldLittleEndian)
{
	const auto p = resv_page(0x0102030405060708ull, RBLK_RESV_NOTICE_RELEASED, 7, 0xa0b0c0d0);
	struct rblk_resv_log log;
	rblk_resv_log_parse(p.data(), &log);
	EXPECT_EQ(log.count, 0x0102030405060708ull);
	EXPECT_EQ(log.type, RBLK_RESV_NOTICE_RELEASED);
	EXPECT_EQ(log.nr_avail, 7);
	EXPECT_EQ(log.nsid, 0xa0b0c0d0u);
}

TEST(ResvLog, EmptyPageHasTypeZero)
{
	struct rblk_resv_log log;
	const auto p = resv_page(0, 0, 0, 0);
	rblk_resv_log_parse(p.data(), &log);
	EXPECT_EQ(log.type, 0);
	EXPECT_EQ(rblk_resv_notice_name(log.type), nullptr);
}

TEST(ResvLog, NamesTheThreeNoticesOnly)
{
	EXPECT_STREQ(rblk_resv_notice_name(RBLK_RESV_NOTICE_REG_PREEMPTED), "registration-preempted");
	EXPECT_STREQ(rblk_resv_notice_name(RBLK_RESV_NOTICE_RELEASED), "reservation-released");
	EXPECT_STREQ(rblk_resv_notice_name(RBLK_RESV_NOTICE_PREEMPTED), "reservation-preempted");
	for (int t = 4; t < 256; t++)
		EXPECT_EQ(rblk_resv_notice_name(uint8_t(t)), nullptr) << t;
}

TEST(ResvLog, LostNoticesFromTheCountGap)
{
	EXPECT_EQ(rblk_resv_log_lost(0, 5), 0u);	/* first page read: no reference */
	EXPECT_EQ(rblk_resv_log_lost(4, 5), 0u);
	EXPECT_EQ(rblk_resv_log_lost(4, 9), 4u);
	EXPECT_EQ(rblk_resv_log_lost(9, 1), 0u);	/* new controller, or wrapped */
	EXPECT_EQ(rblk_resv_log_lost(9, 9), 0u);	/* the same page again */
	EXPECT_EQ(rblk_resv_log_lost(UINT64_MAX - 1, UINT64_MAX), 0u);
}
