// Identify sanity checks: what the initiator takes from Identify Controller,
// Identify Namespace and the active namespace list, each field checked
// before use, so that a target reporting absurd values is refused with a
// clear message instead of driving the data path. The same rules as the
// module's (kmod/core.c, rblk_check_id_ctrl() and rblk_identify_ns()); the
// MDTS arithmetic and the rule for an active list's ids are the module's
// own code (kmod/shared/identify.c).
#pragma once

extern "C" {  // libnvme 1.3 headers lack C++ linkage guards
#include <nvme/types.h>
}

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace rblk::bypass {

// What the data path needs of a controller.
struct ControllerInfo {
    std::uint16_t cntlid = 0;
    std::uint32_t nn = 0;            // namespaces, 0 = not reported
    std::uint32_t ioccsz_bytes = 64; // I/O command capsule, command included
    std::uint32_t max_transfer = 0;  // bytes per command (MDTS and CAP.MPSMIN), capped
    std::uint16_t maxcmd = 0;        // 0 = not reported
    std::uint16_t kas = 0;           // keep-alive granularity, 100 ms units
    std::uint16_t oncs = 0;
    std::uint8_t vwc = 0;
    std::string serial, model, firmware, subnqn;

    // ONCS: Dataset Management (deallocate) and Write Zeroes.
    bool has_dsm() const { return (oncs & (1u << 2)) != 0; }
    bool has_write_zeroes() const { return (oncs & (1u << 3)) != 0; }
};

struct NamespaceInfo {
    std::uint32_t nsid = 0;
    std::uint64_t nsze = 0;          // blocks
    std::uint32_t lba_shift = 9;
    std::uint64_t size_bytes() const { return nsze << lba_shift; }
    std::uint32_t lba_size() const { return 1u << lba_shift; }
};

// The largest transfer rblk issues in one command, whatever MDTS allows.
inline constexpr std::uint32_t kMaxTransferCap = 1u << 20;

// Checked Identify Controller data, or the reason it is refused. `cap` is
// the controller's CAP property (for MPSMIN).
std::variant<ControllerInfo, std::string> check_id_ctrl(const nvme_id_ctrl& id, std::uint64_t cap);

// Checked Identify Namespace data of `nsid`, or the reason it is refused.
std::variant<NamespaceInfo, std::string> check_id_ns(const nvme_id_ns& id, std::uint32_t nsid);

// The ids of an Active Namespace ID list (CNS 02h, one 4 KiB page of
// little-endian ids, a zero ending it early), checked as the module checks
// it: ascending, none FFFFFFFFh, within NN when NN is reported. An empty
// list, or an id out of order, is refused with the reason.
std::variant<std::vector<std::uint32_t>, std::string> check_active_ns_list(const void* page, std::uint32_t nn);

// Identify strings are space-padded ASCII: printable, trailing blanks gone.
std::string id_string(const char* field, std::size_t len);

}  // namespace rblk::bypass
