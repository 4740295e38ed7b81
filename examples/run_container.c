/*===- run_container.c - Run a kernel container from C, without Python ----===//
 *
 * Loads a kernel container made ahead of time for several targets, e.g.
 *
 *   tegula compile examples/vector_add.py --kernel add_kernel \
 *     --signature "*fp32:16, *fp32:16, *fp32:16, i32, 1024" \
 *     --target host:x86_64 --target nvidia:sm_80 --target nvidia:sm_90a \
 *     -o add.tgk
 *
 * and, on every device the runtime finds, picks the image for that device
 * (tegula_container_select), loads it, runs the vector addition of
 * examples/vector_add.py on fresh inputs with the output poisoned first, and
 * compares the result with a sum computed here. One line per device:
 *
 *   DEVICE  TARGET-OF-THE-IMAGE  match|MISMATCH|no image
 *
 * Exit status: 0 when every device that has an image matched (and at least
 * one ran), 1 otherwise, 2 for a usage error. Only the C API is used
 * (tegula/runtime.h, tegula/container.h); link with -ltegula_runtime.
 *
 * Usage: run_container CONTAINER [N]     (N elements, default 100000)
 *
 *===----------------------------------------------------------------------===*/

#include "tegula/container.h"
#include "tegula/runtime.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Prints |error| with |what| and frees it; returns 1 when there was one. */
static int failed(tegula_error_t *error, const char *device, const char *what) {
  if (!error)
    return 0;
  fprintf(stderr, "%s: %s: %s\n", device, what,
          tegula_error_get_message(error));
  tegula_error_destroy(error);
  return 1;
}

/* Runs the container's add_kernel on |device|: 1 match, 0 mismatch or
 * error, -1 no image for the device. */
