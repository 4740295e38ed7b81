#!/usr/bin/env python3
"""Checks a library's ABI against a committed baseline with libabigail.

  abi_check.py dump --lib L --out X.xml [--headers-dir D]...
      Writes the ABI of L (built with -g) as abidw XML, restricted to the
      interfaces L exports and the types its public headers (D) declare.

  abi_check.py check --name NAME --lib L --baseline B.xml --changelog F
                     --label LABEL [--headers-dir D]... [--work-dir W]
      Dumps L and compares it with B using abidiff. Compatible changes pass;
      an incompatible change fails unless the major version (the number
      ending L's SONAME) was raised and F has a heading naming the new
      version (LABEL with {major} replaced, e.g. "plugin ABI {major}.0").

  abi_check.py selftest --cc CC --work-dir W
      Shows the policy on small synthetic libraries: compatible changes pass,
      incompatible ones fail, a major bump passes only with a changelog entry.

The policy (docs/abi-changelog.md says the same for people):
  compatible    a field appended to a struct that begins with struct_size,
                starting at or past the old struct's size (not in its tail
                padding); a new enumerator; a new exported function;
                a new entry at the end of a function table (the same rule)
  incompatible  everything else abidiff reports: a removed, reordered,
                retyped or renamed field; a changed or removed enumerator;
                a removed function or one whose signature changed; any change
                to a struct without struct_size (tg_kernel_arg,
                tg_compile_option: arrays with a fixed element layout); and
                whatever this script does not recognize
abidiff runs with --leaf-changes-only, so each changed type is reported once,
where it changed, and the decision is made per change.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

ABIDW_FLAGS = [
    "--exported-interfaces-only", "--drop-private-types", "--no-corpus-path",
    "--no-comp-dir-path", "--short-locs", "--no-elf-needed",
    "--type-id-style", "hash",
]


def run(cmd, **kwargs):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, **kwargs)


def dump(lib, out, headers_dirs):
    cmd = ["abidw"] + ABIDW_FLAGS
    for d in headers_dirs:
        cmd += ["--headers-dir", d]
    cmd += ["--out-file", out, lib]
    result = run(cmd)
    if result.returncode != 0:
        raise SystemExit(f"abidw failed on {lib}:\n{result.stdout}")


def soname_major(xml_path):
    root = ET.parse(xml_path).getroot()
    soname = root.get("soname", "")
    m = re.search(r"\.so\.(\d+)$", soname)
    if not m:
        raise SystemExit(f"{xml_path}: SONAME '{soname}' does not end in "
                         ".so.<major>; the major version cannot be read")
    return int(m.group(1)), soname


def extensible_structs(xml_path):
    """Names of the structs whose first field is struct_size."""
    names = set()
    for decl in ET.parse(xml_path).getroot().iter("class-decl"):
        if decl.get("is-declaration-only") == "yes":
            continue
        member = decl.find("data-member")
        if member is None:
            continue
        var = member.find("var-decl")
        if var is not None and var.get("name") == "struct_size":
            names.add(decl.get("name"))
    return names


SUMMARY = re.compile(r"^(Leaf changes summary|Changed leaf types summary|"
                     r"Removed/Changed/Added (functions|variables) summary|"
                     r"(Functions|Variables) changes summary)")


def classify(report, extensible):
    """Splits abidiff's leaf report into (incompatible, compatible) lists."""
    bad, good = [], []
    block = None  # ('struct', name, old_size) | ('enum', name) | ('added',) | ('bad',)
    mode = None
    for raw in report.splitlines():
        line = raw.rstrip()
        if not line.strip() or SUMMARY.match(line):
            continue
        text = line.strip()
        if not line.startswith(" "):
            mode = None
            m = re.match(r"^'(?:struct|class|union) (.+)' changed:$", text)
            if m:
                block = ["struct", m.group(1), None]
                continue
            m = re.match(r"^'enum (.+)' changed:$", text)
            if m:
                block = ["enum", m.group(1)]
                continue
            if re.match(r"^\d+ Added (functions?|variables?):$", text):
                block = ["added"]
                continue
            block = ["bad"]
            bad.append(text)
            continue
        if block is None or block[0] == "bad":
            bad.append(text)
            continue
        if block[0] == "added":
            good.append("added " + text)
            continue
        if block[0] == "struct":
            name = block[1]
            m = re.match(r"^type size changed from (\d+) to (\d+) \(in bits\)$", text)
            if m:
                old, new = int(m.group(1)), int(m.group(2))
                if new < old:
                    bad.append(f"struct {name} shrank from {old} to {new} bits")
                block[2] = old
                continue
            if text == "type size hasn't changed":
                continue
            m = re.match(r"^\d+ data member insertions?:$", text)
            if m:
                mode = "insert"
                continue
            m = re.match(r"^'(.+)', at offset (\d+) \(in bits\)", text)
            if m and mode == "insert":
                field, offset = m.group(1), int(m.group(2))
                if name not in extensible:
                    bad.append(f"struct {name} has no struct_size (fixed "
                               f"layout), but gained '{field}'")
                elif block[2] is None:
                    bad.append(f"struct {name} gained '{field}' inside its old "
                               f"size (in padding or in the middle)")
                elif offset < block[2]:
                    bad.append(f"struct {name} gained '{field}' at bit "
                               f"{offset}, inside its old size of {block[2]} "
                               f"bits")
                else:
                    good.append(f"struct {name} gained '{field}' at its end")
                continue
            mode = None
            bad.append(f"struct {name}: {text}")
            continue
        if block[0] == "enum":
            name = block[1]
            if text == "type size hasn't changed":
                continue
            if re.match(r"^\d+ enumerator insertions?:$", text):
                mode = "insert"
                continue
            if mode == "insert" and re.match(r"^'.+' value '.+'$", text):
                good.append(f"enum {name} gained {text}")
                continue
            mode = None
            bad.append(f"enum {name}: {text}")
            continue
    return bad, good


