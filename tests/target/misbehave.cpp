// The misbehaviour modes by name, and when each one strikes.
#include "misbehave.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace rt {

namespace {

constexpr std::array<std::pair<Mode, std::string_view>, 25> kModes{{
    {Mode::none, "none"},
    {Mode::unknown_cid, "unknown-cid"},
    {Mode::stale_cid, "stale-cid"},
    {Mode::double_completion, "double-completion"},
    {Mode::dnr_status, "dnr-status"},
    {Mode::silence, "silence"},
    {Mode::stale_key_write, "stale-key-write"},
    {Mode::absurd_nn, "absurd-nn"},
    {Mode::nsid_list_no_data, "nsid-list-no-data"},
    {Mode::ns_id_no_data, "ns-id-no-data"},
    {Mode::absurd_mdts, "absurd-mdts"},
    {Mode::absurd_lbaf, "absurd-lbaf"},
    {Mode::tiny_lbaf, "tiny-lbaf"},
    {Mode::bad_flbas, "bad-flbas"},
    {Mode::reject_connect, "reject-connect"},
    {Mode::disconnect_in_connect, "disconnect-in-connect"},
    {Mode::aen_storm, "aen-storm"},
    {Mode::disc_truncated, "disc-truncated"},
    {Mode::disc_numrec_huge, "disc-numrec-huge"},
    {Mode::disc_unterminated, "disc-unterminated"},
    {Mode::disc_genctr_churn, "disc-genctr-churn"},
    {Mode::disc_referral_loop, "disc-referral-loop"},
    {Mode::disc_bad_values, "disc-bad-values"},
    {Mode::hold_format, "hold-format"},
    {Mode::resv_regctl_huge, "resv-regctl-huge"},
}};

bool io_mode(Mode m)
{
    return m == Mode::unknown_cid || m == Mode::stale_cid || m == Mode::double_completion ||
           m == Mode::dnr_status || m == Mode::silence || m == Mode::stale_key_write;
}

bool disc_mode(Mode m)
{
    return m == Mode::disc_truncated || m == Mode::disc_numrec_huge || m == Mode::disc_unterminated ||
           m == Mode::disc_genctr_churn || m == Mode::disc_referral_loop || m == Mode::disc_bad_values;
}

}  // namespace

std::optional<Mode> parse_mode(std::string_view name)
{
    std::string want(name);
    std::replace(want.begin(), want.end(), '_', '-');
    for (const auto& [m, n] : kModes)
        if (n == want)
            return m;
    return std::nullopt;
}

std::string_view mode_name(Mode m)
{
    for (const auto& [mode, n] : kModes)
        if (mode == m)
            return n;
    return "?";
}

std::string mode_names()
{
    std::string s;
    for (const auto& [m, n] : kModes)
        s += (s.empty() ? "" : ", ") + std::string(n);
    return s;
}

bool Misbehaviour::take()
{
    if (seen_++ < after_)
        return false;
    if (count_ && hits_ >= count_)
        return false;
    hits_++;
    return true;
}

Action Misbehaviour::on_command(bool in_trap)
{
    if (silent_)
        return Action::drop;
    if (!io_mode(mode_) || !in_trap || !take())
        return Action::normal;
    if (mode_ == Mode::silence) {
        silent_ = true;
        return Action::drop;
    }
    return Action::misbehave;
}

bool Misbehaviour::on_connection()
{
    if (silent_)
        return false;
    if (mode_ != Mode::reject_connect && mode_ != Mode::disconnect_in_connect)
        return false;
    return take();
}

bool Misbehaviour::on_nsid_list()
{
    return mode_ == Mode::nsid_list_no_data && take();
}

bool Misbehaviour::on_ns_id()
{
    return mode_ == Mode::ns_id_no_data && take();
}

bool Misbehaviour::on_format()
{
    return mode_ == Mode::hold_format && take();
}

bool Misbehaviour::on_disc_log()
{
    return disc_mode(mode_) && take();
}

bool Misbehaviour::on_resv_report()
{
    return mode_ == Mode::resv_regctl_huge && take();
}

}  // namespace rt
