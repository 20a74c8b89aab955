// ConnectOptions validation: every rule and its message; UUIDs; host identity.
#include <rblk/connect_options.hpp>
#include <rblk/error.hpp>
#include <rblk/host_identity.hpp>

#include <gtest/gtest.h>

#include <functional>

namespace rblk {
namespace {

ConnectOptions valid()
{
    ConnectOptions o;
    o.traddr = "10.99.0.1";
    o.subnqn = "nqn.2014-08.org.nvmexpress:uuid:1";
    return o;
}

std::string validation_message(const std::function<void(ConnectOptions&)>& change)
{
    ConnectOptions o = valid();
    change(o);
    try {
        o.validate();
    } catch (const InvalidOption& e) {
        return e.what();
    }
    return "<valid>";
}

TEST(ConnectOptions, MinimalAndFullOptionsAreValid)
{
    EXPECT_NO_THROW(valid().validate());
    ConnectOptions o = valid();
    o.traddr = "fd00::1";
    o.trsvcid = 65535;
    o.hostnqn = "nqn.host";
    o.hostid = "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0";
    o.nr_io_queues = RBLK_NR_IO_QUEUES_MAX;
    o.queue_size = RBLK_QUEUE_SIZE_MIN;
    o.kato = 0;
    o.reconnect_delay = 1;
    o.ctrl_loss_tmo = -1;
    o.fast_io_fail_tmo = -1;
    o.duplicate_connect = true;
    o.nr_write_queues = RBLK_NR_IO_QUEUES_MAX;
    o.nr_poll_queues = 0;
    EXPECT_NO_THROW(o.validate());
    o.nr_write_queues = 0;
    o.nr_poll_queues = RBLK_NR_IO_QUEUES_MAX;
    EXPECT_NO_THROW(o.validate());
}

struct Rule {
    const char* name;
    std::function<void(ConnectOptions&)> change;
    const char* message;
};

void PrintTo(const Rule& r, std::ostream* os) { *os << r.name; }

class ConnectOptionsRule : public testing::TestWithParam<Rule> {};

TEST_P(ConnectOptionsRule, RejectsWithItsMessage)
{
    EXPECT_EQ(validation_message(GetParam().change), GetParam().message);
}

const std::string kLongNqn = "nqn." + std::string(RBLK_NQN_MAX - 4, 'a');

INSTANTIATE_TEST_SUITE_P(
    Rules, ConnectOptionsRule,
    testing::Values(
        Rule{"transport", [](auto& o) { o.transport = "tcp"; },
             "transport 'tcp' is not supported (only 'rdma')"},
        Rule{"traddr_missing", [](auto& o) { o.traddr = ""; }, "traddr is required"},
        Rule{"traddr_bad_name", [](auto& o) { o.traddr = "target_1.example"; },
             "traddr 'target_1.example' is not an IPv4 or IPv6 address or a host name"},
        Rule{"traddr_short_ipv4", [](auto& o) { o.traddr = "10.1.2"; },
             "traddr '10.1.2' is not an IPv4 or IPv6 address or a host name"},
        Rule{"traddr_bad_ipv6", [](auto& o) { o.traddr = "fe80::1::2"; },
             "traddr 'fe80::1::2' is not an IPv4 or IPv6 address or a host name"},
        Rule{"traddr_scope_not_link_local", [](auto& o) { o.traddr = "fd00::1%eth0"; },
             "traddr 'fd00::1%eth0' is not an IPv4 or IPv6 address or a host name"},
        Rule{"traddr_empty_scope", [](auto& o) { o.traddr = "fe80::1%"; },
             "traddr 'fe80::1%' is not an IPv4 or IPv6 address or a host name"},
        Rule{"trsvcid_zero", [](auto& o) { o.trsvcid = 0; },
             "trsvcid 0 is out of range (1..65535)"},
        Rule{"trsvcid_big", [](auto& o) { o.trsvcid = 65536; },
             "trsvcid 65536 is out of range (1..65535)"},
        Rule{"subnqn_missing", [](auto& o) { o.subnqn = ""; }, "subnqn is required"},
        Rule{"subnqn_long", [](auto& o) { o.subnqn = kLongNqn + "a"; },
             "subnqn is 224 bytes long, the maximum is 223"},
        Rule{"subnqn_nul", [](auto& o) { o.subnqn = std::string("sub\0x", 5); },
             "subnqn contains a NUL byte"},
        Rule{"hostnqn_long", [](auto& o) { o.hostnqn = std::string(RBLK_NQN_MAX + 1, 'h'); },
             "hostnqn is 224 bytes long, the maximum is 223"},
        Rule{"hostnqn_empty", [](auto& o) { o.hostnqn = ""; }, "hostnqn is empty"},
        Rule{"host_traddr", [](auto& o) { o.host_traddr = "host.example"; },
             "host-traddr 'host.example' is not an IPv4 or IPv6 address literal"},
        Rule{"host_traddr_family", [](auto& o) { o.host_traddr = "fd00::2"; },
             "host-traddr 'fd00::2' and traddr '10.99.0.1' are of different address families"},
        Rule{"tos_big", [](auto& o) { o.tos = 256; },
             "tos 256 is out of range (-1..255, -1 = the transport's default)"},
        Rule{"tos_negative", [](auto& o) { o.tos = -2; },
             "tos -2 is out of range (-1..255, -1 = the transport's default)"},
        Rule{"hostid", [](auto& o) { o.hostid = "not-a-uuid"; },
             "hostid 'not-a-uuid' is not a UUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)"},
        Rule{"nr_io_queues_zero", [](auto& o) { o.nr_io_queues = 0; },
             "nr-io-queues 0 is out of range (1..128)"},
        Rule{"nr_io_queues_big", [](auto& o) { o.nr_io_queues = 129; },
             "nr-io-queues 129 is out of range (1..128)"},
        Rule{"nr_write_queues_negative", [](auto& o) { o.nr_write_queues = -1; },
             "nr-write-queues -1 is out of range (0..128)"},
        Rule{"nr_write_queues_big", [](auto& o) { o.nr_write_queues = 129; },
             "nr-write-queues 129 is out of range (0..128)"},
        Rule{"nr_poll_queues_negative", [](auto& o) { o.nr_poll_queues = -1; },
             "nr-poll-queues -1 is out of range (0..128)"},
        Rule{"nr_poll_queues_big", [](auto& o) { o.nr_poll_queues = 129; },
             "nr-poll-queues 129 is out of range (0..128)"},
        Rule{"queue_size_small", [](auto& o) { o.queue_size = 15; },
             "queue-size 15 is out of range (16..1024)"},
        Rule{"queue_size_big", [](auto& o) { o.queue_size = 1025; },
             "queue-size 1025 is out of range (16..1024)"},
        Rule{"kato_negative", [](auto& o) { o.kato = -1; },
             "keep-alive-tmo -1 is out of range (0..3600, 0 = off)"},
        Rule{"kato_big", [](auto& o) { o.kato = RBLK_KATO_MAX + 1; },
             "keep-alive-tmo 3601 is out of range (0..3600, 0 = off)"},
        Rule{"reconnect_delay_zero", [](auto& o) { o.reconnect_delay = 0; },
             "reconnect-delay 0 is out of range (1..3600)"},
        Rule{"reconnect_delay_big", [](auto& o) { o.reconnect_delay = RBLK_RECONNECT_DELAY_MAX + 1; },
             "reconnect-delay 3601 is out of range (1..3600)"},
        Rule{"reconnect_delay_beyond_loss", [](auto& o) {
                 o.reconnect_delay = 30;
                 o.ctrl_loss_tmo = 20;
             },
             "reconnect-delay 30 exceeds ctrl-loss-tmo 20"},
        Rule{"default_reconnect_delay_beyond_loss", [](auto& o) { o.ctrl_loss_tmo = 5; },
             "reconnect-delay 10 exceeds ctrl-loss-tmo 5"},
        Rule{"ctrl_loss_tmo", [](auto& o) { o.ctrl_loss_tmo = -2; },
             "ctrl-loss-tmo -2 is out of range (-1..31536000, -1 = forever)"},
        Rule{"fast_io_fail_tmo", [](auto& o) { o.fast_io_fail_tmo = kMaxTimeoutSeconds + 1; },
             "fast-io-fail-tmo 31536001 is out of range (-1..31536000, -1 = off)"}),
    [](const testing::TestParamInfo<Rule>& info) { return std::string(info.param.name); });

TEST(ConnectOptions, DhchapSecretsAreCheckedWithoutEchoingThem)
{
    const std::string bad = "hunter2-not-a-secret";
    const std::string msg = validation_message([&](ConnectOptions& o) { o.dhchap_secret = bad; });
    EXPECT_EQ(msg, "dhchap-secret is not a DH-HMAC-CHAP secret (DHHC-1:NN:<base64>:, as nvme "
                   "gen-dhchap-key prints)");
    EXPECT_EQ(msg.find(bad), std::string::npos);
    EXPECT_EQ(validation_message([](ConnectOptions& o) {
                  o.dhchap_secret = "DHHC-1:00:" + std::string(RBLK_DHCHAP_SECRET_MAX, 'A') + ":";
              }).rfind("dhchap-secret is not", 0),
              0u);
    EXPECT_EQ(validation_message([](ConnectOptions& o) { o.dhchap_ctrl_secret = "DHHC-1:00:AA:"; }),
              "dhchap-ctrl-secret needs dhchap-secret (the controller is checked only in a "
              "bidirectional exchange)");
    EXPECT_EQ(validation_message([](ConnectOptions& o) {
                  o.dhchap_secret = "DHHC-1:00:AA:";
                  o.dhchap_ctrl_secret = "DHHC-1:03:BB:";
              }),
              "<valid>");
}

TEST(ConnectOptions, ReconnectDelayIsFreeWhenLossIsForever)
{
    EXPECT_EQ(validation_message([](auto& o) {
                  o.reconnect_delay = RBLK_RECONNECT_DELAY_MAX;
                  o.ctrl_loss_tmo = -1;
              }),
              "<valid>");
    EXPECT_EQ(validation_message([](auto& o) {
                  o.reconnect_delay = 5;
                  o.ctrl_loss_tmo = 5;
              }),
              "<valid>");
}

TEST(ConnectOptions, LongestAllowedNqnIsValid)
{
    ASSERT_EQ(kLongNqn.size(), static_cast<std::size_t>(RBLK_NQN_MAX));
    EXPECT_EQ(validation_message([](auto& o) { o.subnqn = kLongNqn; }), "<valid>");
}

// nvmet and blktests name subsystems freely ("blktests-subsystem-1"); the
// kernel's nvme-fabrics takes any non-empty NQN that fits, and so does rblk.
TEST(ConnectOptions, FreeFormNqnsAreValid)
{
    for (const std::string nqn : {"blktests-subsystem-1", "iqn.2001-04.com.example", "x",
                                  "nqn.", "sub with spaces", "\xc3\xa9t\xc3\xa9"}) {
        EXPECT_EQ(validation_message([&](auto& o) { o.subnqn = nqn; }), "<valid>") << nqn;
        EXPECT_EQ(validation_message([&](auto& o) { o.hostnqn = nqn; }), "<valid>") << nqn;
    }
    const std::string longest(RBLK_NQN_MAX, 'z');
    EXPECT_EQ(validation_message([&](auto& o) { o.hostnqn = longest; }), "<valid>");
}

TEST(Uuid, ParsesAndFormatsRoundTrip)
{
    const auto u = parse_uuid("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0");
    ASSERT_TRUE(u.has_value());
    EXPECT_EQ((*u)[0], 0x0f);
    EXPECT_EQ((*u)[15], 0xf0);
    EXPECT_EQ(format_uuid(*u), "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0");
}

TEST(Uuid, RejectsMalformedText)
{
    for (const char* bad : {"", "0f1e2d3c4b5a69788796a5b4c3d2e1f0",
                            "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0x",
                            "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f", "0f1e2d3c-4b5a-6978-8796_a5b4c3d2e1f0",
                            "gf1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0", " f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"})
        EXPECT_FALSE(parse_uuid(bad).has_value()) << bad;
}

TEST(HostIdentity, FillsOnlyUnsetFields)
{
    const HostIdentity host{"nqn.file-host", "11111111-2222-3333-4444-555555555555"};
    ConnectOptions o = valid();
    apply_host_identity(o, host);
    EXPECT_EQ(o.hostnqn, "nqn.file-host");
    EXPECT_EQ(o.hostid, "11111111-2222-3333-4444-555555555555");

    ConnectOptions given = valid();
    given.hostnqn = "nqn.cli-host";
    apply_host_identity(given, host);
    EXPECT_EQ(given.hostnqn, "nqn.cli-host");
    EXPECT_EQ(given.hostid, "11111111-2222-3333-4444-555555555555");
}

TEST(HostIdentity, EmptyIdentityLeavesFieldsUnset)
{
    ConnectOptions o = valid();
    apply_host_identity(o, HostIdentity{});
    EXPECT_FALSE(o.hostnqn.has_value());
    EXPECT_FALSE(o.hostid.has_value());
}

}  // namespace
}  // namespace rblk