def changelog_mentions(changelog, label):
    """True when a Markdown heading of |changelog| contains |label|."""
    try:
        with open(changelog, encoding="utf-8") as f:
            return any(line.lstrip().startswith("#") and
                       label.lower() in line.lower() for line in f)
    except OSError:
        return False


def compare(name, baseline, current, changelog, label):
    """Returns (ok, message)."""
    old_major, old_soname = soname_major(baseline)
    new_major, new_soname = soname_major(current)
    result = run(["abidiff", "--leaf-changes-only", "--harmless",
                  "--no-show-locs", baseline, current])
    if result.returncode & 3:
        return False, f"abidiff failed (status {result.returncode}):\n{result.stdout}"
    bad, good = classify(result.stdout, extensible_structs(baseline))
    if new_major != old_major:
        bad_soname = [b for b in bad if "SONAME" in b or "soname" in b]
        bad = [b for b in bad if b not in bad_soname]
    new_label = label.format(major=new_major)
    lines = []
    if new_major < old_major:
        return False, (f"{name}: the major version went down from {old_major} "
                       f"to {new_major} ({old_soname} -> {new_soname})")
    if new_major > old_major:
        if not changelog_mentions(changelog, new_label):
            return False, (
                f"{name}: major version raised to {new_major} "
                f"({new_soname}), but {changelog} has no heading naming "
                f"'{new_label}' that says why.")
        lines.append(f"{name}: major version {old_major} -> {new_major}, "
                     f"explained in {changelog}; incompatible changes are "
                     "allowed. Record the new baseline: ninja update-abi-baseline")
        lines += ["  " + b for b in bad]
        return True, "\n".join(lines)
    if bad:
        lines.append(
            f"{name}: incompatible ABI change within major version "
            f"{old_major} ({new_soname}):")
        lines += ["  " + b for b in bad]
        lines.append(
            "Either keep the change compatible (append fields to structs "
            "that begin with struct_size, past their old size; add "
            "enumerators, functions, table entries at the end), or raise the "
            f"major version and add a '{label.format(major=old_major + 1)}' "
            f"heading to {changelog} saying why, then run "
            "`ninja update-abi-baseline`.")
        lines.append("abidiff's report:\n" + result.stdout)
        return False, "\n".join(lines)
    if good:
        lines.append(f"{name}: compatible changes since the baseline (run "
                     "`ninja update-abi-baseline` to record them):")
        lines += ["  " + g for g in good]
    else:
        lines.append(f"{name}: no ABI change since the baseline ({new_soname})")
    return True, "\n".join(lines)


