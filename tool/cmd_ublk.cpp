// rblkctl connect --path bypass: a controller's namespaces (every active
// one, or --nsid's) as real block devices, one /dev/ublkbN each, served by
// a userspace server (rblkctl itself the NVMe-oF/RDMA
// initiator, librblk_bypass's UblkServer over the kernel's ublk driver).
//
// The server is a daemon: `connect --path bypass` forks it off (setsid, a
// second fork, stdio on /dev/null, its log in /run/rblk/bypass/<name>.log),
// waits on a pipe until it is serving or has failed, and prints its name
// and devices as `connect` prints a kernel controller's, or the server's one
// line of failure (no ublk, no RDMA device, wrong address or NQN). It then
// exits; the server lives on. The hidden `rblkctl ublk-server` runs the same
// server in the foreground for systemd (Type=notify: READY=1 on
// $NOTIFY_SOCKET once serving; tool/dist/rblk-ublk@.service.in).
//
// list, show and disconnect find the servers through their state files
// (bypass_state.hpp). disconnect asks a live server to stop (SIGTERM: it
// stops and deletes its devices, shuts the controller down with CC.SHN and
// removes its file) and waits for it, bounded; a dead server's leftover
// devices it deletes itself.
#include "bypass_state.hpp"
#include "commands.hpp"
#include "format.hpp"

#include <rblk/bypass/ublk.hpp>
#include <rblk/bypass/ublk_server.hpp>
#include <rblk/error.hpp>
#include <rblk/json.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <iostream>
#include <sstream>
#include <thread>

