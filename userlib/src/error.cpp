#include "rblk/error.hpp"

#include <cerrno>
#include <cstring>
#include <string.h>

namespace rblk {

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
    if (!attribute.empty())
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
