// SPDX-License-Identifier: GPL-2.0
/*
 * rblk_pr: the block layer's persistent reservation ioctls (IOC_PR_*,
 * <linux/pr.h>) on one block device, for the VM suite: Debian 12's
 * util-linux has no blkpr.
 *
 *   rblk_pr DEV register OLD NEW [ignore]
 *   rblk_pr DEV reserve KEY TYPE
 *   rblk_pr DEV release KEY TYPE
 *   rblk_pr DEV preempt OLD NEW TYPE
 *   rblk_pr DEV preempt-abort OLD NEW TYPE
 *   rblk_pr DEV clear KEY
 *
 * TYPE: we, ea, we-ro, ea-ro, we-ar, ea-ar. Keys: C numbers (0x... too).
 * Prints "ok" (exit 0), "conflict" (exit 1: the block layer's
 * PR_STS_RESERVATION_CONFLICT, or on kernels before 6.5 the NVMe
 * Reservation Conflict status the driver returns as it is), "status 0xN"
 * for another positive answer or "error: ..." (exit 2).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/pr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define RBLK_PR_STS_CONFLICT	0x18	/* PR_STS_RESERVATION_CONFLICT */
#define RBLK_NVME_SC_CONFLICT	0x83	/* before 6.5: the NVMe status */

static const char *const types[] = {
	"we", "ea", "we-ro", "ea-ro", "we-ar", "ea-ar",
};
static const enum pr_type type_codes[] = {
	PR_WRITE_EXCLUSIVE, PR_EXCLUSIVE_ACCESS,
	PR_WRITE_EXCLUSIVE_REG_ONLY, PR_EXCLUSIVE_ACCESS_REG_ONLY,
	PR_WRITE_EXCLUSIVE_ALL_REGS, PR_EXCLUSIVE_ACCESS_ALL_REGS,
};

static void usage(void)
{
	fprintf(stderr,
		"usage: rblk_pr DEV register OLD NEW [ignore] | reserve KEY TYPE |\n"
		"       release KEY TYPE | preempt OLD NEW TYPE |\n"
		"       preempt-abort OLD NEW TYPE | clear KEY\n");
	exit(2);
}

static __u64 key_arg(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || !*s)
		usage();
	return v;
}

static __u32 type_arg(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(s, types[i]))
			return type_codes[i];
	usage();
	return 0;
}

int main(int argc, char **argv)
{
	const char *verb;
	int fd, ret;

	if (argc < 4)
		usage();
	verb = argv[2];
	fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "error: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	if (!strcmp(verb, "register") && (argc == 5 || argc == 6)) {
		struct pr_registration r = {
			.old_key = key_arg(argv[3]), .new_key = key_arg(argv[4]),
		};

		if (argc == 6) {
			if (strcmp(argv[5], "ignore"))
				usage();
			r.flags = PR_FL_IGNORE_KEY;
		}
		ret = ioctl(fd, IOC_PR_REGISTER, &r);
	} else if ((!strcmp(verb, "reserve") || !strcmp(verb, "release")) &&
		   argc == 5) {
		struct pr_reservation r = {
			.key = key_arg(argv[3]), .type = type_arg(argv[4]),
		};

		ret = ioctl(fd, !strcmp(verb, "reserve") ? IOC_PR_RESERVE :
			    IOC_PR_RELEASE, &r);
	} else if ((!strcmp(verb, "preempt") || !strcmp(verb, "preempt-abort")) &&
		   argc == 6) {
		struct pr_preempt p = {
			.old_key = key_arg(argv[3]), .new_key = key_arg(argv[4]),
			.type = type_arg(argv[5]),
		};

		ret = ioctl(fd, !strcmp(verb, "preempt") ? IOC_PR_PREEMPT :
			    IOC_PR_PREEMPT_ABORT, &p);
	} else if (!strcmp(verb, "clear") && argc == 4) {
		struct pr_clear c = { .key = key_arg(argv[3]) };

		ret = ioctl(fd, IOC_PR_CLEAR, &c);
	} else {
		usage();
		return 2;
	}
	close(fd);
	if (ret < 0) {
		printf("error: %s\n", strerror(errno));
		return 2;
	}
	if (ret == RBLK_PR_STS_CONFLICT ||
	    (ret & 0x7ff) == RBLK_NVME_SC_CONFLICT) {
		printf("conflict\n");
		return 1;
	}
	if (ret) {
		printf("status 0x%x\n", ret);
		return 2;
	}
	printf("ok\n");
	return 0;
}
