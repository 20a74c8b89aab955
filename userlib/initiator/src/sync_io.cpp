// The synchronous layer; see sync_io.hpp.
#include "rblk/bypass/sync_io.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

namespace rblk::bypass {

namespace {

// One command of a range.
struct Piece {
    std::uint64_t slba = 0;
    std::uint32_t nlb = 0;
    std::byte* data = nullptr;   // the caller's bytes (read/write)
    std::byte* stage = nullptr;  // pool chunk while in flight, when staged
    bool done = false;
    bool in_flight = false;
};

}  // namespace

SyncIo::SyncIo(Controller& ctrl, std::size_t queue_index, CompletionMode mode)
    : ctrl_(ctrl), index_(queue_index), mode_(mode)
{
}

IoStatus SyncIo::fail(IoStatus st, const std::string& why)
{
    error_ = why;
    return st;
}

IoStatus SyncIo::check_range(std::uint64_t offset, std::uint64_t len)
{
    const NamespaceInfo& ns = ctrl_.ns();
    const std::uint64_t lba = ns.lba_size();
    if (offset % lba || len % lba)
        return fail({IoStatus::Kind::Invalid, 0},
                    "offset and length must be multiples of the LBA size (" + std::to_string(lba) + ")");
    if (offset > ns.size_bytes() || ns.size_bytes() - offset < len)
        return fail({IoStatus::Kind::Invalid, 0},
                    "range beyond the namespace's end (" + std::to_string(ns.size_bytes()) + " bytes)");
    return {};
}

IoStatus SyncIo::read(std::uint64_t offset, void* buf, std::size_t len)
{
    return range(IoOp::Read, offset, static_cast<std::byte*>(buf), len, false);
}

IoStatus SyncIo::write(std::uint64_t offset, const void* buf, std::size_t len)
{
    // Never written to: a write only sends it.
    return range(IoOp::Write, offset, const_cast<std::byte*>(static_cast<const std::byte*>(buf)), len,
                 false);
}

IoStatus SyncIo::write_zeroes(std::uint64_t offset, std::uint64_t len, bool deallocate)
{
    return range(IoOp::WriteZeroes, offset, nullptr, len, deallocate);
}

IoStatus SyncIo::deallocate(std::uint64_t offset, std::uint64_t len)
{
    return range(IoOp::Dsm, offset, nullptr, len, false);
}

IoStatus SyncIo::flush() { return range(IoOp::Flush, 0, nullptr, 0, false); }

IoStatus SyncIo::range(IoOp op, std::uint64_t offset, std::byte* buf, std::uint64_t len, bool deallocate)
{
    error_.clear();
    if (const IoStatus st = check_range(offset, len); !st.ok())
        return st;
    IoQueue* q = &ctrl_.io_queue(index_);
    const std::uint32_t shift = ctrl_.ns().lba_shift;
    const bool data = op == IoOp::Read || op == IoOp::Write;
    const bool zero_copy = data && q->is_registered(buf, len);
    // Per command: the transfer limit, the pool chunk when staged, and
    // 65536 blocks (write zeroes), 0xffffffff blocks a DSM range.
    std::uint64_t step_blocks = 65536;
    if (data)
        step_blocks = (zero_copy ? q->max_transfer() : std::min<std::size_t>(q->max_transfer(), q->buffer_size())) >> shift;
    else if (op == IoOp::Dsm)
        step_blocks = 0xffffffffull;
    std::vector<Piece> pieces;
    if (op == IoOp::Flush) {
        pieces.push_back({});
    } else {
        for (std::uint64_t b = 0, nb = len >> shift; b < nb; b += step_blocks) {
            Piece p;
            p.slba = (offset >> shift) + b;
            p.nlb = static_cast<std::uint32_t>(std::min(step_blocks, nb - b));
            p.data = data ? buf + (b << shift) : nullptr;
            pieces.push_back(p);
        }
    }
    // One DSM range per command keeps its data in the capsule; the ranges
    // themselves live here until each completes.
    std::vector<nvme_dsm_range> ranges(op == IoOp::Dsm ? pieces.size() : 0);

    std::size_t next = 0, in_flight = 0, done = 0;
    IoStatus first_error{};
    std::vector<IoCompletion> comps(q->depth());
    while (done < pieces.size()) {
        // Submit what the queue takes.
        while (first_error.ok() && next < pieces.size() && in_flight < q->depth()) {
            Piece& p = pieces[next];
            if (p.done || p.in_flight) {
                ++next;
                continue;
            }
            IoRequest r;
            r.op = op;
            r.slba = p.slba;
            r.nlb = p.nlb;
            r.user_data = next;
            r.deallocate = deallocate;
            r.len = data ? static_cast<std::size_t>(p.nlb) << shift : 0;
            r.buf = p.data;
            if (data && !zero_copy) {
                p.stage = q->alloc_buffer();
                if (!p.stage)
                    break;  // pool empty: wait for completions
                if (op == IoOp::Write)
                    std::memcpy(p.stage, p.data, r.len);
                r.buf = p.stage;
            }
            if (op == IoOp::Dsm) {
                ranges[next] = nvme_dsm_range{0, p.nlb, p.slba};
                r.nlb = 1;
                r.buf = &ranges[next];
                r.len = sizeof(nvme_dsm_range);
                // A target without in-capsule data reads the range from the pool.
                if (q->inline_max() < sizeof(nvme_dsm_range)) {
                    p.stage = q->alloc_buffer();
                    if (!p.stage)
                        break;
                    std::memcpy(p.stage, &ranges[next], sizeof(nvme_dsm_range));
                    r.buf = p.stage;
                }
            }
            const IoStatus st = q->submit(r);
            if (st.kind == IoStatus::Kind::Busy) {
                q->free_buffer(p.stage);
                p.stage = nullptr;
                break;
            }
            if (!st.ok()) {
                q->free_buffer(p.stage);
                p.stage = nullptr;
                if (!st.retryable())
                    return fail(st, "cannot submit: " + st.describe());
                first_error = st;
                break;
            }
            p.in_flight = true;
            ++in_flight;
            ++next;
        }
        if (in_flight == 0 && !first_error.ok()) {
            // Every command is back: reconnect, then send the rest again.
            if (!first_error.retryable())
                return fail(first_error, first_error.describe());
            const std::string why = ctrl_.failure();
            bool live = false;
            try {
                live = ctrl_.recover();
            } catch (const Error& e) {
                return fail({IoStatus::Kind::QueueDown, 0}, e.what());
            }
            if (!live)
                return fail(first_error, "I/O failed after fast_io_fail_tmo: " + why);
            q = &ctrl_.io_queue(index_);
            first_error = {};
            next = 0;
            continue;
        }
        if (in_flight == 0)  // nothing could be sent: the pool is taken by someone else
            return fail({IoStatus::Kind::Busy, 0}, "no free buffer in the queue's pool");
        const std::size_t n = mode_ == CompletionMode::Poll
                                  ? q->poll(comps)
                                  : q->wait(comps, std::chrono::milliseconds(1000));
        for (std::size_t i = 0; i < n; ++i) {
            Piece& p = pieces[comps[i].user_data];
            p.in_flight = false;
            --in_flight;
            const IoStatus& st = comps[i].status;
            if (st.ok()) {
                if (op == IoOp::Read && p.stage)
                    std::memcpy(p.data, p.stage, static_cast<std::size_t>(p.nlb) << shift);
                p.done = true;
                ++done;
            } else if (first_error.ok() || (!st.retryable() && first_error.retryable())) {
                first_error = st;
            }
            q->free_buffer(p.stage);
            p.stage = nullptr;
        }
        if (!first_error.ok() && !first_error.retryable() && in_flight == 0)
            return fail(first_error, first_error.describe());
    }
    return {};
}

}  // namespace rblk::bypass
