// Errors librblk reports. A kernel refusal (KernelError) carries errno, the
// kernel's extack message and the attribute it blamed, so callers can print
// one precise line instead of a bare strerror.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

namespace rblk {

// Any failure of a netlink operation; local ones (allocation, socket I/O,
// a malformed reply) are thrown as Error itself.
class Error : public std::runtime_error {
public:
    Error(int errnum, const std::string& what);

    std::error_code code() const noexcept { return code_; }
    int errnum() const noexcept { return code_.value(); }

private:
    std::error_code code_;
};

// The kernel answered a request with an error.
class KernelError : public Error {
public:
    // errnum: positive errno. extack/attribute: empty when the kernel gave none.
    // context: what was being done ("connect"), shown only without an extack.
    KernelError(int errnum, std::string extack, std::string attribute,
                bool attribute_missing = false, std::string_view context = {});

    const std::string& extack() const noexcept { return extack_; }
    // Name of the offending attribute (see attr_names.hpp), or empty.
    const std::string& attribute() const noexcept { return attribute_; }
    // True when the kernel said the attribute was required but absent.
    bool attribute_missing() const noexcept { return attribute_missing_; }

private:
    std::string extack_;
    std::string attribute_;
    bool attribute_missing_ = false;
};

// The generic netlink family "rblk" is not registered: rblk.ko is not loaded.
class ModuleNotLoaded : public Error {
public:
    ModuleNotLoaded();
};

// A ConnectOptions (or other user input) value is invalid; what() says which and why.
class InvalidOption : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

// One-line description used as KernelError::what(), exposed for tests: the
// extack (else "context: strerror"), then " (attribute: NAME)" unless the
// extack already names the attribute as a word.
std::string describe_error(int errnum, std::string_view extack, std::string_view attribute,
                           bool attribute_missing, std::string_view context);

// "EINVAL" for EINVAL; "E<number>" when the C library has no name for it.
std::string errno_name(int errnum);

}  // namespace rblk
