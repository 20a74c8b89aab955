#include "queue.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <utility>

namespace rt {

namespace {

constexpr uint32_t kWrPerSlot = 4;  // READ or WRITE, SEND, a spare SEND, slack

}  // namespace

Queue::Queue(rdma_cm_id* id, Device& dev, uint16_t qid, uint16_t depth, uint32_t inline_bytes)
    : dev_(dev), qid_(qid), depth_(depth), stride_(sizeof(Sqe) + inline_bytes), sqsize_(depth - 1)
{
    channel_.reset(check_ptr(ibv_create_comp_channel(dev_.ctx), "ibv_create_comp_channel"));
    const int cqe = depth_ * (kWrPerSlot + 1) + 8;
    cq_.reset(check_ptr(ibv_create_cq(dev_.ctx, cqe, nullptr, channel_.get(), 0), "ibv_create_cq"));
    check_rc(ibv_req_notify_cq(cq_.get(), 0), "ibv_req_notify_cq");

    ibv_qp_init_attr init{};
    init.send_cq = cq_.get();
    init.recv_cq = cq_.get();
    init.qp_type = IBV_QPT_RC;
    init.cap.max_send_wr = depth_ * kWrPerSlot + 4;
    init.cap.max_recv_wr = depth_;
    init.cap.max_send_sge = 1;
    init.cap.max_recv_sge = 1;
    check_rc(rdma_create_qp(id, dev_.pd.get(), &init), "rdma_create_qp");
    qp_.adopt(id);

    recv_.resize(size_t(depth_) * stride_);
    lens_.assign(depth_, 0);
    rsp_.resize(size_t(depth_) * 2);
    scratch_.resize(size_t(depth_) * kScratch);
    pending_.resize(depth_);
    large_.resize(depth_);
    busy_.assign(depth_, false);
    recv_mr_.reset(check_ptr(ibv_reg_mr(dev_.pd.get(), recv_.data(), recv_.size(), IBV_ACCESS_LOCAL_WRITE),
                             "ibv_reg_mr(receive buffers)"));
    rsp_mr_.reset(check_ptr(ibv_reg_mr(dev_.pd.get(), rsp_.data(), rsp_.size() * sizeof(Cqe), 0),
                            "ibv_reg_mr(responses)"));
    scratch_mr_.reset(check_ptr(ibv_reg_mr(dev_.pd.get(), scratch_.data(), scratch_.size(),
                                           IBV_ACCESS_LOCAL_WRITE),
                                "ibv_reg_mr(scratch)"));
    for (uint32_t s = 0; s < depth_; s++)
        check_rc(post_recv(id->qp, s), "ibv_post_recv");
    id_.reset(id);
}

const Sqe& Queue::sqe(uint32_t slot) const
{
    return *reinterpret_cast<const Sqe*>(sqe_bytes(slot));
}

uint8_t* Queue::data_buffer(uint32_t slot, uint32_t len, uint32_t& lkey)
{
    if (len <= kScratch) {
        lkey = scratch_lkey();
        return scratch(slot);
    }
    if (len > kMaxData)
        return nullptr;
    Large& l = large_[slot];
    if (!l.mr) {
        l.mem.assign(kMaxData, 0);
        l.mr.reset(ibv_reg_mr(dev_.pd.get(), l.mem.data(), l.mem.size(), IBV_ACCESS_LOCAL_WRITE));
        if (!l.mr) {
            std::cerr << "qid " << qid_ << ": ibv_reg_mr(data buffer): " << std::strerror(errno) << "\n";
            l.mem = {};
            return nullptr;
        }
    }
    lkey = l.mr->lkey;
    return l.mem.data();
}

int Queue::post_recv(ibv_qp* qp, uint32_t slot)
{
    ibv_sge sge{reinterpret_cast<uintptr_t>(sqe_bytes(slot)), stride_, recv_mr_->lkey};
    ibv_recv_wr wr{}, *bad = nullptr;
    wr.wr_id = wr_id(kRecv, slot);
    wr.sg_list = &sge;
    wr.num_sge = 1;
    return ibv_post_recv(qp, &wr, &bad);
}

bool Queue::post_send(ibv_send_wr& wr)
{
    ibv_send_wr* bad = nullptr;
    if (ibv_post_send(id_->qp, &wr, &bad)) {
        std::cerr << "qid " << qid_ << ": ibv_post_send failed\n";
        broken = true;
        return false;
    }
    return true;
}

void Queue::fetch(uint32_t slot, uint8_t* dst, uint32_t lkey, const DataPtr& dp, uint32_t len, Done done)
{
    if (dp.in_capsule()) {
        const bool ok = dp.addr == 0 && dp.length >= len && capsule_len(slot) >= len;
        if (ok) {
            std::memcpy(dst, capsule_data(slot), len);
            in_capsule_++;
        }
        done(ok);
        return;
    }
    if (!dp.keyed() || dp.length < len) {
        done(false);
        return;
    }
    pending_[slot] = std::move(done);
    post_rdma(IBV_WR_RDMA_READ, wr_id(kRead, slot), dst, lkey, dp, len);
}

bool Queue::push(uint32_t slot, const uint8_t* src, uint32_t lkey, const DataPtr& dp, uint32_t len)
{
    if (!dp.keyed() || dp.length < len)
        return false;
    post_rdma(IBV_WR_RDMA_WRITE, wr_id(kOther, slot), src, lkey, dp, len);
    return true;
}

void Queue::write_remote(const uint8_t* src, uint32_t lkey, const DataPtr& dp, uint32_t len, Done done)
{
    remote_done_ = std::move(done);
    if (!post_rdma(IBV_WR_RDMA_WRITE, wr_id(kRemote, 0), src, lkey, dp, len))
        std::exchange(remote_done_, nullptr)(false);
}

bool Queue::post_rdma(ibv_wr_opcode op, uint64_t id, const uint8_t* local, uint32_t lkey, const DataPtr& dp,
                      uint32_t len)
{
    ibv_sge sge{reinterpret_cast<uintptr_t>(local), len, lkey};
    ibv_send_wr wr{};
    wr.wr_id = id;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = op;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.wr.rdma.remote_addr = dp.addr;
    wr.wr.rdma.rkey = dp.key;
    return post_send(wr);
}

void Queue::send_cqe(const Cqe& cqe)
{
    const uint32_t i = rsp_next_++ % rsp_.size();
    rsp_[i] = cqe;
    rsp_[i].sq_head = ++sq_head_;
    rsp_[i].sq_id = qid_;
    ibv_sge sge{reinterpret_cast<uintptr_t>(&rsp_[i]), sizeof(Cqe), rsp_mr_->lkey};
    ibv_send_wr wr{};
    wr.wr_id = wr_id(kOther, i);
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_SEND;
    wr.send_flags = IBV_SEND_SIGNALED;
    post_send(wr);
}

void Queue::respond(uint32_t slot, const Cqe& cqe)
{
    release(slot);
    send_cqe(cqe);
}

void Queue::release(uint32_t slot)
{
    if (busy_[slot]) {
        busy_[slot] = false;
        inflight_--;
    }
    pending_[slot] = nullptr;
    if (post_recv(id_->qp, slot))
        broken = true;
}

void Queue::received(uint32_t slot)
{
    busy_[slot] = true;
    max_inflight_ = std::max(max_inflight_, ++inflight_);
    if (inflight_ > sqsize_) {
        overflows_++;
        std::cerr << "OVERFLOW qid=" << qid_ << " inflight=" << inflight_ << " sqsize=" << sqsize_ << std::endl;
    }
}

void Queue::process(const std::function<void(uint32_t slot)>& on_cmd)
{
    ibv_cq* cq = nullptr;
    void* ctx = nullptr;
    if (ibv_get_cq_event(channel_.get(), &cq, &ctx) == 0) {
        ibv_ack_cq_events(cq, 1);
        if (ibv_req_notify_cq(cq_.get(), 0))
            broken = true;
    }
    ibv_wc wc[16];
    int n;
    while ((n = ibv_poll_cq(cq_.get(), 16, wc)) > 0) {
        for (int i = 0; i < n; i++) {
            const auto kind = Kind(wc[i].wr_id >> 32);
            const uint32_t slot = uint32_t(wc[i].wr_id);
            if (wc[i].status != IBV_WC_SUCCESS) {
                if (wc[i].status != IBV_WC_WR_FLUSH_ERR)
                    std::cerr << "qid " << qid_ << ": work request failed: "
                              << ibv_wc_status_str(wc[i].status) << "\n";
                broken = true;
                if (kind == kRead && slot < depth_ && pending_[slot])
                    std::exchange(pending_[slot], nullptr)(false);
                if (kind == kRemote && remote_done_)
                    std::exchange(remote_done_, nullptr)(false);
                continue;
            }
            if (kind == kRecv && slot < depth_) {
                if (wc[i].byte_len < sizeof(Sqe)) {
                    release(slot);
                    continue;
                }
                lens_[slot] = wc[i].byte_len;
                received(slot);
                on_cmd(slot);
            } else if (kind == kRead && slot < depth_ && pending_[slot]) {
                std::exchange(pending_[slot], nullptr)(true);
            } else if (kind == kRemote && remote_done_) {
                std::exchange(remote_done_, nullptr)(true);
            }
        }
    }
}

}  // namespace rt
