#include "llama-mmap.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "llama-impl.h"

// ---- llama_file ------------------------------------------------------------------------------

// Opens path for reading without ever blocking: O_NONBLOCK makes open() return at once on a FIFO
// or a device (a plain open of a FIFO waits for a writer forever), and the fstat of the opened
// descriptor (not a separate stat of the path, which could be swapped in between) refuses
// anything that is not a regular file. Returns the descriptor; throws llama_error.
static int open_regular(const std::string & path, int extra_flags, struct stat & st) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | extra_flags);
    if (fd < 0) {
        throw llama_error(llama_format("cannot open '%s': %s", path.c_str(), strerror(errno)));
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        throw llama_error(
            llama_format("'%s' is not a regular file (FIFOs, devices and directories are refused)", path.c_str()));
    }
    // regular files ignore O_NONBLOCK; clear it anyway so reads have their usual meaning
    const int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) {
        (void) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    }
    return fd;
}

void llama_file_check_regular(const std::string & path) {
    struct stat st;
    ::close(open_regular(path, 0, st));
}

llama_file::llama_file(const std::string & path, bool direct_io) : path_(path) {
    struct stat st;
    fd_   = open_regular(path, 0, st);
    size_ = (size_t) st.st_size;
#ifdef O_DIRECT
    if (direct_io) {
        // a second descriptor: O_DIRECT needs aligned reads, which only the bulk loads do
        try {
            struct stat st_dio;
            fd_dio_ = open_regular(path, O_DIRECT, st_dio);
            if (st_dio.st_dev != st.st_dev || st_dio.st_ino != st.st_ino) {
                ::close(fd_dio_);  // the path now names another file: stay with the first
                fd_dio_ = -1;
            }
        } catch (const llama_error &) {
            fd_dio_ = -1;
        }
        direct_ = fd_dio_ >= 0;
        if (!direct_) {
            LLAMA_LOG_WARN("%s: direct I/O unavailable for '%s', using buffered reads\n", __func__, path.c_str());
        }
    }
#else
    (void) direct_io;
#endif
}

llama_file::~llama_file() {
    if (fd_ >= 0) {
        ::close(fd_);
    }
    if (fd_dio_ >= 0) {
        ::close(fd_dio_);
    }
}

static void read_full(int fd, size_t offset, uint8_t * dst, size_t n, const std::string & path) {
    while (n > 0) {
        const ssize_t r = ::pread(fd, dst, n, (off_t) offset);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            throw llama_error(llama_format("read error in '%s' at offset %zu: %s", path.c_str(), offset,
                                           r < 0 ? strerror(errno) : "unexpected end of file"));
        }
        dst += r;
        offset += (size_t) r;
        n -= (size_t) r;
    }
}

void llama_file::read_at(size_t offset, void * dst, size_t n) const {
    if (offset > size_ || n > size_ - offset) {
        throw llama_error(llama_format("read of %zu bytes at offset %zu is past the end of '%s' (%zu bytes)", n, offset,
                                       path_.c_str(), size_));
    }
    if (direct_ && n >= (1u << 20)) {
        // O_DIRECT wants block-aligned offsets, sizes and buffers: read the aligned span into a
        // bounce buffer, then copy the part that was asked for
        const size_t align = 4096;
        const size_t begin = offset & ~(align - 1);
        size_t       end   = (offset + n + align - 1) & ~(align - 1);
        void *       tmp   = nullptr;
        if (posix_memalign(&tmp, align, end - begin) == 0) {
            bool   ok  = true;
            size_t got = 0;
            while (got < end - begin) {
                const ssize_t r = ::pread(fd_dio_, (uint8_t *) tmp + got, end - begin - got, (off_t) (begin + got));
                if (r < 0 && errno == EINTR) {
                    continue;
                }
                if (r <= 0) {
                    break;  // the tail of the file: r == 0 past EOF
                }
                got += (size_t) r;
            }
            ok = got >= offset + n - begin;
            if (ok) {
                memcpy(dst, (uint8_t *) tmp + (offset - begin), n);
            }
            free(tmp);
            if (ok) {
                return;
            }
        }
        // fall through to a buffered read on any trouble
    }
    read_full(fd_, offset, (uint8_t *) dst, n, path_);
}

// ---- llama_mmap ------------------------------------------------------------------------------

bool llama_mmap::supported() {
    return true;
}

llama_mmap::llama_mmap(const llama_file & file, bool prefetch) {
    size_ = file.size();
    if (size_ == 0) {
        throw llama_error(llama_format("cannot map empty file '%s'", file.path().c_str()));
    }
    addr_ = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, file.fd(), 0);
    if (addr_ == MAP_FAILED) {
        addr_ = nullptr;
        throw llama_error(llama_format("mmap of '%s' failed: %s", file.path().c_str(), strerror(errno)));
    }
    if (prefetch) {
        // advisory only: a failure changes nothing but speed
        (void) posix_madvise(addr_, size_, POSIX_MADV_WILLNEED);
    }
}

llama_mmap::~llama_mmap() {
    if (addr_) {
        ::munmap(addr_, size_);
    }
}

// ---- llama_mlock -----------------------------------------------------------------------------

bool llama_mlock::supported() {
    return true;
}

bool llama_mlock::lock(void * addr, size_t size) {
    if (::mlock(addr, size) != 0) {
        LLAMA_LOG_WARN("%s: mlock of %zu bytes failed: %s (raise RLIMIT_MEMLOCK, e.g. 'ulimit -l')\n", __func__, size,
                       strerror(errno));
        return false;
    }
    addr_ = addr;
    size_ = size;
    return true;
}

llama_mlock::~llama_mlock() {
    if (addr_) {
        ::munlock(addr_, size_);
    }
}
