#include "rblk/discovery.hpp"

#include "rblk/error.hpp"

extern "C" {  // libnvme 1.3 headers lack C++ linkage guards
#include <nvme/ioctl.h>
#include <nvme/types.h>
#include <nvme/util.h>
}

#include <endian.h>
#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

namespace rblk {
namespace {

static_assert(sizeof(nvmf_discovery_log) == kDiscoveryHeaderSize);
static_assert(sizeof(nvmf_disc_log_entry) == kDiscoveryEntrySize);

struct Header {
    std::uint64_t genctr;
    std::uint64_t numrec;
    std::uint16_t recfmt;
};

Header header_of(std::span<const std::uint8_t> bytes)
{
    if (bytes.size() < kDiscoveryHeaderSize)
        throw Error(EPROTO, "discovery log: " + std::to_string(bytes.size()) +
                                " bytes, shorter than its 1024-byte header");
    nvmf_discovery_log h;
    std::memcpy(&h, bytes.data(), sizeof(h));
    return {le64toh(h.genctr), le64toh(h.numrec), le16toh(h.recfmt)};
}

void check_numrec(std::uint64_t numrec)
{
    if (numrec > kDiscoveryMaxRecords)
        throw Error(EPROTO, "discovery log: numrec " + std::to_string(numrec) +
                                " is more than the " +
                                std::to_string(kDiscoveryMaxRecords) + " records rblk reads");
}

bool printable(char c) { return c >= 0x20 && c <= 0x7e; }

// A fixed-width field padded with spaces (the spec) or NULs (nvmet): the
// padding trimmed; what is left must be printable ASCII.
bool padded_field(const char* field, std::size_t size, std::string* out)
{
    std::size_t n = size;
    while (n > 0 && (field[n - 1] == ' ' || field[n - 1] == '\0'))
        --n;
    if (!std::all_of(field, field + n, printable))
        return false;
    out->assign(field, n);
    return true;
}

bool defined_trtype(std::uint8_t v)
{
    return v == NVMF_TRTYPE_RDMA || v == NVMF_TRTYPE_FC || v == NVMF_TRTYPE_TCP ||
           v == NVMF_TRTYPE_LOOP;
}

bool defined_adrfam(std::uint8_t v)
{
    return v <= NVMF_ADDR_FAMILY_FC || v == NVMF_ADDR_FAMILY_LOOP;  // PCI (0) as nvmet's pcie
}

bool defined_subtype(std::uint8_t v) { return v >= NVME_NQN_DISC && v <= NVME_NQN_CURR; }

// Bits 1:0 the secure channel (3 is reserved), bit 2 SQ flow control
// disable; the rest reserved.
bool defined_treq(std::uint8_t v) { return (v & ~0x7u) == 0 && (v & 0x3u) != 0x3u; }

std::string number(unsigned v) { return std::to_string(v); }

}  // namespace

std::string check_discovery_entry(std::span<const std::uint8_t> raw, DiscoveryEntry* out)
{
    if (raw.size() < kDiscoveryEntrySize)
        return "truncated";
    if (std::all_of(raw.begin(), raw.begin() + kDiscoveryEntrySize,
                    [](std::uint8_t b) { return b == 0; }))
        return "all zero (the log is shorter than its record count)";
    nvmf_disc_log_entry e;
    std::memcpy(&e, raw.data(), sizeof(e));
    if (!defined_trtype(e.trtype))
        return "transport type " + number(e.trtype) + " is not defined";
    if (!defined_adrfam(e.adrfam))
        return "address family " + number(e.adrfam) + " is not defined";
    if (!defined_subtype(e.subtype))
        return "subsystem type " + number(e.subtype) + " is not defined";
    if (!defined_treq(e.treq))
        return "transport requirements " + number(e.treq) + " use reserved bits";
    DiscoveryEntry d;
    if (!padded_field(e.trsvcid, sizeof(e.trsvcid), &d.trsvcid))
        return "trsvcid has a non-printable byte";
    if (!padded_field(e.traddr, sizeof(e.traddr), &d.traddr))
        return "traddr has a non-printable byte";
    const std::size_t nqn_len = strnlen(e.subnqn, sizeof(e.subnqn));
    if (nqn_len == sizeof(e.subnqn))
        return "subnqn is not NUL-terminated within " + number(sizeof(e.subnqn)) + " bytes";
    if (nqn_len == 0)
        return "subnqn is empty";
    if (!std::all_of(e.subnqn, e.subnqn + nqn_len, printable))
        return "subnqn has a non-printable byte";
    d.subnqn.assign(e.subnqn, nqn_len);
    d.trtype = e.trtype;
    d.adrfam = e.adrfam;
    d.subtype = e.subtype;
    d.treq = e.treq;
    d.portid = le16toh(e.portid);
    d.cntlid = le16toh(e.cntlid);
    d.asqsz = le16toh(e.asqsz);
    d.eflags = le16toh(e.eflags);
    d.rdma_qptype = e.tsas.rdma.qptype;
    d.rdma_prtype = e.tsas.rdma.prtype;
    d.rdma_cms = e.tsas.rdma.cms;
    d.rdma_pkey = le16toh(e.tsas.rdma.pkey);
    d.tcp_sectype = e.tsas.tcp.sectype;
    if (out)
        *out = std::move(d);
    return {};
}

DiscoveryLog parse_discovery_log(std::span<const std::uint8_t> log)
{
    const Header h = header_of(log);
    if (h.recfmt != 0)
        throw Error(EPROTO, "discovery log: record format " + number(h.recfmt) +
                                " is not supported (only 0)");
    check_numrec(h.numrec);
    DiscoveryLog out;
    out.genctr = h.genctr;
    out.numrec = h.numrec;
    for (std::size_t i = 0; i < h.numrec; ++i) {
        const std::size_t at = kDiscoveryHeaderSize + i * kDiscoveryEntrySize;
        const std::span<const std::uint8_t> raw =
            at < log.size() ? log.subspan(at) : std::span<const std::uint8_t>{};
        DiscoveryEntry e;
        const std::string why = check_discovery_entry(raw, &e);
        if (!why.empty()) {
            out.warnings.push_back("discovery log entry " + std::to_string(i) + ": " + why +
                                   ", skipped");
            continue;
        }
        e.index = i;
        out.entries.push_back(std::move(e));
    }
    return out;
}

std::vector<std::uint8_t> fetch_discovery_log(const LogPageReader& read, unsigned max_retries)
{
    std::vector<std::uint8_t> header(kDiscoveryHeaderSize);
    read(0, header, true);
    Header h = header_of(header);
    for (unsigned attempt = 1;; ++attempt) {
        check_numrec(h.numrec);
        std::vector<std::uint8_t> log(kDiscoveryHeaderSize + h.numrec * kDiscoveryEntrySize);
        if (h.numrec > 0)
            read(kDiscoveryHeaderSize, std::span(log).subspan(kDiscoveryHeaderSize), true);
        // The header again, RAE clear: the entries are of this generation
        // only if its counter did not move meanwhile.
        read(0, header, false);
        const Header again = header_of(header);
        if (again.genctr == h.genctr) {
            if (again.numrec != h.numrec)
                throw Error(EPROTO, "discovery log: record count changed from " +
                                        std::to_string(h.numrec) + " to " +
                                        std::to_string(again.numrec) + " within generation " +
                                        std::to_string(h.genctr));
            std::copy(header.begin(), header.end(), log.begin());
            return log;
        }
        if (attempt >= max_retries)
            throw Error(EAGAIN, "discovery log: the generation counter changed on each of " +
                                    std::to_string(attempt) + " reads (last " +
                                    std::to_string(h.genctr) + " -> " +
                                    std::to_string(again.genctr) + "); the log did not settle");
        h = again;
    }
}

LogPageReader fd_log_reader(int fd)
{
    return [fd](std::uint64_t offset, std::span<std::uint8_t> out, bool rae) {
        nvme_get_log_args args{};
        args.lpo = offset;
        args.result = nullptr;
        args.log = out.data();
        args.args_size = sizeof(args);
        args.fd = fd;
        args.timeout = NVME_DEFAULT_IOCTL_TIMEOUT;
        args.lid = NVME_LOG_LID_DISCOVER;
        args.len = static_cast<__u32>(out.size());
        args.nsid = NVME_NSID_NONE;
        args.csi = NVME_CSI_NVM;
        args.lsi = NVME_LOG_LSI_NONE;
        args.lsp = NVME_LOG_LSP_NONE;
        args.uuidx = NVME_UUID_NONE;
        args.rae = rae;
        args.ot = false;
        // libnvme splits the read at kDiscoveryMaxTransfer, retaining the
        // event on every command but the last unless rae is set.
        const int rc = nvme_get_log_page(fd, kDiscoveryMaxTransfer, &args);
        if (rc < 0)
            throw Error(errno, std::string("discovery log: Get Log Page: ") +
                                   std::strerror(errno));
        if (rc > 0)
            throw Error(EIO, std::string("discovery log: Get Log Page failed: ") +
                                 nvme_status_to_string(rc, true));
    };
}

DiscoveryLog read_discovery_log(int fd)
{
    return parse_discovery_log(fetch_discovery_log(fd_log_reader(fd)));
}

UniqueFd open_ctrl_device(const std::string& name, std::chrono::milliseconds wait)
{
    const std::string path = "/dev/" + name;
    const auto deadline = std::chrono::steady_clock::now() + wait;
    for (;;) {
        UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));  // as nvme-cli
        if (fd)
            return fd;
        const int err = errno;
        // devtmpfs creates the node shortly after the controller appears.
        if (err != ENOENT || std::chrono::steady_clock::now() >= deadline)
            throw Error(err, "cannot open " + path + ": " + std::strerror(err));
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

}  // namespace rblk
