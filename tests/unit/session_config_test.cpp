// The sessions file format (rblk/session_config.hpp): parsing, errors with
// their JSON path, what `save` writes, and what `apply` plans.
#include <rblk/error.hpp>
#include <rblk/session_config.hpp>

#include "session_controller.hpp"

#include <gtest/gtest.h>

namespace rblk {
namespace {

using nlohmann::json;

const json kConfig = json::parse(R"({
  "hosts": [
    { "hostnqn": "nqn.host-a", "hostid": "11111111-2222-3333-4444-555555555555",
      "subsystems": [
        { "nqn": "nqn.sub1",
          "ports": [
            { "transport": "rdma", "traddr": "10.0.0.1", "trsvcid": 4420,
              "nr_io_queues": 4, "queue_size": 64, "keep_alive_tmo": 7,
              "reconnect_delay": 2, "ctrl_loss_tmo": 30, "fast_io_fail_tmo": 5,
              "duplicate_connect": true },
            { "traddr": "fd00::2", "trsvcid": "4421" } ] } ] },
    { "subsystems": [ { "nqn": "nqn.sub2", "ports": [ { "traddr": "10.0.0.3" } ] } ] }
  ]
})");

TEST(Sessions, EveryPortBecomesOneConnect)
{
    const auto s = parse_sessions(kConfig);
    ASSERT_EQ(s.size(), 3u);
    EXPECT_EQ(s[0].subnqn, "nqn.sub1");
    EXPECT_EQ(s[0].traddr, "10.0.0.1");
    EXPECT_EQ(s[0].trsvcid, 4420);
    EXPECT_EQ(s[0].hostnqn, "nqn.host-a");
    EXPECT_EQ(s[0].hostid, "11111111-2222-3333-4444-555555555555");
    EXPECT_EQ(s[0].nr_io_queues, 4);
    EXPECT_EQ(s[0].queue_size, 64);
    EXPECT_EQ(s[0].kato, 7);
    EXPECT_EQ(s[0].reconnect_delay, 2);
    EXPECT_EQ(s[0].ctrl_loss_tmo, 30);
    EXPECT_EQ(s[0].fast_io_fail_tmo, 5);
    EXPECT_TRUE(s[0].duplicate_connect);

    EXPECT_EQ(s[1].traddr, "fd00::2");
    EXPECT_EQ(s[1].trsvcid, 4421);  // libnvme writes ports as strings
    EXPECT_EQ(s[1].transport, "rdma");
    EXPECT_EQ(s[1].hostnqn, "nqn.host-a");
    EXPECT_FALSE(s[1].queue_size.has_value());

    EXPECT_EQ(s[2].subnqn, "nqn.sub2");
    EXPECT_EQ(s[2].trsvcid, RBLK_DEFAULT_TRSVCID);
    EXPECT_FALSE(s[2].hostnqn.has_value());  // the host default applies later
    EXPECT_FALSE(s[2].duplicate_connect);
}

TEST(Sessions, EmptyHostListIsNoSessions)
{
    EXPECT_TRUE(parse_sessions(json::parse(R"({"hosts": []})")).empty());
}

std::string error_of(const std::string& text)
{
    try {
        parse_sessions(json::parse(text));
    } catch (const InvalidOption& e) {
        return e.what();
    }
    return "<parsed>";
}

TEST(Sessions, ErrorsNameTheJsonPath)
{
    EXPECT_EQ(error_of("[]"),
              "expected an object (a list of hosts is libnvme's config.json: --format libnvme)");
    EXPECT_EQ(error_of("1"), "expected an object");
    EXPECT_EQ(error_of("{}"), "missing 'hosts'");
    EXPECT_EQ(error_of(R"({"hosts": {}})"), "hosts: expected an array");
    EXPECT_EQ(error_of(R"({"hosts": [], "extra": 1})"), "unknown key 'extra'");
    EXPECT_EQ(error_of(R"({"hosts": [{}]})"), "hosts[0]: missing 'subsystems'");
    EXPECT_EQ(error_of(R"({"hosts": [{"subsystems": [{"ports": []}]}]})"),
              "hosts[0].subsystems[0]: missing 'nqn'");
    EXPECT_EQ(error_of(R"({"hosts": [{"subsystems": [{"nqn": "nqn.s", "ports": [{}]}]}]})"),
              "hosts[0].subsystems[0].ports[0]: missing 'traddr'");
    EXPECT_EQ(error_of(R"({"hosts": [{"subsystems": [{"nqn": "nqn.s",
                           "ports": [{"traddr": "10.0.0.1", "trsvcd": 1}]}]}]})"),
              "hosts[0].subsystems[0].ports[0]: unknown key 'trsvcd'");
    EXPECT_EQ(error_of(R"({"hosts": [{"subsystems": [{"nqn": "nqn.s",
                           "ports": [{"traddr": "10.0.0.1", "queue_size": "big"}]}]}]})"),
              "hosts[0].subsystems[0].ports[0].queue_size: expected an integer");
    EXPECT_EQ(error_of(R"({"hosts": [{"subsystems": [{"nqn": "nqn.s",
                           "ports": [{"traddr": "10.0.0.1", "trsvcid": "http"}]}]}]})"),
              "hosts[0].subsystems[0].ports[0].trsvcid: expected a port number");
    EXPECT_EQ(error_of(R"({"hosts": [{"subsystems": [{"nqn": "nqn.s",
                           "ports": [{"traddr": 1}]}]}]})"),
              "hosts[0].subsystems[0].ports[0].traddr: expected a string");
    EXPECT_EQ(error_of(R"({"hosts": [{"subsystems": [{"nqn": "nqn.s",
                           "ports": [{"traddr": "10.0.0.1", "duplicate_connect": 1}]}]}]})"),
              "hosts[0].subsystems[0].ports[0].duplicate_connect: expected true or false");
}

