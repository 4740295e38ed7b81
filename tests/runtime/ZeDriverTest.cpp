//===- ZeDriverTest.cpp - The Level Zero test driver, through the loader --===//
//
// ze-driver-tests: libtegula_ze_opencl.so (ZeOnOpenCL.cpp), the Level Zero
// driver that runs the intel plugin's tests on Intel's OpenCL CPU runtime,
// driven through the real Level Zero loader as the plugin drives it. The
// plugin's own tests trust this driver, so here every entry point it
// implements is checked against real results: discovery and properties,
// memory, copies and fills, SPIR-V modules and launches, events, timestamps
// and the test hooks. ZE_ENABLE_ALT_DRIVERS names the driver; where Intel's
// OpenCL runtime is missing the tests skip.
//
//===----------------------------------------------------------------------===//

#include <level_zero/ze_api.h>

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using FailNextFn = void (*)(const char *, ze_result_t);
using CallCountFn = uint64_t (*)(const char *);

/// A Level Zero descriptor or properties struct, zeroed but for its stype.
template <typename T> T described(ze_structure_type_t stype) {
  T value{};
  value.stype = stype;
  return value;
}

std::vector<uint8_t> readFile(const char *path) {
  std::ifstream file(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(file),
                              std::istreambuf_iterator<char>());
}

/// The loader, the driver and one context, shared by every test.
struct Setup {
  ze_result_t initResult = ZE_RESULT_ERROR_UNINITIALIZED;
  ze_driver_handle_t driver = nullptr;
  ze_device_handle_t device = nullptr;
  ze_context_handle_t context = nullptr;
  FailNextFn failNext = nullptr;
  CallCountFn callCount = nullptr;
  std::string skipReason;

  Setup() {
    const char *driverPath = std::getenv("ZE_ENABLE_ALT_DRIVERS");
    if (!driverPath) {
      skipReason = "ZE_ENABLE_ALT_DRIVERS does not name the test driver";
      return;
    }
    // The loader has or will dlopen the same file: this is the same copy.
    if (void *library = dlopen(driverPath, RTLD_NOW | RTLD_GLOBAL)) {
      failNext =
          reinterpret_cast<FailNextFn>(dlsym(library, "tegulaZeTestFailNext"));
      callCount = reinterpret_cast<CallCountFn>(
          dlsym(library, "tegulaZeTestCallCount"));
    }
    initResult = zeInit(0);
    if (initResult != ZE_RESULT_SUCCESS) {
      skipReason = "zeInit failed: Intel's OpenCL CPU runtime was not found "
                   "(OCL_ICD_VENDORS, LD_LIBRARY_PATH)";
      return;
    }
    uint32_t count = 1;
    zeDriverGet(&count, &driver);
    count = 1;
    zeDeviceGet(driver, &count, &device);
    ze_context_desc_t desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, nullptr, 0};
    zeContextCreate(driver, &desc, &context);
  }
};

Setup &setup() {
  static Setup instance;
  return instance;
}

class ZeDriver : public ::testing::Test {
protected:
  void SetUp() override {
    if (!setup().skipReason.empty())
      GTEST_SKIP() << setup().skipReason;
    driver = setup().driver;
    device = setup().device;
    context = setup().context;
    ASSERT_NE(driver, nullptr);
    ASSERT_NE(device, nullptr);
    ASSERT_NE(context, nullptr);
  }

  void TearDown() override {
    for (ze_command_list_handle_t list : lists)
      EXPECT_EQ(zeCommandListDestroy(list), ZE_RESULT_SUCCESS);
    for (ze_event_handle_t event : events)
      EXPECT_EQ(zeEventDestroy(event), ZE_RESULT_SUCCESS);
    if (pool) {
      EXPECT_EQ(zeEventPoolDestroy(pool), ZE_RESULT_SUCCESS);
    }
    for (void *pointer : allocations)
      EXPECT_EQ(zeMemFree(context, pointer), ZE_RESULT_SUCCESS);
  }

  ze_command_list_handle_t
  newList(ze_command_queue_mode_t mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS) {
    auto desc = described<ze_command_queue_desc_t>(
        ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC);
    desc.mode = mode;
    ze_command_list_handle_t list = nullptr;
    EXPECT_EQ(zeCommandListCreateImmediate(context, device, &desc, &list),
              ZE_RESULT_SUCCESS);
    lists.push_back(list);
    return list;
  }

  ze_event_handle_t newEvent() {
    if (!pool) {
      auto desc =
          described<ze_event_pool_desc_t>(ZE_STRUCTURE_TYPE_EVENT_POOL_DESC);
      desc.flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE;
      desc.count = 16;
      EXPECT_EQ(zeEventPoolCreate(context, &desc, 0, nullptr, &pool),
                ZE_RESULT_SUCCESS);
    }
    auto desc = described<ze_event_desc_t>(ZE_STRUCTURE_TYPE_EVENT_DESC);
    desc.index = static_cast<uint32_t>(events.size());
    desc.signal = ZE_EVENT_SCOPE_FLAG_HOST;
    desc.wait = ZE_EVENT_SCOPE_FLAG_HOST;
    ze_event_handle_t event = nullptr;
    EXPECT_EQ(zeEventCreate(pool, &desc, &event), ZE_RESULT_SUCCESS);
    events.push_back(event);
    return event;
  }

