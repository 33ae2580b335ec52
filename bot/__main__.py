"""`python -m bot` does what the `steady` console script does."""

from bot.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
