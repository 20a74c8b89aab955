// Crafted discovery logs for the host tests: libnvme's wire structures,
// filled as a target would (space-padded strings, little-endian fields).
#pragma once

extern "C" {  // libnvme 1.3 headers lack C++ linkage guards
#include <nvme/types.h>
}

#include <endian.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace rblk::test {

class LogBuilder {
public:
    explicit LogBuilder(std::uint64_t genctr) : bytes_(sizeof(nvmf_discovery_log))
    {
        header().genctr = htole64(genctr);
    }

    nvmf_discovery_log& header() { return *reinterpret_cast<nvmf_discovery_log*>(bytes_.data()); }

    // Appends an RDMA "nvme subsystem" entry and counts it in numrec.
    nvmf_disc_log_entry& add_rdma(const std::string& traddr, const std::string& trsvcid,
                                  const std::string& subnqn)
    {
        bytes_.resize(bytes_.size() + sizeof(nvmf_disc_log_entry));
        set_numrec(count_ + 1);
        nvmf_disc_log_entry& e = entry(count_ - 1);
        e.trtype = NVMF_TRTYPE_RDMA;
        e.adrfam = traddr.find(':') != std::string::npos ? NVMF_ADDR_FAMILY_IP6
                                                         : NVMF_ADDR_FAMILY_IP4;
        e.subtype = NVME_NQN_NVME;
        e.treq = NVMF_TREQ_NOT_SPECIFIED;
        e.portid = htole16(1);
        e.cntlid = htole16(0xffff);
        pad(e.trsvcid, sizeof(e.trsvcid), trsvcid);
        pad(e.traddr, sizeof(e.traddr), traddr);
        std::strncpy(e.subnqn, subnqn.c_str(), sizeof(e.subnqn) - 1);
        e.tsas.rdma.qptype = NVMF_RDMA_QPTYPE_CONNECTED;
        e.tsas.rdma.prtype = NVMF_RDMA_PRTYPE_NOT_SPECIFIED;
        e.tsas.rdma.cms = NVMF_RDMA_CMS_RDMA_CM;
        return e;
    }

    nvmf_disc_log_entry& entry(std::size_t i)
    {
        return *reinterpret_cast<nvmf_disc_log_entry*>(bytes_.data() + sizeof(nvmf_discovery_log) +
                                                       i * sizeof(nvmf_disc_log_entry));
    }

    // numrec as the header says, whatever the entries hold.
    void set_numrec(std::uint64_t n)
    {
        count_ = n;
        header().numrec = htole64(n);
    }

    const std::vector<std::uint8_t>& bytes() const { return bytes_; }

private:
    static void pad(char* field, std::size_t size, const std::string& s)
    {
        std::memset(field, ' ', size);
        std::memcpy(field, s.data(), std::min(size, s.size()));
    }

    std::vector<std::uint8_t> bytes_;
    std::uint64_t count_ = 0;
};

}  // namespace rblk::test
