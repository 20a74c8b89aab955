#include "rblk/host_identity.hpp"

extern "C" {  // libnvme 1.3 headers lack C++ linkage guards
#include <nvme/fabrics.h>
}

#include <cstdlib>
#include <memory>

namespace rblk {
namespace {

std::optional<std::string> take(char* s)
{
    std::unique_ptr<char, decltype(&std::free)> owned(s, &std::free);
    if (!owned || !*owned)
        return std::nullopt;
    return std::string(owned.get());
}

}  // namespace

HostIdentity read_host_identity()
{
    return {take(nvmf_hostnqn_from_file()), take(nvmf_hostid_from_file())};
}

void apply_host_identity(ConnectOptions& opts, const HostIdentity& host)
{
    if (!opts.hostnqn)
        opts.hostnqn = host.hostnqn;
    if (!opts.hostid)
        opts.hostid = host.hostid;
}

}  // namespace rblk
