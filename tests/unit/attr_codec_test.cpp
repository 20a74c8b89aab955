// Round trips through the attribute encoder/decoders (rblk/attr_codec.hpp).
#include "genl_test_msg.hpp"

#include <rblk/attr_codec.hpp>
#include <rblk/attr_names.hpp>
#include <rblk/error.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace rblk {
namespace {

using test::genl_msg;
using test::put_namespace;
using test::put_u64_padded;

struct Parsed {
    nlattr* tb[RBLK_ATTR_MAX + 1] = {};
};

Parsed parse_all(nl_msg* msg)
{
    Parsed p;
    EXPECT_EQ(genlmsg_parse(nlmsg_hdr(msg), 0, p.tb, RBLK_ATTR_MAX, nullptr), 0);
    return p;
}

std::string str(nlattr* a) { return a ? nla_get_string(a) : "<absent>"; }

// A CONNECT built from @o, and its attributes (which point into msg).
struct Connect {
    decltype(genl_msg(RBLK_CMD_CONNECT)) msg;
    Parsed p;
};

Connect encode_connect(const ConnectOptions& o)
{
    Connect c{genl_msg(RBLK_CMD_CONNECT), {}};
    put_connect_attrs(c.msg.get(), o);
    c.p = parse_all(c.msg.get());
    return c;
}

ConnectOptions minimal(const char* subnqn = "s")
{
    ConnectOptions o;
    o.traddr = "10.0.0.1";
    o.subnqn = subnqn;
    return o;
}

TEST(ConnectAttrs, EveryOptionRoundTrips)
{
    ConnectOptions o;
    o.traddr = "fe80::1";
    o.trsvcid = 4421;
    o.subnqn = "nqn.2014-08.org.example:sub";
    o.hostnqn = "nqn.2014-08.org.example:host";
    o.hostid = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
    o.nr_io_queues = 4;
    o.nr_write_queues = 2;
    o.nr_poll_queues = 1;
    o.queue_size = 256;
    o.kato = 7;
    o.reconnect_delay = 3;
    o.ctrl_loss_tmo = -1;
    o.fast_io_fail_tmo = 20;
    o.duplicate_connect = true;
    o.host_traddr = "fe80::2";
    o.tos = 255;

    auto msg = genl_msg(RBLK_CMD_CONNECT);
    put_connect_attrs(msg.get(), o);
    Parsed p = parse_all(msg.get());

    EXPECT_EQ(str(p.tb[RBLK_ATTR_TRANSPORT]), "rdma");
    EXPECT_EQ(str(p.tb[RBLK_ATTR_TRADDR]), "fe80::1");
    ASSERT_NE(p.tb[RBLK_ATTR_TRSVCID], nullptr);
    EXPECT_EQ(nla_len(p.tb[RBLK_ATTR_TRSVCID]), 2);
    EXPECT_EQ(nla_get_u16(p.tb[RBLK_ATTR_TRSVCID]), 4421);
    EXPECT_EQ(str(p.tb[RBLK_ATTR_SUBNQN]), "nqn.2014-08.org.example:sub");
    EXPECT_EQ(str(p.tb[RBLK_ATTR_HOSTNQN]), "nqn.2014-08.org.example:host");
    ASSERT_NE(p.tb[RBLK_ATTR_HOSTID], nullptr);
    ASSERT_EQ(nla_len(p.tb[RBLK_ATTR_HOSTID]), RBLK_HOSTID_LEN);
    const std::array<std::uint8_t, 16> want = {0x0f, 0x1e, 0x2d, 0x3c, 0x4b, 0x5a, 0x69, 0x78,
                                               0x87, 0x96, 0xa5, 0xb4, 0xc3, 0xd2, 0xe1, 0xf0};
    EXPECT_EQ(std::memcmp(nla_data(p.tb[RBLK_ATTR_HOSTID]), want.data(), want.size()), 0);
    EXPECT_EQ(nla_get_u32(p.tb[RBLK_ATTR_NR_IO_QUEUES]), 4u);
    for (int t : {RBLK_ATTR_NR_WRITE_QUEUES, RBLK_ATTR_NR_POLL_QUEUES}) {
        ASSERT_NE(p.tb[t], nullptr) << "attribute " << t;
        EXPECT_EQ(nla_len(p.tb[t]), 4) << "attribute " << t;
    }
    EXPECT_EQ(nla_get_u32(p.tb[RBLK_ATTR_NR_WRITE_QUEUES]), 2u);
    EXPECT_EQ(nla_get_u32(p.tb[RBLK_ATTR_NR_POLL_QUEUES]), 1u);
    EXPECT_EQ(nla_get_u32(p.tb[RBLK_ATTR_QUEUE_SIZE]), 256u);
    EXPECT_EQ(nla_get_u32(p.tb[RBLK_ATTR_KATO]), 7u);
    EXPECT_EQ(nla_get_u32(p.tb[RBLK_ATTR_RECONNECT_DELAY]), 3u);
    EXPECT_EQ(nla_get_s32(p.tb[RBLK_ATTR_CTRL_LOSS_TMO]), -1);
    EXPECT_EQ(nla_get_s32(p.tb[RBLK_ATTR_FAST_IO_FAIL_TMO]), 20);
    ASSERT_NE(p.tb[RBLK_ATTR_DUPLICATE_CONNECT], nullptr);
    EXPECT_EQ(nla_len(p.tb[RBLK_ATTR_DUPLICATE_CONNECT]), 0);
    EXPECT_EQ(str(p.tb[RBLK_ATTR_HOST_TRADDR]), "fe80::2");
    ASSERT_NE(p.tb[RBLK_ATTR_TOS], nullptr);
    EXPECT_EQ(nla_len(p.tb[RBLK_ATTR_TOS]), 1);
    EXPECT_EQ(nla_get_u8(p.tb[RBLK_ATTR_TOS]), 255);
}

TEST(ConnectAttrs, DhchapSecretsAreSentAsGiven)
{
    ConnectOptions o = minimal();
    const Connect none = encode_connect(o);
    EXPECT_EQ(none.p.tb[RBLK_ATTR_DHCHAP_SECRET], nullptr);
    EXPECT_EQ(none.p.tb[RBLK_ATTR_DHCHAP_CTRL_SECRET], nullptr);

    o.dhchap_secret = "DHHC-1:00:aG9zdA==:";
    o.dhchap_ctrl_secret = "DHHC-1:01:Y3RybA==:";
    const Connect c = encode_connect(o);
    const Parsed& p = c.p;
    EXPECT_EQ(str(p.tb[RBLK_ATTR_DHCHAP_SECRET]), "DHHC-1:00:aG9zdA==:");
    EXPECT_EQ(str(p.tb[RBLK_ATTR_DHCHAP_CTRL_SECRET]), "DHHC-1:01:Y3RybA==:");
}

TEST(ConnectAttrs, DefaultTosIsNotSent)
{
    ConnectOptions o = minimal();
    o.tos = -1;
    const Connect c = encode_connect(o);
    const Parsed& p = c.p;
    EXPECT_EQ(p.tb[RBLK_ATTR_TOS], nullptr);
    EXPECT_EQ(p.tb[RBLK_ATTR_HOST_TRADDR], nullptr);
}

TEST(ConnectAttrs, ZeroWriteAndPollQueuesGivenAreSent)
{
    ConnectOptions o = minimal();
    o.nr_write_queues = 0;
    o.nr_poll_queues = 0;
    const Connect c = encode_connect(o);
    const Parsed& p = c.p;
    for (int t : {RBLK_ATTR_NR_WRITE_QUEUES, RBLK_ATTR_NR_POLL_QUEUES}) {
        ASSERT_NE(p.tb[t], nullptr) << "attribute " << t;
        EXPECT_EQ(nla_get_u32(p.tb[t]), 0u) << "attribute " << t;
    }
}

TEST(ConnectAttrs, UnsetOptionsAreNotSentSoKernelDefaultsApply)
{
    const Connect c = encode_connect(minimal("nqn.x"));
    const Parsed& p = c.p;
    EXPECT_EQ(nla_get_u16(p.tb[RBLK_ATTR_TRSVCID]), RBLK_DEFAULT_TRSVCID);
    for (int t : {RBLK_ATTR_HOSTNQN, RBLK_ATTR_HOSTID, RBLK_ATTR_NR_IO_QUEUES,
                  RBLK_ATTR_QUEUE_SIZE, RBLK_ATTR_KATO, RBLK_ATTR_RECONNECT_DELAY,
                  RBLK_ATTR_CTRL_LOSS_TMO, RBLK_ATTR_FAST_IO_FAIL_TMO,
                  RBLK_ATTR_DUPLICATE_CONNECT, RBLK_ATTR_NR_WRITE_QUEUES,
                  RBLK_ATTR_NR_POLL_QUEUES})
        EXPECT_EQ(p.tb[t], nullptr) << "attribute " << t;
}

// A controller message shaped like the kernel's GET_CTRL reply.
NlMsgPtr kernel_controller_msg()
{
    auto msg = genl_msg(RBLK_CMD_GET_CTRL);
    nl_msg* m = msg.get();
    EXPECT_EQ(nla_put_u32(m, RBLK_ATTR_CTRL_ID, 3), 0);
    EXPECT_EQ(nla_put_string(m, RBLK_ATTR_CTRL_NAME, "rblk3"), 0);
    EXPECT_EQ(nla_put_u8(m, RBLK_ATTR_STATE, RBLK_CTRL_LIVE), 0);
    EXPECT_EQ(nla_put_string(m, RBLK_ATTR_TRANSPORT, "rdma"), 0);
    EXPECT_EQ(nla_put_string(m, RBLK_ATTR_TRADDR, "10.99.0.1"), 0);
    EXPECT_EQ(nla_put_u16(m, RBLK_ATTR_TRSVCID, 4420), 0);
    EXPECT_EQ(nla_put_string(m, RBLK_ATTR_SUBNQN, "nqn.sub"), 0);
    EXPECT_EQ(nla_put_string(m, RBLK_ATTR_HOSTNQN, "nqn.host"), 0);
    const std::uint8_t hostid[16] = {0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0,
                                     0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};
    EXPECT_EQ(nla_put(m, RBLK_ATTR_HOSTID, sizeof(hostid), hostid), 0);
    EXPECT_EQ(nla_put_u32(m, RBLK_ATTR_NR_IO_QUEUES, 2), 0);
    EXPECT_EQ(nla_put_u32(m, RBLK_ATTR_QUEUE_SIZE, 128), 0);
    EXPECT_EQ(nla_put_u32(m, RBLK_ATTR_KATO, 5), 0);
    EXPECT_EQ(nla_put_u32(m, RBLK_ATTR_RECONNECT_DELAY, 10), 0);
    EXPECT_EQ(nla_put_s32(m, RBLK_ATTR_CTRL_LOSS_TMO, 600), 0);
    EXPECT_EQ(nla_put_s32(m, RBLK_ATTR_FAST_IO_FAIL_TMO, -1), 0);
    EXPECT_EQ(nla_put_u16(m, RBLK_ATTR_CNTLID, 17), 0);
    EXPECT_EQ(nla_put_string(m, RBLK_ATTR_MODEL, "Linux"), 0);
    EXPECT_EQ(nla_put_string(m, RBLK_ATTR_SERIAL, "abc123"), 0);
    EXPECT_EQ(nla_put_string(m, RBLK_ATTR_FIRMWARE, "6.1.0"), 0);
    put_u64_padded(m, RBLK_ATTR_STATE_SINCE_MS, 1234, RBLK_ATTR_PAD);
    nlattr* nss = nla_nest_start(m, RBLK_ATTR_NAMESPACES);
    put_namespace(m, 1, "rblk3n1", 1ull << 30, 512);
    put_namespace(m, 2, "rblk3n2", 5ull << 40, 4096);
    nla_nest_end(m, nss);
    return msg;
}

TEST(ControllerAttrs, KernelReplyDecodesEveryField)
{
    auto msg = kernel_controller_msg();
    const ControllerInfo c = parse_controller(nlmsg_hdr(msg.get()));
    EXPECT_EQ(c.id, 3u);
    EXPECT_EQ(c.name, "rblk3");
    EXPECT_EQ(c.state, CtrlState::Live);
    EXPECT_EQ(c.transport, "rdma");
    EXPECT_EQ(c.traddr, "10.99.0.1");
    EXPECT_EQ(c.trsvcid, 4420);
    EXPECT_EQ(c.subnqn, "nqn.sub");
    EXPECT_EQ(c.hostnqn, "nqn.host");
    EXPECT_EQ(c.hostid, "12345678-9abc-def0-0123-456789abcdef");
    EXPECT_EQ(c.nr_io_queues, 2u);
    EXPECT_EQ(c.queue_size, 128u);
    EXPECT_EQ(c.kato, 5u);
    EXPECT_EQ(c.reconnect_delay, 10u);
    EXPECT_EQ(c.ctrl_loss_tmo, 600);
    EXPECT_EQ(c.fast_io_fail_tmo, -1);
    EXPECT_EQ(c.cntlid, 17);
    EXPECT_EQ(c.model, "Linux");
    EXPECT_EQ(c.serial, "abc123");
    EXPECT_EQ(c.firmware, "6.1.0");
    EXPECT_EQ(c.state_since_ms, 1234u);
    EXPECT_FALSE(c.next_reconnect_ms.has_value());
    EXPECT_FALSE(c.loss_deadline_ms.has_value());
    EXPECT_FALSE(c.stats.has_value());
    EXPECT_EQ(c.host_traddr, "");  // absent: none given
    EXPECT_EQ(c.tos, -1);
    EXPECT_EQ(c.nr_write_queues, 0u);  // absent: none, or a module from before them
    EXPECT_EQ(c.nr_poll_queues, 0u);
    ASSERT_EQ(c.namespaces.size(), 2u);
    EXPECT_EQ(c.namespaces[0].nsid, 1u);
    EXPECT_EQ(c.namespaces[0].disk, "rblk3n1");
    EXPECT_EQ(c.namespaces[0].device(), "/dev/rblk3n1");
    EXPECT_EQ(c.namespaces[0].size_bytes, 1ull << 30);
    EXPECT_EQ(c.namespaces[0].lba_size, 512u);
    EXPECT_EQ(c.namespaces[1].nsid, 2u);
    EXPECT_EQ(c.namespaces[1].size_bytes, 5ull << 40);
    EXPECT_EQ(c.namespaces[1].lba_size, 4096u);
}

TEST(ControllerAttrs, HostTraddrAndTosDecode)
{
    auto msg = kernel_controller_msg();
    EXPECT_EQ(nla_put_string(msg.get(), RBLK_ATTR_HOST_TRADDR, "10.99.0.3"), 0);
    EXPECT_EQ(nla_put_u8(msg.get(), RBLK_ATTR_TOS, 32), 0);
    const ControllerInfo c = parse_controller(nlmsg_hdr(msg.get()));
    EXPECT_EQ(c.host_traddr, "10.99.0.3");
    EXPECT_EQ(c.tos, 32);
}

TEST(ControllerAttrs, WriteAndPollQueuesDecode)
{
    auto msg = kernel_controller_msg();
    EXPECT_EQ(nla_put_u32(msg.get(), RBLK_ATTR_NR_WRITE_QUEUES, 3), 0);
    EXPECT_EQ(nla_put_u32(msg.get(), RBLK_ATTR_NR_POLL_QUEUES, 1), 0);
    const ControllerInfo c = parse_controller(nlmsg_hdr(msg.get()));
    EXPECT_EQ(c.nr_io_queues, 2u);
    EXPECT_EQ(c.nr_write_queues, 3u);
    EXPECT_EQ(c.nr_poll_queues, 1u);

    auto narrow = genl_msg(RBLK_CMD_GET_CTRL);
    const std::uint8_t one = 1;
    ASSERT_EQ(nla_put(narrow.get(), RBLK_ATTR_NR_POLL_QUEUES, 1, &one), 0);  // u32 expected
    EXPECT_THROW(parse_controller(nlmsg_hdr(narrow.get())), Error);
}

TEST(ControllerAttrs, RequestedQueuesDecodeBesideTheGrantedOnes)
{
    // From a module before RBLK_ATTR_REQ_*: nothing requested is known.
    EXPECT_EQ(parse_controller(nlmsg_hdr(kernel_controller_msg().get())).requested,
              QueueRequest{});

    auto msg = kernel_controller_msg();  // granted: 2 I/O queues of 128
    EXPECT_EQ(nla_put_u32(msg.get(), RBLK_ATTR_REQ_NR_IO_QUEUES, 8), 0);
    EXPECT_EQ(nla_put_u32(msg.get(), RBLK_ATTR_REQ_NR_WRITE_QUEUES, 0), 0);
    EXPECT_EQ(nla_put_u32(msg.get(), RBLK_ATTR_REQ_NR_POLL_QUEUES, 1), 0);
    EXPECT_EQ(nla_put_u32(msg.get(), RBLK_ATTR_REQ_QUEUE_SIZE, 1024), 0);
    const ControllerInfo c = parse_controller(nlmsg_hdr(msg.get()));
    EXPECT_EQ(c.nr_io_queues, 2u);
    EXPECT_EQ(c.queue_size, 128u);
    EXPECT_EQ(c.requested.nr_io_queues, 8u);
    EXPECT_EQ(c.requested.nr_write_queues, 0u);
    EXPECT_EQ(c.requested.nr_poll_queues, 1u);
    EXPECT_EQ(c.requested.queue_size, 1024u);
}

TEST(ControllerAttrs, WithoutMultipathAttributesNothingIsShared)
{
    const ControllerInfo c = parse_controller(nlmsg_hdr(kernel_controller_msg().get()));
    EXPECT_FALSE(c.subsys_id.has_value());
    EXPECT_EQ(subsys_of(c), 3u);  // a subsystem of its own
    EXPECT_FALSE(c.multipath);
    EXPECT_FALSE(c.iopolicy.has_value());
    EXPECT_EQ(c.anatt, 0);
    EXPECT_EQ(c.namespaces[0].path_disk, "");
    EXPECT_FALSE(c.namespaces[0].ana_state.has_value());
    EXPECT_FALSE(c.namespaces[0].anagrpid.has_value());
}

TEST(ControllerAttrs, MultipathSubsystemIopolicyAndAnaDecode)
{
    auto msg = genl_msg(RBLK_CMD_GET_CTRL);
    nl_msg* m = msg.get();
    EXPECT_EQ(nla_put_u32(m, RBLK_ATTR_CTRL_ID, 7), 0);
    EXPECT_EQ(nla_put_u32(m, RBLK_ATTR_SUBSYS_ID, 2), 0);
    EXPECT_EQ(nla_put_flag(m, RBLK_ATTR_MULTIPATH), 0);
    EXPECT_EQ(nla_put_u8(m, RBLK_ATTR_IOPOLICY, RBLK_IOPOLICY_QUEUE_DEPTH), 0);
    EXPECT_EQ(nla_put_u8(m, RBLK_ATTR_ANATT, 10), 0);
    nlattr* nss = nla_nest_start(m, RBLK_ATTR_NAMESPACES);
    for (const auto& [nsid, state] : {std::pair{1u, RBLK_ANA_OPTIMIZED},
                                      std::pair{2u, RBLK_ANA_PERSISTENT_LOSS}}) {
        nlattr* entry = nla_nest_start(m, RBLK_NS_ATTR_ENTRY);
        EXPECT_EQ(nla_put_u32(m, RBLK_NS_ATTR_NSID, nsid), 0);
        const std::string head = "rblk2n" + std::to_string(nsid);
        const std::string path = "rblk2c7n" + std::to_string(nsid);
        EXPECT_EQ(nla_put_string(m, RBLK_NS_ATTR_DISK, head.c_str()), 0);
        EXPECT_EQ(nla_put_string(m, RBLK_NS_ATTR_PATH_DISK, path.c_str()), 0);
        EXPECT_EQ(nla_put_u8(m, RBLK_NS_ATTR_ANA_STATE, static_cast<std::uint8_t>(state)), 0);
        EXPECT_EQ(nla_put_u32(m, RBLK_NS_ATTR_ANAGRPID, nsid + 10), 0);
        nla_nest_end(m, entry);
    }
    nla_nest_end(m, nss);
    const ControllerInfo c = parse_controller(nlmsg_hdr(m));
    EXPECT_EQ(c.subsys_id, 2u);
    EXPECT_EQ(subsys_of(c), 2u);
    EXPECT_TRUE(c.multipath);
    EXPECT_EQ(c.iopolicy, Iopolicy::QueueDepth);
    EXPECT_EQ(c.anatt, 10);
    ASSERT_EQ(c.namespaces.size(), 2u);
    EXPECT_EQ(c.namespaces[0].device(), "/dev/rblk2n1");
    EXPECT_EQ(c.namespaces[0].path_disk, "rblk2c7n1");
    EXPECT_EQ(c.namespaces[0].ana_state, AnaState::Optimized);
    EXPECT_EQ(c.namespaces[0].anagrpid, 11u);
    EXPECT_EQ(c.namespaces[1].ana_state, AnaState::PersistentLoss);
    EXPECT_EQ(ana_state_name(*c.namespaces[1].ana_state), "persistent-loss");
}

TEST(AnaAndIopolicyNames, AsSysfsSpellsThem)
{
    EXPECT_EQ(ana_state_name(AnaState::Optimized), "optimized");
    EXPECT_EQ(ana_state_name(AnaState::NonOptimized), "non-optimized");
    EXPECT_EQ(ana_state_name(AnaState::Inaccessible), "inaccessible");
    EXPECT_EQ(ana_state_name(AnaState::Change), "change");
    EXPECT_EQ(ana_state_name(static_cast<AnaState>(9)), "unknown(9)");
    EXPECT_EQ(iopolicy_names(), (std::vector<std::string>{"numa", "round-robin", "queue-depth"}));
    for (const std::string& n : iopolicy_names())
        EXPECT_EQ(iopolicy_name(*parse_iopolicy(n)), n);
    EXPECT_EQ(parse_iopolicy("round-robin"), Iopolicy::RoundRobin);
    EXPECT_FALSE(parse_iopolicy("roundrobin").has_value());
    EXPECT_EQ(iopolicy_name(static_cast<Iopolicy>(7)), "unknown(7)");
}

TEST(SetIopolicyAttrs, ByControllerOrBySubsystemNqn)
{
    auto by_ctrl = genl_msg(RBLK_CMD_SET_IOPOLICY);
    put_set_iopolicy_attrs(by_ctrl.get(), {"rblk1", "ignored", "ignored"}, Iopolicy::RoundRobin);
    Parsed p = parse_all(by_ctrl.get());
    EXPECT_EQ(str(p.tb[RBLK_ATTR_CTRL_NAME]), "rblk1");
    EXPECT_EQ(p.tb[RBLK_ATTR_SUBNQN], nullptr);
    EXPECT_EQ(p.tb[RBLK_ATTR_HOSTNQN], nullptr);
    ASSERT_NE(p.tb[RBLK_ATTR_IOPOLICY], nullptr);
    EXPECT_EQ(nla_len(p.tb[RBLK_ATTR_IOPOLICY]), 1);
    EXPECT_EQ(nla_get_u8(p.tb[RBLK_ATTR_IOPOLICY]), RBLK_IOPOLICY_ROUND_ROBIN);

    auto by_nqn = genl_msg(RBLK_CMD_SET_IOPOLICY);
    put_set_iopolicy_attrs(by_nqn.get(), {"", "nqn.sub", "nqn.host"}, Iopolicy::QueueDepth);
    p = parse_all(by_nqn.get());
    EXPECT_EQ(p.tb[RBLK_ATTR_CTRL_NAME], nullptr);
    EXPECT_EQ(str(p.tb[RBLK_ATTR_SUBNQN]), "nqn.sub");
    EXPECT_EQ(str(p.tb[RBLK_ATTR_HOSTNQN]), "nqn.host");
    EXPECT_EQ(nla_get_u8(p.tb[RBLK_ATTR_IOPOLICY]), RBLK_IOPOLICY_QUEUE_DEPTH);

    auto default_host = genl_msg(RBLK_CMD_SET_IOPOLICY);
    put_set_iopolicy_attrs(default_host.get(), {"", "nqn.sub", ""}, Iopolicy::Numa);
    p = parse_all(default_host.get());
    EXPECT_EQ(p.tb[RBLK_ATTR_HOSTNQN], nullptr);  // every host NQN's
    EXPECT_EQ(nla_get_u8(p.tb[RBLK_ATTR_IOPOLICY]), RBLK_IOPOLICY_NUMA);
}

TEST(NamespaceAttrs, PadsAndForeignTypesBetweenEntriesAreSkipped)
{
    auto msg = genl_msg(RBLK_CMD_GET_CTRL);
    nl_msg* m = msg.get();
    nlattr* nss = nla_nest_start(m, RBLK_ATTR_NAMESPACES);
    ASSERT_EQ(nla_put(m, RBLK_NS_ATTR_PAD, 0, nullptr), 0);
    put_namespace(m, 9, "rblk0n9", 4096, 4096);
    ASSERT_EQ(nla_put_u32(m, 99, 1), 0);  // a future attribute type
    nla_nest_end(m, nss);
    Parsed p = parse_all(m);
    const auto ns = parse_namespaces(p.tb[RBLK_ATTR_NAMESPACES]);
    ASSERT_EQ(ns.size(), 1u);
    EXPECT_EQ(ns[0].nsid, 9u);
    EXPECT_EQ(ns[0].disk, "rblk0n9");
}

TEST(NamespaceAttrs, EmptyNestIsNoNamespaces)
{
    auto msg = genl_msg(RBLK_CMD_GET_CTRL);
    nlattr* nss = nla_nest_start(msg.get(), RBLK_ATTR_NAMESPACES);
    ASSERT_EQ(nla_nest_end_keep_empty(msg.get(), nss), 0);  // as the kernel sends it
    Parsed p = parse_all(msg.get());
    ASSERT_NE(p.tb[RBLK_ATTR_NAMESPACES], nullptr);
    EXPECT_TRUE(parse_namespaces(p.tb[RBLK_ATTR_NAMESPACES]).empty());
}

// GET_CTRL dump messages as the kernel splits a controller whose
// namespaces do not fit in one: the first with every attribute and
// NR_NAMESPACES, then continuations of CTRL_ID, CTRL_NAME, NS_CONTINUED.
NlMsgPtr dump_first(std::uint32_t id, std::uint32_t nr, std::uint32_t from, std::uint32_t to)
{
    auto msg = genl_msg(RBLK_CMD_GET_CTRL);
    nl_msg* m = msg.get();
    const std::string name = "rblk" + std::to_string(id);
    EXPECT_EQ(nla_put_u32(m, RBLK_ATTR_CTRL_ID, id), 0);
    EXPECT_EQ(nla_put_string(m, RBLK_ATTR_CTRL_NAME, name.c_str()), 0);
    EXPECT_EQ(nla_put_string(m, RBLK_ATTR_SUBNQN, "nqn.sub"), 0);
    EXPECT_EQ(nla_put_u32(m, RBLK_ATTR_NR_NAMESPACES, nr), 0);
    if (from <= to) {
        nlattr* nss = nla_nest_start(m, RBLK_ATTR_NAMESPACES);
        for (std::uint32_t i = from; i <= to; i++)
            put_namespace(m, i, name + "n" + std::to_string(i), 1 << 20, 512);
        nla_nest_end(m, nss);
    }
    return msg;
}

NlMsgPtr dump_cont(std::uint32_t id, std::uint32_t from, std::uint32_t to)
{
    auto msg = genl_msg(RBLK_CMD_GET_CTRL);
    nl_msg* m = msg.get();
    const std::string name = "rblk" + std::to_string(id);
    EXPECT_EQ(nla_put_u32(m, RBLK_ATTR_CTRL_ID, id), 0);
    EXPECT_EQ(nla_put_string(m, RBLK_ATTR_CTRL_NAME, name.c_str()), 0);
    EXPECT_EQ(nla_put_flag(m, RBLK_ATTR_NS_CONTINUED), 0);
    nlattr* nss = nla_nest_start(m, RBLK_ATTR_NAMESPACES);
    for (std::uint32_t i = from; i <= to; i++)
        put_namespace(m, i, name + "n" + std::to_string(i), 1 << 20, 512);
    nla_nest_end(m, nss);
    return msg;
}

std::vector<std::uint32_t> nsids(const ControllerInfo& c)
{
    std::vector<std::uint32_t> out;
    for (const NamespaceInfo& ns : c.namespaces)
        out.push_back(ns.nsid);
    return out;
}

std::vector<std::uint32_t> range(std::uint32_t from, std::uint32_t to)
{
    std::vector<std::uint32_t> out;
    for (std::uint32_t i = from; i <= to; i++)
        out.push_back(i);
    return out;
}

TEST(DumpMerge, ContinuationsAppendToTheirControllerInOrder)
{
    std::vector<ControllerInfo> out;
    // rblk0: 150 namespaces in four messages, the first with none of them
    // (its attributes filled the skb); rblk2: all in one; rblk3: none.
    std::vector<NlMsgPtr> msgs;
    msgs.push_back(dump_first(0, 150, 1, 0));
    msgs.push_back(dump_cont(0, 1, 60));
    msgs.push_back(dump_cont(0, 61, 120));
    msgs.push_back(dump_cont(0, 121, 150));
    msgs.push_back(dump_first(2, 3, 1, 3));
    msgs.push_back(dump_first(3, 0, 1, 0));
    for (const NlMsgPtr& m : msgs)
        merge_dump_message(out, nlmsg_hdr(m.get()));
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[0].name, "rblk0");
    EXPECT_EQ(out[0].subnqn, "nqn.sub");  // the continuations did not replace it
    EXPECT_EQ(nsids(out[0]), range(1, 150));
    EXPECT_EQ(out[0].namespaces[149].disk, "rblk0n150");
    EXPECT_EQ(out[0].nr_namespaces, 150u);
    EXPECT_FALSE(namespaces_incomplete(out[0]));
    EXPECT_EQ(out[1].name, "rblk2");
    EXPECT_EQ(nsids(out[1]), range(1, 3));
    EXPECT_EQ(out[2].name, "rblk3");
    EXPECT_TRUE(out[2].namespaces.empty());
}

