// Reading and writing the sessions file (format: session_config.hpp), and
// the atomic file write it and the host identity files share.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <sys/types.h>

namespace rblk {

// Throws InvalidOption with the path and the reason (missing, unreadable,
// not JSON with the parser's position). "-" reads standard input.
nlohmann::json read_json_file(const std::string& path);
// Its two halves: the bytes of the file ("-": standard input), and JSON
// from them (nlohmann::json or, to keep a file's key order, ordered_json),
// with the same messages.
std::string read_text_file(const std::string& path);
template <typename Json>
Json parse_json_text(const std::string& text, const std::string& path);

// Writes atomically (temporary file in the same directory, then rename),
// creating the parent directory if needed, with `mode` whatever the umask.
// Throws std::system_error.
void write_json_file(const std::string& path, const nlohmann::json& content, mode_t mode = 0644);

// All of `content` to fd (a short write continues, EINTR retries).
// Throws std::system_error naming `what`.
void write_all(int fd, std::string_view content, const std::string& what);

// How write_file() treats a file that is already there.
enum class Existing { Replace, Keep };

// Writes `content` to a temporary file in path's directory (created if
// needed) with exactly `mode` (no umask), flushed to disk, then moves it to
// `path`: readers see the whole old file or the whole new one. With
// Existing::Keep a file already there (another writer won a race) is left
// alone and false is returned. Throws std::system_error naming the path.
bool write_file(const std::string& path, std::string_view content, mode_t mode = 0644,
                Existing existing = Existing::Replace);

}  // namespace rblk
