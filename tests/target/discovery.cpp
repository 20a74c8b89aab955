// The discovery controller: what an admin queue whose Connect names the
// well-known discovery NQN (or --discovery-nqn) is served. Identify
// Controller says so (CNTRLTYPE 2, no namespaces, discovery log change
// notices, no transfer limit), Get Log Page 70h reads the log at any
// dword offset and length as nvmet's discovery.c does (zeros past its
// end), AERs are held unanswered, keep-alive and the Asynchronous Event
// Configuration and Keep Alive Timer features are answered, Number of
// Queues is refused (no I/O queues). What the log says, normal or one of
// the disc-* misbehaviours, is put together here per read; misbehave.cpp
// says which reads misbehave, disclog.cpp writes the bytes.
#include <arpa/inet.h>

#include <cstring>
#include <string>

#include "target.hpp"

namespace rt {

namespace {

constexpr uint8_t kCntrltypeDiscovery = 2;
constexpr uint32_t kOaesDiscLogChange = 1u << 31;
constexpr uint8_t kAerl = 3;                  // 0's based: four AERs held at most
constexpr uint8_t kLpaExtendedData = 1u << 2;  // NUMDU, LPOL/LPOU honoured
constexpr uint64_t kHugeNumrec = 0xffffffff;
constexpr uint64_t kTruncatedMissing = 3;  // records the header claims beyond the entries
constexpr char kFiller = 'X';              // disc-unterminated: no space, no NUL

// The address the host reached us at (the listener may be 0.0.0.0).
std::string local_addr(rdma_cm_id* id, const std::string& fallback)
{
    const sockaddr* sa = rdma_get_local_addr(id);
    char s[INET_ADDRSTRLEN];
    if (sa && sa->sa_family == AF_INET &&
        inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, s, sizeof(s)))
        return s;
    return fallback;
}

std::string filled(std::string s, size_t width)
{
    s.resize(width, kFiller);
    return s;
}

}  // namespace

bool Target::is_discovery_nqn(const std::string& nqn) const
{
    return nqn == kDiscNqn || (!opts_.disc_nqn.empty() && nqn == opts_.disc_nqn);
}

void Target::disc_admin(Queue& q, uint32_t slot)
{
    const Sqe& c = q.sqe(slot);
    Controller& ctrl = ctrls_[q.cntlid];
    switch (c.opcode) {
    case kAdminIdentify: {
        if ((c.cdw10 & 0xff) != kCnsCtrl) {
            reply(q, slot, kScInvalidField | kScDnr);
            return;
        }
        uint8_t* buf = q.scratch(slot);
        std::memset(buf, 0, kIdentifySize);
        identify_ctrl(q, buf);  // the I/O controller's, then what differs
        buf[idc::mdts] = 0;     // no limit
        buf[idc::cntrltype] = kCntrltypeDiscovery;
        put<uint32_t>(buf, idc::nn, 0);
        put<uint32_t>(buf, idc::oaes, kOaesDiscLogChange);
        buf[idc::aerl] = kAerl;
        buf[idc::lpa] = kLpaExtendedData;
        buf[idc::vwc] = 0;
        std::memset(buf + idc::subnqn, 0, 256);
        std::strncpy(reinterpret_cast<char*>(buf + idc::subnqn), ctrl.subnqn.c_str(), 255);
        if (!q.push(slot, buf, q.scratch_lkey(), DataPtr::parse(c), kIdentifySize)) {
            reply(q, slot, kScSglInvalidType | kScDnr);
            return;
        }
        reply(q, slot, kScSuccess);
        return;
    }
    case kAdminKeepAlive:
        reply(q, slot, kScSuccess);
        return;
    case kAdminAsyncEvent:
        if (ctrl.aers > kAerl) {
            reply(q, slot, kScAsyncLimit | kScDnr);
            return;
        }
        // Held: the log never changes on its own (disc-genctr-churn's
        // genctr moves with the reads, not with an event).
        ctrl.aers++;
        log("discovery: cntlid " + std::to_string(q.cntlid) + ": AER held (" + std::to_string(ctrl.aers) +
            " outstanding)");
        return;
    case kAdminGetLogPage:
        disc_get_log_page(q, slot);
        return;
    case kAdminSetFeatures:
    case kAdminGetFeatures:
        disc_features(q, slot);
        return;
    default:
        reply(q, slot, kScInvalidOpcode | kScDnr);
        return;
    }
}

