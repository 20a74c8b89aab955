#include "rblk/connect_options.hpp"

#include "rblk/error.hpp"

#include <arpa/inet.h>
#include <cctype>
extern "C" {  // libnvme 1.3 headers lack C++ linkage guards
#include <nvme/util.h>
}

namespace rblk {
namespace {

[[noreturn]] void fail(const std::string& msg) { throw InvalidOption(msg); }

void check_range(const char* what, const std::optional<std::int64_t>& v, std::int64_t lo,
                 std::int64_t hi, const char* note = "")
{
    if (v && (*v < lo || *v > hi))
        fail(std::string(what) + " " + std::to_string(*v) + " is out of range (" +
             std::to_string(lo) + ".." + std::to_string(hi) + note + ")");
}

// What the kernel's nvme-fabrics accepts, no more: any text, as nvmet and
// blktests ("blktests-subsystem-1") use free-form names, that is not empty
// and fits the Connect data's NQN (RBLK_NQN_MAX bytes before the NUL). A
// NUL inside would cut the name short on its way to the kernel.
void check_nqn(const char* what, const std::string& nqn)
{
    if (nqn.empty())
        fail(std::string(what) + " is empty");
    if (nqn.find('\0') != std::string::npos)
        fail(std::string(what) + " contains a NUL byte");
    if (nqn.size() > RBLK_NQN_MAX)
        fail(std::string(what) + " is " + std::to_string(nqn.size()) +
             " bytes long, the maximum is " + std::to_string(RBLK_NQN_MAX));
}

// AF_INET or AF_INET6 for an address literal, 0 for anything else.
int ip_family(const std::string& addr)
{
    unsigned char buf[sizeof(struct in6_addr)];
    if (inet_pton(AF_INET, addr.c_str(), buf) == 1)
        return AF_INET;
    if (inet_pton(AF_INET6, addr.c_str(), buf) == 1)
        return AF_INET6;
    return 0;
}

bool is_ip_literal(const std::string& addr) { return ip_family(addr) != 0; }

}  // namespace

std::optional<std::array<std::uint8_t, RBLK_HOSTID_LEN>> parse_uuid(const std::string& text)
{
    // libnvme's parser is sscanf-based and ignores what follows, so pin the shape first.
    static constexpr std::size_t kDashes[] = {8, 13, 18, 23};
    if (text.size() != 36)
        return std::nullopt;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const bool dash_here = i == kDashes[0] || i == kDashes[1] || i == kDashes[2] ||
                               i == kDashes[3];
        if (dash_here ? text[i] != '-' : !std::isxdigit(static_cast<unsigned char>(text[i])))
            return std::nullopt;
    }
    std::array<std::uint8_t, RBLK_HOSTID_LEN> out{};
    if (nvme_uuid_from_string(text.c_str(), out.data()) != 0)
        return std::nullopt;
    return out;
}

std::string format_uuid(const std::array<std::uint8_t, RBLK_HOSTID_LEN>& uuid)
{
    char buf[NVME_UUID_LEN_STRING];
    auto copy = uuid;
    nvme_uuid_to_string(copy.data(), buf);
    return buf;
}

bool ConnectOptions::is_discovery() const
{
    return discovery || subnqn == RBLK_DISC_SUBNQN;
}

void ConnectOptions::validate() const
{
    if (transport != "rdma")
        fail("transport '" + transport + "' is not supported (only 'rdma')");
    if (traddr.empty())
        fail("traddr is required");
    if (traddr.size() > RBLK_TRADDR_MAX || !is_ip_literal(traddr))
        fail("traddr '" + traddr + "' is not an IPv4 or IPv6 address literal");
    check_range("trsvcid", trsvcid, 1, 65535);
    if (subnqn.empty())
        fail("subnqn is required");
    check_nqn("subnqn", subnqn);
    if (hostnqn)
        check_nqn("hostnqn", *hostnqn);
    if (hostid && !parse_uuid(*hostid))
        fail("hostid '" + *hostid +
             "' is not a UUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)");
    if (host_traddr) {
        if (host_traddr->size() > RBLK_TRADDR_MAX || !is_ip_literal(*host_traddr))
            fail("host-traddr '" + *host_traddr + "' is not an IPv4 or IPv6 address literal");
        if (ip_family(*host_traddr) != ip_family(traddr))
            fail("host-traddr '" + *host_traddr + "' and traddr '" + traddr +
                 "' are of different address families");
    }
    check_range("tos", tos, -1, 255, ", -1 = the transport's default");
    check_range("nr-io-queues", nr_io_queues, 1, RBLK_NR_IO_QUEUES_MAX);
    check_range("nr-write-queues", nr_write_queues, 0, RBLK_NR_IO_QUEUES_MAX);
    check_range("nr-poll-queues", nr_poll_queues, 0, RBLK_NR_IO_QUEUES_MAX);
    check_range("queue-size", queue_size, RBLK_QUEUE_SIZE_MIN, RBLK_QUEUE_SIZE_MAX);
    check_range("keep-alive-tmo", kato, 0, RBLK_KATO_MAX, ", 0 = off");
    check_range("reconnect-delay", reconnect_delay, 1, RBLK_RECONNECT_DELAY_MAX);
    check_range("ctrl-loss-tmo", ctrl_loss_tmo, -1, kMaxTimeoutSeconds, ", -1 = forever");
    check_range("fast-io-fail-tmo", fast_io_fail_tmo, -1, kMaxTimeoutSeconds, ", -1 = off");
    // As the kernel checks it, with its defaults for what is not sent:
    // a reconnect delay beyond the loss timeout would never reconnect.
    const std::int64_t delay = reconnect_delay.value_or(RBLK_DEFAULT_RECONNECT_DELAY);
    const std::int64_t loss = ctrl_loss_tmo.value_or(RBLK_DEFAULT_CTRL_LOSS_TMO);
    if (loss >= 0 && delay > loss)
        fail("reconnect-delay " + std::to_string(delay) + " exceeds ctrl-loss-tmo " +
             std::to_string(loss));
}

}  // namespace rblk