  void *allocate(ze_memory_type_t type, size_t size) {
    auto deviceDesc = described<ze_device_mem_alloc_desc_t>(
        ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC);
    auto hostDesc = described<ze_host_mem_alloc_desc_t>(
        ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC);
    void *pointer = nullptr;
    ze_result_t result = ZE_RESULT_ERROR_UNKNOWN;
    if (type == ZE_MEMORY_TYPE_DEVICE)
      result =
          zeMemAllocDevice(context, &deviceDesc, size, 0, device, &pointer);
    else if (type == ZE_MEMORY_TYPE_HOST)
      result = zeMemAllocHost(context, &hostDesc, size, 0, &pointer);
    else
      result = zeMemAllocShared(context, &deviceDesc, &hostDesc, size, 64,
                                device, &pointer);
    EXPECT_EQ(result, ZE_RESULT_SUCCESS);
    if (pointer)
      allocations.push_back(pointer);
    return pointer;
  }

  ze_module_handle_t buildSmoke() {
    std::vector<uint8_t> spirv = readFile(TEGULA_ZE_SMOKE_SPV);
    EXPECT_FALSE(spirv.empty()) << TEGULA_ZE_SMOKE_SPV;
    auto desc = described<ze_module_desc_t>(ZE_STRUCTURE_TYPE_MODULE_DESC);
    desc.format = ZE_MODULE_FORMAT_IL_SPIRV;
    desc.inputSize = spirv.size();
    desc.pInputModule = spirv.data();
    // Level Zero's own flags must not reach OpenCL's compiler.
    desc.pBuildFlags = "-ze-opt-level=2 -cl-mad-enable";
    ze_module_handle_t module = nullptr;
    EXPECT_EQ(zeModuleCreate(context, device, &desc, &module, nullptr),
              ZE_RESULT_SUCCESS);
    return module;
  }

  /// Builds |spirv|, expecting it to fail, and answers the build log.
  std::string failedBuildLog(const std::vector<uint8_t> &spirv) {
    auto desc = described<ze_module_desc_t>(ZE_STRUCTURE_TYPE_MODULE_DESC);
    desc.format = ZE_MODULE_FORMAT_IL_SPIRV;
    desc.inputSize = spirv.size();
    desc.pInputModule = spirv.data();
    ze_module_handle_t module = nullptr;
    ze_module_build_log_handle_t log = nullptr;
    EXPECT_EQ(zeModuleCreate(context, device, &desc, &module, &log),
              ZE_RESULT_ERROR_MODULE_BUILD_FAILURE);
    EXPECT_EQ(module, nullptr);
    if (!log) {
      ADD_FAILURE() << "no build log";
      return "";
    }
    size_t size = 0;
    EXPECT_EQ(zeModuleBuildLogGetString(log, &size, nullptr),
              ZE_RESULT_SUCCESS);
    std::string text(size, 'x');
    EXPECT_EQ(zeModuleBuildLogGetString(log, &size, text.data()),
              ZE_RESULT_SUCCESS);
    EXPECT_EQ(text.back(), '\0');
    EXPECT_EQ(strlen(text.c_str()) + 1, size);
    EXPECT_EQ(zeModuleBuildLogDestroy(log), ZE_RESULT_SUCCESS);
    return text.c_str();
  }

  ze_driver_handle_t driver = nullptr;
  ze_device_handle_t device = nullptr;
  ze_context_handle_t context = nullptr;
  ze_event_pool_handle_t pool = nullptr;
  std::vector<ze_command_list_handle_t> lists;
  std::vector<ze_event_handle_t> events;
  std::vector<void *> allocations;
};

std::vector<uint8_t> randomBytes(size_t size, unsigned seed) {
  std::mt19937 generator(seed);
  std::vector<uint8_t> bytes(size);
  for (uint8_t &byte : bytes)
    byte = static_cast<uint8_t>(generator());
  return bytes;
}

uint64_t steadyNanoseconds() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

