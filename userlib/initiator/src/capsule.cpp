// Command capsules and SGL descriptors; see capsule.hpp.
#include "rblk/bypass/capsule.hpp"

#include <algorithm>
#include <cstring>

namespace rblk::bypass {

std::uint32_t keyed_sgl_length(const SglDesc& d)
{
    return d.length[0] | static_cast<std::uint32_t>(d.length[1]) << 8 |
           static_cast<std::uint32_t>(d.length[2]) << 16;
}

std::uint32_t keyed_sgl_key(const SglDesc& d)
{
    std::uint32_t k;
    std::memcpy(&k, d.key, sizeof(k));
    return k;
}

std::uint32_t in_capsule_capacity(std::uint32_t ioccsz)
{
    const std::uint64_t bytes = static_cast<std::uint64_t>(ioccsz) * 16;
    return bytes > sizeof(Command) ? static_cast<std::uint32_t>(
                                         std::min<std::uint64_t>(bytes - sizeof(Command), 1u << 20))
                                   : 0;
}

bool use_in_capsule(std::uint32_t length, std::uint32_t ioccsz, std::uint32_t limit)
{
    return length > 0 && length <= std::min(in_capsule_capacity(ioccsz), limit);
}

namespace {

template <typename T>
Command as_command(const T& fabrics)
{
    static_assert(sizeof(T) == sizeof(Command));
    Command c;
    std::memcpy(&c, &fabrics, sizeof(c));
    return c;
}

}  // namespace

Command fabrics_connect(std::uint16_t qid, std::uint16_t sqsize_0based, std::uint32_t kato_ms)
{
    FabricsConnect f{};
    f.opcode = nvme_admin_fabrics;
    f.flags = kCmdFlagsSgl;
    f.fctype = nvme_fabrics_type_connect;
    f.dptr = null_sgl();
    f.recfmt = 0;
    f.qid = qid;
    f.sqsize = sqsize_0based;
    f.kato = qid == 0 ? kato_ms : 0;  // keep-alive is the admin queue's
    return as_command(f);
}

namespace {

Command property(std::uint8_t fctype, std::uint32_t offset, std::uint64_t value, bool eight_bytes)
{
    FabricsProperty f{};
    f.opcode = nvme_admin_fabrics;
    f.flags = kCmdFlagsSgl;
    f.fctype = fctype;
    f.attrib = eight_bytes ? 1 : 0;
    f.offset = offset;
    f.value = value;
    Command c = as_command(f);
    c.dptr = null_sgl();
    return c;
}

}  // namespace

Command property_get(std::uint32_t offset, bool eight_bytes)
{
    return property(nvme_fabrics_type_property_get, offset, 0, eight_bytes);
}

Command property_set(std::uint32_t offset, std::uint64_t value, bool eight_bytes)
{
    return property(nvme_fabrics_type_property_set, offset, value, eight_bytes);
}

ConnectData connect_data(const std::uint8_t (&hostid)[16], std::uint16_t cntlid,
                         const char* subnqn, const char* hostnqn)
{
    ConnectData d{};
    std::memcpy(d.hostid, hostid, sizeof(d.hostid));
    d.cntlid = cntlid;
    std::strncpy(d.subnqn, subnqn, sizeof(d.subnqn) - 1);
    std::strncpy(d.hostnqn, hostnqn, sizeof(d.hostnqn) - 1);
    return d;
}

Command identify(std::uint8_t cns, std::uint32_t nsid)
{
    Command c = with_sgl(nvme_admin_identify);
    c.nsid = nsid;
    c.cdw10 = cns;
    return c;
}

Command set_features_num_queues(std::uint16_t nr_queues)
{
    Command c = with_sgl(nvme_admin_set_features);
    const std::uint32_t n = nr_queues ? nr_queues - 1u : 0u;
    c.cdw10 = NVME_FEAT_FID_NUM_QUEUES;
    c.cdw11 = n | n << 16;  // NSQR and NCQR, 0's based
    return c;
}

Command keep_alive() { return with_sgl(nvme_admin_keep_alive); }

Command nvm_flush(std::uint32_t nsid)
{
    Command c = with_sgl(nvme_cmd_flush);
    c.nsid = nsid;
    return c;
}

Command nvm_write_zeroes(std::uint32_t nsid, std::uint64_t slba, std::uint32_t nlb, bool deallocate)
{
    Command c{};
    fill_write_zeroes(c, nsid, slba, nlb, deallocate);
    return c;
}

Command nvm_dsm_deallocate(std::uint32_t nsid, std::uint32_t nr_ranges)
{
    Command c = with_sgl(nvme_cmd_dsm);
    c.nsid = nsid;
    c.cdw10 = (nr_ranges - 1) & 0xff;
    c.cdw11 = NVME_DSMGMT_AD;
    return c;
}

std::uint32_t cc_enable()
{
    return 1u << NVME_CC_EN_SHIFT | NVME_CC_CSS_NVM << NVME_CC_CSS_SHIFT |
           0u << NVME_CC_MPS_SHIFT | NVME_CC_AMS_RR << NVME_CC_AMS_SHIFT |
           6u << NVME_CC_IOSQES_SHIFT | 4u << NVME_CC_IOCQES_SHIFT;
}

std::uint32_t cc_shutdown(std::uint32_t cc)
{
    cc &= ~(static_cast<std::uint32_t>(NVME_CC_SHN_MASK) << NVME_CC_SHN_SHIFT);
    return cc | NVME_CC_SHN_NORMAL << NVME_CC_SHN_SHIFT;
}

}  // namespace rblk::bypass