// What nvme connect takes besides literals: host names (resolved before the
// connect) and IPv6 link-local addresses with their interface.
TEST(ConnectOptionsAddress, HostNamesAndLinkLocalScopesAreAccepted)
{
    for (const char* a : {"target.example", "array-1", "fe80::1%eth0", "fe80::1%2", "10.0.0.1",
                          "fd00::1"}) {
        rblk::ConnectOptions o;
        o.traddr = a;
        o.subnqn = "nqn.sub";
        EXPECT_NO_THROW(o.validate()) << a;
    }
}

TEST(ConnectOptionsAddress, ResolveKeepsLiteralsAndResolvesNames)
{
    rblk::ConnectOptions o;
    o.subnqn = "nqn.sub";
    for (const char* a : {"10.0.0.1", "fe80::1%eth0", "fd00::1"}) {
        o.traddr = a;
        EXPECT_EQ(rblk::resolve_traddr(o).traddr, a);
    }
    // localhost is in every /etc/hosts; host-traddr's family picks the address.
    o.traddr = "localhost";
    o.host_traddr = "127.0.0.1";
    const rblk::ConnectOptions r = rblk::resolve_traddr(o);
    EXPECT_EQ(r.traddr, "127.0.0.1");
    EXPECT_NO_THROW(r.validate());
}
