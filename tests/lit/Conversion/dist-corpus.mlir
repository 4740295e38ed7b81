// The front-end corpus (tests/frontend/corpus/kernels.txt) through the
// distributed lowering: each kernel compiles, takes layouts
// (tile-assign-layouts, 4 warps) and lowers with distributed=true without
// an error; a few facts per kernel pin the lowering of its key operation
// (shuffles and barriers of reductions, the scan's loop, shared-memory
// atomics of the histogram, scalar atomics by thread 0). matmul and flash
// attention are in dist-corpus-dot.mlir.

// RUN: tegula compile %tegula_src/tests/frontend/corpus/vector_add.py --kernel add_kernel \
// RUN:   --signature '*fp32:16, *fp32:16, *fp32:16, i32, 1024' | tegula-opt -tile-assign-layouts \
// RUN:   | tegula-opt -tile-test-lower-to-llvm=distributed=true | FileCheck %s --check-prefix=VADD
// n_elements of unknown divisibility: the mask may change at any element,
// so 8 scalar accesses per thread and tile, each under its mask.
// VADD-LABEL: module attributes {lowering.scratch_bytes = 0 : i64
// VADD-NOT:     @test_barrier
// VADD:         llvm.func @add_kernel(
// VADD-COUNT-16: llvm.load %{{[0-9]+}} {alignment = 4 : i64} : !llvm.ptr -> f32
// VADD-COUNT-8:  llvm.store %{{[0-9]+}}, %{{[0-9]+}} {alignment = 4 : i64} : f32, !llvm.ptr
// VADD-NOT:     vector<

// n_elements divisible by 16 (i32:16): 128-bit accesses, two per tile.
// RUN: tegula compile %tegula_src/tests/frontend/corpus/vector_add.py --kernel add_kernel \
// RUN:   --signature '*fp32:16, *fp32:16, *fp32:16, i32:16, 1024' | tegula-opt -tile-assign-layouts \
// RUN:   | tegula-opt -tile-test-lower-to-llvm=distributed=true | FileCheck %s --check-prefix=VADD16
// VADD16-LABEL: llvm.func @add_kernel(
// VADD16-COUNT-4: llvm.load %{{[0-9]+}} {alignment = 16 : i64} : !llvm.ptr -> vector<4xf32>
// VADD16-COUNT-2: llvm.store %{{[0-9]+}}, %{{[0-9]+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr
// VADD16-NOT:   {alignment = 4 : i64}

// RUN: tegula compile %tegula_src/tests/frontend/corpus/softmax.py --kernel softmax_kernel \
// RUN:   --signature '*fp32:16, *fp32:16, i32, i32, i32, i32, 1024, 4' | tegula-opt -tile-assign-layouts \
// RUN:   | tegula-opt -tile-test-lower-to-llvm=distributed=true | FileCheck %s --check-prefix=SOFTMAX
// Row max and row sum over 1024 columns: registers, 5 shuffles, 4 warp
// slots (16 bytes), for each.
// SOFTMAX-LABEL: module attributes {lowering.scratch_bytes = 16 : i64
// SOFTMAX:       llvm.func @softmax_kernel(
// SOFTMAX-COUNT-7: llvm.intr.maxnum
// SOFTMAX-COUNT-5: llvm.call @test_shuffle_xor(
// SOFTMAX:       llvm.call @test_barrier()
// SOFTMAX:       llvm.call @test_barrier()
// SOFTMAX:       llvm.intr.exp
// SOFTMAX-COUNT-5: llvm.call @test_shuffle_xor(
// SOFTMAX:       llvm.call @test_barrier()
// SOFTMAX:       llvm.call @test_barrier()
// SOFTMAX:       llvm.fdiv

// RUN: tegula compile %tegula_src/tests/frontend/corpus/softmax.py --kernel online_softmax_kernel \
// RUN:   --signature '*fp32:16, *fp32:16, i32, i32, 1024' | tegula-opt -tile-assign-layouts \
// RUN:   | tegula-opt -tile-test-lower-to-llvm=distributed=true | FileCheck %s --check-prefix=ONLINE
// ONLINE-LABEL: llvm.func @online_softmax_kernel(
// ONLINE:       llvm.call @test_shuffle_xor(
// ONLINE:       llvm.call @test_barrier()

