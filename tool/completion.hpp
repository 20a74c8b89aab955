// Shell completion for rblkctl, generated from the CLI11 app itself so it
// cannot drift from the real subcommands and options. `rblkctl completion
// bash|zsh` prints it; CMake installs them as
// share/bash-completion/completions/rblkctl and
// share/zsh/vendor-completions/_rblkctl.
#pragma once

#include "request.hpp"

#include <CLI/CLI.hpp>

#include <array>
#include <string>

namespace rblkctl {

// A bash script defining _rblkctl and registering it with `complete -F`.
// Subcommands and their options come from `app`; what a value may be
// (controller names, files, modes) from a small table in completion.cpp.
std::string bash_completion(const CLI::App& app);

// A zsh script (#compdef rblkctl) defining _rblkctl with _arguments specs
// for every subcommand, from the same app and value table as bash's.
std::string zsh_completion(const CLI::App& app);

// The shells `completion SHELL` knows.
inline constexpr std::array<const char*, 2> kCompletionShells = {"bash", "zsh"};

// Declares the `completion SHELL` subcommand: when parsed, the script is
// req.output (printed by run(), no kernel needed).
void add_completion(CLI::App& app, Request& req);

}  // namespace rblkctl
