// rblkctl's manual pages (manpage.hpp): one per visible command plus
// rblkctl(8), each documenting every option of its command with its
// default, in roff that groff renders without a warning.
#include "cli.hpp"
#include "manpage.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <unistd.h>

namespace rblkctl {
namespace {

namespace fs = std::filesystem;

const ManMeta kMeta{"2026-12-02", "9.9.9"};

std::vector<ManPage> pages()
{
    Cli cli;
    return man_pages(cli.app(), kMeta);
}

std::string upper(std::string s)
{
    for (char& c : s)
        c = char(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

const ManPage& page(const std::vector<ManPage>& all, const std::string& file)
{
    for (const ManPage& p : all)
        if (p.file == file)
            return p;
    throw std::runtime_error("no page " + file);
}

TEST(RoffEscape, MinusBackslashAndLeadingControlCharacters)
{
    EXPECT_EQ("\\-\\-nqn", roff_escape("--nqn"));
    EXPECT_EQ("a\\eb", roff_escape("a\\b"));
    EXPECT_EQ("\\&.x\n\\&'y\nz.", roff_escape(".x\n'y\nz."));
}

TEST(ManPages, OnePerVisibleCommandAndTheMainPage)
{
    Cli cli;
    const auto all = man_pages(cli.app(), kMeta);
    std::vector<std::string> want{"rblkctl.8"};
    for (const CLI::App* sub : cli.app().get_subcommands([](const CLI::App*) { return true; }))
        if (!sub->get_group().empty())
            want.push_back("rblkctl-" + sub->get_name() + ".8");
    std::vector<std::string> got;
    for (const ManPage& p : all)
        got.push_back(p.file);
    EXPECT_EQ(want, got);
    EXPECT_GE(got.size(), 10u);  // connect, disconnect, list, show, stats, ...
    const std::string& main = page(all, "rblkctl.8").text;
    for (const std::string& f : got) {
        if (f != "rblkctl.8") {
            EXPECT_NE(std::string::npos, main.find(roff_escape(f.substr(0, f.size() - 2)) + " (8)"))
                << f << " is not referred to from rblkctl(8)";
        }
    }
}

TEST(ManPages, EveryOptionOfACommandWithItsDefault)
{
    Cli cli;
    const auto all = man_pages(cli.app(), kMeta);
    for (const CLI::App* sub : cli.app().get_subcommands([](const CLI::App*) { return true; })) {
        if (sub->get_group().empty())
            continue;
        const std::string& text = page(all, "rblkctl-" + sub->get_name() + ".8").text;
        EXPECT_NE(std::string::npos, text.find(".TH RBLKCTL\\-" + roff_escape(upper(sub->get_name())) + " 8 \"2026-12-02\" \"rblk 9.9.9\""))
            << sub->get_name();
        for (const CLI::Option* opt : sub->get_options()) {
            for (const std::string& l : opt->get_lnames())
                EXPECT_NE(std::string::npos, text.find("\\fB" + roff_escape("--" + l) + "\\fR"))
                    << sub->get_name() << " --" << l;
            if (!opt->get_positional() && opt->get_expected_max() > 0 &&
                !opt->get_default_str().empty()) {
                EXPECT_NE(std::string::npos, text.find("Default: " + roff_escape(opt->get_default_str())))
                    << sub->get_name() << " " << opt->get_name();
            }
        }
    }
    // One known default, in case the loop above found none.
    EXPECT_NE(std::string::npos, page(all, "rblkctl-connect.8").text.find("Default: 4420."));
}

// Every byte-count option is SIZE, and its command's page says what SIZE takes.
TEST(ManPages, SizeOptionsAreSizeAndExplained)
{
    const auto all = pages();
    const std::pair<const char*, std::vector<const char*>> sized[] = {
        {"bench", {"--bs", "--size", "--offset", "--io-limit"}},
        {"read", {"--offset", "--length"}},
        {"write", {"--offset", "--length"}},
    };
    for (const auto& [command, options] : sized) {
        const std::string& text = page(all, std::string("rblkctl-") + command + ".8").text;
        for (const char* opt : options)
            EXPECT_NE(std::string::npos,
                      text.find("\\fB" + roff_escape(opt) + "\\fR \\fISIZE\\fR"))
                << command << " " << opt;
        EXPECT_NE(std::string::npos, text.find("SIZE: bytes, or with a suffix k, m, g, t or p")) << command;
    }
    EXPECT_NE(std::string::npos, page(all, "rblkctl-bench.8").text.find("First byte of the range"));
}

// groff -ww: every warning on; -z: no output, so stderr is all there is.
std::string groff_warnings(const fs::path& file)
{
    const std::string cmd = "groff -man -Tutf8 -ww -z '" + file.string() + "' 2>&1";
    std::unique_ptr<FILE, int (*)(FILE*)> p(popen(cmd.c_str(), "r"), pclose);
    if (!p)
        return "popen failed";
    std::string out;
    std::array<char, 512> buf{};
    while (size_t n = fread(buf.data(), 1, buf.size(), p.get()))
        out.append(buf.data(), n);
    return out;
}

TEST(ManPages, GroffRendersEveryPageWithoutAWarning)
{
    const fs::path dir = fs::temp_directory_path() / ("rblk-man-" + std::to_string(getpid()));
    fs::create_directories(dir);
    for (const ManPage& p : pages()) {
        std::ofstream(dir / p.file) << p.text;
        EXPECT_EQ("", groff_warnings(dir / p.file)) << p.file;
    }
    fs::remove_all(dir);
}

}  // namespace
}  // namespace rblkctl
