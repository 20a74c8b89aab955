// rblkctl's bash and zsh completion (completion.hpp): generated from the
// app, so every subcommand and option is in them; bash's completes when
// bash runs it, zsh's is valid zsh that registers itself.
#include "cli.hpp"
#include "commands.hpp"
#include "completion.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <utility>
#include <unistd.h>

namespace rblkctl {
namespace {

namespace fs = std::filesystem;

std::string script()
{
    Cli cli;
    return bash_completion(cli.app());
}

// What `sh -c cmd` prints on stdout; its wait status in *status.
std::string output_of(const std::string& cmd, int* status = nullptr)
{
    std::unique_ptr<FILE, int (*)(FILE*)> p(::popen(cmd.c_str(), "r"), ::pclose);
    std::string out;
    char buf[256];
    while (p && std::fgets(buf, sizeof(buf), p.get()))
        out += buf;
    const int rc = p ? ::pclose(p.release()) : -1;
    if (status)
        *status = rc;
    return out;
}

bool has_word(const std::string& text, const std::string& word)
{
    // Words are separated by spaces, quotes, '|' or ')' in the script.
    static const std::string seps = " \"|)\n\t";
    for (auto pos = text.find(word); pos != std::string::npos; pos = text.find(word, pos + 1)) {
        const auto end = pos + word.size();
        if ((pos == 0 || seps.find(text[pos - 1]) != std::string::npos) &&
            (end == text.size() || seps.find(text[end]) != std::string::npos))
            return true;
    }
    return false;
}

TEST(Completion, EverySubcommandAndOptionIsInTheScript)
{
    Cli cli;
    const std::string s = bash_completion(cli.app());
    std::size_t subcommands = 0, options = 0;
    for (const CLI::App* sub : cli.app().get_subcommands([](const CLI::App*) { return true; })) {
        ++subcommands;
        EXPECT_TRUE(has_word(s, sub->get_name())) << sub->get_name();
        for (const CLI::Option* opt : sub->get_options()) {
            for (const std::string& l : opt->get_lnames()) {
                ++options;
                EXPECT_TRUE(has_word(s, "--" + l)) << sub->get_name() << " --" << l;
            }
            for (const std::string& n : opt->get_snames())
                EXPECT_TRUE(has_word(s, "-" + n)) << sub->get_name() << " -" << n;
        }
    }
    EXPECT_GE(subcommands, 10u);  // connect ... bench, completion
    EXPECT_GE(options, 40u);
    EXPECT_TRUE(has_word(s, "--version"));
    EXPECT_NE(s.find("complete -F _rblkctl rblkctl"), std::string::npos);
}

TEST(Completion, PrintedByTheSubcommandWithoutAKernel)
{
    Cli cli;
    cli.parse({"rblkctl", "completion", "bash"});
    EXPECT_EQ(cli.request().command, Command::Completion);
    std::ostringstream out;
    EXPECT_EQ(run(cli.request(), out), 0);
    EXPECT_EQ(out.str(), script());
    // Listed in --help; bash and zsh are known.
    Cli fresh;
    EXPECT_NE(fresh.app().help().find("completion"), std::string::npos);
    EXPECT_THROW(fresh.parse({"rblkctl", "completion", "fish"}), CLI::ValidationError);
    Cli zsh;
    zsh.parse({"rblkctl", "completion", "zsh"});
    std::ostringstream zsh_out;
    EXPECT_EQ(run(zsh.request(), zsh_out), 0);
    EXPECT_EQ(zsh_out.str(), zsh_completion(zsh.app()));
}

constexpr const char* kBashCompletion = "/usr/share/bash-completion/bash_completion";

// Runs the script in bash as readline would for the command line `line`
// (the cursor at its end; a trailing space starts a new word) and returns
// COMPREPLY, one entry a line. /sys/class/rblk is replaced by `sysfs`.
class CompletionInBash : public testing::Test {
protected:
    void SetUp() override
    {
        ASSERT_TRUE(fs::exists("/bin/bash")) << "no /bin/bash";
        dir_ = fs::temp_directory_path() /
               ("rblk-completion-test-" + std::to_string(::getpid()) + "-" +
                testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_ / "class" / "rblk" / "rblk0");
        fs::create_directories(dir_ / "class" / "rblk" / "rblk3");
        std::ofstream(dir_ / "class" / "rblk" / "rblk0" / "subnqn") << "nqn.2024-01.io.x:a\n";
        std::ofstream(dir_ / "class" / "rblk" / "rblk3" / "subnqn") << "nqn.2024-01.io.x:b\n";
        std::string s = script();
        // Point the controller lookups at the fake sysfs.
        for (std::size_t pos; (pos = s.find("/sys/class/rblk")) != std::string::npos;)
            s.replace(pos, 15, (dir_ / "class" / "rblk").string());
        std::ofstream(dir_ / "rblkctl.bash") << s;
        std::ofstream(dir_ / "sessions.json") << "{}";
    }
    void TearDown() override { fs::remove_all(dir_); }

