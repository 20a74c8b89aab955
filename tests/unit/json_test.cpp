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
    EXPECT_EQ(list_json({}).dump(), R"({"controllers":[]})");
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
                                              "tos", "discovery", "namespaces"}));
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
    EXPECT_EQ(keys(ns), (std::set<std::string>{"nsid", "device", "size_bytes", "lba_size"}));
    EXPECT_EQ(ns["nsid"], 1);
    EXPECT_EQ(ns["device"], "/dev/rblk7n1");
    EXPECT_EQ(ns["size_bytes"], 1ull << 40);
    EXPECT_EQ(ns["lba_size"], 512);
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
