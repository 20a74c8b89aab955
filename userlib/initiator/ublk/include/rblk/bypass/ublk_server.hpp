// The namespaces of a bypass controller served as Linux block devices,
// one /dev/ublkbN each, through the kernel's ublk driver. The controller's
// I/O queues are shared by the devices, as NVMe queues belong to the
// controller: each device has one ublk queue per I/O queue, and a thread
// per I/O queue drives that queue's ublk queues of every device, waiting
// on one io_uring for the driver's requests (URING_CMD) and its RDMA
// completion channel (IORING_OP_POLL_ADD), so an idle server sleeps.
//
// Data: each tag's buffer is a slot of the server's own buffers for its
// I/O queue, registered once in the controller's memory map (on huge pages
// where the kernel has them); the driver copies the request's data to or
// from it and the RDMA side moves it with no further copy. A device's
// depth is its I/O queue's (more than the queue takes at once waits, held,
// for room), within a budget of buffers per queue; its largest request
// 128 KiB.
//
// Recovery, as the module's and the synchronous layer's: a queue that
// fails (or the keep-alive) makes the server's main thread ask every queue
// thread to stop using its IoQueue: each fails its transport queue (its
// commands come back with QueueDown), holds those requests and every new
// one, and parks. With all parked, the main thread runs
// Controller::recover() (the controller's contract: no I/O thread inside
// an IoQueue meanwhile), one recovery at a time. Reconnected: the held
// requests are sent again. fast_io_fail_tmo passed: they and every new
// request fail with EIO while the main thread keeps reconnecting every
// reconnect_delay. ctrl_loss_tmo passed: the I/O fails, the device is
// stopped and deleted, and run() returns that the controller was lost.
#pragma once

#include "rblk/bypass/controller.hpp"
#include "rblk/bypass/ublk.hpp"

#include <rblk/unique_fd.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace rblk::bypass {

class UblkServer {
public:
    enum class Phase : int { Live, Recovering, FailFast, Lost, Stopping };
    static const char* phase_name(Phase p);

    struct Options {
        bool busy_poll = false;  // spin on the rings and completion queues instead of sleeping
        // The controller's reconnect_delay: how often the main thread
        // tries again once fast_io_fail_tmo has passed.
        std::chrono::seconds reconnect_delay{RBLK_DEFAULT_RECONNECT_DELAY};
        // A dead server's devices to take back, one per namespace in
        // order, instead of adding new ones (ublk.hpp: user recovery).
        std::vector<std::uint32_t> adopt;
    };

    // Adds a device (ADD_DEV, SET_PARAMS) for each of `ctrl`'s
    // namespaces(), or starts the recovery of each device in
    // Options::adopt, which must have the queues and the depth this
    // controller can serve. Throws Error.
    UblkServer(Controller& ctrl, UblkControl& control, const Options& opts);
    UblkServer(const UblkServer&) = delete;
    UblkServer& operator=(const UblkServer&) = delete;
    // Stops and deletes the devices still there.
    ~UblkServer();

    // Device i serves the controller's namespace i.
    std::size_t nr_devices() const { return devices_.size(); }
    std::uint32_t dev_id(std::size_t i = 0) const { return devices_.at(i).id; }
    std::string device(std::size_t i = 0) const { return "/dev/ublkb" + std::to_string(dev_id(i)); }
    std::uint16_t depth() const { return depth_; }
    std::uint32_t max_io_bytes() const { return max_io_; }

    // Starts the queue threads, then the devices (START_DEV: the disks
    // appear; END_USER_RECOVERY for adopted ones: their held I/O goes).
    // Throws Error.
    void start();
    // Serves until `stop_fd` (a signalfd or eventfd) is readable, or the
    // controller is lost; `on_phase` is told each change. Then stops and
    // deletes the devices. Returns false when the controller was lost.
    bool run(int stop_fd, const std::function<void(Phase, const std::string&)>& on_phase);

private:
    struct QueueState;
    struct Device {
        std::uint32_t id = UINT32_MAX;
        // Ours to delete: added, or adopted and recovered (one whose
        // recovery failed stays for the next server, or for disconnect).
        bool added = false;
        bool adopted = false;
        UniqueFd char_fd;  // /dev/ublkcN
    };
    void add_device(std::size_t ns);  // ADD_DEV, SET_PARAMS, /dev/ublkcN
    void adopt_device(std::uint32_t id);  // START_USER_RECOVERY, /dev/ublkcN
    void make_queues();               // the tags' buffers
    void delete_devices();
    void release_buffers();
    // A queue thread's steps (ublk_server.cpp): `s` is its QueueState.
    void queue_loop(std::size_t index);
    bool start_queue(QueueState& s, std::size_t index);
    void open_ublk_queues(QueueState& s, std::size_t index);
    int fetch_requests(QueueState& s);
    void queue_ready(const std::string& error);
    void rejoin_after_recovery(QueueState& s);
    void park(QueueState& s);
    std::size_t reap(QueueState& s);
    bool send(QueueState& s, std::uint32_t key);
    bool send_held(QueueState& s);
    bool arm_completions(QueueState& s);
    bool wait_ring(QueueState& s, bool spin);
    void dispatch_fresh(QueueState& s);
    void request_recovery();
    void set_phase(Phase p);
    void kick_all();
    void stop_device();

    Controller& ctrl_;
    UblkControl& control_;
    Options opts_;
    std::vector<Device> devices_;  // one per namespace; set up before the threads
    bool started_ = false;
    std::uint16_t depth_ = 0;
    std::uint32_t max_io_ = 0;
    UblkCaps caps_;
    UniqueFd notify_;  // queue threads -> main thread (eventfd)

    std::vector<std::unique_ptr<QueueState>> queues_;
    std::vector<std::jthread> threads_;

    std::atomic<Phase> phase_{Phase::Live};
    std::atomic<unsigned> generation_{0};  // bumped when a recovery ends
    std::atomic<bool> want_recovery_{false};
    std::atomic<bool> quit_{false};
    std::mutex mu_;
    std::condition_variable cv_;
    std::size_t fetched_ = 0;  // queues whose tags all fetched (under mu_)
    std::atomic<std::size_t> parked_{0};
    std::string setup_error_;  // a queue thread's failure to set up (under mu_)
};

}  // namespace rblk::bypass
