//===- Modules.cpp - Compile, module load, kernel lookup, launch ----------===//

#include "Objects.h"
#include "PluginRegistry.h"

#include <algorithm>
#include <cstring>

using namespace tegula::runtime;

namespace {
/// Compiles through |plugin| for its |arch|, stopping at |stage| (NULL for
/// the image); the caller checked the pointers.
tegula_error_t *compileWith(tegula::runtime::Plugin *plugin,
                            const std::string &arch, const char *stage,
                            const void *bytecode, size_t bytecode_size,
                            const tg_compile_option *options,
                            size_t num_options, tegula_image_t **out) {
  if (stage && *stage && std::string(stage) != "image" && !plugin->numStages)
    return makeErrorf(TG_ERROR_UNIMPLEMENTED,
                      "%s: the plugin (ABI %u.%u) declares no compile stage "
                      "but the image, so it cannot stop at '%s'",
                      plugin->name.c_str(), plugin->api->major_version,
                      plugin->api->minor_version, stage);
  auto image = std::make_unique<tegula_image>();
  tg_plugin_compile_args args{};
  args.plugin = plugin->instance;
  args.target = arch.c_str();
  args.bytecode = bytecode;
  args.bytecode_size = bytecode_size;
  args.options = options;
  args.num_options = num_options;
  args.stage = stage;
  if (tegula_error_t *error = TEGULA_PLUGIN_CALL(plugin, plugin_compile, args))
    return error;
  if (!args.image || !args.metadata || (!args.image_data && args.image_size))
    return makeErrorf(TG_ERROR_INTERNAL,
                      "%s: plugin_compile returned an incomplete image",
                      plugin->name.c_str());
  image->plugin = plugin;
  image->handle = args.image;
  image->data = args.image_data;
  image->size = args.image_size;
  image->metadata = args.metadata;
  *out = image.release();
  return nullptr;
}

/// The loaded plugin that declares |target| ("<backend>:<arch>"), with the
/// arch in |arch|; or an error naming what is loaded and declared.
tegula_error_t *findCompiler(tegula_runtime_t *runtime, const char *target,
                             tegula::runtime::Plugin *&found,
                             std::string &arch) {
  std::string text = target;
  size_t colon = text.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size())
    return makeErrorf(TG_ERROR_INVALID_ARGUMENT,
                      "target '%s' is not <backend>:<arch> (e.g. "
                      "nvidia:sm_90a)",
                      target);
  std::string backend = text.substr(0, colon);
  arch = text.substr(colon + 1);
  std::string loaded;
  for (const tegula::runtime::PluginRecord &record :
       runtime->registry.records) {
    if (!record.plugin)
      continue;
    tegula::runtime::Plugin *plugin = record.plugin.get();
    if (plugin->name != backend) {
      loaded += (loaded.empty() ? "" : ", ") + plugin->name;
      continue;
    }
    if (std::find(plugin->targets.begin(), plugin->targets.end(), arch) ==
        plugin->targets.end()) {
      std::string declared;
      for (const std::string &own : plugin->targets)
        declared += (declared.empty() ? "" : ", ") + backend + ":" + own;
      return makeErrorf(TG_ERROR_INVALID_ARGUMENT,
                        "the %s plugin does not compile for %s (it "
                        "declares %s)",
                        backend.c_str(), target,
                        declared.empty() ? "no target" : declared.c_str());
    }
    found = plugin;
    return nullptr;
  }
  return makeErrorf(TG_ERROR_NOT_FOUND,
                    "no %s plugin is loaded to compile for %s (loaded: %s)",
                    backend.c_str(), target,
                    loaded.empty() ? "none" : loaded.c_str());
}
} // namespace

