// The kernel's ublk driver seen from a userspace block server: the
// control device (/dev/ublk-control: add, configure, start, stop and delete
// a device /dev/ublkbN, over io_uring URING_CMD on a ring of 128-byte
// SQEs), one queue of a device (its /dev/ublkcN descriptor area and the
// FETCH_REQ / COMMIT_AND_FETCH_REQ commands of each tag), and the pure
// translation of a ublk request (sectors of 512 bytes) into the bypass
// initiator's IoRequest (blocks of the namespace's LBA size), which the
// host unit tests cover.
//
// liburing 2.3 knows IORING_OP_URING_CMD and sqe->cmd_op but has no ublk
// helpers: the command area of the SQE is filled here by hand, as ublksrv
// does. The host's <linux/ublk_cmd.h> is Linux 6.1's: the structures are
// the same on 6.12; what 6.1's lacks (the ioctl-encoded opcodes,
// UBLK_F_CMD_IOCTL_ENCODE, GET_FEATURES) is defined below from 6.12's uapi.
//
// Opcodes: ioctl-encoded ones ('u', _IOWR) when the driver's GET_FEATURES
// reports UBLK_F_CMD_IOCTL_ENCODE, the legacy plain numbers otherwise, as
// ublksrv chooses: a kernel built without CONFIG_BLKDEV_UBLK_LEGACY_OPCODES
// takes only the encoded ones, a kernel older than GET_FEATURES (6.1's
// ublk) only the legacy ones.
//
// No UBLK_F_USER_COPY and no zero copy: the driver copies each request's
// data to or from the buffer given with FETCH_REQ, which the server takes
// from the I/O queue's registered pool, so the RDMA side moves it with no
// further copy.
//
// Devices are added with UBLK_F_USER_RECOVERY and _REISSUE where the
// driver has them (Linux 6.0 on): a server that dies leaves its devices
// quiesced, their I/O held (what it had been handed requeued), until a new
// server takes them back (START_USER_RECOVERY, every tag fetched again,
// END_USER_RECOVERY) or someone stops them (STOP_DEV fails what is held).
#pragma once

#include "rblk/bypass/io_queue.hpp"

#include <rblk/unique_fd.hpp>

#include <linux/ublk_cmd.h>
#include <liburing.h>
#include <sched.h>
#include <sys/ioctl.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

// Linux 6.12's uapi additions the 6.1 header lacks (include/uapi/linux/ublk_cmd.h).
#ifndef UBLK_F_CMD_IOCTL_ENCODE
#define UBLK_F_CMD_IOCTL_ENCODE (1UL << 6)
#endif
#ifndef UBLK_U_CMD_GET_FEATURES
#define UBLK_U_CMD_GET_FEATURES _IOR('u', 0x13, struct ublksrv_ctrl_cmd)
#endif

