/* Whole games in the native core (issue 24): a batch of seeded games with random bots at every
 * seat, from the deal to the scores, one crossing for the batch (flow_py.h: Flow.play_games).
 *
 * A game here is what tools.simulate.play_game plays for game `index` of run `seed` with no
 * previous game: the game's generator seeded as random.Random(f"{seed}:{index}"), each random
 * bot's as random.Random(f"{seed}:{index}:bot{seat}") (the heuristic bot, heuristic.h, at the
 * seats a batch gives it: it draws nothing); the first drawer (first_drawer), the deal
 * (game.h g_deal: random.Random.shuffle's permutation), what each seat showed in the deal (the
 * shown tables interpreter.shown_leader reads), the setup as the generated module runs it
 * (redeal_before_tribute, must_revolt, revolt, redeal, choose, declare, the game-over check, the
 * first leader) with the random bots' setup decisions (revolt / pass, head / headless, declare /
 * pass: randrange(2) from the seat's generator, as play_out draws them), a voided deal dealt again
 * from the game's generator (_redeal), the play phase (flow.h fl_run) and the end (fl_end). Every
 * hook is asked in the order the generated module asks it, so a rule that draws (random_seat())
 * draws the same numbers.
 *
 * What the core does not play itself ends the game here with BG_PYTHON and the caller plays that
 * game again in Python from its seed (the same game: everything comes from the seeds): a game
 * over before the first lead, a deal void MAX_REDEALS times, an answer fl_end does not take, a
 * rule that fails (then Python reports the interpreter's RuleFailed), the decision bound. The
 * rules a batch cannot run at all (setup triggers, choices, setup_rounds rules) are refused when
 * the program is built (flow.py).
 *
 * Bounded: one game is at most BT_MAX_REDEALS deals, each setup loops over seats, and the play
 * at most max_steps decisions (fl_run).
 */
#ifndef GOUJI_BATCH_H
#define GOUJI_BATCH_H

#include <stddef.h>
#include <stdio.h>

#include "flow.h"
#include "game.h"

/* a game's result words (int32): status, decisions, tricks, first leader, burns, their successes,
 * failures, sweep, revolutions, redeals, then places and scores of seats 1..n, then the design
 * metrics' facts (BD_*, after the scores: tools/design.py design_of's Design) */
enum { BG_OK = 0, BG_PYTHON = 1 };
enum { BR_STATUS = 0, BR_DECISIONS, BR_TRICKS, BR_FIRST, BR_BURNS, BR_BURN_OK, BR_BURN_FAILED, BR_SWEEP, BR_REVOLUTIONS,
       BR_REDEALS, BR_PLACES };
/* the design words: decisions with a real choice, every decision a bot was asked (the setup's of
 * every deal too), lead changes, the tricks after which first place was settled, of how many */
enum { BD_CHOICES = 0, BD_DECISIONS, BD_CHANGES, BD_SETTLED, BD_TRICKS, BD_WORDS };
#define BR_DESIGN(n) (BR_PLACES + 2 * (n))
/* after the design words: the seats whose score is a float (a bit mask), then each seat's double
 * (two words: low, high; 0 for a whole score) */
#define BR_FLOATS(n) (BR_DESIGN(n) + BD_WORDS)
#define BR_WORDS(n) (BR_FLOATS(n) + 1 + 2 * (n))
#define BT_MAX_REDEALS 200  /* interpreter.MAX_REDEALS */

typedef struct {
    int burns, ok, failed;   /* burn attempts, and of them those that succeeded / failed */
    int last_ok, last_failed, any;
    int burner, burned, counter;  /* the last burn's seats and whether it was a counter-burn */
    int32_t won[2][G_MAX_SEATS + 1][G_MAX_SEATS + 1];  /* successful burns by s of t ([1] counter-burns): PrevGame.burns */
} bt_burns;

/* the last burn, when it succeeded, into b->won (as hooks._pack_burns counts PrevGame.burns) */
static inline void bt_burn_done(bt_burns *b)
{
    if (b->any && b->last_ok && b->burner >= 1 && b->burner <= G_MAX_SEATS && b->burned >= 1 && b->burned <= G_MAX_SEATS) {
        b->won[0][b->burner][b->burned]++;
        if (b->counter)
            b->won[1][b->burner][b->burned]++;
    }
}

/* the burns of the events s->ev[0 .. s->nev) (as flow.py's _apply_events keeps them), counted */
static inline void bt_count_burns(const fl_state *s, bt_burns *b)
{
    int i;
    for (i = 0; i + FL_EV_WORDS <= s->nev; i += FL_EV_WORDS) {
        int kind = s->ev[i];
        if (kind == EV_BURN) {
            bt_burn_done(b);
            b->burner = s->ev[i + 1];
            b->burned = s->ev[i + 2];
            b->counter = s->ev[i + 3] != 0;
            b->ok += b->last_ok;
            b->failed += b->last_failed;
            b->last_ok = b->last_failed = 0;
            b->burns++;
            b->any = 1;
        } else if (kind == EV_BURN_SUCCESS && b->any) {
            b->last_ok = 1;
        } else if (kind == EV_BURN_FAILED && b->any) {
            b->last_failed = 1;
        }
    }
}

