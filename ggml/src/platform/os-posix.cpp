// The platform layer on POSIX systems: Linux, Android, macOS, the BSDs (ggml-os.h).
#if !defined(_WIN32)

#    include <dirent.h>
#    include <dlfcn.h>
#    include <fcntl.h>
#    include <sys/mman.h>
#    include <sys/stat.h>
#    include <time.h>
#    include <unistd.h>

#    include <cerrno>
#    include <cstdlib>
#    include <cstring>
#    include <string>
#    include <vector>

#    include "ggml-os.h"
#    include "os-internal.h"

#    if defined(__APPLE__)
#        include <sys/sysctl.h>
#    endif
#    if defined(__linux__) && defined(__aarch64__)
#        include <sys/auxv.h>
#    endif

namespace {

void set_errno_error(const char * what, const char * path) {
    ggml_os_set_error(std::string(what) + (path ? " '" + std::string(path) + "'" : std::string()) + ": " +
                      std::strerror(errno));
}

#    ifndef O_CLOEXEC
#        define O_CLOEXEC 0
#    endif

// Opens without blocking (O_NONBLOCK: an open of a FIFO would otherwise wait for its other end), then
// checks the type on the descriptor itself and clears O_NONBLOCK so reads and writes have their usual
// meaning. Returns the descriptor, or a negative ggml_os_status.
int open_regular(const char * path, int oflags, mode_t mode, struct stat * st) {
    const int fd = ::open(path, oflags | O_CLOEXEC | O_NONBLOCK, mode);
    if (fd < 0) {
        set_errno_error("cannot open", path);
        return GGML_OS_FAILED;
    }
    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
        ::close(fd);
        ggml_os_set_error("'" + std::string(path) + "' is not a regular file");
        return GGML_OS_NOT_REGULAR;
    }
    const int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) {
        (void) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    }
    return fd;
}

#    if defined(__linux__)
// One integer from a sysfs file, or -1.
long read_sys_long(const char * path) {
    FILE * f = std::fopen(path, "r");
    if (!f) {
        return -1;
    }
    long v = -1;
    if (std::fscanf(f, "%ld", &v) != 1) {
        v = -1;
    }
    std::fclose(f);
    return v;
}
#    endif

}  // namespace

extern "C" {

FILE * ggml_os_fopen(const char * path, const char * mode) {
    FILE * f = std::fopen(path, mode);
    if (!f) {
        set_errno_error("cannot open", path);
    }
    return f;
}

int ggml_os_file_open_read(const char * path, int flags, ggml_os_file * f) {
    int oflags = O_RDONLY;
    if (flags & GGML_OS_OPEN_DIRECT) {
#    if defined(O_DIRECT)
        oflags |= O_DIRECT;
#    elif !defined(__APPLE__)  // macOS: F_NOCACHE below
        ggml_os_set_error("direct I/O is not available on this OS");
        return GGML_OS_UNSUPPORTED;
#    endif
    }
    struct stat st;
    const int   fd = open_regular(path, oflags, 0, &st);
    if (fd < 0) {
        return fd;
    }
#    if defined(__APPLE__)
    if (flags & GGML_OS_OPEN_DIRECT) {
        (void) fcntl(fd, F_NOCACHE, 1);
    }
#    endif
    f->handle = fd;
    f->size   = (uint64_t) st.st_size;
    f->id[0]  = (uint64_t) st.st_dev;
    f->id[1]  = (uint64_t) st.st_ino;
    return GGML_OS_OK;
}

int64_t ggml_os_file_pread(const ggml_os_file * f, void * dst, size_t n, uint64_t offset) {
    for (;;) {
        const ssize_t r = ::pread((int) f->handle, dst, n, (off_t) offset);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r < 0) {
            set_errno_error("read error", nullptr);
        }
        return (int64_t) r;
    }
}

void ggml_os_file_close(ggml_os_file * f) {
    if (f->handle >= 0) {
        ::close((int) f->handle);
        f->handle = -1;
    }
}

