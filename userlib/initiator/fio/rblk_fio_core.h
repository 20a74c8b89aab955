/*
 * The C face of librblk_bypass that the fio engine (rblk_fio.c) calls:
 * fio's headers are C, librblk_bypass is C++. No exception crosses it:
 * every function returns a status and, on failure, a one-line reason in
 * the caller's buffer. One rblk_fio_group is a fio thread's: the
 * rblk_fio_queues of the thread's files, each the thread's I/O queue on
 * the file's bypass controller (one per filename in the process, shared
 * by every thread that opens it), and, for several files, the poll group
 * (one CQ per RDMA device) their queues share; one file's queue polls its
 * own CQ. The thread drives them all and runs their reconnects
 * (rblk_fio_core.cpp).
 */
#ifndef RBLK_FIO_CORE_H
#define RBLK_FIO_CORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rblk_fio_group;
struct rblk_fio_queue;

/* Called by rblk_fio_reap() for each command that failed, before it returns it. */
typedef void (*rblk_fio_failed_fn)(void *cookie, int error /* a positive errno */);

/* RBLK_FIO_TRIM: Dataset Management, deallocate, the one range in the capsule. */
enum rblk_fio_op { RBLK_FIO_READ, RBLK_FIO_WRITE, RBLK_FIO_FLUSH, RBLK_FIO_TRIM };

/*
 * Checks a filename ("trtype=rdma traddr=A trsvcid=P subnqn=N ns=1
 * [hostnqn=H] [hostid=U] [adrfam=IPv4|IPv6]"), connects its controller
 * (queues of `depth` commands) unless a thread has it, and reads the
 * namespace's size and LBA size; the controller stays for the threads
 * that open the file. 0, or -1 with `err` set.
 */
int rblk_fio_probe(const char *spec, unsigned int depth, uint64_t *size, uint32_t *lba_size, char *err,
		   size_t errlen);

/*
 * A thread's group for `nr_files` controllers (more than one: their queues
 * share a poll group): its reaps busy-poll, or with `event_mode` sleep on
 * the completion channels while they wait. NULL with `err` set.
 */
struct rblk_fio_group *rblk_fio_group_new(int event_mode, unsigned int nr_files, char *err,
					  size_t errlen);
/*
 * Gives back the thread's queues (a controller no thread uses any more
 * shuts down and disconnects), then frees `g`.
 */
void rblk_fio_group_free(struct rblk_fio_group *g);

/*
 * The thread's I/O queue on the filename's controller (connected first,
 * its queues of `depth` commands, unless a thread has it), in `g`; NULL
 * with `err` set.
 */
struct rblk_fio_queue *rblk_fio_open(struct rblk_fio_group *g, const char *spec, unsigned int depth,
				     char *err, size_t errlen);

uint32_t rblk_fio_lba_size(const struct rblk_fio_queue *q);
/* How the queue's commands carried their data, one line (rblk_stats=1). */
void rblk_fio_describe(const struct rblk_fio_queue *q, char *out, size_t len);
/*
 * Registers [p, p + len) once with every controller of `g` (their memory
 * maps), in place of what the group registered before: 0 or an errno.
 */
int rblk_fio_register(struct rblk_fio_group *g, const void *p, size_t len);
/*
 * Drops the group's registration: before the memory is freed, as the
 * controllers outlive the thread (the next owner of the addresses must not
 * find the old pages' registration).
 */
void rblk_fio_unregister(struct rblk_fio_group *g);

/*
 * 0: submitted, posted at the next commit or reap (or held for the
 * reconnect under way); 1: queue full (reap
 * first); a negative errno: refused, with `err` set (past fast_io_fail_tmo
 * or ctrl_loss_tmo: -EIO and the reason; a trim the controller cannot
 * do: -EOPNOTSUPP).
 */
int rblk_fio_submit(struct rblk_fio_queue *q, enum rblk_fio_op op, uint64_t offset, void *buf,
		    size_t len, void *cookie, char *err, size_t errlen);

/* Posts the commands submitted since the last commit (one doorbell a queue). */
void rblk_fio_commit(struct rblk_fio_group *g);

/*
 * Reaps at least `min` and at most `max` finished commands of the group's
 * queues, their cookies into `out` (busy polling, or sleeping on the
 * completion channels in event mode), and tells `failed` of each one that
 * failed; more than `min` only when they were there at once. When a queue
 * failed, reconnects it first and sends its held commands again (or fails
 * them, past fast_io_fail_tmo or ctrl_loss_tmo). Returns their count,
 * fewer than `min` only when nothing is left in flight (then `err` says
 * why).
 */
int rblk_fio_reap(struct rblk_fio_group *g, void **out, unsigned int min, unsigned int max,
		  rblk_fio_failed_fn failed, char *err, size_t errlen);
/*
 * As rblk_fio_reap(), waiting for `min` at most `timeout_ms` (fio's
 * getevents timeout; 0 polls once): fewer than `min` once it has passed,
 * with no error. A reconnect the reap runs keeps its own deadlines
 * (reconnect_delay, fast_io_fail_tmo), which may outlast the timeout.
 */
int rblk_fio_reap_within(struct rblk_fio_group *g, void **out, unsigned int min, unsigned int max,
			 long timeout_ms, rblk_fio_failed_fn failed, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
