#include "llama-mmap.h"

#include <cstring>

#include "ggml-os.h"
#include "llama-log.h"

// ---- llama_file ------------------------------------------------------------------------------

// Opens path for reading without ever blocking: a FIFO or device is refused at once, checked on the
// opened handle itself (the platform layer, ggml-os.h). Throws llama_error.
static void open_regular(const std::string & path, int flags, ggml_os_file & f) {
    const int r = ggml_os_file_open_read(path.c_str(), flags, &f);
    if (r == GGML_OS_NOT_REGULAR) {
        throw llama_error(
            llama_format("'%s' is not a regular file (FIFOs, devices and directories are refused)", path.c_str()));
    }
    if (r != GGML_OS_OK) {
        throw llama_error(ggml_os_error());
    }
}

void llama_file_check_regular(const std::string & path) {
    ggml_os_file f = GGML_OS_FILE_INIT;
    open_regular(path, 0, f);
    ggml_os_file_close(&f);
}

llama_file::llama_file(const std::string & path, bool direct_io) : path_(path) {
    file_ = new ggml_os_file(GGML_OS_FILE_INIT);
    try {
        open_regular(path, 0, *file_);
    } catch (...) {
        delete file_;
        throw;
    }
    size_ = (size_t) file_->size;
    if (direct_io) {
        // a second handle: unbuffered reads need aligned offsets and sizes, which only the bulk loads do
        ggml_os_file dio = GGML_OS_FILE_INIT;
        if (ggml_os_file_open_read(path.c_str(), GGML_OS_OPEN_DIRECT, &dio) == GGML_OS_OK) {
            if (dio.id[0] == file_->id[0] && dio.id[1] == file_->id[1]) {
                file_dio_ = new ggml_os_file(dio);
            } else {
                ggml_os_file_close(&dio);  // the path now names another file: stay with the first
            }
        }
        direct_ = file_dio_ != nullptr;
        if (!direct_) {
            LLAMA_LOG_WARN("%s: direct I/O unavailable for '%s', using buffered reads\n", __func__, path.c_str());
        }
    }
}

llama_file::~llama_file() {
    ggml_os_file_close(file_);
    delete file_;
    if (file_dio_) {
        ggml_os_file_close(file_dio_);
        delete file_dio_;
    }
}

static void read_full(const ggml_os_file * f, size_t offset, uint8_t * dst, size_t n, const std::string & path) {
    while (n > 0) {
        const int64_t r = ggml_os_file_pread(f, dst, n, offset);
        if (r <= 0) {
            throw llama_error(llama_format("read error in '%s' at offset %zu: %s", path.c_str(), offset,
                                           r < 0 ? ggml_os_error() : "unexpected end of file"));
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
        // unbuffered reads want block-aligned offsets, sizes and buffers: read the aligned span into a
        // bounce buffer, then copy the part that was asked for
        const size_t align = 4096;
        const size_t begin = offset & ~(align - 1);
        size_t       end   = (offset + n + align - 1) & ~(align - 1);
        void *       tmp   = ggml_os_aligned_alloc(align, end - begin);
        if (tmp) {
            size_t got = 0;
            while (got < end - begin) {
                const int64_t r = ggml_os_file_pread(file_dio_, (uint8_t *) tmp + got, end - begin - got, begin + got);
                if (r <= 0) {
                    break;  // the tail of the file: r == 0 past EOF
                }
                got += (size_t) r;
            }
            const bool ok = got >= offset + n - begin;
            if (ok) {
                memcpy(dst, (uint8_t *) tmp + (offset - begin), n);
            }
            ggml_os_aligned_free(tmp);
            if (ok) {
                return;
            }
        }
        // fall through to a buffered read on any trouble
    }
    read_full(file_, offset, (uint8_t *) dst, n, path_);
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
    addr_ = ggml_os_map_read(file.os_file(), size_);
    if (!addr_) {
        throw llama_error(llama_format("mapping '%s' failed: %s", file.path().c_str(), ggml_os_error()));
    }
    if (prefetch) {
        ggml_os_prefetch(addr_, size_);  // advisory only: a failure changes nothing but speed
    }
}

llama_mmap::~llama_mmap() {
    if (addr_) {
        ggml_os_unmap(addr_, size_);
    }
}

// ---- llama_mlock -----------------------------------------------------------------------------

bool llama_mlock::supported() {
    return true;
}

bool llama_mlock::lock(void * addr, size_t size) {
    if (!ggml_os_mlock(addr, size)) {
        LLAMA_LOG_WARN("%s: locking %zu bytes in memory failed: %s (on Linux raise RLIMIT_MEMLOCK, e.g. 'ulimit -l')\n",
                       __func__, size, ggml_os_error());
        return false;
    }
    addr_ = addr;
    size_ = size;
    return true;
}

llama_mlock::~llama_mlock() {
    if (addr_) {
        ggml_os_munlock(addr_, size_);
    }
}
