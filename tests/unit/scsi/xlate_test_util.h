// SPDX-License-Identifier: GPL-2.0
// Test fixture and helpers for the SCSI -> NVMe translation tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

extern "C" {
#include "scsi_xlate.h"
}

using Bytes = std::vector<u8>;

// Sense data decoded from either format, to compare field by field.
struct Sense {
	u8 response = 0;	// 0x70 or 0x72
	u8 key = 0;
	u8 asc = 0;
	u8 ascq = 0;
	bool sksv = false;
	bool cd = false;	// field pointer into the CDB (else parameter list)
	int bit = -1;		// bit pointer, -1 without BPV
	unsigned int field = 0;
};

Sense decode_sense(const rblk_xlate_out &out);

Bytes cdb6(u8 op, u8 b1 = 0, u8 b2 = 0, u8 b3 = 0, u8 b4 = 0, u8 b5 = 0);
Bytes cdb10(u8 op, u32 lba, u16 len, u8 b1 = 0, u8 control = 0);
Bytes cdb12(u8 op, u32 lba, u32 len, u8 b1 = 0);
Bytes cdb16(u8 op, u64 lba, u32 len, u8 b1 = 0);
Bytes rw6(u8 op, u32 lba, u8 len);

u16 be16(const u8 *p);
u32 be24(const u8 *p);
u32 be32(const u8 *p);
u64 be64(const u8 *p);
u32 le32(const u8 *p);
u64 le64(const u8 *p);
std::string str(const u8 *p, size_t n);

class XlateTest : public ::testing::Test {
protected:
	XlateTest();

	// Plans the CDB; returns rblk_xlate_cmd()'s value.
	int run(const Bytes &cdb, rblk_xlate_dir dir = RBLK_XLATE_DIR_NONE,
		u32 dxfer = 0, const Bytes &param = {});
	int run_in(const Bytes &cdb, u32 dxfer)
	{
		return run(cdb, RBLK_XLATE_DIR_FROM_DEV, dxfer);
	}
	int run_out(const Bytes &cdb, u32 dxfer, const Bytes &param = {})
	{
		return run(cdb, RBLK_XLATE_DIR_TO_DEV, dxfer, param);
	}

	// Checks of the plan just made.
	void expect_good(u32 data_len, u32 resid);
	void expect_nvme(u8 opcode, rblk_xlate_data data, u32 data_len,
			 u32 resid);
	void expect_sense(u8 key, u8 asc, u8 ascq);
	void expect_bad_cdb(unsigned int byte, int bit);
	void expect_bad_param(unsigned int byte, int bit);
	const u8 *data() const { return out.buf; }

	rblk_xlate_ns ns{};
	Bytes buf = Bytes(RBLK_XLATE_BUF_LEN, 0xa5);
	rblk_xlate_out out{};
};
