"""``python -m tegula devices|targets|compile|inspect|cache``: the ``tegula``
command line (tools/tegula/) over the C APIs, so that it works wherever
``import tegula`` does, from a self-contained wheel too.

``devices``, ``targets`` and ``inspect`` print what the command line prints.
``compile`` runs the front end through the compiler C API
(libtegula_compiler) and the targets' back ends through the runtime
(tegula_runtime_compile); the text stages of the front end
(``--emit tile-ir``, ``tile-ir-raw``, ``--locations``), which the C API does
not print, run the ``tegula`` executable (the wheel's own, the one of the
install the runtime library came from, or the one on PATH) with the same
arguments; so does ``cache``. Target compiles go through the on-disk kernel
cache with the executable's key, so the two share entries.
"""

import ctypes
import os
import shutil
import sys

from . import _runtime as _rt

_COMMANDS = [
    ("compile", "compile a Triton kernel to tile IR, or for targets"),
    ("devices", "list plugins (loaded or skipped, and why) and devices"),
    ("targets", "list the targets, stages and compile options of plugins"),
    ("inspect", "show the images a kernel container holds"),
    ("cache", "show the kernel cache's folder and statistics, or clear it"),
]


def _usage(out):
    out.write("usage: python -m tegula <command> [options]\n\ncommands:\n")
    for name, summary in _COMMANDS:
        out.write("  %-10s %s\n" % (name, summary))
    out.write("\n'python -m tegula <command> --help' describes a command.\n")


# -- devices ----------------------------------------------------------------

_DEVICES_USAGE = """\
usage: python -m tegula devices

Lists every plugin found (loaded, or skipped and why) and every device
with its properties. Exits 0 even when there is no device.

environment:
  TEGULA_PLUGIN_PATH       colon-separated plugin folders or files, searched
                           before the folder beside libtegula_runtime
  TEGULA_VISIBLE_BACKENDS  comma-separated backends allowed to load
"""

_MATRIX_UNITS = [(1 << 0, "mma"), (1 << 1, "wgmma"), (1 << 2, "mfma"), (1 << 3, "wmma"),
                 (1 << 4, "dpas"), (1 << 5, "amx")]


def format_bytes(n):
    """'48 KiB', '1.5 GiB' (the command line's formatBytes)."""
    units = ["bytes", "KiB", "MiB", "GiB", "TiB"]
    value, unit = float(n or 0), 0
    while value >= 1024 and unit < 4:
        value /= 1024
        unit += 1
    if unit == 0 or value == int(value):
        return "%d %s" % (int(value), units[unit])
    return "%.1f %s" % (value, units[unit])


