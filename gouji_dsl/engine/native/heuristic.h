/* The heuristic bot in the native core: gouji_dsl/bots/heuristic.py's HeuristicBot.choose in the
 * play phase (_lead, _burn, _follow and what they read: _cost, _premium, _whole, _lead_key,
 * _sure_out, _seen_count, _decline), over the flow's codes (flow.h), choosing the same move in
 * every state. The bot draws no random number: its choices are the first best under its keys, in
 * the order of the legal moves (the flow lists leads and answers in the interpreter's order).
 *
 * Included at the end of flow.h; fl_run asks hr_choose (through fl_pick) for a seat in
 * s->heur_seats. What the Python bot computes in floating point (card values, costs, the share
 * of the cards dealt) is computed here with the same IEEE operations in the same order (sums in
 * kind order), so ties fall the same way.
 *
 * Memory safety: codes come from the flow's listings or are built from the hand and checked
 * (fl_code_counts); every loop is bounded by ranks, counts in a hand, combinations or the
 * answers listed (at most FL_LISTED kept, the rest fetched one by one).
 */
#ifndef GOUJI_HEURISTIC_H
#define GOUJI_HEURISTIC_H

#define HR_SEE_COUNT 200  /* err_hook of a see_count rule that failed (err_seat the seat, err_leading the target) */
#define HR_KEY 6

typedef struct hr_prog {
    double vals[G_MAX_KINDS];  /* card_values: what spending one card of each kind costs */
    int jsum[FL_MAX_COMBOS];   /* sum(Play.jokers) of a combination's jokers, as the model classifies them */
    fl_hook see_count;         /* the see_count rules (may seat see how many cards target holds?) */
    /* the bot's constants (HeuristicBot.GOUJI_PENALTY, LATE) */
    double gouji_penalty, late;
} hr_prog;

static inline int hr_team(const fl_state *s, int seat)
{
    return s->c.n_teams > 0 ? (seat - 1) % s->c.n_teams + 1 : 1;
}

static inline int hr_opposite(const fl_state *s, int seat)
{
    return (seat - 1 + s->c.n_seats / 2) % s->c.n_seats + 1;
}

/* whether a code of rank cards uses all of the hand's cards of its rank (_whole) */
static inline int hr_whole(const int16_t *hand, const fl_prog *P, const fl_code *c)
{
    return c->r >= 0 && c->r < P->n_ranks && hand[c->r] == c->n;
}

/* a code's rank as Play.rank (a pure joker play: the kind it ranks as) */
static inline int hr_rank(const fl_prog *P, const fl_code *c)
{
    return c->r >= 0 ? c->r : P->combo_top[c->j];
}

/* _cost: the play's card values (summed in kind order, as sum() adds them), less 1.5 when it
 * clears a whole group, plus 0.5 when it leaves a small group below the top rank */
static inline double hr_cost(const fl_state *s, const fl_prog *P, int seat, const fl_code *c)
{
    const double *vals = s->heur->vals;
    double cost = 0.0;
    int k, nr = P->n_ranks;
    if (c->r >= 0) {
        if (c->f && P->filler < c->r) {  /* (the filler's kind comes first) */
            cost += vals[P->filler] * c->f;
            cost += vals[c->r] * c->n;
        } else {
            if (c->n)
                cost += vals[c->r] * c->n;
            if (c->f)
                cost += vals[P->filler] * c->f;
        }
    }
    for (k = 0; k < P->jk; k++)
        if (P->combo[c->j][k])
            cost += vals[nr + k] * P->combo[c->j][k];
    if (c->r >= 0) {
        int left = s->c.hands[seat][c->r] - c->n;  /* (carried less filler: the rank's own cards) */
        if (left == 0)
            cost -= 1.5;
        else if (left <= 2 && c->r < nr - 1)
            cost += 0.5;
    }
    return cost;
}

