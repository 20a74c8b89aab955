// I/O commands on the RAM namespace: Read (RDMA WRITE to the host), Write
// (in-capsule data or RDMA READ from the host), Flush; with
// --reservations the reservation commands (resv.cpp) and, before any
// other, the reservation's access check. The command id and status
// misbehaviours are applied here, to commands that touch the trap.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "target.hpp"

namespace rt {

namespace {

std::string hex(uint16_t v)
{
    char s[8];
    std::snprintf(s, sizeof(s), "%#06x", v);
    return s;
}

std::string hex32(uint32_t v)
{
    char s[12];
    std::snprintf(s, sizeof(s), "%#010x", v);
    return s;
}

constexpr uint16_t kGenShift = 12;  // rblk: tag in 11:0, generation in 15:12 (never trusted)

}  // namespace

void Target::io(Queue& q, uint32_t slot)
{
    const Sqe& c = q.sqe(slot);
    const bool resv_op = resv_ && is_resv_opcode(c.opcode);
    if (c.opcode != kIoRead && c.opcode != kIoWrite && c.opcode != kIoFlush && !resv_op) {
        reply(q, slot, kScInvalidOpcode | kScDnr);
        return;
    }
    const uint64_t size = ns_bytes(c.nsid);
    if (!size) {
        reply(q, slot, kScInvalidNs | kScDnr);
        return;
    }
    if (resv_op) {
        resv_command(q, slot);
        return;
    }
    // Flush belongs to the write group of the access table.
    const auto group = c.opcode == kIoRead ? resv::Access::read : resv::Access::write;
    if (resv_ && !resv_->allows(ctrls_[q.cntlid].hostid, group)) {
        reply(q, slot, kScResvConflict | kScDnr);
        return;
    }
    if (c.opcode == kIoFlush) {
        reply(q, slot, kScSuccess);
        return;
    }
    const uint64_t slba = c.cdw10 | (uint64_t(c.cdw11) << 32);
    const uint32_t shift = block_shift();
    const uint64_t len = uint64_t((c.cdw12 & 0xffff) + 1) << shift;
    if (slba > (size >> shift) || (slba << shift) + len > size) {
        reply(q, slot, kScLbaRange | kScDnr);
        return;
    }
    const uint64_t off = slba << shift;
    const bool in_trap = off < opts_.trap_offset + 4096 && opts_.trap_offset < off + len;
    const Action act = bad_.on_command(in_trap);
    if (act == Action::drop) {
        log("misbehave: silence from qid " + std::to_string(q.qid()) + " cid " + hex(c.cid) + " on");
        q.release(slot);
        return;
    }
    if (act == Action::misbehave && bad_.is(Mode::stale_key_write) && c.opcode == kIoRead) {
        stale_hold(q, slot);
        return;
    }
    const DataPtr dp = DataPtr::parse(c);
    uint8_t* data = ns_.data() + off;
    const uint32_t lkey = q.device().ns_mr->lkey;
    if (c.opcode == kIoRead) {
        const bool ok = q.push(slot, data, lkey, dp, uint32_t(len));
        io_done(q, slot, act, ok ? kScSuccess : kScSglInvalidType | kScDnr);
        return;
    }
    q.fetch(slot, data, lkey, dp, uint32_t(len), [this, &q, slot, act](bool ok) {
        io_done(q, slot, act, ok ? kScSuccess : kScSglInvalidType | kScDnr);
    });
}

// The read stays unanswered: its buffer is the host's until the host
// ends the command, and with the key kept here the target may try to
// reach it after that (stale_fire()).
void Target::stale_hold(Queue& q, uint32_t slot)
{
    const Sqe& c = q.sqe(slot);
    const DataPtr dp = DataPtr::parse(c);
    log("misbehave: stale-key-write: holding qid " + std::to_string(q.qid()) + " cid " + hex(c.cid) + " key " +
        hex32(dp.key) + " length " + std::to_string(dp.length) + " (#" + std::to_string(bad_.hits()) + ")");
    if (!stale_ && dp.keyed())
        stale_ = StaleKey{q.cntlid, q.qid(), dp};
}

// Once: 4 KiB of 0xee to the first held read's buffer, through the admin
// queue of its controller (the same PD on the host), and what became of it.
void Target::stale_fire()
{
    stale_fired_ = true;
    Queue* admin = nullptr;
    for (auto& [id, q] : queues_)
        if (q->qid() == 0 && q->cntlid == stale_->cntlid && q->connected && !q->broken)
            admin = q.get();
    if (!admin) {
        log("stale-key-write: no admin queue of controller " + std::to_string(stale_->cntlid) +
            " left: nothing written");
        return;
    }
    const uint32_t len = std::min<uint32_t>(stale_->dp.length, 4096);
    stale_src_.assign(len, 0xee);
    stale_mr_.reset(ibv_reg_mr(admin->device().pd.get(), stale_src_.data(), stale_src_.size(), 0));
    if (!stale_mr_) {
        log(std::string("stale-key-write: ibv_reg_mr: ") + std::strerror(errno));
        return;
    }
    log("stale-key-write: writing " + std::to_string(len) + " bytes with key " + hex32(stale_->dp.key) +
        " of qid " + std::to_string(stale_->qid) + " through qid 0");
    admin->write_remote(stale_src_.data(), stale_mr_->lkey, stale_->dp, len, [](bool ok) {
        log(ok ? "stale-key-write: landed: the host let the target write memory it had given back"
               : "stale-key-write: refused by the host");
    });
}

void Target::io_done(Queue& q, uint32_t slot, Action act, uint16_t status)
{
    if (act != Action::misbehave) {
        if (opts_.reply_delay_ms) {
            const auto due = std::chrono::steady_clock::now() + std::chrono::milliseconds(opts_.reply_delay_ms);
            held_.push_back({&q, slot, status, due});
            return;
        }
        reply(q, slot, status);
        return;
    }
    const uint16_t cid = q.sqe(slot).cid;
    const uint16_t tag = cid & ((1u << kGenShift) - 1);
    Cqe cqe{};
    cqe.cid = cid;
    cqe.status = uint16_t(status << 1);
    switch (bad_.mode()) {
    case Mode::unknown_cid:
        cqe.cid = uint16_t((cid & ~0xfffu) | 0xfff);  // a tag far beyond the queue depth
        break;
    case Mode::stale_cid:
        cqe.cid = uint16_t(((cid - (1u << kGenShift)) & ~0xfffu) | tag);
        break;
    case Mode::dnr_status:
        cqe.status = uint16_t((kScInternal | kScDnr) << 1);
        break;
    default:
        break;
    }
    log("misbehave: " + std::string(mode_name(bad_.mode())) + ": qid " + std::to_string(q.qid()) +
        " cid " + hex(cid) + " answered as " + hex(cqe.cid) + " status " + hex(cqe.status >> 1) + " (#" +
        std::to_string(bad_.hits()) + ")");
    q.respond(slot, cqe);
    if (bad_.is(Mode::double_completion))
        q.send_cqe(cqe);
}

}  // namespace rt
