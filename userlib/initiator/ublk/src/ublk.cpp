// The ublk protocol of a block server; see ublk.hpp.
#include "rblk/bypass/ublk.hpp"

#include "rblk/bypass/status.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

namespace rblk::bypass {

namespace {

std::size_t page_size() { return static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)); }

std::size_t round_up(std::size_t v, std::size_t to) { return (v + to - 1) / to * to; }

static_assert(sizeof(ublksrv_ctrl_cmd) <= 80);

bool file_mentions(const std::string& path, const std::string& word)
{
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);)
        if (line.find(word) != std::string::npos)
            return true;
    return false;
}

}  // namespace

std::uint32_t ublk_ctrl_op(std::uint32_t nr, bool ioctl_encode)
{
    if (!ioctl_encode)
        return nr;
    // As the uapi encodes them: the queries _IOR, the rest _IOWR (the
    // driver matches GET_FEATURES on the whole opcode).
    switch (nr) {
    case UBLK_CMD_GET_QUEUE_AFFINITY:
    case UBLK_CMD_GET_DEV_INFO:
    case UBLK_CMD_GET_PARAMS:
    case 0x12:  // GET_DEV_INFO2
    case 0x13:  // GET_FEATURES
        return static_cast<std::uint32_t>(_IOR('u', nr, struct ublksrv_ctrl_cmd));
    default:
        return static_cast<std::uint32_t>(_IOWR('u', nr, struct ublksrv_ctrl_cmd));
    }
}

std::uint32_t ublk_io_op(std::uint32_t nr, bool ioctl_encode)
{
    return ioctl_encode ? static_cast<std::uint32_t>(_IOWR('u', nr, struct ublksrv_io_cmd)) : nr;
}

UblkCaps ublk_caps(const ControllerInfo& c)
{
    return {c.has_dsm(), c.has_write_zeroes()};
}

ublk_params ublk_device_params(const NamespaceInfo& ns, bool volatile_cache, const UblkCaps& caps,
                               std::uint32_t max_io_bytes)
{
    ublk_params p{};
    p.len = sizeof(p);
    p.types = UBLK_PARAM_TYPE_BASIC;
    const auto shift = static_cast<std::uint8_t>(ns.lba_shift);
    p.basic.attrs = volatile_cache ? UBLK_ATTR_VOLATILE_CACHE : 0;
    p.basic.logical_bs_shift = shift;
    p.basic.physical_bs_shift = shift;
    p.basic.io_min_shift = shift;
    p.basic.io_opt_shift = shift;
    p.basic.max_sectors = max_io_bytes >> 9;
    p.basic.dev_sectors = ns.size_bytes() >> 9;
    if (caps.discard || caps.write_zeroes) {
        p.types |= UBLK_PARAM_TYPE_DISCARD;
        const std::uint32_t sector_shift = ns.lba_shift - 9;
        if (caps.discard) {
            // One range per command (the driver takes a single segment).
            p.discard.discard_granularity = ns.lba_size();
            p.discard.max_discard_sectors = (0xffffffffu >> sector_shift) << sector_shift;
            p.discard.max_discard_segments = 1;
        }
        if (caps.write_zeroes)
            p.discard.max_write_zeroes_sectors =
                static_cast<std::uint32_t>(kWriteZeroesMaxBlocks << sector_shift);
    }
    return p;
}

std::string ublk_missing_reason(const std::string& control_path, const std::string& modules_dir)
{
    if (::access(control_path.c_str(), F_OK) == 0)
        return {};
    if (file_mentions(modules_dir + "/modules.dep", "/ublk_drv.ko"))
        return "the ublk driver is not loaded (modprobe ublk_drv): the bypass server needs it";
    if (file_mentions(modules_dir + "/modules.builtin", "/ublk_drv.ko"))
        return control_path + " is missing although ublk is built in (no devtmpfs?)";
    return "this kernel has no ublk driver (CONFIG_BLK_DEV_UBLK): the bypass server needs it";
}

Ring::Ring(unsigned entries, unsigned flags, const char* what)
{
    if (const int r = io_uring_queue_init(entries, &ring_, flags); r < 0)
        throw Error(std::string("cannot set up the io_uring of ") + what + ": " + std::strerror(-r));
}

UblkControl::UblkControl(const std::string& path)
    : ring_(16, IORING_SETUP_SQE128, "the ublk control device")
{
    fd_ = UniqueFd(::open(path.c_str(), O_RDWR | O_CLOEXEC));
    if (!fd_) {
        const int err = errno;
        std::string release;
        std::ifstream("/proc/sys/kernel/osrelease") >> release;
        const std::string why = ublk_missing_reason(path, "/lib/modules/" + release);
        throw Error(!why.empty() ? why : "cannot open " + path + ": " + std::strerror(err));
    }
    // GET_FEATURES exists since Linux 6.5, ioctl-encoded only; an older
    // driver refuses it and takes the legacy opcodes.
    std::uint64_t features = 0;
    encode_ = true;
    if (command(0x13, UINT32_MAX, &features, sizeof(features), 0) == 0) {
        features_ = features;
        encode_ = (features & UBLK_F_CMD_IOCTL_ENCODE) != 0;
    } else {
        encode_ = false;
    }
}

