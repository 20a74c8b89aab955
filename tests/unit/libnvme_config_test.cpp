// libnvme's config.json (rblk/session_config.hpp): reading the file
// `nvme config --dump` writes, with the keys rblk honours, warns about or
// ignores, and writing it as libnvme does.
#include <rblk/error.hpp>
#include <rblk/session_config.hpp>

#include "session_controller.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace rblk {
namespace {

using nlohmann::json;

// As libnvme's json_update_config() writes it (json-c's pretty print):
// a list of hosts, trsvcid strings, values at their defaults left out,
// and keys rblk has no use for.
const char* const kDump = R"([
  {
    "hostnqn":"nqn.2014-08.org.nvmexpress:uuid:8457178b-5c03-49d3-b9b4-c86f217aa078",
    "hostid":"8457178b-5c03-49d3-b9b4-c86f217aa078",
    "dhchap_key":"DHHC-1:00:ia6zGodOr4SEG0Zzaw398rpY0wqipUWj4jWjUh4HWUz6aQ2n:",
    "subsystems":[
      {
        "nqn":"nqn.2024-01.io.example:sub1",
        "ports":[
          {
            "transport":"rdma",
            "traddr":"10.0.0.1",
            "host_traddr":"10.0.0.2",
            "trsvcid":"4420",
            "nr_io_queues":4,
            "queue_size":256,
            "keep_alive_tmo":15,
            "ctrl_loss_tmo":-1,
            "tos":32,
            "duplicate_connect":true,
            "persistent":true
          },
          {
            "transport":"tcp",
            "traddr":"10.0.0.1",
            "trsvcid":"4420",
            "hdr_digest":true,
            "data_digest":true
          },
          {
            "transport":"rdma",
            "traddr":"fd00::1",
            "host_iface":"eth1",
            "trsvcid":"4421",
            "dhchap_ctrl_key":"DHHC-1:00:P7wDosaMEdMTBxsXxMgaL5mBH0ZxRyPSMh1dNAb3qm6hEtZW:",
            "nr_write_queues":2,
            "nr_poll_queues":1,
            "reconnect_delay":2,
            "fast_io_fail_tmo":10
          }
        ]
      },
      {
        "nqn":"nqn.2024-01.io.example:fc-only",
        "ports":[
          {
            "transport":"fc",
            "traddr":"nn-0x20000090fae0b5f5:pn-0x10000090fae0b5f5",
            "host_traddr":"nn-0x20000090fa942779:pn-0x10000090fa942779"
          }
        ]
      }
    ]
  },
  {
    "hostnqn":"nqn.2014-08.org.nvmexpress:uuid:0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0",
    "hostsymname":"array-b",
    "persistent_discovery_ctrl":true,
    "subsystems":[
      {
        "nqn":"nqn.2024-01.io.example:sub2",
        "application":"io.example.app",
        "ports":[
          {
            "transport":"rdma",
            "traddr":"10.0.0.3",
            "trsvcid":"4420",
            "disable_sqflow":true
          }
        ]
      },
      {
        "nqn":"nqn.2024-01.io.example:disc",
        "ports":[
          {
            "transport":"rdma",
            "traddr":"10.0.0.3",
            "trsvcid":"8009",
            "persistent":true,
            "discovery":true
          }
        ]
      }
    ]
  }
]
)";

