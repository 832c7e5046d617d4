"""Check the links between this repository's markdown files: every relative link names a file
that exists and every ``#anchor`` a heading (or ``<a id/name>``) of its file, with GitHub's
rules for heading anchors. Prints one line per broken link; exit 1 if any.

    python scripts/check_links.py [FILE.md ...]   # default: every .md of the repository
"""

from __future__ import annotations

import re
import sys
import unicodedata
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LINK = re.compile(r"(?<!!)\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+[^>]*(?:id|name)\s*=\s*[\"']([^\"']+)[\"']", re.IGNORECASE)
FENCE = re.compile(r"^ {0,3}(```|~~~)")


def _plain(text: str) -> str:
    """A heading's text as GitHub renders it before making its anchor: links keep their text,
    inline code its content, emphasis markers and HTML tags go."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"<[^>]+>", "", text)
    return text.replace("`", "")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading (github-slugger): lower case; every character that is
    not a letter, a digit, a mark, ``_``, ``-`` or a space dropped; spaces become ``-``."""
    kept = []
    for char in _plain(heading).lower():
        category = unicodedata.category(char)
        if char in "-_ " or category[0] in "LNM":
            kept.append(char)
    return "".join(kept).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """The anchors of a markdown file: its headings' (``-1``, ``-2`` for repeats) and its
    HTML ones; fenced code is skipped."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        found.update(HTML_ANCHOR.findall(line))
        match = HEADING.match(line)
        if match:
            base = slug(match.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(path: Path) -> list[tuple[int, str]]:
    """(line number, target) of each inline link outside fenced code."""
    result = []
    fenced = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            result += [(number, target) for target in LINK.findall(line)]
    return result


def _shown(path: Path) -> str:
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)


def broken(path: Path) -> list[str]:
    """One line per broken relative link or anchor of ``path``."""
    problems = []
    for number, target in links(path):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):
            continue  # https:, mailto:, ...
        file_part, _, anchor = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        where = f"{_shown(path)}:{number}: {target}"
        if not linked.exists():
            problems.append(f"{where}: no file {file_part}")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            problems.append(f"{where}: no heading #{anchor} in {_shown(linked)}")
    return problems


def markdown_files() -> list[Path]:
    """The repository's markdown files (not in hidden folders or ``node_modules``)."""
    return sorted(path for path in REPO.rglob("*.md")
                  if not any(part.startswith(".") or part == "node_modules"
                             for part in path.relative_to(REPO).parts[:-1]))


def main(argv: list[str]) -> int:
    files = [Path(a).resolve() for a in argv] or markdown_files()
    problems = [line for path in files for line in broken(path)]
    print("\n".join(problems) if problems else f"{len(files)} files: no broken link")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
