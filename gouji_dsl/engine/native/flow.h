/* The native core's game flow: the play phase with random bots, move for move
 * gouji_dsl/engine/playout.py's _random_run and what it calls (_lead_count, _lead_code_at,
 * _lead_codes for a burner, _answers / _rank_table, _play, _advance, _yield, _trick_won,
 * _new_trick, _finish, _fail_burn, _retire, _place, _free_places, _check_over), for the path the
 * generator marks COVER_MODEL (same-count or free-count comparison; play rules; discards), and
 * for the positional comparison (card by card) as the same-count enumeration over its own cover
 * table (flow.py _cover_table: the interpreter's plays_from order filtered by CardModel.beats).
 *
 * State is flat: the hook programs' context (vm_ctx: hands, places, seat sets, flags, counters;
 * the plays a question is about with their attributes, and their cards per kind where a program
 * reads cards_of: fl_put_play, as hooks.pack_context packs them) is the game state itself, kept
 * up to date as the flow changes it; the rest (seat queue, the play on the table, yielders,
 * burner) is in fl_state. Hooks are asked through vm_permit /
 * vm_value_of over the verified programs of fl_prog (programs passed vm_verify when the program
 * was loaded); a trigger hook's mark / unmark / count rules are run here.
 *
 * The flow stops (returns to Python) when a seat that is not a random bot must act, when the game
 * is over (Python writes the places left and the scores: _game_over), at max_decisions, when the
 * event buffer is nearly full (at a decision boundary: Python empties it and calls again), or
 * when a rule fails or answers outside its question (FL_RULE: Python asks the same question of
 * the interpreter's rule graph on the state as it is, which raises the interpreter's RuleFailed).
 *
 * Memory safety: every seat, kind, combination and queue index is checked before it is used;
 * every loop is bounded (by seats, kinds, combinations, the queue's capacity or max_decisions).
 */
#ifndef GOUJI_FLOW_H
#define GOUJI_FLOW_H

#include <stdint.h>
#include <string.h>

#include "game.h"
#include "mt.h"
#include "vm.h"

#define FL_MAX_COMBOS 512  /* joker combinations (product of (jokers of a kind in the pack + 1)) */
#define FL_MAX_JK 8        /* joker kinds */
#define FL_MAX_QUEUE 64
#define FL_MAX_RULES 64    /* rules per hook */
#define FL_MAX_CHOICES 8   /* choices of the ruleset's own asked at one point (flow.py MAX_CHOICES) */
#define FL_EV_WORDS 8      /* words per event */
#define FL_LISTED 512      /* answers listed for the heuristic bot (heuristic.h fetches the rest one by one) */

enum { FL_LEAD = 0, FL_FOLLOW = 1, FL_BURN = 2 };
enum {
    H_FOLLOW = 0, H_BURN, H_YIELD, H_YIELD_TO, H_FOLLOW_ORDER, H_BURN_ORDER, H_NEXT_LEADER, H_GAME_OVER, H_BURN_FAILURE,
    H_NO_LEAD, H_BURN_LEAD, H_REVOLUTION_PLACE, H_GOUJI, H_PLAY, H_DISCARD,
    H_UNFINISHED_ORDER, H_SWEEP, H_SCORE,  /* the game's end (fl_end; asked only where fl_prog.end is set) */
    H_FIRST_DRAWER, H_REDEAL_BEFORE_TRIBUTE, H_MUST_REVOLT, H_REVOLT, H_REDEAL, H_CHOOSE, H_DECLARE,
    H_FIRST_LEADER,  /* a whole game's setup (batch.h; asked only where fl_prog.games is set) */
    H_TRIBUTE_KINDS, H_TRIBUTE, H_TRIBUTE_CARD, H_RETURN_TRIBUTE,  /* between the games of a match (batch.h;
                                                                      asked only where fl_prog.matches is set) */
    H_SETUP_ROUNDS,  /* the buying rounds' number (batch.h; asked only where fl_prog.games is set) */
    H_OFFER,         /* whether a seat is asked a choice of the ruleset's own (batch.h bt_asks; likewise) */
    H_N
};
enum { TR_AFTER_PLAY = 0, TR_TRICK_WON, TR_FINISH, TR_AFTER_PASS, TR_AFTER_YIELD,
       TR_SEAT_SETUP,  /* the between-game phase's buying rounds (batch.h; run only where fl_prog.games is set) */
       TR_GAME_START, TR_SEAT_START,  /* when play begins, after the setup (batch.h; likewise) */
       TR_ANSWERED,  /* after a seat answered a choice of the ruleset's own (batch.h bt_asks; likewise) */
       TR_N };
enum { TE_MARK = 0, TE_UNMARK = 1, TE_COUNT = 2, TE_PLACE = 3, TE_GIVE = 4 };
/* the words a placement answer may be (Placement): their text ids are given by the program */
enum { PL_LAST = 0, PL_NEXT = 1, PL_AFTER = 2 };
/* events (8 words: kind, then arguments) */
enum {
    EV_PLAY = 1, EV_BURNMOVE, EV_PASS, EV_YIELD, EV_PLACE, EV_TRICK_WON, EV_RETIRE, EV_NO_LEAD, EV_BURN,
    EV_COUNTER_BURN, EV_BURN_UNDONE, EV_BURN_SUCCESS, EV_BURN_FAILED, EV_DISCARDMOVE, EV_DISCARD
};
/* run results */
enum { FL_STOP = 0, FL_OVER = 1, FL_LIMIT = 2, FL_FULL = 3, FL_RULE = 4, FL_BROKEN = 5 };

typedef struct {
    int r, n, f, j;  /* rank (-1: jokers only), its cards, filler cards, joker combination */
} fl_code;

typedef struct {
    int present, seat;
    fl_code code;
    int rank, count, carried, filler, jokers, pure, gouji;
    int beaten, over_yield, yielder, empties, is_burn;  /* beaten / yielder: 0 for none */
} fl_play;

typedef struct {
    vm_rule rules[FL_MAX_RULES];
    int n, kind;       /* kind 0 permit, 1 value */
    vm_value deflt;
    int none_ok;
} fl_hook;

typedef struct {
    const int32_t *when, *target, *amount, *code;  /* code: a place rule's placement, a give rule's card kind */
    const int32_t *giver;                          /* a give rule's giver (NULL: the question's seat) */
    int when_n, target_n, amount_n, code_n, giver_n;
    int effect, slot;
    int rule;  /* a place rule: its retirement's rule (2 + its number in the program's list) */
} fl_trule;

typedef struct {
    fl_trule rules[FL_MAX_RULES];
    int n;
} fl_trigger;

typedef struct {
    int n_seats, n_kinds, n_ranks, filler, spare, jk, nc;
    int16_t combo[FL_MAX_COMBOS][FL_MAX_JK];  /* sorted by total, then in itertools.product order */
    int combo_n[FL_MAX_COMBOS];
    int combo_top[FL_MAX_COMBOS];             /* the kind a pure joker play of it ranks as */
    int8_t cover[FL_MAX_COMBOS][FL_MAX_COMBOS];  /* lead combination x answer combination: spare jokers, -1 */
    int text_place[3];                        /* text ids of last, next, after-finishers */
    fl_hook hooks[H_N];
    fl_trigger triggers[TR_N];
    int n_trick_counters, trick_counters[VM_NCOUNTERS];
    int burn_lead_by_jokers;  /* the burn_lead rules read only a play's jokers and whether it empties the hand */
    int has_play;             /* play rules are asked of leads and answers (HAS_PLAY) */
    uint64_t play_ranks;      /* the ranks whose plays they may forbid (PLAY_RANKS; every rank: all bits) */
    int play_jokers;          /* ... and whether pure joker plays are asked */
    int free_count;           /* the free-count comparison (two / three kill one): every card used exactly */
    int n_discard, discard_kinds[G_MAX_KINDS];  /* the kinds a discard rule can allow throwing away (DISCARD_RANKS) */
    int play_counts;          /* a program reads a play's cards per kind (cards_of): fill vm_ctx.play_counts */
    int end;                  /* the game's end (places left, sweep, scores) is played here (fl_end) */
    int games;                /* whole games are played here (batch.h): the setup hooks are loaded */
    int matches;              /* whole matches too (batch.h): the tribute hooks are loaded */
    int flag_chose_head, flag_chose_headless, flag_declared;  /* the flags a setup choice sets (-1: none a program reads) */
    int n_choices[2], choices[2][FL_MAX_CHOICES];  /* the ruleset's own choices asked at the deal, at the setup (text ids) */
    int text_pass;                                 /* the text of a pass (a choice's answer when not taken) */
    int n_kept, kept[VM_NCOUNTERS];                /* the counters a voided deal dealt again keeps (reset game, match) */
} fl_prog;

#define FL_GOUJI_CACHE 1024

struct hr_prog;  /* the heuristic bot's tables (heuristic.h) */

/* The design metrics' per-move facts of a whole game (设计指标; batch.h; what tools/design.py's
 * Probe writes down and design_of reduces): the decisions with more than one legal move, and at the
 * first decision of each trick (the setup's decisions are trick 0) the provisional first place (the
 * seat placed first, else the one seat holding the fewest cards, else no one), its team's lead
 * changes, and per seat (0: no one) the last such trick it was first at. Counted only where a run
 * asks for them (fl_state.design set). */
typedef struct {
    long choices;              /* decisions with more than one legal move */
    int trick;                 /* the trick of the last decision noted (-1 before the first) */
    int firsts;                /* tricks noted (the snapshots design_of keeps) */
    int teams, lead_team;      /* seats alternate between `teams` teams; the last provisional first's (0: none yet) */
    int changes;               /* lead changes (between consecutive provisional firsts' teams) */
    int last[G_MAX_SEATS + 1]; /* per seat, 0 for no one: the last snapshot index it was first at (-1: never) */
} fl_design;

