// rblkctl command-line parsing: every option, defaults, and bad values.
#include "cli_parse.hpp"
#include "commands.hpp"

#include <rblk/error.hpp>

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <regex>
#include <set>

namespace rblkctl {
namespace {

using test::connect_with;
using test::kConnect;
using test::parse;
using test::parse_error;

TEST(CliConnect, RequiredOptionsAndDefaults)
{
    auto cli = parse(kConnect);
    const Request& r = cli->request();
    EXPECT_EQ(r.command, Command::Connect);
    EXPECT_EQ(r.connect.transport, "rdma");
    EXPECT_EQ(r.connect.traddr, "10.99.0.1");
    EXPECT_EQ(r.connect.trsvcid, 4420);
    EXPECT_EQ(r.connect.subnqn, "nqn.sub");
    EXPECT_FALSE(r.connect.hostnqn.has_value());
    EXPECT_FALSE(r.connect.hostid.has_value());
    EXPECT_FALSE(r.connect.nr_io_queues.has_value());
    EXPECT_FALSE(r.connect.nr_write_queues.has_value());
    EXPECT_FALSE(r.connect.nr_poll_queues.has_value());
    EXPECT_FALSE(r.connect.queue_size.has_value());
    EXPECT_FALSE(r.connect.kato.has_value());
    EXPECT_FALSE(r.connect.reconnect_delay.has_value());
    EXPECT_FALSE(r.connect.ctrl_loss_tmo.has_value());
    EXPECT_FALSE(r.connect.fast_io_fail_tmo.has_value());
    EXPECT_FALSE(r.connect.duplicate_connect);
    EXPECT_FALSE(r.json);
}

TEST(CliConnect, EveryShortOption)
{
    auto cli = parse({"connect", "-t", "rdma", "-a", "fd00::2", "-s", "4421", "-n", "nqn.sub",
                      "-q", "nqn.host", "-I", "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0", "-i", "3",
                      "-Q", "64", "-k", "15", "-c", "2", "-l", "-1", "-D", "-w", "fd00::3",
                      "-T", "8", "-W", "2", "-P", "1"});
    const rblk::ConnectOptions& o = cli->request().connect;
    EXPECT_EQ(o.traddr, "fd00::2");
    EXPECT_EQ(o.trsvcid, 4421);
    EXPECT_EQ(o.hostnqn, "nqn.host");
    EXPECT_EQ(o.hostid, "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0");
    EXPECT_EQ(o.nr_io_queues, 3);
    EXPECT_EQ(o.queue_size, 64);
    EXPECT_EQ(o.kato, 15);
    EXPECT_EQ(o.reconnect_delay, 2);
    EXPECT_EQ(o.ctrl_loss_tmo, -1);
    EXPECT_TRUE(o.duplicate_connect);
    EXPECT_EQ(o.host_traddr, "fd00::3");
    EXPECT_EQ(o.tos, 8);
    EXPECT_EQ(o.nr_write_queues, 2);
    EXPECT_EQ(o.nr_poll_queues, 1);
}

TEST(CliConnect, EveryLongOption)
{
    auto cli = parse({"connect", "--transport", "rdma", "--traddr", "10.0.0.2", "--trsvcid",
                      "4422", "--nqn", "nqn.sub2", "--hostnqn", "nqn.h", "--hostid",
                      "11111111-2222-3333-4444-555555555555", "--nr-io-queues", "8",
                      "--queue-size", "1024", "--keep-alive-tmo", "0", "--reconnect-delay", "5",
                      "--ctrl-loss-tmo", "60", "--fast-io-fail-tmo", "30",
                      "--duplicate-connect", "--host-traddr", "10.0.0.9", "--tos", "0",
                      "--nr-write-queues", "4", "--nr-poll-queues", "0", "--json"});
    const Request& r = cli->request();
    EXPECT_EQ(r.connect.traddr, "10.0.0.2");
    EXPECT_EQ(r.connect.trsvcid, 4422);
    EXPECT_EQ(r.connect.subnqn, "nqn.sub2");
    EXPECT_EQ(r.connect.hostnqn, "nqn.h");
    EXPECT_EQ(r.connect.hostid, "11111111-2222-3333-4444-555555555555");
    EXPECT_EQ(r.connect.nr_io_queues, 8);
    EXPECT_EQ(r.connect.queue_size, 1024);
    EXPECT_EQ(r.connect.kato, 0);
    EXPECT_EQ(r.connect.reconnect_delay, 5);
    EXPECT_EQ(r.connect.ctrl_loss_tmo, 60);
    EXPECT_EQ(r.connect.fast_io_fail_tmo, 30);
    EXPECT_TRUE(r.connect.duplicate_connect);
    EXPECT_EQ(r.connect.host_traddr, "10.0.0.9");
    EXPECT_EQ(r.connect.tos, 0);
    EXPECT_EQ(r.connect.nr_write_queues, 4);
    EXPECT_EQ(r.connect.nr_poll_queues, 0);  // given as 0: sent as 0
    EXPECT_TRUE(r.json);
}

TEST(CliConnect, MissingRequiredOptions)
{
    EXPECT_EQ(parse_error({"connect", "-n", "nqn.sub"}), "--traddr is required");
    EXPECT_EQ(parse_error({"connect", "-a", "10.0.0.1"}), "--nqn is required");
}

TEST(CliConnect, FreeFormNqnIsAccepted)
{
    auto cli = parse({"connect", "-a", "10.0.0.1", "-n", "blktests-subsystem-1", "-q", "host-1"});
    const Request& r = cli->request();
    EXPECT_EQ(r.connect.subnqn, "blktests-subsystem-1");
    EXPECT_EQ(r.connect.hostnqn, "host-1");
}

TEST(CliConnect, BadValuesGetSpecificMessages)
{
    EXPECT_EQ(parse_error(connect_with({"-t", "tcp"})),
              "--transport 'tcp' is not supported (only 'rdma')");
    EXPECT_EQ(parse_error({"connect", "-a", "bad_host", "-n", "nqn.sub"}),
              "--traddr 'bad_host' is not an IPv4 or IPv6 address or a host name");
    EXPECT_EQ(parse_error(connect_with({"-s", "0"})), "--trsvcid 0 is out of range (1..65535)");
    EXPECT_EQ(parse_error({"connect", "-a", "10.0.0.1", "-n", ""}), "--nqn is required");
    EXPECT_EQ(parse_error(connect_with({"-q", ""})), "--hostnqn is empty");
    EXPECT_EQ(parse_error({"connect", "-a", "10.0.0.1", "-n", std::string(224, 'n')}),
              "--nqn is 224 bytes long, the maximum is 223");
    EXPECT_EQ(parse_error(connect_with({"-I", "xyz"})),
              "--hostid 'xyz' is not a UUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)");
    EXPECT_EQ(parse_error(connect_with({"-i", "0"})), "--nr-io-queues 0 is out of range (1..128)");
    EXPECT_EQ(parse_error(connect_with({"-W", "129"})),
              "--nr-write-queues 129 is out of range (0..128)");
    EXPECT_EQ(parse_error(connect_with({"--nr-poll-queues", "-1"})),
              "--nr-poll-queues -1 is out of range (0..128)");
    EXPECT_EQ(parse_error(connect_with({"-Q", "2048"})),
              "--queue-size 2048 is out of range (16..1024)");
    EXPECT_EQ(parse_error(connect_with({"-k", "-5"})),
              "--keep-alive-tmo -5 is out of range (0..3600, 0 = off)");
    EXPECT_EQ(parse_error(connect_with({"-c", "0"})),
              "--reconnect-delay 0 is out of range (1..3600)");
    EXPECT_EQ(parse_error(connect_with({"-l", "-7"})),
              "--ctrl-loss-tmo -7 is out of range (-1..31536000, -1 = forever)");
    EXPECT_EQ(parse_error(connect_with({"--fast-io-fail-tmo", "-3"})),
              "--fast-io-fail-tmo -3 is out of range (-1..31536000, -1 = off)");
}

TEST(CliConnect, NonNumbersAreRejected)
{
    EXPECT_NE(parse_error(connect_with({"-s", "http"})).find("--trsvcid"), std::string::npos);
    EXPECT_NE(parse_error(connect_with({"-Q", "big"})).find("--queue-size"), std::string::npos);
}

TEST(CliDisconnect, ByNameByNqnOrAll)
{
    auto by_name = parse({"disconnect", "rblk3"});
    EXPECT_EQ(by_name->request().command, Command::Disconnect);
    EXPECT_EQ(by_name->request().name, "rblk3");
    EXPECT_FALSE(by_name->request().all);

    auto by_nqn = parse({"disconnect", "--nqn", "nqn.sub"});
    EXPECT_EQ(by_nqn->request().nqn, "nqn.sub");
    EXPECT_TRUE(by_nqn->request().name.empty());

    auto all = parse({"disconnect", "--all", "--json"});
    EXPECT_TRUE(all->request().all);
    EXPECT_TRUE(all->request().json);
    EXPECT_FALSE(by_name->request().json);
}

TEST(CliDisconnect, ExactlyOneTarget)
{
    EXPECT_EQ(parse_error({"disconnect"}),
              "disconnect: give a controller NAME, --nqn NQN or --all");
    EXPECT_NE(parse_error({"disconnect", "rblk0", "--all"}).find("excludes"), std::string::npos);
    EXPECT_NE(parse_error({"disconnect", "--nqn", "nqn.a", "--all"}).find("excludes"),
              std::string::npos);
}

TEST(CliList, PlainAndJson)
{
    EXPECT_EQ(parse({"list"})->request().command, Command::List);
    EXPECT_FALSE(parse({"list"})->request().json);
    EXPECT_TRUE(parse({"list", "--json"})->request().json);
}

TEST(CliListSubsys, PlainAndJson)
{
    EXPECT_EQ(parse({"list-subsys"})->request().command, Command::ListSubsys);
    EXPECT_FALSE(parse({"list-subsys"})->request().json);
    EXPECT_TRUE(parse({"list-subsys", "-o", "json"})->request().json);
}

TEST(CliSetIopolicy, SubsystemAndPolicy)
{
    auto by_nqn = parse({"set-iopolicy", "nqn.sub", "round-robin"});
    EXPECT_EQ(by_nqn->request().command, Command::SetIopolicy);
    EXPECT_EQ(by_nqn->request().subsystem, "nqn.sub");
    EXPECT_EQ(by_nqn->request().iopolicy, "round-robin");
    EXPECT_EQ(by_nqn->request().hostnqn, "");
    EXPECT_EQ(parse({"set-iopolicy", "nqn.sub", "numa", "-q", "nqn.h"})->request().hostnqn,
              "nqn.h");
    // A controller or one of its disks is stored as the controller.
    EXPECT_EQ(parse({"set-iopolicy", "/dev/rblk3n1", "queue-depth"})->request().subsystem, "rblk3");
    EXPECT_EQ(parse({"set-iopolicy", "rblk3c4n1", "numa"})->request().subsystem, "rblk4");
    EXPECT_EQ(parse({"set-iopolicy", "rblk-subsys3", "numa"})->request().subsystem, "rblk-subsys3");
}

TEST(CliSetIopolicy, Refusals)
{
    EXPECT_EQ(parse_error({"set-iopolicy"}), "subsystem is required");
    EXPECT_EQ(parse_error({"set-iopolicy", "nqn.sub"}), "policy is required");
    EXPECT_NE(parse_error({"set-iopolicy", "nqn.sub", "fastest"}).find("fastest"),
              std::string::npos);
    EXPECT_EQ(parse_error({"set-iopolicy", "", "numa"}), "set-iopolicy: the subsystem is empty");
    EXPECT_EQ(parse_error({"set-iopolicy", "rblk0", "numa", "-q", "nqn.h"}),
              "set-iopolicy: --hostnqn goes with a subsystem NQN, not 'rblk0'");
}

rblk::ControllerInfo ctrl(std::uint32_t id, std::uint32_t subsys, const std::string& subnqn,
                          const std::string& hostnqn)
{
    rblk::ControllerInfo c;
    c.id = id;
    c.name = "rblk" + std::to_string(id);
    c.subsys_id = subsys;
    c.subnqn = subnqn;
    c.hostnqn = hostnqn;
    return c;
}

TEST(CliSetIopolicy, WhatIsSentForEachWayOfNamingTheSubsystem)
{
    std::vector<rblk::ControllerInfo> ctrls = {
        ctrl(0, 0, "nqn.a", "nqn.h1"), ctrl(1, 0, "nqn.a", "nqn.h1"),
        ctrl(2, 2, "nqn.b", "nqn.h1"), ctrl(3, 3, "nqn.b", "nqn.h2")};
    ctrls.push_back(ctrl(5, 0, RBLK_DISC_SUBNQN, "nqn.h1"));
    ctrls.back().subsys_id.reset();  // a discovery controller: in no subsystem
    const auto ref = [&](std::vector<std::string> args) {
        args.insert(args.begin(), "set-iopolicy");
        args.insert(args.begin() + 2, "numa");
        return subsystem_ref(parse(args)->request(), ctrls);
    };
    const auto eq = [](const rblk::SubsystemRef& r, const std::string& ctrl, const std::string& nqn,
                       const std::string& host) {
        EXPECT_EQ(r.ctrl_name, ctrl);
        EXPECT_EQ(r.subnqn, nqn);
        EXPECT_EQ(r.hostnqn, host);
    };
    eq(ref({"rblk1"}), "rblk1", "", "");
    eq(ref({"rblk-subsys2"}), "rblk2", "", "");
    eq(ref({"nqn.a"}), "", "nqn.a", "");  // the kernel: every host NQN's nqn.a
    eq(ref({"nqn.b"}), "", "nqn.b", "");
    eq(ref({"nqn.b", "-q", "nqn.h2"}), "", "nqn.b", "nqn.h2");
    eq(ref({"nqn.unknown"}), "", "nqn.unknown", "");  // the kernel answers
    EXPECT_THROW(ref({"rblk-subsys1"}), rblk::InvalidOption);  // rblk1 is a path of 0
    EXPECT_THROW(ref({"rblk-subsys5"}), rblk::InvalidOption);  // rblk5 is in none
}

TEST(CliShowStats, NameIsRequired)
{
    auto show = parse({"show", "rblk1", "--json"});
    EXPECT_EQ(show->request().command, Command::Show);
    EXPECT_EQ(show->request().name, "rblk1");
    EXPECT_TRUE(show->request().json);
    EXPECT_EQ(parse_error({"show"}), "name is required");

    auto stats = parse({"stats", "rblk2"});
    EXPECT_EQ(stats->request().command, Command::Stats);
    EXPECT_EQ(stats->request().name, "rblk2");
    EXPECT_EQ(stats->request().watch_interval, 0);
    EXPECT_EQ(parse_error({"stats"}), "name is required");
}

TEST(CliStats, WatchDefaultsToOneSecond)
{
    EXPECT_EQ(parse({"stats", "rblk0", "--watch"})->request().watch_interval, 1);
    EXPECT_EQ(parse({"stats", "rblk0", "--watch", "2.5"})->request().watch_interval, 2.5);
    EXPECT_EQ(parse_error({"stats", "rblk0", "--watch", "-1"}),
              "--watch: -1 is out of range (must be greater than 0)");
}

TEST(CliStats, CountBoundsTheWatch)
{
    EXPECT_EQ(parse({"stats", "rblk0", "--watch"})->request().watch_count, 0U);
    auto s = parse({"stats", "rblk0", "--watch", "2", "--count", "3"});
    EXPECT_EQ(s->request().watch_interval, 2);
    EXPECT_EQ(s->request().watch_count, 3U);
    EXPECT_EQ(parse({"stats", "rblk0", "--count", "3", "--watch"})->request().watch_interval, 1);
    EXPECT_EQ(parse_error({"stats", "rblk0", "--count", "3"}), "--count requires --watch");
    EXPECT_EQ(parse_error({"stats", "rblk0", "--watch", "--count", "0"}),
              "--count: 0 is out of range (1..1000000)");
    EXPECT_EQ(parse_error({"stats", "rblk0", "--watch", "--count", "-2"}),
              "--count: -2 is out of range (1..1000000)");
}

TEST(CliMonitor, JsonLines)
{
    auto m = parse({"monitor", "--json"});
    EXPECT_EQ(m->request().command, Command::Monitor);
    EXPECT_TRUE(m->request().json);
}

TEST(CliSession, ApplyAndSaveDefaultToTheSystemFile)
{
    auto apply = parse({"apply"});
    EXPECT_EQ(apply->request().command, Command::Apply);
    EXPECT_EQ(apply->request().file, "/etc/rblk/sessions.json");
    auto apply_file = parse({"apply", "my.json", "--json"});
    EXPECT_EQ(apply_file->request().file, "my.json");
    EXPECT_TRUE(apply_file->request().json);

    auto save = parse({"save"});
    EXPECT_EQ(save->request().command, Command::Save);
    EXPECT_EQ(save->request().file, "/etc/rblk/sessions.json");
    EXPECT_EQ(parse({"save", "-"})->request().file, "-");
}

TEST(CliSession, FormatLibnvmeReadsNvmesConfigJsonAndWritesOnlyANamedFile)
{
    EXPECT_EQ(parse({"apply"})->request().format, rblk::SessionFormat::Rblk);
    auto apply = parse({"apply", "--format", "libnvme"});
    EXPECT_EQ(apply->request().command, Command::Apply);
    EXPECT_EQ(apply->request().format, rblk::SessionFormat::Libnvme);
    EXPECT_EQ(apply->request().file, "/etc/nvme/config.json");
    EXPECT_EQ(parse({"apply", "-f", "libnvme", "my.json"})->request().file, "my.json");

    // nvme-cli's file is written only when named: never by default.
    EXPECT_EQ(parse_error({"save", "--format", "libnvme"}),
              "save --format libnvme needs a FILE: /etc/nvme/config.json is nvme-cli's "
              "(connect-all connects from it with nvme-rdma); name it to merge into it, or '-' "
              "to print");
    auto save = parse({"save", "--format", "libnvme", "/etc/nvme/config.json"});
    EXPECT_EQ(save->request().command, Command::Save);
    EXPECT_EQ(save->request().format, rblk::SessionFormat::Libnvme);
    EXPECT_EQ(save->request().file, "/etc/nvme/config.json");
    EXPECT_EQ(parse({"save", "-f", "libnvme", "-"})->request().file, "-");
    EXPECT_EQ(parse({"save", "--format", "rblk"})->request().file, "/etc/rblk/sessions.json");
    EXPECT_NE(parse_error({"save", "--format", "json"}), "<parsed>");
}

TEST(Cli, SubcommandIsRequired)
{
    EXPECT_EQ(parse_error({}), "A subcommand is required");
    EXPECT_EQ(parse_error({"frobnicate"}), "unknown command 'frobnicate'");
}

TEST(Cli, VersionFlag)
{
    EXPECT_EQ(version_string(), "rblkctl " RBLK_TEST_PROJECT_VERSION);
    try {
        parse({"--version"});
        FAIL() << "--version did not stop parsing";
    } catch (const CLI::CallForVersion& e) {
        EXPECT_EQ(e.get_exit_code(), 0);
        EXPECT_STREQ(e.what(), "rblkctl " RBLK_TEST_PROJECT_VERSION);
    }
}

// ---- byte counts: one parser, every command ----------------------------------

// Every option of every subcommand of `cli`, as "subcommand --name".
std::map<std::string, const CLI::Option*> all_options(Cli& cli)
{
    std::map<std::string, const CLI::Option*> out;
    for (const CLI::App* sub : cli.app().get_subcommands([](const CLI::App*) { return true; }))
        for (const CLI::Option* opt : sub->get_options())
            for (const std::string& l : opt->get_lnames())
                out[sub->get_name() + " --" + l] = opt;
    return out;
}

// A line of each command that parses once `option` is added to it.
std::vector<std::string> size_command(const std::string& command, const std::string& option)
{
    if (command == "bench") {
        // --bs past --size is a rule of its own, not the parser's.
        std::vector<std::string> args = {"bench", "--filename", "/tmp/f", "--rw", "randread"};
        if (option != "--size")
            args.insert(args.end(), {"--size", "2t"});
        return args;
    }
    std::vector<std::string> args = {command, "--path", "bypass", "-a", "10.99.0.1", "-n", "nqn.sub"};
    if (option != "--length")
        args.insert(args.end(), {"--length", "8k"});
    return args;
}

// The options named like a byte count, "subcommand --name"; -Q/--queue-size
// is a depth (commands).
std::set<std::string> byte_count_options(Cli& cli)
{
    const std::regex bytes_like("--(bs|.*(size|offset|length|limit|bytes))$");
    std::set<std::string> names;
    for (const auto& [name, opt] : all_options(cli))
        // A queue's depth; gen-dhchap-key's length is nvme-cli's 32, 48 or 64.
        if (std::regex_search(name, bytes_like) && !name.ends_with("--queue-size") &&
            name != "gen-dhchap-key --key-length")
            names.insert(name);
    return names;
}

TEST(CliSizes, EveryByteCountOptionIsASize)
{
    Cli cli;
    std::set<std::string> sizes;
    for (const auto& [name, opt] : all_options(cli))
        if (opt->get_type_name() == "SIZE")
            sizes.insert(name);
    EXPECT_EQ(sizes, byte_count_options(cli));
    EXPECT_EQ(sizes, (std::set<std::string>{"bench --bs", "bench --io-limit", "bench --offset", "bench --size",
                                            "read --length", "read --offset", "write --length",
                                            "write --offset"}));
}

TEST(CliSizes, EveryByteCountTakesTheSuffixesAndRefusesInOneLine)
{
    Cli cli;
    for (const std::string& name : byte_count_options(cli)) {
        const std::string command = name.substr(0, name.find(' '));
        const std::string option = name.substr(name.find(' ') + 1);
        for (const char* good : {"64k", "64K", "64kb", "65536", "1m", "1M"}) {
            auto args = size_command(command, option);
            args.insert(args.end(), {option, good});
            EXPECT_EQ("<parsed>", parse_error(args)) << name << " " << good;
        }
        for (const char* bad : {"200x", "1.5m", "-1", "k"}) {
            auto args = size_command(command, option);
            args.insert(args.end(), {option, bad});
            EXPECT_EQ(option + ": '" + bad + "' is not a size (e.g. 4k, 64m, 1g)", parse_error(args)) << name;
        }
    }
}

}  // namespace
}  // namespace rblkctl