#===-- selftest ----------------------------------------------------------------===#

SYNTH_HEADER = """\
#include <stddef.h>
#include <stdint.h>
typedef enum kind { KIND_A = 1, KIND_B = 2 KIND_MORE } kind;
typedef struct args {
  size_t struct_size;
  ARGS_FIELDS
} args;
typedef struct item { int32_t x; int32_t y; ITEM_MORE } item;
typedef struct tail { size_t struct_size; uint32_t a; TAIL_MORE } tail;
typedef int entry_fn(args *);
typedef struct table {
  size_t struct_size;
  entry_fn *first;
  entry_fn *second;
  TABLE_MORE
} table;
#define API __attribute__((visibility("default")))
API const table *get_table(uint32_t major);
API void probe(kind k, args *a, const item *items, tail *t);
EXTRA_DECL
"""

SYNTH_SOURCE = """\
#include "synth.h"
const table *get_table(uint32_t major) { (void)major; return 0; }
void probe(kind k, args *a, const item *items, tail *t) {
  (void)k; (void)a; (void)items; (void)t;
}
EXTRA_DEF
"""

BASE = {"ARGS_FIELDS": "int32_t a; uint32_t b;", "KIND_MORE": "",
        "ITEM_MORE": "", "TAIL_MORE": "", "TABLE_MORE": "",
        "EXTRA_DECL": "", "EXTRA_DEF": ""}

# (case, substitutions, major, changelog heading or None, expected to pass)
CASES = [
    ("unchanged", {}, 1, None, True),
    ("field appended to a struct_size struct", {"ARGS_FIELDS": "int32_t a; uint32_t b; uint64_t c;"}, 1, None, True),
    ("entry appended to the function table", {"TABLE_MORE": "entry_fn *third;"}, 1, None, True),
    ("enumerator added", {"KIND_MORE": ", KIND_C = 3"}, 1, None, True),
    ("function added", {"EXTRA_DECL": "API int added(void);", "EXTRA_DEF": "int added(void) { return 1; }"}, 1, None, True),
    ("extension added (type, struct, probe function)",
     {"KIND_MORE": ", KIND_EXTENSION = 0x10",
      "EXTRA_DECL": "typedef struct extension { size_t struct_size; kind type; const void *next; int32_t value; } extension;\nAPI void probe_extension(const extension *e);",
      "EXTRA_DEF": "void probe_extension(const extension *e) { (void)e; }"}, 1, None, True),
    ("field removed", {"ARGS_FIELDS": "uint32_t b;"}, 1, None, False),
    ("fields reordered", {"ARGS_FIELDS": "uint32_t b; int32_t a;"}, 1, None, False),
    ("field retyped", {"ARGS_FIELDS": "float a; uint32_t b;"}, 1, None, False),
    ("field appended into tail padding", {"TAIL_MORE": "uint32_t b;"}, 1, None, False),
    ("field appended to a fixed-layout struct", {"ITEM_MORE": "int32_t z;"}, 1, None, False),
    ("enumerator value changed", {"KIND_MORE": "+ 1"}, 1, None, False),
    ("function removed", {"EXTRA_DECL": "", "EXTRA_DEF": "", "__drop_probe__": True}, 1, None, False),
    ("field removed, major raised, changelog says why", {"ARGS_FIELDS": "uint32_t b;"}, 2, "## synth 2.0: removed args.a", True),
    ("field removed, major raised, changelog silent", {"ARGS_FIELDS": "uint32_t b;"}, 2, "## synth 1.1: nothing", False),
]


