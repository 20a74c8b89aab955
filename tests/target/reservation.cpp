// The reservation rules; section numbers are the NVMe Base Specification
// 2.0's (§8.19 Reservations) and the NVM Command Set 1.0's.
#include "reservation.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <utility>

namespace rt::resv {

namespace {

uint64_t le64(std::span<const uint8_t> data, size_t off)
{
    uint64_t v;
    std::memcpy(&v, data.data() + off, sizeof(v));
    return v;  // little endian on the wire and on the hosts this runs on
}

template <typename T>
void put_le(uint8_t* dst, T v)
{
    std::memcpy(dst, &v, sizeof(v));
}

// CDW10 fields shared by the three commands: action 2:0, IEKEY 3,
// RTYPE 15:8 (Register: CPTPL 31:30).
unsigned action(uint32_t cdw10) { return cdw10 & 7; }
bool iekey(uint32_t cdw10) { return (cdw10 >> 3) & 1; }
unsigned rtype_field(uint32_t cdw10) { return (cdw10 >> 8) & 0xff; }

bool valid_type(unsigned t)
{
    return t >= unsigned(Type::write_exclusive) && t <= unsigned(Type::exclusive_access_all_regs);
}

Outcome status(uint16_t sc)
{
    Outcome o;
    o.status = sc;
    return o;
}

std::string hex(const HostId& h)
{
    std::string s;
    char b[3];
    for (const uint8_t x : h) {
        std::snprintf(b, sizeof(b), "%02x", x);
        s += b;
    }
    return s;
}

bool unhex(std::string_view s, HostId& h)
{
    if (s.size() != 2 * h.size())
        return false;
    for (size_t i = 0; i < h.size(); i++) {
        const auto r = std::from_chars(s.data() + 2 * i, s.data() + 2 * i + 2, h[i], 16);
        if (r.ec != std::errc() || r.ptr != s.data() + 2 * i + 2)
            return false;
    }
    return true;
}

}  // namespace

bool all_registrants(Type t)
{
    return t == Type::write_exclusive_all_regs || t == Type::exclusive_access_all_regs;
}

uint8_t rescap(bool ptpl_capable)
{
    // Bits 1-6: the six types; bit 7 IEK_13: IEKEY as of revision 1.3
    // (Acquire and Release refuse it); bit 0: Persist Through Power Loss.
    return uint8_t(0x7e | 0x80 | (ptpl_capable ? 1 : 0));
}

const Engine::Registrant* Engine::find(const HostId& host) const
{
    for (const auto& r : regs_)
        if (r.host == host)
            return &r;
    return nullptr;
}

Engine::Registrant* Engine::find(const HostId& host)
{
    return const_cast<Registrant*>(std::as_const(*this).find(host));
}

std::optional<uint64_t> Engine::key(const HostId& host) const
{
    const Registrant* r = find(host);
    return r ? std::optional(r->key) : std::nullopt;
}

bool Engine::holds(const HostId& host) const
{
    if (type_ == Type::none)
        return false;
    if (all_registrants(type_))
        return registered(host);
    return holder_ == host;
}

bool Engine::allows(const HostId& host, Access group) const
{
    if (type_ == Type::none || holds(host))
        return true;
    // Non-holders, by the access table: the write-exclusive types let
    // everyone read; the registrants-only and all-registrants ones let
    // registrants do everything.
    switch (type_) {
    case Type::write_exclusive:
        return group == Access::read;
    case Type::exclusive_access:
        return false;
    case Type::write_exclusive_reg_only:
    case Type::write_exclusive_all_regs:
        return group == Access::read || registered(host);
    case Type::exclusive_access_reg_only:
    case Type::exclusive_access_all_regs:
        return registered(host);
    case Type::none:
        break;
    }
    return true;
}

void Engine::notify_registrants(const HostId& except, Notice kind, Outcome& out) const
{
    for (const auto& r : regs_)
        if (r.host != except)
            out.notices.push_back({r.host, kind});
}

void Engine::unregister(const HostId& host, Outcome& out)
{
    std::erase_if(regs_, [&](const Registrant& r) { return r.host == host; });
    if (type_ == Type::none)
        return;
    if (all_registrants(type_)) {
        // Every registrant holds it: it goes with the last one.
        if (regs_.empty())
            type_ = Type::none;
        return;
    }
    if (holder_ != host)
        return;
    const Type was = type_;
    type_ = Type::none;
    holder_ = {};
    // §8.19.7: a registrants-only reservation released is noticed by the
    // other registrants (they lose access they had through it).
    if (was == Type::write_exclusive_reg_only || was == Type::exclusive_access_reg_only)
        notify_registrants(host, Notice::reservation_released, out);
}

size_t Engine::preempt_if(const std::function<bool(const Registrant&)>& pick, const HostId& issuer, bool abort,
                          Outcome& out)
{
    std::vector<HostId> gone;
    for (const auto& r : regs_)
        if (pick(r))
            gone.push_back(r.host);
    for (const auto& h : gone) {
        unregister(h, out);
        if (h != issuer)
            out.notices.push_back({h, Notice::registration_preempted});
        if (abort)
            out.aborted.push_back(h);
    }
    return gone.size();
}

Outcome Engine::reg(const HostId& host, uint32_t cdw10, std::span<const uint8_t> data)
{
    const unsigned rrega = action(cdw10);
    const unsigned cptpl = cdw10 >> 30;
    if (rrega > 2 || cptpl == 1 || (cptpl == 3 && !cfg_.ptpl_capable) || data.size() < 16)
        return status(kStatusInvalidField);
    const uint64_t crkey = le64(data, 0), nrkey = le64(data, 8);
    Registrant* r = find(host);
    Outcome out;
    switch (rrega) {
    case 0:  // Register: IEKEY does not apply; a registrant may repeat its own key only
        if (r && r->key != nrkey)
            return status(kStatusConflict);
        if (!r)
            regs_.push_back({host, nrkey});
        break;
    case 1:  // Unregister
        if (!r || (!iekey(cdw10) && r->key != crkey))
            return status(kStatusConflict);
        unregister(host, out);
        break;
    default:  // Replace
        if (!r || (!iekey(cdw10) && r->key != crkey))
            return status(kStatusConflict);
        r->key = nrkey;
        break;
    }
    if (cptpl & 2)
        ptpl_ = cptpl == 3;
    // Every successful Reservation Register counts (Report, GEN).
    gen_++;
    out.changed = true;
    return out;
}

Outcome Engine::preempt(const HostId& host, uint64_t prkey, Type rtype, bool abort)
{
    Outcome out;
    const auto with_key = [prkey](const Registrant& r) { return r.key == prkey; };
    if (type_ == Type::none) {
        // No reservation: only registrations are preempted.
        if (!preempt_if(with_key, host, abort, out))
            return status(kStatusConflict);
    } else if (all_registrants(type_)) {
        if (prkey == 0) {
            // Everyone else goes; the issuer holds the new reservation.
            preempt_if([&](const Registrant& r) { return r.host != host; }, host, abort, out);
            type_ = rtype;
            holder_ = host;
        } else if (!preempt_if(with_key, host, abort, out)) {
            return status(kStatusConflict);
        }
    } else if (prkey == find(holder_)->key) {
        // The holder's key (the issuer's own included): the issuer takes
        // the reservation, with RTYPE, and the other registrants of that
        // key lose their registrations.
        const Type was = type_;
        type_ = rtype;
        holder_ = host;
        preempt_if([&](const Registrant& r) { return r.key == prkey && r.host != host; }, host, abort, out);
        // A changed type releases what the old one granted (as SCSI's
        // RESERVATIONS RELEASED unit attention on PREEMPT).
        if (was != rtype)
            notify_registrants(host, Notice::reservation_released, out);
    } else if (prkey == 0) {
        return status(kStatusInvalidField);
    } else if (!preempt_if(with_key, host, abort, out)) {
        return status(kStatusConflict);
    }
    // Preempt and Preempt and Abort count (GEN), whatever they preempted.
    gen_++;
    out.changed = true;
    return out;
}

Outcome Engine::acquire(const HostId& host, uint32_t cdw10, std::span<const uint8_t> data)
{
    const unsigned racqa = action(cdw10);
    const unsigned rtype = rtype_field(cdw10);
    // IEK_13 (RESCAP bit 7): IEKEY set in Acquire is an invalid field.
    if (racqa > 2 || iekey(cdw10) || !valid_type(rtype) || data.size() < 16)
        return status(kStatusInvalidField);
    const Registrant* r = find(host);
    if (!r || r->key != le64(data, 0))
        return status(kStatusConflict);
    if (racqa != 0)
        return preempt(host, le64(data, 8), Type(rtype), racqa == 2);
    Outcome out;
    if (type_ == Type::none) {
        type_ = Type(rtype);
        holder_ = host;
        out.changed = true;
    } else if (!holds(host) || type_ != Type(rtype)) {
        return status(kStatusConflict);
    }
    return out;  // acquiring does not count (GEN)
}

Outcome Engine::release(const HostId& host, uint32_t cdw10, std::span<const uint8_t> data)
{
    const unsigned rrela = action(cdw10);
    if (rrela > 1 || iekey(cdw10) || data.size() < 8)
        return status(kStatusInvalidField);
    const Registrant* r = find(host);
    if (!r || r->key != le64(data, 0))
        return status(kStatusConflict);
    Outcome out;
    if (rrela == 1) {
        // Clear: every registration and the reservation; the others are
        // told their reservation was preempted.
        notify_registrants(host, Notice::reservation_preempted, out);
        regs_.clear();
        type_ = Type::none;
        holder_ = {};
        gen_++;
        out.changed = true;
        return out;
    }
    if (!holds(host))
        return out;  // nothing of the host's to release: success, no effect
    if (rtype_field(cdw10) != unsigned(type_))
        return status(kStatusInvalidField);
    const Type was = type_;
    type_ = Type::none;
    holder_ = {};
    out.changed = true;
    if (was != Type::write_exclusive && was != Type::exclusive_access)
        notify_registrants(host, Notice::reservation_released, out);
    return out;  // releasing does not count (GEN)
}

size_t Engine::report_size(bool eds) const
{
    return eds ? kReportHeaderExt + regs_.size() * kReportEntryExt : kReportHeader + regs_.size() * kReportEntry;
}

uint16_t Engine::report(uint32_t cdw11, std::span<uint8_t> buf) const
{
    const bool eds = cdw11 & 1;
    if (!eds && cfg_.hostid_128)
        return kStatusHostIdInconsistent;
    std::vector<uint8_t> full(report_size(eds), 0);
    uint8_t* p = full.data();
    put_le<uint32_t>(p, gen_);
    p[4] = uint8_t(type_);
    put_le<uint16_t>(p + 5, uint16_t(std::min<size_t>(regs_.size(), 0xffff)));
    p[9] = ptpl_ ? 1 : 0;
    p += eds ? kReportHeaderExt : kReportHeader;
    for (const auto& r : regs_) {
        put_le<uint16_t>(p, kCntlidDynamic);
        p[2] = holds(r.host) ? 1 : 0;  // RCSTS: holds the reservation
        if (eds) {
            put_le<uint64_t>(p + 8, r.key);
            std::memcpy(p + 16, r.host.data(), 16);
            p += kReportEntryExt;
        } else {
            std::memcpy(p + 8, r.host.data(), 8);
            put_le<uint64_t>(p + 16, r.key);
            p += kReportEntry;
        }
    }
    std::fill(buf.begin(), buf.end(), 0);
    std::memcpy(buf.data(), full.data(), std::min(buf.size(), full.size()));
    return kStatusSuccess;
}

uint16_t Engine::set_ptpl(bool on)
{
    if (on && !cfg_.ptpl_capable)
        return kStatusInvalidField;
    ptpl_ = on;
    return kStatusSuccess;
}

std::string Engine::save() const
{
    std::string s = "gen " + std::to_string(gen_) + "\ntype " + std::to_string(unsigned(type_)) +
                    "\nholder " + hex(holder_) + "\nptpl " + (ptpl_ ? "1" : "0") + "\n";
    for (const auto& r : regs_)
        s += "reg " + hex(r.host) + " " + std::to_string(r.key) + "\n";
    return s;
}

bool Engine::load(std::string_view text)
{
    Engine e(cfg_);
    bool seen_gen = false, seen_type = false;
    while (!text.empty()) {
        const size_t nl = text.find('\n');
        if (nl == std::string_view::npos)
            return false;
        std::string_view line = text.substr(0, nl);
        text.remove_prefix(nl + 1);
        const size_t sp = line.find(' ');
        if (sp == std::string_view::npos)
            return false;
        const std::string_view word = line.substr(0, sp), rest = line.substr(sp + 1);
        auto number = [](std::string_view s, auto& v) {
            const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
            return r.ec == std::errc() && r.ptr == s.data() + s.size();
        };
        if (word == "gen") {
            seen_gen = number(rest, e.gen_);
        } else if (word == "type") {
            unsigned t = 0;
            if (!number(rest, t) || (t && !valid_type(t)))
                return false;
            e.type_ = Type(t);
            seen_type = true;
        } else if (word == "holder") {
            if (!unhex(rest, e.holder_))
                return false;
        } else if (word == "ptpl") {
            if (rest != "0" && rest != "1")
                return false;
            e.ptpl_ = rest == "1";
        } else if (word == "reg") {
            const size_t sp2 = rest.find(' ');
            Registrant r{};
            if (sp2 == std::string_view::npos || !unhex(rest.substr(0, sp2), r.host) ||
                !number(rest.substr(sp2 + 1), r.key) || e.find(r.host))
                return false;
            e.regs_.push_back(r);
        } else {
            return false;
        }
    }
    // A reservation needs its holder registered (any registrant for 5, 6).
    if (!seen_gen || !seen_type || (e.type_ != Type::none && !all_registrants(e.type_) && !e.find(e.holder_)) ||
        (all_registrants(e.type_) && e.regs_.empty()))
        return false;
    *this = e;
    return true;
}

uint16_t NoticeLog::set_mask(uint32_t mask)
{
    if (mask & ~kMaskValid)
        return kStatusInvalidField;
    mask_ = mask;
    return kStatusSuccess;
}

bool NoticeLog::add(Notice kind, uint32_t nsid)
{
    if (mask_ & (1u << unsigned(kind)))
        return false;  // masked: no page is created
    // The count goes on even for a page that will be lost, so the host
    // sees the gap; it wraps from all ones to 1 (0 is the empty page's).
    if (++count_ == 0)
        count_ = 1;
    if (pages_.size() == kDepth)
        pages_.pop_front();
    pages_.push_back({count_, kind, nsid});
    return true;
}

void NoticeLog::read(std::span<uint8_t, kPageSize> page, bool rae)
{
    std::fill(page.begin(), page.end(), 0);
    if (!rae)
        event_out_ = false;
    if (pages_.empty())
        return;
    const Page p = pages_.front();
    pages_.pop_front();
    put_le<uint64_t>(page.data(), p.count);
    page[8] = uint8_t(p.kind);
    page[9] = uint8_t(std::min<size_t>(pages_.size(), 0xff));  // pages still available after this one
    put_le<uint32_t>(page.data() + 12, p.nsid);
}

}  // namespace rt::resv
