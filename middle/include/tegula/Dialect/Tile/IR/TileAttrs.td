//===- TileAttrs.td - attributes of the tile dialect -------*- tablegen -*-===//
#ifndef TEGULA_TILE_ATTRS
#define TEGULA_TILE_ATTRS

include "mlir/IR/EnumAttr.td"
include "tegula/Dialect/Tile/IR/TileDialect.td"

class Tile_EnumAttr<EnumAttrInfo info, string name>
    : EnumAttr<Tile_Dialect, info, name>;

def Tile_CacheModifier : I32EnumAttr<"CacheModifier",
    "cache modifier of a load or store", [
      I32EnumAttrCase<"none", 1>, I32EnumAttrCase<"ca", 2>,
      I32EnumAttrCase<"cg", 3>, I32EnumAttrCase<"wb", 4>,
      I32EnumAttrCase<"cs", 5>, I32EnumAttrCase<"wt", 6>,
      I32EnumAttrCase<"cv", 7>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::tegula::tile";
}
def Tile_CacheModifierAttr : Tile_EnumAttr<Tile_CacheModifier, "cache">;

def Tile_EvictionPolicy : I32EnumAttr<"EvictionPolicy",
    "eviction policy of a load or store", [
      I32EnumAttrCase<"normal", 1>, I32EnumAttrCase<"evict_first", 2>,
      I32EnumAttrCase<"evict_last", 3>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::tegula::tile";
}
def Tile_EvictionPolicyAttr : Tile_EnumAttr<Tile_EvictionPolicy, "evict">;

def Tile_PaddingOption : I32EnumAttr<"PaddingOption",
    "value of out-of-bounds elements of a block-pointer load", [
      I32EnumAttrCase<"zero", 1>, I32EnumAttrCase<"nan", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::tegula::tile";
}
def Tile_PaddingOptionAttr : Tile_EnumAttr<Tile_PaddingOption, "padding">;

def Tile_RMWKind : I32EnumAttr<"RMWKind", "atomic read-modify-write operation", [
      I32EnumAttrCase<"add", 1>, I32EnumAttrCase<"fadd", 2>,
      I32EnumAttrCase<"and_", 3, "and">, I32EnumAttrCase<"or_", 4, "or">,
      I32EnumAttrCase<"xor_", 5, "xor">, I32EnumAttrCase<"max", 6>,
      I32EnumAttrCase<"min", 7>, I32EnumAttrCase<"umax", 8>,
      I32EnumAttrCase<"umin", 9>, I32EnumAttrCase<"xchg", 10>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::tegula::tile";
}
def Tile_RMWKindAttr : Tile_EnumAttr<Tile_RMWKind, "rmw">;

def Tile_MemSemantic : I32EnumAttr<"MemSemantic",
    "memory ordering of an atomic operation", [
      I32EnumAttrCase<"relaxed", 1>, I32EnumAttrCase<"acquire", 2>,
      I32EnumAttrCase<"release", 3>, I32EnumAttrCase<"acq_rel", 4>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::tegula::tile";
}
def Tile_MemSemanticAttr : Tile_EnumAttr<Tile_MemSemantic, "sem">;

def Tile_MemSyncScope : I32EnumAttr<"MemSyncScope",
    "the set of threads an atomic operation synchronizes with", [
      I32EnumAttrCase<"gpu", 1>, I32EnumAttrCase<"cta", 2>,
      I32EnumAttrCase<"sys", 3>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::tegula::tile";
}
def Tile_MemSyncScopeAttr : Tile_EnumAttr<Tile_MemSyncScope, "scope">;

def Tile_RoundingMode : I32EnumAttr<"RoundingMode",
    "rounding mode of a narrowing float conversion", [
      I32EnumAttrCase<"rtne", 1>, I32EnumAttrCase<"rtz", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::tegula::tile";
}
def Tile_RoundingModeAttr : Tile_EnumAttr<Tile_RoundingMode, "rounding">;

def Tile_InputPrecision : I32EnumAttr<"InputPrecision",
    "precision of the multiplication inside tile.dot for f32 inputs", [
      I32EnumAttrCase<"ieee", 1>, I32EnumAttrCase<"tf32", 2>,
      I32EnumAttrCase<"tf32x3", 3>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::tegula::tile";
}
def Tile_InputPrecisionAttr : Tile_EnumAttr<Tile_InputPrecision, "precision">;

def Tile_PropagateNan : I32EnumAttr<"PropagateNan",
    "whether tile.clamp propagates NaN inputs", [
      I32EnumAttrCase<"none", 1>, I32EnumAttrCase<"all", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::tegula::tile";
}
def Tile_PropagateNanAttr : Tile_EnumAttr<Tile_PropagateNan, "propagate_nan">;

#endif // TEGULA_TILE_ATTRS
