//===- tegula/BackendKit/TargetTable.h - A backend's targets ----*- C++ -*-===//
//
// A backend describes the targets it compiles for as a table: one row per
// target, a struct whose `name` (a C string) is the target as users write
// it after "<plugin>:" ("gfx942", "pvc"), next to what the backend knows of
// it (wave size, shared memory, matrix units). These two helpers give the
// names PluginInfo lists (the kit rejects any other target before the
// backend's compile runs) and the row of a name.
//
//===----------------------------------------------------------------------===//

#ifndef TEGULA_BACKENDKIT_TARGETTABLE_H
#define TEGULA_BACKENDKIT_TARGETTABLE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace tegula::backend {

/// The names of |rows|, in order.
template <typename Row>
std::vector<std::string> getTargetNames(llvm::ArrayRef<Row> rows) {
  std::vector<std::string> names;
  for (const Row &row : rows)
    names.push_back(row.name);
  return names;
}

/// The row of |rows| named |name|, or null.
template <typename Row>
const Row *findTarget(llvm::ArrayRef<Row> rows, llvm::StringRef name) {
  for (const Row &row : rows)
    if (name == row.name)
      return &row;
  return nullptr;
}

} // namespace tegula::backend

#endif // TEGULA_BACKENDKIT_TARGETTABLE_H
