// The netlink client on a host without rblk.ko: the contract message.
#include <rblk/client.hpp>
#include <rblk/error.hpp>

#include <gtest/gtest.h>

namespace rblk {
namespace {

TEST(Client, WithoutTheModuleSaysHowToLoadIt)
{
    try {
        Client client;
        GTEST_SKIP() << "the rblk family is registered here (module loaded)";
    } catch (const ModuleNotLoaded& e) {
        EXPECT_STREQ(e.what(), "rblk kernel module is not loaded; run: modprobe rblk");
    } catch (const Error& e) {
        GTEST_SKIP() << "no generic netlink here: " << e.what();
    }
}

}  // namespace
}  // namespace rblk
