// Printable names of the netlink attributes in uapi/rblk.h, for error
// messages ("attribute: traddr") and the test probe. The names are the enum
// names without their prefix, lower case.
#pragma once

#include <string>

namespace rblk {

std::string attr_name(int type);       // enum rblk_attr:      "traddr"
std::string ns_attr_name(int type);    // enum rblk_ns_attr:   "nsid"
std::string stat_attr_name(int type);  // enum rblk_stat_attr: "read_bytes"

}  // namespace rblk
