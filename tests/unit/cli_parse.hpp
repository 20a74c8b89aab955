// Parsing rblkctl argv vectors in tests: a fresh Cli each, and the one-line
// message a bad command line produces.
#pragma once

#include "cli.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace rblkctl::test {

// Parses argv (program name added) into a fresh Cli.
inline std::unique_ptr<Cli> parse(std::vector<std::string> args)
{
    auto cli = std::make_unique<Cli>();
    args.insert(args.begin(), "rblkctl");
    cli->parse(args);
    return cli;
}

// The one-line message a bad command line produces; "<parsed>" if none.
inline std::string parse_error(std::vector<std::string> args)
{
    try {
        parse(std::move(args));
    } catch (const CLI::ParseError& e) {
        EXPECT_NE(e.get_exit_code(), 0);
        return e.what();
    }
    return "<parsed>";
}

}  // namespace rblkctl::test
