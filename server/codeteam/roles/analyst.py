"""The analyst (and the self-planning planner): a plan of numbered steps from the intent.

Sources: self-collaboration (Dong et al., arXiv 2304.07590, section 3.2: the analyst decomposes
the requirement and writes a high-level plan) and self-planning (Jiang et al., arXiv
2303.06689, section 3.1: a few-shot prompt turns the intent into numbered steps).
"""

from __future__ import annotations

import re

from codeteam.llm.client import ChatMessage
from codeteam.roles.conversation import Conversation
from codeteam.task import Task

MAX_STEPS = 12
_NUMBERED = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s+(.+?)\s*$")
_WORD = re.compile(r"[A-Za-z]{2,}")
_CODE_LIKE = re.compile(r"^\s*(def |class |return |import |from |```|>>>)")


class PlanError(ValueError):
    """The reply holds no usable plan; ``reply`` is the text."""

    def __init__(self, message: str, reply: str = ""):
        super().__init__(message)
        self.reply = reply


def parse_plan(text: str, *, leading_number: bool = False) -> list[str]:
    """The steps of a numbered (or bulleted) list in ``text``, without their numbers.

    ``leading_number``: the prompt ended with ``1.`` so the reply's first line is step 1's text
    without its number. Stops at the first code-like line after some steps; ignores prose
    before the list; joins indented continuation lines. Raises :class:`PlanError` when no step
    is found. At most ``MAX_STEPS`` steps are kept.
    """
    lines = text.replace("\r\n", "\n").split("\n")
    steps: list[str] = []
    if leading_number and lines and lines[0].strip() and not _NUMBERED.match(lines[0]):
        first = lines[0].strip()
        if not _CODE_LIKE.match(first):
            steps.append(first)
        lines = lines[1:]
    for line in lines:
        if _CODE_LIKE.match(line):
            if steps:
                break
            continue
        match = _NUMBERED.match(line)
        if match:
            step = match.group(1).strip()
            if step.lower().startswith("plan"):
                continue
            steps.append(step)
        elif steps and line.startswith((" ", "\t")) and line.strip():
            steps[-1] = f"{steps[-1]} {line.strip()}"
        elif steps and not line.strip():
            continue
        elif steps and line.strip():
            # Prose after the list ends it.
            break
    # Drop duplicates that weak models produce by looping.
    unique = list(dict.fromkeys(s for s in steps if len(s) > 1 and _WORD.search(s)))
    if not unique:
        raise PlanError("the reply holds no numbered steps", text)
    return unique[:MAX_STEPS]


async def write_plan(
    conversation: Conversation,
    task: Task,
    *,
    role: str = "analyst",
    prompt: str = "analyst",
    retries: int = 1,
) -> list[str]:
    """Ask ``role`` (prompt file ``prompt``: "analyst" or "planner") for a plan of ``task``.

    Returns the steps; on a reply with no steps, asks again up to ``retries`` times. Raises
    :class:`PlanError` after that, and what :meth:`Conversation.ask` raises.
    """
    stage = f"{role}: planning"
    conversation.report(stage)
    history: list[ChatMessage] = []
    reply = ""
    for attempt in range(retries + 1):
        reply = await conversation.ask(role, stage, prompt, history=history, task=task)
        try:
            return parse_plan(reply)
        except PlanError:
            history = [
                ChatMessage(role="assistant", content=reply),
                conversation.prompts.followup("reask_plan"),
            ]
            if attempt < retries:
                conversation.report(f"{role}: planning again")
    raise PlanError(f"the {role} wrote no usable plan", reply)
