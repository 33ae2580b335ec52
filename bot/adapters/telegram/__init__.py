"""Telegram, through python-telegram-bot in manual lifecycle: one event loop with the rest."""
