#include "temp_target.hpp"

#include <rblk/bench/unique_fd.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <vector>

namespace rblk::bench::testing {
namespace {

UniqueFd open_or_throw(const std::string& file)
{
    UniqueFd fd(::open(file.c_str(), O_RDWR | O_CLOEXEC));
    if (!fd)
        throw std::runtime_error("open " + file);
    return fd;
}

}  // namespace

TempDir::TempDir()
{
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/rblk-bench-test.XXXXXX";
    if (!::mkdtemp(tmpl.data()))
        throw std::runtime_error("mkdtemp " + tmpl);
    dir_ = tmpl;
}

TempDir::~TempDir()
{
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
}

BenchOptions quick(const std::string& file, Mode mode, std::uint64_t size)
{
    BenchOptions o;
    o.filename = file;
    o.mode = mode;
    o.block_size = 4096;
    o.iodepth = 8;
    o.size = size;
    return o;
}

void scribble(const std::string& file, std::uint64_t offset, std::size_t len, unsigned char byte)
{
    const UniqueFd fd = open_or_throw(file);
    std::vector<unsigned char> buf(len, byte);
    if (::pwrite(fd.get(), buf.data(), len, static_cast<off_t>(offset)) !=
            static_cast<ssize_t>(len) ||
        ::fsync(fd.get()) != 0)
        throw std::runtime_error("scribble " + file);
}

void copy_block(const std::string& file, std::uint64_t from, std::uint64_t to)
{
    const UniqueFd fd = open_or_throw(file);
    std::vector<unsigned char> buf(4096);
    if (::pread(fd.get(), buf.data(), buf.size(), static_cast<off_t>(from)) != 4096 ||
        ::pwrite(fd.get(), buf.data(), buf.size(), static_cast<off_t>(to)) != 4096 ||
        ::fsync(fd.get()) != 0)
        throw std::runtime_error("copy_block " + file);
}

}  // namespace rblk::bench::testing
