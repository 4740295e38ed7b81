//===- AmdCodeObject.cpp - What a code object says of its kernel ---------===//

#include "AmdCodeObject.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/Object/ELF.h"

using namespace tegula::amd;

namespace {

llvm::Error failure(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// |node|'s unsigned value, when it is a non-negative integer.
std::optional<uint32_t> unsignedOf(const llvm::msgpack::DocNode &node) {
  if (node.getKind() == llvm::msgpack::Type::UInt)
    return static_cast<uint32_t>(node.getUInt());
  if (node.getKind() == llvm::msgpack::Type::Int && node.getInt() >= 0)
    return static_cast<uint32_t>(node.getInt());
  return std::nullopt;
}

/// The value under string key |key| of |map|, or null.
llvm::msgpack::DocNode *lookup(llvm::msgpack::MapDocNode &map,
                               llvm::StringRef key) {
  for (auto &entry : map)
    if (entry.first.isString() && entry.first.getString() == key)
      return &entry.second;
  return nullptr;
}

} // namespace

llvm::Expected<KernelResources>
tegula::amd::readKernelResources(llvm::StringRef hsaco,
                                 llvm::StringRef kernelName) {
  using ELFT = llvm::object::ELF64LE;
  llvm::Expected<llvm::object::ELFFile<ELFT>> file =
      llvm::object::ELFFile<ELFT>::create(hsaco);
  if (!file)
    return file.takeError();
  auto sections = file->sections();
  if (!sections)
    return sections.takeError();
  for (const ELFT::Shdr &section : *sections) {
    if (section.sh_type != llvm::ELF::SHT_NOTE)
      continue;
    llvm::Error error = llvm::Error::success();
    for (const ELFT::Note &note : file->notes(section, error)) {
      if (note.getName() != "AMDGPU" ||
          note.getType() != llvm::ELF::NT_AMDGPU_METADATA)
        continue;
      llvm::ArrayRef<uint8_t> desc = note.getDesc(section.sh_addralign);
      llvm::msgpack::Document document;
      if (!document.readFromBlob(
              llvm::StringRef(reinterpret_cast<const char *>(desc.data()),
                              desc.size()),
              /*Multi=*/false)) {
        llvm::consumeError(std::move(error));
        return failure("the code object's AMDGPU metadata is no MessagePack");
      }
      if (!document.getRoot().isMap()) {
        llvm::consumeError(std::move(error));
        return failure("the code object's AMDGPU metadata is no map");
      }
      llvm::msgpack::DocNode *kernels =
          lookup(document.getRoot().getMap(), "amdhsa.kernels");
      if (kernels && kernels->isArray()) {
        for (llvm::msgpack::DocNode &kernel :
             kernels->getArray()) {
          if (!kernel.isMap())
            continue;
          llvm::msgpack::MapDocNode &fields = kernel.getMap();
          const llvm::msgpack::DocNode *name = lookup(fields, ".name");
          if (!name || !name->isString() || name->getString() != kernelName)
            continue;
          KernelResources resources;
          auto read = [&](const char *key, std::optional<uint32_t> &out) {
            if (const llvm::msgpack::DocNode *value = lookup(fields, key))
              out = unsignedOf(*value);
          };
          read(".vgpr_count", resources.vgprCount);
          read(".agpr_count", resources.agprCount);
          read(".sgpr_count", resources.sgprCount);
          read(".vgpr_spill_count", resources.vgprSpillCount);
          read(".sgpr_spill_count", resources.sgprSpillCount);
          read(".group_segment_fixed_size", resources.groupSegmentSize);
          read(".private_segment_fixed_size", resources.privateSegmentSize);
          read(".max_flat_workgroup_size", resources.maxFlatWorkgroupSize);
          llvm::consumeError(std::move(error));
          return resources;
        }
      }
      llvm::consumeError(std::move(error));
      return failure("the code object's AMDGPU metadata has no kernel '" +
                     kernelName + "'");
    }
    if (error)
      return std::move(error);
  }
  return failure("the code object has no AMDGPU metadata note");
}
