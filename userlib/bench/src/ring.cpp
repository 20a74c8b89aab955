#include "rblk/bench/ring.hpp"

#include <cerrno>
#include <string>
#include <system_error>
#include <vector>

namespace rblk::bench {
namespace {

[[noreturn]] void fail(int negative_errno, const std::string& what)
{
    throw std::system_error(-negative_errno, std::generic_category(), what);
}

}  // namespace

Ring::Ring(const RingConfig& config)
{
    const unsigned base = config.iopoll ? IORING_SETUP_IOPOLL : 0;
    // Most preferred first; EINVAL means "this kernel does not know a flag".
    // SQPOLL has its own submitter thread, so the single-issuer flags do not apply.
    const std::vector<unsigned> candidates =
        config.sqpoll ? std::vector<unsigned>{base | IORING_SETUP_SQPOLL}
                      : std::vector<unsigned>{
                            base | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
                            base | IORING_SETUP_COOP_TASKRUN, base};
    int ret = -EINVAL;
    for (unsigned flags : candidates) {
        io_uring_params p{};
        p.flags = flags;
        p.sq_thread_idle = 100;  // ms the SQ thread spins before sleeping
        ret = io_uring_queue_init_params(config.entries, &ring_, &p);
        if (ret != -EINVAL)
            break;
    }
    if (ret < 0)
        fail(ret, std::string("io_uring setup") + (config.sqpoll ? " with --sqpoll" : "") +
                      (config.iopoll ? " with --hipri" : ""));
    // Saves an fd lookup per io_uring_enter; harmless where unsupported.
    (void)io_uring_register_ring_fd(&ring_);
}

Ring::~Ring() { io_uring_queue_exit(&ring_); }

void Ring::register_file(int fd)
{
    if (int ret = io_uring_register_files(&ring_, &fd, 1); ret < 0)
        fail(ret, "io_uring: registering the target file");
}

void Ring::register_buffers(std::span<const iovec> buffers)
{
    int ret = io_uring_register_buffers(&ring_, buffers.data(),
                                        static_cast<unsigned>(buffers.size()));
    if (ret == -ENOMEM)
        fail(ret, "io_uring: registering I/O buffers (raise the locked-memory limit, ulimit -l)");
    if (ret < 0)
        fail(ret, "io_uring: registering I/O buffers");
}

}  // namespace rblk::bench
