// The discovery log page (log identifier 70h) as a byte image: a header
// (genctr, numrec, recfmt) and one 1024-byte entry per record, laid out
// as in the NVMe-oF specification (struct nvmf_disc_rsp_page_hdr/_entry
// of include/linux/nvme.h). Pure functions, no RDMA: what a log says is
// decided by the caller (discovery.cpp), these only write it down.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rt {

// The well-known discovery subsystem NQN (NVME_DISC_SUBSYS_NAME).
inline constexpr std::string_view kDiscNqn = "nqn.2014-08.org.nvmexpress.discovery";

namespace disc {

// Field values.
constexpr uint8_t kTrtypeRdma = 1, kAdrfamIpv4 = 1;
constexpr uint8_t kSubtypeReferral = 1, kSubtypeNvme = 2;  // NVME_NQN_DISC, NVME_NQN_NVME
constexpr uint8_t kQptypeConnected = 1, kPrtypeNotSpecified = 1, kCmsRdmaCm = 1;
constexpr uint16_t kCntlidDynamic = 0xffff, kAdminQueueSize = 32;

// Byte offsets and widths.
constexpr size_t kHeaderSize = 1024, kEntrySize = 1024;
constexpr size_t hdr_genctr = 0, hdr_numrec = 8, hdr_recfmt = 16;
constexpr size_t e_trtype = 0, e_adrfam = 1, e_subtype = 2, e_treq = 3, e_portid = 4, e_cntlid = 6,
                 e_asqsz = 8, e_trsvcid = 32, e_subnqn = 256, e_traddr = 512, e_qptype = 768,
                 e_prtype = 769, e_cms = 770, e_pkey = 776;
constexpr size_t kTrsvcidLen = 32, kSubnqnLen = 256, kTraddrLen = 256;

// One record. The strings are written as given, cut to their field's
// width: traddr and trsvcid padded with spaces, subnqn with NULs; a
// string of the full width leaves its field without a terminator.
struct Entry {
    uint8_t trtype = kTrtypeRdma;
    uint8_t adrfam = kAdrfamIpv4;
    uint8_t subtype = kSubtypeNvme;
    uint8_t treq = 0;
    uint16_t portid = 1;
    uint16_t cntlid = kCntlidDynamic;
    uint16_t asqsz = kAdminQueueSize;
    std::string trsvcid;
    std::string subnqn;
    std::string traddr;
    uint8_t qptype = kQptypeConnected;
    uint8_t prtype = kPrtypeNotSpecified;
    uint8_t cms = kCmsRdmaCm;
    uint16_t pkey = 0;
};

struct Log {
    uint64_t genctr = 0;
    uint64_t numrec = 0;  // what the header says, whatever @entries holds
    std::vector<Entry> entries;
};

// The header and the entries, nothing past the last one.
std::vector<uint8_t> image(const Log& log);

// Bytes [@offset, @offset + @len) of @img into @dst; past its end zeros.
void copy_out(const std::vector<uint8_t>& img, uint64_t offset, uint8_t* dst, size_t len);

// A --disc-entry: "SUBNQN@TRADDR:TRSVCID[,referral]"; nullopt and @error
// if it is not one.
std::optional<Entry> parse_entry(std::string_view spec, std::string& error);

}  // namespace disc
}  // namespace rt