// RUN: tegula compile %tegula_src/tests/frontend/corpus/layer_norm.py --kernel _layer_norm_fwd_fused \
// RUN:   --signature '*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32:16, i32, fp32, 1024' \
// RUN:   | tegula-opt -tile-assign-layouts | tegula-opt -tile-test-lower-to-llvm=distributed=true \
// RUN:   | FileCheck %s --check-prefix=LNFWD
// Mean and variance are sums over the row (shuffles, warp slots); the
// rstd is a scalar; the output is rounded to f16.
// LNFWD-LABEL: module attributes {lowering.scratch_bytes = 16 : i64
// LNFWD:       llvm.func @_layer_norm_fwd_fused(
// LNFWD:       llvm.fpext %{{[0-9]+}} : f16 to f32
// LNFWD:       llvm.call @test_shuffle_xor(
// LNFWD:       llvm.call @test_barrier()
// LNFWD:       llvm.intr.sqrt
// LNFWD:       llvm.fptrunc %{{[0-9]+}} : f32 to f16

// RUN: tegula compile %tegula_src/tests/frontend/corpus/layer_norm.py --kernel _layer_norm_bwd_dx_fused \
// RUN:   --signature '*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, *i32:16, i32:16, i32, 64, 1024' \
// RUN:   | tegula-opt -tile-assign-layouts | tegula-opt -tile-test-lower-to-llvm=distributed=true \
// RUN:   | FileCheck %s --check-prefix=LNBWD
// The lock around the partial-gradient update: a spin on a CAS that thread
// 0 performs and broadcasts, then a release by thread 0.
// LNBWD-LABEL: llvm.func @_layer_norm_bwd_dx_fused(
// LNBWD:       llvm.call @test_shuffle_xor(
// LNBWD:       llvm.cmpxchg
// LNBWD:       llvm.call @test_barrier()
// LNBWD:       llvm.atomicrmw xchg

// RUN: tegula compile %tegula_src/tests/frontend/corpus/layer_norm.py --kernel _layer_norm_bwd_dwdb \
// RUN:   --signature '*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32, i32, 32, 128' \
// RUN:   | tegula-opt -tile-assign-layouts | tegula-opt -tile-test-lower-to-llvm=distributed=true \
// RUN:   | FileCheck %s --check-prefix=DWDB
// DWDB-LABEL: llvm.func @_layer_norm_bwd_dwdb(
// DWDB:       llvm.return

// RUN: tegula compile %tegula_src/tests/frontend/corpus/cumsum_argmax_histogram.py --kernel cumsum_kernel \
// RUN:   --signature '*fp32:16, *fp32:16, i32, i32:16, 256, False' | tegula-opt -tile-assign-layouts \
// RUN:   | tegula-opt -tile-test-lower-to-llvm=distributed=true | FileCheck %s --check-prefix=CUMSUM
// One line of 256 f32 through shared memory: barrier, loop, barrier.
// CUMSUM-LABEL: module attributes {lowering.scratch_bytes = 1024 : i64
// CUMSUM:       llvm.func @cumsum_kernel(
// CUMSUM:       llvm.call @test_barrier()
// CUMSUM:       llvm.fadd
// CUMSUM:       llvm.call @test_barrier()
// CUMSUM:       llvm.call @test_barrier()
// CUMSUM-NOT:   @test_barrier

// RUN: tegula compile %tegula_src/tests/frontend/corpus/cumsum_argmax_histogram.py --kernel scan_kernel \
// RUN:   --signature '*i32:16, *i32:16, i32, 256' | tegula-opt -tile-assign-layouts \
// RUN:   | tegula-opt -tile-test-lower-to-llvm=distributed=true | FileCheck %s --check-prefix=SCAN
// SCAN-LABEL: module attributes {lowering.scratch_bytes = 1024 : i64
// SCAN:       llvm.func @scan_kernel(
// SCAN:       llvm.call @test_barrier()