void Target::disc_features(Queue& q, uint32_t slot)
{
    const Sqe& c = q.sqe(slot);
    Controller& ctrl = ctrls_[q.cntlid];
    const bool set = c.opcode == kAdminSetFeatures;
    switch (c.cdw10 & 0xff) {
    case kFeatAsyncEventCfg:
        if (set)
            ctrl.aec = c.cdw11;
        reply(q, slot, kScSuccess, set ? 0 : ctrl.aec);
        return;
    case kFeatKato:
        if (set)
            ctrl.kato = c.cdw11;
        reply(q, slot, kScSuccess, set ? 0 : ctrl.kato);
        return;
    default:  // Number of Queues among them: there are no I/O queues
        reply(q, slot, kScInvalidField | kScDnr);
        return;
    }
}

disc::Log Target::disc_log(const Queue& q, bool misbehave)
{
    disc::Log l;
    disc::Entry own;
    own.subnqn = opts_.subnqn;
    own.traddr = local_addr(q.id(), opts_.addrs.front());
    own.trsvcid = std::to_string(opts_.port);
    l.entries.push_back(own);
    l.entries.insert(l.entries.end(), opts_.disc_entries.begin(), opts_.disc_entries.end());

    const Mode m = misbehave ? bad_.mode() : Mode::none;
    if (m == Mode::disc_unterminated) {
        disc::Entry& e = l.entries.front();
        e.traddr = filled(e.traddr, disc::kTraddrLen);
        e.trsvcid = filled(e.trsvcid, disc::kTrsvcidLen);
        e.subnqn = filled(e.subnqn, disc::kSubnqnLen);
    } else if (m == Mode::disc_genctr_churn) {
        disc_genctr_++;
    } else if (m == Mode::disc_referral_loop) {
        disc::Entry ref = own;  // this very discovery controller
        ref.subtype = disc::kSubtypeReferral;
        ref.subnqn = opts_.disc_nqn.empty() ? std::string(kDiscNqn) : opts_.disc_nqn;
        l.entries.push_back(ref);
    } else if (m == Mode::disc_bad_values) {
        disc::Entry bad = own;
        bad.trtype = 77;
        bad.adrfam = 9;
        bad.subtype = 200;
        bad.subnqn = opts_.subnqn + ":bad-values";
        l.entries.insert(l.entries.begin(), bad);
    }
    l.genctr = disc_genctr_;
    l.numrec = l.entries.size();
    if (m == Mode::disc_truncated)
        l.numrec += kTruncatedMissing;
    else if (m == Mode::disc_numrec_huge)
        l.numrec = kHugeNumrec;
    return l;
}

void Target::disc_get_log_page(Queue& q, uint32_t slot)
{
    const Sqe& c = q.sqe(slot);
    const uint8_t lid = c.cdw10 & 0xff;
    // NUMDU:NUMDL, 0's based dwords; LPOU:LPOL, a byte offset.
    const uint64_t len = (((uint64_t(c.cdw11) & 0xffff) << 16 | c.cdw10 >> 16) + 1) * 4;
    const uint64_t offset = c.cdw12 | uint64_t(c.cdw13) << 32;
    const std::string what = "cntlid " + std::to_string(q.cntlid) + ": log offset " + std::to_string(offset) +
                             " length " + std::to_string(len);
    if (lid != kLidDiscovery || (offset & 3)) {
        log("discovery: " + what + " lid " + std::to_string(lid) + " refused");
        reply(q, slot, kScInvalidField | kScDnr);
        return;
    }
    if (len > Queue::kMaxData) {
        log("discovery: " + what + " refused (at most " + std::to_string(Queue::kMaxData) + " bytes)");
        reply(q, slot, kScInvalidField | kScDnr);
        return;
    }
    uint32_t lkey = 0;
    uint8_t* buf = q.data_buffer(slot, uint32_t(len), lkey);
    if (!buf) {
        reply(q, slot, kScInternal);
        return;
    }
    const bool misbehave = bad_.on_disc_log();
    const disc::Log l = disc_log(q, misbehave);
    disc::copy_out(disc::image(l), offset, buf, len);
    const std::string said = what + " genctr " + std::to_string(l.genctr) + " numrec " +
                             std::to_string(l.numrec) + " entries " + std::to_string(l.entries.size());
    if (misbehave)
        log("misbehave: " + std::string(mode_name(bad_.mode())) + ": " + said + " (#" +
            std::to_string(bad_.hits()) + ")");
    else
        log("discovery: " + said);
    if (!q.push(slot, buf, lkey, DataPtr::parse(c), uint32_t(len))) {
        reply(q, slot, kScSglInvalidType | kScDnr);
        return;
    }
    reply(q, slot, kScSuccess);
}

}  // namespace rt
