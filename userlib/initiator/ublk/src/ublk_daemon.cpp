// The ublk server as a daemon; see ublk_daemon.hpp.
//
// serve() is the server's life, one step a line: the stop signals blocked,
// the controller connected, the devices added and recorded, READY told
// (through the ready pipe of a detached server, and to systemd), the
// server's loop, its stop. The steps are the helpers above it.
#include "rblk/bypass/ublk_daemon.hpp"

#include <rblk/bypass/ublk.hpp>
#include <rblk/bypass/ublk_server.hpp>
#include <rblk/unique_fd.hpp>

#include <uapi/rblk.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace rblk::bypass {

namespace {

// How long stop_server() waits for a server to stop before killing it.
constexpr auto kStopWait = std::chrono::seconds(30);

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
    const UniqueFd fd(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
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

// The write end of a detached server's ready pipe (or none, -1): told
// "ok NAME DEVICE..." or "error LINE" once, then closed.
class ReadyPipe {
public:
    explicit ReadyPipe(int fd) : fd_(fd) {}
    ReadyPipe(const ReadyPipe&) = delete;
    ReadyPipe& operator=(const ReadyPipe&) = delete;
    ~ReadyPipe() { tell(""); }

    bool attached() const { return fd_ >= 0; }
    void tell(const std::string& msg)
    {
        if (fd_ < 0)
            return;
        write_all(fd_, msg);
        ::close(fd_);
        fd_ = -1;
    }

private:
    int fd_;
};

// What the state file says before the server has its name.
BypassState initial_state(const DaemonOptions& o)
{
    BypassState st;
    st.pid = static_cast<int>(::getpid());
    st.starttime = process_starttime(st.pid);
    st.state = "connecting";
    st.traddr = o.controller.connect.traddr;
    st.trsvcid = o.controller.connect.trsvcid;
    st.subnqn = o.controller.connect.subnqn;
    st.nsid = o.controller.all_namespaces ? 0 : o.controller.nsid;
    return st;
}

// The stop signals, for a signalfd: blocked before any thread exists.
sigset_t block_stop_signals(bool detached)
{
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    if (detached)
        sigaddset(&stop, SIGHUP);
    ::pthread_sigmask(SIG_BLOCK, &stop, nullptr);
    ::signal(SIGPIPE, SIG_IGN);
    return stop;
}

UniqueFd stop_signalfd(const sigset_t& stop)
{
    UniqueFd sfd(::signalfd(-1, &stop, SFD_CLOEXEC | SFD_NONBLOCK));
    if (!sfd)
        throw std::runtime_error(std::string("cannot create a signalfd: ") + std::strerror(errno));
    return sfd;
}

// A dead server of the same controller (address, subsystem, host, the
// namespaces asked) whose devices wait for a new one: its record.
std::optional<BypassState> dead_twin(const BypassState& st)
{
    for (const BypassState& d : load_bypass_states())
        if (d.state == "dead" && !d.namespaces.empty() && d.traddr == st.traddr && d.trsvcid == st.trsvcid &&
            d.subnqn == st.subnqn && d.hostnqn == st.hostnqn && d.nsid == st.nsid)
            return d;
    return std::nullopt;
}

// The server's name (its state file claimed: a dead twin's, whose devices
// it takes back, else a new one) and, detached, its log file as stderr.
// Returns the twin's record.
std::optional<BypassState> claim_name(BypassState& st, const ControllerOptions& co, bool detached)
{
    st.traddr = co.connect.traddr;
    st.hostnqn = co.connect.hostnqn.value_or("");
    std::optional<BypassState> twin = dead_twin(st);
    if (twin) {
        st.name = twin->name;
        save_bypass_state(st);
    } else {
        reserve_bypass_name(st);
    }
    if (!detached)
        return twin;
    st.log = std::string(kBypassRunDir) + "/" + st.name + ".log";
    const int lfd = ::open(st.log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (lfd >= 0) {
        ::dup2(lfd, STDERR_FILENO);
        ::close(lfd);
    }
    return twin;
}

// The devices of a dead twin to take back, once the controller says its
// namespaces are still what they were.
std::vector<std::uint32_t> devices_to_adopt(const BypassState& twin, const Controller& ctrl)
{
    std::vector<std::uint32_t> ids;
    const auto& nss = ctrl.namespaces();
    for (std::size_t i = 0; i < twin.namespaces.size(); ++i) {
        const BypassNamespace& was = twin.namespaces[i];
        const std::string dev = was.device() + " of " + twin.name;
        if (i >= nss.size() || nss[i].nsid != was.nsid)
            throw std::runtime_error("cannot take back " + dev + ": namespace " + std::to_string(was.nsid) +
                                     " is no longer served (rblkctl disconnect " + twin.name + " deletes it)");
        if (nss[i].size_bytes() != was.size_bytes || nss[i].lba_size() != was.lba_size)
            throw std::runtime_error("cannot take back " + dev + ": namespace " + std::to_string(was.nsid) +
                                     " changed size or block size (rblkctl disconnect " + twin.name +
                                     " deletes it)");
        ids.push_back(was.ublk_id);
    }
    if (nss.size() != ids.size())
        throw std::runtime_error("cannot take back the devices of " + twin.name + ": the controller now has " +
                                 std::to_string(nss.size()) + " namespace(s), the devices " +
                                 std::to_string(ids.size()) + " (rblkctl disconnect " + twin.name +
                                 " deletes them)");
    return ids;
}

// A server that fails gives up its name: a new one's file goes; a dead
// twin's record comes back, for the next server or for disconnect.
void give_up_name(const BypassState& st, const std::optional<BypassState>& twin)
{
    try {
        if (twin)
            save_bypass_state(*twin);
        else
            remove_bypass_state(st.name);
    } catch (const std::exception& e) {
        log_line(st.name, e.what());
    }
}

UblkServer::Options server_options(const DaemonOptions& o, const ControllerOptions& co,
                                   std::vector<std::uint32_t> adopt)
{
    UblkServer::Options so;
    so.adopt = std::move(adopt);
    so.busy_poll = o.busy_poll;
    so.reconnect_delay =
        std::chrono::seconds(co.connect.reconnect_delay.value_or(RBLK_DEFAULT_RECONNECT_DELAY));
    return so;
}

// The namespaces served and their devices, for the log and the ready line.
struct Served {
    std::string nsids;    // "1, 2"
    std::string devices;  // "/dev/ublkb0 /dev/ublkb1"
};

// The devices the server added, into the state file's fields.
Served record_devices(BypassState& st, const Controller& ctrl, const UblkServer& server)
{
    Served s;
    for (std::size_t i = 0; i < server.nr_devices(); ++i) {
        const NamespaceInfo& ns = ctrl.ns(i);
        st.namespaces.push_back({ns.nsid, server.dev_id(i), ns.size_bytes(), ns.lba_size()});
        s.nsids += (s.nsids.empty() ? "" : ", ") + std::to_string(ns.nsid);
        s.devices += (s.devices.empty() ? "" : " ") + server.device(i);
    }
    st.nr_io_queues = static_cast<std::uint32_t>(ctrl.nr_io_queues());
    st.queue_size = ctrl.io_queue_size();
    return s;
}

std::string serving_line(const BypassState& st, const UblkServer& server, const Served& s)
{
    return "serving namespace(s) " + s.nsids + " of " + st.subnqn + " at " + st.traddr + ":" +
           std::to_string(st.trsvcid) + " as " + s.devices + " (" + std::to_string(st.nr_io_queues) +
           " queue(s) of depth " + std::to_string(server.depth()) + ", " +
           std::to_string(server.max_io_bytes()) + " bytes per request)";
}

// The server's loop telling a change of its controller's state.
void record_phase(BypassState& st, UblkServer::Phase p, const std::string& why)
{
    st.state = UblkServer::phase_name(p);
    st.reason = why;
    log_line(st.name, st.state + ": " + why);
    try {
        save_bypass_state(st);
    } catch (const std::exception& e) {
        log_line(st.name, e.what());
    }
}

// After the loop: the controller shut down, the state file removed.
int wind_down(Controller& ctrl, const BypassState& st, bool kept)
{
    sd_notify("STOPPING=1");
    try {
        ctrl.shutdown();
    } catch (const std::exception& e) {
        log_line(st.name, std::string("shutdown: ") + e.what());
    }
    log_line(st.name, kept ? "stopped" : "controller lost: device deleted");
    remove_bypass_state(st.name);
    return kept ? 0 : 1;
}

// The server, in this process. `ready` (when attached) is told once;
// `detached`: stderr goes to the server's log file. Returns the exit
// status; throws only when `ready` is not attached.
int serve(const DaemonOptions& o, ReadyPipe& ready, bool detached)
{
    BypassState st = initial_state(o);
    bool reserved = false;
    std::optional<BypassState> twin;
    const sigset_t stop = block_stop_signals(detached);
    try {
        if (const std::string why = ublk_missing(); !why.empty())
            throw std::runtime_error(why);
        const UniqueFd sfd = stop_signalfd(stop);
        const ControllerOptions co = o.resolve(o.controller);
        twin = claim_name(st, co, detached);
        reserved = true;
        UblkControl control;
        Controller ctrl(co);
        for (const std::string& note : ctrl.notes())
            log_line(st.name, note);
        std::vector<std::uint32_t> adopt;
        if (twin) {
            adopt = devices_to_adopt(*twin, ctrl);
            log_line(st.name, "taking back " + twin->devices() + " from its server (pid " +
                                  std::to_string(twin->pid) + "), which died");
        }
        UblkServer server(ctrl, control, server_options(o, co, std::move(adopt)));
        const Served served = record_devices(st, ctrl, server);
        save_bypass_state(st);
        server.start();
        st.state = "live";
        save_bypass_state(st);
        log_line(st.name, serving_line(st, server, served));
        ready.tell("ok " + st.name + " " + served.devices + "\n");
        sd_notify("READY=1\nSTATUS=serving " + served.devices + "\nMAINPID=" + std::to_string(st.pid));
        const bool kept = server.run(
            sfd.get(), [&st](UblkServer::Phase p, const std::string& why) { record_phase(st, p, why); });
        return wind_down(ctrl, st, kept);
    } catch (const std::exception& e) {
        if (reserved)
            give_up_name(st, twin);
        if (!ready.attached())
            throw;
        log_line(st.name, e.what());
        ready.tell(std::string("error ") + e.what() + "\n");
        return 1;
    }
}

// In the child of start_detached(): the daemon's second fork, its session
// and stdio, then the server; never returns.
[[noreturn]] void become_daemon(const DaemonOptions& o, int ready_fd)
{
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
        ReadyPipe ready(ready_fd);
        rc = serve(o, ready, true);
    } catch (...) {
    }
    std::fflush(nullptr);
    ::_exit(rc);
}

// All the server wrote on the ready pipe (until it closed it), without
// the trailing newline.
std::string read_ready(int fd)
{
    std::string msg;
    char buf[512];
    for (ssize_t n; (n = ::read(fd, buf, sizeof(buf))) != 0;) {
        if (n < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        msg.append(buf, static_cast<std::size_t>(n));
    }
    while (!msg.empty() && msg.back() == '\n')
        msg.pop_back();
    return msg;
}

StartedServer parse_ready(const std::string& msg)
{
    if (msg.starts_with("error "))
        throw std::runtime_error(msg.substr(6));
    if (!msg.starts_with("ok "))
        throw std::runtime_error("the bypass server exited before it was ready (see " +
                                 std::string(kBypassRunDir) + "/*.log)");
    std::istringstream rest(msg.substr(3));
    StartedServer s;
    rest >> s.name;
    for (std::string device; rest >> device;)
        s.devices.push_back(device);
    return s;
}

// Whether the server of `s` stopped itself (its devices and file gone);
// false when it was dead or died on the way, SIGKILL after kStopWait.
bool stopped_itself(const BypassState& s)
{
    if (s.state == "dead")
        return false;
    if (::kill(s.pid, SIGTERM) != 0 && errno == ESRCH)
        return false;
    const auto until = std::chrono::steady_clock::now() + kStopWait;
    while (bypass_process_alive(s.pid, s.starttime)) {
        if (std::chrono::steady_clock::now() >= until) {
            ::kill(s.pid, SIGKILL);
            std::this_thread::sleep_for(std::chrono::milliseconds(500));
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    // It stopped itself: its device and file are gone, unless it died on the way.
    return !find_bypass(load_bypass_states(), s.name);
}

}  // namespace

std::string ublk_missing()
{
    utsname u{};
    ::uname(&u);
    return ublk_missing_reason("/dev/ublk-control", std::string("/lib/modules/") + u.release);
}

int serve_foreground(const DaemonOptions& o)
{
    ReadyPipe none(-1);
    return serve(o, none, false);
}

StartedServer start_detached(const DaemonOptions& o)
{
    // The checks a user's mistake fails, told here before anything forks.
    if (const std::string why = ublk_missing(); !why.empty())
        throw std::runtime_error(why);
    int pfd[2];
    if (::pipe2(pfd, O_CLOEXEC) != 0)
        throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(errno));
    std::cout.flush();
    std::cerr.flush();
    const pid_t child = ::fork();
    if (child < 0)
        throw std::runtime_error(std::string("cannot fork the bypass server: ") + std::strerror(errno));
    if (child == 0) {
        ::close(pfd[0]);
        become_daemon(o, pfd[1]);
    }
    ::close(pfd[1]);
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    const std::string msg = read_ready(pfd[0]);
    ::close(pfd[0]);
    return parse_ready(msg);
}

void stop_server(const BypassState& s)
{
    if (stopped_itself(s))
        return;
    if (!s.namespaces.empty() && ublk_missing().empty()) {
        UblkControl control;
        for (const BypassNamespace& n : s.namespaces) {
            (void)control.stop_dev(n.ublk_id);
            if (const int r = control.del_dev(n.ublk_id); r < 0 && r != -ENODEV)
                throw std::runtime_error("cannot delete ublk device " + std::to_string(n.ublk_id) + " of " +
                                         s.name + ": " + std::strerror(-r));
        }
    }
    remove_bypass_state(s.name);
}

}  // namespace rblk::bypass
