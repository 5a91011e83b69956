"""The compiled part of the build (everything else is declared in pyproject.toml): the live edge's kernel,
``controller/core/bets/_kernel.c``. It is optional: where it cannot be compiled (no C compiler or Python
headers) the package installs without it and computes the same exact values in pure Python, saying so once
(``controller/core/bets/kernel.py``)."""

from setuptools import Extension, setup

KERNEL = Extension(
    "controller.core.bets._kernel", ["controller/core/bets/_kernel.c"], optional=True,
    # After the interpreter's own -O3: its loop vectorisation of the 64-bit multiply-adds is about 1.7 times
    # slower than -O2 on x86-64 without AVX (benchmarks/edge_choices.py measures the kernel).
    extra_compile_args=["-O2"],
)

setup(ext_modules=[KERNEL])
