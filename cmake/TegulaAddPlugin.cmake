# tegula_add_plugin(): builds a Tegula backend plugin. Used by the plugins in
# this tree and installed with the SDK (find_package(TegulaSDK) includes it),
# so a plugin's CMakeLists.txt reads the same in the tree and out of it.
#
#   tegula_add_plugin(<name>
#     SOURCES <file>...
#     [LINK_LIBRARIES <lib>...]      # linked PRIVATE
#     [OUTPUT_DIRECTORY <dir>]       # default: <build>/lib/tegula/plugins
#     [COMPONENT <component>]        # install component; default plugin-<name>
#     [COMPILE_KIT]                  # links the kit's compile pipeline
#     [NO_INSTALL])                  # test plugins
#
# Makes the MODULE library target tegula_plugin_<name>, file
# libtegula_plugin_<name>.so - the name the runtime derives the backend name
# from - that:
#  - links the plugin ABI (Tegula::TegulaPluginABI) and, with COMPILE_KIT,
#    the backend kit's compile pipeline with the tile dialect and middle/'s
#    lowering (TegulaCompileKit, TegulaLoweringKit, TegulaTileKit,
#    TegulaBackendKit) as static archives: nothing of Tegula is loaded with
#    the plugin, so it depends on the plugin C ABI alone (and on libMLIR /
#    libLLVM 19);
#  - keeps every symbol of the archives it links local (--exclude-libs), so
#    a plugin's copy of the kit never meets the core's or another plugin's;
#  - builds as C++17 with hidden visibility, so only the entry symbol
#    tg_plugin_get_api (marked TG_PLUGIN_EXPORT) is exported;
#  - links with -z defs, so a missing symbol fails the build, not the dlopen;
#  - lands in <build>/lib/tegula/plugins/, which TEGULA_PLUGIN_PATH can name
#    (and which, in Tegula's own build, is the runtime's default folder);
#  - installs into <libdir>/tegula/plugins/, where an installed
#    libtegula_runtime looks.
# <name> must be [a-z0-9_]+ and equal the name the plugin reports.
include_guard(GLOBAL)
include(GNUInstallDirs)

# Warnings, and out of Tegula's tree LLVM's definitions (-D_GNU_SOURCE,
# ...), for a plugin's targets.
function(_tegula_plugin_defaults target)
  if(COMMAND tegula_target_defaults)
    # Inside Tegula's tree: the project's warnings-as-errors.
    tegula_target_defaults(${target})
  else()
    target_compile_options(${target} PRIVATE -Wall -Wextra)
    if(LLVM_DEFINITIONS)
      separate_arguments(_definitions UNIX_COMMAND "${LLVM_DEFINITIONS}")
      target_compile_options(${target} PRIVATE ${_definitions})
    endif()
  endif()
endfunction()

