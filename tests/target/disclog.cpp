// The discovery log page image and --disc-entry parsing (disclog.hpp).
#include "disclog.hpp"

#include <algorithm>
#include <cstring>

#include "wire.hpp"

namespace rt::disc {

namespace {

void put_padded(uint8_t* field, size_t width, const std::string& s, char pad)
{
    std::memset(field, pad, width);
    std::memcpy(field, s.data(), std::min(width, s.size()));
}

void put_entry(uint8_t* e, const Entry& x)
{
    e[e_trtype] = x.trtype;
    e[e_adrfam] = x.adrfam;
    e[e_subtype] = x.subtype;
    e[e_treq] = x.treq;
    put<uint16_t>(e, e_portid, x.portid);
    put<uint16_t>(e, e_cntlid, x.cntlid);
    put<uint16_t>(e, e_asqsz, x.asqsz);
    put_padded(e + e_trsvcid, kTrsvcidLen, x.trsvcid, ' ');
    put_padded(e + e_subnqn, kSubnqnLen, x.subnqn, '\0');
    put_padded(e + e_traddr, kTraddrLen, x.traddr, ' ');
    e[e_qptype] = x.qptype;
    e[e_prtype] = x.prtype;
    e[e_cms] = x.cms;
    put<uint16_t>(e, e_pkey, x.pkey);
}

}  // namespace

std::vector<uint8_t> image(const Log& log)
{
    std::vector<uint8_t> img(kHeaderSize + kEntrySize * log.entries.size(), 0);
    put<uint64_t>(img.data(), hdr_genctr, log.genctr);
    put<uint64_t>(img.data(), hdr_numrec, log.numrec);
    put<uint16_t>(img.data(), hdr_recfmt, 0);
    for (size_t i = 0; i < log.entries.size(); i++)
        put_entry(img.data() + kHeaderSize + kEntrySize * i, log.entries[i]);
    return img;
}

void copy_out(const std::vector<uint8_t>& img, uint64_t offset, uint8_t* dst, size_t len)
{
    std::memset(dst, 0, len);
    if (offset >= img.size())
        return;
    std::memcpy(dst, img.data() + offset, std::min<uint64_t>(len, img.size() - offset));
}

std::optional<Entry> parse_entry(std::string_view spec, std::string& error)
{
    Entry e;
    constexpr std::string_view kReferral = ",referral";
    if (spec.size() > kReferral.size() && spec.substr(spec.size() - kReferral.size()) == kReferral) {
        e.subtype = kSubtypeReferral;
        spec.remove_suffix(kReferral.size());
    }
    const size_t at = spec.rfind('@');
    const size_t colon = spec.rfind(':');
    if (at == std::string_view::npos || colon == std::string_view::npos || colon < at) {
        error = "want SUBNQN@TRADDR:TRSVCID[,referral]";
        return std::nullopt;
    }
    e.subnqn = spec.substr(0, at);
    e.traddr = spec.substr(at + 1, colon - at - 1);
    e.trsvcid = spec.substr(colon + 1);
    if (e.subnqn.empty() || e.traddr.empty() || e.trsvcid.empty()) {
        error = "empty SUBNQN, TRADDR or TRSVCID";
        return std::nullopt;
    }
    if (e.subnqn.size() > kSubnqnLen || e.traddr.size() > kTraddrLen || e.trsvcid.size() > kTrsvcidLen) {
        error = "SUBNQN, TRADDR or TRSVCID longer than its field (256, 256, 32 bytes)";
        return std::nullopt;
    }
    return e;
}

}  // namespace rt::disc