TEST(DumpMerge, ContinuationOfNoOrAnotherControllerIsMalformed)
{
    std::vector<ControllerInfo> out;
    auto cont = dump_cont(1, 5, 6);
    EXPECT_THROW(merge_dump_message(out, nlmsg_hdr(cont.get())), Error);  // nothing before it
    auto first = dump_first(0, 4, 1, 2);
    merge_dump_message(out, nlmsg_hdr(first.get()));
    try {
        merge_dump_message(out, nlmsg_hdr(cont.get()));  // rblk1's, after rblk0
        FAIL() << "a continuation of another controller was merged";
    } catch (const Error& e) {
        EXPECT_EQ(e.errnum(), EBADMSG);
    }
    EXPECT_EQ(nsids(out.at(0)), range(1, 2));
}

TEST(DumpMerge, ReplyWithFewerEntriesThanNrNamespacesIsIncomplete)
{
    auto part = dump_first(0, 400, 1, 60);
    const ControllerInfo c = parse_controller(nlmsg_hdr(part.get()));
    EXPECT_EQ(c.namespaces.size(), 60u);
    EXPECT_TRUE(namespaces_incomplete(c));
    auto whole = dump_first(0, 2, 1, 2);
    EXPECT_FALSE(namespaces_incomplete(parse_controller(nlmsg_hdr(whole.get()))));
    // A module from before NR_NAMESPACES sent every namespace.
    auto old = kernel_controller_msg();
    const ControllerInfo o = parse_controller(nlmsg_hdr(old.get()));
    EXPECT_FALSE(o.nr_namespaces.has_value());
    EXPECT_FALSE(namespaces_incomplete(o));
}

