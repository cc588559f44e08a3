"""`hiveai play` in a real browser: headless Chromium, driven by Selenium, against the real server and engine.

Slow tests (``pytest -m slow``). They need Debian's ``chromium`` and
``chromium-driver`` (``.ci/run`` installs both); Selenium is pointed at
``/usr/bin/chromedriver``, since its own manager would try to download a driver.
The page is driven only through its stable hooks: ``data-gamestring`` on the
board, ``data-piece`` on each piece that may be picked, ``data-move`` on each
destination, ``data-action`` on the buttons, ``data-hint`` on a shown hint.

``python tests/test_play_browser.py DIR`` writes the screenshots of docs/play.md into DIR.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from hiveai.records import GameRecord, read_game

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tools"))
from screenshots import PlayServer  # noqa: E402  (tools/screenshots.py: hiveai play in a child process)

GAMES = REPO / "tests" / "data" / "games"
SURROUND_GAME = GAMES / "HV-Abbo69-WeakBot-2018-10-28-2007.pgn"  # White surrounds the black queen on move 31
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run")
WAIT = 60.0  # seconds any one thing may take on a loaded machine (the engine's first load included)

needs_browser = pytest.mark.skipif(not (shutil.which(CHROMIUM) and shutil.which(CHROMEDRIVER)),
                                   reason="needs Debian's chromium and chromium-driver")
pytestmark = [pytest.mark.slow, pytest.mark.browser, needs_browser]


class Server(PlayServer):
    """``hiveai play --no-browser`` in a child process, with its own games database (in ``folder``)."""

    def __init__(self, folder: Path, *args: str) -> None:
        super().__init__(args, env={**os.environ, "XDG_DATA_HOME": str(folder)})
        self.db = Path(folder) / "hiveai" / "games.sqlite3"

    def stop(self) -> None:
        self.close()


def browser(width: int = 1280, height: int = 900):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tempfile.mkdtemp(prefix='hiveai-play-chromium-')}")
    options.add_argument(f"--window-size={width},{height}")
    options.binary_location = CHROMIUM
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("play"))
    yield s
    s.stop()


@pytest.fixture(scope="module")
def driver():
    d = browser()
    yield d
    d.quit()


class Page:
    """The board page in the browser, through its hooks."""

    def __init__(self, driver, server: Server) -> None:
        self.d, self.server = driver, server
        self.errors: list[str] = []

    def open(self, query: str = "") -> None:
        self.d.get(self.server.url + "/" + query)
        self.until(lambda: self.gamestring())

    def until(self, done, what: str = "the page", timeout: float = WAIT):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            value = done()
            if value:
                return value
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}: {self.gamestring()!r}, status {self.status()!r}")

    def js(self, script: str, *args):
        return self.d.execute_script(script, *args)

    def gamestring(self) -> str:
        return self.js("var b = document.getElementById('board'); return b ? b.getAttribute('data-gamestring') : ''")

    def status(self) -> str:
        return self.js("return document.getElementById('status').textContent")

    def ply(self) -> int:
        return max(0, len(self.gamestring().split(";")) - 3)

    def pickable(self) -> list[str]:
        return self.js("return Array.from(document.querySelectorAll('#board [data-piece]'))"
                       ".map(function (e) { return e.getAttribute('data-piece'); })")

    def click(self, css: str) -> None:
        """Click the element ``css`` names, finding it again if the page redrew it between finding and clicking."""
        from selenium.common.exceptions import StaleElementReferenceException
        from selenium.webdriver.common.by import By

        def clicked() -> bool:
            try:
                self.d.find_element(By.CSS_SELECTOR, css).click()
                return True
            except StaleElementReferenceException:
                return False

        self.until(clicked, f"{css} to stay drawn long enough to click")

    def destinations(self) -> list[str]:
        return self.js("return Array.from(document.querySelectorAll('#board [data-move]'))"
                       ".map(function (e) { return e.getAttribute('data-move'); })")

    def play(self, move: str) -> None:
        """Play ``move`` by clicks: its piece, then its destination."""
        before = self.gamestring()
        self.click(f'#board [data-piece="{move.split()[0]}"]')
        assert move in self.destinations(), (move, self.destinations())
        self.click(f'#board [data-move="{attr(move)}"]')
        self.until(lambda: self.gamestring() != before, f"{move} to be played")

    def console_errors(self) -> list[str]:
        return [e["message"] for e in self.d.get_log("browser") if e["level"] == "SEVERE"]

    def wait_for_my_move(self) -> None:
        self.until(lambda: self.pickable() or "wins" in self.status() or "Draw" in self.status(), "our move")


def attr(value: str) -> str:
    """``value`` inside a CSS attribute selector's quotes: a MoveString's backslash is CSS's escape."""
    return value.replace("\\", "\\\\").replace('"', '\\"')


