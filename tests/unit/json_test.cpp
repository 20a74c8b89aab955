// The JSON schema of rblkctl's --json output (rblk/json.hpp).
#include <rblk/json.hpp>

#include <gtest/gtest.h>

#include <set>

namespace rblk {
namespace {

using nlohmann::json;

ControllerInfo sample()
{
    ControllerInfo c;
    c.id = 7;
    c.name = "rblk7";
    c.state = CtrlState::Connecting;
    c.transport = "rdma";
    c.traddr = "fd00::1";
    c.trsvcid = 4420;
    c.subnqn = "nqn.sub";
    c.hostnqn = "nqn.host";
    c.hostid = "11111111-2222-3333-4444-555555555555";
    c.cntlid = 3;
    c.nr_io_queues = 2;
    c.queue_size = 128;
    c.kato = 5;
    c.reconnect_delay = 10;
    c.ctrl_loss_tmo = 600;
    c.fast_io_fail_tmo = -1;
    c.namespaces = {{1, "rblk7n1", 1ull << 40, 512}};
    return c;
}

std::set<std::string> keys(const json& j)
{
    std::set<std::string> k;
    for (const auto& [key, value] : j.items())
        k.insert(key);
    return k;
}

TEST(Json, EmptyListIsAnEmptyArray)
{
    EXPECT_EQ(list_json({}).dump(), R"({"controllers":[],"subsystems":[]})");
}

TEST(Json, ListEntryHasExactlyTheDocumentedKeysAndTypes)
{
    const json j = list_json({sample()});
    ASSERT_EQ(j["controllers"].size(), 1u);
    const json& c = j["controllers"][0];
    EXPECT_EQ(keys(c), (std::set<std::string>{"name", "id", "state", "transport", "traddr",
                                              "trsvcid", "subnqn", "hostnqn", "cntlid",
                                              "nr_io_queues", "nr_write_queues",
                                              "nr_poll_queues", "queue_size", "host_traddr",
                                              "tos", "discovery", "subsys_id", "multipath",
                                              "iopolicy", "anatt", "dhchap", "namespaces"}));
    EXPECT_EQ(c["discovery"], false);
    EXPECT_EQ(c["name"], "rblk7");
    EXPECT_EQ(c["id"], 7);
    EXPECT_EQ(c["state"], "connecting");
    EXPECT_EQ(c["transport"], "rdma");
    EXPECT_EQ(c["traddr"], "fd00::1");
    EXPECT_EQ(c["trsvcid"], 4420);
    EXPECT_TRUE(c["trsvcid"].is_number_integer());
    EXPECT_EQ(c["subnqn"], "nqn.sub");
    EXPECT_EQ(c["hostnqn"], "nqn.host");
    EXPECT_EQ(c["cntlid"], 3);
    EXPECT_EQ(c["nr_io_queues"], 2);
    EXPECT_EQ(c["nr_write_queues"], 0);  // none granted: still there, an integer
    EXPECT_TRUE(c["nr_write_queues"].is_number_integer());
    EXPECT_EQ(c["nr_poll_queues"], 0);
    EXPECT_TRUE(c["nr_poll_queues"].is_number_integer());
    EXPECT_EQ(c["queue_size"], 128);
    EXPECT_EQ(c["host_traddr"], "");
    EXPECT_EQ(c["tos"], -1);
    ASSERT_TRUE(c["namespaces"].is_array());
    const json& ns = c["namespaces"][0];
    EXPECT_EQ(keys(ns), (std::set<std::string>{"nsid", "device", "size_bytes", "lba_size",
                                               "path_disk", "ana_state", "anagrpid"}));
    EXPECT_EQ(ns["nsid"], 1);
    EXPECT_EQ(ns["device"], "/dev/rblk7n1");
    EXPECT_EQ(ns["size_bytes"], 1ull << 40);
    EXPECT_EQ(ns["lba_size"], 512);
    // No subsystem reported (a discovery controller, an older module): in
    // none, without multipath, iopolicy or ANA.
    EXPECT_EQ(c["subsys_id"], -1);
    EXPECT_EQ(j["subsystems"], json::array());
    EXPECT_EQ(c["multipath"], false);
    EXPECT_EQ(c["iopolicy"], "");
    EXPECT_EQ(c["anatt"], 0);
    EXPECT_EQ(c["dhchap"], "none");
    EXPECT_EQ(ns["path_disk"], "");
    EXPECT_EQ(ns["ana_state"], "");
    EXPECT_EQ(ns["anagrpid"], 0);
}

// Two paths, rblk4 and rblk7, of subsystem 4, multipath: one head disk
// rblk4n1 seen through both, each with its ANA state.
std::vector<ControllerInfo> two_paths()
{
    ControllerInfo a = sample();
    a.id = 4;
    a.name = "rblk4";
    a.state = CtrlState::Live;
    a.traddr = "10.99.0.1";
    a.subsys_id = 4;
    a.multipath = true;
    a.iopolicy = Iopolicy::RoundRobin;
    a.anatt = 10;
    a.namespaces = {{1, "rblk4n1", 1ull << 30, 512, "rblk4c4n1", AnaState::Optimized, 1}};
    ControllerInfo b = a;
    b.id = 7;
    b.name = "rblk7";
    b.traddr = "10.98.0.1";
    b.state = CtrlState::Connecting;
    b.namespaces = {{1, "rblk4n1", 1ull << 30, 512, "rblk4c7n1", AnaState::Inaccessible, 2}};
    return {b, a};  // in no particular order
}

TEST(Json, MultipathFieldsOfAControllerAndItsNamespaces)
{
    const json j = controller_json(two_paths()[0]);
    EXPECT_EQ(j["subsys_id"], 4);
    EXPECT_EQ(j["multipath"], true);
    EXPECT_EQ(j["iopolicy"], "round-robin");
    EXPECT_EQ(j["anatt"], 10);
    const json& ns = j["namespaces"][0];
    EXPECT_EQ(ns["device"], "/dev/rblk4n1");
    EXPECT_EQ(ns["path_disk"], "rblk4c7n1");
    EXPECT_EQ(ns["ana_state"], "inaccessible");
    EXPECT_EQ(ns["anagrpid"], 2);
}

TEST(Json, ListGroupsThePathsOfASubsystemUnderOneHead)
{
    const json j = list_json(two_paths());
    ASSERT_EQ(j["controllers"].size(), 2u);
    ASSERT_EQ(j["subsystems"].size(), 1u);
    const json& s = j["subsystems"][0];
    EXPECT_EQ(keys(s), (std::set<std::string>{"name", "id", "subnqn", "hostnqn", "multipath",
                                              "iopolicy", "paths", "namespaces"}));
    EXPECT_EQ(s["name"], "rblk-subsys4");
    EXPECT_EQ(s["id"], 4);
    EXPECT_EQ(s["subnqn"], "nqn.sub");
    EXPECT_EQ(s["hostnqn"], "nqn.host");
    EXPECT_EQ(s["multipath"], true);
    EXPECT_EQ(s["iopolicy"], "round-robin");
    ASSERT_EQ(s["paths"].size(), 2u);
    EXPECT_EQ(keys(s["paths"][0]), (std::set<std::string>{"name", "id", "state", "transport",
                                                          "traddr", "trsvcid", "host_traddr",
                                                          "ana_state"}));
    EXPECT_EQ(s["paths"][0]["name"], "rblk4");  // by id
    EXPECT_EQ(s["paths"][0]["traddr"], "10.99.0.1");
    EXPECT_EQ(s["paths"][0]["ana_state"], "optimized");
    EXPECT_EQ(s["paths"][1]["name"], "rblk7");
    EXPECT_EQ(s["paths"][1]["state"], "connecting");
    EXPECT_EQ(s["paths"][1]["ana_state"], "inaccessible");
    ASSERT_EQ(s["namespaces"].size(), 1u);
    const json& ns = s["namespaces"][0];
    EXPECT_EQ(keys(ns), (std::set<std::string>{"nsid", "device", "size_bytes", "lba_size",
                                               "paths"}));
    EXPECT_EQ(ns["device"], "/dev/rblk4n1");
    EXPECT_EQ(ns["size_bytes"], 1ull << 30);
    ASSERT_EQ(ns["paths"].size(), 2u);
    EXPECT_EQ(ns["paths"][0], (json{{"name", "rblk4"}, {"path_disk", "rblk4c4n1"},
                                    {"ana_state", "optimized"}, {"anagrpid", 1}}));
    EXPECT_EQ(ns["paths"][1]["path_disk"], "rblk4c7n1");
}

TEST(Json, WithoutMultipathEachPathKeepsItsOwnDisk)
{
    std::vector<ControllerInfo> paths = two_paths();
    for (ControllerInfo& c : paths) {
        c.multipath = false;
        c.namespaces[0].disk = c.name + "n1";
        c.namespaces[0].path_disk.clear();
    }
    const json s = list_json(paths)["subsystems"][0];
    EXPECT_EQ(s["multipath"], false);
    ASSERT_EQ(s["namespaces"].size(), 2u);
    EXPECT_EQ(s["namespaces"][0]["device"], "/dev/rblk4n1");
    EXPECT_EQ(s["namespaces"][1]["device"], "/dev/rblk7n1");
    EXPECT_EQ(s["namespaces"][1]["paths"].size(), 1u);
}

TEST(Json, ListSubsysHasNvmeClisShape)
{
    std::vector<ControllerInfo> ctrls = two_paths();
    ControllerInfo other = sample();  // another host, a subsystem of its own
    other.subsys_id = 7;
    other.hostnqn = "nqn.other-host";
    other.host_traddr = "10.99.0.2";
    ctrls.push_back(other);
    const json j = list_subsys_json(ctrls);
    ASSERT_TRUE(j.is_array());
    ASSERT_EQ(j.size(), 2u);
    EXPECT_EQ(j[0]["HostNQN"], "nqn.host");
    EXPECT_EQ(j[0]["HostID"], "11111111-2222-3333-4444-555555555555");
    ASSERT_EQ(j[0]["Subsystems"].size(), 1u);
    const json& s = j[0]["Subsystems"][0];
    EXPECT_EQ(keys(s), (std::set<std::string>{"Name", "NQN", "IOPolicy", "Paths"}));
    EXPECT_EQ(s["Name"], "rblk-subsys4");
    EXPECT_EQ(s["NQN"], "nqn.sub");
    EXPECT_EQ(s["IOPolicy"], "round-robin");
    ASSERT_EQ(s["Paths"].size(), 2u);
    EXPECT_EQ(s["Paths"][0], (json{{"Name", "rblk4"}, {"Transport", "rdma"},
                                   {"Address", "traddr=10.99.0.1,trsvcid=4420"},
                                   {"State", "live"}, {"ANAState", "optimized"}}));
    EXPECT_EQ(s["Paths"][1]["State"], "connecting");
    EXPECT_EQ(j[1]["HostNQN"], "nqn.other-host");
    const json& p = j[1]["Subsystems"][0]["Paths"][0];
    EXPECT_EQ(p["Address"], "traddr=fd00::1,trsvcid=4420,host_traddr=10.99.0.2");
    EXPECT_FALSE(p.contains("ANAState"));
}

TEST(Json, HostTraddrAndTosWhenGiven)
{
    ControllerInfo c = sample();
    c.host_traddr = "fd00::2";
    c.tos = 64;
    const json j = controller_json(c);
    EXPECT_EQ(j["host_traddr"], "fd00::2");
    EXPECT_EQ(j["tos"], 64);
}

TEST(Json, WriteAndPollQueuesInListAndShow)
{
    ControllerInfo c = sample();
    c.nr_write_queues = 3;
    c.nr_poll_queues = 1;
    for (const json& j : {list_json({c})["controllers"][0], controller_detail_json(c)}) {
        EXPECT_EQ(j["nr_io_queues"], 2);
        EXPECT_EQ(j["nr_write_queues"], 3);
        EXPECT_EQ(j["nr_poll_queues"], 1);
    }
}

TEST(Json, ControllerWithoutNamespacesHasAnEmptyArray)
{
    ControllerInfo c = sample();
    c.namespaces.clear();
    EXPECT_EQ(controller_json(c)["namespaces"], json::array());
}

TEST(Json, EveryStateSerialisesByName)
{
    ControllerInfo c = sample();
    const std::pair<CtrlState, const char*> states[] = {
        {CtrlState::New, "new"},           {CtrlState::Connecting, "connecting"},
        {CtrlState::Live, "live"},         {CtrlState::Resetting, "resetting"},
        {CtrlState::Deleting, "deleting"}, {CtrlState::Dead, "dead"}};
    for (const auto& [state, name] : states) {
        c.state = state;
        EXPECT_EQ(controller_json(c)["state"], name);
    }
}

TEST(Json, DetailAddsTunablesAndOptionalTimers)
{
    ControllerInfo c = sample();
    json j = controller_detail_json(c);
    for (const char* k : {"hostid", "kato", "reconnect_delay", "ctrl_loss_tmo", "fast_io_fail_tmo",
                          "model", "serial", "firmware", "namespaces", "subnqn"})
        EXPECT_TRUE(j.contains(k)) << k;
    EXPECT_EQ(j["fast_io_fail_tmo"], -1);
    EXPECT_FALSE(j.contains("state_since_ms"));
    EXPECT_FALSE(j.contains("next_reconnect_ms"));
    EXPECT_FALSE(j.contains("loss_deadline_ms"));
    c.state_since_ms = 12;
    c.next_reconnect_ms = 3000;
    c.loss_deadline_ms = 500000;
    j = controller_detail_json(c);
    EXPECT_EQ(j["state_since_ms"], 12);
    EXPECT_EQ(j["next_reconnect_ms"], 3000);
    EXPECT_EQ(j["loss_deadline_ms"], 500000);
}

TEST(Json, StatsObject)
{
    ControllerInfo c = sample();
    c.stats = CtrlStats{1, 2, 3, 4, 5, 6, 7, 8};
    const json j = controller_stats_json(c);
    EXPECT_EQ(j["name"], "rblk7");
    EXPECT_EQ(j["id"], 7);
    EXPECT_FALSE(j.contains("state"));  // GET_STATS does not report it
    EXPECT_EQ(j["stats"], json::parse(R"({"reads":1,"writes":2,"read_bytes":3,"write_bytes":4,
                                          "errors":5,"reconnects":6,"inflight":7,
                                          "failovers":8})"));
}

TEST(Json, StatsObjectHasEveryCounterOfTheTable)
{
    ControllerInfo c = sample();
    CtrlStats s;
    std::uint64_t v = 100;
    for (const CtrlStatField& f : kCtrlStatFields)
        s.*f.field = v++;
    c.stats = s;
    const json stats = controller_stats_json(c)["stats"];
    EXPECT_EQ(stats.size(), kCtrlStatFields.size());
    v = 100;
    for (const CtrlStatField& f : kCtrlStatFields)
        EXPECT_EQ(stats.value(std::string(f.name), json()), v++) << f.name;
}

TEST(Json, WatchLineAddsRates)
{
    ControllerInfo c = sample();
    c.stats = CtrlStats{1, 2, 3, 4, 5, 6, 7};
    StatsRates r;
    r.seconds = 2;
    r.read_iops = 100;
    r.write_iops = 50;
    r.read_bytes_per_s = 1048576;
    r.write_bytes_per_s = 524288;
    const json j = controller_stats_json(c, r);
    EXPECT_EQ(j["stats"], controller_stats_json(c)["stats"]);
    EXPECT_EQ(j["rates"], json::parse(R"({"interval_s":2.0,"iops":150.0,"read_iops":100.0,
                                          "write_iops":50.0,"mib_s":1.5,"read_mib_s":1.0,
                                          "write_mib_s":0.5})"));
}

// The secrets save writes are in no JSON a person sees, show's included.
TEST(Json, DhchapIsWhichSecretsNeverTheirValues)
{
    ControllerInfo c = sample();
    c.dhchap = Dhchap::Bidirectional;
    c.dhchap_secret = "DHHC-1:01:host-secret-value:";
    c.dhchap_ctrl_secret = "DHHC-1:02:ctrl-secret-value:";
    for (const json& j : {list_json({c}), controller_detail_json(c)}) {
        const std::string text = j.dump();
        EXPECT_NE(text.find(R"("dhchap":"bidirectional")"), std::string::npos) << text;
        EXPECT_EQ(text.find("secret-value"), std::string::npos) << text;
    }
    c.dhchap = Dhchap::Host;
    EXPECT_EQ(controller_json(c)["dhchap"], "host");
}

TEST(Json, EventObject)
{
    const StateEvent e{1, "rblk1", CtrlState::Dead, CtrlState::Connecting};
    EXPECT_EQ(event_json(e), json::parse(R"({"event":"state","id":1,"name":"rblk1",
                                              "state":"dead","old_state":"connecting"})"));
}

TEST(Json, ModuleEventObjects)
{
    EXPECT_EQ(module_event_json(FamilyNotice{false, 33, std::nullopt}),
              json::parse(R"({"event":"module","state":"unloaded"})"));
    EXPECT_EQ(module_event_json(FamilyNotice{true, 37, 9}),
              json::parse(R"({"event":"module","state":"loaded","family_id":37})"));
}

}  // namespace
}  // namespace rblk
