// A private temporary directory for engine tests, removed with its files.
#pragma once

#include <rblk/bench/options.hpp>

#include <cstdint>
#include <string>

namespace rblk::bench::testing {

class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    std::string path(const std::string& name) const { return dir_ + "/" + name; }

private:
    std::string dir_;
};

// Options for a small, quick run on `file`: 4k blocks, QD 8, one job.
BenchOptions quick(const std::string& file, Mode mode, std::uint64_t size = 1 << 20);

// Overwrites `len` bytes at `offset` of `file` with `byte` (fsync'd).
void scribble(const std::string& file, std::uint64_t offset, std::size_t len, unsigned char byte);

// Copies one 4k block of `file` over another: a misdirected write.
void copy_block(const std::string& file, std::uint64_t from, std::uint64_t to);

}  // namespace rblk::bench::testing
