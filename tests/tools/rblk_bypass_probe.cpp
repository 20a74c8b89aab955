// rblk_bypass_probe: librblk_bypass's asynchronous API as an application
// uses it, for the VM suite (tests/vm/cases/bypass_crosscheck.sh): one
// controller, one I/O queue driven by this thread, many commands in flight
// at once, completions by busy polling and by sleeping on the completion
// channel, and the commands rblkctl read/write do not send: write zeroes,
// deallocate (DSM) and flush. It writes a region of the namespace and saves
// what the region must now hold to --expect, for the case to compare with
// what the kernel's initiators read. Prints one line "ok: ..." or fails
// with "rblk_bypass_probe: <reason>".
#include <rblk/bypass/controller.hpp>
#include <rblk/host_identity.hpp>

#include <CLI/CLI.hpp>

#include <cstring>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <vector>

namespace bp = rblk::bypass;

namespace {

constexpr std::size_t kSmall = 4096;       // in-capsule writes
constexpr std::size_t kSmallCount = 16;
constexpr std::size_t kLarge = 64 * 1024;  // keyed, from the pool
constexpr std::size_t kLargeCount = 4;
constexpr std::size_t kRegion = kSmall * kSmallCount + kLarge * kLargeCount;  // 320 KiB

[[noreturn]] void fail(const std::string& why) { throw std::runtime_error(why); }

// Waits for `n` completions, all successful; `event`: sleep between them.
void reap(bp::IoQueue& q, std::size_t n, bool event)
{
    std::vector<bp::IoCompletion> c(q.depth());
    while (n > 0) {
        const std::size_t got = event ? q.wait(c, std::chrono::seconds(5)) : q.poll(c);
        for (std::size_t i = 0; i < got; ++i)
            if (!c[i].status.ok())
                fail("command " + std::to_string(c[i].user_data) + ": " + c[i].status.describe() +
                     (q.failed() ? " (" + q.failure() + ")" : ""));
        n -= got;
        if (!got && q.failed() && q.in_flight() == 0)
            fail(q.failure());
    }
}

void submit(bp::IoQueue& q, const bp::IoRequest& r)
{
    const bp::IoStatus st = q.submit(r);
    if (!st.ok())
        fail("submit " + std::to_string(r.user_data) + ": " + st.describe());
}

}  // namespace

int main(int argc, char** argv)
{
    CLI::App app("rblk_bypass_probe: the bypass library's asynchronous API, for the VM suite");
    rblk::ConnectOptions o;
    std::uint64_t offset = 16 << 20;
    std::string expect;
    app.add_option("-a,--traddr", o.traddr, "Target address")->required();
    app.add_option("-s,--trsvcid", o.trsvcid, "Target port");
    app.add_option("-n,--nqn", o.subnqn, "Subsystem NQN")->required();
    app.add_option("--offset", offset, "First byte of the region (a multiple of 4096)");
    app.add_option("--expect", expect, "File to write what the region holds afterwards")->required();
    CLI11_PARSE(app, argc, argv);
    try {
        bp::ControllerOptions co;
        co.connect = o;
        rblk::apply_host_identity(co.connect, rblk::load_host_identity());
        co.connect.queue_size = 32;
        bp::Controller ctrl(co);
        bp::IoQueue& q = ctrl.io_queue(0);
        const std::uint32_t shift = ctrl.ns().lba_shift;
        if (q.depth() < kSmallCount || q.buffer_size() < kLarge || q.buffers_free() < kLargeCount)
            fail("the queue is too small for the probe");
        if (q.inline_max() < kSmall)
            fail("the target takes less than 4 KiB of in-capsule data");

        std::vector<std::byte> image(kRegion);
        for (std::size_t i = 0; i < image.size(); ++i)
            image[i] = static_cast<std::byte>((i * 131 + i / 4096) & 0xff);

        // 1. All the small writes at once (in-capsule), then the large ones
        //    from pool buffers; busy polling.
        std::uint64_t ud = 0;
        for (std::size_t i = 0; i < kSmallCount; ++i)
            submit(q, {bp::IoOp::Write, (offset + i * kSmall) >> shift,
                       static_cast<std::uint32_t>(kSmall >> shift), image.data() + i * kSmall, kSmall, ud++});
        reap(q, kSmallCount, false);
        std::vector<std::byte*> bufs;
        for (std::size_t i = 0; i < kLargeCount; ++i) {
            const std::size_t at = kSmall * kSmallCount + i * kLarge;
            bufs.push_back(q.alloc_buffer());
            std::memcpy(bufs.back(), image.data() + at, kLarge);
            submit(q, {bp::IoOp::Write, (offset + at) >> shift, static_cast<std::uint32_t>(kLarge >> shift),
                       bufs.back(), kLarge, ud++});
        }
        reap(q, kLargeCount, false);

        // 2. Read it all back through the pool buffers, sleeping on the
        //    completion channel; compare.
        std::vector<std::byte> back(kRegion);
        for (std::size_t done = 0; done < kRegion;) {
            const std::size_t n = std::min<std::size_t>(kLargeCount, (kRegion - done + kLarge - 1) / kLarge);
            for (std::size_t i = 0; i < n; ++i)
                submit(q, {bp::IoOp::Read, (offset + done + i * kLarge) >> shift,
                           static_cast<std::uint32_t>(kLarge >> shift), bufs[i], kLarge, ud++});
            reap(q, n, true);
            for (std::size_t i = 0; i < n; ++i)
                std::memcpy(back.data() + done + i * kLarge, bufs[i], kLarge);
            done += n * kLarge;
        }
        if (back != image)
            fail("the region read back differs from what was written");

        // 3. Write zeroes over the first 8 KiB, deallocate the next 8 KiB
        //    (the null_blk disk reads deallocated blocks as zeros), flush.
        submit(q, {bp::IoOp::WriteZeroes, offset >> shift, static_cast<std::uint32_t>(8192 >> shift),
                   nullptr, 0, ud++});
        nvme_dsm_range range{0, static_cast<std::uint32_t>(8192 >> shift), (offset + 8192) >> shift};
        submit(q, {bp::IoOp::Dsm, 0, 1, &range, sizeof(range), ud++});
        reap(q, 2, true);
        submit(q, {bp::IoOp::Flush, 0, 0, nullptr, 0, ud++});
        reap(q, 1, false);
        std::memset(image.data(), 0, 16384);

        // 4. Bad requests are refused without a command.
        const bp::IoStatus beyond = q.submit({bp::IoOp::Read, ctrl.ns().nsze, 1, bufs[0], 1u << shift, ud});
        const bp::IoStatus unregistered = q.submit({bp::IoOp::Read, 0, 1, image.data(), 1u << shift, ud});
        if (beyond.kind != bp::IoStatus::Kind::Invalid || unregistered.kind != bp::IoStatus::Kind::Invalid)
            fail("a read beyond the namespace or into unregistered memory was not refused");
        for (std::byte* b : bufs)
            q.free_buffer(b);

        const bp::IoQueueStats s = q.stats();
        ctrl.shutdown();
        std::ofstream out(expect, std::ios::binary);
        out.write(reinterpret_cast<const char*>(image.data()), static_cast<std::streamsize>(image.size()));
        if (!out.flush())
            fail("cannot write " + expect);
        std::cout << "ok: " << s.commands << " commands, " << s.in_capsule << " in-capsule, " << s.pooled
                  << " through the pool; write zeroes, deallocate and flush done\n";
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "rblk_bypass_probe: " << e.what() << '\n';
        return 1;
    }
}
