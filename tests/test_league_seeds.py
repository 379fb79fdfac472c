"""A league's secret seed: keyed game seeds that give nothing away, a secret drawn by default
and shown nowhere, old leagues that keep their scheme, and the compiled kernel kept out of keyed
plans (docs/league.md, "Seeds")."""

from __future__ import annotations

import json
import re
import sqlite3
import threading
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import cli
from arena.engine import load_ruleset
from arena.leagues import League, LeagueError
from arena.leagues.pages import all_pages
from arena.storage import league_db
from arena.tournaments.keyed_seeds import SeedKey, game_seed, secret_key
from arena.tournaments.schedule import Schedule, stable_hash
from arena.tournaments.spec import TournamentSpec

CHEATS = Path(__file__).parent / "cheats"

HERO = '''
from arena.players.builtin.greedy import GreedyPlayer


class Hero(GreedyPlayer):
    """Greedy, under its own name: the honest first version of the entrant."""

    name = "hero"
'''

FAULTY = '''
from arena import Action


class Faulty:
    """Raises on its fifth decision of every game."""

    name = "faulty"

    def __init__(self):
        self.calls = 0

    def decide(self, view):
        self.calls += 1
        if self.calls == 5:
            raise RuntimeError("the fifth call fails")
        return Action(view.legal_keeps[0].dice, False)
'''