/* _premium: uses jokers or the filler rank, or is of the top rank */
static inline int hr_premium(const fl_prog *P, const fl_code *c)
{
    int fill = P->filler >= 0 && ((c->r == P->filler && c->n > 0) || c->f > 0);
    return P->combo_n[c->j] > 0 || fill || hr_rank(P, c) >= P->n_ranks - 1;
}

/* _sure_out: after the play, can every further lead carry a joker but the last? */
static inline int hr_sure_out(const fl_state *s, const fl_prog *P, int seat, const fl_code *c)
{
    const int16_t *hand = s->c.hands[seat];
    int16_t cnt[G_MAX_KINDS];
    int k, groups = 0, jokers = 0;
    if (fl_code_counts(P, c, cnt) < 0)
        return 0;
    for (k = 0; k < P->n_kinds; k++) {
        int rest = hand[k] - cnt[k];
        if (k < P->n_ranks)
            groups += rest != 0;
        else
            jokers += rest;
    }
    if (groups == 0)
        return 1;
    return jokers >= groups - 1 && groups <= 3;
}

/* _seen_count: the cards `target` holds if `seat` may see them (see_count), else -1; -2 on a failure */
static inline int hr_seen(fl_state *s, const fl_prog *P, int seat, int target)
{
    const hr_prog *H = s->heur;
    vm_hook_result r;
    int ok;
    if (!fl_seat_ok(s, target))
        return -1;
    if (H->see_count.n == 0) {
        ok = H->see_count.deflt.v != 0;
    } else {
        fl_question(s, P, seat, NULL, NULL, NULL, 0);
        fl_set_var_seat(s, 1, target);
        r = vm_permit(H->see_count.rules, H->see_count.n, H->see_count.deflt.v != 0, &s->c);
        fl_set_var_seat(s, 1, 0);
        if (r.r.status != VM_OK) {
            s->err_hook = HR_SEE_COUNT;
            s->err_leading = target;
            return -2;
        }
        ok = vm_truth(r.r.result);
    }
    return ok ? fl_hand_total(s, target) : -1;
}

/* ------------------------------------------------------------------------------ leading */
/* whether the lead `c` is among the leads the flow lists (fl_leads): the play rules asked of it,
 * and for the burner the burn_lead rules; 1 / 0, -1 on a failure */
static inline int hr_lead_ok(fl_state *s, const fl_prog *P, int seat, const fl_code *c)
{
    fl_play cand;
    int ok = fl_play_allows(s, P, seat, c, 1, NULL);
    if (ok <= 0 || s->burner != seat)
        return ok;
    if (fl_make_play(s, P, c, seat, &cand) < 0)
        return -1;
    cand.empties = c->n + c->f + P->combo_n[c->j] == fl_hand_total(s, seat);
    fl_question(s, P, seat, &cand, NULL, NULL, 1);
    return fl_permit(s, P, H_BURN_LEAD);
}

/* the lead of the whole hand (a play that empties it), if its shape is a play: 1 with *c, else 0 */
static inline int hr_whole_hand(const fl_state *s, const fl_prog *P, int seat, fl_code *c)
{
    const int16_t *hand = s->c.hands[seat];
    int k, r = -1, others = 0, j;
    for (k = 0; k < P->n_ranks; k++)
        if (hand[k] && k != P->filler) {
            r = k;
            others++;
        }
    if (others > 1)
        return 0;
    for (j = 0; j < P->nc; j++) {
        int same = 1;
        for (k = 0; k < P->jk && same; k++)
            same = P->combo[j][k] == hand[P->n_ranks + k];
        if (same)
            break;
    }
    if (j >= P->nc)
        return 0;
    c->j = j;
    if (r >= 0) {
        c->r = r;
        c->n = hand[r];
        c->f = P->filler >= 0 ? hand[P->filler] : 0;
    } else if (P->filler >= 0 && hand[P->filler]) {
        c->r = P->filler;
        c->n = hand[P->filler];
        c->f = 0;
    } else {
        if (j == 0)
            return 0;  /* (an empty hand) */
        c->r = -1;
        c->n = c->f = 0;
    }
    return 1;
}

