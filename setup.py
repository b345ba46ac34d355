"""Build the Cython kernels; all metadata lives in pyproject.toml."""
import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

KERNELS = ["exp_losses", "linear_scan", "smo", "cs_ada_step", "histogram"]

extensions = [
    Extension(
        f"csrepro._kernels.{name}",
        [f"csrepro/_kernels/{name}.pyx"],
        include_dirs=[np.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=["-O3", "-fno-math-errno", "-fno-trapping-math"],
    )
    for name in KERNELS
]

setup(
    ext_modules=cythonize(
        extensions,
        language_level=3,
        compiler_directives={"boundscheck": False, "wraparound": False, "cdivision": True, "initializedcheck": False},
    )
)