def legal_moves(gamestring: str) -> list[str]:
    from hiveai.rules.board import Board

    return [str(m) for m in Board.parse(gamestring).legal_moves]


@pytest.mark.timing  # the median click's reply time
def test_a_game_by_clicks_undo_hint_and_reload(driver, server):
    page = Page(driver, server)
    rng = random.Random(7)
    page.open("?game=Base+MLP&colour=white&level=1")
    assert page.gamestring() == "Base+MLP;NotStarted;White[1]"
    assert "?id=" in driver.current_url  # the game's own address: a reload finds it
    clicked, timings, ends = 0, [], []
    while clicked < 20:
        page.wait_for_my_move()
        if not page.pickable():  # the game ended: another one
            ends.append(page.status())
            timings += page.js("return window.hiveaiTimings")
            page.open("?game=Base MLP&colour=white&level=1")  # a "+" that arrived as a space
            continue
        piece = rng.choice(page.pickable())
        page.click(f'#board [data-piece="{piece}"]')
        moves = page.destinations()
        assert moves and all(m.split()[0] == piece for m in moves)
        assert set(moves) <= set(legal_moves(page.gamestring()))
        before = page.ply()
        page.click(f'#board [data-move="{attr(rng.choice(moves))}"]')
        page.until(lambda: page.ply() > before, "the move")
        clicked += 1
    page.wait_for_my_move()
    timings += page.js("return window.hiveaiTimings")
    assert len(timings) >= 20, (timings, ends)
    assert statistics.median(timings) < 50, timings  # ms from the click to the destinations in the DOM

    if page.pickable():
        # Undo takes back the engine's reply and our move.
        ply = page.ply()
        page.click('[data-action="undo"]')
        page.until(lambda: page.ply() == ply - 2, "undo")
        page.wait_for_my_move()
        # A hint: an arrow and a reason; its move is one we may play.
        page.click('[data-action="hint"]')
        hint = page.until(lambda: page.js("var h = document.querySelector('[data-hint]');"
                                          "return h && h.getAttribute('data-hint')"), "the hint")
        assert hint in legal_moves(page.gamestring())
        assert page.js("return document.getElementById('hint').textContent.split('\u2014')[1].trim()")

    # Reload in the middle of the game: the same game comes back.
    before = page.gamestring()
    driver.refresh()
    page.until(lambda: page.gamestring() == before, "the game after a reload")
    assert page.console_errors() == []


def test_import_a_record_near_its_end_and_play_the_surround_by_clicks(driver, server):
    page = Page(driver, server)
    page.open()
    record = read_game(SURROUND_GAME)
    moves = record.to_board().move_history  # the MoveStrings the board names the moves by
    start = GameRecord(record.game_type, record.moves[:-3], "InProgress", dict(record.tags))
    page.click('[data-action="import"]')
    driver.find_element("id", "importtext").send_keys(start.to_pgn())
    page.click('[data-action="load"]')
    page.until(lambda: page.ply() == len(moves) - 3, "the imported game")
    for move in moves[-3:]:
        page.play(move)
    page.until(lambda: "White wins" in page.status(), "the end")
    assert page.status() == "White wins: the black queen is surrounded."
    assert page.pickable() == []
    # The review fills in beside the board, then links its page.
    page.click('[data-action="review"]')
    review = "var r = document.getElementById('review'); return [r.getAttribute('data-review'), " \
             "r.getAttribute('data-review-done'), r.getAttribute('data-review-total'), r.querySelectorAll('svg circle').length]"
    page.until(lambda: page.js(review)[0] == "ready", "the review")
    state, done, total, points = page.js(review)
    assert done == total == str(len(moves)) and points == len(moves) + 1
    assert page.console_errors() == []


