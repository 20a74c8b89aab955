/*
 * librblk_fio.so: fio's external ioengine "rblk" over librblk_bypass, the
 * userspace NVMe-oF/RDMA initiator of librblk.
 *
 *   fio --ioengine=external:/usr/lib/rblk/librblk_fio.so --thread=1 \
 *       --filename='trtype=rdma traddr=10.99.0.1 trsvcid=4420 subnqn=nqn.x\:y ns=1' ...
 *
 * fio splits filenames on ':', so each ':' of the NQN (or of an IPv6
 * traddr) is written "\:" (in a job file) — on a shell command line inside
 * single quotes too. The filename's words are rblk_fio_core.h's.
 *
 * Threads only (thread=1): one controller per filename (filenames
 * separated by ':', as fio's), connected once, by setup() for the size,
 * and shared by every thread that opens the file (numjobs), each thread
 * with an I/O queue of its own of iodepth commands (as the bypass API
 * wants), added in init(); a thread's several files' queues share one
 * poll group (one CQ per RDMA device, reaped with one poll however many
 * controllers there are), one file's queue polls its own CQ. fio's I/O
 * buffers (one region, td->orig_buffer) are registered once with each
 * controller in post_init(), and again if the files open again after
 * their last close, which drops the registration: fio frees the buffers
 * after it and the controller outlives the thread. So every command's
 * data moves by keyed SGL (or in the capsule) without a copy. queue() chains a command on its
 * file's queue, commit() posts the chains with one doorbell a queue
 * (iodepth_batch_submit commands at a time; getevents() posts what is
 * left before it reaps). getevents() busy-polls the group, or with
 * rblk_event=1 sleeps on its completion channels while it waits. Trims
 * are Dataset Management deallocates of the io_u's range.
 *
 * Built against the source of the installed fio (FIO_IOOPS_VERSION is
 * that version's): userlib/initiator/fio/CMakeLists.txt.
 */
#include "rblk_fio_core.h"

#include "fio.h"
#include "optgroup.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct rblk_fio_options {
	void *pad; /* fio's: the first member is its thread_data pointer */
	unsigned int event;
	unsigned int stats;
};

struct rblk_fio_data {
	struct rblk_fio_group *g;
	/* Each file's queue, by name: fio frees its files before cleanup(). */
	struct rblk_fio_file {
		char *name;
		struct rblk_fio_queue *q;
	} *files;
	unsigned int nr_files;
	void **events; /* io_u pointers, as rblk_fio_reap() hands them out */
	struct io_u **queued; /* since the last commit: fio's slat is ours to count */
	unsigned int nr_queued;
	unsigned int depth;
	unsigned int nr_open; /* files open: their last close unregisters the buffers */
	int registered;
};

static struct fio_option options[] = {
	{
		.name = "rblk_event",
		.lname = "rblk: sleep on the completion channel",
		.type = FIO_OPT_BOOL,
		.off1 = offsetof(struct rblk_fio_options, event),
		.def = "0",
		.help = "Sleep on the completion channel while waiting (default: busy poll)",
		.category = FIO_OPT_C_ENGINE,
		.group = FIO_OPT_G_INVALID,
	},
	{
		.name = "rblk_stats",
		.lname = "rblk: how the data went",
		.type = FIO_OPT_BOOL,
		.off1 = offsetof(struct rblk_fio_options, stats),
		.def = "0",
		.help = "At the end, print how the thread's commands carried their data",
		.category = FIO_OPT_C_ENGINE,
		.group = FIO_OPT_G_INVALID,
	},
	{
		.name = NULL,
	},
};

static int rblk_setup(struct thread_data *td)
{
	struct fio_file *f;
	unsigned int i;

	if (!td->o.use_thread) {
		log_err("rblk: the engine runs in threads only: set thread=1\n");
		return 1;
	}
	for_each_file(td, f, i) {
		char err[256] = "";
		uint64_t size;
		uint32_t lba;

		/* The controller stays connected for the threads that open the file. */
		if (rblk_fio_probe(f->file_name, td->o.iodepth ? td->o.iodepth : 1, &size, &lba, err,
				   sizeof(err))) {
			log_err("rblk: %s: %s\n", f->file_name, err);
			return 1;
		}
		f->real_file_size = size;
		f->filetype = FIO_TYPE_BLOCK;
		fio_file_set_size_known(f);
	}
	return 0;
}

