// Reservations on one namespace, by the NVMe Base Specification 2.0
// §8.19 and the Reservation Register/Acquire/Release/Report commands
// (§7.3-7.6 of the NVM Command Set): pure logic, no verbs, so the rules
// are unit-tested on the host against the specification's tables
// (tests/unit/target). The target (io.cpp, aen.cpp) feeds it the
// commands and delivers the notices it names.
//
// Registrants are hosts, by their 128-bit Host Identifier (from Connect):
// every controller of one host shares its registration. The NVM subsystem
// uses the dynamic controller model, so Reservation Report lists one
// entry per registrant with CNTLID FFFFh.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rt::resv {

using HostId = std::array<uint8_t, 16>;

// RTYPE (Reservation Type), as in the commands and the report.
enum class Type : uint8_t {
    none = 0,
    write_exclusive = 1,
    exclusive_access = 2,
    write_exclusive_reg_only = 3,
    exclusive_access_reg_only = 4,
    write_exclusive_all_regs = 5,
    exclusive_access_all_regs = 6,
};

// Reservation Notification log page types (log page 80h, byte 8).
enum class Notice : uint8_t {
    empty = 0,
    registration_preempted = 1,
    reservation_released = 2,
    reservation_preempted = 3,
};

// The command groups of the access table ("Command Behavior in the
// Presence of a Reservation"): Read/Compare/Verify read; Write, Write
// Zeroes, Dataset Management, Flush and the like write.
enum class Access { read, write };

// Status codes (SCT 0, generic) the engine answers with; DNR is the
// caller's.
constexpr uint16_t kStatusSuccess = 0x00;
constexpr uint16_t kStatusInvalidField = 0x02;
constexpr uint16_t kStatusHostIdInconsistent = 0x18;
constexpr uint16_t kStatusConflict = 0x83;

// Sizes of the report's parts: header and one registrant, in the
// 24-byte (EDS 0, 64-bit Host ID) and the extended (EDS 1) form.
constexpr size_t kReportHeader = 24, kReportEntry = 24;
constexpr size_t kReportHeaderExt = 64, kReportEntryExt = 64;
constexpr uint16_t kCntlidDynamic = 0xffff;

// One notice the operation raised: to every controller of @host.
struct Notify {
    HostId host;
    Notice kind;
    bool operator==(const Notify&) const = default;
};

struct Outcome {
    uint16_t status = kStatusSuccess;
    std::vector<Notify> notices;
    // Preempt and Abort: the hosts preempted, whose commands on this
    // namespace must be aborted before the command completes.
    std::vector<HostId> aborted;
    bool changed = false;  // the persistent state changed (PTPL: save it)
};

// RESCAP (Identify Namespace byte 31) of a namespace with this engine.
uint8_t rescap(bool ptpl_capable);

bool all_registrants(Type t);

class Engine {
public:
    struct Config {
        // RESCAP bit 0: CPTPL 11b accepted (the target saves the state).
        bool ptpl_capable = false;
        // 128-bit Host Identifiers (NVMe over Fabrics): the 24-byte report
        // form cannot carry them, EDS 0 answers Host Identifier
        // Inconsistent Format. 64-bit ones use bytes 0-7 of HostId.
        bool hostid_128 = true;
    };

    explicit Engine(Config cfg) : cfg_(cfg) {}

    // The commands, from their CDW10 and data (CRKEY then NRKEY/PRKEY,
    // 16 bytes; Release: CRKEY, 8).
    Outcome reg(const HostId& host, uint32_t cdw10, std::span<const uint8_t> data);
    Outcome acquire(const HostId& host, uint32_t cdw10, std::span<const uint8_t> data);
    Outcome release(const HostId& host, uint32_t cdw10, std::span<const uint8_t> data);
    // Reservation Report from CDW11 into @buf (all of it written: what
    // does not fit is cut off, the rest zeroes). REGCTL counts every
    // registrant whether or not its entry fit.
    uint16_t report(uint32_t cdw11, std::span<uint8_t> buf) const;
    size_t report_size(bool eds) const;

    // The access table: may @host run a command of @group now?
    bool allows(const HostId& host, Access group) const;

    // Set Features Reservation Persistence (83h).
    uint16_t set_ptpl(bool on);

    uint32_t generation() const { return gen_; }
    Type type() const { return type_; }
    bool ptpl() const { return ptpl_; }
    bool registered(const HostId& host) const { return find(host) != nullptr; }
    std::optional<uint64_t> key(const HostId& host) const;
    bool holds(const HostId& host) const;
    size_t registrants() const { return regs_.size(); }

    // The state that persists through a power loss while PTPL is 1, as
    // text; load() takes it back (false and unchanged if malformed).
    std::string save() const;
    bool load(std::string_view text);

private:
    struct Registrant {
        HostId host;
        uint64_t key;
    };
    const Registrant* find(const HostId& host) const;
    Registrant* find(const HostId& host);
    // Drops @host's registration and, with it, the reservation it held
    // alone; a registrants-only reservation so released is noticed.
    void unregister(const HostId& host, Outcome& out);
    // Unregisters every registrant @pick chooses, noticing each one but
    // the @issuer as preempted; how many went.
    size_t preempt_if(const std::function<bool(const Registrant&)>& pick, const HostId& issuer, bool abort,
                      Outcome& out);
    void notify_registrants(const HostId& except, Notice kind, Outcome& out) const;
    Outcome preempt(const HostId& host, uint64_t prkey, Type rtype, bool abort);

    Config cfg_;
    std::vector<Registrant> regs_;  // in order of registration
    Type type_ = Type::none;
    HostId holder_{};  // types 1-4; with 5 and 6 every registrant holds
    uint32_t gen_ = 0;
    bool ptpl_ = false;
};

// One controller's Reservation Notification log (80h): the notices its
// host was sent, oldest first, unless masked (Set Features 82h), and
// whether an asynchronous event for it is owed.
class NoticeLog {
public:
    static constexpr size_t kPageSize = 64;
    static constexpr size_t kDepth = 32;  // beyond: the oldest is lost, the count shows the gap

    // Mask bits of Reservation Notification Mask (82h): REGPRE 1,
    // RESREL 2, RESPRE 3.
    static constexpr uint32_t kMaskValid = 0xe;
    uint16_t set_mask(uint32_t mask);
    uint32_t mask() const { return mask_; }

    // Queues @kind for @nsid unless masked; whether it was queued.
    bool add(Notice kind, uint32_t nsid);
    // The oldest page into @page (64 bytes; an empty page when none),
    // consumed. @rae (Retain Asynchronous Event) clear re-arms the event.
    void read(std::span<uint8_t, kPageSize> page, bool rae);
    size_t pending() const { return pages_.size(); }
    uint64_t count() const { return count_; }

    // An event is due when pages wait and none was sent since the host
    // last read the log with RAE clear.
    bool event_due() const { return !pages_.empty() && !event_out_; }
    void event_sent() { event_out_ = true; }

private:
    struct Page {
        uint64_t count;
        Notice kind;
        uint32_t nsid;
    };
    std::deque<Page> pages_;
    uint64_t count_ = 0;
    uint32_t mask_ = 0;
    bool event_out_ = false;
};

}  // namespace rt::resv
