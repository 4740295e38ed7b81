# lit configuration for Tegula's FileCheck tests.
import os
import lit.formats

config.name = "Tegula"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".py", ".test"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tegula_obj_root, "tests", "lit")

# Our tools first, then LLVM's FileCheck, not, count, split-file.
config.environment["PATH"] = os.pathsep.join(
    [config.tegula_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])
config.substitutions.append(("%python", config.python_executable))
# `tegula compile` uses the kernel cache; the tests compile for real (and
# leave nothing in ~/.cache) unless one names a folder (Tools/cache.test).
config.environment["TEGULA_CACHE_DIR"] = "none"
config.substitutions.append(("%tegula_src", config.tegula_src_root))

# The NVIDIA tests (Nvidia/): `tegula compile --target nvidia:...` finds
# ptxas as plugins/nvidia/NvidiaCodegen.h says; the tests that assemble what
# they emit REQUIRE the `ptxas` feature and are reported UNSUPPORTED (with
# this reason in `lit -v`) where it is missing.
import shutil
for _name in ("TEGULA_PTXAS", "CUDA_HOME", "CUDA_PATH"):
    if _name in os.environ:
        config.environment[_name] = os.environ[_name]
def _find_ptxas():
    chosen = os.environ.get("TEGULA_PTXAS")
    if chosen is not None:
        return chosen if chosen not in ("", "none") and os.access(chosen, os.X_OK) else None
    for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH")):
        if home and os.access(os.path.join(home, "bin", "ptxas"), os.X_OK):
            return os.path.join(home, "bin", "ptxas")
    found = shutil.which("ptxas")
    if found:
        return found
    return "/usr/local/cuda/bin/ptxas" if os.access("/usr/local/cuda/bin/ptxas", os.X_OK) else None
_ptxas = _find_ptxas()
if _ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", _ptxas))
else:
    lit_config.note("no ptxas found (TEGULA_PTXAS, CUDA_HOME, PATH, /usr/local/cuda): "
                    "the NVIDIA tests that assemble PTX are unsupported")

# The host plugin's one target, as `tegula targets` names it.
import platform
config.substitutions.append(("%host_target", "host:" + platform.machine()))
