"""Discord, through discord.py on the shared event loop: DMs, slash commands and buttons."""
