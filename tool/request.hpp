// What one rblkctl invocation asks for, as filled in by the CLI11 parser
// (cli.hpp) and carried out by run.hpp. Plain data so tests can inspect it.
#pragma once

#include <rblk/bench/options.hpp>
#include <rblk/connect_options.hpp>
#include <rblk/dhchap_key.hpp>
#include <rblk/session_config.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace rblkctl {

enum class Command {
    None, List, Connect, Disconnect, Show, Stats, Monitor, Apply, Save, Bench, Completion,
    Discover, ConnectAll, ListSubsys, SetIopolicy, Read, Write, ConnectBypass, UblkServer,
    GenDhchapKey
};

// read/write: raw bytes between a namespace and a file, through a data
// path (today the bypass initiator; the controller is req.connect).
// bench --path bypass takes its nsid too.
struct BypassIoArgs {
    std::string path;             // "bypass"
    std::int64_t nsid = 1;
    std::uint64_t offset = 0;     // bytes
    std::optional<std::uint64_t> length;  // bytes; write: the file's size by default
    std::string data;             // the file; empty: stdin (write) / stdout (read)
    bool copy = false;            // stage through the queue's pool, no registration of the file's buffer
    bool event = false;           // sleep on the completion channel instead of busy polling
    bool verbose = false;         // the controller's limits and how the commands carried data, on stderr
    bool hipri = false;           // connect --path bypass: the server busy-polls its queues
    bool all_namespaces = false;  // connect --path bypass without --nsid: every active namespace
};

struct Request {
    Command command = Command::None;
    bool json = false;
    rblk::ConnectOptions connect;
    std::string name;  // disconnect/show/stats: controller name "rblk0"
    std::string nqn;   // disconnect --nqn
    bool all = false;  // disconnect --all
    double watch_interval = 0;  // stats --watch: seconds between samples, 0 = once
    unsigned watch_count = 0;   // stats --count: samples to print, 0 = until interrupted
    std::string file = rblk::kDefaultSessionsFile;  // apply/save; "-" = stdin/stdout
    rblk::SessionFormat format = rblk::SessionFormat::Rblk;  // apply/save --format
    std::string shell;   // completion
    std::string output;  // completion: the script to print
    rblk::bench::BenchArgs bench;  // bench: its options, as given
    std::string bench_path = "kernel";  // bench --path: kernel (io_uring) or bypass
    BypassIoArgs bypass_io;        // read, write
    rblk::DhchapKeySpec dhchap_key;  // gen-dhchap-key
    // discover/connect-all: the discovery controller is req.connect (its
    // subnqn the discovery NQN, RBLK_DISC_SUBNQN by default); connect-all
    // and monitor --connect-new also take its I/O options for the controllers
    // they connect.
    std::string connect_path = "kernel";  // connect --path: kernel (rblk.ko) or bypass (a ublk server)
    bool persistent = false;  // connect-all: keep the discovery controller
    std::string config;       // connect-all without -a: discovery.conf
    bool connect_new = false; // monitor: connect what a discovery log change adds
    // set-iopolicy: the subsystem as given (an NQN, rblk-subsysS, or a
    // controller or disk, stored as the controller's name), its host NQN
    // (-q; empty: the one it is connected with) and the policy.
    std::string subsystem;
    std::string hostnqn;
    std::string iopolicy;
};

}  // namespace rblkctl
