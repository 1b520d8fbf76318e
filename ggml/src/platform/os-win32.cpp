// The platform layer on Windows (ggml-os.h). Paths arrive as UTF-8 and go to the wide-char APIs.
#if defined(_WIN32)

#    ifndef WIN32_LEAN_AND_MEAN
#        define WIN32_LEAN_AND_MEAN
#    endif
#    ifndef NOMINMAX
#        define NOMINMAX
#    endif
#    if !defined(_WIN32_WINNT) || _WIN32_WINNT < 0x0602
#        undef _WIN32_WINNT
#        define _WIN32_WINNT 0x0602  // Windows 8: PrefetchVirtualMemory
#    endif
#    include <windows.h>
// after windows.h
#    include <fcntl.h>
#    include <io.h>
#    include <malloc.h>

#    include <cerrno>
#    include <cstdlib>
#    include <cstring>
#    include <string>
#    include <vector>

#    include "ggml-os.h"
#    include "os-internal.h"

namespace {

std::wstring widen(const char * s) {
    if (!s || !*s) {
        return std::wstring();
    }
    const int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, nullptr, 0);
    if (n <= 0) {
        return std::wstring();
    }
    std::wstring w((size_t) n, L'\0');
    MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, &w[0], n);
    w.resize((size_t) n - 1);
    return w;
}

std::string narrow(const wchar_t * w) {
    const int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, nullptr, 0, nullptr, nullptr);
    if (n <= 0) {
        return std::string();
    }
    std::string s((size_t) n, '\0');
    WideCharToMultiByte(CP_UTF8, 0, w, -1, &s[0], n, nullptr, nullptr);
    s.resize((size_t) n - 1);
    return s;
}

// The reason of GetLastError(), prefixed by what failed: the C runtime's words for the errors that have
// an errno (so a missing file reads as on every other OS), FormatMessage's text for the rest.
void set_win_error(const char * what, const char * path, DWORD err = GetLastError()) {
    int e = 0;
    switch (err) {
        case ERROR_FILE_NOT_FOUND:
        case ERROR_PATH_NOT_FOUND:
        case ERROR_INVALID_NAME:
            e = ENOENT;
            break;
        case ERROR_ACCESS_DENIED:
        case ERROR_SHARING_VIOLATION:
            e = EACCES;
            break;
        case ERROR_NOT_ENOUGH_MEMORY:
        case ERROR_OUTOFMEMORY:
            e = ENOMEM;
            break;
        case ERROR_DISK_FULL:
            e = ENOSPC;
            break;
        default:
            break;
    }
    if (e != 0) {
        ggml_os_set_error(std::string(what) + (path ? " '" + std::string(path) + "'" : std::string()) + ": " +
                          std::strerror(e));
        return;
    }
    wchar_t * msg = nullptr;
    FormatMessageW(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, nullptr,
                   err, 0, (LPWSTR) &msg, 0, nullptr);
    std::string text = msg ? narrow(msg) : "error " + std::to_string((unsigned long) err);
    if (msg) {
        LocalFree(msg);
    }
    text.erase(text.find_last_not_of(" \r\n.") + 1);
    ggml_os_set_error(std::string(what) + (path ? " '" + std::string(path) + "'" : std::string()) + ": " + text);
}

// A path that did not convert (not valid UTF-8) is reported as such instead of as "file not found".
bool widen_path(const char * path, std::wstring & w) {
    w = widen(path);
    if (w.empty()) {
        ggml_os_set_error("'" + std::string(path ? path : "") + "' is not a valid UTF-8 path");
        return false;
    }
    return true;
}

// Opens with CreateFileW and refuses anything but a file on disk (pipes, consoles, devices).
int open_regular(const char * path, DWORD access, DWORD disposition, DWORD attrs, HANDLE * out,
                 BY_HANDLE_FILE_INFORMATION * info) {
    std::wstring w;
    if (!widen_path(path, w)) {
        return GGML_OS_FAILED;
    }
    HANDLE h = CreateFileW(w.c_str(), access, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                           disposition, attrs, nullptr);
    if (h == INVALID_HANDLE_VALUE) {
        const DWORD err = GetLastError();
        if (err == ERROR_ACCESS_DENIED && (GetFileAttributesW(w.c_str()) & FILE_ATTRIBUTE_DIRECTORY) &&
            GetFileAttributesW(w.c_str()) != INVALID_FILE_ATTRIBUTES) {
            ggml_os_set_error("'" + std::string(path) + "' is not a regular file");
            return GGML_OS_NOT_REGULAR;
        }
        set_win_error("cannot open", path, err);
        return GGML_OS_FAILED;
    }
    if (GetFileType(h) != FILE_TYPE_DISK || !GetFileInformationByHandle(h, info) ||
        (info->dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)) {
        CloseHandle(h);
        ggml_os_set_error("'" + std::string(path) + "' is not a regular file");
        return GGML_OS_NOT_REGULAR;
    }
    *out = h;
    return GGML_OS_OK;
}

}  // namespace

