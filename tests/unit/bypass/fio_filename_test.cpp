// The fio engine's filename (userlib/initiator/fio/fio_filename.hpp): SPDK's
// key=value words, fio's escaped colons, and one line for each mistake.
#include "fio_filename.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace {

using rblk::fio::parse_filename;

std::string error_of(const std::string& spec)
{
    try {
        parse_filename(spec);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

TEST(FioFilename, SpdkSpelling)
{
    const auto co = parse_filename(
        "trtype=RDMA adrfam=IPv4 traddr=10.99.0.1 trsvcid=4421 subnqn=nqn.2024-01.io.rblk:fio ns=2");
    EXPECT_EQ(co.connect.transport, "rdma");
    EXPECT_EQ(co.connect.traddr, "10.99.0.1");
    EXPECT_EQ(co.connect.trsvcid, 4421);
    EXPECT_EQ(co.connect.subnqn, "nqn.2024-01.io.rblk:fio");
    EXPECT_EQ(co.nsid, 2u);
    EXPECT_EQ(co.connect.nr_io_queues, 1);
    EXPECT_FALSE(co.connect.hostnqn.has_value());
}

TEST(FioFilename, DefaultsAndHostIdentity)
{
    const auto co = parse_filename("traddr=10.0.0.1 subnqn=nqn.x:y hostnqn=nqn.h:1 "
                                   "hostid=01234567-89ab-cdef-0123-456789abcdef");
    EXPECT_EQ(co.connect.trsvcid, 4420);
    EXPECT_EQ(co.nsid, 1u);
    EXPECT_EQ(co.connect.hostnqn.value_or(""), "nqn.h:1");
    EXPECT_EQ(co.connect.hostid.value_or(""), "01234567-89ab-cdef-0123-456789abcdef");
    EXPECT_FALSE(co.connect.reconnect_delay.has_value());
    EXPECT_FALSE(co.connect.ctrl_loss_tmo.has_value());
}

TEST(FioFilename, ReconnectTimeoutsAsNvmeCliNamesThem)
{
    const auto co = parse_filename("traddr=10.0.0.1 subnqn=n reconnect_delay=1 ctrl_loss_tmo=-1 fast_io_fail_tmo=5");
    EXPECT_EQ(co.connect.reconnect_delay.value_or(0), 1);
    EXPECT_EQ(co.connect.ctrl_loss_tmo.value_or(0), -1);
    EXPECT_EQ(co.connect.fast_io_fail_tmo.value_or(0), 5);
    EXPECT_EQ(error_of("traddr=1.2.3.4 subnqn=n reconnect_delay=-1"), "reconnect_delay=-1: not a number");
    EXPECT_EQ(error_of("traddr=1.2.3.4 subnqn=n ctrl_loss_tmo=-2"), "ctrl_loss_tmo=-2: not a number");
}

TEST(FioFilename, EscapedColonsAndSpaces)
{
    // What is left when fio did not unescape (a job file's own backslashes).
    const auto co = parse_filename("  trtype=rdma   traddr=fe80\\:\\:1%veth0 subnqn=nqn.a\\:b\\:c nsid=3 ");
    EXPECT_EQ(co.connect.traddr, "fe80::1%veth0");
    EXPECT_EQ(co.connect.subnqn, "nqn.a:b:c");
    EXPECT_EQ(co.nsid, 3u);
}

TEST(FioFilename, OneLineForEachMistake)
{
    EXPECT_EQ(error_of(""), "empty filename: give 'trtype=rdma traddr=A trsvcid=P subnqn=N ns=1'");
    EXPECT_EQ(error_of("trtype=tcp traddr=1.2.3.4 subnqn=n"), "trtype=tcp: only rdma is supported");
    EXPECT_EQ(error_of("adrfam=IB traddr=1.2.3.4 subnqn=n"), "adrfam=IB: expected IPv4 or IPv6");
    EXPECT_EQ(error_of("traddr=1.2.3.4 subnqn=n ns=x"), "ns=x: not a number");
    EXPECT_EQ(error_of("traddr=1.2.3.4 subnqn=n ns=0"), "ns=0: a namespace ID is 1..4294967294");
    EXPECT_EQ(error_of("traddr=1.2.3.4 subnqn=n trsvcid=-1"), "trsvcid=-1: not a number");
    EXPECT_EQ(error_of("traddr=1.2.3.4 subnqn=n /dev/nvme0n1"), "'/dev/nvme0n1': expected key=value");
    EXPECT_EQ(error_of("traddr=1.2.3.4 subnqn=n qd=4"),
              "unknown key 'qd' (trtype traddr trsvcid subnqn ns hostnqn hostid adrfam reconnect_delay "
              "ctrl_loss_tmo fast_io_fail_tmo)");
    EXPECT_EQ(error_of("subnqn=n"), "no traddr= in the filename");
    EXPECT_EQ(error_of("traddr=1.2.3.4"), "no subnqn= in the filename");
}

}  // namespace
