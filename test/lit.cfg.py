# lit configuration for Tilus-MLIR: IR tests (Dialect/, Transforms/, ...) and
# the C unit tests (unit/*.test run the unit-test executables).
import os
import shutil
import subprocess

import lit.formats

config.name = "Tilus-MLIR"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in", "Inputs",
                   "kernels", "suite", "RuntimeSmokeTest.c", "kernels.cu",
                   "build-artifacts.sh", "check-layers.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tilus_obj_root, "test")

path = [config.tilus_tools_dir, config.tilus_run_dir, config.tilus_test_bin_dir,
        config.llvm_tools_dir]
config.environment["PATH"] = os.pathsep.join(path + [config.environment.get("PATH", "")])

# A sanitized build (-DTILUS_SANITIZE=ON) runs the same tests with every
# sanitizer report fatal; options from the environment come after ours, so
# they win. Suppressions cover uninstrumented LLVM/MLIR code only.
if getattr(config, "tilus_sanitize", False):
    config.name += " (asan)"
    config.available_features.add("asan")
    sanitizers = os.path.join(config.tilus_src_root, "test", "sanitizers")
    defaults = {
        "ASAN_OPTIONS": "detect_leaks=1:"
                        "detect_stack_use_after_return=1:strict_string_checks=1:"
                        "check_initialization_order=1",
        "LSAN_OPTIONS": "suppressions=" + os.path.join(sanitizers, "lsan.supp") +
                        ":print_suppressions=0",
        "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
    }
    for name, value in defaults.items():
        extra = os.environ.get(name)
        config.environment[name] = value + (":" + extra if extra else "")

config.substitutions.append(("%tilus_src_root", config.tilus_src_root))
config.substitutions.append(("%tilus_obj_root", config.tilus_obj_root))
# %tilus_python: a python3 with numpy (the first on PATH, else Debian's) that
# imports this checkout's package over the build's libTilus.so, for the DSL
# programs (test/gpu/generate.py writes the generated kernels). A sanitized
# libTilus.so cannot load into it: such tests are UNSUPPORTED: asan.
def _has_numpy(python):
    return subprocess.run([python, "-c", "import numpy"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0


tilus_python = next((p for p in (shutil.which("python3"), "/usr/bin/python3")
                     if p and os.path.isfile(p) and _has_numpy(p)), "python3")
config.substitutions.append(("%tilus_python", " ".join([
    "env", "TILUS_LIBRARY_DIR=" + os.path.join(config.tilus_obj_root, "lib", "Shared"),
    "PYTHONPATH=" + os.path.join(config.tilus_src_root, "python-bindings"),
    "PYTHONDONTWRITEBYTECODE=1", tilus_python])))
config.substitutions.append(("%irdl", os.path.join(config.tilus_src_root, "dialect", "tilus.irdl.mlir")))

# ptxas from the CUDA toolkit validates the PTX the compiler emits: the one
# on PATH, else $CUDA_HOME/bin's, else /usr/local/cuda/bin's.
ptxas = shutil.which("ptxas") or next(
    (p for p in (os.path.join(os.environ.get("CUDA_HOME", ""), "bin", "ptxas"),
                 "/usr/local/cuda/bin/ptxas")
     if os.path.isfile(p) and os.access(p, os.X_OK)), None)
if ptxas:
    config.available_features.add("ptxas")
    config.environment["PATH"] += os.pathsep + os.path.dirname(ptxas)

# GPU tests run only where a CUDA driver and a GPU are present; elsewhere
# they are UNSUPPORTED, which the test command reports as skipped. The
# sanitized build skips them too: the uninstrumented CUDA driver does not run
# under ASan's default shadow layout, and the normal build runs them.
if not getattr(config, "tilus_sanitize", False) and os.path.exists("/dev/nvidiactl") and any(
        os.path.exists(os.path.join(d, "libcuda.so.1"))
        for d in ["/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/local/nvidia/lib64"]):
    config.available_features.add("cuda-gpu")
# The mlir-opt plugin (lib/Registration): --load-pass-plugin=%tilus_plugin.
config.substitutions.append(("%tilus_plugin", os.path.join(config.tilus_obj_root, "lib", "Registration", "libTilusPlugin.so")))