enum { HR_DEFAULT = 0, HR_BURNER, HR_ENDGAME };

/* a lead's key (smaller is better; the first smallest is chosen, as min() and max() choose):
 * default _lead_key (jokers, filler, not whole, gouji, rank, -count); the burner's (jokers, their
 * sum, filler, not whole, rank, -count); the endgame's max (jokers, count) */
static inline void hr_lead_key(const fl_state *s, const fl_prog *P, int seat, int mode, const fl_code *c, int gouji, int *k)
{
    const int16_t *hand = s->c.hands[seat];
    int jn = P->combo_n[c->j], count = c->n + c->f + jn;
    int rank = c->r >= 0 ? c->r : P->combo_top[c->j], whole = hr_whole(hand, P, c);
    if (mode == HR_ENDGAME) {
        k[0] = -jn; k[1] = -count; k[2] = k[3] = k[4] = k[5] = 0;
    } else if (mode == HR_BURNER) {
        k[0] = jn; k[1] = s->heur->jsum[c->j]; k[2] = c->f; k[3] = !whole; k[4] = rank; k[5] = -count;
    } else {
        k[0] = jn; k[1] = c->f; k[2] = !whole; k[3] = gouji; k[4] = rank; k[5] = -count;
    }
}

static inline int hr_key_less(const int *a, const int *b)
{
    int i;
    for (i = 0; i < HR_KEY; i++)
        if (a[i] != b[i])
            return a[i] < b[i];
    return 0;
}

/* one lead considered: kept in *best when it is legal and its key is below the best's; -1 on a failure */
static inline int hr_consider(fl_state *s, const fl_prog *P, int seat, int mode, const fl_code *c, int *have, fl_code *best,
                              int *best_key)
{
    int key[HR_KEY], ok;
    hr_lead_key(s, P, seat, mode, c, 0, key);  /* (gouji 0: a bound below the key) */
    if (*have && !hr_key_less(key, best_key))
        return 0;
    ok = hr_lead_ok(s, P, seat, c);
    if (ok <= 0)
        return ok;
    if (mode == HR_DEFAULT) {
        fl_play p;
        if (fl_make_play(s, P, c, seat, &p) < 0)
            return -1;
        if (p.gouji) {
            hr_lead_key(s, P, seat, mode, c, 1, key);
            if (*have && !hr_key_less(key, best_key))
                return 0;
        }
    }
    *have = 1;
    *best = *c;
    memcpy(best_key, key, sizeof key);
    return 0;
}

/* the best lead under `mode`'s key, over the leads in the flow's order (ranks up, then cards,
 * fillers, joker combinations; the pure joker leads last): 1 with *best, 0 none, -1 on a failure.
 * Only leads that may beat the best so far are looked at: with the default and burner keys a
 * combination with more jokers than the best's (they come later in their round: combinations go
 * by total) ends the round; with the default key, once the best has no joker, no filler (and is
 * a whole group), a lead with fillers (or not the whole group) is worse. `strong`: the endgame's rank. */
