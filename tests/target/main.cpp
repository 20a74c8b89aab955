// rblk_test_target: a userspace NVMe-oF/RDMA target, just enough of one
// for rblk to connect and do I/O, and a discovery controller listing it,
// that misbehaves on command. For tests only: one RAM namespace (with
// reservations if asked), no security, no persistence of the data.
#include <array>
#include <cctype>
#include <csignal>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "target.hpp"

namespace {

volatile bool g_stop = false;

// 16 bytes from 32 hex digits, '-' ignored (a UUID's or nvmet's NGUID form).
std::optional<std::array<uint8_t, 16>> parse_id(const std::string& text)
{
    std::array<uint8_t, 16> id{};
    size_t n = 0;
    for (const char ch : text) {
        if (ch == '-')
            continue;
        const char lc = char(std::tolower(static_cast<unsigned char>(ch)));
        const int v = lc >= '0' && lc <= '9' ? lc - '0' : lc >= 'a' && lc <= 'f' ? lc - 'a' + 10 : -1;
        if (v < 0 || n == 32)
            return std::nullopt;
        id[n / 2] = uint8_t(id[n / 2] << 4 | v);
        n++;
    }
    if (n != 32)
        return std::nullopt;
    return id;
}

void on_signal(int)
{
    g_stop = true;
}

}  // namespace

int main(int argc, char** argv)
{
    rt::Options o;
    std::string mode = "none";
    CLI::App app{"NVMe-oF/RDMA test target that misbehaves on command"};
    app.add_option("-a,--addr", o.addrs, "IPv4 address to listen on, a port each (repeatable)")
        ->capture_default_str();
    app.add_option("-p,--port", o.port, "Port")->capture_default_str();
    app.add_option("-n,--nqn", o.subnqn, "Subsystem NQN")->capture_default_str();
    app.add_option("--size-mib", o.size_mib, "Namespace size, MiB")->capture_default_str()->check(CLI::Range(1, 1024));
    app.add_option("--misbehave", mode, "One of: " + rt::mode_names() + " ('_' for '-' will do)")
        ->capture_default_str();
    app.add_option("--after", o.after, "Qualifying events to let pass first")->capture_default_str();
    app.add_option("--count", o.count, "Events to misbehave on (0: all)")->capture_default_str();
    app.add_option("--trap-offset", o.trap_offset,
                   "Byte offset of the 4 KiB the I/O misbehaviours wait for")
        ->capture_default_str();
    app.add_option("--max-queue-size", o.max_queue_size,
                   "Largest I/O queue granted (CAP.MQES + 1, MAXCMD); larger Connects are refused")
        ->capture_default_str()
        ->check(CLI::Range(4, int(rt::Target::kMaxRdmaQueueSize)));
    app.add_option("--inline-bytes", o.inline_bytes,
                   "In-capsule data an I/O command may carry (IOCCSZ less the command)")
        ->capture_default_str()
        ->check(CLI::Range(0u, rt::Target::kMaxInlineBytes));
    app.add_option("--reply-delay-ms", o.reply_delay_ms,
                   "Hold each I/O response this long, so commands pile up in flight")
        ->capture_default_str()
        ->check(CLI::Range(0, 10000));
    app.add_option("--namespaces", o.namespaces,
                   "Active namespaces: each one past nsid 1 half its size, on the same memory")
        ->capture_default_str()
        ->check(CLI::Range(1, 1024));
    app.add_flag("--formats", o.formats,
                 "Two LBA formats, 512 B and 4 KiB (the namespaces start with 512 B); "
                 "Format NVM switches between them");
    app.add_option("--ports-down-file", o.ports_down_file,
                   "While this file lists a port's address (a line each), the port is removed: "
                   "its listener closed, its queues disconnected; restored when the line goes");
    app.add_option("--trigger-file", o.trigger_file,
                   "stale-key-write: once this file exists, write with the held read's key");
    app.add_option("--discovery-nqn", o.disc_nqn,
                   std::string("A discovery controller answers to this NQN too (always to ") +
                       std::string(rt::kDiscNqn) + ")");
    std::string nguid, uuid;
    app.add_option("--nguid", nguid,
                   "The namespace's NGUID (32 hex digits), with --uuid: no EUI-64 then, as nvmet; "
                   "the default derives all three from the NQN");
    app.add_option("--uuid", uuid, "The namespace's UUID, with --nguid");
    std::vector<std::string> disc_entries;
    app.add_option("--disc-entry", disc_entries,
                   "One more discovery log record after the subsystem's own: "
                   "SUBNQN@TRADDR:TRSVCID[,referral] (repeatable)")
        ->allow_extra_args(false);
    app.add_option("--ns-notice-file", o.ns_notice_file,
                   "Once this file appears (write it elsewhere and rename it here): a namespace change notice "
                   "to every controller, its Changed Namespace List the nsids the file lists (whitespace "
                   "between them; 'overflow' for a list that overflowed); the file is removed when taken");
    app.add_flag("--reservations", o.reservations,
                 "Namespace 1 takes reservations (Register/Acquire/Release/Report, log page 80h, "
                 "features 81h-83h, notices by AER)");
    app.add_option("--resv-state", o.resv_state,
                   "With --reservations: keep the reservation state in this file while PTPL is 1 "
                   "(PTPL is supported only with it)")
        ->needs("--reservations");
    CLI11_PARSE(app, argc, argv);

    if (!nguid.empty() || !uuid.empty()) {
        o.nguid = parse_id(nguid);
        o.uuid = parse_id(uuid);
        if (!o.nguid || !o.uuid) {
            std::cerr << "rblk_test_target: --nguid and --uuid take 32 hex digits each, both or neither\n";
            return 2;
        }
    }

    for (const auto& spec : disc_entries) {
        std::string error;
        const auto e = rt::disc::parse_entry(spec, error);
        if (!e) {
            std::cerr << "rblk_test_target: bad --disc-entry '" << spec << "': " << error << "\n";
            return 2;
        }
        o.disc_entries.push_back(*e);
    }

    const auto m = rt::parse_mode(mode);
    if (!m) {
        std::cerr << "rblk_test_target: unknown --misbehave '" << mode << "' (one of: " << rt::mode_names()
                  << ")\n";
        return 2;
    }
    o.mode = *m;
    if (o.mode == rt::Mode::resv_regctl_huge && !o.reservations) {
        std::cerr << "rblk_test_target: --misbehave resv-regctl-huge needs --reservations\n";
        return 2;
    }
    // The reservation's access check guards every I/O command; with a
    // second namespace it would guard nsid 2 by nsid 1's reservation.
    if (o.reservations && o.namespaces > 1) {
        std::cerr << "rblk_test_target: --reservations takes one namespace (--namespaces 1)\n";
        return 2;
    }

    struct sigaction sa{};
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    try {
        rt::Target target(o);
        target.run(g_stop);
        target.stop();
    } catch (const std::exception& e) {
        std::cerr << "rblk_test_target: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
