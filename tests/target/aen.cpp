// Asynchronous events of an I/O controller. Normally the target supports
// none (the AER is refused as an unknown opcode, as before; a discovery
// controller holds its AERs instead, discovery.cpp). With --reservations
// the AER is held until a reservation notice is logged (type I/O Command
// Specific, Reservation Log Page Available, log page 80h). --misbehave
// aen-storm answers every AER at once, cycling through a namespace change
// notice, an event of a reserved type naming an absurd log page, an error
// event, and a notice naming the wrong log page; the changed namespace
// lists it serves are junk. The host must neither crash nor spin. With
// --ns-notice-file the AER is held for namespace change notices, which
// the file's appearance sends with the nsids it lists.
#include <unistd.h>

#include <array>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "target.hpp"

namespace rt {

namespace {

// Completion dword 0: type in 2:0, info in 15:8, log page in 23:16.
constexpr uint32_t aen(uint8_t type, uint8_t info, uint8_t lid)
{
    return type | uint32_t(info) << 8 | uint32_t(lid) << 16;
}

constexpr std::array<uint32_t, 4> kStorm{
    aen(2, 0x00, 0x04),  // namespace attribute changed, Changed Namespace List
    aen(5, 0xab, 0xee),  // reserved type, absurd log page
    aen(0, 0x01, 0x01),  // error event, Error Information
    aen(2, 0x00, 0x7f),  // namespace change naming another log page
};

constexpr uint32_t kResvEvent = aen(6, 0x00, kLidResvNotice);
constexpr uint32_t kNsChangedEvent = aen(2, 0x00, 0x04);
constexpr uint32_t kNsidAll = 0xffffffff;  // first in the list: it overflowed
constexpr size_t kAerLimit = 1;  // AERL 0 in Identify Controller

}  // namespace

void Target::async_event(Queue& q, uint32_t slot)
{
    if (!bad_.is(Mode::aen_storm) && (resv_ || ns_notices())) {
        Controller& ctrl = ctrls_[q.cntlid];
        if (ctrl.aer_slots.size() >= kAerLimit) {
            reply(q, slot, kScAsyncLimit | kScDnr);
            return;
        }
        ctrl.aer_slots.push_back(slot);
        post_events(ctrl);
        return;
    }
    if (!bad_.is(Mode::aen_storm)) {
        reply(q, slot, kScInvalidOpcode | kScDnr);
        return;
    }
    const uint32_t result = kStorm[aens_++ % kStorm.size()];
    char text[16];
    std::snprintf(text, sizeof(text), "%#x", result);
    log(std::string("misbehave: aen-storm: event ") + text);
    reply(q, slot, kScSuccess, result);
}

void Target::post_events(Controller& ctrl)
{
    if (ctrl.aer_slots.empty() || !ctrl.admin_q)
        return;
    uint32_t event;
    if (ctrl.ns_notice_due) {
        ctrl.ns_notice_due = false;
        event = kNsChangedEvent;
    } else if (resv_ && ctrl.notices.event_due()) {
        ctrl.notices.event_sent();
        event = kResvEvent;
    } else {
        return;
    }
    const uint32_t slot = ctrl.aer_slots.front();
    ctrl.aer_slots.pop_front();
    reply(*ctrl.admin_q, slot, kScSuccess, event);
}

void Target::ns_notice_poll()
{
    std::ifstream in(opts_.ns_notice_file);
    if (!in)
        return;
    std::stringstream text;
    text << in.rdbuf();
    unlink(opts_.ns_notice_file.c_str());
    std::vector<uint32_t> ids;
    std::string word;
    while (text >> word) {
        if (word == "overflow") {
            ids.assign(1, kNsidAll);
            break;
        }
        uint32_t id = 0;
        const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), id);
        if (ec != std::errc() || end != word.data() + word.size()) {
            log("ns-notice: '" + word + "' is no nsid: ignored");
            continue;
        }
        ids.push_back(id);
    }
    std::string names;
    for (const uint32_t id : ids)
        names += " " + std::to_string(id);
    log("ns-notice: changed namespace list:" + names);
    for (auto& [cntlid, ctrl] : ctrls_) {
        if (ctrl.discovery || !ctrl.admin_q)
            continue;
        ctrl.changed_ns = ids;
        ctrl.ns_notice_due = true;
        post_events(ctrl);
    }
}

// Log page 04h: the nsids the last notice named, once.
void Target::ns_changed_log(const Queue& q, uint8_t* buf, uint32_t len)
{
    auto& ids = ctrls_[q.cntlid].changed_ns;
    for (size_t i = 0; i < ids.size() && 4 * i + 4 <= len; i++)
        put<uint32_t>(buf, 4 * i, ids[i]);
    log("ns-notice: log page 04h read by cntlid " + std::to_string(q.cntlid));
    ids.clear();
}

void Target::get_log_page(Queue& q, uint32_t slot)
{
    const Sqe& c = q.sqe(slot);
    const uint8_t lid = c.cdw10 & 0xff;
    if (lid == kLidResvNotice && resv_) {
        resv_log_page(q, slot);
        return;
    }
    const uint32_t len = ((c.cdw10 >> 16) + 1) * 4;  // NUMDL; NUMDU must be 0
    const bool ns_log = lid == 0x04 && ns_notices() && !bad_.is(Mode::aen_storm);
    if (!(bad_.is(Mode::aen_storm) || ns_log) || len > Queue::kScratch || c.cdw11) {
        reply(q, slot, kScInvalidField | kScDnr);
        return;
    }
    uint8_t* buf = q.scratch(slot);
    std::memset(buf, 0, len);
    if (ns_log) {
        ns_changed_log(q, buf, len);
    } else if (lid == 0x04) {
        // Ids above NN, an "overflow" marker not in first place, NN itself.
        const uint32_t junk[] = {0xfffffffe, 12345, 0xffffffff, 1, 7};
        for (size_t i = 0; i < std::size(junk) && 4 * i < len; i++)
            put<uint32_t>(buf, 4 * i, junk[i]);
    }
    if (!q.push(slot, buf, q.scratch_lkey(), DataPtr::parse(c), len)) {
        reply(q, slot, kScSglInvalidType | kScDnr);
        return;
    }
    reply(q, slot, kScSuccess);
}

}  // namespace rt
