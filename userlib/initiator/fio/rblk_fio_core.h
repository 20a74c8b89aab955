/*
 * The C face of librblk_bypass that the fio engine (rblk_fio.c) calls:
 * fio's headers are C, librblk_bypass is C++. No exception crosses it:
 * every function returns a status and, on failure, a one-line reason in
 * the caller's buffer. One rblk_fio_queue is one bypass controller with
 * one I/O queue, driven by one fio thread, which also runs its reconnects
 * (rblk_fio_core.cpp).
 */
#ifndef RBLK_FIO_CORE_H
#define RBLK_FIO_CORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rblk_fio_queue;

/* Called by rblk_fio_reap() for each command that failed, before it returns it. */
typedef void (*rblk_fio_failed_fn)(void *cookie, int error /* a positive errno */);

/* RBLK_FIO_TRIM: Dataset Management, deallocate, the one range in the capsule. */
enum rblk_fio_op { RBLK_FIO_READ, RBLK_FIO_WRITE, RBLK_FIO_FLUSH, RBLK_FIO_TRIM };

/*
 * Checks a filename ("trtype=rdma traddr=A trsvcid=P subnqn=N ns=1
 * [hostnqn=H] [hostid=U] [adrfam=IPv4|IPv6]"), connects, reads the
 * namespace's size and LBA size, and disconnects. 0, or -1 with `err` set.
 */
int rblk_fio_probe(const char *spec, uint64_t *size, uint32_t *lba_size, char *err, size_t errlen);

/* Connects a controller with one I/O queue of `depth` commands; NULL with `err` set. */
struct rblk_fio_queue *rblk_fio_open(const char *spec, unsigned int depth, int event_mode,
				     char *err, size_t errlen);
void rblk_fio_close(struct rblk_fio_queue *q);

uint32_t rblk_fio_lba_size(const struct rblk_fio_queue *q);
/* How the queue's commands carried their data, one line (rblk_stats=1). */
void rblk_fio_describe(const struct rblk_fio_queue *q, char *out, size_t len);
/* Registers [p, p + len) once (the controller's memory map): 0 or an errno. */
int rblk_fio_register(struct rblk_fio_queue *q, const void *p, size_t len);

/*
 * 0: submitted, posted at the next commit or reap (or held for the
 * reconnect under way); 1: queue full (reap
 * first); a negative errno: refused, with `err` set (past fast_io_fail_tmo
 * or ctrl_loss_tmo: -EIO and the reason; a trim the controller cannot
 * do: -EOPNOTSUPP).
 */
int rblk_fio_submit(struct rblk_fio_queue *q, enum rblk_fio_op op, uint64_t offset, void *buf,
		    size_t len, void *cookie, char *err, size_t errlen);

/* Posts the commands submitted since the last commit (one doorbell). */
void rblk_fio_commit(struct rblk_fio_queue *q);

/*
 * Reaps at least `min` and at most `max` finished commands, their cookies
 * into `out` (busy polling, or sleeping on the completion channel in event
 * mode), and tells `failed` of each one that failed; more than `min` only
 * when they were there at once. When the queue failed, reconnects first and
 * sends the held commands again (or fails them, past fast_io_fail_tmo or
 * ctrl_loss_tmo). Returns their count, fewer than `min` only when nothing
 * is left in flight (then `err` says why).
 */
int rblk_fio_reap(struct rblk_fio_queue *q, void **out, unsigned int min, unsigned int max,
		  rblk_fio_failed_fn failed, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
