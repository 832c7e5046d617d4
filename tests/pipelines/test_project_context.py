"""Project context (issue 16): small multi-module projects in tmp dirs; every assertion is on
the request the scripted model receives (and the run's transcript)."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from pipeline_support import DIRECT, TESTER

from codeteam.llm.provider import client_for
from codeteam.pipelines.registry import run_pipeline
from codeteam.service.documents import task_for
from codeteam.settings import load_settings


def write(root: Path, files: dict[str, str]) -> None:
    (root / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))


@pytest.fixture
async def generate(scripted, tmp_path):
    """``await generate(files, "pkg/mod.py", "Class.method", reply=..., pipeline=...)``:
    runs the pipeline on the function in that file; returns (result, the user messages the
    model received, in order)."""
    clients = []

    async def go(files, module, qualname, *, reply, pipeline="direct", match=DIRECT, **over):
        write(tmp_path, files)
        settings, problems = load_settings(
            {"base_url": scripted.base_url, "max_retries": 0, "timeout_s": 5, **over}, env=False
        )
        assert problems == []
        path = tmp_path / module
        task = task_for(path.read_text(), qualname, path=path,
                        context_tokens=settings.context_tokens)
        scripted.reply(match, reply)
        client = await client_for(settings)
        clients.append(client)
        result = await run_pipeline(pipeline, task, settings=settings, client=client)
        users = [body["messages"][1]["content"] for body in scripted.requests]
        return result, users

    yield go
    for client in clients:
        await client.close()


def code(text: str) -> str:
    return "```python\n" + textwrap.dedent(text).strip() + "\n```"


SIBLING = {
    "pkg/__init__.py": "",
    "pkg/text.py": '''
        import re


        def slugify(title: str, sep: str = "-") -> str:
            """Lower-case words of title joined by sep."""
            return sep.join(re.findall(r"[a-z0-9]+", title.lower()))


        def unrelated_helper(x):
            """Not imported by urls."""
            return x
    ''',
    "pkg/urls.py": '''
        from .text import slugify

        BASE = "/posts/"


        def post_url(title: str) -> str:
            """The URL path of the post with this title, under BASE."""
    ''',
}


async def test_a_helper_from_a_sibling_module_via_a_relative_import(generate):
    result, [prompt] = await generate(
        SIBLING, "pkg/urls.py", "post_url",
        reply=code('def post_url(title: str) -> str:\n    return BASE + slugify(title)'),
    )
    assert result.status == "untested", result.notes
    assert "# pkg/text.py\n" in prompt
    assert "def slugify(title: str, sep: str='-') -> str:" in prompt
    assert "Lower-case words of title joined by sep." in prompt
    assert "BASE = '/posts/'" in prompt  # the module's own constant
    assert "unrelated_helper" not in prompt  # urls does not import it
    # The target's own text is not repeated in the context block.
    assert prompt.count("The URL path of the post") == 1
    event = next(e for e in result.transcript if e.kind == "event" and e.role == "context")
    assert "sent slugify from pkg/text.py:4: imported by the module (`slugify`)" in event.reply
    assert "sent BASE from pkg/urls.py:3: named in the docstring (`BASE`)" in event.reply


CART = {
    "shop/__init__.py": "",
    "shop/models.py": '''
        from dataclasses import dataclass


        @dataclass
        class Item:
            """One product in a cart."""

            name: str
            price: float
            quantity: int = 1
    ''',
    "shop/cart.py": '''
        from shop.models import Item


        class Cart:
            """Items a customer is about to buy."""

            def __init__(self) -> None:
                self.items: list[Item] = []

            def add(self, item: Item) -> None:
                """Put item in the cart."""
                self.items.append(item)

            def total(self) -> float:
                """Sum of price times quantity over the items."""
                return sum(i.price * i.quantity for i in self.items)

            def discounted(self, rate: float) -> float:
                """self.total() less rate (0.1 is 10% off), rounded to cents."""

            def _audit(self):
                return len(self.items)
    ''',
}


async def test_a_method_sees_its_class_and_a_dataclass_from_another_module(generate):
    result, [prompt] = await generate(
        CART, "shop/cart.py", "Cart.discounted",
        reply=code("def discounted(self, rate: float) -> float:\n"
                   "    return round(self.total() * (1 - rate), 2)"),
    )
    assert result.status == "untested", result.notes
    own, other = prompt.index("# shop/cart.py"), prompt.index("# shop/models.py")
    assert own < other  # nearest first: its own class and module, then the imported module
    assert "class Cart:" in prompt and "def add(self, item: Item) -> None:" in prompt
    assert "def total(self) -> float:\n        \"\"\"Sum of price times quantity" in prompt
    # Named by the target, short: its body too.
    assert "        return sum(i.price * i.quantity for i in self.items)" in prompt
    assert "def _audit(self): ..." in prompt  # its own class: private methods too
    assert "    # instance attributes:\n    #   self.items: list[Item]  (__init__)\n" in prompt
    assert "@dataclass\nclass Item:" in prompt and "price: float" in prompt
    assert "quantity: int = 1" in prompt
    assert prompt.count("def discounted") == 1  # only the stub itself


ANNOTATED = {
    "app/__init__.py": "",
    "app/config.py": '''
        class Config:
            """Settings read from a file."""

            path: str
            retries: int = 3

            def get(self, key: str, default: object = None) -> object:
                """The value of key, or default."""
                return getattr(self, key, default)


        class Report:
            """What a check found."""

            def __init__(self, lines: list[str]):
                self.lines = lines
    ''',
    "app/check.py": '''
        from app.config import Config, Report


        def check(cfg: Config) -> Report:
            """Check the settings."""
    ''',
}


async def test_a_function_annotated_with_project_types(generate):
    result, [prompt] = await generate(
        ANNOTATED, "app/check.py", "check",
        reply=code("def check(cfg: Config) -> Report:\n    return Report([cfg.path])"),
    )
    assert "class Config:" in prompt and "retries: int = 3" in prompt
    assert "def get(self, key: str, default: object=None) -> object: ..." in prompt
    assert "class Report:" in prompt and "def __init__(self, lines: list[str]): ..." in prompt
    event = next(e for e in result.transcript if e.role == "context").reply
    assert "sent Config from app/config.py:1: used in the signature (`Config`)" in event
    assert "sent Report from app/config.py:12: used in the signature (`Report`)" in event


SHADOWED = {
    "lib/__init__.py": "",
    "lib/fmt.py": '''
        def style(value) -> str:
            """The module-level style: brackets around value."""
            return f"[{value}]"
    ''',
    "lib/table.py": '''
        from .fmt import style

        WIDTH = 20


        def pad(text: str) -> str:
            """text padded to WIDTH."""
            return text.ljust(WIDTH)


        def render(rows, style):
            """Each row formatted with the given style function, padded, one per line."""
            return "\\n".join(style(row) for row in rows)
    ''',
}


async def test_a_name_shadowed_locally_is_not_pulled_in(generate):
    # A revision ("Fix with team"): the body calls style(), but style is the parameter.
    result, [prompt] = await generate(
        SHADOWED, "lib/table.py", "render",
        reply=code("def render(rows, style):\n"
                   "    return '\\n'.join(pad(style(row)) for row in rows)"),
    )
    assert "def pad(text: str) -> str:" in prompt  # the module's other function is there
    assert "brackets around value" not in prompt and "# lib/fmt.py" not in prompt
    event = next(e for e in result.transcript if e.role == "context").reply
    assert "style" not in event.replace("the given style", "")


BUDGET = {
    "big/__init__.py": "",
    "big/far.py": "\n\n".join(
        f'def far_{i}(value: int, other: int = {i}) -> int:\n'
        f'    """Far helper number {i}, with a docstring that takes some room."""\n'
        f'    return value + other\n'
        for i in range(12)
    ),
    "big/near.py": '''
        from .far import far_0, far_1, far_2, far_3, far_4, far_5, far_6, far_7, far_8
        from .far import far_9, far_10, far_11


        def near_helper(text: str) -> str:
            """The helper next door."""
            return text.strip()


        def target(text: str) -> str:
            """Clean text with near_helper, then far_3."""
    ''',
}


async def test_a_budget_too_small_keeps_the_nearest_and_names_the_rest(generate):
    result, [prompt] = await generate(
        BUDGET, "big/near.py", "target", context_tokens=120,
        reply=code("def target(text: str) -> str:\n    return near_helper(text)"),
    )
    block = prompt.split("Complete this function:")[0]
    assert "def near_helper(text: str) -> str:" in block  # nearest: its own module
    assert "def far_3(" in block  # named in the docstring: before the others
    assert "def far_11(" not in block
    assert "Not shown, for space: " in block and "far_11" in block.split("Not shown")[1]
    from codeteam.project_context import estimate_tokens
    assert estimate_tokens(block) <= 120 + 40  # the budget, plus the block's own words
    event = next(e for e in result.transcript if e.role == "context").reply
    assert "- left out for the budget: far_11 from big/far.py: imported by the module" in event


BROKEN = {
    "mix/__init__.py": "",
    "mix/broken.py": "def half_typed(:\n    return\n",
    "mix/partly.py": '''
        def fine(x: int) -> int:
            """This one parses."""
            return x


        def oops(:
            pass
    ''',
    "mix/main.py": '''
        from .partly import fine


        def use(x: int) -> int:
            """fine(x) plus one."""
    ''',
}


async def test_a_syntax_error_elsewhere_does_not_stop_the_context(generate):
    result, [prompt] = await generate(
        BROKEN, "mix/main.py", "use",
        reply=code("def use(x: int) -> int:\n    return fine(x) + 1"),
    )
    assert result.status == "untested", result.notes
    assert "def fine(x: int) -> int:" in prompt and "# mix/partly.py" in prompt
    assert "half_typed" not in prompt
    event = next(e for e in result.transcript if e.role == "context").reply
    assert "- not read: mix/partly.py: lines 6-7 do not parse and were skipped" in event


@pytest.mark.sandbox
async def test_coder_and_tester_of_team_see_the_same_block(generate, scripted):
    # team's first draft is the direct prompt (the coder role); the tester writes AI tests.
    # The analyst's prompt includes the same block file (tests/unit/test_prompts.py).
    scripted.reply(TESTER, "```python\nassert post_url('A b') == '/posts/a-b'\n```")
    result, prompts = await generate(
        SIBLING, "pkg/urls.py", "post_url", pipeline="team", match=DIRECT,
        reply=code('def post_url(title: str) -> str:\n    return BASE + slugify(title)'),
    )
    systems = [body["messages"][0]["content"] for body in scripted.requests]
    roles = {"tester": TESTER, "coder": DIRECT}
    blocks = {}
    for role, pattern in roles.items():
        prompt = next(p for s, p in zip(systems, prompts) if re.search(pattern, s))
        blocks[role] = prompt[prompt.index("Definitions from the project"):].split(
            "```\n\n")[0]
    assert "# pkg/text.py" in blocks["coder"] and len(set(blocks.values())) == 1, blocks
    assert result.code is not None


async def test_context_tokens_zero_sends_no_context(generate):
    result, [prompt] = await generate(
        SIBLING, "pkg/urls.py", "post_url", context_tokens=0,
        reply=code('def post_url(title: str) -> str:\n    return BASE + slugify(title)'),
    )
    assert "slugify" not in prompt and "Definitions from the project" not in prompt
    assert not any(e.role == "context" for e in result.transcript)


SHAPES = {
    "geo/__init__.py": "",
    "geo/shapes.py": '''
        import typing


        class Circle:
            """A circle."""

            def __init__(self, r: float) -> None:
                self._r = r

            @property
            def radius(self) -> float:
                """The radius."""

            @radius.setter
            def radius(self, value: float) -> None:
                self._r = value

            @classmethod
            def unit(cls) -> "Circle":
                """The circle of radius 1."""

            class Style:
                """How it is drawn."""

                def stroke(self, width: int) -> str:
                    """An SVG stroke attribute of width."""


        @typing.overload
        def scale(x: int) -> int: ...
        @typing.overload
        def scale(x: float) -> float: ...
        def scale(x):
            """x doubled."""
    ''',
}


@pytest.mark.parametrize(("qualname", "reply", "header"), [
    ("Circle.radius", "@property\ndef radius(self) -> float:\n    return self._r",
     "@property\n    def radius(self) -> float:"),
    ("Circle.unit", "@classmethod\ndef unit(cls) -> 'Circle':\n    return cls(1.0)",
     "@classmethod\n    def unit(cls) -> \"Circle\":"),
    ("Circle.Style.stroke", ("def stroke(self, width: int) -> str:\n"
                             "    return f'stroke-width=\"{width}\"'"),
     "    def stroke(self, width: int) -> str:"),
    ("scale", "def scale(x):\n    return x * 2", "def scale(x):"),
])
async def test_property_classmethod_nested_class_and_overloaded_targets(
    generate, qualname, reply, header
):
    result, [prompt] = await generate(SHAPES, "geo/shapes.py", qualname, reply=code(reply))
    assert result.status == "untested", result.notes
    assert result.code is not None and reply.splitlines()[-1].strip() in result.code
    stub = prompt.split("Complete this function:")[1]
    assert stub.count("def ") == 1, stub  # one function: the overloads are not a second one
    assert header.strip().splitlines()[-1].strip() in stub


def test_codeteam_run_sends_the_context_with_its_budget(scripted, tmp_path):
    import json
    import os
    import subprocess
    import sys

    write(tmp_path, SIBLING)
    tmp_path.chmod(0o755)  # the project is tmp_path: a root server's sandbox must read it
    scripted.reply(DIRECT, code('def post_url(title: str) -> str:\n'
                                '    return BASE + slugify(title)'))
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("CODETEAM_") and k != "OPENAI_API_KEY"}
    env.update(CODETEAM_BASE_URL=scripted.base_url, CODETEAM_MAX_RETRIES="0",
               CODETEAM_CONTEXT_TOKENS="900")
    done = subprocess.run(
        [sys.executable, "-m", "codeteam", "run", str(tmp_path / "pkg/urls.py"), "--function",
         "post_url", "--pipeline", "direct", "--json"],
        env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    [request] = scripted.requests
    assert "# pkg/text.py\n" in request["messages"][1]["content"]
    transcript = json.loads(done.stdout)["transcript"]
    assert transcript[0]["role"] == "context"
    assert "of 900 tokens" in transcript[0]["reply"]
