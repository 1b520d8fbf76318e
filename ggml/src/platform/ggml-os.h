// The platform layer: everything that differs between operating systems, behind one C interface.
// os-posix.cpp (Linux, Android, macOS, the BSDs) and os-win32.cpp implement it; they are the only
// files of the project (besides examples/common/console.cpp for the programs' console) that include
// an OS header. Both libggml and libllama carry a private copy of these objects (hidden symbols).
//
// Paths are UTF-8 everywhere; on Windows they are converted to UTF-16 and passed to the wide-char
// APIs, so a model in a folder named in any script opens. Functions that can fail say why through
// ggml_os_error() (the calling thread's last message: strerror / FormatMessage text).
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

// The text of the last failure on this thread ("" when none has occurred).
const char * ggml_os_error(void);

// ---- files ------------------------------------------------------------------------------------

// fopen with a UTF-8 path (mode as for fopen). NULL on failure.
FILE * ggml_os_fopen(const char * path, const char * mode);

// A file opened for positioned reads.
typedef struct ggml_os_file {
    intptr_t handle;  // descriptor (POSIX) or HANDLE (Windows); -1 when not open
    uint64_t size;    // bytes, taken at open
    uint64_t id[2];   // identity: two opens of the same file give the same id (device + inode, volume + index)
} ggml_os_file;

#define GGML_OS_FILE_INIT \
    {                     \
        -1, 0, {          \
            0, 0          \
        }                 \
    }

enum ggml_os_open_flags {
    GGML_OS_OPEN_DIRECT = 1,  // bypass the page cache (O_DIRECT / FILE_FLAG_NO_BUFFERING): reads must be
                              // 4096-aligned in offset, size and buffer address
};

enum ggml_os_status {
    GGML_OS_OK          = 0,
    GGML_OS_FAILED      = -1,  // the OS refused (ggml_os_error says why)
    GGML_OS_NOT_REGULAR = -2,  // the path names a FIFO, device or directory
    GGML_OS_UNSUPPORTED = -3,  // this OS (or this build) cannot do it
};

// Opens a regular file for reading. Never blocks: a FIFO or device is refused at once
// (GGML_OS_NOT_REGULAR), checked on the opened handle itself so nothing can be swapped in between.
int ggml_os_file_open_read(const char * path, int flags, ggml_os_file * f);

// Reads up to n bytes at offset (the handle's position is not used, so threads may share one file).
// Returns the bytes read (0 at the end of the file) or -1.
int64_t ggml_os_file_pread(const ggml_os_file * f, void * dst, size_t n, uint64_t offset);

// Closes the handle (no-op when not open) and marks f not open.
void ggml_os_file_close(ggml_os_file * f);

// Hands the open handle to a stdio stream (mode "rb"); on success f is marked not open and the stream
// owns the handle. NULL on failure (f unchanged).
FILE * ggml_os_file_to_stdio(ggml_os_file * f, const char * mode);

// Seeks a stream to a 64-bit offset from its start (fseeko / _fseeki64). 0 on success.
int ggml_os_fseek64(FILE * f, uint64_t offset);

// Creates or truncates path for writing ("wb" stream). A FIFO, device or directory is refused without
// blocking (GGML_OS_NOT_REGULAR). *out is set on GGML_OS_OK only.
int ggml_os_fopen_write_regular(const char * path, FILE ** out);

// The path of an open stream's file, UTF-8, for code that must reopen it by name. GGML_OS_UNSUPPORTED
// where the OS cannot say; GGML_OS_FAILED when buf is too small or the query fails.
int ggml_os_stdio_path(FILE * f, char * buf, size_t size);

// Renames from to to, replacing an existing to (atomic where the OS offers it). false on failure.
bool ggml_os_rename_replace(const char * from, const char * to);

// Deletes a file. false on failure.
bool ggml_os_remove(const char * path);

// ---- memory maps and locks --------------------------------------------------------------------

// Maps the first size bytes of f read-only (size > 0, at most f->size). NULL on failure. The mapping
// stays valid after f is closed.
void * ggml_os_map_read(const ggml_os_file * f, size_t size);
void   ggml_os_unmap(void * addr, size_t size);

