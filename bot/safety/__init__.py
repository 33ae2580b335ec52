"""Crisis detection and the replies that put safety first."""
