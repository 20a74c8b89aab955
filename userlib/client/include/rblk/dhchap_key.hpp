// DH-HMAC-CHAP secrets as nvme-cli makes them (`nvme gen-dhchap-key`) and
// the kernel reads them (nvme_auth_extract_key()):
//   DHHC-1:<hh>:<base64(key || CRC-32(key), little endian)>:
// where hh names the hash the key is transformed with before use: 00 none,
// 01 SHA-256, 02 SHA-384, 03 SHA-512. The key written is the secret as
// libnvme's nvme_gen_dhchap_key() transforms it with the host NQN, as
// nvme-cli writes it, so both tools print the same key for the same input.
#pragma once

#include <optional>
#include <string>

namespace rblk {

struct DhchapKeySpec {
    int hmac = 0;                       // 0..3, as above
    std::optional<unsigned> key_len;    // bytes: 32, 48 or 64; default the hash's
                                        // length (32 for none); a hash takes its own only
    std::optional<std::string> secret;  // key_len bytes in hex; default random
    std::string nqn;                    // the host NQN the key is transformed with (hmac > 0)
};

// The key, without a newline. Throws InvalidOption with nvme-cli's reason
// for what it refuses (a length the hash does not take, a secret that is
// not key_len bytes of hex, an unknown hash), except that a secret of an
// odd number of digits is refused rather than read with a half byte.
std::string generate_dhchap_key(const DhchapKeySpec& spec);

}  // namespace rblk