def _format_clock(khz):
    return "%d MHz" % (khz // 1000) if khz else "unknown"


def _format_matrix_units(bits):
    names = [name for bit, name in _MATRIX_UNITS if (bits or 0) & bit]
    return ", ".join(names) if names else "none"


def _print_devices(rt, out):
    dirs = rt.search_dirs
    out.write("Plugin folders searched:%s\n" % ("" if dirs else " none"))
    for d in dirs:
        out.write("  %s\n" % d)
    plugins = rt.plugins
    loaded = sum(1 for p in plugins if p["loaded"])
    out.write("Plugins (%d found, %d loaded):%s\n"
              % (len(plugins), loaded, "" if plugins else " none"))
    for p in plugins:
        if not p["loaded"]:
            out.write("  skipped %s\n" % p["skip_message"])
            continue
        out.write("  loaded  %s %s (ABI %d.%d) from %s\n" % (
            p["name"], p["version"], p["abi_version"][0], p["abi_version"][1], p["path"]))
        out.write("          vendor: %s\n" % p["vendor"])
        out.write("          targets: %s\n" % (", ".join(p["targets"]) or "none"))
        if p["num_devices"]:
            out.write("          devices: %d\n" % p["num_devices"])
        else:
            out.write("          devices: none (%s)\n"
                      % (p["device_status"] or "the plugin gave no reason"))
    devices = rt.devices
    if not devices:
        out.write("Devices: none\n")
    else:
        out.write("Devices (%d):\n" % len(devices))
    for d in devices:
        if d.properties_error is not None:
            out.write("  %s\n    properties unavailable: %s\n" % (d.name, d.properties_error))
            continue
        out.write("  %s  %s\n" % (d.name, d.marketing_name or ""))
        p = d.properties
        rows = [
            ("target:", d.target),
            ("architecture:", p["arch"] or "unknown"),
            ("compute units:", str(p["compute_units"])),
            ("warp size:", str(p["warp_size"])),
            ("max threads per block:", str(p["max_threads_per_block"])),
            ("shared memory per block:", format_bytes(p["shared_memory_per_block"])),
            ("global memory:", format_bytes(p["global_memory"])),
            ("clock:", _format_clock(p["clock_khz"])),
            ("memory clock:", _format_clock(p["memory_clock_khz"])),
            ("matrix units:", _format_matrix_units(p["matrix_units"])),
        ]
        for key, value in rows:
            out.write("    %-24s %s\n" % (key, value))
    if loaded == 0:
        folder = os.path.join(os.path.dirname(_rt.library_path() or ""), "tegula", "plugins")
        out.write(
            "\nNo backend plugin is loaded, so there is no device to run on.%s\n"
            "Backends are separate packages: install tegula-plugin-host,\n"
            "tegula-plugin-nvidia, tegula-plugin-amd or tegula-plugin-intel, which\n"
            "put their plugin into\n  %s\n"
            "or set TEGULA_PLUGIN_PATH to a folder holding "
            "libtegula_plugin_<backend>.so.\n"
            % (" (The reasons each was skipped are above.)" if plugins else "", folder))


def cmd_devices(args, out=sys.stdout, err=sys.stderr):
    for a in args:
        if a in ("--help", "-h"):
            out.write(_DEVICES_USAGE)
            return 0
        err.write("tegula devices: unexpected argument '%s'\n" % a)
        return 2
    from . import Runtime
    try:
        with Runtime() as rt:
            _print_devices(rt, out)
    except _rt.TegulaError as e:
        err.write("tegula devices: %s\n" % e)
        return 1
    return 0


# -- targets ----------------------------------------------------------------

_TARGETS_USAGE = """\
usage: python -m tegula targets [--markdown]

Lists the targets of every loaded plugin (devices need not be present),
the stages `tegula compile --emit` can stop at and the compile options
they take. --markdown prints them as docs/compile-options.md has them.
"""


def _raw_plugins(rt):
    """(tegula_plugin_info, ...) of each loaded plugin, with the stage and
    option records Runtime.plugins does not keep (description, binary)."""
    lib, h = rt._lib, rt._require()
    out = []
    for i in range(lib.tegula_runtime_get_plugin_count(h)):
        info = _rt.sized(_rt.tegula_plugin_info)
        _rt.check(lib, lib.tegula_runtime_get_plugin_info(h, i, ctypes.byref(info)))
        if info.loaded:
            out.append(info)
    return out


def _describe_type(o):
    if o.type == 1:
        return "flag (1 or 0)"
    if o.type == 2:
        return "integer %d..%d" % (o.min, o.max)
    if o.type == 3:
        return "one of " + _rt.decode(o.choices)
    return "text"


def _describe_default(o):
    d = _rt.decode(o.default_value)
    if not d:
        return "(empty)" if o.type == 4 else "(the kernel's)"
    return d


def _cell(text):
    return text.replace("|", "\\|")


def _print_targets(info, out, markdown):
    name = _rt.decode(info.name)
    targets = [_rt.decode(info.targets[j]) for j in range(info.num_targets)]
    stages = [info.stages[j] for j in range(info.num_stages)]
    options = [info.options[j] for j in range(info.num_options)]
    D = _rt.decode
    if markdown:
        out.write("## %s\n\nTargets:" % name)
        for t in targets:
            out.write(" `%s:%s`" % (name, t))
        out.write("\n\n| stage | output |\n|---|---|\n"
                  "| `image` | the kernel image the plugin loads (the default) |\n")
        for s in stages:
            out.write("| `%s` | %s%s |\n" % (D(s.name), _cell(D(s.description)),
                                             " (binary)" if s.binary else ""))
        if not options:
            out.write("\nNo compile options declared (plugin ABI %d.%d).\n\n"
                      % (info.abi_major, info.abi_minor))
            return
        out.write("\n| option | type | default | environment | what it does |\n"
                  "|---|---|---|---|---|\n")
        for o in options:
            env = D(o.env)
            out.write("| `%s` | %s | %s | %s | %s |\n" % (
                D(o.name), _cell(_describe_type(o)), _cell(_describe_default(o)),
                "`%s`" % env if env else "", _cell(D(o.description))))
        out.write("\n")
        return
    out.write("%s %s (%s)\n" % (name, D(info.version), D(info.vendor)))
    out.write("  targets: %s\n" % " ".join("%s:%s" % (name, t) for t in targets))
    out.write("  stages:\n    %-14s %s\n" % ("image",
                                             "the kernel image the plugin loads (the default)"))
    for s in stages:
        out.write("    %-14s %s%s\n" % (D(s.name), D(s.description),
                                        " (binary)" if s.binary else ""))
    if not options:
        out.write("  options: none declared (plugin ABI %d.%d)\n"
                  % (info.abi_major, info.abi_minor))
        return
    out.write("  options:\n")
    for o in options:
        out.write("    %-14s %s; default %s" % (D(o.name), _describe_type(o),
                                                 _describe_default(o)))
        if D(o.env):
            out.write("; environment %s" % D(o.env))
        out.write("\n    %-14s %s\n" % ("", D(o.description)))


def cmd_targets(args, out=sys.stdout, err=sys.stderr):
    markdown = False
    for a in args:
        if a in ("--help", "-h"):
            out.write(_TARGETS_USAGE)
            return 0
        if a != "--markdown":
            err.write("tegula targets: unknown argument '%s'\n\n" % a)
            err.write(_TARGETS_USAGE)
            return 2
        markdown = True
    from . import Runtime
    try:
        with Runtime() as rt:
            infos = _raw_plugins(rt)
            for info in infos:
                _print_targets(info, out, markdown)
    except _rt.TegulaError as e:
        err.write("tegula targets: error: %s\n" % e)
        return 1
    if not infos:
        err.write("tegula targets: no plugin is loaded (`python -m tegula devices` says "
                  "what was found)\n")
        return 1
    return 0


# -- inspect ----------------------------------------------------------------

_INSPECT_USAGE = """\
usage: python -m tegula inspect FILE

Shows the images a kernel container (`tegula compile --target ...`)
holds: target, kernel, warps, shared memory, arguments and size.
"""


def cmd_inspect(args, out=sys.stdout, err=sys.stderr):
    if len(args) == 1 and args[0] in ("--help", "-h"):
        out.write(_INSPECT_USAGE)
        return 0
    if len(args) != 1:
        err.write("tegula inspect: expected one file\n\n" + _INSPECT_USAGE)
        return 2
    from ._container import Container
    try:
        c = Container(args[0])
        n = c._lib.tegula_container_get_entry_count(c._handle)
        out.write("%s: kernel container %d.%d, %d image%s\n"
                  % (args[0], c.version[0], c.version[1], n, "" if n == 1 else "s"))
        for i in range(n):
            e = c._entry(i)
            md = e.metadata.contents
            out.write("[%d] %s: kernel %s, %d bytes\n"
                      % (i, _rt.decode(e.target), _rt.decode(md.name), e.image_size))
            out.write("    num_warps %d, shared memory %d bytes\n"
                      % (md.num_warps, md.shared_memory))
            sig = []
            for a in range(md.num_args):
                arg = md.args[a]
                text = ("*" if arg.kind == _rt.ARG_POINTER else "") + \
                    _rt.SCALAR_TYPES.get(arg.type, "?")
                if arg.divisibility > 1:
                    text += ":%d" % arg.divisibility
                sig.append("%s: %s" % (_rt.decode(arg.name), text))
            out.write("    arguments (%s)\n" % ", ".join(sig))
            spec = _rt.decode(md.specialization)
            if spec:
                out.write("    specialization %s\n" % spec)
    except _rt.TegulaError as e:
        err.write("tegula inspect: error: %s\n" % e.message)
        return 1
    return 0


# -- compile ----------------------------------------------------------------

_COMPILE_USAGE = """\
usage: python -m tegula compile FILE.py --kernel NAME --signature SIG
                      [--constexpr NAME=VALUE]... [--target TARGET]...
                      [--emit STAGE] [--option KEY=VALUE]...
                      [--num-warps N] [--num-stages N] [--no-assert]
                      [--debug] [--locations] [--time-stages] [--no-cache]
                      [-I DIR]... [-o OUT]

Compiles the @jit function NAME of FILE.py for SIG, a signature in the
format of Triton's AOT tool ("*fp32:16, *fp32:16, i32, 1024").
  -I DIR               a folder where the modules the kernel imports
                       @jit helpers and constants from are looked for
                       (like PYTHONPATH; repeatable; searched before the
                       root of FILE.py's package and FILE.py's folder)
Without --target it stops at tile IR:
  --emit tile-ir       verified tile IR after the target-independent
                       pipeline (the default; runs the `tegula` executable)
  --emit tile-ir-raw   tile IR as the front end made it (the executable)
  --emit tile-bytecode versioned MLIR bytecode (what plugins receive)
With --target BACKEND:ARCH (any target a loaded plugin declares; no
device needed; `python -m tegula targets` lists them with their stages
and options):
  --emit image         a kernel container with the loadable image of
                       each --target (the default; `python -m tegula
                       inspect` shows it)
  --emit STAGE         one target's output at a stage its plugin
                       declares: llvm-ir, ptx, cubin (nvidia), asm,
                       object (host), ...
  --option KEY=VALUE   a compile option the plugin declares (e.g.
                       mma=0); it overrides the option's environment
                       variable
  --time-stages        the wall-clock time of each target compile
                       stage on stderr (TEGULA_TIME_STAGES=1; compiles
                       without the cache)
  --debug              check every load, store and atomic against the
                       buffers the launch gives (docs/runtime.md)
  --no-cache           compile even when the kernel cache (`tegula
                       cache`, TEGULA_CACHE_DIR) has the result
Exit status: 0 success, 1 error in the kernel or its options, 2 usage.
"""

_FRONT_END_STAGES = ("tile-ir", "tile-ir-raw", "tile-bytecode")


class _Usage(Exception):
    pass


def _parse_compile(args):
    o = {"file": None, "kernel": None, "signature": None, "output": "-", "emit": None,
         "targets": [], "options": [], "constexprs": [], "num_warps": 4, "num_stages": 3,
         "assertions": True, "debug": False, "locations": False, "time_stages": False,
         "no_cache": False, "include": []}
    valued = {"-I": "a folder", "--kernel": "a name", "--signature": "a value", "--constexpr": "NAME=VALUE",
              "--target": "a value", "--option": "KEY=VALUE", "--emit": "a value",
              "--num-warps": "a power of 2", "--num-stages": "a non-negative integer",
              "-o": "a path"}
    i = 0
    while i < len(args):
        a = args[i]
        flag, value = a, None
        if "=" in a and a.split("=", 1)[0] in valued:
            flag, value = a.split("=", 1)
        if flag in valued:
            if value is None:
                if i + 1 >= len(args):
                    raise _Usage("%s needs %s" % (flag, valued[flag]))
                i += 1
                value = args[i]
            if flag == "--kernel":
                o["kernel"] = value
            elif flag == "--signature":
                o["signature"] = value
            elif flag in ("--constexpr", "--option"):
                key, eq, val = value.partition("=")
                if not key or not eq:
                    raise _Usage("%s needs %s, got '%s'" % (flag, valued[flag], value))
                o["constexprs" if flag == "--constexpr" else "options"].append((key, val))
            elif flag == "--target":
                if value != "none":
                    o["targets"].append(value)
            elif flag == "--emit":
                o["emit"] = value
            elif flag == "--num-warps":
                try:
                    n = int(value, 10)
                except ValueError:
                    n = 0
                if n <= 0 or n & (n - 1):
                    raise _Usage("--num-warps needs a power of 2")
                o["num_warps"] = n
            elif flag == "--num-stages":
                try:
                    n = int(value, 10)
                except ValueError:
                    n = -1
                if n < 0:
                    raise _Usage("--num-stages needs a non-negative integer")
                o["num_stages"] = n
            elif flag == "-o":
                o["output"] = value
            elif flag == "-I":
                o["include"].append(value)
        elif a.startswith("-I") and len(a) > 2:
            o["include"].append(a[2:])
        elif a == "--no-assert":
            o["assertions"] = False
        elif a == "--debug":
            o["debug"] = True
        elif a == "--time-stages":
            o["time_stages"] = True
        elif a == "--no-cache":
            o["no_cache"] = True
        elif a == "--locations":
            o["locations"] = True
        elif a.startswith("-") and a != "-":
            raise _Usage("unknown option '%s'" % a)
        elif o["file"] is None:
            o["file"] = a
        else:
            raise _Usage("unexpected argument '%s'" % a)
        i += 1
    if o["file"] is None:
        raise _Usage("no input file")
    if not o["kernel"]:
        raise _Usage("--kernel is required")
    if o["signature"] is None:
        raise _Usage("--signature is required")
    return o


def find_executable():
    """The ``tegula`` command line: the wheel's own (tegula/_lib/bin), the
    ``bin/`` beside the ``lib/`` the runtime library was loaded from, or the
    one on PATH; None when there is none."""
    places = [os.path.join(os.path.dirname(_rt.bundled_lib_dir()), "bin", "tegula")]
    try:
        path = _rt.library_path()
        if path:
            places.append(os.path.join(os.path.dirname(os.path.dirname(path)), "bin", "tegula"))
    except _rt.TegulaError:
        pass
    for p in places:
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return shutil.which("tegula")


def _write(output, data, out):
    if output == "-":
        out.flush()
        target = getattr(out, "buffer", None)
        if target is None:
            out.write(data.decode("utf-8", "replace"))
        else:
            target.write(data)
            target.flush()
        return
    with open(output, "wb") as f:
        f.write(data)


def _compile_targets(o, bytecode):
    """The bytes ``tegula compile --target ...`` writes: one stage of one
    target, or a container of each target's image. Each target's result
    comes from the on-disk kernel cache when it has it, with the key the
    ``tegula`` executable uses (docs/runtime.md, "The kernel cache"), unless
    --no-cache, --time-stages or TEGULA_CACHE_DIR=none."""
    from . import Runtime, _diskcache
    copts, n = _rt.compile_option_array(o["options"])
    timing = os.environ.get("TEGULA_TIME_STAGES", "") not in ("", "0")
    use_cache = not o["no_cache"] and not timing and _diskcache.enabled()
    with Runtime() as rt:
        lib, h = rt._lib, rt._require()
        images, containers, results = [], [], []
        try:
            for t in (o["targets"][:1] if o["emit"] != "image" else o["targets"]):
                key = _diskcache.ToolKey(rt, t, o["emit"], bytecode, o["options"]) \
                    if use_cache else None
                blob = _diskcache.lookup(key) if key is not None else None
                if blob is not None:
                    handle = ctypes.c_void_p()
                    failed = lib.tegula_container_read(blob, len(blob), ctypes.byref(handle))
                    if failed is None:
                        containers.append(handle)
                        entry = _rt.sized(_rt.tegula_container_entry)
                        _rt.check(lib, lib.tegula_container_get_entry(handle, 0,
                                                                      ctypes.byref(entry)))
                        results.append((entry.metadata, entry.image, entry.image_size))
                        continue
                    lib.tegula_error_destroy(failed)  # not a container: compile
                image = ctypes.c_void_p()
                if o["emit"] != "image":
                    if not hasattr(lib, "tegula_runtime_compile_stage"):
                        raise _rt.TegulaError("this runtime library has no "
                                              "tegula_runtime_compile_stage", 5)
                    err = lib.tegula_runtime_compile_stage(
                        h, t.encode(), o["emit"].encode(), bytecode, len(bytecode), copts, n,
                        ctypes.byref(image))
                else:
                    err = lib.tegula_runtime_compile(h, t.encode(), bytecode, len(bytecode),
                                                     copts, n, ctypes.byref(image))
                _rt.check(lib, err)
                images.append(image.value)
                result = (lib.tegula_image_get_metadata(image.value),
                          lib.tegula_image_get_data(image.value),
                          lib.tegula_image_get_size(image.value))
                results.append(result)
                if key is not None:
                    _diskcache.store(key, _diskcache.one_image_container(lib, *result))
            if o["emit"] != "image":
                return ctypes.string_at(results[0][1], results[0][2])
            writer = ctypes.c_void_p()
            _rt.check(lib, lib.tegula_container_writer_create(ctypes.byref(writer)))
            try:
                for metadata, data, size in results:
                    _rt.check(lib, lib.tegula_container_writer_add(writer, metadata, data, size))
                data, size = ctypes.c_void_p(), ctypes.c_size_t()
                _rt.check(lib, lib.tegula_container_writer_finish(
                    writer, ctypes.byref(data), ctypes.byref(size)))
                return ctypes.string_at(data, size.value)
            finally:
                lib.tegula_container_writer_destroy(writer)
        finally:
            for image in images:
                lib.tegula_image_destroy(image)
            for handle in containers:
                lib.tegula_container_destroy(handle)


def cmd_compile(args, out=sys.stdout, err=sys.stderr):
    if any(a in ("--help", "-h") for a in args):
        out.write(_COMPILE_USAGE)
        return 0
    try:
        o = _parse_compile(args)
    except _Usage as e:
        err.write("tegula compile: %s\n\n%s" % (e, _COMPILE_USAGE))
        return 2
    emit = o["emit"] or ("image" if o["targets"] else "tile-ir")
    o["emit"] = emit
    if emit in _FRONT_END_STAGES and o["targets"]:
        err.write("tegula compile: --emit %s is target-independent: drop --target, or "
                  "name a stage of the target (`python -m tegula targets`)\n" % emit)
        return 1
    if emit not in _FRONT_END_STAGES and not o["targets"]:
        err.write("tegula compile: --emit %s is target code: name the target, e.g. "
                  "--target nvidia:sm_90a (`python -m tegula targets` lists them); "
                  "without one, --emit is tile-ir, tile-ir-raw or tile-bytecode\n" % emit)
        return 1
    if len(o["targets"]) > 1 and emit != "image":
        err.write("tegula compile: --emit %s writes one target's output; several "
                  "--targets make one container (--emit image)\n" % emit)
        return 1
    if o["options"] and not o["targets"]:
        err.write("tegula compile: --option sets a plugin's compile option: name a "
                  "--target\n\n" + _COMPILE_USAGE)
        return 2
    if emit in ("tile-ir", "tile-ir-raw") or (o["locations"] and emit != "tile-bytecode"):
        # Tile IR as text: the compiler C API returns bytecode only.
        exe = find_executable()
        if exe is None:
            err.write("tegula compile: --emit %s prints tile IR as text, which needs the "
                      "`tegula` executable (the tegula-core package, `cmake --install`, or "
                      "the self-contained wheel); none was found. --emit tile-bytecode "
                      "and --target work without it.\n" % emit)
            return 1
        out.flush()
        err.flush()
        import subprocess
        return subprocess.call([exe, "compile"] + list(args))
    if o["time_stages"]:
        os.environ["TEGULA_TIME_STAGES"] = "1"
    from . import _compiler
    try:
        with open(o["file"], "rb") as f:
            source = f.read()
    except OSError as e:
        err.write("tegula compile: error: cannot read '%s': %s\n"
                  % (o["file"], e.strerror or e))
        return 1
    try:
        bytecode = _compiler.compile_kernel(
            source, o["kernel"], o["signature"], file_name=o["file"],
            constexprs=dict(o["constexprs"]), num_warps=o["num_warps"],
            num_stages=o["num_stages"], assertions=o["assertions"],
            search_paths=o["include"], debug=o["debug"])
    except _compiler.CompilationError as e:
        text = e.diagnostics
        err.write(text if text.endswith("\n") else text + "\n")
        return 1
    except ValueError as e:
        err.write("tegula compile: error: %s\n" % e)
        return 1
    except _rt.TegulaError as e:
        err.write("tegula compile: error: %s\n" % e)
        return 1
    if o["targets"]:
        try:
            bytecode = _compile_targets(o, bytecode)
        except _rt.TegulaError as e:
            err.write("tegula compile: error: %s\n" % e.message)
            return 1
    try:
        _write(o["output"], bytecode, out)
    except OSError as e:
        err.write("tegula compile: error: %s\n" % e)
        return 1
    return 0


# -- main -------------------------------------------------------------------

def cmd_cache(args, out=sys.stdout, err=sys.stderr):
    """``cache dir|stats|clear``: the ``tegula`` executable's, which reads
    the folder through libtegula_kernel_cache."""
    exe = find_executable()
    if exe is None:
        err.write("tegula cache: needs the `tegula` executable (the tegula-core "
                  "package, `cmake --install`, or the self-contained wheel); none was "
                  "found\n")
        return 1
    out.flush()
    err.flush()
    import subprocess
    return subprocess.call([exe, "cache"] + list(args))


_RUN = {"compile": cmd_compile, "devices": cmd_devices, "targets": cmd_targets,
        "inspect": cmd_inspect, "cache": cmd_cache}


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:
        _usage(sys.stderr)
        return 2
    name = argv[0]
    if name in ("--help", "-h", "help"):
        _usage(sys.stdout)
        return 0
    run = _RUN.get(name)
    if run is None:
        sys.stderr.write("tegula: unknown command '%s'\n\n" % name)
        _usage(sys.stderr)
        return 2
    try:
        return run(argv[1:])
    except _rt.RuntimeLibraryNotFound as e:
        sys.stderr.write("tegula %s: %s\n" % (name, e))
        return 1


if __name__ == "__main__":
    sys.exit(main())
