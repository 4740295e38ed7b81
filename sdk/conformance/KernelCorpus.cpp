//===- KernelCorpus.cpp - The embedded tile bytecode ----------------------===//
//
// kernels/<file>.inc are generated at build time (sdk/CMakeLists.txt): the
// bytes of `tegula compile kernels/<file>.py ... --emit tile-bytecode`.
//
//===----------------------------------------------------------------------===//

#include "KernelCorpus.h"

namespace tegula::conformance {

namespace {
const unsigned char kFillU32Bytes[] = {
#include "kernels/fill_u32.inc"
};
const unsigned char kAddF32Bytes[] = {
#include "kernels/vector_add.inc"
};
const unsigned char kRowSumF32Bytes[] = {
#include "kernels/row_sum.inc"
};
const unsigned char kAtomicCounterBytes[] = {
#include "kernels/atomic_counter.inc"
};
const unsigned char kProgramIdsBytes[] = {
#include "kernels/program_ids.inc"
};
} // namespace

const CorpusKernel kFillU32 = {"fill_u32", "fill_u32.py", kFillU32Bytes,
                               sizeof(kFillU32Bytes)};
const CorpusKernel kAddF32 = {"add_f32", "vector_add.py", kAddF32Bytes,
                              sizeof(kAddF32Bytes)};
const CorpusKernel kRowSumF32 = {"row_sum_f32", "row_sum.py", kRowSumF32Bytes,
                                 sizeof(kRowSumF32Bytes)};
const CorpusKernel kAtomicCounter = {"atomic_counter", "atomic_counter.py",
                                     kAtomicCounterBytes,
                                     sizeof(kAtomicCounterBytes)};
const CorpusKernel kProgramIds = {"program_ids", "program_ids.py",
                                  kProgramIdsBytes, sizeof(kProgramIdsBytes)};

} // namespace tegula::conformance
