// vk-device.cpp — Vulkan instance and physical-device enumeration, lazy logical-device creation,
// the pipeline cache, and the registry/device vtables. Any failure leaves the device out (or
// unusable) with a logged reason; nothing aborts.
#include "ggml-os.h"
#include "vk-context.h"
#include "vk-shaders.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

bool ggml_vk_check(VkResult r, const char * what, const char * func) {
    if (r == VK_SUCCESS) {
        return false;
    }
    GGML_LOG_ERROR("ggml-vulkan: %s: %s failed with VkResult %d\n", func, what, (int) r);
    return true;
}

namespace {

VkInstance g_instance = VK_NULL_HANDLE;

bool has_extension(VkPhysicalDevice phys, const char * name) {
    uint32_t n = 0;
    if (vkEnumerateDeviceExtensionProperties(phys, nullptr, &n, nullptr) != VK_SUCCESS) {
        return false;
    }
    std::vector<VkExtensionProperties> exts(n);
    if (vkEnumerateDeviceExtensionProperties(phys, nullptr, &n, exts.data()) != VK_SUCCESS) {
        return false;
    }
    for (const auto & e : exts) {
        if (std::strcmp(e.extensionName, name) == 0) {
            return true;
        }
    }
    return false;
}

// True when the environment variable is set to anything but "" or "0".
bool env_flag(const char * name) {
    const char * e = std::getenv(name);
    return e && *e && std::strcmp(e, "0") != 0;
}

// Fills dev from phys; false (with a log line) if the device cannot run our shaders.
bool probe_device(VkPhysicalDevice phys, vk_device * dev) {
    dev->phys = phys;
    vkGetPhysicalDeviceProperties(phys, &dev->props);
    vkGetPhysicalDeviceMemoryProperties(phys, &dev->mem_props);
    dev->description = dev->props.deviceName;
    if (dev->props.apiVersion < VK_API_VERSION_1_2) {
        GGML_LOG_WARN("ggml-vulkan: %s: needs Vulkan 1.2; skipped\n", dev->description.c_str());
        return false;
    }
    VkPhysicalDevice16BitStorageFeatures f16 =
        vk_init<VkPhysicalDevice16BitStorageFeatures>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES);
    VkPhysicalDeviceFeatures2 f2 = vk_init<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
    f2.pNext                     = &f16;
    vkGetPhysicalDeviceFeatures2(phys, &f2);
    if (!f16.storageBuffer16BitAccess || !has_extension(phys, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME)) {
        GGML_LOG_WARN("ggml-vulkan: %s: needs storageBuffer16BitAccess and VK_KHR_push_descriptor; skipped\n",
                      dev->description.c_str());
        return false;
    }
    dev->fp64 = f2.features.shaderFloat64 == VK_TRUE;
    {
        VkPhysicalDeviceShaderFloat16Int8Features f16i8 = vk_init<VkPhysicalDeviceShaderFloat16Int8Features>(
            VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES);
        VkPhysicalDeviceFeatures2 ff = vk_init<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
        ff.pNext                     = &f16i8;
        vkGetPhysicalDeviceFeatures2(phys, &ff);
        dev->fp16 = f16i8.shaderFloat16 == VK_TRUE;
        VkPhysicalDeviceSubgroupProperties sg =
            vk_init<VkPhysicalDeviceSubgroupProperties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES);
        VkPhysicalDeviceProperties2 p2 =
            vk_init<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2);
        p2.pNext = &sg;
        vkGetPhysicalDeviceProperties2(phys, &p2);
        dev->subgroup_size  = sg.subgroupSize;
        dev->subgroup_arith = (sg.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                              (sg.supportedOperations & VK_SUBGROUP_FEATURE_BASIC_BIT) &&
                              (sg.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT) && sg.subgroupSize > 0 &&
                              !env_flag("GGML_VK_DISABLE_SUBGROUPS");
        dev->coopmat = has_extension(phys, "VK_KHR_cooperative_matrix");

        // flash attention's tiled shader reduces its rows by subgroup shuffles where offered
        dev->subgroup_shuffle = dev->subgroup_arith && (sg.supportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_BIT);
        // the driver's name plus what the kernels may use, so the llama-bench device line says it
        char feat[128];
        std::snprintf(feat, sizeof feat, " (subgroup %u%s, fp16 %s, coopmat %s)", sg.subgroupSize,
                      dev->subgroup_arith ? "" : " no-arith", dev->fp16 ? "yes" : "no", dev->coopmat ? "yes" : "no");
        dev->features = feat;
        dev->description += feat;
    }

    uint32_t nq = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(phys, &nq, nullptr);
    std::vector<VkQueueFamilyProperties> qf(nq);
    vkGetPhysicalDeviceQueueFamilyProperties(phys, &nq, qf.data());
    // a compute queue family, preferably one without graphics (a dedicated compute engine: no sharing
    // with rendering work, and the family drivers expect compute-only submits on)
    bool found = false;
    for (int pass = 0; pass < 2 && !found; pass++) {
        for (uint32_t i = 0; i < nq && !found; i++) {
            const bool compute  = qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT;
            const bool graphics = qf[i].queueFlags & VK_QUEUE_GRAPHICS_BIT;
            if (compute && (pass == 1 || !graphics)) {
                dev->queue_family = i;
                found             = true;
            }
        }
    }
    if (!found) {
        GGML_LOG_WARN("ggml-vulkan: %s: no compute queue; skipped\n", dev->description.c_str());
        return false;
    }

    // buffers: device-local, preferably also host-visible+coherent (then mapped, no staging)
    int best = -1, best_score = -1, staging = -1;
    for (uint32_t i = 0; i < dev->mem_props.memoryTypeCount; i++) {
        const VkMemoryPropertyFlags f     = dev->mem_props.memoryTypes[i].propertyFlags;
        const bool                  local = f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
        const bool host  = (f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) && (f & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
        const int  score = local ? (host ? 2 : 1) : -1;
        if (score > best_score) {
            best_score = score;
            best       = (int) i;
        }
        if (host && staging < 0) {
            staging = (int) i;
        }
    }
    if (best < 0 || staging < 0) {
        GGML_LOG_WARN("ggml-vulkan: %s: no suitable memory type; skipped\n", dev->description.c_str());
        return false;
    }
    // A host-visible device-local heap may be a small BAR window: use it directly only if it is
    // the whole device-local memory (UMA devices, lavapipe) or at least 1 GiB.
    const uint32_t heap = dev->mem_props.memoryTypes[best].heapIndex;
    dev->mem_type       = (uint32_t) best;
    dev->host_visible   = best_score == 2 && dev->mem_props.memoryHeaps[heap].size >= (size_t(1) << 30);
    if (best_score == 2 && !dev->host_visible) {
        for (uint32_t i = 0; i < dev->mem_props.memoryTypeCount; i++) {
            const VkMemoryPropertyFlags f = dev->mem_props.memoryTypes[i].propertyFlags;
            if ((f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) && !(f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)) {
                dev->mem_type = i;
                break;
            }
        }
    }
    dev->staging_type = (uint32_t) staging;
    dev->mem_total    = 0;
    for (uint32_t i = 0; i < dev->mem_props.memoryHeapCount; i++) {
        if (dev->mem_props.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) {
            dev->mem_total += dev->mem_props.memoryHeaps[i].size;
        }
    }
    // A CPU-type device (lavapipe) is only enumerated when GGML_VK_ALLOW_CPU_DEVICES asks for it
    // (see enumerate); then we call it a GPU so that n_gpu_layers and the scheduler use it.
    // Integrated GPUs stay IGPU.
    dev->type = dev->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU ? GGML_BACKEND_DEVICE_TYPE_IGPU
                                                                                : GGML_BACKEND_DEVICE_TYPE_GPU;
    return true;
}

