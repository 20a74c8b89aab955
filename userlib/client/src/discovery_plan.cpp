#include "rblk/discovery_plan.hpp"

#include "rblk/error.hpp"
#include "rblk/session_config.hpp"

extern "C" {  // libnvme 1.3 headers lack C++ linkage guards
#include <nvme/types.h>
}

#include <algorithm>
#include <charconv>
#include <deque>
#include <exception>
#include <set>
#include <sstream>
#include <tuple>

namespace rblk {
namespace {

using TargetKey = std::tuple<std::string, std::string, std::int64_t, std::string, std::string,
                             std::string>;

TargetKey key(const ConnectOptions& o)
{
    return {o.transport, o.traddr, o.trsvcid, o.subnqn, o.hostnqn.value_or(""),
            o.host_traddr.value_or("")};
}

bool same_target(const ConnectOptions& a, const ConnectOptions& b) { return key(a) == key(b); }

std::optional<std::int64_t> port_number(const std::string& s)
{
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || v < 1 || v > 65535)
        return std::nullopt;
    return v;
}

// `from` with the entry's address, port and NQN, or the reason it cannot be.
std::optional<ConnectOptions> from_entry(const DiscoveryEntry& e, const ConnectOptions& from,
                                         bool discovery, std::string* why)
{
    if (e.trtype != NVMF_TRTYPE_RDMA) {
        *why = "transport type " + std::to_string(e.trtype) + " is not rdma";
        return std::nullopt;
    }
    if (e.adrfam != NVMF_ADDR_FAMILY_IP4 && e.adrfam != NVMF_ADDR_FAMILY_IP6) {
        *why = "address family " + std::to_string(e.adrfam) + " is not ipv4 or ipv6";
        return std::nullopt;
    }
    const std::optional<std::int64_t> port = port_number(e.trsvcid);
    if (!port) {
        *why = "trsvcid '" + e.trsvcid + "' is not a port number";
        return std::nullopt;
    }
    ConnectOptions o = from;
    o.transport = "rdma";
    o.traddr = e.traddr;
    o.trsvcid = *port;
    o.subnqn = e.subnqn;
    o.discovery = discovery;
    o.duplicate_connect = false;
    try {
        o.validate();
    } catch (const InvalidOption& err) {
        *why = err.what();
        return std::nullopt;
    }
    return o;
}

std::string entry_prefix(const DiscoveryEntry& e)
{
    return "discovery log entry " + std::to_string(e.index) + " (" + e.subnqn + " at " +
           e.traddr + ":" + e.trsvcid + "): ";
}

}  // namespace

std::vector<ConfLine> parse_discovery_conf(std::istream& in)
{
    std::vector<ConfLine> out;
    std::string text;
    for (int n = 1; std::getline(in, text); ++n) {
        std::istringstream words(text);
        ConfLine line{n, {}};
        for (std::string w; words >> w;)
            line.args.push_back(w);
        if (line.args.empty() || line.args.front().front() == '#')
            continue;
        out.push_back(std::move(line));
    }
    return out;
}

std::string target_name(const ConnectOptions& o)
{
    const bool v6 = o.traddr.find(':') != std::string::npos;
    return (v6 ? "[" + o.traddr + "]" : o.traddr) + ":" + std::to_string(o.trsvcid) + " " +
           o.subnqn;
}

ConnectOptions discovery_connect_options(const ConnectOptions& disc, bool persistent)
{
    ConnectOptions o;
    o.transport = disc.transport;
    o.traddr = disc.traddr;
    o.trsvcid = disc.trsvcid;
    o.subnqn = disc.subnqn;
    o.hostnqn = disc.hostnqn;
    o.hostid = disc.hostid;
    o.host_traddr = disc.host_traddr;
    o.tos = disc.tos;
    o.discovery = true;
    if (persistent)
        o.kato = disc.kato.value_or(kDefaultDiscoveryKato);
    return o;
}

