"""The links between the repository's markdown files (README.md, docs/): each names a file that
exists and a heading anchor that GitHub makes for one of its headings
(``scripts/check_links.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import check_links


@pytest.mark.parametrize(("heading", "anchor"), [
    ("Configure a model", "configure-a-model"),
    (("Why the sandboxes' niceness did not help: each sandbox is a scheduling group "
      "(`sandbox_niceness`)"),
     "why-the-sandboxes-niceness-did-not-help-each-sandbox-is-a-scheduling-group-sandbox_niceness"),
    ("Off the loop: the sandbox's start, stdin, the coder's extraction (branch `hotpath`)",
     "off-the-loop-the-sandboxs-start-stdin-the-coders-extraction-branch-hotpath"),
    ("Measured (r20): after the [one judge](x.md), at `1500e00`", "measured-r20-after-the-one-judge-at-1500e00"),
])  # fmt: skip
def test_github_heading_anchors(heading, anchor):
    assert check_links.slug(heading) == anchor


def test_repeated_headings_and_fenced_code(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Runs\n\n## Runs\n\n```\n# not a heading\n```\n"
                    "[a](#runs-1) [b](#not-a-heading) [c](page.md#runs) [d](missing.md)\n")
    assert check_links.anchors(page) == {"runs", "runs-1"}
    assert [target for _, target in check_links.links(page)] == [
        "#runs-1", "#not-a-heading", "page.md#runs", "missing.md"]
    assert [line.split(": ", 2)[2] for line in check_links.broken(page)] == [
        "no heading #not-a-heading in " + str(page), "no file missing.md"]


def test_every_markdown_link_of_the_repository_resolves():
    problems = [line for path in check_links.markdown_files() for line in check_links.broken(path)]
    assert problems == []
