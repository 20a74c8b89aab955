/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rblk: the kernel API differences (6.1 and 6.12) that the shared code
 * meets in the kernel: where the unaligned accessors live, and the
 * <linux/nvme.h> names 6.1 lacks. Part of compat.h, which includes it; it
 * lives here so that the shared code needs nothing of the module outside
 * shared/. On the host, shim/ stands in for it.
 */
#ifndef _RBLK_KCOMPAT_H
#define _RBLK_KCOMPAT_H

#include <linux/bits.h>
#include <linux/nvme.h>

#ifdef RBLK_HAVE_LINUX_UNALIGNED
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

#ifndef RBLK_HAVE_NVME_SCT_SC_MASK
#define NVME_SCT_SC_MASK	0x7ff	/* SCT and SC, without DNR and MORE */
#endif
#ifndef RBLK_HAVE_NVME_WZ_DEAC
#define NVME_WZ_DEAC		BIT(9)
#endif

#endif /* _RBLK_KCOMPAT_H */