TEST(Sessions, ConnectValidationAppliesToEveryPort)
{
    EXPECT_EQ(error_of(R"({"hosts": [{"subsystems": [{"nqn": "nqn.s", "ports": [
                           {"traddr": "10.0.0.1"}, {"traddr": "10.0.0.2", "queue_size": 8}]}]}]})"),
              "hosts[0].subsystems[0].ports[1]: queue-size 8 is out of range (16..1024)");
    EXPECT_EQ(error_of(R"({"hosts": [{"hostnqn": "", "subsystems": [{"nqn": "nqn.s",
                           "ports": [{"traddr": "10.0.0.1"}]}]}]})"),
              "hosts[0].subsystems[0].ports[0]: hostnqn is empty");
    EXPECT_EQ(error_of(R"({"hosts": [{"subsystems": [{"nqn": "s", "ports": [
                           {"traddr": "10.0.0.1", "tos": 300}]}]}]})"),
              "hosts[0].subsystems[0].ports[0]: tos 300 is out of range (-1..255, -1 = the "
              "transport's default)");
    EXPECT_EQ(error_of(R"({"hosts": [{"subsystems": [{"nqn": "s", "ports": [
                           {"traddr": "10.0.0.1", "nr_write_queues": 129}]}]}]})"),
              "hosts[0].subsystems[0].ports[0]: nr-write-queues 129 is out of range (0..128)");
    EXPECT_EQ(error_of(R"({"hosts": [{"subsystems": [{"nqn": "s", "ports": [
                           {"traddr": "10.0.0.1", "nr_poll_queues": -1}]}]}]})"),
              "hosts[0].subsystems[0].ports[0]: nr-poll-queues -1 is out of range (0..128)");
}

TEST(Sessions, DhchapKeysTakeLibnvmesNamesAPortsWinningOverItsHosts)
{
    const std::string host_key = "DHHC-1:00:ia6zGodOr4SEG0Zzaw398rpY0wqipUWj4jWjUh4HWUz6aQ2n:";
    const std::string port_key = "DHHC-1:00:P7wDosaMEdMTBxsXxMgaL5mBH0ZxRyPSMh1dNAb3qm6hEtZW:";
    const auto s = parse_sessions(json::parse(R"({"hosts": [{"dhchap_key": ")" + host_key +
                                              R"(", "subsystems": [{"nqn": "s", "ports": [
        {"traddr": "10.0.0.1"},
        {"traddr": "10.0.0.2", "dhchap_key": ")" + port_key + R"(", "dhchap_ctrl_key": ")" +
                                              host_key + R"("}]}]}]})"));
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s[0].dhchap_secret, host_key);
    EXPECT_FALSE(s[0].dhchap_ctrl_secret.has_value());
    EXPECT_EQ(s[1].dhchap_secret, port_key);
    EXPECT_EQ(s[1].dhchap_ctrl_secret, host_key);
    // connect's rules, and never the value in the message.
    const std::string bad = error_of(R"({"hosts": [{"subsystems": [{"nqn": "s", "ports": [
        {"traddr": "10.0.0.1", "dhchap_key": "hunter2"}]}]}]})");
    EXPECT_EQ(bad.rfind("hosts[0].subsystems[0].ports[0]: ", 0), 0u) << bad;
    EXPECT_EQ(bad.find("hunter2"), std::string::npos) << bad;
    EXPECT_NE(error_of(R"({"hosts": [{"subsystems": [{"nqn": "s", "ports": [
        {"traddr": "10.0.0.1", "dhchap_ctrl_key": ")" + port_key + R"("}]}]}]})")
                  .find("needs"),
              std::string::npos);
}

