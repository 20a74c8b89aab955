#include "rblk/dhchap_key.hpp"

#include "rblk/error.hpp"

extern "C" {  // libnvme 1.3 headers lack C++ linkage guards
#include <nvme/linux.h>
}
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <sys/random.h>
#include <zlib.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <vector>

namespace rblk {
namespace {

constexpr unsigned kMaxKeyLen = 64;

// Wiped on every way out: these bytes are the secret.
struct SecretBytes {
    std::array<unsigned char, kMaxKeyLen + 4> b{};
    ~SecretBytes() { OPENSSL_cleanse(b.data(), b.size()); }
};

unsigned key_length(const DhchapKeySpec& spec)
{
    static constexpr const char* kHashNames[] = {"none", "SHA-256", "SHA-384", "SHA-512"};
    if (spec.hmac < 0 || spec.hmac > 3)
        throw InvalidOption("hmac " + std::to_string(spec.hmac) +
                            " is not a hash: 0 (none), 1 (SHA-256), 2 (SHA-384) or 3 (SHA-512)");
    // The transformed key is the hash's digest, so a hash fixes the length.
    const unsigned digest = spec.hmac ? 16 + 16 * static_cast<unsigned>(spec.hmac) : 0;
    const unsigned len = spec.key_len.value_or(digest ? digest : 32);
    if (len != 32 && len != 48 && len != 64)
        throw InvalidOption("key length " + std::to_string(len) + ": 32, 48 or 64 bytes");
    if (digest && len != digest)
        throw InvalidOption("key length " + std::to_string(len) + " does not go with " +
                            kHashNames[spec.hmac] + ", whose keys are " +
                            std::to_string(digest) + " bytes");
    return len;
}

int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

// The secret is never quoted back: a message names its length only.
void read_secret(const std::string& hex, unsigned len, unsigned char* out)
{
    for (std::size_t i = 0; i < hex.size(); ++i)
        if (hex_digit(hex[i]) < 0)
            throw InvalidOption("the secret is not hexadecimal (character " +
                                std::to_string(i + 1) + ")");
    if (hex.size() % 2)
        throw InvalidOption("the secret has an odd number of hex digits (" +
                            std::to_string(hex.size()) + ")");
    if (hex.size() / 2 != len)
        throw InvalidOption("the secret is " + std::to_string(hex.size() / 2) +
                            " bytes, the key length " + std::to_string(len));
    for (unsigned i = 0; i < len; ++i)
        out[i] = static_cast<unsigned char>(hex_digit(hex[2 * i]) << 4 | hex_digit(hex[2 * i + 1]));
}

void random_secret(unsigned len, unsigned char* out)
{
    for (unsigned got = 0; got < len;) {
        const ssize_t n = ::getrandom(out + got, len - got, 0);
        if (n < 0 && errno != EINTR)
            throw Error(errno, std::string("getrandom: ") + std::strerror(errno));
        got += n > 0 ? static_cast<unsigned>(n) : 0;
    }
}

}  // namespace

std::string generate_dhchap_key(const DhchapKeySpec& spec)
{
    const unsigned len = key_length(spec);
    if (spec.hmac && spec.nqn.empty())
        throw InvalidOption("a hash needs the host NQN the key is for");
    SecretBytes secret, key;
    if (spec.secret)
        read_secret(*spec.secret, len, secret.b.data());
    else
        random_secret(len, secret.b.data());
    std::vector<char> nqn(spec.nqn.begin(), spec.nqn.end());
    nqn.push_back('\0');
    if (nvme_gen_dhchap_key(nqn.data(), static_cast<nvme_hmac_alg>(spec.hmac), len,
                            secret.b.data(), key.b.data()) < 0)
        throw Error(EINVAL, "libnvme could not transform the key (nvme_gen_dhchap_key)");
    const uLong crc = ::crc32(::crc32(0L, Z_NULL, 0), key.b.data(), len);
    for (unsigned i = 0; i < 4; ++i)
        key.b[len + i] = static_cast<unsigned char>(crc >> (8 * i));
    std::array<unsigned char, (kMaxKeyLen + 4 + 2) / 3 * 4 + 1> text{};
    const int n = EVP_EncodeBlock(text.data(), key.b.data(), static_cast<int>(len + 4));
    std::string out = "DHHC-1:0" + std::to_string(spec.hmac) + ":" +
                      std::string(reinterpret_cast<const char*>(text.data()), static_cast<std::size_t>(n)) + ":";
    OPENSSL_cleanse(text.data(), text.size());
    return out;
}

}  // namespace rblk
