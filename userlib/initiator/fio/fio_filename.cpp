// The fio engine's filename (fio_filename.hpp).
#include "fio_filename.hpp"

#include <algorithm>
#include <cctype>
#include <exception>
#include <sstream>
#include <stdexcept>

namespace rblk::fio {

namespace {

constexpr const char* kKeys =
    "trtype traddr trsvcid subnqn ns hostnqn hostid adrfam reconnect_delay ctrl_loss_tmo fast_io_fail_tmo";

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

std::int64_t number(const std::string& key, const std::string& v)
{
    std::size_t used = 0;
    long long n = -1;
    try {
        n = std::stoll(v, &used, 10);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != v.size() || v.empty() || n < 0)
        throw std::invalid_argument(key + "=" + v + ": not a number");
    return n;
}

// A timeout in seconds where -1 means none (nvme-cli's ctrl_loss_tmo).
std::int64_t seconds_or_off(const std::string& key, const std::string& v)
{
    return v == "-1" ? -1 : number(key, v);
}

}  // namespace

bypass::ControllerOptions parse_filename(const std::string& spec)
{
    if (spec.empty())
        throw std::invalid_argument("empty filename: give 'trtype=rdma traddr=A trsvcid=P subnqn=N ns=1'");
    std::string text(spec);
    for (std::size_t p; (p = text.find("\\:")) != std::string::npos;)
        text.erase(p, 1);
    bypass::ControllerOptions co;
    co.connect.nr_io_queues = 1;
    std::istringstream words(text);
    std::string w;
    while (words >> w) {
        const auto eq = w.find('=');
        if (eq == std::string::npos || eq == 0)
            throw std::invalid_argument("'" + w + "': expected key=value");
        const std::string key = lower(w.substr(0, eq));
        const std::string v = w.substr(eq + 1);
        if (key == "trtype") {
            if (lower(v) != "rdma")
                throw std::invalid_argument("trtype=" + v + ": only rdma is supported");
        } else if (key == "adrfam") {
            if (lower(v) != "ipv4" && lower(v) != "ipv6")
                throw std::invalid_argument("adrfam=" + v + ": expected IPv4 or IPv6");
        } else if (key == "traddr") {
            co.connect.traddr = v;
        } else if (key == "trsvcid") {
            co.connect.trsvcid = number(key, v);
        } else if (key == "subnqn") {
            co.connect.subnqn = v;
        } else if (key == "ns" || key == "nsid") {
            const std::int64_t n = number(key, v);
            if (n < 1 || n > 0xfffffffe)
                throw std::invalid_argument(key + "=" + v + ": a namespace ID is 1..4294967294");
            co.nsid = static_cast<std::uint32_t>(n);
        } else if (key == "hostnqn") {
            co.connect.hostnqn = v;
        } else if (key == "hostid") {
            co.connect.hostid = v;
        } else if (key == "reconnect_delay") {
            co.connect.reconnect_delay = number(key, v);
        } else if (key == "ctrl_loss_tmo") {
            co.connect.ctrl_loss_tmo = seconds_or_off(key, v);
        } else if (key == "fast_io_fail_tmo") {
            co.connect.fast_io_fail_tmo = seconds_or_off(key, v);
        } else {
            throw std::invalid_argument("unknown key '" + key + "' (" + kKeys + ")");
        }
    }
    if (co.connect.traddr.empty())
        throw std::invalid_argument("no traddr= in the filename");
    if (co.connect.subnqn.empty())
        throw std::invalid_argument("no subnqn= in the filename");
    return co;
}

}  // namespace rblk::fio