namespace rblk::bypass {

// The opcode of ublk control or I/O command `nr` (UBLK_CMD_*, UBLK_IO_*),
// ioctl-encoded or legacy (the header comment).
std::uint32_t ublk_ctrl_op(std::uint32_t nr, bool ioctl_encode);
std::uint32_t ublk_io_op(std::uint32_t nr, bool ioctl_encode);

// Write Zeroes carries a 16-bit 0's based block count.
inline constexpr std::uint64_t kWriteZeroesMaxBlocks = 65536;

// An SQE for a URING_CMD of `op` on `fd`; the caller fills its command area.
inline void ublk_prep_uring_cmd(io_uring_sqe* sqe, int fd, std::uint32_t op)
{
    std::memset(sqe, 0, sizeof(*sqe));
    sqe->opcode = IORING_OP_URING_CMD;
    sqe->fd = fd;
    sqe->cmd_op = op;
}

// What the device may be asked, from the controller's ONCS.
struct UblkCaps {
    bool discard = false;       // Dataset Management (deallocate)
    bool write_zeroes = false;  // Write Zeroes
};
UblkCaps ublk_caps(const ControllerInfo& c);

// The request of `iod` on the namespace `ns`: sectors become blocks (a
// range that is not whole blocks, or beyond the namespace, is -EINVAL),
// read and write carry `buf` (the tag's buffer, `buf_len` bytes), flush is
// Flush, discard a Dataset Management deallocate of one range written into
// `buf`, write zeroes Write Zeroes (deallocating unless NOUNMAP). Anything
// else, and what `caps` says the controller lacks, is -EOPNOTSUPP.
// Returns 0 with every field of `r` set but user_data, ns and reg (the
// caller's), or the errno (negative) to complete the request with at once.
// Inline and in place: once per request, in the server's submission path.
inline int ublk_translate(const ublksrv_io_desc& iod, const NamespaceInfo& ns, const UblkCaps& caps,
                          std::byte* buf, std::size_t buf_len, IoRequest& r)
{
    const std::uint32_t op = iod.op_flags & 0xff;
    const std::uint32_t flags = iod.op_flags >> 8;
    if (op == UBLK_IO_OP_FLUSH) {
        r.op = IoOp::Flush;
        r.slba = 0;
        r.nlb = 0;
        r.buf = nullptr;
        r.len = 0;
        r.deallocate = false;
        return 0;
    }
    const std::uint32_t shift = ns.lba_shift - 9;  // sectors per block, as a shift
    const std::uint64_t mask = (1ull << shift) - 1;
    if ((iod.start_sector & mask) || (iod.nr_sectors & mask) || iod.nr_sectors == 0)
        return -EINVAL;
    const std::uint64_t slba = iod.start_sector >> shift;
    const std::uint64_t nlb = static_cast<std::uint64_t>(iod.nr_sectors) >> shift;
    if (slba > ns.nsze || ns.nsze - slba < nlb)
        return -EINVAL;
    switch (op) {
    case UBLK_IO_OP_READ:
    case UBLK_IO_OP_WRITE: {
        const std::uint64_t bytes = nlb << ns.lba_shift;
        if (bytes > buf_len || nlb > 65536)
            return -EINVAL;
        r.op = op == UBLK_IO_OP_READ ? IoOp::Read : IoOp::Write;
        r.slba = slba;
        r.nlb = static_cast<std::uint32_t>(nlb);
        r.buf = buf;
        r.len = static_cast<std::size_t>(bytes);
        r.deallocate = false;
        return 0;
    }
    case UBLK_IO_OP_DISCARD: {
        if (!caps.discard)
            return -EOPNOTSUPP;
        if (nlb > 0xffffffffull || buf_len < sizeof(nvme_dsm_range))
            return -EINVAL;
        const nvme_dsm_range range{0, static_cast<__le32>(nlb), static_cast<__le64>(slba)};
        std::memcpy(buf, &range, sizeof(range));
        r.op = IoOp::Dsm;
        r.slba = 0;
        r.nlb = 1;
        r.buf = buf;
        r.len = sizeof(range);
        r.deallocate = false;
        return 0;
    }
    case UBLK_IO_OP_WRITE_ZEROES:
        if (!caps.write_zeroes)
            return -EOPNOTSUPP;
        if (nlb > kWriteZeroesMaxBlocks)
            return -EINVAL;
        r.op = IoOp::WriteZeroes;
        r.slba = slba;
        r.nlb = static_cast<std::uint32_t>(nlb);
        r.buf = nullptr;
        r.len = 0;
        r.deallocate = !(flags & (UBLK_IO_F_NOUNMAP >> 8));
        return 0;
    default:
        return -EOPNOTSUPP;
    }
}

// SET_PARAMS of a device serving `ns`: its size and block size, at most
// `max_io_bytes` per request, a volatile cache when the controller has
// one (so the block layer sends flushes), discard and write zeroes as
// `caps` says.
ublk_params ublk_device_params(const NamespaceInfo& ns, bool volatile_cache, const UblkCaps& caps,
                               std::uint32_t max_io_bytes);

// Whether this kernel can serve ublk at all, and if not the one line that
// says why: no /dev/ublk-control, and a ublk_drv module to load or none.
// `modules_dir` is /lib/modules/<release> (tests pass their own).
std::string ublk_missing_reason(const std::string& control_path, const std::string& modules_dir);

// An io_uring owned: set up in the constructor (throws Error), torn down once.
class Ring {
public:
    Ring(unsigned entries, unsigned flags, const char* what);
    Ring(const Ring&) = delete;
    Ring& operator=(const Ring&) = delete;
    ~Ring() { io_uring_queue_exit(&ring_); }
    io_uring* get() { return &ring_; }

private:
    io_uring ring_{};
};

// /dev/ublk-control. Each call is one control command, synchronous; the
// int results are 0 or a negative errno.
class UblkControl {
public:
    // Throws Error with ublk_missing_reason()'s line when there is no ublk.
    explicit UblkControl(const std::string& path = "/dev/ublk-control");