TEST(StatsAttrs, EveryCounterRoundTripsWithPads)
{
    auto msg = genl_msg(RBLK_CMD_GET_STATS);
    nl_msg* m = msg.get();
    ASSERT_EQ(nla_put_string(m, RBLK_ATTR_CTRL_NAME, "rblk0"), 0);
    nlattr* st = nla_nest_start(m, RBLK_ATTR_STATS);
    const std::uint64_t big = 0xfedcba9876543210ull;
    put_u64_padded(m, RBLK_STAT_ATTR_READS, 1, RBLK_STAT_ATTR_PAD);
    put_u64_padded(m, RBLK_STAT_ATTR_WRITES, 2, RBLK_STAT_ATTR_PAD);
    put_u64_padded(m, RBLK_STAT_ATTR_READ_BYTES, big, RBLK_STAT_ATTR_PAD);
    put_u64_padded(m, RBLK_STAT_ATTR_WRITE_BYTES, 4, RBLK_STAT_ATTR_PAD);
    put_u64_padded(m, RBLK_STAT_ATTR_ERRORS, 5, RBLK_STAT_ATTR_PAD);
    put_u64_padded(m, RBLK_STAT_ATTR_RECONNECTS, 6, RBLK_STAT_ATTR_PAD);
    put_u64_padded(m, RBLK_STAT_ATTR_INFLIGHT, 7, RBLK_STAT_ATTR_PAD);
    put_u64_padded(m, RBLK_STAT_ATTR_MAX + 1, 8, RBLK_STAT_ATTR_PAD);  // newer kernel
    nla_nest_end(m, st);

    const ControllerInfo c = parse_controller(nlmsg_hdr(m));
    EXPECT_EQ(c.name, "rblk0");
    ASSERT_TRUE(c.stats.has_value());
    const CtrlStats want{1, 2, big, 4, 5, 6, 7};
    EXPECT_EQ(*c.stats, want);
}

