// rblk_ctrl_race: a test tool for the VM suite. Three threads, each with its
// own netlink socket, race on the controller registry for a while:
//   connector     connects (duplicate_connect) to the subsystems in turn,
//                 never more than --max-alive controllers at once
//   lister        lists the controllers and reads each one's stats
//   disconnector  deletes whatever it finds, by name or by subnqn
// Losing a race is expected and counted (a controller gone between the list
// and the request: ENODEV); any other error fails the run. At the end every
// controller is deleted and the registry must be empty.
//
// The bound makes the run the same on any host: without it a quiet host
// connects far faster than it deletes, and hundreds of controllers (and their
// target-side queues, in the same VM) exhausted the guest's memory. Only the
// connector creates controllers, so counting them before each connect is a
// hard bound.
//
//   rblk_ctrl_race --traddr A [--trsvcid N] --nqn NQN [--nqn NQN...]
//                  [--seconds S] [--nr-io-queues N] [--queue-size N]
//                  [--max-alive N]
// Prints one "RESULT: race ..." line per thread; exit 0 when nothing
// unexpected happened, 1 otherwise, 2 on bad arguments.
#include <rblk/client.hpp>
#include <rblk/error.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <exception>
#include <initializer_list>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Config {
    std::string traddr;
    std::int64_t trsvcid = RBLK_DEFAULT_TRSVCID;
    std::vector<std::string> nqns;
    double seconds = 20;
    std::int64_t nr_io_queues = 1;
    std::int64_t queue_size = 32;
    std::size_t max_alive = 16;
};

// What one thread did; printed once it has stopped.
struct Tally {
    std::string role;
    std::uint64_t ok = 0;
    std::uint64_t lost_race = 0;  // expected errors
    std::uint64_t unexpected = 0;
    std::uint64_t deleted = 0;  // disconnector: controllers it deleted
    std::size_t most_alive = 0;  // connector: most controllers seen before a connect
    std::uint64_t held_back = 0;  // connector: rounds it waited at the bound
};

std::mutex out_lock;

void report_unexpected(Tally& t, const std::string& what, const std::exception& e)
{
    ++t.unexpected;
    const std::lock_guard<std::mutex> guard(out_lock);
    std::cerr << "UNEXPECTED " << t.role << ": " << what << ": " << e.what();
    if (const auto* k = dynamic_cast<const rblk::KernelError*>(&e))
        std::cerr << " (" << rblk::errno_name(k->errnum()) << ")";
    std::cerr << "\n";
}

// Runs op; a KernelError with one of the `expected` errnos counts as a lost
// race, anything else thrown is unexpected. True when op succeeded.
template <typename Op>
bool attempt(Tally& t, const std::string& what, std::initializer_list<int> expected, Op&& op)
{
    try {
        op();
        ++t.ok;
        return true;
    } catch (const rblk::KernelError& e) {
        for (int err : expected) {
            if (e.errnum() == err) {
                ++t.lost_race;
                return false;
            }
        }
        report_unexpected(t, what, e);
    } catch (const std::exception& e) {
        report_unexpected(t, what, e);
    }
    return false;
}

// Runs body(client, tally) until the deadline; a failure to even open the
// socket counts as unexpected.
template <typename Body>
void run_thread(Tally& t, Clock::time_point deadline, Body&& body)
{
    try {
        rblk::Client client;
        while (Clock::now() < deadline)
            body(client, t);
    } catch (const std::exception& e) {
        report_unexpected(t, "thread", e);
    }
}

void connector(const Config& cfg, Tally& t, Clock::time_point deadline)
{
    std::size_t next = 0;
    run_thread(t, deadline, [&](rblk::Client& c, Tally& tally) {
        std::vector<rblk::ControllerInfo> ctrls;
        try {
            ctrls = c.list();
        } catch (const std::exception& e) {
            report_unexpected(tally, "list", e);
            return;
        }
        tally.most_alive = std::max(tally.most_alive, ctrls.size());
        if (ctrls.size() >= cfg.max_alive) {
            ++tally.held_back;
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
            return;
        }
        rblk::ConnectOptions o;
        o.traddr = cfg.traddr;
        o.trsvcid = cfg.trsvcid;
        o.subnqn = cfg.nqns[next++ % cfg.nqns.size()];
        o.nr_io_queues = cfg.nr_io_queues;
        o.queue_size = cfg.queue_size;
        o.duplicate_connect = true;
        // Nothing can delete a controller before its connect returns.
        attempt(tally, "connect " + o.subnqn, {}, [&] { c.connect(o); });
    });
}