FILE * ggml_os_file_to_stdio(ggml_os_file * f, const char * mode) {
    FILE * s = fdopen((int) f->handle, mode);
    if (!s) {
        set_errno_error("fdopen failed", nullptr);
        return nullptr;
    }
    f->handle = -1;
    return s;
}

int ggml_os_fseek64(FILE * f, uint64_t offset) {
    return fseeko(f, (off_t) offset, SEEK_SET);
}

int ggml_os_fopen_write_regular(const char * path, FILE ** out) {
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        // said up front: opening a FIFO without a reader would only report ENXIO
        ggml_os_set_error("'" + std::string(path) + "' is not a regular file");
        return GGML_OS_NOT_REGULAR;
    }
    const int fd = open_regular(path, O_WRONLY | O_CREAT | O_TRUNC, 0644, &st);
    if (fd < 0) {
        return fd;
    }
    FILE * s = fdopen(fd, "wb");
    if (!s) {
        set_errno_error("cannot open", path);
        ::close(fd);
        return GGML_OS_FAILED;
    }
    *out = s;
    return GGML_OS_OK;
}

int ggml_os_stdio_path(FILE * f, char * buf, size_t size) {
    const int fd = fileno(f);
    if (fd < 0) {
        set_errno_error("fileno failed", nullptr);
        return GGML_OS_FAILED;
    }
#    if defined(__linux__)
    // the descriptor reachable as a path: opens the same file even if it was renamed or unlinked
    const int n = std::snprintf(buf, size, "/proc/self/fd/%d", fd);
    if (n < 0 || (size_t) n >= size) {
        ggml_os_set_error("path buffer too small");
        return GGML_OS_FAILED;
    }
    return GGML_OS_OK;
#    elif defined(__APPLE__)
    char path[PATH_MAX];
    if (fcntl(fd, F_GETPATH, path) != 0) {
        set_errno_error("F_GETPATH failed", nullptr);
        return GGML_OS_FAILED;
    }
    if (std::strlen(path) >= size) {
        ggml_os_set_error("path buffer too small");
        return GGML_OS_FAILED;
    }
    std::strcpy(buf, path);
    return GGML_OS_OK;
#    else
    (void) buf;
    (void) size;
    ggml_os_set_error("this OS cannot name the file behind a stream");
    return GGML_OS_UNSUPPORTED;
#    endif
}

bool ggml_os_rename_replace(const char * from, const char * to) {
    if (std::rename(from, to) != 0) {
        set_errno_error("cannot rename", from);
        return false;
    }
    return true;
}

bool ggml_os_remove(const char * path) {
    if (std::remove(path) != 0) {
        set_errno_error("cannot remove", path);
        return false;
    }
    return true;
}

void * ggml_os_map_read(const ggml_os_file * f, size_t size) {
    void * p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, (int) f->handle, 0);
    if (p == MAP_FAILED) {
        set_errno_error("mmap failed", nullptr);
        return nullptr;
    }
    return p;
}

void ggml_os_unmap(void * addr, size_t size) {
    ::munmap(addr, size);
}

void ggml_os_prefetch(void * addr, size_t size) {
    (void) posix_madvise(addr, size, POSIX_MADV_WILLNEED);
}

bool ggml_os_mlock(void * addr, size_t size) {
    if (::mlock(addr, size) != 0) {
        set_errno_error("mlock failed", nullptr);
        return false;
    }
    return true;
}

void ggml_os_munlock(void * addr, size_t size) {
    ::munlock(addr, size);
}

void * ggml_os_aligned_alloc(size_t align, size_t size) {
    void * p = nullptr;
    if (posix_memalign(&p, align, size ? size : align) != 0) {
        return nullptr;
    }
    return p;
}

void ggml_os_aligned_free(void * p) {
    std::free(p);
}