typedef struct {
    vm_ctx c;
    int to_act, cap, burner, burned_seat, trick_leader, trick_no;
    uint32_t yielded, failed;
    int qlen, qseat[FL_MAX_QUEUE], qcap[FL_MAX_QUEUE];
    int ny, yielders[G_MAX_SEATS + 1];
    int nlate, late[G_MAX_SEATS + 1];
    fl_play top;
    /* what changed of the flags and counters (Python writes back only those) */
    uint32_t marked[VM_NFLAGS];               /* seats a mark rule marked */
    uint32_t counted[VM_NCOUNTERS];           /* seats whose counter a count rule changed since it was last reset */
    uint32_t reset;                           /* counters reset at a new trick (bit per counter) */
    /* the run */
    mt_state *pick[G_MAX_SEATS + 1];
    long steps, max_steps;
    fl_design *design;  /* the design metrics' counters (batch.h), NULL where no one reads them */
    int32_t *ev;
    int nev, ev_cap;
    /* a rule failure: the hook (H_* or 100 + TR_*), and its question */
    int err_hook, err_seat, err_leading;
    int won;  /* set when a trick was won (the seats asked about a play are done) */
    /* gouji per code, for this run (the gouji rules read the play alone: graph._install_gouji asks
       them with no game) */
    uint64_t gouji_key[FL_GOUJI_CACHE];
    int8_t gouji_val[FL_GOUJI_CACHE];
    fl_play err_play, err_top, err_beaten;
    /* the heuristic bot (heuristic.h): its tables and the seats it plays (pick[seat] NULL); the
       answers fl_answers lists are copied into collect (its first collect_cap) when it is set */
    const struct hr_prog *heur;
    uint32_t heur_seats;
    fl_code *collect;
    long collect_cap;
    fl_code listed[FL_LISTED];  /* the answers of the seat to act, for the heuristic bot */
} fl_state;

/* ------------------------------------------------------------------------------ the context */
static inline int fl_seat_ok(const fl_state *s, int seat)
{
    return seat >= 1 && seat <= s->c.n_seats;
}

static inline int fl_gone(const fl_state *s, int seat)
{
    return fl_seat_ok(s, seat) && !((s->c.set_bits[SET_ACTIVE] >> seat) & 1U);
}

/* _recount: the active seats (not placed, revolted or failed) and places_taken */
static inline void fl_recount(fl_state *s)
{
    int t, k = 0, placed = 0;
    uint32_t bits = 0;
    for (t = 1; t <= s->c.n_seats; t++) {
        if (s->c.place[t] > 0)
            placed++;
        if (s->c.place[t] > 0 || ((s->c.set_bits[SET_REVOLTED] >> t) & 1U) || ((s->failed >> t) & 1U))
            continue;
        bits |= 1U << t;
        s->c.set_order[SET_ACTIVE][k++] = t;
    }
    s->c.set_bits[SET_ACTIVE] = bits;
    s->c.set_count[SET_ACTIVE] = k;
    s->c.vars[11].tag = T_INT;  /* places_taken */
    s->c.vars[11].v = placed;
}

static inline int fl_out_count(const fl_state *s)
{
    return s->c.n_seats - s->c.set_count[SET_ACTIVE];
}

static inline void fl_set_passed(fl_state *s, uint32_t bits)
{
    int t, k = 0;
    s->c.set_bits[SET_PASSED] = bits;
    for (t = 1; t <= s->c.n_seats; t++)
        if ((bits >> t) & 1U)
            s->c.set_order[SET_PASSED][k++] = t;
    s->c.set_count[SET_PASSED] = k;
}

static inline void fl_set_var_seat(fl_state *s, int slot, int seat)
{
    s->c.vars[slot].tag = seat ? T_INT : T_NONE;
    s->c.vars[slot].v = seat;
}

/* a code's cards per kind (Play.counts; the events' counts too): n of rank r, f fillers (on the
 * filler's own count when r is the filler), the jokers of combination j; 0 on a code out of range */
static inline int fl_code_counts(const fl_prog *P, const fl_code *code, int16_t *out)
{
    int k;
    if (P->n_kinds < 1 || P->n_kinds > G_MAX_KINDS || P->n_ranks < 0 || P->n_ranks > P->n_kinds
        || P->jk != P->n_kinds - P->n_ranks || P->jk > FL_MAX_JK || code->j < 0 || code->j >= P->nc
        || code->j >= FL_MAX_COMBOS || code->r < -1 || code->r >= P->n_ranks || code->n < 0 || code->n > 32767
        || code->f < 0 || code->f > 32767 || (code->f && (P->filler < 0 || P->filler >= P->n_ranks)))
        return -1;
    for (k = 0; k < P->n_ranks; k++)
        out[k] = 0;
    if (code->r >= 0)
        out[code->r] = (int16_t)code->n;
    if (code->f)
        out[P->filler] = (int16_t)(out[P->filler] + code->f > 32767 ? 32767 : out[P->filler] + code->f);
    for (k = 0; k < P->jk; k++)
        out[P->n_ranks + k] = P->combo[code->j][k];
    return 0;
}

/* play slot `which` (0 play, 1 top, 2 beaten) of the context: present, its attributes, and its
 * cards per kind where a program reads them (P->play_counts: cards_of) */
static inline void fl_put_play(fl_state *s, const fl_prog *P, int which, const fl_play *p)
{
    vm_value *a;
    if (which < 0 || which >= VM_NPLAYS)
        return;
    a = s->c.play_attr[which];
    if (p == NULL || !p->present) {
        s->c.play_present[which] = 0;
        return;
    }
    if (P->play_counts && fl_code_counts(P, &p->code, s->c.play_counts[which]) < 0) {
        s->c.play_present[which] = 0;  /* (a code out of range: fs_get_play and fl_make_play make none) */
        return;
    }
    s->c.play_present[which] = 1;
    a[0].tag = T_INT; a[0].v = p->seat;
    a[1].tag = T_RANK; a[1].v = p->rank;
    a[2].tag = T_INT; a[2].v = p->count;
    a[3].tag = T_INT; a[3].v = p->carried;
    a[4].tag = T_INT; a[4].v = p->filler;
    a[5].tag = T_INT; a[5].v = p->jokers;
    a[6].tag = T_BOOL; a[6].v = p->pure;
    a[7].tag = T_BOOL; a[7].v = p->gouji;
    a[8].tag = p->beaten ? T_INT : T_NONE; a[8].v = p->beaten;
    a[9].tag = T_BOOL; a[9].v = p->over_yield;
    a[10].tag = p->yielder ? T_INT : T_NONE; a[10].v = p->yielder;
    a[11].tag = T_BOOL; a[11].v = p->empties;
    a[12].tag = T_BOOL; a[12].v = p->is_burn;
}

/* the question's bindings: seat (0: none), the plays (NULL: none), leading */
static inline void fl_question(fl_state *s, const fl_prog *P, int seat, const fl_play *play, const fl_play *top, const fl_play *beaten,
                               int leading)
{
    fl_set_var_seat(s, 0, seat);
    s->c.vars[2].tag = T_BOOL;
    s->c.vars[2].v = leading;
    fl_put_play(s, P, 0, play);
    fl_put_play(s, P, 1, top);
    fl_put_play(s, P, 2, beaten);
    s->err_seat = seat;
    s->err_leading = leading;
    if (play) s->err_play = *play; else s->err_play.present = 0;
    if (top) s->err_top = *top; else s->err_top.present = 0;
    if (beaten) s->err_beaten = *beaten; else s->err_beaten.present = 0;
}

/* a hook's answer (after fl_question): 0, or -1 when a rule failed (err_hook set) */
static inline int fl_ask(fl_state *s, const fl_prog *P, int hook, vm_value *out)
{
    const fl_hook *h = &P->hooks[hook];
    vm_hook_result r;
    if (h->kind == 0)
        r = vm_permit(h->rules, h->n, h->deflt.v != 0, &s->c);
    else
        r = vm_value_of(h->rules, h->n, h->deflt, &s->c);
    if (r.r.status != VM_OK) {
        s->err_hook = hook;
        return -1;
    }
    *out = r.r.result;
    return 0;
}

/* a permit hook's answer: 0 / 1, -1 on a failure */
static inline int fl_permit(fl_state *s, const fl_prog *P, int hook)
{
    vm_value v;
    if (fl_ask(s, P, hook, &v) < 0)
        return -1;
    return vm_truth(v);
}

static inline int fl_fail(fl_state *s, int hook)
{
    s->err_hook = hook;
    return -1;
}

/* a seat answer (next_leader): the seat, 0 for none, -1 when it is no seat */
static inline int fl_seat_answer(fl_state *s, const fl_prog *P, int hook, vm_value v)
{
    if (v.tag == T_NONE)
        return P->hooks[hook].none_ok ? 0 : fl_fail(s, hook);
    if (v.tag != T_INT || !fl_seat_ok(s, (int)v.v))
        return fl_fail(s, hook);
    return (int)v.v;
}

/* a placement answer: PL_*, or -1 */
static inline int fl_place_answer(fl_state *s, const fl_prog *P, int hook, vm_value v, int deflt)
{
    int i;
    if (v.tag == T_NONE)
        return deflt;
    if (v.tag == T_TEXT)
        for (i = 0; i < 3; i++)
            if (v.v == P->text_place[i])
                return i;
    return fl_fail(s, hook);
}

static inline int fl_event(fl_state *s, int kind, int a, int b, int c, const fl_code *code)
{
    int32_t *e;
    if (s->nev + FL_EV_WORDS > s->ev_cap) {
        s->err_hook = -1;  /* (not a rule: the buffer, which the margin before each decision keeps from filling) */
        return -1;
    }
    e = s->ev + s->nev;
    e[0] = kind; e[1] = a; e[2] = b; e[3] = c;
    if (code) {
        e[4] = code->r; e[5] = code->n; e[6] = code->f; e[7] = code->j;
    } else {
        e[4] = e[5] = e[6] = e[7] = 0;
    }
    s->nev += FL_EV_WORDS;
    return 0;
}

static inline int fl_retire(fl_state *s, const fl_prog *P, int seat, int how, int rule);

/* a trigger hook's rules (graph.trigger): mark / unmark / count / place, in order; -1 on a failure
 * (-2: a broken state) */
/* a give rule's effect (graph.trigger's give): the card kind it names, `amount` of it (1 without an
 * amount) from the giver (the question's seat without one) to `target`, as many as the giver holds
 * (_transfer: counted as received); a none giver or kind, or an amount below 1, gives nothing.
 * 0, or -1 (a failure: a giver or kind out of range, an amount that is none or not whole) */
