# The SDK's CMake package and the Debian packages. Included at the end of the
# top-level CMakeLists.txt, after every install() rule.
#
# Install components, one Debian package each (CPack, DEB generator):
#   core            tegula-core: libtegula_runtime, the compiler libraries,
#                   libtegula_kernel_cache, `tegula`, `tegula-opt`, the
#                   runtime headers and the docs
#   sdk             tegula-sdk: the plugin ABI and backend kit headers, the
#                   CMake package (find_package(TegulaSDK),
#                   tegula_add_plugin()), the conformance suite and
#                   tegula-conformance, the dialect headers, the sample plugin
#   plugin-<name>   tegula-plugin-<name>: one backend, for each plugin target
#                   the tree builds (nvidia, amd, intel; host once
#                   plugins/host/ builds tegula_plugin_host)
# Build them with `cpack -G DEB` in the build folder (or `ninja package`);
# tests/packaging/ installs them into a scratch root and checks them.
include(CMakePackageConfigHelpers)

#===-- find_package(TegulaSDK) ---------------------------------------------===#

set(TEGULA_CMAKE_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/TegulaSDK)

# Parsed from plugin.h by sdk/CMakeLists.txt.
set(TEGULA_PLUGIN_ABI_VERSION ${TEGULA_PLUGIN_ABI_MAJOR}.${TEGULA_PLUGIN_ABI_MINOR})

install(EXPORT TegulaTargets
  NAMESPACE Tegula::
  FILE TegulaTargets.cmake
  DESTINATION ${TEGULA_CMAKE_PACKAGE_DIR}
  COMPONENT sdk)
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/TegulaSDKConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/TegulaSDKConfig.cmake
  INSTALL_DESTINATION ${TEGULA_CMAKE_PACKAGE_DIR})
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/TegulaSDKConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMajorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/cmake/TegulaSDKConfig.cmake
  ${PROJECT_BINARY_DIR}/cmake/TegulaSDKConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/TegulaAddPlugin.cmake
  DESTINATION ${TEGULA_CMAKE_PACKAGE_DIR}
  COMPONENT sdk)

#===-- Debian packages --------------------------------------------------------===#

set(TEGULA_PACKAGE_PLUGINS)
foreach(backend host nvidia amd intel)
  # A package only for a plugin that exists: no empty placeholder packages.
  if(TARGET tegula_plugin_${backend})
    list(APPEND TEGULA_PACKAGE_PLUGINS ${backend})
  endif()
endforeach()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME tegula)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "Tegula")
set(CPACK_PACKAGE_CONTACT "Tegula maintainers <maintainers@tegula.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "Tile-language GPU kernel compiler (Triton language) on LLVM/MLIR 19")
set(CPACK_PACKAGE_HOMEPAGE_URL "https://tegula.invalid")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# Packages are written here; the staging area stays in the build folder.
set(CPACK_OUTPUT_FILE_PREFIX ${PROJECT_BINARY_DIR}/packages)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_COMPRESSION_TYPE gzip)
# Inter-package dependencies come from the component graph below, with the
# exact version (tegula-sdk 0.1.0 needs tegula-core 0.1.0); plugins depend
# on the plugin ABI instead (below).
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)

set(CPACK_COMPONENTS_ALL core sdk)
foreach(backend IN LISTS TEGULA_PACKAGE_PLUGINS)
  list(APPEND CPACK_COMPONENTS_ALL plugin-${backend})
endforeach()

# tegula-core: its libraries' Debian dependencies (libmlir-19, libllvm19,
# libboost-filesystem1.74.0, libstdc++6, ...) come from dpkg-shlibdeps when
# it is installed, else from the list below (what dpkg-shlibdeps finds on
# Debian 12).
find_program(TEGULA_DPKG_SHLIBDEPS dpkg-shlibdeps)
set(CPACK_DEBIAN_CORE_PACKAGE_NAME tegula-core)
set(CPACK_COMPONENT_CORE_DESCRIPTION
  "Tegula runtime and compiler\n libtegula_runtime (plugin discovery, devices, memory, streams, launch), the\n kernel container, the kernel cache, the compiler libraries and the `tegula`\n and `tegula-opt` commands. Backends are separate packages\n (tegula-plugin-<backend>); without one, `tegula devices` says how to add one.")
if(TEGULA_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_CORE_PACKAGE_SHLIBDEPS ON)
  # dpkg-shlibdeps finds libLLVM.so.19.1 through the llvm-19-dev symlink in
  # /usr/lib/llvm-19/lib (the RUNPATH), which has no shlibs, and CPack runs
  # it with --ignore-missing-info: name the library's package by hand.
  set(CPACK_DEBIAN_CORE_PACKAGE_DEPENDS "libllvm19")
