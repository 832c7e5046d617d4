"""The task a pipeline works on: one function stub in its module, with its public tests.

A :class:`Task` is plain data, built from a document (editor, CLI) or a benchmark record.
Lines are 0-based.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from codeteam.execution.outcomes import Program, PytestTarget, TestCase
from codeteam.project import Project
from codeteam.project_context import ProjectContext, project_context_for
from codeteam.pysource.docstrings import read_plan, strip_plan
from codeteam.pysource.functions import (
    FunctionInfo,
    collapse_stubs,
    dedent_function,
    function_text,
    indent_function,
    locate,
    replace_span,
)


class Task(BaseModel):
    """One function to plan, generate or review.

    ``stub`` is the function as written (column 0; decorators, header, docstring and whatever
    body it has); ``module_source`` the whole module text it lives in (LF line endings) and
    ``start_line``/``end_line`` its span there; ``module_name`` the importable name the module
    gets in the sandbox (tests import the function from it): for a file in a project its
    dotted name (``pkg.sub.mod``). ``project`` is where the module lives (None: a lone module,
    e.g. a benchmark stub, tested as a copied file). ``plan`` is the ``Plan:`` section
    already in the docstring, if any (the coder follows it). ``public_tests`` are the user's
    docstring examples and workspace tests. ``task_id`` names a benchmark task.
    ``pytest_target`` says where pytest runs the project's tests of the function (set when its
    public tests include pytest tests: ``kind == "pytest"``, ids are pytest node ids).
    ``project_context`` holds the project definitions every role's prompt shows
    (``prompts/project_context.jinja``); :meth:`from_info` makes one from the module text
    alone unless given one built with the project (:func:`codeteam.service.documents.task_for`).
    """

    name: str
    qualname: str
    signature: str
    stub: str
    docstring: str | None = None
    module_source: str
    module_name: str = "solution"
    start_line: int
    end_line: int
    indent: str = ""
    plan: list[str] | None = None
    public_tests: list[TestCase] = Field(default_factory=list)
    task_id: str | None = None
    pytest_target: PytestTarget | None = None
    project: Project | None = None
    project_context: ProjectContext | None = None

    @property
    def intent(self) -> str:
        """The docstring without its plan section: the user's statement of intent."""
        return strip_plan(self.docstring) if self.docstring else ""

    @property
    def is_method(self) -> bool:
        return "." in self.qualname

    @classmethod
    def from_source(
        cls,
        source: str,
        qualname: str,
        *,
        module_name: str = "solution",
        public_tests: list[TestCase] | None = None,
        task_id: str | None = None,
        project: Project | None = None,
    ) -> Task:
        """Build the task for function ``qualname`` in module text ``source``.

        Raises :class:`~codeteam.pysource.functions.FunctionNotFound`,
        :class:`~codeteam.pysource.functions.AmbiguousFunction` or
        :class:`~codeteam.pysource.functions.SourceError`.
        """
        text = source.replace("\r\n", "\n").replace("\r", "\n")
        info = locate(text, qualname)
        return cls.from_info(
            text, info, module_name=module_name, public_tests=public_tests, task_id=task_id,
            project=project,
        )  # fmt: skip

    @classmethod
    def from_info(
        cls,
        source: str,
        info: FunctionInfo,
        *,
        module_name: str = "solution",
        public_tests: list[TestCase] | None = None,
        task_id: str | None = None,
        project: Project | None = None,
        project_context: ProjectContext | None = None,
    ) -> Task:
        """Like :meth:`from_source` for an already located function (LF line endings).
        With a ``project`` that is not lone, ``module_name`` is the project's dotted name.
        Without ``project_context``, the context is built from ``source`` alone (its own
        definitions: no files are read; :func:`~codeteam.project_context.project_context_for`)."""
        if project is not None and not project.lone:
            module_name = project.module
        if project_context is None:
            project_context = project_context_for(source, info)
        return cls(
            name=info.name,
            qualname=info.qualname,
            signature=info.signature,
            stub=dedent_function(function_text(source, info)),
            docstring=info.docstring,
            module_source=source,
            module_name=module_name,
            start_line=info.start_line,
            end_line=info.end_line,
            indent=info.indent,
            plan=read_plan(info.docstring),
            public_tests=list(public_tests or []),
            task_id=task_id,
            project=project,
            project_context=project_context,
        )

    def program_with(self, code: str) -> Program:
        """The module with the function replaced by ``code`` (a function at column 0), and
        where it is judged (:class:`~codeteam.execution.outcomes.Program`)."""
        new_function = indent_function(code, self.indent)
        text = replace_span(self.module_source, self.start_line, self.end_line, new_function)
        return self.program_of(text, self.start_line, new_function.count("\n") or 1)

    def program_of(self, text: str, function_start: int, function_lines: int) -> Program:
        """A whole module ``text`` (a reference solution, the original file) judged as this
        task's program: the function starts at 0-based ``function_start`` there and has
        ``function_lines`` lines; the judge view is made from this task's module text."""
        return Program(
            text=text,
            function_start=function_start,
            function_lines=function_lines,
            original=self.module_source,
            qualname=self.qualname,
            original_start=self.start_line,
            module_name=self.module_name,
            project=self.project,
            pytest_target=self.pytest_target,
        )

    def context(self) -> str:
        """The module text around the function, for prompts: everything but the function
        itself, which the prompt shows separately, without the other stubs still to be
        written (:func:`~codeteam.pysource.functions.collapse_stubs`). Empty
        when the module is just the stub."""
        # Lines as ast counts them (a form feed or U+2028 does not end a line).
        lines = re.split(r"\r\n|\r|\n", self.module_source)
        # The function's place holds a marker while the stubs are collapsed, so that a class
        # whose only method this is still parses.
        marker = f"{self.indent}...  # codeteam: the function"
        rest = lines[: self.start_line] + [marker] + lines[self.end_line + 1 :]
        collapsed = collapse_stubs("\n".join(rest)).split("\n")
        return "\n".join(line for line in collapsed if line != marker).strip()
