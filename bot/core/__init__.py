"""Values only, which every layer above speaks: imports nothing else from bot, and never a
platform library."""
