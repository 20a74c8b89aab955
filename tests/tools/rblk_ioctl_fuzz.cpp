// rblk_ioctl_fuzz: a test tool for the VM suite. Sends seeded random NVMe
// ioctls (<linux/nvme_ioctl.h>) to an rblk controller's character device
// and one of its namespace disks: random opcodes, lengths, flags, nsids,
// and buffers that are valid, NULL, unmapped, PROT_NONE, read-only, too
// short or kernel addresses. The fds are opened as root; with
// --unprivileged the process then drops to nobody (uid/gid 65534, no
// capabilities) and every command must be refused with EACCES.
//
// Each answer is checked against what the module must say before the
// command reaches the target (EINVAL for flags, metadata, a foreign nsid,
// reserved opcodes and lengths beyond the limit; EFAULT for bad buffers;
// ENOTTY for unknown ioctls); past those, any NVMe status (> 0) is fine.
// Prints one summary line; exit 0 when every answer was allowed, 1 when
// one was not (each printed), 2 on local errors.
//
//   rblk_ioctl_fuzz --ctrl /dev/rblk0 --ns /dev/rblk0n1 --nsid 1
//                   --max-bytes N [--seed N] [--count N] [--unprivileged]
#include <CLI/CLI.hpp>

#include <linux/nvme_ioctl.h>

#include <fcntl.h>
#include <grp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <string>

namespace {

constexpr std::uint8_t kFabrics = 0x7f;
constexpr std::uint8_t kAdminAer = 0x0c;
constexpr std::uint8_t kAdminSetFeatures = 0x09;
constexpr std::size_t kPage = 4096;

struct Options {
    std::string ctrl;
    std::string ns;
    std::uint32_t nsid = 1;
    std::uint64_t max_bytes = 0;
    std::uint64_t seed = 1;
    unsigned count = 1000;
    bool unprivileged = false;
};

// An fd closed when it goes out of scope.
class Fd {
public:
    explicit Fd(const std::string& path) : fd_(::open(path.c_str(), O_RDWR))
    {
        if (fd_ < 0)
            throw std::runtime_error("open " + path + ": " + std::strerror(errno));
    }
    ~Fd() { ::close(fd_); }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    int get() const { return fd_; }

private:
    int fd_;
};

// A mapping unmapped when it goes out of scope.
class Map {
public:
    Map(std::size_t len, int prot) : len_(len)
    {
        p_ = ::mmap(nullptr, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p_ == MAP_FAILED)
            throw std::runtime_error(std::string("mmap: ") + std::strerror(errno));
    }
    ~Map() { ::munmap(p_, len_); }
    Map(const Map&) = delete;
    Map& operator=(const Map&) = delete;
    std::uint8_t* data() const { return static_cast<std::uint8_t*>(p_); }
    std::size_t size() const { return len_; }

private:
    void* p_;
    std::size_t len_;
};

enum class Buf { Good, Null, Unmapped, ProtNone, ReadOnly, Short, Kernel, Misaligned };

const char* buf_name(Buf b)
{
    switch (b) {
    case Buf::Good: return "good";
    case Buf::Null: return "null";
    case Buf::Unmapped: return "unmapped";
    case Buf::ProtNone: return "prot_none";
    case Buf::ReadOnly: return "read_only";
    case Buf::Short: return "short";
    case Buf::Kernel: return "kernel";
    default: return "misaligned";
    }
}

// The buffers: one big read-write area ending at a PROT_NONE guard page
// (a "short" buffer runs into it), a PROT_NONE one, a read-only one, and
// an address range that was unmapped.
class Buffers {
public:
    explicit Buffers(std::size_t max)
        : rw_(max + 2 * kPage, PROT_READ | PROT_WRITE), none_(kPage, PROT_NONE),
          ro_(max + kPage, PROT_READ)
    {
        if (::mprotect(rw_.data() + rw_.size() - kPage, kPage, PROT_NONE))
            throw std::runtime_error(std::string("mprotect: ") + std::strerror(errno));
        Map gone(kPage, PROT_READ);
        unmapped_ = reinterpret_cast<std::uintptr_t>(gone.data());
    }

