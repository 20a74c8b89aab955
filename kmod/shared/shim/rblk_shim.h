/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few kernel facilities the host-built kmod sources (scsi_xlate.c,
 * ctrl_state.c, identify.c) use, for building them in userspace:
 * fixed-width types, unaligned big/little-endian access, min/max.
 */
#ifndef _RBLK_SHIM_H
#define _RBLK_SHIM_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
#define min_t(t, a, b) ((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b) ((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define BIT(n) (1UL << (n))
#define fallthrough __attribute__((__fallthrough__))

static inline u16 get_unaligned_be16(const void *p)
{
	const u8 *b = (const u8 *)p;

	return (u16)(b[0] << 8 | b[1]);
}

static inline u32 get_unaligned_be24(const void *p)
{
	const u8 *b = (const u8 *)p;

	return (u32)b[0] << 16 | (u32)b[1] << 8 | b[2];
}

static inline u32 get_unaligned_be32(const void *p)
{
	const u8 *b = (const u8 *)p;

	return (u32)b[0] << 24 | (u32)b[1] << 16 | (u32)b[2] << 8 | b[3];
}

static inline u64 get_unaligned_be64(const void *p)
{
	const u8 *b = (const u8 *)p;

	return (u64)get_unaligned_be32(b) << 32 | get_unaligned_be32(b + 4);
}

static inline void put_unaligned_be16(u16 v, void *p)
{
	u8 *b = (u8 *)p;

	b[0] = (u8)(v >> 8);
	b[1] = (u8)v;
}

static inline void put_unaligned_be24(u32 v, void *p)
{
	u8 *b = (u8 *)p;

	b[0] = (u8)(v >> 16);
	b[1] = (u8)(v >> 8);
	b[2] = (u8)v;
}

static inline void put_unaligned_be32(u32 v, void *p)
{
	u8 *b = (u8 *)p;

	b[0] = (u8)(v >> 24);
	b[1] = (u8)(v >> 16);
	b[2] = (u8)(v >> 8);
	b[3] = (u8)v;
}

static inline void put_unaligned_be64(u64 v, void *p)
{
	put_unaligned_be32((u32)(v >> 32), p);
	put_unaligned_be32((u32)v, (u8 *)p + 4);
}

static inline u16 get_unaligned_le16(const void *p)
{
	const u8 *b = (const u8 *)p;

	return (u16)(b[0] | b[1] << 8);
}

static inline u32 get_unaligned_le32(const void *p)
{
	const u8 *b = (const u8 *)p;

	return (u32)b[0] | (u32)b[1] << 8 | (u32)b[2] << 16 | (u32)b[3] << 24;
}

static inline u64 get_unaligned_le64(const void *p)
{
	const u8 *b = (const u8 *)p;

	return (u64)get_unaligned_le32(b + 4) << 32 | get_unaligned_le32(b);
}

static inline void put_unaligned_le32(u32 v, void *p)
{
	u8 *b = (u8 *)p;

	b[0] = (u8)v;
	b[1] = (u8)(v >> 8);
	b[2] = (u8)(v >> 16);
	b[3] = (u8)(v >> 24);
}

static inline void put_unaligned_le64(u64 v, void *p)
{
	put_unaligned_le32((u32)v, p);
	put_unaligned_le32((u32)(v >> 32), (u8 *)p + 4);
}

#endif /* _RBLK_SHIM_H */
