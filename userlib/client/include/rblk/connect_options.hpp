// Parameters of RBLK_CMD_CONNECT. Unset optionals are not sent, so the
// kernel's defaults (RBLK_DEFAULT_* in uapi/rblk.h) apply. Integers are wide
// so that out-of-range input reaches validate() and gets its own message.
#pragma once

#include <uapi/rblk.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace rblk {

struct ConnectOptions {
    std::string transport = "rdma";
    std::string traddr;
    std::int64_t trsvcid = RBLK_DEFAULT_TRSVCID;
    std::string subnqn;
    std::optional<std::string> hostnqn;
    std::optional<std::string> hostid;  // UUID text
    std::optional<std::int64_t> nr_io_queues;
    std::optional<std::int64_t> nr_write_queues;  // besides nr_io_queues, 0 = none
    std::optional<std::int64_t> nr_poll_queues;   // polled I/O only, 0 = none
    std::optional<std::int64_t> queue_size;
    std::optional<std::int64_t> kato;              // seconds, 0 = off
    std::optional<std::int64_t> reconnect_delay;   // seconds
    std::optional<std::int64_t> ctrl_loss_tmo;     // seconds, -1 = forever
    std::optional<std::int64_t> fast_io_fail_tmo;  // seconds, -1 = off
    bool duplicate_connect = false;
    std::optional<std::string> host_traddr;  // source address literal, of traddr's family
    std::optional<std::int64_t> tos;         // RDMA type of service 0..255, -1 = default
    // A discovery controller (RBLK_ATTR_DISCOVERY): admin queue only, its
    // log read through /dev/rblkN. Sent also when subnqn is RBLK_DISC_SUBNQN.
    bool discovery = false;
    // DH-HMAC-CHAP, as nvme-cli's --dhchap-secret and --dhchap-ctrl-secret:
    // "DHHC-1:<hash>:<base64 of key and CRC-32>:". The kernel checks them
    // (rblk.ko with nvme-auth); never printed.
    std::optional<std::string> dhchap_secret;
    std::optional<std::string> dhchap_ctrl_secret;

    // discovery, or subnqn is the well-known discovery NQN (which implies it).
    bool is_discovery() const;

    // Throws InvalidOption naming the first bad field and the accepted range/format.
    // traddr may be a host name here; resolve_traddr() makes it an address.
    void validate() const;
};

// The options with traddr as an address literal: a host name is resolved
// with getaddrinfo() (of host_traddr's family when one is given), taking
// the first address, as nvme-cli does; a literal, with an IPv6 link-local
// one's %scope, is kept. Throws InvalidOption when the name does not resolve.
ConnectOptions resolve_traddr(const ConnectOptions& opts);

// Binary form of a UUID text "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"; nullopt if malformed.
std::optional<std::array<std::uint8_t, RBLK_HOSTID_LEN>> parse_uuid(const std::string& text);
std::string format_uuid(const std::array<std::uint8_t, RBLK_HOSTID_LEN>& uuid);

// Limits enforced by validate(), shared with the CLI's help text.
inline constexpr std::int64_t kMaxTimeoutSeconds = 86400 * 365;

}  // namespace rblk
