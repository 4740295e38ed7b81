//===- NvidiaMatrixUnits.h - NVIDIA's matrix units and async copies -*- C++ -*-===//
//
// NVIDIA's matrix-unit families (tegula/BackendKit/MatrixUnit.h), owned by
// this plugin and handed to the layout engine (NvidiaLayoutPolicy) and the
// lowering (NvidiaCompiler's MatrixUnitRegistry):
//
//   "nvidia.mma" version 2 - mma.sync (sm_80 and later), operands in
//     registers: m16n8k16 on f16/bf16, m16n8k8 on f32 as tf32, m16n8k32 on
//     i8 (into i32), one warp per 16x8 instruction tile. Operand fragments
//     come through padded shared memory with ldmatrix where the registers
//     do not line up.
//   "nvidia.wgmma" version 1 - wgmma.mma_async (sm_90a), m64nNk16 on
//     f16/bf16 into f32 issued by warp groups of 4 warps, both operands in
//     swizzled shared memory (128-, 64- or 32-byte swizzle; A may stay in
//     the registers of an earlier dot's accumulator), described by matrix
//     descriptors.
//
// With them, NvidiaAsyncCopy: cp.async, the AsyncCopy extension the target
// hooks return, which fills the shared operands of software-pipelined
// loops.
//
// The lane maps (getLinearLayout) are PTX's fragment layouts ("Matrix
// Fragments for mma.m16n8k16", "Register Fragments and Shared Memory
// Matrix Layouts" for wgmma); every family is stateless.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_PLUGINS_NVIDIA_NVIDIAMATRIXUNITS_H
#define TEGULA_PLUGINS_NVIDIA_NVIDIAMATRIXUNITS_H

#include "tegula/BackendKit/AsyncCopy.h"
#include "tegula/BackendKit/MatrixUnit.h"

namespace tegula::nvidia {

// The plugin's families and copies (stateless, alive for the process).

/// "nvidia.mma": mma.sync on register operands.
const backend::MatrixUnit &getNvidiaMmaUnit();
/// "nvidia.wgmma": wgmma.mma_async on shared-memory operands.
const backend::MatrixUnit &getNvidiaWgmmaUnit();
/// cp.async (sm_80 and later).
const backend::AsyncCopy &getNvidiaAsyncCopy();

/// Adds the plugin's matrix-unit families to |units| (a compile's, or a
/// tool's that runs middle/'s passes on NVIDIA layouts).
void addNvidiaMatrixUnits(backend::MatrixUnitRegistry &units);

} // namespace tegula::nvidia

#endif // TEGULA_PLUGINS_NVIDIA_NVIDIAMATRIXUNITS_H
