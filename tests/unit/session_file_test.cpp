// Reading and writing JSON files (rblk/session_file.hpp).
#include <rblk/error.hpp>
#include <rblk/session_config.hpp>
#include <rblk/session_file.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <sys/stat.h>

namespace rblk {
namespace {

namespace fs = std::filesystem;

class SessionFile : public testing::Test {
protected:
    void SetUp() override
    {
        dir_ = fs::temp_directory_path() /
               ("rblk-session-test-" + std::to_string(::getpid()) + "-" +
                testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    fs::path dir_;
};

TEST_F(SessionFile, WriteCreatesDirectoriesAndReadsBack)
{
    const std::string path = (dir_ / "etc" / "rblk" / "sessions.json").string();
    const nlohmann::json content = {{"hosts", nlohmann::json::array()}};
    write_json_file(path, content);
    EXPECT_EQ(read_json_file(path), content);
    // Only the file itself is left behind, no temporary.
    EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "etc" / "rblk"),
                            fs::directory_iterator()),
              1);
}

TEST_F(SessionFile, OverwriteReplacesTheContent)
{
    const std::string path = (dir_ / "s.json").string();
    write_json_file(path, {{"a", 1}});
    write_json_file(path, {{"b", 2}});
    EXPECT_EQ(read_json_file(path), (nlohmann::json{{"b", 2}}));
}

TEST_F(SessionFile, WriteFileKeepLeavesAnExistingFileAlone)
{
    const std::string path = (dir_ / "hostnqn").string();
    EXPECT_TRUE(write_file(path, "first\n", 0644, Existing::Keep));
    // The loser of a race: its content does not replace the winner's.
    EXPECT_FALSE(write_file(path, "second\n", 0644, Existing::Keep));
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line, "first");
    EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(SessionFile, WriteFileSetsTheModeWhateverTheUmask)
{
    const std::string path = (dir_ / "f").string();
    const mode_t old_umask = ::umask(0277);
    write_file(path, "x", 0644);
    ::umask(old_umask);
    EXPECT_EQ(fs::status(path).permissions(),
              fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                  fs::perms::others_read);
}

TEST_F(SessionFile, WriteFileFailureNamesThePathAndErrno)
{
    fs::create_directories(dir_);
    std::ofstream(dir_ / "plain");  // a file where a directory should be
    try {
        write_file((dir_ / "plain" / "x").string(), "x");
        FAIL() << "no exception";
    } catch (const std::system_error& e) {
        EXPECT_EQ(e.code().value(), ENOTDIR);
        EXPECT_NE(std::string(e.what()).find((dir_ / "plain").string()), std::string::npos)
            << e.what();
    }
}

TEST_F(SessionFile, MissingFileSaysSo)
{
    const std::string path = (dir_ / "absent.json").string();
    try {
        read_json_file(path);
        FAIL() << "no exception";
    } catch (const InvalidOption& e) {
        EXPECT_EQ(std::string(e.what()), path + ": No such file or directory");
    }
}

TEST_F(SessionFile, BadJsonSaysWhere)
{
    fs::create_directories(dir_);
    const std::string path = (dir_ / "bad.json").string();
    std::ofstream(path) << "{\"hosts\": [}";
    try {
        read_json_file(path);
        FAIL() << "no exception";
    } catch (const InvalidOption& e) {
        const std::string what = e.what();
        EXPECT_EQ(what.rfind(path + ": not valid JSON: line 1, column 12: syntax error", 0), 0u)
            << what;
        EXPECT_EQ(what.find("json.exception"), std::string::npos) << what;
        EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
}

TEST_F(SessionFile, BadJsonOnALaterLineGivesThatLineAndColumn)
{
    fs::create_directories(dir_);
    const std::string path = (dir_ / "bad.json").string();
    std::ofstream(path) << "{\n  \"hosts\": [\n    {\"subsystems\": [],}\n  ]\n}\n";
    try {
        read_json_file(path);
        FAIL() << "no exception";
    } catch (const InvalidOption& e) {
        const std::string what = e.what();
        EXPECT_EQ(what.rfind(path + ": not valid JSON: line 3, column 23: ", 0), 0u) << what;
    }
}

TEST_F(SessionFile, LoadNamesTheFileThenTheJsonPath)
{
    fs::create_directories(dir_);
    const std::string path = (dir_ / "s.json").string();
    std::ofstream(path) << R"({"hosts": [{"subsystems": [{"nqn": "nqn.s",
                              "ports": [{"traddr": "10.0.0.1", "queue_size": 5000}]}]}]})";
    try {
        load_sessions_file(path);
        FAIL() << "no exception";
    } catch (const InvalidOption& e) {
        EXPECT_EQ(std::string(e.what()),
                  path + ": hosts[0].subsystems[0].ports[0]: queue-size 5000 is out of range "
                         "(16..1024)");
    }
    std::ofstream(path) << "[]";
    try {
        load_sessions_file(path);
        FAIL() << "no exception";
    } catch (const InvalidOption& e) {
        EXPECT_EQ(std::string(e.what()),
                  path + ": expected an object (a list of hosts is libnvme's config.json: "
                         "--format libnvme)");
    }
    std::ofstream(path) << R"({"hosts": [{"subsystems": [{"nqn": "nqn.s",
                              "ports": [{"traddr": "10.0.0.1"}]}]}]})";
    const auto sessions = load_sessions_file(path);
    ASSERT_EQ(sessions.size(), 1u);
    EXPECT_EQ(sessions[0].subnqn, "nqn.s");
    // A missing file is reported by read_json_file, once.
    try {
        load_sessions_file(path + ".absent");
        FAIL() << "no exception";
    } catch (const InvalidOption& e) {
        EXPECT_EQ(std::string(e.what()), path + ".absent: No such file or directory");
    }
}

TEST(SessionFileStdin, DashReadsStandardInput)
{
    std::istringstream in(R"({"hosts": []})");
    std::streambuf* saved = std::cin.rdbuf(in.rdbuf());
    nlohmann::json j;
    EXPECT_NO_THROW(j = read_json_file("-"));
    std::cin.rdbuf(saved);
    EXPECT_EQ(j, (nlohmann::json{{"hosts", nlohmann::json::array()}}));
}

TEST(SessionFileStdin, BadJsonOnStandardInputSaysStdin)
{
    std::istringstream in("{\"hosts\": ");
    std::streambuf* saved = std::cin.rdbuf(in.rdbuf());
    std::string what;
    try {
        read_json_file("-");
    } catch (const InvalidOption& e) {
        what = e.what();
    }
    std::cin.rdbuf(saved);
    EXPECT_EQ(what.rfind("stdin: not valid JSON: line 1, column 11: ", 0), 0u) << what;
}

}  // namespace
}  // namespace rblk
