// rblkctl read, write: raw bytes between a namespace and a file, as
// nvme-cli's read/write move them, through the kernel-bypass initiator of
// librblk_bypass (--path bypass): rblkctl itself connects to the target
// over RDMA, moves the data and shuts the controller down; no module, no
// block device. The controller options are connect's (one definition each,
// cmd_connect.cpp); the host NQN and ID come from /etc/nvme as for connect.
#include "commands.hpp"

#include <rblk/bypass/controller.hpp>
#include <rblk/bypass/sync_io.hpp>
#include <rblk/host_identity.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <stdexcept>
#include <vector>

namespace rblkctl {

namespace {

void add_one(CLI::App& app, Request& req, bool write)
{
    BypassIoArgs& a = req.bypass_io;
    rblk::ConnectOptions& o = req.connect;
    CLI::App* sub = app.add_subcommand(
        write ? "write" : "read",
        write ? "Write a file's bytes to a namespace, through the kernel-bypass initiator"
              : "Read a namespace's bytes into a file, through the kernel-bypass initiator");
    sub->add_option("--path", a.path,
                    "Data path: bypass (rblkctl itself is the NVMe-oF/RDMA initiator)")
        ->required()
        ->check(CLI::IsMember({"bypass"}));
    add_address_options(sub, o, true);
    sub->add_option("-n,--nqn", o.subnqn, "Subsystem NQN")->required();
    sub->add_option("--nsid", a.nsid, "Namespace ID")->capture_default_str();
    add_size_option(sub, "--offset", a.offset, "First byte, a multiple of the LBA size");
    add_size_option(sub, "--length", a.length,
                    write ? "Bytes to write, a multiple of the LBA size (default: the file's size)"
                          : "Bytes to read, a multiple of the LBA size");
    sub->add_option("--data", a.data,
                    write ? "File to write from (default: standard input)"
                          : "File to write the data to (default: standard output)");
    sub->add_flag("--copy", a.copy,
                  "Stage the data through the queue's registered pool instead of registering "
                  "the file's buffer");
    sub->add_flag("--event", a.event,
                  "Sleep on the completion channel while waiting instead of busy polling");
    sub->add_flag("-v,--verbose", a.verbose,
                  "Print the controller's limits and how the commands carried their data on "
                  "standard error");
    add_host_options(sub, o);
    add_io_options(sub, o, false);
    note_sizes(sub);
    sub->callback([&req, sub, write] {
        const BypassIoArgs& v = req.bypass_io;
        req.command = write ? Command::Write : Command::Read;
        check_options(*sub, req.connect);
        check_nsid(v.nsid);
        if (v.length && *v.length == 0)
            throw CLI::ValidationError("--length must be positive");
        if (!v.length && (!write || v.data.empty()))
            throw CLI::ValidationError(write ? "--length is required when writing standard input"
                                             : "--length is required");
    });
}

std::vector<std::byte> read_input(const BypassIoArgs& a)
{
    std::vector<std::byte> buf;
    if (a.data.empty()) {
        buf.resize(static_cast<std::size_t>(*a.length));
        std::cin.read(reinterpret_cast<char*>(buf.data()), static_cast<std::streamsize>(buf.size()));
        if (static_cast<std::size_t>(std::cin.gcount()) != buf.size())
            throw std::runtime_error("standard input has only " + std::to_string(std::cin.gcount()) +
                                     " bytes, --length asks for " + std::to_string(*a.length));
        return buf;
    }
    std::ifstream in(a.data, std::ios::binary);
    if (!in)
        throw std::runtime_error("cannot open " + a.data + ": " + std::strerror(errno));
    std::vector<char> all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad())
        throw std::runtime_error("cannot read " + a.data + ": " + std::strerror(errno));
    const std::size_t want = a.length ? static_cast<std::size_t>(*a.length) : all.size();
    if (want == 0)
        throw std::runtime_error(a.data + " is empty: nothing to write");
    if (all.size() < want)
        throw std::runtime_error(a.data + " has only " + std::to_string(all.size()) +
                                 " bytes, --length asks for " + std::to_string(want));
    buf.resize(want);
    std::memcpy(buf.data(), all.data(), want);
    return buf;
}

void write_output(const BypassIoArgs& a, const std::vector<std::byte>& buf, std::ostream& out)
{
    if (a.data.empty()) {
        out.write(reinterpret_cast<const char*>(buf.data()), static_cast<std::streamsize>(buf.size()));
        out.flush();
        if (!out)
            throw std::runtime_error("cannot write the data to standard output");
        return;
    }
    std::ofstream f(a.data, std::ios::binary | std::ios::trunc);
    if (!f)
        throw std::runtime_error("cannot create " + a.data + ": " + std::strerror(errno));
    f.write(reinterpret_cast<const char*>(buf.data()), static_cast<std::streamsize>(buf.size()));
    f.close();
    if (!f)
        throw std::runtime_error("cannot write " + a.data + ": " + std::strerror(errno));
}

// --verbose: what the controller granted and how the data went.
void describe(std::ostream& err, const rblk::bypass::Controller& c, const rblk::bypass::IoQueue& q)
{
    const auto& i = c.info();
    err << "rblkctl: bypass: controller " << i.cntlid << " (" << i.model << "), " << c.nr_io_queues()
        << " I/O queue(s) of " << c.io_queue_size() << ", in-capsule data up to " << q.inline_max()
        << " bytes, " << i.max_transfer << " bytes per command; namespace " << c.ns().nsid << ": "
        << c.ns().size_bytes() << " bytes, LBA " << c.ns().lba_size() << '\n';
}

void describe(std::ostream& err, const rblk::bypass::IoQueueStats& s, std::size_t reconnects)
{
    err << "rblkctl: bypass: " << s.commands << " command(s): " << s.in_capsule << " in-capsule, "
        << s.pooled << " through the pool, " << s.registered << " through the registered buffer, "
        << s.commands - s.in_capsule - s.pooled - s.registered << " without data, " << s.doorbells
        << " doorbell(s); " << reconnects
        << " reconnect(s)\n";
}

}  // namespace

