#include "rblk/session_file.hpp"

#include "rblk/error.hpp"

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <system_error>
#include <unistd.h>

namespace rblk {

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
        throw InvalidOption(path + ": not valid JSON (" + e.what() + ")");
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