TEST(LibnvmeConfig, RdmaPortsOfADumpBecomeSessions)
{
    const SessionsRead r = parse_libnvme_config(json::parse(kDump));
    ASSERT_EQ(r.sessions.size(), 3u);

    const ConnectOptions& a = r.sessions[0];
    EXPECT_EQ(a.hostnqn, "nqn.2014-08.org.nvmexpress:uuid:8457178b-5c03-49d3-b9b4-c86f217aa078");
    EXPECT_EQ(a.hostid, "8457178b-5c03-49d3-b9b4-c86f217aa078");
    EXPECT_EQ(a.subnqn, "nqn.2024-01.io.example:sub1");
    EXPECT_EQ(a.transport, "rdma");
    EXPECT_EQ(a.traddr, "10.0.0.1");
    EXPECT_EQ(a.trsvcid, 4420);
    EXPECT_EQ(a.host_traddr, "10.0.0.2");
    EXPECT_EQ(a.nr_io_queues, 4);
    EXPECT_EQ(a.queue_size, 256);
    EXPECT_EQ(a.kato, 15);
    EXPECT_EQ(a.ctrl_loss_tmo, -1);
    EXPECT_EQ(a.tos, 32);
    EXPECT_TRUE(a.duplicate_connect);
    EXPECT_FALSE(a.reconnect_delay.has_value());  // left out: the default
    EXPECT_FALSE(a.fast_io_fail_tmo.has_value());
    // The host's key, as libnvme's connect takes it for a port without one.
    EXPECT_EQ(a.dhchap_secret, "DHHC-1:00:ia6zGodOr4SEG0Zzaw398rpY0wqipUWj4jWjUh4HWUz6aQ2n:");
    EXPECT_FALSE(a.dhchap_ctrl_secret.has_value());

    const ConnectOptions& b = r.sessions[1];
    EXPECT_EQ(b.subnqn, "nqn.2024-01.io.example:sub1");
    EXPECT_EQ(b.traddr, "fd00::1");
    EXPECT_EQ(b.trsvcid, 4421);
    EXPECT_FALSE(b.host_traddr.has_value());
    EXPECT_EQ(b.nr_write_queues, 2);
    EXPECT_EQ(b.nr_poll_queues, 1);
    EXPECT_EQ(b.reconnect_delay, 2);
    EXPECT_EQ(b.fast_io_fail_tmo, 10);
    EXPECT_FALSE(b.duplicate_connect);
    EXPECT_EQ(b.dhchap_secret, a.dhchap_secret);
    EXPECT_EQ(b.dhchap_ctrl_secret, "DHHC-1:00:P7wDosaMEdMTBxsXxMgaL5mBH0ZxRyPSMh1dNAb3qm6hEtZW:");

    const ConnectOptions& c = r.sessions[2];
    EXPECT_EQ(c.hostnqn, "nqn.2014-08.org.nvmexpress:uuid:0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0");
    EXPECT_FALSE(c.hostid.has_value());  // the host default applies later
    EXPECT_EQ(c.subnqn, "nqn.2024-01.io.example:sub2");
    EXPECT_EQ(c.traddr, "10.0.0.3");
    EXPECT_FALSE(c.discovery);
    EXPECT_FALSE(c.dhchap_secret.has_value());
}

TEST(LibnvmeConfig, APortsOwnDhchapKeyWinsOverItsHosts)
{
    const SessionsRead r = parse_libnvme_config(json::parse(R"([{"hostnqn": "nqn.h",
        "dhchap_key": "DHHC-1:00:ia6zGodOr4SEG0Zzaw398rpY0wqipUWj4jWjUh4HWUz6aQ2n:",
        "subsystems": [{"nqn": "nqn.s", "ports": [{"transport": "rdma", "traddr": "10.0.0.1",
          "trsvcid": "4420",
          "dhchap_key": "DHHC-1:00:P7wDosaMEdMTBxsXxMgaL5mBH0ZxRyPSMh1dNAb3qm6hEtZW:"}]}]}])"));
    ASSERT_EQ(r.sessions.size(), 1u);
    EXPECT_EQ(r.sessions[0].dhchap_secret,
              "DHHC-1:00:P7wDosaMEdMTBxsXxMgaL5mBH0ZxRyPSMh1dNAb3qm6hEtZW:");
    EXPECT_TRUE(r.warnings.empty());
    // A key that is no key is refused where it is, without its value.
    try {
        parse_libnvme_config(json::parse(R"([{"hostnqn": "nqn.h", "subsystems": [{"nqn":
            "nqn.s", "ports": [{"transport": "rdma", "traddr": "10.0.0.1", "trsvcid": "4420",
            "dhchap_key": "secret-words"}]}]}])"));
        ADD_FAILURE() << "no exception";
    } catch (const InvalidOption& e) {
        EXPECT_EQ(std::string(e.what()).rfind("[0].subsystems[0].ports[0]: ", 0), 0u) << e.what();
        EXPECT_NE(std::string(e.what()).find("DH-HMAC-CHAP"), std::string::npos) << e.what();
        EXPECT_EQ(std::string(e.what()).find("secret-words"), std::string::npos) << e.what();
    }
}

