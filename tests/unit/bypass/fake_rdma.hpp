// A stand-in for librdmacm and libibverbs, linked into a test program ahead
// of the real libraries (its extern "C" definitions win at link time): a
// Queue resolves, connects and disconnects against it without an RDMA
// device, so its host-side logic (failure, teardown) runs on the host.
// CM events are queued in order, as rdma_cm would deliver them for each
// step; posts and polls succeed and complete nothing. Not thread safe but
// for what a test reads back (the counters).
#pragma once

#include <rdma/rdma_cma.h>

#include <atomic>

namespace fake_rdma {

// Back to a healthy fake: no failure armed, no events left, counters zero.
void reset();

// From now on rdma_get_cm_event() fails with `err` (0: it works again),
// as a CM channel whose device went away does.
void fail_cm_reads(int err);

// The protection domain a Queue connects on (its context is the fake device).
ibv_pd* pd();

// rdma_disconnect() calls since reset().
int disconnects();

}  // namespace fake_rdma