// RUN: tegula compile %tegula_src/tests/frontend/corpus/cumsum_argmax_histogram.py --kernel argmax_kernel \
// RUN:   --signature '*fp32:16, *fp32:16, *i32:16, i32, i32, 128' | tegula-opt -tile-assign-layouts \
// RUN:   | tegula-opt -tile-test-lower-to-llvm=distributed=true | FileCheck %s --check-prefix=ARGMAX
// (value, index) pairs: both shuffled, by the same offset (one constant,
// common subexpressions being merged), both staged (2 x 16 bytes).
// ARGMAX-LABEL: module attributes {lowering.scratch_bytes = 32 : i64
// ARGMAX-DAG:   llvm.func @test_shuffle_xor(f32, i32) -> f32
// ARGMAX-DAG:   llvm.func @test_shuffle_xor_1(i32, i32) -> i32
// ARGMAX:       llvm.func @argmax_kernel(
// ARGMAX:       llvm.call @test_shuffle_xor(%{{[0-9]+}}, %[[K:[0-9]+]]) : (f32, i32) -> f32
// ARGMAX-NEXT:  llvm.call @test_shuffle_xor_1(%{{[0-9]+}}, %[[K]]) : (i32, i32) -> i32

// RUN: tegula compile %tegula_src/tests/frontend/corpus/cumsum_argmax_histogram.py --kernel histogram_kernel \
// RUN:   --signature '*i32:16, *i32:16, i32, 1024' | tegula-opt -tile-assign-layouts \
// RUN:   | tegula-opt -tile-test-lower-to-llvm=distributed=true | FileCheck %s --check-prefix=HIST
// 64 bins in shared memory: zeroed by a loop over the bins from the thread
// id, barrier, one shared atomic add per register (8), barrier, read back;
// the global atomic add of the bins is the owners' (64 bins over 128
// threads).
// HIST-LABEL: module attributes {lowering.scratch_bytes = 256 : i64
// HIST:       llvm.func @histogram_kernel(
// HIST:       llvm.call @test_barrier()
// HIST-COUNT-8: llvm.atomicrmw add %{{[0-9]+}}, %{{[0-9]+}} monotonic : !llvm.ptr, i32
// HIST:       llvm.call @test_barrier()
// HIST:       llvm.call @test_barrier()
// HIST:       llvm.cond_br
// HIST:       llvm.atomicrmw add %{{[0-9]+}}, %{{[0-9]+}} monotonic : !llvm.ptr, i32

// RUN: tegula compile %tegula_src/tests/frontend/corpus/cumsum_argmax_histogram.py --kernel softmax_via_scan_kernel \
// RUN:   --signature '*fp32:16, *fp32:16, i32, 256' | tegula-opt -tile-assign-layouts \
// RUN:   | tegula-opt -tile-test-lower-to-llvm=distributed=true | FileCheck %s --check-prefix=SMSCAN
// SMSCAN-LABEL: llvm.func @softmax_via_scan_kernel(
// SMSCAN:       llvm.call @test_barrier()

// RUN: tegula compile %tegula_src/tests/frontend/corpus/atomics.py --kernel sum_kernel \
// RUN:   --signature '*fp32:16, *fp32:16, i32, 1024' | tegula-opt -tile-assign-layouts \
// RUN:   | tegula-opt -tile-test-lower-to-llvm=distributed=true | FileCheck %s --check-prefix=SUM
// tl.sum to a scalar, then one atomic by thread 0.
// SUM-LABEL: llvm.func @sum_kernel(
// SUM:         %[[TID:[0-9]+]] = llvm.load %{{[0-9]+}} : !llvm.ptr -> i32
// SUM:         llvm.call @test_shuffle_xor(
// SUM:         llvm.call @test_barrier()
// SUM:         llvm.call @test_barrier()
// SUM:         %[[FIRST:[0-9]+]] = llvm.icmp "eq" %[[TID]], %{{[0-9]+}} : i32
// SUM-NEXT:    llvm.cond_br %[[FIRST]]
// SUM-NEXT:  ^{{bb[0-9]+}}:
// SUM:         llvm.atomicrmw fadd %arg1, %{{[0-9]+}} acq_rel : !llvm.ptr, f32
// SUM-NOT:     llvm.atomicrmw