TEST(Sessions, SaveWritesTheKeysAControllerHoldsAndApplyTakesThemBack)
{
    ControllerInfo c = test::session_controller("rblk0", "nqn.h1", "nqn.s1", "10.0.0.1", 4420);
    c.dhchap = Dhchap::Host;
    // What a plain list reports: which, not the key: nothing to write.
    EXPECT_FALSE(sessions_json({c})["hosts"][0]["subsystems"][0]["ports"][0].contains(
        "dhchap_key"));
    c.dhchap_secret = "DHHC-1:00:ia6zGodOr4SEG0Zzaw398rpY0wqipUWj4jWjUh4HWUz6aQ2n:";
    const auto back = parse_sessions(sessions_json({c}));
    ASSERT_EQ(back.size(), 1u);
    EXPECT_EQ(back[0].dhchap_secret, c.dhchap_secret);
    EXPECT_FALSE(back[0].dhchap_ctrl_secret.has_value());
}

TEST(Sessions, HostTraddrAndTosRoundTrip)
{
    const auto s = parse_sessions(json::parse(R"({"hosts": [{"hostnqn": "host-1", "subsystems": [
        {"nqn": "blktests-subsystem-1", "ports": [
            {"traddr": "10.0.0.1", "host_traddr": "10.0.0.3", "tos": 32},
            {"traddr": "10.0.0.1"}]}]}]})"));
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s[0].subnqn, "blktests-subsystem-1");
    EXPECT_EQ(s[0].hostnqn, "host-1");
    EXPECT_EQ(s[0].host_traddr, "10.0.0.3");
    EXPECT_EQ(s[0].tos, 32);
    EXPECT_FALSE(s[1].host_traddr.has_value());
    EXPECT_FALSE(s[1].tos.has_value());

    ControllerInfo c;
    c.name = "rblk0";
    c.transport = "rdma";
    c.subnqn = "blktests-subsystem-1";
    c.hostnqn = "host-1";
    c.traddr = "10.0.0.1";
    c.trsvcid = 4420;
    c.host_traddr = "10.0.0.3";
    c.tos = 32;
    const json port = sessions_json({c})["hosts"][0]["subsystems"][0]["ports"][0];
    EXPECT_EQ(port["host_traddr"], "10.0.0.3");
    EXPECT_EQ(port["tos"], 32);
    // The same target from another source address is another session.
    EXPECT_TRUE(serves(c, s[0]));
    EXPECT_FALSE(serves(c, s[1]));
}

ControllerInfo controller(const char* name, const char* hostnqn, const char* subnqn,
                          const char* traddr, std::uint16_t port)
{
    return test::session_controller(name, hostnqn, subnqn, traddr, port);
}

TEST(Sessions, SaveLeavesDiscoveryControllersOut)
{
    ControllerInfo disc = controller("rblk1", "nqn.h1", RBLK_DISC_SUBNQN, "10.0.0.1", 4420);
    disc.discovery = true;
    const json j = sessions_json({disc, controller("rblk0", "nqn.h1", "nqn.s1", "10.0.0.1", 4420)});
    ASSERT_EQ(j["hosts"].size(), 1u);
    ASSERT_EQ(j["hosts"][0]["subsystems"].size(), 1u);
    EXPECT_EQ(j["hosts"][0]["subsystems"][0]["nqn"], "nqn.s1");
}

