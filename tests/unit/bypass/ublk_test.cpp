// The pure parts of the ublk server (rblk/bypass/ublk.hpp): a ublk request
// (512-byte sectors) translated into the NVMe command the bypass initiator
// sends (blocks of the namespace's LBA size), the device's parameters, the
// opcodes in either encoding, and the one line that says why there is no ublk.
#include <rblk/bypass/ublk.hpp>

#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <variant>
#include <vector>

namespace rblk::bypass {
namespace {

NamespaceInfo ns_of(std::uint64_t blocks, std::uint32_t shift)
{
    NamespaceInfo ns;
    ns.nsid = 1;
    ns.nsze = blocks;
    ns.lba_shift = shift;
    return ns;
}

ublksrv_io_desc iod(std::uint32_t op, std::uint64_t sector, std::uint32_t sectors, std::uint32_t flags = 0)
{
    ublksrv_io_desc d{};
    d.op_flags = op | flags;
    d.start_sector = sector;
    d.nr_sectors = sectors;
    return d;
}

constexpr UblkCaps kAll{true, true};

// ublk_translate() as a value: the request (user data `ud`), or the errno.
std::variant<IoRequest, int> translate(const ublksrv_io_desc& d, const NamespaceInfo& ns, const UblkCaps& caps,
                                       std::byte* buf, std::size_t buf_len, std::uint64_t ud)
{
    IoRequest r;
    r.user_data = ud;
    if (const int err = ublk_translate(d, ns, caps, buf, buf_len, r))
        return err;
    return r;
}

TEST(UblkTranslate, ReadAndWriteIn512ByteBlocks)
{
    std::vector<std::byte> buf(128 << 10);
    const NamespaceInfo ns = ns_of(1 << 20, 9);
    const auto r = translate(iod(UBLK_IO_OP_READ, 8, 16), ns, kAll, buf.data(), buf.size(), 7);
    ASSERT_TRUE(std::holds_alternative<IoRequest>(r));
    const IoRequest& q = std::get<IoRequest>(r);
    EXPECT_EQ(IoOp::Read, q.op);
    EXPECT_EQ(8u, q.slba);
    EXPECT_EQ(16u, q.nlb);
    EXPECT_EQ(buf.data(), q.buf);
    EXPECT_EQ(8192u, q.len);
    EXPECT_EQ(7u, q.user_data);
    const auto w = translate(iod(UBLK_IO_OP_WRITE, 0, 256), ns, kAll, buf.data(), buf.size(), 0);
    EXPECT_EQ(IoOp::Write, std::get<IoRequest>(w).op);
    EXPECT_EQ(256u, std::get<IoRequest>(w).nlb);
}

TEST(UblkTranslate, SectorsBecome4kBlocks)
{
    std::vector<std::byte> buf(64 << 10);
    const NamespaceInfo ns = ns_of(1000, 12);
    const auto r = translate(iod(UBLK_IO_OP_WRITE, 80, 32), ns, kAll, buf.data(), buf.size(), 0);
    ASSERT_TRUE(std::holds_alternative<IoRequest>(r));
    EXPECT_EQ(10u, std::get<IoRequest>(r).slba);
    EXPECT_EQ(4u, std::get<IoRequest>(r).nlb);
    EXPECT_EQ(16384u, std::get<IoRequest>(r).len);
    // Not whole blocks, past the end, larger than the buffer, empty.
    EXPECT_EQ(-EINVAL, std::get<int>(translate(iod(UBLK_IO_OP_READ, 4, 8), ns, kAll, buf.data(), buf.size(), 0)));
    EXPECT_EQ(-EINVAL, std::get<int>(translate(iod(UBLK_IO_OP_READ, 8, 12), ns, kAll, buf.data(), buf.size(), 0)));
    EXPECT_EQ(-EINVAL, std::get<int>(translate(iod(UBLK_IO_OP_READ, 999 * 8, 16), ns, kAll, buf.data(), buf.size(), 0)));
    EXPECT_EQ(-EINVAL, std::get<int>(translate(iod(UBLK_IO_OP_READ, 0, 256), ns, kAll, buf.data(), buf.size(), 0)));
    EXPECT_EQ(-EINVAL, std::get<int>(translate(iod(UBLK_IO_OP_READ, 0, 0), ns, kAll, buf.data(), buf.size(), 0)));
    // The last block is fine.
    EXPECT_TRUE(std::holds_alternative<IoRequest>(
        translate(iod(UBLK_IO_OP_READ, 999 * 8, 8), ns, kAll, buf.data(), buf.size(), 0)));
}

TEST(UblkTranslate, FlushDiscardWriteZeroes)
{
    std::vector<std::byte> buf(4096);
    const NamespaceInfo ns = ns_of(1 << 20, 12);
    const auto f = translate(iod(UBLK_IO_OP_FLUSH, 0, 0), ns, kAll, buf.data(), buf.size(), 3);
    EXPECT_EQ(IoOp::Flush, std::get<IoRequest>(f).op);
    EXPECT_EQ(3u, std::get<IoRequest>(f).user_data);

    const auto d = translate(iod(UBLK_IO_OP_DISCARD, 16, 64), ns, kAll, buf.data(), buf.size(), 0);
    ASSERT_TRUE(std::holds_alternative<IoRequest>(d));
    const IoRequest& dr = std::get<IoRequest>(d);
    EXPECT_EQ(IoOp::Dsm, dr.op);
    EXPECT_EQ(1u, dr.nlb);  // one range
    EXPECT_EQ(sizeof(nvme_dsm_range), dr.len);
    nvme_dsm_range range;
    std::memcpy(&range, buf.data(), sizeof(range));
    EXPECT_EQ(2u, range.slba);
    EXPECT_EQ(8u, range.nlb);

    const auto z = translate(iod(UBLK_IO_OP_WRITE_ZEROES, 8, 8), ns, kAll, nullptr, 0, 0);
    EXPECT_EQ(IoOp::WriteZeroes, std::get<IoRequest>(z).op);
    EXPECT_EQ(1u, std::get<IoRequest>(z).slba);
    EXPECT_EQ(1u, std::get<IoRequest>(z).nlb);
    EXPECT_TRUE(std::get<IoRequest>(z).deallocate);
    const auto zk = translate(iod(UBLK_IO_OP_WRITE_ZEROES, 8, 8, UBLK_IO_F_NOUNMAP), ns, kAll, nullptr, 0, 0);
    EXPECT_FALSE(std::get<IoRequest>(zk).deallocate);

    // What the controller lacks, and what ublk has that NVMe does not carry here.
    EXPECT_EQ(-EOPNOTSUPP, std::get<int>(translate(iod(UBLK_IO_OP_DISCARD, 0, 8), ns, {false, true}, buf.data(), buf.size(), 0)));
    EXPECT_EQ(-EOPNOTSUPP, std::get<int>(translate(iod(UBLK_IO_OP_WRITE_ZEROES, 0, 8), ns, {true, false}, nullptr, 0, 0)));
    EXPECT_EQ(-EOPNOTSUPP, std::get<int>(translate(iod(UBLK_IO_OP_WRITE_SAME, 0, 8), ns, kAll, buf.data(), buf.size(), 0)));
}

TEST(UblkParams, FromTheNamespaceAndController)
{
    const NamespaceInfo ns = ns_of(65536, 12);  // 256 MiB of 4 KiB blocks
    const ublk_params p = ublk_device_params(ns, true, kAll, 128 << 10);
    EXPECT_EQ(sizeof(ublk_params), p.len);
    EXPECT_EQ(unsigned(UBLK_PARAM_TYPE_BASIC | UBLK_PARAM_TYPE_DISCARD), p.types);
    EXPECT_EQ(unsigned(UBLK_ATTR_VOLATILE_CACHE), p.basic.attrs);
    EXPECT_EQ(12, p.basic.logical_bs_shift);
    EXPECT_EQ(12, p.basic.physical_bs_shift);
    EXPECT_EQ(256u, p.basic.max_sectors);
    EXPECT_EQ((256ull << 20) >> 9, p.basic.dev_sectors);
    EXPECT_EQ(4096u, p.discard.discard_granularity);
    EXPECT_EQ(1, p.discard.max_discard_segments);
    EXPECT_EQ(0u, p.discard.max_discard_sectors % 8);
    EXPECT_EQ(65536u * 8, p.discard.max_write_zeroes_sectors);

    const ublk_params plain = ublk_device_params(ns_of(1024, 9), false, {}, 64 << 10);
    EXPECT_EQ(unsigned(UBLK_PARAM_TYPE_BASIC), plain.types);
    EXPECT_EQ(0u, plain.basic.attrs);
    EXPECT_EQ(1024u, plain.basic.dev_sectors);
}

TEST(UblkOpcodes, LegacyOrIoctlEncoded)
{
    EXPECT_EQ(unsigned(UBLK_CMD_ADD_DEV), ublk_ctrl_op(UBLK_CMD_ADD_DEV, false));
    EXPECT_EQ(unsigned(UBLK_IO_FETCH_REQ), ublk_io_op(UBLK_IO_FETCH_REQ, false));
    // As 6.12's uapi spells them (UBLK_U_CMD_ADD_DEV, UBLK_U_CMD_GET_DEV_INFO, UBLK_U_IO_FETCH_REQ).
    EXPECT_EQ(unsigned(_IOWR('u', UBLK_CMD_ADD_DEV, struct ublksrv_ctrl_cmd)), ublk_ctrl_op(UBLK_CMD_ADD_DEV, true));
    EXPECT_EQ(unsigned(_IOR('u', UBLK_CMD_GET_DEV_INFO, struct ublksrv_ctrl_cmd)),
              ublk_ctrl_op(UBLK_CMD_GET_DEV_INFO, true));
    EXPECT_EQ(unsigned(UBLK_U_CMD_GET_FEATURES), ublk_ctrl_op(0x13, true));
    EXPECT_EQ(unsigned(_IOWR('u', UBLK_IO_COMMIT_AND_FETCH_REQ, struct ublksrv_io_cmd)),
              ublk_io_op(UBLK_IO_COMMIT_AND_FETCH_REQ, true));
}

TEST(UblkMissing, SaysWhyInOneLine)
{
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("rblk-ublk-test-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string none = (dir / "no-control").string();
    std::ofstream(dir / "modules.dep") << "kernel/drivers/nvme/host/nvme.ko:\n";
    std::ofstream(dir / "modules.builtin") << "kernel/drivers/block/loop.ko\n";
    EXPECT_EQ("this kernel has no ublk driver (CONFIG_BLK_DEV_UBLK): the bypass server needs it",
              ublk_missing_reason(none, dir.string()));
    std::ofstream(dir / "modules.dep") << "kernel/drivers/block/ublk_drv.ko.xz:\n";
    EXPECT_EQ("the ublk driver is not loaded (modprobe ublk_drv): the bypass server needs it",
              ublk_missing_reason(none, dir.string()));
    std::ofstream(dir / "present") << "";
    EXPECT_EQ("", ublk_missing_reason((dir / "present").string(), dir.string()));
    fs::remove_all(dir);
}

// A commit queued on a full submission queue: the ring's SQEs go to the
// kernel to make room, rather than the commit being dropped (the tag would
// never be fetched again and the device would hang on it). The descriptor
// area is a memfd here: only the SQEs are looked at, and the kernel fails
// the ones submitted (no ublk device behind it).
TEST(UblkQueueCommit, MakesRoomOnAFullSubmissionQueue)
{
    Ring ring(4, 0, "a test ring");
    const int fd = ::memfd_create("ublk-iods", MFD_CLOEXEC);
    ASSERT_GE(fd, 0) << std::strerror(errno);
    ASSERT_EQ(0, ::ftruncate(fd, ::sysconf(_SC_PAGESIZE)));
    {
        UblkQueue q(ring.get(), fd, 0, 4, true, 0);
        std::byte buf[512];
        for (std::uint16_t tag = 0; tag < 4; ++tag)
            ASSERT_TRUE(q.fetch(tag, buf));
        EXPECT_EQ(0u, io_uring_sq_space_left(ring.get()));
        EXPECT_TRUE(q.commit(2, 512, buf));
        EXPECT_EQ(1u, io_uring_sq_ready(ring.get()));  // the commit, alone after the four went
        EXPECT_EQ(1, io_uring_submit(ring.get()));
    }
    ::close(fd);
}

}  // namespace
}  // namespace rblk::bypass
