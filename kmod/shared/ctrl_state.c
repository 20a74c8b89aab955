// SPDX-License-Identifier: GPL-2.0
/*
 * rblk: the controller state machine's legal edges and names; see
 * ctrl_state.h. Also builds in userspace for the host unit tests.
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#endif

#include "ctrl_state.h"

static const char * const rblk_state_names[] = {
	[RBLK_CTRL_NEW]		= "new",
	[RBLK_CTRL_CONNECTING]	= "connecting",
	[RBLK_CTRL_LIVE]	= "live",
	[RBLK_CTRL_RESETTING]	= "resetting",
	[RBLK_CTRL_DELETING]	= "deleting",
	[RBLK_CTRL_DEAD]	= "dead",
};

const char *rblk_state_name(enum rblk_ctrl_state state)
{
	if ((unsigned int)state >= ARRAY_SIZE(rblk_state_names))
		return "unknown";
	return rblk_state_names[state];
}

/* The legal edges; everything else is refused. */
bool rblk_state_allowed(enum rblk_ctrl_state from, enum rblk_ctrl_state to)
{
	switch (to) {
	case RBLK_CTRL_CONNECTING:
		return from == RBLK_CTRL_NEW || from == RBLK_CTRL_RESETTING;
	case RBLK_CTRL_LIVE:
		return from == RBLK_CTRL_CONNECTING;
	case RBLK_CTRL_RESETTING:
		return from == RBLK_CTRL_LIVE;
	case RBLK_CTRL_DELETING:
		return from == RBLK_CTRL_NEW || from == RBLK_CTRL_CONNECTING ||
		       from == RBLK_CTRL_LIVE || from == RBLK_CTRL_RESETTING;
	case RBLK_CTRL_DEAD:
		return from == RBLK_CTRL_DELETING;
	default:
		return false;
	}
}
