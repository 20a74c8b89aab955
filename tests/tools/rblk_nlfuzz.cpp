// rblk_nlfuzz: a generic netlink fuzzer for the "rblk" family, for the VM
// suite. It sends thousands of random and malformed requests (seeded, so a
// run can be replayed with --seed) and checks what the kernel answers:
//   - every request is answered (an error, an ack, a dump's DONE) or, without
//     NLM_F_ACK, processed: sendmsg() returns and a sentinel request sent
//     after it is acked - all within --reply-timeout;
//   - every errno is in the allowed set (a histogram is printed);
//   - EINVAL/ERANGE for a well-formed request to a real command carries an
//     extack message;
//   - unprivileged (--unprivileged): CONNECT/DISCONNECT with a clean header
//     get EPERM and the controller list does not change;
//   - the controllers it created are disconnected again (--expect-empty: and
//     none is left).
// Messages are built byte by byte: the malformed layouts are the point.
// Prints "RESULT: ..." lines; exit 0 when every check held, 1 when one
// failed (FAIL: lines say which), 2 on a local error.
//
//   rblk_nlfuzz [--seed N] [--count N] [--closed-traddr A] [--closed-trsvcid P]
//               [--target-nqn NQN --target-traddr A --target-trsvcid P --target-every N]
//               [--unprivileged] [--expect-empty] [--label NAME]
#include <rblk/attr_codec.hpp>
#include <rblk/error.hpp>
#include <rblk/extack.hpp>
#include <rblk/genl_socket.hpp>

#include <uapi/rblk.h>

#include <CLI/CLI.hpp>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace {

using Bytes = std::vector<std::uint8_t>;

struct Options {
    std::uint64_t seed = 0;
    unsigned count = 2000;
    std::string closed_traddr = "10.99.0.1";
    std::uint16_t closed_trsvcid = 4499;  // nothing listens: connect fails fast
    std::string target_nqn;               // empty: no connect that can succeed
    std::string target_traddr = "10.99.0.1";
    std::uint16_t target_trsvcid = 4420;
    unsigned target_every = 400;
    unsigned network_budget = 20;         // well-formed connects to the closed port
    unsigned reply_timeout = 30;          // seconds
    bool unprivileged = false;
    bool expect_empty = false;
    std::string label = "root";
};

// Errnos the module (or genetlink in front of it) may answer with.
const std::set<int> kAllowed = {
    EINVAL,       ERANGE,       EOPNOTSUPP,      EPERM,        ENOENT,     ENODEV,
    EALREADY,     EEXIST,       EMSGSIZE,        ECONNREFUSED, ETIMEDOUT,  EHOSTUNREACH,
    ENETUNREACH,  EPROTONOSUPPORT, EADDRNOTAVAIL, ECONNRESET,  ENETDOWN,   EIO,
};

extern "C" void on_alarm(int)
{
    static const char msg[] = "FAIL: a request was not processed within the reply timeout\n";
    [[maybe_unused]] const ssize_t n = ::write(STDOUT_FILENO, msg, sizeof(msg) - 1);
    ::_exit(1);
}

[[noreturn]] void local_fail(const std::string& what)
{
    std::cerr << "rblk_nlfuzz: " << what << '\n';
    std::exit(2);
}

// --- message building ----------------------------------------------------------------

// One generic netlink request, built byte by byte.
class Msg {
public:
    Msg(std::uint16_t type, std::uint16_t flags, std::uint8_t cmd, std::uint8_t version = 1,
        std::uint16_t reserved = 0)
        : type_(type), flags_(flags), cmd_(cmd)
    {
        buf_.resize(NLMSG_HDRLEN);
        const genlmsghdr g{cmd, version, reserved};
        raw(&g, sizeof(g));
    }

    // A well-formed attribute (aligned, length right).
    void attr(std::uint16_t type, const void* data, std::size_t len)
    {
        hdr(static_cast<std::uint16_t>(NLA_HDRLEN + len), type);
        raw(data, len);
        align();
    }
    void attr(std::uint16_t type, const Bytes& b) { attr(type, b.data(), b.size()); }
    void str(std::uint16_t type, const std::string& s) { attr(type, s.c_str(), s.size() + 1); }
    template <typename T> void num(std::uint16_t type, T v) { attr(type, &v, sizeof(v)); }

    // An attribute header saying whatever it is told (the payload is separate).
    void hdr(std::uint16_t nla_len, std::uint16_t type)
    {
        const nlattr a{nla_len, type};
        raw(&a, sizeof(a));
    }
    void raw(const void* data, std::size_t len)
    {
        const auto* p = static_cast<const std::uint8_t*>(data);
        buf_.insert(buf_.end(), p, p + len);
    }
    void raw(const Bytes& b) { raw(b.data(), b.size()); }
    void align() { buf_.resize(NLMSG_ALIGN(buf_.size())); }