    // with_bash_completion: the bash-completion package's helpers loaded
    // first, as in an interactive shell (they read COMP_LINE/COMP_POINT).
    std::string complete(const std::string& line, bool with_bash_completion = false)
    {
        const fs::path driver = dir_ / "driver.sh";
        std::ofstream(driver) << (with_bash_completion ? "source " + std::string(kBashCompletion) +
                                                             "\n"
                                                       : std::string())
                              << "source \"$1\"\n"
                                 "COMP_LINE=$2 COMP_POINT=${#2}\n"
                                 "read -r -a COMP_WORDS <<< \"$2\"\n"
                                 "[[ $2 == *' ' ]] && COMP_WORDS+=('')\n"
                                 "COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))\n"
                                 "cd \"$3\"\n"
                                 "_rblkctl\n"
                                 "printf '%s\\n' \"${COMPREPLY[@]}\" | LC_ALL=C sort\n";
        return output_of("bash '" + driver.string() + "' '" + (dir_ / "rblkctl.bash").string() +
                         "' '" + line + "' '" + dir_.string() + "'");
    }

    fs::path dir_;
};

TEST_F(CompletionInBash, Subcommands)
{
    EXPECT_EQ(complete("rblkctl di"), "disconnect\ndiscover\n");
    const std::string all = complete("rblkctl ");
    for (const char* sub : {"apply", "bench", "connect", "connect-all", "disconnect", "discover",
                            "list", "monitor", "save", "show", "stats"})
        EXPECT_TRUE(has_word(all, sub)) << sub << " in\n" << all;
    EXPECT_TRUE(has_word(all, "completion")) << all;  // listed in --help, so offered
    EXPECT_EQ(complete("rblkctl --v"), "--version\n");
}

TEST_F(CompletionInBash, OptionsOfTheSubcommand)
{
    EXPECT_EQ(complete("rblkctl connect --tr"), "--traddr\n--transport\n--trsvcid\n");
    EXPECT_EQ(complete("rblkctl stats rblk0 --"), "--count\n--help\n--json\n--output-format\n--watch\n");
    EXPECT_EQ(complete("rblkctl bench --rw randread --io"), "--io-limit\n--iodepth\n");
}

TEST_F(CompletionInBash, Values)
{
    EXPECT_EQ(complete("rblkctl bench --rw rand"), "randread\nrandrw\nrandwrite\n");
    EXPECT_EQ(complete("rblkctl connect -t "), "rdma\n");
    // Controller names from sysfs, wherever a NAME goes.
    EXPECT_EQ(complete("rblkctl show "), "rblk0\nrblk3\n");
    EXPECT_EQ(complete("rblkctl stats rblk"), "rblk0\nrblk3\n");
    EXPECT_EQ(complete("rblkctl disconnect "), "rblk0\nrblk3\n");
    // A flag takes no value: what follows it is the positional again.
    EXPECT_EQ(complete("rblkctl stats --json "), "rblk0\nrblk3\n");
    EXPECT_EQ(complete("rblkctl show -h rblk3"), "rblk3\n");
    EXPECT_EQ(complete("rblkctl disconnect --nqn nqn"),
              "nqn.2024-01.io.x:a\nnqn.2024-01.io.x:b\n");
    // Files for a sessions file; nothing to offer for a free value.
    EXPECT_EQ(complete("rblkctl apply sess"), "sessions.json\n");
    EXPECT_EQ(complete("rblkctl connect -a "), "\n");
    EXPECT_EQ(complete("rblkctl completion "), "bash\nzsh\n");
}

TEST_F(CompletionInBash, OptionEqualsValue)
{
    // Without bash-completion loaded, readline splits "--rw=ra" at '='.
    EXPECT_EQ(complete("rblkctl bench --rw = ra"), "randread\nrandrw\nrandwrite\n");
    EXPECT_EQ(complete("rblkctl bench --rw = "), "randread\nrandrw\nrandwrite\nread\nwrite\n");
}

TEST_F(CompletionInBash, WithTheBashCompletionPackage)
{
    // ci/install-deps.sh installs it: a missing package fails, never skips.
    ASSERT_TRUE(fs::exists(kBashCompletion))
        << kBashCompletion << " is missing: apt-get install bash-completion";
    EXPECT_EQ(complete("rblkctl di", true), "disconnect\ndiscover\n");
    EXPECT_EQ(complete("rblkctl connect-all --pers", true), "--persistent\n");
    EXPECT_EQ(complete("rblkctl bench --rw=ra", true), "randread\nrandrw\nrandwrite\n");
    EXPECT_EQ(complete("rblkctl show ", true), "rblk0\nrblk3\n");
    // Readline splits at ':', so only what follows the last one is offered.
    EXPECT_EQ(complete("rblkctl disconnect --nqn nqn.2024-01.io.x:", true), "a\nb\n");
    EXPECT_EQ(complete("rblkctl disconnect --nqn nqn", true),
              "nqn.2024-01.io.x:a\nnqn.2024-01.io.x:b\n");
}

}  // namespace
}  // namespace rblkctl

