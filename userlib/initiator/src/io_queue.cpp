// The asynchronous I/O API; see io_queue.hpp.
#include "rblk/bypass/io_queue.hpp"

#include <algorithm>

namespace rblk::bypass {

namespace {

std::size_t pool_chunk(const ControllerInfo& c) { return std::min<std::size_t>(c.max_transfer, kPoolChunkMax); }

std::size_t pool_count(const ControllerInfo& c, std::uint16_t depth)
{
    return std::max<std::size_t>(1, std::min<std::size_t>(depth, kPoolBytesMax / pool_chunk(c)));
}

}  // namespace

IoQueue::IoQueue(ibv_pd* pd, MemoryMap& map, const ControllerInfo& ctrl, std::vector<NamespaceInfo> namespaces,
                 std::uint16_t depth)
    : depth_(depth),
      max_transfer_(ctrl.max_transfer),
      inline_max_(std::min(in_capsule_capacity(ctrl.ioccsz_bytes / 16), kInlineDataMax)),
      ns_(std::move(namespaces)),
      pool_(pd, pool_chunk(ctrl), pool_count(ctrl, depth)),
      map_(map)
{
}

IoStatus IoQueue::submit(const IoRequest& r)
{
    constexpr IoStatus invalid{IoStatus::Kind::Invalid, 0};
    if (!q_ || q_->failed())
        return {IoStatus::Kind::QueueDown, 0};
    if (r.ns >= ns_.size())
        return invalid;
    const NamespaceInfo& ns = ns_[r.ns];
    Command cmd{};
    std::size_t bytes = 0;
    bool to_target = false;
    switch (r.op) {
    case IoOp::Read:
    case IoOp::Write:
    case IoOp::WriteZeroes:
        if (r.nlb == 0 || r.nlb > 65536 || r.slba > ns.nsze || ns.nsze - r.slba < r.nlb)
            return invalid;
        if (r.op == IoOp::WriteZeroes) {
            fill_write_zeroes(cmd, ns.nsid, r.slba, r.nlb, r.deallocate);
            break;
        }
        bytes = static_cast<std::size_t>(r.nlb) << ns.lba_shift;
        if (r.len != bytes || bytes > max_transfer_ || !r.buf)
            return invalid;
        fill_rw(cmd, r.op == IoOp::Write, ns.nsid, r.slba, r.nlb);
        to_target = r.op == IoOp::Write;
        break;
    case IoOp::Flush: cmd = nvm_flush(ns.nsid); break;
    case IoOp::Dsm:
        if (r.nlb == 0 || r.nlb > 256 || r.len != r.nlb * sizeof(nvme_dsm_range) || !r.buf)
            return invalid;
        cmd = nvm_dsm_deallocate(ns.nsid, r.nlb);
        bytes = r.len;
        to_target = true;
        break;
    }
    Via via = Via::None;
    CapsuleData inline_data;
    if (bytes == 0) {
        // no data: the null SGL the builders set
    } else if (to_target && bytes <= inline_max_) {  // use_in_capsule(), its capacity known
        // The SEND reads registered memory where it is; other memory is
        // copied by the queue (a DSM range on the caller's stack).
        via = Via::InCapsule;
        inline_data.bytes = {static_cast<const std::byte*>(r.buf), bytes};
        if (r.reg && r.reg->covers(r.buf, bytes)) {
            inline_data.lkey = r.reg->lkey;
        } else if (pool_.contains(r.buf, bytes)) {
            inline_data.lkey = pool_.lkey();
            inline_data.stable = true;
        } else if (const Registration* reg = map_.find(r.buf, bytes)) {
            inline_data.lkey = reg->lkey;
        }
    } else {
        RemoteRef ref;
        if (r.reg && r.reg->covers(r.buf, bytes)) {
            ref = {reinterpret_cast<std::uint64_t>(r.buf), r.reg->rkey};
            via = Via::Registered;
        } else if (pool_.contains(r.buf, bytes)) {
            ref = pool_.ref(r.buf);
            via = Via::Pool;
        } else if (const Registration* reg = map_.find(r.buf, bytes)) {
            ref = {reinterpret_cast<std::uint64_t>(r.buf), reg->rkey};
            via = Via::Registered;
        } else {
            return invalid;  // unregistered memory
        }
        cmd.dptr = keyed_sgl(ref.addr, static_cast<std::uint32_t>(bytes), ref.rkey);
    }
    const IoStatus st = q_->submit(cmd, inline_data, r.user_data);
    if (st.ok())
        ++by_via_[static_cast<int>(via)];
    return st;
}

}  // namespace rblk::bypass
