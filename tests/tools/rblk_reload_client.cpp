// rblk_reload_client: a long-lived librblk client for the VM suite. One
// rblk::Client (one socket, the family resolved once at start) lists the
// controllers every --interval ms for --seconds, and prints a line whenever
// the outcome changes:
//   ok <N controllers>     the request worked
//   module-not-loaded      the family is gone (rmmod)
//   error <ERRNAME>        anything else
// Each line is prefixed with the request number. Across `rmmod rblk;
// modprobe rblk` the expected output is "ok", "module-not-loaded", "ok":
// the last one proves the client found the family's new id by itself.
// Exit 0 at the end; 2 when the module is not loaded at start.
#include <rblk/client.hpp>
#include <rblk/error.hpp>

#include <CLI/CLI.hpp>

#include <chrono>
#include <iostream>
#include <string>
#include <thread>

int main(int argc, char** argv)
{
    unsigned seconds = 30;
    unsigned interval_ms = 100;
    CLI::App app("rblk_reload_client: one librblk client listing controllers in a loop",
                 "rblk_reload_client");
    app.add_option("--seconds", seconds, "How long to run")->check(CLI::PositiveNumber);
    app.add_option("--interval", interval_ms, "Milliseconds between requests")
        ->check(CLI::PositiveNumber);
    CLI11_PARSE(app, argc, argv);

    try {
        rblk::Client client;
        const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
        std::string last;
        for (unsigned n = 0; std::chrono::steady_clock::now() < end; n++) {
            std::string now;
            try {
                now = "ok " + std::to_string(client.list().size());
            } catch (const rblk::ModuleNotLoaded&) {
                now = "module-not-loaded";
            } catch (const rblk::Error& e) {
                now = "error " + rblk::errno_name(e.errnum());
            }
            if (now != last)
                std::cout << n << ' ' << now << std::endl;
            last = now;
            std::this_thread::sleep_for(std::chrono::milliseconds(interval_ms));
        }
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "rblk_reload_client: " << e.what() << '\n';
        return 2;
    }
}
