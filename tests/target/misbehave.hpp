// Which misbehaviour the target plays, and when: the only place that
// decides to break the protocol on purpose.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rt {

enum class Mode {
    none,
    unknown_cid,           // response names a command id never issued
    stale_cid,             // response names the previous generation of the tag
    double_completion,     // two responses for one command
    dnr_status,            // error status with Do Not Retry
    silence,               // from the trigger on, nothing is answered
    stale_key_write,       // trap reads held unanswered; on --trigger-file, an RDMA WRITE
                           // with the first one's key through its controller's admin queue
    absurd_nn,             // NN 0xfffffffe and an active list that never ends
    nsid_list_no_data,     // as absurd-nn, but an active-list read answers success, transfers nothing
    ns_id_no_data,         // an Identify Namespace of the last namespace answers success, transfers nothing
    absurd_mdts,           // MDTS 255 (2^255 pages)
    absurd_lbaf,           // LBA data size 2^40
    tiny_lbaf,             // LBA data size 2^3
    bad_flbas,             // FLBAS names format 5 of a single one
    reject_connect,        // rdma_reject() with an NVMe-oF reject status
    disconnect_in_connect, // accept, then disconnect instead of answering Connect
    aen_storm,             // every AER answered at once, with junk events and logs
    // The discovery log (Get Log Page 70h of a discovery controller):
    disc_truncated,        // numrec 3 more than the entries: the rest reads as zeros
    disc_numrec_huge,      // numrec 0xffffffff, genctr stable
    disc_unterminated,     // traddr, trsvcid, subnqn filled to full width, no pad or NUL
    disc_genctr_churn,     // genctr one more on every read, forever
    disc_referral_loop,    // plus a referral to this very discovery controller
    disc_bad_values,       // first an entry with trtype 77, adrfam 9, subtype 200
    hold_format,           // a Format NVM (--formats) held unanswered
    // Reservation Report (--reservations):
    resv_regctl_huge,      // REGCTL FFFFh whatever the registrants: past the data, zeroes
};

// @name as listed by mode_names(); '_' may stand for '-'.
std::optional<Mode> parse_mode(std::string_view name);
std::string_view mode_name(Mode m);
std::string mode_names();  // for --help

// What to do with one I/O command or connection request.
enum class Action { normal, misbehave, drop };

class Misbehaviour {
public:
    // @after: qualifying events to let pass first; @count: how many to
    // break (0: all). Silence, once triggered, never ends.
    Misbehaviour(Mode mode, uint64_t after, uint64_t count) : mode_(mode), after_(after), count_(count) {}

    Mode mode() const { return mode_; }
    bool is(Mode m) const { return mode_ == m; }

    // An I/O command that touches the trap range (or any command once
    // silent; then @in_trap is ignored).
    Action on_command(bool in_trap);
    // A connection request (reject-connect, disconnect-in-connect).
    bool on_connection();
    // A read of the active namespace list (nsid-list-no-data): whether
    // this one transfers nothing.
    bool on_nsid_list();
    // An Identify Namespace of the last namespace (ns-id-no-data):
    // whether this one transfers nothing.
    bool on_ns_id();
    // A Format NVM (hold-format): whether this one stays unanswered.
    bool on_format();
    // A read of the discovery log (the disc-* modes): whether this one
    // serves the broken log.
    bool on_disc_log();
    // A Reservation Report (resv-regctl-huge): whether this one lies.
    bool on_resv_report();

    uint64_t hits() const { return hits_; }

private:
    bool take();

    Mode mode_;
    uint64_t after_, count_;
    uint64_t seen_ = 0, hits_ = 0;
    bool silent_ = false;
};

}  // namespace rt
