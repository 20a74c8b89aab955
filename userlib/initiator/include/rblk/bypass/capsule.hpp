// Command capsules: the pure functions that fill a 64-byte Command for each
// command the initiator sends (Fabrics Connect, Property Get/Set, Identify,
// Set Features, Keep Alive, and the NVM commands read, write, flush, write
// zeroes, dataset management) and encode its data pointer as an SGL
// descriptor: keyed (the target moves the data with RDMA READ/WRITE into
// registered host memory) or in-capsule (the data follows the command in
// the same SEND). No RDMA here: the host unit tests check every byte.
#pragma once

#include "rblk/bypass/wire.hpp"

#include <cstdint>
#include <cstring>
#include <optional>

namespace rblk::bypass {

// SGL encoding. Inline, as the command builders below that every I/O
// calls: out of line, each was a call returning a struct through memory.
inline SglDesc keyed_sgl(std::uint64_t addr, std::uint32_t length, std::uint32_t rkey)
{
    SglDesc d{};
    d.addr = addr;
    d.length[0] = static_cast<std::uint8_t>(length);
    d.length[1] = static_cast<std::uint8_t>(length >> 8);
    d.length[2] = static_cast<std::uint8_t>(length >> 16);
    std::memcpy(d.key, &rkey, sizeof(rkey));
    d.type = kSglTypeKeyedData << 4 | kSglSubtypeAddress;
    return d;
}

// A command without data: keyed, all zero.
inline SglDesc null_sgl() { return keyed_sgl(0, 0, 0); }

// The data right after the 64 bytes.
inline SglDesc in_capsule_sgl(std::uint32_t length)
{
    SglDesc d{};
    d.addr = 0;  // offset from the end of the command (ICDOFF 0)
    std::memcpy(d.length, &length, sizeof(length));  // 4-byte length for this type
    d.type = kSglTypeDataBlock << 4 | kSglSubtypeOffset;
    return d;
}

std::uint32_t keyed_sgl_length(const SglDesc& d);
std::uint32_t keyed_sgl_key(const SglDesc& d);

// How many bytes of data an I/O command may carry in its capsule: IOCCSZ
// is in 16-byte units and counts the 64-byte command (NVMe-oF 4.2). The
// admin queue's capsules are 64 bytes plus 8 KiB at most; rblk sends its
// admin data (Connect's) through keyed SGLs, so it needs none of it.
std::uint32_t in_capsule_capacity(std::uint32_t ioccsz);
// Does a write of `length` bytes go in the capsule? `limit` is a policy
// cap below the capacity (what the queue's send buffers were sized for).
bool use_in_capsule(std::uint32_t length, std::uint32_t ioccsz, std::uint32_t limit);

// Fabrics commands. The data of Connect (ConnectData) goes through a keyed
// SGL the caller sets afterwards.
Command fabrics_connect(std::uint16_t qid, std::uint16_t sqsize_0based, std::uint32_t kato_ms);
Command property_get(std::uint32_t offset, bool eight_bytes);
Command property_set(std::uint32_t offset, std::uint64_t value, bool eight_bytes);
// Fills a ConnectData; hostid is the binary UUID. NQNs longer than the
// field are the caller's error (validated before, by ConnectOptions).
ConnectData connect_data(const std::uint8_t (&hostid)[16], std::uint16_t cntlid,
                         const char* subnqn, const char* hostnqn);

// Admin commands.
Command identify(std::uint8_t cns, std::uint32_t nsid);
Command set_features_num_queues(std::uint16_t nr_queues);
Command keep_alive();

// NVM commands; nlb is the number of blocks (1-based here, 0's based on the wire).
enum class IoOp : std::uint8_t { Read, Write, Flush, WriteZeroes, Dsm };
inline Command with_sgl(std::uint8_t opcode)
{
    Command c{};
    c.opcode = opcode;
    c.flags = kCmdFlagsSgl;
    c.dptr = null_sgl();
    return c;
}

// A read or write into `c`, which is all zero: the hot path fills the
// command it already has (built and assigned, the 64 bytes were zeroed
// and copied twice more).
inline void fill_rw(Command& c, bool write, std::uint32_t nsid, std::uint64_t slba, std::uint32_t nlb)
{
    c.opcode = write ? nvme_cmd_write : nvme_cmd_read;
    c.flags = kCmdFlagsSgl;
    c.dptr = null_sgl();
    c.nsid = nsid;
    c.cdw10 = static_cast<std::uint32_t>(slba);
    c.cdw11 = static_cast<std::uint32_t>(slba >> 32);
    c.cdw12 = (nlb - 1) & 0xffff;
}

inline Command nvm_rw(bool write, std::uint32_t nsid, std::uint64_t slba, std::uint32_t nlb)
{
    Command c{};
    fill_rw(c, write, nsid, slba, nlb);
    return c;
}

// Write Zeroes into `c`, which is all zero, as fill_rw().
inline void fill_write_zeroes(Command& c, std::uint32_t nsid, std::uint64_t slba, std::uint32_t nlb, bool deallocate)
{
    fill_rw(c, false, nsid, slba, nlb);
    c.opcode = nvme_cmd_write_zeroes;
    if (deallocate)
        c.cdw12 |= NVME_IO_DEAC << 16;
}

Command nvm_flush(std::uint32_t nsid);
Command nvm_write_zeroes(std::uint32_t nsid, std::uint64_t slba, std::uint32_t nlb, bool deallocate);
// Deallocate `nr_ranges` (1..256) nvme_dsm_range entries sent as data.
Command nvm_dsm_deallocate(std::uint32_t nsid, std::uint32_t nr_ranges);

// The CC value rblk enables the controller with: NVM command set, 4 KiB
// pages, round robin, 64-byte SQEs and 16-byte CQEs; `shutdown` asks for
// a normal shutdown instead (CC.SHN = 01b).
std::uint32_t cc_enable();
std::uint32_t cc_shutdown(std::uint32_t cc);

}  // namespace rblk::bypass