TEST(LibnvmeConfig, WhatRblkCannotDoIsOneWarningLineEach)
{
    const SessionsRead r = parse_libnvme_config(json::parse(kDump));
    const std::vector<std::string> expected = {
        "[0].subsystems[0].ports[1]: transport 'tcp' skipped: rblk connects over rdma only",
        "[0].subsystems[0].ports[2]: host_iface is not supported by rblk: connecting without it",
        "[0].subsystems[1].ports[0]: transport 'fc' skipped: rblk connects over rdma only",
        "[1].subsystems[1].ports[0]: discovery controller skipped: rblkctl connect-all "
        "--persistent keeps one",
    };
    EXPECT_EQ(r.warnings, expected);
    // persistent, hdr_digest, disable_sqflow, hostsymname, application:
    // nothing a connect over RDMA changes for, so not a word.
    for (const std::string& w : r.warnings)
        for (const char* quiet : {"persistent'", "digest", "sqflow", "hostsymname", "application"})
            EXPECT_EQ(w.find(quiet), std::string::npos) << w;
}

TEST(LibnvmeConfig, ZeroAndMinusOneAreNotSetAsLibnvmeReadsThem)
{
    const SessionsRead r = parse_libnvme_config(json::parse(R"([{"hostnqn": "nqn.h",
        "subsystems": [{"nqn": "nqn.s", "ports": [{"transport": "rdma", "traddr": "10.0.0.1",
          "trsvcid": "4420", "nr_io_queues": 0, "queue_size": 0, "keep_alive_tmo": 0,
          "reconnect_delay": 0, "fast_io_fail_tmo": 0, "tos": -1, "nr_poll_queues": 0,
          "dhchap_key": "", "tls": false}]}]}])"));
    ASSERT_EQ(r.sessions.size(), 1u);
    const ConnectOptions& o = r.sessions[0];
    EXPECT_FALSE(o.nr_io_queues.has_value());
    EXPECT_FALSE(o.queue_size.has_value());
    EXPECT_FALSE(o.kato.has_value());  // in the sessions file 0 is "off"; here "the default"
    EXPECT_FALSE(o.reconnect_delay.has_value());
    EXPECT_FALSE(o.fast_io_fail_tmo.has_value());
    EXPECT_FALSE(o.tos.has_value());
    EXPECT_FALSE(o.nr_poll_queues.has_value());  // 0: none, the kernel's default too
    EXPECT_TRUE(r.warnings.empty());  // an empty key, a false flag: nothing asked
}

TEST(LibnvmeConfig, HostsWithoutSubsystemsAndPortlessSubsystemsAreEmpty)
{
    const SessionsRead r = parse_libnvme_config(json::parse(R"([
        {"hostnqn": "nqn.h1"},
        {"hostnqn": "nqn.h2", "subsystems": [{"nqn": "nqn.s"}]},
        {"hostnqn": "nqn.h3", "subsystems": [{"nqn": "nqn.s", "ports": [{"traddr": "10.0.0.1"}]}]}
    ])"));
    EXPECT_TRUE(r.sessions.empty());
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_EQ(r.warnings[0], "[2].subsystems[0].ports[0]: port without a transport skipped: "
                             "rblk connects over rdma only");
    EXPECT_TRUE(parse_libnvme_config(json::array()).sessions.empty());
}

std::string error_of(const char* text)
{
    try {
        parse_libnvme_config(json::parse(text));
    } catch (const InvalidOption& e) {
        return e.what();
    }
    return "<parsed>";
}