namespace rblkctl {

namespace bp = rblk::bypass;

namespace {

// How long disconnect waits for a server to stop before killing it.
constexpr auto kStopWait = std::chrono::seconds(30);

std::string ublk_missing()
{
    utsname u{};
    ::uname(&u);
    return bp::ublk_missing_reason("/dev/ublk-control", std::string("/lib/modules/") + u.release);
}

// One line in the server's log (stderr: the log file, or the journal).
void log_line(const std::string& name, const std::string& what)
{
    char when[32];
    const std::time_t t = std::time(nullptr);
    std::strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", std::localtime(&t));
    std::fprintf(stderr, "%s rblkctl[%d]: %s: %s\n", when, static_cast<int>(::getpid()),
                 name.empty() ? "bypass" : name.c_str(), what.c_str());
    std::fflush(stderr);
}

// sd_notify(3) without libsystemd: one datagram to $NOTIFY_SOCKET.
void sd_notify(const std::string& message)
{
    const char* path = std::getenv("NOTIFY_SOCKET");
    if (!path || (path[0] != '/' && path[0] != '@') || std::strlen(path) >= sizeof(sockaddr_un::sun_path))
        return;
    const rblk::UniqueFd fd(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (!fd)
        return;
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path, sizeof(addr.sun_path) - 1);
    if (path[0] == '@')
        addr.sun_path[0] = '\0';  // abstract namespace
    const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + std::strlen(path));
    (void)::sendto(fd.get(), message.data(), message.size(), MSG_NOSIGNAL,
                   reinterpret_cast<const sockaddr*>(&addr), len);
}

void write_all(int fd, const std::string& s)
{
    for (std::size_t off = 0; off < s.size();) {
        const ssize_t n = ::write(fd, s.data() + off, s.size() - off);
        if (n <= 0)
            return;
        off += static_cast<std::size_t>(n);
    }
}

// The server, in this process. `ready_fd` (or -1) is told "ok NAME DEVICE..."
// or "error LINE" once; `detached`: stderr goes to the server's log file.
// Returns the exit status; throws only when ready_fd < 0.
int serve(const Request& req, int ready_fd, bool detached)
{
    BypassState st;
    st.pid = static_cast<int>(::getpid());
    st.starttime = process_starttime(st.pid);
    st.state = "connecting";
    st.traddr = req.connect.traddr;
    st.trsvcid = req.connect.trsvcid;
    st.subnqn = req.connect.subnqn;
    st.nsid = req.bypass_io.all_namespaces ? 0 : static_cast<std::uint32_t>(req.bypass_io.nsid);
    bool reserved = false;
    const auto report = [&](const std::string& msg) {
        if (ready_fd >= 0) {
            write_all(ready_fd, msg);
            ::close(ready_fd);
            ready_fd = -1;
        }
    };

    // The stop signals, taken by a signalfd; blocked before any thread exists.
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    if (detached)
        sigaddset(&stop, SIGHUP);
    ::pthread_sigmask(SIG_BLOCK, &stop, nullptr);
    ::signal(SIGPIPE, SIG_IGN);
    try {
        if (const std::string why = ublk_missing(); !why.empty())
            throw std::runtime_error(why);
        const rblk::UniqueFd sfd(::signalfd(-1, &stop, SFD_CLOEXEC | SFD_NONBLOCK));
        if (!sfd)
            throw std::runtime_error(std::string("cannot create a signalfd: ") + std::strerror(errno));
        const bp::ControllerOptions co = bypass_controller_options(req);
        st.traddr = co.connect.traddr;
        st.hostnqn = co.connect.hostnqn.value_or("");
        reserve_bypass_name(st);
        reserved = true;
        if (detached) {
            st.log = std::string(kBypassRunDir) + "/" + st.name + ".log";
            const int lfd = ::open(st.log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
            if (lfd >= 0) {
                ::dup2(lfd, STDERR_FILENO);
                ::close(lfd);
            }
        }
        bp::UblkControl control;
        bp::Controller ctrl(co);
        for (const std::string& note : ctrl.notes())
            log_line(st.name, note);
        bp::UblkServer::Options so;
        so.busy_poll = req.bypass_io.hipri;
        so.reconnect_delay =
            std::chrono::seconds(co.connect.reconnect_delay.value_or(RBLK_DEFAULT_RECONNECT_DELAY));
        bp::UblkServer server(ctrl, control, so);
        std::string nsids;
        std::string devices;
        for (std::size_t i = 0; i < server.nr_devices(); ++i) {
            const bp::NamespaceInfo& ns = ctrl.ns(i);
            st.namespaces.push_back({ns.nsid, server.dev_id(i), ns.size_bytes(), ns.lba_size()});
            nsids += (nsids.empty() ? "" : ", ") + std::to_string(ns.nsid);
            devices += (devices.empty() ? "" : " ") + server.device(i);
        }
        st.nr_io_queues = static_cast<std::uint32_t>(ctrl.nr_io_queues());
        st.queue_size = ctrl.io_queue_size();
        save_bypass_state(st);
        server.start();
        st.state = "live";
        save_bypass_state(st);
        log_line(st.name, "serving namespace(s) " + nsids + " of " + st.subnqn + " at " + st.traddr + ":" +
                              std::to_string(st.trsvcid) + " as " + devices + " (" +
                              std::to_string(st.nr_io_queues) + " queue(s) of depth " +
                              std::to_string(server.depth()) + ", " + std::to_string(server.max_io_bytes()) +
                              " bytes per request)");
        report("ok " + st.name + " " + devices + "\n");
        sd_notify("READY=1\nSTATUS=serving " + devices + "\nMAINPID=" + std::to_string(st.pid));
        const bool kept = server.run(sfd.get(), [&](bp::UblkServer::Phase p, const std::string& why) {
            st.state = bp::UblkServer::phase_name(p);
            st.reason = why;
            log_line(st.name, st.state + ": " + why);
            try {
                save_bypass_state(st);
            } catch (const std::exception& e) {
                log_line(st.name, e.what());
            }
        });
        sd_notify("STOPPING=1");
        try {
            ctrl.shutdown();
        } catch (const std::exception& e) {
            log_line(st.name, std::string("shutdown: ") + e.what());
        }
        log_line(st.name, kept ? "stopped" : "controller lost: device deleted");
        remove_bypass_state(st.name);
        return kept ? 0 : 1;
    } catch (const std::exception& e) {
        if (reserved)
            remove_bypass_state(st.name);
        if (ready_fd < 0)
            throw;
        log_line(st.name, e.what());
        report(std::string("error ") + e.what() + "\n");
        return 1;
    }
}

std::optional<BypassState> find_bypass(const std::vector<BypassState>& all, const std::string& name)
{
    for (const BypassState& s : all)
        if (s.name == name || s.serves(name))
            return s;
    return std::nullopt;
}

bool is_bypass_name(const std::string& n)
{
    return n.starts_with("bypass") || n.starts_with("ublkb") || n.starts_with("/dev/ublkb");
}

// Stops the server of `s` (or cleans up after a dead one); throws on failure.
void disconnect_bypass(const BypassState& s)
{
    bool dead = s.state == "dead";
    if (!dead) {
        if (::kill(s.pid, SIGTERM) != 0 && errno == ESRCH)
            dead = true;
        const auto until = std::chrono::steady_clock::now() + kStopWait;
        while (!dead && bypass_process_alive(s.pid, s.starttime)) {
            if (std::chrono::steady_clock::now() >= until) {
                ::kill(s.pid, SIGKILL);
                std::this_thread::sleep_for(std::chrono::milliseconds(500));
                dead = true;
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        if (!dead) {
            // It stopped itself: its device and file are gone, unless it
            // died on the way.
            const auto left = find_bypass(load_bypass_states(), s.name);
            if (!left)
                return;
            dead = true;
        }
    }
    if (!s.namespaces.empty() && ublk_missing().empty()) {
        bp::UblkControl control;
        for (const BypassNamespace& n : s.namespaces) {
            (void)control.stop_dev(n.ublk_id);
            if (const int r = control.del_dev(n.ublk_id); r < 0 && r != -ENODEV)
                throw std::runtime_error("cannot delete ublk device " + std::to_string(n.ublk_id) + " of " +
                                         s.name + ": " + std::strerror(-r));
        }
    }
    remove_bypass_state(s.name);
}

std::string format_bypass_show(const BypassState& s)
{
    std::string table = align_table({{"name:", s.name},
                        {"path:", "bypass (ublk server)"},
                        {"state:", s.state},
                        {"reason:", s.reason.empty() ? "-" : s.reason},
                        {"pid:", std::to_string(s.pid)},
                        {"transport:", s.transport},
                        {"traddr:", s.traddr},
                        {"trsvcid:", std::to_string(s.trsvcid)},
                        {"subnqn:", s.subnqn},
                        {"hostnqn:", s.hostnqn},
                        {"nr_io_queues:", std::to_string(s.nr_io_queues)},
                        {"queue_size:", std::to_string(s.queue_size)},
                        {"nsid:", s.nsid ? std::to_string(s.nsid) : "all"},
                        {"log:", s.log.empty() ? "-" : s.log}});
    std::vector<std::vector<std::string>> ns_rows = {{"NSID", "DEVICE", "SIZE_BYTES", "LBA_SIZE"}};
    for (const BypassNamespace& n : s.namespaces)
        ns_rows.push_back({std::to_string(n.nsid), n.device(), std::to_string(n.size_bytes),
                           std::to_string(n.lba_size)});
    return table + '\n' + align_table(ns_rows);
}

}  // namespace

void check_bypass_connect(const CLI::App& sub, const Request& req)
{
    for (const char* opt : {"--nr-write-queues", "--nr-poll-queues", "--duplicate-connect"})
        if (sub.get_option_no_throw(opt) && sub.count(opt))
            throw CLI::ValidationError(std::string(opt) + " is the kernel path's: not with --path bypass");
    if (!req.bypass_io.all_namespaces)
        check_nsid(req.bypass_io.nsid);
}

void add_ublk_server(CLI::App& app, Request& req)
{
    rblk::ConnectOptions& o = req.connect;
    CLI::App* sub = app.add_subcommand(
        "ublk-server",
        "Serve a controller's namespaces as /dev/ublkbN in the foreground (what connect --path "
        "bypass runs detached; for systemd)");
    sub->group("");  // hidden: connect --path bypass is the user's command
    add_address_options(sub, o, true);
    sub->add_option("-n,--nqn", o.subnqn, "Subsystem NQN")->required();
    add_host_options(sub, o);
    add_io_options(sub, o);
    sub->add_option("--nsid", req.bypass_io.nsid, "Serve this namespace only (default: every active one)");
    sub->add_flag("--hipri", req.bypass_io.hipri, "Busy-poll the queues instead of sleeping");
    sub->callback([&req, sub] {
        req.command = Command::UblkServer;
        req.connect_path = "bypass";
        req.bypass_io.all_namespaces = sub->count("--nsid") == 0;
        check_options(*sub, req.connect);
        check_bypass_connect(*sub, req);
    });
}

int run_ublk_server(const Request& req) { return serve(req, -1, false); }

int run_connect_bypass(const Request& req, std::ostream& out)
{
    // The checks a user's mistake fails, told here before anything forks.
    if (const std::string why = ublk_missing(); !why.empty())
        throw std::runtime_error(why);
    int pfd[2];
    if (::pipe2(pfd, O_CLOEXEC) != 0)
        throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(errno));
    out.flush();
    std::cout.flush();
    std::cerr.flush();
    const pid_t child = ::fork();
    if (child < 0)
        throw std::runtime_error(std::string("cannot fork the bypass server: ") + std::strerror(errno));
    if (child == 0) {
        ::close(pfd[0]);
        ::setsid();
        const pid_t server = ::fork();
        if (server != 0)
            ::_exit(server < 0 ? 1 : 0);
        if (::chdir("/") != 0) {
        }
        ::umask(022);
        const int null = ::open("/dev/null", O_RDWR);
        if (null >= 0) {
            ::dup2(null, STDIN_FILENO);
            ::dup2(null, STDOUT_FILENO);
            ::dup2(null, STDERR_FILENO);
            if (null > STDERR_FILENO)
                ::close(null);
        }
        int rc = 1;
        try {
            rc = serve(req, pfd[1], true);
        } catch (...) {
        }
        std::fflush(nullptr);
        ::_exit(rc);
    }
    ::close(pfd[1]);
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    std::string msg;
    char buf[512];
    for (ssize_t n; (n = ::read(pfd[0], buf, sizeof(buf))) != 0;) {
        if (n < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        msg.append(buf, static_cast<std::size_t>(n));
    }
    ::close(pfd[0]);
    while (!msg.empty() && msg.back() == '\n')
        msg.pop_back();
    if (msg.starts_with("error "))
        throw std::runtime_error(msg.substr(6));
    if (!msg.starts_with("ok "))
        throw std::runtime_error("the bypass server exited before it was ready (see " +
                                 std::string(kBypassRunDir) + "/*.log)");
    std::istringstream rest(msg.substr(3));
    std::string name;
    rest >> name;
    if (req.json) {
        const auto s = find_bypass(load_bypass_states(), name);
        out << (s ? bypass_list_json(*s) : nlohmann::json{{"name", name}, {"path", "bypass"}}).dump(2)
            << '\n';
    } else {
        out << name << '\n';
        for (std::string device; rest >> device;)
            out << device << '\n';
    }
    return 0;
}

std::optional<int> run_bypass_control(const Request& req, std::ostream& out)
{
    const std::vector<BypassState> servers = load_bypass_states();
    const bool named = (req.command == Command::Show || req.command == Command::Disconnect) &&
                       !req.name.empty();
    if (named && !is_bypass_name(req.name))
        return std::nullopt;  // the kernel's
    if (named) {
        const auto s = find_bypass(servers, req.name);
        if (!s)
            throw std::runtime_error("no bypass controller " + req.name);
        if (req.command == Command::Show) {
            if (req.json)
                out << bypass_list_json(*s).dump(2) << '\n';
            else
                out << format_bypass_show(*s);
            return 0;
        }
        disconnect_bypass(*s);
        if (req.json)
            out << nlohmann::json{{"disconnected", {s->name}}}.dump() << '\n';
        else
            out << s->name << '\n';
        return 0;
    }
    if (servers.empty())
        return std::nullopt;
    if (req.command == Command::Disconnect) {
        std::vector<std::string> names;
        for (const BypassState& s : servers)
            if (req.all || s.subnqn == req.nqn) {
                disconnect_bypass(s);
                names.push_back(s.name);
            }
        try {
            rblk::Client client;
            const std::vector<std::string> more =
                req.all ? client.disconnect_all() : client.disconnect_nqn(req.nqn);
            names.insert(names.end(), more.begin(), more.end());
        } catch (const rblk::ModuleNotLoaded&) {
            if (names.empty())
                throw;
        }
        if (req.json)
            out << nlohmann::json{{"disconnected", names}}.dump() << '\n';
        else
            for (const std::string& n : names)
                out << n << '\n';
        return 0;
    }
    if (req.command != Command::List)
        return std::nullopt;
    std::vector<rblk::ControllerInfo> controllers;
    try {
        rblk::Client client;
        controllers = client.list();
    } catch (const rblk::ModuleNotLoaded&) {
        // The bypass servers need no module.
    }
    if (req.json) {
        nlohmann::json j = rblk::list_json(controllers);
        nlohmann::json b = nlohmann::json::array();
        for (const BypassState& s : servers)
            b.push_back(bypass_list_json(s));
        j["bypass"] = std::move(b);
        out << j.dump(2) << '\n';
    } else {
        std::vector<std::vector<std::string>> rows;
        for (const BypassState& s : servers)
            rows.push_back(bypass_list_row(s));
        out << format_list(controllers, rows);
    }
    return 0;
}

}  // namespace rblkctl
