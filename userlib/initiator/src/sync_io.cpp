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

// A call's commands and where they stand.
struct SyncIo::Range {
    IoOp op;
    bool deallocate;
    std::uint32_t shift;  // the LBA size's
    IoQueue* q;           // again after a reconnect
    bool data;            // a read or a write: the caller's bytes move
    bool zero_copy;       // ... from memory the queue has registered
    std::vector<Piece> pieces;
    // One DSM range per command keeps its data in the capsule; the ranges
    // themselves live here until each completes.
    std::vector<nvme_dsm_range> ranges;
    std::vector<IoCompletion> comps;
    std::size_t next = 0, in_flight = 0, done = 0;
    IoStatus first_error{};

    Range(IoOp o, bool dealloc, std::uint32_t lba_shift, IoQueue* queue, std::byte* buf, std::uint64_t len)
        : op(o), deallocate(dealloc), shift(lba_shift), q(queue), data(o == IoOp::Read || o == IoOp::Write),
          zero_copy(data && queue->is_registered(buf, len)), comps(queue->depth())
    {
    }
    std::uint64_t step_blocks() const;
    void cut(std::uint64_t offset, std::byte* buf, std::uint64_t len);
    bool prepare(std::size_t i, IoRequest& r);
    void complete(const IoCompletion& c);
};

// Per command: the transfer limit, the pool chunk when staged, and 65536
// blocks (write zeroes), 0xffffffff blocks a DSM range.
std::uint64_t SyncIo::Range::step_blocks() const
{
    if (data)
        return (zero_copy ? q->max_transfer() : std::min<std::size_t>(q->max_transfer(), q->buffer_size())) >> shift;
    if (op == IoOp::Dsm)
        return 0xffffffffull;
    return 65536;
}

// The range cut into commands (a flush: one, of no blocks).
void SyncIo::Range::cut(std::uint64_t offset, std::byte* buf, std::uint64_t len)
{
    const std::uint64_t step = step_blocks();
    if (op == IoOp::Flush) {
        pieces.push_back({});
    } else {
        for (std::uint64_t b = 0, nb = len >> shift; b < nb; b += step) {
            Piece p;
            p.slba = (offset >> shift) + b;
            p.nlb = static_cast<std::uint32_t>(std::min(step, nb - b));
            p.data = data ? buf + (b << shift) : nullptr;
            pieces.push_back(p);
        }
    }
    ranges.resize(op == IoOp::Dsm ? pieces.size() : 0);
}

// The command of piece i, its data staged through the pool when it must
// be; false when the pool is empty.
bool SyncIo::Range::prepare(std::size_t i, IoRequest& r)
{
    Piece& p = pieces[i];
    r.op = op;
    r.slba = p.slba;
    r.nlb = p.nlb;
    r.user_data = i;
    r.deallocate = deallocate;
    r.len = data ? static_cast<std::size_t>(p.nlb) << shift : 0;
    r.buf = p.data;
    if (data && !zero_copy) {
        p.stage = q->alloc_buffer();
        if (!p.stage)
            return false;
        if (op == IoOp::Write)
            std::memcpy(p.stage, p.data, r.len);
        r.buf = p.stage;
    }
    if (op == IoOp::Dsm) {
        ranges[i] = nvme_dsm_range{0, p.nlb, p.slba};
        r.nlb = 1;
        r.buf = &ranges[i];
        r.len = sizeof(nvme_dsm_range);
        // A target without in-capsule data reads the range from the pool.
        if (q->inline_max() < sizeof(nvme_dsm_range)) {
            p.stage = q->alloc_buffer();
            if (!p.stage)
                return false;
            std::memcpy(p.stage, &ranges[i], sizeof(nvme_dsm_range));
            r.buf = p.stage;
        }
    }
    return true;
}

// A command back: its piece done (a read's staged bytes copied out), or
// its error kept, a final one over one a reconnect may cure.
void SyncIo::Range::complete(const IoCompletion& c)
{
    Piece& p = pieces[c.user_data];
    p.in_flight = false;
    --in_flight;
    const IoStatus& st = c.status;
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

IoStatus SyncIo::range(IoOp op, std::uint64_t offset, std::byte* buf, std::uint64_t len, bool deallocate)
{
    error_.clear();
    if (const IoStatus st = check_range(offset, len); !st.ok())
        return st;
    Range rg(op, deallocate, ctrl_.ns().lba_shift, &ctrl_.io_queue(index_), buf, len);
    rg.cut(offset, buf, len);
    while (rg.done < rg.pieces.size()) {
        if (const IoStatus st = submit_pieces(rg); !st.ok())
            return st;
        if (rg.in_flight == 0 && !rg.first_error.ok()) {
            if (const IoStatus st = reconnect(rg); !st.ok())
                return st;
            continue;
        }
        if (rg.in_flight == 0)  // nothing could be sent: the pool is taken by someone else
            return fail({IoStatus::Kind::Busy, 0}, "no free buffer in the queue's pool");
        wait_completions(rg);
        if (!rg.first_error.ok() && !rg.first_error.retryable() && rg.in_flight == 0)
            return fail(rg.first_error, rg.first_error.describe());
    }
    return {};
}

// Submits what the queue takes. Not ok: an error that ends the call (a
// retryable one is kept in first_error, for reconnect()).
IoStatus SyncIo::submit_pieces(Range& rg)
{
    while (rg.first_error.ok() && rg.next < rg.pieces.size() && rg.in_flight < rg.q->depth()) {
        Piece& p = rg.pieces[rg.next];
        if (p.done || p.in_flight) {
            ++rg.next;
            continue;
        }
        IoRequest r;
        if (!rg.prepare(rg.next, r))
            break;  // pool empty: wait for completions
        const IoStatus st = rg.q->submit(r);
        if (st.kind == IoStatus::Kind::Busy) {
            rg.q->free_buffer(p.stage);
            p.stage = nullptr;
            break;
        }
        if (!st.ok()) {
            rg.q->free_buffer(p.stage);
            p.stage = nullptr;
            if (!st.retryable())
                return fail(st, "cannot submit: " + st.describe());
            rg.first_error = st;
            break;
        }
        p.in_flight = true;
        ++rg.in_flight;
        ++rg.next;
    }
    return {};
}

// Every command is back with first_error: reconnect, then send the rest
// again (ok), or the error that ends the call.
IoStatus SyncIo::reconnect(Range& rg)
{
    if (!rg.first_error.retryable())
        return fail(rg.first_error, rg.first_error.describe());
    const std::string why = ctrl_.failure();
    bool live = false;
    try {
        live = ctrl_.recover();
    } catch (const Error& e) {
        return fail({IoStatus::Kind::QueueDown, 0}, e.what());
    }
    if (!live)
        return fail(rg.first_error, "I/O failed after fast_io_fail_tmo: " + why);
    rg.q = &ctrl_.io_queue(index_);
    rg.first_error = {};
    rg.next = 0;
    return {};
}

void SyncIo::wait_completions(Range& rg)
{
    const std::size_t n = mode_ == CompletionMode::Poll ? rg.q->poll(rg.comps)
                                                        : rg.q->wait(rg.comps, std::chrono::milliseconds(1000));
    for (std::size_t i = 0; i < n; ++i)
        rg.complete(rg.comps[i]);
}

}  // namespace rblk::bypass