TEST(StatsAttrs, TruncatedCounterIsMalformed)
{
    auto msg = genl_msg(RBLK_CMD_GET_STATS);
    nlattr* st = nla_nest_start(msg.get(), RBLK_ATTR_STATS);
    ASSERT_EQ(nla_put_u32(msg.get(), RBLK_STAT_ATTR_READS, 1), 0);
    nla_nest_end(msg.get(), st);
    Parsed p = parse_all(msg.get());
    try {
        parse_stats(p.tb[RBLK_ATTR_STATS]);
        FAIL() << "no exception";
    } catch (const Error& e) {
        EXPECT_EQ(e.errnum(), EBADMSG);
        EXPECT_NE(std::string(e.what()).find("malformed"), std::string::npos);
    }
}

TEST(ControllerAttrs, WrongWidthAttributeIsMalformed)
{
    for (int type : {RBLK_ATTR_CTRL_ID, RBLK_ATTR_SUBSYS_ID}) {
        auto msg = genl_msg(RBLK_CMD_GET_CTRL);
        const std::uint8_t one = 1;
        ASSERT_EQ(nla_put(msg.get(), type, 1, &one), 0);  // u32 expected
        EXPECT_THROW(parse_controller(nlmsg_hdr(msg.get())), Error) << attr_name(type);
    }
}

