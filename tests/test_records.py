"""Game records from where people play (hiveai.records): boardspace.net SGF in its archives'
dialects, hivegame.com PGN, and the round trips between every format hiveai writes.

The boardspace games are real: Mzinga's test assets (https://github.com/jonthysell/Mzinga,
src/Mzinga.Test/TestAssets/GameRecordings/, MIT licence), each SGF beside Mzinga's PGN of the
same game. The hivegame.com files follow that site's download writer
(https://github.com/hiveboardgame/hive, apis/src/components/atoms/download_pgn.rs); see
tests/data/records/README.md.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest

from hiveai.rules.board import Board
from hiveai.rules.outcome import BLACK, WHITE, Outcome, Termination
from hiveai.records import GameRecord, GameRecordError, read_all, read_game, read_games, render, write_game

DATA = Path(__file__).parent / "data" / "records"
SGFS = sorted((DATA / "boardspace").glob("*.sgf"))
HIVEGAME = DATA / "hivegame"


SGF_HEAD = 'GM[27]VV[1]\nSU[hive]\nP0[id "ann"]\nP1[id "bob"]\n; P0[0 Start P0]\n'


def sgf(body: str, head: str = SGF_HEAD) -> str:
    return "(;\n" + head + body + ")\n"


def cells(record: GameRecord) -> list[int]:
    """The game as move ints (piece and destination cell), ply by ply: equal for the same game
    however two writers name the reference piece."""
    return [m.code for m in record.to_board().move_stack]


def sgf_text(name: str) -> str:
    return (DATA / "boardspace" / name).read_text()


def test_the_boardspace_games_are_there():
    assert len(SGFS) == 19 and all(p.with_suffix(".pgn").is_file() for p in SGFS)


@pytest.mark.parametrize("path", SGFS, ids=lambda p: p.stem)
def test_boardspace_sgf_reads_to_mzingas_game(path):
    sgf, pgn = read_game(path), read_game(path.with_suffix(".pgn"))
    assert cells(sgf) == cells(pgn)
    assert (sgf.game_type, sgf.result, sgf.white, sgf.black, sgf.date) == (
        pgn.game_type, pgn.result, pgn.white, pgn.black, pgn.date)
    assert sgf.site == "boardspace.net" and sgf.format == "sgf"


@pytest.mark.parametrize("name, game_type, outcome", [
    # hive-plm, "move" lines from the robot, the winner's queen surrounded.
    ("HV-Abbo69-WeakBot-2018-10-28-2007.sgf", "Base+MLP", Outcome(WHITE, Termination.QUEEN_SURROUNDED)),
    # SU "hive": Base.
    ("HV-Dumbot-Dargason-2018-11-02-1301.sgf", "Base", Outcome(WHITE, Termination.QUEEN_SURROUNDED)),
    # Capitalised commands, passes implied by an empty turn ("Done" alone), a PMove throw.
    ("HV-Dumbot-Kaur50-2023-01-17-0059.sgf", "Base+MLP", Outcome(BLACK, Termination.QUEEN_SURROUNDED)),
    # SU "hive-plm 2 0 101", RE in Swedish.
    ("HV-Dumbot-Mormor51-2023-05-11-0957.sgf", "Base+MLP", Outcome(WHITE, Termination.QUEEN_SURROUNDED)),
    # 2013: SU "hive-p", pieces without a colour, no RE, pmove throws of either colour.
    ("U!HV-kearf29-Dumbot-2013-04-20-0054.sgf", "Base+P", Outcome(BLACK, Termination.QUEEN_SURROUNDED)),
    # 2013, resigned.
    ("U!HV-kkurtonis-RINGERSOLL-2013-05-22-1657.sgf", "Base+P", Outcome(WHITE, Termination.RESIGNATION)),
    # Offered and accepted draw.
    ("T!HV-Jewdoka-Quodlibet-2020-12-08-2330.sgf", "Base+MLP", Outcome(None, Termination.AGREED_DRAW)),
    # "The game is a draw" after a declined offer, with no word of why.
    ("HV-Dumbot-guest-2018-10-31-1402.sgf", "Base", Outcome(None, Termination.UNKNOWN)),
    # pdropb throws, lower-case "pass".
    ("HV-Quodlibet-Jewdoka-2018-10-10-0140.sgf", "Base+MLP", Outcome(WHITE, Termination.QUEEN_SURROUNDED)),
])
def test_boardspace_dialects(name, game_type, outcome):
    record = read_game(DATA / "boardspace" / name)
    assert record.game_type == game_type and record.outcome == outcome
    board = record.to_board()
    if outcome.termination == Termination.QUEEN_SURROUNDED:
        assert board.state == outcome.result  # a surrounded queen ends the game in hiveai too


def test_commands_that_end_the_game_or_take_a_pick_back():
    moves = ("; P0[1 move W wS1 N 13 .]\n; P0[2 done]\n; P1[3 pick B 1 bA1]\n; P1[4 dropb bA1 rack 1]\n"
             "; P1[5 move B bS1 O 13 wS1-]\n; P1[6 done]\n; P0[7 edit]\n")
    won = read_game(sgf(moves + "; P0[8 WinOnTime]\n; P0[9 done]\n"))
    assert won.moves == ["wS1", "bS1 wS1-"] and won.outcome == Outcome(WHITE, Termination.TIME_FORFEIT)
    assert render([won], "sgf").count("RE[Game won by ann]") == 1  # nothing else in the file says so
    assert read_game(render([won], "sgf")).outcome == Outcome(WHITE, Termination.UNKNOWN)


def test_passes_left_out_of_an_old_archive_are_put_back():
    text = sgf_text("HV-Dumbot-guest-2018-10-31-1402.sgf")
    full = read_game(text)
    assert full.moves.count("pass") >= 5
    # Drop every written pass (and its "done"): the forced passes are implied by whose move it is.
    stripped = re.sub(r"; P1\[\d+ pass\]\n; P1\[\d+ done\]\n", "", text)
    assert stripped.count("pass") < text.count("pass")
    assert cells(read_game(stripped)) == cells(full)


def test_a_file_holding_its_game_twice_is_one_game():
    path = DATA / "boardspace" / "HV-aaronheit-jdokakill-2019-06-22-1750.sgf"
    assert path.read_text().count("(;") == 2 and len(read_games(path)) == 1


def test_a_first_player_with_the_black_pieces_is_white():
    text = sgf_text("HV-Abbo69-WeakBot-2018-10-28-2007.sgf")
    swapped = re.sub(r"\b([wb])(?=[QSBGAMLP]\d?\b)", lambda m: "bw"["wb".index(m.group(1))], text)
    swapped = re.sub(r"(pick|move) ([WB]) ", lambda m: f"{m.group(1)} {'BW'['WB'.index(m.group(2))]} ", swapped)
    assert "pick B 4 bS1" in swapped
    record = read_game(swapped)
    assert cells(record) == cells(read_game(text)) and record.white == "Abbo69"


def test_colourless_pieces_and_single_piece_numbers():
    record = read_game(DATA / "boardspace" / "U!HV-kearf29-Dumbot-2013-04-20-0054.sgf")
    assert record.moves[:3] == ["wG1", "bA1 \\wG1", "wB1 wG1\\"]  # "g1", "A1", "b1" as written
    mormor = read_game(DATA / "boardspace" / "HV-Dumbot-Mormor51-2023-05-11-0957.sgf")
    assert mormor.moves[0] == "wP"  # boardspace's wP1


# --- hivegame.com -------------------------------------------------------------------------------


@pytest.mark.parametrize("name, source, result", [
    ("28-Oct-2018_Abbo69_vs_WeakBot.pgn", "HV-Abbo69-WeakBot-2018-10-28-2007.pgn", "WhiteWins"),
    ("17-Jan-2023_Dumbot_vs_Kaur50.pgn", "HV-Dumbot-Kaur50-2023-01-17-0059.pgn", "BlackWins"),
    ("08-Dec-2020_Jewdoka_vs_Quodlibet.pgn", "T!HV-Jewdoka-Quodlibet-2020-12-08-2330.pgn", "Draw"),
    ("29-Mar-2016_nevir_vs_Bechster.pgn", "U!HV-nevir-Bechster-2016-03-29-1905.pgn", "InProgress"),
])
def test_hivegame_pgn_in_both_result_styles(name, source, result):
    record = read_game(HIVEGAME / name)
    mzinga = read_game(DATA / "boardspace" / source)
    assert record.format == "hivegame" and record.result == result
    assert record.moves == mzinga.moves[:len(record.moves)] and record.white == mzinga.white
    day, month, year = name[:11].split("-")
    assert record.date == f"{year}.{ {'Oct': '10', 'Jan': '01', 'Dec': '12', 'Mar': '03'}[month]}.{day}"
    assert record.outcome is None if result == "InProgress" else record.outcome.result == result
    # hivegame -> Mzinga PGN -> the same game; and back to the site's layout byte for byte.
    back = read_game(render([record], "pgn"))
    assert (back.moves, back.result, back.white, back.black, back.date) == (
        record.moves, record.result, record.white, record.black, record.date)
    if "-" not in read_raw_result(HIVEGAME / name):  # chess style reads, but the site writes BoardStates
        assert render([back], "hivegame") == (HIVEGAME / name).read_text()


def read_raw_result(path: Path) -> str:
    return re.search(r'\[Result "(.*)"\]', path.read_text()).group(1)


# --- round trips --------------------------------------------------------------------------------


@pytest.mark.parametrize("path", SGFS, ids=lambda p: p.stem)
def test_sgf_to_hiveai_to_sgf_is_the_same_game(path):
    record = read_game(path)
    text = render([record], "sgf")
    again = read_game(text)
    assert again == record and cells(again) == cells(record) and again.outcome == record.outcome
    assert render([again], "sgf") == text


def test_written_sgf_references_agree_with_its_cells():
    """Read our SGF the way Mzinga does, by the reference alone ('.' = onto the piece that is
    there): the same game as reading it by the cells."""
    record = read_game(DATA / "boardspace" / "HV-Dumbot-Kaur50-2023-01-17-0059.sgf")
    text = render([record], "sgf")
    board = Board(record.game_type)
    at: dict[str, str] = {}  # boardspace cell -> the piece on top
    for m in re.finditer(r"\[\d+ (P?Move \w (\w+) (\w \d+) (\S+)|Pass)\]", text):
        if m.group(1) == "Pass":
            board.play("pass")
            continue
        piece = re.sub(r"([MLP])1$", r"\1", m.group(2))
        ref = re.sub(r"([MLP])1\b", r"\1", m.group(4).replace("\\\\", "\\"))
        if ref == ".":
            ref = at.get(m.group(3), "")
        board.play(f"{piece} {ref}".strip())
        at = {cell: p for cell, p in at.items() if p != piece}
        at[m.group(3)] = piece
    assert [mv.code for mv in board.move_stack] == cells(record)


def test_pgn_to_gamestring_to_pgn():
    record = read_game(DATA / "boardspace" / "HV-WeakBot-eebygum-2018-10-31-1613.pgn")
    line = render([record], "gamestring")
    assert line.count("\n") == 1
    back = read_game(render([read_game(line)], "pgn"))
    assert (back.game_type, back.moves, back.result) == (record.game_type, record.moves, record.result)


def test_passes_in_every_format():
    record = read_game(DATA / "boardspace" / "HV-Dumbot-guest-2018-10-31-1402.pgn")
    assert "pass" in record.moves
    for to in ("pgn", "hivegame", "gamestring", "sgf"):
        assert cells(read_game(render([record], to))) == cells(record), to


def test_every_format_round_trips_a_resignation():
    board = Board.parse("Base;InProgress;White[3];wS1;bS1 wS1-;wQ -wS1;bQ bS1-")
    record = GameRecord.from_board(board, "BlackWins", tags={"White": "ann", "Black": "bob", "Date": "2024.03.05",
                                                              "Termination": "resignation"})
    for to in ("pgn", "hivegame", "sgf"):
        back = read_game(render([record], to))
        assert (back.moves, back.result, back.white, back.black, back.date) == (
            record.moves, "BlackWins", "ann", "bob", "2024.03.05")
        if to != "hivegame":  # the site's file has no place for how the game ended
            assert back.outcome == Outcome(BLACK, Termination.RESIGNATION)


# --- several games, archives, lists --------------------------------------------------------------


def test_several_games_in_one_pgn_and_one_sgf_file():
    a, b = (read_game(DATA / "boardspace" / n) for n in ("HV-Abbo69-WeakBot-2018-10-28-2007.pgn",
                                                         "T!HV-dube-Quodlibet-2021-12-11-1632.pgn"))
    for to in ("pgn", "sgf", "gamestring"):
        games = read_games(render([a, b], to))
        assert [cells(g) for g in games] == [cells(a), cells(b)]
    with pytest.raises(GameRecordError, match="expected one game, found 2"):
        read_game(render([a, b], "pgn"))


def test_a_zip_of_records(tmp_path):
    archive = tmp_path / "games.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.write(SGFS[0], "sgf/" + SGFS[0].name)
        z.write(HIVEGAME / "17-Jan-2023_Dumbot_vs_Kaur50.pgn", "kaur.pgn")
        z.writestr("openings.txt", "Base;NotStarted;White[1]\nBase;InProgress;Black[1];wA1\n")
    games = read_games(archive)
    assert [g.format for g in games] == ["hivegame", "gamestring", "gamestring", "sgf"]
    assert games[3].source == f"{archive}:sgf/{SGFS[0].name}"


def test_a_bare_list_of_movestrings():
    record = read_game("wS1\nbP wS1-\n3. wQ -wS1\n")
    assert (record.game_type, record.moves, record.format) == ("Base+P", ["wS1", "bP wS1-", "wQ -wS1"], "moves")


# --- refusals -----------------------------------------------------------------------------------


@pytest.mark.parametrize("text, message", [
    # The issue's own example: a placement touching an enemy piece, named with line, move and rule.
    (sgf("; P0[1 pick W 4 wS1]\n; P0[2 dropb wS1 N 13 .]\n; P0[3 done]\n"
         "; P1[4 move B bS1 O 13 wS1-]\n; P1[5 done]\n"
         "; P0[6 move W wA1 M 13 -wS1]\n; P0[7 done]\n"
         "; P1[8 pick B 1 bA1]\n; P1[9 dropb bA1 L 13 -wA1]\n; P1[10 done]\n"),
     "x.sgf:15: move 4 (P1 'dropb bA1 L 13 -wA1'): You must place a piece next to your own pieces"),
    (sgf("; P0[1 move W wQ N 13 .]\n; P0[2 done]\n"),
     "x.sgf:7: move 1 (P0 'move W wQ N 13 .'): boardspace allows the queen on the first turn; "
     "hiveai follows the tournament rule"),
    (sgf("; P0[1 jump W wS1 N 13 .]\n"), "x.sgf:7: unknown boardspace command 'jump W wS1 N 13 .' (P0)"),
    (sgf("", head="GM[1]\n"), "x.sgf: not a Hive game (GM[1]"),
    (sgf("", head="GM[27]SU[hive-ultimate]\n"), "x.sgf: boardspace variant 'hive-ultimate' is not one UHP plays"),
    (sgf("; P0[1 dropb s1 N 13 .]\n; P0[2 done]\n; P1[3 dropb s1 O 13 .]\n; P1[4 done]\n"
         "; P0[5 dropb zz N 12 .]\n"), "x.sgf:11: move 3 (P0 'dropb zz N 12 .'): 'zz' is not a piece"),
    (sgf("; P0[1 move W wS1 N 13 .]\n; P0[2 done]\n; P1[3 move B bS1 O x .]\n"),
     "x.sgf:9: 'move B bS1 O x .': O x is not a boardspace cell"),
    (sgf("; P0[1 move W wS1 N 13 .]\n; P0[2 done]\n; P0[3 move W wS2 M 13 -wS1]\n; P0[4 done]\n"),
     "x.sgf:9: move 2 (P0 'move W wS2 M 13 -wS1'): P0 moves out of turn"),
    (sgf("; P0[1 move W wS1 N 13 .]\n; P0[2 done]\n; P1[3 move B bS1 O 13 wS1-]\n; P1[4 done]\n"
         "; P0[5 move W wS1 M 13 -wS1]\n; P0[6 done]\n"),
     "x.sgf:11: move 3 (P0 'move W wS1 M 13 -wS1'): You can't move a piece in play until you've played your "
     "Queen Bee."),
    ("no game here", "x.sgf:1: Malformed GameString or MoveString 'no game here' (nor is the file PGN or SGF)"),
    ("wS1\nbQ wS9-\n", "x.sgf:2: move 2 ('bQ wS9-'): Unable to parse move"),
    ("", "x.sgf: no game in the file"),
    (sgf("; P0[1 pickb N 13]\n"), "x.sgf:7: 'pickb N 13' (P0): 'pickb' takes 3 arguments"),
    (sgf("; P0[1 move W wM1 N 13 .]\n; P0[2 done]\n"), "x.sgf:7: move 1 (P0 'move W wM1 N 13 .'): wM is not in a "
                                                         "Base game."),
    ('[GameType "Base"]\n[Result "Unkown"]\n[Date "31-Feb-2024_00:00:00"]\n\n1. wQ\n',
     "x.sgf:5: move 1 ('wQ'): You can't play your Queen Bee on your first turn."),
    ('[GameType "Base"]\n[Result "2-0"]\n', 'x.sgf:2: unknown result "2-0"'),
])
def test_bad_records_are_refused_with_file_move_and_rule(tmp_path, text, message):
    path = tmp_path / "x.sgf"
    path.write_text(text)
    with pytest.raises(GameRecordError) as e:
        read_game(path)
    assert str(e.value).replace(str(tmp_path) + "/", "").startswith(message)


def test_unreadable_files_are_refused(tmp_path):
    (tmp_path / "bin.pgn").write_bytes(b"\xff\xfe\x00junk")
    (tmp_path / "bad.zip").write_bytes(b"PK\x03\x04 not really")
    messages = [str(r.error) for r in read_all([tmp_path / "bin.pgn", tmp_path / "bad.zip", tmp_path / "none"])]
    assert "not a text file" in messages[0] and "damaged zip" in messages[1] and "no such file" in messages[2]


def test_an_sgf_cannot_hold_a_hive_past_column_z():
    # Black's pieces in one line east of White's first piece: the thirteenth lands past Z.
    white = ["wS1", "wQ", "wS2", "wB1", "wB2", "wG1", "wG2", "wG3", "wA1", "wA2", "wA3", "wM", "wL"]
    black = ["bS1", "bQ", "bS2", "bB1", "bB2", "bG1", "bG2", "bG3", "bA1", "bA2", "bA3", "bM", "bL"]
    board = Board("Base+MLP")
    board.play("wS1")
    board.play("bS1 wS1-")
    for i in range(1, 13):
        board.play(f"{white[i]} -{white[i - 1]}")
        board.play(f"{black[i]} {black[i - 1]}-")
    with pytest.raises(GameRecordError, match="past boardspace's board"):
        render([GameRecord.from_board(board)], "sgf")


# --- writing ------------------------------------------------------------------------------------


def test_write_game_is_whole_and_keeps_the_date_of_the_game_it_replaces(tmp_path):
    record = read_game(DATA / "boardspace" / "HV-Abbo69-WeakBot-2018-10-28-2007.pgn")
    path = tmp_path / "game.pgn"
    write_game(record, path)
    assert read_game(path) == record and not list(tmp_path.glob("*.tmp"))
    # Rewritten with a new date (a tournament resuming): the recorded date stays.
    later = GameRecord(record.game_type, record.moves, record.result, {**record.tags, "Date": "2030.01.01"})
    write_game(later, path)
    assert read_game(path).date == "2018.10.28"
    # Another game in its place takes its own date.
    other = GameRecord("Base", ["wS1"], tags={"Date": "2030.01.01"})
    write_game(other, path)
    assert read_game(path).date == "2030.01.01"
    write_game(record, tmp_path / "game.sgf")
    assert cells(read_game(tmp_path / "game.sgf")) == cells(record)


def test_convert_command(tmp_path):
    from click.testing import CliRunner

    from hiveai.cli import main

    runner = CliRunner()
    one = DATA / "boardspace" / "HV-Abbo69-WeakBot-2018-10-28-2007.sgf"
    res = runner.invoke(main, ["convert", str(one), "--to", "gamestring"])
    assert res.exit_code == 0 and res.stdout.count("\n") == 1 and res.stdout.startswith("Base+MLP;WhiteWins;")
    assert "1 game read, 1 written as UHP GameString, 0 refused" in res.stderr
    # A folder to a folder: one Mzinga PGN per game, named after its source.
    out = tmp_path / "out"
    out.mkdir()
    res = runner.invoke(main, ["convert", str(DATA / "hivegame"), "-o", str(out)])
    assert res.exit_code == 0 and sorted(p.name for p in out.iterdir()) == sorted(
        p.name for p in HIVEGAME.glob("*.pgn"))
    assert "4 games read, 4 written as Mzinga PGN to 4 files, 0 refused" in res.stderr
    # A folder that does not exist yet is made.
    res = runner.invoke(main, ["convert", str(one), "--to", "sgf", "-o", str(tmp_path / "new" / "dir") + "/"])
    assert res.exit_code == 0 and (tmp_path / "new" / "dir" / (one.stem + ".sgf")).is_file()
    # A refused game: the others are written, whole, and the exit status says so.
    bad = tmp_path / "bad.txt"
    bad.write_text("Base;InProgress;White[1];wQ\n")
    target = tmp_path / "all.sgf"
    res = runner.invoke(main, ["convert", str(one), str(bad), "--to", "sgf", "-o", str(target)])
    assert res.exit_code == 1 and "refused: " in res.stderr and "Queen Bee on your first turn" in res.stderr
    assert "2 games read, 1 written as boardspace SGF to 1 file, 1 refused" in res.stderr
    assert cells(read_game(target)) == cells(read_game(one))
    # Only refused games: no file at all.
    res = runner.invoke(main, ["convert", str(bad), "-o", str(tmp_path / "none.pgn")])
    assert res.exit_code == 1 and not (tmp_path / "none.pgn").exists()



def test_commands_that_take_a_game_take_any_format(tmp_path):
    from click.testing import CliRunner

    from hiveai.cli import main
    from hiveai.tournament.schedule import file_openings

    sgf_game = DATA / "boardspace" / "T!HV-dube-Quodlibet-2021-12-11-1632.sgf"
    archive = tmp_path / "openings.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.write(sgf_game, "a.sgf")
        z.write(HIVEGAME / "28-Oct-2018_Abbo69_vs_WeakBot.pgn", "b.pgn")
    openings = file_openings(archive, "Base+MLP", 3)
    assert [Board.parse(o).ply for o in openings] == [25, 31, 25]
    res = CliRunner().invoke(main, ["analyse", "--depth", "1", "--game", str(sgf_game)])
    assert res.exit_code == 0 and "final position: BlackWins" in res.stdout
