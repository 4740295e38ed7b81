; Driver for bug-scratch-reuse-in-chunk-group.mlir: runs one program of
; @clobber(out, out2, x = 1, y = 7, ctx) with 8 KiB of scratch and prints
; out[0], out[16], out[63] and out2[0], out2[63].
%ctx = type { [3 x i32], [3 x i32], ptr }

@fmt = private constant [29 x i8] c"out %d %d %d out2 %lld %lld\0A\00"

declare void @clobber(ptr, ptr, i32, i32, ptr)
declare i32 @printf(ptr, ...)

define i32 @main() {
  %scratch = alloca [8192 x i8], align 64
  %out = alloca [64 x i32], align 64
  %out2 = alloca [64 x i64], align 64
  %ctx = alloca %ctx, align 8
  store %ctx zeroinitializer, ptr %ctx
  %sp = getelementptr %ctx, ptr %ctx, i32 0, i32 2
  store ptr %scratch, ptr %sp
  call void @clobber(ptr %out, ptr %out2, i32 1, i32 7, ptr %ctx)
  %p16 = getelementptr i32, ptr %out, i64 16
  %p63 = getelementptr i32, ptr %out, i64 63
  %v0 = load i32, ptr %out
  %v16 = load i32, ptr %p16
  %v63 = load i32, ptr %p63
  %q63p = getelementptr i64, ptr %out2, i64 63
  %q0 = load i64, ptr %out2
  %q63 = load i64, ptr %q63p
  call i32 (ptr, ...) @printf(ptr @fmt, i32 %v0, i32 %v16, i32 %v63, i64 %q0, i64 %q63)
  ret i32 0
}
