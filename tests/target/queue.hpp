// One NVMe-oF/RDMA queue of the test target: its cm_id, QP, CQ, the
// receive buffers that command capsules land in, and the verbs that move
// data (RDMA READ/WRITE against the host's keyed SGL) and responses
// (SEND). Commands are addressed by the slot of their receive buffer,
// which is reposted only once the command is answered.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "verbs.hpp"
#include "wire.hpp"

namespace rt {

// Per RDMA device: the PD, and the namespace memory registered in it.
struct Device {
    ibv_context* ctx = nullptr;
    Pd pd;
    Mr ns_mr;
    ibv_device_attr attr{};
};

class Queue {
public:
    using Done = std::function<void(bool ok)>;
    static constexpr uint32_t kScratch = 4096;  // Identify / Connect data

    // Owns @id once constructed; a throwing constructor leaves it alone.
    Queue(rdma_cm_id* id, Device& dev, uint16_t qid, uint16_t depth, uint32_t inline_bytes);
    Queue(const Queue&) = delete;
    Queue& operator=(const Queue&) = delete;

    rdma_cm_id* id() const { return id_.get(); }
    int fd() const { return channel_->fd; }
    uint16_t qid() const { return qid_; }
    uint16_t depth() const { return depth_; }
    Device& device() const { return dev_; }

    // Association state, set by the Fabrics Connect.
    uint16_t cntlid = 0;
    bool connected = false;
    bool broken = false;  // a work request failed: the host sees it too

    // The invariant under test: commands received and not yet answered
    // never exceed SQSIZE (0's based, from Connect; before it, the CM's).
    void set_sqsize(uint16_t sqsize) { sqsize_ = sqsize; }
    uint16_t sqsize() const { return sqsize_; }
    uint32_t max_inflight() const { return max_inflight_; }
    uint64_t overflows() const { return overflows_; }
    // Commands whose data came in the capsule.
    uint64_t in_capsule() const { return in_capsule_; }

    const Sqe& sqe(uint32_t slot) const;
    // In-capsule data of @slot's command: its bytes after the SQE.
    const uint8_t* capsule_data(uint32_t slot) const { return sqe_bytes(slot) + sizeof(Sqe); }
    uint32_t capsule_len(uint32_t slot) const { return lens_[slot] - sizeof(Sqe); }
    uint8_t* scratch(uint32_t slot) { return scratch_.data() + slot * kScratch; }
    uint32_t scratch_lkey() const { return scratch_mr_->lkey; }
    // Room for @len bytes of @slot's data, up to kMaxData (a discovery
    // log longer than the scratch): the scratch if it fits, else a buffer
    // of the slot's own, registered on first use and kept, like the
    // scratch, for the slot's later commands. nullptr beyond kMaxData (or
    // if it cannot be registered).
    static constexpr uint32_t kMaxData = 1u << 20;
    uint8_t* data_buffer(uint32_t slot, uint32_t len, uint32_t& lkey);

    // Host memory to [dst, dst+len): in-capsule data or an RDMA READ.
    // @done runs when the data is there (possibly before this returns).
    void fetch(uint32_t slot, uint8_t* dst, uint32_t lkey, const DataPtr& dp, uint32_t len, Done done);
    // [src, src+len) to the host's keyed buffer; ordered before the response.
    bool push(uint32_t slot, const uint8_t* src, uint32_t lkey, const DataPtr& dp, uint32_t len);
    // [src, src+len) to host memory at @dp outside any command of this
    // queue (stale-key-write); @done(ok) when the WR completes.
    void write_remote(const uint8_t* src, uint32_t lkey, const DataPtr& dp, uint32_t len, Done done);
    // Takes the slot back for the next command, then SENDs @cqe.
    void respond(uint32_t slot, const Cqe& cqe);
    // One more response, any contents, the slot untouched.
    void send_cqe(const Cqe& cqe);
    // Takes the slot back without an answer.
    void release(uint32_t slot);

    // Drains the CQ; @on_cmd(slot) for every command capsule received.
    void process(const std::function<void(uint32_t slot)>& on_cmd);

private:
    enum Kind : uint64_t { kRecv = 1, kRead = 2, kOther = 3, kRemote = 4 };
    static uint64_t wr_id(Kind k, uint32_t slot) { return (uint64_t(k) << 32) | slot; }
    const uint8_t* sqe_bytes(uint32_t slot) const { return recv_.data() + size_t(slot) * stride_; }
    int post_recv(ibv_qp* qp, uint32_t slot);
    void received(uint32_t slot);
    bool post_send(ibv_send_wr& wr);
    bool post_rdma(ibv_wr_opcode op, uint64_t id, const uint8_t* local, uint32_t lkey, const DataPtr& dp,
                   uint32_t len);

    // Declaration order is tear-down order reversed: the id goes last.
    CmId id_;
    Device& dev_;
    uint16_t qid_, depth_;
    uint32_t stride_;
    CompChannel channel_;
    Cq cq_;
    QpOwner qp_;
    std::vector<uint8_t> recv_;
    std::vector<uint32_t> lens_;
    std::vector<Cqe> rsp_;
    std::vector<uint8_t> scratch_;
    Mr recv_mr_, rsp_mr_, scratch_mr_;
    struct Large {
        std::vector<uint8_t> mem;
        Mr mr;
    };
    std::vector<Large> large_;  // per slot, data_buffer() beyond kScratch
    std::vector<Done> pending_;  // per slot: waiting for an RDMA READ
    Done remote_done_;           // write_remote()'s WR
    uint32_t rsp_next_ = 0;
    uint16_t sq_head_ = 0;
    uint16_t sqsize_;
    uint32_t inflight_ = 0, max_inflight_ = 0;
    uint64_t overflows_ = 0;
    uint64_t in_capsule_ = 0;
    std::vector<bool> busy_;  // per slot: received, not yet answered
};

}  // namespace rt