void lister(Tally& t, Clock::time_point deadline)
{
    run_thread(t, deadline, [](rblk::Client& c, Tally& tally) {
        std::vector<rblk::ControllerInfo> ctrls;
        attempt(tally, "list", {}, [&] { ctrls = c.list(); });
        for (const auto& ctrl : ctrls) {
            attempt(tally, "stats " + ctrl.name, {ENODEV}, [&] { c.stats(ctrl.name); });
            attempt(tally, "show " + ctrl.name, {ENODEV}, [&] { c.show(ctrl.name); });
        }
    });
}

void disconnector(const Config& cfg, Tally& t, Clock::time_point deadline)
{
    std::uint64_t round = 0;
    run_thread(t, deadline, [&](rblk::Client& c, Tally& tally) {
        // Every fourth round by subsystem, the others by name.
        if (++round % 4 == 0) {
            const std::string& nqn = cfg.nqns[round / 4 % cfg.nqns.size()];
            std::size_t n = 0;
            attempt(tally, "disconnect --nqn " + nqn, {ENODEV},
                    [&] { n = c.disconnect_nqn(nqn).size(); });
            tally.deleted += n;
            return;
        }
        std::vector<rblk::ControllerInfo> ctrls;
        attempt(tally, "list", {}, [&] { ctrls = c.list(); });
        if (ctrls.empty())
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        for (const auto& ctrl : ctrls) {
            if (attempt(tally, "disconnect " + ctrl.name, {ENODEV},
                        [&] { c.disconnect(ctrl.name); }))
                ++tally.deleted;
        }
    });
}

void print(const Tally& t)
{
    std::cout << "RESULT: race " << t.role << ": ok " << t.ok << ", lost races " << t.lost_race
              << ", unexpected " << t.unexpected;
    if (t.role == "disconnector")
        std::cout << ", controllers deleted " << t.deleted;
    if (t.role == "connector")
        std::cout << ", most alive " << t.most_alive << ", held back " << t.held_back;
    std::cout << "\n";
}

}  // namespace

int main(int argc, char** argv)
{
    Config cfg;
    CLI::App app{"Race connect, list/stats and disconnect on rblk controllers"};
    app.add_option("--traddr", cfg.traddr, "Target address")->required();
    app.add_option("--trsvcid", cfg.trsvcid, "Target port")->capture_default_str();
    app.add_option("--nqn", cfg.nqns, "Subsystem NQN (repeat for several)")->required();
    app.add_option("--seconds", cfg.seconds, "How long the threads race")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--nr-io-queues", cfg.nr_io_queues, "I/O queues per controller")
        ->capture_default_str();
    app.add_option("--queue-size", cfg.queue_size, "I/O queue depth")->capture_default_str();
    app.add_option("--max-alive", cfg.max_alive, "Most controllers alive at once")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : 2;
    }

    const auto deadline =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(
                           std::chrono::duration<double>(cfg.seconds));
    Tally conn{"connector"}, list{"lister"}, disc{"disconnector"};
    {
        std::jthread a([&] { connector(cfg, conn, deadline); });
        std::jthread b([&] { lister(list, deadline); });
        std::jthread d([&] { disconnector(cfg, disc, deadline); });
    }

    // Whatever the race left behind goes now; then nothing may remain.
    Tally cleanup{"cleanup"};
    std::vector<rblk::ControllerInfo> left;
    try {
        rblk::Client client;
        const auto names = client.disconnect_all();
        std::cout << "RESULT: race controllers left at the end: " << names.size() << "\n";
        left = client.list();
    } catch (const std::exception& e) {
        report_unexpected(cleanup, "final disconnect --all", e);
    }
    for (const auto& ctrl : left) {
        ++cleanup.unexpected;
        std::cerr << "UNEXPECTED: " << ctrl.name << " still listed after disconnect --all\n";
    }

    for (const Tally* t : {&conn, &list, &disc})
        print(*t);
    const bool bad = conn.unexpected || list.unexpected || disc.unexpected || cleanup.unexpected;
    if (conn.ok == 0 || disc.deleted == 0) {
        std::cerr << "FAIL: the race never connected or never disconnected\n";
        return 1;
    }
    return bad ? 1 : 0;
}
