// Shell completion for rblkctl, generated from the CLI11 app itself so it
// cannot drift from the real subcommands and options. `rblkctl completion
// bash` prints it; CMake installs it as
// share/bash-completion/completions/rblkctl.
#pragma once

#include "request.hpp"

#include <CLI/CLI.hpp>

#include <string>

namespace rblkctl {

// A bash script defining _rblkctl and registering it with `complete -F`.
// Subcommands and their options come from `app`; what a value may be
// (controller names, files, modes) from a small table in completion.cpp.
std::string bash_completion(const CLI::App& app);

// Declares the hidden `completion SHELL` subcommand: when parsed, the
// script is req.output (printed by run(), no kernel needed).
void add_completion(CLI::App& app, Request& req);

}  // namespace rblkctl
