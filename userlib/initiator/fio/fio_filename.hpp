// The fio engine's filename, as SPDK's fio plugin spells a target: words
// of key=value separated by spaces, "trtype=rdma traddr=A trsvcid=P
// subnqn=N ns=1 [hostnqn=H] [hostid=U] [adrfam=IPv4|IPv6]". fio turns each
// "\:" into ':' before the engine sees it; one left over is taken as ':'
// too. Pure: no host identity, no name resolution (the engine does those).
#pragma once

#include <rblk/bypass/controller.hpp>

#include <string>

namespace rblk::fio {

// The controller options the filename names (one I/O queue); throws
// std::invalid_argument with one line naming the offending word.
bypass::ControllerOptions parse_filename(const std::string& spec);

}  // namespace rblk::fio