extern "C" {

FILE * ggml_os_fopen(const char * path, const char * mode) {
    std::wstring w;
    if (!widen_path(path, w)) {
        return nullptr;
    }
    const std::wstring wmode = widen(mode);
    FILE *             f     = _wfopen(w.c_str(), wmode.c_str());
    if (!f) {
        ggml_os_set_error("cannot open '" + std::string(path) + "': " + std::strerror(errno));
    }
    return f;
}

int ggml_os_file_open_read(const char * path, int flags, ggml_os_file * f) {
    const DWORD attrs = FILE_ATTRIBUTE_NORMAL | ((flags & GGML_OS_OPEN_DIRECT) ? FILE_FLAG_NO_BUFFERING : 0);
    HANDLE      h;
    BY_HANDLE_FILE_INFORMATION info;
    const int                  r = open_regular(path, GENERIC_READ, OPEN_EXISTING, attrs, &h, &info);
    if (r != GGML_OS_OK) {
        return r;
    }
    f->handle = (intptr_t) h;
    f->size   = (uint64_t) info.nFileSizeHigh << 32 | info.nFileSizeLow;
    f->id[0]  = info.dwVolumeSerialNumber;
    f->id[1]  = (uint64_t) info.nFileIndexHigh << 32 | info.nFileIndexLow;
    return GGML_OS_OK;
}

int64_t ggml_os_file_pread(const ggml_os_file * f, void * dst, size_t n, uint64_t offset) {
    // ReadFile takes a 32-bit size; a synchronous handle with an OVERLAPPED offset reads at that offset
    // without depending on (or racing for) the handle's file pointer
    const DWORD chunk = n > (1u << 30) ? (1u << 30) : (DWORD) n;
    OVERLAPPED  ov    = {};
    ov.Offset         = (DWORD) offset;
    ov.OffsetHigh     = (DWORD) (offset >> 32);
    DWORD got         = 0;
    if (!ReadFile((HANDLE) f->handle, dst, chunk, &got, &ov)) {
        const DWORD err = GetLastError();
        if (err == ERROR_HANDLE_EOF) {
            return 0;
        }
        set_win_error("read error", nullptr, err);
        return -1;
    }
    return (int64_t) got;
}

void ggml_os_file_close(ggml_os_file * f) {
    if (f->handle != -1) {
        CloseHandle((HANDLE) f->handle);
        f->handle = -1;
    }
}

FILE * ggml_os_file_to_stdio(ggml_os_file * f, const char * mode) {
    const int fd = _open_osfhandle(f->handle, _O_RDONLY | _O_BINARY);
    if (fd < 0) {
        ggml_os_set_error("_open_osfhandle failed");
        return nullptr;
    }
    FILE * s = _fdopen(fd, mode);
    if (!s) {
        ggml_os_set_error("_fdopen failed");
        _close(fd);  // closes the handle too
        f->handle = -1;
        return nullptr;
    }
    f->handle = -1;
    return s;
}

int ggml_os_fseek64(FILE * f, uint64_t offset) {
    return _fseeki64(f, (__int64) offset, SEEK_SET);
}

int ggml_os_fopen_write_regular(const char * path, FILE ** out) {
    HANDLE                     h;
    BY_HANDLE_FILE_INFORMATION info;
    const int                  r = open_regular(path, GENERIC_WRITE, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, &h, &info);
    if (r != GGML_OS_OK) {
        return r;
    }
    const int fd = _open_osfhandle((intptr_t) h, _O_WRONLY | _O_BINARY);
    if (fd < 0) {
        CloseHandle(h);
        ggml_os_set_error("_open_osfhandle failed");
        return GGML_OS_FAILED;
    }
    FILE * s = _fdopen(fd, "wb");
    if (!s) {
        _close(fd);
        ggml_os_set_error("_fdopen failed");
        return GGML_OS_FAILED;
    }
    *out = s;
    return GGML_OS_OK;
}

int ggml_os_stdio_path(FILE * f, char * buf, size_t size) {
    const intptr_t h = _get_osfhandle(_fileno(f));
    if (h == -1) {
        ggml_os_set_error("the stream has no file handle");
        return GGML_OS_FAILED;
    }
    std::vector<wchar_t> w(32768);
    const DWORD          n = GetFinalPathNameByHandleW((HANDLE) h, w.data(), (DWORD) w.size(), FILE_NAME_NORMALIZED);
    if (n == 0 || n >= w.size()) {
        set_win_error("GetFinalPathNameByHandleW failed", nullptr);
        return GGML_OS_FAILED;
    }
    const std::string s = narrow(w.data());
    if (s.empty() || s.size() >= size) {
        ggml_os_set_error("path buffer too small");
        return GGML_OS_FAILED;
    }
    std::memcpy(buf, s.c_str(), s.size() + 1);
    return GGML_OS_OK;
}

bool ggml_os_rename_replace(const char * from, const char * to) {
    std::wstring wf, wt;
    if (!widen_path(from, wf) || !widen_path(to, wt)) {
        return false;
    }
    if (!MoveFileExW(wf.c_str(), wt.c_str(), MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) {
        set_win_error("cannot rename", from);
        return false;
    }
    return true;
}

bool ggml_os_remove(const char * path) {
    std::wstring w;
    if (!widen_path(path, w)) {
        return false;
    }
    if (!DeleteFileW(w.c_str())) {
        set_win_error("cannot remove", path);
        return false;
    }
    return true;
}

void * ggml_os_map_read(const ggml_os_file * f, size_t size) {
    HANDLE m = CreateFileMappingW((HANDLE) f->handle, nullptr, PAGE_READONLY, 0, 0, nullptr);
    if (!m) {
        set_win_error("CreateFileMapping failed", nullptr);
        return nullptr;
    }
    void *      p   = MapViewOfFile(m, FILE_MAP_READ, 0, 0, size);
    const DWORD err = GetLastError();
    CloseHandle(m);  // the view keeps the mapping alive
    if (!p) {
        set_win_error("MapViewOfFile failed", nullptr, err);
    }
    return p;
}

void ggml_os_unmap(void * addr, size_t) {
    UnmapViewOfFile(addr);
}

void ggml_os_prefetch(void * addr, size_t size) {
    WIN32_MEMORY_RANGE_ENTRY range;
    range.VirtualAddress = addr;
    range.NumberOfBytes  = size;
    (void) PrefetchVirtualMemory(GetCurrentProcess(), 1, &range, 0);
}

bool ggml_os_mlock(void * addr, size_t size) {
    if (VirtualLock(addr, size)) {
        return true;
    }
    // the working set's minimum bounds what may be locked: grow it by the range, then try again
    SIZE_T min_ws = 0, max_ws = 0;
    if (GetProcessWorkingSetSize(GetCurrentProcess(), &min_ws, &max_ws) &&
        SetProcessWorkingSetSize(GetCurrentProcess(), min_ws + size, max_ws + size) && VirtualLock(addr, size)) {
        return true;
    }
    set_win_error("VirtualLock failed", nullptr);
    return false;
}

void ggml_os_munlock(void * addr, size_t size) {
    VirtualUnlock(addr, size);
}

void * ggml_os_aligned_alloc(size_t align, size_t size) {
    return _aligned_malloc(size ? size : align, align);
}

void ggml_os_aligned_free(void * p) {
    _aligned_free(p);
}

void ggml_os_advise_huge_pages(void *, size_t) {
    // large pages on Windows need SeLockMemoryPrivilege and VirtualAlloc(MEM_LARGE_PAGES) up front
}

size_t ggml_os_page_size(void) {
    SYSTEM_INFO si;
    GetSystemInfo(&si);
    return si.dwPageSize;
}

uint64_t ggml_os_memory_total(void) {
    MEMORYSTATUSEX ms;
    ms.dwLength = sizeof(ms);
    return GlobalMemoryStatusEx(&ms) ? ms.ullTotalPhys : 0;
}

uint64_t ggml_os_memory_available(void) {
    MEMORYSTATUSEX ms;
    ms.dwLength = sizeof(ms);
    return GlobalMemoryStatusEx(&ms) ? ms.ullAvailPhys : 0;
}

int ggml_os_performance_cpus(int n_logical) {
    // the logical processors of the cores with the highest efficiency class (P-cores of a hybrid chip)
    (void) n_logical;
    DWORD len = 0;
    GetLogicalProcessorInformationEx(RelationProcessorCore, nullptr, &len);
    if (len == 0) {
        return 0;
    }
    std::vector<char> buf(len);
    auto *            info = (SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX *) buf.data();
    if (!GetLogicalProcessorInformationEx(RelationProcessorCore, info, &len)) {
        return 0;
    }
    int top = -1, n = 0;
    for (DWORD off = 0; off < len;) {
        auto * r = (SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX *) (buf.data() + off);
        // EfficiencyClass is the byte after Flags (MinGW's headers still call it Reserved[0])
        const int eff  = (&r->Processor.Flags)[1];
        int       bits = 0;
        for (WORD g = 0; g < r->Processor.GroupCount; ++g) {
            for (KAFFINITY m = r->Processor.GroupMask[g].Mask; m; m &= m - 1) {
                ++bits;
            }
        }
        if (eff > top) {
            top = eff;
            n   = 0;
        }
        if (eff == top) {
            n += bits;
        }
        off += r->Size;
    }
    return n;
}

bool ggml_os_cpu_name(char * buf, size_t size) {
    wchar_t name[256];
    DWORD   len = sizeof(name);
    if (RegGetValueW(HKEY_LOCAL_MACHINE, L"HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0", L"ProcessorNameString",
                     RRF_RT_REG_SZ, nullptr, name, &len) != ERROR_SUCCESS) {
        return false;
    }
    std::string s = narrow(name);
    s.erase(0, s.find_first_not_of(' '));
    s.erase(s.find_last_not_of(' ') + 1);
    if (s.empty() || size == 0) {
        return false;
    }
    std::snprintf(buf, size, "%s", s.c_str());
    return true;
}

ggml_os_arm_caps ggml_os_arm_features(void) {
    ggml_os_arm_caps c{};
#    if defined(_M_ARM64) || defined(__aarch64__)
    // PF_ARM_V82_DP_INSTRUCTIONS_AVAILABLE (43); the FP16 arithmetic that dotprod-era cores have comes
    // with it on every Windows-on-ARM machine
    c.dotprod = IsProcessorFeaturePresent(43) != 0;
    c.fp16    = c.dotprod;
#    endif
    return c;
}

int64_t ggml_os_time_us(void) {
    static const LONGLONG freq = [] {
        LARGE_INTEGER f;
        QueryPerformanceFrequency(&f);
        return f.QuadPart;
    }();
    LARGE_INTEGER t;
    QueryPerformanceCounter(&t);
    // split to keep the product in range: counts per second are around 10^7
    return (int64_t) (t.QuadPart / freq * 1000000 + t.QuadPart % freq * 1000000 / freq);
}

void * ggml_os_dl_open(const char * path) {
    std::wstring w;
    if (!widen_path(path, w)) {
        return nullptr;
    }
    // no error box when a dependent DLL is missing: the caller reports it
    const UINT  old = SetErrorMode(SEM_FAILCRITICALERRORS);
    HMODULE     h   = LoadLibraryW(w.c_str());
    const DWORD err = GetLastError();
    SetErrorMode(old);
    if (!h) {
        set_win_error("cannot load", path, err);
    }
    return (void *) h;
}

void * ggml_os_dl_sym(void * lib, const char * name) {
    void * p = (void *) GetProcAddress((HMODULE) lib, name);
    if (!p) {
        ggml_os_set_error(std::string("symbol '") + name + "' not found");
    }
    return p;
}

void ggml_os_dl_close(void * lib) {
    if (lib) {
        FreeLibrary((HMODULE) lib);
    }
}

const char * ggml_os_dl_suffix(void) {
    return ".dll";
}

bool ggml_os_dl_path_of(const void * addr, char * buf, size_t size) {
    HMODULE m = nullptr;
    if (!buf || size == 0 ||
        !GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                            (LPCWSTR) addr, &m)) {
        set_win_error("cannot find the module of", "an address");
        return false;
    }
    std::vector<wchar_t> w(32768);
    const DWORD          n = GetModuleFileNameW(m, w.data(), (DWORD) w.size());
    if (n == 0 || n >= w.size()) {
        set_win_error("cannot get the file name of", "a module");
        return false;
    }
    const std::string s = narrow(w.data());
    if (s.size() >= size) {
        ggml_os_set_error("path too long");
        return false;
    }
    std::memcpy(buf, s.c_str(), s.size() + 1);
    return true;
}

bool ggml_os_list_dir(const char * dir, void (*fn)(const char * name, void * ud), void * ud) {
    std::wstring w;
    if (!widen_path(dir, w)) {
        return false;
    }
    w += L"\\*";
    WIN32_FIND_DATAW fd;
    HANDLE           h = FindFirstFileW(w.c_str(), &fd);
    if (h == INVALID_HANDLE_VALUE) {
        set_win_error("cannot read directory", dir);
        return false;
    }
    do {
        const std::string name = narrow(fd.cFileName);
        if (name != "." && name != "..") {
            fn(name.c_str(), ud);
        }
    } while (FindNextFileW(h, &fd));
    FindClose(h);
    return true;
}

unsigned ggml_os_gpu_nodes(void) {
    return GGML_OS_GPU_UNKNOWN;  // GPUs are reached through the driver stack, not device nodes
}

}  // extern "C"

#endif  // _WIN32
