// SPDX-License-Identifier: GPL-2.0
/*
 * rblk_meter_mark: executes the instruction meter's marker once
 * (insn_meter.c): the plugin then writes the counters that moved since
 * the last mark. Static, so that its own run costs the same few
 * instructions each time and no dynamic loader runs between marks.
 */
int main(void)
{
	/* nopl 0x4b4c4252(%rax,%rax,1): the plugin's mark_insn. */
	__asm__ volatile(".byte 0x0f, 0x1f, 0x84, 0x00, 0x52, 0x42, 0x4c, 0x4b" ::: "memory");
	return 0;
}