def _cheat():
    import importlib.util

    spec = importlib.util.spec_from_file_location("league_foresight", CHEATS / "league_foresight.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _game_seeds(folder: Path, name: str, version: int) -> dict[int, int]:
    """The stored seeds of ``name`` ``version``'s games, by deal."""
    with sqlite3.connect(league_db.database_path(folder)) as c:
        rows = c.execute(
            "SELECT DISTINCT g.deal, g.seed FROM games g JOIN seats s ON s.game = g.id "
            "JOIN entries e ON e.id = s.entry WHERE e.name = ? AND e.version = ?",
            (name, version),
        ).fetchall()
    seeds: dict[int, int] = {}
    for deal, seed in rows:
        assert seeds.setdefault(deal, int(seed)) == int(seed), "the seat orders of a deal share dice"
    return seeds


def test_a_new_version_that_carries_the_seed_from_a_viewer_page_foresees_nothing(tmp_path: Path) -> None:
    """The cheat of issue 38: one viewer page's seed, run backwards, gave the league seed, and a
    new version that carried it foresaw every roll.  With keyed seeds the page's seed gives
    back no league seed, the new version meets fresh dice, and the cheat plays like greedy."""
    cheat = _cheat()
    secret = 0x5EC12E7C0FFEE123  # an organiser's own secret number, given with --seed
    folder = tmp_path / "league"
    league = League.create(folder, games=40, seed=secret)
    hero = tmp_path / "hero.py"
    hero.write_text(HERO)
    league.add(str(hero))
    league.add("greedy")
    assert league.run(trusted=True, progress=False).played == 40
    # The visitor's side: a viewer page and the public scheme.
    pages = all_pages(league.connection)
    name, page = next((n, p) for n, p in pages.items() if n.startswith("game-"))
    shown = int(re.search(r"seed (\d+)\)", page).group(1))
    game_id = int(name[5:-5])
    deal = league.connection.execute("SELECT deal FROM games WHERE id = ?", (game_id,)).fetchone()[0]
    rules = load_ruleset("standard")
    rules_key = stable_hash(json.dumps(rules.as_dict(), sort_keys=True))
    table_key = stable_hash("\x1f".join(sorted(["greedy", "hero"])))
    recovered = cheat.league_seed_from(shown, rules_key, table_key, deal)
    assert recovered != secret
    # Run backwards, the seed gives back the game it came from, and no other.
    old = _game_seeds(folder, "hero", 1)
    found = {d for d, s in old.items() if cheat.old_game_seed(recovered, rules, ["greedy", "hero"], d) == s}
    assert found == {deal}
    # The new version carries what the page gave.
    foresight = tmp_path / "foresight.py"
    foresight.write_text(
        (CHEATS / "league_foresight.py").read_text().replace("LEAGUE_SEED = 0", f"LEAGUE_SEED = {recovered}")
    )
    league.add(str(foresight), name="hero")
    assert league.run(trusted=True, progress=False).played == 40
    new = _game_seeds(folder, "hero", 2)
    assert len(new) == 20 and not set(new.values()) & set(old.values())  # fresh dice
    assert all(cheat.old_game_seed(recovered, rules, ["greedy", "hero"], d) != s for d, s in new.items())
    score = {r["name"]: r["score"] for r in league.table_json()["entries"]}["hero"]
    # On the old scheme the cheat found every game's seed and scored 0.787 here.  Now it finds
    # none and plays greedy's own games against greedy: on duplicate dice, every deal splits.
    assert score == 0.5, score
    league.close()


def test_keyed_seeds_share_a_deal_across_seat_orders_and_change_with_a_version() -> None:
    from arena.players.loading import load_player_spec as load_spec

    players = tuple(load_spec(s) for s in ("greedy", "random", "threshold"))
    rules = (load_ruleset("standard"),)
    identities = ["1\x1fgreedy\x1f1\x1fa", "2\x1frandom\x1f1\x1fb", "3\x1fthreshold\x1f1\x1fc"]
    secret = 31_337_133_713_371_337
    key = SeedKey.of(secret, identities, [(0, 1), (0, 2)])
    spec = TournamentSpec(rules, players, format="gauntlet", games=10, seed=key.spec_seed(), seed_key=key)
    schedule = Schedule(spec)
    slots = [schedule.slot(g) for g in range(len(schedule))]
    by_deal: dict[tuple[int, int], set[int]] = {}
    for slot in slots:
        by_deal.setdefault((frozenset(slot.seats), slot.deal), set()).add(slot.seed)
    text = json.dumps(rules[0].as_dict(), sort_keys=True)
    assert all(s.seed == game_seed(key.key_for(s.seats), text, s.deal) for s in slots)
    assert all(len(seeds) == 1 for seeds in by_deal.values())  # duplicate play
    assert len({s.pop() for s in by_deal.values()}) == len(by_deal)  # no other game shares them
    # A new version of greedy (another identity): every seed changes; the other pair's stay.
    again = SeedKey.of(secret, ["4\x1fgreedy\x1f2\x1fd", *identities[1:]], [(0, 1), (0, 2)])
    redo = Schedule(TournamentSpec(rules, players, format="gauntlet", games=10, seed_key=again))
    assert not {redo.slot(g).seed for g in range(len(redo))} & {s.seed for s in slots}
    # The secret and the keys stay out of the spec's repr and identity.
    shown = repr(spec) + json.dumps(spec.identity())
    assert str(secret) not in shown and secret_key(secret).hex() not in shown
    assert all(k.hex() not in shown for _, k in key.tables)


def test_the_compiled_kernel_never_plays_a_keyed_plan() -> None:
    pytest.importorskip("numba")
    from arena.players.loading import load_player_spec as load_spec
    from arena.tournaments.batch import compiled_games
    from arena.tournaments.compiled_games import CompiledGames
    from arena.tournaments.runner import batch_results

    players = tuple(load_spec(s) for s in ("greedy", "threshold:bank_at=300"))
    key = SeedKey.of(5, ["a", "b"], [(0, 1)])
    keyed = TournamentSpec((load_ruleset("standard"),), players, format="gauntlet", games=6, seed_key=key)
    compiled = TournamentSpec(
        (load_ruleset("standard"),), players, format="gauntlet", games=6, seed_key=key, compiled=True
    )
    assert compiled_games(compiled) is None
    with pytest.raises(ValueError, match="keyed seeds"):
        CompiledGames(compiled, [None, None])

    def rows(spec: TournamentSpec) -> str:
        with batch_results(spec, 0, 6, 1) as results:
            return "".join(r.rows for r in results)

    assert rows(compiled) == rows(keyed)
    seeds = {int(line.split(",")[3]) for line in rows(keyed).splitlines()}
    assert seeds == {Schedule(keyed).slot(g).seed for g in range(6)}


def _text_forms(secret: int) -> list[str]:
    forms = [str(secret), f"{secret:x}", f"{secret:X}", secret_key(secret).hex()]
    forms += [str(secret >> shift & (1 << 64) - 1) for shift in (0, 64)]
    return [f for f in forms if len(f) >= 8]


@pytest.mark.slow
def test_the_secret_seed_shows_on_no_page_output_or_file(tmp_path: Path) -> None:
    """Every page, export, CLI output and file of a league but its database: no trace of the
    secret seed, in decimal, hex, as its key or as either 64-bit half."""
    from arena.leagues.web import make_server

    runner = CliRunner()
    folder = tmp_path / "league"
    said: list[str] = []

    def run(*args: str) -> None:
        result = runner.invoke(cli, ["league", *args])
        assert result.exit_code == 0, result.output
        said.append(result.stdout + result.stderr)

    run("init", str(folder), "--games", "2")
    run("init", str(tmp_path / "other"), "--games", "2", "--json")
    (tmp_path / "faulty.py").write_text(FAULTY)
    for spec in ("greedy", str(tmp_path / "faulty.py"), "random"):
        run("add", str(folder), spec)
    run("run", str(folder))  # isolated: seat logs too
    for args in (("table",), ("table", "--json"), ("games",), ("games", "--json")):
        run(*args[:1], str(folder), *args[1:])
    run("export", str(folder), str(tmp_path / "site"))
    said += [p.read_text() for p in (tmp_path / "site").iterdir()]
    said += [
        p.read_text(errors="replace")
        for p in folder.rglob("*")
        if p.is_file() and not p.name.startswith("league.sqlite")
    ]
    league = League(folder)
    said += [league.games_csv(), json.dumps(league.table_json())]
    said += [repr(league.table()), repr(league.entries())]
    faults = league.connection.execute("SELECT replay FROM faults").fetchall()
    assert faults and all("--seed" in r[0] for r in faults)
    server = make_server(folder, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}/"
        for page in ["", "standings.json", *all_pages(league.connection)]:
            with urllib.request.urlopen(base + page, timeout=10) as response:
                said.append(response.read().decode())
    finally:
        server.shutdown()
        server.server_close()
    text = "\n".join(said)
    assert "secret seed, kept in" in text and "seed " in text
    for other in (folder, tmp_path / "other"):
        secret = League(other).settings["seed"]
        assert secret.bit_length() > 100  # drawn, 128 bits
        for form in _text_forms(secret):
            assert form not in text, form
    league.close()


def test_init_draws_a_secret_seed_and_says_so_in_one_line(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["league", "init", str(tmp_path / "a"), "--games", "2"])
    assert result.exit_code == 0 and result.stderr == ""
    where = league_db.database_path(tmp_path / "a")
    assert result.stdout == (
        f"league created in {tmp_path / 'a'}: standard; 2 games per pair; "
        f"a secret seed, kept in {where}; 10 s a move\n"
    )
    again = runner.invoke(cli, ["league", "init", str(tmp_path / "b"), "--json"])
    assert json.loads(again.stdout)["seed"] is None and json.loads(again.stdout)["secret_seed"] is True
    seeds = [League(tmp_path / n).settings["seed"] for n in "ab"]
    assert seeds[0] != seeds[1] and min(seeds) > 2**64  # drawn, not 0
    assert League.create(tmp_path / "c").settings["seed"] not in (0, *seeds)  # from Python too
    for bad in (True, "7", 1.5):
        with pytest.raises(LeagueError, match="--seed must be a whole number"):
            League.create(tmp_path / "e", seed=bad)  # type: ignore[arg-type]
    assert not (tmp_path / "e").exists()
    given = runner.invoke(cli, ["league", "init", str(tmp_path / "d"), "--seed", "7"])
    assert given.exit_code == 0 and given.stdout.endswith("; seed 7; 10 s a move\n")
    assert given.stderr.startswith("arena: warning: --seed 7 is no secret") and given.stderr.count("\n") == 1


def _legacy_league(folder: Path) -> None:
    """A league as an arena before keyed seeds made it: no seed_scheme in its settings."""
    rules = load_ruleset("standard").as_dict()
    league_db.create(folder, {"rulesets": [rules], "games": 4, "seed": 3}).close()


def test_an_old_league_keeps_its_scheme_and_run_says_its_seeds_are_public(tmp_path: Path) -> None:
    from arena.engine import derive_seed

    folder = tmp_path / "old"
    _legacy_league(folder)
    league = League(folder)
    league.add("greedy")
    league.add("random")
    league.close()
    result = CliRunner().invoke(cli, ["league", "run", str(folder), "--trusted"])
    assert result.exit_code == 0 and result.stdout == "played 4 games (0 faults)\n"
    assert result.stderr.startswith(f"arena: warning: {folder} was made before league seeds were kept secret")
    assert result.stderr.count("\n") == 1
    rules_key = stable_hash(json.dumps(load_ruleset("standard").as_dict(), sort_keys=True))
    table_key = stable_hash("greedy\x1frandom")
    with sqlite3.connect(league_db.database_path(folder)) as c:
        stored = c.execute("SELECT deal, seed FROM games").fetchall()
    assert {(d, int(s)) for d, s in stored} == {(d, derive_seed(3, rules_key, table_key, d)) for d in (0, 1)}
    # A new league is keyed and says nothing of the kind.
    League.create(tmp_path / "new", games=4, seed=3).close()
    quiet = CliRunner().invoke(cli, ["league", "run", str(tmp_path / "new"), "--trusted"])
    assert quiet.exit_code == 0 and quiet.stderr == ""


def test_a_published_seed_replays_its_game(tmp_path: Path) -> None:
    """The seed a page shows is the game's own: `arena play --seed` (here arena.play) on it, with
    the seats of the row, gives the stored scores."""
    import csv
    import io

    from arena import play

    league = League.create(tmp_path / "a", games=4)
    league.add("greedy")
    league.add("threshold:bank_at=400", name="steady")
    assert league.run(trusted=True, progress=False).played == 4
    games: dict[str, list[dict[str, str]]] = {}
    for row in csv.DictReader(io.StringIO(league.games_csv())):
        games.setdefault(row["game"], []).append(row)
    specs = {"greedy": "greedy", "steady": "threshold:bank_at=400"}
    for rows in games.values():
        record = play([specs[r["player"]] for r in rows], seed=int(rows[0]["seed"]))
        assert list(record.scores) == [int(r["score"]) for r in rows]
    league.close()


@pytest.mark.parametrize(
    ("settings", "said"),
    [
        ({"seed": "7", "seed_scheme": "keyed-blake2b"}, 'a whole number of at least 0, got "7"'),
        ({"seed": True}, "its seed must be a whole number of at least 0, got true"),
        ({"seed": 7, "seed_scheme": "keyed-v9"}, 'its seed scheme "keyed-v9" is not one this arena knows'),
    ],
)
def test_a_league_whose_seed_settings_cant_be_played_is_one_line(tmp_path: Path, settings, said) -> None:
    """A received league whose seed is not a whole number, or whose scheme is a newer arena's
    (played by the old scheme, it would get other dice), is refused before anything is played."""
    rules = load_ruleset("standard").as_dict()
    league_db.create(tmp_path / "a", {"rulesets": [rules], "games": 2, **settings}).close()
    result = CliRunner().invoke(cli, ["league", "run", str(tmp_path / "a")])
    assert result.exit_code == 1 and result.stderr.count("\n") == 1, result.stderr
    head = f"arena: error: {tmp_path / 'a'}: the league's settings can't be played: "
    assert result.stderr.startswith(head)
    assert said in result.stderr


@pytest.mark.slow
def test_a_keyed_league_plays_the_same_games_isolated_or_not_on_any_number_of_workers(tmp_path: Path) -> None:
    """Keyed seeds depend on the league and its entries, never on how the games are run."""
    hero = tmp_path / "hero.py"
    hero.write_text(HERO)
    stored = []
    for where, options in (("trusted", {"trusted": True}), ("isolated", {"workers": 2})):
        league = League.create(tmp_path / where, games=4, seed=9)
        for spec in ("greedy", "random", str(hero)):
            league.add(spec)
        assert league.run(progress=False, **options).played == 12
        records = league.connection.execute("SELECT game, events FROM records ORDER BY game").fetchall()
        stored.append((league.games_csv(), [tuple(r) for r in records]))
        league.close()
    assert stored[0] == stored[1]


def test_a_seed_reaches_the_pages_only_with_its_deals_other_seat_order(tmp_path: Path) -> None:
    """The pages read the database while a run writes it: every batch holds whole deals, so a
    seed never shows while its deal's other seat order is still to play.  Stopped after each
    batch, the database holds every deal it holds in both seat orders."""
    from arena.leagues.play import play_league

    league = League.create(tmp_path / "a", games=60)
    for spec in ("greedy", "random", "threshold:bank_at=300"):
        league.add(spec)
    bounds: list[tuple[int, int]] = []

    def check(result) -> None:
        bounds.append((result.start, result.stop))
        orders = league.connection.execute(
            "SELECT COUNT(*) FROM games GROUP BY low, high, ruleset, deal HAVING COUNT(*) != 2"
        ).fetchall()
        assert orders == []

    play_league(
        league.folder, league.connection, league.settings, trusted=True, progress=False,
        workers=2, on_batch=check,
    )  # fmt: skip
    assert len(bounds) >= 18 and all(start % 2 == 0 and stop % 2 == 0 for start, stop in bounds)
    league.close()


def test_a_keyed_schedule_pickles_to_the_same_seeds() -> None:
    import pickle

    from arena.players.loading import load_player_spec

    key = SeedKey.of(5, ["a", "b"], [(0, 1)])
    players = (load_player_spec("greedy"), load_player_spec("random"))
    spec = TournamentSpec((load_ruleset("standard"),), players, format="gauntlet", games=8, seed_key=key)
    schedule = Schedule(spec)
    copy = pickle.loads(pickle.dumps(schedule))
    assert [copy.slot(g) for g in range(8)] == [schedule.slot(g) for g in range(8)]
