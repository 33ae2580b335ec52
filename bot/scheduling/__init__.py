"""Schedule rules: when a local wall-clock time happens, in UTC."""
