// The rblkctl command line: a CLI11 app bound to a Request. Built by a
// function so tests parse argv vectors and inspect the Request.
#pragma once

#include "request.hpp"

#include <CLI/CLI.hpp>

#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace rblkctl {

class Cli {
public:
    Cli();
    Cli(const Cli&) = delete;  // the app's callbacks point into request_
    Cli& operator=(const Cli&) = delete;

    // argv as a program gets it, argv[0] included. Throws CLI::ParseError
    // (CallForHelp/CallForVersion included) with a one-line what() in the
    // user's terms: usage_message() of what CLI11 threw.
    void parse(const std::vector<std::string>& argv);
    void parse(int argc, const char* const* argv);

    CLI::App& app() { return app_; }
    const Request& request() const { return request_; }

private:
    CLI::App app_;
    Request request_;
};

// Version string printed by --version: "rblkctl <project version>".
std::string version_string();

// The one line for a failed parse of `root`: arguments CLI11 could not
// place win over whatever it threw (a mistyped --nqn would otherwise read
// "--nqn is required"), in the order typed, with the closest name:
// "unknown command 'lsit'; did you mean 'list'?", "unknown option '--nqm';
// did you mean '--nqn'?"; else e.what().
std::string usage_message(const CLI::App& root, const CLI::ParseError& e);

// What carries out a parsed Request: run() (commands.hpp), or a stand-in.
using Runner = std::function<int(const Request&, std::ostream&)>;

// main() of rblkctl, testable: parses argv (argv[0] included), runs the
// request and maps every outcome to an exit status of exit_codes.hpp,
// printing a failure as one line "rblkctl: <reason>" on `err`; --help and
// --version print on `out` and return 0.
int run_main(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err,
             const Runner& runner);

}  // namespace rblkctl
