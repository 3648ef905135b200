"""The cores a test runs on: the Python path always, the native core when it is built."""

from __future__ import annotations

import pytest

from kiothi_board import native

CORES = [
    "python",
    pytest.param(
        "native",
        marks=pytest.mark.skipif(not native.native_available(), reason=native.describe()),
    ),
]
