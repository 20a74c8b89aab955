// rblk_fio_reap_probe: the fio engine's reap (rblk_fio_core.h) against a
// target that answers late (rblk_test_target --reply-delay-ms), for
// bypass_fio_timeout.sh. fio's getevents passes a timeout that the reap
// must honour: zero looks once, a limit returns fewer than `min` once it
// has passed, none waits for `min`. In both the engine's modes (busy
// polling and sleeping), with one read in flight that the target answers
// seconds later: reaps with a zero and a short timeout come back with
// nothing, no error and the read still in flight; a reap with none gets
// the read. Prints one line "ok: ..." or fails with
// "rblk_fio_reap_probe: <reason>".
#include "rblk_fio_core.h"

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>

namespace {

struct GroupFree {
    void operator()(rblk_fio_group* g) const { rblk_fio_group_free(g); }
};
using Group = std::unique_ptr<rblk_fio_group, GroupFree>;

struct Aligned {
    void operator()(void* p) const { std::free(p); }
};

[[noreturn]] void fail(const std::string& why)
{
    std::cerr << "rblk_fio_reap_probe: " << why << "\n";
    std::exit(1);
}

void no_failure(void*, int error) { fail("the read failed: errno " + std::to_string(error)); }

// One read in flight, then the reaps; the cookie comes back once.
void run(const std::string& spec, bool event_mode, long limit_ms)
{
    const std::string mode = event_mode ? "sleeping" : "busy polling";
    char err[256] = "";
    Group g(rblk_fio_group_new(event_mode, 1, err, sizeof(err)));
    if (!g)
        fail(mode + ": group: " + err);
    rblk_fio_queue* q = rblk_fio_open(g.get(), spec.c_str(), 4, err, sizeof(err));
    if (!q)
        fail(mode + ": connect: " + err);
    std::unique_ptr<void, Aligned> buf(std::aligned_alloc(4096, 4096));
    if (!buf)
        fail("no memory");
    if (const int e = rblk_fio_register(g.get(), buf.get(), 4096))  // as fio's buffers are
        fail(mode + ": cannot register the buffer: errno " + std::to_string(e));
    int cookie = 0;
    if (rblk_fio_submit(q, RBLK_FIO_READ, 0, buf.get(), 4096, &cookie, err, sizeof(err)) != 0)
        fail(mode + ": submit: " + err);
    rblk_fio_commit(g.get());
    void* out[4] = {};
    for (const long t : {0L, limit_ms}) {
        err[0] = '\0';
        const int n = rblk_fio_reap_within(g.get(), out, 1, 4, t, no_failure, err, sizeof(err));
        if (n != 0 || err[0])
            fail(mode + ": a reap with a " + std::to_string(t) + " ms timeout returned " + std::to_string(n) +
                 (err[0] ? std::string(": ") + err : std::string()) +
                 " while the target holds the read (is --reply-delay-ms set?)");
    }
    err[0] = '\0';
    const int n = rblk_fio_reap(g.get(), out, 1, 4, no_failure, err, sizeof(err));
    if (n != 1 || out[0] != &cookie)
        fail(mode + ": a reap with no timeout returned " + std::to_string(n) + (err[0] ? std::string(": ") + err : ""));
}

}  // namespace

int main(int argc, char** argv)
{
    CLI::App app{"The fio engine's reap against a late target: its timeouts"};
    std::string spec;
    long limit_ms = 200;
    app.add_option("--spec", spec, "The fio filename (trtype=rdma traddr=... subnqn=... ns=1)")->required();
    app.add_option("--limit-ms", limit_ms, "The short timeout, well under the target's delay")
        ->capture_default_str();
    CLI11_PARSE(app, argc, argv);
    run(spec, false, limit_ms);
    run(spec, true, limit_ms);
    std::cout << "ok: timeouts 0 and " << limit_ms << " ms returned nothing with the read in flight, "
              << "none waited for it; busy polling and sleeping\n";
    return 0;
}