function(tegula_add_plugin name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "NO_INSTALL;COMPILE_KIT"
    "OUTPUT_DIRECTORY;COMPONENT" "SOURCES;LINK_LIBRARIES")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR
      "tegula_add_plugin(${name}): unexpected arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT name MATCHES "^[a-z0-9_]+$")
    message(FATAL_ERROR
      "tegula_add_plugin: the backend name '${name}' must match [a-z0-9_]+")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "tegula_add_plugin(${name}): no SOURCES")
  endif()
  if(NOT TARGET Tegula::TegulaPluginABI)
    message(FATAL_ERROR
      "tegula_add_plugin(${name}): Tegula::TegulaPluginABI is missing; "
      "call find_package(TegulaSDK REQUIRED CONFIG) first")
  endif()
  if(NOT ARG_OUTPUT_DIRECTORY)
    set(ARG_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib/tegula/plugins)
  endif()
  if(NOT ARG_COMPONENT)
    set(ARG_COMPONENT plugin-${name})
  endif()

  set(target tegula_plugin_${name})
  add_library(${target} MODULE ${ARG_SOURCES})
  set_target_properties(${target} PROPERTIES
    PREFIX lib
    OUTPUT_NAME tegula_plugin_${name}
    LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIRECTORY}
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  target_compile_features(${target} PRIVATE cxx_std_17)
  target_link_libraries(${target} PRIVATE Tegula::TegulaPluginABI
    ${ARG_LINK_LIBRARIES})
  if(ARG_COMPILE_KIT)
    if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
      # MLIR names the TypeIDs of traits by the compiler's spelling of their
      # type; in a plugin's hidden copy of the kit, GCC's never match those
      # libMLIR (built with clang) registered, and every trait query fails.
      message(FATAL_ERROR "tegula_add_plugin(${name} COMPILE_KIT): build "
        "the plugin with clang-19, the compiler of LLVM 19 "
        "(-DCMAKE_CXX_COMPILER=clang++-19), not ${CMAKE_CXX_COMPILER_ID}")
    endif()
    # The archives reference one another (the pipeline calls the lowering,
    # which calls the dialect, which asks the kit's layout policy): one
    # group, whatever order the rest of the link line puts them in.
    # -z nodelete: dlclose leaves the plugin mapped. libMLIR's registries
    # (the fallback TypeIDs, keyed by type names in the plugin's own
    # memory) outlive any plugin that used them; unmapping it made the
    # next registration in the process read freed memory.
    target_link_options(${target} PRIVATE -Wl,-z,nodelete)
    target_link_libraries(${target} PRIVATE -Wl,--start-group
      Tegula::TegulaCompileKit Tegula::TegulaLoweringKit Tegula::TegulaTileKit
      Tegula::TegulaBackendKit -Wl,--end-group)
  endif()
  target_link_options(${target} PRIVATE -Wl,-z,defs -Wl,--exclude-libs,ALL)
  _tegula_plugin_defaults(${target})
  if(ARG_COMPILE_KIT)
    # Installed, it finds libMLIR/libLLVM where LLVM 19 lives (the link
    # path).
    set_target_properties(${target} PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
  endif()
  if(NOT ARG_NO_INSTALL)
    install(TARGETS ${target}
      LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/tegula/plugins
      COMPONENT ${ARG_COMPONENT})
  endif()
endfunction()

# tegula_add_plugin_library(): a static library of a plugin's own code (its
# compiler, code generator, matrix units), linked into the plugin, and into
# tools and tests that call it directly.
#
#   tegula_add_plugin_library(<target> <output-name>
#     SOURCES <file>...
#     [LINK_LIBRARIES <item>...])    # after PUBLIC; may name PRIVATE ones
#
# The library is position-independent with hidden symbols (it ends up in a
# shared module that exports one symbol), C++17, has the calling folder on
# its include path and links (PUBLIC) the backend kit's compile pipeline on
# libMLIR/libLLVM 19: the kit's headers, TargetHooks, LayoutPolicy and
# TileCompile.h, are its to use.
function(tegula_add_plugin_library target output)
  cmake_parse_arguments(PARSE_ARGV 2 ARG "" "" "SOURCES;LINK_LIBRARIES")
  if(ARG_UNPARSED_ARGUMENTS OR NOT ARG_SOURCES)
    message(FATAL_ERROR "tegula_add_plugin_library(${target}): expected "
      "SOURCES <file>... [LINK_LIBRARIES <item>...], got ${ARGN}")
  endif()
  if(NOT TARGET Tegula::TegulaCompileKit)
    message(FATAL_ERROR "tegula_add_plugin_library(${target}): "
      "Tegula::TegulaCompileKit is missing; call "
      "find_package(TegulaSDK REQUIRED CONFIG COMPONENTS BackendKit) first")
  endif()
  add_library(${target} STATIC ${ARG_SOURCES})
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME ${output}
    POSITION_INDEPENDENT_CODE ON
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  target_compile_features(${target} PUBLIC cxx_std_17)
  target_include_directories(${target} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  target_include_directories(${target} SYSTEM PUBLIC ${LLVM_INCLUDE_DIRS})
  target_link_libraries(${target} PUBLIC Tegula::TegulaCompileKit MLIR LLVM
    ${ARG_LINK_LIBRARIES})
  _tegula_plugin_defaults(${target})
endfunction()
