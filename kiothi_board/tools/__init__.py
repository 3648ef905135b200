"""Programs built on the layers: LED blanking for the service, installer helpers, ..."""
