"""The documentation's Python examples run as written (each page in one namespace, in order).

The examples are small demos, so compiling is what costs: while a page runs, whatever
it compiles skips XLA's backend optimisations (``fast_compile.fast_compilation``; IEEE
semantics are unchanged).
"""

import re
from pathlib import Path

import pytest
from fast_compile import fast_compilation

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "```python" in p.read_text())
BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_python_examples_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # examples that write files write them here
    namespace: dict = {"__name__": "__docs__"}
    blocks = BLOCK.findall(page.read_text())
    assert blocks
    with fast_compilation():
        for i, code in enumerate(blocks):
            try:
                exec(compile(code, f"{page.name} block {i + 1}", "exec"), namespace)
            except Exception as err:
                raise AssertionError(f"{page.name}, example {i + 1} failed:\n{code}") from err
