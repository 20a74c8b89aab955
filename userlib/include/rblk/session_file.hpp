// Reading and writing the sessions file (format: session_config.hpp).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace rblk {

// Throws InvalidOption with the path and the reason (missing, unreadable,
// not JSON with the parser's position). "-" reads standard input.
nlohmann::json read_json_file(const std::string& path);

// Writes atomically (temporary file in the same directory, then rename),
// creating the parent directory if needed. Throws std::system_error.
void write_json_file(const std::string& path, const nlohmann::json& content);

}  // namespace rblk
