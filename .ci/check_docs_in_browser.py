"""Check the built docs in headless Chromium, at a desktop and a phone width.

``python .ci/check_docs_in_browser.py BUILD_DIR SCREENSHOT_DIR`` serves the
HTML build on a loopback port, opens the index, one user-guide page, one API
page and one benchmark page at 1280 and 390 CSS pixels wide, and fails when a
page

* scrolls horizontally (the document is wider than the window), or has an
  element that reaches past the window's right edge and is cut there (tables,
  code blocks and the sidebars scroll on their own and are left out),
* has an image that did not load (``naturalWidth == 0``), or a benchmark
  page shows no figure,
* logs a console error (``SEVERE`` in Chromium's browser log); a resource of
  another host that cannot load without a network (MathJax from its CDN) is
  listed but not counted.

It saves a full-width screenshot of each page and width in SCREENSHOT_DIR (CI
keeps them as artefacts; they are not committed) and prints one line per
check. It drives Debian's ``chromium`` through ``chromium-driver`` with
Selenium (``pip install selenium``); the flags are those that work on a
machine without a network or a display.
"""

import argparse
import functools
import http.server
import sys
import tempfile
import threading
from pathlib import Path

PAGES = {
    "index": "index.html",
    "user-guide": "user_guide/linear_model.html",
    "api": "generated/sklearn_iclr.linear_model.ICEClassifier.html",
    "benchmark": "benchmarks/pseudolikelihood_ising.html",
}
WIDTHS = (1280, 390)
_OFFLINE = "net::ERR_NAME_NOT_RESOLVED"
HEIGHT = 900
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)

# Widths and image states, read in the page once it has loaded.
_MEASURE = """
const doc = document.documentElement;
const images = Array.from(document.images);
return {
    scrollWidth: doc.scrollWidth,
    clientWidth: doc.clientWidth,
    images: images.length,
    figures: document.querySelectorAll("figure img, div.figure img").length,
    broken: images.filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src),
    wide: Array.from(document.body.querySelectorAll("*"))
        .filter(e => e.getBoundingClientRect().right > doc.clientWidth + 1
                && getComputedStyle(e).position !== "fixed"
                && !e.closest(".pst-scrollable-table-container, pre, .highlight,"
                              + " .table-wrapper, .bd-toc, .bd-sidebar"))
        .slice(0, 3).map(e => e.tagName + "." + e.className + " '"
                         + e.textContent.trim().slice(0, 40) + "'"),
};
"""


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(folder):
    """Serve ``folder`` on a free loopback port; return the server."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def browser(width, profile):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.add_argument(f"--window-size={width},{HEIGHT}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    # The window size of headless Chromium has a floor on some versions: set
    # the layout width exactly, as a phone would.
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False},
    )
    return driver


def check_page(driver, base, page, name, width, shots):
    """The problems of one page at one width (an empty list when it passes)."""
    driver.get(base + page)
    driver.execute_script("return document.fonts.ready")
    state = driver.execute_script(_MEASURE)
    problems = []
    if state["scrollWidth"] > state["clientWidth"] + 1:
        problems.append(
            f"scrolls horizontally: {state['scrollWidth']} px in a "
            f"{state['clientWidth']} px window"
        )
    if state["wide"]:
        problems.append(f"content cut at the window's edge: {state['wide']}")
    if state["broken"]:
        problems.append(f"images not loaded: {state['broken']}")
    if name == "benchmark" and state["figures"] == 0:
        problems.append("no figure on the benchmark page")
    errors = [
        entry["message"]
        for entry in driver.get_log("browser")
        if entry["level"] == "SEVERE"
    ]
    # A resource of another host (MathJax from its CDN) cannot load on a
    # machine without a network: reported, not counted.
    offline = [e for e in errors if _OFFLINE in e and not e.startswith(base)]
    errors = [e for e in errors if e not in offline]
    if errors:
        problems.append(f"console errors: {errors}")
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": min(height, 6000), "deviceScaleFactor": 1,
         "mobile": False},
    )  # fmt: skip
    driver.save_screenshot(str(shots / f"{name}-{width}px.png"))
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False},
    )
    verdict = "ok" if not problems else "FAIL"
    print(
        f"{verdict:4} {width:>4} px  {name:10} {state['images']:>2} images "
        f"({state['figures']} figures), page {state['scrollWidth']} px wide"
    )
    for problem in problems:
        print(f"       {problem}")
    for error in offline:
        print(f"       (offline, not counted: {error.split(' - ')[0]})")
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", type=Path, help="the Sphinx HTML build folder")
    parser.add_argument("screenshots", type=Path, help="where the PNGs go")
    args = parser.parse_args(argv)
    missing = [p for p in PAGES.values() if not (args.build / p).exists()]
    if missing:
        print(f"pages missing from the build: {missing}", file=sys.stderr)
        return 1
    args.screenshots.mkdir(parents=True, exist_ok=True)
    server = serve(args.build)
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    failures = 0
    try:
        for width in WIDTHS:
            with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
                driver = browser(width, profile)
                try:
                    for name, page in PAGES.items():
                        problems = check_page(
                            driver, base, page, name, width, args.screenshots
                        )
                        failures += bool(problems)
                finally:
                    driver.quit()
    finally:
        server.shutdown()
    print(f"screenshots in {args.screenshots}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