TEST(ControllerAttrs, UnterminatedStringIsMalformed)
{
    auto msg = genl_msg(RBLK_CMD_GET_CTRL);
    ASSERT_EQ(nla_put(msg.get(), RBLK_ATTR_CTRL_NAME, 5, "rblk0"), 0);  // no NUL
    EXPECT_THROW(parse_controller(nlmsg_hdr(msg.get())), Error);
}

TEST(EventAttrs, StateChangeDecodes)
{
    auto msg = genl_msg(RBLK_CMD_EVENT);
    ASSERT_EQ(nla_put_u32(msg.get(), RBLK_ATTR_CTRL_ID, 2), 0);
    ASSERT_EQ(nla_put_string(msg.get(), RBLK_ATTR_CTRL_NAME, "rblk2"), 0);
    ASSERT_EQ(nla_put_u8(msg.get(), RBLK_ATTR_STATE, RBLK_CTRL_RESETTING), 0);
    ASSERT_EQ(nla_put_u8(msg.get(), RBLK_ATTR_OLD_STATE, RBLK_CTRL_LIVE), 0);
    const StateEvent e = parse_event(nlmsg_hdr(msg.get()));
    EXPECT_EQ(e.id, 2u);
    EXPECT_EQ(e.name, "rblk2");
    EXPECT_EQ(e.state, CtrlState::Resetting);
    EXPECT_EQ(e.old_state, CtrlState::Live);
}

