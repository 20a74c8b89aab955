// The NVMe-oF Discovery Log Page (log 70h) of a discovery controller, read
// through its character device /dev/rblkN with the Linux NVMe admin ioctl,
// as nvme-cli reads it from /dev/nvmeX. Every byte of it comes from the
// target and is untrusted: the header is bounded and checked, and each entry
// is validated on its own; a bad entry is a warning naming it, never a crash.
//
// Split for the host tests: parse_discovery_log() is a pure function over
// the bytes, fetch_discovery_log() takes the Get Log Page as a callable, so
// crafted logs and churning generation counters need no kernel.
#pragma once

#include "rblk/unique_fd.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace rblk {

inline constexpr std::size_t kDiscoveryHeaderSize = 1024;  // struct nvmf_discovery_log
inline constexpr std::size_t kDiscoveryEntrySize = 1024;   // struct nvmf_disc_log_entry
// More records than this are refused (nvme-cli has no bound; 1 MiB of log).
inline constexpr std::uint64_t kDiscoveryMaxRecords = 1024;
// Reads of a generation before giving up on a log that keeps changing
// (libnvme's MAX_DISC_RETRIES).
inline constexpr unsigned kDiscoveryMaxRetries = 10;
// The most one Get Log Page command transfers; longer reads are split at
// log page offsets (libnvme's nvme_get_log_page() does the split).
inline constexpr std::uint32_t kDiscoveryMaxTransfer = 256 * 1024;

// One valid entry, its strings trimmed of their padding.
struct DiscoveryEntry {
    std::size_t index = 0;  // its position in the log, as nvme-cli numbers it
    std::uint8_t trtype = 0;   // enum nvmf_trtype
    std::uint8_t adrfam = 0;   // enum nvmf_addr_family
    std::uint8_t subtype = 0;  // enum nvme_subsys_type
    std::uint8_t treq = 0;     // enum nvmf_treq bits
    std::uint16_t portid = 0;
    std::uint16_t cntlid = 0;
    std::uint16_t asqsz = 0;
    std::uint16_t eflags = 0;
    std::string trsvcid;
    std::string subnqn;
    std::string traddr;
    // The transport specific address subtype: RDMA, or TCP's sectype.
    std::uint8_t rdma_qptype = 0;
    std::uint8_t rdma_prtype = 0;
    std::uint8_t rdma_cms = 0;
    std::uint16_t rdma_pkey = 0;
    std::uint8_t tcp_sectype = 0;
};

struct DiscoveryLog {
    std::uint64_t genctr = 0;
    std::uint64_t numrec = 0;  // as the header says; entries holds the valid ones
    std::vector<DiscoveryEntry> entries;
    // One line per entry skipped: "discovery log entry 3: <reason>".
    std::vector<std::string> warnings;
};

// Parses a whole log (header, then numrec entries of 1024 bytes). Throws
// Error(EPROTO) for a header it cannot use: shorter than 1024 bytes, a
// record format other than 0, more than kDiscoveryMaxRecords records.
// Entries beyond the buffer and all-zero entries are invalid entries.
DiscoveryLog parse_discovery_log(std::span<const std::uint8_t> log);

// The reason entry `raw` (kDiscoveryEntrySize bytes) is invalid, empty when
// it is valid; on success *out is filled (index left to the caller).
std::string check_discovery_entry(std::span<const std::uint8_t> raw, DiscoveryEntry* out);

// Reads `out.size()` bytes of the discovery log at byte `offset`, retaining
// the asynchronous event when rae is set. Throws on failure.
using LogPageReader =
    std::function<void(std::uint64_t offset, std::span<std::uint8_t> out, bool rae)>;

// The spec's generation loop: the header (RAE set), the numrec entries
// (RAE set), the header again (RAE clear, which re-arms the Discovery Log
// Change event); again while the generation counter changed, at most
// max_retries times. Returns header and entries of one generation. Throws
// Error(EAGAIN) when the log never settles, Error(EPROTO) when numrec is
// beyond kDiscoveryMaxRecords or changes within one generation.
std::vector<std::uint8_t> fetch_discovery_log(const LogPageReader& read,
                                              unsigned max_retries = kDiscoveryMaxRetries);

// Get Log Page 70h on an open /dev/rblkN (NVME_IOCTL_ADMIN_CMD through
// libnvme), at most kDiscoveryMaxTransfer bytes a command.
LogPageReader fd_log_reader(int fd);

// fetch_discovery_log(fd_log_reader(fd)) parsed.
DiscoveryLog read_discovery_log(int fd);

// Opens /dev/<name> (read-only, as nvme-cli), waiting up to `wait` for devtmpfs to create
// it after the controller appeared. Throws Error(errno) naming the path.
UniqueFd open_ctrl_device(const std::string& name,
                          std::chrono::milliseconds wait = std::chrono::milliseconds(3000));

}  // namespace rblk
