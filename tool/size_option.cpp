// Options whose value is a byte count. rblk::bench::parse_size_option is
// the one parser: read and write bind through add_size_option(), bench
// validates its text in rblk::bench::parse_options() with the same call, so
// every command takes the same suffixes and refuses a bad value in the
// same words.
#include "commands.hpp"

#include <rblk/bench/options.hpp>

namespace rblkctl {

const char* const kSizeHelp =
    "SIZE: bytes, or with a suffix k, m, g, t or p, powers of 1024 as in fio (64m is "
    "67108864; 4KiB, fio's compatibility spelling, is 4000).";

namespace {

std::uint64_t size_value(const std::string& name, const std::string& text)
{
    try {
        return rblk::bench::parse_size_option(name, text);
    } catch (const rblk::bench::OptionError& e) {
        throw CLI::ValidationError(e.what());  // a usage error, as CLI11's own
    }
}

}  // namespace

CLI::Option* add_size_option(CLI::App* sub, const std::string& name, std::uint64_t& into,
                             const std::string& help)
{
    return sub
        ->add_option_function<std::string>(
            name, [name, &into](const std::string& text) { into = size_value(name, text); }, help)
        ->type_name("SIZE")
        ->default_str(std::to_string(into));
}

CLI::Option* add_size_option(CLI::App* sub, const std::string& name,
                             std::optional<std::uint64_t>& into, const std::string& help)
{
    return sub
        ->add_option_function<std::string>(
            name, [name, &into](const std::string& text) { into = size_value(name, text); }, help)
        ->type_name("SIZE");
}

void note_sizes(CLI::App* sub)
{
    sub->footer(std::string(kSizeHelp) + "\n\n" + sub->get_footer());
}

}  // namespace rblkctl
