// Error types and their one-line messages (rblk/error.hpp).
#include <rblk/error.hpp>

#include <gtest/gtest.h>

#include <cerrno>

namespace rblk {
namespace {

TEST(Error, ModuleNotLoadedHasTheExactContractMessage)
{
    const ModuleNotLoaded e;
    EXPECT_STREQ(e.what(), "rblk kernel module is not loaded; run: modprobe rblk");
    EXPECT_EQ(e.errnum(), ENOENT);
}

TEST(Error, DescribePrefersTheExtackAndNamesTheAttribute)
{
    EXPECT_EQ(describe_error(EINVAL, "bad address", "traddr", false, "connect"),
              "bad address (attribute: traddr)");
    EXPECT_EQ(describe_error(EINVAL, "", "", false, "connect"), "connect: Invalid argument");
    EXPECT_EQ(describe_error(ENOENT, "", "ctrl_name", false, ""),
              "No such file or directory (attribute: ctrl_name)");
    EXPECT_EQ(describe_error(EINVAL, "required", "subnqn", true, "connect"),
              "required (missing attribute: subnqn)");
}

TEST(Error, KernelErrorKeepsItsParts)
{
    const KernelError e(EEXIST, "already connected", "subnqn", false, "connect");
    EXPECT_EQ(e.code(), std::errc::file_exists);
    EXPECT_EQ(e.extack(), "already connected");
    EXPECT_EQ(e.attribute(), "subnqn");
    EXPECT_STREQ(e.what(), "already connected (attribute: subnqn)");
    const Error& base = e;  // catchable as the library's base error
    EXPECT_EQ(base.errnum(), EEXIST);
}

TEST(Error, ErrnoNames)
{
    EXPECT_EQ(errno_name(EINVAL), "EINVAL");
    EXPECT_EQ(errno_name(ENOENT), "ENOENT");
    EXPECT_EQ(errno_name(EOPNOTSUPP), "EOPNOTSUPP");
    EXPECT_EQ(errno_name(100000), "E100000");
}

}  // namespace
}  // namespace rblk