int UblkControl::command(std::uint32_t nr, std::uint32_t dev_id, void* buf, std::uint16_t len,
                         std::uint64_t data0)
{
    io_uring_sqe* sqe = io_uring_get_sqe(ring_.get());
    if (!sqe)
        return -EBUSY;
    ublk_prep_uring_cmd(sqe, fd_.get(), ublk_ctrl_op(nr, encode_));
    // The 128-byte SQE: 80 bytes of command from sqe->cmd.
    std::memset(sqe->cmd, 0, 80);
    ublksrv_ctrl_cmd c{};
    c.dev_id = dev_id;
    c.queue_id = 0xffff;
    c.addr = reinterpret_cast<std::uintptr_t>(buf);
    c.len = len;
    c.data[0] = data0;
    std::memcpy(sqe->cmd, &c, sizeof(c));
    if (const int r = io_uring_submit(ring_.get()); r < 0)
        return r;
    io_uring_cqe* cqe = nullptr;
    int r;
    do
        r = io_uring_wait_cqe(ring_.get(), &cqe);
    while (r == -EINTR);
    if (r < 0)
        return r;
    const int res = cqe->res;
    io_uring_cqe_seen(ring_.get(), cqe);
    return res < 0 ? res : 0;
}

int UblkControl::add_dev(ublksrv_ctrl_dev_info& info)
{
    if (encode_)
        info.flags |= UBLK_F_CMD_IOCTL_ENCODE;
    // Without _REISSUE the requests a dying server held would fail; with
    // it they go to the next server: a read or write sent twice is no harm.
    if (recovery())
        info.flags |= UBLK_F_USER_RECOVERY | UBLK_F_USER_RECOVERY_REISSUE;
    return command(UBLK_CMD_ADD_DEV, info.dev_id, &info, sizeof(info), 0);
}

int UblkControl::set_params(std::uint32_t dev_id, const ublk_params& p)
{
    ublk_params copy = p;
    return command(UBLK_CMD_SET_PARAMS, dev_id, &copy, sizeof(copy), 0);
}

int UblkControl::start_dev(std::uint32_t dev_id, int server_pid)
{
    return command(UBLK_CMD_START_DEV, dev_id, nullptr, 0, static_cast<std::uint64_t>(server_pid));
}

int UblkControl::stop_dev(std::uint32_t dev_id) { return command(UBLK_CMD_STOP_DEV, dev_id, nullptr, 0, 0); }

int UblkControl::del_dev(std::uint32_t dev_id) { return command(UBLK_CMD_DEL_DEV, dev_id, nullptr, 0, 0); }

int UblkControl::get_dev_info(std::uint32_t dev_id, ublksrv_ctrl_dev_info& info)
{
    return command(UBLK_CMD_GET_DEV_INFO, dev_id, &info, sizeof(info), 0);
}

int UblkControl::get_queue_affinity(std::uint32_t dev_id, std::uint16_t qid, cpu_set_t& cpus)
{
    CPU_ZERO(&cpus);
    return command(UBLK_CMD_GET_QUEUE_AFFINITY, dev_id, &cpus, sizeof(cpus), qid);
}

int UblkControl::start_recovery(std::uint32_t dev_id)
{
    return command(UBLK_CMD_START_USER_RECOVERY, dev_id, nullptr, 0, 0);
}

int UblkControl::end_recovery(std::uint32_t dev_id, int server_pid)
{
    return command(UBLK_CMD_END_USER_RECOVERY, dev_id, nullptr, 0, static_cast<std::uint64_t>(server_pid));
}

UblkQueue::UblkQueue(io_uring* ring, int char_fd, std::uint16_t qid, std::uint16_t depth, bool ioctl_encode,
                     std::uint64_t ud_base)
    : fd_(char_fd),
      qid_(qid),
      depth_(depth),
      fetch_op_(ublk_io_op(UBLK_IO_FETCH_REQ, ioctl_encode)),
      commit_op_(ublk_io_op(UBLK_IO_COMMIT_AND_FETCH_REQ, ioctl_encode)),
      ring_(ring),
      ud_base_(ud_base)
{
    // Each queue's descriptors start at a page-rounded slot of the
    // driver's largest depth (ublksrv's ublk_queue_max_cmd_buf_sz()).
    const std::size_t pg = page_size();
    const std::size_t slot = round_up(UBLK_MAX_QUEUE_DEPTH * sizeof(ublksrv_io_desc), pg);
    map_len_ = round_up(depth * sizeof(ublksrv_io_desc), pg);
    void* p = ::mmap(nullptr, map_len_, PROT_READ, MAP_SHARED | MAP_POPULATE, fd_,
                     static_cast<off_t>(UBLKSRV_CMD_BUF_OFFSET + qid * slot));
    if (p == MAP_FAILED)
        throw Error("cannot map the descriptors of ublk queue " + std::to_string(qid) + ": " +
                    std::strerror(errno));
    iods_ = static_cast<const ublksrv_io_desc*>(p);
}

UblkQueue::~UblkQueue()
{
    if (iods_)
        ::munmap(const_cast<ublksrv_io_desc*>(iods_), map_len_);
}

}  // namespace rblk::bypass