    std::size_t nest_start(std::uint16_t type)
    {
        const std::size_t at = buf_.size();
        hdr(0, type | NLA_F_NESTED);
        return at;
    }
    void nest_end(std::size_t at)
    {
        const auto len = static_cast<std::uint16_t>(buf_.size() - at);
        std::memcpy(&buf_[at], &len, sizeof(len));
    }

    // Cuts the message to `len` bytes after the netlink header.
    void truncate_payload(std::size_t len) { buf_.resize(NLMSG_HDRLEN + len); }

    Bytes finish(std::uint32_t seq) const
    {
        Bytes out = buf_;
        const nlmsghdr h{static_cast<std::uint32_t>(out.size()), type_, flags_, seq, 0};
        std::memcpy(out.data(), &h, sizeof(h));
        return out;
    }

    std::uint8_t cmd() const { return cmd_; }
    std::uint16_t flags() const { return flags_; }
    std::uint16_t type() const { return type_; }
    std::size_t payload_len() const { return buf_.size() - NLMSG_HDRLEN; }

private:
    Bytes buf_;
    std::uint16_t type_;
    std::uint16_t flags_;
    std::uint8_t cmd_;
};

// --- the socket ----------------------------------------------------------------------

class Fd {
public:
    explicit Fd(int fd) : fd_(fd) {}
    ~Fd() { if (fd_ >= 0) ::close(fd_); }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    int get() const { return fd_; }

private:
    int fd_;
};

int resolve_family()
{
    rblk::NlSockPtr sk(nl_socket_alloc());
    if (!sk || genl_connect(sk.get()) < 0)
        local_fail("cannot open a generic netlink socket");
    const int id = genl_ctrl_resolve(sk.get(), RBLK_GENL_NAME);
    if (id < 0)
        local_fail("generic netlink family rblk not found (is rblk.ko loaded?)");
    return id;
}

// What came back for one request.
struct Answer {
    bool acked = false;       // NLMSG_ERROR (error or 0) or NLMSG_DONE seen
    bool dump_open = false;   // NLM_F_MULTI parts seen, no DONE yet
    std::optional<rblk::KernelAck> ack;
    std::vector<rblk::ControllerInfo> ctrls;  // data replies, parsed
    unsigned data_msgs = 0;
};

