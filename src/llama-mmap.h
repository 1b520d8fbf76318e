// Files, memory maps and memory locks: how model bytes get from disk into memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

// Throws llama_error unless path names a regular file that can be opened for reading. Never
// blocks (FIFOs and devices are refused without waiting). For code that must hand a path to an
// API that opens it itself (gguf_init_from_file).
void llama_file_check_regular(const std::string & path);

// A read-only file. Opening never blocks and refuses anything but a regular file. Every read is bounds-checked against
// the size; errors throw llama_error.
struct ggml_os_file;

struct llama_file {
    // direct_io: try unbuffered reads (O_DIRECT, F_NOCACHE, FILE_FLAG_NO_BUFFERING; best effort: falls
    // back to buffered reads with a warning).
    llama_file(const std::string & path, bool direct_io = false);
    ~llama_file();
    llama_file(const llama_file &)             = delete;
    llama_file & operator=(const llama_file &) = delete;

    size_t               size() const { return size_; }
    const ggml_os_file * os_file() const { return file_; }
    const std::string &  path() const { return path_; }
    bool                 direct_io() const { return direct_; }

    // Reads exactly n bytes at offset; throws on a short read or a range past the end.
    void read_at(size_t offset, void * dst, size_t n) const;

private:
    std::string    path_;
    ggml_os_file * file_     = nullptr;
    ggml_os_file * file_dio_ = nullptr;  // the unbuffered handle when available
    size_t         size_     = 0;
    bool           direct_   = false;
};

// A read-only private mapping of a whole file.
struct llama_mmap {
    static bool supported();

    // Maps the file; throws llama_error on failure. prefetch: hint the kernel to read ahead.
    llama_mmap(const llama_file & file, bool prefetch = true);
    ~llama_mmap();
    llama_mmap(const llama_mmap &)             = delete;
    llama_mmap & operator=(const llama_mmap &) = delete;

    void * addr() const { return addr_; }
    size_t size() const { return size_; }

private:
    void * addr_ = nullptr;
    size_t size_ = 0;
};

// Locks a memory range in RAM for the lifetime of the object (best effort: failure is logged).
struct llama_mlock {
    static bool supported();

    llama_mlock() = default;
    ~llama_mlock();
    llama_mlock(const llama_mlock &)             = delete;
    llama_mlock & operator=(const llama_mlock &) = delete;

    // Returns false (and logs why, e.g. RLIMIT_MEMLOCK) if the range could not be locked.
    bool lock(void * addr, size_t size);

private:
    void * addr_ = nullptr;
    size_t size_ = 0;
};

using llama_files  = std::vector<std::unique_ptr<llama_file>>;
using llama_mmaps  = std::vector<std::unique_ptr<llama_mmap>>;
using llama_mlocks = std::vector<std::unique_ptr<llama_mlock>>;
