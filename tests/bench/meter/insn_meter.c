// SPDX-License-Identifier: GPL-2.0
/*
 * insn_meter: a QEMU TCG plugin that counts the guest instructions each
 * translation block executes, for tests/bench/insn_meter.sh.
 *
 * Every translated block gets two inline adds, of its instruction count
 * and of one, to the counters of its start address: no callback per
 * block or instruction, so the guest runs at nearly its usual TCG speed.
 * The executions of the block at a function's first byte are its calls. Blocks that start in
 * user space share one counter (their addresses mean nothing across
 * processes, and the report of a kernel driver needs only their sum), or
 * with user=1 have a counter per address as kernel blocks do: the report
 * then attributes those in the measured process by the memory map the
 * guest saved during its run (the kernel-bypass initiator's library). A block ends at every
 * branch, call and return, so its start address names the function that
 * executed it; the host attributes it with the guest's /proc/kallsyms.
 *
 * The guest marks the phases of a run by executing the marker instruction
 * (meter_mark.c): `nopl MARK(%rax,%rax,1)`, a NOP no compiler emits with
 * that displacement. At each mark the plugin writes delta.<n> in out=DIR:
 * every counter that moved since the previous mark, as "<hex address>
 * <instructions> <executions>" lines (address 1: all of user space, without user=1). The host differences
 * the windows of two runs of different I/O counts, so start-up costs
 * cancel and what is left is per I/O.
 *
 * Inline adds are not atomic: boot the guest with `-accel tcg,thread=single`
 * (run-in-vm.sh does when RBLK_VM_PLUGIN is set), so that one host thread
 * runs every vCPU and no count is lost to a race.
 *
 * Usage: -plugin insn_meter.so,out=DIR[,user=1]
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* `nopl 0x4b4c4252(%rax,%rax,1)`: 0f 1f 84 00 and "RBLK" little-endian. */
static const uint8_t mark_insn[8] = { 0x0f, 0x1f, 0x84, 0x00, 'R', 'B', 'L', 'K' };

/* The first address of the kernel half of x86-64's address space. */
#define KERNEL_START 0xffff800000000000ULL
#define USER_KEY 1ULL

/*
 * One counter per block start address. The inline add holds a pointer to
 * .insns, so a counter never moves: counters live in fixed chunks, and
 * the index (open addressing, rebuilt when it grows) holds pointers.
 */
struct counter {
	uint64_t addr;
	uint64_t insns;		/* added to by the translated code */
	uint64_t execs;		/* likewise */
	uint64_t reported;	/* insns at the last mark */
	uint64_t reported_execs;
};

#define CHUNK 4096
struct chunk {
	struct chunk *next;
	size_t used;
	struct counter c[CHUNK];
};

/* lock: the index and the chunks (translation may run on any thread). */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct chunk *chunks;
static struct counter **index_;
static size_t index_size;	/* a power of two */
static size_t n_counters;
static char out_dir[4096];
static unsigned int n_marks;
static int user_by_address;	/* user=1 */

static size_t slot_of(uint64_t addr, size_t size)
{
	return (size_t)((addr * 0x9e3779b97f4a7c15ULL) >> 20) & (size - 1);
}

static int index_insert(struct counter **idx, size_t size, struct counter *c)
{
	size_t i = slot_of(c->addr, size);

	while (idx[i])
		i = (i + 1) & (size - 1);
	idx[i] = c;
	return 0;
}

static int index_grow(void)
{
	size_t size = index_size ? index_size * 2 : 1 << 16;
	struct counter **idx = calloc(size, sizeof(*idx));
	size_t i;

	if (!idx)
		return -ENOMEM;
	for (i = 0; i < index_size; i++)
		if (index_[i])
			index_insert(idx, size, index_[i]);
	free(index_);
	index_ = idx;
	index_size = size;
	return 0;
}

