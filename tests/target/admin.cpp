// Admin commands of an I/O controller: Identify (controller, namespace,
// active list, namespace descriptors), number of queues, keep-alive. The
// absurd-* misbehaviours live in the Identify data, nsid-list-no-data in
// its transfer, ns-id-no-data in an Identify Namespace's. A discovery
// controller's are in discovery.cpp.
#include <algorithm>
#include <cstring>
#include <string>

#include "target.hpp"

namespace rt {

namespace {

constexpr uint32_t kNsid = 1;
constexpr uint32_t kAbsurdNn = 0xfffffffe;
constexpr uint8_t kNidtEui64 = 1, kNidtNguid = 2, kNidtUuid = 3;

// Namespace identifiers from the NQN alone (FNV-1a, one seed per 8
// bytes): a restarted target's namespace is the same one to the host.
void put_ids(uint8_t* dst, size_t len, const std::string& nqn, uint64_t seed)
{
    for (size_t i = 0; i < len; i += 8) {
        uint64_t h = 0xcbf29ce484222325ull ^ (seed + i);
        for (const char ch : nqn)
            h = (h ^ uint8_t(ch)) * 0x100000001b3ull;
        std::memcpy(dst + i, &h, std::min<size_t>(8, len - i));
    }
}

// A Namespace Identification Descriptor; returns the bytes it took.
size_t put_desc(uint8_t* buf, uint8_t type, const uint8_t* id, uint8_t len)
{
    buf[0] = type;
    buf[1] = len;
    std::memcpy(buf + 4, id, len);
    return 4 + len;
}

void put_string(uint8_t* buf, size_t off, size_t len, const std::string& s)
{
    std::memset(buf + off, ' ', len);
    std::memcpy(buf + off, s.data(), std::min(len, s.size()));
}

}  // namespace

void Target::admin(Queue& q, uint32_t slot)
{
    if (ctrls_[q.cntlid].discovery) {
        disc_admin(q, slot);
        return;
    }
    const Sqe& c = q.sqe(slot);
    switch (c.opcode) {
    case kAdminIdentify:
        identify(q, slot);
        return;
    case kAdminKeepAlive:
        reply(q, slot, kScSuccess);
        return;
    case kAdminAsyncEvent:
        async_event(q, slot);
        return;
    case kAdminGetLogPage:
        get_log_page(q, slot);
        return;
    case kAdminFormatNvm:
        format_nvm(q, slot);
        return;
    case kAdminSetFeatures:
    case kAdminGetFeatures:
        if (resv_ && resv_features(q, slot))
            return;
        if ((c.cdw10 & 0xff) == kFeatAsyncEventCfg && ns_notices() && c.opcode == kAdminSetFeatures) {
            log("async-event-config: " + std::to_string(c.cdw11));
            reply(q, slot, kScSuccess);
            return;
        }
        if ((c.cdw10 & 0xff) == kFeatNumQueues) {
            const uint32_t want = std::min(c.cdw11 & 0xffff, c.cdw11 >> 16) + 1;
            const uint32_t n = c.opcode == kAdminSetFeatures ? std::min(want, kMaxIoQueues) : kMaxIoQueues;
            reply(q, slot, kScSuccess, (n - 1) | ((n - 1) << 16));
            return;
        }
        reply(q, slot, kScInvalidField | kScDnr);
        return;
    default:
        reply(q, slot, kScInvalidOpcode | kScDnr);
        return;
    }
}

void Target::identify_ctrl(Queue& q, uint8_t* buf)
{
    put<uint16_t>(buf, 0, 0x1b36);  // PCI VID: any; nobody checks it on fabrics
    put_string(buf, idc::sn, 20, "BADTGT0001");
    put_string(buf, idc::mn, 40, "rblk test target");
    put_string(buf, idc::fr, 8, "1.0");
    buf[idc::mdts] = bad_.is(Mode::absurd_mdts) ? 255 : 5;  // 2^5 pages: 128 KiB
    // A namespace nvmet serves too: the subsystem has more controllers.
    if (opts_.nguid)
        buf[idc::cmic] = 1 << 1;
    put<uint16_t>(buf, idc::cntlid, q.cntlid);
    put<uint32_t>(buf, idc::ver, 0x00010300);
    buf[idc::cntrltype] = 1;              // I/O controller
    put<uint16_t>(buf, idc::kas, 1);      // 100 ms granularity
    buf[idc::sqes] = 0x66;
    buf[idc::cqes] = 0x44;
    put<uint16_t>(buf, idc::maxcmd, opts_.max_queue_size);
    put<uint32_t>(buf, idc::nn, endless_ns_list() ? kAbsurdNn : opts_.namespaces);
    put<uint16_t>(buf, idc::oncs, resv_ ? kOncsReservations : 0);
    if (ns_notices())
        put<uint32_t>(buf, idc::oaes, 1u << 8);  // Namespace Attribute Notices
    buf[idc::vwc] = 1;
    // SGLs supported, keyed data block descriptors, offsets (in-capsule).
    put<uint32_t>(buf, idc::sgls, 1u | (1u << 2) | (1u << 20));
    std::strncpy(reinterpret_cast<char*>(buf + idc::subnqn), opts_.subnqn.c_str(), 255);
    put<uint32_t>(buf, idc::ioccsz, (sizeof(Sqe) + opts_.inline_bytes) / 16);
    put<uint32_t>(buf, idc::iorcsz, sizeof(Cqe) / 16);
    put<uint16_t>(buf, idc::icdoff, 0);
    buf[idc::msdbd] = 1;
}

uint64_t Target::ns_bytes(uint32_t nsid) const
{
    if (nsid == kNsid)
        return ns_.size();
    if (nsid >= 2 && nsid <= opts_.namespaces)
        return ns_.size() / 2;
    return 0;
}

void Target::identify_ns(uint32_t nsid, uint8_t* buf)
{
    if (!ns_bytes(nsid))
        return;  // inactive: all zeroes
    const uint64_t blocks = ns_bytes(nsid) >> block_shift();
    put<uint64_t>(buf, idn::nsze, blocks);
    put<uint64_t>(buf, idn::ncap, blocks);
    put<uint64_t>(buf, idn::nuse, blocks);
    buf[idn::nlbaf] = opts_.formats ? 1 : 0;  // formats, 0's based
    buf[idn::flbas] = bad_.is(Mode::bad_flbas) ? 5 : lbaf_;
    if (resv_ && nsid == kNsid)
        buf[idn::rescap] = resv::rescap(!opts_.resv_state.empty());
    if (opts_.nguid && nsid == kNsid) {
        std::memcpy(buf + idn::nguid, opts_.nguid->data(), 16);
    } else {
        const uint64_t seed = (nsid - 1) * 10;  // nsid 1 keeps its ids
        put_ids(buf + idn::nguid, 16, opts_.subnqn, seed + 1);
        put_ids(buf + idn::eui64, 8, opts_.subnqn, seed + 2);
    }
    uint8_t ds = kBlockShift;
    if (bad_.is(Mode::absurd_lbaf))
        ds = 40;
    else if (bad_.is(Mode::tiny_lbaf))
        ds = 3;
    buf[idn::lbaf0 + 2] = ds;
    if (opts_.formats)
        buf[idn::lbaf0 + 4 + 2] = 12;
}

void Target::format_nvm(Queue& q, uint32_t slot)
{
    const Sqe& c = q.sqe(slot);
    const uint8_t lbaf = c.cdw10 & 0xf;
    if (!opts_.formats) {
        reply(q, slot, kScInvalidOpcode | kScDnr);
        return;
    }
    if (c.nsid != 0xffffffff && !ns_bytes(c.nsid)) {
        reply(q, slot, kScInvalidNs | kScDnr);
        return;
    }
    // No metadata, protection or secure erase: those fields must be 0.
    if (lbaf > 1 || (c.cdw10 & ~0xfu)) {
        reply(q, slot, kScInvalidFormat | kScDnr);
        return;
    }
    // Held: the command stays the host's until its controller goes.
    if (bad_.on_format()) {
        log("misbehave: hold-format: holding cid " + std::to_string(c.cid) + " (#" + std::to_string(bad_.hits()) + ")");
        return;
    }
    lbaf_ = lbaf;
    log("format: LBA format " + std::to_string(lbaf) + " (" + std::to_string(1u << block_shift()) +
        "-byte blocks)");
    reply(q, slot, kScSuccess);
}

void Target::identify(Queue& q, uint32_t slot)
{
    const Sqe& c = q.sqe(slot);
    uint8_t* buf = q.scratch(slot);
    std::memset(buf, 0, kIdentifySize);

    switch (c.cdw10 & 0xff) {
    case kCnsCtrl:
        identify_ctrl(q, buf);
        break;
    case kCnsNs:
        if (c.nsid == 0 || c.nsid == 0xffffffff) {
            reply(q, slot, kScInvalidNs | kScDnr);
            return;
        }
        // Success and no data: the host's buffer keeps what it held.
        if (c.nsid == opts_.namespaces && bad_.on_ns_id()) {
            log("misbehave: ns-id-no-data: nsid " + std::to_string(c.nsid) + " answered without data (#" +
                std::to_string(bad_.hits()) + ")");
            reply(q, slot, kScSuccess);
            return;
        }
        // For the log's reader; a scan of hundreds would only bury the rest.
        if (opts_.namespaces <= 16)
            log("identify-ns: nsid " + std::to_string(c.nsid));
        identify_ns(c.nsid, buf);
        break;
    case kCnsNsActiveList: {
        // A host's scan starts here, with the page from nsid 0: cases
        // count scans by this line (once a scan: the endless list has
        // pages without end).
        if (c.nsid == 0)
            log("identify-active-list: cntlid " + std::to_string(q.cntlid) + " from nsid 0");
        uint32_t n = 0;
        if (endless_ns_list()) {
            // Ascending ids without end: every page is full.
            for (uint64_t id = uint64_t(c.nsid) + 1; n < 1024 && id < kAbsurdNn; id++)
                put<uint32_t>(buf, 4 * n++, uint32_t(id));
        } else {
            for (uint32_t id = c.nsid + 1; n < 1024 && id <= opts_.namespaces; id++)
                put<uint32_t>(buf, 4 * n++, id);
        }
        // Success and no data: the host's buffer keeps what it held.
        if (bad_.on_nsid_list()) {
            log("misbehave: nsid-list-no-data: active list from nsid " + std::to_string(c.nsid) +
                " answered without data (#" + std::to_string(bad_.hits()) + ")");
            reply(q, slot, kScSuccess);
            return;
        }
        break;
    }
    case kCnsNsDescList:
        if (!ns_bytes(c.nsid)) {
            reply(q, slot, kScInvalidNs | kScDnr);
            return;
        }
    {
        uint8_t uuid[16];
        if (opts_.uuid && c.nsid == kNsid) {
            std::memcpy(uuid, opts_.uuid->data(), sizeof(uuid));
        } else {
            put_ids(uuid, sizeof(uuid), opts_.subnqn, (c.nsid - 1) * 10 + 3);
            uuid[6] = uint8_t((uuid[6] & 0x0f) | 0x80);  // RFC 4122 version 8: custom
            uuid[8] = uint8_t((uuid[8] & 0x3f) | 0x80);
        }
        identify_ns(c.nsid, buf + 2048);  // borrow its EUI64 and NGUID
        size_t off = 0;
        if (!opts_.nguid || c.nsid != kNsid)
            off = put_desc(buf, kNidtEui64, buf + 2048 + idn::eui64, 8);
        off += put_desc(buf + off, kNidtNguid, buf + 2048 + idn::nguid, 16);
        put_desc(buf + off, kNidtUuid, uuid, 16);
        std::memset(buf + 2048, 0, kIdentifySize - 2048);
        break;
    }
    default:
        reply(q, slot, kScInvalidField | kScDnr);
        return;
    }
    if (!q.push(slot, buf, q.scratch_lkey(), DataPtr::parse(c), kIdentifySize)) {
        reply(q, slot, kScSglInvalidType | kScDnr);
        return;
    }
    reply(q, slot, kScSuccess);
}

}  // namespace rt
