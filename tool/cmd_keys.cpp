// rblkctl gen-dhchap-key: nvme gen-dhchap-key's options and output, so a
// key made by either tool works with both (rblk/dhchap_key.hpp).
#include "commands.hpp"

#include <rblk/dhchap_key.hpp>

namespace rblkctl {

void add_keys(CLI::App& app, Request& req)
{
    rblk::DhchapKeySpec& k = req.dhchap_key;
    CLI::App* sub = app.add_subcommand(
        "gen-dhchap-key", "Make a DH-HMAC-CHAP secret for --dhchap-secret, as nvme gen-dhchap-key");
    sub->add_option("-s,--secret", k.secret,
                    "The key's bytes in hexadecimal (default: random); shows in ps, as nvme-cli's");
    sub->add_option("-l,--key-length", k.key_len, "Key length in bytes: 32, 48 or 64")
        ->default_str("the hash's, 32 with none");
    sub->add_option("-m,--hmac", k.hmac,
                    "Hash the key is transformed with: 0 none, 1 SHA-256, 2 SHA-384, 3 SHA-512")
        ->capture_default_str();
    sub->add_option("-n,--nqn", k.nqn, "Host NQN the key is for (default: /etc/nvme/hostnqn)");
    sub->callback([&req] { req.command = Command::GenDhchapKey; });
}

int run_gen_dhchap_key(const Request& req, std::ostream& out)
{
    rblk::DhchapKeySpec spec = req.dhchap_key;
    // As nvme-cli: the host's own NQN unless told; only a hash uses it.
    if (spec.hmac && spec.nqn.empty())
        spec.nqn = host_identity().hostnqn.value_or("");
    out << rblk::generate_dhchap_key(spec) << '\n';
    return 0;
}

}  // namespace rblkctl