/* random.Random(text) for the bytes of `text` (a str's UTF-8): as Random_seed_text in _core.c */
static inline int bt_seed_text(mt_state *mt, const unsigned char *data, size_t n)
{
    unsigned char all[256 + 64];
    uint32_t key[(256 + 64) / 4 + 2];
    size_t total = n + 64, start, words, i;
    if (n > 256)
        return -1;
    memcpy(all, data, n);
    sha512(data, n, all + n);
    for (start = 0; start < total && all[start] == 0; start++)
        ;
    words = (total - start + 3) / 4;
    for (i = 0; i < words; i++) {
        uint32_t w = 0;
        int b;
        for (b = 3; b >= 0; b--) {
            size_t back = 4 * i + (size_t)b;
            w = (w << 8) | (back < total && total - 1 - back >= start ? all[total - 1 - back] : 0);
        }
        key[i] = w;
    }
    mt_init_by_array(mt, key, words);
    return 0;
}

/* what each seat showed in the deal (hooks._shown, a random deal): per kind, the most cards of one
 * suit and when that count was completed (card i of the seat dealt at time i*n + seat) */
static inline void bt_shown(fl_state *s, const g_tables *t, const g_state *d, const uint8_t *suit, int first)
{
    int n = t->n_seats, seat;
    for (seat = 1; seat <= n; seat++) {
        uint8_t seen[G_MAX_KINDS][16];
        int i, pos;
        memset(seen, 0, sizeof seen);
        for (i = 0, pos = (seat - first + n) % n; pos < t->n_cards; i++, pos += n) {
            int card = d->order[pos], k, u;
            if (card < 0 || card >= t->n_cards)
                continue;
            k = t->deck_kind[card];
            u = suit[card];
            if (u == 0 || u >= 16 || k >= G_MAX_KINDS)
                continue;
            if (seen[k][u] < 255)
                seen[k][u]++;
            if (seen[k][u] > s->c.shown_n[seat][k]) {
                s->c.shown_n[seat][k] = seen[k][u];
                s->c.shown_t[seat][k] = i * n + seat;
            }
        }
    }
}

/* a value hook asked with no seat (redeal_before_tribute, redeal): its truth (1 / 0), -1 a failure */
static inline int bt_says_yes(fl_state *s, const fl_prog *P, int hook)
{
    vm_value v;
    fl_question(s, P, 0, NULL, NULL, NULL, 0);
    if (fl_ask(s, P, hook, &v) < 0)
        return -1;
    return vm_truth(v) != 0;
}

/* the bots of a batch: the heuristic bot (heuristic.h) at the seats of `seats`, random bots at the
 * others; `weak` / `strong`: HeuristicBot.WEAK / STRONG (its setup decisions, by hand_power) */
typedef struct {
    const struct hr_prog *heur;
    uint32_t seats;
    double weak, strong;
    int teams;  /* the ruleset's teams (tools.simulate.teams: the design metrics' lead changes) */
} bt_bots;

/* setup questions (their first move: revolt, choose head, declare) */
enum { BQ_REVOLT = 0, BQ_CHOOSE, BQ_DECLARE, BQ_ASK };

/* heuristic.hand_power of a seat's hand: the same float operations in the same order */
static inline double bt_hand_power(const fl_state *s, int seat)
{
    int nr = s->c.n_ranks, i;
    double p = 0.0;
    for (i = 0; i < s->c.n_kinds && i < G_MAX_KINDS; i++) {
        int c = s->c.hands[seat][i];
        double x;
        if (!c)
            continue;
        if (i >= nr) {
            p += 1.0 * c;
            continue;
        }
        x = (double)i / (double)(nr - 1 > 1 ? nr - 1 : 1);
        p += c * (i == nr - 1 ? 0.5 : (x >= 0.9 ? 0.25 : (x >= 0.8 ? 0.1 : 0.0)));
        if (c >= 6)
            p += 0.1 * (c - 5);
    }
    return p;
}

/* setup results: the first trick begun, Python's, the game over before the first lead, the deal void */
enum { BS_PLAY = 0, BS_PYTHON = 1, BS_OVER = 2, BS_VOID = 3 };

/* what the setup of a game did (over all its deals) */
typedef struct {
    int revolutions, redeals;
    long decisions;  /* the setup's decisions (play_out counts them toward max_decisions) */
    int leader;
    int between;     /* a game after the first of a match: tribute and returns before the setup */
} bt_setup_info;

/* seat `t` revolts (S.revolted.add(t); _recount) */
static inline void bt_revolt(fl_state *s, int t)
{
    int u, k = 0;
    s->c.set_bits[SET_REVOLTED] |= 1U << t;
    for (u = 1; u <= s->c.n_seats; u++)
        if ((s->c.set_bits[SET_REVOLTED] >> u) & 1U)
            s->c.set_order[SET_REVOLTED][k++] = u;
    s->c.set_count[SET_REVOLTED] = k;
    fl_recount(s);
}

/* the seats (not revolted) a permit allows, in seat order, into q (its length returned); -1 a failure */
static inline int bt_queue(fl_state *s, const fl_prog *P, int hook, int *q)
{
    int t, k = 0;
    for (t = 1; t <= s->c.n_seats; t++) {
        int r;
        if ((s->c.set_bits[SET_REVOLTED] >> t) & 1U)
            continue;
        fl_question(s, P, t, NULL, NULL, NULL, 0);
        r = fl_permit(s, P, hook);
        if (r < 0)
            return -1;
        if (r)
            q[k++] = t;
    }
    return k;
}

