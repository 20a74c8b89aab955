// What discover, connect-all and monitor --connect-new share
// (cmd_discover.cpp): a discovery controller held for one read, and
// connecting what a discovery walk planned.
#pragma once

#include <rblk/client.hpp>
#include <rblk/discovery.hpp>
#include <rblk/discovery_plan.hpp>

#include <string>
#include <vector>

namespace rblkctl {

// A discovery controller to read the log of: an existing persistent one
// for the same target is reused; otherwise one is connected (with a
// keep-alive when persistent), and disconnected again when the session
// ends, also on error, unless keep() was called.
class DiscoverySession {
public:
    DiscoverySession(rblk::Client& client, const rblk::ConnectOptions& disc, bool persistent,
                     const std::vector<rblk::ControllerInfo>& existing);
    ~DiscoverySession();
    DiscoverySession(const DiscoverySession&) = delete;
    DiscoverySession& operator=(const DiscoverySession&) = delete;

    // The log through /dev/<name>, validated (rblk/discovery.hpp).
    rblk::DiscoveryLog read() const;
    // Leave it connected: the persistent discovery controller.
    void keep() { owned_ = false; }
    const std::string& name() const { return name_; }
    bool reused() const { return reused_; }

private:
    rblk::Client& client_;
    std::string name_;
    bool owned_ = false;  // disconnect at the end
    bool reused_ = false;
};

struct ConnectOutcome {
    std::vector<rblk::ControllerInfo> connected;
    std::size_t failed = 0;
};
// Prints the walk's warnings to stderr, then connects what it planned; a
// failed connect is a warning and counted.
ConnectOutcome connect_walk(const rblk::DiscoveryWalk& walk, rblk::Client& client);

}  // namespace rblkctl