def test_play_on_from_the_tenth_move_of_an_imported_game(driver, server):
    page = Page(driver, server)
    page.open()
    moves = read_game(SURROUND_GAME).to_board().move_history
    page.click('[data-action="import"]')
    driver.find_element("id", "importtext").send_keys(SURROUND_GAME.read_text())
    page.click('[data-action="load"]')
    page.until(lambda: page.ply() == len(moves), "the imported game")
    page.click('#moves li[data-ply="10"]')
    page.until(lambda: page.ply() == 10, "move 10 shown")
    page.click('[data-action="playon"]')
    page.until(lambda: page.pickable(), "the new game from move 10")
    assert page.gamestring().split(";")[3:] == moves[:10]
    piece = page.pickable()[0]
    page.click(f'#board [data-piece="{piece}"]')
    page.click(f'#board [data-move="{attr(page.destinations()[0])}"]')
    page.until(lambda: page.ply() == 12, "the engine's reply")
    assert page.console_errors() == []


def drag(driver, start: tuple[float, float], end: tuple[float, float]) -> None:
    """Press at ``start``, drag in steps to ``end``, let go (page coordinates; pointer events, as a mouse makes)."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    board = driver.find_element(By.ID, "board")
    box = driver.execute_script("var r = arguments[0].getBoundingClientRect();"
                                "return [r.left + r.width / 2, r.top + r.height / 2];", board)

    def at(point):  # offsets from the board's centre, as Selenium's actions count them
        return int(point[0] - box[0]), int(point[1] - box[1])

    (x0, y0), (x1, y1) = at(start), at(end)
    (ActionChains(driver).move_to_element_with_offset(board, x0, y0).click_and_hold()
     .move_by_offset(4, 4).move_by_offset((x1 - x0 - 4) // 2, (y1 - y0 - 4) // 2)
     .move_to_element_with_offset(board, x1, y1).pause(0.05).release().perform())


CENTRE = "var r = arguments[0].getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2];"


def test_set_up_a_position_in_the_editor_then_play_it_by_drag(driver, server):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    page = Page(driver, server)
    page.open()
    page.click('[data-action="setup"]')
    Select(driver.find_element(By.CSS_SELECTOR, '[data-setup="game"]')).select_by_visible_text("Base")
    problem = "return document.getElementById('setupproblem').getAttribute('data-setup-problem')"
    position = "return document.getElementById('setupboard').getAttribute('data-setup-position')"

    def put(piece: str, cell: str) -> None:
        before = page.js(position)
        tool = driver.find_element(By.CSS_SELECTOR, f'[data-setup-piece="{piece}"]')
        if tool.get_attribute("aria-pressed") != "true":
            tool.click()
        page.click(f'[data-setup-cell="{cell}"]')
        page.until(lambda: page.js(position) != before, f"{piece} on {cell}")

    page.until(lambda: page.js(position) == "Base;White[1]", "the empty set-up board")
    for piece, cell in (("wQ", "0,0"), ("bQ", "1,0"), ("wS", "-1,0"), ("bS", "2,0"), ("wB", "-1,0")):
        put(piece, cell)
    assert page.js(problem) == "" and page.js(position).endswith("wS1@-1,0;wB1@-1,0;wQ@0,0;bQ@1,0;bS1@2,0")
    put("remove", "0,0")  # the queen between them: the hive falls in two
    assert "The hive is in 2 parts" in page.js(problem)
    put("wQ", "0,0")
    assert page.js(problem) == ""
    Select(driver.find_element(By.ID, "setuplevel")).select_by_visible_text("1")
    page.click('[data-action="setup-play"]')
    page.until(lambda: page.js("return document.getElementById('board').getAttribute('data-setup')"), "the set-up game")
    page.wait_for_my_move()
    # Drag the beetle down from its spider onto a lit cell, then a piece from the hand. Where each
    # destination lights up is read first (a click picks, a second lets go), then the piece is
    # dragged there unpicked: the drag lights the destinations itself.
    for piece in ("wB1", "wA1"):
        source = driver.find_element(By.CSS_SELECTOR, f'#board [data-piece="{piece}"] use')
        page.click(f'#board [data-piece="{piece}"]')
        move = page.destinations()[-1]
        end = page.js(CENTRE, driver.find_element(By.CSS_SELECTOR, f'#board [data-move="{attr(move)}"] polygon'))
        page.click(f'#board [data-piece="{piece}"]')
        assert page.destinations() == []
        drag(driver, page.js(CENTRE, source), end)
        page.until(lambda: move in page.gamestring().split(";"), f"{move} by drag")
        page.wait_for_my_move()
    assert page.console_errors() == []


def test_the_real_server_refuses_a_foreign_host_and_a_cross_origin_websocket(server):
    request = urllib.request.Request(server.url + "/", headers={"Host": "attacker.example"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 403
    import asyncio

    import websockets

    async def handshake(origin: str) -> None:
        async with websockets.connect(server.url.replace("http", "ws") + "/ws/1", origin=origin, open_timeout=10):
            pass

    with pytest.raises(Exception) as refused_ws:
        asyncio.run(handshake("http://attacker.example"))
    assert "403" in str(refused_ws.value) or "1008" in str(refused_ws.value)


@pytest.mark.timing
def test_the_first_engine_move_after_start_comes_within_1_2_s(tmp_path):
    """Level 10, 1 s per move, an imported middle game (out of any book)."""
    s = Server(tmp_path)
    try:
        record = read_game(SURROUND_GAME)
        body = json.dumps({"text": GameRecord(record.game_type, record.moves[:16], "InProgress").game_string()})

        def post(path, data):
            req = urllib.request.Request(s.url + path, data=data.encode(), headers={"Content-Type": "application/json"})
            return json.loads(urllib.request.urlopen(req, timeout=WAIT).read())

        imported = post("/api/import", body)
        game = post(f"/api/game/{imported['id']}/playon", json.dumps({"ply": 16, "level": 10, "seconds": 1}))
        gid = game["id"]
        deadline = time.monotonic() + 4 * WAIT
        while post(f"/api/game/{gid}/analyse", json.dumps({"on": False}))["engine"]["status"] != "ready":
            assert time.monotonic() < deadline, "the engine never loaded"
            time.sleep(0.1)
        move = legal_moves(game["gamestring"])[0]
        start = time.monotonic()
        post(f"/api/game/{gid}/move", json.dumps({"move": move}))
        while True:
            state = json.loads(urllib.request.urlopen(f"{s.url}/api/game/{gid}", timeout=WAIT).read())
            if state["ply"] == 18:
                break
            time.sleep(0.01)
        took = time.monotonic() - start
        assert took < 1.2, took
    finally:
        s.stop()


# --- puzzles --------------------------------------------------------------------------------------------


def phone():
    """Chromium as a phone sees the page: 390 CSS pixels wide (the viewport meta tag honoured)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tempfile.mkdtemp(prefix='hiveai-play-chromium-')}")
    options.add_experimental_option("mobileEmulation", {"deviceMetrics": {"width": 390, "height": 844, "pixelRatio": 3}})
    options.binary_location = CHROMIUM
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


