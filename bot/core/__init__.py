"""The platform-neutral core: events in, replies out. Never imports a platform library."""
