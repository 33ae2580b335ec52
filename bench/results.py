"""Write one `## Title` section of bench/RESULTS.md and leave every other section as it is.

Each benchmark owns one section, so benchmarks can be rerun one at a time
without losing the figures of the others.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

RESULTS_FILE = Path(__file__).resolve().parent / "RESULTS.md"

HEADER = (
    "# Benchmark results\n"
    "\n"
    "Each section below was written by the command it shows; run that command from the repo"
    " root to regenerate the section.\n"
)

_FENCE = "```"


def _split(text: str) -> tuple[str, list[tuple[str, str]]]:
    """The text before the first `## ` heading, then (title, whole section text) pairs.

    A `## ` line inside a fenced code block is not a heading.
    """
    preamble: list[str] = []
    sections: list[tuple[str, list[str]]] = []
    in_fence = False
    for line in text.splitlines(keepends=True):
        if line.startswith(_FENCE):
            in_fence = not in_fence
        if not in_fence and line.startswith("## "):
            sections.append((line[3:].strip(), [line]))
        elif sections:
            sections[-1][1].append(line)
        else:
            preamble.append(line)
    return "".join(preamble), [(title, "".join(lines)) for title, lines in sections]


def _block(text: str) -> str:
    """A part of the file, ending in exactly one blank line so parts join cleanly."""
    return text.rstrip("\n") + "\n\n"


def write_section(title: str, body: str, path: Path = RESULTS_FILE) -> None:
    """Replace the `## {title}` section with `body`, or append it if there is none yet."""
    existing = path.read_text(encoding="utf-8") if path.exists() else HEADER
    preamble, sections = _split(existing)
    new_section = f"## {title}\n\n{body.strip()}\n"
    replaced = False
    parts = [_block(preamble) if preamble.strip() else _block(HEADER)]
    for name, text in sections:
        if name == title and not replaced:
            parts.append(_block(new_section))
            replaced = True
        elif name != title:  # a duplicate of our title (hand edit) is dropped, not kept
            parts.append(_block(text))
    if not replaced:
        parts.append(_block(new_section))
    content = "".join(parts).rstrip("\n") + "\n"
    # Write a sibling file and rename it over the old one: a crash mid-write
    # never leaves a half-written RESULTS.md behind.
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".results-", suffix=".md")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(content)
        os.chmod(temporary, 0o644)  # mkstemp makes it private; this is a shared report
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
