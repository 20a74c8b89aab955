// Identify sanity checks; see identify.hpp.
#include "rblk/bypass/identify.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>

extern "C" {
#include "identify.h"  // kmod/shared/identify.h: rblk_mdts_sectors(), rblk_nsid_next_ok(), the module's own
}
// The kernel shim's min()/max() macros would break the C++ library.
#undef min
#undef max

namespace rblk::bypass {

std::string id_string(const char* field, std::size_t len)
{
    std::string s;
    for (std::size_t i = 0; i < len && field[i]; ++i)
        s += std::isprint(static_cast<unsigned char>(field[i])) ? field[i] : ' ';
    while (!s.empty() && s.back() == ' ')
        s.pop_back();
    return s;
}

std::variant<ControllerInfo, std::string> check_id_ctrl(const nvme_id_ctrl& id, std::uint64_t cap)
{
    if (id.cntrltype == NVME_CTRL_CNTRLTYPE_DISCOVERY)
        return std::string("NQN names a discovery controller, not an I/O one");
    if ((id.sgls & NVME_CTRL_SGLS_SUPPORTED) == 0 || (id.sgls & NVME_CTRL_SGLS_KEYED) == 0)
        return std::string("controller lacks keyed SGL support");
    if (id.ioccsz < 64 / 16 || id.iorcsz < 16 / 16)
        return std::string("controller reports invalid capsule sizes (IOCCSZ " +
                           std::to_string(id.ioccsz) + ", IORCSZ " + std::to_string(id.iorcsz) + ")");
    // SQES/CQES: required (low nibble) <= the sizes used <= maximum (high nibble).
    const unsigned sq_min = id.sqes & 0xf, sq_max = id.sqes >> 4;
    const unsigned cq_min = id.cqes & 0xf, cq_max = id.cqes >> 4;
    if ((id.sqes && (sq_min > 6 || sq_max < 6)) || (id.cqes && (cq_min > 4 || cq_max < 4)))
        return std::string("controller needs queue entry sizes other than 64/16 bytes (SQES " +
                           std::to_string(id.sqes) + ", CQES " + std::to_string(id.cqes) + ")");
    if (id.cntlid >= 0xfff0)
        return std::string("controller reports a reserved controller ID " + std::to_string(id.cntlid));

    ControllerInfo info;
    info.cntlid = id.cntlid;
    info.nn = id.nn;
    // In-capsule data at an offset is not supported: send none (as the module).
    info.ioccsz_bytes = id.icdoff ? 64u : std::min<std::uint32_t>(id.ioccsz, 64 * 1024 / 16) * 16;
    const std::uint32_t sectors = rblk_mdts_sectors(id.mdts, NVME_CAP_MPSMIN(cap));
    info.max_transfer = sectors >= kMaxTransferCap / 512 ? kMaxTransferCap : sectors * 512;
    info.maxcmd = id.maxcmd;
    info.kas = id.kas;
    info.oncs = id.oncs;
    info.vwc = id.vwc;
    info.serial = id_string(id.sn, sizeof(id.sn));
    info.model = id_string(id.mn, sizeof(id.mn));
    info.firmware = id_string(id.fr, sizeof(id.fr));
    info.subnqn = id_string(id.subnqn, sizeof(id.subnqn));
    return info;
}

std::variant<NamespaceInfo, std::string> check_id_ns(const nvme_id_ns& id, std::uint32_t nsid)
{
    const std::string ns = "namespace " + std::to_string(nsid) + ": ";
    if (id.nsze == 0)
        return ns + "not active on the controller (size 0)";
    // FLBAS bits 3:0, and 6:5 above them when there are more than 16 formats.
    const unsigned idx = (id.flbas & 0xf) | ((id.flbas >> 5) & 0x3) << 4;
    if (idx > id.nlbaf || idx >= std::size(id.lbaf))
        return ns + "LBA format " + std::to_string(idx) + " out of range (NLBAF " +
               std::to_string(id.nlbaf) + ")";
    const nvme_lbaf& f = id.lbaf[idx];
    if (f.ds < 9 || f.ds > 12)
        return ns + "unsupported LBA data size 2^" + std::to_string(f.ds);
    if (f.ms)
        return ns + "metadata formats are not supported";
    if (id.nsze > (UINT64_MAX >> f.ds))
        return ns + "size of " + std::to_string(id.nsze) + " blocks overflows";
    if (id.ncap > id.nsze)
        return ns + "capacity " + std::to_string(id.ncap) + " beyond its size " +
               std::to_string(id.nsze);
    NamespaceInfo info;
    info.nsid = nsid;
    info.nsze = id.nsze;
    info.lba_shift = f.ds;
    return info;
}

std::variant<std::vector<std::uint32_t>, std::string> check_active_ns_list(const void* page, std::uint32_t nn)
{
    std::vector<std::uint32_t> ids;
    std::uint32_t prev = 0;
    for (std::size_t i = 0; i < NVME_IDENTIFY_DATA_SIZE / 4; ++i) {
        std::uint32_t le;
        std::memcpy(&le, static_cast<const std::byte*>(page) + 4 * i, 4);
        const std::uint32_t nsid = le32toh(le);
        if (!nsid)
            break;
        if (!rblk_nsid_next_ok(nsid, prev, nn))
            return "active namespace list: bogus namespace id " + std::to_string(nsid) + " after " +
                   std::to_string(prev) + (nn ? " (NN " + std::to_string(nn) + ")" : std::string());
        ids.push_back(nsid);
        prev = nsid;
    }
    if (ids.empty())
        return std::string("the controller has no active namespace");
    return ids;
}

}  // namespace rblk::bypass
