#include "rblk/controller.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <string_view>
#include <utility>

namespace rblk {
namespace {

std::string unknown(unsigned value) { return "unknown(" + std::to_string(value) + ")"; }

constexpr std::array<std::string_view, __RBLK_IOPOLICY_MAX> kIopolicyNames = {
    "numa", "round-robin", "queue-depth",
};
static_assert(kIopolicyNames.back().size() > 0, "name every enum rblk_iopolicy value");

}  // namespace

std::string state_name(CtrlState state)
{
    static constexpr std::array<std::string_view, __RBLK_CTRL_STATE_MAX> kNames = {
        "new", "connecting", "live", "resetting", "deleting", "dead",
    };
    static_assert(kNames.back().size() > 0, "name every enum rblk_ctrl_state value");
    const auto i = static_cast<std::size_t>(state);
    if (i < kNames.size())
        return std::string(kNames[i]);
    return unknown(static_cast<unsigned>(i));
}

std::string ana_state_name(AnaState state)
{
    switch (state) {
    case AnaState::Optimized: return "optimized";
    case AnaState::NonOptimized: return "non-optimized";
    case AnaState::Inaccessible: return "inaccessible";
    case AnaState::PersistentLoss: return "persistent-loss";
    case AnaState::Change: return "change";
    }
    return unknown(static_cast<unsigned>(state));
}

std::string resv_notice_name(ResvNotice notice)
{
    switch (notice) {
    case ResvNotice::RegistrationPreempted: return "registration-preempted";
    case ResvNotice::ReservationReleased: return "reservation-released";
    case ResvNotice::ReservationPreempted: return "reservation-preempted";
    }
    return unknown(static_cast<unsigned>(notice));
}

std::string iopolicy_name(Iopolicy policy)
{
    const auto i = static_cast<std::size_t>(policy);
    if (i < kIopolicyNames.size())
        return std::string(kIopolicyNames[i]);
    return unknown(static_cast<unsigned>(i));
}

std::string dhchap_name(Dhchap d)
{
    switch (d) {
    case Dhchap::None: return "none";
    case Dhchap::Host: return "host";
    case Dhchap::Bidirectional: return "bidirectional";
    }
    return unknown(static_cast<unsigned>(d));
}

std::optional<Iopolicy> parse_iopolicy(std::string_view name)
{
    for (std::size_t i = 0; i < kIopolicyNames.size(); ++i)
        if (kIopolicyNames[i] == name)
            return static_cast<Iopolicy>(i);
    return std::nullopt;
}

std::vector<std::string> iopolicy_names() { return {kIopolicyNames.begin(), kIopolicyNames.end()}; }

std::string subsys_name(std::uint32_t subsys_id) { return "rblk-subsys" + std::to_string(subsys_id); }

std::vector<SubsystemInfo> group_subsystems(const std::vector<ControllerInfo>& controllers)
{
    std::map<std::uint32_t, SubsystemInfo> by_id;
    for (const ControllerInfo& c : by_subsystem(controllers)) {
        if (!c.subsys_id)
            continue;
        const std::uint32_t id = *c.subsys_id;
        auto [it, fresh] = by_id.try_emplace(id);
        SubsystemInfo& s = it->second;
        if (fresh) {
            s.id = id;
            s.subnqn = c.subnqn;
            s.hostnqn = c.hostnqn;
        }
        // The subsystem's own settings: any path that reports them.
        s.multipath = s.multipath || c.multipath;
        if (!s.iopolicy)
            s.iopolicy = c.iopolicy;
        s.paths.push_back(c);
    }
    std::vector<SubsystemInfo> out;
    for (auto& [id, s] : by_id)
        out.push_back(std::move(s));
    return out;
}

std::vector<ControllerInfo> by_subsystem(std::vector<ControllerInfo> controllers)
{
    std::stable_sort(controllers.begin(), controllers.end(),
                     [](const ControllerInfo& a, const ControllerInfo& b) {
                         return std::pair(subsys_of(a), a.id) < std::pair(subsys_of(b), b.id);
                     });
    return controllers;
}

std::string path_ana_summary(const ControllerInfo& c)
{
    std::vector<std::string> states;
    bool any = false;
    for (const NamespaceInfo& ns : c.namespaces) {
        any = any || ns.ana_state.has_value();
        states.push_back(ns.ana_state ? ana_state_name(*ns.ana_state) : "-");
    }
    if (!any)
        return "";
    if (std::all_of(states.begin(), states.end(), [&](const std::string& s) { return s == states.front(); }))
        return states.front();
    std::string out;
    for (const std::string& s : states)
        out += (out.empty() ? "" : ",") + s;
    return out;
}

}  // namespace rblk
