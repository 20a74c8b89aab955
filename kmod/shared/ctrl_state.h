/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rblk: the controller state machine's legal edges and state names, free
 * of kernel objects so that the host unit tests cover them (ctrl.c
 * applies them under ctrl->lock).
 */
#ifndef _RBLK_CTRL_STATE_H
#define _RBLK_CTRL_STATE_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include "rblk_shim.h"
#endif

#include "../uapi/rblk.h"

bool rblk_state_allowed(enum rblk_ctrl_state from, enum rblk_ctrl_state to);
const char *rblk_state_name(enum rblk_ctrl_state state);

#endif /* _RBLK_CTRL_STATE_H */
