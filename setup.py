"""Build the Cython kernels; all metadata lives in pyproject.toml.

A kernel with a Tempita template (``<name>.pyx.tp``) has its ``.pyx`` generated from it here.  A kernel's SIMD C
lives in ``csrepro/_kernels/include/<name>_simd.h`` (declared in ``_simd_<name>.pxd``; that folder is on every
kernel's include path, and a kernel is rebuilt when its header, or cpu_features.h that the headers share,
changes).  Every kernel compiles with -Wall -Wextra.
Cython's translation and the C compiler both run over every core (an install compiles six large C files).
"""
import os
from pathlib import Path

import numpy as np
from Cython import Tempita
from Cython.Build import cythonize
from setuptools import Extension, setup

KERNELS = ["exp_losses", "linear_scan", "smo", "cs_ada_step", "histogram", "vector_scan"]
KERNEL_DIR = Path(__file__).resolve().parent / "csrepro" / "_kernels"
INCLUDE = "csrepro/_kernels/include"  # relative: setuptools runs this file from the project root

for template in KERNEL_DIR.glob("*.pyx.tp"):
    pyx = template.with_suffix("")
    text = Tempita.Template(template.read_text(), name=template.name).substitute()
    if not pyx.exists() or pyx.read_text() != text:  # rewrite only on change: cythonize goes by mtime
        pyx.write_text(text)


def extension(name):
    """The Extension of kernel ``name``, its SIMD header (if it has one) and cpu_features.h as dependencies."""
    header = KERNEL_DIR / "include" / f"{name}_simd.h"
    return Extension(
        f"csrepro._kernels.{name}",
        [f"csrepro/_kernels/{name}.pyx"],
        include_dirs=[np.get_include(), INCLUDE],
        depends=[f"{INCLUDE}/{header.name}", f"{INCLUDE}/cpu_features.h"] if header.exists() else [],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=["-O3", "-fno-math-errno", "-fno-trapping-math", "-Wall", "-Wextra"],
    )


extensions = [extension(name) for name in KERNELS]
CORES = os.cpu_count() or 1

setup(
    options={"build_ext": {"parallel": CORES}},
    ext_modules=cythonize(
        extensions,
        nthreads=CORES,
        language_level=3,
        compiler_directives={"boundscheck": False, "wraparound": False, "cdivision": True, "initializedcheck": False},
    )
)
