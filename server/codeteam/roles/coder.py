"""The coder: writes the function (following a plan, when there is one) and revises it from
the tester's report (self-collaboration, Dong et al., arXiv 2304.07590, section 3.2)."""

from __future__ import annotations

from codeteam.llm.client import ChatMessage
from codeteam.roles.code_extraction import CodeExtractionError, extract_function
from codeteam.roles.conversation import Conversation, Sampling
from codeteam.task import Task


async def ask_for_code(
    conversation: Conversation,
    task: Task,
    *,
    role: str,
    stage: str,
    prompt: str,
    retries: int,
    sampling: Sampling | None = None,
    **variables: object,
) -> str:
    """Ask ``role`` with prompt file ``prompt`` for the function and extract it; when the
    reply holds no usable code, show the model the problem and ask again, at most
    ``retries`` times; ``sampling``: this call's own temperature and seed. Raises
    :class:`CodeExtractionError` and what :meth:`Conversation.ask` raises."""
    history: list[ChatMessage] = []
    last: CodeExtractionError | None = None
    for attempt in range(retries + 1):
        reply = await conversation.ask(
            role, stage, prompt, history=history, sampling=sampling, task=task, **variables
        )
        try:
            # Off the event loop, in the editor's parse worker process where there is one: it
            # parses the whole module (a thread would hold the GIL, and the loop, meanwhile).
            return await conversation.offload(extract_function, reply, task)
        except CodeExtractionError as error:
            last = error
            history = [
                ChatMessage(role="assistant", content=reply),
                conversation.prompts.followup("reask_code", error=str(error), task=task),
            ]
            if attempt < retries:
                conversation.report(f"{role}: asked again for code")
    assert last is not None
    raise last


async def write_code(
    conversation: Conversation,
    task: Task,
    *,
    plan: list[str] | None = None,
    prompt: str = "coder",
    role: str = "coder",
    retries: int = 1,
    sampling: Sampling | None = None,
) -> str:
    """The function ``task.name`` at column 0, written by ``role`` from the stub (and ``plan``).
    ``sampling``: this call's own temperature and seed (a sampled candidate).

    Asks again, at most ``retries`` times, when the reply holds no usable code. Raises
    :class:`~codeteam.roles.code_extraction.CodeExtractionError` after that, and what
    :meth:`Conversation.ask` raises.
    """
    stage = f"{role}: writing code"
    if sampling is not None:
        stage = f"{role}: sampling code (temperature {sampling.temperature:g}, seed {sampling.seed})"
    conversation.report(stage)
    return await ask_for_code(
        conversation,
        task,
        role=role,
        stage=stage,
        prompt=prompt,
        retries=retries,
        sampling=sampling,
        plan=plan or [],
    )


async def revise_code(
    conversation: Conversation,
    task: Task,
    code: str,
    report: str,
    *,
    plan: list[str] | None = None,
    round_number: int = 2,
    retries: int = 1,
) -> str:
    """The coder's revision of ``code`` given the tester's ``report`` text (failures with
    input, expected, actual and traceback). Raises like :func:`write_code`."""
    stage = f"coder: revising (round {round_number})"
    conversation.report(stage)
    return await ask_for_code(
        conversation,
        task,
        role="coder",
        stage=stage,
        prompt="coder_revise",
        retries=retries,
        code=code,
        report=report,
        plan=plan or [],
    )
