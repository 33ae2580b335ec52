"""Plain helper modules shared by the test packages: worlds, conversations, waiting."""
