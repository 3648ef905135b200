"""Tools: benchmarks, soak runs and helpers run from `kiothi-board` (not the product)."""
