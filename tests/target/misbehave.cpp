#include "misbehave.hpp"

#include <array>
#include <utility>

namespace rt {

namespace {

constexpr std::array<std::pair<Mode, std::string_view>, 14> kModes{{
    {Mode::none, "none"},
    {Mode::unknown_cid, "unknown-cid"},
    {Mode::stale_cid, "stale-cid"},
    {Mode::double_completion, "double-completion"},
    {Mode::dnr_status, "dnr-status"},
    {Mode::silence, "silence"},
    {Mode::absurd_nn, "absurd-nn"},
    {Mode::absurd_mdts, "absurd-mdts"},
    {Mode::absurd_lbaf, "absurd-lbaf"},
    {Mode::tiny_lbaf, "tiny-lbaf"},
    {Mode::bad_flbas, "bad-flbas"},
    {Mode::reject_connect, "reject-connect"},
    {Mode::disconnect_in_connect, "disconnect-in-connect"},
    {Mode::aen_storm, "aen-storm"},
}};

bool io_mode(Mode m)
{
    return m == Mode::unknown_cid || m == Mode::stale_cid || m == Mode::double_completion ||
           m == Mode::dnr_status || m == Mode::silence;
}

}  // namespace

std::optional<Mode> parse_mode(std::string_view name)
{
    for (const auto& [m, n] : kModes)
        if (n == name)
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

}  // namespace rt