TEST_F(ZeDriver, DiscoversOneDriverAndDevice) {
  uint32_t count = 0;
  ASSERT_EQ(zeDriverGet(&count, nullptr), ZE_RESULT_SUCCESS);
  EXPECT_EQ(count, 1u);
  ze_api_version_t version = ZE_API_VERSION_1_0;
  ASSERT_EQ(zeDriverGetApiVersion(driver, &version), ZE_RESULT_SUCCESS);
  EXPECT_EQ(version, ZE_API_VERSION_1_4);
  auto driverProperties =
      described<ze_driver_properties_t>(ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES);
  EXPECT_EQ(zeDriverGetProperties(driver, &driverProperties),
            ZE_RESULT_SUCCESS);
  uint32_t extensions = 7;
  EXPECT_EQ(zeDriverGetExtensionProperties(driver, &extensions, nullptr),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(extensions, 0u);

  count = 0;
  ASSERT_EQ(zeDeviceGet(driver, &count, nullptr), ZE_RESULT_SUCCESS);
  EXPECT_EQ(count, 1u);
  uint32_t subDevices = 5;
  EXPECT_EQ(zeDeviceGetSubDevices(device, &subDevices, nullptr),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(subDevices, 0u);
  EXPECT_EQ(zeContextGetStatus(context), ZE_RESULT_SUCCESS);
}

TEST_F(ZeDriver, DevicePropertiesStandInForAnIntelGpu) {
  unsetenv("TEGULA_ZE_TEST_DEVICE_ID");
  auto properties =
      described<ze_device_properties_t>(ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES);
  ASSERT_EQ(zeDeviceGetProperties(device, &properties), ZE_RESULT_SUCCESS);
  EXPECT_EQ(properties.type, ZE_DEVICE_TYPE_GPU);
  EXPECT_EQ(properties.vendorId, 0x8086u);
  EXPECT_EQ(properties.deviceId, 0u);
  EXPECT_EQ(
      std::string(properties.name).rfind("Tegula Level Zero test device (", 0),
      0u)
      << properties.name;
  EXPECT_EQ(properties.numSlices, 1u);
  EXPECT_GE(properties.numSubslicesPerSlice, 1u);
  EXPECT_EQ(properties.numEUsPerSubslice, 1u);
  EXPECT_EQ(properties.numThreadsPerEU, 1u);
  // coreClockRate is CL_DEVICE_MAX_CLOCK_FREQUENCY, which Intel's CPU
  // runtime reports as 0 on some virtual machines: nothing to check.
  EXPECT_GT(properties.maxMemAllocSize, 0u);
  EXPECT_EQ(properties.timerResolution, 1u);
  EXPECT_EQ(properties.timestampValidBits, 64u);
  EXPECT_EQ(properties.kernelTimestampValidBits, 64u);

  setenv("TEGULA_ZE_TEST_DEVICE_ID", "0x56c0", 1);
  ASSERT_EQ(zeDeviceGetProperties(device, &properties), ZE_RESULT_SUCCESS);
  unsetenv("TEGULA_ZE_TEST_DEVICE_ID");
  EXPECT_EQ(properties.deviceId, 0x56c0u);
}

TEST_F(ZeDriver, ComputeModuleQueueAndMemoryProperties) {
  auto compute = described<ze_device_compute_properties_t>(
      ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES);
  ASSERT_EQ(zeDeviceGetComputeProperties(device, &compute), ZE_RESULT_SUCCESS);
  EXPECT_GE(compute.maxTotalGroupSize, 64u);
  EXPECT_GE(compute.maxGroupSizeX, 64u);
  EXPECT_GE(compute.maxGroupSizeY, 1u);
  EXPECT_GE(compute.maxGroupSizeZ, 1u);
  EXPECT_EQ(compute.maxGroupCountX, 0x7fffffffu);
  EXPECT_EQ(compute.maxGroupCountY, 0x7fffffffu);
  EXPECT_EQ(compute.maxGroupCountZ, 0x7fffffffu);
  EXPECT_GT(compute.maxSharedLocalMemory, 0u);
  std::vector<uint32_t> sizes(compute.subGroupSizes,
                              compute.subGroupSizes + compute.numSubGroupSizes);
  EXPECT_NE(std::find(sizes.begin(), sizes.end(), 16u), sizes.end());

  auto module = described<ze_device_module_properties_t>(
      ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES);
  ASSERT_EQ(zeDeviceGetModuleProperties(device, &module), ZE_RESULT_SUCCESS);
  EXPECT_EQ(module.spirvVersionSupported, ZE_MAKE_VERSION(1, 4));
  EXPECT_GT(module.maxArgumentsSize, 0u);

  uint32_t count = 0;
  ASSERT_EQ(zeDeviceGetCommandQueueGroupProperties(device, &count, nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(count, 1u);
  auto group = described<ze_command_queue_group_properties_t>(
      ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES);
  ASSERT_EQ(zeDeviceGetCommandQueueGroupProperties(device, &count, &group),
            ZE_RESULT_SUCCESS);
  EXPECT_TRUE(group.flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE);
  EXPECT_TRUE(group.flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY);
  EXPECT_EQ(group.numQueues, 1u);
  EXPECT_EQ(group.maxMemoryFillPatternSize, 128u);

  count = 0;
  ASSERT_EQ(zeDeviceGetMemoryProperties(device, &count, nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(count, 1u);
  auto memory = described<ze_device_memory_properties_t>(
      ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES);
  ASSERT_EQ(zeDeviceGetMemoryProperties(device, &count, &memory),
            ZE_RESULT_SUCCESS);
  EXPECT_GT(memory.totalSize, 0u);
  EXPECT_GT(strlen(memory.name), 0u);
}

TEST_F(ZeDriver, AllocationsKnowTheirTypeAndRange) {
  const ze_memory_type_t types[] = {ZE_MEMORY_TYPE_DEVICE, ZE_MEMORY_TYPE_HOST,
                                    ZE_MEMORY_TYPE_SHARED};
  std::vector<uint64_t> ids;
  for (ze_memory_type_t type : types) {
    auto *pointer = static_cast<uint8_t *>(allocate(type, 1000));
    ASSERT_NE(pointer, nullptr);
    auto properties = described<ze_memory_allocation_properties_t>(
        ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES);
    ASSERT_EQ(
        zeMemGetAllocProperties(context, pointer + 10, &properties, nullptr),
        ZE_RESULT_SUCCESS);
    EXPECT_EQ(properties.type, type);
    ids.push_back(properties.id);
    void *base = nullptr;
    size_t size = 0;
    ASSERT_EQ(zeMemGetAddressRange(context, pointer + 10, &base, &size),
              ZE_RESULT_SUCCESS);
    EXPECT_EQ(base, pointer);
    EXPECT_GE(size, 1000u);
  }
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::unique(ids.begin(), ids.end()), ids.end());

  int onStack = 0;
  auto properties = described<ze_memory_allocation_properties_t>(
      ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES);
  ASSERT_EQ(zeMemGetAllocProperties(context, &onStack, &properties, nullptr),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(properties.type, ZE_MEMORY_TYPE_UNKNOWN);

  auto hostDesc = described<ze_host_mem_alloc_desc_t>(
      ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC);
  void *pointer = nullptr;
  EXPECT_EQ(zeMemAllocHost(context, &hostDesc, 0, 0, &pointer),
            ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
  EXPECT_EQ(zeMemAllocHost(context, &hostDesc, 64, 3, &pointer),
            ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT);
  EXPECT_EQ(zeMemAllocHost(context, nullptr, 64, 0, &pointer),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
}

TEST_F(ZeDriver, CopiesRoundTripThroughEveryKindOfMemory) {
  constexpr size_t size = 3 * 4096 + 17;
  std::vector<uint8_t> source = randomBytes(size, 1);
  std::vector<uint8_t> result(size, 0xa5);
  void *onDevice = allocate(ZE_MEMORY_TYPE_DEVICE, size);
  void *onHost = allocate(ZE_MEMORY_TYPE_HOST, size);
  void *shared = allocate(ZE_MEMORY_TYPE_SHARED, size);
  ASSERT_TRUE(onDevice && onHost && shared);
  ze_command_list_handle_t list = newList();
  ze_event_handle_t done = newEvent();
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, onDevice, source.data(), size,
                                          nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, onHost, onDevice, size, nullptr,
                                          0, nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, shared, onHost, size, nullptr,
                                          0, nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, result.data(), shared, size,
                                          done, 0, nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeEventHostSynchronize(done, UINT64_MAX), ZE_RESULT_SUCCESS);
  EXPECT_EQ(result, source);
  EXPECT_EQ(std::memcmp(onHost, source.data(), size), 0);
  EXPECT_EQ(std::memcmp(shared, source.data(), size), 0);
}

TEST_F(ZeDriver, FillsWritePatternsOnlyInTheirRange) {
  constexpr size_t size = 4096, offset = 64, length = 1024;
  void *onDevice = allocate(ZE_MEMORY_TYPE_DEVICE, size);
  ASSERT_NE(onDevice, nullptr);
  ze_command_list_handle_t list = newList();
  for (size_t patternSize : {size_t(1), size_t(2), size_t(4)}) {
    SCOPED_TRACE("pattern of " + std::to_string(patternSize) + " bytes");
    std::vector<uint8_t> poison = randomBytes(size, 10 + patternSize);
    std::vector<uint8_t> pattern = randomBytes(patternSize, 20 + patternSize);
    std::vector<uint8_t> result(size);
    ze_event_handle_t done = newEvent();
    ASSERT_EQ(zeCommandListAppendMemoryCopy(list, onDevice, poison.data(), size,
                                            nullptr, 0, nullptr),
              ZE_RESULT_SUCCESS);
    ASSERT_EQ(zeCommandListAppendMemoryFill(
                  list, static_cast<uint8_t *>(onDevice) + offset,
                  pattern.data(), patternSize, length, nullptr, 0, nullptr),
              ZE_RESULT_SUCCESS);
    ASSERT_EQ(zeCommandListAppendMemoryCopy(list, result.data(), onDevice, size,
                                            done, 0, nullptr),
              ZE_RESULT_SUCCESS);
    ASSERT_EQ(zeEventHostSynchronize(done, UINT64_MAX), ZE_RESULT_SUCCESS);
    for (size_t i = 0; i < size; ++i) {
      uint8_t expected = i >= offset && i < offset + length
                             ? pattern[(i - offset) % patternSize]
                             : poison[i];
      ASSERT_EQ(result[i], expected) << "byte " << i;
    }
  }
  uint8_t pattern[3] = {};
  EXPECT_EQ(zeCommandListAppendMemoryFill(list, onDevice, pattern, 3, 12,
                                          nullptr, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_SIZE);
}

TEST_F(ZeDriver, ModuleListsItsKernelAndItsProperties) {
  ze_module_handle_t module = buildSmoke();
  ASSERT_NE(module, nullptr);
  uint32_t count = 0;
  ASSERT_EQ(zeModuleGetKernelNames(module, &count, nullptr), ZE_RESULT_SUCCESS);
  ASSERT_EQ(count, 1u);
  const char *name = nullptr;
  ASSERT_EQ(zeModuleGetKernelNames(module, &count, &name), ZE_RESULT_SUCCESS);
  EXPECT_STREQ(name, "add_scalar");

  ze_kernel_desc_t desc = {ZE_STRUCTURE_TYPE_KERNEL_DESC, nullptr, 0,
                           "add_scalar"};
  ze_kernel_handle_t kernel = nullptr;
  ASSERT_EQ(zeKernelCreate(module, &desc, &kernel), ZE_RESULT_SUCCESS);
  auto properties =
      described<ze_kernel_properties_t>(ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES);
  ASSERT_EQ(zeKernelGetProperties(kernel, &properties), ZE_RESULT_SUCCESS);
  EXPECT_EQ(properties.numKernelArgs, 4u);
  EXPECT_EQ(properties.requiredGroupSizeX, 64u);
  EXPECT_EQ(properties.requiredGroupSizeY, 1u);
  EXPECT_EQ(properties.requiredGroupSizeZ, 1u);
  EXPECT_EQ(properties.requiredSubgroupSize, 16u);
  EXPECT_EQ(properties.maxSubgroupSize, 16u);
  EXPECT_GE(properties.localMemSize, 64 * sizeof(float));

  size_t size = 0;
  ASSERT_EQ(zeKernelGetName(kernel, &size, nullptr), ZE_RESULT_SUCCESS);
  EXPECT_EQ(size, strlen("add_scalar") + 1);
  std::string text(size, 'x');
  ASSERT_EQ(zeKernelGetName(kernel, &size, text.data()), ZE_RESULT_SUCCESS);
  EXPECT_STREQ(text.c_str(), "add_scalar");

  uint32_t x = 0, y = 0, z = 0;
  ASSERT_EQ(zeKernelSuggestGroupSize(kernel, 640, 1, 1, &x, &y, &z),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(x, 64u);
  EXPECT_EQ(y, 1u);
  EXPECT_EQ(z, 1u);
  EXPECT_EQ(zeKernelSetArgumentValue(kernel, 4, 4, &x),
            ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX);
  EXPECT_EQ(zeKernelSetArgumentValue(kernel, 0, 4, &x),
            ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
  EXPECT_EQ(zeKernelDestroy(kernel), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeModuleDestroy(module), ZE_RESULT_SUCCESS);
}

TEST_F(ZeDriver, KernelRunsOnSeveralGroupCounts) {
  ze_module_handle_t module = buildSmoke();
  ASSERT_NE(module, nullptr);
  ze_kernel_desc_t desc = {ZE_STRUCTURE_TYPE_KERNEL_DESC, nullptr, 0,
                           "add_scalar"};
  ze_kernel_handle_t kernel = nullptr;
  ASSERT_EQ(zeKernelCreate(module, &desc, &kernel), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeKernelSetGroupSize(kernel, 64, 1, 1), ZE_RESULT_SUCCESS);
  ze_command_list_handle_t list = newList();
  for (uint32_t groups : {1u, 3u, 17u}) {
    SCOPED_TRACE(std::to_string(groups) + " groups");
    size_t count = size_t(groups) * 64;
    std::mt19937 generator(groups);
    std::uniform_real_distribution<float> values(-100.0f, 100.0f);
    std::vector<float> input(count), output(count, -1.0f);
    for (float &value : input)
      value = values(generator);
    float scalar = 0.5f * static_cast<float>(groups);
    auto *in = static_cast<float *>(
        allocate(ZE_MEMORY_TYPE_DEVICE, count * sizeof(float)));
    auto *out = static_cast<float *>(
        allocate(ZE_MEMORY_TYPE_SHARED, count * sizeof(float)));
    ASSERT_TRUE(in && out);
    ASSERT_EQ(zeCommandListAppendMemoryCopy(list, in, input.data(),
                                            count * sizeof(float), nullptr, 0,
                                            nullptr),
              ZE_RESULT_SUCCESS);
    ASSERT_EQ(zeKernelSetArgumentValue(kernel, 0, sizeof(in), &in),
              ZE_RESULT_SUCCESS);
    ASSERT_EQ(zeKernelSetArgumentValue(kernel, 1, sizeof(out), &out),
              ZE_RESULT_SUCCESS);
    ASSERT_EQ(zeKernelSetArgumentValue(kernel, 2, sizeof(scalar), &scalar),
              ZE_RESULT_SUCCESS);
    ASSERT_EQ(zeKernelSetArgumentValue(kernel, 3, 64 * sizeof(float), nullptr),
              ZE_RESULT_SUCCESS);
    ze_group_count_t launch = {groups, 1, 1};
    ASSERT_EQ(zeCommandListAppendLaunchKernel(list, kernel, &launch, nullptr, 0,
                                              nullptr),
              ZE_RESULT_SUCCESS);
    // Arguments are captured at append time: changing them now must not
    // change the launch above.
    float other = 1000.0f;
    ASSERT_EQ(zeKernelSetArgumentValue(kernel, 2, sizeof(other), &other),
              ZE_RESULT_SUCCESS);
    ze_event_handle_t done = newEvent();
    ASSERT_EQ(zeCommandListAppendMemoryCopy(list, output.data(), out,
                                            count * sizeof(float), done, 0,
                                            nullptr),
              ZE_RESULT_SUCCESS);
    ASSERT_EQ(zeEventHostSynchronize(done, UINT64_MAX), ZE_RESULT_SUCCESS);
    for (size_t i = 0; i < count; ++i) {
      size_t mirrored = i / 64 * 64 + 63 - i % 64;
      ASSERT_EQ(output[i], input[mirrored] + scalar) << "element " << i;
    }
  }
  EXPECT_EQ(zeKernelDestroy(kernel), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeModuleDestroy(module), ZE_RESULT_SUCCESS);
}

TEST_F(ZeDriver, SpecializationConstantsReachTheKernel) {
  std::vector<uint8_t> spirv = readFile(TEGULA_ZE_SPEC_CONSTANT_SPV);
  ASSERT_FALSE(spirv.empty()) << TEGULA_ZE_SPEC_CONSTANT_SPV;
  ze_command_list_handle_t list = newList();
  constexpr uint32_t count = 32;
  auto *out = static_cast<uint32_t *>(
      allocate(ZE_MEMORY_TYPE_SHARED, count * sizeof(uint32_t)));
  ASSERT_NE(out, nullptr);
  const uint32_t id = 7, value = 0x5eed;
  const void *values[] = {&value};
  ze_module_constants_t constants = {1, &id, values};
  // Built as it is the constant keeps its default, 1.
  const ze_module_constants_t *choices[] = {nullptr, &constants};
  for (const ze_module_constants_t *given : choices) {
    uint32_t expected = given ? value : 1;
    SCOPED_TRACE("expecting " + std::to_string(expected));
    auto desc = described<ze_module_desc_t>(ZE_STRUCTURE_TYPE_MODULE_DESC);
    desc.format = ZE_MODULE_FORMAT_IL_SPIRV;
    desc.inputSize = spirv.size();
    desc.pInputModule = spirv.data();
    desc.pConstants = given;
    ze_module_handle_t module = nullptr;
    ASSERT_EQ(zeModuleCreate(context, device, &desc, &module, nullptr),
              ZE_RESULT_SUCCESS);
    ze_kernel_desc_t kernelDesc = {ZE_STRUCTURE_TYPE_KERNEL_DESC, nullptr, 0,
                                   "write_constant"};
    ze_kernel_handle_t kernel = nullptr;
    ASSERT_EQ(zeKernelCreate(module, &kernelDesc, &kernel), ZE_RESULT_SUCCESS);
    ASSERT_EQ(zeKernelSetGroupSize(kernel, 8, 1, 1), ZE_RESULT_SUCCESS);
    ASSERT_EQ(zeKernelSetArgumentValue(kernel, 0, sizeof(out), &out),
              ZE_RESULT_SUCCESS);
    std::fill(out, out + count, 0u);
    ze_event_handle_t done = newEvent();
    ze_group_count_t launch = {count / 8, 1, 1};
    ASSERT_EQ(zeCommandListAppendLaunchKernel(list, kernel, &launch, done, 0,
                                              nullptr),
              ZE_RESULT_SUCCESS);
    ASSERT_EQ(zeEventHostSynchronize(done, UINT64_MAX), ZE_RESULT_SUCCESS);
    for (uint32_t i = 0; i < count; ++i)
      ASSERT_EQ(out[i], expected) << "element " << i;
    EXPECT_EQ(zeKernelDestroy(kernel), ZE_RESULT_SUCCESS);
    EXPECT_EQ(zeModuleDestroy(module), ZE_RESULT_SUCCESS);
  }

  // A constant the module does not have.
  const uint32_t unknown = 8;
  ze_module_constants_t wrong = {1, &unknown, values};
  auto desc = described<ze_module_desc_t>(ZE_STRUCTURE_TYPE_MODULE_DESC);
  desc.format = ZE_MODULE_FORMAT_IL_SPIRV;
  desc.inputSize = spirv.size();
  desc.pInputModule = spirv.data();
  desc.pConstants = &wrong;
  ze_module_handle_t module = nullptr;
  EXPECT_EQ(zeModuleCreate(context, device, &desc, &module, nullptr),
            ZE_RESULT_ERROR_INVALID_ARGUMENT);
}

TEST_F(ZeDriver, BrokenModulesFailToBuildWithALog) {
  std::string log = failedBuildLog(readFile(TEGULA_ZE_UNDEFINED_SPV));
  EXPECT_NE(log.find("tegula_missing_function"), std::string::npos) << log;

  // A valid header (SPIR-V 1.4) over a body of nonsense.
  std::vector<uint32_t> words = {0x07230203, 0x00010400, 0,         64, 0,
                                 0x00040047, 0xdeadbeef, 0x12345678};
  std::vector<uint8_t> bytes(words.size() * 4);
  std::memcpy(bytes.data(), words.data(), bytes.size());
  log = failedBuildLog(bytes);
  EXPECT_FALSE(log.empty());

  auto desc = described<ze_module_desc_t>(ZE_STRUCTURE_TYPE_MODULE_DESC);
  desc.format = ZE_MODULE_FORMAT_NATIVE;
  desc.inputSize = bytes.size();
  desc.pInputModule = bytes.data();
  ze_module_handle_t module = nullptr;
  EXPECT_EQ(zeModuleCreate(context, device, &desc, &module, nullptr),
            ZE_RESULT_ERROR_INVALID_ENUMERATION);
}

TEST_F(ZeDriver, MissingKernelNameIsRefused) {
  ze_module_handle_t module = buildSmoke();
  ASSERT_NE(module, nullptr);
  ze_kernel_desc_t desc = {ZE_STRUCTURE_TYPE_KERNEL_DESC, nullptr, 0,
                           "no_such_kernel"};
  ze_kernel_handle_t kernel = nullptr;
  EXPECT_EQ(zeKernelCreate(module, &desc, &kernel),
            ZE_RESULT_ERROR_INVALID_KERNEL_NAME);
  EXPECT_EQ(kernel, nullptr);
  EXPECT_EQ(zeModuleDestroy(module), ZE_RESULT_SUCCESS);
}

TEST_F(ZeDriver, WaitsOnAnEventSignaledLaterFromAnotherList) {
  constexpr size_t size = 4096;
  std::vector<uint8_t> source = randomBytes(size, 3);
  std::vector<uint8_t> result(size, 0);
  ze_command_list_handle_t waiting = newList();
  ze_command_list_handle_t signaling = newList();
  ze_event_handle_t gate = newEvent();
  ze_event_handle_t done = newEvent();
  ASSERT_EQ(zeEventQueryStatus(gate), ZE_RESULT_NOT_READY);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(waiting, result.data(), source.data(),
                                          size, done, 1, &gate),
            ZE_RESULT_SUCCESS);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(zeEventQueryStatus(done), ZE_RESULT_NOT_READY);
  EXPECT_EQ(zeEventHostSynchronize(done, 1000000), ZE_RESULT_NOT_READY);
  EXPECT_EQ(result, std::vector<uint8_t>(size, 0));
  ASSERT_EQ(zeCommandListAppendSignalEvent(signaling, gate), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeEventHostSynchronize(done, UINT64_MAX), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventQueryStatus(gate), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventQueryStatus(done), ZE_RESULT_SUCCESS);
  EXPECT_EQ(result, source);
}

TEST_F(ZeDriver, WaitsOnAnEventTheHostSignals) {
  constexpr size_t size = 1024;
  std::vector<uint8_t> source = randomBytes(size, 4);
  std::vector<uint8_t> result(size, 0);
  ze_command_list_handle_t list = newList();
  ze_event_handle_t gate = newEvent();
  ze_event_handle_t done = newEvent();
  ASSERT_EQ(zeCommandListAppendWaitOnEvents(list, 1, &gate), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, result.data(), source.data(),
                                          size, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendBarrier(list, done, 0, nullptr),
            ZE_RESULT_SUCCESS);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(zeEventQueryStatus(done), ZE_RESULT_NOT_READY);
  EXPECT_EQ(result, std::vector<uint8_t>(size, 0));
  ASSERT_EQ(zeEventHostSignal(gate), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeEventHostSynchronize(done, UINT64_MAX), ZE_RESULT_SUCCESS);
  EXPECT_EQ(result, source);

  // Reset, the event is unsignaled again, and a list can reset it too.
  ASSERT_EQ(zeEventHostReset(done), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventQueryStatus(done), ZE_RESULT_NOT_READY);
  ASSERT_EQ(zeEventHostSignal(done), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventQueryStatus(done), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendEventReset(list, done), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventQueryStatus(done), ZE_RESULT_NOT_READY);
  ASSERT_EQ(zeCommandListAppendSignalEvent(list, done), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventHostSynchronize(done, UINT64_MAX), ZE_RESULT_SUCCESS);
}

TEST_F(ZeDriver, TimestampsAreOrderedAfterEarlierWork) {
  constexpr size_t size = 8 << 20;
  std::vector<uint8_t> source = randomBytes(size, 5);
  auto *stamps = static_cast<uint64_t *>(
      allocate(ZE_MEMORY_TYPE_HOST, 4 * sizeof(uint64_t)));
  ASSERT_NE(stamps, nullptr);
  std::memset(stamps, 0, 4 * sizeof(uint64_t));
  void *onDevice = allocate(ZE_MEMORY_TYPE_DEVICE, size);
  ASSERT_NE(onDevice, nullptr);
  ze_command_list_handle_t list = newList();
  ze_event_handle_t gate = newEvent();
  ze_event_handle_t done = newEvent();
  uint64_t before = steadyNanoseconds();
  ASSERT_EQ(zeCommandListAppendWriteGlobalTimestamp(list, &stamps[0], nullptr,
                                                    0, nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendWriteGlobalTimestamp(list, &stamps[1], nullptr,
                                                    1, &gate),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, onDevice, source.data(), size,
                                          nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendWriteGlobalTimestamp(list, &stamps[2], nullptr,
                                                    0, nullptr),
            ZE_RESULT_SUCCESS);
  // Copied after it is written: the copy must see the timestamp.
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, &stamps[3], &stamps[2],
                                          sizeof(uint64_t), done, 0, nullptr),
            ZE_RESULT_SUCCESS);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  uint64_t signaled = steadyNanoseconds();
  ASSERT_EQ(zeEventHostSignal(gate), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeEventHostSynchronize(done, UINT64_MAX), ZE_RESULT_SUCCESS);
  uint64_t after = steadyNanoseconds();
  EXPECT_GE(stamps[0], before);
  EXPECT_GE(stamps[1], signaled);
  EXPECT_GE(stamps[1], stamps[0]);
  EXPECT_GE(stamps[2], stamps[1]);
  EXPECT_LE(stamps[2], after);
  EXPECT_EQ(stamps[3], stamps[2]);
}

TEST_F(ZeDriver, SynchronousListsCompleteBeforeReturning) {
  constexpr size_t size = 16 << 20;
  std::vector<uint8_t> source = randomBytes(size, 6);
  std::vector<uint8_t> result(size, 0);
  void *onDevice = allocate(ZE_MEMORY_TYPE_DEVICE, size);
  ASSERT_NE(onDevice, nullptr);
  ze_command_list_handle_t list = newList(ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
  ze_event_handle_t done = newEvent();
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, onDevice, source.data(), size,
                                          nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, result.data(), onDevice, size,
                                          done, 0, nullptr),
            ZE_RESULT_SUCCESS);
  // No wait: the append itself completed the copy and signaled.
  EXPECT_EQ(result, source);
  EXPECT_EQ(zeEventQueryStatus(done), ZE_RESULT_SUCCESS);
}

TEST_F(ZeDriver, FailNextInjectsOneFailure) {
  ASSERT_NE(setup().failNext, nullptr);
  ASSERT_NE(setup().callCount, nullptr);
  uint64_t calls = setup().callCount("zeModuleCreate");
  setup().failNext("zeModuleCreate", ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
  std::vector<uint8_t> spirv = readFile(TEGULA_ZE_SMOKE_SPV);
  auto desc = described<ze_module_desc_t>(ZE_STRUCTURE_TYPE_MODULE_DESC);
  desc.format = ZE_MODULE_FORMAT_IL_SPIRV;
  desc.inputSize = spirv.size();
  desc.pInputModule = spirv.data();
  ze_module_handle_t module = nullptr;
  EXPECT_EQ(zeModuleCreate(context, device, &desc, &module, nullptr),
            ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
  EXPECT_EQ(module, nullptr);
  ASSERT_EQ(zeModuleCreate(context, device, &desc, &module, nullptr),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeModuleDestroy(module), ZE_RESULT_SUCCESS);
  EXPECT_EQ(setup().callCount("zeModuleCreate"), calls + 2);

  setup().failNext("zeEventQueryStatus", ZE_RESULT_ERROR_DEVICE_LOST);
  ze_event_handle_t event = newEvent();
  EXPECT_EQ(zeEventQueryStatus(event), ZE_RESULT_ERROR_DEVICE_LOST);
  EXPECT_EQ(zeEventQueryStatus(event), ZE_RESULT_NOT_READY);
}

TEST_F(ZeDriver, NullArgumentsAreRefused) {
  uint32_t count = 0;
  EXPECT_EQ(zeDeviceGet(driver, nullptr, nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeDeviceGetProperties(device, nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeModuleGetKernelNames(nullptr, &count, nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  ze_command_list_handle_t list = newList();
  EXPECT_EQ(zeCommandListAppendMemoryCopy(list, nullptr, &count, 4, nullptr, 0,
                                          nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeEventHostSynchronize(nullptr, 0),
            ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

} // namespace