class PuzzlePage(Page):
    """The board in puzzle mode: the puzzle panel's ``data-*`` hooks."""

    def panel(self, name: str) -> str:
        return self.js(f"return document.getElementById('puzzlepanel').getAttribute('data-{name}')")

    def history(self) -> list[list[str]]:
        return self.js("return Array.from(document.querySelectorAll('#puzzlehistory li')).map(function (li) {"
                       "return [li.getAttribute('data-puzzle'), li.getAttribute('data-result')]; })")

    def playing(self, after: str = "") -> str:
        """The attempt on the board once a new one (not ``after``) is being played."""
        return self.until(lambda: self.panel("puzzle-status") == "playing" and self.panel("attempt") != after
                          and self.panel("attempt"), "a puzzle to solve")

    def ended(self, status: str) -> None:
        self.until(lambda: self.panel("puzzle-status") == status, f"the puzzle {status}")

    def arrows(self) -> list[str]:
        return self.js("return Array.from(document.querySelectorAll('#board g.arrow[data-arrow]'))"
                       ".map(function (a) { return a.getAttribute('data-arrow'); })")


def test_puzzles_solved_failed_hinted_rated_and_kept_across_a_reload_and_a_kill(tmp_path):
    from selenium.webdriver.common.by import By

    from hiveai import puzzles

    collection = {p.id: p for p in puzzles.shipped()}
    prover = puzzles.make_prover()
    s = Server(tmp_path)
    d = browser()
    try:
        page = PuzzlePage(d, s)
        page.open()
        page.click('[data-action="puzzles"]')
        attempt = page.playing()
        assert page.panel("puzzle-rating") == "1500" and page.panel("puzzle-rated") == "true"
        puzzle = collection[page.panel("puzzle")]
        solver = ("White", "Black")[puzzle.turn]
        assert page.status().startswith(f"{solver} to move")
        assert page.gamestring() == puzzle.board().game_string()
        assert set(page.pickable()) == {m.piece for m in puzzle.board().legal_moves if not m.is_pass}

        # Solved by clicks, the line's defence answering each move.
        for move in puzzle.solution[::2]:
            page.play(move)
        page.ended("solved")
        solved = int(page.panel("puzzle-rating"))
        assert solved > 1500 and page.panel("puzzle-streak") == "1"
        assert page.pickable() == []

        # Failed: a wrong move, its refutation drawn on the board and listed.
        page.click('[data-action="puzzle-next"]')
        attempt = page.playing(attempt)
        puzzle = collection[page.panel("puzzle")]
        wrong, refutation = next((str(m), step.refutation) for m in puzzle.board().legal_moves
                                 if str(m) != puzzle.solution[0] and not m.is_pass
                                 and (step := puzzles.try_move(puzzle, [], str(m), prover)).refutation)
        page.play(wrong)
        page.ended("failed")
        assert page.panel("refutation") == ";".join(refutation)
        assert page.arrows() == [refutation[0]]
        assert page.gamestring().endswith(";" + wrong)
        failed = int(page.panel("puzzle-rating"))
        assert failed < solved and page.panel("puzzle-streak") == "0"
        page.click('[data-line="refutation"] li[data-ply="2"]')  # the answer, played out on the board
        page.until(lambda: page.gamestring().endswith(f"{wrong};{refutation[0]}"), "the refutation shown")

        # A hint lights the piece to move; the rest typed as MoveStrings.
        page.click('[data-action="puzzle-next"]')
        attempt = page.playing(attempt)
        puzzle = collection[page.panel("puzzle")]
        page.click('[data-action="puzzle-hint"]')
        hint = page.until(lambda: page.panel("puzzle-hint"), "the hint")
        assert hint == puzzle.solution[0].split()[0]
        assert page.js("return Array.from(document.querySelectorAll('#board [data-hinted]'))"
                       ".map(function (g) { return g.getAttribute('data-name'); })") == [hint]
        hinted = page.until(lambda: int(page.panel("puzzle-rating")) < failed and int(page.panel("puzzle-rating")),
                            "the hint's rating")
        for move in puzzle.solution[::2]:
            before = page.gamestring()
            d.find_element(By.ID, "movetext").send_keys(move + "\n")
            page.until(lambda: page.gamestring() != before, f"{move} typed")
        page.ended("solved")
        assert int(page.panel("puzzle-rating")) == hinted  # a hint made it a miss: solving it moves nothing

        # Reload: the history and the rating are the store's.
        history = page.history()
        assert [r for _, r in history] == ["solved", "failed", "solved"] and len({p for p, _ in history}) == 3
        d.refresh()
        page.until(lambda: page.history() == history, "the history after a reload")
        assert page.panel("puzzle-rating") == str(hinted) and page.panel("puzzle-status") == "solved"
        assert page.console_errors() == []
    finally:
        s.proc.kill()  # SIGKILL: no shutdown, nothing flushed on the way out
        s.proc.wait()
        s.proc.stderr.close()
    s = Server(tmp_path)  # the same data directory, so the same store
    try:
        d.get(s.url + "/?puzzles")
        page = PuzzlePage(d, s)
        page.until(lambda: page.history() == history, "the history after a killed server")
        assert page.panel("puzzle-rating") == str(hinted)
        assert page.console_errors() == []
    finally:
        d.quit()
        s.stop()


