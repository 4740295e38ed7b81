#!/bin/bash
# Builds the Debian packages (cpack) from a built tree, installs them without
# root into a scratch root with `dpkg -x`, and checks that
#   (a) tegula-core alone finds no plugin and says how to add one;
#   (b) adding a plugin package makes its plugin (and any device) appear;
#   (c) tegula-sdk alone suffices to build a plugin out of tree: plugins/nvidia
#       and plugins/host from their own folders and the SDK's sample plugin
#       are built against the extracted SDK, loaded by the extracted core
#       through TEGULA_PLUGIN_PATH, and pass the extracted conformance suite;
#   (d) those plugins depend on the plugin C ABI alone: they load no Tegula
#       library, and they keep loading, compiling and running after the
#       core's own copies of the kit (libtegula_tile, libtegula_lowering) are
#       replaced by libraries of the same names that share nothing with
#       them, as a newer core's would.
# The tree builds plugins/host, so tegula-plugin-host must be among the
# packages (its host:0 device is listed once it is installed).
# Usage: run-packaging-test.sh <build dir> <source dir> <work dir>
# The work dir is wiped first; it is fixed (not random) so that ccache hits
# when the out-of-tree plugins are built again.
set -euo pipefail
build=$1 src=$2 work=$3
cmake=${CMAKE:-cmake} cpack=${CPACK:-cpack}

fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "--- $*"; }
# expect <output> <text>: the output must contain the text.
expect() { grep -qF -- "$2" <<<"$1" || { echo "$1" >&2; fail "expected '$2'"; }; }
expect_not() { ! grep -qF -- "$2" <<<"$1" || { echo "$1" >&2; fail "did not expect '$2'"; }; }

rm -rf "$work"
mkdir -p "$work"
root=$work/root
version=$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' "$build/CPackConfig.cmake")
[ -n "$version" ] || fail "no CPACK_PACKAGE_VERSION in $build/CPackConfig.cmake"

step "cpack -G DEB (staging in $work/cpack, packages in $build/packages)"
(cd "$build" && "$cpack" -G DEB -B "$work/cpack" > "$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log"; fail "cpack failed"; }
pkgdir=$build/packages
deb() { echo "$pkgdir/$1_${version}_amd64.deb"; }

step "one package per component, no placeholders"
plugins=()
for backend in host nvidia amd intel; do
  if [ -f "$build/lib/tegula/plugins/libtegula_plugin_$backend.so" ]; then
    plugins+=("$backend")
  fi
done
for package in tegula-core tegula-sdk "${plugins[@]/#/tegula-plugin-}"; do
  [ -f "$(deb "$package")" ] || fail "no package $(deb "$package")"
done
[ -f "$build/lib/tegula/plugins/libtegula_plugin_host.so" ] ||
  fail "the tree builds no host plugin ($build/lib/tegula/plugins/libtegula_plugin_host.so)"
[ "${plugins[0]}" = host ] || fail "no tegula-plugin-host among the packages"
for backend in nvidia amd intel; do
  if [ ! -f "$build/lib/tegula/plugins/libtegula_plugin_$backend.so" ]; then
    [ ! -e "$(deb "tegula-plugin-$backend")" ] ||
      fail "a $backend package without a $backend plugin"
  fi
done
core_files=$(dpkg-deb -c "$(deb tegula-core)")
expect_not "$core_files" "libtegula_plugin_"
for backend in "${plugins[@]}"; do
  files=$(dpkg-deb -c "$(deb "tegula-plugin-$backend")" | awk '{print $6}' | grep -v '/$')
  [ "$files" = "./usr/lib/tegula/plugins/libtegula_plugin_$backend.so" ] ||
    fail "tegula-plugin-$backend holds: $files"
  # The plugin ABI, not a core version: the kit is inside the plugin.
  depends=$(dpkg-deb -f "$(deb "tegula-plugin-$backend")" Depends)
  expect "$depends" "tegula-plugin-abi-1"
  expect_not "$depends" "tegula-core"
done
expect "$(dpkg-deb -f "$(deb tegula-core)" Provides)" "tegula-plugin-abi-1"
depends=$(dpkg-deb -f "$(deb tegula-core)" Depends)
for dep in libmlir-19 libllvm19 libboost-filesystem1.74.0 libstdc++6; do
  expect "$depends" "$dep"
