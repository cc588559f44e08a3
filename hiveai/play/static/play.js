// hiveai's board in the browser. The server owns the game: this script draws what it sends
// (the board picture, and for each piece the player may pick its legal moves with their
// destinations' centres), sends the player's actions, and listens on a WebSocket for the
// engine's moves and lines. No framework, nothing fetched from elsewhere.
// In puzzle mode the same board shows the puzzle the server sends (/api/puzzles), and the
// player's moves go to the puzzle's judge instead of the game.
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var SVG_NS = "http://www.w3.org/2000/svg";
  var DEST_RADIUS = 25; // a destination's hexagon, in the picture's units (a cell is 30 centre to corner)
  var boardEl = $("board");
  var state = null;       // the game as the server last sent it
  var selected = null;    // the picked piece's name
  var viewPly = null;     // stepping through the game: the ply shown, else null (the present)
  var socket = null;
  var drawn = "";         // the picture on the board now (a state that changes nothing there keeps the pick)
  var shownPicks = null;  // for each piece the player may pick on the board shown, its moves
  var mode = "game";      // "game" or "puzzle": what the board shows and where a move goes
  var puzzles = null;     // the puzzles' view as the server last sent it
  // Time from a click on a piece to its destinations being in the DOM (ms), one entry per pick.
  window.hiveaiTimings = [];

  function message(text) {
    var m = $("message");
    m.textContent = text || "";
    m.hidden = !text;
  }

  // say: where an error goes (the page's message line unless a dialog shows its own).
  function api(path, body, say) {
    say = say || message;
    var options = {};
    if (body !== undefined) {
      options = {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)};
    }
    return fetch(path, options).then(function (r) {
      return r.json().catch(function () { return {error: "The board's server answered " + r.status + "."}; })
        .then(function (data) {
          if (!r.ok) { say(data.error || ("Error " + r.status)); return null; }
          return data;
        });
    }).catch(function () {
      say("The board's server does not answer: is `hiveai play` still running?");
      return null;
    });
  }

  // --- drawing -------------------------------------------------------------------------

  function hexPoints(x, y, r) {
    var pts = [];
    for (var i = 0; i < 6; i++) {
      var a = Math.PI / 180 * (60 * i - 30);
      pts.push((x + r * Math.cos(a)).toFixed(1) + "," + (y + r * Math.sin(a)).toFixed(1));
    }
    return pts.join(" ");
  }

  function drawBoard(svgText, picks) {
    var kept = selected;
    shownPicks = picks;
    var key = svgText + "|" + Object.keys(picks || {}).join(",");
    if (key === drawn) { return; }
    drawn = key;
    boardEl.innerHTML = svgText;
    selected = null;
    var svg = boardEl.querySelector("svg");
    if (!svg) { return; }
    svg.removeAttribute("width");
    svg.removeAttribute("height");
    // Arrows name their move too; only destinations carry data-move on this board.
    svg.querySelectorAll("g.arrow[data-move]").forEach(function (a) {
      a.setAttribute("data-arrow", a.getAttribute("data-move"));
      a.removeAttribute("data-move");
    });
    svg.querySelectorAll("g.piece[data-piece]").forEach(function (g) {
      var name = g.getAttribute("data-piece");
      g.setAttribute("data-name", name);
      if (picks && Object.prototype.hasOwnProperty.call(picks, name)) {
        g.classList.add("pickable");
      } else {
        g.removeAttribute("data-piece");
      }
    });
    var again = kept && picks && picks[kept] && svg.querySelector('g.piece[data-piece="' + kept + '"]');
    if (again) { pick(kept, again); } // the same piece stays picked over a new picture (an arrow, say)
  }

  function clearPick() {
    var old = boardEl.querySelector("#dests");
    if (old) { old.remove(); }
    boardEl.querySelectorAll(".selected").forEach(function (g) { g.classList.remove("selected"); });
    selected = null;
  }

  function pick(name, pieceEl) {
    clearPick();
    var moves = shownPicks && shownPicks[name];
    if (!moves) { return; }
    selected = name;
    pieceEl.classList.add("selected");
    var layer = document.createElementNS(SVG_NS, "g");
    layer.setAttribute("id", "dests");
    moves.forEach(function (m) {
      var g = document.createElementNS(SVG_NS, "g");
      g.setAttribute("class", "dest");
      g.setAttribute("data-move", m[0]);
      var hex = document.createElementNS(SVG_NS, "polygon");
      hex.setAttribute("points", hexPoints(m[1], m[2], DEST_RADIUS));
      var dot = document.createElementNS(SVG_NS, "circle");
      dot.setAttribute("cx", m[1]); dot.setAttribute("cy", m[2]); dot.setAttribute("r", 7);
      var title = document.createElementNS(SVG_NS, "title");
      title.textContent = m[0];
      g.appendChild(title); g.appendChild(hex); g.appendChild(dot);
      layer.appendChild(g);
    });
    boardEl.querySelector("svg").appendChild(layer);
  }

  function statusText(s) {
    if (viewPly !== null && viewPly !== s.ply) { return "Move " + viewPly + " of " + s.ply + " (stepping through the game)"; }
    if (s.end) { return s.end; }
    if (s.engine.status === "loading" && (s.engine_to_move || s.thinking)) {
      return "The engine is loading (its search kernels are being compiled or read from the cache)\u2026";
    }
    if (s.engine.status === "failed") { return "The engine failed to start: " + s.engine.error; }
    if (s.thinking === "move") { return s.engine.name + " is thinking\u2026"; }
    if (s.thinking === "hint") { return "Looking for a hint\u2026"; }
    var who = s.players[s.turn.toLowerCase()] === "human" ? "" : " (" + s.engine.name + ")";
    var text = s.turn + " to move" + who;
    if (s.engine.status === "loading") { text += " \u2014 the engine is loading"; }
    return text;
  }

  function renderMoves(s) {
    var ol = $("moves");
    ol.innerHTML = "";
    s.history.forEach(function (mv, i) {
      var li = document.createElement("li");
      li.textContent = mv;
      li.setAttribute("data-ply", i + 1);
      if ((viewPly === null ? s.ply : viewPly) === i + 1) { li.className = "current"; }
      ol.appendChild(li);
    });
    if (viewPly === null) { ol.scrollTop = ol.scrollHeight; } // the list scrolls, never the page
  }

  function renderAnalysis(s) {
    var box = $("analysis"), bar = $("evalbar");
    box.hidden = !s.analysing;
    bar.hidden = !(s.analysing && s.analysis);
    document.querySelector('[data-action="analyse"]').setAttribute("aria-pressed", s.analysing ? "true" : "false");
    if (!s.analysing) { box.innerHTML = ""; return; }
    if (!s.analysis) { box.textContent = "Analysing\u2026"; return; }
    $("evalfill").style.height = (100 * s.analysis.bar).toFixed(1) + "%";
    var html = "<div class=\"depth\">Depth " + s.analysis.depth + " \u00b7 scores for " + s.analysis.mover + "</div><ol>";
    s.analysis.lines.forEach(function (ln, i) {
      html += "<li><span class=\"swatch l" + i + "\"></span><b>" + esc(ln.score) + "</b> " + esc(ln.pv.join(" ")) + "</li>";
    });
    box.innerHTML = html + "</ol>";
  }

  // The review fills in as the engine judges each move: the graph from the left, the marked moves below.
  function renderReview(s) {
    var box = $("review"), r = s.review_live;
    box.hidden = !s.review;
    if (!s.review || !r) { box.innerHTML = ""; return; }
    box.setAttribute("data-review", s.review);
    box.setAttribute("data-review-done", r.done);
    box.setAttribute("data-review-total", r.total);
    var head = s.review === "running" ? "Reviewing: " + r.done + " of " + r.total + " moves\u2026"
      : s.review === "stopped" ? "Review stopped at move " + r.done + " of " + r.total + "."
      : "Review: " + r.total + " moves.";
    var html = "<div class=\"depth\">" + esc(head) + "</div>" + r.graph;
    if (r.marked.length) {
      html += "<ol class=\"marked\">" + r.marked.map(function (m) {
        return "<li data-ply=\"" + m.ply + "\" data-mark=\"" + esc(m.mark) + "\"><b>" + m.ply + ". " + esc(m.move) + " " +
          esc(m.mark) + "</b> (" + esc(m.colour) + ") better: " + esc(m.best) + "</li>";
      }).join("") + "</ol>";
    } else if (r.done) {
      html += "<div class=\"depth\">No mistakes marked so far.</div>";
    }
    if (s.review === "ready") {
      html += "<a href=\"/api/game/" + s.id + "/review\" target=\"_blank\" rel=\"noopener\">Open the review page</a>";
    }
    box.innerHTML = html;
    var svg = box.querySelector("svg");
    if (svg) { svg.removeAttribute("width"); svg.removeAttribute("height"); }
  }

  $("review").addEventListener("click", function (ev) {
    var at = ev.target.closest("[data-ply]");
    if (at) { showPly(parseInt(at.getAttribute("data-ply"), 10)); }
  });

  function esc(text) {
    return String(text).replace(/[&<>"]/g, function (c) { return {"&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;"}[c]; });
  }

  function render(s) {
    if (!s || !s.svg || mode !== "game") { return; }
    if (state && s.id === state.id && s.version < state.version) { return; } // an older update
    if (!state || s.id !== state.id) { viewPly = null; connect(s.id); }
    state = s;
    boardEl.setAttribute("data-gamestring", s.gamestring);
    boardEl.setAttribute("data-setup", s.setup || "");
    if (viewPly === null || viewPly === s.ply) {
      viewPly = null;
      drawBoard(s.svg, s.picks);
    }
    $("status").textContent = statusText(s);
    $("status").className = "status" + (s.end ? " over" : s.thinking ? " thinking" : "");
    $("info").textContent = "";
    var passButton = document.querySelector('[data-action="pass"]');
    passButton.hidden = !s.pass_only;
    document.querySelector('[data-action="undo"]').disabled = s.ply === 0 && !s.end;
    ["resign", "draw", "hint"].forEach(function (a) {
      document.querySelector('[data-action="' + a + '"]').disabled = s.over;
    });
    $("pgn").setAttribute("href", "/api/game/" + s.id + "/pgn");
    var hint = $("hint");
    if (s.hint) {
      hint.hidden = false;
      hint.setAttribute("data-hint", s.hint.move);
      hint.innerHTML = "<b>Hint: " + esc(s.hint.move) + "</b> \u2014 " + esc(s.hint.reason);
    } else {
      hint.hidden = true;
      hint.removeAttribute("data-hint");
    }
    renderReview(s);
    if (s.error) { message(s.error); }
    renderMoves(s);
    renderAnalysis(s);
  }

  // --- the server ------------------------------------------------------------------------

  function connect(id) {
    if (socket) { socket.onclose = null; socket.close(); }
    var ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws/" + id);
    ws.onmessage = function (ev) { render(JSON.parse(ev.data)); };
    ws.onclose = function () {
      if (socket === ws) { setTimeout(function () { if (socket === ws && state) { connect(state.id); } }, 1000); }
    };
    socket = ws;
  }

  function act(action, body) {
    if (!state) { return Promise.resolve(null); }
    message("");
    return api("/api/game/" + state.id + "/" + action, body || {}).then(function (s) {
      if (s) { render(s); }
      return s;
    });
  }

  function opened(s) {
    if (!s) { return; }
    leavePuzzles();
    message("");
    history.replaceState(null, "", "/?id=" + s.id);
    viewPly = null;
    render(s);
  }

  function showPly(ply) {
    if (!state) { return; }
    ply = Math.max(0, Math.min(state.ply, ply));
    if (ply === state.ply) { viewPly = null; render(state); return; }
    api("/api/game/" + state.id + "/at/" + ply).then(function (v) {
      if (!v) { return; }
      viewPly = ply;
      boardEl.setAttribute("data-gamestring", v.gamestring);
      drawBoard(v.svg, null);
      $("status").textContent = statusText(state);
      renderMoves(state);
    });
  }

  // --- the player's input ----------------------------------------------------------------

  // Drag to move: press on a piece the player may pick, drag it onto a lit destination, let go.
  // A press that does not move is a click (click-click stays as it was).
  var drag = null;        // {name, el, x, y, moved, svg point of the press}
  var DRAG_START = 6;     // pixels the pointer must move before a press becomes a drag

  function svgPoint(svg, ev) {
    var pt = svg.createSVGPoint();
    pt.x = ev.clientX; pt.y = ev.clientY;
    return pt.matrixTransform(svg.getScreenCTM().inverse());
  }

  boardEl.addEventListener("pointerdown", function (ev) {
    var piece = ev.target.closest("g.piece[data-piece]");
    if (!piece || ev.button !== 0) { return; }
    drag = {name: piece.getAttribute("data-piece"), el: piece, x: ev.clientX, y: ev.clientY, moved: false,
            from: svgPoint(boardEl.querySelector("svg"), ev)};
  });

  boardEl.addEventListener("pointermove", function (ev) {
    if (!drag) { return; }
    if (!drag.moved) {
      if (Math.abs(ev.clientX - drag.x) + Math.abs(ev.clientY - drag.y) < DRAG_START) { return; }
      drag.moved = true;
      if (selected !== drag.name) { pick(drag.name, drag.el); }
      drag.el.classList.add("dragging");
    }
    var p = svgPoint(boardEl.querySelector("svg"), ev);
    drag.el.setAttribute("transform", "translate(" + (p.x - drag.from.x).toFixed(1) + "," + (p.y - drag.from.y).toFixed(1) + ")");
    ev.preventDefault();
  });

  function endDrag(ev, drop) {
    var d = drag;
    drag = null;
    if (!d || !d.moved) { return; }
    d.el.classList.remove("dragging");
    d.el.removeAttribute("transform");
    suppressClick = true; // the click that follows a drag is not a pick
    setTimeout(function () { suppressClick = false; }, 0);
    var under = drop && document.elementFromPoint(ev.clientX, ev.clientY);
    var dest = under && under.closest && under.closest(".dest[data-move]");
    if (dest) { clearPick(); sendMove(dest.getAttribute("data-move")); }
  }
  var suppressClick = false;
  boardEl.addEventListener("pointerup", function (ev) { endDrag(ev, true); });
  boardEl.addEventListener("pointercancel", function (ev) { endDrag(ev, false); });
  boardEl.addEventListener("dragstart", function (ev) { ev.preventDefault(); });

  boardEl.addEventListener("click", function (ev) {
    if (suppressClick) { suppressClick = false; return; }
    var dest = ev.target.closest(".dest[data-move]");
    if (dest) { clearPick(); sendMove(dest.getAttribute("data-move")); return; }
    var piece = ev.target.closest("g.piece");
    if (piece && piece.hasAttribute("data-piece")) {
      if (selected === piece.getAttribute("data-piece")) { clearPick(); return; }
      pick(piece.getAttribute("data-piece"), piece);
      window.hiveaiTimings.push(performance.now() - ev.timeStamp);
    } else {
      clearPick();
    }
    if (piece) {
      var title = piece.querySelector("title");
      $("info").textContent = title ? title.textContent : "";
    }
  });

  document.addEventListener("click", function (ev) {
    var button = ev.target.closest("[data-action]");
    if (!button || button.closest("dialog")) { return; }
    var action = button.getAttribute("data-action");
    if (action === "pgn" || action === "play") { return; }
    ev.preventDefault();
    if (action === "new") { $("newdialog").showModal(); return; }
    if (action === "setup") { openSetup(); return; }
    if (action === "import") { $("importdialog").showModal(); return; }
    if (action === "games") { listGames(); return; }
    if (action === "puzzles") { openPuzzles(); return; }
    if (action === "puzzle-next") { puzzleAct("next", puzzleFilters()); return; }
    if (action === "puzzle-retry") { puzzleAct("retry"); return; }
    if (action === "puzzle-hint") { puzzleAct("hint"); return; }
    if (action === "theme") { theme(document.documentElement.classList.contains("dark") ? "light" : "dark"); return; }
    if (action === "pass") { act("move", {move: "pass"}); return; }
    if (action === "analyse") { act("analyse", {on: !(state && state.analysing)}); return; }
    if (action === "playon") {
      if (!state) { return; }
      api("/api/game/" + state.id + "/playon", {ply: viewPly === null ? state.ply : viewPly}).then(opened);
      return;
    }
    act(action);
  });

  document.querySelector(".steps").addEventListener("click", function (ev) {
    var b = ev.target.closest("[data-step]");
    if (!b || !state) { return; }
    var now = viewPly === null ? state.ply : viewPly;
    var step = b.getAttribute("data-step");
    showPly(step === "first" ? 0 : step === "back" ? now - 1 : step === "forward" ? now + 1 : state.ply);
  });

  $("moves").addEventListener("click", function (ev) {
    var li = ev.target.closest("li[data-ply]");
    if (li) { showPly(parseInt(li.getAttribute("data-ply"), 10)); }
  });

  $("moveform").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var input = $("movetext");
    var text = input.value.trim();
    if (!text) { return; }
    sendMove(text).then(function (s) { if (s) { input.value = ""; } });
  });

  $("newform").addEventListener("submit", function (ev) {
    if (ev.submitter && ev.submitter.value !== "start") { return; }
    var f = ev.target.elements;
    api("/api/new", {game: f.game.value, colour: f.colour.value, level: f.level.value,
                     seconds: f.seconds.value || null, gamestring: f.gamestring.value}).then(opened);
  });

  $("importform").addEventListener("submit", function (ev) {
    if (ev.submitter && ev.submitter.value !== "import") { return; }
    var file = $("importfile").files[0];
    var send = function (text) { api("/api/import", {text: text}).then(opened); };
    if (file) {
      var reader = new FileReader();
      reader.onload = function () { send(String(reader.result)); };
      reader.readAsText(file);
    } else {
      send($("importtext").value);
    }
  });

  // A move the player made on the board or typed: to the game, or to the puzzle's judge.
  function sendMove(text) {
    if (mode === "puzzle") {
      var c = puzzles && puzzles.current;
      return puzzleAct("move", {move: text, ply: c ? c.played.length : 0});
    }
    return act("move", {move: text});
  }

  // --- puzzles ------------------------------------------------------------------------------
  // The server judges every move (by proof), answers with the defence, keeps the ratings and the
  // history; the page draws its view: the board, the task, the player's rating and streak.

  function enterPuzzles() {
    if (mode === "puzzle") { return; }
    mode = "puzzle";
    document.body.classList.add("puzzling");
    if (socket) { socket.onclose = null; socket.close(); socket = null; }
    state = null; // a game opened later connects afresh
    viewPly = null;
    message("");
    history.replaceState(null, "", "/?puzzles");
  }

  function leavePuzzles() {
    if (mode !== "puzzle") { return; }
    mode = "game";
    puzzles = null;
    drawn = "";
    document.body.classList.remove("puzzling");
  }

  // body: undefined opens the puzzle on the board (a new one if there is none), else {id} or filters.
  function openPuzzles(body) {
    enterPuzzles();
    $("status").textContent = "Loading the puzzles\u2026";
    var ask = body === undefined ? api("/api/puzzles") : api("/api/puzzles/next", body);
    return ask.then(function (v) {
      if (!v && body !== undefined) { return openPuzzles(); } // no such puzzle (said above the board): the one there was
      if (v && !v.current) { return api("/api/puzzles/next", {}).then(renderPuzzles); }
      return renderPuzzles(v);
    });
  }

  function puzzleFilters() {
    return {theme: $("puzzletheme").value, game_type: $("puzzlegame").value};
  }

  function puzzleAct(action, body) {
    body = body || {};
    var c = puzzles && puzzles.current;
    if (c && action !== "next") { body.attempt = c.attempt; }
    message("");
    $("status").classList.add("thinking");
    return api("/api/puzzles/" + action, body).then(function (v) {
      $("status").classList.remove("thinking");
      if (v || puzzles) { renderPuzzles(v || puzzles); } // refused: the view as it was (the filters too)
      return v;
    });
  }

  function fillSelect(select, first, options, value) {
    var html = "<option value=\"\">" + esc(first) + "</option>" + options.map(function (o) {
      return "<option value=\"" + esc(o[0]) + "\">" + esc(o[1]) + " (" + o[2] + ")</option>";
    }).join("");
    if (select.getAttribute("data-options") !== html) { select.innerHTML = html; select.setAttribute("data-options", html); }
    select.value = value || "";
  }

  function signed(n) { return (n > 0 ? "+" : n < 0 ? "\u2212" : "\u00b1") + Math.abs(n); }

  function renderPuzzles(v) {
    if (!v || mode !== "puzzle") { return v; }
    puzzles = v;
    var c = v.current, p = v.player, panel = $("puzzlepanel");
    panel.setAttribute("data-puzzle-rating", p.rating);
    panel.setAttribute("data-puzzle-streak", p.streak);
    $("puzzlerating").textContent = p.rating + (p.provisional ? "?" : "");
    $("puzzlerating").title = "Glicko-2 rating \u00b1" + p.rd + (p.provisional ? " (still settling)" : "") +
      "; solved " + p.solved + ", missed " + p.failed;
    $("puzzlestreak").textContent = p.streak + (p.best_streak > p.streak ? " (best " + p.best_streak + ")" : "");
    fillSelect($("puzzletheme"), "Any theme", v.themes, v.filters.theme);
    fillSelect($("puzzlegame"), "Any game", v.game_types.map(function (g) { return [g[0], g[0], g[1]]; }), v.filters.game_type);
    renderPuzzleHistory(v);
    ["puzzle", "attempt", "puzzle-status", "puzzle-rated", "puzzle-hint", "refutation"].forEach(function (k) {
      panel.setAttribute("data-" + k, "");
    });
    if (!c) {
      $("status").textContent = "No puzzle on the board: take the next one.";
      $("puzzlemessage").textContent = "";
      return v;
    }
    panel.setAttribute("data-puzzle", c.puzzle);
    panel.setAttribute("data-attempt", c.attempt);
    panel.setAttribute("data-puzzle-status", c.status);
    panel.setAttribute("data-puzzle-rated", c.rated ? "true" : "false");
    panel.setAttribute("data-puzzle-hint", c.hint || "");
    panel.setAttribute("data-refutation", c.refutation.join(";"));
    showPuzzleBoard();
    $("status").textContent = c.task;
    $("status").className = "status" + (c.status === "solved" ? " solved" : c.status === "failed" ? " over" : "");
    $("puzzlemessage").textContent = c.message;
    $("puzzlemessage").className = "puzzlemessage " + c.status;
    var delta = $("puzzledelta");
    delta.textContent = c.delta === null ? "" : signed(c.delta);
    delta.className = "delta" + (c.delta > 0 ? " up" : c.delta < 0 ? " down" : "");
    document.querySelector('[data-action="puzzle-hint"]').disabled = c.status !== "playing" || !!c.hint;
    var about = "Puzzle " + c.puzzle.slice(0, 8) + " \u00b7 " + c.game_type + " \u00b7 " +
      (c.rated ? "rated" : "not rated (played before)");
    if (c.puzzle_rating !== null) { about += " \u00b7 puzzle rating " + c.puzzle_rating; }
    if (c.themes) { about += " \u00b7 " + c.themes.map(function (t) { return t[1]; }).join(", "); }
    $("puzzleabout").textContent = about;
    renderPuzzleLines(c);
    return v;
  }

  // The board as the attempt stands (the wrong move and its refutation's arrow after a miss).
  function showPuzzleBoard() {
    var c = puzzles.current;
    boardEl.setAttribute("data-gamestring", c.gamestring);
    boardEl.setAttribute("data-setup", "");
    drawBoard(c.svg, c.picks);
    boardEl.querySelectorAll("[data-hinted]").forEach(function (g) { g.removeAttribute("data-hinted"); g.classList.remove("hinted"); });
    boardEl.querySelectorAll(".hintring").forEach(function (r) { r.remove(); });
    var piece = c.hint && boardEl.querySelector('g.piece[data-name="' + c.hint + '"]');
    if (piece) { // the piece lit: a ring around it (a piece in hand is drawn at 0.6 of the size)
      piece.setAttribute("data-hinted", "");
      piece.classList.add("hinted");
      var ring = document.createElementNS(SVG_NS, "polygon");
      ring.setAttribute("class", "hintring");
      ring.setAttribute("points", hexPoints(parseFloat(piece.getAttribute("data-x")), parseFloat(piece.getAttribute("data-y")),
                                            piece.hasAttribute("data-hand") ? 21 : 33));
      boardEl.querySelector("svg").appendChild(ring);
    }
    $("puzzlelines").querySelectorAll("li.current").forEach(function (li) { li.classList.remove("current"); });
  }

  function renderPuzzleLines(c) {
    var box = $("puzzlelines"), html = "";
    function line(name, title, moves, first) {
      html += "<div data-line=\"" + name + "\"><b>" + title + "</b><ol>" + moves.map(function (m, i) {
        return "<li data-ply=\"" + (i + 1) + "\">" + esc(m) + (i === 0 && first ? " " + first : "") + "</li>";
      }).join("") + "</ol></div>";
    }
    if (c.status === "failed") { line("refutation", "Refutation", [c.wrong].concat(c.refutation), "(yours)"); }
    if (c.solution) { line("solution", "Solution", c.solution, ""); }
    box.innerHTML = html;
    box.hidden = !html;
  }

  $("puzzlelines").addEventListener("click", function (ev) {
    var li = ev.target.closest("li[data-ply]");
    if (!li || !puzzles || !puzzles.current) { return; }
    if (li.classList.contains("current")) { showPuzzleBoard(); return; } // a second click: back to the attempt
    var which = li.closest("[data-line]").getAttribute("data-line");
    api("/api/puzzles/line/" + which + "/" + li.getAttribute("data-ply")).then(function (v) {
      if (!v || mode !== "puzzle") { return; }
      boardEl.setAttribute("data-gamestring", v.gamestring);
      drawBoard(v.svg, null);
      $("puzzlelines").querySelectorAll("li.current").forEach(function (x) { x.classList.remove("current"); });
      li.classList.add("current");
    });
  });

  function renderPuzzleHistory(v) {
    var ol = $("puzzlehistory");
    ol.innerHTML = "";
    var marks = {solved: "\u2713", failed: "\u2717", skipped: "\u2013", playing: "\u2026"};
    v.history.forEach(function (h) {
      var li = document.createElement("li");
      li.setAttribute("data-attempt", h.attempt);
      li.setAttribute("data-puzzle", h.puzzle);
      li.setAttribute("data-result", h.status);
      li.setAttribute("data-rated", h.rated ? "true" : "false");
      li.className = h.status;
      var what = h.kind === "win" ? "win in " + h.moves : "defence";
      var text = marks[h.status] + " " + h.game_type + " \u00b7 " + what + (h.hint ? " \u00b7 hint" : "");
      if (h.delta !== null) { text += " \u00b7 " + signed(h.delta) + " \u2192 " + h.rating; }
      else if (!h.rated) { text += " \u00b7 not rated"; }
      li.textContent = text;
      li.title = "Puzzle " + h.puzzle + ": click to play it again";
      ol.appendChild(li);
    });
  }

  $("puzzlehistory").addEventListener("click", function (ev) {
    var li = ev.target.closest("li[data-puzzle]");
    if (li && li.getAttribute("data-result") !== "playing") { puzzleAct("next", {id: li.getAttribute("data-puzzle")}); }
  });

  ["puzzletheme", "puzzlegame"].forEach(function (id) {
    $(id).addEventListener("change", function () { puzzleAct("next", puzzleFilters()); });
  });

  // --- the set-up editor ----------------------------------------------------------------------
  // The editor keeps the pieces as [bug, q, r] (bug without its number: the server numbers them),
  // listed bottom first; the server draws them, names the cells a bug may go on and says what,
  // if anything, no game could reach.

  var setup = {entries: [], tool: null, view: null};

  function setupText() {
    return $("setupgame").value + ";" + $("setupturn").value +
      setup.entries.map(function (e) { return ";" + e[0] + "@" + e[1] + "," + e[2]; }).join("");
  }

  function setupProblem(text, ok) {
    var box = $("setupproblem");
    box.textContent = text || "";
    box.className = "setupproblem" + (ok ? " ok" : "");
    box.setAttribute("data-setup-problem", ok ? "" : (text || ""));
  }

  var setupAsked = 0; // answers may come back out of order: only the latest question's is drawn

  function refreshSetup() {
    var asked = ++setupAsked;
    return api("/api/setup", {setup: setupText()}, function (e) { if (asked === setupAsked) { setupProblem(e); } })
      .then(function (v) {
        if (v && asked === setupAsked) { drawSetup(v); }
        return v;
      });
  }

  function drawSetup(v) {
    setup.view = v;
    setup.entries = v.entries;
    var area = $("setupboard");
    area.innerHTML = v.svg;
    area.setAttribute("data-setup-position", v.setup);
    var svg = area.querySelector("svg");
    svg.removeAttribute("width"); svg.removeAttribute("height");
    svg.querySelectorAll("[data-piece]").forEach(function (g) {
      g.setAttribute("data-name", g.getAttribute("data-piece")); g.removeAttribute("data-piece");
    });
    var layer = document.createElementNS(SVG_NS, "g");
    v.targets.forEach(function (t) {
      var g = document.createElementNS(SVG_NS, "g");
      g.setAttribute("class", "target");
      g.setAttribute("data-setup-cell", t[0] + "," + t[1]);
      g.setAttribute("data-height", t[4]);
      var hex = document.createElementNS(SVG_NS, "polygon");
      hex.setAttribute("points", hexPoints(t[2], t[3], DEST_RADIUS + 3));
      g.appendChild(hex);
      layer.appendChild(g);
    });
    svg.appendChild(layer);
    ["white", "black"].forEach(function (colour) {
      var box = $("palette-" + colour);
      box.innerHTML = "";
      v.hand[colour].forEach(function (h) {
        var b = document.createElement("button");
        b.type = "button";
        b.className = colour;
        b.setAttribute("data-setup-piece", h[0]);
        b.setAttribute("aria-pressed", setup.tool === h[0] ? "true" : "false");
        b.title = h[1] + " of " + h[2] + " left";
        b.innerHTML = esc(h[0]) + "<small>" + h[1] + "</small>";
        b.disabled = h[1] === 0;
        box.appendChild(b);
      });
    });
    document.querySelector('[data-setup-piece="remove"]').setAttribute("aria-pressed", setup.tool === "remove" ? "true" : "false");
    $("setupgame").value = v.game_type;
    setupProblem(v.problem || "A position a game can reach: " + v.setup.split(";")[1] + ".", !v.problem);
  }

  function openSetup() {
    if (!$("setupgame").options.length) {
      $("setupgame").innerHTML = $("newgame").innerHTML;
      $("setuplevel").innerHTML = $("newlevel").innerHTML;
    }
    if (state) { $("setupgame").value = state.game_type; }
    setup.entries = [];
    $("setupdialog").showModal();
    refreshSetup();
  }

  $("setupdialog").addEventListener("click", function (ev) {
    var tool = ev.target.closest("[data-setup-piece]");
    if (tool) {
      setup.tool = setup.tool === tool.getAttribute("data-setup-piece") ? null : tool.getAttribute("data-setup-piece");
      $("setupdialog").querySelectorAll("[data-setup-piece]").forEach(function (b) {
        b.setAttribute("aria-pressed", b.getAttribute("data-setup-piece") === setup.tool ? "true" : "false");
      });
      return;
    }
    var cell = ev.target.closest("[data-setup-cell]");
    if (cell) {
      var qr = cell.getAttribute("data-setup-cell").split(",").map(Number);
      if (setup.tool === "remove") {
        for (var i = setup.entries.length - 1; i >= 0; i--) {
          if (setup.entries[i][1] === qr[0] && setup.entries[i][2] === qr[1]) { setup.entries.splice(i, 1); break; }
        }
      } else if (setup.tool) {
        setup.entries.push([setup.tool, qr[0], qr[1]]);
      } else {
        setupProblem("Pick a bug (or the eraser) first.");
        return;
      }
      refreshSetup();
      return;
    }
    var button = ev.target.closest("[data-action]");
    if (!button) { return; }
    var action = button.getAttribute("data-action");
    if (action === "setup-clear") { setup.entries = []; refreshSetup(); }
    if (action === "setup-current" && state) {
      ++setupAsked;
      api("/api/setup", {game_id: state.id}, setupProblem).then(function (v) {
        if (v) { $("setupturn").value = v.turn === "white" ? "White" : "Black"; drawSetup(v); }
      });
    }
    if (action === "setup-play" || action === "setup-analyse") {
      var analyse = action === "setup-analyse";
      api("/api/new", {setup: setupText(), colour: analyse ? "people" : $("setupcolour").value,
                       level: $("setuplevel").value}, setupProblem).then(function (s) {
        if (!s) { return; }
        $("setupdialog").close();
        opened(s);
        if (analyse) { act("analyse", {on: true}); }
      });
    }
  });
  ["setupgame", "setupturn"].forEach(function (id) {
    $(id).addEventListener("change", function () {
      if (id === "setupgame") { setup.entries = []; } // another game's bugs
      refreshSetup();
    });
  });

  function listGames() {
    api("/api/games").then(function (data) {
      if (!data) { return; }
      var ol = $("gamelist");
      ol.innerHTML = "";
      data.games.forEach(function (g) {
        var li = document.createElement("li");
        var a = document.createElement("a");
        a.href = "/?id=" + g.id;
        a.textContent = "#" + g.id + " " + g.game_type + " \u00b7 " + g.plies + " moves \u00b7 " + g.state +
          " \u00b7 " + new Date(g.updated * 1000).toLocaleString();
        li.appendChild(a);
        ol.appendChild(li);
      });
      $("gamesdialog").showModal();
    });
  }

  function theme(name) {
    document.documentElement.classList.toggle("dark", name === "dark");
    document.documentElement.classList.toggle("light", name !== "dark");
    try { localStorage.setItem("hiveai-theme", name); } catch (e) { /* private mode: not kept */ }
  }

  // --- start ----------------------------------------------------------------------------

  function fillForm() {
    var games = ["Base", "Base+M", "Base+L", "Base+P", "Base+ML", "Base+MP", "Base+LP", "Base+MLP", "Critters"];
    $("newgame").innerHTML = games.map(function (g) {
      return "<option" + (g === "Base+MLP" ? " selected" : "") + ">" + g + "</option>";
    }).join("");
    var levels = "";
    for (var i = 1; i <= 10; i++) { levels += "<option" + (i === 5 ? " selected" : "") + ">" + i + "</option>"; }
    $("newlevel").innerHTML = levels;
  }

  function start() {
    var saved = null;
    try { saved = localStorage.getItem("hiveai-theme"); } catch (e) { saved = null; }
    theme(saved || (window.matchMedia && matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light"));
    fillForm();
    var q = new URLSearchParams(location.search);
    if (q.has("puzzles") || q.get("puzzle")) {
      openPuzzles(q.get("puzzle") ? {id: q.get("puzzle")} : undefined);
    } else if (q.get("game") || q.get("colour") || q.get("level")) {
      // URLSearchParams turns a literal "+" into a space; the server reads "Base MLP" as Base+MLP.
      api("/api/new", {game: q.get("game") || "Base+MLP", colour: q.get("colour") || "white",
                       level: q.get("level") || 5, seconds: q.get("seconds") || null,
                       gamestring: q.get("gamestring") || ""}).then(opened);
    } else if (q.get("id")) {
      api("/api/game/" + encodeURIComponent(q.get("id"))).then(opened);
    } else {
      api("/api/games").then(function (data) {
        var last = data && data.games.filter(function (g) { return g.state === "InProgress" || g.state === "NotStarted"; })[0];
        if (last) { api("/api/game/" + last.id).then(opened); }
        else { api("/api/new", {game: "Base+MLP", colour: "white", level: 3}).then(opened); }
      });
    }
  }
  start();
})();
