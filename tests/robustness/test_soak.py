"""Soak: many edits across 50 documents; memory growth and latency drift are reported and
memory is bounded. CI runs 2,000 edits; `MSPORT_SOAK_EDITS=20000 pytest -s tests/robustness/test_soak.py`
is the longer run (docs/robustness.md)."""

import os
import statistics
import time

from .lspclient import RawClient

EDITS = int(os.environ.get("MSPORT_SOAK_EDITS", "2000"))
DOCS = 50
TEXT = "".join(
    f"import torch\n\nclass Block{i}(torch.nn.Module):\n    def forward(self, x):\n        return torch.cat([x, x], 1).size(0)\n\n"
    for i in range(20)
)


def test_soak():
    client = RawClient()
    uris = [f"file:///tmp/msport_soak/doc{i}.py" for i in range(DOCS)]
    texts = {uri: TEXT for uri in uris}
    versions = {uri: 1 for uri in uris}
    for uri in uris:
        client.open(uri, TEXT)
    for uri in uris:
        client.wait_diagnostics(uri, 1)
    start_rss = client.rss_mb()
    latencies = []
    for n in range(EDITS):
        uri = uris[n % DOCS]
        versions[uri] += 1
        line = (n * 7) % 100
        client.change(uri, versions[uri], [{"range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 0}}, "text": "#"}])
        lines = texts[uri].split("\n")
        lines[line] = "#" + lines[line]
        texts[uri] = "\n".join(lines)
        if n % 50 == 49:  # wait for this version every 50 edits: latency under load
            started = time.perf_counter()
            client.wait_diagnostics(uri, versions[uri], timeout=60)
            latencies.append(time.perf_counter() - started)
    for uri in uris:
        assert client.state(uri)["text"] == texts[uri]  # nothing lost
    end_rss = client.rss_mb()
    first, last = latencies[: len(latencies) // 4], latencies[-len(latencies) // 4 :]
    print(
        f"\nsoak: {EDITS} edits over {DOCS} documents; RSS {start_rss:.0f} -> {end_rss:.0f} MB; "
        f"wait p50 first quarter {statistics.median(first) * 1000:.1f} ms, last quarter {statistics.median(last) * 1000:.1f} ms"
    )
    assert client.alive()
    # Caches are bounded LRUs: memory must not grow with the number of edits.
    assert end_rss - start_rss < 120, (start_rss, end_rss)
    assert client.close() == 0
