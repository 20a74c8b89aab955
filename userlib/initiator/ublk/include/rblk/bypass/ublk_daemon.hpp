// The ublk server as a daemon: the process that serves a controller's
// namespaces (every active one, or one) as /dev/ublkbN, one each, this
// process itself the NVMe-oF/RDMA initiator (Controller, UblkServer over
// the kernel's ublk driver). rblkctl only starts it and talks to it:
// `connect --path bypass` calls start_detached(), the hidden `ublk-server`
// (systemd, Type=notify) serve_foreground(); list, show and disconnect
// read the servers' state files (bypass_state.hpp) and stop_server().
//
// A server writes its state file when it starts, at each change of its
// controller's state and removes it when it stops; it logs one line an
// event on stderr (its log file when detached, else the journal). SIGTERM
// (and SIGINT; SIGHUP when detached) stops it: its devices deleted, the
// controller shut down with CC.SHN.
#pragma once

#include <rblk/bypass/bypass_state.hpp>
#include <rblk/bypass/controller.hpp>

#include <functional>
#include <string>
#include <vector>

namespace rblk::bypass {

// What a server serves.
struct DaemonOptions {
    // As asked: connect's options, the nsid or all_namespaces.
    ControllerOptions controller;
    // The options as the server connects with them (the host identity
    // applied, the address resolved), done in the server, where a failure
    // is reported as its others are.
    std::function<ControllerOptions(const ControllerOptions&)> resolve;
    bool busy_poll = false;  // the queue threads poll rather than sleep
};

// Why the ublk server cannot run on this system ("" when it can): no
// /dev/ublk-control, no ublk_drv module for the running kernel.
std::string ublk_missing();

// The server in this process until it is stopped; READY=1 on
// $NOTIFY_SOCKET once serving. Returns 0 when stopped, 1 when its
// controller was lost; throws std::exception when it cannot start.
int serve_foreground(const DaemonOptions& o);

// A detached server that is serving: its name (bypassN) and its devices.
struct StartedServer {
    std::string name;
    std::vector<std::string> devices;
};

// Forks the server off as a daemon (setsid, a second fork, stdio on
// /dev/null, its log in kBypassRunDir/<name>.log) and waits until it is
// serving or has failed. Throws std::runtime_error with the server's one
// line of failure (no ublk, no RDMA device, wrong address or NQN). Flush
// what the caller has buffered first: the child inherits it.
StartedServer start_detached(const DaemonOptions& o);

// Asks the server of `s` to stop (SIGTERM) and waits for it, bounded (then
// SIGKILL); the devices and state file of a server that died on the way,
// or was dead already, it deletes itself. Throws std::runtime_error.
void stop_server(const BypassState& s);

}  // namespace rblk::bypass