// The zsh script, from the same app: every subcommand and option in it,
// valid zsh, and registered for rblkctl when sourced after compinit.
namespace rblkctl {
namespace {

std::string zsh_script()
{
    Cli cli;
    return zsh_completion(cli.app());
}

// Runs `zsh -f -c SCRIPT` with $1 the zsh completion in a file; its output
// and exit status.
std::pair<std::string, int> in_zsh(const std::string& script)
{
    const fs::path dir = fs::temp_directory_path() /
                         ("rblk-zsh-test-" + std::to_string(::getpid()) + "-" +
                          testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir);
    std::ofstream(dir / "_rblkctl") << zsh_script();
    int status = -1;
    const std::string out = output_of("cd '" + dir.string() + "' && zsh -f -c '" + script +
                                          "' zsh '" + (dir / "_rblkctl").string() + "' 2>&1",
                                      &status);
    fs::remove_all(dir);
    return {out, status};
}

constexpr const char* kZsh = "/usr/bin/zsh";

TEST(ZshCompletion, EverySubcommandAndOptionIsInTheScript)
{
    Cli cli;
    const std::string s = zsh_completion(cli.app());
    EXPECT_EQ(s.rfind("#compdef rblkctl\n", 0), 0u);
    std::size_t subcommands = 0;
    for (const CLI::App* sub : cli.app().get_subcommands([](const CLI::App*) { return true; })) {
        ++subcommands;
        EXPECT_NE(s.find("\t\t\t'" + sub->get_name() + ":"), std::string::npos) << sub->get_name();
        EXPECT_NE(s.find("\t\t" + sub->get_name() + ")\n"), std::string::npos) << sub->get_name();
        for (const CLI::Option* opt : sub->get_options())
            for (const std::string& l : opt->get_lnames())
                EXPECT_NE(s.find("--" + l), std::string::npos) << sub->get_name() << " --" << l;
    }
    EXPECT_GE(subcommands, 12u);
    // The value sources bash has, in zsh's words.
    EXPECT_NE(s.find("'1:name:_rblkctl_controllers'"), std::string::npos);
    EXPECT_NE(s.find("[Transport type]:transport:(rdma)'"), std::string::npos);
    EXPECT_NE(s.find(":rw:(read write randread randwrite randrw)'"), std::string::npos);
    EXPECT_NE(s.find("'1:shell:(bash zsh)'"), std::string::npos);
    EXPECT_NE(s.find("--watch=-}'[") , std::string::npos);  // its value is optional
}

TEST(ZshCompletion, IsValidZsh)
{
    // ci/install-deps.sh installs zsh: a missing one fails, never skips.
    ASSERT_TRUE(fs::exists(kZsh)) << kZsh << " is missing: apt-get install zsh";
    const auto [out, status] = in_zsh("zsh -n \"$1\"");
    EXPECT_EQ(status, 0) << out;
    EXPECT_EQ(out, "");
    // A broken script is caught: the check can fail.
    const auto [bad_out, bad_status] = in_zsh("print \"_x() {\" > bad && zsh -n bad");
    EXPECT_NE(bad_status, 0) << bad_out;
}

TEST(ZshCompletion, SourcedItRegistersForRblkctl)
{
    ASSERT_TRUE(fs::exists(kZsh)) << kZsh << " is missing: apt-get install zsh";
    const auto [out, status] = in_zsh(
        "autoload -Uz compinit && compinit -u -D && source \"$1\" && "
        "print -r -- $_comps[rblkctl] && whence -w _rblkctl_controllers");
    EXPECT_EQ(status, 0) << out;
    EXPECT_EQ(out, "_rblkctl\n_rblkctl_controllers: function\n");
}

}  // namespace
}  // namespace rblkctl
