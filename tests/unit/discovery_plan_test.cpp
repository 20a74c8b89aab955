// connect-all's decisions (rblk/discovery_plan.hpp): which entries connect,
// which are skipped, referrals and their loops, discovery.conf.
#include "discovery_log_builder.hpp"

#include <rblk/discovery_plan.hpp>
#include <rblk/error.hpp>

#include <gtest/gtest.h>

#include <map>
#include <sstream>

namespace rblk {
namespace {

using test::LogBuilder;

ConnectOptions disc_at(const std::string& traddr, std::int64_t port = 4420)
{
    ConnectOptions o;
    o.traddr = traddr;
    o.trsvcid = port;
    o.subnqn = RBLK_DISC_SUBNQN;
    o.hostnqn = "nqn.host";
    o.discovery = true;
    o.nr_io_queues = 4;
    return o;
}

ControllerInfo ctrl(const std::string& name, const std::string& traddr, std::uint16_t port,
                    const std::string& subnqn, bool discovery = false, std::uint32_t kato = 0)
{
    ControllerInfo c;
    c.name = name;
    c.transport = "rdma";
    c.traddr = traddr;
    c.trsvcid = port;
    c.subnqn = subnqn;
    c.hostnqn = "nqn.host";
    c.discovery = discovery;
    c.kato = kato;
    return c;
}

TEST(ConnectAllPlan, NvmeSubsystemEntriesConnectWithTheGivenOptions)
{
    LogBuilder b(1);
    b.add_rdma("10.0.0.1", "4420", "nqn.sub1");
    b.add_rdma("10.0.0.2", "4421", "nqn.sub2");
    const ConnectAllPlan plan = plan_connect_all(parse_discovery_log(b.bytes()),
                                                 disc_at("10.0.0.9"), {});
    ASSERT_EQ(plan.connect.size(), 2u);
    EXPECT_EQ(plan.connect[1].traddr, "10.0.0.2");
    EXPECT_EQ(plan.connect[1].trsvcid, 4421);
    EXPECT_EQ(plan.connect[1].subnqn, "nqn.sub2");
    EXPECT_FALSE(plan.connect[1].discovery);
    EXPECT_EQ(plan.connect[1].nr_io_queues, 4);
    EXPECT_EQ(plan.connect[1].hostnqn, "nqn.host");
}

TEST(ConnectAllPlan, AlreadyConnectedEntriesAreSkippedSoASecondRunAddsNothing)
{
    LogBuilder b(1);
    b.add_rdma("10.0.0.1", "4420", "nqn.sub1");
    b.add_rdma("10.0.0.2", "4420", "nqn.sub2");
    const std::vector<ControllerInfo> existing = {ctrl("rblk0", "10.0.0.1", 4420, "nqn.sub1"),
                                                  ctrl("rblk1", "10.0.0.2", 4420, "nqn.sub2")};
    const ConnectAllPlan plan =
        plan_connect_all(parse_discovery_log(b.bytes()), disc_at("10.0.0.9"), existing);
    EXPECT_TRUE(plan.connect.empty());
    EXPECT_EQ(plan.existing, (std::vector<std::string>{"rblk0", "rblk1"}));
}

TEST(ConnectAllPlan, AnotherHostNqnOrADiscoveryControllerDoesNotCount)
{
    LogBuilder b(1);
    b.add_rdma("10.0.0.1", "4420", "nqn.sub1");
    ControllerInfo other_host = ctrl("rblk0", "10.0.0.1", 4420, "nqn.sub1");
    other_host.hostnqn = "nqn.other-host";
    const std::vector<ControllerInfo> existing = {
        other_host, ctrl("rblk1", "10.0.0.1", 4420, "nqn.sub1", true)};
    const ConnectAllPlan plan =
        plan_connect_all(parse_discovery_log(b.bytes()), disc_at("10.0.0.9"), existing);
    EXPECT_EQ(plan.connect.size(), 1u);
}

TEST(ConnectAllPlan, CurrentDiscoveryOtherTransportsAndDuplicatesAreNotConnected)
{
    LogBuilder b(1);
    b.add_rdma("10.0.0.1", "4420", RBLK_DISC_SUBNQN).subtype = NVME_NQN_CURR;
    b.add_rdma("10.0.0.1", "4420", "nqn.tcp").trtype = NVMF_TRTYPE_TCP;
    b.add_rdma("10.0.0.1", "eth0", "nqn.badport");
    b.add_rdma("10.0.0.1", "4420", "nqn.sub");
    b.add_rdma("10.0.0.1", "4420", "nqn.sub");  // listed twice
    const ConnectAllPlan plan =
        plan_connect_all(parse_discovery_log(b.bytes()), disc_at("10.0.0.9"), {});
    ASSERT_EQ(plan.connect.size(), 1u);
    EXPECT_EQ(plan.connect[0].subnqn, "nqn.sub");
    // The current discovery subsystem is passed over without a word.
    ASSERT_EQ(plan.skipped.size(), 2u);
    EXPECT_NE(plan.skipped[0].find("not rdma"), std::string::npos);
    EXPECT_NE(plan.skipped[1].find("'eth0' is not a port number"), std::string::npos);
}

TEST(ConnectAllPlan, ReferralsBecomeDiscoveryControllers)
{
    LogBuilder b(1);
    b.add_rdma("10.0.0.7", "8009", RBLK_DISC_SUBNQN).subtype = NVME_NQN_DISC;
    const ConnectAllPlan plan =
        plan_connect_all(parse_discovery_log(b.bytes()), disc_at("10.0.0.9"), {});
    EXPECT_TRUE(plan.connect.empty());
    ASSERT_EQ(plan.referrals.size(), 1u);
    EXPECT_TRUE(plan.referrals[0].discovery);
    EXPECT_EQ(plan.referrals[0].traddr, "10.0.0.7");
    EXPECT_EQ(plan.referrals[0].trsvcid, 8009);
}

// A discovery service of several controllers, by address.
struct FakeService {
    std::map<std::string, std::vector<std::uint8_t>> logs;
    std::vector<std::pair<std::string, int>> reads;

