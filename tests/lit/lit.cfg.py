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
config.substitutions.append(("%tegula_src", config.tegula_src_root))
