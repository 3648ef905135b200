"""Hardware drivers behind small protocols, each with a fake that ships in the package."""
