// Reservations on namespace 1 (--reservations): the Reservation
// Register/Acquire/Release/Report commands on I/O queues, the
// Reservation Notification log page (80h) and features 81h-83h, the
// notices delivered to the controllers of the hosts they name, and the
// state kept in --resv-state while PTPL is 1. The rules themselves are
// reservation.cpp's; resv-regctl-huge corrupts the report here.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <span>
#include <stdexcept>
#include <sstream>
#include <string>

#include "target.hpp"

namespace rt {

namespace {

constexpr uint32_t kNsid = 1;
constexpr uint32_t kNsidAll = 0xffffffff;

const char* op_name(uint8_t opcode)
{
    switch (opcode) {
    case kIoResvRegister:
        return "register";
    case kIoResvAcquire:
        return "acquire";
    case kIoResvRelease:
        return "release";
    default:
        return "report";
    }
}

std::string hex(uint32_t v)
{
    char s[16];
    std::snprintf(s, sizeof(s), "%#x", v);
    return s;
}

}  // namespace

void Target::resv_init()
{
    resv_.emplace(resv::Engine::Config{.ptpl_capable = !opts_.resv_state.empty(), .hostid_128 = true});
    if (opts_.resv_state.empty())
        return;
    std::ifstream f(opts_.resv_state);
    if (!f)
        return;  // none kept: PTPL was 0, or this is the first start
    std::stringstream text;
    text << f.rdbuf();
    if (!resv_->load(text.str()))
        throw std::runtime_error("malformed reservation state in " + opts_.resv_state);
    log("resv: state from " + opts_.resv_state + ": type " + std::to_string(unsigned(resv_->type())) + " gen " +
        std::to_string(resv_->generation()) + " registrants " + std::to_string(resv_->registrants()));
}

bool Target::is_resv_opcode(uint8_t opcode)
{
    return opcode == kIoResvRegister || opcode == kIoResvReport || opcode == kIoResvAcquire ||
           opcode == kIoResvRelease;
}

void Target::resv_command(Queue& q, uint32_t slot)
{
    const Sqe& c = q.sqe(slot);
    if (c.opcode == kIoResvReport) {
        resv_report(q, slot);
        return;
    }
    // CRKEY and NRKEY/PRKEY; Release carries CRKEY only.
    const uint32_t len = c.opcode == kIoResvRelease ? 8 : 16;
    q.fetch(slot, q.scratch(slot), q.scratch_lkey(), DataPtr::parse(c), len,
            [this, &q, slot](bool ok) { resv_execute(q, slot, ok); });
}

void Target::resv_execute(Queue& q, uint32_t slot, bool ok)
{
    if (!ok) {
        reply(q, slot, kScSglInvalidType | kScDnr);
        return;
    }
    const Sqe& c = q.sqe(slot);
    const resv::HostId& host = ctrls_[q.cntlid].hostid;
    const std::span<const uint8_t> data(q.scratch(slot), c.opcode == kIoResvRelease ? 8 : 16);
    resv::Outcome out;
    if (c.opcode == kIoResvRegister)
        out = resv_->reg(host, c.cdw10, data);
    else if (c.opcode == kIoResvAcquire)
        out = resv_->acquire(host, c.cdw10, data);
    else
        out = resv_->release(host, c.cdw10, data);
    log("resv: cntlid " + std::to_string(q.cntlid) + " " + op_name(c.opcode) + " cdw10 " + hex(c.cdw10) +
        " status " + hex(out.status) + " type " + std::to_string(unsigned(resv_->type())) + " gen " +
        std::to_string(resv_->generation()) + " registrants " + std::to_string(resv_->registrants()) +
        " notices " + std::to_string(out.notices.size()));
    if (out.status != kScSuccess) {
        reply(q, slot, out.status | kScDnr);
        return;
    }
    // Preempt and Abort: every command is carried out as it arrives, so
    // none of the preempted hosts' is left to abort but a Write whose
    // data is still being read; those were admitted before the preempt.
    if (out.changed)
        resv_persist();
    resv_deliver(out);
    reply(q, slot, kScSuccess);
}

void Target::resv_report(Queue& q, uint32_t slot)
{
    const Sqe& c = q.sqe(slot);
    const uint32_t len = (c.cdw10 + 1) * 4;  // NUMD, 0's based dwords
    uint32_t lkey = 0;
    uint8_t* buf = c.cdw10 < Queue::kMaxData / 4 ? q.data_buffer(slot, len, lkey) : nullptr;
    if (!buf) {
        reply(q, slot, kScInvalidField | kScDnr);
        return;
    }
    const uint16_t status = resv_->report(c.cdw11, std::span(buf, len));
    if (status != kScSuccess) {
        reply(q, slot, status | kScDnr);
        return;
    }
    if (len >= 7 && bad_.on_resv_report()) {
        put<uint16_t>(buf, 5, 0xffff);  // REGCTL
        log("misbehave: resv-regctl-huge: report of " + std::to_string(resv_->registrants()) +
            " registrants claims 65535 in " + std::to_string(len) + " bytes (#" + std::to_string(bad_.hits()) +
            ")");
    }
    if (!q.push(slot, buf, lkey, DataPtr::parse(c), len)) {
        reply(q, slot, kScSglInvalidType | kScDnr);
        return;
    }
    reply(q, slot, kScSuccess);
}

void Target::resv_deliver(const resv::Outcome& out)
{
    for (const auto& n : out.notices) {
        for (auto& [cntlid, ctrl] : ctrls_) {
            if (ctrl.discovery || ctrl.hostid != n.host || !ctrl.admin_q)
                continue;  // another host's, or a controller gone
            const bool queued = ctrl.notices.add(n.kind, kNsid);
            log("resv: notice " + std::to_string(unsigned(n.kind)) + " to cntlid " + std::to_string(cntlid) +
                (queued ? "" : " (masked)"));
            post_events(ctrl);
        }
    }
}

void Target::resv_persist()
{
    const std::string& path = opts_.resv_state;
    if (path.empty())
        return;
    if (!resv_->ptpl()) {
        // PTPL 0: a power loss clears it all, so nothing is kept.
        if (std::remove(path.c_str()) != 0 && errno != ENOENT)
            log("resv: cannot remove " + path + ": " + std::strerror(errno));
        return;
    }
    const std::string tmp = path + ".tmp";
    {
        std::ofstream f(tmp, std::ios::trunc);
        f << resv_->save();
        f.flush();
        if (!f) {
            log("resv: cannot write " + tmp);
            return;
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
        log("resv: cannot rename " + tmp + ": " + std::strerror(errno));
}

bool Target::resv_features(Queue& q, uint32_t slot)
{
    const Sqe& c = q.sqe(slot);
    const uint8_t fid = c.cdw10 & 0xff;
    if (fid != kFeatHostId && fid != kFeatResvMask && fid != kFeatResvPersist)
        return false;
    Controller& ctrl = ctrls_[q.cntlid];
    const bool set = c.opcode == kAdminSetFeatures;
    if (set && (c.cdw10 >> 31)) {  // SV: nothing here is saveable
        reply(q, slot, kScFeatNotSaveable | kScDnr);
        return true;
    }
    if (!set && ((c.cdw10 >> 8) & 7) != 0) {  // SEL: the current value only
        reply(q, slot, kScInvalidField | kScDnr);
        return true;
    }
    if (fid == kFeatHostId) {
        // On fabrics the Host ID is Connect's: it cannot be set, and it
        // reads only in its 128-bit form (EXHID).
        if (set) {
            reply(q, slot, kScCmdSeqError | kScDnr);
            return true;
        }
        if (!(c.cdw11 & 1)) {
            reply(q, slot, kScInvalidField | kScDnr);
            return true;
        }
        uint8_t* buf = q.scratch(slot);
        std::memcpy(buf, ctrl.hostid.data(), ctrl.hostid.size());
        if (!q.push(slot, buf, q.scratch_lkey(), DataPtr::parse(c), uint32_t(ctrl.hostid.size()))) {
            reply(q, slot, kScSglInvalidType | kScDnr);
            return true;
        }
        reply(q, slot, kScSuccess);
        return true;
    }
    // 82h and 83h are namespace features: ours, or all (Set) of them.
    if (c.nsid != kNsid && !(set && c.nsid == kNsidAll)) {
        reply(q, slot, kScInvalidNs | kScDnr);
        return true;
    }
    uint16_t status = kScSuccess;
    if (fid == kFeatResvMask) {
        if (set) {
            status = ctrl.notices.set_mask(c.cdw11);
            log("resv: cntlid " + std::to_string(q.cntlid) + " set-mask nsid " + hex(c.nsid) + " mask " +
                hex(c.cdw11) + " status " + std::to_string(status));
        }
        reply(q, slot, status ? status | kScDnr : kScSuccess, ctrl.notices.mask());
        return true;
    }
    if (set) {
        status = resv_->set_ptpl(c.cdw11 & 1);
        if (status == kScSuccess)
            resv_persist();
    }
    reply(q, slot, status ? status | kScDnr : kScSuccess, resv_->ptpl() ? 1 : 0);
    return true;
}

void Target::resv_log_page(Queue& q, uint32_t slot)
{
    const Sqe& c = q.sqe(slot);
    const uint32_t len = ((c.cdw10 >> 16) + 1) * 4;  // NUMDL; NUMDU must be 0
    const bool rae = (c.cdw10 >> 15) & 1;
    if (len > Queue::kScratch || c.cdw11 || c.cdw12 || c.cdw13) {
        reply(q, slot, kScInvalidField | kScDnr);
        return;
    }
    Controller& ctrl = ctrls_[q.cntlid];
    uint8_t* buf = q.scratch(slot);
    std::memset(buf, 0, len);
    std::array<uint8_t, resv::NoticeLog::kPageSize> page;
    ctrl.notices.read(page, rae);
    std::memcpy(buf, page.data(), std::min<size_t>(len, page.size()));
    if (!q.push(slot, buf, q.scratch_lkey(), DataPtr::parse(c), len)) {
        reply(q, slot, kScSglInvalidType | kScDnr);
        return;
    }
    reply(q, slot, kScSuccess);
    post_events(ctrl);  // re-armed with pages still waiting: the next event
}

}  // namespace rt