static void rblk_cleanup(struct thread_data *td)
{
	struct rblk_fio_data *d = td->io_ops_data;
	struct rblk_fio_options *o = td->eo;
	unsigned int i;

	if (!d)
		return;
	for (i = 0; i < d->nr_files; i++) {
		if (d->files[i].q && o && o->stats) {
			char line[256];

			/* The file named only where the job has several. */
			rblk_fio_describe(d->files[i].q, line, sizeof(line));
			if (d->nr_files > 1)
				log_info("rblk: %s: %s: %s\n", td->o.name, d->files[i].name, line);
			else
				log_info("rblk: %s: %s\n", td->o.name, line);
		}
		free(d->files[i].name);
	}
	free(d->files);
	rblk_fio_group_free(d->g);
	free(d->events);
	free(d->queued);
	free(d);
	td->io_ops_data = NULL;
}

static int rblk_init(struct thread_data *td)
{
	struct rblk_fio_options *o = td->eo;
	struct rblk_fio_data *d;
	struct fio_file *f;
	char err[256] = "";
	unsigned int i;

	d = calloc(1, sizeof(*d));
	if (!d)
		return 1;
	td->io_ops_data = d;
	d->depth = td->o.iodepth ? td->o.iodepth : 1;
	d->events = calloc(d->depth, sizeof(*d->events));
	d->queued = calloc(d->depth, sizeof(*d->queued));
	d->files = calloc(td->o.nr_files ? td->o.nr_files : 1, sizeof(*d->files));
	if (!d->events || !d->queued || !d->files) {
		rblk_cleanup(td);
		return 1;
	}
	d->g = rblk_fio_group_new(o && o->event, td->o.nr_files, err, sizeof(err));
	if (!d->g) {
		log_err("rblk: %s\n", err);
		rblk_cleanup(td);
		return 1;
	}
	for_each_file(td, f, i) {
		struct rblk_fio_queue *q;
		char *name = strdup(f->file_name);

		if (!name) {
			rblk_cleanup(td);
			return 1;
		}
		d->files[d->nr_files].name = name;
		q = rblk_fio_open(d->g, f->file_name, d->depth, err, sizeof(err));
		d->files[d->nr_files++].q = q;
		if (!q) {
			log_err("rblk: %s: %s\n", f->file_name, err);
			rblk_cleanup(td);
			return 1;
		}
		FILE_SET_ENG_DATA(f, q);
	}
	return 0;
}

/* fio's I/O buffers (they exist from init_io_u() on), registered once. */
static int rblk_register(struct thread_data *td)
{
	struct rblk_fio_data *d = td->io_ops_data;
	int err;

	if (d->registered || !td->orig_buffer || !td->orig_buffer_size)
		return 0;
	err = rblk_fio_register(d->g, td->orig_buffer, td->orig_buffer_size);
	if (err) {
		log_err("rblk: cannot register fio's %llu-byte I/O buffers with the RDMA device: %s\n",
			(unsigned long long)td->orig_buffer_size, strerror(err));
		return 1;
	}
	d->registered = 1;
	return 0;
}

static int rblk_post_init(struct thread_data *td)
{
	return rblk_register(td);
}

static int rblk_open_file(struct thread_data *td, struct fio_file *f)
{
	struct rblk_fio_data *d = td->io_ops_data;

	(void)f;
	if (rblk_register(td))
		return 1;
	d->nr_open++;
	return 0;
}

/* fio frees its buffers after the last close: the registration goes first. */
static int rblk_close_file(struct thread_data *td, struct fio_file *f)
{
	struct rblk_fio_data *d = td->io_ops_data;

	(void)f;
	if (d->nr_open && --d->nr_open == 0 && d->registered) {
		rblk_fio_unregister(d->g);
		d->registered = 0;
	}
	return 0;
}

static enum fio_q_status rblk_queue(struct thread_data *td, struct io_u *io_u)
{
	struct rblk_fio_data *d = td->io_ops_data;
	enum rblk_fio_op op;
	char err[256];	/* set where a reason is: no 256-byte clear per I/O */
	int ret;

	err[0] = '\0';
	fio_ro_check(td, io_u);

