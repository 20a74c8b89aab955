// What the bypass Controller refuses before it touches the fabric: a
// DH-HMAC-CHAP secret (the kernel path authenticates; this one does not
// yet), in one line naming the option and the way out.
#include <rblk/bypass/controller.hpp>
#include <rblk/bypass/status.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

rblk::bypass::ControllerOptions options()
{
    rblk::bypass::ControllerOptions o;
    o.connect.traddr = "10.0.0.1";
    o.connect.subnqn = "nqn.2024-01.io.example:sub1";
    o.connect.hostnqn = "nqn.2014-08.org.nvmexpress:uuid:0c0c0c0c-0000-4000-8000-00000000000c";
    return o;
}

std::string refusal(const rblk::bypass::ControllerOptions& o)
{
    try {
        rblk::bypass::Controller c(o);
    } catch (const rblk::bypass::Error& e) {
        return e.what();
    }
    return "<constructed>";
}

TEST(BypassController, RefusesDhchapSecretsInOneLine)
{
    const std::string key = "DHHC-1:00:ia6zGodOr4SEG0Zzaw398rpY0wqipUWj4jWjUh4HWUz6aQ2n:";
    rblk::bypass::ControllerOptions o = options();
    o.connect.dhchap_secret = key;
    const std::string why = refusal(o);
    EXPECT_EQ(why, "--dhchap-secret: the bypass path does not authenticate (DH-HMAC-CHAP) yet; "
                   "connect with --path kernel");
    EXPECT_EQ(why.find(key), std::string::npos);
    o.connect.dhchap_ctrl_secret = key;
    EXPECT_EQ(refusal(o), why);
}

}  // namespace
