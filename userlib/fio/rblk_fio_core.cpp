// The C face of librblk_bypass for the fio engine (rblk_fio_core.h): the
// filename's key=value words to a bypass::Controller with one IoQueue,
// and that queue's submit/poll/wait as C calls. Every exception of the
// setup path is caught here and becomes a one-line reason; the I/O path
// throws nothing (IoStatus).
#include "rblk_fio_core.h"

#include "fio_filename.hpp"

#include <rblk/bypass/controller.hpp>
#include <rblk/host_identity.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace bp = rblk::bypass;

struct rblk_fio_queue {
    std::unique_ptr<bp::Controller> ctrl;
    bp::IoQueue* q = nullptr;
    bool event_mode = false;
    std::vector<bp::IoCompletion> comps;
};

namespace {

void set_err(char* err, std::size_t len, const std::string& what)
{
    if (err && len)
        std::snprintf(err, len, "%s", what.c_str());
}

// The filename's options, with the host identity and the address resolved.
bp::ControllerOptions parse_spec(const char* spec)
{
    bp::ControllerOptions co = rblk::fio::parse_filename(spec ? spec : "");
    rblk::apply_host_identity(co.connect, rblk::load_host_identity());
    co.connect.validate();
    co.connect = rblk::resolve_traddr(co.connect);
    return co;
}

}  // namespace

extern "C" {

int rblk_fio_probe(const char* spec, uint64_t* size, uint32_t* lba_size, char* err, size_t errlen)
{
    try {
        bp::Controller c(parse_spec(spec));
        *size = c.ns().size_bytes();
        *lba_size = c.ns().lba_size();
        c.shutdown();
        return 0;
    } catch (const std::exception& e) {
        set_err(err, errlen, e.what());
    } catch (...) {
        set_err(err, errlen, "unknown error");
    }
    return -1;
}

struct rblk_fio_queue* rblk_fio_open(const char* spec, unsigned int depth, int event_mode, char* err,
                                     size_t errlen)
{
    try {
        bp::ControllerOptions co = parse_spec(spec);
        // One slot more than fio keeps in flight, within what
        // ConnectOptions accepts (16 entries at least).
        co.connect.queue_size = std::max<std::int64_t>(std::int64_t{depth} + 1, 16);
        auto h = std::make_unique<rblk_fio_queue>();
        h->ctrl = std::make_unique<bp::Controller>(co);
        h->q = &h->ctrl->io_queue(0);
        h->event_mode = event_mode != 0;
        h->comps.resize(std::max<std::size_t>(h->q->depth(), 1));
        return h.release();
    } catch (const std::exception& e) {
        set_err(err, errlen, e.what());
    } catch (...) {
        set_err(err, errlen, "unknown error");
    }
    return nullptr;
}

void rblk_fio_close(struct rblk_fio_queue* q)
{
    if (!q)
        return;
    try {
        q->ctrl->shutdown();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "rblk: shutdown: %s\n", e.what());
    } catch (...) {
    }
    delete q;
}

uint32_t rblk_fio_lba_size(const struct rblk_fio_queue* q)
{
    return q->ctrl->ns().lba_size();
}

void rblk_fio_describe(const struct rblk_fio_queue* q, char* out, size_t len)
{
    const bp::IoQueueStats& s = q->q->stats();
    std::snprintf(out, len,
                  "%llu command(s): %llu in-capsule, %llu through the pool, %llu through the "
                  "registered buffer, %llu without data; %zu reconnect(s)",
                  static_cast<unsigned long long>(s.commands), static_cast<unsigned long long>(s.in_capsule),
                  static_cast<unsigned long long>(s.pooled), static_cast<unsigned long long>(s.registered),
                  static_cast<unsigned long long>(s.commands - s.in_capsule - s.pooled - s.registered),
                  q->ctrl->reconnects());
}

int rblk_fio_register(struct rblk_fio_queue* q, const void* p, size_t len)
{
    try {
        return q->q->register_buffer(p, len);
    } catch (const std::bad_alloc&) {
        return ENOMEM;
    } catch (...) {
        return EINVAL;
    }
}

int rblk_fio_submit(struct rblk_fio_queue* q, enum rblk_fio_op op, uint64_t offset, void* buf,
                    size_t len, void* cookie, char* err, size_t errlen)
{
    bp::IoRequest r;
    r.user_data = reinterpret_cast<std::uint64_t>(cookie);
    if (op == RBLK_FIO_FLUSH) {
        r.op = bp::IoOp::Flush;
    } else {
        const std::uint32_t lba = q->ctrl->ns().lba_size();
        if (offset % lba || len % lba || len == 0) {
            set_err(err, errlen, "offset " + std::to_string(offset) + " length " + std::to_string(len) +
                                     ": not a multiple of the LBA size " + std::to_string(lba));
            return -EINVAL;
        }
        r.op = op == RBLK_FIO_WRITE ? bp::IoOp::Write : bp::IoOp::Read;
        r.slba = offset / lba;
        r.nlb = static_cast<std::uint32_t>(len / lba);
        r.buf = buf;
        r.len = len;
    }
    const bp::IoStatus st = q->q->submit(r);
    if (st.ok())
        return 0;
    if (st.kind == bp::IoStatus::Kind::Busy)
        return 1;
    try {
        set_err(err, errlen, st.describe() + (q->q->failed() ? ": " + q->q->failure() : std::string()));
    } catch (...) {
    }
    return st.kind == bp::IoStatus::Kind::Invalid ? -EINVAL : -EIO;
}

int rblk_fio_reap(struct rblk_fio_queue* q, struct rblk_fio_completion* out, unsigned int min,
                  unsigned int max, char* err, size_t errlen)
{
    unsigned int got = 0;
    while (got < max) {
        const std::size_t room = std::min<std::size_t>(max - got, q->comps.size());
        std::span<bp::IoCompletion> span(q->comps.data(), room);
        std::size_t n;
        if (q->event_mode && got < min)
            n = q->q->wait(span, std::chrono::milliseconds(1000));
        else
            n = q->q->poll(span);
        for (std::size_t i = 0; i < n; ++i) {
            out[got].cookie = reinterpret_cast<void*>(q->comps[i].user_data);
            out[got].error = q->comps[i].status.ok() ? 0 : EIO;
            ++got;
        }
        if (got >= min && n == 0)
            break;
        if (got < min && n == 0 && q->q->in_flight() == 0) {
            // Nothing left to wait for: the queue failed (or fio asked too much).
            try {
                set_err(err, errlen, q->q->failed() ? q->q->failure() : "nothing in flight");
            } catch (...) {
            }
            break;
        }
    }
    return static_cast<int>(got);
}

}  // extern "C"
