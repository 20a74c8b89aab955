#include "rblk/bench/target.hpp"

#include "rblk/bench/job_io.hpp"
#include "rblk/bench/units.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cerrno>
#include <fstream>
#include <limits>
#include <system_error>

namespace rblk::bench {
namespace {

[[noreturn]] void fail(const std::string& message) { throw OptionError(message); }

[[noreturn]] void fail_errno(int err, const std::string& what)
{
    throw std::system_error(err, std::generic_category(), what);
}

std::string size_of(const Target& t, std::uint64_t bytes)
{
    return t.path + " (" + std::to_string(bytes) + " bytes)";
}

// Without --size the range is what lies past --offset, in whole blocks.
std::uint64_t rest_of(const Target& t, const BenchOptions& o, std::uint64_t bytes)
{
    const std::uint64_t rest = bytes > o.offset ? bytes - o.offset : 0;
    if (o.offset != 0 && rest < o.block_size)
        fail("--offset (" + format_size(o.offset) + ") leaves less than --bs (" +
             format_size(o.block_size) + ") of " + size_of(t, bytes));
    return rest - rest % o.block_size;
}

// A device of `bytes` in blocks of `lbs`: --bs, and --size from --offset, must fit it.
void size_device(Target& t, const BenchOptions& o, std::uint64_t bytes, std::uint32_t lbs)
{
    t.logical_block = lbs;
    if (o.block_size % t.logical_block != 0)
        fail("--bs (" + std::to_string(o.block_size) + ") must be a multiple of " + t.path +
             "'s logical block size (" + std::to_string(t.logical_block) + ")");
    if (o.size && (o.offset > bytes || *o.size > bytes - o.offset))
        fail((o.offset ? "--offset (" + format_size(o.offset) + ") + " : std::string()) + "--size (" +
             format_size(*o.size) + ") exceeds the size of " + size_of(t, bytes));
    t.size = o.size ? *o.size : rest_of(t, o, bytes);
}

void size_block_device(Target& t, const BenchOptions& o, const struct stat& st)
{
    std::uint64_t bytes = 0;
    int lbs = 512;
    if (::ioctl(t.fd.get(), BLKGETSIZE64, &bytes) != 0)
        fail_errno(errno, t.path + ": BLKGETSIZE64");
    if (::ioctl(t.fd.get(), BLKSSZGET, &lbs) != 0)
        fail_errno(errno, t.path + ": BLKSSZGET");
    size_device(t, o, bytes, static_cast<std::uint32_t>(lbs));
    t.io_poll = read_io_poll(major(st.st_rdev), minor(st.st_rdev));
}

void size_file(Target& t, const BenchOptions& o)
{
    struct stat st{};
    if (::fstat(t.fd.get(), &st) != 0)
        fail_errno(errno, t.path + ": fstat");
    auto have = static_cast<std::uint64_t>(st.st_size);
    std::uint64_t end = 0;
    if (o.size && (__builtin_add_overflow(o.offset, *o.size, &end) ||
                   end > static_cast<std::uint64_t>(std::numeric_limits<off_t>::max())))
        fail("--offset (" + format_size(o.offset) + ") + --size (" + format_size(*o.size) +
             ") is beyond the largest file offset");
    if (o.size && end > have) {
        // Allocate for real where the filesystem can, so writes do not measure
        // block allocation; a sparse extension is the fallback.
        int err = ::posix_fallocate(t.fd.get(), static_cast<off_t>(o.offset),
                                    static_cast<off_t>(*o.size));
        if (err != 0 && ::ftruncate(t.fd.get(), static_cast<off_t>(end)) != 0)
            fail_errno(errno, t.path + ": cannot extend to " + format_size(end));
    }
    t.size = o.size ? *o.size : rest_of(t, o, have);
    if (t.size == 0)
        fail(t.path + " is smaller than --bs (" + format_size(o.block_size) + "): give --size");
    t.io_poll = read_io_poll(major(st.st_dev), minor(st.st_dev));
    t.poll_device = std::to_string(major(st.st_dev)) + ":" + std::to_string(minor(st.st_dev));
}

}  // namespace

std::optional<bool> read_io_poll(unsigned maj, unsigned min)
{
    const std::string dev = "/sys/dev/block/" + std::to_string(maj) + ":" + std::to_string(min);
    // A partition has no queue/ of its own: its disk's is one level up.
    for (const char* rel : {"/queue/io_poll", "/../queue/io_poll"}) {
        std::ifstream in(dev + rel);
        char c;
        if (in >> c)
            return c == '1';
    }
    return std::nullopt;
}

std::string no_poll_queues_message(const std::string& path, const std::string& device)
{
    const std::string what = device.empty() ? path : path + "'s device (" + device + ")";
    return "--hipri: " + what +
           " has no poll queues (queue/io_poll is 0), so completions cannot be polled; "
           "drop --hipri or give the driver poll queues (e.g. nvme.poll_queues=N)";
}

Target open_target(const BenchOptions& o)
{
    Target t;
    t.path = o.filename;
    struct stat st{};
    int flags = O_CLOEXEC | (mode_writes(o.mode) ? O_RDWR : O_RDONLY);
    if (::stat(o.filename.c_str(), &st) != 0) {
        if (errno != ENOENT)
            fail_errno(errno, o.filename);
        if (!o.size)
            fail(o.filename + " does not exist: give --size to create it");
        flags = O_CLOEXEC | O_RDWR | O_CREAT | O_EXCL;
        t.created = true;
    } else if (S_ISBLK(st.st_mode)) {
        t.block_device = true;
        // O_EXCL on a block device fails while it is mounted or held (md,
        // dm): a write benchmark must not destroy a live filesystem.
        if (mode_writes(o.mode))
            flags |= O_EXCL;
    } else if (!S_ISREG(st.st_mode)) {
        fail(o.filename + " is neither a block device nor a regular file");
    }

    t.direct = t.block_device || o.direct;
    if (o.hipri && !t.direct)
        fail("--hipri needs O_DIRECT: add --direct, or use a block device");
    if (t.direct)
        flags |= O_DIRECT;

    t.fd = UniqueFd(::open(o.filename.c_str(), flags, 0644));
    if (!t.fd) {
        if (errno == EINVAL && t.direct && !t.block_device)
            fail(o.filename + ": the filesystem does not support O_DIRECT (drop --direct)");
        if (errno == EBUSY && t.block_device)
            fail(o.filename + " is in use (mounted, or held by another driver): "
                              "refusing to write to it");
        fail_errno(errno, "open " + o.filename);
    }

    if (t.block_device)
        size_block_device(t, o, st);
    else
        size_file(t, o);
    if (o.hipri && t.io_poll == false)
        fail(no_poll_queues_message(o.filename, t.poll_device));
    return t;
}

Target external_target(const BenchOptions& o, const ExternalTarget& ext)
{
    Target t;
    t.path = ext.path;
    t.block_device = true;  // sized and checked as one; no page cache either way
    size_device(t, o, ext.bytes, ext.logical_block);
    if (t.size == 0)
        fail(t.path + " is smaller than --bs (" + format_size(o.block_size) + ")");
    return t;
}

}  // namespace rblk::bench