std::vector<vk_device *> enumerate() {
    std::vector<vk_device *> out;
    // opt-out for builds with Vulkan on machines where only a slow driver (lavapipe) exists
    if (env_flag("GGML_VK_DISABLE")) {
        GGML_LOG_INFO("ggml-vulkan: disabled by GGML_VK_DISABLE\n");
        return out;
    }
    // Where the OS lists GPU device nodes and there are none, the only Vulkan drivers that could answer
    // are software ones (lavapipe), hidden by default below: the instance, which loads every installed
    // driver (~20 ms and ~60 MB here), is not created at all.
    const bool allow_cpu = env_flag("GGML_VK_ALLOW_CPU_DEVICES");
    if (!allow_cpu && ggml_os_gpu_nodes() == 0) {
        GGML_LOG_INFO("ggml-vulkan: no GPU device node (/dev/dri/renderD*, /dev/nvidia*, /dev/dxg); 0 devices\n");
        return out;
    }
    VkApplicationInfo app   = vk_init<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
    app.pApplicationName    = "libllama";
    app.apiVersion          = VK_API_VERSION_1_2;
    VkInstanceCreateInfo ci = vk_init<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
    ci.pApplicationInfo     = &app;
    const VkResult r        = vkCreateInstance(&ci, nullptr, &g_instance);
    if (r != VK_SUCCESS) {
        GGML_LOG_INFO("ggml-vulkan: no Vulkan instance (VkResult %d); 0 devices\n", (int) r);
        g_instance = VK_NULL_HANDLE;
        return out;
    }
    uint32_t n = 0;
    if (vkEnumeratePhysicalDevices(g_instance, &n, nullptr) != VK_SUCCESS || n == 0) {
        return out;
    }
    std::vector<VkPhysicalDevice> phys(n);
    if (vkEnumeratePhysicalDevices(g_instance, &n, phys.data()) != VK_SUCCESS) {
        return out;
    }
    // Software rasterizers (lavapipe/llvmpipe) are hidden by default: on a CPU-only machine they
    // would otherwise look like a GPU and n_gpu_layers would silently offload to a slower CPU path.
    for (VkPhysicalDevice p : phys) {
        VkPhysicalDeviceProperties props{};
        vkGetPhysicalDeviceProperties(p, &props);
        if (props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU && !allow_cpu) {
            GGML_LOG_INFO("ggml-vulkan: %s is a CPU device; hidden (set GGML_VK_ALLOW_CPU_DEVICES=1 to use it)\n",
                          props.deviceName);
            continue;
        }
        auto * dev = new vk_device();
        if (!probe_device(p, dev)) {
            delete dev;
            continue;
        }
        dev->index = (int) out.size();
        dev->name  = GGML_VK_NAME + std::to_string(dev->index);
        out.push_back(dev);
    }
    return out;
}