/* a bot's choice between the two moves of setup question `q` (BQ_*): 0 the first, 1 the second.
 * A random bot: randrange(2) from its generator, as play_out draws it; the heuristic bot: as
 * HeuristicBot.choose (revolt below WEAK, declare from STRONG, keep a head from 2 * WEAK); -1
 * when the generator gives up or the seat has no bot */
static inline int bt_decide(fl_state *s, const bt_bots *B, int seat, int q, bt_setup_info *info)
{
    long i;
    mt_state *bot = s->pick[seat];
    info->decisions++;
    fl_design_note(s, 2);  /* (a setup question has two moves) */
    if (bot == NULL && B != NULL && ((B->seats >> seat) & 1U)) {
        double p = bt_hand_power(s, seat);
        if (q == BQ_REVOLT)
            return p < B->weak ? 0 : 1;
        if (q == BQ_DECLARE)
            return p >= B->strong ? 0 : 1;
        if (q == BQ_ASK)  /* (a choice of the ruleset's own: taken with a weak hand) */
            return p < B->weak ? 0 : 1;
        return p >= B->weak * 2 ? 0 : 1;
    }
    if (bot == NULL || fl_draw(bot, 2, &i) < 0)
        return -1;
    return (int)i;
}

/* the seats of queue q (n of them) asked a two-move question in turn: the first move marks the
 * seat with flag slot `flag` (-1: a flag no program reads); -1 when a draw fails */
static inline int bt_ask_flag(fl_state *s, const bt_bots *B, const int *q, int n, int question, int flag, int flag_second,
                              bt_setup_info *info)
{
    int j;
    for (j = 0; j < n; j++) {
        int d = bt_decide(s, B, q[j], question, info), f;
        if (d < 0)
            return -1;
        f = d == 0 ? flag : flag_second;
        if (f >= 0 && f < VM_NFLAGS)
            s->c.flag_bits[f] |= 1U << q[j];
    }
    return 0;
}

/* the choices of the ruleset's own asked at `point` (0 the deal, 1 the setup: _begin_point,
 * _advance_asks): choice by choice, seat by seat, each seat the offer rules allow (choice bound)
 * takes it or passes (the bot's decision: bt_decide), then the answered trigger's rules run
 * (choice and answer bound: the choice's text, or pass). 0, or -1 (Python plays the game) */
static inline int bt_asks(fl_state *s, const fl_prog *P, const bt_bots *B, int point, bt_setup_info *info)
{
    vm_value keep_choice = s->c.vars[15], keep_answer = s->c.vars[16];
    int j, t, rc = 0;
    if (point < 0 || point > 1)
        return -1;
    for (j = 0; j < P->n_choices[point] && j < FL_MAX_CHOICES && rc == 0; j++)
        for (t = 1; t <= s->c.n_seats && rc == 0; t++) {
            int d, yes;
            fl_question(s, P, t, NULL, NULL, NULL, 0);
            s->c.vars[15].tag = T_TEXT;
            s->c.vars[15].v = P->choices[point][j];
            s->c.vars[16] = keep_answer;
            yes = fl_permit(s, P, H_OFFER);
            if (yes <= 0) {
                rc = yes;
                continue;
            }
            d = bt_decide(s, B, t, BQ_ASK, info);
            if (d < 0) {
                rc = -1;
                continue;
            }
            fl_question(s, P, t, NULL, NULL, NULL, 0);
            s->c.vars[16].tag = T_TEXT;
            s->c.vars[16].v = d == 0 ? P->choices[point][j] : P->text_pass;
            if (P->triggers[TR_ANSWERED].n && fl_trigger_run(s, P, TR_ANSWERED) < 0)
                rc = -1;
        }
    s->c.vars[15] = keep_choice;
    s->c.vars[16] = keep_answer;
    fl_question(s, P, 0, NULL, NULL, NULL, 0);
    return rc;
}

/* ------------------------------------------------------------------------------ between games */
#define BT_MAX_RETURN 64       /* cards one return may give back (more: Python plays the match) */
#define BT_WAYS_LIMIT ((uint64_t)1 << 62)  /* return ways counted (more: Python plays the match) */

/* a value hook's answer as a whole number, as int(answer or 0) takes it: 0, or -1 (a failure, or
 * an answer int() would not take as the core does) */
static inline int bt_whole(fl_state *s, const fl_prog *P, int hook, long *out)
{
    vm_value v;
    if (fl_ask(s, P, hook, &v) < 0)
        return -1;
    if (v.tag == T_NONE)
        *out = 0;
    else if (v.tag == T_INT || v.tag == T_BOOL)
        *out = (long)v.v;
    else
        return -1;
    return 0;
}

/* cards of kind k moved from `giver` to `receiver` (_transfer: as many as the giver holds, counted
 * as received); the number moved */
static inline int bt_move(fl_state *s, int giver, int receiver, int k, int n)
{
    int have = s->c.hands[giver][k];
    int m = n < have ? n : have;
    if (m <= 0)
        return 0;
    s->c.hands[giver][k] = (int16_t)(have - m);
    s->c.hands[receiver][k] = (int16_t)(s->c.hands[receiver][k] + m);
    s->c.received[receiver][k] = (int16_t)(s->c.received[receiver][k] + m);
    return m;
}