TEST(LibnvmeConfig, ErrorsNameTheJsonPath)
{
    EXPECT_EQ(error_of(R"({"hosts": []})"),
              "expected a list of hosts (an object of \"hosts\" is rblk's sessions file: "
              "--format rblk)");
    EXPECT_EQ(error_of("{}"), "expected a list of hosts");
    // Lists that are not lists: libnvme would take json-c's length of them.
    EXPECT_EQ(error_of(R"([{"hostnqn": "h", "subsystems": {}}])"),
              "[0].subsystems: expected an array");
    EXPECT_EQ(error_of(R"([{"hostnqn": "h", "subsystems": [{"nqn": "s", "ports": 1}]}])"),
              "[0].subsystems[0].ports: expected an array");
    EXPECT_EQ(error_of(R"([{"hostnqn": "h", "subsystems": [{"nqn": "s", "ports": [
                           {"transport": "rdma", "traddr": "10.0.0.1", "trsvcid": "rdma"}]}]}])"),
              "[0].subsystems[0].ports[0].trsvcid: expected a port number");
    EXPECT_EQ(error_of(R"([{"hostnqn": "h", "subsystems": [{"nqn": "s", "ports": [
                           {"transport": "rdma", "traddr": "10.0.0.1", "queue_size": 8}]}]}])"),
              "[0].subsystems[0].ports[0]: queue-size 8 is out of range (16..1024)");
}

// Where libnvme's reader decides, rblk follows it: what it skips (with a
// word here), how it merges a repeated port, how it coerces types.
TEST(LibnvmeConfig, TakenAsLibnvmeTakesIt)
{
    const SessionsRead r = parse_libnvme_config(json::parse(R"([
        1,
        {"hostid": "8db5b478-5981-449d-9e34-f116f03b191a", "subsystems": []},
        {"hostnqn": "nqn.h", "subsystems": [
            {"ports": []},
            {"nqn": "nqn.s", "ports": [
                {"transport": "rdma", "traddr": "10.0.0.1", "trsvcid": 4421, "nr_io_queues": 4,
                 "ctrl_loss_tmo": -1},
                {"transport": "rdma", "traddr": "10.0.0.1", "trsvcid": "4421", "nr_io_queues": 8,
                 "queue_size": "64", "ctrl_loss_tmo": 30, "tos": 3},
                {"transport": "rdma", "traddr": "10.0.0.9", "discovery": false},
                null
            ]}
        ]}
    ])"));
    const std::vector<std::string> expected = {
        "[0]: not a host (an object) skipped, as libnvme skips it",
        "[1]: host without a hostnqn skipped, as libnvme skips it",
        "[2].subsystems[0]: subsystem without an nqn skipped, as libnvme skips it",
        // libnvme 1.3 takes the key, whatever its value, for a discovery controller.
        "[2].subsystems[1].ports[2]: discovery controller skipped: rblkctl connect-all "
        "--persistent keeps one",
        "[2].subsystems[1].ports[3]: port without a transport skipped: rblk connects over rdma "
        "only",
    };
    EXPECT_EQ(r.warnings, expected);
    // One controller for the repeated port: the first value wins, a later
    // one fills what it left unset; 4421 and "64" are json-c's numbers.
    ASSERT_EQ(r.sessions.size(), 1u);
    const ConnectOptions& o = r.sessions[0];
    EXPECT_EQ(o.trsvcid, 4421);
    EXPECT_EQ(o.nr_io_queues, 4);
    EXPECT_EQ(o.queue_size, 64);
    // Read although libnvme 1.3 drops them, in the same first-wins way.
    EXPECT_EQ(o.ctrl_loss_tmo, -1);
    EXPECT_EQ(o.tos, 3);
}

TEST(LibnvmeConfig, WhatLibnvmeRefusesItSays)
{
    const SessionsRead r = parse_libnvme_config(json::parse(R"([{"hostnqn": "nqn.h",
        "subsystems": [{"nqn": "nqn.s", "ports": [{"transport": "rdma"}]}]}])"));
    EXPECT_TRUE(r.sessions.empty());
    EXPECT_EQ(r.warnings, std::vector<std::string>{"libnvme: No transport address for 'rdma'"});
}

