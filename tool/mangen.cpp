// rblkctl_mangen OUTDIR DATE: writes rblkctl(8) and a page per command
// into OUTDIR, from the same CLI11 app rblkctl parses with (manpage.hpp).
// Run by the build; not installed.
#include "cli.hpp"
#include "manpage.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>

int main(int argc, char** argv)
{
    if (argc != 3) {
        std::cerr << "usage: rblkctl_mangen OUTDIR YYYY-MM-DD\n";
        return 2;
    }
    rblkctl::Cli cli;
    const std::string dir = argv[1];
    for (const rblkctl::ManPage& page : rblkctl::man_pages(cli.app(), {argv[2], RBLK_VERSION})) {
        const std::string path = dir + "/" + page.file;
        std::ofstream out(path);
        out << page.text;
        out.close();
        if (!out) {
            std::cerr << "rblkctl_mangen: cannot write " << path << ": " << std::strerror(errno) << '\n';
            return 1;
        }
    }
    return 0;
}