    std::uint64_t address(Buf b, std::uint64_t len) const
    {
        const std::uintptr_t guard =
            reinterpret_cast<std::uintptr_t>(rw_.data()) + rw_.size() - kPage;
        switch (b) {
        case Buf::Good: return reinterpret_cast<std::uintptr_t>(rw_.data());
        case Buf::Null: return 0;
        case Buf::Unmapped: return unmapped_;
        case Buf::ProtNone: return reinterpret_cast<std::uintptr_t>(none_.data());
        case Buf::ReadOnly: return reinterpret_cast<std::uintptr_t>(ro_.data());
        // Half of it in the guard page (a zero length stays a zero length).
        case Buf::Short: return guard - len / 2;
        case Buf::Kernel: return 0xffff888000000000ull;
        default: return reinterpret_cast<std::uintptr_t>(rw_.data()) + 1;
        }
    }

private:
    Map rw_;
    Map none_;
    Map ro_;
    std::uintptr_t unmapped_ = 0;
};

enum class Kind { Admin, Admin64, Io, Io64, ChrIo, SubmitIo, Id, ChrId, Rescan, Unknown };

const char* kind_name(Kind k)
{
    switch (k) {
    case Kind::Admin: return "admin";
    case Kind::Admin64: return "admin64";
    case Kind::Io: return "io";
    case Kind::Io64: return "io64";
    case Kind::ChrIo: return "chr_io";
    case Kind::SubmitIo: return "submit_io";
    case Kind::Id: return "id";
    case Kind::ChrId: return "chr_id";
    case Kind::Rescan: return "rescan";
    default: return "unknown";
    }
}

// One request and what may come back: the errno it must get (0: none
// decided before the target), whether EFAULT is a fair answer, and
// whether success is impossible (the buffer cannot take the transfer).
struct Case {
    Kind kind = Kind::Admin;
    nvme_passthru_cmd64 cmd{};
    nvme_user_io io{};
    Buf buf = Buf::Good;
    int must_errno = 0;
    bool may_fault = false;
    bool must_not_succeed = false;
    unsigned long unknown_nr = 0;
};

// What a buffer of @len bytes at @b means for a transfer in direction
// @to_device. A NULL one is not mapped at all (as in nvme): the command
// goes without data, and the target decides.
void classify(Case& c, std::uint64_t len, bool to_device)
{
    if (!len)
        return;
    switch (c.buf) {
    case Buf::Unmapped:
    case Buf::ProtNone:
    case Buf::Kernel:
    case Buf::Short:
        c.may_fault = c.must_not_succeed = true;
        break;
    case Buf::ReadOnly:
        c.may_fault = c.must_not_succeed = !to_device;
        break;
    default:
        break;
    }
}

class Fuzzer {
public:
    explicit Fuzzer(const Options& o) : o_(o), rng_(o.seed), bufs_(o.max_bytes + kPage) {}

    int run(int ctrl_fd, int ns_fd)
    {
        for (unsigned i = 0; i < o_.count; ++i) {
            Case c = make();
            check(i, c, send(c, ctrl_fd, ns_fd));
        }
        std::cout << "ioctls " << o_.count << (o_.unprivileged ? " unprivileged" : " root")
                  << " failures " << failures_ << ":";
        for (const auto& [name, n] : outcomes_)
            std::cout << ' ' << name << '=' << n;
        std::cout << '\n';
        return failures_ ? 1 : 0;
    }

private:
    unsigned pick(unsigned n) { return std::uniform_int_distribution<unsigned>(0, n - 1)(rng_); }
    bool chance(unsigned percent) { return pick(100) < percent; }