/* the question's variables a tribute question binds (target, amount, card, kind), and back */
static inline void bt_bind(fl_state *s, const fl_prog *P, int seat, int target, long amount, int card, int kind_text)
{
    fl_question(s, P, seat, NULL, NULL, NULL, 0);
    fl_set_var_seat(s, 1, target);
    s->c.vars[3].tag = T_INT; s->c.vars[3].v = amount;
    s->c.vars[5].tag = card >= 0 ? T_RANK : T_NONE; s->c.vars[5].v = card >= 0 ? card : 0;
    s->c.vars[6].tag = kind_text >= 0 ? T_TEXT : T_NONE; s->c.vars[6].v = kind_text >= 0 ? kind_text : 0;
}

/* one giver's tribute of one kind to one receiver (_pay_tribute's inner loop): its largest cards
 * the tribute_card rule allows; a return owed is queued. 0, or -1 */
static inline int bt_tribute_one(fl_state *s, const fl_prog *P, int giver, int receiver, int kind_text,
                                 int rq[][3], int *nq)
{
    int cards[G_MAX_KINDS], i, moved = 0;
    long n, left, back;
    bt_bind(s, P, giver, receiver, 0, -1, kind_text);
    if (bt_whole(s, P, H_TRIBUTE, &n) < 0)
        return -1;
    if (n <= 0)
        return 0;
    left = n;
    for (i = s->c.n_kinds - 1; i >= 0; i--) {
        long have, lim, k;
        cards[i] = 0;
        if (left <= 0)
            continue;
        have = s->c.hands[giver][i];
        bt_bind(s, P, giver, 0, 0, i, -1);
        {
            vm_value v;
            if (fl_ask(s, P, H_TRIBUTE_CARD, &v) < 0)
                return -1;
            if (v.tag == T_NONE)
                lim = have;
            else if (v.tag == T_INT || v.tag == T_BOOL)
                lim = (long)v.v;
            else
                return -1;
        }
        k = have < left ? have : left;
        k = k < lim ? k : lim;
        if (k > 0) {
            cards[i] = (int)k;
            left -= k;
        }
    }
    for (i = s->c.n_kinds - 1; i >= 0; i--)  /* (the dict's order: the kinds as they were taken) */
        if (cards[i] > 0)
            moved += bt_move(s, giver, receiver, i, cards[i]);
    if (moved <= 0)
        return 0;
    bt_bind(s, P, receiver, giver, moved, -1, kind_text);
    if (bt_whole(s, P, H_RETURN_TRIBUTE, &back) < 0)
        return -1;
    if (back > 0) {
        if (*nq >= G_MAX_SEATS * G_MAX_SEATS * 8)
            return -1;
        rq[*nq][0] = receiver;
        rq[*nq][1] = giver;
        rq[*nq][2] = back < moved ? (int)back : moved;
        (*nq)++;
    }
    return 0;
}

/* the ways to return `n` cards from `hand` (interpreter.ReturnMoves): ways[i][left], saturated at
 * BT_WAYS_LIMIT */
static inline void bt_ways(const int16_t *hand, int nk, int n, uint64_t ways[][BT_MAX_RETURN + 1])
{
    int i, left, k;
    for (left = 0; left <= n; left++)
        ways[nk][left] = left == 0;
    for (i = nk - 1; i >= 0; i--) {
        for (left = 0; left <= n; left++) {
            uint64_t sum = 0;
            for (k = 0; k <= left && k <= hand[i]; k++) {
                sum += ways[i + 1][left - k];
                if (sum >= BT_WAYS_LIMIT)
                    sum = BT_WAYS_LIMIT;
            }
            ways[i][left] = sum;
        }
    }
}

/* the heuristic bot's return of n cards from `hand` (HeuristicBot._best_return): the way with the
 * least key (the cards' values summed, the groups it breaks, then more of a weaker kind first),
 * built kind by kind from the strongest as the Python bot builds it (the same float operations in
 * the same order, ties kept by the first found); take[k] the cards of kind k. Bounded: nk kinds
 * times n + 1 counts times at most n + 1 cards. 0, or -1 (no way: Python plays the match) */
typedef struct {
    double val;
    int broken, ok;
    int8_t take[G_MAX_KINDS];
} bt_way;

static inline int bt_way_less(const bt_way *a, const bt_way *b, int from, int nk)
{
    int i;
    if (a->val != b->val)
        return a->val < b->val;
    if (a->broken != b->broken)
        return a->broken < b->broken;
    for (i = from; i < nk; i++)
        if (a->take[i] != b->take[i])
            return a->take[i] > b->take[i];  /* (the key holds -take: more of the kind first) */
    return 0;
}

static inline int bt_heur_return(const double *vals, const int16_t *hand, int nk, int n, int *take)
{
    bt_way best[2][BT_MAX_RETURN + 1];
    int i, left, k, cur = 0;
    if (n < 0 || n > BT_MAX_RETURN || nk < 0 || nk > G_MAX_KINDS)
        return -1;
    memset(best, 0, sizeof best);
    best[0][0].ok = 1;
    for (i = nk - 1; i >= 0; i--) {
        bt_way *rest = best[cur], *next = best[1 - cur];
        int h = hand[i] < 0 ? 0 : hand[i];
        for (left = 0; left <= n; left++) {
            next[left].ok = 0;
            for (k = 0; k <= (h < left ? h : left); k++) {
                bt_way w;
                const bt_way *r = &rest[left - k];
                if (!r->ok)
                    continue;
                w = *r;
                w.val = vals[i] * (double)k + r->val;
                w.broken = r->broken + (k && h - k > 0 ? 1 : 0);
                w.take[i] = (int8_t)k;
                if (!next[left].ok || bt_way_less(&w, &next[left], i, nk))
                    next[left] = w;
            }
        }
        cur = 1 - cur;
    }
    if (!best[cur][n].ok)
        return -1;
    for (i = 0; i < nk; i++)
        take[i] = best[cur][n].take[i];
    return 0;
}

