#include "rblk/error.hpp"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <string.h>

namespace rblk {
namespace {

bool is_word_char(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// True when `word` occurs in `text` as a whole word ("traddr" in
// "missing required attribute: traddr", not "id" in "valid").
bool names_word(std::string_view text, std::string_view word)
{
    for (auto pos = text.find(word); pos != std::string_view::npos;
         pos = text.find(word, pos + 1)) {
        const auto end = pos + word.size();
        if ((pos == 0 || !is_word_char(text[pos - 1])) &&
            (end == text.size() || !is_word_char(text[end])))
            return true;
    }
    return false;
}

}  // namespace

std::string describe_error(int errnum, std::string_view extack, std::string_view attribute,
                           bool attribute_missing, std::string_view context)
{
    std::string s;
    if (!extack.empty()) {
        s = extack;
    } else {
        if (!context.empty())
            s.append(context).append(": ");
        s += std::generic_category().message(errnum);
    }
    // The kernel's message may already name the attribute: say it once.
    if (!attribute.empty() && !names_word(extack, attribute))
        s.append(attribute_missing ? " (missing attribute: " : " (attribute: ")
            .append(attribute).append(")");
    return s;
}

std::string errno_name(int errnum)
{
    if (const char* n = strerrorname_np(errnum))
        return n;
    return "E" + std::to_string(errnum);
}

Error::Error(int errnum, const std::string& what)
    : std::runtime_error(what), code_(errnum, std::generic_category())
{
}

KernelError::KernelError(int errnum, std::string extack, std::string attribute,
                         bool attribute_missing, std::string_view context)
    : Error(errnum, describe_error(errnum, extack, attribute, attribute_missing, context)),
      extack_(std::move(extack)),
      attribute_(std::move(attribute)),
      attribute_missing_(attribute_missing)
{
}

ModuleNotLoaded::ModuleNotLoaded()
    : Error(ENOENT, "rblk kernel module is not loaded; run: modprobe rblk")
{
}

}  // namespace rblk
