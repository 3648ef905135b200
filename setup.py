"""The native core (kiothi_board/native/*.c), built by `pip install .` with the system's C
compiler and Python headers (Debian: gcc, python3-dev). It is optional: without a compiler
the install goes on and kiothi-board runs on the Python path (kiothi_board.native says so)."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "kiothi_board.native._core",
            sources=["kiothi_board/native/module.c"],  # it includes the other .c files
            depends=[
                "kiothi_board/native/core.h",
                "kiothi_board/native/sow.c",
                "kiothi_board/native/tree.c",
                "kiothi_board/native/tree.h",
                "kiothi_board/native/tree_py.c",
            ],
            extra_compile_args=[
                "-O3",
                "-std=c99",
                "-fvisibility=hidden",
                "-Wall",
                "-Wextra",
                "-Wno-unused-parameter",
            ],
            optional=True,
        )
    ]
)
