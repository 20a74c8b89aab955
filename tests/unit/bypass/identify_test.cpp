// Identify checks: a sane nvmet-like controller, namespace and active
// namespace list pass, each absurd field is refused with its own message.
#include <rblk/bypass/identify.hpp>

#include <gtest/gtest.h>

#include <endian.h>

#include <array>
#include <cstring>
#include <memory>
#include <vector>

namespace rblk::bypass {
namespace {

std::unique_ptr<nvme_id_ctrl> good_ctrl()
{
    auto id = std::make_unique<nvme_id_ctrl>();
    std::memset(id.get(), 0, sizeof(*id));
    std::memcpy(id->sn, "0123456789abcdef    ", 20);
    std::memcpy(id->mn, "Linux                                   ", 40);
    id->cntlid = 1;
    id->mdts = 5;
    id->sqes = 0x66;
    id->cqes = 0x44;
    id->maxcmd = 128;
    id->nn = 1024;
    id->sgls = 1u | NVME_CTRL_SGLS_KEYED;  // SGLs (byte aligned), keyed
    id->ioccsz = 516;
    id->iorcsz = 1;
    id->kas = 10;
    std::strcpy(id->subnqn, "nqn.2024-01.io.rblk:x");
    return id;
}

std::string refused(const nvme_id_ctrl& id, std::uint64_t cap = 0)
{
    auto r = check_id_ctrl(id, cap);
    return std::holds_alternative<std::string>(r) ? std::get<std::string>(r) : "";
}

TEST(IdCtrl, SaneControllerPasses)
{
    auto id = good_ctrl();
    auto r = check_id_ctrl(*id, 0);
    ASSERT_TRUE(std::holds_alternative<ControllerInfo>(r)) << std::get<std::string>(r);
    const ControllerInfo& i = std::get<ControllerInfo>(r);
    EXPECT_EQ(1, i.cntlid);
    EXPECT_EQ(1024u, i.nn);
    EXPECT_EQ(516u * 16, i.ioccsz_bytes);
    EXPECT_EQ(128u * 1024, i.max_transfer);  // 4 KiB << 5
    EXPECT_EQ("0123456789abcdef", i.serial);
    EXPECT_EQ("Linux", i.model);
    EXPECT_EQ("nqn.2024-01.io.rblk:x", i.subnqn);
}

TEST(IdCtrl, TransferLimitFromMdtsAndMpsmin)
{
    auto id = good_ctrl();
    id->mdts = 0;  // unlimited: our cap
    EXPECT_EQ(kMaxTransferCap, std::get<ControllerInfo>(check_id_ctrl(*id, 0)).max_transfer);
    id->mdts = 1;
    const std::uint64_t mpsmin1 = 1ull << 48;  // CAP.MPSMIN = 1: 8 KiB pages
    EXPECT_EQ(16u * 1024, std::get<ControllerInfo>(check_id_ctrl(*id, mpsmin1)).max_transfer);
    id->mdts = 255;  // absurd: no overflow, capped
    EXPECT_EQ(kMaxTransferCap, std::get<ControllerInfo>(check_id_ctrl(*id, ~0ull)).max_transfer);
}

// One field made absurd on sane Identify data, and the message it gets
// ("": any message).
template <typename Id>
struct Spoiled {
    void (*spoil)(Id&);
    const char* message;
};

template <typename Id, std::size_t N>
void expect_refused(std::unique_ptr<Id> (*sane)(), std::string (*check)(const Id&),
                    const Spoiled<Id> (&cases)[N])
{
    for (std::size_t n = 0; n < N; ++n) {
        auto id = sane();
        cases[n].spoil(*id);
        const std::string why = check(*id);
        if (*cases[n].message)
            EXPECT_EQ(cases[n].message, why) << "case " << n;
        else
            EXPECT_NE("", why) << "case " << n;
    }
}

TEST(IdCtrl, AbsurdValuesRefused)
{
    const Spoiled<nvme_id_ctrl> cases[] = {
        {[](nvme_id_ctrl& i) { i.sgls = 0; }, "controller lacks keyed SGL support"},
        {[](nvme_id_ctrl& i) { i.sgls = 1; }, "controller lacks keyed SGL support"},  // not keyed
        {[](nvme_id_ctrl& i) { i.ioccsz = 3; },
         "controller reports invalid capsule sizes (IOCCSZ 3, IORCSZ 1)"},
        {[](nvme_id_ctrl& i) { i.iorcsz = 0; }, ""},
        {[](nvme_id_ctrl& i) { i.sqes = 0x77; },  // needs 128-byte SQEs
         "controller needs queue entry sizes other than 64/16 bytes (SQES 119, CQES 68)"},
        {[](nvme_id_ctrl& i) { i.cqes = 0x33; }, ""},
        {[](nvme_id_ctrl& i) { i.cntlid = 0xffff; }, "controller reports a reserved controller ID 65535"},
        {[](nvme_id_ctrl& i) { i.cntrltype = NVME_CTRL_CNTRLTYPE_DISCOVERY; },
         "NQN names a discovery controller, not an I/O one"},
    };
    expect_refused(good_ctrl, +[](const nvme_id_ctrl& i) { return refused(i); }, cases);
}

TEST(IdCtrl, HugeIoccszIsCappedAndIcdoffSendsNone)
{
    auto id = good_ctrl();
    id->ioccsz = 0xffffffff;
    EXPECT_EQ(64u * 1024, std::get<ControllerInfo>(check_id_ctrl(*id, 0)).ioccsz_bytes);
    id->icdoff = 4;
    EXPECT_EQ(64u, std::get<ControllerInfo>(check_id_ctrl(*id, 0)).ioccsz_bytes);
}

TEST(IdCtrl, StringsArePrintable)
{
    const char raw[8] = {'a', '\x01', 'b', ' ', ' ', '\0', 'x', 'y'};
    EXPECT_EQ("a b", id_string(raw, sizeof(raw)));
    const char full[4] = {'w', 'x', 'y', 'z'};  // no terminator: bounded by the length
    EXPECT_EQ("wxyz", id_string(full, sizeof(full)));
}

std::unique_ptr<nvme_id_ns> good_ns()
{
    auto id = std::make_unique<nvme_id_ns>();
    std::memset(id.get(), 0, sizeof(*id));
    id->nsze = id->ncap = id->nuse = 196608;
    id->nlbaf = 1;
    id->flbas = 0;
    id->lbaf[0].ds = 9;
    id->lbaf[1].ds = 12;
    return id;
}

std::string ns_refused(const nvme_id_ns& id)
{
    auto r = check_id_ns(id, 1);
    return std::holds_alternative<std::string>(r) ? std::get<std::string>(r) : "";
}

TEST(IdNs, SaneNamespacePasses)
{
    auto id = good_ns();
    auto r = check_id_ns(*id, 1);
    ASSERT_TRUE(std::holds_alternative<NamespaceInfo>(r)) << std::get<std::string>(r);
    EXPECT_EQ(512u, std::get<NamespaceInfo>(r).lba_size());
    EXPECT_EQ(196608ull * 512, std::get<NamespaceInfo>(r).size_bytes());
    id->flbas = 1;
    EXPECT_EQ(4096u, std::get<NamespaceInfo>(check_id_ns(*id, 1)).lba_size());
}

TEST(IdNs, AbsurdValuesRefused)
{
    const Spoiled<nvme_id_ns> cases[] = {
        {[](nvme_id_ns& i) { i.nsze = 0; }, "namespace 1: not active on the controller (size 0)"},
        {[](nvme_id_ns& i) { i.flbas = 2; }, "namespace 1: LBA format 2 out of range (NLBAF 1)"},
        {[](nvme_id_ns& i) {  // format 63 through the high bits
             i.flbas = 0x60 | 0xf;
             i.nlbaf = 0;
         },
         "namespace 1: LBA format 63 out of range (NLBAF 0)"},
        {[](nvme_id_ns& i) { i.lbaf[0].ds = 0; }, "namespace 1: unsupported LBA data size 2^0"},
        {[](nvme_id_ns& i) { i.lbaf[0].ds = 40; }, "namespace 1: unsupported LBA data size 2^40"},
        {[](nvme_id_ns& i) { i.lbaf[0].ms = 8; }, "namespace 1: metadata formats are not supported"},
        {[](nvme_id_ns& i) { i.nsze = i.ncap = ~0ull; },  // bytes overflow 64 bits
         "namespace 1: size of 18446744073709551615 blocks overflows"},
        {[](nvme_id_ns& i) { i.ncap = i.nsze + 1; }, ""},
    };
    expect_refused(good_ns, ns_refused, cases);
}

// An Active Namespace ID list page holding `ids` (little-endian), zeros after.
std::array<std::uint32_t, 1024> ns_list(const std::vector<std::uint32_t>& ids)
{
    std::array<std::uint32_t, 1024> page{};
    for (std::size_t i = 0; i < ids.size() && i < page.size(); ++i)
        page[i] = htole32(ids[i]);
    return page;
}

std::string list_refused(const std::vector<std::uint32_t>& ids, std::uint32_t nn)
{
    const auto page = ns_list(ids);
    const auto r = check_active_ns_list(page.data(), nn);
    return std::holds_alternative<std::string>(r) ? std::get<std::string>(r) : "";
}

TEST(ActiveNsList, AscendingIdsPass)
{
    const auto page = ns_list({1, 2, 7});
    const auto r = check_active_ns_list(page.data(), 8);
    ASSERT_TRUE(std::holds_alternative<std::vector<std::uint32_t>>(r));
    EXPECT_EQ((std::vector<std::uint32_t>{1, 2, 7}), std::get<std::vector<std::uint32_t>>(r));
    // NN 0 (not reported): any id but FFFFFFFFh.
    EXPECT_EQ("", list_refused({3, 4000000}, 0));
    // A full page: 1024 ids, no zero ending it.
    std::vector<std::uint32_t> many(1024);
    for (std::uint32_t i = 0; i < 1024; ++i)
        many[i] = 2 * i + 1;
    const auto full = ns_list(many);
    const auto all = check_active_ns_list(full.data(), 0);
    ASSERT_TRUE(std::holds_alternative<std::vector<std::uint32_t>>(all));
    EXPECT_EQ(many, std::get<std::vector<std::uint32_t>>(all));
}

TEST(ActiveNsList, AbsurdListsRefused)
{
    EXPECT_EQ("the controller has no active namespace", list_refused({}, 8));
    EXPECT_EQ("active namespace list: bogus namespace id 2 after 3 (NN 8)", list_refused({1, 3, 2}, 8));
    EXPECT_EQ("active namespace list: bogus namespace id 3 after 3 (NN 8)", list_refused({3, 3}, 8));
    EXPECT_EQ("active namespace list: bogus namespace id 9 after 1 (NN 8)", list_refused({1, 9}, 8));
    EXPECT_EQ("active namespace list: bogus namespace id 4294967295 after 1", list_refused({1, 0xffffffffu}, 0));
}

}  // namespace
}  // namespace rblk::bypass