done
expect "$(dpkg-deb -f "$(deb tegula-sdk)" Depends)" "tegula-core (= $version)"

# The extracted tools run with a clean plugin environment.
tegula_devices() {
  env -u TEGULA_PLUGIN_PATH -u TEGULA_VISIBLE_BACKENDS "$@" \
    "$root/usr/bin/tegula" devices 2>&1
}

step "(a) tegula-core alone: no plugin, and how to add one"
dpkg -x "$(deb tegula-core)" "$root"
out=$(tegula_devices) || { echo "$out"; fail "tegula devices failed"; }
echo "$out"
expect "$out" "Plugins (0 found, 0 loaded): none"
expect "$out" "Devices: none"
expect "$out" "No backend plugin is loaded"
expect "$out" "install tegula-plugin-host"
# The folder named is the extracted root's, which shows the extracted
# libtegula_runtime (not the build tree's) is the one running.
expect "$out" "  $(realpath "$root")/usr/lib/tegula/plugins"

step "(b) each plugin package makes its plugin appear"
count=0
for backend in "${plugins[@]}"; do
  dpkg -x "$(deb "tegula-plugin-$backend")" "$root"
  count=$((count + 1))
  out=$(tegula_devices) || { echo "$out"; fail "tegula devices failed"; }
  expect "$out" "Plugins ($count found, $count loaded):"
  expect "$out" "loaded  $backend $version (ABI "
  expect "$out" "from $root/usr/lib/tegula/plugins/libtegula_plugin_$backend.so"
  # Devices, or the plugin's reason for having none.
  grep -A4 "loaded  $backend " <<<"$out" | grep -qE "devices: ([0-9]+|none \(.+\))$" ||
    { echo "$out"; fail "$backend reports neither devices nor a reason"; }
done
echo "$out"
expect_not "$out" "No backend plugin is loaded"
# The host plugin's one device, whatever the machine.
expect "$out" "  host:0  "
expect "$out" "target:                  host:"
expect "$out" "warp size:               1"

step "(c) the SDK alone builds plugins out of tree"
dpkg -x "$(deb tegula-sdk)" "$root"
launcher=()
if command -v ccache > /dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR=$work CCACHE_NOHASHDIR=1
fi
build_plugin() { # <name> <source folder>
  # clang-19, as the SDK asks of plugins that link its compile kit
  # (TegulaAddPlugin.cmake says why).
  "$cmake" -S "$2" -B "$work/$1" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER=clang++-19 \
    -DCMAKE_PREFIX_PATH="$root/usr" "${launcher[@]}" > "$work/$1.log" 2>&1 &&
    "$cmake" --build "$work/$1" >> "$work/$1.log" 2>&1 ||
    { cat "$work/$1.log"; fail "building $1 against the extracted SDK failed"; }
  # Against the extracted SDK only, never the source tree's headers.
  ! grep -q -- "-I$src/sdk" "$work/$1/build.ninja" ||
    fail "$1 was compiled with the source tree's SDK headers"
  grep -q -- "$root/usr/include" "$work/$1/build.ninja" ||
    fail "$1 was not compiled with the extracted SDK's headers"
  [ -f "$work/$1/lib/tegula/plugins/libtegula_plugin_$1.so" ] ||
    fail "$1: no lib/tegula/plugins/libtegula_plugin_$1.so"
}
# A repository plugin, from its own folder.
build_plugin nvidia "$src/plugins/nvidia"
build_plugin host "$src/plugins/host"
# The SDK's own sample, as a vendor gets it from the package.
build_plugin sample "$root/usr/share/tegula/examples/sample-plugin"

out=$(tegula_devices \
  TEGULA_PLUGIN_PATH="$work/nvidia/lib/tegula/plugins:$work/host/lib/tegula/plugins:$work/sample/lib/tegula/plugins") ||
  { echo "$out"; fail "tegula devices failed"; }
