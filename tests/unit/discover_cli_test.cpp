// rblkctl discover / connect-all / monitor --connect-new: their command
// lines, discovery.conf through connect-all's options, and the output
// (nvme-cli's text and JSON field names).
#include "discovery_log_builder.hpp"

#include "cli_parse.hpp"
#include "commands.hpp"
#include "format.hpp"

#include <rblk/discovery.hpp>
#include <rblk/error.hpp>
#include <rblk/json.hpp>

#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <utility>

namespace rblkctl {
namespace {

using test::parse;
using test::parse_error;

TEST(CliDiscover, DefaultsToTheWellKnownNqnAsADiscoveryController)
{
    auto cli = parse({"discover", "-t", "rdma", "-a", "10.0.0.1"});
    const Request& r = cli->request();
    EXPECT_EQ(r.command, Command::Discover);
    EXPECT_EQ(r.connect.traddr, "10.0.0.1");
    EXPECT_EQ(r.connect.trsvcid, 4420);
    EXPECT_EQ(r.connect.subnqn, RBLK_DISC_SUBNQN);
    EXPECT_TRUE(r.connect.discovery);
    EXPECT_FALSE(r.json);
}

TEST(CliDiscover, ConnectsSpellingsAndOutputFormat)
{
    auto cli = parse({"discover", "--traddr=fe80::1", "-s", "8009", "--nqn", "nqn.disc",
                      "-q", "nqn.h", "-I", "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0",
                      "--host-traddr", "fe80::2", "-o", "json"});
    const Request& r = cli->request();
    EXPECT_EQ(r.connect.trsvcid, 8009);
    EXPECT_EQ(r.connect.subnqn, "nqn.disc");
    EXPECT_EQ(r.connect.hostnqn, "nqn.h");
    EXPECT_EQ(r.connect.host_traddr, "fe80::2");
    EXPECT_TRUE(r.json);
    EXPECT_TRUE(parse({"discover", "-a", "10.0.0.1", "--json"})->request().json);
}

TEST(CliDiscover, BadValuesAreOneLineErrors)
{
    EXPECT_NE(parse_error({"discover"}).find("--traddr"), std::string::npos);
    EXPECT_NE(parse_error({"discover", "-a", "no_host"}).find("not an IPv4 or IPv6"),
              std::string::npos);
    EXPECT_NE(parse_error({"discover", "-a", "10.0.0.1", "-o", "xml"}), "<parsed>");
    // An I/O option is connect-all's, not discover's.
    EXPECT_NE(parse_error({"discover", "-a", "10.0.0.1", "-i", "4"}), "<parsed>");
}

TEST(CliConnectAll, TakesConnectsIoOptions)
{
    auto cli = parse({"connect-all", "-a", "10.0.0.1", "-i", "4", "-Q", "64", "-k", "15",
                      "-c", "2", "-l", "60", "--fast-io-fail-tmo", "5", "-W", "1", "-P", "1",
                      "-T", "3", "--persistent"});
    const Request& r = cli->request();
    EXPECT_EQ(r.command, Command::ConnectAll);
    EXPECT_EQ(r.connect.nr_io_queues, 4);
    EXPECT_EQ(r.connect.queue_size, 64);
    EXPECT_EQ(r.connect.kato, 15);
    EXPECT_EQ(r.connect.reconnect_delay, 2);
    EXPECT_EQ(r.connect.ctrl_loss_tmo, 60);
    EXPECT_EQ(r.connect.fast_io_fail_tmo, 5);
    EXPECT_EQ(r.connect.nr_write_queues, 1);
    EXPECT_EQ(r.connect.nr_poll_queues, 1);
    EXPECT_EQ(r.connect.tos, 3);
    EXPECT_TRUE(r.persistent);
    EXPECT_EQ(r.config, "/etc/nvme/discovery.conf");
}

TEST(CliConnectAll, WithoutAnAddressItUsesTheConfigButStillChecksOptions)
{
    auto cli = parse({"connect-all", "--config", "/tmp/d.conf"});
    EXPECT_EQ(cli->request().config, "/tmp/d.conf");
    EXPECT_TRUE(cli->request().connect.traddr.empty());
    EXPECT_EQ(parse_error({"connect-all", "-Q", "4"}), "--queue-size 4 is out of range (16..1024)");
}

TEST(CliMonitor, ConnectNewTakesConnectOptions)
{
    auto cli = parse({"monitor", "--connect-new", "-i", "2", "-q", "nqn.h"});
    const Request& r = cli->request();
    EXPECT_EQ(r.command, Command::Monitor);
    EXPECT_TRUE(r.connect_new);
    EXPECT_EQ(r.connect.nr_io_queues, 2);
    EXPECT_EQ(r.connect.hostnqn, "nqn.h");
    EXPECT_FALSE(parse({"monitor"})->request().connect_new);
    EXPECT_NE(parse_error({"monitor", "--connect-new", "-i", "0"}), "<parsed>");
}

TEST(DiscoveryConfStarts, EachLineIsParsedWithConnectAllsOptionsOverTheDefaults)
{
    rblk::ConnectOptions defaults;
    defaults.subnqn = RBLK_DISC_SUBNQN;
    defaults.nr_io_queues = 3;
    defaults.hostnqn = "nqn.cmdline";
    std::istringstream in("# two controllers\n"
                          "-t rdma -a 10.0.0.1 -s 4420\n"
                          "--transport=rdma --traddr=10.0.0.2 --trsvcid=8009 --hostnqn=nqn.line "
                          "--nr-io-queues=8\n");
    const auto starts = discovery_conf_starts(in, defaults, "d.conf");
    ASSERT_EQ(starts.size(), 2u);
    EXPECT_EQ(starts[0].traddr, "10.0.0.1");
    EXPECT_EQ(starts[0].nr_io_queues, 3);  // the command line's, the line says nothing
    EXPECT_EQ(starts[0].hostnqn, "nqn.cmdline");
    EXPECT_TRUE(starts[0].discovery);
    EXPECT_EQ(starts[1].traddr, "10.0.0.2");
    EXPECT_EQ(starts[1].trsvcid, 8009);
    EXPECT_EQ(starts[1].hostnqn, "nqn.line");
    EXPECT_EQ(starts[1].nr_io_queues, 8);
    EXPECT_EQ(starts[1].subnqn, RBLK_DISC_SUBNQN);
}

TEST(DiscoveryConfStarts, ABadLineIsAnErrorNamingFileAndLineAsTheLineSpellsIt)
{
    rblk::ConnectOptions defaults;
    defaults.subnqn = RBLK_DISC_SUBNQN;
    const std::pair<const char*, const char*> cases[] = {
        {"-a 10.0.0.1\n\n-a 10.0.0.2 --bogus\n", "d.conf:3: unknown option '--bogus'"},
        {"-a 10.0.0.1 --queue-size 5000\n", "d.conf:1: --queue-size 5000 is out of range (16..1024)"},
    };
    for (const auto& [text, why] : cases) {
        std::istringstream in(text);
        try {
            discovery_conf_starts(in, defaults, "d.conf");
            ADD_FAILURE() << "a bad line was accepted: " << text;
        } catch (const rblk::InvalidOption& e) {
            EXPECT_STREQ(e.what(), why);
        }
    }
}

rblk::DiscoveryLog sample_log()
{
    rblk::test::LogBuilder b(5);
    b.add_rdma("10.0.0.1", "4420", "nqn.sub").tsas.rdma.pkey = htole16(0x12);
    b.add_rdma("10.0.0.1", "4420", "nqn.tcp").trtype = NVMF_TRTYPE_TCP;
    return rblk::parse_discovery_log(b.bytes());
}

TEST(DiscoverOutput, JsonHasNvmeClisFieldNamesAndStrings)
{
    const nlohmann::json j = rblk::discovery_log_json(sample_log());
    EXPECT_EQ(j["genctr"], 5);
    ASSERT_EQ(j["records"].size(), 2u);
    const nlohmann::json& r = j["records"][0];
    EXPECT_EQ(r["trtype"], "rdma");
    EXPECT_EQ(r["adrfam"], "ipv4");
    EXPECT_EQ(r["subtype"], "nvme subsystem");
    EXPECT_EQ(r["treq"], "not specified");
    EXPECT_EQ(r["portid"], 1);
    EXPECT_EQ(r["trsvcid"], "4420");
    EXPECT_EQ(r["subnqn"], "nqn.sub");
    EXPECT_EQ(r["traddr"], "10.0.0.1");
    EXPECT_EQ(r["eflags"], "none");
    EXPECT_EQ(r["rdma_prtype"], "not specified");
    EXPECT_EQ(r["rdma_qptype"], "connected");
    EXPECT_EQ(r["rdma_cms"], "rdma-cm");
    EXPECT_EQ(r["rdma_pkey"], 0x12);
    EXPECT_EQ(r.size(), 13u);
    const nlohmann::json& t = j["records"][1];
    EXPECT_EQ(t["trtype"], "tcp");
    EXPECT_TRUE(t.contains("sectype"));
    EXPECT_FALSE(t.contains("rdma_qptype"));
}

TEST(DiscoverOutput, TextIsNvmeDiscoversLayout)
{
    const std::string s = format_discovery_log(sample_log());
    EXPECT_EQ(s.rfind("\nDiscovery Log Number of Records 2, Generation counter 5\n", 0), 0u) << s;
    EXPECT_NE(s.find("=====Discovery Log Entry 0======\n"
                     "trtype:  rdma\n"
                     "adrfam:  ipv4\n"
                     "subtype: nvme subsystem\n"
                     "treq:    not specified\n"
                     "portid:  1\n"
                     "trsvcid: 4420\n"
                     "subnqn:  nqn.sub\n"
                     "traddr:  10.0.0.1\n"
                     "eflags:  none\n"
                     "rdma_prtype: not specified\n"
                     "rdma_qptype: connected\n"
                     "rdma_cms:    rdma-cm\n"
                     "rdma_pkey: 0x0012\n"
                     "=====Discovery Log Entry 1======\n"),
              std::string::npos)
        << s;
}

TEST(DiscoverOutput, DiscoveryControllersAreMarkedInListShowAndJson)
{
    rblk::ControllerInfo c;
    c.name = "rblk3";
    c.subnqn = RBLK_DISC_SUBNQN;
    c.discovery = true;
    EXPECT_NE(format_list({c}).find(std::string(RBLK_DISC_SUBNQN) + " (discovery)"),
              std::string::npos);
    EXPECT_NE(format_show(c).find("type:"), std::string::npos);
    EXPECT_NE(format_show(c).find("discovery"), std::string::npos);
    EXPECT_EQ(rblk::controller_json(c)["discovery"], true);
    c.discovery = false;
    EXPECT_EQ(rblk::controller_json(c)["discovery"], false);
}

TEST(DiscoverOutput, AenEventsPrintTheirResult)
{
    rblk::AenEvent e{3, "rblk3", 0x0070f002, true};
    EXPECT_EQ(format_aen(e), "rblk3: async event 0x0070f002 (discovery log changed)");
    EXPECT_EQ(rblk::aen_json(e)["discovery_log_changed"], true);
    e.result = 0x00040002;
    EXPECT_EQ(format_aen(e), "rblk3: async event 0x00040002");
}

TEST(MonitorOutput, ReservationNoticesNameDiskNamespaceAndKind)
{
    rblk::ResvNoticeEvent e{1, "rblk1", 1, "rblk1n1", rblk::ResvNotice::RegistrationPreempted};
    EXPECT_EQ(format_resv_notice(e), "rblk1: rblk1n1 (nsid 1): reservation notice: registration-preempted");
    const nlohmann::json j = rblk::resv_notice_json(e);
    EXPECT_EQ(j.dump(), R"({"disk":"rblk1n1","event":"reservation","id":1,"name":"rblk1","notice":"registration-preempted","nsid":1})");
    e.notice = rblk::ResvNotice::ReservationReleased;
    e.disk.clear();
    EXPECT_EQ(format_resv_notice(e), "rblk1: - (nsid 1): reservation notice: reservation-released");
    e.notice = static_cast<rblk::ResvNotice>(7);
    EXPECT_EQ(rblk::resv_notice_json(e)["notice"], "unknown(7)");
}

}  // namespace
}  // namespace rblkctl