bool create_logical_device(vk_device * dev) {
    const float             prio = 1.0f;
    VkDeviceQueueCreateInfo qci  = vk_init<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
    qci.queueFamilyIndex         = dev->queue_family;
    qci.queueCount               = 1;
    qci.pQueuePriorities         = &prio;

    VkPhysicalDevice16BitStorageFeatures f16 =
        vk_init<VkPhysicalDevice16BitStorageFeatures>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES);
    f16.storageBuffer16BitAccess = VK_TRUE;
    VkPhysicalDeviceFeatures2 f2 = vk_init<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
    f2.pNext                     = &f16;
    f2.features.shaderFloat64    = dev->fp64 ? VK_TRUE : VK_FALSE;
    const char *       exts[]    = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
    VkDeviceCreateInfo dci       = vk_init<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO);
    dci.pNext                    = &f2;
    dci.queueCreateInfoCount     = 1;
    dci.pQueueCreateInfos        = &qci;
    dci.enabledExtensionCount    = 1;
    dci.ppEnabledExtensionNames  = exts;
    if (VK_FAILED(vkCreateDevice(dev->phys, &dci, nullptr, &dev->device))) {
        return false;
    }
    vkGetDeviceQueue(dev->device, dev->queue_family, 0, &dev->queue);
    dev->push_descriptor =
        (PFN_vkCmdPushDescriptorSetKHR) vkGetDeviceProcAddr(dev->device, "vkCmdPushDescriptorSetKHR");
    if (!dev->push_descriptor) {
        GGML_LOG_ERROR("ggml-vulkan: %s: vkCmdPushDescriptorSetKHR not found\n", dev->description.c_str());
        return false;
    }

    VkDescriptorSetLayoutBinding b[VK_N_BINDINGS]{};
    for (uint32_t i = 0; i < VK_N_BINDINGS; i++) {
        b[i].binding         = i;
        b[i].descriptorType  = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        b[i].descriptorCount = 1;
        b[i].stageFlags      = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    VkDescriptorSetLayoutCreateInfo dslci =
        vk_init<VkDescriptorSetLayoutCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO);
    dslci.flags        = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
    dslci.bindingCount = VK_N_BINDINGS;
    dslci.pBindings    = b;
    if (VK_FAILED(vkCreateDescriptorSetLayout(dev->device, &dslci, nullptr, &dev->dsl))) {
        return false;
    }
    VkPushConstantRange        pcr{VK_SHADER_STAGE_COMPUTE_BIT, 0, VK_PUSH_WORDS * 4};
    VkPipelineLayoutCreateInfo plci =
        vk_init<VkPipelineLayoutCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO);
    plci.setLayoutCount         = 1;
    plci.pSetLayouts            = &dev->dsl;
    plci.pushConstantRangeCount = 1;
    plci.pPushConstantRanges    = &pcr;
    if (VK_FAILED(vkCreatePipelineLayout(dev->device, &plci, nullptr, &dev->layout))) {
        return false;
    }

    VkCommandPoolCreateInfo cpci = vk_init<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
    cpci.flags                   = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    cpci.queueFamilyIndex        = dev->queue_family;
    if (VK_FAILED(vkCreateCommandPool(dev->device, &cpci, nullptr, &dev->xfer_pool))) {
        return false;
    }
    VkCommandBufferAllocateInfo cbai =
        vk_init<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
    cbai.commandPool        = dev->xfer_pool;
    cbai.level              = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cbai.commandBufferCount = 1;
    if (VK_FAILED(vkAllocateCommandBuffers(dev->device, &cbai, &dev->xfer_cmd))) {
        return false;
    }
    VkFenceCreateInfo fci = vk_init<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
    return !VK_FAILED(vkCreateFence(dev->device, &fci, nullptr, &dev->xfer_fence));
}

