"""Programs built on the layers: benchmarks, match, tune, generators, doctor."""
