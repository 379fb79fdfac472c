"""The compiled game loop (numba): every Ruleset field, declarative policies, rows as bytes.

Everything is passed in as numpy arrays (see :mod:`arena.compiled.tables` for the layouts), so
one compiled kernel serves every ruleset and field.  Each function mirrors a piece of
:mod:`arena.engine.game` (the state machine), :mod:`arena.engine.dice` (splitmix64 streams, all
arithmetic in uint64 so it wraps mod 2**64 like the Python masks), :mod:`arena.players.policy`
and :mod:`arena.tournaments.rows`; tests/test_compiled.py plays both and compares the bytes.
``cache=True`` keeps the machine code on disk (in ``__pycache__``) across processes.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from arena.engine.game import MAX_PLAYOFF_ROUNDS
from arena.engine.rules import POINT_STEP

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S27 = np.uint64(27)
_S30 = np.uint64(30)
_S31 = np.uint64(31)
_HALF = np.uint64(1 << 63)
_TEN = np.uint64(10)
_IV = np.uint64(0x243F6A8885A308D3)
_ZERO = np.uint64(0)

# Rule array columns (tables.RULE_COLUMNS in the same order).
R_DICE, R_TARGET, R_EXACT, R_ENTRY, R_MUST_ROLL, R_PENALTY, R_TO_ZERO, R_STREAK = 0, 1, 2, 3, 4, 5, 6, 7
R_RISING, R_BAR_START, R_BAR_STEP, R_STRIKES, R_EVERYONE_ELSE, R_PLAYOFF, R_HAS_PENALTY = (
    8,
    9,
    10,
    11,
    12,
    13,
    14,
)
# Policy rule codes (tables.KEEP_CODES / BANK_CODES).
K_MOST_POINTS, K_MOST_DICE, K_FEWEST_DICE, K_RANDOM, K_OPTIMAL, K_WEIGHTED = 0, 1, 2, 3, 4, 5
B_THRESHOLD, B_TABLE, B_RANDOM, B_OPTIMAL = 0, 1, 2, 3
# Columns of the score-aware policy array (games.SCORE_COLUMNS in the same order); roll_keep is
# a keep code or -1 for none, each fraction a numerator and a denominator.
P_ROLL_KEEP, P_DIE_WORTH, P_CATCH_UP = 0, 1, 2
P_MARGIN_NUM, P_MARGIN_DEN, P_BEHIND_NUM, P_BEHIND_DEN, P_AHEAD_NUM, P_AHEAD_DEN = 3, 4, 5, 6, 7, 8
#: Solved situations: key = ruleset << 48 | minimum << 24 | (cap + 1), cap -1 for none.
SIT_RULESET_SHIFT = 48
SIT_MINIMUM_SHIFT = 24


@njit(cache=True, inline="always")
def mix(z: np.uint64) -> np.uint64:
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True)
def slot_seeds(games, orders, tables, rulesets, seed_state, ruleset_keys, table_keys, fixed, n_players):
    """Ruleset, deal, seed and seats of each game (arena.tournaments.schedule.Schedule.slot).

    ``seed_state``: derive_seed's state after the tournament seed; ``fixed``: the table list (a
    row per table) or, when empty, each deal draws its table (draw_table)."""
    g_count = games.shape[0]
    out_ruleset = np.empty(g_count, np.int64)
    out_deal = np.empty(g_count, np.int64)
    out_seed = np.empty(g_count, np.uint64)
    out_seats = np.empty((g_count, orders), np.int64)
    pool = np.empty(n_players, np.int64)
    table = np.empty(orders, np.int64)
    for i in range(g_count):
        rest = games[i] // orders
        order = games[i] % orders
        table_index = rest % tables
        rest = rest // tables
        ruleset = rest % rulesets
        deal = rest // rulesets
        h = mix(seed_state + GOLDEN + ruleset_keys[ruleset])
        if fixed.shape[0] > 0:
            h = mix(h + GOLDEN + table_keys[table_index])
            h = mix(h + GOLDEN + np.uint64(deal))
            for s in range(orders):
                table[s] = fixed[table_index, s]
        else:
            h = mix(h + GOLDEN + np.uint64(0))
            h = mix(h + GOLDEN + np.uint64(deal))
            for p in range(n_players):
                pool[p] = p
            base = mix(_IV + GOLDEN + h)
            for s in range(orders):
                j = s + np.int64(mix(base + GOLDEN + np.uint64(s)) % np.uint64(n_players - s))
                pool[s], pool[j] = pool[j], pool[s]
            table[:] = np.sort(pool[:orders])
        for s in range(orders):
            out_seats[i, s] = table[(order + s) % orders]
        out_ruleset[i] = ruleset
        out_deal[i] = deal
        out_seed[i] = h
    return out_ruleset, out_deal, out_seed, out_seats


@njit(cache=True, inline="always")
def _draw(seed: np.uint64, count: np.int64) -> np.uint64:
    return mix(seed + np.uint64(count) * GOLDEN)


@njit(cache=True)
def _find_situation(sit_keys, key):
    i = np.searchsorted(sit_keys, key)
    if i < sit_keys.shape[0] and sit_keys[i] == key:
        return i
    return -1


@njit(cache=True)
def _value_of_roll(sit_vals, off, rows, cap, total, n):
    if cap >= 0 and total > cap:
        return 0.0
    i = total // POINT_STEP
    if i >= rows:
        return 0.0 if cap >= 0 else float(total)
    return sit_vals[off + i * 7 + n]


@njit(cache=True)
def _pick(rule, ks, kc, restrict, base, target, k_points, k_ndice, k_left, worth):
    """The keep a deterministic keep rule picks among keeps ks .. ks+kc-1 (policy.pick_keep);
    with ``restrict``, only among those with ``base + points <= target`` (keeps_within_target).
    Ties keep the earlier keep, as Python's max and min do."""
    k = -1
    for c in range(ks, ks + kc):
        if restrict and base + k_points[c] > target:
            continue
        if k < 0:
            k = c
            if rule == K_MOST_POINTS:
                break
        elif rule == K_MOST_DICE:
            if k_ndice[c] > k_ndice[k] or (k_ndice[c] == k_ndice[k] and k_points[c] > k_points[k]):
                k = c
        elif rule == K_WEIGHTED:
            wc = k_points[c] + worth * k_left[c]
            wk = k_points[k] + worth * k_left[k]
            if wc > wk or (wc == wk and k_points[c] > k_points[k]):
                k = c
        elif k_ndice[c] < k_ndice[k]:
            k = c
    return k