std::optional<std::string> find_persistent_discovery(const std::vector<ControllerInfo>& existing,
                                                     const ConnectOptions& disc)
{
    for (const ControllerInfo& c : existing)
        if (c.discovery && c.kato > 0 && serves(c, disc))
            return c.name;
    return std::nullopt;
}

ConnectAllPlan plan_connect_all(const DiscoveryLog& log, const ConnectOptions& from,
                                const std::vector<ControllerInfo>& existing,
                                const std::vector<ConnectOptions>& planned)
{
    ConnectAllPlan plan;
    const auto planned_already = [&](const ConnectOptions& o) {
        const auto same = [&](const ConnectOptions& p) { return same_target(p, o); };
        return std::any_of(planned.begin(), planned.end(), same) ||
               std::any_of(plan.connect.begin(), plan.connect.end(), same);
    };
    for (const DiscoveryEntry& e : log.entries) {
        std::string why;
        switch (e.subtype) {
        case NVME_NQN_CURR:
            // The controller being read: nothing to connect or report
            // (nvme-cli passes over it the same way).
            continue;
        case NVME_NQN_DISC:
            if (auto o = from_entry(e, from, true, &why))
                plan.referrals.push_back(std::move(*o));
            else
                plan.skipped.push_back(entry_prefix(e) + "referral not followed: " + why);
            continue;
        default:
            break;
        }
        std::optional<ConnectOptions> o = from_entry(e, from, false, &why);
        if (!o) {
            plan.skipped.push_back(entry_prefix(e) + why);
            continue;
        }
        const auto serving = std::find_if(existing.begin(), existing.end(), [&](const auto& c) {
            return !c.discovery && serves(c, *o);
        });
        if (serving != existing.end()) {
            plan.existing.push_back(serving->name);
            continue;
        }
        if (planned_already(*o))
            continue;  // another entry or log named it already
        plan.connect.push_back(std::move(*o));
    }
    return plan;
}

DiscoveryWalk walk_discovery(const std::vector<ConnectOptions>& starts,
                             const std::vector<ControllerInfo>& existing,
                             const DiscoverFn& discover, int max_depth)
{
    DiscoveryWalk walk;
    std::set<TargetKey> visited;
    std::deque<std::pair<ConnectOptions, int>> queue;
    for (const ConnectOptions& s : starts)
        queue.emplace_back(s, 0);
    std::exception_ptr first_error;
    while (!queue.empty()) {
        auto [disc, depth] = std::move(queue.front());
        queue.pop_front();
        if (!visited.insert(key(disc)).second) {
            walk.warnings.push_back("discovery controller " + target_name(disc) +
                                    " already read: referral loop ended");
            continue;
        }
        DiscoveryLog log;
        try {
            log = discover(disc, depth);
        } catch (const std::exception& e) {
            if (depth == 0 && !first_error)
                first_error = std::current_exception();
            walk.warnings.push_back("discovery at " + target_name(disc) + ": " + e.what());
            continue;
        }
        ++walk.logs_read;
        walk.warnings.insert(walk.warnings.end(), log.warnings.begin(), log.warnings.end());
        ConnectAllPlan plan = plan_connect_all(log, disc, existing, walk.connect);
        walk.warnings.insert(walk.warnings.end(), plan.skipped.begin(), plan.skipped.end());
        walk.existing.insert(walk.existing.end(), plan.existing.begin(), plan.existing.end());
        for (ConnectOptions& o : plan.connect)
            walk.connect.push_back(std::move(o));
        for (ConnectOptions& r : plan.referrals) {
            if (depth + 1 > max_depth) {
                walk.warnings.push_back("referral to " + target_name(r) + " not followed: more than " +
                                        std::to_string(max_depth) + " referrals deep");
                continue;
            }
            queue.emplace_back(std::move(r), depth + 1);
        }
    }
    if (walk.logs_read == 0 && first_error)
        std::rethrow_exception(first_error);
    return walk;
}

}  // namespace rblk
