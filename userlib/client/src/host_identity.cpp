#include "rblk/host_identity.hpp"

#include "rblk/error.hpp"
#include "rblk/session_file.hpp"

extern "C" {  // libnvme 1.3 headers lack C++ linkage guards
#include <nvme/fabrics.h>
#include <nvme/types.h>
#include <nvme/util.h>
}

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <system_error>

namespace rblk {
namespace {

namespace fs = std::filesystem;

// libnvme's readers of /etc/nvme/hostnqn and /etc/nvme/hostid (the first
// line, bounded as libnvme bounds it), so rblk is the host nvme-cli is. An
// empty first line is no identity: libnvme returns "" for it, which no
// target takes.
std::optional<std::string> libnvme_identity(const fs::path& file)
{
    const std::unique_ptr<char, decltype(&std::free)> value(
        file.filename() == "hostnqn" ? nvmf_hostnqn_from_file() : nvmf_hostid_from_file(),
        &std::free);
    if (!value || !*value)
        return std::nullopt;
    return std::string(value.get());
}

std::string generate_hostnqn(const std::optional<std::string>& hostid)
{
    // The hostid there already decides the UUID, as nvme-cli keeps the two.
    if (hostid && parse_uuid(*hostid))
        return kUuidHostNqnPrefix + *hostid;
    const std::unique_ptr<char, decltype(&std::free)> nqn(nvmf_hostnqn_generate(), &std::free);
    if (!nqn)
        throw Error(ENOMEM, "cannot generate a host NQN");
    std::string s(nqn.get());
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.pop_back();
    return s;
}

std::string generate_hostid(const std::string& hostnqn)
{
    if (auto uuid = hostnqn_uuid(hostnqn))
        return *uuid;
    // A host NQN of another form says nothing about the hostid.
    std::array<std::uint8_t, RBLK_HOSTID_LEN> uuid{};
    if (nvme_uuid_random(uuid.data()) < 0)
        throw Error(errno, "cannot generate a host ID");
    return format_uuid(uuid);
}

// What `path` holds once `generated` is offered: ours, or what another
// process stored first. When it cannot be stored: ours, and the reason in
// `warning` (only the first failure, so one line for the pair).
std::string store(const fs::path& path, const std::string& generated,
                  const IdentityFileReader& read, std::optional<std::string>& warning)
{
    if (warning)
        return generated;
    try {
        if (write_file(path, generated + '\n', 0644, Existing::Keep))
            return generated;
        if (auto theirs = read(path))
            return *theirs;
        // An empty file: libnvme reads nothing from it either.
        write_file(path, generated + '\n', 0644, Existing::Replace);
    } catch (const std::system_error& e) {
        const int err = e.code().value();
        const char* name = strerrorname_np(err);
        warning = "cannot store the generated host identity in " + path.string() + ": " +
                  e.code().message() + " (" + (name ? name : std::to_string(err)) +
                  "); it holds for this run only";
    }
    return generated;
}

}  // namespace

std::optional<std::string> hostnqn_uuid(const std::string& hostnqn)
{
    const std::string_view prefix = kUuidHostNqnPrefix;
    if (!hostnqn.starts_with(prefix))
        return std::nullopt;
    std::string uuid = hostnqn.substr(prefix.size());
    if (!parse_uuid(uuid))
        return std::nullopt;
    return uuid;
}

HostIdentity load_host_identity()
{
    return load_host_identity(kNvmeConfigDir, libnvme_identity);
}

HostIdentity load_host_identity(const fs::path& dir, const IdentityFileReader& read)
{
    HostIdentity host{read(dir / "hostnqn"), read(dir / "hostid")};
    // The NQN first: a hostid generated after it is its UUID.
    if (!host.hostnqn)
        host.hostnqn = store(dir / "hostnqn", generate_hostnqn(host.hostid), read, host.warning);
    if (!host.hostid)
        host.hostid = store(dir / "hostid", generate_hostid(*host.hostnqn), read, host.warning);
    return host;
}

void apply_host_identity(ConnectOptions& opts, const HostIdentity& host)
{
    if (!opts.hostnqn)
        opts.hostnqn = host.hostnqn;
    if (!opts.hostid)
        opts.hostid = host.hostid;
}

}  // namespace rblk
