// The kernel-bypass path on the command line: rblkctl read/write --path
// bypass and bench --path bypass parse into the Request run() carries out,
// and every mistake is one line (a usage error) before anything connects.
#include "cli_parse.hpp"

#include <gtest/gtest.h>

namespace rblkctl {
namespace {

using test::parse;
using test::parse_error;

const std::vector<std::string> kRead = {"read", "--path", "bypass", "-a", "10.99.0.1", "-n", "nqn.sub",
                                        "--length", "4096"};

std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& extra)
{
    base.insert(base.end(), extra.begin(), extra.end());
    return base;
}

TEST(BypassIo, ReadAndWriteParse)
{
    auto cli = parse(with(kRead, {"--offset", "8192", "--data", "/tmp/x", "--nsid", "2", "--event", "-s", "4421"}));
    const Request& r = cli->request();
    EXPECT_EQ(Command::Read, r.command);
    EXPECT_EQ("bypass", r.bypass_io.path);
    EXPECT_EQ(8192u, r.bypass_io.offset);
    EXPECT_EQ(4096u, r.bypass_io.length.value_or(0));
    EXPECT_EQ("/tmp/x", r.bypass_io.data);
    EXPECT_EQ(2, r.bypass_io.nsid);
    EXPECT_TRUE(r.bypass_io.event);
    EXPECT_FALSE(r.bypass_io.copy);
    EXPECT_EQ("10.99.0.1", r.connect.traddr);
    EXPECT_EQ(4421, r.connect.trsvcid);
    EXPECT_EQ("nqn.sub", r.connect.subnqn);

    auto w = parse({"write", "--path", "bypass", "-a", "10.99.0.1", "-n", "nqn.sub", "--data", "/tmp/x",
                    "--copy", "-l", "30", "-F", "5"});
    EXPECT_EQ(Command::Write, w->request().command);
    EXPECT_FALSE(w->request().bypass_io.length);  // the file's size
    EXPECT_TRUE(w->request().bypass_io.copy);
    EXPECT_EQ(30, w->request().connect.ctrl_loss_tmo.value_or(0));
    EXPECT_EQ(5, w->request().connect.fast_io_fail_tmo.value_or(0));
}

TEST(BypassIo, MistakesAreOneLine)
{
    EXPECT_EQ("--path: kernel not in {bypass}",
              parse_error({"read", "--path", "kernel", "-a", "1.2.3.4", "-n", "nqn.x", "--length", "1"}));
    EXPECT_EQ("--path is required", parse_error({"read", "-a", "1.2.3.4", "-n", "nqn.x", "--length", "1"}));
    EXPECT_EQ("--length is required", parse_error({"read", "--path", "bypass", "-a", "1.2.3.4", "-n", "nqn.x"}));
    EXPECT_EQ("--length is required when writing standard input",
              parse_error({"write", "--path", "bypass", "-a", "1.2.3.4", "-n", "nqn.x"}));
    EXPECT_EQ("--length must be positive",
              parse_error({"read", "--path", "bypass", "-a", "1.2.3.4", "-n", "nqn.x", "--length", "0"}));
    EXPECT_EQ("--offset: '-512' is not a size (e.g. 4k, 64m, 1g)", parse_error(with(kRead, {"--offset", "-512"})));
    EXPECT_EQ("--nsid 0 is out of range (1..4294967294)", parse_error(with(kRead, {"--nsid", "0"})));
    EXPECT_EQ("--nsid 4294967295 is out of range (1..4294967294)",
              parse_error(with(kRead, {"--nsid", "4294967295"})));
    // connect's own rules, in the same words.
    EXPECT_EQ("--queue-size 1 is out of range (16..1024)", parse_error(with(kRead, {"-Q", "1"})));
    // Options of connect that a single-queue read has no use for.
    EXPECT_NE("<parsed>", parse_error(with(kRead, {"--nr-poll-queues", "1"})));
}

// Sizes take bench's suffixes (one parser: rblk::bench::parse_size_option).
TEST(BypassIo, OffsetAndLengthTakeSizeSuffixes)
{
    auto cli = parse({"read", "--path", "bypass", "-a", "10.99.0.1", "-n", "nqn.sub", "--offset", "200m",
                      "--length", "8m"});
    EXPECT_EQ(200u << 20, cli->request().bypass_io.offset);
    EXPECT_EQ(8u << 20, cli->request().bypass_io.length.value_or(0));
    auto w = parse({"write", "--path", "bypass", "-a", "10.99.0.1", "-n", "nqn.sub", "--offset=1G",
                    "--length=4k", "--data", "/tmp/x"});
    EXPECT_EQ(std::uint64_t{1} << 30, w->request().bypass_io.offset);
    EXPECT_EQ(4096u, w->request().bypass_io.length.value_or(0));
    EXPECT_EQ(std::uint64_t{3} << 40, parse(with(kRead, {"--offset", "3t"}))->request().bypass_io.offset);
    EXPECT_EQ(4096u, parse(with(kRead, {"--offset", "4096"}))->request().bypass_io.offset);
    EXPECT_EQ(0u, parse(kRead)->request().bypass_io.offset);  // the default
}

TEST(BypassIo, ABadSizeIsOneLineInTheWordsOfEveryCommand)
{
    EXPECT_EQ("--offset: '200x' is not a size (e.g. 4k, 64m, 1g)", parse_error(with(kRead, {"--offset", "200x"})));
    EXPECT_EQ("--length: '8 m' is not a size (e.g. 4k, 64m, 1g)", parse_error({"read", "--path", "bypass", "-a", "1.2.3.4", "-n", "nqn.x", "--length", "8 m"}));
    EXPECT_EQ("--length: '1.5m' is not a size (e.g. 4k, 64m, 1g)",
              parse_error({"write", "--path", "bypass", "-a", "1.2.3.4", "-n", "nqn.x", "--length", "1.5m"}));
    EXPECT_EQ("--offset: '20000000p' is too large (at most 18446744073709551615 bytes)",
              parse_error(with(kRead, {"--offset", "20000000p"})));
    EXPECT_EQ("--offset: '18446744073709551616' is too large (at most 18446744073709551615 bytes)",
              parse_error(with(kRead, {"--offset", "18446744073709551616"})));
    // bench's size options, kernel and bypass path alike.
    EXPECT_EQ("--offset: '200x' is not a size (e.g. 4k, 64m, 1g)",
              parse_error({"bench", "--filename", "/tmp/f", "--rw", "read", "--offset", "200x"}));
    EXPECT_EQ("--size: '-1' is not a size (e.g. 4k, 64m, 1g)",
              parse_error({"bench", "--path", "bypass", "-a", "1.2.3.4", "-n", "nqn.x", "--rw", "read",
                           "--size", "-1"}));
}

TEST(BypassBench, OffsetOnBothPaths)
{
    auto b = parse({"bench", "--path", "bypass", "-a", "10.99.0.1", "-n", "nqn.sub", "--rw", "randread",
                    "--offset", "64m", "--size", "8m"});
    EXPECT_EQ("64m", b->request().bench.offset.value_or(""));
    EXPECT_EQ(64u << 20, rblk::bench::parse_options(b->request().bench).offset);
    auto k = parse({"bench", "--filename", "/dev/rblk0n1", "--rw", "read", "--offset", "1g"});
    EXPECT_EQ("1g", k->request().bench.offset.value_or(""));
    EXPECT_EQ("--offset must be a multiple of --bs (8k), got 4096",
              parse_error({"bench", "--path", "bypass", "-a", "1.2.3.4", "-n", "nqn.x", "--rw", "read",
                           "--bs", "8k", "--offset", "4k"}));
    EXPECT_EQ("--offset must be a multiple of --bs (4k), got 512",
              parse_error({"bench", "--filename", "/tmp/f", "--rw", "read", "--offset", "512"}));
}

TEST(BypassBench, ParsesAndNamesTheTarget)
{
    auto cli = parse({"bench", "--path", "bypass", "-a", "10.99.0.1", "-n", "nqn.sub", "--nsid", "3",
                      "--rw", "randread", "--numjobs", "2"});
    const Request& r = cli->request();
    EXPECT_EQ(Command::Bench, r.command);
    EXPECT_EQ("bypass", r.bench_path);
    EXPECT_EQ("nqn.sub@10.99.0.1:4420/ns3", r.bench.filename.value_or(""));
    EXPECT_EQ("kernel", parse({"bench", "--filename", "/tmp/f", "--rw", "read"})->request().bench_path);
    // --hipri: the bypass jobs busy-poll.
    EXPECT_TRUE(parse({"bench", "--path", "bypass", "-a", "1.2.3.4", "-n", "nqn.x", "--rw", "read", "--hipri"})
                    ->request()
                    .bench.hipri);
}

TEST(BypassBench, MistakesAreOneLine)
{
    EXPECT_EQ("--path bypass needs --traddr and --nqn",
              parse_error({"bench", "--path", "bypass", "-a", "10.99.0.1", "--rw", "read"}));
    EXPECT_EQ("--filename goes with --path kernel; --path bypass takes --traddr and --nqn",
              parse_error({"bench", "--path", "bypass", "-a", "1.2.3.4", "-n", "nqn.x", "--filename", "/tmp/f",
                           "--rw", "read"}));
    EXPECT_EQ("--traddr and --nqn go with --path bypass",
              parse_error({"bench", "-a", "1.2.3.4", "--filename", "/tmp/f", "--rw", "read"}));
    for (const char* flag : {"--direct", "--sqpoll"})
        EXPECT_EQ(std::string(flag) + " is io_uring's: not with --path bypass",
                  parse_error({"bench", "--path", "bypass", "-a", "1.2.3.4", "-n", "nqn.x", "--rw", "read", flag}));
    EXPECT_EQ("--path: nfs not in {kernel,bypass}",
              parse_error({"bench", "--path", "nfs", "--filename", "/tmp/f", "--rw", "read"}));
    // The bench's own rules still apply.
    EXPECT_NE("<parsed>", parse_error({"bench", "--path", "bypass", "-a", "1.2.3.4", "-n", "nqn.x", "--rw", "sideways"}));
}

}  // namespace
}  // namespace rblkctl
