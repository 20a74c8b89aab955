// Parsing rblkctl argv vectors in tests: a fresh Cli each, the one-line
// message a bad command line produces, and a connect line to vary.
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

// A connect command line that parses, and that line with `extra` appended.
inline const std::vector<std::string> kConnect = {"connect", "-a", "10.99.0.1", "-n", "nqn.sub"};

inline std::vector<std::string> connect_with(const std::vector<std::string>& extra)
{
    std::vector<std::string> args = kConnect;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
}

}  // namespace rblkctl::test
