// The host identity files (rblk/host_identity.hpp): generated once when
// absent, reused as they are when present, and a warning when they cannot
// be stored. Each test works in a directory of its own, never /etc/nvme.
#include <rblk/connect_options.hpp>
#include <rblk/host_identity.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>
#include <sys/stat.h>

namespace rblk {
namespace {

namespace fs = std::filesystem;

// libnvme's readers know /etc/nvme only; here the first line, as they read it.
std::optional<std::string> first_line(const fs::path& file)
{
    std::ifstream in(file);
    std::string line;
    if (!in || !std::getline(in, line) || line.empty())
        return std::nullopt;
    return line;
}

class HostIdentityFiles : public testing::Test {
protected:
    void SetUp() override
    {
        dir_ = fs::temp_directory_path() /
               ("rblk-hostid-test-" + std::to_string(::getpid()) + "-" +
                testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    void put(const char* name, const std::string& content)
    {
        fs::create_directories(nvme());
        std::ofstream(nvme() / name, std::ios::binary) << content;
    }
    std::string content(const char* name) const
    {
        std::ifstream in(nvme() / name, std::ios::binary);
        std::ostringstream s;
        s << in.rdbuf();
        return s.str();
    }
    fs::path nvme() const { return dir_ / "etc" / "nvme"; }
    static HostIdentity load(const fs::path& dir) { return load_host_identity(dir, first_line); }

    fs::path dir_;
};

TEST_F(HostIdentityFiles, AbsentFilesAreGeneratedOnceAndStored)
{
    const mode_t old_umask = ::umask(077);  // the files are 0644 whatever the umask
    const HostIdentity first = load(nvme());
    ::umask(old_umask);

    ASSERT_TRUE(first.hostnqn && first.hostid);
    EXPECT_FALSE(first.warning) << *first.warning;
    EXPECT_EQ(first.hostnqn->rfind(kUuidHostNqnPrefix, 0), 0u) << *first.hostnqn;
    // nvme-cli's pair: the hostid is the UUID of the hostnqn.
    EXPECT_EQ(hostnqn_uuid(*first.hostnqn), first.hostid);
    EXPECT_TRUE(parse_uuid(*first.hostid).has_value());

    EXPECT_EQ(content("hostnqn"), *first.hostnqn + "\n");
    EXPECT_EQ(content("hostid"), *first.hostid + "\n");
    for (const char* name : {"hostnqn", "hostid"})
        EXPECT_EQ(fs::status(nvme() / name).permissions(),
                  fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                      fs::perms::others_read)
            << name;
    // Nothing but the two files: no temporary left behind.
    EXPECT_EQ(std::distance(fs::directory_iterator(nvme()), fs::directory_iterator()), 2);

    const HostIdentity again = load(nvme());
    EXPECT_EQ(again.hostnqn, first.hostnqn);
    EXPECT_EQ(again.hostid, first.hostid);
    EXPECT_FALSE(again.warning);
}

TEST_F(HostIdentityFiles, PresentFilesAreUsedAndLeftAsTheyAre)
{
    // Not a consistent pair (Debian's nvme-cli makes them so): still used as given.
    const std::string nqn = "nqn.2014-08.org.nvmexpress:uuid:8457178b-5c03-49d3-b9b4-c86f217aa078";
    const std::string id = "8db5b478-5981-449d-9e34-f116f03b191a";
    put("hostnqn", nqn + "\n");
    put("hostid", id + "\n");
    const auto before = fs::last_write_time(nvme() / "hostnqn");

    const HostIdentity host = load(nvme());
    EXPECT_EQ(host.hostnqn, nqn);
    EXPECT_EQ(host.hostid, id);
    EXPECT_FALSE(host.warning);
    EXPECT_EQ(content("hostnqn"), nqn + "\n");
    EXPECT_EQ(content("hostid"), id + "\n");
    EXPECT_EQ(fs::last_write_time(nvme() / "hostnqn"), before);
}

TEST_F(HostIdentityFiles, WhatTheReaderFindsIsTheIdentity)
{
    // The reader (libnvme's, for /etc/nvme) decides what is there: nothing
    // is generated or written over what it finds.
    std::vector<fs::path> asked;
    const HostIdentity host = load_host_identity(
        nvme(), [&](const fs::path& file) -> std::optional<std::string> {
            asked.push_back(file);
            if (file.filename() == "hostnqn")
                return "nqn.2024-01.io.example:host-a";
            return "11111111-2222-3333-4444-555555555555";
        });
    EXPECT_EQ(host.hostnqn, "nqn.2024-01.io.example:host-a");
    EXPECT_EQ(host.hostid, "11111111-2222-3333-4444-555555555555");
    EXPECT_EQ(asked, (std::vector<fs::path>{nvme() / "hostnqn", nvme() / "hostid"}));
    EXPECT_FALSE(fs::exists(nvme()));
}

TEST_F(HostIdentityFiles, AMissingHostIdIsTheUuidOfTheHostNqn)
{
    const std::string uuid = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
    put("hostnqn", kUuidHostNqnPrefix + uuid + "\n");
    const HostIdentity host = load(nvme());
    EXPECT_EQ(host.hostid, uuid);
    EXPECT_EQ(content("hostid"), uuid + "\n");
}

TEST_F(HostIdentityFiles, AMissingHostNqnIsMadeFromTheHostId)
{
    const std::string uuid = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
    put("hostid", uuid + "\n");
    const HostIdentity host = load(nvme());
    EXPECT_EQ(host.hostnqn, kUuidHostNqnPrefix + uuid);
    EXPECT_EQ(content("hostnqn"), kUuidHostNqnPrefix + uuid + "\n");
    EXPECT_EQ(content("hostid"), uuid + "\n");
}

TEST_F(HostIdentityFiles, AHostNqnOfAnotherFormGetsARandomHostId)
{
    put("hostnqn", "nqn.2024-01.io.example:host-a\n");
    const HostIdentity host = load(nvme());
    ASSERT_TRUE(host.hostid);
    EXPECT_TRUE(parse_uuid(*host.hostid).has_value()) << *host.hostid;
    EXPECT_EQ(content("hostid"), *host.hostid + "\n");
    EXPECT_EQ(content("hostnqn"), "nqn.2024-01.io.example:host-a\n");
}

TEST_F(HostIdentityFiles, AnEmptyFileIsReplacedAsLibnvmeReadsNothingFromIt)
{
    put("hostnqn", "");
    const HostIdentity host = load(nvme());
    ASSERT_TRUE(host.hostnqn);
    EXPECT_EQ(host.hostnqn->rfind(kUuidHostNqnPrefix, 0), 0u);
    EXPECT_EQ(content("hostnqn"), *host.hostnqn + "\n");
}

TEST_F(HostIdentityFiles, UnwritableDirectoryWarnsAndStillGivesAnIdentity)
{
    // A regular file where the directory would go: ENOTDIR even for root,
    // who may write anywhere else.
    fs::create_directories(dir_);
    std::ofstream(dir_ / "etc");
    const HostIdentity host = load(nvme());
    ASSERT_TRUE(host.hostnqn && host.hostid);
    EXPECT_EQ(hostnqn_uuid(*host.hostnqn), host.hostid);
    ASSERT_TRUE(host.warning);
    const std::string& w = *host.warning;
    EXPECT_NE(w.find((nvme() / "hostnqn").string()), std::string::npos) << w;
    EXPECT_NE(w.find("ENOTDIR"), std::string::npos) << w;
    EXPECT_EQ(w.find('\n'), std::string::npos) << w;  // one line
}

TEST(HostNqnUuid, OnlyTheUuidFormHasOne)
{
    EXPECT_EQ(hostnqn_uuid("nqn.2014-08.org.nvmexpress:uuid:0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"),
              "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0");
    EXPECT_FALSE(hostnqn_uuid("nqn.2014-08.org.nvmexpress:uuid:not-a-uuid"));
    EXPECT_FALSE(hostnqn_uuid("nqn.2024-01.io.example:0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"));
}

}  // namespace
}  // namespace rblk
