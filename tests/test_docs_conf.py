"""The documentation header fits a 1280 px window (the navbar overlap of #26).

No browser runs here, so the check is a width budget computed from what the
header shows: the brand text, the top-level links before the "More" dropdown
and the items at the right. The per-character widths are generous upper
bounds for pydata-sphinx-theme's fonts (brand 1.25 rem, links 1 rem, at
16 px), measured from no browser: they only have to keep the sum well under
the window, so that a longer title, more links or the wide search field fail
here first.
"""

import re
import runpy
from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent / "docs"
WINDOW = 1280
PADDING = 2 * 48  # container padding, left and right
BRAND_CHAR, LINK_CHAR, LINK_PAD = 12.5, 10.0, 32.0
ICON = 48.0  # the search icon and the colour-mode switch
SEARCH_FIELD = 260.0  # "Search Ctrl+K", if it were shown instead of the icon


def _conf():
    return runpy.run_path(str(DOCS / "conf.py"))


def _title(text):
    """The first section title of an rst text (a line underlined by = or -)."""
    lines = text.splitlines()
    return next(
        line
        for line, under in zip(lines, lines[1:], strict=False)
        if line.strip() and re.fullmatch(r"[=-]{3,}", under) and len(under) >= len(line)
    )


def _toplevel_titles():
    text = (DOCS / "index.rst").read_text()
    block = re.search(r"\.\. toctree::\n(?:   :.*\n)*\n((?:   \S.*\n)+)", text)
    titles = []
    for entry in block.group(1).split():
        source = (DOCS / entry).with_suffix(".rst")
        if source.exists():
            titles.append(_title(source.read_text()))
        else:  # the generated gallery index
            titles.append("Gallery")
    return titles


def test_header_fits_1280_px():
    conf = _conf()
    options = conf["html_theme_options"]
    brand = options.get("logo", {}).get("text") or conf.get("html_title") or ""
    if not brand:
        brand = f"{conf['project']} {conf['release']} documentation"
    shown = _toplevel_titles()[: options["header_links_before_dropdown"]]
    more = len(_toplevel_titles()) > options["header_links_before_dropdown"]
    links = sum(len(t) * LINK_CHAR + LINK_PAD for t in shown)
    links += (len("More") * LINK_CHAR + LINK_PAD) if more else 0
    persistent = options.get("navbar_persistent", ["search-button-field"])
    right = ICON + (SEARCH_FIELD if "search-button-field" in persistent else ICON)
    width = len(brand) * BRAND_CHAR + links + right + PADDING
    assert width <= 0.85 * WINDOW, (
        f"the header needs about {width:.0f} px of {WINDOW}: shorten the brand "
        f"({brand!r}), show fewer links before 'More' or the search as an icon"
    )
