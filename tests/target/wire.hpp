// NVMe and NVMe-oF/RDMA wire formats the test target speaks: only the
// fields it reads or writes. The layouts follow the NVMe base and
// NVMe-oF specifications (and match include/linux/nvme*.h); multi-byte
// fields are little endian on the wire, as on the hosts this runs on.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

static_assert(std::endian::native == std::endian::little, "little-endian hosts only");

namespace rt {

// A submission queue entry (command capsule header).
struct Sqe {
    uint8_t opcode;
    uint8_t flags;
    uint16_t cid;
    uint32_t nsid;
    uint32_t cdw2, cdw3;
    uint64_t mptr;
    uint8_t dptr[16];
    uint32_t cdw10, cdw11, cdw12, cdw13, cdw14, cdw15;
};
static_assert(sizeof(Sqe) == 64);

// A completion queue entry (response capsule).
struct Cqe {
    uint64_t result;
    uint16_t sq_head;
    uint16_t sq_id;
    uint16_t cid;
    uint16_t status;  // phase bit 0, then the status field
};
static_assert(sizeof(Cqe) == 16);

// RDMA CM private data (NVMe-oF RDMA transport binding).
struct CmReq {
    uint16_t recfmt;
    uint16_t qid;
    uint16_t hrqsize;
    uint16_t hsqsize;
    uint16_t cntlid;
    uint8_t rsvd[22];
};
static_assert(sizeof(CmReq) == 32);

struct CmRep {
    uint16_t recfmt;
    uint16_t crqsize;
    uint8_t rsvd[28];
};
static_assert(sizeof(CmRep) == 32);

struct CmRej {
    uint16_t recfmt;
    uint16_t sts;
};
static_assert(sizeof(CmRej) == 4);

enum CmRejStatus : uint16_t { kRejInvalidRecfmt = 2, kRejInvalidQid = 3, kRejInvalidHsqsize = 4, kRejNoResources = 6 };

// Fabrics Connect data (1024 bytes, host to controller).
struct ConnectData {
    uint8_t hostid[16];
    uint16_t cntlid;
    uint8_t rsvd1[238];
    char subnqn[256];
    char hostnqn[256];
    uint8_t rsvd2[256];
};
static_assert(sizeof(ConnectData) == 1024);
static_assert(offsetof(ConnectData, subnqn) == 256);

// Opcodes.
constexpr uint8_t kOpFabrics = 0x7f;
constexpr uint8_t kFctPropSet = 0x00, kFctConnect = 0x01, kFctPropGet = 0x04;
constexpr uint8_t kAdminSetFeatures = 0x09, kAdminGetFeatures = 0x0a, kAdminIdentify = 0x06,
                  kAdminKeepAlive = 0x18, kAdminAsyncEvent = 0x0c,
                  kAdminGetLogPage = 0x02, kAdminFormatNvm = 0x80;
constexpr uint8_t kIoFlush = 0x00, kIoWrite = 0x01, kIoRead = 0x02;
constexpr uint8_t kIoResvRegister = 0x0d, kIoResvReport = 0x0e, kIoResvAcquire = 0x11, kIoResvRelease = 0x15;
constexpr uint8_t kFeatNumQueues = 0x07, kFeatAsyncEventCfg = 0x0b, kFeatKato = 0x0f;
constexpr uint8_t kFeatHostId = 0x81, kFeatResvMask = 0x82, kFeatResvPersist = 0x83;
constexpr uint8_t kLidDiscovery = 0x70, kLidResvNotice = 0x80;
constexpr uint8_t kCnsNs = 0x00, kCnsCtrl = 0x01, kCnsNsActiveList = 0x02, kCnsNsDescList = 0x03;

// Status codes (the 15-bit status field: SC in 7:0, SCT in 10:8, DNR 14).
constexpr uint16_t kScSuccess = 0x0, kScInvalidOpcode = 0x1, kScInvalidField = 0x2,
                   kScInternal = 0x6, kScInvalidNs = 0xb,
                   kScInvalidFormat = 0xa, kScCmdSeqError = 0xc, kScSglInvalidType = 0x11,
                   kScLbaRange = 0x80, kScResvConflict = 0x83, kScAsyncLimit = 0x105,
                   kScFeatNotSaveable = 0x10d, kScConnectInvalidParam = 0x182, kScDnr = 0x4000;

// Controller properties (register offsets).
constexpr uint32_t kRegCap = 0x00, kRegVs = 0x08, kRegCc = 0x14, kRegCsts = 0x1c;
constexpr uint32_t kCcEnable = 1u, kCcShnShift = 14, kCcShnMask = 3u << kCcShnShift;
constexpr uint32_t kCstsRdy = 1u, kCstsShstComplete = 2u << 2;

// SGL descriptor types (byte 15 of DPTR): type in 7:4, subtype in 3:0.
constexpr uint8_t kSglKeyedData = 0x4, kSglData = 0x0, kSglSubOffset = 0x1;

// ONCS (Optional NVM Command Support) bits.
constexpr uint16_t kOncsReservations = 1u << 5;

// Identify Controller byte offsets.
namespace idc {
constexpr size_t sn = 4, mn = 24, fr = 64, cmic = 76, mdts = 77, cntlid = 78, ver = 80, oaes = 92,
                 cntrltype = 111, aerl = 259, lpa = 261, kas = 320, sqes = 512, cqes = 513, maxcmd = 514,
                 nn = 516, oncs = 520, vwc = 525, sgls = 536, subnqn = 768, ioccsz = 1792, iorcsz = 1796,
                 icdoff = 1800, msdbd = 1803;
}  // namespace idc

// Identify Namespace byte offsets.
namespace idn {
constexpr size_t nsze = 0, ncap = 8, nuse = 16, nlbaf = 25, flbas = 26, rescap = 31, nguid = 104,
                 eui64 = 120, lbaf0 = 128;
}  // namespace idn

constexpr size_t kIdentifySize = 4096;

template <typename T>
inline void put(uint8_t* buf, size_t off, T v)
{
    std::memcpy(buf + off, &v, sizeof(v));
}

template <typename T>
inline T get(const uint8_t* buf, size_t off)
{
    T v;
    std::memcpy(&v, buf + off, sizeof(v));
    return v;
}

// The data pointer of a command: keyed (remote memory) or in-capsule.
struct DataPtr {
    uint64_t addr = 0;
    uint32_t length = 0;
    uint32_t key = 0;
    uint8_t type = 0;     // descriptor type
    uint8_t subtype = 0;  // descriptor sub type

    static DataPtr parse(const Sqe& c)
    {
        DataPtr d;
        d.addr = get<uint64_t>(c.dptr, 0);
        d.type = c.dptr[15] >> 4;
        d.subtype = c.dptr[15] & 0xf;
        if (d.type == kSglKeyedData) {
            d.length = c.dptr[8] | (c.dptr[9] << 8) | (c.dptr[10] << 16);
            d.key = get<uint32_t>(c.dptr, 11);
        } else {
            d.length = get<uint32_t>(c.dptr, 8);
        }
        return d;
    }
    bool keyed() const { return type == kSglKeyedData; }
    bool in_capsule() const { return type == kSglData && subtype == kSglSubOffset; }
};

}  // namespace rt