TEST(Sessions, SaveGroupsByHostThenSubsystem)
{
    const json j = sessions_json({controller("rblk0", "nqn.h1", "nqn.s1", "10.0.0.1", 4420),
                                  controller("rblk1", "nqn.h2", "nqn.s1", "10.0.0.1", 4420),
                                  controller("rblk2", "nqn.h1", "nqn.s1", "10.0.0.2", 4420),
                                  controller("rblk3", "nqn.h1", "nqn.s2", "10.0.0.1", 4421)});
    ASSERT_EQ(j["hosts"].size(), 2u);
    const json& h1 = j["hosts"][0];
    EXPECT_EQ(h1["hostnqn"], "nqn.h1");
    EXPECT_EQ(h1["hostid"], "11111111-2222-3333-4444-555555555555");
    ASSERT_EQ(h1["subsystems"].size(), 2u);
    EXPECT_EQ(h1["subsystems"][0]["nqn"], "nqn.s1");
    ASSERT_EQ(h1["subsystems"][0]["ports"].size(), 2u);
    EXPECT_EQ(h1["subsystems"][0]["ports"][1]["traddr"], "10.0.0.2");
    EXPECT_EQ(h1["subsystems"][1]["ports"][0]["trsvcid"], 4421);
    EXPECT_EQ(j["hosts"][1]["hostnqn"], "nqn.h2");
    EXPECT_EQ(h1["subsystems"][0]["ports"][0],
              json::parse(R"({"transport": "rdma", "traddr": "10.0.0.1", "trsvcid": 4420,
                              "nr_io_queues": 2, "queue_size": 128, "keep_alive_tmo": 5,
                              "reconnect_delay": 10, "ctrl_loss_tmo": 600,
                              "fast_io_fail_tmo": -1})"));
}

TEST(Sessions, WriteAndPollQueuesRoundTrip)
{
    const auto s = parse_sessions(json::parse(R"({"hosts": [{"subsystems": [
        {"nqn": "nqn.s1", "ports": [
            {"traddr": "10.0.0.1", "nr_io_queues": 4, "nr_write_queues": 2,
             "nr_poll_queues": 1},
            {"traddr": "10.0.0.1", "nr_write_queues": 0},
            {"traddr": "10.0.0.1"}]}]}]})"));
    ASSERT_EQ(s.size(), 3u);
    EXPECT_EQ(s[0].nr_io_queues, 4);
    EXPECT_EQ(s[0].nr_write_queues, 2);
    EXPECT_EQ(s[0].nr_poll_queues, 1);
    EXPECT_EQ(s[1].nr_write_queues, 0);
    EXPECT_FALSE(s[1].nr_poll_queues.has_value());
    EXPECT_FALSE(s[2].nr_write_queues.has_value());
    EXPECT_FALSE(s[2].nr_poll_queues.has_value());

    ControllerInfo c = controller("rblk0", "nqn.h1", "nqn.s1", "10.0.0.1", 4420);
    c.nr_io_queues = 4;
    c.nr_write_queues = 2;
    c.nr_poll_queues = 1;
    ControllerInfo write_only = c;
    write_only.name = "rblk1";
    write_only.nr_poll_queues = 0;
    const json ports = sessions_json({c, write_only})["hosts"][0]["subsystems"][0]["ports"];
    ASSERT_EQ(ports.size(), 2u);
    EXPECT_EQ(ports[0]["nr_write_queues"], 2);
    EXPECT_EQ(ports[0]["nr_poll_queues"], 1);
    EXPECT_EQ(ports[1]["nr_write_queues"], 2);
    EXPECT_FALSE(ports[1].contains("nr_poll_queues"));  // none granted: not written
    const auto back = parse_sessions(sessions_json({c}));
    ASSERT_EQ(back.size(), 1u);
    EXPECT_EQ(back[0].nr_write_queues, 2);
    EXPECT_EQ(back[0].nr_poll_queues, 1);
    // The queue split does not make another path: the controller serves the session.
    EXPECT_TRUE(serves(c, s[2]));
}

TEST(Sessions, SaveWritesTheRequestedQueuesNotTheGrantedOnes)
{
    // Asked for 8 + 2 write + 1 poll queues of 1024; the target granted
    // 2 read + 2 write queues of 128 and no poll queue.
    ControllerInfo c = controller("rblk0", "nqn.h1", "nqn.s1", "10.0.0.1", 4420);
    c.nr_io_queues = 2;
    c.nr_write_queues = 2;
    c.nr_poll_queues = 0;
    c.queue_size = 128;
    c.requested = {8, 2, 1, 1024};
    const SavedQueues q = saved_queues(c);
    EXPECT_EQ(q.nr_io_queues, 8u);
    EXPECT_EQ(q.nr_write_queues, 2u);
    EXPECT_EQ(q.nr_poll_queues, 1u);
    EXPECT_EQ(q.queue_size, 1024u);

    const json port = sessions_json({c})["hosts"][0]["subsystems"][0]["ports"][0];
    EXPECT_EQ(port["nr_io_queues"], 8);
    EXPECT_EQ(port["nr_write_queues"], 2);
    EXPECT_EQ(port["nr_poll_queues"], 1);  // none granted, but asked for
    EXPECT_EQ(port["queue_size"], 1024);
    const json nvme = libnvme_config_json({c})[0]["subsystems"][0]["ports"][0];
    EXPECT_EQ(nvme["nr_io_queues"], 8);
    EXPECT_EQ(nvme["nr_poll_queues"], 1);
    EXPECT_EQ(nvme["queue_size"], 1024);
    const auto back = parse_sessions(sessions_json({c}));
    ASSERT_EQ(back.size(), 1u);
    EXPECT_EQ(back[0].nr_io_queues, 8);
    EXPECT_EQ(back[0].queue_size, 1024);
}

