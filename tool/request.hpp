// What one rblkctl invocation asks for, as filled in by the CLI11 parser
// (cli.hpp) and carried out by run.hpp. Plain data so tests can inspect it.
#pragma once

#include <rblk/bench/options.hpp>
#include <rblk/connect_options.hpp>
#include <rblk/session_config.hpp>

#include <string>

namespace rblkctl {

enum class Command {
    None, List, Connect, Disconnect, Show, Stats, Monitor, Apply, Save, Bench, Completion
};

struct Request {
    Command command = Command::None;
    bool json = false;
    rblk::ConnectOptions connect;
    std::string name;  // disconnect/show/stats: controller name "rblk0"
    std::string nqn;   // disconnect --nqn
    bool all = false;  // disconnect --all
    double watch_interval = 0;  // stats --watch: seconds between samples, 0 = once
    std::string file = rblk::kDefaultSessionsFile;  // apply/save; "-" = stdin/stdout
    std::string shell;   // completion
    std::string output;  // completion: the script to print
    rblk::bench::BenchArgs bench;  // bench: its options, as given
};

}  // namespace rblkctl