@njit(cache=True, inline="always")
def _keep_by(rule, ks, kc, restrict, base, target, k_points, k_ndice, k_left, worth, picked):
    """_pick, answered from ``picked[rule, ks]`` (the unrestricted pick of most/fewest dice, see
    _picks) when it can be: saves the loop over the keeps per decision."""
    if not restrict and rule <= K_FEWEST_DICE:  # the codes 0..2: most points, most dice, fewest dice
        return picked[rule, ks]
    return _pick(rule, ks, kc, restrict, base, target, k_points, k_ndice, k_left, worth)


@njit(cache=True)
def _picks(keep_start, keep_count, k_points, k_ndice, k_left):
    """The keep each of most points, most dice and fewest dice picks among all keeps of a roll,
    by the index of the roll's first keep (a roll's keeps are one range of the flat arrays)."""
    picked = np.zeros((K_FEWEST_DICE + 1, max(k_points.shape[0], 1)), np.int64)
    for ri in range(keep_start.shape[0]):
        for roll in range(keep_start.shape[1]):
            kc = keep_count[ri, roll]
            if kc > 0:
                ks = keep_start[ri, roll]
                for rule in range(K_FEWEST_DICE + 1):
                    picked[rule, ks] = _pick(rule, ks, kc, False, 0, 0, k_points, k_ndice, k_left, 0)
    return picked


@njit(cache=True, inline="always")
def _random_keep(ks, kc, draws, seat, seed):
    """The keep ``K_RANDOM`` chooses: the seat's next draw (counted in ``draws[seat]``)."""
    draws[seat] += 1
    return ks + np.int64(_draw(seed, draws[seat]) % np.uint64(kc))