static inline int fl_give(fl_state *s, const fl_trule *r, int target)
{
    vm_result v;
    vm_value giver = s->c.vars[0], kind;
    int64_t amt = 1;
    int have, m;
    if (r->giver) {
        (void)vm_exec(r->giver, r->giver_n, &s->c, &v);
        if (v.status != VM_OK)
            return -1;
        giver = v.result;
    }
    if (r->code == NULL)
        return -1;
    (void)vm_exec(r->code, r->code_n, &s->c, &v);
    if (v.status != VM_OK)
        return -1;
    kind = v.result;
    if (r->amount) {
        (void)vm_exec(r->amount, r->amount_n, &s->c, &v);
        if (v.status != VM_OK || v.result.tag != T_INT)
            return -1;
        amt = v.result.v;
    }
    if (giver.tag == T_NONE || kind.tag == T_NONE || amt <= 0)
        return 0;
    if (giver.tag != T_INT || !fl_seat_ok(s, (int)giver.v) || kind.tag != T_RANK || kind.v < 0 || kind.v >= s->c.n_kinds)
        return -1;
    have = s->c.hands[giver.v][kind.v];
    m = amt < have ? (int)amt : have;
    if (m <= 0)
        return 0;
    s->c.hands[giver.v][kind.v] = (int16_t)(have - m);
    s->c.hands[target][kind.v] = (int16_t)(s->c.hands[target][kind.v] + m);
    s->c.received[target][kind.v] = (int16_t)(s->c.received[target][kind.v] + m);
    return 0;
}

