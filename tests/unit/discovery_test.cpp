// The discovery log (rblk/discovery.hpp): crafted logs parsed and
// validated, and the generation loop over a fake Get Log Page.
#include "discovery_log_builder.hpp"

#include <rblk/discovery.hpp>
#include <rblk/error.hpp>

#include <gtest/gtest.h>

#include <cstring>

namespace rblk {
namespace {

using test::LogBuilder;

TEST(DiscoveryParse, ValidEntriesAreTrimmedAndDecoded)
{
    LogBuilder b(7);
    b.add_rdma("10.0.0.1", "4420", "nqn.sub1").portid = 3;
    b.add_rdma("fe80::1", "4421", "nqn.sub2");
    const DiscoveryLog log = parse_discovery_log(b.bytes());
    EXPECT_EQ(log.genctr, 7u);
    EXPECT_EQ(log.numrec, 2u);
    ASSERT_EQ(log.entries.size(), 2u);
    EXPECT_TRUE(log.warnings.empty());
    EXPECT_EQ(log.entries[0].traddr, "10.0.0.1");  // the space padding is gone
    EXPECT_EQ(log.entries[0].trsvcid, "4420");
    EXPECT_EQ(log.entries[0].subnqn, "nqn.sub1");
    EXPECT_EQ(log.entries[0].portid, 3);
    EXPECT_EQ(log.entries[0].rdma_qptype, 1);
    EXPECT_EQ(log.entries[1].index, 1u);
    EXPECT_EQ(log.entries[1].traddr, "fe80::1");
}

TEST(DiscoveryParse, NulPaddingAsNvmetWritesItIsTrimmedToo)
{
    LogBuilder b(1);
    nvmf_disc_log_entry& e = b.add_rdma("10.0.0.1", "4420", "nqn.sub");
    std::memset(e.traddr, 0, sizeof(e.traddr));
    std::memcpy(e.traddr, "10.0.0.9", 8);
    const DiscoveryLog log = parse_discovery_log(b.bytes());
    ASSERT_EQ(log.entries.size(), 1u);
    EXPECT_EQ(log.entries[0].traddr, "10.0.0.9");
}

// Each bad entry is skipped with a warning naming it; the good one stays.
struct BadEntry {
    const char* name;
    void (*spoil)(nvmf_disc_log_entry&);
    const char* reason;
};

class DiscoveryBadEntry : public testing::TestWithParam<BadEntry> {};

TEST_P(DiscoveryBadEntry, IsSkippedWithAWarningNamingIt)
{
    LogBuilder b(1);
    b.add_rdma("10.0.0.1", "4420", "nqn.good");
    GetParam().spoil(b.add_rdma("10.0.0.2", "4420", "nqn.bad"));
    const DiscoveryLog log = parse_discovery_log(b.bytes());
    ASSERT_EQ(log.entries.size(), 1u);
    EXPECT_EQ(log.entries[0].subnqn, "nqn.good");
    ASSERT_EQ(log.warnings.size(), 1u);
    EXPECT_NE(log.warnings[0].find("discovery log entry 1: "), std::string::npos)
        << log.warnings[0];
    EXPECT_NE(log.warnings[0].find(GetParam().reason), std::string::npos) << log.warnings[0];
}

INSTANTIATE_TEST_SUITE_P(
    Entries, DiscoveryBadEntry,
    testing::Values(
        BadEntry{"AllZero", [](nvmf_disc_log_entry& e) { std::memset(&e, 0, sizeof(e)); },
                 "all zero"},
        BadEntry{"Trtype", [](nvmf_disc_log_entry& e) { e.trtype = 9; }, "transport type 9"},
        BadEntry{"Adrfam", [](nvmf_disc_log_entry& e) { e.adrfam = 77; }, "address family 77"},
        BadEntry{"Subtype0", [](nvmf_disc_log_entry& e) { e.subtype = 0; }, "subsystem type 0"},
        BadEntry{"Subtype4", [](nvmf_disc_log_entry& e) { e.subtype = 4; }, "subsystem type 4"},
        BadEntry{"TreqReservedBits", [](nvmf_disc_log_entry& e) { e.treq = 0x10; },
                 "transport requirements 16"},
        BadEntry{"TreqReservedChannel", [](nvmf_disc_log_entry& e) { e.treq = 0x3; },
                 "transport requirements 3"},
        BadEntry{"SubnqnUnterminated",
                 [](nvmf_disc_log_entry& e) { std::memset(e.subnqn, 'a', sizeof(e.subnqn)); },
                 "not NUL-terminated"},
        BadEntry{"SubnqnEmpty", [](nvmf_disc_log_entry& e) { e.subnqn[0] = '\0'; },
                 "subnqn is empty"},
        BadEntry{"SubnqnControl", [](nvmf_disc_log_entry& e) { e.subnqn[2] = '\n'; },
                 "subnqn has a non-printable"},
        BadEntry{"TraddrNonPrintable", [](nvmf_disc_log_entry& e) { e.traddr[3] = '\x01'; },
                 "traddr has a non-printable"},
        BadEntry{"TraddrInnerNul", [](nvmf_disc_log_entry& e) { e.traddr[2] = '\0'; },
                 "traddr has a non-printable"},
        BadEntry{"TrsvcidHighBit", [](nvmf_disc_log_entry& e) { e.trsvcid[0] = '\xc3'; },
                 "trsvcid has a non-printable"}),
    [](const testing::TestParamInfo<BadEntry>& info) { return std::string(info.param.name); });

TEST(DiscoveryParse, LogShorterThanNumrecMakesTheMissingEntriesInvalid)
{
    LogBuilder b(1);
    b.add_rdma("10.0.0.1", "4420", "nqn.sub");
    b.set_numrec(3);  // two more than the bytes hold
    const DiscoveryLog log = parse_discovery_log(b.bytes());
    EXPECT_EQ(log.entries.size(), 1u);
    ASSERT_EQ(log.warnings.size(), 2u);
    EXPECT_NE(log.warnings[1].find("entry 2: truncated"), std::string::npos) << log.warnings[1];
}

TEST(DiscoveryParse, HeaderProblemsAreErrors)
{
    std::vector<std::uint8_t> short_log(100);
    EXPECT_THROW(parse_discovery_log(short_log), Error);

    LogBuilder huge(1);
    huge.set_numrec(kDiscoveryMaxRecords + 1);
    try {
        parse_discovery_log(huge.bytes());
        FAIL() << "a log of 1025 records was accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.errnum(), EPROTO);
        EXPECT_NE(std::string(e.what()).find("numrec 1025"), std::string::npos) << e.what();
    }

    LogBuilder fmt(1);
    fmt.header().recfmt = 1;
    EXPECT_THROW(parse_discovery_log(fmt.bytes()), Error);
}

TEST(DiscoveryParse, ReferralAndCurrentEntriesAreValid)
{
    LogBuilder b(1);
    b.add_rdma("10.0.0.5", "8009", "nqn.2014-08.org.nvmexpress.discovery").subtype =
        NVME_NQN_DISC;
    b.add_rdma("10.0.0.1", "4420", "nqn.2014-08.org.nvmexpress.discovery").subtype =
        NVME_NQN_CURR;
    const DiscoveryLog log = parse_discovery_log(b.bytes());
    ASSERT_EQ(log.entries.size(), 2u);
    EXPECT_EQ(log.entries[0].subtype, NVME_NQN_DISC);
    EXPECT_EQ(log.entries[1].subtype, NVME_NQN_CURR);
}

// A fake target: serves `logs` in turn, switching to the next generation
// after each full-header read with RAE clear, as a log that keeps changing.
struct FakeTarget {
    explicit FakeTarget(std::vector<std::vector<std::uint8_t>> gens, bool churns = false)
        : generations(std::move(gens)), churn(churns)
    {
    }