/* the returns queued by the tribute (_advance_between's return phase): each receiver's bot draws
 * one of the ReturnMoves ways (the random bot as play_out draws it) or the heuristic bot takes
 * its best (bt_heur_return), the cards go back. 0, or -1 (Python plays the match) */
static inline int bt_returns(fl_state *s, const bt_bots *B, int rq[][3], int nq, bt_setup_info *info)
{
    int q;
    for (q = 0; q < nq; q++) {
        uint64_t ways[G_MAX_KINDS + 1][BT_MAX_RETURN + 1];
        int receiver = rq[q][0], giver = rq[q][1], n = rq[q][2], nk = s->c.n_kinds, i, left;
        long index;
        mt_state *bot;
        if (!fl_seat_ok(s, receiver) || !fl_seat_ok(s, giver) || n < 0 || n > BT_MAX_RETURN || nk > G_MAX_KINDS)
            return -1;
        bot = s->pick[receiver];
        bt_ways(s->c.hands[receiver], nk, n, ways);
        if (ways[0][n] == 0 || ways[0][n] >= BT_WAYS_LIMIT)
            return -1;
        if (bot == NULL && B != NULL && B->heur != NULL && ((B->seats >> receiver) & 1U)) {
            int take[G_MAX_KINDS];
            info->decisions++;
            fl_design_note(s, (long)ways[0][n]);
            if (bt_heur_return(B->heur->vals, s->c.hands[receiver], nk, n, take) < 0)
                return -1;
            for (i = 0; i < nk; i++)
                if (take[i] > 0)
                    bt_move(s, receiver, giver, i, take[i]);
            continue;
        }
        if (bot == NULL || (B != NULL && ((B->seats >> receiver) & 1U)))
            return -1;
        info->decisions++;
        fl_design_note(s, (long)ways[0][n]);
        if (fl_draw(bot, (long)ways[0][n], &index) < 0)
            return -1;
        left = n;
        for (i = 0; i < nk && left > 0; i++) {
            int h = s->c.hands[receiver][i], k, take = 0;
            for (k = h < left ? h : left; k >= 0; k--) {
                uint64_t c = ways[i + 1][left - k];
                if ((uint64_t)index < c) {
                    take = k;
                    break;
                }
                index -= (long)c;
            }
            if (take > 0) {
                bt_move(s, receiver, giver, i, take);
                left -= take;
            }
        }
    }
    return 0;
}

/* the tribute between two games of a match (_pay_tribute, then the returns), kind by kind in the
 * order tribute_kinds gives, giver by giver, each giver's receivers in seat order after him.
 * 0, or -1 (Python plays the match) */
static inline int bt_between(fl_state *s, const fl_prog *P, const bt_bots *B, bt_setup_info *info)
{
    int rq[G_MAX_SEATS * G_MAX_SEATS * 8][3];
    int nq = 0, nkinds, j, n = s->c.n_seats, giver, d;
    int texts[VM_TLIST_MAX];
    vm_value v;
    vm_value saved[4];
    if (!P->matches)
        return -1;
    saved[0] = s->c.vars[1]; saved[1] = s->c.vars[3]; saved[2] = s->c.vars[5]; saved[3] = s->c.vars[6];
    fl_question(s, P, 0, NULL, NULL, NULL, 0);
    if (fl_ask(s, P, H_TRIBUTE_KINDS, &v) < 0)
        return -1;
    if (v.tag == T_NONE || (v.tag == T_LIST && (v.v & 15) == 0))
        nkinds = 0;
    else if (v.tag == T_TLIST && (v.v & 15) <= VM_TLIST_MAX) {
        nkinds = (int)(v.v & 15);
        for (j = 0; j < nkinds; j++)
            texts[j] = (int)(((uint64_t)v.v >> (4 + 8 * j)) & 255);
    } else
        return -1;
    for (j = 0; j < nkinds; j++)
        for (giver = 1; giver <= n; giver++)
            for (d = 1; d < n; d++)
                if (bt_tribute_one(s, P, giver, (giver - 1 + d) % n + 1, texts[j], rq, &nq) < 0)
                    return -1;
    s->c.vars[1] = saved[0]; s->c.vars[3] = saved[1]; s->c.vars[5] = saved[2]; s->c.vars[6] = saved[3];
    fl_question(s, P, 0, NULL, NULL, NULL, 0);
    return bt_returns(s, B, rq, nq, info);
}

#define BT_MAX_SETUP_ROUNDS 64  /* graph.MAX_SETUP_ROUNDS */

/* the buying rounds (_advance_between: setup_rounds rounds, 1 without a rule; an answer that is
 * not a whole number 0..BT_MAX_SETUP_ROUNDS is the interpreter's error): the seat_setup trigger's
 * rules for each seat in turn, each round r bound to `round`. 0, or -1 (a rule failed, or the
 * answer: Python plays the game) */