void check_nsid(std::int64_t nsid)
{
    if (nsid < 1 || nsid >= 0xffffffffLL)
        throw CLI::ValidationError("--nsid " + std::to_string(nsid) + " is out of range (1..4294967294)");
}

rblk::bypass::ControllerOptions bypass_controller_asked(const Request& req)
{
    rblk::bypass::ControllerOptions co;
    co.connect = req.connect;
    co.nsid = static_cast<std::uint32_t>(req.bypass_io.nsid);
    co.all_namespaces = req.bypass_io.all_namespaces;
    return co;
}

rblk::bypass::ControllerOptions resolve_bypass_controller(const rblk::bypass::ControllerOptions& asked)
{
    rblk::bypass::ControllerOptions co = asked;
    rblk::apply_host_identity(co.connect, host_identity());
    co.connect = rblk::resolve_traddr(co.connect);
    return co;
}

void add_bypass_io(CLI::App& app, Request& req)
{
    add_one(app, req, false);
    add_one(app, req, true);
}

int run_bypass_io(const Request& req, std::ostream& out)
{
    namespace bp = rblk::bypass;
    const BypassIoArgs& a = req.bypass_io;
    const bool write = req.command == Command::Write;
    // The data first: a bad file is told before the target is asked anything.
    std::vector<std::byte> buf = write ? read_input(a) : std::vector<std::byte>(static_cast<std::size_t>(*a.length));

    bp::Controller ctrl(resolve_bypass_controller(bypass_controller_asked(req)));
    bp::IoQueue& q = ctrl.io_queue(0);
    if (!a.copy) {
        if (const int err = q.register_buffer(buf.data(), buf.size()))
            throw std::runtime_error("cannot register the data buffer with the RDMA device: " +
                                     std::string(std::strerror(err)));
    }
    if (a.verbose)
        describe(std::cerr, ctrl, q);
    bp::SyncIo io(ctrl, 0, a.event ? bp::CompletionMode::Event : bp::CompletionMode::Poll);
    const bp::IoStatus st = write ? io.write(a.offset, buf.data(), buf.size())
                                  : io.read(a.offset, buf.data(), buf.size());
    if (!st.ok())
        throw std::runtime_error(std::string(write ? "write" : "read") + " failed: " + io.error());
    if (write) {
        // What the controller's volatile cache holds reaches the media.
        if (ctrl.info().vwc & 1) {
            if (const bp::IoStatus f = io.flush(); !f.ok())
                throw std::runtime_error("flush failed: " + io.error());
        }
    }
    if (!a.copy)
        q.unregister_buffer(buf.data());
    if (a.verbose)
        describe(std::cerr, q.stats(), ctrl.reconnects());
    ctrl.shutdown();
    if (!write)
        write_output(a, buf, out);
    return 0;
}

}  // namespace rblkctl
