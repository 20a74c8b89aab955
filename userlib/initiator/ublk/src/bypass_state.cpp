// The bypass servers' state files; see bypass_state.hpp.
#include "rblk/bypass/bypass_state.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace rblk::bypass {

using nlohmann::json;

namespace {

json namespaces_json(const BypassState& s, bool with_ublk_id)
{
    json ns = json::array();
    for (const BypassNamespace& n : s.namespaces) {
        json e = {{"nsid", n.nsid}, {"device", n.device()}, {"size_bytes", n.size_bytes}, {"lba_size", n.lba_size}};
        if (with_ublk_id)
            e["ublk_id"] = n.ublk_id;
        ns.push_back(std::move(e));
    }
    return ns;
}

}  // namespace

std::string BypassState::devices() const
{
    std::string s;
    for (const BypassNamespace& n : namespaces)
        s += (s.empty() ? "" : ",") + n.device();
    return s;
}

bool BypassState::serves(const std::string& device) const
{
    return std::any_of(namespaces.begin(), namespaces.end(), [&](const BypassNamespace& n) {
        return device == n.device() || "/dev/" + device == n.device();
    });
}

json bypass_state_json(const BypassState& s)
{
    return {{"name", s.name},           {"pid", s.pid},
            {"starttime", s.starttime}, {"state", s.state},
            {"reason", s.reason},       {"transport", s.transport},
            {"traddr", s.traddr},       {"trsvcid", s.trsvcid},
            {"subnqn", s.subnqn},       {"hostnqn", s.hostnqn},
            {"nsid", s.nsid},           {"namespaces", namespaces_json(s, true)},
            {"nr_io_queues", s.nr_io_queues}, {"queue_size", s.queue_size},
            {"log", s.log}};
}

std::optional<BypassState> parse_bypass_state(const std::string& text)
{
    const json j = json::parse(text, nullptr, false);
    if (!j.is_object())
        return std::nullopt;
    try {
        BypassState s;
        s.name = j.at("name").get<std::string>();
        s.pid = j.at("pid").get<int>();
        s.starttime = j.at("starttime").get<std::uint64_t>();
        s.state = j.at("state").get<std::string>();
        s.reason = j.value("reason", "");
        s.transport = j.value("transport", "rdma");
        s.traddr = j.at("traddr").get<std::string>();
        s.trsvcid = j.at("trsvcid").get<std::int64_t>();
        s.subnqn = j.at("subnqn").get<std::string>();
        s.hostnqn = j.value("hostnqn", "");
        s.nsid = j.at("nsid").get<std::uint32_t>();
        for (const json& e : j.at("namespaces")) {
            BypassNamespace n;
            n.nsid = e.at("nsid").get<std::uint32_t>();
            n.ublk_id = e.at("ublk_id").get<std::uint32_t>();
            n.size_bytes = e.value("size_bytes", std::uint64_t{0});
            n.lba_size = e.value("lba_size", 0u);
            s.namespaces.push_back(n);
        }
        s.nr_io_queues = j.value("nr_io_queues", 0u);
        s.queue_size = j.value("queue_size", 0u);
        s.log = j.value("log", "");
        if (s.name.empty() || s.pid <= 0)
            return std::nullopt;
        return s;
    } catch (const json::exception&) {
        return std::nullopt;
    }
}

json bypass_list_json(const BypassState& s)
{
    json j = {{"name", s.name},
              {"path", "bypass"},
              {"state", s.state},
              {"transport", s.transport},
              {"traddr", s.traddr},
              {"trsvcid", s.trsvcid},
              {"subnqn", s.subnqn},
              {"hostnqn", s.hostnqn},
              {"nr_io_queues", s.nr_io_queues},
              {"queue_size", s.queue_size},
              {"pid", s.pid},
              {"reason", s.reason}};
    j["namespaces"] = namespaces_json(s, false);
    return j;
}

std::uint64_t process_starttime(int pid)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::size_t close = all.rfind(')');
    if (close == std::string::npos)
        return 0;
    // After "(comm)": state (field 3) ... starttime (field 22).
    std::istringstream rest(all.substr(close + 1));
    std::string field;
    std::uint64_t start = 0;
    for (int i = 3; i <= 22 && rest >> field; ++i) {
        if (i == 3 && (field == "Z" || field == "X"))
            return 0;  // exited, not yet reaped
        if (i == 22)
            start = std::strtoull(field.c_str(), nullptr, 10);
    }
    return start;
}

bool bypass_process_alive(int pid, std::uint64_t starttime)
{
    if (pid <= 0)
        return false;
    const std::uint64_t now = process_starttime(pid);
    return now != 0 && (starttime == 0 || now == starttime);
}

std::vector<BypassState> load_bypass_states(const std::string& dir)
{
    namespace fs = std::filesystem;
    std::vector<BypassState> out;
    std::error_code ec;
    for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
        const fs::path p = e.path();
        if (p.extension() != ".json" || !p.filename().string().starts_with("bypass"))
            continue;
        std::ifstream in(p);
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::optional<BypassState> s = parse_bypass_state(text);
        if (!s)
            continue;
        if (!bypass_process_alive(s->pid, s->starttime))
            s->state = "dead";
        out.push_back(std::move(*s));
    }
    // bypass2 before bypass10.
    std::sort(out.begin(), out.end(), [](const BypassState& a, const BypassState& b) {
        return a.name.size() != b.name.size() ? a.name.size() < b.name.size() : a.name < b.name;
    });
    return out;
}

namespace {

void make_dirs(const std::string& dir)
{
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec)
        throw std::runtime_error("cannot create " + dir + ": " + ec.message());
}

}  // namespace

void save_bypass_state(const BypassState& s, const std::string& dir)
{
    make_dirs(dir);
    const std::string path = dir + "/" + s.name + ".json";
    const std::string tmp = path + ".tmp";
    {
        std::ofstream f(tmp, std::ios::trunc);
        f << bypass_state_json(s).dump(2) << '\n';
        f.close();
        if (!f)
            throw std::runtime_error("cannot write " + tmp);
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
        throw std::runtime_error("cannot rename " + tmp + ": " + std::strerror(errno));
}

std::string reserve_bypass_name(BypassState& s, const std::string& dir)
{
    make_dirs(dir);
    for (int n = 0; n < 100000; ++n) {
        const std::string name = "bypass" + std::to_string(n);
        const std::string path = dir + "/" + name + ".json";
        const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0) {
            if (errno == EEXIST)
                continue;
            throw std::runtime_error("cannot create " + path + ": " + std::strerror(errno));
        }
        ::close(fd);
        s.name = name;
        save_bypass_state(s, dir);
        return name;
    }
    throw std::runtime_error("no free bypass controller name in " + dir);
}

void remove_bypass_state(const std::string& name, const std::string& dir)
{
    std::error_code ec;
    std::filesystem::remove(dir + "/" + name + ".json", ec);
}

std::optional<BypassState> find_bypass(const std::vector<BypassState>& all, const std::string& name)
{
    for (const BypassState& s : all)
        if (s.name == name || s.serves(name))
            return s;
    return std::nullopt;
}

}  // namespace rblk::bypass