TEST(LibnvmeConfig, KeysAreNamedNeverShown)
{
    const SessionsRead r = parse_libnvme_config(json::parse(kDump));
    for (const std::string& w : r.warnings)
        EXPECT_EQ(w.find("DHHC-1"), std::string::npos) << w;
}

constexpr const char* kHostNqn =
    "nqn.2014-08.org.nvmexpress:uuid:11111111-2222-3333-4444-555555555555";

ControllerInfo controller(const char* name, const char* subnqn, const char* traddr)
{
    return test::session_controller(name, kHostNqn, subnqn, traddr, 4420);
}

TEST(LibnvmeConfig, SaveWritesWhatLibnvmeWrites)
{
    ControllerInfo tuned = controller("rblk1", "nqn.s1", "10.0.0.2");
    tuned.host_traddr = "10.0.0.9";
    tuned.ctrl_loss_tmo = -1;
    tuned.fast_io_fail_tmo = 3;
    tuned.tos = 0;
    tuned.nr_write_queues = 1;
    ControllerInfo disc = controller("rblk2", RBLK_DISC_SUBNQN, "10.0.0.1");
    disc.discovery = true;
    const json j = json::parse(
        libnvme_config_json({controller("rblk0", "nqn.s1", "10.0.0.1"), tuned, disc}).dump());
    EXPECT_EQ(j, json::parse(R"([{
        "hostnqn": "nqn.2014-08.org.nvmexpress:uuid:11111111-2222-3333-4444-555555555555",
        "hostid": "11111111-2222-3333-4444-555555555555",
        "subsystems": [{"nqn": "nqn.s1", "ports": [
            {"transport": "rdma", "traddr": "10.0.0.1", "trsvcid": "4420",
             "nr_io_queues": 2, "queue_size": 128, "keep_alive_tmo": 5, "reconnect_delay": 10},
            {"transport": "rdma", "traddr": "10.0.0.2", "trsvcid": "4420",
             "host_traddr": "10.0.0.9", "nr_io_queues": 2, "nr_write_queues": 1,
             "queue_size": 128, "keep_alive_tmo": 5, "reconnect_delay": 10,
             "ctrl_loss_tmo": -1, "fast_io_fail_tmo": 3, "tos": 0}]}]}])"))
        << j.dump(2);
    EXPECT_EQ(libnvme_config_json({}), nlohmann::ordered_json::array());
}

TEST(LibnvmeConfig, SavedFileAppliesBackToTheSameSessions)
{
    ControllerInfo v6 = controller("rblk1", "nqn.s2", "fd00::1");
    v6.trsvcid = 4421;
    v6.tos = 7;
    const std::vector<ControllerInfo> now = {controller("rblk0", "nqn.s1", "10.0.0.1"), v6};
    const SessionsRead r = parse_libnvme_config(json::parse(libnvme_config_json(now).dump()));
    EXPECT_TRUE(r.warnings.empty());
    ASSERT_EQ(r.sessions.size(), 2u);
    EXPECT_EQ(r.sessions[0].hostnqn, now[0].hostnqn);
    EXPECT_EQ(r.sessions[0].nr_io_queues, 2);
    EXPECT_EQ(r.sessions[0].kato, 5);
    EXPECT_FALSE(r.sessions[0].ctrl_loss_tmo.has_value());  // 600: libnvme's default
    EXPECT_EQ(r.sessions[1].trsvcid, 4421);
    EXPECT_EQ(r.sessions[1].tos, 7);
    const auto plan = plan_apply(r.sessions, now);
    ASSERT_EQ(plan.size(), 2u);
    EXPECT_EQ(plan[0].existing, "rblk0");
    EXPECT_EQ(plan[1].existing, "rblk1");
}

