//===- LayoutPolicy.cpp - Layout choices of a target ----------------------===//

#include "tegula/BackendKit/LayoutPolicy.h"

#include <algorithm>

using namespace tegula::backend;

LayoutPolicy::~LayoutPolicy() = default;

BlockedLayout LayoutPolicy::getBlockedLayout(llvm::ArrayRef<int64_t> shape,
                                             unsigned elementBits,
                                             llvm::ArrayRef<unsigned> order,
                                             unsigned numWarps,
                                             unsigned contiguity) const {
  return defaultBlockedLayout(shape, elementBits, order, numWarps,
                              getWarpSize(), getMaxAccessBytes(), contiguity);
}

std::string BlockedLayout::verify(unsigned warpSize, unsigned numWarps) const {
  size_t rank = order.size();
  if (rank == 0)
    return "a layout needs at least one dimension";
  if (sizePerThread.size() != rank || threadsPerWarp.size() != rank ||
      warpsPerBlock.size() != rank)
    return "sizePerThread, threadsPerWarp, warpsPerBlock and order differ "
           "in rank";
  llvm::SmallVector<bool, 4> seen(rank, false);
  for (unsigned d : order) {
    if (d >= rank || seen[d])
      return "order is not a permutation of the dimensions";
    seen[d] = true;
  }
  unsigned threads = 1, warps = 1;
  for (size_t d = 0; d < rank; ++d) {
    if (!sizePerThread[d] || !threadsPerWarp[d] || !warpsPerBlock[d])
      return "dimension " + std::to_string(d) + " has a zero factor";
    threads *= threadsPerWarp[d];
    warps *= warpsPerBlock[d];
  }
  if (threads != warpSize)
    return "threadsPerWarp multiplies to " + std::to_string(threads) +
           ", not the warp size " + std::to_string(warpSize);
  if (warps != numWarps)
    return "warpsPerBlock multiplies to " + std::to_string(warps) +
           ", not " + std::to_string(numWarps) + " warps";
  return "";
}

BlockedLayout tegula::backend::defaultBlockedLayout(
    llvm::ArrayRef<int64_t> shape, unsigned elementBits,
    llvm::ArrayRef<unsigned> order, unsigned numWarps, unsigned warpSize,
    unsigned maxAccessBytes, unsigned contiguity) {
  size_t rank = shape.size();
  BlockedLayout layout;
  layout.order.assign(order.begin(), order.end());
  layout.sizePerThread.assign(rank, 1);
  layout.threadsPerWarp.assign(rank, 1);
  layout.warpsPerBlock.assign(rank, 1);
  if (rank == 0 || order.size() != rank)
    return layout;

  // The per-thread vector along the contiguous dimension: no wider than one
  // access, than what is known contiguous, than the thread's share of the
  // tile, or than the dimension itself.
  int64_t elements = 1;
  for (int64_t extent : shape)
    elements *= std::max<int64_t>(extent, 1);
  int64_t threads = int64_t(numWarps) * warpSize;
  int64_t perThread =
      std::max<int64_t>(1, int64_t(maxAccessBytes) * 8 / std::max(elementBits, 1u));
  perThread = std::min<int64_t>(perThread, std::max(contiguity, 1u));
  perThread = std::min<int64_t>(perThread, std::max<int64_t>(elements / threads, 1));
  perThread = std::min<int64_t>(perThread, std::max<int64_t>(shape[order[0]], 1));
  layout.sizePerThread[order[0]] = static_cast<unsigned>(perThread);

  // Threads, then warps, from the fastest dimension to the slowest; the
  // slowest takes whatever is left so the counts multiply out.
  unsigned lanesLeft = warpSize, warpsLeft = numWarps;
  int64_t threadsLeft = threads;
  unsigned lanesUsed = 1, warpsUsed = 1;
  for (size_t i = 0; i + 1 < rank; ++i) {
    unsigned d = order[i];
    int64_t wanted = std::clamp<int64_t>(
        threadsLeft, 1,
        std::max<int64_t>(shape[d] / layout.sizePerThread[d], 1));
    unsigned lanes =
        static_cast<unsigned>(std::clamp<int64_t>(wanted, 1, lanesLeft));
    unsigned warps = static_cast<unsigned>(
        std::clamp<int64_t>(wanted / lanes, 1, warpsLeft));
    layout.threadsPerWarp[d] = lanes;
    layout.warpsPerBlock[d] = warps;
    lanesLeft /= lanes;
    warpsLeft /= warps;
    threadsLeft /= wanted;
    lanesUsed *= lanes;
    warpsUsed *= warps;
  }
  layout.threadsPerWarp[order[rank - 1]] = warpSize / lanesUsed;
  layout.warpsPerBlock[order[rank - 1]] = numWarps / warpsUsed;
  return layout;
}