    std::uint32_t length()
    {
        const std::uint64_t m = o_.max_bytes;
        const std::array<std::uint64_t, 14> pool = {
            0, 1, 64, 511, 512, 4096, 4097, 8192, 65536, m - 1, m, m + 1, 1ull << 24, 0xffffffff};
        if (chance(85))
            return static_cast<std::uint32_t>(pool[pick(pool.size())]);
        return static_cast<std::uint32_t>(pick(static_cast<unsigned>(m + m / 4) + 1));
    }

    Buf buffer()
    {
        if (chance(55))
            return Buf::Good;
        return static_cast<Buf>(1 + pick(7));
    }

    // Admin opcodes: the ones nvme-cli sends, then anything; never Set
    // Features, whose keep-alive or queue settings would reset the test.
    std::uint8_t admin_opcode()
    {
        static constexpr std::array<std::uint8_t, 8> common = {0x06, 0x02, 0x0a, 0x18,
                                                               0x08, kAdminAer, kFabrics, 0x80};
        std::uint8_t op = chance(60) ? common[pick(common.size())]
                                     : static_cast<std::uint8_t>(pick(256));
        return op == kAdminSetFeatures ? 0x06 : op;
    }

    std::uint8_t io_opcode()
    {
        static constexpr std::array<std::uint8_t, 7> common = {0x02, 0x01, 0x00, 0x05,
                                                               0x08, 0x09, kFabrics};
        return chance(70) ? common[pick(common.size())] : static_cast<std::uint8_t>(pick(256));
    }

    Case make()
    {
        static constexpr std::array<Kind, 16> kinds = {
            Kind::Admin,  Kind::Admin,    Kind::Admin64, Kind::Admin64, Kind::Io,
            Kind::Io,     Kind::Io64,     Kind::Io64,    Kind::ChrIo,   Kind::SubmitIo,
            Kind::SubmitIo, Kind::Id,     Kind::ChrId,   Kind::Unknown, Kind::Admin,
            Kind::Rescan};
        Case c;
        c.kind = kinds[pick(kinds.size())];
        if (c.kind == Kind::Rescan && !chance(20))
            c.kind = Kind::Id;
        c.buf = buffer();
        if (c.kind == Kind::SubmitIo)
            make_submit_io(c);
        else if (c.kind == Kind::Unknown)
            c.unknown_nr = 0x50 + pick(0x40);
        else if (c.kind != Kind::Id && c.kind != Kind::ChrId && c.kind != Kind::Rescan)
            make_passthru(c);
        if (o_.unprivileged && c.kind != Kind::Id && c.kind != Kind::ChrId &&
            c.kind != Kind::Unknown) {
            c.must_errno = EACCES;
            c.may_fault = c.must_not_succeed = false;
        }
        return c;
    }

    void make_passthru(Case& c)
    {
        const bool admin = c.kind == Kind::Admin || c.kind == Kind::Admin64;
        nvme_passthru_cmd64& p = c.cmd;
        p.opcode = admin ? admin_opcode() : io_opcode();
        p.nsid = admin ? (chance(50) ? 0xffffffff : pick(3)) : (chance(85) ? o_.nsid : pick(5));
        p.flags = chance(5) ? static_cast<std::uint8_t>(1 + pick(255)) : 0;
        if (chance(5)) {
            p.metadata_len = 1 + pick(4096);
            p.metadata = bufs_.address(Buf::Good, 0);
        }
        p.data_len = length();
        p.addr = bufs_.address(c.buf, p.data_len);
        // Identify wants 4 KiB, Get Log Page a dword count: keep it sane.
        if (p.opcode == 0x06 && chance(70)) {
            p.data_len = 4096;
            p.addr = bufs_.address(c.buf, p.data_len);
            p.cdw10 = pick(4) == 0 ? pick(256) : pick(4);
        } else if (p.opcode == 0x02) {
            p.cdw10 = (pick(256) & 0xff) | ((p.data_len / 4 - 1) << 16);
        } else {
            p.cdw10 = static_cast<std::uint32_t>(rng_());
        }
        p.cdw11 = chance(50) ? 0 : static_cast<std::uint32_t>(rng_());
        // Reads and writes near the start, a few blocks long.
        p.cdw12 = chance(70) ? pick(8) : static_cast<std::uint32_t>(rng_());
        p.timeout_ms = 0;  // a short one would reset the controller

        const bool ns_fd = c.kind == Kind::Io || c.kind == Kind::Io64 || c.kind == Kind::ChrIo;
        if (p.flags || p.metadata_len)
            c.must_errno = EINVAL;
        else if (p.opcode == kFabrics || (admin && p.opcode == kAdminAer))
            c.must_errno = EINVAL;
        else if (ns_fd && p.nsid != o_.nsid)
            c.must_errno = EINVAL;
        else if (p.data_len > o_.max_bytes)
            c.must_errno = EINVAL;
        else
            classify(c, p.data_len, p.opcode & 1);
    }

