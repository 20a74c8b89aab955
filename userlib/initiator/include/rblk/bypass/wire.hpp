// The NVMe-oF/RDMA wire formats libnvme's <nvme/types.h> lacks: the 64-byte
// command (submission queue entry), its SGL descriptors, the 16-byte
// completion, the RDMA CM private data of the NVMe-oF RDMA transport
// binding and the 1024-byte Fabrics Connect data. Everything else
// (Identify structures, opcodes, status codes, register fields) is taken
// from libnvme. Multi-byte fields are little endian on the wire, as on the
// only hosts this builds for (checked below).
#pragma once

extern "C" {  // libnvme 1.3 headers lack C++ linkage guards
#include <nvme/types.h>
}

#include <bit>
#include <cstddef>
#include <cstdint>

namespace rblk::bypass {

static_assert(std::endian::native == std::endian::little, "little-endian hosts only");

// An SGL descriptor (NVMe base spec 4.3.2): 16 bytes, its type in the last.
struct SglDesc {
    std::uint64_t addr;       // keyed: remote address; offset type: offset in the capsule
    std::uint8_t length[3];   // keyed: 24-bit length (the other types use all four bytes)
    std::uint8_t key[4];      // keyed: the rkey
    std::uint8_t type;        // descriptor type << 4 | subtype
};
static_assert(sizeof(SglDesc) == 16);

// SGL descriptor types and subtypes that the RDMA transport uses.
inline constexpr std::uint8_t kSglTypeDataBlock = 0x0;   // in-capsule data (subtype offset)
inline constexpr std::uint8_t kSglTypeKeyedData = 0x4;   // the target RDMA-reads/writes host memory
inline constexpr std::uint8_t kSglSubtypeAddress = 0x0;
inline constexpr std::uint8_t kSglSubtypeOffset = 0x1;
inline constexpr std::uint8_t kSglSubtypeInvalidate = 0xf;
inline constexpr std::uint32_t kKeyedSglMaxLength = 0xffffff;

// Command dword 0 flags: PSDT = 01b, the data pointer is an SGL (what
// NVMe-oF requires).
inline constexpr std::uint8_t kCmdFlagsSgl = 0x40;

// A submission queue entry: the generic layout, the dwords named as the
// specification does; capsule.hpp fills them per command.
struct Command {
    std::uint8_t opcode;
    std::uint8_t flags;
    std::uint16_t cid;
    std::uint32_t nsid;        // Fabrics commands: fctype in its low byte
    std::uint32_t cdw2, cdw3;
    std::uint64_t mptr;
    SglDesc dptr;
    std::uint32_t cdw10, cdw11, cdw12, cdw13, cdw14, cdw15;
};
static_assert(sizeof(Command) == 64);
static_assert(offsetof(Command, dptr) == 24);

// Fabrics command layouts over the same 64 bytes.
struct FabricsConnect {
    std::uint8_t opcode;       // nvme_admin_fabrics (0x7f)
    std::uint8_t flags;
    std::uint16_t cid;
    std::uint8_t fctype;       // nvme_fabrics_type_connect
    std::uint8_t rsvd5[19];
    SglDesc dptr;
    std::uint16_t recfmt;
    std::uint16_t qid;
    std::uint16_t sqsize;      // 0's based
    std::uint8_t cattr;
    std::uint8_t rsvd47;
    std::uint32_t kato;        // milliseconds
    std::uint8_t rsvd52[12];
};
static_assert(sizeof(FabricsConnect) == 64);

struct FabricsProperty {
    std::uint8_t opcode;
    std::uint8_t flags;
    std::uint16_t cid;
    std::uint8_t fctype;       // property_get / property_set
    std::uint8_t rsvd5[35];
    std::uint8_t attrib;       // 0: 4 bytes, 1: 8 bytes
    std::uint8_t rsvd41[3];
    std::uint32_t offset;
    std::uint64_t value;       // Set only
    std::uint8_t rsvd56[8];
};
static_assert(sizeof(FabricsProperty) == 64);

// The Connect command's data (host to controller).
struct ConnectData {
    std::uint8_t hostid[16];
    std::uint16_t cntlid;
    std::uint8_t rsvd18[238];
    char subnqn[NVME_NQN_LENGTH];
    char hostnqn[NVME_NQN_LENGTH];
    std::uint8_t rsvd768[256];
};
static_assert(sizeof(ConnectData) == 1024);
static_assert(offsetof(ConnectData, subnqn) == 256 && offsetof(ConnectData, hostnqn) == 512);

// A completion queue entry (response capsule).
struct Completion {
    std::uint64_t result;      // command specific (dword 0, dword 1)
    std::uint16_t sq_head;
    std::uint16_t sq_id;
    std::uint16_t cid;
    std::uint16_t status;      // phase tag in bit 0, the status field above it
};
static_assert(sizeof(Completion) == 16);

// The status field of a completion: SC, SCT, CRD, MORE, DNR.
inline constexpr std::uint16_t completion_status(const Completion& c) { return c.status >> 1; }

// RDMA CM private data, NVMe-oF RDMA transport binding (section 3.3).
struct CmRequest {
    std::uint16_t recfmt;      // 0
    std::uint16_t qid;
    std::uint16_t hrqsize;     // host receive queue size: entries the host posts
    std::uint16_t hsqsize;     // host send queue size, 0's based
    std::uint16_t cntlid;
    std::uint8_t rsvd[22];
};
static_assert(sizeof(CmRequest) == 32);

struct CmReply {
    std::uint16_t recfmt;
    std::uint16_t crqsize;     // controller receive queue size
    std::uint8_t rsvd[28];
};
static_assert(sizeof(CmReply) == 32);

struct CmReject {
    std::uint16_t recfmt;
    std::uint16_t sts;         // CmRejectStatus
};
static_assert(sizeof(CmReject) == 4);

enum class CmRejectStatus : std::uint16_t {
    InvalidPrivateDataLength = 1,
    InvalidRecfmt = 2,
    InvalidQid = 3,
    InvalidHsqsize = 4,
    InvalidHrqsize = 5,
    NoResources = 6,
    InvalidIrd = 7,
    InvalidOrd = 8,
};

// Depth of the admin queue (as Linux's NVME_AQ_DEPTH).
inline constexpr std::uint16_t kAdminQueueSize = 32;

}  // namespace rblk::bypass
