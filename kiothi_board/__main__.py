"""`python -m kiothi_board` runs the `kiothi-board` command."""

from __future__ import annotations

import sys

from kiothi_board.cli import main

sys.exit(main())