// Asks the OS to read a mapped range ahead (advice: failure only costs speed).
void ggml_os_prefetch(void * addr, size_t size);

// Locks a range in RAM (raising the process's lock quota where the OS allows). false on failure.
bool ggml_os_mlock(void * addr, size_t size);
void ggml_os_munlock(void * addr, size_t size);

// Aligned heap memory: align a power of two >= sizeof(void *). Free with ggml_os_aligned_free only.
void * ggml_os_aligned_alloc(size_t align, size_t size);
void   ggml_os_aligned_free(void * p);

// Asks for transparent huge pages on a range (Linux madvise(MADV_HUGEPAGE); a no-op elsewhere).
void ggml_os_advise_huge_pages(void * addr, size_t size);

// ---- the machine ------------------------------------------------------------------------------

size_t   ggml_os_page_size(void);
uint64_t ggml_os_memory_total(void);      // physical memory in bytes; 0 if unknown
uint64_t ggml_os_memory_available(void);  // memory available to new allocations; 0 if unknown

// Logical CPUs of the highest performance class (the big cores of a big.LITTLE phone, the P-cores of an
// Apple or Intel hybrid chip); 0 when the OS does not say. n_logical: all logical CPUs.
int ggml_os_performance_cpus(int n_logical);

// The processor's marketing name into buf (NUL-terminated). false if the OS does not say.
bool ggml_os_cpu_name(char * buf, size_t size);

// ARM64 instruction-set features as the OS reports them (all false on other architectures).
typedef struct ggml_os_arm_caps {
    bool dotprod, fp16, i8mm, bf16, sve, sve2;
} ggml_os_arm_caps;
ggml_os_arm_caps ggml_os_arm_features(void);

// ---- time, once, dynamic libraries -----------------------------------------------------------

// Monotonic clock in microseconds.
int64_t ggml_os_time_us(void);

// One-time initialisation usable from C: runs fn exactly once however many threads call it;
// callers wait until it has finished. fn may itself call ggml_os_call_once on another flag.
typedef struct ggml_os_once {
    volatile long state;  // 0 not run, 2 done
} ggml_os_once;
#define GGML_OS_ONCE_INIT \
    { 0 }
void ggml_os_call_once(ggml_os_once * once, void (*fn)(void));

// A shared library (UTF-8 path): dlopen / LoadLibraryW. NULL on failure (ggml_os_error says why).
void * ggml_os_dl_open(const char * path);
void * ggml_os_dl_sym(void * lib, const char * name);
void   ggml_os_dl_close(void * lib);

// The file name ending of shared libraries here: ".so", ".dylib" or ".dll".
const char * ggml_os_dl_suffix(void);

// The path (UTF-8) of the shared library or executable whose code contains addr, into buf
// (NUL-terminated). false when the OS cannot say or buf is too small.
bool ggml_os_dl_path_of(const void * addr, char * buf, size_t size);

// Calls fn(name, ud) for each entry of directory dir (UTF-8 names, "." and ".." left out), in the
// order the OS lists them. false when dir cannot be read.
bool ggml_os_list_dir(const char * dir, void (*fn)(const char * name, void * ud), void * ud);

// The GPU device nodes this machine shows, as flags: what a GPU runtime would find without loading
// it. GGML_OS_GPU_UNKNOWN where the OS has no such nodes to look at (Windows, macOS, Android);
// otherwise 0 (none), GGML_OS_GPU_NVIDIA (/dev/nvidiactl or /dev/nvidia0: the NVIDIA driver is
// loaded) and GGML_OS_GPU_OTHER (a DRM render node, WSL's /dev/dxg, an Adreno or Mali node).
enum {
    GGML_OS_GPU_UNKNOWN = 1,
    GGML_OS_GPU_NVIDIA  = 2,
    GGML_OS_GPU_OTHER   = 4,
};
unsigned ggml_os_gpu_nodes(void);

#ifdef __cplusplus
}
#endif