    DiscoverFn fn()
    {
        return [this](const ConnectOptions& d, int depth) {
            reads.emplace_back(d.traddr, depth);
            const auto it = logs.find(d.traddr);
            if (it == logs.end())
                throw Error(EHOSTUNREACH, "no route to " + d.traddr);
            return parse_discovery_log(it->second);
        };
    }
};

std::vector<std::uint8_t> referral_log(const std::string& to, const std::string& subnqn)
{
    LogBuilder b(1);
    b.add_rdma(to, "4420", RBLK_DISC_SUBNQN).subtype = NVME_NQN_DISC;
    b.add_rdma("10.1.0.1", "4420", subnqn);
    return b.bytes();
}

TEST(DiscoveryWalk, ReferralsAreFollowedAndTheirEntriesConnected)
{
    FakeService s;
    s.logs["10.0.0.1"] = referral_log("10.0.0.2", "nqn.a");
    LogBuilder leaf(1);
    leaf.add_rdma("10.1.0.2", "4420", "nqn.b");
    s.logs["10.0.0.2"] = leaf.bytes();
    const DiscoveryWalk w = walk_discovery({disc_at("10.0.0.1")}, {}, s.fn());
    ASSERT_EQ(w.connect.size(), 2u);
    EXPECT_EQ(w.connect[0].subnqn, "nqn.a");
    EXPECT_EQ(w.connect[1].subnqn, "nqn.b");
    EXPECT_EQ(w.connect[1].nr_io_queues, 4);  // the start's options carry over
    EXPECT_EQ(s.reads, (std::vector<std::pair<std::string, int>>{{"10.0.0.1", 0}, {"10.0.0.2", 1}}));
}

TEST(DiscoveryWalk, AReferralLoopEndsWithAWarning)
{
    FakeService s;
    s.logs["10.0.0.1"] = referral_log("10.0.0.2", "nqn.a");
    s.logs["10.0.0.2"] = referral_log("10.0.0.1", "nqn.a");  // back again
    const DiscoveryWalk w = walk_discovery({disc_at("10.0.0.1")}, {}, s.fn());
    EXPECT_EQ(s.reads.size(), 2u);
    EXPECT_EQ(w.connect.size(), 1u);  // nqn.a once
    ASSERT_FALSE(w.warnings.empty());
    EXPECT_NE(w.warnings.back().find("referral loop"), std::string::npos) << w.warnings.back();
}

TEST(DiscoveryWalk, AChainDeeperThanTheBoundIsCut)
{
    FakeService s;
    for (int i = 0; i < 20; ++i)
        s.logs["10.0.0." + std::to_string(i)] =
            referral_log("10.0.0." + std::to_string(i + 1), "nqn.a");
    const DiscoveryWalk w = walk_discovery({disc_at("10.0.0.0")}, {}, s.fn(), 8);
    EXPECT_EQ(s.reads.size(), 9u);  // the start and 8 referrals
    EXPECT_EQ(s.reads.back().second, 8);
    ASSERT_FALSE(w.warnings.empty());
    EXPECT_NE(w.warnings.back().find("more than 8 referrals deep"), std::string::npos);
}

TEST(DiscoveryWalk, AnUnreachableReferralIsAWarningButNoStartAtAllIsTheError)
{
    FakeService s;
    s.logs["10.0.0.1"] = referral_log("10.0.0.66", "nqn.a");
    const DiscoveryWalk w = walk_discovery({disc_at("10.0.0.1")}, {}, s.fn());
    EXPECT_EQ(w.connect.size(), 1u);
    EXPECT_NE(w.warnings.back().find("no route to 10.0.0.66"), std::string::npos);

    try {
        walk_discovery({disc_at("10.0.0.66")}, {}, s.fn());
        FAIL() << "an unreachable start was not an error";
    } catch (const Error& e) {
        EXPECT_EQ(e.errnum(), EHOSTUNREACH);
    }
}

TEST(DiscoveryOptions, TransientHasNoKeepAlivePersistentDefaultsTo30)
{
    ConnectOptions d = disc_at("10.0.0.1");
    const ConnectOptions transient = discovery_connect_options(d, false);
    EXPECT_TRUE(transient.discovery);
    EXPECT_FALSE(transient.kato.has_value());
    EXPECT_FALSE(transient.nr_io_queues.has_value());  // no I/O queues on a discovery controller
    EXPECT_EQ(transient.hostnqn, "nqn.host");
    EXPECT_EQ(discovery_connect_options(d, true).kato, kDefaultDiscoveryKato);
    d.kato = 12;
    EXPECT_EQ(discovery_connect_options(d, true).kato, 12);
}

TEST(DiscoveryOptions, PersistentControllerForTheSameTargetIsFound)
{
    const ConnectOptions d = disc_at("10.0.0.1");
    EXPECT_EQ(find_persistent_discovery({ctrl("rblk2", "10.0.0.1", 4420, RBLK_DISC_SUBNQN, true, 30)}, d),
              "rblk2");
    // Without keep-alive it is someone's transient one; another address is another target.
    EXPECT_FALSE(find_persistent_discovery({ctrl("rblk2", "10.0.0.1", 4420, RBLK_DISC_SUBNQN, true, 0)}, d));
    EXPECT_FALSE(find_persistent_discovery({ctrl("rblk2", "10.0.0.2", 4420, RBLK_DISC_SUBNQN, true, 30)}, d));
}

TEST(DiscoveryConf, CommentsAndBlankLinesAreSkippedWordsSplitAtBlanks)
{
    std::istringstream in("# discovery controllers\n"
                          "\n"
                          "   \t\n"
                          "-t rdma -a 10.0.0.1 -s 4420\n"
                          "  --transport=rdma\t--traddr=10.0.0.2  -q nqn.h  \n"
                          "#-a 10.0.0.3\n");
    const std::vector<ConfLine> lines = parse_discovery_conf(in);
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0].line, 4);
    EXPECT_EQ(lines[0].args, (std::vector<std::string>{"-t", "rdma", "-a", "10.0.0.1", "-s", "4420"}));
    EXPECT_EQ(lines[1].line, 5);
    EXPECT_EQ(lines[1].args,
              (std::vector<std::string>{"--transport=rdma", "--traddr=10.0.0.2", "-q", "nqn.h"}));
}

TEST(AenResult, DiscoveryLogChangeNoticeIsRecognised)
{
    EXPECT_TRUE(is_discovery_change(0x0070f002));
    EXPECT_FALSE(is_discovery_change(0x00040002));  // namespace attribute changed
    EXPECT_FALSE(is_discovery_change(0x0070f001));  // not a notice
    EXPECT_FALSE(is_discovery_change(0x0071f002));  // another log page
}

}  // namespace
}  // namespace rblk
