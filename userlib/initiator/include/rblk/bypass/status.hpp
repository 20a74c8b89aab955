// Outcomes on the bypass path. The I/O path reports an IoStatus (no
// exceptions there): success, an NVMe status from the target, or a
// transport-side failure (the queue went down, the command timed out, the
// queue was full or the request was invalid). Setting up (connecting,
// reconnecting) throws bypass::Error, whose what() is one line in the
// user's terms, with the same wording as the module's for the same cause
// (kmod/fabrics.c, kmod/rdma.c).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace rblk::bypass {

struct IoStatus {
    enum class Kind : std::uint8_t {
        Ok,
        Nvme,         // the target completed it with an error status (`nvme`)
        QueueDown,    // the queue failed (or is reconnecting): the command did not complete
        Timeout,      // no response within the command timeout; the queue is failed
        Busy,         // no free slot: poll, then submit again
        Invalid,      // a request the queue cannot carry (size, alignment, buffer)
    };
    Kind kind = Kind::Ok;
    std::uint16_t nvme = 0;  // the status field (SC | SCT << 8 | CRD | MORE | DNR << 14)

    bool ok() const { return kind == Kind::Ok; }
    // Worth retrying on the same controller after a reconnect.
    bool retryable() const { return kind == Kind::QueueDown || kind == Kind::Timeout; }
    std::string describe() const;

    static IoStatus from_nvme(std::uint16_t status_field)
    {
        return status_field ? IoStatus{Kind::Nvme, status_field} : IoStatus{};
    }
};

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The reason a Fabrics Connect failed, from its status field and result
// (the IATTR/IPO of Connect Invalid Parameters): "Connect refused: subsystem
// NQN not found on the target", as the module says it.
std::string connect_error(std::uint16_t status_field, std::uint32_t result);

// The reason of an RDMA CM reject, from the NVMe-oF reject private data
// when there is one; `consumer` says whether the peer's rdma_cm consumer
// (a listener) rejected (else: no listener, or the fabric refused).
std::string cm_reject_reason(bool consumer, const void* private_data, std::uint8_t private_data_len);

}  // namespace rblk::bypass
