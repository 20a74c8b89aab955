// Command capsules and SGL descriptors, byte for byte as the NVMe base and
// NVMe-oF specifications lay them out.
#include <rblk/bypass/capsule.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstring>

namespace rblk::bypass {
namespace {

std::array<std::uint8_t, 64> bytes(const Command& c)
{
    std::array<std::uint8_t, 64> b;
    std::memcpy(b.data(), &c, sizeof(c));
    return b;
}

std::uint32_t dword(const Command& c, int n)
{
    std::uint32_t v;
    std::memcpy(&v, reinterpret_cast<const std::uint8_t*>(&c) + 4 * n, 4);
    return v;
}

TEST(Sgl, KeyedDescriptorLayout)
{
    const SglDesc d = keyed_sgl(0x1122334455667788ull, 0x00abcdef, 0xdeadbeef);
    std::uint8_t b[16];
    std::memcpy(b, &d, sizeof(b));
    const std::uint8_t want[16] = {0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,  // address
                                   0xef, 0xcd, 0xab,                                // 3-byte length
                                   0xef, 0xbe, 0xad, 0xde,                          // key
                                   0x40};  // keyed data block, subtype address
    EXPECT_EQ(0, std::memcmp(want, b, 16));
    EXPECT_EQ(0x00abcdefu, keyed_sgl_length(d));
    EXPECT_EQ(0xdeadbeefu, keyed_sgl_key(d));
    // The length field has 24 bits: the largest is kept whole.
    EXPECT_EQ(kKeyedSglMaxLength, keyed_sgl_length(keyed_sgl(0, kKeyedSglMaxLength, 1)));
}

TEST(Sgl, NullAndInCapsule)
{
    const SglDesc n = null_sgl();
    std::uint8_t b[16];
    std::memcpy(b, &n, 16);
    for (int i = 0; i < 15; ++i)
        EXPECT_EQ(0, b[i]) << i;
    EXPECT_EQ(0x40, b[15]);

    const SglDesc ic = in_capsule_sgl(4096);
    std::memcpy(b, &ic, 16);
    for (int i = 0; i < 8; ++i)
        EXPECT_EQ(0, b[i]) << "offset byte " << i;  // right after the command (ICDOFF 0)
    EXPECT_EQ(0x00, b[8]);
    EXPECT_EQ(0x10, b[9]);  // 4096, four bytes little endian
    EXPECT_EQ(0x00, b[10]);
    EXPECT_EQ(0x00, b[11]);
    EXPECT_EQ(0x01, b[15]);  // data block, subtype offset
}

TEST(InCapsule, CapacityFromIoccsz)
{
    EXPECT_EQ(0u, in_capsule_capacity(0));
    EXPECT_EQ(0u, in_capsule_capacity(4));         // the command alone
    EXPECT_EQ(8192u, in_capsule_capacity(516));    // nvmet's 8 KiB inline
    EXPECT_EQ(1u << 20, in_capsule_capacity(0xffffffffu));  // absurd: capped, no overflow
    EXPECT_TRUE(use_in_capsule(4096, 516, 8192));
    EXPECT_FALSE(use_in_capsule(8193, 516, 16384));  // beyond IOCCSZ
    EXPECT_FALSE(use_in_capsule(8192, 516, 4096));   // beyond the queue's buffers
    EXPECT_FALSE(use_in_capsule(0, 516, 8192));
    EXPECT_FALSE(use_in_capsule(512, 4, 8192));      // target takes no in-capsule data
}

TEST(Capsule, ReadWrite)
{
    const Command r = nvm_rw(false, 1, 0x123456789aull, 8);
    const auto b = bytes(r);
    EXPECT_EQ(nvme_cmd_read, b[0]);
    EXPECT_EQ(0x40, b[1]);  // PSDT: SGL
    EXPECT_EQ(1u, dword(r, 1));
    EXPECT_EQ(0x3456789au, dword(r, 10));
    EXPECT_EQ(0x12u, dword(r, 11));
    EXPECT_EQ(7u, dword(r, 12));  // NLB is 0's based
    EXPECT_EQ(nvme_cmd_write, nvm_rw(true, 1, 0, 1).opcode);
    EXPECT_EQ(0xffffu, nvm_rw(true, 1, 0, 65536).cdw12);
}

TEST(Capsule, FlushWriteZeroesDsm)
{
    const Command f = nvm_flush(3);
    EXPECT_EQ(nvme_cmd_flush, f.opcode);
    EXPECT_EQ(3u, f.nsid);
    const Command wz = nvm_write_zeroes(1, 10, 16, true);
    EXPECT_EQ(nvme_cmd_write_zeroes, wz.opcode);
    EXPECT_EQ(10u, wz.cdw10);
    EXPECT_EQ(15u | 1u << 25, wz.cdw12);  // DEAC is bit 25
    EXPECT_EQ(15u, nvm_write_zeroes(1, 10, 16, false).cdw12);
    const Command d = nvm_dsm_deallocate(1, 256);
    EXPECT_EQ(nvme_cmd_dsm, d.opcode);
    EXPECT_EQ(255u, d.cdw10);  // NR, 0's based
    EXPECT_EQ(4u, d.cdw11);    // AD
}

TEST(Capsule, FabricsConnect)
{
    const Command c = fabrics_connect(0, 31, 5000);
    const auto b = bytes(c);
    EXPECT_EQ(0x7f, b[0]);
    EXPECT_EQ(0x40, b[1]);
    EXPECT_EQ(nvme_fabrics_type_connect, b[4]);
    EXPECT_EQ(0x40, b[39]);  // the SGL is keyed (the caller fills it)
    FabricsConnect f;
    std::memcpy(&f, &c, 64);
    EXPECT_EQ(0, f.recfmt);
    EXPECT_EQ(0, f.qid);
    EXPECT_EQ(31, f.sqsize);
    EXPECT_EQ(5000u, f.kato);
    FabricsConnect io;
    const Command ioc = fabrics_connect(3, 127, 5000);
    std::memcpy(&io, &ioc, 64);
    EXPECT_EQ(3, io.qid);
    EXPECT_EQ(127, io.sqsize);
    EXPECT_EQ(0u, io.kato);  // keep-alive belongs to the admin queue
    // Byte offsets of the NVMe-oF specification.
    EXPECT_EQ(0x1f, b[44]);  // SQSIZE low byte at 44 (bytes 40-41 RECFMT, 42-43 QID)
    EXPECT_EQ(0x88, b[48]);  // KATO at 48: 5000 = 0x1388
    EXPECT_EQ(0x13, b[49]);
}

TEST(Capsule, ConnectData)
{
    const std::uint8_t id[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    const ConnectData d = connect_data(id, 0xffff, "nqn.2024-01.io.rblk:sub", "nqn.host");
    EXPECT_EQ(0, std::memcmp(d.hostid, id, 16));
    EXPECT_EQ(0xffff, d.cntlid);
    EXPECT_STREQ("nqn.2024-01.io.rblk:sub", d.subnqn);
    EXPECT_STREQ("nqn.host", d.hostnqn);
    // An NQN of the field's whole size stays terminated.
    const std::string longest(300, 'a');
    const ConnectData l = connect_data(id, 1, longest.c_str(), longest.c_str());
    EXPECT_EQ('\0', l.subnqn[sizeof(l.subnqn) - 1]);
    EXPECT_EQ('\0', l.hostnqn[sizeof(l.hostnqn) - 1]);
}

TEST(Capsule, Properties)
{
    const Command g = property_get(NVME_REG_CAP, true);
    const auto b = bytes(g);
    EXPECT_EQ(0x7f, b[0]);
    EXPECT_EQ(nvme_fabrics_type_property_get, b[4]);
    EXPECT_EQ(1, b[40]);  // ATTRIB: 8 bytes
    EXPECT_EQ(0u, dword(g, 11));  // OFST
    const Command s = property_set(NVME_REG_CC, 0x460001, false);
    const auto sb = bytes(s);
    EXPECT_EQ(nvme_fabrics_type_property_set, sb[4]);
    EXPECT_EQ(0, sb[40]);
    EXPECT_EQ(0x14u, dword(s, 11));
    EXPECT_EQ(0x460001u, dword(s, 12));
}

TEST(Capsule, AdminCommands)
{
    const Command id = identify(NVME_IDENTIFY_CNS_NS, 7);
    EXPECT_EQ(nvme_admin_identify, id.opcode);
    EXPECT_EQ(7u, id.nsid);
    EXPECT_EQ(0u, id.cdw10);
    EXPECT_EQ(1u, identify(NVME_IDENTIFY_CNS_CTRL, 0).cdw10);
    const Command sf = set_features_num_queues(4);
    EXPECT_EQ(nvme_admin_set_features, sf.opcode);
    EXPECT_EQ(7u, sf.cdw10);
    EXPECT_EQ(0x00030003u, sf.cdw11);
    EXPECT_EQ(nvme_admin_keep_alive, keep_alive().opcode);
}

TEST(Capsule, ControllerConfiguration)
{
    const std::uint32_t cc = cc_enable();
    EXPECT_EQ(0x00460001u, cc);  // EN, IOSQES 6, IOCQES 4, NVM, 4 KiB, RR
    EXPECT_EQ(0x00464001u, cc_shutdown(cc));  // SHN 01b
    EXPECT_EQ(0x00464001u, cc_shutdown(cc | 3u << 14));
}

}  // namespace
}  // namespace rblk::bypass
