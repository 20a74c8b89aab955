// The host's NVMe identity as nvme-cli keeps it (/etc/nvme/hostnqn,
// /etc/nvme/hostid). A file that is absent is generated once, as
// `nvme gen-hostnqn` does, and stored: without it the kernel would make a
// random host NQN at every module load, and each reload would look like a
// new host to the target's access lists.
#pragma once

#include "rblk/connect_options.hpp"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace rblk {

inline constexpr const char* kNvmeConfigDir = "/etc/nvme";
// nvme-cli's generated host NQNs: this prefix and a UUID, which is the hostid.
inline constexpr const char* kUuidHostNqnPrefix = "nqn.2014-08.org.nvmexpress:uuid:";

struct HostIdentity {
    std::optional<std::string> hostnqn;
    std::optional<std::string> hostid;
    // A generated identity that could not be stored (not root, read-only
    // /etc): one line naming the file and the errno. The identity is still
    // good for this run, just not for the next one.
    std::optional<std::string> warning = std::nullopt;
};

// Reads one identity file: its first line, nullopt when absent or empty.
using IdentityFileReader = std::function<std::optional<std::string>(const std::filesystem::path&)>;

// /etc/nvme/hostnqn and /etc/nvme/hostid through libnvme's readers
// (nvmf_hostnqn_from_file(), nvmf_hostid_from_file()), so rblk takes them
// exactly as nvme-cli does. What is absent is generated and written (mode
// 0644, atomically, the directory created if needed), consistent with what
// is there: a hostid is the UUID of a hostnqn of the uuid form, a missing
// hostnqn is made from the hostid, and with neither libnvme's
// nvmf_hostnqn_generate() picks the UUID. A file another process creates
// meanwhile wins over ours, so concurrent first runs agree. Present files
// are used as they are.
HostIdentity load_host_identity();
// The same in DIR, reading with `read` (libnvme's readers know only
// /etc/nvme: tests use a directory of their own).
HostIdentity load_host_identity(const std::filesystem::path& dir, const IdentityFileReader& read);

// The UUID of "nqn.2014-08.org.nvmexpress:uuid:<uuid>"; nullopt for any other NQN.
std::optional<std::string> hostnqn_uuid(const std::string& hostnqn);

// Fills hostnqn/hostid that the caller left unset; never overrides.
void apply_host_identity(ConnectOptions& opts, const HostIdentity& host);

}  // namespace rblk
