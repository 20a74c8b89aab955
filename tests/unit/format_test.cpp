// rblkctl's human-readable output (format.hpp).
#include "format.hpp"

#include <gtest/gtest.h>

namespace rblkctl {
namespace {

rblk::ControllerInfo sample()
{
    rblk::ControllerInfo c;
    c.id = 0;
    c.name = "rblk0";
    c.state = rblk::CtrlState::Live;
    c.transport = "rdma";
    c.traddr = "10.99.0.1";
    c.trsvcid = 4420;
    c.subnqn = "nqn.sub";
    c.nr_io_queues = 2;
    c.queue_size = 128;
    c.namespaces = {{1, "rblk0n1", 1 << 20, 512}, {2, "rblk0n2", 1 << 21, 4096}};
    return c;
}

TEST(Format, AlignTablePadsColumnsToTheWidestCell)
{
    EXPECT_EQ(align_table({{"A", "BB", "C"}, {"aaa", "b", "c"}}),
              "A    BB  C\n"
              "aaa  b   c\n");
}

TEST(Format, ListHasAHeaderAndOneRowPerController)
{
    EXPECT_EQ(format_list({}), "NAME  STATE  ANA  TRANSPORT  TRADDR  TRSVCID  QUEUES  QSIZE  "
                               "SUBSYS  SUBNQN  DEVICES  SIZE\n");
    const std::string out = format_list({sample()});
    EXPECT_EQ(out,
              "NAME   STATE  ANA  TRANSPORT  TRADDR     TRSVCID  QUEUES  QSIZE  SUBSYS  "
              "SUBNQN   DEVICES                    SIZE\n"
              "rblk0  live   -    rdma       10.99.0.1  4420     2       128    -       "
              "nqn.sub  /dev/rblk0n1,/dev/rblk0n2  1.0M,2.0M\n");
}

TEST(Format, ListSizeIsADashWithoutDisks)
{
    rblk::ControllerInfo disc = sample();
    disc.discovery = true;
    disc.namespaces.clear();
    const std::string out = format_list({disc});
    EXPECT_NE(out.find("nqn.sub (discovery)  -        -\n"), std::string::npos) << out;
}

TEST(Format, HumanSizeIsLsblkLike)
{
    EXPECT_EQ(human_size(0), "0B");
    EXPECT_EQ(human_size(512), "512B");
    EXPECT_EQ(human_size(1023), "1023B");
    EXPECT_EQ(human_size(1024), "1.0K");
    EXPECT_EQ(human_size(1536), "1.5K");
    EXPECT_EQ(human_size(16ull << 20), "16.0M");
    EXPECT_EQ(human_size(32ull << 20), "32.0M");
    EXPECT_EQ(human_size(1ull << 30), "1.0G");
    EXPECT_EQ(human_size((1ull << 30) - 1), "1.0G");  // not "1024.0M"
    EXPECT_EQ(human_size(3ull << 40), "3.0T");
    EXPECT_EQ(human_size(~0ull), "16.0E");
}

TEST(Format, ListSplitsTheQueuesWhenThereAreWriteOrPollQueues)
{
    rblk::ControllerInfo both = sample();
    both.name = "rblk1";
    both.nr_write_queues = 1;
    both.nr_poll_queues = 1;
    rblk::ControllerInfo poll = sample();
    poll.name = "rblk2";
    poll.nr_poll_queues = 12;
    both.id = 1;
    poll.id = 2;
    const std::string out = format_list({sample(), both, poll});
    EXPECT_NE(out.find("QUEUES       QSIZE"), std::string::npos) << out;
    EXPECT_NE(out.find("rblk0  live   -    rdma       10.99.0.1  4420     2            128"),
              std::string::npos) << out;
    EXPECT_NE(out.find("rblk1  live   -    rdma       10.99.0.1  4420     4 (2+1w+1p)  128"),
              std::string::npos) << out;
    EXPECT_NE(out.find("rblk2  live   -    rdma       10.99.0.1  4420     14 (2+12p)   128"),
              std::string::npos) << out;
}

// Subsystem 5 reached through rblk5 and rblk9 (multipath, one head
// rblk5n1), and rblk6, a subsystem of its own without ANA.
std::vector<rblk::ControllerInfo> paths()
{
    rblk::ControllerInfo a = sample();
    a.id = 5;
    a.name = "rblk5";
    a.subsys_id = 5;
    a.multipath = true;
    a.iopolicy = rblk::Iopolicy::QueueDepth;
    a.hostnqn = "nqn.host";
    a.namespaces = {{1, "rblk5n1", 1 << 20, 512, "rblk5c5n1", rblk::AnaState::Optimized, 1}};
    rblk::ControllerInfo b = a;
    b.id = 9;
    b.name = "rblk9";
    b.traddr = "10.98.0.1";
    b.host_traddr = "10.98.0.2";
    b.namespaces = {{1, "rblk5n1", 1 << 20, 512, "rblk5c9n1", rblk::AnaState::NonOptimized, 2}};
    rblk::ControllerInfo c = sample();
    c.id = 6;
    c.name = "rblk6";
    c.subsys_id = 6;
    c.subnqn = "nqn.other";
    c.namespaces = {{1, "rblk6n1", 1 << 20, 512}};
    return {b, c, a};
}

TEST(Format, ListGroupsPathsBySubsystemWithTheirAnaState)
{
    EXPECT_EQ(format_list(paths()),
              "NAME   STATE  ANA            TRANSPORT  TRADDR     TRSVCID  QUEUES  QSIZE  "
              "SUBSYS        SUBNQN     DEVICES       SIZE\n"
              "rblk5  live   optimized      rdma       10.99.0.1  4420     2       128    "
              "rblk-subsys5  nqn.sub    /dev/rblk5n1  1.0M\n"
              "rblk9  live   non-optimized  rdma       10.98.0.1  4420     2       128    "
              "rblk-subsys5  nqn.sub    /dev/rblk5n1  1.0M\n"
              "rblk6  live   -              rdma       10.99.0.1  4420     2       128    "
              "rblk-subsys6  nqn.other  /dev/rblk6n1  1.0M\n");
}

TEST(Format, ListAnaOfNamespacesInDifferentStates)
{
    rblk::ControllerInfo c = paths().back();
    c.namespaces.push_back({2, "rblk5n2", 1 << 20, 512, "rblk5c5n2", rblk::AnaState::Change, 3});
    c.namespaces.push_back({3, "rblk5n3", 1 << 20, 512, "rblk5c5n3", std::nullopt, std::nullopt});
    EXPECT_EQ(rblk::path_ana_summary(c), "optimized,change,-");
}

TEST(Format, ListSubsysIsNvmeClisTree)
{
    EXPECT_EQ(format_list_subsys(paths()),
              "rblk-subsys5 - NQN=nqn.sub\n"
              "               hostnqn=nqn.host\n"
              "               iopolicy=queue-depth\n"
              "\\\n"
              " +- rblk5 rdma traddr=10.99.0.1,trsvcid=4420 live optimized\n"
              " +- rblk9 rdma traddr=10.98.0.1,trsvcid=4420,host_traddr=10.98.0.2 live "
              "non-optimized\n"
              "rblk-subsys6 - NQN=nqn.other\n"
              "               hostnqn=\n"
              "               iopolicy=-\n"
              "\\\n"
              " +- rblk6 rdma traddr=10.99.0.1,trsvcid=4420 live\n");
}

TEST(Format, ConnectedPrintsNameThenDevices)
{
    EXPECT_EQ(format_connected(sample()), "rblk0\n/dev/rblk0n1\n/dev/rblk0n2\n");
    rblk::ControllerInfo bare = sample();
    bare.namespaces.clear();
    EXPECT_EQ(format_connected(bare), "rblk0\n");
}

TEST(Format, ShowListsFieldsAndNamespaces)
{
    const std::string out = format_show(sample());
    EXPECT_NE(out.find("state:             live\n"), std::string::npos) << out;
    EXPECT_NE(out.find("hostnqn:           -\n"), std::string::npos) << out;
    EXPECT_NE(out.find("nr_io_queues:      2\nnr_write_queues:   0\nnr_poll_queues:    0\n"),
              std::string::npos)
        << out;
    rblk::ControllerInfo split = sample();
    split.nr_write_queues = 3;
    split.nr_poll_queues = 1;
    const std::string with = format_show(split);
    EXPECT_NE(with.find("nr_io_queues:      2\nnr_write_queues:   3\nnr_poll_queues:    1\n"),
              std::string::npos)
        << with;
    EXPECT_NE(out.find("NSID  DEVICE        SIZE_BYTES  LBA_SIZE\n"), std::string::npos) << out;
    EXPECT_NE(out.find("2     /dev/rblk0n2  2097152     4096\n"), std::string::npos) << out;
}

TEST(Format, ShowTimesHaveUnitsAndOff)
{
    rblk::ControllerInfo c = sample();
    c.kato = 5;
    c.reconnect_delay = 10;
    c.ctrl_loss_tmo = 600;
    c.fast_io_fail_tmo = -1;
    c.state_since_ms = 12345;
    c.next_reconnect_ms = 4200;
    c.loss_deadline_ms = 587000;
    const std::string out = format_show(c);
    for (const char* line : {"kato:              5 s\n", "reconnect_delay:   10 s\n",
                             "ctrl_loss_tmo:     600 s\n", "fast_io_fail_tmo:  off\n",
                             "state since:       12.3 s ago\n", "next reconnect:    in 4.2 s\n",
                             "loss deadline:     in 587.0 s\n"})
        EXPECT_NE(out.find(line), std::string::npos) << line << " in\n" << out;

    rblk::ControllerInfo forever = sample();
    forever.kato = 0;  // discovery controllers: no keep-alive
    forever.ctrl_loss_tmo = -1;
    forever.fast_io_fail_tmo = 30;
    const std::string f = format_show(forever);
    for (const char* line : {"kato:              off\n", "ctrl_loss_tmo:     off\n",
                             "fast_io_fail_tmo:  30 s\n", "state since:       -\n",
                             "next reconnect:    -\n", "loss deadline:     -\n"})
        EXPECT_NE(f.find(line), std::string::npos) << line << " in\n" << f;
    EXPECT_EQ(f.find("-1"), std::string::npos) << f;
}

TEST(Format, StatsShowsEveryCounter)
{
    rblk::ControllerInfo c = sample();
    c.stats = rblk::CtrlStats{10, 20, 4096, 8192, 1, 2, 3};
    const std::string out = format_stats(c);
    for (const char* line : {"reads:        10\n", "writes:       20\n", "read_bytes:   4096\n",
                             "write_bytes:  8192\n", "errors:       1\n", "reconnects:   2\n",
                             "inflight:     3\n"})
        EXPECT_NE(out.find(line), std::string::npos) << line << " in\n" << out;
    EXPECT_EQ(out.rfind("name:         rblk0\n", 0), 0u) << out;
    EXPECT_EQ(out.find("state"), std::string::npos) << out;
}

TEST(Format, WatchRowsLineUpUnderTheHeader)
{
    rblk::ControllerInfo c = sample();
    c.stats = rblk::CtrlStats{10, 20, 4096, 8192, 1, 2, 3};
    rblk::StatsRates r;
    r.seconds = 1;
    r.read_iops = 1234.4;
    r.write_iops = 10;
    r.read_bytes_per_s = 3 * 1048576.0;
    r.write_bytes_per_s = 1048576.0 / 4;
    const std::string header = format_stats_header();
    const std::string row = format_stats_row(c, r);
    EXPECT_EQ(header,
              "NAME          IOPS    R_IOPS    W_IOPS     MiB/s   R_MiB/s   W_MiB/s  INFLIGHT "
              " ERRORS  RECONNECTS\n");
    EXPECT_EQ(row,
              "rblk0         1244      1234        10      3.25      3.00      0.25         3 "
              "      1           2\n");
    // Every column ends where its header ends.
    EXPECT_EQ(header.size(), row.size());
}

TEST(Format, SessionLineBracketsIpv6)
{
    EXPECT_EQ(format_session("rblk0", "nqn.s", "10.0.0.1", 4420, "connected"),
              "rblk0  nqn.s  10.0.0.1:4420  connected");
    EXPECT_EQ(format_session("", "nqn.s", "fd00::1", 4421, "failed: no route"),
              "-  nqn.s  [fd00::1]:4421  failed: no route");
}

TEST(Format, EventLine)
{
    rblk::StateEvent e{4, "rblk4", rblk::CtrlState::Resetting, rblk::CtrlState::Live};
    EXPECT_EQ(format_event(e), "rblk4: live -> resetting");
}

TEST(Format, ModuleEvents)
{
    EXPECT_EQ(format_module_event(rblk::FamilyNotice{false, 33, std::nullopt}),
              "rblk module unloaded");
    EXPECT_EQ(format_module_event(rblk::FamilyNotice{true, 37, 9}),
              "rblk module loaded (family id 37)");
}

}  // namespace
}  // namespace rblkctl