TEST(LibnvmeConfig, LoadNamesTheFileInErrorsAndWarnings)
{
    const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                       ("rblk-libnvme-config-" + std::to_string(::getpid()));
    std::ofstream(path) << kDump;
    const SessionsRead r = load_libnvme_config_file(path.string());
    EXPECT_EQ(r.sessions.size(), 3u);
    ASSERT_FALSE(r.warnings.empty());
    EXPECT_EQ(r.warnings[0].rfind(path.string() + ": [0].subsystems[0].ports[1]: transport", 0),
              0u)
        << r.warnings[0];

    std::ofstream(path) << R"({"hosts": []})";
    try {
        load_libnvme_config_file(path.string());
        ADD_FAILURE() << "no exception";
    } catch (const InvalidOption& e) {
        EXPECT_EQ(std::string(e.what()).rfind(path.string() + ": expected a list of hosts", 0),
                  0u)
            << e.what();
    }
    std::filesystem::remove(path);
}

// ---- save into a config.json that is there: nvme-cli's file too ----

using ojson = nlohmann::ordered_json;

// A controller rblk serves on kDump's first rdma port, and one of its own.
std::vector<ControllerInfo> served()
{
    ControllerInfo on_dump = test::session_controller(
        "rblk0", "nqn.2014-08.org.nvmexpress:uuid:8457178b-5c03-49d3-b9b4-c86f217aa078",
        "nqn.2024-01.io.example:sub1", "10.0.0.1", 4420);
    on_dump.hostid = "8457178b-5c03-49d3-b9b4-c86f217aa078";
    on_dump.host_traddr = "10.0.0.2";
    on_dump.tos = 32;
    ControllerInfo own = controller("rblk1", "nqn.2024-01.io.example:rblk-only", "10.0.0.7");
    return {on_dump, own};
}

// Every value of `before` that rblk does not own is in `after`, unchanged
// (JSON pointers: the same place, the same value).
void expect_kept(const ojson& before, const ojson& after, const std::string& owned_port)
{
    const json b = json::parse(before.dump()).flatten();
    const json a = json::parse(after.dump()).flatten();
    for (const auto& [pointer, value] : b.items()) {
        static const std::set<std::string> kOwned = {
            "nr_io_queues",    "nr_write_queues", "nr_poll_queues",   "queue_size", "keep_alive_tmo",
            "reconnect_delay", "ctrl_loss_tmo",   "fast_io_fail_tmo", "tos"};
        const bool owned = pointer.rfind(owned_port + "/", 0) == 0 &&
                           kOwned.contains(pointer.substr(owned_port.size() + 1));
        if (owned)
            continue;
        ASSERT_TRUE(a.contains(pointer)) << pointer;
        EXPECT_EQ(a[pointer], value) << pointer;
    }
}

TEST(LibnvmeConfigSave, MergeKeepsEveryKeyRblkDoesNotOwn)
{
    const ojson before = ojson::parse(kDump);
    const ojson after = merge_libnvme_config(before, served());
    expect_kept(before, after, "/0/subsystems/0/ports/0");

    // rblk's port: its values now (the controller's), what nvme-cli put
    // there besides them (duplicate_connect, persistent) kept, in place.
    const ojson& port = after[0]["subsystems"][0]["ports"][0];
    EXPECT_EQ(port.dump(), R"({"transport":"rdma","traddr":"10.0.0.1","host_traddr":"10.0.0.2",)"
                           R"("trsvcid":"4420","nr_io_queues":2,"queue_size":128,)"
                           R"("keep_alive_tmo":5,"tos":32,"duplicate_connect":true,)"
                           R"("persistent":true,"reconnect_delay":10})");
    EXPECT_EQ(after[0]["subsystems"][0]["ports"].size(), 3u);  // no second copy

    // The other controller: a host of its own (another hostnqn), added last.
    ASSERT_EQ(after.size(), 3u);
    EXPECT_EQ(after[2].dump(),
              R"({"hostnqn":"nqn.2014-08.org.nvmexpress:uuid:11111111-2222-3333-4444-555555555555",)"
              R"("hostid":"11111111-2222-3333-4444-555555555555","subsystems":[{"nqn":)"
              R"("nqn.2024-01.io.example:rblk-only","ports":[{"transport":"rdma","traddr":)"
              R"("10.0.0.7","trsvcid":"4420","nr_io_queues":2,"queue_size":128,)"
              R"("keep_alive_tmo":5,"reconnect_delay":10}]}]})");

    // And libnvme reads it back to the same sessions, plus the new one.
    const SessionsRead r = parse_libnvme_config(json::parse(after.dump()));
    ASSERT_EQ(r.sessions.size(), 4u);
    EXPECT_EQ(r.sessions[0].nr_io_queues, 2);
    EXPECT_EQ(r.sessions[3].subnqn, "nqn.2024-01.io.example:rblk-only");
}