TEST(Sessions, SaveFallsBackToTheGrantWhereTheModuleSaysNoRequest)
{
    ControllerInfo c = controller("rblk0", "nqn.h1", "nqn.s1", "10.0.0.1", 4420);
    c.nr_io_queues = 2;
    c.nr_poll_queues = 1;
    c.queue_size = 128;
    // An old module reports none; a partial report takes each value it has.
    SavedQueues q = saved_queues(c);
    EXPECT_EQ(q.nr_io_queues, 2u);
    EXPECT_EQ(q.nr_write_queues, 0u);
    EXPECT_EQ(q.nr_poll_queues, 1u);
    EXPECT_EQ(q.queue_size, 128u);
    c.requested.queue_size = 256;
    q = saved_queues(c);
    EXPECT_EQ(q.nr_io_queues, 2u);
    EXPECT_EQ(q.queue_size, 256u);
    // A request of none is none, whatever was granted.
    c.requested.nr_poll_queues = 0;
    EXPECT_EQ(saved_queues(c).nr_poll_queues, 0u);
    EXPECT_FALSE(sessions_json({c})["hosts"][0]["subsystems"][0]["ports"][0].contains(
        "nr_poll_queues"));
}

TEST(Sessions, SavedFileAppliesBackToTheSameSessions)
{
    const std::vector<ControllerInfo> now = {
        controller("rblk0", "nqn.h1", "nqn.s1", "10.0.0.1", 4420),
        controller("rblk1", "nqn.h1", "nqn.s2", "fd00::1", 4421)};
    const auto sessions = parse_sessions(sessions_json(now));
    ASSERT_EQ(sessions.size(), 2u);
    EXPECT_EQ(sessions[1].traddr, "fd00::1");
    EXPECT_EQ(sessions[1].trsvcid, 4421);
    EXPECT_EQ(sessions[1].queue_size, 128);
    EXPECT_EQ(sessions[1].ctrl_loss_tmo, 600);
    const auto plan = plan_apply(sessions, now);
    ASSERT_EQ(plan.size(), 2u);
    EXPECT_EQ(plan[0].existing, "rblk0");
    EXPECT_EQ(plan[1].existing, "rblk1");
}

TEST(Sessions, EmptySaveIsAnEmptyHostList)
{
    EXPECT_EQ(sessions_json({}).dump(), R"({"hosts":[]})");
}

TEST(Sessions, PlanConnectsWhatNoControllerServes)
{
    ConnectOptions o;
    o.traddr = "10.0.0.1";
    o.subnqn = "nqn.s1";
    const ControllerInfo c = controller("rblk4", "nqn.h1", "nqn.s1", "10.0.0.1", 4420);
    EXPECT_TRUE(serves(c, o));

    ConnectOptions other_port = o;
    other_port.trsvcid = 4421;
    ConnectOptions other_host = o;
    other_host.hostnqn = "nqn.h9";
    ConnectOptions same_host = o;
    same_host.hostnqn = "nqn.h1";
    ConnectOptions other_subsys = o;
    other_subsys.subnqn = "nqn.s2";
    EXPECT_FALSE(serves(c, other_port));
    EXPECT_FALSE(serves(c, other_host));
    EXPECT_TRUE(serves(c, same_host));
    EXPECT_FALSE(serves(c, other_subsys));

    ConnectOptions dup = o;
    dup.duplicate_connect = true;
    const auto plan = plan_apply({o, other_port, dup}, {c});
    ASSERT_EQ(plan.size(), 3u);
    EXPECT_EQ(plan[0].existing, "rblk4");
    EXPECT_FALSE(plan[1].existing.has_value());
    EXPECT_FALSE(plan[2].existing.has_value());  // asked for a second session
}

}  // namespace
}  // namespace rblk