def test_the_board_and_its_puzzles_fit_a_phone(server):
    d = phone()
    try:
        page = PuzzlePage(d, server)
        overflow = "return document.documentElement.scrollWidth - document.documentElement.clientWidth"
        page.open()
        assert page.js("return window.innerWidth") == 390
        assert page.js(overflow) == 0
        page.click('[data-action="puzzles"]')
        page.playing()
        assert page.js(overflow) == 0
        assert page.js("return document.querySelector('#board svg').getBoundingClientRect().right") <= 390
        page.click('[data-action="puzzle-hint"]')  # the hint's message, the history: still no sideways scroll
        page.until(lambda: page.panel("puzzle-hint"), "the hint")
        assert page.js(overflow) == 0
        assert page.console_errors() == []
    finally:
        d.quit()


def screenshots(out: Path) -> None:
    """docs/play.md's pictures: a game in progress, analysis mode and the set-up editor (at a desktop width)."""
    folder = Path(tempfile.mkdtemp(prefix="hiveai-play-shots-"))
    s = Server(folder)
    d = browser(1100, 720)
    try:
        page = Page(d, s)
        record = read_game(SURROUND_GAME)
        start = GameRecord(record.game_type, record.moves[:18], "InProgress").game_string()
        page.open(f"?colour=white&level=3&gamestring={urllib.parse.quote(start)}")
        page.wait_for_my_move()
        page.click('#board [data-piece="wA2"]' if "wA2" in page.pickable() else "#board [data-piece]")
        d.save_screenshot(str(out / "play.png"))
        page.click("#board .selected")  # a second click lets go of the piece
        page.click('[data-action="theme"]')
        page.click('[data-action="analyse"]')
        page.until(lambda: page.js("return !document.getElementById('evalbar').hidden"), "analysis lines")
        time.sleep(3)
        d.save_screenshot(str(out / "play-analysis.png"))
        d.set_window_size(1100, 860)  # the editor is taller than the board
        page.click('[data-action="analyse"]')
        page.click('[data-action="theme"]')
        time.sleep(1)  # the board drawn again at the new size, behind the editor
        page.click('[data-action="setup"]')  # the editor, a few pieces placed (a beetle up on its spider)
        position = "return document.getElementById('setupboard').getAttribute('data-setup-position')"
        page.until(lambda: page.js(position) == "Base+MLP;White[1]", "the set-up editor")
        for piece, cell in (("wQ", "0,0"), ("bQ", "1,0"), ("wS", "-1,0"), ("bA", "2,0"), ("wB", "-1,0"),
                            ("bB", "2,-1"), ("wA", "0,1")):
            before = page.js(position)
            page.click(f'[data-setup-piece="{piece}"]')
            page.click(f'[data-setup-cell="{cell}"]')
            page.until(lambda: page.js(position) != before, f"{piece} on {cell}")
        d.save_screenshot(str(out / "play-setup.png"))
    finally:
        d.quit()
        s.stop()



if __name__ == "__main__":
    screenshots(Path(sys.argv[1] if len(sys.argv) > 1 else "docs"))
