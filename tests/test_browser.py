"""The pictures in a real browser: headless Chromium opens the review page and a board SVG.

The slow tests need Debian's ``chromium`` (``.ci/run`` installs it). They check
that the graph and the board are drawn where the page lays them out (pixels
of the screenshot that are not the page background), that clicking a graph
point and the step buttons show the right position, and that the page writes
nothing to the console (no script errors, nothing failing to load).
"""

from __future__ import annotations

import html
import json
import struct
import sys
import zlib
from pathlib import Path

import pytest
from click.testing import CliRunner
from png import SIGNATURE, paeth, pixel, read_png

from hiveai.rules.board import Board
from hiveai.cli import main
from hiveai.svg import DEFAULT_COLORS, board

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tools"))
import screenshots  # noqa: E402  (tools/screenshots.py: the Chromium helpers)

GAME = REPO / "tests" / "data" / "games" / "HV-Abbo69-WeakBot-2018-10-28-2007.pgn"
BACKGROUND = tuple(int(DEFAULT_COLORS["background"][i:i + 2], 16) for i in (1, 3, 5))
WIDTH, HEIGHT = 1280, 1400
needs_chromium = pytest.mark.skipif(not screenshots.have_chromium(), reason="needs Debian's chromium package")

# Run after the page's own script: where the graph and the board are, and what clicks show.
PROBE = """<script>
(function () {
  function box(e) { var b = e.getBoundingClientRect(); return [b.left, b.top, b.width, b.height]; }
  function shown() {
    return Array.prototype.findIndex.call(document.querySelectorAll(".pos"), function (p) { return !p.hidden; });
  }
  var out = {graph: box(document.querySelector(".eval-graph")),
             board: box(document.querySelector(".pos:not([hidden]) svg")), first: shown()};
  document.querySelector('.eval-graph circle[data-ply="3"]').dispatchEvent(new MouseEvent("click", {bubbles: true}));
  out.click = shown();
  document.querySelector('[data-step="-1"]').click();
  out.back = shown();
  document.querySelector('tr[data-ply="7"]').click();
  out.row = shown();
  document.body.setAttribute("data-probe", JSON.stringify(out));
})();
</script>"""


def test_png_reader_undoes_every_row_filter(tmp_path):
    width, height = 5, 5
    pixels = [bytes((x * 40, y * 50, (x * y * 13) % 256)) for y in range(height) for x in range(width)]
    raw = b""
    for y in range(height):
        line = b"".join(pixels[y * width:(y + 1) * width])
        prev = b"".join(pixels[(y - 1) * width:y * width]) if y else bytes(len(line))
        kind = y % 5
        out = bytearray()
        for i, v in enumerate(line):
            a = line[i - 3] if i >= 3 else 0
            b, c = prev[i], prev[i - 3] if i >= 3 else 0
            out.append((v - (0, a, b, (a + b) // 2, paeth(a, b, c))[kind]) & 255)
        raw += bytes([kind]) + bytes(out)

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    (tmp_path / "t.png").write_bytes(SIGNATURE + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
                                     + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
    image = read_png(tmp_path / "t.png")
    assert [pixel(image, x, y) for y in range(height) for x in range(width)] == [tuple(p) for p in pixels]


def drawn_share(image, rect) -> float:
    """Share of the pixels inside ``rect`` (left, top, width, height) that are not the page background."""
    left, top, w, h = (int(round(v)) for v in rect)
    xs = range(max(left, 0), min(left + w, image[0]), 2)
    ys = range(max(top, 0), min(top + h, image[1]), 2)
    seen = [pixel(image, x, y) != BACKGROUND for y in ys for x in xs]
    return sum(seen) / max(len(seen), 1)


@pytest.mark.slow
@pytest.mark.browser
@needs_chromium
def test_review_page_in_chromium(tmp_path):
    page = tmp_path / "review.html"
    result = CliRunner().invoke(main, ["analyse", "--game", str(GAME), "--depth", "1", "--html", str(page)])
    assert result.exit_code == 0, result.output
    probe = tmp_path / "probe.html"
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8")
    dom, console = screenshots.dump_dom(probe, WIDTH, HEIGHT)
    assert console == []
    found = json.loads(html.unescape(dom.split('data-probe="', 1)[1].split('"', 1)[0]))
    plies = 31
    assert (found["first"], found["click"], found["back"], found["row"]) == (plies, 3, 2, 7)
    png = tmp_path / "review.png"
    console = screenshots.screenshot(page, png, WIDTH, HEIGHT)
    assert console == [], console
    image = read_png(png)
    assert image[:2] == (WIDTH, HEIGHT)
    for name in ("graph", "board"):
        left, top, w, h = found[name]
        assert w > 200 and h > 100 and left + w <= WIDTH and top + h <= HEIGHT, (name, found[name])
    assert drawn_share(image, found["graph"]) > 0.9  # the graph's dark field and light area
    assert drawn_share(image, found["board"]) > 0.1  # tiles, glyphs and cell outlines
    assert drawn_share(image, (0, 0, 10, 200)) == 0  # the left margin is plain background


@pytest.mark.slow
@pytest.mark.browser
@needs_chromium
def test_board_svg_in_chromium(tmp_path):
    position = Board.parse(screenshots.EXAMPLE)
    picture = board(position, arrows=["wL wB2\\"])
    path = tmp_path / "board.svg"
    path.write_text(picture, encoding="utf-8")
    png = tmp_path / "board.png"
    console = screenshots.screenshot(path, png, 800, 700)
    assert console == [], console
    image = read_png(png)
    import xml.etree.ElementTree as ET

    root = ET.fromstring(picture)
    centres = [(float(g.get("data-x")), float(g.get("data-y"))) for g in root.iter("{http://www.w3.org/2000/svg}g")
               if g.get("class") == "piece"]
    assert len(centres) == 16 + 11  # pieces on the board and in hand
    for x, y in centres:  # every piece is drawn where the SVG puts it (natural size: one unit a pixel)
        assert drawn_share(image, (x - 8, y - 8, 16, 16)) > 0.5, (x, y)
    assert pixel(image, 2, 2) == BACKGROUND  # the picture's own background, at its corner


@pytest.mark.slow
@pytest.mark.browser
@needs_chromium
def test_console_errors_are_seen(tmp_path):
    """The console check can fail: a page with a script error reports it."""
    page = tmp_path / "bad.html"
    page.write_text('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>x</title></head>'
                    "<body><script>noSuchFunction();</script></body></html>")
    console = screenshots.screenshot(page, tmp_path / "bad.png", 200, 100)
    assert any("noSuchFunction" in line for line in console), console