TEST(DiscoveryAttrs, WellKnownNqnOrTheFlagSendsDiscovery)
{
    ConnectOptions o;
    o.traddr = "10.0.0.1";
    o.subnqn = RBLK_DISC_SUBNQN;
    auto msg = genl_msg(RBLK_CMD_CONNECT);
    put_connect_attrs(msg.get(), o);
    EXPECT_NE(parse_all(msg.get()).tb[RBLK_ATTR_DISCOVERY], nullptr);

    o.subnqn = "nqn.unique-discovery";
    o.discovery = true;
    auto flagged = genl_msg(RBLK_CMD_CONNECT);
    put_connect_attrs(flagged.get(), o);
    EXPECT_NE(parse_all(flagged.get()).tb[RBLK_ATTR_DISCOVERY], nullptr);

    o.subnqn = "nqn.io";
    o.discovery = false;
    auto io = genl_msg(RBLK_CMD_CONNECT);
    put_connect_attrs(io.get(), o);
    EXPECT_EQ(parse_all(io.get()).tb[RBLK_ATTR_DISCOVERY], nullptr);
}

TEST(DiscoveryAttrs, ControllerFlagDecodes)
{
    auto msg = genl_msg(RBLK_CMD_GET_CTRL);
    ASSERT_EQ(nla_put_string(msg.get(), RBLK_ATTR_CTRL_NAME, "rblk4"), 0);
    EXPECT_FALSE(parse_controller(nlmsg_hdr(msg.get())).discovery);
    ASSERT_EQ(nla_put_flag(msg.get(), RBLK_ATTR_DISCOVERY), 0);
    EXPECT_TRUE(parse_controller(nlmsg_hdr(msg.get())).discovery);
}