static inline int fl_trigger_run(fl_state *s, const fl_prog *P, int tr)
{
    const fl_trigger *t = &P->triggers[tr];
    int i;
    for (i = 0; i < t->n; i++) {
        const fl_trule *r = &t->rules[i];
        vm_value who;
        vm_result v;
        int seat;
        if (r->when) {
            (void)vm_exec(r->when, r->when_n, &s->c, &v);
            if (v.status != VM_OK)
                return fl_fail(s, 100 + tr);
            if (!vm_truth(v.result))
                continue;
        }
        if (r->target) {
            (void)vm_exec(r->target, r->target_n, &s->c, &v);
            if (v.status != VM_OK)
                return fl_fail(s, 100 + tr);
            who = v.result;
        } else {
            who = s->c.vars[0];
        }
        if (who.tag == T_NONE)
            continue;
        if (who.tag != T_INT || !fl_seat_ok(s, (int)who.v))
            return fl_fail(s, 100 + tr);
        seat = (int)who.v;
        if (r->effect == TE_PLACE) {
            int how = -1, k, rc;
            vm_value q = s->c.vars[0];  /* (the question's seat: the retirement asks questions of its own) */
            fl_play keep_play = s->err_play, keep_top = s->err_top, keep_beaten = s->err_beaten;
            if (r->code == NULL)
                return fl_fail(s, 100 + tr);
            (void)vm_exec(r->code, r->code_n, &s->c, &v);
            if (v.status != VM_OK)
                return fl_fail(s, 100 + tr);
            for (k = 0; k < 3 && v.result.tag == T_TEXT; k++)
                if (v.result.v == P->text_place[k])
                    how = k;
            if (how < 0)
                return fl_fail(s, 100 + tr);
            rc = fl_retire(s, P, seat, how, r->rule);
            if (rc < 0)
                return rc;
            /* the question's bindings again, for the rules after this one */
            fl_question(s, P, q.tag == T_INT ? (int)q.v : 0, keep_play.present ? &keep_play : NULL,
                        keep_top.present ? &keep_top : NULL, keep_beaten.present ? &keep_beaten : NULL, s->err_leading);
            continue;
        }
        if (r->effect == TE_GIVE) {
            int rc = fl_give(s, r, seat);
            if (rc < 0)
                return fl_fail(s, 100 + tr);
            continue;
        }
        if (r->slot < 0 || r->slot >= (r->effect == TE_COUNT ? VM_NCOUNTERS : VM_NFLAGS))
            return fl_fail(s, 100 + tr);
        if (r->effect == TE_MARK) {
            s->c.flag_bits[r->slot] |= 1U << seat;
            s->marked[r->slot] |= 1U << seat;
        } else if (r->effect == TE_UNMARK) {
            s->c.flag_bits[r->slot] &= ~(1U << seat);
        } else {
            int64_t amt = 1;
            if (r->amount) {
                (void)vm_exec(r->amount, r->amount_n, &s->c, &v);
                if (v.status != VM_OK || v.result.tag != T_INT)
                    return fl_fail(s, 100 + tr);
                amt = v.result.v;
            }
            amt += s->c.counters[r->slot][seat];
            if (amt >= VM_INT_LIMIT || amt <= -VM_INT_LIMIT)
                return fl_fail(s, 100 + tr);
            s->c.counters[r->slot][seat] = amt;
            s->counted[r->slot] |= 1U << seat;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------------ plays */
static inline int fl_hand_total(const fl_state *s, int seat)
{
    int k, sum = 0;
    for (k = 0; k < s->c.n_kinds; k++)
        sum += s->c.hands[seat][k];
    return sum;
}

/* whether combination j fits the jokers of the hand */
static inline int fl_combo_fits(const fl_prog *P, const int16_t *hand, int j)
{
    int k;
    for (k = 0; k < P->jk; k++)
        if (P->combo[j][k] > hand[P->n_ranks + k])
            return 0;
    return 1;
}

/* the play of a code (TablePlay's fields; gouji from the ruleset's gouji rules): 0, -1 on a failure */
static inline int fl_make_play(fl_state *s, const fl_prog *P, const fl_code *code, int seat, fl_play *p)
{
    vm_value g;
    memset(p, 0, sizeof *p);
    p->present = 1;
    p->seat = seat;
    p->code = *code;
    p->jokers = P->combo_n[code->j];
    if (code->r >= 0) {
        p->rank = code->r;
        p->carried = code->n + code->f;
        p->filler = code->f;
    } else {
        p->rank = P->combo_top[code->j];
    }
    p->count = code->n + code->f + p->jokers;
    p->pure = p->carried == 0 && p->jokers > 0;
    /* gouji: the gouji rules asked of the play alone (graph._install_gouji: no game, seat 0) */
    {
        uint64_t key = 1 + ((uint64_t)(code->r + 1) | ((uint64_t)(uint16_t)code->n << 8) | ((uint64_t)(uint16_t)code->f << 24)
                            | ((uint64_t)(uint16_t)code->j << 40));
        unsigned slot = (unsigned)((key * 0x9E3779B97F4A7C15ULL) >> 54) & (FL_GOUJI_CACHE - 1);
        if (s->gouji_key[slot] == key) {
            p->gouji = s->gouji_val[slot];
            return 0;
        }
        s->gouji_key[slot] = key;
        s->gouji_val[slot] = -1;
    }
    {
        vm_value save_seat = s->c.vars[0], save_lead = s->c.vars[2];
        int save_present[VM_NPLAYS];
        vm_value save_attr[VM_NATTRS];
        int16_t save_counts[G_MAX_KINDS];
        fl_play probe = *p;
        int ok;
        memcpy(save_present, s->c.play_present, sizeof save_present);
        memcpy(save_attr, s->c.play_attr[0], sizeof save_attr);
        if (P->play_counts)
            memcpy(save_counts, s->c.play_counts[0], sizeof save_counts);
        probe.seat = 0;
        s->c.vars[0].tag = T_NONE;
        s->c.vars[0].v = 0;
        s->c.vars[2].tag = T_BOOL;
        s->c.vars[2].v = 0;
        fl_put_play(s, P, 0, &probe);
        s->c.play_present[1] = s->c.play_present[2] = 0;
        if (P->hooks[H_GOUJI].n == 0) {
            g.tag = T_BOOL;
            g.v = 0;
            ok = 0;
        } else {
            s->err_seat = 0;
            s->err_leading = 0;
            s->err_play = probe;
            s->err_top.present = s->err_beaten.present = 0;
            ok = fl_ask(s, P, H_GOUJI, &g);
        }
        s->c.vars[0] = save_seat;
        s->c.vars[2] = save_lead;
        memcpy(s->c.play_present, save_present, sizeof save_present);
        memcpy(s->c.play_attr[0], save_attr, sizeof save_attr);
        if (P->play_counts)
            memcpy(s->c.play_counts[0], save_counts, sizeof save_counts);
        if (ok < 0) {
            memset(s->gouji_key, 0, sizeof s->gouji_key);  /* (nothing half-made is kept) */
            return -1;
        }
        p->gouji = vm_truth(g);
    }
    {
        uint64_t key = 1 + ((uint64_t)(code->r + 1) | ((uint64_t)(uint16_t)code->n << 8) | ((uint64_t)(uint16_t)code->f << 24)
                            | ((uint64_t)(uint16_t)code->j << 40));
        unsigned slot = (unsigned)((key * 0x9E3779B97F4A7C15ULL) >> 54) & (FL_GOUJI_CACHE - 1);
        s->gouji_val[slot] = (int8_t)p->gouji;
    }
    return 0;
}

static int fl_play_allows(fl_state *s, const fl_prog *P, int seat, const fl_code *c, int leading, const fl_play *top);

/* _lead_count: how many plays a hand can lead (no rule filters them) */
static inline long fl_lead_count(const fl_prog *P, const int16_t *hand, int *J)
{
    int j, r;
    long sum = 0, n = 0;
    for (j = 0; j < P->nc; j++)
        if (fl_combo_fits(P, hand, j))
            n++;
    *J = (int)n;
    for (r = 0; r < P->n_ranks; r++)
        sum += hand[r];
    if (P->filler < 0)
        return n - 1 + n * sum;
    {
        long fill = hand[P->filler];
        return n - 1 + n * ((fill + 1) * (sum - fill) + fill);
    }
}

/* the j-th combination of the hand's flat list (_JFLAT), or -1 */
static inline int fl_flat(const fl_prog *P, const int16_t *hand, int idx)
{
    int j;
    for (j = 0; j < P->nc; j++)
        if (fl_combo_fits(P, hand, j)) {
            if (idx == 0)
                return j;
            idx--;
        }
    return -1;
}

/* _lead_code_at */
static inline int fl_lead_code_at(const fl_prog *P, const int16_t *hand, long i, int J, fl_code *out)
{
    int r;
    long fill = P->filler >= 0 ? hand[P->filler] : 0, step = (fill + 1) * J;
    for (r = 0; r < P->n_ranks; r++) {
        long hr = hand[r], block;
        if (!hr)
            continue;
        if (P->filler < 0 || r != P->filler) {
            block = hr * step;
            if (i < block) {
                long n = i / step, rest = i % step;
                out->r = r;
                out->n = (int)n + 1;
                out->f = (int)(rest / J);
                out->j = fl_flat(P, hand, (int)(rest % J));
                return out->j < 0 ? -1 : 0;
            }
        } else {
            block = hr * J;
            if (i < block) {
                out->r = r;
                out->n = (int)(i / J) + 1;
                out->f = 0;
                out->j = fl_flat(P, hand, (int)(i % J));
                return out->j < 0 ? -1 : 0;
            }
        }
        i -= block;
    }
    out->r = -1;
    out->n = out->f = 0;
    out->j = fl_flat(P, hand, (int)i + 1);
    return out->j < 0 ? -1 : 0;
}

/* _lead_codes of a burner: every lead the burn_lead rules allow, in order. want < 0: count them
 * (stop at the first when first is set); else the want-th into *out. The count, or -1 on a failure. */
static long fl_burner_leads(fl_state *s, const fl_prog *P, int seat, long want, int first, fl_code *out)
{
    const int16_t *hand = s->c.hands[seat];
    int hand_n = fl_hand_total(s, seat), r, n, f, j;
    int fill = P->filler >= 0 ? hand[P->filler] : 0;
    long count = 0;
    fl_play cand;
    fl_code c;
    if (P->burn_lead_by_jokers && !P->has_play) {
        /* _random_burn_lead / _has_lead's short cut: with two ranks or more (not the filler) no lead
           empties the hand, and the rules read only the jokers: each joker combination is asked once
           (as a pure joker play that does not empty the hand), the leads are counted by arithmetic,
           in the order the listing below gives them */
        int groups = 0, ok[FL_MAX_COMBOS], nok = 0;
        for (r = 0; r < P->n_ranks; r++)
            if (hand[r] && r != P->filler)
                groups++;
        if (groups >= 2) {
            long total, block;
            for (j = 0; j < P->nc; j++) {
                int yes;
                if (!fl_combo_fits(P, hand, j))
                    continue;
                c.r = -1;
                c.n = c.f = 0;
                c.j = j;
                if (fl_make_play(s, P, &c, seat, &cand) < 0)
                    return -1;
                cand.empties = 0;
                fl_question(s, P, seat, &cand, NULL, NULL, 1);
                yes = fl_permit(s, P, H_BURN_LEAD);
                if (yes < 0)
                    return -1;
                if (yes)
                    ok[nok++] = j;
                if (yes && first)
                    return 1;
            }
            if (first || nok == 0)
                return nok ? 1 : 0;
            total = 0;
            for (r = 0; r < P->n_ranks; r++)
                if (hand[r])
                    total += (long)hand[r] * ((r != P->filler ? fill : 0) + 1) * nok;
            {
                long pure = nok - (ok[0] == 0);  /* (combination 0 has no joker: not a lead alone) */
                if (want < 0)
                    return total + pure;
                if (want >= total + pure)
                    return total + pure;
                if (want >= total) {
                    out->r = -1;
                    out->n = out->f = 0;
                    out->j = ok[want - total + (ok[0] == 0)];
                    return want + 1;
                }
            }
            {
                long i = want;
                for (r = 0; r < P->n_ranks; r++) {
                    long fm1;
                    if (!hand[r])
                        continue;
                    fm1 = (r != P->filler ? fill : 0) + 1;
                    block = (long)hand[r] * fm1 * nok;
                    if (i < block) {
                        out->r = r;
                        out->n = (int)(i / (fm1 * nok)) + 1;
                        out->f = (int)((i % (fm1 * nok)) / nok);
                        out->j = ok[(i % (fm1 * nok)) % nok];
                        return want + 1;
                    }
                    i -= block;
                }
            }
            return -2;
        }
    }
    for (r = 0; r <= P->n_ranks; r++) {
        int rr = r < P->n_ranks ? r : -1, hr, fm;
        if (rr >= 0) {
            hr = hand[rr];
            if (!hr)
                continue;
            fm = rr != P->filler ? fill : 0;
        } else {
            hr = 1;  /* (the pure joker leads: one round, no rank cards) */
            fm = 0;
        }
        for (n = rr >= 0 ? 1 : 0; n <= (rr >= 0 ? hr : 0); n++)
            for (f = 0; f <= fm; f++)
                for (j = rr >= 0 ? 0 : 1; j < P->nc; j++) {
                    int ok;
                    if (!fl_combo_fits(P, hand, j))
                        continue;
                    c.r = rr;
                    c.n = n;
                    c.f = f;
                    c.j = j;
                    ok = fl_play_allows(s, P, seat, &c, 1, NULL);
                    if (ok < 0)
                        return -1;
                    if (!ok)
                        continue;
                    if (s->burner == seat) {
                        if (fl_make_play(s, P, &c, seat, &cand) < 0)
                            return -1;
                        cand.empties = n + f + P->combo_n[j] == hand_n;
                        fl_question(s, P, seat, &cand, NULL, NULL, 1);
                        ok = fl_permit(s, P, H_BURN_LEAD);
                        if (ok < 0)
                            return -1;
                        if (!ok)
                            continue;
                    }
                    if (want == count) {
                        *out = c;
                        return count + 1;
                    }
                    count++;
                    if (first)
                        return count;
                }
    }
    return count;
}

/* the leads of `seat` (every case of _random_run's lead branch): want < 0 counts them (stops at
 * the first with `first`), else the want-th into *out; the count, -1 on a failure. Without play
 * rules and not burning: by arithmetic. With play rules and not burning: the ranks no play rule
 * asks about counted by arithmetic, the others listed and asked (_random_lead_asked). A burner:
 * listed, each asked of the play and burn_lead rules (_lead_codes). */
static long fl_burner_leads(fl_state *s, const fl_prog *P, int seat, long want, int first, fl_code *out);

static inline long fl_leads(fl_state *s, const fl_prog *P, int seat, long want, int first, fl_code *out)
{
    const int16_t *hand = s->c.hands[seat];
    int J = 0, r;
    long n, count = 0;
    if (s->burner == seat || (P->has_play && P->play_ranks == ~(uint64_t)0))
        return fl_burner_leads(s, P, seat, want, first, out);
    n = fl_lead_count(P, hand, &J);
    if (!P->has_play) {
        if (want < 0)
            return first ? (n > 0) : n;
        if (want >= n || fl_lead_code_at(P, hand, want, J, out) < 0)
            return -2;
        return want + 1;
    }
    {
        int fill = P->filler >= 0 ? hand[P->filler] : 0, hand_n = fl_hand_total(s, seat), nn, f, j, q;
        for (r = 0; r < P->n_ranks; r++) {
            int hr = hand[r], fm;
            if (!hr)
                continue;
            fm = r != P->filler ? fill : 0;
            if (!((P->play_ranks >> r) & 1U)) {
                long block = (long)hr * (fm + 1) * J;
                if (want >= count && want < count + block) {
                    long i = want - count;
                    out->r = r;
                    out->n = (int)(i / ((long)(fm + 1) * J)) + 1;
                    out->f = (int)((i % ((long)(fm + 1) * J)) / J);
                    out->j = fl_flat(P, hand, (int)(i % J));
                    return out->j < 0 ? -2 : want + 1;
                }
                count += block;
                if (first && count)
                    return count;
                continue;
            }
            for (nn = 1; nn <= hr; nn++)
                for (f = 0; f <= fm; f++)
                    for (q = 0; q < J; q++) {
                        fl_code c;
                        int ok;
                        j = fl_flat(P, hand, q);
                        c.r = r; c.n = nn; c.f = f; c.j = j;
                        ok = fl_play_allows(s, P, seat, &c, 1, NULL);
                        if (ok < 0)
                            return -1;
                        if (!ok)
                            continue;
                        if (want == count) {
                            *out = c;
                            return count + 1;
                        }
                        count++;
                        if (first)
                            return count;
                    }
        }
        for (q = 1; q < J; q++) {
            fl_code c;
            int ok;
            c.r = -1; c.n = c.f = 0; c.j = fl_flat(P, hand, q);
            ok = fl_play_allows(s, P, seat, &c, 1, NULL);
            if (ok < 0)
                return -1;
            if (!ok)
                continue;
            if (want == count) {
                *out = c;
                return count + 1;
            }
            count++;
            if (first)
                return count;
        }
        (void)hand_n;
        return count;
    }
}

/* with play rules: whether the answer `c` of `seat` is allowed (1 / 0, -1 on a failure):
   _answer_codes_allowed (a play of a rank no play rule asks about is allowed unasked) */
static int fl_play_allows(fl_state *s, const fl_prog *P, int seat, const fl_code *c, int leading, const fl_play *top)
{
    fl_play cand;
    int asked = c->r >= 0 ? (int)((P->play_ranks >> c->r) & 1U) : P->play_jokers;
    if (!P->has_play || !asked)
        return 1;
    if (fl_make_play(s, P, c, seat, &cand) < 0)
        return -1;
    cand.empties = c->n + c->f + P->combo_n[c->j] == fl_hand_total(s, seat);
    fl_question(s, P, seat, &cand, top, NULL, leading);
    return fl_permit(s, P, H_PLAY);
}

/* an answer found: counted, or returned when it is the one wanted (the play rules asked first) */
#define FL_ANSWER(R, N, F, J)                                                     \
    do {                                                                          \
        fl_code c_ = {(R), (N), (F), (J)};                                        \
        int k_ = !P->has_play ? 1 : fl_play_allows(s, P, seat, &c_, 0, &s->top);  \
        if (k_ < 0)                                                               \
            return -1;                                                            \
        if (k_) {                                                                 \
            if (want == count) {                                                  \
                *out = c_;                                                        \
                return count + 1;                                                 \
            }                                                                     \
            if (s->collect != NULL && count < s->collect_cap)                     \
                s->collect[count] = c_;                                           \
            count++;                                                              \
        }                                                                         \
    } while (0)

/* _answers' free-count part (_free_by_spare): rank cards and spare jokers make exactly the lead's
 * rank cards; joker combinations grouped by their spare jokers, largest first */
static inline long fl_answers_free(fl_state *s, const fl_prog *P, int seat, long want, fl_code *out)
{
    const int16_t *hand = s->c.hands[seat];
    const fl_play *top = &s->top;
    int tcar = top->carried, tr1 = top->rank + 1, tj = top->code.j;
    int fill = P->filler >= 0 ? hand[P->filler] : 0, j, r, sp, maxsp = -1;
    long count = 0;
    if (tj < 0 || tj >= P->nc)
        return 0;
    for (j = 0; j < P->nc; j++) {
        int cv = P->cover[tj][j];
        if (fl_combo_fits(P, hand, j) && cv >= 0 && (P->spare || cv == 0) && cv > maxsp)
            maxsp = cv;
    }
#define FL_SPARE_OK(J_, SP_) (fl_combo_fits(P, hand, (J_)) && P->cover[tj][(J_)] == (SP_) && (P->spare || (SP_) == 0))
    if (tcar) {
        for (r = tr1; r < P->n_ranks; r++) {
            int hr = hand[r], fm, n;
            if (!hr)
                continue;
            fm = r != P->filler ? fill : 0;
            for (n = 1; n <= (hr < tcar ? hr : tcar); n++) {
                int rem = tcar - n;
                for (sp = maxsp; sp >= 0; sp--) {
                    int f = rem - sp, any = 0;
                    for (j = 0; j < P->nc && !any; j++)
                        any = FL_SPARE_OK(j, sp);
                    if (!any)
                        continue;  /* (not a spare count that occurs) */
                    if (f < 0)
                        continue;
                    if (f > fm)
                        break;
                    for (j = 0; j < P->nc; j++)
                        if (FL_SPARE_OK(j, sp))
                            FL_ANSWER(r, n, f, j);
                }
            }
        }
        for (j = 0; j < P->nc; j++)
            if (tcar <= maxsp && FL_SPARE_OK(j, tcar) && P->combo_n[j])
                FL_ANSWER(-1, 0, 0, j);
    } else {
        for (j = 0; j < P->nc; j++)
            if (FL_SPARE_OK(j, 0) && P->combo_n[j])
                FL_ANSWER(-1, 0, 0, j);
    }
#undef FL_SPARE_OK
    return count;
}

/* _answers (same-count cover model; the positional one over its table, flow.py _cover_table):
 * want < 0 counts; else the want-th answer into *out. The count (or want + 1 when found). */
static inline long fl_answers(fl_state *s, const fl_prog *P, int seat, long want, fl_code *out)
{
    const int16_t *hand = s->c.hands[seat];
    const fl_play *top = &s->top;
    int tc = top->count, tcar = top->carried, tr1 = top->rank + 1, tj = top->code.j, nt = top->jokers;
    int jt = 0, fill = P->filler >= 0 ? hand[P->filler] : 0, k, j, r;
    long count = 0;
    /* the joker combinations of the hand that answer the lead's jokers, grouped by total */
    int okj[FL_MAX_COMBOS], ok_at[FL_MAX_COMBOS + 2], nok = 0, t;
    if (P->free_count)
        return fl_answers_free(s, P, seat, want, out);
    for (k = 0; k < P->jk; k++)
        jt += hand[P->n_ranks + k];
    if (tj < 0 || tj >= P->nc)
        return 0;
    if (!tcar) {
        if (jt < tc)
            return 0;
        for (j = 0; j < P->nc; j++)
            if (P->combo_n[j] == tc && fl_combo_fits(P, hand, j) && P->cover[tj][j] >= 0)
                FL_ANSWER(-1, 0, 0, j);
        return count;
    }
    {
        int mx = 0;
        for (r = tr1; r < P->n_ranks; r++)
            if (hand[r] > mx)
                mx = hand[r];
        if (mx + fill + jt < tc)
            return 0;
    }
    /* ok_at[t]..ok_at[t+1]: the combinations of total t (t = 0..jt) that answer */
    for (t = 0; t <= jt && t <= FL_MAX_COMBOS; t++) {
        ok_at[t] = nok;
        for (j = 0; j < P->nc; j++) {
            int cv;
            if (P->combo_n[j] != t || !fl_combo_fits(P, hand, j))
                continue;
            cv = P->cover[tj][j];
            if (cv >= 0 && (P->spare || cv == 0) && cv >= t - nt)
                okj[nok++] = j;
        }
    }
    ok_at[t] = nok;
    {
        int tmax = t - 1;  /* the largest total listed */
        for (r = tr1; r < P->n_ranks; r++) {
            int hr = hand[r], fm, lo, h, n;
            if (!hr)
                continue;
            fm = r != P->filler ? fill : 0;
            lo = tc - fm - jt;
            h = hr < tc ? hr : tc;
            if (h < lo)
                continue;
            for (n = lo > 1 ? lo : 1; n <= h; n++) {
                int rem = tc - n;
                for (t = tmax; t >= 0; t--) {
                    int f = rem - t, q;
                    if (ok_at[t] == ok_at[t + 1])
                        continue;  /* (no combination of this total answers: not among the sums) */
                    if (f < 0)
                        continue;
                    if (f > fm)
                        break;
                    for (q = ok_at[t]; q < ok_at[t + 1]; q++)
                        FL_ANSWER(r, n, f, okj[q]);
                }
            }
        }
        if (tc <= tmax)
            for (k = ok_at[tc]; k < ok_at[tc + 1]; k++)
                FL_ANSWER(-1, 0, 0, okj[k]);
    }
    return count;
}

/* _discard_moves: the kinds `seat` may throw away (all its cards of the kind), in DISCARD_RANKS order;
 * want < 0 counts, else the want-th kind into *kind; the count, -1 on a failure */
static inline long fl_discards(fl_state *s, const fl_prog *P, int seat, long want, int *kind)
{
    long count = 0;
    int d;
    for (d = 0; d < P->n_discard; d++) {
        int i = P->discard_kinds[d], k, ok;
        fl_code c;
        fl_play cand;
        if (i < 0 || i >= P->n_kinds || !(k = s->c.hands[seat][i]))
            continue;
        if (i < P->n_ranks) {
            c.r = i; c.n = k; c.f = 0; c.j = 0;
        } else {
            int j, q, found = -1;
            for (j = 0; j < P->nc && found < 0; j++) {
                int only = P->combo[j][i - P->n_ranks] == k;
                for (q = 0; q < P->jk && only; q++)
                    if (q != i - P->n_ranks && P->combo[j][q])
                        only = 0;
                if (only)
                    found = j;
            }
            if (found < 0)
                return -2;
            c.r = -1; c.n = c.f = 0; c.j = found;
        }
        if (fl_make_play(s, P, &c, seat, &cand) < 0)
            return -1;
        fl_question(s, P, seat, &cand, NULL, NULL, 0);
        ok = fl_permit(s, P, H_DISCARD);
        if (ok < 0)
            return -1;
        if (!ok)
            continue;
        if (want == count) {
            *kind = i;
            return count + 1;
        }
        count++;
    }
    return count;
}

static inline int fl_finish(fl_state *s, const fl_prog *P, int seat);
static inline int fl_over(fl_state *s, const fl_prog *P);
static int fl_new_trick(fl_state *s, const fl_prog *P, int leader);
static inline int fl_next_active(const fl_state *s, int seat);

/* a discard (_apply_in_play's discard branch): 1 game over, 0, negative on a failure */
static inline int fl_discard_move(fl_state *s, const fl_prog *P, int seat, int kind)
{
    int32_t *e;
    int k = s->c.hands[seat][kind], rc;
    if (fl_event(s, EV_DISCARDMOVE, seat, kind, k, NULL) < 0 || fl_event(s, EV_DISCARD, seat, kind, k, NULL) < 0)
        return -2;
    e = s->ev + s->nev - 2 * FL_EV_WORDS;
    (void)e;
    s->c.hands[seat][kind] = 0;
    if (fl_hand_total(s, seat) == 0) {
        rc = fl_finish(s, P, seat);
        if (rc < 0)
            return rc;
    }
    if (fl_gone(s, seat)) {
        rc = fl_over(s, P);
        if (rc != 0)
            return rc;
        return fl_new_trick(s, P, fl_next_active(s, seat));
    }
    return 0;
}

/* ------------------------------------------------------------------------------ places */
/* _free_places: the free places in order into free[]; their number, or -1 on a failure */
static inline int fl_free_places(fl_state *s, const fl_prog *P, int *free)
{
    uint32_t taken = 0;
    int t, n = 0;
    for (t = 1; t <= s->c.n_seats; t++)
        if (s->c.place[t] > 0 && s->c.place[t] <= G_MAX_SEATS)
            taken |= 1U << s->c.place[t];
    if (s->c.set_bits[SET_REVOLTED])
        for (t = 1; t <= s->c.n_seats; t++) {
            vm_value v;
            if (!((s->c.set_bits[SET_REVOLTED] >> t) & 1U))
                continue;
            fl_question(s, P, t, NULL, NULL, NULL, 0);
            if (fl_ask(s, P, H_REVOLUTION_PLACE, &v) < 0)
                return -1;
            if (v.tag == T_NONE)
                continue;
            if (v.tag != T_INT || v.v < 1 || v.v > s->c.n_seats)
                return fl_fail(s, H_REVOLUTION_PLACE);
            taken |= 1U << v.v;
        }
    for (t = 1; t <= s->c.n_seats; t++)
        if (!((taken >> t) & 1U))
            free[n++] = t;
    return n;
}

static inline int fl_place(fl_state *s, int seat, int place)
{
    s->c.place[seat] = place;
    fl_recount(s);
    return fl_event(s, EV_PLACE, seat, place, 0, NULL);
}

static inline void fl_list_add(fl_state *s, int set, int seat)
{
    int k = s->c.set_count[set];
    if (k >= G_MAX_SEATS || ((s->c.set_bits[set] >> seat) & 1U && set == SET_FINISHED_IN_TRICK))
        return;
    s->c.set_order[set][k] = seat;
    s->c.set_count[set] = k + 1;
    s->c.set_bits[set] |= 1U << seat;
}

/* _retire (how: PL_*; rule: 0 engine.no-lead, 1 engine.burn-failure) */
static inline int fl_retire(fl_state *s, const fl_prog *P, int seat, int how, int rule)
{
    int free[G_MAX_SEATS + 1], n;
    if (fl_gone(s, seat))
        return 0;
    s->failed |= 1U << seat;
    fl_recount(s);
    if (fl_event(s, EV_RETIRE, seat, how, rule, NULL) < 0)
        return -1;
    if (how == PL_AFTER) {
        if (s->nlate <= G_MAX_SEATS)
            s->late[s->nlate++] = seat;
        return 0;
    }
    n = fl_free_places(s, P, free);
    if (n < 0)
        return -1;
    if (n == 0)
        return -2;
    return fl_place(s, seat, how == PL_LAST ? free[n - 1] : free[0]);
}

/* _finish */
static inline int fl_finish(fl_state *s, const fl_prog *P, int seat)
{
    int free[G_MAX_SEATS + 1], n;
    if (fl_gone(s, seat))
        return 0;
    n = fl_free_places(s, P, free);
    if (n < 0)
        return -1;
    if (n == 0)
        return -2;
    if (fl_place(s, seat, free[0]) < 0)
        return -1;
    fl_list_add(s, SET_FINISHED, seat);
    {
        int k = s->c.set_count[SET_FINISHED_IN_TRICK];
        if (k < G_MAX_SEATS) {
            s->c.set_order[SET_FINISHED_IN_TRICK][k] = seat;
            s->c.set_count[SET_FINISHED_IN_TRICK] = k + 1;
            s->c.set_bits[SET_FINISHED_IN_TRICK] |= 1U << seat;
        }
    }
    if (s->burner == seat) {
        if (fl_event(s, EV_BURN_SUCCESS, seat, s->burned_seat, 0, NULL) < 0)
            return -1;
        s->burner = 0;
        fl_set_var_seat(s, 9, 0);
    }
    fl_question(s, P, seat, NULL, NULL, NULL, 0);
    return fl_trigger_run(s, P, TR_FINISH);
}

/* _check_over: 1 when the game is over, 0 not, -1 on a failure */
static inline int fl_over(fl_state *s, const fl_prog *P)
{
    vm_value v;
    int over;
    fl_question(s, P, 0, NULL, NULL, NULL, 0);
    if (fl_ask(s, P, H_GAME_OVER, &v) < 0)
        return -1;
    if (v.tag == T_NONE && !P->hooks[H_GAME_OVER].none_ok)
        return fl_fail(s, H_GAME_OVER);
    over = vm_truth(v);
    return over || s->c.set_count[SET_ACTIVE] <= 0;
}

/* ------------------------------------------------------------------------------ the end */
/* the game's end: what the generated module's _game_over does, where every answer is one the core
 * takes as it is (a whole number, a list of seats, no answer). */
typedef struct {
    int sweep;
    int64_t score[G_MAX_SEATS + 1];
    int floats_ok;   /* set by the caller: a score may be a float (a rule divides: its double's bits in fbits) */
    uint32_t floats;  /* the seats whose score is a float */
    int64_t fbits[G_MAX_SEATS + 1];
} fl_result;

/* The places left (the revolted seats by revolution_place, the other seats still holding cards
 * in unfinished_order's order, then the late seats), the sweep and each seat's score, as
 * playout._game_over gives them (its place events appended). 1 when done; 0 when an answer is
 * one the core does not take (or a rule fails, or the event buffer is full): then the state is
 * as it was and the Python side ends the game itself, failing as the interpreter does. */
static int fl_end(fl_state *s, const fl_prog *P, fl_result *out)
{
    int n = s->c.n_seats, nev0 = s->nev, t, k, nrest = 0, nfree;
    int16_t saved[G_MAX_SEATS + 1];
    int rest[2 * G_MAX_SEATS + 2], freep[G_MAX_SEATS + 1];
    vm_value v;
    if (!P->end || n < 1 || n > G_MAX_SEATS)
        return 0;
    for (t = 0; t <= G_MAX_SEATS; t++)
        saved[t] = (int16_t)s->c.place[t];
#define END_BAIL do { goto bail; } while (0)
    for (t = 1; t <= n; t++) {  /* revolted seats (sorted), each at its revolution_place if free, else the first free */
        uint32_t taken = 0;
        int p, q, first = 0;
        if (!((s->c.set_bits[SET_REVOLTED] >> t) & 1U) || s->c.place[t] > 0)
            continue;
        fl_question(s, P, t, NULL, NULL, NULL, 0);
        if (fl_ask(s, P, H_REVOLUTION_PLACE, &v) < 0 || (v.tag != T_INT && v.tag != T_NONE))
            END_BAIL;
        p = v.tag == T_INT && v.v >= 1 && v.v <= n ? (int)v.v : 0;
        if (v.tag == T_INT && (v.v < 0 || v.v > n))
            END_BAIL;  /* (a place outside 1..n: _game_over would place at free[0]; rare, left to it) */
        for (q = 1; q <= n; q++)
            if (s->c.place[q] > 0 && s->c.place[q] <= G_MAX_SEATS)
                taken |= 1U << s->c.place[q];
        for (q = 1; q <= n && !first; q++)
            if (!((taken >> q) & 1U))
                first = q;
        if (!first)
            END_BAIL;
        if (fl_place(s, t, p && !((taken >> p) & 1U) ? p : first) < 0)
            END_BAIL;
    }
    for (t = 1; t <= n; t++) {  /* the seats still holding cards (not late), in seat order */
        int late = 0;
        for (k = 0; k < s->nlate && k <= G_MAX_SEATS; k++)
            late |= s->late[k] == t;
        if (s->c.place[t] == 0 && !late)
            rest[nrest++] = t;
    }
    if (nrest) {  /* ... sorted by their first index in unfinished_order's list, which must hold them all */
        int idx[G_MAX_SEATS + 1], len, i, j;
        fl_question(s, P, 0, NULL, NULL, NULL, 0);
        if (fl_ask(s, P, H_UNFINISHED_ORDER, &v) < 0 || v.tag != T_LIST)
            END_BAIL;
        len = vm_list_len(v);
        for (i = 0; i < nrest; i++) {
            idx[i] = -1;
            for (j = 0; j < len && idx[i] < 0; j++)
                if (vm_list_item(v, j) == rest[i])
                    idx[i] = j;
            if (idx[i] < 0)
                END_BAIL;
        }
        for (i = 1; i < nrest; i++)  /* (insertion sort: stable, at most 16 seats) */
            for (j = i; j > 0 && idx[j - 1] > idx[j]; j--) {
                int a = idx[j], b = rest[j];
                idx[j] = idx[j - 1];
                rest[j] = rest[j - 1];
                idx[j - 1] = a;
                rest[j - 1] = b;
            }
    }
    for (k = 0; k < s->nlate && k <= G_MAX_SEATS; k++)  /* then the late seats not placed */
        if (fl_seat_ok(s, s->late[k]) && s->c.place[s->late[k]] == 0 && nrest < 2 * G_MAX_SEATS + 2)
            rest[nrest++] = s->late[k];
    {
        uint32_t taken = 0;
        for (t = 1; t <= n; t++)
            if (s->c.place[t] > 0 && s->c.place[t] <= G_MAX_SEATS)
                taken |= 1U << s->c.place[t];
        nfree = 0;
        for (t = 1; t <= n; t++)
            if (!((taken >> t) & 1U))
                freep[nfree++] = t;
    }
    for (k = 0; k < nrest && k < nfree; k++)
        if (fl_place(s, rest[k], freep[k]) < 0)
            END_BAIL;
    fl_question(s, P, 0, NULL, NULL, NULL, 0);
    if (fl_ask(s, P, H_SWEEP, &v) < 0 || (v.tag != T_BOOL && v.tag != T_NONE && v.tag != T_INT))
        END_BAIL;
    out->sweep = vm_truth(v) != 0;
    for (t = 1; t <= n; t++) {
        fl_question(s, P, t, NULL, NULL, NULL, 0);
        if (fl_ask(s, P, H_SCORE, &v) < 0)
            END_BAIL;
        if (v.tag == T_FLOAT && out->floats_ok) {  /* (the caller rounds it as interpreter._num does) */
            out->floats |= 1U << t;
            out->fbits[t] = v.v;
            out->score[t] = 0;
            continue;
        }
        if (v.tag != T_INT || v.v < -(1LL << 30) || v.v > (1LL << 30))
            END_BAIL;
        out->score[t] = v.v;
    }
    return 1;
bail:
#undef END_BAIL
    s->nev = nev0;
    for (t = 0; t <= G_MAX_SEATS; t++)
        s->c.place[t] = saved[t];
    fl_recount(s);
    s->err_hook = -1;
    return 0;
}

/* ------------------------------------------------------------------------------ tricks */
static int fl_new_trick(fl_state *s, const fl_prog *P, int leader);

static inline int fl_next_active(const fl_state *s, int seat)
{
    int k, n = s->c.n_seats;
    for (k = 1; k < n; k++) {
        int t = (seat - 1 + k) % n + 1;
        if (!fl_gone(s, t))
            return t;
    }
    return 0;
}

/* _fail_burn: FL_OVER (1) when the game ended, 0, -1 on a failure */
static inline int fl_fail_burn(fl_state *s, const fl_prog *P, int seat)
{
    vm_value v;
    int how, rc;
    fl_question(s, P, seat, NULL, NULL, NULL, 0);
    if (fl_ask(s, P, H_BURN_FAILURE, &v) < 0)
        return -1;
    how = fl_place_answer(s, P, H_BURN_FAILURE, v, PL_LAST);
    if (how < 0)
        return -1;
    s->burner = 0;
    fl_set_var_seat(s, 9, 0);
    if (fl_event(s, EV_BURN_FAILED, seat, 0, 0, NULL) < 0)
        return -1;
    rc = fl_retire(s, P, seat, how, 1);
    if (rc < 0)
        return rc;
    rc = fl_over(s, P);
    if (rc != 0)
        return rc;
    if (s->to_act == seat || s->to_act == 0)
        return fl_new_trick(s, P, fl_next_active(s, seat));
    return 0;
}

/* _new_trick (the no-lead retirements in a bounded loop): 1 game over, 0, -1 failure */
static int fl_new_trick(fl_state *s, const fl_prog *P, int leader)
{
    int round;
    for (round = 0; round <= s->c.n_seats + 1; round++) {
        int k;
        if (leader == 0)
            return 0;
        s->trick_no++;
        s->c.vars[12].tag = T_INT;
        s->c.vars[12].v = s->trick_no;
        for (k = 0; k < P->n_trick_counters; k++) {
            int slot = P->trick_counters[k];
            if (slot >= 0 && slot < VM_NCOUNTERS) {
                memset(s->c.counters[slot], 0, sizeof s->c.counters[slot]);
                s->counted[slot] = 0;
                s->reset |= 1U << slot;
            }
        }
        s->top.present = 0;
        fl_set_passed(s, 0);
        s->qlen = 0;
        s->ny = 0;
        s->yielded = 0;
        s->c.set_count[SET_FINISHED_IN_TRICK] = 0;
        s->c.set_bits[SET_FINISHED_IN_TRICK] = 0;
        s->trick_leader = leader;
        fl_set_var_seat(s, 8, leader);
        s->to_act = leader;
        s->cap = FL_LEAD;
        if (s->burner == leader) {
            fl_code c;
            long n = fl_burner_leads(s, P, leader, -1, 1, &c);
            if (n < 0)
                return -1;
            if (n == 0)
                return fl_fail_burn(s, P, leader);
            return 0;
        }
        if (P->has_play && fl_hand_total(s, leader) > 0) {  /* _has_lead: some lead the play rules allow */
            fl_code c;
            long n = fl_leads(s, P, leader, -1, 1, &c);
            if (n < 0)
                return -1;
            if (n > 0)
                return 0;
        } else if (fl_hand_total(s, leader) > 0) {
            return 0;
        }
        if (P->n_discard) {  /* (no lead, but something to throw away) */
            int kind;
            long nd = fl_discards(s, P, leader, -1, &kind);
            if (nd < 0)
                return (int)nd;
            if (nd > 0)
                return 0;
        }
        {
            vm_value v;
            int how, rc;
            fl_question(s, P, leader, NULL, NULL, NULL, 0);
            if (fl_ask(s, P, H_NO_LEAD, &v) < 0)
                return -1;
            how = fl_place_answer(s, P, H_NO_LEAD, v, PL_AFTER);
            if (how < 0)
                return -1;
            if (fl_event(s, EV_NO_LEAD, leader, 0, 0, NULL) < 0)
                return -1;
            rc = fl_retire(s, P, leader, how, 0);
            if (rc < 0)
                return rc;
            rc = fl_over(s, P);
            if (rc != 0)
                return rc;
            leader = fl_next_active(s, leader);
            continue;
        }
        return 0;
    }
    return -2;
}

/* _trick_won */
static inline int fl_trick_won(fl_state *s, const fl_prog *P)
{
    fl_play top = s->top;
    int winner = top.seat, rc, leader;
    vm_value v;
    s->won = 1;
    fl_question(s, P, winner, NULL, &top, NULL, 0);
    if (fl_trigger_run(s, P, TR_TRICK_WON) < 0)
        return -1;
    if (fl_event(s, EV_TRICK_WON, winner, 0, 0, &top.code) < 0)
        return -1;
    rc = fl_over(s, P);
    if (rc != 0)
        return rc;
    fl_question(s, P, 0, NULL, &top, NULL, 0);
    if (fl_ask(s, P, H_NEXT_LEADER, &v) < 0)
        return -1;
    leader = fl_seat_answer(s, P, H_NEXT_LEADER, v);
    if (leader < 0)
        return -1;
    if (!leader || fl_gone(s, leader))
        leader = !fl_gone(s, winner) ? winner : fl_next_active(s, winner);
    return fl_new_trick(s, P, leader);
}

/* the queue's first entry dropped (qlen > 0; a loop: the queue is a few seats, a library memmove costs more) */
static inline void fl_queue_shift(fl_state *s)
{
    int k, n = s->qlen - 1;
    if (n > FL_MAX_QUEUE - 1)
        n = FL_MAX_QUEUE - 1;
    for (k = 0; k < n; k++) {
        s->qseat[k] = s->qseat[k + 1];
        s->qcap[k] = s->qcap[k + 1];
    }
}

/* _advance: the next seat asked; 1 game over, 0, -1 failure */
static inline int fl_advance(fl_state *s, const fl_prog *P)
{
    int tseat = s->top.seat;
    while (s->qlen > 0) {
        int t = s->qseat[0], cap = s->qcap[0], ok;
        if (t == 0 || fl_gone(s, t) || t == tseat) {
            fl_queue_shift(s);
            s->qlen--;
            continue;
        }
        fl_question(s, P, t, NULL, &s->top, NULL, 0);
        ok = fl_permit(s, P, cap == FL_BURN ? H_BURN : H_FOLLOW);
        if (ok < 0)
            return -1;
        if (ok) {
            s->to_act = t;
            s->cap = cap;
            return 0;
        }
        fl_queue_shift(s);
        s->qlen--;
    }
    return fl_trick_won(s, P);
}

/* an order answer (burn_order / follow_order) into the queue; -1 when it is not a list of seats */
static inline int fl_queue_add(fl_state *s, const fl_prog *P, int hook, vm_value v, int cap, int seat_after)
{
    int k, n;
    if (v.tag == T_NONE) {
        if (hook == H_FOLLOW_ORDER) {
            if (!P->hooks[hook].none_ok)
                return fl_fail(s, hook);
            for (k = 1; k < s->c.n_seats; k++) {
                if (s->qlen >= FL_MAX_QUEUE)
                    return fl_fail(s, hook);
                s->qseat[s->qlen] = (seat_after - 1 + k) % s->c.n_seats + 1;
                s->qcap[s->qlen++] = cap;
            }
            return 0;
        }
        return P->hooks[hook].none_ok ? 0 : fl_fail(s, hook);
    }
    if (v.tag != T_LIST)
        return fl_fail(s, hook);
    n = vm_list_len(v);
    for (k = 0; k < n; k++) {
        int it = vm_list_item(v, k);
        if (it != 15 && !fl_seat_ok(s, it))
            return fl_fail(s, hook);
        if (s->qlen >= FL_MAX_QUEUE)
            return fl_fail(s, hook);
        s->qseat[s->qlen] = it == 15 ? 0 : it;
        s->qcap[s->qlen++] = cap;
    }
    return 0;
}

/* _play */
static inline int fl_play_move(fl_state *s, const fl_prog *P, int seat, const fl_code *code, int is_burn)
{
    int16_t *hand = s->c.hands[seat];
    fl_play prev = s->top, tp;
    int k, rc;
    vm_value v;
    /* the cards leave the hand (they were drawn from it: never below 0) */
    if (code->r >= 0) {
        if (code->r >= P->n_ranks || hand[code->r] < code->n)
            return -2;
        hand[code->r] = (int16_t)(hand[code->r] - code->n);
    }
    if (code->f) {
        if (P->filler < 0 || hand[P->filler] < code->f)
            return -2;
        hand[P->filler] = (int16_t)(hand[P->filler] - code->f);
    }
    if (code->j < 0 || code->j >= P->nc)
        return -2;
    for (k = 0; k < P->jk; k++) {
        if (hand[P->n_ranks + k] < P->combo[code->j][k])
            return -2;
        hand[P->n_ranks + k] = (int16_t)(hand[P->n_ranks + k] - P->combo[code->j][k]);
    }
    if (fl_make_play(s, P, code, seat, &tp) < 0)
        return -1;
    tp.beaten = prev.present ? prev.seat : 0;
    tp.is_burn = is_burn;
    tp.empties = fl_hand_total(s, seat) == 0;
    if (s->ny > 0) {
        uint32_t bits = s->c.set_bits[SET_PASSED];
        tp.over_yield = 1;
        tp.yielder = s->yielders[0];
        for (k = 0; k < s->ny; k++)
            bits |= 1U << s->yielders[k];
        fl_set_passed(s, bits);
        s->ny = 0;
    }
    if (is_burn) {
        int counter = s->burner && prev.present && prev.seat == s->burner;
        if (counter && fl_event(s, EV_COUNTER_BURN, seat, s->burner, 0, NULL) < 0)
            return -1;
        s->burner = seat;
        fl_set_var_seat(s, 9, seat);
        s->burned_seat = prev.present ? prev.seat : 0;
        if (fl_event(s, EV_BURN, seat, s->burned_seat, counter, NULL) < 0)
            return -1;
    } else if (s->burner && prev.present && prev.seat == s->burner && seat != s->burner) {
        if (fl_event(s, EV_BURN_UNDONE, seat, s->burner, 0, NULL) < 0)
            return -1;
        s->burner = 0;
        fl_set_var_seat(s, 9, 0);
    }
    s->top = tp;
    s->cap = FL_FOLLOW;
    s->yielded = 0;
    fl_question(s, P, seat, &tp, NULL, prev.present ? &prev : NULL, 0);
    if (fl_trigger_run(s, P, TR_AFTER_PLAY) < 0)
        return -1;
    if (tp.empties) {
        rc = fl_finish(s, P, seat);
        if (rc < 0)
            return rc;
    }
    fl_question(s, P, 0, NULL, NULL, NULL, 0);
    if (fl_ask(s, P, H_GAME_OVER, &v) < 0)
        return -1;
    if (v.tag == T_NONE && !P->hooks[H_GAME_OVER].none_ok)
        return fl_fail(s, H_GAME_OVER);
    if (vm_truth(v) || fl_out_count(s) >= s->c.n_seats)
        return 1;
    /* _rebuild_queue */
    s->qlen = 0;
    fl_question(s, P, 0, NULL, &s->top, NULL, 0);
    if (fl_ask(s, P, H_BURN_ORDER, &v) < 0 || fl_queue_add(s, P, H_BURN_ORDER, v, FL_BURN, seat) < 0)
        return -1;
    if (fl_ask(s, P, H_FOLLOW_ORDER, &v) < 0 || fl_queue_add(s, P, H_FOLLOW_ORDER, v, FL_FOLLOW, seat) < 0)
        return -1;
    return fl_advance(s, P);
}

/* ------------------------------------------------------------------------------ the loop */
/* an index below m drawn as random.Random.randrange(m) draws it (getrandbits(k) with rejection) */
static inline int fl_draw(mt_state *rng, long m, long *out)
{
    int k = mt_bit_length((uint64_t)m), tries;
    for (tries = 0; tries < MT_MAX_REJECTIONS; tries++) {
        uint64_t i = mt_getrandbits(rng, k);
        if (i < (uint64_t)m) {
            *out = (long)i;
            return 0;
        }
    }
    return -1;
}

/* the heuristic bot's move (heuristic.h): 1 a play (its code in *code), 0 the index *i of a
 * move that is not a play (a discard: leads + its number; pass: answers; yield: answers + 1),
 * -1 a rule failed, -2 a broken state */
static int hr_choose(fl_state *s, const fl_prog *P, int seat, long n, long m, long *i, fl_code *code);

/* the move of `seat`: drawn as a random bot draws it (pick), else the heuristic bot's; as hr_choose */
static inline int fl_pick(fl_state *s, const fl_prog *P, int seat, mt_state *pick, long n, long m, long *i, fl_code *code)
{
    if (pick != NULL)
        return fl_draw(pick, m, i) < 0 ? -2 : 0;
    return hr_choose(s, P, seat, n, m, i, code);
}

/* one step's result to a run result: rc 1 game over, 0 go on; -1 rule failure, -2 broken state,
 * an event buffer that filled (checked before each decision: cannot happen inside one) */
static inline int fl_rc(int rc)
{
    return rc == 1 ? FL_OVER : rc == -1 ? FL_RULE : FL_BROKEN;
}

/* the first decision of a trick: design_of's snapshot (provisional_first, then its team) */
static void fl_design_trick(fl_state *s, fl_design *d)
{
    int t, first = 0, least = -1, holders = 0, n = s->c.n_seats;
    d->trick = s->trick_no;
    for (t = 1; t <= n && first == 0; t++)
        if (s->c.place[t] == 1)
            first = t;
    for (t = 1; t <= n && first == 0; t++) {
        int size = fl_hand_total(s, t);
        if (least < 0 || size < least) {
            least = size;
            holders = t;
        } else if (size == least) {
            holders = 0;  /* (a tie: no one) */
        }
    }
    if (first == 0)
        first = holders;
    if (first > 0) {
        int team = (first - 1) % (d->teams > 0 ? d->teams : 1) + 1;
        if (d->lead_team && team != d->lead_team)
            d->changes++;
        d->lead_team = team;
    }
    if (first >= 0 && first <= G_MAX_SEATS)
        d->last[first] = d->firsts;
    d->firsts++;
}

/* a decision between m legal moves, noted for the design metrics (where a run counts them) */
static inline void fl_design_note(fl_state *s, long m)
{
    fl_design *d = s->design;
    if (d == NULL)
        return;
    d->choices += m > 1;
    if (s->trick_no != d->trick)
        fl_design_trick(s, d);
}

/* _random_run: plays while random bots are to act (pick[seat] set). FL_* */
static inline int fl_run(fl_state *s, const fl_prog *P)
{
    /* room for one decision's events: a play, its burn events, places, retirements, a trick won and
       the no-lead retirements of a new trick */
    const int margin = FL_EV_WORDS * (4 * G_MAX_SEATS + 16);
    long guard;
    for (guard = 0; guard <= s->max_steps + 1; guard++) {
        int seat = s->to_act, rc;
        mt_state *pick;
        long n, m, i;
        fl_code code;
        if (s->steps > s->max_steps)
            return FL_LIMIT;
        if (!fl_seat_ok(s, seat))
            return FL_BROKEN;
        pick = s->pick[seat];
        if (pick == NULL && !((s->heur_seats >> seat) & 1U))
            return FL_STOP;
        if (s->nev + margin > s->ev_cap)
            return FL_FULL;
        s->steps++;
        if (s->cap == FL_LEAD) {
            long nd = 0;
            int kind = 0;
            if (P->n_discard) {
                nd = fl_discards(s, P, seat, -1, &kind);
                if (nd < 0)
                    return nd == -1 ? FL_RULE : FL_BROKEN;
            }
            n = fl_leads(s, P, seat, -1, 0, &code);
            if (n == -1)
                return FL_RULE;
            if (n < 0 || n + nd <= 0)
                return FL_BROKEN;
            fl_design_note(s, n + nd);
            rc = fl_pick(s, P, seat, pick, n, n + nd, &i, &code);
            if (rc < 0)
                return rc == -1 ? FL_RULE : FL_BROKEN;
            if (rc == 0 && (i < 0 || i >= n + nd))
                return FL_BROKEN;
            if (rc == 0 && i >= n) {
                if (fl_discards(s, P, seat, i - n, &kind) != i - n + 1)
                    return FL_BROKEN;
                rc = fl_discard_move(s, P, seat, kind);
                if (rc != 0)
                    return fl_rc(rc);
                continue;
            }
            if (rc == 0 && fl_leads(s, P, seat, i, 0, &code) != i + 1)
                return FL_BROKEN;
            if (fl_event(s, EV_PLAY, seat, 0, 0, &code) < 0)
                return FL_BROKEN;
            rc = fl_play_move(s, P, seat, &code, 0);
            if (rc != 0)
                return fl_rc(rc);
            continue;
        }
        /* a follow or a burn: the seats asked about this play, one after the other */
        for (;;) {
            int may_yield = 0;
            if (!s->top.present)
                return FL_BROKEN;
            s->collect = s->listed;  /* (the heuristic bot reads the answers listed; a random bot's draw is taken
                                        from them when it is among the first FL_LISTED: no second listing) */
            s->collect_cap = FL_LISTED;
            n = fl_answers(s, P, seat, -1, &code);
            s->collect = NULL;
            if (n < 0)
                return FL_RULE;
            if (s->cap == FL_FOLLOW && !((s->yielded >> seat) & 1U)) {
                fl_question(s, P, seat, NULL, &s->top, NULL, 0);
                may_yield = fl_permit(s, P, H_YIELD);
                if (may_yield < 0)
                    return FL_RULE;
            }
            m = n + 1 + may_yield;
            fl_design_note(s, m);
            rc = fl_pick(s, P, seat, pick, n, m, &i, &code);
            if (rc < 0)
                return rc == -1 ? FL_RULE : FL_BROKEN;
            if (rc == 1)
                i = -1;  /* (the heuristic's play: its code is given) */
            else if (i < 0 || i >= m)
                return FL_BROKEN;
            if (i < n) {
                int burn = s->cap == FL_BURN;
                if (rc == 0 && i < FL_LISTED)
                    code = s->listed[i];
                else if (rc == 0 && fl_answers(s, P, seat, i, &code) != i + 1)
                    return FL_BROKEN;
                if (fl_event(s, burn ? EV_BURNMOVE : EV_PLAY, seat, 0, 0, &code) < 0)
                    return FL_BROKEN;
                rc = fl_play_move(s, P, seat, &code, burn);
                if (rc != 0)
                    return fl_rc(rc);
                break;
            }
            if (i > n) {  /* a yield (_yield) */
                vm_value v;
                long ny;
                int j = 0, seen = 0;
                if (fl_event(s, EV_YIELD, seat, 0, 0, NULL) < 0)
                    return FL_BROKEN;
                if (s->qlen <= 0)
                    return FL_BROKEN;
                fl_queue_shift(s);
                s->qlen--;
                fl_question(s, P, seat, NULL, &s->top, NULL, 0);
                if (fl_ask(s, P, H_YIELD_TO, &v) < 0)
                    return FL_RULE;
                if (v.tag == T_NONE)
                    ny = 0;
                else if (v.tag == T_INT && v.v >= 0 && v.v <= s->c.n_seats - 1)
                    ny = (long)v.v;
                else {
                    s->err_hook = H_YIELD_TO;
                    return FL_RULE;
                }
                while (j < s->qlen && seen < ny) {  /* (a none entry is not gone: it counts, as in playout) */
                    if (s->qcap[j] == FL_FOLLOW && s->qseat[j] != seat && !fl_gone(s, s->qseat[j]))
                        seen++;
                    j++;
                }
                if (s->qlen >= FL_MAX_QUEUE)
                    return FL_BROKEN;
                memmove(s->qseat + j + 1, s->qseat + j, sizeof(int) * (size_t)(s->qlen - j));
                memmove(s->qcap + j + 1, s->qcap + j, sizeof(int) * (size_t)(s->qlen - j));
                s->qseat[j] = seat;
                s->qcap[j] = FL_FOLLOW;
                s->qlen++;
                if (s->ny <= G_MAX_SEATS)
                    s->yielders[s->ny++] = seat;
                s->yielded |= 1U << seat;
                if (P->triggers[TR_AFTER_YIELD].n) {
                    fl_question(s, P, seat, NULL, &s->top, NULL, 0);
                    if (fl_trigger_run(s, P, TR_AFTER_YIELD) < 0)
                        return FL_RULE;
                    rc = fl_over(s, P);
                    if (rc != 0)
                        return fl_rc(rc);
                }
            } else {  /* a pass */
                if (fl_event(s, EV_PASS, seat, 0, 0, NULL) < 0)
                    return FL_BROKEN;
                if (s->qlen <= 0)
                    return FL_BROKEN;
                if (s->qcap[0] == FL_FOLLOW)
                    fl_set_passed(s, s->c.set_bits[SET_PASSED] | (1U << seat));
                fl_queue_shift(s);
                s->qlen--;
                if (P->triggers[TR_AFTER_PASS].n) {
                    fl_question(s, P, seat, NULL, &s->top, NULL, 0);
                    if (fl_trigger_run(s, P, TR_AFTER_PASS) < 0)
                        return FL_RULE;
                    rc = fl_over(s, P);
                    if (rc != 0)
                        return fl_rc(rc);
                }
            }
            s->won = 0;
            rc = fl_advance(s, P);
            if (rc != 0)
                return fl_rc(rc);
            if (s->won)
                break;  /* the trick was won: a lead comes next */
            seat = s->to_act;
            if (s->steps > s->max_steps)
                return FL_LIMIT;
            if (!fl_seat_ok(s, seat))
                return FL_BROKEN;
            pick = s->pick[seat];
            if (pick == NULL && !((s->heur_seats >> seat) & 1U))
                return FL_STOP;
            if (s->nev + margin > s->ev_cap)
                return FL_FULL;
            s->steps++;
        }
    }
    return FL_LIMIT;
}

#include "heuristic.h"

#endif /* GOUJI_FLOW_H */