    void make_submit_io(Case& c)
    {
        static constexpr std::array<std::uint8_t, 5> ops = {0x02, 0x01, 0x05, 0x00, 0x09};
        nvme_user_io& io = c.io;
        io.opcode = ops[pick(ops.size())];
        io.flags = chance(5) ? 1 : 0;
        io.nblocks = static_cast<std::uint16_t>(chance(80) ? pick(16) : pick(65536));
        io.slba = chance(80) ? pick(64) : rng_();
        const std::uint64_t len = (static_cast<std::uint64_t>(io.nblocks) + 1) * 512;
        io.addr = bufs_.address(c.buf, len);
        if (io.flags || (io.opcode != 0x01 && io.opcode != 0x02 && io.opcode != 0x05))
            c.must_errno = EINVAL;
        else if (len > o_.max_bytes)
            c.must_errno = EINVAL;
        else
            classify(c, len, io.opcode & 1);
    }

    // The ioctl's return value, or -errno.
    long send(Case& c, int ctrl_fd, int ns_fd)
    {
        long r;
        switch (c.kind) {
        case Kind::Admin:
        case Kind::Io:
        case Kind::ChrIo: {
            nvme_passthru_cmd p{};
            p.opcode = c.cmd.opcode;
            p.flags = c.cmd.flags;
            p.nsid = c.cmd.nsid;
            p.metadata = c.cmd.metadata;
            p.addr = c.cmd.addr;
            p.metadata_len = c.cmd.metadata_len;
            p.data_len = c.cmd.data_len;
            p.cdw10 = c.cmd.cdw10;
            p.cdw11 = c.cmd.cdw11;
            p.cdw12 = c.cmd.cdw12;
            p.timeout_ms = c.cmd.timeout_ms;
            const unsigned long nr =
                c.kind == Kind::Admin ? NVME_IOCTL_ADMIN_CMD : NVME_IOCTL_IO_CMD;
            // Admin commands through either node: both must answer alike.
            const int fd = c.kind == Kind::ChrIo ? ctrl_fd
                           : c.kind == Kind::Io  ? ns_fd
                                                 : (chance(50) ? ctrl_fd : ns_fd);
            r = ::ioctl(fd, nr, &p);
            break;
        }
        case Kind::Admin64:
            r = ::ioctl(chance(50) ? ctrl_fd : ns_fd, NVME_IOCTL_ADMIN64_CMD, &c.cmd);
            break;
        case Kind::Io64:
            r = ::ioctl(chance(70) ? ns_fd : ctrl_fd, NVME_IOCTL_IO64_CMD, &c.cmd);
            break;
        case Kind::SubmitIo:
            r = ::ioctl(ns_fd, NVME_IOCTL_SUBMIT_IO, &c.io);
            break;
        case Kind::Id:
            r = ::ioctl(ns_fd, NVME_IOCTL_ID);
            break;
        case Kind::ChrId:
            r = ::ioctl(ctrl_fd, NVME_IOCTL_ID);
            break;
        case Kind::Rescan:
            r = ::ioctl(ctrl_fd, NVME_IOCTL_RESCAN);
            break;
        default:
            r = ::ioctl(chance(50) ? ctrl_fd : ns_fd, _IO('N', c.unknown_nr));
            break;
        }
        return r < 0 ? -errno : r;
    }

