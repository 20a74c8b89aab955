// A live controller as the kernel reports one with the default options,
// for the tests of what save writes and apply plans from it.
#pragma once

#include <rblk/controller.hpp>

#include <cstdint>

namespace rblk::test {

inline ControllerInfo session_controller(const char* name, const char* hostnqn,
                                         const char* subnqn, const char* traddr,
                                         std::uint16_t port)
{
    ControllerInfo c;
    c.name = name;
    c.transport = "rdma";
    c.hostnqn = hostnqn;
    c.hostid = "11111111-2222-3333-4444-555555555555";
    c.subnqn = subnqn;
    c.traddr = traddr;
    c.trsvcid = port;
    c.nr_io_queues = 2;
    c.queue_size = 128;
    c.kato = 5;
    c.reconnect_delay = 10;
    c.ctrl_loss_tmo = 600;
    c.fast_io_fail_tmo = -1;
    return c;
}

}  // namespace rblk::test
