// connect --path bypass (the ublk server) on the command line and the
// servers' state files that list, show and disconnect read
// (rblk/bypass/bypass_state.hpp): parsed, round-tripped, refused when
// mangled, a gone server read as dead, names claimed once each.
#include "cli_parse.hpp"
#include "commands.hpp"
#include "format.hpp"

#include <rblk/bypass/bypass_state.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace rblkctl {
namespace {

using namespace rblk::bypass;

using test::connect_with;
using test::parse;
using test::parse_error;

TEST(ConnectBypass, Parses)
{
    auto cli = parse(connect_with({"--path", "bypass", "--nsid", "2", "-i", "2", "-F", "5"}));
    const Request& r = cli->request();
    EXPECT_EQ(Command::ConnectBypass, r.command);
    EXPECT_EQ(2, r.bypass_io.nsid);
    EXPECT_FALSE(r.bypass_io.all_namespaces);
    EXPECT_TRUE(parse(connect_with({"--path", "bypass"}))->request().bypass_io.all_namespaces);
    EXPECT_EQ(2, r.connect.nr_io_queues.value_or(0));
    EXPECT_EQ(5, r.connect.fast_io_fail_tmo.value_or(0));
    EXPECT_FALSE(r.bypass_io.hipri);
    EXPECT_EQ(Command::Connect, parse(test::kConnect)->request().command);
    EXPECT_EQ(Command::Connect, parse(connect_with({"--path", "kernel"}))->request().command);
    EXPECT_TRUE(parse(connect_with({"--path", "bypass", "--hipri"}))->request().bypass_io.hipri);
    auto srv = parse({"ublk-server", "-a", "10.99.0.1", "-n", "nqn.sub", "--nsid", "3"});
    EXPECT_EQ(Command::UblkServer, srv->request().command);
    EXPECT_EQ(3, srv->request().bypass_io.nsid);
    EXPECT_FALSE(srv->request().bypass_io.all_namespaces);
    EXPECT_TRUE(parse({"ublk-server", "-a", "10.99.0.1", "-n", "nqn.sub"})->request().bypass_io.all_namespaces);
}

TEST(ConnectBypass, MistakesAreOneLine)
{
    EXPECT_EQ("--path: ublk not in {kernel,bypass}", parse_error(connect_with({"--path", "ublk"})));
    EXPECT_EQ("--nr-write-queues is the kernel path's: not with --path bypass",
              parse_error(connect_with({"--path", "bypass", "-W", "1"})));
    EXPECT_EQ("--duplicate-connect is the kernel path's: not with --path bypass",
              parse_error(connect_with({"--path", "bypass", "-D"})));
    EXPECT_EQ("--nsid 0 is out of range (1..4294967294)",
              parse_error(connect_with({"--path", "bypass", "--nsid", "0"})));
    EXPECT_EQ("--nsid and --hipri go with --path bypass", parse_error(connect_with({"--nsid", "2"})));
}

TEST(ConnectBypass, NamesOfServersAndTheirDisks)
{
    EXPECT_EQ(controller_name("bypass0"), "bypass0");
    EXPECT_EQ(controller_name("bypass12"), "bypass12");
    EXPECT_EQ(controller_name("ublkb3"), "ublkb3");
    EXPECT_EQ(controller_name("/dev/ublkb3"), "ublkb3");
    EXPECT_EQ(controller_name("bypass"), std::nullopt);
    EXPECT_EQ(controller_name("ublkc0"), std::nullopt);
    EXPECT_EQ(Command::Disconnect, parse({"disconnect", "bypass1"})->request().command);
    EXPECT_EQ("bypass1", parse({"disconnect", "bypass1"})->request().name);
}

BypassState sample()
{
    BypassState s;
    s.name = "bypass1";
    s.pid = 4242;
    s.starttime = 777;
    s.state = "live";
    s.traddr = "10.99.0.1";
    s.trsvcid = 4420;
    s.subnqn = "nqn.sub";
    s.hostnqn = "nqn.host";
    s.nsid = 0;  // every active namespace
    s.namespaces = {{2, 5, 128ull << 20, 512}, {7, 6, 64ull << 20, 4096}};
    s.nr_io_queues = 1;
    s.queue_size = 128;
    return s;
}

TEST(BypassState, RoundTripsAndRefusesMangledFiles)
{
    const BypassState s = sample();
    const auto back = parse_bypass_state(bypass_state_json(s).dump());
    ASSERT_TRUE(back);
    EXPECT_EQ(s.name, back->name);
    EXPECT_EQ(s.pid, back->pid);
    EXPECT_EQ(s.starttime, back->starttime);
    EXPECT_EQ(0u, back->nsid);
    ASSERT_EQ(2u, back->namespaces.size());
    EXPECT_EQ(7u, back->namespaces[1].nsid);
    EXPECT_EQ(6u, back->namespaces[1].ublk_id);
    EXPECT_EQ(4096u, back->namespaces[1].lba_size);
    EXPECT_EQ("/dev/ublkb5,/dev/ublkb6", back->devices());
    EXPECT_TRUE(back->serves("ublkb6"));
    EXPECT_TRUE(back->serves("/dev/ublkb5"));
    EXPECT_FALSE(back->serves("/dev/ublkb7"));
    EXPECT_EQ(s.subnqn, back->subnqn);
    EXPECT_EQ(s.namespaces[0].size_bytes, back->namespaces[0].size_bytes);
    EXPECT_FALSE(parse_bypass_state(""));
    EXPECT_FALSE(parse_bypass_state("[1,2]"));
    EXPECT_FALSE(parse_bypass_state("{\"name\": \"bypass0\"}"));
    nlohmann::json j = bypass_state_json(s);
    j["pid"] = "x";
    EXPECT_FALSE(parse_bypass_state(j.dump()));
    j["pid"] = 0;
    EXPECT_FALSE(parse_bypass_state(j.dump()));
    j = bypass_state_json(s);
    j["namespaces"][1].erase("ublk_id");
    EXPECT_FALSE(parse_bypass_state(j.dump()));
}

TEST(BypassState, ListJsonAndRow)
{
    const nlohmann::json j = bypass_list_json(sample());
    EXPECT_EQ("bypass1", j["name"]);
    EXPECT_EQ("bypass", j["path"]);
    EXPECT_EQ("live", j["state"]);
    EXPECT_EQ("nqn.sub", j["subnqn"]);
    ASSERT_EQ(2u, j["namespaces"].size());
    EXPECT_EQ("/dev/ublkb5", j["namespaces"][0]["device"]);
    EXPECT_EQ(2, j["namespaces"][0]["nsid"]);
    EXPECT_EQ(512, j["namespaces"][0]["lba_size"]);
    EXPECT_EQ("/dev/ublkb6", j["namespaces"][1]["device"]);
    EXPECT_EQ(7, j["namespaces"][1]["nsid"]);
    BypassState connecting = sample();
    connecting.namespaces.clear();
    EXPECT_TRUE(bypass_list_json(connecting)["namespaces"].empty());
    const std::string table = format_list({}, {bypass_list_row(sample())});
    EXPECT_NE(std::string::npos, table.find("bypass1")) << table;
    EXPECT_NE(std::string::npos, table.find("/dev/ublkb5,/dev/ublkb6")) << table;
    EXPECT_NE(std::string::npos, table.find("128.0M,64.0M")) << table;
    EXPECT_NE(std::string::npos, format_list({}, {bypass_list_row(connecting)}).find("bypass1"));
}

TEST(BypassState, FilesAliveDeadAndNames)
{
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("rblk-bypass-state-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    BypassState me = sample();
    me.pid = static_cast<int>(::getpid());
    me.starttime = process_starttime(me.pid);
    ASSERT_NE(0u, me.starttime);
    EXPECT_TRUE(bypass_process_alive(me.pid, me.starttime));
    EXPECT_FALSE(bypass_process_alive(me.pid, me.starttime + 1));  // the pid reused
    EXPECT_EQ("bypass0", reserve_bypass_name(me, dir.string()));
    BypassState other = me;
    EXPECT_EQ("bypass1", reserve_bypass_name(other, dir.string()));
    BypassState gone = sample();
    gone.name = "bypass10";
    gone.pid = 0x3ffffff;  // beyond pid_max
    save_bypass_state(gone, dir.string());
    std::ofstream(dir / "bypass7.json") << "not json";
    const auto all = load_bypass_states(dir.string());
    ASSERT_EQ(3u, all.size());
    EXPECT_EQ("bypass0", all[0].name);
    EXPECT_EQ("live", all[0].state);
    EXPECT_EQ("bypass1", all[1].name);
    EXPECT_EQ("bypass10", all[2].name);
    EXPECT_EQ("dead", all[2].state);
    remove_bypass_state("bypass0", dir.string());
    EXPECT_EQ("bypass0", reserve_bypass_name(me, dir.string()));
    fs::remove_all(dir);
}

}  // namespace
}  // namespace rblkctl
