// rblkctl entry point: parse, run, and turn every failure into exactly one
// line "rblkctl: <reason>" on stderr with the exit status of exit_codes.hpp.
#include "cli.hpp"
#include "commands.hpp"

#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv)
{
    const std::vector<std::string> args(argv, argv + argc);
    return rblkctl::run_main(args, std::cout, std::cerr, rblkctl::run);
}