// ---- registry and device vtables ---------------------------------------------------------------

vk_device * dev_ctx(ggml_backend_dev_t d) {
    return (vk_device *) d->context;
}

const char * dev_get_name(ggml_backend_dev_t d) {
    return dev_ctx(d)->name.c_str();
}
const char * dev_get_description(ggml_backend_dev_t d) {
    return dev_ctx(d)->description.c_str();
}

void dev_get_memory(ggml_backend_dev_t d, size_t * free, size_t * total) {
    // Vulkan core has no free-memory query (VK_EXT_memory_budget is optional): report the total.
    *free  = dev_ctx(d)->mem_total;
    *total = dev_ctx(d)->mem_total;
}

enum ggml_backend_dev_type dev_get_type(ggml_backend_dev_t d) {
    return dev_ctx(d)->type;
}

void dev_get_props(ggml_backend_dev_t d, ggml_backend_dev_props * props) {
    props->name        = dev_get_name(d);
    props->description = dev_get_description(d);
    dev_get_memory(d, &props->memory_free, &props->memory_total);
    props->type = dev_get_type(d);
    props->caps = {false, false, false, false};
}

ggml_backend_t dev_init_backend(ggml_backend_dev_t d, const char *) {
    return ggml_vk_backend_new(dev_ctx(d));
}

ggml_backend_buffer_type_t dev_get_buffer_type(ggml_backend_dev_t d) {
    return &dev_ctx(d)->buft;
}

bool dev_supports_op(ggml_backend_dev_t d, const ggml_tensor * op) {
    return ggml_vk_supports_op(dev_ctx(d), op);
}

bool dev_supports_buft(ggml_backend_dev_t d, ggml_backend_buffer_type_t buft) {
    return buft == &dev_ctx(d)->buft;
}

// Worth uploading host weights for big batches only (the scheduler asks for ops whose weights live
// in host memory).
bool dev_offload_op(ggml_backend_dev_t d, const ggml_tensor * op) {
    return op->op == GGML_OP_MUL_MAT && op->ne[1] >= 32 && ggml_vk_supports_op(dev_ctx(d), op);
}

const ggml_backend_device_i k_dev_iface = {
    dev_get_name,      dev_get_description, dev_get_memory, dev_get_type, dev_get_props,
    dev_init_backend,  dev_get_buffer_type, nullptr,        nullptr,      dev_supports_op,
    dev_supports_buft, dev_offload_op,      nullptr,        nullptr,      nullptr,
};

const char * reg_get_name(ggml_backend_reg_t) {
    return GGML_VK_NAME;
}
size_t reg_get_device_count(ggml_backend_reg_t) {
    return ggml_vk_devices().size();
}
ggml_backend_dev_t reg_get_device(ggml_backend_reg_t, size_t i) {
    auto & devs = ggml_vk_devices();
    return i < devs.size() ? &devs[i]->dev : nullptr;
}

const ggml_backend_reg_i k_reg_iface = {reg_get_name, reg_get_device_count, reg_get_device, nullptr};

ggml_backend_reg g_reg = {GGML_BACKEND_API_VERSION, k_reg_iface, nullptr};

}  // namespace

std::vector<vk_device *> & ggml_vk_devices() {
    static std::vector<vk_device *> devs = [] {
        std::vector<vk_device *> v = enumerate();
        for (vk_device * d : v) {
            d->dev  = {k_dev_iface, &g_reg, d};
            d->buft = {ggml_vk_buffer_type_iface, &d->dev, d};
        }
        return v;
    }();
    return devs;
}