class Link {
public:
    explicit Link(unsigned timeout_s)
        : fd_(::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC)), timeout_s_(timeout_s)
    {
        if (fd_.get() < 0)
            local_fail(std::string("socket: ") + std::strerror(errno));
        sockaddr_nl sa{};
        sa.nl_family = AF_NETLINK;
        if (::bind(fd_.get(), reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) < 0)
            local_fail(std::string("bind: ") + std::strerror(errno));
        const int one = 1;
        setsockopt(fd_.get(), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
        setsockopt(fd_.get(), SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
        const int rcvbuf = 1 << 20;
        setsockopt(fd_.get(), SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
    }

    // Sends `m`, then a sentinel (nlctrl GETFAMILY with an ack): once that
    // is acked, everything the kernel had to say about `m` has arrived
    // (except the rest of a dump, read until its DONE).
    Answer exchange(const Msg& m)
    {
        const std::uint32_t seq = next_seq_++;
        const std::uint32_t sentinel = next_seq_++;
        request_ = m.finish(seq);
        send(request_);
        Msg s(GENL_ID_CTRL, NLM_F_REQUEST | NLM_F_ACK, CTRL_CMD_GETFAMILY);
        s.str(CTRL_ATTR_FAMILY_NAME, "nlctrl");
        send(s.finish(sentinel));

        Answer a;
        bool sentinel_acked = false;
        while (!sentinel_acked || (a.dump_open && !a.acked))
            receive(seq, sentinel, a, sentinel_acked);
        return a;
    }

    const Bytes& last_request() const { return request_; }

private:
    void send(const Bytes& b)
    {
        sockaddr_nl to{};
        to.nl_family = AF_NETLINK;
        // The kernel processes a request inside sendmsg(): a hang shows here.
        const ssize_t n = ::sendto(fd_.get(), b.data(), b.size(), 0,
                                   reinterpret_cast<sockaddr*>(&to), sizeof(to));
        if (n < 0)
            local_fail(std::string("sendto: ") + std::strerror(errno));
    }

    void receive(std::uint32_t seq, std::uint32_t sentinel, Answer& a, bool& sentinel_acked)
    {
        pollfd p{fd_.get(), POLLIN, 0};
        const int rc = ::poll(&p, 1, static_cast<int>(timeout_s_ * 1000));
        if (rc == 0) {
            std::cout << "FAIL: no answer within " << timeout_s_ << " s\n";
            std::exit(1);
        }
        if (rc < 0)
            local_fail(std::string("poll: ") + std::strerror(errno));
        const ssize_t n = ::recv(fd_.get(), buf_.data(), buf_.size(), MSG_TRUNC);
        if (n < 0)
            local_fail(std::string("recv: ") + std::strerror(errno));
        if (static_cast<std::size_t>(n) > buf_.size())
            local_fail("a reply of " + std::to_string(n) + " bytes did not fit the buffer");
        int len = static_cast<int>(n);
        for (auto* h = reinterpret_cast<nlmsghdr*>(buf_.data()); NLMSG_OK(h, len);
             h = NLMSG_NEXT(h, len)) {
            if (h->nlmsg_seq == sentinel) {
                if (h->nlmsg_type == NLMSG_ERROR)
                    sentinel_acked = true;
                continue;
            }
            if (h->nlmsg_seq != seq)
                continue;  // a late part of an earlier exchange cannot happen: ignore
            if (h->nlmsg_type == NLMSG_ERROR || h->nlmsg_type == NLMSG_DONE) {
                a.ack = rblk::parse_ack(h);
                a.acked = true;
                a.dump_open = false;
                continue;
            }
            a.data_msgs++;
            if (h->nlmsg_flags & NLM_F_MULTI)
                a.dump_open = true;
            try {
                a.ctrls.push_back(rblk::parse_controller(h));
            } catch (const std::exception&) {
                // Not every reply is a controller (GET_STATS): counted only.
            }
        }
    }

    Fd fd_;
    unsigned timeout_s_;
    std::uint32_t next_seq_ = 1;
    Bytes request_;
    std::array<std::uint8_t, 1 << 17> buf_{};
};

// --- the generator -------------------------------------------------------------------

// Which kind of mutation made a message (for the summary and failure lines).
enum class Kind { RandomCmd, RandomAttrs, WrongTypes, Layout, Nested, Duplicate, Connect, Real };

const char* kind_name(Kind k)
{
    switch (k) {
    case Kind::RandomCmd: return "random-cmd";
    case Kind::RandomAttrs: return "random-attrs";
    case Kind::WrongTypes: return "wrong-types";
    case Kind::Layout: return "layout";
    case Kind::Nested: return "nested";
    case Kind::Duplicate: return "duplicate";
    case Kind::Connect: return "connect-mutation";
    case Kind::Real: return "real-connect";
    }
    return "?";
}

struct Case {
    Msg msg;
    Kind kind;
    bool clean_header;   // genl header complete, reserved 0, flags genl accepts
    bool wire = false;   // a well-formed connect: the answer comes from the network
};

class Generator {
public:
    Generator(const Options& o, int family) : o_(o), family_(family), rng_(o.seed) {}

    Case next(unsigned index)
    {
        if (!o_.target_nqn.empty() && !o_.unprivileged && index % o_.target_every ==
                                                                  o_.target_every / 2)
            return real_connect();
        switch (pick(12)) {
        case 0: return with_kind(random_cmd(), Kind::RandomCmd);
        case 1: case 2: return with_kind(random_attrs(), Kind::RandomAttrs);
        case 3: case 4: return with_kind(wrong_types(), Kind::WrongTypes);
        case 5: case 6: return with_kind(layout(), Kind::Layout);
        case 7: return with_kind(nested(), Kind::Nested);
        case 8: return with_kind(duplicate(), Kind::Duplicate);
        default: return with_kind(connect_mutation(), Kind::Connect);
        }
    }

    unsigned network_attempts() const { return network_; }

private:
    struct Proto {
        Msg msg;
        bool clean;
        bool wire = false;
    };

    unsigned pick(unsigned n) { return std::uniform_int_distribution<unsigned>(0, n - 1)(rng_); }
    bool chance(unsigned percent) { return pick(100) < percent; }
    std::uint8_t byte() { return static_cast<std::uint8_t>(pick(256)); }

    Case with_kind(Proto p, Kind k) { return Case{std::move(p.msg), k, p.clean, p.wire}; }

    // Flags: mostly REQUEST|ACK; sometimes no ACK, a dump, odd bits.
    std::uint16_t flags(bool& clean)
    {
        std::uint16_t f = NLM_F_REQUEST;
        if (chance(75))
            f |= NLM_F_ACK;
        if (chance(10))
            f |= NLM_F_DUMP;
        if (chance(4))
            f |= NLM_F_ECHO;
        if (chance(6))
            f |= static_cast<std::uint16_t>(1u << (4 + pick(8)));  // ROOT alone, ATOMIC, ...
        // genetlink's header check for strict families: REQUEST, ACK, ECHO, a whole DUMP.
        const std::uint16_t rest = (f & NLM_F_DUMP) == NLM_F_DUMP ? f & ~NLM_F_DUMP : f;
        clean = (rest & ~(NLM_F_REQUEST | NLM_F_ACK | NLM_F_ECHO)) == 0;
        if (chance(2)) {
            f &= static_cast<std::uint16_t>(~NLM_F_REQUEST);  // not a request: ignored
            clean = false;
        }
        return f;
    }

    std::uint8_t real_cmd() { return static_cast<std::uint8_t>(RBLK_CMD_CONNECT + pick(4)); }

    Proto start(std::uint8_t cmd)
    {
        bool clean;
        const std::uint16_t f = flags(clean);
        return Proto{Msg(static_cast<std::uint16_t>(family_), f, cmd), clean};
    }

    Bytes random_bytes(std::size_t n)
    {
        Bytes b(n);
        for (auto& c : b)
            c = byte();
        return b;
    }

    std::size_t random_len()
    {
        static constexpr std::array<std::size_t, 14> lens = {0, 1, 2, 3, 4, 5, 7, 8,
                                                             15, 16, 17, 32, 224, 256};
        return chance(90) ? lens[pick(lens.size())] : pick(3000);
    }

    std::uint16_t attr_type()
    {
        if (chance(85))
            return static_cast<std::uint16_t>(pick(RBLK_ATTR_MAX + 4));
        return static_cast<std::uint16_t>(pick(65536));  // NESTED/BYTEORDER bits too
    }

    // A string the control plane might see: good ones, near-misses, long ones.
    std::string some_string()
    {
        static const std::array<std::string, 16> pool = {
            "", "rdma", "tcp", "rblk0", "rblk1", "rblk99", "nqn.", "nqn.x",
            "nqn.2024-01.io.rblk:fuzz", "10.99.0.1", "::1", "fe80::1%veth1",
            "999.1.1.1", "10.99.0.1:4420", "nqn.2014-08.org.nvmexpress.discovery", "\xff\xfe"};
        static constexpr std::array<std::size_t, 10> longs = {15, 16, 31, 32, 223,
                                                              224, 255, 256, 1000, 4000};
        if (chance(70))
            return pool[pick(pool.size())];
        std::string s(longs[pick(longs.size())], 'a');
        if (chance(50))
            s.replace(0, 4, "nqn.");
        return s;
    }

    std::uint64_t boundary()
    {
        static constexpr std::array<std::uint64_t, 20> pool = {
            0, 1, 2, 15, 16, 17, 127, 128, 129, 1023, 1024, 1025, 3600, 3601,
            0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xffffffff, 0xffffffffffffffff};
        return chance(85) ? pool[pick(pool.size())] : rng_();
    }

    // A value of a random width/type for attribute `type`.
    void put_random_value(Msg& m, std::uint16_t type)
    {
        const std::uint64_t v = boundary();
        switch (pick(8)) {
        case 0: m.num<std::uint8_t>(type, static_cast<std::uint8_t>(v)); break;
        case 1: m.num<std::uint16_t>(type, static_cast<std::uint16_t>(v)); break;
        case 2: m.num<std::uint32_t>(type, static_cast<std::uint32_t>(v)); break;
        case 3: m.num<std::uint64_t>(type, v); break;
        case 4: m.str(type, some_string()); break;
        case 5: {  // a string without its NUL
            const std::string s = some_string();
            m.attr(type, s.data(), s.size());
            break;
        }
        case 6: m.attr(type, nullptr, 0); break;
        default: m.attr(type, random_bytes(random_len())); break;
        }
    }

    Proto random_cmd()
    {
        const auto cmd = static_cast<std::uint8_t>(chance(60) ? pick(RBLK_CMD_MAX + 3) : pick(256));
        Proto p = start(cmd);
        for (unsigned i = pick(4); i > 0; i--)
            put_random_value(p.msg, attr_type());
        return p;
    }

    Proto random_attrs()
    {
        Proto p = start(real_cmd());
        for (unsigned i = 1 + pick(8); i > 0; i--) {
            if (chance(50))
                put_random_value(p.msg, attr_type());
            else
                p.msg.attr(attr_type(), random_bytes(random_len()));
        }
        return p;
    }

    // Every attribute of the family, each with a value of some wrong (or right) shape.
    Proto wrong_types()
    {
        Proto p = start(real_cmd());
        const unsigned n = 1 + pick(4);
        for (unsigned i = 0; i < n; i++)
            put_random_value(p.msg, static_cast<std::uint16_t>(1 + pick(RBLK_ATTR_MAX)));
        return p;
    }

    // Attribute headers that lie, trailing bytes, a short or dirty genl header.
    Proto layout()
    {
        Proto p = start(real_cmd());
        Msg& m = p.msg;
        if (chance(40))
            m.str(RBLK_ATTR_CTRL_NAME, "rblk0");
        switch (pick(7)) {
        case 0:  // nla_len below the header size
            m.hdr(static_cast<std::uint16_t>(pick(NLA_HDRLEN)), attr_type());
            break;
        case 1: {  // nla_len past the end of the message
            const auto extra = static_cast<std::uint16_t>(1 + pick(2000));
            m.hdr(static_cast<std::uint16_t>(NLA_HDRLEN + 4 + extra), attr_type());
            m.raw(random_bytes(4));
            break;
        }
        case 2:  // unaligned attribute followed by another
            m.hdr(NLA_HDRLEN + 1, RBLK_ATTR_CTRL_NAME);
            m.raw(random_bytes(1));
            m.hdr(NLA_HDRLEN + 4, RBLK_ATTR_CTRL_ID);
            m.raw(random_bytes(4));
            break;
        case 3:  // 1-3 trailing bytes that are no attribute
            m.raw(random_bytes(1 + pick(3)));
            break;
        case 4:  // the generic netlink header cut short
            m.truncate_payload(pick(GENL_HDRLEN));
            p.clean = false;
            break;
        case 5: {  // reserved field or version set
            bool clean;
            const std::uint16_t f = flags(clean);
            const bool dirty = chance(50);
            p.msg = Msg(static_cast<std::uint16_t>(family_), f, real_cmd(),
                        dirty ? 1 : byte(), dirty ? static_cast<std::uint16_t>(1 + pick(65535)) : 0);
            p.clean = clean && !dirty;
            put_random_value(p.msg, attr_type());
            break;
        }
        default:  // a zero-length attribute of every kind in a row
            for (std::uint16_t t = 1; t <= RBLK_ATTR_MAX; t++)
                m.hdr(NLA_HDRLEN, t);
            break;
        }
        return p;
    }

    // Garbage inside NAMESPACES / STATS, and nests where scalars belong.
    Proto nested()
    {
        Proto p = start(real_cmd());
        Msg& m = p.msg;
        static constexpr std::array<std::uint16_t, 4> where = {
            RBLK_ATTR_NAMESPACES, RBLK_ATTR_STATS, RBLK_ATTR_CTRL_NAME, RBLK_ATTR_SUBNQN};
        const std::size_t outer = m.nest_start(where[pick(where.size())]);
        for (unsigned i = pick(5); i > 0; i--) {
            if (chance(40)) {
                const std::size_t inner = m.nest_start(static_cast<std::uint16_t>(pick(10)));
                put_random_value(m, static_cast<std::uint16_t>(pick(10)));
                m.nest_end(inner);
            } else if (chance(20)) {
                m.hdr(static_cast<std::uint16_t>(pick(64)), static_cast<std::uint16_t>(pick(10)));
            } else {
                put_random_value(m, static_cast<std::uint16_t>(pick(10)));
            }
        }
        m.nest_end(outer);
        return p;
    }

    // A well-formed attribute twice, or a selector given two ways.
    Proto duplicate()
    {
        Proto p = start(real_cmd());
        Msg& m = p.msg;
        switch (pick(4)) {
        case 0:
            m.str(RBLK_ATTR_CTRL_NAME, "rblk0");
            m.str(RBLK_ATTR_CTRL_NAME, "rblk1");
            break;
        case 1:
            m.num<std::uint32_t>(RBLK_ATTR_CTRL_ID, 0);
            m.str(RBLK_ATTR_CTRL_NAME, "rblk0");
            break;
        case 2:
            m.str(RBLK_ATTR_SUBNQN, "nqn.2024-01.io.rblk:fuzz");
            m.num<std::uint32_t>(RBLK_ATTR_CTRL_ID, static_cast<std::uint32_t>(pick(4)));
            break;
        default:
            m.num<std::uint32_t>(RBLK_ATTR_CTRL_ID, static_cast<std::uint32_t>(boundary()));
            m.num<std::uint32_t>(RBLK_ATTR_CTRL_ID, static_cast<std::uint32_t>(boundary()));
            break;
        }
        return p;
    }

    // The attributes of a connect that policy accepts, as (type, bytes).
    struct Field {
        std::uint16_t type;
        Bytes value;
    };
    static Bytes str_bytes(const std::string& s) { return Bytes(s.c_str(), s.c_str() + s.size() + 1); }
    template <typename T> static Bytes num_bytes(T v)
    {
        Bytes b(sizeof(v));
        std::memcpy(b.data(), &v, sizeof(v));
        return b;
    }

    std::vector<Field> valid_connect(const std::string& traddr, std::uint16_t port,
                                     const std::string& nqn)
    {
        std::vector<Field> f = {
            {RBLK_ATTR_TRANSPORT, str_bytes("rdma")},
            {RBLK_ATTR_TRADDR, str_bytes(traddr)},
            {RBLK_ATTR_TRSVCID, num_bytes<std::uint16_t>(port)},
            {RBLK_ATTR_SUBNQN, str_bytes(nqn)},
            {RBLK_ATTR_NR_IO_QUEUES, num_bytes<std::uint32_t>(1)},
            {RBLK_ATTR_QUEUE_SIZE, num_bytes<std::uint32_t>(32)},
        };
        if (chance(50))
            f.push_back({RBLK_ATTR_KATO, num_bytes<std::uint32_t>(static_cast<std::uint32_t>(pick(30)))});
        if (chance(30))
            f.push_back({RBLK_ATTR_HOSTNQN, str_bytes("nqn.2024-01.io.rblk:fuzz-host")});
        if (chance(30))
            f.push_back({RBLK_ATTR_HOSTID, random_bytes(RBLK_HOSTID_LEN)});
        if (chance(20))
            f.push_back({RBLK_ATTR_DUPLICATE_CONNECT, {}});
        return f;
    }

    // One or two mutations of a valid connect; with no mutation that breaks
    // it (within the budget), it goes on the wire to the closed port.
    Proto connect_mutation()
    {
        std::vector<Field> f = valid_connect(o_.closed_traddr, o_.closed_trsvcid,
                                             "nqn.2024-01.io.rblk:fuzz");
        const bool on_wire = network_ < o_.network_budget && chance(25);
        if (on_wire) {
            network_++;
            if (chance(50))  // still valid: other in-range values
                f.push_back({RBLK_ATTR_RECONNECT_DELAY, num_bytes<std::uint32_t>(1 + pick(5))});
        } else {
            for (unsigned i = pick(3); i > 0; i--)
                mutate(f);
            break_semantics(f);
        }
        Proto p = start(RBLK_CMD_CONNECT);
        for (const Field& x : f)
            p.msg.attr(x.type, x.value);
        p.wire = on_wire;
        return p;
    }

    // Appends one value that policy accepts but the module must refuse (the
    // last of duplicated attributes wins), so a mutant that got past policy
    // is still refused before it reaches the wire.
    void break_semantics(std::vector<Field>& f)
    {
        switch (pick(6)) {
        case 0: f.push_back({RBLK_ATTR_TRADDR, str_bytes("not-an-address")}); break;
        case 1: f.push_back({RBLK_ATTR_TRADDR, str_bytes("10.99.0.256")}); break;
        case 2: f.push_back({RBLK_ATTR_TRANSPORT, str_bytes("tcp")}); break;
        // NQNs are free-form, as in the kernel's nvme-fabrics: only an empty one is refused.
        case 3: f.push_back({RBLK_ATTR_SUBNQN, str_bytes("")}); break;
        case 4: f.push_back({RBLK_ATTR_HOSTNQN, str_bytes("")}); break;
        default:  // reconnecting more slowly than the loss timeout
            f.push_back({RBLK_ATTR_CTRL_LOSS_TMO, num_bytes<std::int32_t>(5)});
            f.push_back({RBLK_ATTR_RECONNECT_DELAY, num_bytes<std::uint32_t>(6)});
            break;
        }
    }

    void mutate(std::vector<Field>& f)
    {
        const std::size_t i = pick(static_cast<unsigned>(f.size()));
        switch (pick(6)) {
        case 0: f.erase(f.begin() + static_cast<long>(i)); break;
        case 1: f.push_back(f[i]); break;
        case 2: f[i].value = random_bytes(random_len()); break;
        case 3: f[i].value = num_bytes<std::uint64_t>(boundary()); f[i].value.resize(1 + pick(8)); break;
        case 4: f[i].value = str_bytes(some_string()); break;
        default: f.push_back({static_cast<std::uint16_t>(RBLK_ATTR_STATE + pick(8)), random_bytes(4)}); break;
        }

    }

    Case real_connect()
    {
        Msg m(static_cast<std::uint16_t>(family_), NLM_F_REQUEST | NLM_F_ACK, RBLK_CMD_CONNECT);
        for (const Field& x : valid_connect(o_.target_traddr, o_.target_trsvcid, o_.target_nqn))
            m.attr(x.type, x.value);
        return Case{std::move(m), Kind::Real, true, true};
    }

    const Options& o_;
    int family_;
    std::mt19937_64 rng_;
    unsigned network_ = 0;
};

// --- checks and the run ------------------------------------------------------------

class Run {
public:
    Run(const Options& o, int family) : o_(o), family_(family), link_(o.reply_timeout) {}

    int go()
    {
        const std::vector<std::string> before = names(list());
        Generator gen(o_, family_);
        for (unsigned i = 0; i < o_.count; i++) {
            Case c = gen.next(i);
            // The kernel handles a request inside sendmsg(): bound that too.
            ::alarm(o_.reply_timeout + 5);
            const auto t0 = std::chrono::steady_clock::now();
            const Answer a = link_.exchange(c.msg);
            const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                std::chrono::steady_clock::now() - t0).count();
            ::alarm(0);
            check(i, c, a);
            if (c.wire)
                log_wire(i, c, a, ms);
        }
        if (o_.unprivileged) {
            const std::vector<std::string> after = names(list());
            if (after != before)
                fail_now("unprivileged requests changed the controllers: " + join(before) +
                         " -> " + join(after));
        } else {
            cleanup();
        }
        report(gen);
        return failures_ ? 1 : 0;
    }

private:
    void check(unsigned i, const Case& c, const Answer& a)
    {
        sent_++;
        const bool admin = c.msg.cmd() == RBLK_CMD_CONNECT || c.msg.cmd() == RBLK_CMD_DISCONNECT;
        const bool to_family = c.msg.type() == family_ && (c.msg.flags() & NLM_F_REQUEST);
        if ((c.msg.flags() & NLM_F_ACK) && to_family && !a.acked)
            fail(i, c, "no ack or error for a request with NLM_F_ACK");
        const int err = a.ack ? -a.ack->error : 0;
        // Without NLM_F_REQUEST netlink only acks (when asked): not an "ok" of rblk's.
        const std::string answer = !(c.msg.flags() & NLM_F_REQUEST) ? "not-a-request"
                                   : !a.acked ? (a.data_msgs ? "reply-no-ack" : "processed-no-ack")
                                   : err      ? rblk::errno_name(err)
                                              : "ok";
        histogram_[answer]++;
        if (c.wire)
            wire_[answer]++;
        if (err && !kAllowed.count(err))
            fail(i, c, "errno " + rblk::errno_name(err) + " is not in the allowed set");
        if (err && a.ack && !a.ack->message.empty())
            extack_++;
        // Validation errors must say why; a refused connection need not.
        const bool policy_err = (err == EINVAL || err == ERANGE) && !c.wire;
        if (policy_err && c.clean_header && c.msg.payload_len() >= GENL_HDRLEN &&
            c.msg.cmd() >= RBLK_CMD_CONNECT && c.msg.cmd() <= RBLK_CMD_GET_STATS &&
            a.ack->message.empty())
            fail(i, c, rblk::errno_name(err) + " without an extack message");
        if (o_.unprivileged && admin && to_family) {
            admin_++;
            // A dump of a command that has no dump operation: 6.1's
            // genetlink checks the permission first (EPERM), 6.2 and later
            // look the operation up first and have none (EOPNOTSUPP).
            // Either way it did not run; anything else must be EPERM.
            const bool dump_of_doit = (c.msg.flags() & NLM_F_DUMP) == NLM_F_DUMP;
            if (err == EPERM)
                eperm_++;
            else if (dump_of_doit && err == EOPNOTSUPP)
                dump_refused_++;
            else if (c.clean_header && c.msg.payload_len() >= GENL_HDRLEN)
                fail(i, c, "unprivileged " + std::string(c.msg.cmd() == RBLK_CMD_CONNECT
                                                              ? "CONNECT" : "DISCONNECT") +
                               " answered " + (err ? rblk::errno_name(err) : "ok") + ", not EPERM");
            else if (!err && a.acked)
                fail(i, c, "unprivileged admin request succeeded");
        }
        if (c.msg.cmd() == RBLK_CMD_CONNECT && to_family && a.acked && !err && a.ctrls.empty())
            fail(i, c, "CONNECT succeeded but the reply named no controller");
        if (c.kind == Kind::Real)
            real_++;
        if (c.msg.cmd() == RBLK_CMD_CONNECT && !err)
            for (const rblk::ControllerInfo& ci : a.ctrls) {
                created_.insert(ci.name);
                connected_++;
            }
    }

    // Each connect that goes on the wire, for the log (and the slowest one).
    void log_wire(unsigned i, const Case& c, const Answer& a, long ms)
    {
        const int err = a.ack ? -a.ack->error : 0;
        std::cout << "nlfuzz: #" << i << ' ' << kind_name(c.kind) << " flags 0x" << std::hex
                  << c.msg.flags() << std::dec << " -> "
                  << (!a.acked ? "no ack" : err ? rblk::errno_name(err) : "ok");
        for (const rblk::ControllerInfo& ci : a.ctrls)
            std::cout << ' ' << ci.name << " (" << ci.traddr << ':' << ci.trsvcid << ')';
        std::cout << " in " << ms << " ms\n";
        slowest_wire_ms_ = std::max(slowest_wire_ms_, ms);
    }

    std::vector<rblk::ControllerInfo> list()
    {
        Msg m(static_cast<std::uint16_t>(family_), NLM_F_REQUEST | NLM_F_DUMP, RBLK_CMD_GET_CTRL);
        const Answer a = link_.exchange(m);
        if (!a.acked || (a.ack && a.ack->error))
            fail_now("listing the controllers failed");
        return a.ctrls;
    }

    static std::vector<std::string> names(const std::vector<rblk::ControllerInfo>& cs)
    {
        std::vector<std::string> n;
        for (const auto& c : cs)
            n.push_back(c.name);
        std::sort(n.begin(), n.end());
        return n;
    }

    static std::string join(const std::vector<std::string>& v)
    {
        std::string s = "[";
        for (const auto& x : v)
            s += (s.size() > 1 ? "," : "") + x;
        return s + "]";
    }

    // Disconnects what the run created; with --expect-empty, waits for the
    // list to be empty (deletion finishes in the background).
    void cleanup()
    {
        for (const std::string& name : created_) {
            Msg m(static_cast<std::uint16_t>(family_), NLM_F_REQUEST | NLM_F_ACK, RBLK_CMD_DISCONNECT);
            m.str(RBLK_ATTR_CTRL_NAME, name);
            const Answer a = link_.exchange(m);
            const int err = a.ack ? -a.ack->error : -1;
            if (err && err != ENODEV)
                fail_now("disconnect " + name + ": " + rblk::errno_name(err));
        }
        if (!o_.expect_empty)
            return;
        for (int tries = 0; tries < 300; tries++) {
            left_ = names(list());
            if (left_.empty())
                return;
            ::usleep(100000);
        }
        fail_now("controllers left after the run: " + join(left_));
    }

    void report(const Generator& gen)
    {
        const std::string tag = "RESULT: nlfuzz[" + o_.label + "] ";
        std::cout << tag << "seed=" << o_.seed << " sent=" << sent_ << " extack_msgs=" << extack_
                  << " wire_connects=" << gen.network_attempts() << " real_connects=" << real_
                  << " connected=" << connected_ << " slowest_wire_ms=" << slowest_wire_ms_
                  << " failures=" << failures_ << '\n';
        std::cout << tag << "answers";
        for (const auto& [k, v] : histogram_)
            std::cout << ' ' << k << '=' << v;
        std::cout << '\n';
        if (!wire_.empty()) {
            std::cout << tag << "wire_connect_answers";
            for (const auto& [k, v] : wire_)
                std::cout << ' ' << k << '=' << v;
            std::cout << '\n';
        }
        if (o_.unprivileged)
            std::cout << tag << "admin_requests=" << admin_ << " eperm=" << eperm_
                      << " dump_no_op=" << dump_refused_ << '\n';
    }

    void fail(unsigned i, const Case& c, const std::string& why)
    {
        failures_++;
        if (failures_ > 20)
            return;
        std::cout << "FAIL: message #" << i << " (" << kind_name(c.kind) << ", cmd "
                  << unsigned(c.msg.cmd()) << ", flags 0x" << std::hex << c.msg.flags()
                  << std::dec << "): " << why << "\n  bytes:";
        for (std::uint8_t b : link_.last_request())
            std::cout << ' ' << std::hex << unsigned(b) << std::dec;
        std::cout << '\n';
    }

    [[noreturn]] void fail_now(const std::string& why)
    {
        std::cout << "FAIL: " << why << '\n';
        std::exit(1);
    }

    const Options& o_;
    int family_;
    Link link_;
    std::map<std::string, unsigned> histogram_;
    std::map<std::string, unsigned> wire_;  // answers to well-formed connects
    std::set<std::string> created_;
    std::vector<std::string> left_;
    unsigned sent_ = 0, extack_ = 0, admin_ = 0, eperm_ = 0, dump_refused_ = 0, real_ = 0,
             connected_ = 0;
    unsigned failures_ = 0;
    long slowest_wire_ms_ = 0;
};

}  // namespace