extern "C" {

tegula_error_t *tegula_device_compile(tegula_device_t *device,
                                      const void *bytecode,
                                      size_t bytecode_size,
                                      const tg_compile_option *options,
                                      size_t num_options,
                                      tegula_image_t **out) {
  TEGULA_REJECT_IF(!device || !out, "device or out is NULL");
  TEGULA_REJECT_IF(!bytecode && bytecode_size, "bytecode is NULL");
  TEGULA_REJECT_IF(!options && num_options, "options is NULL");
  *out = nullptr;
  return guard([&]() -> tegula_error_t * {
    // The device's arch is the part of its target after "<backend>:".
    std::string arch;
    size_t colon = device->target.find(':');
    if (colon != std::string::npos)
      arch = device->target.substr(colon + 1);
    return compileWith(device->plugin, arch, nullptr, bytecode, bytecode_size,
                       options, num_options, out);
  });
}

tegula_error_t *tegula_runtime_compile_stage(
    tegula_runtime_t *runtime, const char *target, const char *stage,
    const void *bytecode, size_t bytecode_size,
    const tg_compile_option *options, size_t num_options,
    tegula_image_t **out) {
  TEGULA_REJECT_IF(!runtime || !target || !out, "runtime, target or out is NULL");
  TEGULA_REJECT_IF(!bytecode && bytecode_size, "bytecode is NULL");
  TEGULA_REJECT_IF(!options && num_options, "options is NULL");
  *out = nullptr;
  return guard([&]() -> tegula_error_t * {
    tegula::runtime::Plugin *plugin = nullptr;
    std::string arch;
    if (tegula_error_t *error = findCompiler(runtime, target, plugin, arch))
      return error;
    return compileWith(plugin, arch, stage, bytecode, bytecode_size, options,
                       num_options, out);
  });
}

tegula_error_t *tegula_runtime_compile(tegula_runtime_t *runtime,
                                       const char *target,
                                       const void *bytecode,
                                       size_t bytecode_size,
                                       const tg_compile_option *options,
                                       size_t num_options,
                                       tegula_image_t **out) {
  return tegula_runtime_compile_stage(runtime, target, nullptr, bytecode,
                                      bytecode_size, options, num_options, out);
}

const void *tegula_image_get_data(const tegula_image_t *image) {
  return image ? image->data : nullptr;
}

size_t tegula_image_get_size(const tegula_image_t *image) {
  return image ? image->size : 0;
}

const tg_kernel_metadata *
tegula_image_get_metadata(const tegula_image_t *image) {
  return image ? image->metadata : nullptr;
}

void tegula_image_destroy(tegula_image_t *image) {
  if (!image)
    return;
  tg_image_destroy_args args{};
  args.image = image->handle;
  tegula_error_destroy(TEGULA_PLUGIN_CALL(image->plugin, image_destroy, args));
  delete image;
}

tegula_error_t *tegula_module_load(tegula_device_t *device, const void *image,
                                   size_t image_size, tegula_module_t **out) {
  TEGULA_REJECT_IF(!device || !out, "device or out is NULL");
  TEGULA_REJECT_IF(!image || !image_size, "the image is empty");
  *out = nullptr;
  return guard([&]() -> tegula_error_t * {
    auto module = std::make_unique<tegula_module>();
    tg_module_load_args args{};
    args.device = device->handle;
    args.image = image;
    args.image_size = image_size;
    if (tegula_error_t *error =
            TEGULA_PLUGIN_CALL(device->plugin, module_load, args))
      return error;
    if (!args.module)
      return makeErrorf(TG_ERROR_INTERNAL, "%s: module_load returned no module",
                        device->plugin->name.c_str());
    module->device = device;
    module->handle = args.module;
    *out = module.release();
    return nullptr;
  });
}

tegula_error_t *tegula_module_unload(tegula_module_t *module) {
  if (!module)
    return nullptr;
  tg_module_unload_args args{};
  args.module = module->handle;
  tegula_error_t *error =
      TEGULA_PLUGIN_CALL(module->device->plugin, module_unload, args);
  delete module;
  return error;
}

tegula_error_t *tegula_module_get_kernel(tegula_module_t *module,
                                         const char *name,
                                         tegula_kernel_t **out) {
  TEGULA_REJECT_IF(!module || !name || !out, "module, name or out is NULL");
  *out = nullptr;
  return guard([&]() -> tegula_error_t * {
    std::lock_guard<std::mutex> lock(module->mutex);
    auto it = module->kernels.find(name);
    if (it != module->kernels.end()) {
      *out = it->second.get();
      return nullptr;
    }
    tg_module_get_kernel_args args{};
    args.module = module->handle;
    args.name = name;
    if (tegula_error_t *error = TEGULA_PLUGIN_CALL(module->device->plugin,
                                                   module_get_kernel, args))
      return error;
    if (!args.kernel)
      return makeErrorf(TG_ERROR_INTERNAL,
                        "%s: module_get_kernel returned no kernel",
                        module->device->plugin->name.c_str());
    auto kernel = std::make_unique<tegula_kernel>();
    kernel->module = module;
    kernel->handle = args.kernel;
    *out = kernel.get();
    module->kernels.emplace(name, std::move(kernel));
    return nullptr;
  });
}

tegula_device_t *tegula_kernel_get_device(const tegula_kernel_t *kernel) {
  return kernel ? kernel->module->device : nullptr;
}

tegula_error_t *tegula_kernel_check_buffers(const tegula_kernel_t *kernel,
                                            const tg_kernel_metadata *metadata,
                                            const tegula_buffer_t *const *buffers,
                                            size_t num_buffers) {
  TEGULA_REJECT_IF(!kernel, "kernel is NULL");
  TEGULA_REJECT_IF(!buffers && num_buffers, "buffers is NULL");
  return guard([&]() -> tegula_error_t * {
    const tegula_device *device = kernel->module->device;
    std::string others;
    size_t count = 0;
    for (size_t i = 0; i < num_buffers; ++i) {
      const tegula_buffer *buffer = buffers[i];
      if (!buffer || buffer->device == device)
        continue;
      std::string name;
      if (metadata && i < metadata->num_args && metadata->args &&
          metadata->args[i].name)
        name = std::string("'") + metadata->args[i].name + "' ";
      others += std::string(count++ ? ", " : "") + "argument " + name + "(" +
                std::to_string(i) + ") is a buffer on " + buffer->device->name;
    }
    if (!count)
      return nullptr;
    std::string kernelName =
        metadata && metadata->name ? std::string(" ") + metadata->name : "";
    return makeErrorf(TG_ERROR_INVALID_ARGUMENT,
                      "kernel%s is on %s, but %s: a kernel reads every "
                      "pointer on its own device; copy the data there or "
                      "load the kernel on that device",
                      kernelName.c_str(), device->name.c_str(),
                      others.c_str());
  });
}

tegula_error_t *tegula_kernel_launch(tegula_kernel_t *kernel,
                                     tegula_stream_t *stream,
                                     const tegula_launch_config *config,
                                     const void *packed_args,
                                     size_t packed_args_size) {
  TEGULA_REJECT_IF(!kernel || !config, "kernel or config is NULL");
  TEGULA_REJECT_IF(config->struct_size < TG_STRUCT_SIZE(tegula_launch_config,
                                                        dynamic_shared_memory),
                   "config.struct_size too small");
  TEGULA_REJECT_IF(!packed_args && packed_args_size, "packed_args is NULL");
  for (int i = 0; i < 3; ++i)
    TEGULA_REJECT_IF(config->grid[i] == 0 || config->block[i] == 0,
                     "grid and block dimensions must be at least 1");
  tegula_device *device = kernel->module->device;
  if (stream && stream->device != device)
    return makeErrorf(TG_ERROR_INVALID_ARGUMENT,
                      "%s: the stream belongs to %s, the kernel to %s",
                      __func__, stream->device->name.c_str(),
                      device->name.c_str());
  tg_kernel_launch_args args{};
  args.kernel = kernel->handle;
  args.stream = stream ? stream->handle : nullptr;
  for (int i = 0; i < 3; ++i) {
    args.grid[i] = config->grid[i];
    args.block[i] = config->block[i];
  }
  args.dynamic_shared_memory = config->dynamic_shared_memory;
  args.packed_args = packed_args;
  args.packed_args_size = packed_args_size;
  return TEGULA_PLUGIN_CALL(device->plugin, kernel_launch, args);
}

tegula_error_t *tegula_kernel_get_attributes(tegula_kernel_t *kernel,
                                             tg_kernel_attributes *attributes) {
  TEGULA_REJECT_IF(!kernel || !attributes, "kernel or attributes is NULL");
  const size_t header = TG_STRUCT_SIZE(tg_kernel_attributes, extension_start);
  TEGULA_REJECT_IF(attributes->struct_size < header,
                   "attributes.struct_size too small");
  // Every field past the header reads "unknown" (all bits set) unless the
  // plugin knows it: an older plugin's, or one this runtime does not know.
  std::memset(reinterpret_cast<char *>(attributes) + header, 0xff,
              attributes->struct_size - header);
  tg_kernel_get_attributes_args args{};
  args.kernel = kernel->handle;
  args.attributes = attributes;
  return TEGULA_PLUGIN_CALL(kernel->module->device->plugin,
                            kernel_get_attributes, args);
}

} // extern "C"