static inline int bt_seat_setup(fl_state *s, const fl_prog *P)
{
    vm_value keep = s->c.vars[4];
    int t, r, rounds = 1;
    if (P->hooks[H_SETUP_ROUNDS].n) {
        vm_value v;
        fl_question(s, P, 0, NULL, NULL, NULL, 0);
        if (fl_ask(s, P, H_SETUP_ROUNDS, &v) < 0)
            return -1;
        if (v.tag == T_INT && v.v >= 0 && v.v <= BT_MAX_SETUP_ROUNDS)
            rounds = (int)v.v;
        else if (v.tag != T_NONE)
            return -1;
    }
    if (P->triggers[TR_SEAT_SETUP].n == 0)
        return 0;
    for (r = 1; r <= rounds; r++)
        for (t = 1; t <= s->c.n_seats; t++) {
            fl_question(s, P, t, NULL, NULL, NULL, 0);
            s->c.vars[4].tag = T_INT;
            s->c.vars[4].v = r;
            if (fl_trigger_run(s, P, TR_SEAT_SETUP) < 0)
                return -1;
        }
    s->c.vars[4] = keep;
    fl_question(s, P, 0, NULL, NULL, NULL, 0);
    return 0;
}

/* when play begins (_start_play): the game_start trigger's rules, then seat_start's for each seat in
 * turn. 0, or -1 (a rule failed: Python plays the game) */
static inline int bt_start_triggers(fl_state *s, const fl_prog *P)
{
    int t;
    if (P->triggers[TR_GAME_START].n) {
        fl_question(s, P, 0, NULL, NULL, NULL, 0);
        if (fl_trigger_run(s, P, TR_GAME_START) < 0)
            return -1;
    }
    if (P->triggers[TR_SEAT_START].n)
        for (t = 1; t <= s->c.n_seats; t++) {
            fl_question(s, P, t, NULL, NULL, NULL, 0);
            if (fl_trigger_run(s, P, TR_SEAT_START) < 0)
                return -1;
        }
    return 0;
}

/* The setup of a dealt game up to the first lead, as the generated module runs it (_init's deal
 * point, _advance_between with no previous game, _begin_setup, _advance_setup, _advance_asks,
 * _start_play), the random bots' setup decisions (revolt or pass, choose head or headless,
 * declare or pass) drawn from their generators in the module's order: BS_*. */
static inline int bt_setup(fl_state *s, const fl_prog *P, const bt_bots *B, bt_setup_info *info)
{
    vm_value v;
    int q[G_MAX_SEATS + 1];
    int t, n, j, leader, rc;
    if (bt_asks(s, P, B, 0, info) < 0)  /* the deal point's choices */
        return BS_PYTHON;
    rc = bt_says_yes(s, P, H_REDEAL_BEFORE_TRIBUTE);
    if (rc != 0)
        return rc < 0 ? BS_PYTHON : BS_VOID;
    if (info->between && bt_between(s, P, B, info) < 0)
        return BS_PYTHON;
    if (bt_seat_setup(s, P) < 0)
        return BS_PYTHON;
    for (t = 1; t <= s->c.n_seats; t++) {  /* must_revolt */
        fl_question(s, P, t, NULL, NULL, NULL, 0);
        rc = fl_permit(s, P, H_MUST_REVOLT);
        if (rc < 0)
            return BS_PYTHON;
        if (rc) {
            bt_revolt(s, t);
            info->revolutions++;
        }
    }
    n = bt_queue(s, P, H_REVOLT, q);  /* the setup queue: each seat revolts or passes */
    if (n < 0)
        return BS_PYTHON;
    for (j = 0; j < n; j++) {
        int d = bt_decide(s, B, q[j], BQ_REVOLT, info);
        if (d < 0)
            return BS_PYTHON;
        if (d == 0) {
            bt_revolt(s, q[j]);
            info->revolutions++;
        }
    }
    if (bt_asks(s, P, B, 1, info) < 0)  /* the setup point's choices */
        return BS_PYTHON;
    rc = bt_says_yes(s, P, H_REDEAL);
    if (rc != 0)
        return rc < 0 ? BS_PYTHON : BS_VOID;
    n = bt_queue(s, P, H_CHOOSE, q);  /* the choose queue: head (chose_head) or headless */
    if (n < 0 || bt_ask_flag(s, B, q, n, BQ_CHOOSE, P->flag_chose_head, P->flag_chose_headless, info) < 0)
        return BS_PYTHON;
    n = bt_queue(s, P, H_DECLARE, q);  /* then the declare queue: declare (declared) or pass */
    if (n < 0 || bt_ask_flag(s, B, q, n, BQ_DECLARE, P->flag_declared, -1, info) < 0)
        return BS_PYTHON;
    if (bt_start_triggers(s, P) < 0)
        return BS_PYTHON;
    rc = fl_over(s, P);  /* _start_play's _settle */
    if (rc != 0)
        return BS_PYTHON;
    fl_question(s, P, 0, NULL, NULL, NULL, 0);
    if (fl_ask(s, P, H_FIRST_LEADER, &v) < 0)
        return BS_PYTHON;
    if (v.tag == T_NONE)
        leader = 0;
    else if (v.tag == T_INT && v.v >= 1 && v.v <= s->c.n_seats)
        leader = (int)v.v;
    else
        return BS_PYTHON;
    if (leader == 0 || fl_gone(s, leader))
        leader = fl_next_active(s, leader ? leader : s->c.n_seats);
    if (leader == 0)
        return BS_PYTHON;
    info->leader = leader;
    rc = fl_new_trick(s, P, leader);
    return rc == 0 ? BS_PLAY : rc == 1 ? BS_OVER : BS_PYTHON;
}

/* what the next game of a match may know of the last one (interpreter.PrevGame, as the context
 * holds it: places, flags, counters, successful burns, sweep, its number) */
