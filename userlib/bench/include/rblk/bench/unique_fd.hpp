// The bench engine's file descriptors are librblk's UniqueFd (rblk/unique_fd.hpp).
#pragma once

#include "rblk/unique_fd.hpp"

namespace rblk::bench {

using rblk::UniqueFd;

}  // namespace rblk::bench
