# Flags and helpers shared by every Tegula target.

# Our own code builds with warnings as errors; third-party headers are SYSTEM.
set(TEGULA_WARNING_FLAGS -Wall -Wextra -Werror -Wno-unused-parameter)
# Lambdas capturing structured bindings are C++20; clang accepts them in
# C++17 as an extension, as GCC does silently.
if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  list(APPEND TEGULA_WARNING_FLAGS -Wno-c++20-extensions)
endif()

# The one MLIR/LLVM linkage for the whole project: the shared libMLIR.so and
# libLLVM.so (TOOLCHAIN.md: mixing static and shared gives two registries).
set(TEGULA_MLIR_LIBS MLIR LLVM)

function(tegula_target_defaults target)
  target_compile_options(${target} PRIVATE ${TEGULA_WARNING_FLAGS})
  if(NOT LLVM_ENABLE_RTTI)
    target_compile_options(${target} PRIVATE -fno-rtti)
  endif()
endfunction()