typedef struct {
    int game_number, sweep;
    int32_t place[G_MAX_SEATS + 1];
    uint32_t flag_bits[VM_NFLAGS];
    int64_t counters[VM_NCOUNTERS][G_MAX_SEATS + 1];
    int32_t burns[2][G_MAX_SEATS + 1][G_MAX_SEATS + 1];
} bt_prev;

/* what a batch works in (allocated once per batch: too large for a thread's stack) */
typedef struct {
    fl_state s;
    mt_state game, bots[G_MAX_SEATS + 1];
    g_state deal;
    fl_design design;  /* the game's (over all its deals) */
    vm_ctx base;   /* the context of the game being played (a match's later game: what it knows of the last) */
    bt_prev prev;  /* the last game played (of the match under way) */
    bt_burns burns;
} bt_work;

/* the context of a game that follows `p` in a match (next_game: its number, first_game false,
 * the previous game's sweep, places, flags, counters and burns), from a first game's */
static inline void bt_next_context(vm_ctx *c, const vm_ctx *base, const bt_prev *p)
{
    *c = *base;
    c->vars[10].tag = T_INT; c->vars[10].v = p->game_number + 1;
    c->vars[13].tag = T_BOOL; c->vars[13].v = p->sweep != 0;
    c->vars[14].tag = T_BOOL; c->vars[14].v = 0;
    memcpy(c->prev_place, p->place, sizeof c->prev_place);
    memcpy(c->prev_flag_bits, p->flag_bits, sizeof c->prev_flag_bits);
    memcpy(c->prev_counters, p->counters, sizeof c->prev_counters);
    memcpy(c->prev_burns, p->burns, sizeof c->prev_burns);
}

/* a fresh deal of the game (GameState._init from the deal point): the state from `base`, the first
 * drawer asked, the pack shuffled from the game's generator and dealt, what each seat showed;
 * 0, or -1 (Python plays the game) */
static inline int bt_deal(bt_work *W, const fl_prog *P, const bt_bots *B, const vm_ctx *base, const g_tables *t,
                          const uint8_t *suit, long max_steps, int32_t *ev, int ev_cap)
{
    fl_state *s = &W->s;
    g_state *d = &W->deal;
    int n = t->n_seats, seat, first = 1, k;
    vm_value v;
    /* the flow's fields zeroed (not the gouji cache: the gouji rules read the play alone, so what it
       holds stands for every game of the batch; nor the answers listed for the heuristic bot,
       written before they are read), the context a fresh game's */
    memset((char *)s + offsetof(fl_state, c) + sizeof s->c, 0, offsetof(fl_state, gouji_key) - offsetof(fl_state, c) - sizeof s->c);
    memset((char *)s + offsetof(fl_state, err_play), 0, offsetof(fl_state, listed) - offsetof(fl_state, err_play));
    s->c = *base;
    s->c.rng = &W->game;
    s->ev = ev;
    s->ev_cap = ev_cap;
    s->max_steps = max_steps;
    s->design = &W->design;
    s->err_hook = -1;
    for (seat = 1; seat <= n; seat++)
        s->pick[seat] = (B->seats >> seat) & 1U ? NULL : &W->bots[seat];
    if (B->heur != NULL) {
        s->heur = B->heur;
        s->heur_seats = B->seats;
    }
    fl_recount(s);
    fl_question(s, P, 0, NULL, NULL, NULL, 0);
    if (fl_ask(s, P, H_FIRST_DRAWER, &v) < 0)
        return -1;
    if (v.tag == T_INT && v.v >= 1 && v.v <= n)
        first = (int)v.v;
    else if (v.tag != T_NONE)
        return -1;
    if (g_deal(t, &W->game, first, d) < 0)
        return -1;
    for (seat = 1; seat <= n; seat++)
        for (k = 0; k < t->n_kinds; k++)
            s->c.hands[seat][k] = s->c.dealt[seat][k] = d->hands[seat][k];
    bt_shown(s, t, d, suit, first);
    return 0;
}

/* the design words (BD_*) of a game over: design_of's Design. `final`: the seat placed first (0:
 * none); first place is settled after the snapshot following the last one whose provisional first
 * was not `final`; of max(tricks, snapshots) */
static inline void bt_design(const fl_design *d, const fl_state *s, long decisions, int32_t *out)
{
    int final = 0, last_other = -1, total = s->trick_no > d->firsts ? s->trick_no : d->firsts, k;
    for (k = 1; k <= s->c.n_seats && final == 0; k++)
        if (s->c.place[k] == 1)
            final = k;
    for (k = 0; k <= s->c.n_seats && k <= G_MAX_SEATS; k++)
        if (k != final && d->last[k] > last_other)
            last_other = d->last[k];
    out[BD_CHOICES] = (int32_t)d->choices;
    out[BD_DECISIONS] = (int32_t)decisions;
    out[BD_CHANGES] = d->changes;
    out[BD_SETTLED] = last_other + 1 < total ? last_other + 1 : total;
    out[BD_TRICKS] = total;
}

/* One game of the batch into out[BR_WORDS(n)]. `base`: the context of a fresh game (flow.py's
 * template, game 1, no previous game); `ev`: an event buffer of ev_cap words. A voided deal is
 * dealt again from the game's generator (_redeal), at most BT_MAX_REDEALS - 1 times. */