def build_synth(cc, workdir, name, subs, major):
    d = os.path.join(workdir, name)
    os.makedirs(d, exist_ok=True)
    values = dict(BASE)
    values.update({k: v for k, v in subs.items() if not k.startswith("__")})
    header, source = SYNTH_HEADER, SYNTH_SOURCE
    if subs.get("__drop_probe__"):
        header = header.replace("API void probe(kind k, args *a, const item *items, tail *t);\n", "")
        source = source[:source.index("void probe")] + "EXTRA_DEF\n"
    for key, value in values.items():
        header = header.replace(key, value)
        source = source.replace(key, value)
    with open(os.path.join(d, "synth.h"), "w") as f:
        f.write(header)
    with open(os.path.join(d, "synth.c"), "w") as f:
        f.write(source)
    lib = os.path.join(d, f"libsynth.so.{major}")
    result = run([cc, "-g", "-shared", "-fPIC", "-fvisibility=hidden",
                  f"-Wl,-soname,libsynth.so.{major}", "-o", lib,
                  os.path.join(d, "synth.c")])
    if result.returncode != 0:
        raise SystemExit(f"cannot compile the '{name}' library:\n{result.stdout}")
    xml = os.path.join(d, "abi.xml")
    dump(lib, xml, [d])
    return xml


def selftest(cc, workdir):
    baseline = build_synth(cc, workdir, "baseline", {}, 1)
    failures = 0
    for index, (case, subs, major, heading, expect) in enumerate(CASES):
        current = build_synth(cc, workdir, f"case{index}", subs, major)
        changelog = os.path.join(workdir, f"case{index}-changelog.md")
        with open(changelog, "w") as f:
            f.write("# synth changelog\n\n" + (heading + "\n" if heading else ""))
        ok, message = compare("synth", baseline, current, changelog,
                              "synth {major}.0")
        verdict = "passes" if ok else "fails"
        status = "ok  " if ok == expect else "FAIL"
        if ok != expect:
            failures += 1
        print(f"{status} {case}: {verdict} (expected to "
              f"{'pass' if expect else 'fail'})")
        if ok != expect:
            print("     " + message.replace("\n", "\n     "))
    if failures:
        print(f"{failures} of {len(CASES)} policy cases gave the wrong verdict")
        return 1
    print(f"all {len(CASES)} policy cases gave the expected verdict")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("dump")
    p.add_argument("--lib", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--headers-dir", action="append", default=[])
    p = sub.add_parser("check")
    p.add_argument("--name", required=True)
    p.add_argument("--lib", required=True)
    p.add_argument("--baseline", required=True)
    p.add_argument("--changelog", required=True)
    p.add_argument("--label", required=True)
    p.add_argument("--headers-dir", action="append", default=[])
    p.add_argument("--work-dir")
    p = sub.add_parser("selftest")
    p.add_argument("--cc", required=True)
    p.add_argument("--work-dir")
    args = parser.parse_args()

    for tool in ("abidw", "abidiff"):
        if not shutil.which(tool):
            raise SystemExit(f"{tool} not found: install abigail-tools")
    if args.command == "dump":
        dump(args.lib, args.out, args.headers_dir)
        return 0
    with tempfile.TemporaryDirectory(prefix="tegula-abi-") as tmp:
        workdir = args.work_dir or tmp
        os.makedirs(workdir, exist_ok=True)
        if args.command == "selftest":
            return selftest(args.cc, workdir)
        if not os.path.exists(args.baseline):
            raise SystemExit(f"no baseline {args.baseline}: run "
                             "`ninja update-abi-baseline` and commit it")
        current = os.path.join(workdir, os.path.basename(args.baseline))
        dump(args.lib, current, args.headers_dir)
        ok, message = compare(args.name, args.baseline, current,
                              args.changelog, args.label)
        print(message)
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
