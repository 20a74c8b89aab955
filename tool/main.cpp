// rblkctl entry point: parse, run, and turn every failure into exactly one
// line "rblkctl: <reason>" on stderr with a non-zero exit.
#include "cli.hpp"
#include "commands.hpp"

#include <exception>
#include <iostream>

int main(int argc, char** argv)
{
    rblkctl::Cli cli;
    try {
        cli.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0)  // --help, --version
            return cli.app().exit(e);
        std::cerr << "rblkctl: " << e.what() << '\n';
        return e.get_exit_code();
    }
    try {
        return rblkctl::run(cli.request(), std::cout);
    } catch (const std::exception& e) {
        std::cout.flush();
        std::cerr << "rblkctl: " << e.what() << '\n';
        return 1;
    }
}