static inline void bt_game(bt_work *W, const fl_prog *P, const bt_bots *B, const vm_ctx *base, const g_tables *t,
                           const uint8_t *suit, const char *seed, long index, long max_steps, int32_t *ev, int ev_cap,
                           int32_t *out, int follows)
{
    fl_state *s = &W->s;
    char text[300];
    int n = t->n_seats, seat, status, k = BS_VOID, len, deals;
    bt_burns *bp = &W->burns;
    bt_setup_info info;
    fl_result result;
    memset(out, 0, sizeof(int32_t) * (size_t)BR_WORDS(n));
    out[BR_STATUS] = BG_PYTHON;
    memset(bp, 0, sizeof *bp);
    memset(&info, 0, sizeof info);
    if (follows) {  /* a later game of the match: tribute between the games, what it knows of the last */
        bt_next_context(&W->base, base, &W->prev);
        info.between = 1;
    } else
        W->base = *base;
    base = &W->base;
    memset(&result, 0, sizeof result);
    result.floats_ok = 1;
    memset(&W->design, 0, sizeof W->design);
    W->design.trick = -1;
    W->design.teams = B->teams;
    for (seat = 0; seat <= G_MAX_SEATS; seat++)
        W->design.last[seat] = -1;
    len = snprintf(text, sizeof text, "%s:%ld", seed, index);
    if (len < 0 || len >= (int)sizeof text || bt_seed_text(&W->game, (const unsigned char *)text, (size_t)len) < 0)
        return;
    for (seat = 1; seat <= n; seat++) {
        if ((B->seats >> seat) & 1U)
            continue;  /* (the heuristic bot draws nothing) */
        len = snprintf(text, sizeof text, "%s:%ld:bot%d", seed, index, seat);
        if (len < 0 || len >= (int)sizeof text || bt_seed_text(&W->bots[seat], (const unsigned char *)text, (size_t)len) < 0)
            return;
    }
    for (deals = 0; deals < BT_MAX_REDEALS && k == BS_VOID; deals++) {
        int64_t kept[VM_NCOUNTERS][G_MAX_SEATS + 1];
        int c;
        for (c = 0; c < P->n_kept && c < VM_NCOUNTERS; c++)  /* (a deal dealt again keeps the game's and match's counters) */
            memcpy(kept[c], s->c.counters[P->kept[c]], sizeof kept[c]);
        if (bt_deal(W, P, B, base, t, suit, max_steps, ev, ev_cap) < 0)
            return;
        if (deals > 0)
            for (c = 0; c < P->n_kept && c < VM_NCOUNTERS; c++)
                memcpy(s->c.counters[P->kept[c]], kept[c], sizeof kept[c]);
        k = bt_setup(s, P, B, &info);
        if (k == BS_VOID)
            info.redeals++;
    }
    /* (a deal void MAX_REDEALS times in a row is the interpreter's error; past max_decisions too) */
    if (k == BS_VOID || k == BS_PYTHON || info.decisions > max_steps)
        return;
    s->max_steps = max_steps - info.decisions;  /* (play_out counts the setup's decisions too) */
    status = FL_OVER;
    if (k == BS_PLAY) {
        long guard;
        for (guard = 0; guard <= max_steps + 1; guard++) {
            status = fl_run(s, P);
            if (status != FL_FULL)
                break;
            bt_count_burns(s, bp);
            s->nev = 0;
        }
    }
    if (status != FL_OVER || !fl_end(s, P, &result))
        return;
    bt_count_burns(s, bp);
    bt_burn_done(bp);
    bp->ok += bp->last_ok;
    bp->failed += bp->last_failed;
    out[BR_STATUS] = BG_OK;
    out[BR_DECISIONS] = (int32_t)s->steps;
    out[BR_TRICKS] = s->trick_no;
    out[BR_FIRST] = info.leader;
    out[BR_BURNS] = bp->burns;
    out[BR_BURN_OK] = bp->ok;
    out[BR_BURN_FAILED] = bp->failed;
    out[BR_SWEEP] = result.sweep;
    out[BR_REVOLUTIONS] = info.revolutions;
    out[BR_REDEALS] = info.redeals;
    for (seat = 1; seat <= n; seat++) {
        out[BR_PLACES + seat - 1] = s->c.place[seat];
        out[BR_PLACES + n + seat - 1] = (int32_t)result.score[seat];
        if ((result.floats >> seat) & 1U) {
            uint64_t b = (uint64_t)result.fbits[seat];
            out[BR_FLOATS(n) + 1 + 2 * (seat - 1)] = (int32_t)(uint32_t)(b & 0xFFFFFFFFU);
            out[BR_FLOATS(n) + 2 + 2 * (seat - 1)] = (int32_t)(uint32_t)(b >> 32);
        }
    }
    out[BR_FLOATS(n)] = (int32_t)result.floats;
    bt_design(&W->design, s, info.decisions + s->steps, out + BR_DESIGN(n));
    /* what the next game of the match may know of this one (interpreter.GameState.summary) */
    W->prev.game_number = (int)base->vars[10].v;
    W->prev.sweep = result.sweep != 0;
    memcpy(W->prev.place, s->c.place, sizeof W->prev.place);
    memcpy(W->prev.flag_bits, s->c.flag_bits, sizeof W->prev.flag_bits);
    memcpy(W->prev.counters, s->c.counters, sizeof W->prev.counters);
    memcpy(W->prev.burns, bp->won, sizeof W->prev.burns);
}

#endif /* GOUJI_BATCH_H */