// RUN: tegula compile %tegula_src/tests/frontend/corpus/atomics.py --kernel minmax_kernel \
// RUN:   --signature '*fp32:16, *fp32, *fp32, i32, 1024' | tegula-opt -tile-assign-layouts \
// RUN:   | tegula-opt -tile-test-lower-to-llvm=distributed=true | FileCheck %s --check-prefix=MINMAX
// MINMAX-LABEL: llvm.func @minmax_kernel(
// MINMAX:       llvm.atomicrmw max
// MINMAX:       llvm.atomicrmw umin

// RUN: tegula compile %tegula_src/tests/frontend/corpus/atomics.py --kernel locked_accumulate_kernel \
// RUN:   --signature '*fp32:16, *fp32:16, *i32, i32, 128' | tegula-opt -tile-assign-layouts \
// RUN:   | tegula-opt -tile-test-lower-to-llvm=distributed=true | FileCheck %s --check-prefix=LOCKED
// The spin lock: thread 0's CAS, its old value broadcast (barrier, load,
// barrier) for the loop condition every thread evaluates.
// LOCKED-LABEL: llvm.func @locked_accumulate_kernel(
// LOCKED:       llvm.cmpxchg %{{[^ ]+}}, %{{[0-9]+}}, %{{[0-9]+}} acquire acquire
// LOCKED:       llvm.call @test_barrier()
// LOCKED-NEXT:  llvm.load
// LOCKED-NEXT:  llvm.call @test_barrier()
// LOCKED:       llvm.atomicrmw xchg %{{[^ ]+}}, %{{[0-9]+}} release

// RUN: tegula compile %tegula_src/tests/frontend/corpus/atomics.py --kernel ticket_kernel \
// RUN:   --signature '*i32, *i32' | tegula-opt -tile-assign-layouts \
// RUN:   | tegula-opt -tile-test-lower-to-llvm=distributed=true | FileCheck %s --check-prefix=TICKET
// TICKET-LABEL: llvm.func @ticket_kernel(
// TICKET:       llvm.atomicrmw add
// TICKET:       llvm.call @test_barrier()
// TICKET:       llvm.atomicrmw _or
// TICKET:       llvm.atomicrmw _and
// TICKET:       llvm.atomicrmw _xor

// RUN: tegula compile %tegula_src/tests/frontend/corpus/dropout.py --kernel _dropout \
// RUN:   --signature '*fp32:16, *i8:16, *fp32:16, i32, fp32, 1024' | tegula-opt -tile-assign-layouts \
// RUN:   | tegula-opt -tile-test-lower-to-llvm=distributed=true | FileCheck %s --check-prefix=DROPOUT
// DROPOUT-LABEL: llvm.func @_dropout(
// DROPOUT:       llvm.return

// RUN: tegula compile %tegula_src/tests/frontend/corpus/dropout.py --kernel _seeded_dropout \
// RUN:   --signature '*fp32:16, *fp32:16, i32, fp32, i32, 1024' | tegula-opt -tile-assign-layouts \
// RUN:   | tegula-opt -tile-test-lower-to-llvm=distributed=true | FileCheck %s --check-prefix=SEEDED
// SEEDED-LABEL: module attributes {lowering.scratch_bytes = 0 : i64
// SEEDED:       llvm.func @_seeded_dropout(
// SEEDED:       llvm.return

// RUN: tegula compile %tegula_src/tests/frontend/corpus/dropout.py --kernel _seeded_dropout_rows \
// RUN:   --signature '*fp32:16, *fp32:16, i32, i32, fp32, i32, 1024, 10' | tegula-opt -tile-assign-layouts \
// RUN:   | tegula-opt -tile-test-lower-to-llvm=distributed=true | FileCheck %s --check-prefix=ROWS
// ROWS-LABEL: llvm.func @_seeded_dropout_rows(
// ROWS:       llvm.return