@njit(cache=True)
def play_games(
    seeds,
    game_rulesets,
    game_seats,
    strat_seeds,
    rules,
    keep_start,
    keep_count,
    k_points,
    k_left,
    k_hot,
    k_ndice,
    outcome,
    outcome_off,
    pol_keep,
    pol_bank,
    pol_at,
    pol_min,
    pol_on_target,
    pol_table,
    pol_table_off,
    pol_table_cols,
    pol_score,
    sit_keys,
    sit_off,
    sit_rows,
    sit_vals,
    max_rounds,
    first,
    out_scores,
    out_ranks,
    out_win,
    out_nwin,
    out_turns,
    out_farkles,
    out_end,
):
    """Play games ``first`` .. end; return (-1, 0) when all are done, or (game position, key)
    of the first turn whose optimal situation (key as in SIT_*) is not solved yet.  ``out_end``:
    how each game ended, 1 the target, 2 the round limit (the ``end`` column's values)."""
    g_count = seeds.shape[0]
    n = game_seats.shape[1]
    scores = np.zeros(n, np.int64)
    entered = np.zeros(n, np.bool_)
    strikes = np.zeros(n, np.int64)
    streaks = np.zeros(n, np.int64)
    turns = np.zeros(n, np.int64)
    farkles = np.zeros(n, np.int64)
    bases = np.zeros(n, np.uint64)
    draws = np.zeros(n, np.int64)
    queue = np.zeros(n, np.int64)
    leaders = np.zeros(n, np.int64)
    po_points = np.zeros(n, np.int64)
    winners = np.zeros(n, np.bool_)
    # 6**n per dice count as a table: numba computes ``6**to_roll`` with a power loop per roll.
    faces = np.empty(outcome_off.shape[0] - 1, np.uint64)
    for d in range(faces.shape[0]):
        faces[d] = np.uint64(outcome_off[d + 1] - outcome_off[d])
    picked = _picks(keep_start, keep_count, k_points, k_ndice, k_left)
    for gi in range(first, g_count):
        ri = game_rulesets[gi]
        dice = rules[ri, R_DICE]
        target = rules[ri, R_TARGET]
        exact = rules[ri, R_EXACT] != 0
        must_roll = rules[ri, R_MUST_ROLL] != 0
        rising = rules[ri, R_RISING] != 0
        seed = seeds[gi]
        # Game(seed) plays on seat_streams(derive_seed(seed), n): two derivations.
        h0 = mix(_IV + GOLDEN + mix(_IV + GOLDEN + seed))
        for s in range(n):
            scores[s] = 0
            entered[s] = rules[ri, R_ENTRY] == 0
            strikes[s] = 0
            streaks[s] = 0
            turns[s] = 0
            farkles[s] = 0
            draws[s] = 0
            bases[s] = mix(h0 + GOLDEN + np.uint64(s))
        bar = rules[ri, R_BAR_START]
        final_left = -1
        in_playoff = False
        q_len = 0
        q_pos = 0
        po_rounds = 0
        rnd = -1
        seat = -1
        n_win = 0
        ending = 1
        missing = np.int64(-1)
        while True:
            playoff = False
            if in_playoff:
                if q_pos < q_len:
                    seat = queue[q_pos]
                    q_pos += 1
                    playoff = True
                else:
                    best = -1
                    for q in range(q_len):
                        if po_points[queue[q]] > best:
                            best = po_points[queue[q]]
                    n_lead = 0
                    for q in range(q_len):
                        if po_points[queue[q]] == best:
                            leaders[n_lead] = queue[q]
                            n_lead += 1
                    if n_lead > 1 and po_rounds < MAX_PLAYOFF_ROUNDS:
                        po_rounds += 1
                        for q in range(n_lead):
                            queue[q] = leaders[q]
                        q_len = n_lead
                        q_pos = 0
                        continue
                    n_win = n_lead
                    break
            else:
                finish = 0  # 1: target, 2: round limit
                if final_left >= 0:
                    if final_left == 0:
                        finish = 1
                    else:
                        final_left -= 1
                if finish == 0:
                    seat = (seat + 1) % n
                    if seat == 0:
                        if rnd + 1 >= max_rounds and final_left < 0:
                            finish = 2
                        else:
                            rnd += 1
                if finish != 0:
                    top = scores.max()
                    n_lead = 0
                    for s in range(n):
                        if scores[s] == top:
                            leaders[n_lead] = s
                            n_lead += 1
                    if n_lead > 1 and rules[ri, R_PLAYOFF] != 0 and finish == 1:
                        po_rounds += 1
                        for q in range(n_lead):
                            queue[q] = leaders[q]
                        q_len = n_lead
                        q_pos = 0
                        in_playoff = True
                        continue
                    n_win = n_lead
                    ending = finish
                    break
            # ---- one turn of `seat`
            p = game_seats[gi, seat]
            keep_rule = pol_keep[p]
            # The policy's fields and the leader are fixed for the turn: read once, not per decision.
            bank_rule = pol_bank[p]
            on_target = pol_on_target[p] != 0
            min_dice = pol_min[p]
            roll_keep = pol_score[p, P_ROLL_KEEP]
            worth = pol_score[p, P_DIE_WORTH]
            leader = 0  # the top score among the other seats
            for s in range(n):
                if s != seat and scores[s] > leader:
                    leader = scores[s]
            catch_up = pol_score[p, P_CATCH_UP] != 0 and final_left >= 0 and scores[seat] < leader
            # bank_at's scale for this turn (lead_margin, behind_scale, ahead_scale), 1/1 for none.
            scale_num = 1
            scale_den = 1
            if bank_rule == B_THRESHOLD:
                margin = target * pol_score[p, P_MARGIN_NUM] // pol_score[p, P_MARGIN_DEN]
                gap = leader - scores[seat]
                if gap > margin:
                    scale_num = pol_score[p, P_BEHIND_NUM]
                    scale_den = pol_score[p, P_BEHIND_DEN]
                elif -gap > margin:
                    scale_num = pol_score[p, P_AHEAD_NUM]
                    scale_den = pol_score[p, P_AHEAD_DEN]
            scaled = scale_num != 1 or scale_den != 1
            stream = mix(bases[seat] + GOLDEN + np.uint64(turns[seat]))
            turns[seat] += 1
            if playoff:
                minimum = 0
            else:
                entry = 0 if entered[seat] else rules[ri, R_ENTRY]
                minimum = max(entry, bar) if rising else entry
            sit = -1
            cap = -1
            if keep_rule == K_OPTIMAL:
                if exact and not playoff:
                    cap = target - scores[seat]
                key = (ri << SIT_RULESET_SHIFT) | (minimum << SIT_MINIMUM_SHIFT) | (cap + 1)
                sit = _find_situation(sit_keys, key)
                if sit < 0:
                    missing = key
                    break
            score = scores[seat]
            turn_points = 0
            to_roll = dice
            roll_index = 0
            banked = -1
            farkled = False
            while True:
                draw = mix(stream + np.uint64(roll_index + 1) * GOLDEN)
                roll_index += 1
                roll = outcome[outcome_off[to_roll] + np.int64(draw % faces[to_roll])]
                kc = keep_count[ri, roll]
                if kc == 0:
                    farkled = True
                    break
                ks = keep_start[ri, roll]
                bank: bool | np.bool_ = False  # a comparison of numpy integers gives np.bool_
                k = ks
                if keep_rule == K_OPTIMAL:
                    off = sit_off[sit]
                    rows = sit_rows[sit]
                    best_value = -1.0
                    for c in range(ks, ks + kc):
                        total = turn_points + k_points[c]
                        roll_on = _value_of_roll(sit_vals, off, rows, cap, total, k_left[c])
                        allowed = not (k_hot[c] and must_roll) and not (cap >= 0 and total > cap)
                        allowed = allowed and total >= minimum
                        if allowed and total >= roll_on:
                            value = float(total)
                            c_bank = True
                        else:
                            value = roll_on
                            c_bank = False
                        if value > best_value:
                            best_value = value
                            k = c
                            bank = c_bank
                else:
                    # keeps_within_target: the keeps that don't pass an exact target, or all.
                    base = score + turn_points
                    restrict = False
                    if exact and not playoff and base + k_points[ks] > target:
                        for c in range(ks, ks + kc):
                            if base + k_points[c] <= target:
                                restrict = True
                    if keep_rule == K_RANDOM:
                        k = _random_keep(ks, kc, draws, seat, strat_seeds[gi, seat])
                    else:
                        k = _keep_by(
                            keep_rule, ks, kc, restrict, base, target, k_points, k_ndice, k_left, worth,
                            picked,
                        )  # fmt: skip
                    total = turn_points + k_points[k]
                    left = k_left[k]
                    allowed = not (k_hot[k] and must_roll) and total >= minimum
                    over = exact and not playoff and score + total > target
                    decided = False
                    if bank_rule == B_RANDOM:
                        decided = True
                        if allowed:
                            draws[seat] += 1
                            bank = _draw(strat_seeds[gi, seat], draws[seat]) < _HALF
                    if not decided and on_target and allowed and not over:
                        reach = score + total
                        hits = reach == target if exact else reach >= target
                        if hits:
                            decided = True
                            bank = True
                    if not decided and catch_up:
                        # Catch-up: bank the most points among the keeps that get past the leader.
                        decided = True
                        best = -1
                        for c in range(ks, ks + kc):
                            t = turn_points + k_points[c]
                            if restrict and score + t > target:
                                continue
                            if score + t <= leader or (k_hot[c] and must_roll) or t < minimum:
                                continue
                            if exact and not playoff and score + t > target:
                                continue
                            if best < 0 or k_points[c] > k_points[best]:
                                best = c
                        if best >= 0:
                            k = best
                            bank = True
                    if not decided:
                        if bank_rule == B_THRESHOLD:
                            limit = pol_at[p, left]
                            if scaled:
                                limit = limit * scale_num // scale_den
                            wants = total >= limit
                        else:
                            col = min(total // POINT_STEP, pol_table_cols[p] - 1)
                            wants = pol_table[pol_table_off[p] + (left - 1) * pol_table_cols[p] + col] != 0
                        if not wants and left < min_dice:
                            wants = True
                        bank = wants and allowed and not over
                    if not bank and roll_keep >= 0:
                        if roll_keep == K_RANDOM:
                            k = _random_keep(ks, kc, draws, seat, strat_seeds[gi, seat])
                        else:
                            k = _keep_by(
                                roll_keep, ks, kc, restrict, base, target, k_points, k_ndice, k_left, worth,
                                picked,
                            )  # fmt: skip
                # apply the decision
                total = turn_points + k_points[k]
                if exact and not playoff and score + total > target:
                    break  # overshoot: the turn is forfeited
                turn_points = total
                to_roll = k_left[k]
                if bank:
                    banked = total
                    break
            # ---- settle the turn
            if farkled:
                farkles[seat] += 1
            if playoff:
                po_points[seat] = banked if banked >= 0 else 0
                continue
            if banked >= 0:
                scores[seat] += banked
                entered[seat] = True
                strikes[seat] = 0
                streaks[seat] = 0
                bar = banked + rules[ri, R_BAR_STEP]
                if scores[seat] >= target and final_left < 0:
                    final_left = n - 1 if rules[ri, R_EVERYONE_ELSE] != 0 else n - 1 - seat
            else:
                if farkled:
                    streaks[seat] += 1
                    if rules[ri, R_HAS_PENALTY] != 0 and streaks[seat] >= rules[ri, R_STREAK]:
                        streaks[seat] = 0
                        if rules[ri, R_TO_ZERO] != 0:
                            scores[seat] = 0
                        else:
                            scores[seat] = max(0, scores[seat] - rules[ri, R_PENALTY])
                else:
                    streaks[seat] = 0
                if rising:
                    bar = rules[ri, R_BAR_START]
                    strikes[seat] += 1
                    if strikes[seat] >= rules[ri, R_STRIKES]:
                        strikes[seat] = 0
                        scores[seat] = 0
        if missing >= 0:
            return gi, missing
        # ---- conclude
        top = scores.max()
        for s in range(n):
            winners[s] = False
        for q in range(n_win):
            winners[leaders[q]] = True
        for s in range(n):
            rank = 1
            for o in range(n):
                if scores[o] > scores[s]:
                    rank += 1
            if not winners[s] and scores[s] == top:
                rank += n_win
            out_scores[gi, s] = scores[s]
            out_ranks[gi, s] = rank
            out_win[gi, s] = winners[s]
            out_turns[gi, s] = turns[s]
            out_farkles[gi, s] = farkles[s]
        out_nwin[gi] = n_win
        out_end[gi] = ending
    return -1, np.int64(0)


@njit(cache=True, inline="always")
def _put_uint(buf, pos, value):
    if value == 0:
        buf[pos] = 48
        return pos + 1
    digits = 0
    v = value
    while v > _ZERO:
        v //= _TEN
        digits += 1
    v = value
    for i in range(digits - 1, -1, -1):
        buf[pos + i] = np.uint8(v % _TEN) + np.uint8(48)
        v //= _TEN
    return pos + digits


@njit(cache=True, inline="always")
def _put_bytes(buf, pos, src, lo, hi):
    for i in range(lo, hi):
        buf[pos] = src[i]
        pos += 1
    return pos


@njit(cache=True)
def format_rows(
    games,
    deals,
    seeds,
    game_rulesets,
    game_seats,
    out_scores,
    out_ranks,
    out_win,
    out_nwin,
    out_turns,
    out_farkles,
    out_end,
    r_text,
    r_off,
    p_text,
    p_off,
    w_text,
    w_off,
    e_text,
    e_off,
    buf,
    row_ends,
):
    """games.csv rows of the games (arena.tournaments.rows.game_rows) into ``buf``; the end of
    each game's rows in ``row_ends``.  Returns the bytes written."""
    n = game_seats.shape[1]
    pos = 0
    for gi in range(games.shape[0]):
        ri = game_rulesets[gi]
        # Ruleset, game, deal and seed are the same in every seat's row: formatted once, then copied.
        lead = pos
        pos = _put_bytes(buf, pos, r_text, r_off[ri], r_off[ri + 1])
        buf[pos] = 44
        pos = _put_uint(buf, pos + 1, np.uint64(games[gi]))
        buf[pos] = 44
        pos = _put_uint(buf, pos + 1, np.uint64(deals[gi]))
        buf[pos] = 44
        pos = _put_uint(buf, pos + 1, seeds[gi])
        buf[pos] = 44
        lead_end = pos + 1
        for s in range(n):
            if s > 0:
                pos = _put_bytes(buf, pos, buf, lead, lead_end) - 1
            pos = _put_uint(buf, pos + 1, np.uint64(s))
            buf[pos] = 44
            p = game_seats[gi, s]
            pos = _put_bytes(buf, pos + 1, p_text, p_off[p], p_off[p + 1])
            buf[pos] = 44
            pos = _put_uint(buf, pos + 1, np.uint64(out_scores[gi, s]))
            buf[pos] = 44
            pos = _put_uint(buf, pos + 1, np.uint64(out_ranks[gi, s]))
            buf[pos] = 44
            w = out_nwin[gi] if out_win[gi, s] else 0
            pos = _put_bytes(buf, pos + 1, w_text, w_off[w], w_off[w + 1])
            buf[pos] = 44
            pos = _put_uint(buf, pos + 1, np.uint64(out_turns[gi, s]))
            buf[pos] = 44
            pos = _put_uint(buf, pos + 1, np.uint64(out_farkles[gi, s]))
            buf[pos] = 44
            buf[pos + 1] = 111  # o
            buf[pos + 2] = 107  # k
            buf[pos + 3] = 44
            buf[pos + 4] = 44
            e = out_end[gi]
            pos = _put_bytes(buf, pos + 5, e_text, e_off[e], e_off[e + 1])
            buf[pos] = 10
            pos += 1
        row_ends[gi] = pos
    return pos