static int run_on(tegula_device_t *device, const tegula_container_t *container,
                  uint32_t n, const char **image_target) {
  const char *name = tegula_device_get_name(device);
  size_t index = 0;
  tegula_error_t *error =
      tegula_container_select(container, device, "add_kernel", &index);
  if (error) {
    tegula_error_destroy(error);
    return -1;
  }
  tegula_container_entry entry;
  memset(&entry, 0, sizeof(entry));
  entry.struct_size = sizeof(entry);
  if (failed(tegula_container_get_entry(container, index, &entry), name,
             "reading the container entry"))
    return 0;
  *image_target = entry.target;

  tg_device_properties props;
  memset(&props, 0, sizeof(props));
  props.struct_size = sizeof(props);
  if (failed(tegula_device_get_properties(device, &props), name,
             "device properties"))
    return 0;

  int result = 0;
  tegula_module_t *module = NULL;
  tegula_kernel_t *kernel = NULL;
  tegula_buffer_t *buffers[3] = {NULL, NULL, NULL};
  size_t bytes = (size_t)n * sizeof(float);
  float *x = malloc(bytes), *y = malloc(bytes), *out = malloc(bytes);
  if (!x || !y || !out)
    goto done;
  /* Fresh inputs each run; the output poisoned with NaN. */
  srand((unsigned)time(NULL) ^ (unsigned)index);
  for (uint32_t i = 0; i < n; ++i) {
    x[i] = (float)rand() / (float)RAND_MAX - 0.5f;
    y[i] = (float)rand() / (float)RAND_MAX * 4.0f;
    out[i] = NAN;
  }
  if (failed(tegula_module_load(device, entry.image, entry.image_size,
                                &module),
             name, "loading the image") ||
      failed(tegula_module_get_kernel(module, entry.metadata->name, &kernel),
             name, "finding the kernel"))
    goto done;
  for (int b = 0; b < 3; ++b)
    if (failed(tegula_buffer_alloc(device, bytes, &buffers[b]), name,
               "allocating"))
      goto done;
  if (failed(tegula_buffer_write(buffers[0], 0, x, bytes, NULL), name,
             "writing x") ||
      failed(tegula_buffer_write(buffers[1], 0, y, bytes, NULL), name,
             "writing y") ||
      failed(tegula_buffer_write(buffers[2], 0, out, bytes, NULL), name,
             "poisoning the output"))
    goto done;

  /* Arguments in metadata order, packed as the kernel ABI says. */
  uint64_t addresses[3];
  for (int b = 0; b < 3; ++b)
    addresses[b] = tegula_buffer_get_device_address(buffers[b]);
  int32_t count = (int32_t)n;
  const void *values[4] = {&addresses[0], &addresses[1], &addresses[2],
                           &count};
  if (entry.metadata->num_args != 4) {
    fprintf(stderr, "%s: the image's add_kernel takes %u arguments, not 4\n",
            name, entry.metadata->num_args);
    goto done;
  }
  unsigned char packed[64];
  size_t packed_size = 0;
  if (failed(tegula_args_pack(entry.metadata, values, packed, sizeof(packed),
                              &packed_size),
             name, "packing the arguments"))
    goto done;

  /* BLOCK_SIZE is the specialization's 1024 elements per program. */
  const uint32_t block_size = 1024;
  tegula_launch_config config;
  memset(&config, 0, sizeof(config));
  config.struct_size = sizeof(config);
  config.grid[0] = (n + block_size - 1) / block_size;
  config.grid[1] = config.grid[2] = 1;
  config.block[0] = entry.metadata->num_warps *
                    (props.warp_size ? props.warp_size : 1);
  config.block[1] = config.block[2] = 1;
  if (failed(tegula_kernel_launch(kernel, NULL, &config, packed, packed_size),
             name, "launching"))
    goto done;
  if (failed(tegula_buffer_read(buffers[2], 0, out, bytes, NULL), name,
             "reading the output"))
    goto done;
  result = 1;
  for (uint32_t i = 0; i < n; ++i)
    if (!(out[i] == x[i] + y[i])) {
      fprintf(stderr, "%s: element %u is %g, expected %g\n", name, i,
              (double)out[i], (double)(x[i] + y[i]));
      result = 0;
      break;
    }

done:
  for (int b = 0; b < 3; ++b)
    if (buffers[b])
      tegula_error_destroy(tegula_buffer_free(buffers[b]));
  if (module)
    tegula_error_destroy(tegula_module_unload(module));
  free(x);
  free(y);
  free(out);
  return result;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: %s CONTAINER [N]\n", argv[0]);
    return 2;
  }
  uint32_t n = argc == 3 ? (uint32_t)strtoul(argv[2], NULL, 10) : 100000;
  if (n == 0) {
    fprintf(stderr, "%s: N must be a positive number\n", argv[0]);
    return 2;
  }
  tegula_container_t *container = NULL;
  if (failed(tegula_container_read_file(argv[1], &container), argv[1],
             "reading the container"))
    return 1;
  tegula_runtime_t *runtime = NULL;
  if (failed(tegula_runtime_create(NULL, &runtime), "tegula",
             "starting the runtime")) {
    tegula_container_destroy(container);
    return 1;
  }
  int ran = 0, bad = 0;
  size_t devices = tegula_runtime_get_device_count(runtime);
  for (size_t d = 0; d < devices; ++d) {
    tegula_device_t *device = tegula_runtime_get_device(runtime, d);
    const char *target = "-";
    int result = run_on(device, container, n, &target);
    printf("%-12s %-16s %s\n", tegula_device_get_name(device), target,
           result > 0 ? "match" : result == 0 ? "MISMATCH" : "no image");
    if (result >= 0) {
      ++ran;
      bad += result == 0;
    }
  }
  tegula_runtime_destroy(runtime);
  tegula_container_destroy(container);
  if (!ran)
    fprintf(stderr, "no device found has an image in %s\n", argv[1]);
  return ran && !bad ? 0 : 1;
}