void ggml_os_advise_huge_pages(void * addr, size_t size) {
#    if defined(__linux__) && defined(MADV_HUGEPAGE)
    (void) madvise(addr, size, MADV_HUGEPAGE);  // advice only: without THP the memory still works
#    else
    (void) addr;
    (void) size;
#    endif
}

size_t ggml_os_page_size(void) {
    const long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t) p : 4096;
}

uint64_t ggml_os_memory_total(void) {
#    if defined(__APPLE__)
    uint64_t v   = 0;
    size_t   len = sizeof(v);
    return sysctlbyname("hw.memsize", &v, &len, nullptr, 0) == 0 ? v : 0;
#    else
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long psize = sysconf(_SC_PAGESIZE);
    return (pages > 0 && psize > 0) ? (uint64_t) pages * (uint64_t) psize : 0;
#    endif
}

uint64_t ggml_os_memory_available(void) {
#    if defined(__linux__)
    FILE * f = std::fopen("/proc/meminfo", "r");
    if (!f) {
        return 0;
    }
    char               line[256];
    unsigned long long kb = 0;
    while (std::fgets(line, sizeof(line), f)) {
        if (std::sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
            break;
        }
    }
    std::fclose(f);
    return (uint64_t) kb * 1024;
#    else
    return 0;
#    endif
}

int ggml_os_performance_cpus(int n_logical) {
#    if defined(__APPLE__)
    (void) n_logical;
    int    v   = 0;
    size_t len = sizeof(v);
    return sysctlbyname("hw.perflevel0.logicalcpu", &v, &len, nullptr, 0) == 0 && v > 0 ? v : 0;
#    elif defined(__linux__)
    // cores whose capacity (or else maximum frequency) is within 10% of the highest: prime and big
    // cores of one phone differ little, little cores by 2-4x
    for (const char * attr : {"cpu_capacity", "cpufreq/cpuinfo_max_freq"}) {
        std::vector<long> v;
        char path[96];
        for (int i = 0; i < n_logical; ++i) {
            std::snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/%s", i, attr);
            v.push_back(read_sys_long(path));
        }
        long top = -1;
        for (long x : v) {
            top = x > top ? x : top;
        }
        if (top <= 0) {
            continue;
        }
        int n = 0;
        for (long x : v) {
            n += x > 0 && x * 10 >= top * 9;
        }
        return n;
    }
    return 0;
#    else
    (void) n_logical;
    return 0;
#    endif
}

bool ggml_os_cpu_name(char * buf, size_t size) {
    std::string name;
#    if defined(__APPLE__)
    char   v[256];
    size_t len = sizeof(v);
    if (sysctlbyname("machdep.cpu.brand_string", v, &len, nullptr, 0) == 0) {
        name.assign(v, strnlen(v, sizeof(v)));
    }
#    elif defined(__linux__)
    if (FILE * f = std::fopen("/proc/cpuinfo", "r")) {
        char line[512];
        while (std::fgets(line, sizeof(line), f)) {
            if (std::strncmp(line, "model name", 10) == 0) {
                if (const char * colon = std::strchr(line, ':')) {
                    name = colon + 1;
                    name.erase(0, name.find_first_not_of(" \t"));
                    name.erase(name.find_last_not_of(" \t\r\n") + 1);
                }
                break;
            }
        }
        std::fclose(f);
    }
#    endif
    if (name.empty() || size == 0) {
        return false;
    }
    std::snprintf(buf, size, "%s", name.c_str());
    return true;
}