static int hr_best_lead(fl_state *s, const fl_prog *P, int seat, int mode, int strong, fl_code *best)
{
    const int16_t *hand = s->c.hands[seat];
    int fill = P->filler >= 0 ? hand[P->filler] : 0, r, n, f, q, nj = 0, have = 0, best_key[HR_KEY] = {0};
    int fits[FL_MAX_COMBOS];
    for (q = 0; q < P->nc && q < FL_MAX_COMBOS; q++)  /* the hand's combinations, in order (_JFLAT) */
        if (fl_combo_fits(P, hand, q))
            fits[nj++] = q;
    for (r = 0; r <= P->n_ranks; r++) {
        int rr = r < P->n_ranks ? r : -1, nlo, nhi, fm, qlo;
        if (rr >= 0) {
            if (!hand[rr])
                continue;
            fm = rr != P->filler ? fill : 0;
            nlo = 1;
            nhi = hand[rr];
            qlo = 0;
            if (mode == HR_ENDGAME) {
                if (rr != strong)
                    continue;
                nlo = nhi;
            }
        } else {
            if (mode == HR_ENDGAME)
                break;
            fm = nlo = nhi = 0;
            qlo = 1;  /* (a pure joker lead has jokers) */
        }
        for (n = nlo; n <= nhi; n++) {
            int plain = mode == HR_DEFAULT && have && best_key[0] == 0 && best_key[1] == 0;
            if (plain && best_key[2] == 0 && rr >= 0 && n != hand[rr])
                continue;  /* (not the whole group: worse than the best, a whole group) */
            for (f = 0; f <= fm; f++) {
                if (plain && f > 0)
                    break;  /* (fillers: worse than the best, which has none) */
                for (q = qlo; q < nj; q++) {
                    fl_code c;
                    int j = fits[q];
                    if (have && mode != HR_ENDGAME && P->combo_n[j] > best_key[0])
                        break;
                    c.r = rr; c.n = n; c.f = f; c.j = j;
                    if (hr_consider(s, P, seat, mode, &c, &have, best, best_key) < 0)
                        return -1;
                }
            }
        }
    }
    return have;
}

/* _lead (with _quick_lead, which chooses the same): 1 a play (*code), 0 a discard (*i), <0 as hr_choose */
static int hr_lead(fl_state *s, const fl_prog *P, int seat, long n, long nd, long *i, fl_code *code)
{
    const int16_t *hand = s->c.hands[seat];
    int k, groups = 0, strong = -1, jokers = 0, got, ok;
    if (nd > 0) {  /* void cards: the discard of the most cards (the lowest kind among equals) */
        long d, best = -1;
        int best_n = -1, best_kind = 0, kind = 0;
        for (d = 0; d < nd; d++) {
            if (fl_discards(s, P, seat, d, &kind) != d + 1)
                return -2;
            if (kind < 0 || kind >= P->n_kinds)
                return -2;
            if (hand[kind] > best_n || (hand[kind] == best_n && kind < best_kind)) {  /* (max of (count, cards)) */
                best_n = hand[kind];
                best_kind = kind;
                best = d;
            }
        }
        *i = n + best;
        return 0;
    }
    if (n <= 0)
        return -2;
    if (hr_whole_hand(s, P, seat, code)) {
        ok = hr_lead_ok(s, P, seat, code);
        if (ok < 0)
            return -1;
        if (ok)
            return 1;
    }
    if (s->burner == seat) {
        got = hr_best_lead(s, P, seat, HR_BURNER, -1, code);
        return got < 0 ? -1 : got ? 1 : -2;
    }
    for (k = 0; k < P->n_ranks; k++)
        if (hand[k]) {
            groups++;
            strong = k;
        }
    for (k = P->n_ranks; k < P->n_kinds; k++)
        jokers += hand[k];
    if (groups == 2 || (groups == 1 && jokers > 0)) {  /* the endgame: the strong group first */
        got = hr_best_lead(s, P, seat, HR_ENDGAME, strong, code);
        if (got < 0)
            return -1;
        if (got)
            return 1;
    }
    got = hr_best_lead(s, P, seat, HR_DEFAULT, -1, code);
    return got < 0 ? -1 : got ? 1 : -2;
}

/* ------------------------------------------------------------------------------ answering */
/* the i-th answer listed (from s->listed when it holds it): 0, -2 when it is not there */
static inline int hr_answer_at(fl_state *s, const fl_prog *P, int seat, long i, fl_code *c)
{
    if (i < FL_LISTED) {
        *c = s->listed[i];
        return 0;
    }
    return fl_answers(s, P, seat, i, c) == i + 1 ? 0 : -2;
}

/* _burn: the cheapest burn that surely goes out (or empties the hand): 1 with *code, 0 none, <0 */
static int hr_burn(fl_state *s, const fl_prog *P, int seat, long n, int size, int mate, fl_code *code)
{
    fl_code c;
    double best = 0.0;
    long q;
    int have = 0;
    for (q = 0; q < n; q++) {
        double cost;
        if (hr_answer_at(s, P, seat, q, &c) < 0)
            return -2;
        if (!(c.n + c.f + P->combo_n[c.j] == size || (!mate && hr_sure_out(s, P, seat, &c))))
            continue;
        cost = hr_cost(s, P, seat, &c);
        if (!have || cost < best) {
            have = 1;
            best = cost;
            *code = c;
        }
    }
    return have;
}

