// A stand-in for librdmacm and libibverbs, linked into a test program ahead
// of the real libraries (its extern "C" definitions win at link time): a
// Queue resolves, connects and disconnects against it without an RDMA
// device, so its host-side logic (failure, teardown) runs on the host.
// CM events are queued in order, as rdma_cm would deliver them for each
// step. Posts succeed and are recorded; polls return what a test queued
// with complete() (nothing by default). Not thread safe but for what a
// test reads back (the counters).
#pragma once

#include <rdma/rdma_cma.h>

#include <atomic>
#include <cstdint>
#include <vector>

namespace fake_rdma {

// One posted work request: its wr_id, its buffers (the first, and the
// second if it has one: data = 0 else) and whether it was signaled.
struct Posted {
    std::uint64_t wr_id;
    std::uint64_t addr;
    bool signaled;
    int num_sge = 1;
    std::uint64_t data = 0;
    std::uint32_t data_len = 0;
    std::uint32_t data_lkey = 0;
};

// Back to a healthy fake: no failure armed, no events left, counters zero.
void reset();

// From now on rdma_get_cm_event() fails with `err` (0: it works again),
// as a CM channel whose device went away does.
void fail_cm_reads(int err);

// From now on rdma_connect() fails with `err` (0: it works again), as
// siw's does with ECONNREFUSED when nobody listens at the port (iWARP
// makes its TCP connection inside the call).
void fail_connects(int err);

// The protection domain a Queue connects on (its context is the fake device).
ibv_pd* pd();

// rdma_disconnect() calls since reset().
int disconnects();

// ibv_post_send() and ibv_post_recv() calls since reset() (doorbells),
// and every work request they carried, in order.
int send_posts();
int recv_posts();
const std::vector<Posted>& sends();
const std::vector<Posted>& recvs();

// Queues a work completion for the next ibv_poll_cq() calls; if the CQ
// is armed, its event fires (the completion channel becomes readable).
void complete(const ibv_wc& wc);
// A completion that comes while the caller sleeps: it fires the event
// once the CQ is armed (at once if it is), and ibv_poll_cq() finds it
// only after ibv_get_cq_event() took that event.
void complete_on_wake(const ibv_wc& wc);
// ibv_req_notify_cq() and ibv_poll_cq() calls since reset().
int arms();
int polls();
// ibv_get_cq_event() calls since reset(), those that found no event too
// (each a read() of the completion channel).
int event_reads();

// Completion queues made since reset().
int cqs_made();

// Memory regions registered and not yet deregistered; each ibv_reg_mr()
// gives the region its address and length, and keys of its own.
int live_mrs();

}  // namespace fake_rdma