TEST(LibnvmeConfigSave, AHostWithoutAHostIdIsTheSameHost)
{
    const ojson before = ojson::parse(R"([{"hostnqn":
        "nqn.2014-08.org.nvmexpress:uuid:11111111-2222-3333-4444-555555555555",
        "hostsymname": "me"}])");
    const ojson after = merge_libnvme_config(before, {controller("rblk0", "nqn.s", "10.0.0.1")});
    ASSERT_EQ(after.size(), 1u);
    EXPECT_FALSE(after[0].contains("hostid"));  // nvme-cli's entry: not rblk's to add to
    EXPECT_EQ(after[0]["hostsymname"], "me");
    EXPECT_EQ(after[0]["subsystems"][0]["nqn"], "nqn.s");
}

TEST(LibnvmeConfigSave, NothingToMergeIsTheSameDocument)
{
    const ojson before = ojson::parse(kDump);
    EXPECT_EQ(merge_libnvme_config(before, {}), before);
    const ojson once = merge_libnvme_config(before, served());
    EXPECT_EQ(merge_libnvme_config(once, served()), once);
    EXPECT_THROW(merge_libnvme_config(ojson::object(), served()), InvalidOption);
    EXPECT_THROW(merge_libnvme_config(ojson::parse(R"([{"hostnqn": "nqn.2014-08.org.)"
                                                   R"(nvmexpress:uuid:11111111-2222-3333-4444-)"
                                                   R"(555555555555", "subsystems": 7}])"),
                                      served()),
                 InvalidOption);
}

class LibnvmeConfigFile : public testing::Test {
protected:
    void SetUp() override
    {
        path_ = std::filesystem::temp_directory_path() /
                ("rblk-config-json-" + std::to_string(::getpid()) + "-" +
                 testing::UnitTest::GetInstance()->current_test_info()->name());
    }
    void TearDown() override { std::filesystem::remove(path_); }
    void put(const std::string& text, mode_t mode)
    {
        std::ofstream(path_, std::ios::binary) << text;
        ASSERT_EQ(::chmod(path_.c_str(), mode), 0);
    }
    std::string text() const
    {
        std::ifstream in(path_, std::ios::binary);
        return {std::istreambuf_iterator<char>(in), {}};
    }
    mode_t mode() const
    {
        struct stat st {};
        EXPECT_EQ(::stat(path_.c_str(), &st), 0);
        return st.st_mode & 07777;
    }
    std::filesystem::path path_;
};

TEST_F(LibnvmeConfigFile, SaveIntoACopyKeepsForeignKeysAndHidesKeys)
{
    put(kDump, 0644);  // as nvme-cli leaves it, keys and all
    EXPECT_TRUE(save_libnvme_config_file(path_.string(), served()));
    expect_kept(ojson::parse(kDump), ojson::parse(text()), "/0/subsystems/0/ports/0");
    EXPECT_EQ(mode(), 0640u);  // it holds DH-HMAC-CHAP keys: not for everyone
    // No temporary left beside it.
    for (const auto& e : std::filesystem::directory_iterator(path_.parent_path()))
        EXPECT_EQ(e.path().string().find(path_.string() + ".tmp"), std::string::npos);

    // Saved again with the same controllers: not written, byte for byte.
    const std::string once = text();
    EXPECT_FALSE(save_libnvme_config_file(path_.string(), served()));
    EXPECT_EQ(text(), once);
}

