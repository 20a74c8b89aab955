// The conventions rblkctl shares with nvme-cli, lsblk and systemctl (issue
// #15): stable exit codes, typo hints, errors in the user's own terms,
// defaults in --help and the names show/stats/disconnect accept.
#include "cli_parse.hpp"
#include "commands.hpp"
#include "exit_codes.hpp"
#include "suggest.hpp"

#include <rblk/error.hpp>

#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>

namespace rblkctl {
namespace {

using test::connect_with;
using test::kConnect;
using test::parse;
using test::parse_error;

struct Outcome {
    int code;
    std::string out, err;
};

// run_main() of argv (program name added) with `runner` in place of run().
Outcome run_with(std::vector<std::string> args, const Runner& runner)
{
    args.insert(args.begin(), "rblkctl");
    std::ostringstream out, err;
    const int code = run_main(args, out, err, runner);
    return {code, out.str(), err.str()};
}

int succeeds(const Request&, std::ostream& out)
{
    out << "ran\n";
    return kExitOk;
}

// ---- 1. exit codes -------------------------------------------------------------

TEST(ExitCodes, AreDistinctAndDocumentedInHelp)
{
    EXPECT_EQ(kExitOk, 0);
    EXPECT_EQ(kExitFailure, 1);
    EXPECT_EQ(kExitUsage, 2);
    EXPECT_EQ(kExitModuleNotLoaded, 3);
    const Outcome help = run_with({"--help"}, succeeds);
    EXPECT_EQ(help.code, kExitOk);
    EXPECT_EQ(help.err, "");
    EXPECT_NE(help.out.find("Exit status: 0 success, 1 failure, 2 usage error, 3 rblk module not "
                            "loaded"),
              std::string::npos)
        << help.out;
}

TEST(ExitCodes, SuccessRunsTheRequest)
{
    const Outcome o = run_with({"list"}, succeeds);
    EXPECT_EQ(o.code, kExitOk);
    EXPECT_EQ(o.out, "ran\n");
    EXPECT_EQ(o.err, "");
    EXPECT_EQ(run_with({"--version"}, succeeds).code, kExitOk);
}

TEST(ExitCodes, EveryParseErrorIsAUsageError)
{
    // CLI11's own numbers (105 ValidationError, 106 RequiredError, 108
    // ExcludesError, 109 ExtrasError ...) never leak.
    const std::vector<std::vector<std::string>> bad = {
        {},                                                       // no subcommand
        {"lsit"},                                                 // unknown subcommand
        {"connect", "-a", "10.0.0.1"},                            // required option missing
        {"connect", "-a", "10.0.0.1", "-n", "nqn.x", "-Q", "big"},  // not a number
        {"connect", "-a", "10.0.0.1", "-n", "nqn.x", "-Q", "2048"}, // out of range
        {"connect", "-a", "10.0.0.1", "-n", "nqn.x", "--bogus"},  // unknown option
        {"disconnect", "rblk0", "--all"},                         // excludes
        {"stats", "rblk0", "--watch", "0"},                       // CLI11 validator
        {"show", "sda"},                                          // not an rblk name
    };
    for (const auto& args : bad) {
        bool ran = false;
        const Outcome o = run_with(args, [&ran](const Request&, std::ostream&) {
            ran = true;
            return kExitOk;
        });
        std::string line;
        for (const auto& a : args)
            line += " " + a;
        EXPECT_EQ(o.code, kExitUsage) << line;
        EXPECT_FALSE(ran) << line;
        EXPECT_EQ(o.out, "") << line;
        // Exactly one line, prefixed.
        EXPECT_EQ(o.err.rfind("rblkctl: ", 0), 0u) << line << ": " << o.err;
        EXPECT_EQ(o.err.find('\n'), o.err.size() - 1) << line << ": " << o.err;
    }
}

TEST(ExitCodes, RuntimeFailureIsOne)
{
    const Outcome o = run_with({"list"}, [](const Request&, std::ostream& out) -> int {
        out << "partial\n";
        throw rblk::KernelError(ENOENT, "no controller with that name", "ctrl_name");
    });
    EXPECT_EQ(o.code, kExitFailure);
    EXPECT_EQ(o.out, "partial\n");
    EXPECT_EQ(o.err, "rblkctl: no controller with that name (attribute: ctrl_name)\n");
    EXPECT_EQ(run_with({"list"}, [](const Request&, std::ostream&) -> int {
                  throw std::runtime_error("apply: 1 of 3 sessions failed");
              }).code,
              kExitFailure);
    // A command's own failure status passes through.
    EXPECT_EQ(run_with({"list"}, [](const Request&, std::ostream&) { return kExitFailure; }).code,
              kExitFailure);
}

TEST(ExitCodes, ModuleNotLoadedHasItsOwnCode)
{
    const Outcome o = run_with({"list"}, [](const Request&, std::ostream&) -> int {
        throw rblk::ModuleNotLoaded();
    });
    EXPECT_EQ(o.code, kExitModuleNotLoaded);
    EXPECT_EQ(o.err, "rblkctl: rblk kernel module is not loaded; run: modprobe rblk\n");
}

// ---- 2. typos ------------------------------------------------------------------

TEST(Suggest, EditDistanceCountsTranspositionsOnce)
{
    EXPECT_EQ(edit_distance("list", "list"), 0u);
    EXPECT_EQ(edit_distance("lsit", "list"), 1u);  // one transposition
    EXPECT_EQ(edit_distance("lst", "list"), 1u);
    EXPECT_EQ(edit_distance("lisst", "list"), 1u);
    EXPECT_EQ(edit_distance("shwo", "show"), 1u);
    EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
    EXPECT_EQ(edit_distance("", "abc"), 3u);
    EXPECT_EQ(edit_distance("abc", ""), 3u);
}

TEST(Suggest, ClosestWithinTwoEditsOrNothing)
{
    const std::vector<std::string> subs = {"connect", "disconnect", "list", "show", "stats"};
    EXPECT_EQ(closest("lsit", subs), "list");
    EXPECT_EQ(closest("disconect", subs), "disconnect");
    EXPECT_EQ(closest("stat", subs), "stats");
    EXPECT_EQ(closest("frobnicate", subs), std::nullopt);
    EXPECT_EQ(closest("x", subs), std::nullopt);  // fewer edits than it has letters
}

TEST(Typos, UnknownCommandGetsOneLineWithAHint)
{
    EXPECT_EQ(parse_error({"lsit"}), "unknown command 'lsit'; did you mean 'list'?");
    EXPECT_EQ(parse_error({"disconect"}), "unknown command 'disconect'; did you mean 'disconnect'?");
    EXPECT_EQ(parse_error({"frobnicate"}), "unknown command 'frobnicate'");
    EXPECT_EQ(parse_error({"lsit", "--json"}),
              "unknown command 'lsit'; did you mean 'list'? (not expected either: --json)");
    const Outcome o = run_with({"lsit"}, succeeds);
    EXPECT_EQ(o.code, kExitUsage);
    EXPECT_EQ(o.err, "rblkctl: unknown command 'lsit'; did you mean 'list'?\n");
}

TEST(Typos, UnknownOptionGetsAHintFromItsSubcommand)
{
    // Before "--nqn is required": the typo is what the user needs to see.
    EXPECT_EQ(parse_error({"connect", "-a", "10.0.0.1", "--nqm", "nqn.x"}),
              "unknown option '--nqm'; did you mean '--nqn'?");
    EXPECT_EQ(parse_error({"connect", "-a", "10.0.0.1", "--nqm=nqn.x"}),
              "unknown option '--nqm'; did you mean '--nqn'?");
    EXPECT_EQ(parse_error({"stats", "rblk0", "--wacth"}),
              "unknown option '--wacth'; did you mean '--watch'?");
    EXPECT_EQ(parse_error({"connect", "-a", "10.0.0.1", "-n", "nqn.x", "--bogus"}),
              "unknown option '--bogus'");
    EXPECT_EQ(parse_error({"list", "-x"}), "unknown option '-x'");
    EXPECT_EQ(parse_error({"--verison"}), "unknown option '--verison'; did you mean '--version'?");
    EXPECT_EQ(parse_error({"show", "rblk0", "rblk1"}), "unexpected argument 'rblk1'");
}

TEST(Typos, SeveralUnknownArgumentsKeepTheOrderTyped)
{
    // CLI11's ExtrasError lists them in reverse.
    EXPECT_EQ(parse_error({"list", "--first", "--second", "-t", "fourth"}),
              "unknown option '--first' (not expected either: --second -t fourth)");
    // A word after an unknown long option is taken as its value.
    EXPECT_EQ(parse_error({"list", "--first", "1", "--second=2", "third"}),
              "unknown option '--first' (not expected either: --second=2 third)");
}

// ---- 3. errors name what the user typed ----------------------------------------

// Each field of validate() as its option: cli_test.cpp's BadValuesGetSpecificMessages.
TEST(TheirTerms, FieldsAreSpelledAsTheOptions)
{
    EXPECT_EQ(parse_error(connect_with({"-T", "300"})),
              "--tos 300 is out of range (-1..255, -1 = the transport's default)");
    EXPECT_EQ(parse_error(connect_with({"-c", "20", "-l", "10"})),
              "--reconnect-delay 20 exceeds --ctrl-loss-tmo 10");
    // Only the default of the other one: printed as a number, not an option's text.
    EXPECT_EQ(parse_error(connect_with({"-c", "700"})),
              "--reconnect-delay 700 exceeds --ctrl-loss-tmo 600");
    EXPECT_EQ(parse_error(connect_with({"-w", "10.0.0.9 tos"})),
              "--host-traddr '10.0.0.9 tos' is not an IPv4 or IPv6 address literal");
}

TEST(TheirTerms, NumbersAsTypedNotClamped)
{
    EXPECT_EQ(parse_error(connect_with({"-i", "999999999999999999999"})),
              "--nr-io-queues 999999999999999999999 is out of range (1..128)");
    EXPECT_EQ(parse_error(connect_with({"-s", "-99999999999999999999"})),
              "--trsvcid -99999999999999999999 is out of range (1..65535)");
    EXPECT_EQ(parse_error(connect_with({"--queue-size", "0x800"})),
              "--queue-size 0x800 is out of range (16..1024)");
}

TEST(TheirTerms, InDiscoverAndMonitorToo)
{
    EXPECT_EQ(parse_error({"discover", "-a", "10.0.0.1", "-s", "70000"}),
              "--trsvcid 70000 is out of range (1..65535)");
    EXPECT_EQ(parse_error({"monitor", "-Q", "1"}), "--queue-size 1 is out of range (16..1024)");
}

TEST(TheirTerms, WatchRangeIsWords)
{
    EXPECT_EQ(parse_error({"stats", "rblk0", "--watch", "0"}),
              "--watch: 0 is out of range (must be greater than 0)");
    EXPECT_EQ(parse_error({"stats", "rblk0", "--watch", "-2"}),
              "--watch: -2 is out of range (must be greater than 0)");
    EXPECT_EQ(parse_error({"stats", "rblk0", "--watch", "soon"}),
              "--watch: 'soon' is not a number of seconds");
    EXPECT_EQ(parse_error({"stats", "rblk0", "--watch", "inf"}),
              "--watch: inf is out of range (must be greater than 0)");
}

// ---- 4. help shows every default -----------------------------------------------

std::string help_of(const std::string& sub)
{
    const Outcome o = run_with({sub, "--help"}, succeeds);
    EXPECT_EQ(o.code, kExitOk);
    return o.out;
}

TEST(Help, ConnectShowsEveryDefault)
{
    const std::string h = help_of("connect");
    for (const char* d : {"--transport TEXT=rdma", "--trsvcid INT=4420",
                          "--nr-io-queues INT=one per CPU", "--nr-write-queues INT=0",
                          "--nr-poll-queues INT=0", "--queue-size INT=128",
                          "--keep-alive-tmo INT=5", "--reconnect-delay INT=10",
                          "--ctrl-loss-tmo INT=600", "--fast_io_fail_tmo INT=-1", "--tos INT=-1",
                          "default: /etc/nvme/hostnqn", "default: /etc/nvme/hostid"})
        EXPECT_NE(h.find(d), std::string::npos) << d << " in\n" << h;
}

TEST(Help, DefaultsAreNotSent)
{
    // Shown, not applied: unset options leave the kernel's defaults.
    auto cli = parse(kConnect);
    EXPECT_FALSE(cli->request().connect.queue_size.has_value());
    EXPECT_FALSE(cli->request().connect.nr_io_queues.has_value());
    EXPECT_FALSE(cli->request().connect.tos.has_value());
}

// ---- 6. names --------------------------------------------------------------------

TEST(Names, ControllerDiskOrDevPath)
{
    EXPECT_EQ(controller_name("rblk0"), "rblk0");
    EXPECT_EQ(controller_name("rblk12"), "rblk12");
    EXPECT_EQ(controller_name("rblk0n1"), "rblk0");
    EXPECT_EQ(controller_name("rblk3n15p2"), "rblk3");
    EXPECT_EQ(controller_name("/dev/rblk0n1"), "rblk0");
    EXPECT_EQ(controller_name("/dev/rblk7"), "rblk7");
    EXPECT_EQ(controller_name("/dev/./rblk2n1"), "rblk2");
    // A multipath path disk names the controller of its path, c<N>.
    EXPECT_EQ(controller_name("rblk2c5n1"), "rblk5");
    EXPECT_EQ(controller_name("/sys/block/rblk2c5n1"), std::nullopt);
    for (const char* bad : {"", "rblk", "rblkX", "rblk0n", "rblk0x1", "nvme0n1", "sda", "rblk0n1 ",
                            "/tmp/rblk0n1", "/dev/sda", "/dev/../etc/rblk0", "dev/rblk0",
                            "/dev/disk/rblk0n1", "rblk2c5", "rblk2c5n1p1", "rblk2cn1"})
        EXPECT_EQ(controller_name(bad), std::nullopt) << bad;
}

TEST(Names, ShowStatsAndDisconnectMapADiskToItsController)
{
    EXPECT_EQ(parse({"show", "rblk0n1"})->request().name, "rblk0");
    EXPECT_EQ(parse({"stats", "/dev/rblk4n2"})->request().name, "rblk4");
    EXPECT_EQ(parse({"disconnect", "rblk1n1"})->request().name, "rblk1");
    EXPECT_EQ(parse({"show", "rblk2"})->request().name, "rblk2");
}

TEST(Names, AnythingElseIsAClearUsageError)
{
    const std::string why =
        "name: 'sda' is not a controller (rblk0), a disk (rblk0n1) or a /dev path of one";
    EXPECT_EQ(parse_error({"show", "sda"}), why);
    EXPECT_EQ(parse_error({"stats", "/tmp/rblk0"}),
              "name: '/tmp/rblk0' is not a controller (rblk0), a disk (rblk0n1) or a /dev path "
              "of one");
    EXPECT_EQ(parse_error({"disconnect", "nvme0n1"}),
              "name: 'nvme0n1' is not a controller (rblk0), a disk (rblk0n1) or a /dev path of "
              "one");
}

}  // namespace
}  // namespace rblkctl