    bool ioctl_encode() const { return encode_; }
    std::uint64_t features() const { return features_; }
    // dev_info.dev_id: the id wanted, or UINT32_MAX for any; filled by the
    // driver on success.
    int add_dev(ublksrv_ctrl_dev_info& info);
    int set_params(std::uint32_t dev_id, const ublk_params& p);
    // Returns once the disk is added: every queue must have fetched first.
    int start_dev(std::uint32_t dev_id, int server_pid);
    int stop_dev(std::uint32_t dev_id);
    int del_dev(std::uint32_t dev_id);
    int get_dev_info(std::uint32_t dev_id, ublksrv_ctrl_dev_info& info);
    // The CPUs whose requests go to queue `qid` (blk-mq's map).
    int get_queue_affinity(std::uint32_t dev_id, std::uint16_t qid, cpu_set_t& cpus);
    // Whether add_dev() asks for user recovery (the driver has it).
    bool recovery() const { return (features_ & UBLK_F_USER_RECOVERY) != 0; }
    // A dead server's device made ready for a new one: -EBUSY until the
    // driver has quiesced it (its old server's file released).
    int start_recovery(std::uint32_t dev_id);
    // Returns once every queue has fetched again; the held I/O goes.
    int end_recovery(std::uint32_t dev_id, int server_pid);

private:
    int command(std::uint32_t nr, std::uint32_t dev_id, void* buf, std::uint16_t len,
                std::uint64_t data0);

    UniqueFd fd_;
    Ring ring_;
    bool encode_ = false;
    std::uint64_t features_ = 0;
};

// One queue of a started-to-be device: its slice of the descriptor area
// of /dev/ublkcN (read-only, mmapped), its I/O commands going on a ring of
// the caller's, driven by one thread (the driver completes a queue's
// requests in the task that fetched them). One ring may carry the queues of
// several devices: each tag's user_data is `ud_base` + the tag.
class UblkQueue {
public:
    // `char_fd`: /dev/ublkc<dev_id>, shared by the device's queues;
    // `ring`: outlives the queue, with an SQE per tag free. Throws Error.
    UblkQueue(io_uring* ring, int char_fd, std::uint16_t qid, std::uint16_t depth, bool ioctl_encode,
              std::uint64_t ud_base);
    UblkQueue(const UblkQueue&) = delete;
    UblkQueue& operator=(const UblkQueue&) = delete;
    ~UblkQueue();

    std::uint16_t depth() const { return depth_; }
    const ublksrv_io_desc& iod(std::uint16_t tag) const { return iods_[tag]; }
    // Queue FETCH_REQ (first) or COMMIT_AND_FETCH_REQ (with the result of
    // the tag's last request) on the ring, its user_data ud_base + tag; the caller
    // submits. A full SQ is submitted first to make room; false when the
    // kernel refused that (-EBUSY while completions overflow: reap, retry).
    bool fetch(std::uint16_t tag, void* buf) { return io_cmd(fetch_op_, tag, 0, buf); }
    bool commit(std::uint16_t tag, int result, void* buf) { return io_cmd(commit_op_, tag, result, buf); }

private:
    bool io_cmd(std::uint32_t op, std::uint16_t tag, int result, void* buf);

    int fd_;
    std::uint16_t qid_;
    std::uint16_t depth_;
    // The two commands' opcodes, encoded (ublk_io_op()) once.
    std::uint32_t fetch_op_;
    std::uint32_t commit_op_;
    io_uring* ring_;
    std::uint64_t ud_base_;
    const ublksrv_io_desc* iods_ = nullptr;
    std::size_t map_len_ = 0;
};

// The ublksrv_io_cmd in the command area of a 64-byte SQE (16 bytes there).
static_assert(sizeof(ublksrv_io_cmd) <= 16);

// Inline: once per request, in the server's completion path.
inline bool UblkQueue::io_cmd(std::uint32_t op, std::uint16_t tag, int result, void* buf)
{
    io_uring_sqe* sqe = io_uring_get_sqe(ring_);
    if (!sqe) {
        // A full SQ: what it holds goes to the kernel now rather than this
        // command be dropped (its tag would never come back: the device
        // would hang on it). The caller submits at its next wait anyway.
        if (io_uring_submit(ring_) < 0 || !(sqe = io_uring_get_sqe(ring_)))
            return false;
    }
    ublk_prep_uring_cmd(sqe, fd_, op);
    ublksrv_io_cmd c{};
    c.q_id = qid_;
    c.tag = tag;
    c.result = result;
    c.addr = reinterpret_cast<std::uintptr_t>(buf);
    std::memcpy(sqe->cmd, &c, sizeof(c));
    io_uring_sqe_set_data64(sqe, ud_base_ + tag);
    return true;
}

}  // namespace rblk::bypass