/* counter_get: the counter of addr, created on first use; NULL if out of memory. */
static struct counter *counter_get(uint64_t addr)
{
	struct counter *c;
	size_t i;

	if (index_size) {
		for (i = slot_of(addr, index_size); index_[i]; i = (i + 1) & (index_size - 1))
			if (index_[i]->addr == addr)
				return index_[i];
	}
	/* Keep the index at most half full. */
	if ((n_counters + 1) * 2 > index_size && index_grow())
		return NULL;
	if (!chunks || chunks->used == CHUNK) {
		struct chunk *ch = calloc(1, sizeof(*ch));

		if (!ch)
			return NULL;
		ch->next = chunks;
		chunks = ch;
	}
	c = &chunks->c[chunks->used++];
	c->addr = addr;
	index_insert(index_, index_size, c);
	n_counters++;
	return c;
}

/* mark: write every counter that moved since the last mark to delta.<n>. */
static void mark(unsigned int vcpu_index, void *udata)
{
	char path[4200];
	struct chunk *ch;
	FILE *f;
	size_t i;

	(void)vcpu_index;
	(void)udata;
	pthread_mutex_lock(&lock);
	snprintf(path, sizeof(path), "%s/delta.%u", out_dir, n_marks++);
	f = fopen(path, "w");
	if (!f) {
		char msg[4400];

		snprintf(msg, sizeof(msg), "insn_meter: cannot write %s: %s\n", path, strerror(errno));
		qemu_plugin_outs(msg);
	}
	for (ch = chunks; ch; ch = ch->next) {
		for (i = 0; i < ch->used; i++) {
			struct counter *c = &ch->c[i];
			uint64_t now = __atomic_load_n(&c->insns, __ATOMIC_RELAXED);
			uint64_t execs = __atomic_load_n(&c->execs, __ATOMIC_RELAXED);

			if (now == c->reported)
				continue;
			if (f)
				fprintf(f, "%llx %llu %llu\n", (unsigned long long)c->addr,
					(unsigned long long)(now - c->reported),
					(unsigned long long)(execs - c->reported_execs));
			c->reported = now;
			c->reported_execs = execs;
		}
	}
	if (f)
		fclose(f);
	pthread_mutex_unlock(&lock);
}

static int is_mark(struct qemu_plugin_insn *insn)
{
	return qemu_plugin_insn_size(insn) == sizeof(mark_insn) &&
	       !memcmp(qemu_plugin_insn_data(insn), mark_insn, sizeof(mark_insn));
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t addr = qemu_plugin_tb_vaddr(tb);
	size_t n = qemu_plugin_tb_n_insns(tb);
	struct counter *c;
	size_t i;

	(void)id;
	if (addr < KERNEL_START) {
		if (!user_by_address)
			addr = USER_KEY;
		for (i = 0; i < n; i++) {
			struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

			if (is_mark(insn))
				qemu_plugin_register_vcpu_insn_exec_cb(insn, mark,
								       QEMU_PLUGIN_CB_NO_REGS, NULL);
		}
	}
	pthread_mutex_lock(&lock);
	c = counter_get(addr);
	pthread_mutex_unlock(&lock);
	if (!c) {
		qemu_plugin_outs("insn_meter: out of memory: a block is not counted\n");
		return;
	}
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &c->insns, n);
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &c->execs, 1);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	int i;

	(void)info;
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4) && strlen(argv[i] + 4) < sizeof(out_dir)) {
			strcpy(out_dir, argv[i] + 4);
		} else if (!strcmp(argv[i], "user=1") || !strcmp(argv[i], "user=0")) {
			user_by_address = argv[i][5] == '1';
		} else {
			fprintf(stderr,
				"insn_meter: unknown or too long argument '%s' (usage: out=DIR[,user=1])\n",
				argv[i]);
			return -1;
		}
	}
	if (!out_dir[0]) {
		fprintf(stderr, "insn_meter: out=DIR is required\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	return 0;
}
