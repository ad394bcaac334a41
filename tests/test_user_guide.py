"""The worked examples of the user guide run as written."""

import re
import textwrap
from pathlib import Path

import pytest

PAGES = sorted((Path(__file__).parent.parent / "docs" / "user_guide").glob("*.rst"))


def _code_blocks(path):
    """The ``.. code-block:: python`` blocks of a page, dedented."""
    text = path.read_text()
    pattern = r"^\.\. code-block:: python\n\n((?:(?:[ ]{3,}.*)?\n)+)"
    return [textwrap.dedent(m) for m in re.findall(pattern, text, flags=re.M)]


EXAMPLES = [
    pytest.param(block, id=f"{path.stem}-{i}")
    for path in PAGES
    for i, block in enumerate(_code_blocks(path))
]


def test_every_family_page_has_a_worked_example():
    pages_with_code = {p.stem for p in PAGES if _code_blocks(p)}
    assert pages_with_code == {p.stem for p in PAGES if p.stem != "index"}


@pytest.mark.parametrize("code", EXAMPLES)
def test_user_guide_example_runs(code):
    exec(compile(code, "<user guide>", "exec"), {"__name__": "__user_guide__"})