int main(int argc, char** argv)
{
    Options o;
    CLI::App app("rblk_nlfuzz: random and malformed requests to the rblk netlink family",
                 "rblk_nlfuzz");
    app.add_option("--seed", o.seed, "PRNG seed (default: random, printed)");
    app.add_option("--count", o.count, "Messages to send")->check(CLI::PositiveNumber);
    app.add_option("--closed-traddr", o.closed_traddr, "Address for connects that must fail");
    app.add_option("--closed-trsvcid", o.closed_trsvcid, "Port where nothing listens");
    app.add_option("--target-nqn", o.target_nqn, "A real subsystem: some connects succeed");
    app.add_option("--target-traddr", o.target_traddr, "Its address");
    app.add_option("--target-trsvcid", o.target_trsvcid, "Its port");
    app.add_option("--target-every", o.target_every, "One real connect every N messages")
        ->check(CLI::PositiveNumber);
    app.add_option("--network-budget", o.network_budget, "Well-formed connects to the closed port");
    app.add_option("--reply-timeout", o.reply_timeout, "Seconds to wait for an answer")
        ->check(CLI::PositiveNumber);
    app.add_flag("--unprivileged", o.unprivileged, "Expect EPERM for CONNECT/DISCONNECT");
    app.add_flag("--expect-empty", o.expect_empty, "Fail unless no controller is left at the end");
    app.add_option("--label", o.label, "Name in the RESULT lines");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0)
            return app.exit(e);
        std::cerr << "rblk_nlfuzz: " << e.what() << '\n';
        return 2;
    }
    std::signal(SIGALRM, on_alarm);
    if (!app.count("--seed"))
        o.seed = std::random_device{}();
    std::cout << "nlfuzz: seed=" << o.seed << " count=" << o.count << " (replay with --seed "
              << o.seed << ")" << std::endl;
    try {
        return Run(o, resolve_family()).go();
    } catch (const std::exception& e) {
        local_fail(e.what());
    }
}