TEST_F(LibnvmeConfigFile, SaveKeepsTheModeOfAFileWithoutKeys)
{
    put("[]\n", 0604);
    EXPECT_TRUE(save_libnvme_config_file(path_.string(), served()));
    EXPECT_EQ(mode(), 0604u);
    EXPECT_EQ(parse_libnvme_config(json::parse(text())).sessions.size(), 2u);
}

TEST_F(LibnvmeConfigFile, NoControllersLeaveTheFileAlone)
{
    put(kDump, 0600);
    EXPECT_FALSE(save_libnvme_config_file(path_.string(), {}));
    EXPECT_EQ(text(), kDump);
}

TEST_F(LibnvmeConfigFile, WhatIsNotAConfigJsonIsNotWrittenOver)
{
    const std::string sessions = R"({"hosts": []})";
    put(sessions, 0644);
    try {
        save_libnvme_config_file(path_.string(), served());
        ADD_FAILURE() << "no exception";
    } catch (const InvalidOption& e) {
        EXPECT_EQ(std::string(e.what()),
                  path_.string() + ": expected a list of hosts: not libnvme's config.json, left "
                                   "as it is");
    }
    EXPECT_EQ(text(), sessions);
    put("[{", 0644);
    EXPECT_THROW(save_libnvme_config_file(path_.string(), served()), InvalidOption);
    EXPECT_EQ(text(), "[{");
}

TEST_F(LibnvmeConfigFile, TheKeysOfAControllerAreSavedWhereApplyReadsThem)
{
    std::vector<ControllerInfo> now = served();
    now[1].dhchap = Dhchap::Bidirectional;
    now[1].dhchap_secret = "DHHC-1:00:ia6zGodOr4SEG0Zzaw398rpY0wqipUWj4jWjUh4HWUz6aQ2n:";
    now[1].dhchap_ctrl_secret = "DHHC-1:00:P7wDosaMEdMTBxsXxMgaL5mBH0ZxRyPSMh1dNAb3qm6hEtZW:";
    put("[]\n", 0644);
    EXPECT_TRUE(save_libnvme_config_file(path_.string(), now));
    EXPECT_EQ(mode(), 0640u);
    const SessionsRead r = parse_libnvme_config(json::parse(text()));
    ASSERT_EQ(r.sessions.size(), 2u);
    EXPECT_FALSE(r.sessions[0].dhchap_secret.has_value());
    EXPECT_EQ(r.sessions[1].dhchap_secret, now[1].dhchap_secret);
    EXPECT_EQ(r.sessions[1].dhchap_ctrl_secret, now[1].dhchap_ctrl_secret);
    // A port whose key rblk does not know keeps nvme-cli's.
    put(kDump, 0600);
    now = served();
    EXPECT_TRUE(save_libnvme_config_file(path_.string(), now));
    EXPECT_EQ(ojson::parse(text())[0]["dhchap_key"], ojson::parse(kDump)[0]["dhchap_key"]);
    now[0].dhchap_secret = "DHHC-1:00:P7wDosaMEdMTBxsXxMgaL5mBH0ZxRyPSMh1dNAb3qm6hEtZW:";
    EXPECT_TRUE(save_libnvme_config_file(path_.string(), now));
    EXPECT_EQ(ojson::parse(text())[0]["subsystems"][0]["ports"][0]["dhchap_key"],
              *now[0].dhchap_secret);
}

TEST_F(LibnvmeConfigFile, ANewFileIsWhatLibnvmeWrites)
{
    EXPECT_TRUE(save_libnvme_config_file(path_.string(), served()));
    EXPECT_EQ(mode(), 0644u);
    EXPECT_EQ(ojson::parse(text()), libnvme_config_json(served()));
}

}  // namespace
}  // namespace rblk