    std::vector<std::vector<std::uint8_t>> generations;
    std::size_t current = 0;
    bool churn = false;  // move to the next generation after every entries read
    int reads = 0;
    std::vector<bool> raes;

    LogPageReader reader()
    {
        return [this](std::uint64_t offset, std::span<std::uint8_t> out, bool rae) {
            ++reads;
            raes.push_back(rae);
            const auto& log = generations[std::min(current, generations.size() - 1)];
            std::fill(out.begin(), out.end(), 0);
            for (std::size_t i = 0; i < out.size() && offset + i < log.size(); ++i)
                out[i] = log[offset + i];
            if (offset > 0 && churn && current + 1 < generations.size())
                ++current;
        };
    }
};

TEST(DiscoveryFetch, SettledLogIsHeaderEntriesHeaderWithRaeClearLast)
{
    LogBuilder b(4);
    b.add_rdma("10.0.0.1", "4420", "nqn.sub");
    FakeTarget t({b.bytes()});
    const std::vector<std::uint8_t> log = fetch_discovery_log(t.reader());
    EXPECT_EQ(log, b.bytes());
    EXPECT_EQ(t.reads, 3);
    EXPECT_EQ(t.raes, (std::vector<bool>{true, true, false}));
}

TEST(DiscoveryFetch, EmptyLogStillClearsRae)
{
    LogBuilder b(2);
    FakeTarget t({b.bytes()});
    EXPECT_EQ(parse_discovery_log(fetch_discovery_log(t.reader())).numrec, 0u);
    EXPECT_EQ(t.raes, (std::vector<bool>{true, false}));
}

TEST(DiscoveryFetch, GenerationChangingOnceIsRetriedAndSucceeds)
{
    LogBuilder g1(1);
    g1.add_rdma("10.0.0.1", "4420", "nqn.old");
    LogBuilder g2(2);
    g2.add_rdma("10.0.0.1", "4420", "nqn.new1");
    g2.add_rdma("10.0.0.1", "4420", "nqn.new2");
    FakeTarget t({g1.bytes(), g2.bytes()}, true);
    const DiscoveryLog log = parse_discovery_log(fetch_discovery_log(t.reader()));
    EXPECT_EQ(log.genctr, 2u);
    ASSERT_EQ(log.entries.size(), 2u);
    EXPECT_EQ(log.entries[1].subnqn, "nqn.new2");
    EXPECT_EQ(t.reads, 5);  // header, entries, header (changed), entries, header
}

TEST(DiscoveryFetch, ChurningGenerationIsAnErrorAfterTheBound)
{
    std::vector<std::vector<std::uint8_t>> gens;
    for (std::uint64_t g = 0; g < 50; ++g) {
        LogBuilder b(g);
        b.add_rdma("10.0.0.1", "4420", "nqn.sub");
        gens.push_back(b.bytes());
    }
    FakeTarget t(gens, true);
    try {
        fetch_discovery_log(t.reader(), 10);
        FAIL() << "a log that never settles was accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.errnum(), EAGAIN);
        EXPECT_NE(std::string(e.what()).find("did not settle"), std::string::npos) << e.what();
    }
    EXPECT_EQ(t.reads, 1 + 10 * 2);
}

TEST(DiscoveryFetch, RecordCountChangingWithinAGenerationIsAnError)
{
    LogBuilder g1(3);
    g1.add_rdma("10.0.0.1", "4420", "nqn.a");
    LogBuilder g1b(3);  // same generation, another count: a broken target
    g1b.add_rdma("10.0.0.1", "4420", "nqn.a");
    g1b.add_rdma("10.0.0.1", "4420", "nqn.b");
    FakeTarget t({g1.bytes(), g1b.bytes()}, true);
    EXPECT_THROW(fetch_discovery_log(t.reader()), Error);
}

TEST(DiscoveryFetch, HugeNumrecIsRefusedBeforeReadingEntries)
{
    LogBuilder b(1);
    b.set_numrec(1ull << 40);
    FakeTarget t({b.bytes()});
    EXPECT_THROW(fetch_discovery_log(t.reader()), Error);
    EXPECT_EQ(t.reads, 1);
}

TEST(DiscoveryDevice, MissingNodeIsAnErrorNamingThePathAfterTheWait)
{
    try {
        open_ctrl_device("rblk-no-such-node", std::chrono::milliseconds(50));
        FAIL() << "opened a node that does not exist";
    } catch (const Error& e) {
        EXPECT_EQ(e.errnum(), ENOENT);
        EXPECT_NE(std::string(e.what()).find("/dev/rblk-no-such-node"), std::string::npos);
    }
}

}  // namespace
}  // namespace rblk
