#include "rblk/session_file.hpp"

#include "rblk/error.hpp"
#include "rblk/unique_fd.hpp"

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string_view>
#include <system_error>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace rblk {
namespace {

// nlohmann's "[json.exception.parse_error.101] parse error at line 3,
// column 5: syntax error ..." without the exception id and "parse error at ".
std::string parse_error_text(std::string_view what)
{
    if (what.starts_with("[json.exception.")) {
        if (const auto end = what.find("] "); end != std::string_view::npos)
            what.remove_prefix(end + 2);
    }
    if (what.starts_with("parse error at "))
        what.remove_prefix(std::string_view("parse error at ").size());
    return std::string(what);
}

}  // namespace

std::string read_text_file(const std::string& path)
{
    std::ifstream file;
    if (path != "-") {
        file.open(path, std::ios::binary);
        if (!file)
            throw InvalidOption(path + ": " + std::generic_category().message(errno));
    }
    std::ostringstream text;
    text << (path == "-" ? std::cin.rdbuf() : file.rdbuf());
    return text.str();
}

template <typename Json>
Json parse_json_text(const std::string& text, const std::string& path)
{
    try {
        return Json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        throw InvalidOption((path == "-" ? "stdin" : path) + ": not valid JSON: " +
                            parse_error_text(e.what()));
    }
}
template nlohmann::json parse_json_text<nlohmann::json>(const std::string&, const std::string&);
template nlohmann::ordered_json parse_json_text<nlohmann::ordered_json>(const std::string&,
                                                                        const std::string&);

nlohmann::json read_json_file(const std::string& path)
{
    return parse_json_text<nlohmann::json>(read_text_file(path), path);
}

void write_json_file(const std::string& path, const nlohmann::json& content, mode_t mode)
{
    write_file(path, content.dump(2) + '\n', mode);
}

void write_all(int fd, std::string_view content, const std::string& what)
{
    for (std::string_view rest = content; !rest.empty();) {
        const ssize_t n = ::write(fd, rest.data(), rest.size());
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            throw std::system_error(errno, std::generic_category(), what);
        rest.remove_prefix(static_cast<std::size_t>(n));
    }
}

bool write_file(const std::string& path, std::string_view content, mode_t mode,
                Existing existing)
{
    namespace fs = std::filesystem;
    const fs::path target(path);
    if (target.has_parent_path()) {
        std::error_code ec;
        fs::create_directories(target.parent_path(), ec);
        if (ec)
            throw std::system_error(ec, target.parent_path().string());
    }
    const auto fail = [](const std::string& what) {
        throw std::system_error(errno, std::generic_category(), what);
    };
    // Same directory, so the rename (or link) is atomic.
    const std::string tmp = path + ".tmp." + std::to_string(::getpid());
    const UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode));
    if (!fd)
        fail(tmp);
    // The temporary goes on every way out (after a rename it is already gone).
    struct Unlink {
        const std::string& path;
        ~Unlink() { ::unlink(path.c_str()); }
    } const cleanup{tmp};
    // The mode asked for, not what the umask leaves of it.
    if (::fchmod(fd.get(), mode) < 0)
        fail(tmp);
    write_all(fd.get(), content, tmp);
    if (::fsync(fd.get()) < 0)
        fail(tmp);
    if (existing == Existing::Keep) {
        // link() fails with EEXIST where rename() would replace.
        if (::link(tmp.c_str(), path.c_str()) == 0)
            return true;
        if (errno == EEXIST)
            return false;
        fail(path);
    }
    if (::rename(tmp.c_str(), path.c_str()) < 0)
        fail(path);
    return true;
}

}  // namespace rblk