bool ggml_vk_device_init(vk_device * dev) {
    std::lock_guard<std::mutex> lock(dev->mutex);
    if (!dev->ready && !dev->failed) {
        dev->ready  = create_logical_device(dev);
        dev->failed = !dev->ready;
        if (dev->failed) {
            GGML_LOG_ERROR("ggml-vulkan: %s (%s) could not be initialized\n", dev->name.c_str(),
                           dev->description.c_str());
        }
    }
    return dev->ready;
}

VkPipeline ggml_vk_get_pipeline(vk_device * dev, const char * name, const uint32_t * spec, uint32_t n_spec) {
    std::lock_guard<std::mutex> lock(dev->mutex);
    char                        key[160];  // no heap on the lookup path: called for every dispatch
    int                         n = std::snprintf(key, sizeof key, "%s", name);
    for (uint32_t i = 0; i < n_spec && n > 0 && (size_t) n < sizeof key; i++) {
        n += std::snprintf(key + n, sizeof key - (size_t) n, "#%u", spec[i]);
    }
    auto it = dev->pipelines.find(std::string_view(key));
    if (it != dev->pipelines.end()) {
        return it->second.pipeline;
    }
    const vk_shader_blob * blob = nullptr;
    for (size_t i = 0; i < ggml_vk_shader_blob_count; i++) {
        if (std::strcmp(ggml_vk_shader_blobs[i].name, name) == 0) {
            blob = &ggml_vk_shader_blobs[i];
        }
    }
    vk_pipeline p;
    if (!blob) {
        GGML_LOG_ERROR("ggml-vulkan: no shader named %s\n", name);
    } else {
        VkShaderModuleCreateInfo smci = vk_init<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
        smci.codeSize                 = blob->size;
        smci.pCode                    = (const uint32_t *) blob->data;
        VkShaderModule mod            = VK_NULL_HANDLE;
        if (!VK_FAILED(vkCreateShaderModule(dev->device, &smci, nullptr, &mod))) {
            VkComputePipelineCreateInfo cpci =
                vk_init<VkComputePipelineCreateInfo>(VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO);
            cpci.stage.sType  = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
            cpci.stage.stage  = VK_SHADER_STAGE_COMPUTE_BIT;
            cpci.stage.module = mod;
            cpci.stage.pName  = "main";
            std::vector<VkSpecializationMapEntry> entries(n_spec);
            for (uint32_t i = 0; i < n_spec; i++) {
                entries[i] = {i, i * 4, 4};
            }
            VkSpecializationInfo si{n_spec, entries.data(), n_spec * sizeof(uint32_t), spec};
            cpci.stage.pSpecializationInfo = n_spec ? &si : nullptr;
            cpci.layout                    = dev->layout;
            if (VK_FAILED(vkCreateComputePipelines(dev->device, VK_NULL_HANDLE, 1, &cpci, nullptr, &p.pipeline))) {
                p.pipeline = VK_NULL_HANDLE;
            }
            vkDestroyShaderModule(dev->device, mod, nullptr);
        }
    }
    dev->pipelines.emplace(key, p);  // failures are cached too: they will not succeed on retry
    return p.pipeline;
}

extern "C" {

// No Vulkan call here: the instance is created when the devices are first asked for.
ggml_backend_reg_t ggml_backend_vk_reg(void) {
    return &g_reg;
}

int ggml_backend_vk_get_device_count(void) {
    return (int) ggml_vk_devices().size();
}

void ggml_backend_vk_get_device_description(int device, char * description, size_t description_size) {
    if (!description || description_size == 0) {
        return;
    }
    auto &            devs = ggml_vk_devices();
    const std::string s    = device >= 0 && (size_t) device < devs.size() ? devs[(size_t) device]->description : "";
    std::snprintf(description, description_size, "%s", s.c_str());
}

void ggml_backend_vk_get_device_memory(int device, size_t * free, size_t * total) {
    auto &       devs = ggml_vk_devices();
    const size_t m    = device >= 0 && (size_t) device < devs.size() ? devs[(size_t) device]->mem_total : 0;
    if (free)
        *free = m;
    if (total)
        *total = m;
}

ggml_backend_t ggml_backend_vk_init(size_t dev_index) {
    auto & devs = ggml_vk_devices();
    if (dev_index >= devs.size()) {
        GGML_LOG_ERROR("%s: device %zu out of range (%zu Vulkan devices)\n", __func__, dev_index, devs.size());
        return nullptr;
    }
    return ggml_vk_backend_new(devs[dev_index]);
}

ggml_backend_buffer_type_t ggml_backend_vk_buffer_type(size_t dev_index) {
    auto & devs = ggml_vk_devices();
    return dev_index < devs.size() ? &devs[dev_index]->buft : nullptr;
}

}  // extern "C"