TEST(AenAttrs, EventDecodesAndAResultIsRequired)
{
    auto msg = genl_msg(RBLK_CMD_AEN);
    ASSERT_EQ(nla_put_u32(msg.get(), RBLK_ATTR_CTRL_ID, 4), 0);
    ASSERT_EQ(nla_put_string(msg.get(), RBLK_ATTR_CTRL_NAME, "rblk4"), 0);
    EXPECT_THROW(parse_aen(nlmsg_hdr(msg.get())), Error);
    ASSERT_EQ(nla_put_u32(msg.get(), RBLK_ATTR_AEN_RESULT, 0x0070f002), 0);
    ASSERT_EQ(nla_put_flag(msg.get(), RBLK_ATTR_DISCOVERY), 0);
    const AenEvent e = parse_aen(nlmsg_hdr(msg.get()));
    EXPECT_EQ(e.id, 4u);
    EXPECT_EQ(e.name, "rblk4");
    EXPECT_EQ(e.result, 0x0070f002u);
    EXPECT_TRUE(e.discovery);
    EXPECT_TRUE(is_discovery_change(e.result));
}

TEST(ResvNoticeAttrs, NoticeDecodesAndNamespaceAndKindAreRequired)
{
    auto msg = genl_msg(RBLK_CMD_RESV_NOTICE);
    ASSERT_EQ(nla_put_u32(msg.get(), RBLK_ATTR_CTRL_ID, 1), 0);
    ASSERT_EQ(nla_put_string(msg.get(), RBLK_ATTR_CTRL_NAME, "rblk1"), 0);
    ASSERT_EQ(nla_put_u32(msg.get(), RBLK_ATTR_NSID, 1), 0);
    EXPECT_THROW(parse_resv_notice(nlmsg_hdr(msg.get())), Error);  // no kind
    ASSERT_EQ(nla_put_string(msg.get(), RBLK_ATTR_DISK, "rblk1n1"), 0);
    ASSERT_EQ(nla_put_u8(msg.get(), RBLK_ATTR_RESV_NOTICE, RBLK_RESV_NOTICE_REG_PREEMPTED), 0);
    const ResvNoticeEvent e = parse_resv_notice(nlmsg_hdr(msg.get()));
    EXPECT_EQ(e.id, 1u);
    EXPECT_EQ(e.name, "rblk1");
    EXPECT_EQ(e.nsid, 1u);
    EXPECT_EQ(e.disk, "rblk1n1");
    EXPECT_EQ(e.notice, ResvNotice::RegistrationPreempted);

    auto nonsid = genl_msg(RBLK_CMD_RESV_NOTICE);
    ASSERT_EQ(nla_put_u8(nonsid.get(), RBLK_ATTR_RESV_NOTICE, RBLK_RESV_NOTICE_RELEASED), 0);
    EXPECT_THROW(parse_resv_notice(nlmsg_hdr(nonsid.get())), Error);
}

TEST(ResvNoticeAttrs, KindsHaveTheirUeventNamesAndUnknownOnesANumber)
{
    EXPECT_EQ(resv_notice_name(ResvNotice::RegistrationPreempted), "registration-preempted");
    EXPECT_EQ(resv_notice_name(ResvNotice::ReservationReleased), "reservation-released");
    EXPECT_EQ(resv_notice_name(ResvNotice::ReservationPreempted), "reservation-preempted");
    EXPECT_EQ(resv_notice_name(static_cast<ResvNotice>(9)), "unknown(9)");
    EXPECT_EQ(attr_name(RBLK_ATTR_NSID), "nsid");
    EXPECT_EQ(attr_name(RBLK_ATTR_DISK), "disk");
    EXPECT_EQ(attr_name(RBLK_ATTR_RESV_NOTICE), "resv_notice");
}

}  // namespace
}  // namespace rblk
