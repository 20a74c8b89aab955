#include "rblk/connect_options.hpp"

#include "rblk/error.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cctype>
#include <memory>
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

// AF_INET or AF_INET6 for an address literal as the kernel's
// inet_pton_with_scope() takes it (an IPv6 link-local one may name its
// interface: fe80::1%eth0 or %2), 0 for anything else.
int ip_family(const std::string& addr)
{
    in6_addr a6{};
    if (inet_pton(AF_INET, addr.c_str(), &a6) == 1)
        return AF_INET;
    const std::size_t pct = addr.find('%');
    if (inet_pton(AF_INET6, addr.substr(0, pct).c_str(), &a6) != 1)
        return 0;
    if (pct != std::string::npos && (pct + 1 == addr.size() || !IN6_IS_ADDR_LINKLOCAL(&a6)))
        return 0;  // a scope, and only for a link-local address
    return AF_INET6;
}

bool is_ip_literal(const std::string& addr) { return ip_family(addr) != 0; }

// A DNS name as RFC 1123 spells one: labels of letters, digits and inner
// hyphens, at most 63 bytes each and 253 in all, the last not all digits
// (so 10.1.2 is a mistyped address, not a name that inet_aton would
// read as 10.1.0.2).
bool is_host_name(const std::string& name)
{
    if (name.empty() || name.size() > 253)
        return false;
    std::size_t label = 0;
    bool digits_only = true;
    for (std::size_t i = 0; i <= name.size(); ++i) {
        const char c = i < name.size() ? name[i] : '.';
        if (c == '.') {
            if (label == 0 || label > 63 || name[i - 1] == '-')
                return false;
            if (i == name.size() && digits_only)
                return false;
            label = 0;
            digits_only = true;
        } else if (std::isalnum(static_cast<unsigned char>(c)) || (c == '-' && label > 0)) {
            digits_only = digits_only && std::isdigit(static_cast<unsigned char>(c));
            ++label;
        } else {
            return false;
        }
    }
    return true;
}

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
    if (traddr.size() > RBLK_TRADDR_MAX || (!is_ip_literal(traddr) && !is_host_name(traddr)))
        fail("traddr '" + traddr + "' is not an IPv4 or IPv6 address or a host name");
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
        if (is_ip_literal(traddr) && ip_family(*host_traddr) != ip_family(traddr))
            fail("host-traddr '" + *host_traddr + "' and traddr '" + traddr +
                 "' are of different address families");
    }
    check_range("tos", tos, -1, 255, ", -1 = the transport's default");
    // A secret's message names the option, never the value. The kernel
    // checks the rest (base64, key length, CRC) and says what is wrong.
    for (const auto& [name, secret] : {std::pair{"dhchap-secret", &dhchap_secret},
                                       {"dhchap-ctrl-secret", &dhchap_ctrl_secret}})
        if (*secret && ((*secret)->size() > RBLK_DHCHAP_SECRET_MAX ||
                        !(*secret)->starts_with("DHHC-1:")))
            fail(std::string(name) +
                 " is not a DH-HMAC-CHAP secret (DHHC-1:NN:<base64>:, as nvme gen-dhchap-key "
                 "prints)");
    if (dhchap_ctrl_secret && !dhchap_secret)
        fail("dhchap-ctrl-secret needs dhchap-secret (the controller is checked only in a "
             "bidirectional exchange)");
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

ConnectOptions resolve_traddr(const ConnectOptions& opts)
{
    if (is_ip_literal(opts.traddr) || !is_host_name(opts.traddr))
        return opts;  // an address, or validate()'s to refuse
    addrinfo hints{};
    hints.ai_family = opts.host_traddr ? ip_family(*opts.host_traddr) : AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    if (const int rc = getaddrinfo(opts.traddr.c_str(), nullptr, &hints, &res); rc != 0)
        fail("cannot resolve traddr '" + opts.traddr + "': " + gai_strerror(rc));
    const std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> owned(res, freeaddrinfo);
    char host[NI_MAXHOST];
    if (const int rc = getnameinfo(res->ai_addr, res->ai_addrlen, host, sizeof(host), nullptr,
                                   0, NI_NUMERICHOST);
        rc != 0)
        fail("cannot resolve traddr '" + opts.traddr + "': " + gai_strerror(rc));
    ConnectOptions out = opts;
    out.traddr = host;
    return out;
}

}  // namespace rblk