ggml_os_arm_caps ggml_os_arm_features(void) {
    ggml_os_arm_caps c{};
#    if defined(__aarch64__) && defined(__APPLE__)
    auto flag = [](const char * name) {
        int    v   = 0;
        size_t len = sizeof(v);
        return sysctlbyname(name, &v, &len, nullptr, 0) == 0 && v != 0;
    };
    c.dotprod = flag("hw.optional.arm.FEAT_DotProd");
    c.fp16    = flag("hw.optional.arm.FEAT_FP16");
    c.i8mm    = flag("hw.optional.arm.FEAT_I8MM");
    c.bf16    = flag("hw.optional.arm.FEAT_BF16");
#    elif defined(__aarch64__) && defined(__linux__)
    // bit numbers from the kernel's uapi asm/hwcap.h (named here: older headers lack some of them)
    const unsigned long hw = getauxval(AT_HWCAP);
    const unsigned long hw2 = getauxval(AT_HWCAP2);
    c.fp16 = (hw >> 9 & 1) && (hw >> 10 & 1);  // HWCAP_FPHP, HWCAP_ASIMDHP
    c.dotprod = hw >> 20 & 1;                  // HWCAP_ASIMDDP
    c.sve = hw >> 22 & 1;                      // HWCAP_SVE
    c.sve2 = hw2 >> 1 & 1;                     // HWCAP2_SVE2
    c.i8mm = hw2 >> 13 & 1;                    // HWCAP2_I8MM
    c.bf16 = hw2 >> 14 & 1;                    // HWCAP2_BF16
#    endif
    return c;
}

int64_t ggml_os_time_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void * ggml_os_dl_open(const char * path) {
    void * h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char * e = dlerror();
        ggml_os_set_error(e ? e : "dlopen failed");
    }
    return h;
}

void * ggml_os_dl_sym(void * lib, const char * name) {
    void * p = dlsym(lib, name);
    if (!p) {
        ggml_os_set_error(std::string("symbol '") + name + "' not found");
    }
    return p;
}

void ggml_os_dl_close(void * lib) {
    if (lib) {
        dlclose(lib);
    }
}

const char * ggml_os_dl_suffix(void) {
#    if defined(__APPLE__)
    return ".dylib";
#    else
    return ".so";
#    endif
}

bool ggml_os_dl_path_of(const void * addr, char * buf, size_t size) {
    Dl_info info{};
    if (!buf || size == 0 || !dladdr(addr, &info) || !info.dli_fname || !*info.dli_fname) {
        ggml_os_set_error("the OS does not say which file holds this code");
        return false;
    }
    const size_t n = std::strlen(info.dli_fname);
    if (n >= size) {
        ggml_os_set_error("path too long");
        return false;
    }
    std::memcpy(buf, info.dli_fname, n + 1);
    return true;
}

bool ggml_os_list_dir(const char * dir, void (*fn)(const char * name, void * ud), void * ud) {
    DIR * d = dir ? opendir(dir) : nullptr;
    if (!d) {
        ggml_os_set_error(std::string("cannot read directory ") + (dir ? dir : "(null)") + ": " + std::strerror(errno));
        return false;
    }
    while (const struct dirent * e = readdir(d)) {
        if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) {
            fn(e->d_name, ud);
        }
    }
    closedir(d);
    return true;
}

unsigned ggml_os_gpu_nodes(void) {
#    if defined(__linux__) && !defined(__ANDROID__)
    struct stat st;
    if (stat("/dev", &st) != 0) {
        return GGML_OS_GPU_UNKNOWN;
    }
    unsigned f = 0;
    if (stat("/dev/nvidiactl", &st) == 0 || stat("/dev/nvidia0", &st) == 0) {
        f |= GGML_OS_GPU_NVIDIA;
    }
    for (const char * node : {"/dev/dxg", "/dev/kgsl-3d0", "/dev/mali0"}) {
        if (stat(node, &st) == 0) {
            f |= GGML_OS_GPU_OTHER;
        }
    }
    if (DIR * d = opendir("/dev/dri")) {
        while (const struct dirent * e = readdir(d)) {
            if (std::strncmp(e->d_name, "renderD", 7) == 0) {
                f |= GGML_OS_GPU_OTHER;
            }
        }
        closedir(d);
    }
    return f;
#    else
    return GGML_OS_GPU_UNKNOWN;  // GPUs are reached through frameworks, not device nodes we can list
#    endif
}

}  // extern "C"

#endif  // !_WIN32
