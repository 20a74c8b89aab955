// rblkctl gen-dhchap-key against nvme-cli's: the same secret, hash and NQN
// give the same key, byte for byte; a random key is one the kernel would
// take (its CRC checks); what nvme-cli refuses is refused, and no message
// quotes the secret.
#include "cli_parse.hpp"
#include "commands.hpp"

#include <rblk/dhchap_key.hpp>
#include <rblk/error.hpp>

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <zlib.h>

#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

const std::string kNqn = "nqn.2014-08.org.nvmexpress:uuid:0c0c0c0c-0000-4000-8000-00000000000c";

std::string hex_bytes(unsigned len, unsigned seed)
{
    static const char* digits = "0123456789abcdef";
    std::string s;
    for (unsigned i = 0; i < len; ++i) {
        const unsigned b = (i * 37 + seed) & 0xff;
        s += digits[b >> 4];
        s += digits[b & 15];
    }
    return s;
}

// nvme-cli, which install-deps.sh installs: its absence fails the test.
std::string nvme_cli_key(int hmac, unsigned len, const std::string& secret, const std::string& nqn)
{
    const std::string cmd = "nvme gen-dhchap-key -m " + std::to_string(hmac) + " -l " +
                            std::to_string(len) + " -s " + secret + " -n " + nqn + " 2>&1";
    std::unique_ptr<FILE, int (*)(FILE*)> p(::popen(cmd.c_str(), "r"), ::pclose);
    if (!p)
        return "popen failed";
    std::string out;
    char buf[256];
    while (std::fgets(buf, sizeof buf, p.get()))
        out += buf;
    if (!out.empty() && out.back() == '\n')
        out.pop_back();
    return out;
}

rblk::DhchapKeySpec spec(int hmac, std::optional<unsigned> len, std::optional<std::string> secret,
                         std::string nqn = kNqn)
{
    rblk::DhchapKeySpec s;
    s.hmac = hmac;
    s.key_len = len;
    s.secret = std::move(secret);
    s.nqn = std::move(nqn);
    return s;
}

// The key's bytes as the kernel extracts them: base64, then the CRC-32
// of the key in the last four bytes, little endian.
std::vector<unsigned char> extract(const std::string& key, int hmac)
{
    const std::string head = "DHHC-1:0" + std::to_string(hmac) + ":";
    EXPECT_EQ(key.rfind(head, 0), 0u) << key;
    EXPECT_EQ(key.back(), ':') << key;
    const std::string b64 = key.substr(head.size(), key.size() - head.size() - 1);
    std::vector<unsigned char> raw(b64.size());
    const int n = EVP_DecodeBlock(raw.data(), reinterpret_cast<const unsigned char*>(b64.data()),
                                  static_cast<int>(b64.size()));
    EXPECT_GT(n, 4);
    // EVP_DecodeBlock counts the padding's zero bytes as data.
    const std::size_t pad = b64.size() - b64.find_last_not_of('=') - 1;
    raw.resize(static_cast<std::size_t>(n) - pad);
    const std::size_t len = raw.size() - 4;
    const uLong crc = crc32(crc32(0L, Z_NULL, 0), raw.data(), static_cast<uInt>(len));
    EXPECT_EQ(crc, uLong(raw[len]) | uLong(raw[len + 1]) << 8 | uLong(raw[len + 2]) << 16 |
                       uLong(raw[len + 3]) << 24);
    raw.resize(len);
    return raw;
}

std::string refusal(const rblk::DhchapKeySpec& s)
{
    try {
        return "accepted: " + rblk::generate_dhchap_key(s);
    } catch (const rblk::InvalidOption& e) {
        return e.what();
    }
}

TEST(DhchapKey, SameKeyAsNvmeCliForEachHashAndLength)
{
    const std::pair<int, unsigned> cases[] = {{0, 32}, {0, 48}, {0, 64}, {1, 32}, {2, 48}, {3, 64}};
    for (const auto& [hmac, len] : cases) {
        for (unsigned seed : {1u, 200u}) {
            const std::string secret = hex_bytes(len, seed);
            EXPECT_EQ(rblk::generate_dhchap_key(spec(hmac, len, secret)),
                      nvme_cli_key(hmac, len, secret, kNqn))
                << "hmac " << hmac << " length " << len;
        }
    }
    // The transform is the NQN's: another host gets another key.
    const std::string secret = hex_bytes(32, 9);
    EXPECT_NE(rblk::generate_dhchap_key(spec(1, 32, secret)),
              rblk::generate_dhchap_key(spec(1, 32, secret, kNqn + "x")));
    // Upper-case digits are the same bytes.
    std::string upper = secret;
    for (char& c : upper)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_EQ(rblk::generate_dhchap_key(spec(0, 32, upper)),
              rblk::generate_dhchap_key(spec(0, 32, secret)));
}