/* _follow's choice against an opponent: the cheapest answer (gouji plays dearer but against the
 * opposite), declined when it is premium early in the game; 1 with *code, 0 decline, <0 */
static int hr_follow(fl_state *s, const fl_prog *P, int seat, long n, int size, fl_code *code)
{
    const fl_play *top = &s->top;
    fl_code c, best_c;
    double best = 0.0;
    long q;
    int opposite = top->seat == hr_opposite(s, seat), seen, danger, late, dealt = 0, k, have = 0, best_rank = 0;
    int penalty = !opposite && !top->gouji;  /* (a gouji answer costs more) */
    seen = hr_seen(s, P, seat, top->seat);
    if (seen == -2)
        return -1;
    danger = (seen < 0 ? 99 : seen) <= (top->count > 5 ? top->count : 5);
    for (k = 0; k < P->n_kinds; k++)
        dealt += s->c.dealt[seat][k];
    late = (double)size <= s->heur->late * (double)(dealt > 1 ? dealt : 1);
    memset(&best_c, 0, sizeof best_c);
    for (q = 0; q < n; q++) {
        double cost;
        int rank;
        if (hr_answer_at(s, P, seat, q, &c) < 0)
            return -2;
        cost = hr_cost(s, P, seat, &c);
        rank = hr_rank(P, &c);
        if (have && s->heur->gouji_penalty >= 0 && !(cost < best || (cost == best && rank < best_rank)))
            continue;  /* (not below the best even without the penalty) */
        if (penalty) {
            fl_play p;
            if (fl_make_play(s, P, &c, seat, &p) < 0)
                return -1;
            if (p.gouji)
                cost += s->heur->gouji_penalty;  /* keep gouji plays for the opposite */
        }
        if (!have || cost < best || (cost == best && rank < best_rank)) {
            have = 1;
            best = cost;
            best_c = c;
            best_rank = rank;
        }
    }
    if (!have)
        return -2;
    if (hr_premium(P, &best_c) && !(late || danger || (opposite && top->gouji)))
        return 0;  /* keep jokers and 2s early in the game */
    *code = best_c;
    return 1;
}

/* _burn and _follow over the answers fl_run listed (s->listed): 1 a play (*code), 0 a pass or
 * yield (*i), <0 as hr_choose */
static int hr_answer(fl_state *s, const fl_prog *P, int seat, long n, long m, long *i, fl_code *code)
{
    const fl_play *top = &s->top;
    fl_code c;
    long q;
    int size = fl_hand_total(s, seat), mate;
    *i = m > n + 1 ? n + 1 : n;  /* _decline: yield when the rules allow it, else pass */
    if (n <= 0 || !top->present)
        return 0;
    mate = hr_team(s, top->seat) == hr_team(s, seat);
    if (s->cap == FL_BURN)
        return hr_burn(s, P, seat, n, size, mate, code);
    for (q = 0; q < n; q++) {  /* a play that takes it out */
        if (hr_answer_at(s, P, seat, q, &c) < 0)
            return -2;
        if (c.n + c.f + P->combo_n[c.j] == size) {
            *code = c;
            return 1;
        }
    }
    if (mate)
        return 0;
    return hr_follow(s, P, seat, n, size, code);
}

static int hr_choose(fl_state *s, const fl_prog *P, int seat, long n, long m, long *i, fl_code *code)
{
    if (s->heur == NULL || n < 0 || m < n)
        return -2;
    if (s->cap == FL_LEAD)
        return hr_lead(s, P, seat, n, m - n, i, code);
    return hr_answer(s, P, seat, n, m, i, code);
}

#endif /* GOUJI_HEURISTIC_H */