echo "$out"
expect "$out" "loaded  nvidia $version (ABI 1.2) from $work/nvidia/lib/tegula/plugins/libtegula_plugin_nvidia.so"
expect "$out" "loaded  sample 0.1.0 (ABI 1.2) from $work/sample/lib/tegula/plugins/libtegula_plugin_sample.so"
expect "$out" "libtegula_plugin_nvidia.so: backend 'nvidia' already loaded from $work/nvidia"
expect "$out" "loaded  host $version (ABI 1.2) from $work/host/lib/tegula/plugins/libtegula_plugin_host.so"
expect "$out" "libtegula_plugin_host.so: backend 'host' already loaded from $work/host"
expect "$out" "  sample:0  Tegula sample device 0"
expect "$out" "target:                  sample:host_memory"

step "(c) the extracted conformance suite passes on the out-of-tree plugins"
conformance=$root/usr/bin/tegula-conformance
"$conformance" --plugin="$work/sample/lib/tegula/plugins/libtegula_plugin_sample.so" \
  --strict --fill-kernel=kernel=fill_u32 > "$work/conformance-sample.log" 2>&1 ||
  { cat "$work/conformance-sample.log"; fail "conformance on sample failed"; }
tail -n 1 "$work/conformance-sample.log"
"$conformance" --plugin="$work/nvidia/lib/tegula/plugins/libtegula_plugin_nvidia.so" \
  > "$work/conformance-nvidia.log" 2>&1 ||
  { cat "$work/conformance-nvidia.log"; fail "conformance on nvidia failed"; }
tail -n 1 "$work/conformance-nvidia.log"
# host implements everything but compile: strict, and only the launch test
# (no conformance kernel) skips.
"$conformance" --plugin="$work/host/lib/tegula/plugins/libtegula_plugin_host.so" \
  --strict > "$work/conformance-host.log" 2>&1 ||
  { cat "$work/conformance-host.log"; fail "conformance on host failed"; }
tail -n 1 "$work/conformance-host.log"

step "(d) the plugins depend on the plugin C ABI alone"
for plugin in nvidia host; do
  file=$work/$plugin/lib/tegula/plugins/libtegula_plugin_$plugin.so
  needed=$(readelf -d "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  echo "libtegula_plugin_$plugin.so needs:" $needed
  expect_not "$needed" "libtegula"
  expect "$needed" "libMLIR.so.19"
  # One exported function: the entry (C++ runtime template instances the
  # toolchain exports are not Tegula's).
  exported=$(nm -D --defined-only "$file" | awk '$2 ~ /^[TDB]$/ {print $3}' |
    grep -v '^_' || true)
  [ "$exported" = "tg_plugin_get_api" ] ||
    fail "libtegula_plugin_$plugin.so exports: $exported"
  [ -z "$(nm -DC --defined-only "$file" | grep 'tegula::' | grep -v 'std::' || true)" ] ||
    fail "libtegula_plugin_$plugin.so exports Tegula C++ symbols"
done
# A newer core: its libtegula_tile and libtegula_lowering (same sonames)
# have nothing in common with the kit the plugins were built against.
libdir=$(dirname "$(find "$root/usr" -name 'libtegula_tile.so.*' -type f | head -n 1)")
[ -d "$libdir" ] || fail "no libtegula_tile in the extracted core"
echo 'int tegula_core_changed_its_kit = 2;' > "$work/stub.c"
for lib in tile lowering; do
  soname=$(readelf -d "$libdir/libtegula_$lib.so".*.* |
    sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
  rm -f "$libdir/libtegula_$lib.so".*
  cc -shared -fPIC "$work/stub.c" -Wl,-soname,"$soname" -o "$libdir/$soname"
done
"$conformance" --plugin="$work/host/lib/tegula/plugins/libtegula_plugin_host.so" \
  --strict > "$work/conformance-host-skew.log" 2>&1 ||
  { cat "$work/conformance-host-skew.log"; fail "the host plugin failed with a changed core kit"; }
tail -n 1 "$work/conformance-host-skew.log"
# The compiled-kernel tests ran: the plugin compiled with its own kit.
grep -q "OK \] Launch.CompiledVectorAdd" "$work/conformance-host-skew.log" ||
  fail "the host plugin did not compile and run vector_add with a changed core kit"
"$conformance" --plugin="$work/nvidia/lib/tegula/plugins/libtegula_plugin_nvidia.so" \
  > "$work/conformance-nvidia-skew.log" 2>&1 ||
  { cat "$work/conformance-nvidia-skew.log"; fail "the nvidia plugin failed with a changed core kit"; }
tail -n 1 "$work/conformance-nvidia-skew.log"
echo "PASS"