	switch (io_u->ddir) {
	case DDIR_READ:
		op = RBLK_FIO_READ;
		break;
	case DDIR_WRITE:
		op = RBLK_FIO_WRITE;
		break;
	case DDIR_SYNC:
	case DDIR_DATASYNC:
		op = RBLK_FIO_FLUSH;
		break;
	case DDIR_TRIM:
		op = RBLK_FIO_TRIM;
		break;
	default:
		io_u->error = EOPNOTSUPP;
		return FIO_Q_COMPLETED;
	}
	ret = rblk_fio_submit(FILE_ENG_DATA(io_u->file), op, io_u->offset, io_u->xfer_buf, io_u->xfer_buflen, io_u, err,
			      sizeof(err));
	if (ret == 0) {
		/* At most depth queued before a commit: fio commits at a full queue. */
		if (d->nr_queued < d->depth)
			d->queued[d->nr_queued++] = io_u;
		return FIO_Q_QUEUED;
	}
	if (ret == 1)
		return FIO_Q_BUSY;
	log_err("rblk: %s\n", err);
	io_u->error = -ret;
	io_u->resid = io_u->xfer_buflen;
	return FIO_Q_COMPLETED;
}

static int rblk_commit(struct thread_data *td)
{
	struct rblk_fio_data *d = td->io_ops_data;
	unsigned int i;

	/* fio commits again before it reaps, mostly with nothing queued. */
	if (!d->nr_queued)
		return 0;
	rblk_fio_commit(d->g);
	/* With a commit hook, fio leaves the submission latency to the engine. */
	for (i = 0; i < d->nr_queued; i++)
		io_u_queued(td, d->queued[i]);
	d->nr_queued = 0;
	return 0;
}

/* fio cleared error and resid before queue(): only a failure sets them. */
static void rblk_failed(void *cookie, int error)
{
	struct io_u *io_u = cookie;

	io_u->error = error;
	io_u->resid = io_u->xfer_buflen;
}

/* fio's getevents result: the count, or -EIO with the reason logged. */
static int rblk_reaped(int n, unsigned int min, const char *err)
{
	if (n < (int)min && n == 0 && err[0]) {
		log_err("rblk: %s\n", err);
		return -EIO;
	}
	return n;
}

/*
 * A getevents with a timeout, as libaio's io_getevents() takes it: fewer
 * than min once it has passed. Out of the way: fio passes one (zero) only
 * with min 0, which a reap meets with one poll anyway.
 */
static __attribute__((noinline, cold)) int rblk_getevents_within(struct rblk_fio_data *d, unsigned int min,
								 unsigned int max, const struct timespec *t)
{
	char err[256];
	const long ms = (long)t->tv_sec * 1000 + (t->tv_nsec + 999999) / 1000000;

	err[0] = '\0';
	return rblk_reaped(rblk_fio_reap_within(d->g, d->events, min, max, ms, rblk_failed, err, sizeof(err)),
			   min, err);
}

static int rblk_getevents(struct thread_data *td, unsigned int min, unsigned int max,
			  const struct timespec *t)
{
	struct rblk_fio_data *d = td->io_ops_data;
	char err[256];

	if (max > d->depth)
		max = d->depth;
	if (min > max)
		min = max;
	if (t && min)
		return rblk_getevents_within(d, min, max, t);
	err[0] = '\0';
	return rblk_reaped(rblk_fio_reap(d->g, d->events, min, max, rblk_failed, err, sizeof(err)), min, err);
}

static struct io_u *rblk_event(struct thread_data *td, int event)
{
	struct rblk_fio_data *d = td->io_ops_data;

	return d->events[event];
}

/* The symbol fio looks up in an external engine. */
__attribute__((visibility("default"))) struct ioengine_ops ioengine = {
	.name = "rblk",
	.version = FIO_IOOPS_VERSION,
	.flags = FIO_RAWIO | FIO_NOEXTEND | FIO_NODISKUTIL | FIO_DISKLESSIO | FIO_MEMALIGN,
	.setup = rblk_setup,
	.init = rblk_init,
	.post_init = rblk_post_init,
	.queue = rblk_queue,
	.commit = rblk_commit,
	.getevents = rblk_getevents,
	.event = rblk_event,
	.cleanup = rblk_cleanup,
	.open_file = rblk_open_file,
	.close_file = rblk_close_file,
	.option_struct_size = sizeof(struct rblk_fio_options),
	.options = options,
};
