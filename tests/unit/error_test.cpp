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

TEST(Error, AnAttributeTheExtackAlreadyNamesIsNotRepeated)
{
    // The kernel's own messages for a missing or malformed attribute.
    EXPECT_EQ(describe_error(EINVAL, "missing required attribute: traddr", "traddr", true,
                             "connect"),
              "missing required attribute: traddr");
    EXPECT_EQ(describe_error(EINVAL, "missing required attribute: ctrl_name or ctrl_id",
                             "ctrl_name", true, "show"),
              "missing required attribute: ctrl_name or ctrl_id");
    EXPECT_EQ(describe_error(EINVAL, "traddr is not an IPv4 or IPv6 address", "traddr", false,
                             "connect"),
              "traddr is not an IPv4 or IPv6 address");
    EXPECT_EQ(describe_error(EINVAL, "subnqn must start with \"nqn.\"", "subnqn", false, ""),
              "subnqn must start with \"nqn.\"");
    // A message that does not name it still gets the attribute.
    EXPECT_EQ(describe_error(ENODEV, "no controller with that name", "ctrl_name", false, "show"),
              "no controller with that name (attribute: ctrl_name)");
    // Only a whole word counts: "hostnqn" does not name "nqn", "ctrl_id" not "id".
    EXPECT_EQ(describe_error(EINVAL, "bad hostnqn", "nqn", false, ""),
              "bad hostnqn (attribute: nqn)");
    EXPECT_EQ(describe_error(EINVAL, "bad ctrl_id", "id", false, ""),
              "bad ctrl_id (attribute: id)");
    EXPECT_EQ(describe_error(EINVAL, "traddrs", "traddr", false, ""),
              "traddrs (attribute: traddr)");
    // Without an extack the errno text never names it.
    EXPECT_EQ(describe_error(EINVAL, "", "traddr", true, "connect"),
              "connect: Invalid argument (missing attribute: traddr)");
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
