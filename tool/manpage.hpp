// Manual pages for rblkctl, generated from the CLI11 app itself (as the
// shell completion is) so that a page cannot drift from the options it
// documents: rblkctl(8) lists the commands, rblkctl-<command>(8) documents
// one. The build writes them with rblkctl_mangen (tool/mangen.cpp) and
// CMake installs them under share/man/man8.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace rblkctl {

struct ManPage {
    std::string file;  // rblkctl.8, rblkctl-connect.8
    std::string text;  // man(7) source
};

// What goes in each page's title line: .TH NAME 8 DATE SOURCE MANUAL.
struct ManMeta {
    std::string date;     // YYYY-MM-DD
    std::string version;  // the project's
};

// Text as roff input: backslashes, leading control characters and hyphens
// (so that options copied from a rendered page are ASCII minus signs)
// escaped; one input line per output paragraph line.
std::string roff_escape(const std::string& text);

// rblkctl(8) and one page per visible subcommand (hidden ones, such as
// `completion`, are documented in the main page only).
std::vector<ManPage> man_pages(const CLI::App& app, const ManMeta& meta);

}  // namespace rblkctl
