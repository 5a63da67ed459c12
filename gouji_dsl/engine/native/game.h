/* The native core's game state and tables (flat integers), and the deal.
 *
 * Mirrors gouji_dsl/engine/playout.py: a hand is a count per card kind (kinds in the ruleset's
 * order, rank kinds first, then the jokers: playout.py's K and NR), seats are 1..n_seats, and
 * the pack is the card model's deck() in its fixed order, each card given as its kind index
 * (its position in the deck names the card: suits are the Python side's business).
 *
 * Every array has a fixed capacity (G_MAX_*); g_tables_check refuses tables that do not fit or
 * hold an index outside its range, and nothing here reads a table that was not checked.
 * This session: the tables and the deal. The game flow (tricks, passes, yields, burns,
 * finishing, setup and between-game phases) is built on this state next (see the package
 * docstring and the issue note).
 */
#ifndef GOUJI_GAME_H
#define GOUJI_GAME_H

#include <stdint.h>
#include <string.h>

#include "mt.h"

#define G_MAX_SEATS 16
#define G_MAX_KINDS 64
#define G_MAX_CARDS 2048

typedef struct {
    int n_seats;                       /* 1..G_MAX_SEATS */
    int n_kinds;                       /* K: 1..G_MAX_KINDS */
    int n_ranks;                       /* NR: kinds that are ranks (the rest are jokers), 0..n_kinds */
    int n_cards;                       /* 0..G_MAX_CARDS */
    uint8_t deck_kind[G_MAX_CARDS];    /* the kind of each card of the pack, in deck() order */
} g_tables;

typedef struct {
    int16_t hands[G_MAX_SEATS + 1][G_MAX_KINDS];   /* per seat (1..n), per kind: cards held */
    int16_t dealt[G_MAX_SEATS + 1][G_MAX_KINDS];   /* ... as dealt */
    int16_t order[G_MAX_CARDS];                    /* the shuffled pack: deck positions */
    int first_drawer;                              /* who was dealt the first card */
} g_state;

/* 0 when the tables are consistent, else -1 (and *why names the problem). */
static inline int g_tables_check(const g_tables *t, const char **why)
{
    int i;
    if (t->n_seats < 1 || t->n_seats > G_MAX_SEATS) {
        *why = "the number of seats is outside 1..16";
        return -1;
    }
    if (t->n_kinds < 1 || t->n_kinds > G_MAX_KINDS) {
        *why = "the number of card kinds is outside 1..64";
        return -1;
    }
    if (t->n_ranks < 0 || t->n_ranks > t->n_kinds) {
        *why = "the number of rank kinds is outside 0..the number of kinds";
        return -1;
    }
    if (t->n_cards < 0 || t->n_cards > G_MAX_CARDS) {
        *why = "the pack has more than 2048 cards";
        return -1;
    }
    for (i = 0; i < t->n_cards; i++)
        if (t->deck_kind[i] >= t->n_kinds) {
            *why = "a card of the pack has a kind outside the ruleset's kinds";
            return -1;
        }
    return 0;
}

/* interpreter.deal_hands / playout._deal: shuffle the pack (random.Random.shuffle's draws), deal
 * one card at a time starting at seat `first`. The tables must have passed g_tables_check.
 * 0, or -1 when `first` is not a seat or the generator failed (mt_shuffle_int). */
static inline int g_deal(const g_tables *t, mt_state *rng, int first, g_state *s)
{
    int i, seat;
    if (first < 1 || first > t->n_seats)
        return -1;
    {
        int32_t tmp[G_MAX_CARDS];
        for (i = 0; i < t->n_cards; i++)
            tmp[i] = i;
        if (mt_shuffle_int(rng, tmp, (size_t)t->n_cards) < 0)
            return -1;
        for (i = 0; i < t->n_cards; i++)
            s->order[i] = (int16_t)tmp[i];
    }
    memset(s->hands, 0, sizeof s->hands);
    for (i = 0; i < t->n_cards; i++) {
        int pos = s->order[i];
        if (pos < 0 || pos >= t->n_cards)
            return -1;
        seat = (first - 1 + i) % t->n_seats + 1;
        s->hands[seat][t->deck_kind[pos]]++;
    }
    memcpy(s->dealt, s->hands, sizeof s->hands);
    s->first_drawer = first;
    return 0;
}

#endif /* GOUJI_GAME_H */
