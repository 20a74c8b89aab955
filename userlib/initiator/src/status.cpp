// Outcome messages; see status.hpp.
#include "rblk/bypass/status.hpp"

#include "rblk/bypass/wire.hpp"

extern "C" {  // libnvme 1.3 headers lack C++ linkage guards
#include <nvme/util.h>
}

#include <cstring>

namespace rblk::bypass {

std::string IoStatus::describe() const
{
    switch (kind) {
    case Kind::Ok: return "success";
    case Kind::Nvme: {
        // libnvme's text for the status (a positive value is an NVMe status).
        const std::string text = nvme_status_to_string(nvme & 0x7ff, true);
        return text + (nvme & NVME_SC_DNR ? " (do not retry)" : "");
    }
    case Kind::QueueDown: return "the queue is down";
    case Kind::Timeout: return "command timed out";
    case Kind::Busy: return "queue full";
    case Kind::Invalid: return "invalid request";
    }
    return "unknown outcome";
}

std::string connect_error(std::uint16_t status_field, std::uint32_t result)
{
    const std::uint32_t ipo = result & 0xffff;
    const std::uint16_t sc = status_field & 0xff, sct = (status_field >> 8) & 0x7;
    if (sct == NVME_SCT_CMD_SPECIFIC) {
        switch (sc) {
        case NVME_SC_CONNECT_INVALID_HOST: return "Connect refused: host not allowed by the subsystem";
        case NVME_SC_CONNECT_CTRL_BUSY: return "Connect refused: controller busy";
        case NVME_SC_CONNECT_FORMAT: return "Connect refused: unsupported Connect format";
        case NVME_SC_CONNECT_RESTART_DISC: return "Connect refused: restart discovery";
        case NVME_SC_CONNECT_INVALID_PARAM:
            if (!(result & (1u << 16)))
                return "Connect refused: invalid Connect command field";
            if (ipo == offsetof(ConnectData, subnqn))
                return "Connect refused: subsystem NQN not found on the target";
            if (ipo == offsetof(ConnectData, hostnqn))
                return "Connect refused: host NQN not accepted";
            if (ipo == offsetof(ConnectData, cntlid))
                return "Connect refused: controller ID no longer valid";
            return "Connect refused: invalid Connect data";
        default: break;
        }
    }
    return "Connect failed: " + IoStatus::from_nvme(status_field).describe();
}

std::string cm_reject_reason(bool consumer, const void* private_data, std::uint8_t len)
{
    if (!consumer || !private_data || len < sizeof(CmReject))
        return "connection rejected (no NVMe-oF listener at this address?)";
    CmReject rej;
    std::memcpy(&rej, private_data, sizeof(rej));
    switch (static_cast<CmRejectStatus>(rej.sts)) {
    case CmRejectStatus::InvalidPrivateDataLength:
        return "target rejected the RDMA connection: invalid private data length";
    case CmRejectStatus::InvalidRecfmt: return "target rejected the RDMA connection: invalid record format";
    case CmRejectStatus::InvalidQid: return "target rejected the RDMA connection: invalid queue ID";
    case CmRejectStatus::InvalidHsqsize: return "target rejected the RDMA connection: invalid host SQ size";
    case CmRejectStatus::InvalidHrqsize: return "target rejected the RDMA connection: invalid host RQ size";
    case CmRejectStatus::NoResources: return "target rejected the RDMA connection: no resources";
    case CmRejectStatus::InvalidIrd: return "target rejected the RDMA connection: invalid IRD";
    case CmRejectStatus::InvalidOrd: return "target rejected the RDMA connection: invalid ORD";
    }
    return "target rejected the RDMA connection: unknown reason";
}

}  // namespace rblk::bypass
