// Fabrics commands: Connect (admin and I/O queues; an admin queue that
// names a discovery NQN forms a discovery controller), Property Get/Set.
#include <cstring>
#include <string>

#include "target.hpp"

namespace rt {

namespace {

constexpr uint32_t kIpoAttrData = 1u << 16;  // invalid parameter is in the Connect data
constexpr uint32_t kIpoAttrSqe = 0;           // ... in the Connect command itself
constexpr uint32_t kQidOffset = 42;           // of QID in the Connect command
constexpr uint32_t kSqsizeOffset = 44;        // of SQSIZE in the Connect command

uint64_t cap_value(uint16_t max_queue_size)
{
    const uint64_t mqes = max_queue_size - 1u;
    const uint64_t cqr = 1ull << 16;
    const uint64_t to = 10ull << 24;  // 5 s, in 500 ms units
    const uint64_t css_nvm = 1ull << 37;
    return mqes | cqr | to | css_nvm;  // MPSMIN = MPSMAX = 0: 4 KiB pages
}

}  // namespace

void Target::fabrics(Queue& q, uint32_t slot)
{
    const Sqe& c = q.sqe(slot);
    const uint8_t fctype = reinterpret_cast<const uint8_t*>(&c)[4];

    if (fctype == kFctConnect) {
        connect(q, slot);
        return;
    }
    if (!q.connected || q.qid() != 0) {
        reply(q, slot, kScInvalidOpcode | kScDnr);
        return;
    }
    Controller& ctrl = ctrls_[q.cntlid];
    const auto* raw = reinterpret_cast<const uint8_t*>(&c);
    const uint32_t off = get<uint32_t>(raw, 44);
    if (fctype == kFctPropGet) {
        switch (off) {
        case kRegCap:
            reply(q, slot, kScSuccess, cap_value(opts_.max_queue_size));
            return;
        case kRegVs:
            reply(q, slot, kScSuccess, 0x00010300);  // 1.3
            return;
        case kRegCc:
            reply(q, slot, kScSuccess, ctrl.cc);
            return;
        case kRegCsts:
            reply(q, slot, kScSuccess, ctrl.csts);
            return;
        default:
            reply(q, slot, kScInvalidField | kScDnr);
            return;
        }
    }
    if (fctype == kFctPropSet && off == kRegCc) {
        const uint32_t cc = uint32_t(get<uint64_t>(raw, 48));
        ctrl.cc = cc;
        // CSTS follows CC at once: RDY with EN, SHST with SHN.
        ctrl.csts = (cc & kCcEnable) ? kCstsRdy : 0;
        if (cc & kCcShnMask)
            ctrl.csts |= kCstsShstComplete;
        reply(q, slot, kScSuccess);
        return;
    }
    reply(q, slot, kScInvalidField | kScDnr);
}

void Target::connect(Queue& q, uint32_t slot)
{
    if (hang_up_.count(q.id())) {
        // The misbehaviour: the connection goes, the Connect unanswered.
        log("misbehave: disconnecting qid " + std::to_string(q.qid()) + " instead of answering Connect");
        q.release(slot);
        // The Connect may overtake the host's RTU. Before the CM is
        // established rdma_disconnect() sends no DREQ at all and the host
        // would only learn at its timeout: first establish it from the
        // data, as nvmet-rdma does on IB_EVENT_COMM_EST.
        rdma_notify(q.id(), IBV_EVENT_COMM_EST);
        rdma_disconnect(q.id());
        return;
    }
    const DataPtr dp = DataPtr::parse(q.sqe(slot));
    q.fetch(slot, q.scratch(slot), q.scratch_lkey(), dp, sizeof(ConnectData),
            [this, &q, slot](bool ok) { connect_done(q, slot, ok); });
}

void Target::connect_done(Queue& q, uint32_t slot, bool ok)
{
    if (!ok) {
        reply(q, slot, kScSglInvalidType | kScDnr);
        return;
    }
    ConnectData data;
    std::memcpy(&data, q.scratch(slot), sizeof(data));
    data.subnqn[sizeof(data.subnqn) - 1] = '\0';
    const auto* raw = reinterpret_cast<const uint8_t*>(&q.sqe(slot));
    const uint16_t qid = get<uint16_t>(raw, kQidOffset);
    const uint16_t sqsize = get<uint16_t>(raw, kSqsizeOffset);  // 0's based

    const bool discovery = is_discovery_nqn(data.subnqn);
    if (opts_.subnqn != data.subnqn && !discovery) {
        reply(q, slot, kScConnectInvalidParam | kScDnr, kIpoAttrData | offsetof(ConnectData, subnqn));
        return;
    }
    if (qid != q.qid()) {
        reply(q, slot, kScInvalidField | kScDnr);
        return;
    }
    // As nvmet_install_queue(): SQSIZE 0, or an I/O SQ beyond CAP.MQES.
    if (sqsize == 0 || (qid != 0 && sqsize > opts_.max_queue_size - 1u)) {
        log("connect: qid " + std::to_string(qid) + " sqsize " + std::to_string(sqsize) +
            " rejected (MQES " + std::to_string(opts_.max_queue_size - 1u) + ")");
        reply(q, slot, kScConnectInvalidParam | kScDnr, kIpoAttrSqe | kSqsizeOffset);
        return;
    }
    if (qid == 0) {
        const uint16_t cntlid = next_cntlid_++;
        Controller& ctrl = ctrls_[cntlid];
        ctrl.subnqn = data.subnqn;
        ctrl.discovery = discovery;
        std::memcpy(ctrl.hostid.data(), data.hostid, sizeof(data.hostid));
        ctrl.admin_q = &q;
        q.cntlid = cntlid;
    } else if (!ctrls_.count(data.cntlid)) {
        reply(q, slot, kScConnectInvalidParam | kScDnr, kIpoAttrData | offsetof(ConnectData, cntlid));
        return;
    } else if (ctrls_[data.cntlid].subnqn != data.subnqn) {
        reply(q, slot, kScConnectInvalidParam | kScDnr, kIpoAttrData | offsetof(ConnectData, subnqn));
        return;
    } else if (resv_ && std::memcmp(ctrls_[data.cntlid].hostid.data(), data.hostid, sizeof(data.hostid))) {
        // As nvmet: one host per controller; its Host ID names the
        // registrant, so an I/O queue may not bring another.
        reply(q, slot, kScConnectInvalidParam | kScDnr, kIpoAttrData | offsetof(ConnectData, hostid));
        return;
    } else if (ctrls_[data.cntlid].discovery) {
        // As nvmet: a discovery controller has no I/O queues (its MAXQID is 0).
        log("connect: qid " + std::to_string(qid) + " refused: cntlid " + std::to_string(data.cntlid) +
            " is a discovery controller");
        reply(q, slot, kScConnectInvalidParam | kScDnr, kIpoAttrSqe | kQidOffset);
        return;
    } else {
        q.cntlid = data.cntlid;
    }
    q.connected = true;
    q.set_sqsize(sqsize);
    log("connect: qid " + std::to_string(qid) + " cntlid " + std::to_string(q.cntlid) + " depth " +
        std::to_string(q.depth()) + " sqsize " + std::to_string(sqsize) + (discovery ? " discovery" : ""));
    reply(q, slot, kScSuccess, q.cntlid);
}

}  // namespace rt