else()
  set(CPACK_DEBIAN_CORE_PACKAGE_DEPENDS
    "libboost-filesystem1.74.0, libllvm19, libmlir-19, libc6 (>= 2.34), libgcc-s1 (>= 3.0), libstdc++6 (>= 12)")
endif()

# tegula-sdk: everything to build and test a plugin out of tree. The
# conformance suite links libtegula_runtime from tegula-core; the headers of
# the backend kit and of the tile dialect need MLIR's.
set(CPACK_DEBIAN_SDK_PACKAGE_NAME tegula-sdk)
set(CPACK_COMPONENT_SDK_DEPENDS core)
set(CPACK_DEBIAN_SDK_PACKAGE_DEPENDS "cmake (>= 3.20), libgtest-dev")
set(CPACK_DEBIAN_SDK_PACKAGE_RECOMMENDS "libmlir-19-dev, llvm-19-dev")
set(CPACK_COMPONENT_SDK_DESCRIPTION
  "Tegula plugin SDK\n The plugin C ABI and C++ backend kit headers, find_package(TegulaSDK) with\n tegula_add_plugin(), the plugin conformance suite (tegula-conformance and\n a GoogleTest library) and a sample plugin to start from.")

# tegula-core provides the plugin C ABI major version it loads; a plugin
# package needs that ABI, not a version of the core: the kit it was built
# with (the tile dialect, the lowering) is inside its library.
set(CPACK_DEBIAN_CORE_PACKAGE_PROVIDES "tegula-plugin-abi-${TEGULA_PLUGIN_ABI_MAJOR}")

# One package per plugin; plugins are dlopen'ed by the core and load their
# vendor's driver at run time, so they depend on a core of their plugin ABI
# and on what their library links (libmlir-19 and libllvm19 for those with
# a compiler).
set(_tegula_vendor_nvidia "NVIDIA GPUs, through the CUDA driver API (loaded at run time)")
set(_tegula_vendor_amd "AMD GPUs, through the HIP runtime (loaded at run time)")
set(_tegula_vendor_intel "Intel GPUs, through Level Zero (loaded at run time)")
set(_tegula_vendor_host "the host CPU")
set(_tegula_codegen_nvidia "compiling kernels\n to PTX and cubin with LLVM's NVPTX target and ptxas, when found")
set(_tegula_codegen_amd "compiling kernels\n to code objects (hsaco) with LLVM's AMDGPU target and lld; launching\n comes in a later release")
set(_tegula_codegen_intel "compiling kernels\n to SPIR-V through llvm-spirv-15, validated with SPIRV-Tools; launching\n comes in a later release")
set(_tegula_codegen_host "compiling kernels\n for it with LLVM and running them on a thread pool")
foreach(backend IN LISTS TEGULA_PACKAGE_PLUGINS)
  string(TOUPPER plugin-${backend} _component)
  set(CPACK_DEBIAN_${_component}_PACKAGE_NAME tegula-plugin-${backend})
  set(CPACK_DEBIAN_${_component}_PACKAGE_DEPENDS
    "tegula-plugin-abi-${TEGULA_PLUGIN_ABI_MAJOR}")
  if(TEGULA_DPKG_SHLIBDEPS)
    set(CPACK_DEBIAN_${_component}_PACKAGE_SHLIBDEPS ON)
    # As for the core: libLLVM's package named by hand (dpkg-shlibdeps finds
    # no shlibs for it through the llvm-19-dev symlink). Every plugin
    # compiles, so every one links it.
    string(APPEND CPACK_DEBIAN_${_component}_PACKAGE_DEPENDS ", libllvm19")
  endif()
  set(CPACK_COMPONENT_${_component}_DESCRIPTION
    "Tegula backend plugin: ${backend}\n Finds and drives ${_tegula_vendor_${backend}} for Tegula (${_tegula_codegen_${backend}}).\n Installs lib/tegula/plugins/libtegula_plugin_${backend}.so, where\n libtegula_runtime finds it.")
endforeach()
# tegula-sdk's tegula-conformance links tegula-core's libtegula_runtime:
# dpkg-shlibdeps looks for it in the build tree, as each component is staged
# on its own. It belongs to no installed package, so it adds no Depends
# line; the SDK's component dependency on tegula-core (above) covers it.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${PROJECT_BINARY_DIR}/lib)

include(CPack)
