#include "rblk/session_file.hpp"

#include "rblk/error.hpp"

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string_view>
#include <system_error>
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

nlohmann::json read_json_file(const std::string& path)
{
    std::ifstream file;
    if (path != "-") {
        file.open(path);
        if (!file)
            throw InvalidOption(path + ": " + std::generic_category().message(errno));
    }
    try {
        return nlohmann::json::parse(path == "-" ? std::cin : file);
    } catch (const nlohmann::json::parse_error& e) {
        throw InvalidOption((path == "-" ? "stdin" : path) + ": not valid JSON: " +
                            parse_error_text(e.what()));
    }
}

void write_json_file(const std::string& path, const nlohmann::json& content)
{
    namespace fs = std::filesystem;
    const fs::path target(path);
    if (target.has_parent_path())
        fs::create_directories(target.parent_path());
    // Same directory, so the rename is atomic: readers see the old or the new file.
    const fs::path tmp = target.string() + ".tmp." + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::trunc);
        out << content.dump(2) << '\n';
        out.flush();
        if (!out) {
            const std::error_code ec(errno, std::generic_category());
            fs::remove(tmp);
            throw std::system_error(ec, tmp.string());
        }
    }
    std::error_code ec;
    fs::rename(tmp, target, ec);
    if (ec) {
        fs::remove(tmp);
        throw std::system_error(ec, path);
    }
}

}  // namespace rblk
