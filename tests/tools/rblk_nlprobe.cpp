// rblk_nlprobe: a test tool for the VM suite. Sends one "rblk" netlink
// request with exactly the attributes given (no client-side validation) and
// prints one line describing the kernel's answer:
//   ok                                          exit 0
//   error <ERRNAME> attr=<name|-> msg=<extack|->  exit 1
// Local failures (bad arguments, no module, socket errors): stderr, exit 2.
//
//   rblk_nlprobe connect [--transport S] [--traddr S] [--trsvcid N] [--subnqn S]
//                        [--hostnqn S] [--queue-size N] [--nr-io-queues N] [--kato N]
//   rblk_nlprobe disconnect --name S
//   rblk_nlprobe get [--dump] [--name S] [--id N] [--subnqn S] [--with-secrets]
#include <rblk/client.hpp>
#include <rblk/error.hpp>

#include <uapi/rblk.h>

#include <CLI/CLI.hpp>

#include <cstdint>
#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace {

// One attribute to send: type, and a string, an integer of `width` bytes or
// neither (a flag).
struct RawAttr {
    int type;
    std::optional<std::string> str;
    std::optional<std::uint64_t> num;
    int width = 0;
};

struct ProbeRequest {
    std::uint8_t cmd = RBLK_CMD_UNSPEC;
    int flags = 0;
    std::vector<RawAttr> attrs;
};

void put(nl_msg* msg, const RawAttr& a)
{
    int rc;
    if (a.str)
        rc = nla_put_string(msg, a.type, a.str->c_str());
    else if (!a.num)
        rc = nla_put_flag(msg, a.type);
    else if (a.width == 2)
        rc = nla_put_u16(msg, a.type, static_cast<std::uint16_t>(*a.num));
    else
        rc = nla_put_u32(msg, a.type, static_cast<std::uint32_t>(*a.num));
    if (rc < 0)
        throw std::runtime_error("cannot add attribute " + std::to_string(a.type));
}

class Parser {
public:
    explicit Parser(ProbeRequest& req) : req_(req) {}

    // Collects a string option into an attribute when it is given.
    void string(CLI::App* sub, const std::string& flag, int type)
    {
        sub->add_option_function<std::string>(flag, [this, type](const std::string& v) {
            req_.attrs.push_back({type, v, std::nullopt, 0});
        });
    }

    // Collects an integer option; it must fit the attribute's width.
    void number(CLI::App* sub, const std::string& flag, int type, int width)
    {
        const std::uint64_t max = width == 2 ? std::numeric_limits<std::uint16_t>::max()
                                             : std::numeric_limits<std::uint32_t>::max();
        sub->add_option_function<std::uint64_t>(
            flag, [this, type, width, max, flag](const std::uint64_t& v) {
                if (v > max)
                    throw CLI::ValidationError(flag, "does not fit a u" + std::to_string(width * 8));
                req_.attrs.push_back({type, std::nullopt, v, width});
            });
    }

    void flag(CLI::App* sub, const std::string& name, int type)
    {
        sub->add_flag_callback(name, [this, type] {
            req_.attrs.push_back({type, std::nullopt, std::nullopt, 0});
        });
    }

private:
    ProbeRequest& req_;
};

void build_cli(CLI::App& app, ProbeRequest& req, Parser& p)
{
    app.require_subcommand(1);
    CLI::App* connect = app.add_subcommand("connect", "RBLK_CMD_CONNECT");
    connect->callback([&req] { req.cmd = RBLK_CMD_CONNECT; });
    p.string(connect, "--transport", RBLK_ATTR_TRANSPORT);
    p.string(connect, "--traddr", RBLK_ATTR_TRADDR);
    p.number(connect, "--trsvcid", RBLK_ATTR_TRSVCID, 2);
    p.string(connect, "--subnqn", RBLK_ATTR_SUBNQN);
    p.string(connect, "--hostnqn", RBLK_ATTR_HOSTNQN);
    p.number(connect, "--queue-size", RBLK_ATTR_QUEUE_SIZE, 4);
    p.number(connect, "--nr-io-queues", RBLK_ATTR_NR_IO_QUEUES, 4);
    p.number(connect, "--kato", RBLK_ATTR_KATO, 4);

    CLI::App* disconnect = app.add_subcommand("disconnect", "RBLK_CMD_DISCONNECT");
    disconnect->callback([&req] { req.cmd = RBLK_CMD_DISCONNECT; });
    p.string(disconnect, "--name", RBLK_ATTR_CTRL_NAME);

    CLI::App* get = app.add_subcommand("get", "RBLK_CMD_GET_CTRL");
    get->callback([&req] { req.cmd = RBLK_CMD_GET_CTRL; });
    p.string(get, "--name", RBLK_ATTR_CTRL_NAME);
    p.number(get, "--id", RBLK_ATTR_CTRL_ID, 4);
    p.string(get, "--subnqn", RBLK_ATTR_SUBNQN);
    p.flag(get, "--with-secrets", RBLK_ATTR_WITH_SECRETS);
    // A dump refuses a bad selector in its first round, not in a doit.
    get->add_flag_callback("--dump", [&req] { req.flags = NLM_F_DUMP; });
}

std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }

}  // namespace

int main(int argc, char** argv)
{
    ProbeRequest req;
    Parser parser(req);
    CLI::App app("rblk_nlprobe: send one raw rblk netlink request", "rblk_nlprobe");
    build_cli(app, req, parser);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0)
            return app.exit(e);
        std::cerr << "rblk_nlprobe: " << e.what() << '\n';
        return 2;
    }

    try {
        rblk::Client client;
        client.request(
            req.cmd, req.flags,
            [&](nl_msg* msg) {
                for (const RawAttr& a : req.attrs)
                    put(msg, a);
            },
            [](nlmsghdr*) {}, "probe");
        std::cout << "ok\n";
        return 0;
    } catch (const rblk::KernelError& e) {
        std::cout << "error " << rblk::errno_name(e.errnum()) << " attr=" << or_dash(e.attribute())
                  << " msg=" << or_dash(e.extack()) << '\n';
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "rblk_nlprobe: " << e.what() << '\n';
        return 2;
    }
}
