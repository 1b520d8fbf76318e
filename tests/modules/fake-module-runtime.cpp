// The "runtime" the FAKE_KIND 2 module links: built into a folder no search path names, so loading
// that module fails the way a GPU module fails where its runtime (libcudart, the Vulkan loader) is absent.
#if defined(_WIN32)
#    define FAKE_EXPORT extern "C" __declspec(dllexport)
#else
#    define FAKE_EXPORT extern "C" __attribute__((visibility("default")))
#endif

FAKE_EXPORT int fake_module_runtime_version(void) {
    return 1;
}