    void check(unsigned i, const Case& c, long r)
    {
        const bool id = c.kind == Kind::Id || c.kind == Kind::ChrId;
        const char* name = r < 0 ? strerrorname_np(static_cast<int>(-r)) : nullptr;
        const std::string outcome = r < 0 ? (name ? name : "E?") : id ? "nsid" : r ? "status" : "ok";
        ++outcomes_[outcome];
        std::string why;
        if (id) {
            if (r != o_.nsid)
                why = "NVME_IOCTL_ID returned " + std::to_string(r);
        } else if (c.kind == Kind::Unknown) {
            if (r != -ENOTTY)
                why = "an unknown ioctl must get ENOTTY";
        } else if (c.must_errno) {
            if (r != -c.must_errno)
                why = std::string("expected ") + strerrorname_np(c.must_errno);
        } else if (r == 0 && c.must_not_succeed) {
            why = "a bad buffer succeeded";
        } else if (r < 0) {
            static const std::set<long> allowed = {-EFAULT, -EIO, -ENOMEM, -EINTR, -EAGAIN,
                                                   -EWOULDBLOCK, -ENOLINK, -ETIMEDOUT};
            if (!allowed.count(r) || (r == -EFAULT && !c.may_fault))
                why = "errno not allowed here";
        }
        if (why.empty())
            return;
        ++failures_;
        std::cout << "FAIL #" << i << ' ' << kind_name(c.kind) << " opcode=0x" << std::hex
                  << static_cast<unsigned>(c.kind == Kind::SubmitIo ? c.io.opcode : c.cmd.opcode)
                  << std::dec << " nsid=" << c.cmd.nsid << " len=" << c.cmd.data_len
                  << " flags=" << static_cast<unsigned>(c.cmd.flags)
                  << " meta=" << c.cmd.metadata_len << " buf=" << buf_name(c.buf) << ": got "
                  << outcome << " (" << r << "): " << why << '\n';
    }

    const Options& o_;
    std::mt19937_64 rng_;
    Buffers bufs_;
    std::map<std::string, unsigned> outcomes_;
    unsigned failures_ = 0;
};

// nobody, with no capabilities left (a uid change from 0 clears them).
void drop_privileges()
{
    if (::setgroups(0, nullptr) || ::setresgid(65534, 65534, 65534) ||
        ::setresuid(65534, 65534, 65534))
        throw std::runtime_error(std::string("dropping privileges: ") + std::strerror(errno));
}

}  // namespace

int main(int argc, char** argv)
{
    Options o;
    CLI::App app{"Random NVMe ioctls to an rblk controller and namespace"};
    app.add_option("--ctrl", o.ctrl, "Controller character device")->required();
    app.add_option("--ns", o.ns, "Namespace block device")->required();
    app.add_option("--nsid", o.nsid, "Its namespace id")->required();
    app.add_option("--max-bytes", o.max_bytes, "The largest transfer (max_hw_sectors_kb)")
        ->required()
        ->check(CLI::Range(std::uint64_t{4096}, std::uint64_t{1} << 30));
    app.add_option("--seed", o.seed, "Random seed");
    app.add_option("--count", o.count, "Number of ioctls");
    app.add_flag("--unprivileged", o.unprivileged, "Drop to nobody after opening the devices");
    CLI11_PARSE(app, argc, argv);
    try {
        Fd ctrl(o.ctrl);
        Fd ns(o.ns);
        if (o.unprivileged)
            drop_privileges();
        Fuzzer f(o);
        return f.run(ctrl.get(), ns.get());
    } catch (const std::exception& e) {
        std::cerr << "rblk_ioctl_fuzz: " << e.what() << '\n';
        return 2;
    }
}
