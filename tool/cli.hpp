// The rblkctl command line: a CLI11 app bound to a Request. Built by a
// function so tests parse argv vectors and inspect the Request.
#pragma once

#include "request.hpp"

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace rblkctl {

class Cli {
public:
    Cli();
    Cli(const Cli&) = delete;  // the app's callbacks point into request_
    Cli& operator=(const Cli&) = delete;

    // argv as a program gets it, argv[0] included. Throws CLI::ParseError
    // (CallForHelp/CallForVersion included) with a one-line what().
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

}  // namespace rblkctl
