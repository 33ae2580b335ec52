"""What an operator runs beside the bot: `steady doctor`, `backup`, `restore`, `migrate`."""
