// The host's NVMe identity as nvme-cli keeps it (/etc/nvme/hostnqn,
// /etc/nvme/hostid). When a file is absent the field stays unset and the
// kernel's own default applies.
#pragma once

#include "rblk/connect_options.hpp"

#include <optional>
#include <string>

namespace rblk {

struct HostIdentity {
    std::optional<std::string> hostnqn;
    std::optional<std::string> hostid;
};

// Reads the files through libnvme (same locations and trimming as nvme-cli).
HostIdentity read_host_identity();

// Fills hostnqn/hostid that the caller left unset; never overrides.
void apply_host_identity(ConnectOptions& opts, const HostIdentity& host);

}  // namespace rblk