TEST(DhchapKey, WithoutASecretEachKeyIsNewAndWellFormed)
{
    for (int hmac = 0; hmac <= 3; ++hmac) {
        const std::string a = rblk::generate_dhchap_key(spec(hmac, std::nullopt, std::nullopt));
        const std::string b = rblk::generate_dhchap_key(spec(hmac, std::nullopt, std::nullopt));
        EXPECT_NE(a, b);
        // The default length is the hash's, 32 bytes with none.
        EXPECT_EQ(extract(a, hmac).size(), hmac ? 16u + 16u * static_cast<unsigned>(hmac) : 32u);
    }
    EXPECT_EQ(extract(rblk::generate_dhchap_key(spec(0, 64, std::nullopt)), 0).size(), 64u);
    // With no hash the key is the secret itself.
    const std::string secret = hex_bytes(48, 3);
    std::vector<unsigned char> want;
    for (unsigned i = 0; i < 48; ++i)
        want.push_back(static_cast<unsigned char>((i * 37 + 3) & 0xff));
    EXPECT_EQ(extract(rblk::generate_dhchap_key(spec(0, 48, secret)), 0), want);
}

TEST(DhchapKey, RefusesWhatNvmeCliRefusesWithoutQuotingTheSecret)
{
    EXPECT_EQ(refusal(spec(4, std::nullopt, std::nullopt)),
              "hmac 4 is not a hash: 0 (none), 1 (SHA-256), 2 (SHA-384) or 3 (SHA-512)");
    EXPECT_EQ(refusal(spec(0, 33, std::nullopt)), "key length 33: 32, 48 or 64 bytes");
    EXPECT_EQ(refusal(spec(1, 64, std::nullopt)),
              "key length 64 does not go with SHA-256, whose keys are 32 bytes");
    EXPECT_EQ(refusal(spec(3, 32, std::nullopt)),
              "key length 32 does not go with SHA-512, whose keys are 64 bytes");
    const std::string secret = hex_bytes(32, 5);
    EXPECT_EQ(refusal(spec(2, std::nullopt, secret)), "the secret is 32 bytes, the key length 48");
    EXPECT_EQ(refusal(spec(0, 32, secret.substr(0, 63))),
              "the secret has an odd number of hex digits (63)");
    EXPECT_EQ(refusal(spec(0, 32, secret.substr(0, 62) + "zz")),
              "the secret is not hexadecimal (character 63)");
    EXPECT_EQ(refusal(spec(0, 32, "")), "the secret is 0 bytes, the key length 32");
    EXPECT_EQ(refusal(spec(1, 32, secret, "")), "a hash needs the host NQN the key is for");
    for (const std::string& msg : {refusal(spec(2, std::nullopt, secret)),
                                   refusal(spec(0, 32, secret.substr(0, 62) + "zz"))})
        EXPECT_EQ(msg.find(secret.substr(0, 16)), std::string::npos) << msg;
}

TEST(DhchapKey, CommandLine)
{
    const std::string secret = hex_bytes(48, 7);
    auto cli = rblkctl::test::parse({"gen-dhchap-key", "--hmac", "2", "--secret", secret, "--nqn", kNqn});
    EXPECT_EQ(cli->request().command, rblkctl::Command::GenDhchapKey);
    std::ostringstream out;
    EXPECT_EQ(rblkctl::run(cli->request(), out), 0);
    EXPECT_EQ(out.str(), nvme_cli_key(2, 48, secret, kNqn) + "\n");
    // nvme-cli's short options.
    cli = rblkctl::test::parse({"gen-dhchap-key", "-m", "0", "-l", "64", "-n", kNqn});
    EXPECT_EQ(cli->request().dhchap_key.key_len, 64u);
    EXPECT_EQ(cli->request().dhchap_key.hmac, 0);
    EXPECT_NE(rblkctl::test::parse_error({"gen-dhchap-key", "-m", "one"}), "<parsed>");
}

}  // namespace
