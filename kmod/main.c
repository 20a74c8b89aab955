// SPDX-License-Identifier: GPL-2.0
/*
 * rblk: NVMe over Fabrics (RDMA) block initiator - module entry points.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <net/genetlink.h>

#include "rblk.h"

static int __init rblk_init(void)
{
	int ret;

	ret = rblk_core_init();
	if (ret)
		return ret;

	ret = rblk_nl_init();
	if (ret) {
		rblk_core_exit();
		return ret;
	}
	return 0;
}

static void __exit rblk_exit(void)
{
	/*
	 * Unregistering the family waits for requests in flight, so no
	 * connect can race with the core deleting every controller.
	 */
	rblk_nl_exit();
	rblk_core_exit();
}

module_init(rblk_init);
module_exit(rblk_exit);

MODULE_AUTHOR("rblk developers");
MODULE_DESCRIPTION("NVMe over Fabrics RDMA block initiator");
MODULE_LICENSE("GPL");
MODULE_VERSION("0.1.0");
/* The first request to the family (rblkctl's) loads the module. */
MODULE_ALIAS_GENL_FAMILY(RBLK_GENL_NAME);
