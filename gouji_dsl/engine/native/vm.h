/* The native core's hook programs: a small stack bytecode emitted from the rules' checked trees
 * (gouji_dsl/engine/native/hooks.py) with the semantics of gouji_dsl/lang/ops.py and
 * gouji_dsl/lang/compile.py, checked by vm_verify before it runs.
 *
 * Values are tagged: none, bool, int (a whole number; seats are ints, as in Python), rank (a
 * card kind's index). Equality is Python's over these (true == 1, none == none, a rank equals only
 * the same rank); truth: none and 0 are false, a rank is true. Orders of numbers are false when
 * either side is none; ranks are ordered by the ruleset's strength table.
 *
 * A program is a sequence of 32-bit words: an opcode and its operands (OP_ARGS[op] of them).
 * vm_verify checks, once per program: every opcode known, its operands in range (context slots,
 * functions, play attributes, kinds), every jump forward onto an instruction of the same
 * program, the stack depth at every instruction the same on every path and within VM_STACK, and
 * every path ending in OP_RET with one value. Forward jumps only: a program runs at most as many
 * instructions as it has, so every run ends. vm_run trusts a verified program and still bounds
 * its stack and its instruction count.
 *
 * What a program reads is a vm_ctx the caller fills: the scalar variables of the question and
 * of the game (slots), the plays it may look at (play, top, beaten: present or none, and their
 * attributes), per seat its place, hand and status bits.
 */
#ifndef GOUJI_VM_H
#define GOUJI_VM_H

#include <stdint.h>
#include <string.h>

#include "game.h"

enum { T_NONE = 0, T_BOOL = 1, T_INT = 2, T_RANK = 3, T_TEXT = 4, T_LIST = 5, T_TLIST = 6, T_FLOAT = 7, T_NTAGS = 8 };
/* a list (of seats or small whole numbers) is packed in its value: the length in the low 4 bits, then item i
   in bits 4+4i..7+4i (0..14 the number, 15 none); at most VM_LIST_MAX items */
#define VM_LIST_MAX 14  /* a text is its id in the ruleset's
   text table (hooks.py); id 0 is the empty text, the only false one */
/* a list of texts (only OP_TEXTS makes one): the length in the low 4 bits, then text id i (0..255) in bits
   4+8i..11+8i; at most VM_TLIST_MAX items */
#define VM_TLIST_MAX 7
/* a float (only B_DIV makes one: Python's exact division of two whole numbers) holds the bits of its double */

typedef struct {
    int32_t tag;
    int64_t v;
} vm_value;

#define VM_STACK 64
#define VM_MAX_CODE 4096
#define VM_NSLOTS 32  /* scalar variables (context and game), numbered by hooks.py */
#define VM_NPLAYS 3   /* play, top, beaten */
#define VM_NATTRS 16  /* attributes of a play, numbered by hooks.py */
#define VM_NLOCALS 32  /* the arguments of inlined definitions */
#define VM_NFLAGS 32   /* flags a ruleset names (numbered by hooks.py) */
#define VM_NCOUNTERS 16
#define VM_INT_LIMIT ((int64_t)1 << 53)  /* ints stay far inside int64: a larger one is an error */

enum {
    OP_CONST = 0,   /* tag value: push */
    OP_SLOT,        /* slot: push vars[slot] */
    OP_PLAYATTR,    /* play attr: push the attribute, none when the play is none */
    OP_PLAYIS,      /* play: push whether the play is there (a bool) */
    OP_SEATFN,      /* fn: pop a seat, push fn(seat); none in: the function's none result */
    OP_HOLDS,       /* pop rank, pop seat: cards of that kind held (0 for none) */
    OP_COUNTSET,    /* set: push how many seats the set has (SET_*) */
    OP_INSET,       /* set: pop x, push whether x is a seat of the set */
    OP_NOT,         /* pop x, push not x */
    OP_NEG,         /* pop x, push -x (none: none) */
    OP_TRUTH,       /* pop x, push bool(x) */
    OP_BIN,         /* binop: pop y, pop x, push x op y */
    OP_JFALSE_KEEP, /* target: if top is false jump (keeping it), else pop */
    OP_JTRUE_KEEP,  /* target: if top is true jump (keeping it), else pop */
    OP_JFALSE_POP,  /* target: pop; jump if it was false */
    OP_JUMP,        /* target */
    OP_RET,         /* pop the result */
    OP_STORE,       /* local: pop into locals[local] */
    OP_LOAD,        /* local: push locals[local] (none until stored) */
    OP_FLAG,        /* flag: pop a seat, push whether it has the flag (false for none) */
    OP_PREVFLAG,    /* flag: ... at the end of the previous game */
    OP_COUNTER,     /* counter: pop a seat, push its counter (0 for none) */
    OP_INMASK,      /* kind lo hi: pop x, push whether x is in the set of ranks (kind 0) or of whole numbers 0..63 (kind 1) */
    OP_LISTFN,      /* fn: pop a seat, push a list of seats (LFN_*; none: the empty list) */
    OP_SETLIST,     /* set: push the game's seat set as a list, in its order */
    OP_MKLIST,      /* k: pop k items (the first pushed first), push them as a list */
    OP_LEN,         /* pop a list, push its length (none: 0) */
    OP_FIRST,       /* pop a list, push its first item (none for none or empty) */
    OP_INLIST,      /* pop a list, pop x: push whether x is an item */
    OP_SORTEDPLACES,/* pop a list of seats, push the places of those placed, sorted */
    OP_ACTIVEOF,    /* pop a list of seats, push those still playing, same order */
    OP_COALESCE,    /* pop b, pop a: push a unless it is none, else b */
    OP_DEALT,       /* pop rank, pop seat: cards of that kind dealt to the seat (0 for none) */
    OP_SUMKINDS,    /* table lo hi: pop a seat, push its cards (table 0: held, 1: dealt) of the kinds in the mask */
    OP_WITHATLEAST, /* pop k, pop rank, pop a list of seats: those holding at least k of the kind, same order */
    OP_FIRSTHELD,   /* n lo hi: pop a seat, push the first of n kinds (6 bits each, lo first) it holds not counting
                       cards received, or none */
    OP_MAPGET,      /* n (ktag kv vtag vv) x VM_MAP_MAX: pop a key, push its value in the constant map of n entries
                       (none for a none key; a key it does not hold stops the run: VM_MISSING_KEY) */
    OP_FEWEST,      /* pop a list of seats, push them by cards held, fewest first (ties keep their order) */
    OP_SUMPLACES,   /* n (place value) x VM_MAP_MAX: pop a list of seats, push the sum of the values of their places
                       (unplaced seats count 0; a place not in the table stops the run: VM_MISSING_PLACE) */
    OP_SHOWN,       /* pop k, pop rank: the seat that showed the most same-suit cards of the kind during the deal
                       (at least k; ties: who completed that count first), or none */
    OP_RANDSEAT,    /* push a seat drawn from the game's generator (randint(1, n): 1 + _randbelow(n)) */
    OP_RECEIVED,    /* pop rank, pop seat: cards of that kind the seat received in the between-game phase (0 for none) */
    OP_PREVBURNS,   /* which: pop t, pop s: successful burns (which 1: counter-burns) by s of t in the previous game */
    OP_FLAGGED,     /* flag: pop a list of seats, push those with the flag, same order */
    OP_NEXTWITHOUT, /* flag: pop a seat, push the first active seat after it without the flag, or none */
    OP_MAXDEALT,    /* pop rank, pop a list of seats: the most cards of the kind any of them was dealt (0: none) */
    OP_ATLEAST,     /* table: pop rank, pop seat: its cards (0 held, 1 dealt) of that kind or any later kind */
    OP_MINATLEAST,  /* pop rank: the fewest cards dealt of that kind or any later kind, over all seats */
    OP_WITHHELD,    /* n lo hi: pop a list of seats, push those holding one of the n kinds (not counting cards received) */
    OP_FIRSTHOLDING,/* n lo hi: as OP_FIRSTHELD, counting cards received */
    OP_LISTITEM,    /* pop a key, pop a list: its item (Python's index, from the end when negative); none for none;
                       out of range stops the run: VM_MISSING_ITEM (the list in aux); not a number: VM_BAD_INDEX */
    OP_TEXTS,       /* k id x VM_TLIST_MAX: push the list of the first k text ids */
    OP_CARDSOF,     /* play: pop rank, push the play's cards of that kind (0: no play, none, a word that is no kind) */
    OP_PREVCOUNTER, /* counter: pop a seat, push its counter at the end of the previous game (0 for none, or no game) */
    OP_TEE,         /* local: store the top into locals[local], keeping it (STORE then LOAD) */
    OP_BINK,        /* binop tag value: pop x, push x op the constant (CONST then BIN) */
    OP_NOPS
};
#define VM_MAP_MAX 16

static const int VM_OP_ARGS[OP_NOPS] = {2, 1, 2, 1, 1, 0, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 3, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 3, 0, 3, 65, 0, 33, 0, 0,
                                         0, 1, 1, 1, 0, 1, 0, 3, 3, 0, 1 + VM_TLIST_MAX, 1, 1, 1, 3};

enum { LFN_AFTER = 0, LFN_TEAMMATES, LFN_OPPONENTS, LFN_TEAM_SEATS, LFN_N };

enum {
    FN_OPPOSITE = 0, FN_DOWNSTREAM, FN_UPSTREAM, FN_TEAM, FN_NEXT_ACTIVE, FN_ACTIVE, FN_OUT, FN_REVOLTED,
    FN_PASSED, FN_PLACE, FN_HAND_SIZE, FN_RANK_GROUPS, FN_JOKERS_HELD, FN_PREV_PLACE, FN_PREV_SEAT_AT, FN_N
};

enum { SET_ALL = 0, SET_ACTIVE, SET_FINISHED, SET_REVOLTED, SET_PASSED, SET_FINISHED_IN_TRICK, SET_N };

enum {
    B_EQ = 0, B_NE, B_LT_INT, B_LE_INT, B_GT_INT, B_GE_INT, B_LT_RANK, B_LE_RANK, B_GT_RANK, B_GE_RANK,
    B_ADD, B_SUB, B_MUL, B_FLOORDIV, B_MOD, B_CONCAT, B_REMOVE, B_KEEP, B_MIN, B_MAX, B_DIV,
    B_LT_ANY, B_LE_ANY, B_GT_ANY, B_GE_ANY, B_N
};

/* run results */
enum { VM_OK = 0, VM_DIV_ZERO = 1, VM_DOMAIN = 2, VM_BAD = 3, VM_MISSING_KEY = 4, VM_MISSING_PLACE = 5, VM_MISSING_ITEM = 6,
       VM_BAD_INDEX = 7, VM_CANNOT = 8 /* an order or arithmetic of values it does not take: result x, aux y */ };

typedef struct {
    int n_seats, n_teams, n_kinds, n_ranks;
    vm_value vars[VM_NSLOTS];
    int32_t play_present[VM_NPLAYS];
    vm_value play_attr[VM_NPLAYS][VM_NATTRS];
    int32_t place[G_MAX_SEATS + 1];          /* 0: no place */
    int16_t hands[G_MAX_SEATS + 1][G_MAX_KINDS];
    uint32_t set_bits[SET_N];                  /* bit s: seat s is in the set */
    int32_t set_count[SET_N];                  /* the sets' sizes (finished may repeat no seat: bits suffice, but counts are given) */
    int32_t strength[G_MAX_KINDS];
    uint32_t flag_bits[VM_NFLAGS];            /* bit s: seat s has the flag */
    uint32_t prev_flag_bits[VM_NFLAGS];
    int64_t counters[VM_NCOUNTERS][G_MAX_SEATS + 1];
    int32_t set_order[SET_N][G_MAX_SEATS];    /* the sets as lists (set_count items each) */
    int16_t dealt[G_MAX_SEATS + 1][G_MAX_KINDS];
    int16_t received[G_MAX_SEATS + 1][G_MAX_KINDS];  /* cards received in this game's between-game phase */
    int32_t prev_place[G_MAX_SEATS + 1];             /* the previous game's places (0: none, or no previous game) */
    int32_t shown_n[G_MAX_SEATS + 1][G_MAX_KINDS];   /* per seat and kind: the most same-suit cards shown in the deal */
    int32_t shown_t[G_MAX_SEATS + 1][G_MAX_KINDS];   /* ... and when that count was completed (dealing order) */
    int16_t play_counts[VM_NPLAYS][G_MAX_KINDS];     /* per play (play, top, beaten): its cards per kind */
    int64_t prev_counters[VM_NCOUNTERS][G_MAX_SEATS + 1];  /* the counters at the end of the previous game */
    int32_t prev_burns[2][G_MAX_SEATS + 1][G_MAX_SEATS + 1];  /* [0] successful burns by s of t in the previous game, [1] counter-burns */
    mt_state *rng;                                   /* the game's generator (NULL: a program that draws cannot run) */
} vm_ctx;

typedef struct {
    int status;       /* VM_* */
    int pc;           /* the instruction that failed */
    vm_value result;  /* the value (VM_OK), or the failing operation's left operand */
    vm_value aux;     /* VM_MISSING_ITEM: the list */
} vm_result;

static inline int vm_ctx_check(const vm_ctx *c)
{
    int i;
    if (c->n_seats < 1 || c->n_seats > G_MAX_SEATS || c->n_teams < 1 || c->n_kinds < 1 || c->n_kinds > G_MAX_KINDS
        || c->n_ranks < 0 || c->n_ranks > c->n_kinds)
        return -1;
    for (i = 0; i < VM_NSLOTS; i++)
        if (c->vars[i].tag < 0 || c->vars[i].tag >= T_NTAGS)
            return -1;
    for (i = 0; i < SET_N; i++) {
        int k;
        if (c->set_count[i] < 0 || c->set_count[i] > G_MAX_SEATS)
            return -1;
        for (k = 0; k < c->set_count[i]; k++)
            if (c->set_order[i][k] < 1 || c->set_order[i][k] > c->n_seats)
                return -1;
    }
    for (i = 0; i < VM_NPLAYS; i++) {
        int a;
        for (a = 0; a < VM_NATTRS; a++)
            if (c->play_attr[i][a].tag < 0 || c->play_attr[i][a].tag >= T_NTAGS)
                return -1;
    }
    return 0;
}

/* 0 when (tag, v) is a constant a program may push (OP_CONST, OP_BINK), else -1. */
static inline int vm_const_ok(int32_t tag, int32_t v, int n_kinds)
{
    if (tag < 0 || tag >= T_NTAGS)
        return -1;
    if (tag == T_RANK && (v < 0 || v >= n_kinds))
        return -1;
    if (tag == T_BOOL && (v < 0 || v > 1))
        return -1;
    if ((tag == T_TEXT && v < 0) || tag == T_TLIST || tag == T_FLOAT)
        return -1;  /* (a list of texts only from OP_TEXTS, a float only from B_DIV) */
    if (tag == T_LIST) {  /* a well-formed list: its length, then that many items, nothing above */
        uint32_t w = (uint32_t)v, len = w & 15U;
        if (v < 0 || len > 6 || (len < 7 && (w >> (4 + 4 * len)) != 0))
            return -1;
    }
    return 0;
}

/* 0 when `code[0..n)` is a well-formed program for contexts of `n_kinds` kinds, else -1. */
static inline int vm_verify(const int32_t *code, int n, int n_kinds)
{
    int16_t depth_at[VM_MAX_CODE + 1];
    uint8_t start[VM_MAX_CODE + 1], target_at[VM_MAX_CODE + 1];  /* instruction starts; jump targets */
    int pc = 0, depth = 0, live = 1;
    if (n < 1 || n > VM_MAX_CODE)
        return -1;
    for (pc = 0; pc <= n; pc++) {
        depth_at[pc] = -1;
        start[pc] = 0;
        target_at[pc] = 0;
    }
    pc = 0;
    while (pc < n) {
        int op = code[pc], args, in = 0, out = 0, target = -1, i;
        if (depth_at[pc] >= 0) {
            if (live && depth_at[pc] != depth)
                return -1;
            depth = depth_at[pc];
            live = 1;
        } else if (!live) {
            return -1;  /* unreachable code */
        }
        depth_at[pc] = (int16_t)depth;
        start[pc] = 1;
        if (op < 0 || op >= OP_NOPS)
            return -1;
        args = VM_OP_ARGS[op];
        if (pc + args >= n && op != OP_RET)
            return -1;
        if (pc + args >= n + (op == OP_RET))
            return -1;
        for (i = 1; i <= args; i++)
            (void)code[pc + i];
        switch (op) {
        case OP_CONST:
            if (vm_const_ok(code[pc + 1], code[pc + 2], n_kinds) < 0)
                return -1;
            out = 1;
            break;
        case OP_BINK:
            if (code[pc + 1] < 0 || code[pc + 1] >= B_N || vm_const_ok(code[pc + 2], code[pc + 3], n_kinds) < 0)
                return -1;
            in = 1;
            out = 1;
            break;
        case OP_TEE:
            if (code[pc + 1] < 0 || code[pc + 1] >= VM_NLOCALS)
                return -1;
            in = 1;
            out = 1;
            break;
        case OP_SLOT:
            if (code[pc + 1] < 0 || code[pc + 1] >= VM_NSLOTS)
                return -1;
            out = 1;
            break;
        case OP_PLAYATTR:
            if (code[pc + 1] < 0 || code[pc + 1] >= VM_NPLAYS || code[pc + 2] < 0 || code[pc + 2] >= VM_NATTRS)
                return -1;
            out = 1;
            break;
        case OP_PLAYIS:
            if (code[pc + 1] < 0 || code[pc + 1] >= VM_NPLAYS)
                return -1;
            out = 1;
            break;
        case OP_SEATFN:
            if (code[pc + 1] < 0 || code[pc + 1] >= FN_N)
                return -1;
            in = 1;
            out = 1;
            break;
        case OP_HOLDS:
            in = 2;
            out = 1;
            break;
        case OP_COUNTSET:
            if (code[pc + 1] < 0 || code[pc + 1] >= SET_N)
                return -1;
            out = 1;
            break;
        case OP_INSET:
            if (code[pc + 1] < 0 || code[pc + 1] >= SET_N)
                return -1;
            in = 1;
            out = 1;
            break;
        case OP_NOT:
        case OP_NEG:
        case OP_TRUTH:
            in = 1;
            out = 1;
            break;
        case OP_BIN:
            if (code[pc + 1] < 0 || code[pc + 1] >= B_N)
                return -1;
            in = 2;
            out = 1;
            break;
        case OP_JFALSE_KEEP:
        case OP_JTRUE_KEEP:
        case OP_JFALSE_POP:
        case OP_JUMP:
            target = code[pc + 1];
            if (target <= pc + args || target >= n)
                return -1;
            target_at[target] = 1;
            break;
        case OP_RET:
            in = 1;
            break;
        case OP_STORE:
        case OP_LOAD:
            if (code[pc + 1] < 0 || code[pc + 1] >= VM_NLOCALS)
                return -1;
            in = op == OP_STORE;
            out = op == OP_LOAD;
            break;
        case OP_FLAG:
        case OP_PREVFLAG:
            if (code[pc + 1] < 0 || code[pc + 1] >= VM_NFLAGS)
                return -1;
            in = 1;
            out = 1;
            break;
        case OP_COUNTER:
        case OP_PREVCOUNTER:
            if (code[pc + 1] < 0 || code[pc + 1] >= VM_NCOUNTERS)
                return -1;
            in = 1;
            out = 1;
            break;
        case OP_INMASK:
            if (code[pc + 1] < 0 || code[pc + 1] > 1)
                return -1;
            in = 1;
            out = 1;
            break;
        case OP_LISTFN:
            if (code[pc + 1] < 0 || code[pc + 1] >= LFN_N)
                return -1;
            in = 1;
            out = 1;
            break;
        case OP_SETLIST:
            if (code[pc + 1] < 0 || code[pc + 1] >= SET_N)
                return -1;
            out = 1;
            break;
        case OP_MKLIST:
            if (code[pc + 1] < 0 || code[pc + 1] > VM_LIST_MAX)
                return -1;
            in = code[pc + 1];
            out = 1;
            break;
        case OP_LEN:
        case OP_FIRST:
        case OP_SORTEDPLACES:
        case OP_ACTIVEOF:
            in = 1;
            out = 1;
            break;
        case OP_INLIST:
        case OP_COALESCE:
        case OP_DEALT:
            in = 2;
            out = 1;
            break;
        case OP_SUMKINDS:
            if (code[pc + 1] < 0 || code[pc + 1] > 1)
                return -1;
            in = 1;
            out = 1;
            break;
        case OP_WITHATLEAST:
            in = 3;
            out = 1;
            break;
        case OP_SHOWN:
            in = 2;
            out = 1;
            break;
        case OP_RANDSEAT:
            out = 1;
            break;
        case OP_RECEIVED:
        case OP_MAXDEALT:
        case OP_LISTITEM:
            in = 2;
            out = 1;
            break;
        case OP_PREVBURNS:
        case OP_ATLEAST:
            if (code[pc + 1] < 0 || code[pc + 1] > 1)
                return -1;
            in = 2;
            out = 1;
            break;
        case OP_FLAGGED:
        case OP_NEXTWITHOUT:
            if (code[pc + 1] < 0 || code[pc + 1] >= VM_NFLAGS)
                return -1;
            in = 1;
            out = 1;
            break;
        case OP_MINATLEAST:
            in = 1;
            out = 1;
            break;
        case OP_CARDSOF:
            if (code[pc + 1] < 0 || code[pc + 1] >= VM_NPLAYS)
                return -1;
            in = 1;
            out = 1;
            break;
        case OP_TEXTS: {
            int k, m = code[pc + 1];
            if (m < 0 || m > VM_TLIST_MAX)
                return -1;
            for (k = 0; k < VM_TLIST_MAX; k++)
                if (code[pc + 2 + k] < 0 || code[pc + 2 + k] > 255 || (k >= m && code[pc + 2 + k] != 0))
                    return -1;
            out = 1;
            break;
        }
        case OP_FEWEST:
            in = 1;
            out = 1;
            break;
        case OP_SUMPLACES:
            if (code[pc + 1] < 0 || code[pc + 1] > VM_MAP_MAX)
                return -1;
            in = 1;
            out = 1;
            break;
        case OP_MAPGET: {
            int k, m = code[pc + 1];
            if (m < 0 || m > VM_MAP_MAX)
                return -1;
            for (k = 0; k < m; k++) {
                int kt = code[pc + 2 + 4 * k], vt = code[pc + 4 + 4 * k];
                if (kt != T_INT && kt != T_RANK && kt != T_TEXT)
                    return -1;
                if (vt < 0 || vt > T_TEXT)
                    return -1;
                if ((kt == T_RANK && (code[pc + 3 + 4 * k] < 0 || code[pc + 3 + 4 * k] >= n_kinds))
                    || (vt == T_RANK && (code[pc + 5 + 4 * k] < 0 || code[pc + 5 + 4 * k] >= n_kinds)))
                    return -1;
            }
            in = 1;
            out = 1;
            break;
        }
        case OP_FIRSTHELD:
        case OP_FIRSTHOLDING:
        case OP_WITHHELD: {
            int k, m = code[pc + 1];
            if (m < 0 || m > 10)
                return -1;
            for (k = 0; k < m; k++) {
                uint32_t w = (uint32_t)code[pc + 2 + k / 5];
                if (((w >> (6 * (k % 5))) & 63U) >= (uint32_t)n_kinds)
                    return -1;
            }
            in = 1;
            out = 1;
            break;
        }
        default:
            return -1;
        }
        if (depth < in)
            return -1;
        if (op == OP_JFALSE_KEEP || op == OP_JTRUE_KEEP) {
            if (depth < 1)
                return -1;
            /* jump: depth unchanged; fall through: one popped */
            if (depth_at[target] >= 0 && depth_at[target] != depth)
                return -1;
            depth_at[target] = (int16_t)depth;
            depth -= 1;
        } else if (op == OP_JFALSE_POP) {
            if (depth < 1)
                return -1;
            depth -= 1;
            if (depth_at[target] >= 0 && depth_at[target] != depth)
                return -1;
            depth_at[target] = (int16_t)depth;
        } else if (op == OP_JUMP) {
            if (depth_at[target] >= 0 && depth_at[target] != depth)
                return -1;
            depth_at[target] = (int16_t)depth;
            live = 0;
        } else if (op == OP_RET) {
            if (depth != 1)
                return -1;
            live = 0;
        } else {
            depth = depth - in + out;
        }
        if (depth > VM_STACK)
            return -1;
        pc += 1 + args;
    }
    if (live)
        return -1;  /* the last instruction must end every path */
    for (pc = 0; pc < n; pc++)
        if (target_at[pc] && !start[pc])
            return -1;  /* a jump into the middle of an instruction */
    return 0;
}

static inline int vm_list_len(vm_value x)
{
    return (int)((uint64_t)x.v & 15U);
}

static inline int vm_list_item(vm_value x, int i)
{
    return (int)(((uint64_t)x.v >> (4 + 4 * i)) & 15U);
}

/* a list's item from a value: 0..14, 15 for none, -1 when it cannot be an item */
static inline int vm_to_item(vm_value x)
{
    if (x.tag == T_NONE)
        return 15;
    if ((x.tag == T_INT || x.tag == T_BOOL) && x.v >= 0 && x.v <= 14)
        return (int)x.v;
    return -1;
}

static inline vm_value vm_from_item(int item)
{
    vm_value v;
    v.tag = item == 15 ? T_NONE : T_INT;
    v.v = item == 15 ? 0 : item;
    return v;
}

/* a list of n items (each 0..15), or a none-tagged value with v = -1 when n is too long */
static inline vm_value vm_make_list(const int *items, int n)
{
    vm_value v;
    uint64_t w;
    int i;
    if (n < 0 || n > VM_LIST_MAX) {
        v.tag = T_NONE;
        v.v = -1;
        return v;
    }
    w = (uint64_t)n;
    for (i = 0; i < n; i++)
        w |= (uint64_t)(items[i] & 15) << (4 + 4 * i);
    v.tag = T_LIST;
    v.v = (int64_t)w;
    return v;
}

static inline double vm_float(vm_value x)
{
    double d;
    if (x.tag != T_FLOAT)
        return (double)x.v;
    memcpy(&d, &x.v, sizeof d);
    return d;
}

static inline int vm_truth(vm_value x)
{
    if (x.tag == T_BOOL || x.tag == T_INT)  /* (the usual ones first: a number's truth) */
        return x.v != 0;
    if (x.tag == T_FLOAT)
        return vm_float(x) != 0.0;
    if (x.tag == T_LIST || x.tag == T_TLIST)
        return vm_list_len(x) != 0;
    return x.tag == T_RANK ? 1 : (x.tag == T_NONE ? 0 : x.v != 0);  /* (a text: id 0 is the empty one) */
}

static inline int vm_eq(vm_value x, vm_value y)
{
    if (x.tag == T_NONE || y.tag == T_NONE)
        return x.tag == y.tag;
    if (x.tag == T_FLOAT || y.tag == T_FLOAT) {  /* (a number equals a float of the same value, as in Python) */
        if ((x.tag != T_FLOAT && x.tag != T_INT && x.tag != T_BOOL) || (y.tag != T_FLOAT && y.tag != T_INT && y.tag != T_BOOL))
            return 0;
        return vm_float(x) == vm_float(y);
    }
    if ((x.tag == T_LIST || x.tag == T_TLIST) && (y.tag == T_LIST || y.tag == T_TLIST) && x.tag != y.tag)
        return vm_list_len(x) == 0 && vm_list_len(y) == 0;  /* (no seat or number is a text: only [] == []) */
    if (x.tag == T_RANK || y.tag == T_RANK || x.tag == T_TEXT || y.tag == T_TEXT || x.tag == T_LIST || y.tag == T_LIST)
        return x.tag == y.tag && x.v == y.v;
    return x.v == y.v;  /* bools and ints compare as numbers (true == 1) */
}

static inline int64_t vm_floormod(int64_t a, int64_t b)
{
    int64_t r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

static inline int vm_seat_ok(const vm_ctx *c, int64_t s)
{
    return s >= 1 && s <= c->n_seats;
}

/* the interpreter's is_active: not placed, not revolted, not failed (a number that is no seat is in
   none of those, so it counts as active) */
static inline int vm_is_active(const vm_ctx *c, int64_t s)
{
    return !vm_seat_ok(c, s) || ((c->set_bits[SET_ACTIVE] >> s) & 1U);
}

/* Runs a program vm_verify accepted: VM_OK with the value in res->result, else the failure in *res
 * (status, the failing instruction's pc, its operands in result / aux). Only the fields a run
 * sets are written on success (the value): the caller's result struct is not filled per run. */
static inline __attribute__((always_inline)) int vm_exec(const int32_t *code, int n, const vm_ctx *c, vm_result *res)
{
    vm_value st[VM_STACK + 1];
    vm_value locals[VM_NLOCALS];
    uint32_t stored = 0;  /* which locals were stored (an unstored one reads as none; no clearing per run) */
    int sp = 0, pc = 0, at = 0;  /* at: the start of the instruction running (a failure's pc) */
    res->aux.tag = T_NONE;
    res->aux.v = 0;
#define PUSH(T, V) do { if (sp >= VM_STACK) goto bad; st[sp].tag = (T); st[sp].v = (V); sp++; } while (0)
#define NEED(k) do { if (sp < (k)) goto bad; } while (0)
    while (pc < n) {  /* (every jump goes forward: checked here as well as by the verifier, so pc only grows) */
        int op = code[pc];
        at = pc;
        switch (op) {
        case OP_CONST:
            PUSH(code[pc + 1], code[pc + 2]);
            pc += 3;
            break;
        case OP_SLOT:
            if (code[pc + 1] < 0 || code[pc + 1] >= VM_NSLOTS)
                goto bad;
            NEED(0);
            if (sp >= VM_STACK)
                goto bad;
            st[sp++] = c->vars[code[pc + 1]];
            pc += 2;
            break;
        case OP_PLAYATTR: {
            int p = code[pc + 1], a = code[pc + 2];
            if (p < 0 || p >= VM_NPLAYS || a < 0 || a >= VM_NATTRS || sp >= VM_STACK)
                goto bad;
            if (c->play_present[p])
                st[sp++] = c->play_attr[p][a];
            else
                PUSH(T_NONE, 0);
            pc += 3;
            break;
        }
        case OP_PLAYIS: {
            int p = code[pc + 1];
            if (p < 0 || p >= VM_NPLAYS)
                goto bad;
            PUSH(T_BOOL, c->play_present[p] ? 1 : 0);
            pc += 2;
            break;
        }
        case OP_SEATFN: {
            vm_value x;
            int64_t s, n_ = c->n_seats;
            int fn = code[pc + 1], k;
            NEED(1);
            x = st[--sp];
            if (x.tag == T_NONE) {
                switch (fn) {
                case FN_ACTIVE: case FN_OUT: case FN_REVOLTED: case FN_PASSED:
                    PUSH(T_BOOL, 0);
                    break;
                case FN_HAND_SIZE: case FN_RANK_GROUPS: case FN_JOKERS_HELD:
                    PUSH(T_INT, 0);
                    break;
                default:
                    PUSH(T_NONE, 0);
                }
                pc += 2;
                break;
            }
            if (x.tag != T_INT && x.tag != T_BOOL) {  /* (a rank or a text where a seat is wanted) */
                res->status = VM_DOMAIN;
                res->result = x;
                { res->pc = at; return res->status; }
            }
            s = x.v;
            switch (fn) {
            case FN_OPPOSITE:
                PUSH(T_INT, vm_floormod(s - 1 + n_ / 2, n_) + 1);
                break;
            case FN_DOWNSTREAM:
                PUSH(T_INT, vm_floormod(s, n_) + 1);
                break;
            case FN_UPSTREAM:
                PUSH(T_INT, vm_floormod(s - 2, n_) + 1);
                break;
            case FN_TEAM:
                PUSH(T_INT, vm_floormod(s - 1, c->n_teams) + 1);
                break;
            case FN_NEXT_ACTIVE: {
                int64_t t;
                int found = 0;
                if (!vm_seat_ok(c, s))
                    goto domain;
                for (k = 1; k < n_; k++) {
                    t = (s - 1 + k) % n_ + 1;
                    if (vm_is_active(c, t)) {
                        PUSH(T_INT, t);
                        found = 1;
                        break;
                    }
                }
                if (!found)
                    PUSH(T_NONE, 0);
                break;
            }
            case FN_ACTIVE:
                PUSH(T_BOOL, vm_is_active(c, s));
                break;
            case FN_OUT:  /* placed and not revolted */
                PUSH(T_BOOL, vm_seat_ok(c, s) && c->place[s] > 0 && !((c->set_bits[SET_REVOLTED] >> s) & 1U));
                break;
            case FN_REVOLTED:
                PUSH(T_BOOL, vm_seat_ok(c, s) && ((c->set_bits[SET_REVOLTED] >> s) & 1U));
                break;
            case FN_PASSED:
                PUSH(T_BOOL, vm_seat_ok(c, s) && ((c->set_bits[SET_PASSED] >> s) & 1U));
                break;
            case FN_PLACE:
                if (vm_seat_ok(c, s) && c->place[s] > 0)
                    PUSH(T_INT, c->place[s]);
                else
                    PUSH(T_NONE, 0);
                break;
            case FN_PREV_SEAT_AT: {
                int q, who = 0;
                for (q = 1; q <= c->n_seats && !who; q++)
                    if (c->prev_place[q] > 0 && c->prev_place[q] == s)
                        who = q;
                if (who)
                    PUSH(T_INT, who);
                else
                    PUSH(T_NONE, 0);
                break;
            }
            case FN_PREV_PLACE:
                if (vm_seat_ok(c, s) && c->prev_place[s] > 0)
                    PUSH(T_INT, c->prev_place[s]);
                else
                    PUSH(T_NONE, 0);
                break;
            case FN_HAND_SIZE: case FN_RANK_GROUPS: case FN_JOKERS_HELD: {
                int64_t sum = 0;
                int lo = fn == FN_JOKERS_HELD ? c->n_ranks : 0, hi = fn == FN_JOKERS_HELD ? c->n_kinds : (fn == FN_RANK_GROUPS ? c->n_ranks : c->n_kinds);
                if (!vm_seat_ok(c, s))
                    goto domain;
                for (k = lo; k < hi; k++)
                    sum += fn == FN_RANK_GROUPS ? (c->hands[s][k] != 0) : c->hands[s][k];
                PUSH(T_INT, sum);
                break;
            }
            default:
                goto bad;
            }
            pc += 2;
            break;
        }
        case OP_HOLDS: {
            vm_value r, s;
            NEED(2);
            r = st[--sp];
            s = st[--sp];
            if (s.tag == T_NONE || r.tag == T_NONE) {
                PUSH(T_INT, 0);
            } else {
                if (r.tag != T_RANK || r.v < 0 || r.v >= c->n_kinds || (s.tag != T_INT && s.tag != T_BOOL) || !vm_seat_ok(c, s.v))
                    goto domain;
                PUSH(T_INT, c->hands[s.v][r.v]);
            }
            pc += 1;
            break;
        }
        case OP_COUNTSET:
            if (code[pc + 1] < 0 || code[pc + 1] >= SET_N)
                goto bad;
            PUSH(T_INT, c->set_count[code[pc + 1]]);
            pc += 2;
            break;
        case OP_INSET: {
            vm_value x;
            int set = code[pc + 1];
            NEED(1);
            if (set < 0 || set >= SET_N)
                goto bad;
            x = st[--sp];
            PUSH(T_BOOL, (x.tag == T_INT || x.tag == T_BOOL) && vm_seat_ok(c, x.v) && ((c->set_bits[set] >> x.v) & 1U));
            pc += 2;
            break;
        }
        case OP_NOT:
            NEED(1);
            st[sp - 1].v = !vm_truth(st[sp - 1]);
            st[sp - 1].tag = T_BOOL;
            pc += 1;
            break;
        case OP_TRUTH:
            NEED(1);
            st[sp - 1].v = vm_truth(st[sp - 1]);
            st[sp - 1].tag = T_BOOL;
            pc += 1;
            break;
        case OP_NEG:
            NEED(1);
            if (st[sp - 1].tag == T_NONE) {
                pc += 1;
                break;
            }
            if (st[sp - 1].tag != T_INT)
                goto domain;  /* (a bool or a rank: the emitter never negates one) */
            st[sp - 1].v = -st[sp - 1].v;
            pc += 1;
            break;
        case OP_BIN:
        case OP_BINK: {
            vm_value x, y;
            int b = code[pc + 1];
            int64_t r = 0;
            if (op == OP_BINK && b >= B_LT_INT && b <= B_GE_INT && code[pc + 2] == T_INT && sp >= 1 && st[sp - 1].tag == T_INT) {
                /* (the usual case first: a whole number against a whole-number constant; as below) */
                int64_t xv = st[sp - 1].v, yv = code[pc + 3];
                st[sp - 1].tag = T_BOOL;
                st[sp - 1].v = b == B_LT_INT ? xv < yv : b == B_LE_INT ? xv <= yv : b == B_GT_INT ? xv > yv : xv >= yv;
                pc += 4;
                break;
            }
            if (op == OP_BINK) {  /* (the right operand written in the instruction) */
                NEED(1);
                y.tag = code[pc + 2];
                y.v = code[pc + 3];
            } else {
                NEED(2);
                y = st[--sp];
            }
            x = st[--sp];
            if (b == B_EQ || b == B_NE) {
                int e = vm_eq(x, y);
                PUSH(T_BOOL, b == B_EQ ? e : !e);
            } else if (b >= B_LT_INT && b <= B_GE_INT) {
                if (x.tag == T_NONE || y.tag == T_NONE) {
                    PUSH(T_BOOL, 0);
                } else {
                    if (x.tag != T_INT || y.tag != T_INT)
                        goto cannot;
                    PUSH(T_BOOL, b == B_LT_INT ? x.v < y.v : b == B_LE_INT ? x.v <= y.v : b == B_GT_INT ? x.v > y.v : x.v >= y.v);
                }
            } else if (b >= B_LT_RANK && b <= B_GE_RANK) {
                if (x.tag == T_NONE || y.tag == T_NONE) {
                    PUSH(T_BOOL, 0);
                } else {
                    int64_t sx, sy;
                    if (x.tag != T_RANK || y.tag != T_RANK)
                        goto cannot;
                    if (x.v < 0 || x.v >= c->n_kinds || y.v < 0 || y.v >= c->n_kinds)
                        goto domain;
                    sx = c->strength[x.v];
                    sy = c->strength[y.v];
                    PUSH(T_BOOL, b == B_LT_RANK ? sx < sy : b == B_LE_RANK ? sx <= sy : b == B_GT_RANK ? sx > sy : sx >= sy);
                }
            } else if (b >= B_LT_ANY && b <= B_GE_ANY) {  /* numbers by value, ranks by rank order */
                if (x.tag == T_NONE || y.tag == T_NONE) {
                    PUSH(T_BOOL, 0);
                } else {
                    int64_t sx, sy;
                    if (x.tag == T_INT && y.tag == T_INT) {
                        sx = x.v;
                        sy = y.v;
                    } else if (x.tag == T_RANK && y.tag == T_RANK) {
                        if (x.v < 0 || x.v >= c->n_kinds || y.v < 0 || y.v >= c->n_kinds)
                            goto domain;
                        sx = c->strength[x.v];
                        sy = c->strength[y.v];
                    } else
                        goto cannot;  /* (a text: no card kind; a bool, a list: no number) */
                    PUSH(T_BOOL, b == B_LT_ANY ? sx < sy : b == B_LE_ANY ? sx <= sy : b == B_GT_ANY ? sx > sy : sx >= sy);
                }
            } else if (b >= B_ADD && b <= B_MOD) {
                if (x.tag == T_NONE || y.tag == T_NONE) {
                    PUSH(T_NONE, 0);
                } else {
                    if (x.tag != T_INT || y.tag != T_INT)
                        goto cannot;
                    if ((b == B_FLOORDIV || b == B_MOD) && y.v == 0) {
                        res->status = VM_DIV_ZERO;
                        res->result = x;
                        { res->pc = at; return res->status; }
                    }
                    switch (b) {
                    case B_ADD: r = x.v + y.v; break;
                    case B_SUB: r = x.v - y.v; break;
                    case B_MUL:
                        if (__builtin_mul_overflow(x.v, y.v, &r))
                            goto domain;
                        break;
                    case B_FLOORDIV: {
                        int64_t q = x.v / y.v;
                        if ((x.v % y.v != 0) && ((x.v < 0) != (y.v < 0)))
                            q -= 1;
                        r = q;
                        break;
                    }
                    default: r = vm_floormod(x.v, y.v);
                    }
                    if (r >= VM_INT_LIMIT || r <= -VM_INT_LIMIT)
                        goto domain;
                    PUSH(T_INT, r);
                }
            } else if (b == B_DIV) {
                if (x.tag == T_NONE || y.tag == T_NONE) {
                    PUSH(T_NONE, 0);
                } else {
                    double q;
                    int64_t bits;
                    if (x.tag != T_INT || y.tag != T_INT)
                        goto cannot;
                    if (y.v == 0) {
                        res->status = VM_DIV_ZERO;
                        res->result = x;
                        { res->pc = at; return res->status; }
                    }
                    /* (|x|, |y| < 2**53: both doubles exact, the quotient correctly rounded, as Python's int / int) */
                    q = (double)x.v / (double)y.v;
                    memcpy(&bits, &q, sizeof bits);
                    PUSH(T_FLOAT, bits);
                }
            } else if (b == B_MIN || b == B_MAX) {
                if (x.tag == T_NONE || y.tag == T_NONE) {
                    PUSH(T_NONE, 0);
                } else {
                    if (x.tag != T_INT || y.tag != T_INT)
                        goto domain;
                    /* Python's min/max: the first of equal values (the same number here) */
                    PUSH(T_INT, b == B_MIN ? (y.v < x.v ? y.v : x.v) : (y.v > x.v ? y.v : x.v));
                }
            } else if (b >= B_CONCAT && b <= B_KEEP) {
                int items[2 * VM_LIST_MAX], n_ = 0, i, j, nx, ny;
                vm_value l;
                if ((x.tag != T_LIST && x.tag != T_NONE) || (y.tag != T_LIST && y.tag != T_NONE))
                    goto domain;
                nx = x.tag == T_LIST ? vm_list_len(x) : 0;
                ny = y.tag == T_LIST ? vm_list_len(y) : 0;
                if (nx > VM_LIST_MAX || ny > VM_LIST_MAX)
                    goto bad;
                for (i = 0; i < nx; i++) {
                    int it = vm_list_item(x, i), found = 0;
                    if (b != B_CONCAT)
                        for (j = 0; j < ny; j++)
                            if (vm_list_item(y, j) == it)
                                found = 1;
                    if (b == B_CONCAT || (b == B_REMOVE && !found) || (b == B_KEEP && found))
                        items[n_++] = it;
                }
                if (b == B_CONCAT)
                    for (j = 0; j < ny; j++)
                        items[n_++] = vm_list_item(y, j);
                l = vm_make_list(items, n_);
                if (l.tag != T_LIST)
                    goto domain;
                if (sp >= VM_STACK)
                    goto bad;
                st[sp++] = l;
            } else {
                goto bad;
            }
            pc += op == OP_BINK ? 4 : 2;
            break;
        cannot:  /* (the operands the failure shows) */
            res->status = VM_CANNOT;
            res->result = x;
            res->aux = y;
            { res->pc = at; return res->status; }
        }
        case OP_JFALSE_KEEP:
        case OP_JTRUE_KEEP: {
            int t;
            NEED(1);
            t = vm_truth(st[sp - 1]);
            if (t == (op == OP_JTRUE_KEEP)) {
                if (code[pc + 1] <= pc || code[pc + 1] >= n)
                    goto bad;
                pc = code[pc + 1];
            } else {
                sp--;
                pc += 2;
            }
            break;
        }
        case OP_JFALSE_POP:
            NEED(1);
            sp--;
            if (!vm_truth(st[sp])) {
                if (code[pc + 1] <= pc || code[pc + 1] >= n)
                    goto bad;
                pc = code[pc + 1];
            } else {
                pc += 2;
            }
            break;
        case OP_JUMP:
            if (code[pc + 1] <= pc || code[pc + 1] >= n)
                goto bad;
            pc = code[pc + 1];
            break;
        case OP_RET:
            NEED(1);
            res->status = VM_OK;
            res->pc = at;
            res->result = st[sp - 1];
            return VM_OK;
        case OP_STORE:
        case OP_TEE:
            NEED(1);
            if (code[pc + 1] < 0 || code[pc + 1] >= VM_NLOCALS)
                goto bad;
            locals[code[pc + 1]] = op == OP_TEE ? st[sp - 1] : st[--sp];
            stored |= 1U << code[pc + 1];
            pc += 2;
            break;
        case OP_LOAD:
            if (code[pc + 1] < 0 || code[pc + 1] >= VM_NLOCALS || sp >= VM_STACK)
                goto bad;
            if ((stored >> code[pc + 1]) & 1U) {
                st[sp++] = locals[code[pc + 1]];
            } else {
                st[sp].tag = T_NONE;
                st[sp++].v = 0;
            }
            pc += 2;
            break;
        case OP_FLAG:
        case OP_PREVFLAG:
        case OP_COUNTER:
        case OP_PREVCOUNTER: {
            vm_value x;
            int f = code[pc + 1];
            NEED(1);
            if (f < 0 || f >= (op == OP_COUNTER || op == OP_PREVCOUNTER ? VM_NCOUNTERS : VM_NFLAGS))
                goto bad;
            x = st[--sp];
            if (op == OP_COUNTER || op == OP_PREVCOUNTER) {
                int ok = (x.tag == T_INT || x.tag == T_BOOL) && vm_seat_ok(c, x.v);
                PUSH(T_INT, !ok ? 0 : op == OP_COUNTER ? c->counters[f][x.v] : c->prev_counters[f][x.v]);
            } else {
                uint32_t bits = op == OP_FLAG ? c->flag_bits[f] : c->prev_flag_bits[f];
                int ok = (x.tag == T_INT || x.tag == T_BOOL) && vm_seat_ok(c, x.v);
                PUSH(T_BOOL, ok && ((bits >> x.v) & 1U));
            }
            pc += 2;
            break;
        }
        case OP_INMASK: {
            vm_value x;
            uint64_t mask = (uint64_t)(uint32_t)code[pc + 2] | ((uint64_t)(uint32_t)code[pc + 3] << 32);
            int want_rank = code[pc + 1] == 0, in;
            NEED(1);
            x = st[--sp];
            if (want_rank)
                in = x.tag == T_RANK && x.v >= 0 && x.v < 64 && ((mask >> x.v) & 1U);
            else
                in = (x.tag == T_INT || x.tag == T_BOOL) && x.v >= 0 && x.v < 64 && ((mask >> x.v) & 1U);
            PUSH(T_BOOL, in);
            pc += 4;
            break;
        }
        case OP_LISTFN: {
            vm_value x, l;
            int items[G_MAX_SEATS], n_ = 0, k, fn = code[pc + 1];
            int64_t s, t2;
            NEED(1);
            x = st[--sp];
            if (fn < 0 || fn >= LFN_N)
                goto bad;
            if (x.tag != T_NONE) {
                if ((x.tag != T_INT && x.tag != T_BOOL) || !vm_seat_ok(c, x.v))
                    goto domain;
                s = x.v;
                if (fn == LFN_TEAM_SEATS) {
                    for (t2 = 1; t2 <= c->n_seats; t2++)
                        if (vm_floormod(t2 - 1, c->n_teams) == vm_floormod(s - 1, c->n_teams))
                            items[n_++] = (int)t2;
                } else {
                    for (k = 1; k < c->n_seats; k++) {
                        int same;
                        t2 = (s - 1 + k) % c->n_seats + 1;
                        same = vm_floormod(t2 - 1, c->n_teams) == vm_floormod(s - 1, c->n_teams);
                        if (fn == LFN_AFTER || (fn == LFN_TEAMMATES && same) || (fn == LFN_OPPONENTS && !same))
                            items[n_++] = (int)t2;
                    }
                }
                for (k = 0; k < n_; k++)
                    if (items[k] > 14)
                        goto domain;
            }
            l = vm_make_list(items, n_);
            if (l.tag != T_LIST)
                goto domain;
            if (sp >= VM_STACK)
                goto bad;
            st[sp++] = l;
            pc += 2;
            break;
        }
        case OP_SETLIST: {
            int set = code[pc + 1], items[G_MAX_SEATS], k, n_;
            vm_value l;
            if (set < 0 || set >= SET_N)
                goto bad;
            n_ = c->set_count[set];
            if (n_ < 0 || n_ > G_MAX_SEATS)
                goto bad;
            for (k = 0; k < n_; k++) {
                items[k] = c->set_order[set][k];
                if (items[k] < 0 || items[k] > 14)
                    goto domain;
            }
            l = vm_make_list(items, n_);
            if (l.tag != T_LIST)
                goto domain;
            if (sp >= VM_STACK)
                goto bad;
            st[sp++] = l;
            pc += 2;
            break;
        }
        case OP_MKLIST: {
            int k = code[pc + 1], items[VM_LIST_MAX], i;
            vm_value l;
            if (k < 0 || k > VM_LIST_MAX)
                goto bad;
            NEED(k);
            for (i = 0; i < k; i++) {
                items[i] = vm_to_item(st[sp - k + i]);
                if (items[i] < 0)
                    goto domain;
            }
            sp -= k;
            l = vm_make_list(items, k);
            if (l.tag != T_LIST)
                goto domain;
            st[sp++] = l;
            pc += 2;
            break;
        }
        case OP_LEN:
        case OP_FIRST: {
            vm_value x;
            NEED(1);
            x = st[--sp];
            if (x.tag != T_LIST && x.tag != T_NONE)
                goto domain;
            if (op == OP_LEN)
                PUSH(T_INT, x.tag == T_LIST ? vm_list_len(x) : 0);
            else if (x.tag == T_LIST && vm_list_len(x) > 0) {
                if (sp >= VM_STACK)
                    goto bad;
                st[sp++] = vm_from_item(vm_list_item(x, 0));
            } else
                PUSH(T_NONE, 0);
            pc += 1;
            break;
        }
        case OP_INLIST: {
            vm_value l, x;
            int it, k, in = 0;
            NEED(2);
            l = st[--sp];
            x = st[--sp];
            if (l.tag != T_LIST && l.tag != T_NONE)
                goto domain;
            it = vm_to_item(x);
            if (l.tag == T_LIST && it >= 0)
                for (k = 0; k < vm_list_len(l); k++)
                    if (vm_list_item(l, k) == it)
                        in = 1;
            if (it < 0 && (x.tag == T_INT || x.tag == T_BOOL))
                in = 0;  /* (a number no list item can be) */
            PUSH(T_BOOL, in);
            pc += 1;
            break;
        }
        case OP_SORTEDPLACES:
        case OP_ACTIVEOF: {
            vm_value x, l;
            int items[VM_LIST_MAX], n_ = 0, k, i;
            NEED(1);
            x = st[--sp];
            if (x.tag != T_LIST && x.tag != T_NONE)
                goto domain;
            for (k = 0; x.tag == T_LIST && k < vm_list_len(x); k++) {
                int s = vm_list_item(x, k);
                if (op == OP_ACTIVEOF) {
                    if (s != 15 && s != 0 && vm_is_active(c, s))
                        items[n_++] = s;
                } else if (s != 15 && vm_seat_ok(c, s) && c->place[s] > 0) {
                    if (c->place[s] > 14)
                        goto domain;
                    items[n_++] = c->place[s];
                }
            }
            if (op == OP_SORTEDPLACES)
                for (k = 1; k < n_; k++)  /* insertion sort: at most 14 items */
                    for (i = k; i > 0 && items[i - 1] > items[i]; i--) {
                        int tmp = items[i];
                        items[i] = items[i - 1];
                        items[i - 1] = tmp;
                    }
            l = vm_make_list(items, n_);
            if (l.tag != T_LIST)
                goto domain;
            if (sp >= VM_STACK)
                goto bad;
            st[sp++] = l;
            pc += 1;
            break;
        }
        case OP_COALESCE: {
            vm_value a, b2;
            NEED(2);
            b2 = st[--sp];
            a = st[--sp];
            st[sp++] = a.tag != T_NONE ? a : b2;
            pc += 1;
            break;
        }
        case OP_DEALT: {
            vm_value r, s;
            NEED(2);
            r = st[--sp];
            s = st[--sp];
            if (s.tag == T_NONE || r.tag == T_NONE || r.tag == T_TEXT) {
                PUSH(T_INT, 0);
            } else {
                if (r.tag != T_RANK || r.v < 0 || r.v >= c->n_kinds || (s.tag != T_INT && s.tag != T_BOOL) || !vm_seat_ok(c, s.v))
                    goto domain;
                PUSH(T_INT, c->dealt[s.v][r.v]);
            }
            pc += 1;
            break;
        }
        case OP_SUMKINDS: {
            vm_value s;
            uint64_t mask = (uint64_t)(uint32_t)code[pc + 2] | ((uint64_t)(uint32_t)code[pc + 3] << 32);
            int64_t sum = 0;
            int k;
            NEED(1);
            s = st[--sp];
            if (s.tag != T_NONE) {
                if ((s.tag != T_INT && s.tag != T_BOOL) || !vm_seat_ok(c, s.v))
                    goto domain;
                for (k = 0; k < c->n_kinds && k < 64; k++)
                    if ((mask >> k) & 1U)
                        sum += code[pc + 1] ? c->dealt[s.v][k] : c->hands[s.v][k];
            }
            PUSH(T_INT, sum);
            pc += 4;
            break;
        }
        case OP_WITHATLEAST: {
            vm_value k, r, l, out;
            int items[VM_LIST_MAX], n_ = 0, i;
            NEED(3);
            k = st[--sp];
            r = st[--sp];
            l = st[--sp];
            if (l.tag != T_NONE && l.tag != T_LIST)
                goto domain;
            if (l.tag == T_LIST && r.tag != T_NONE && k.tag != T_NONE) {
                if ((k.tag != T_INT && k.tag != T_BOOL) || (r.tag != T_RANK && r.tag != T_TEXT))
                    goto domain;
                for (i = 0; i < vm_list_len(l); i++) {
                    int s = vm_list_item(l, i), held;
                    if (s == 15 || s == 0)
                        continue;
                    if (!vm_seat_ok(c, s))
                        goto domain;
                    held = r.tag == T_RANK && r.v >= 0 && r.v < c->n_kinds ? c->hands[s][r.v] : 0;
                    if (held >= k.v)
                        items[n_++] = s;
                }
            }
            out = vm_make_list(items, n_);
            if (out.tag != T_LIST)
                goto domain;
            if (sp >= VM_STACK)
                goto bad;
            st[sp++] = out;
            pc += 1;
            break;
        }
        case OP_FIRSTHELD: {
            vm_value s;
            int m = code[pc + 1], k, found = -1;
            NEED(1);
            if (m < 0 || m > 10)
                goto bad;
            s = st[--sp];
            if (s.tag == T_NONE) {
                PUSH(T_NONE, 0);
                pc += 4;
                break;
            }
            if ((s.tag != T_INT && s.tag != T_BOOL) || !vm_seat_ok(c, s.v))
                goto domain;
            for (k = 0; k < m && found < 0; k++) {
                int kind = (int)(((uint32_t)code[pc + 2 + k / 5] >> (6 * (k % 5))) & 63U);
                if (kind >= c->n_kinds)
                    goto bad;
                if (c->hands[s.v][kind] - c->received[s.v][kind] > 0)
                    found = kind;
            }
            if (found >= 0)
                PUSH(T_RANK, found);
            else
                PUSH(T_NONE, 0);
            pc += 4;
            break;
        }
        case OP_MAPGET: {
            vm_value key;
            int m = code[pc + 1], k, found = -1;
            NEED(1);
            if (m < 0 || m > VM_MAP_MAX)
                goto bad;
            key = st[--sp];
            if (key.tag == T_NONE) {
                PUSH(T_NONE, 0);
                pc += 2 + 4 * VM_MAP_MAX;
                break;
            }
            for (k = 0; k < m && found < 0; k++) {
                int kt = code[pc + 2 + 4 * k];
                int64_t kv = code[pc + 3 + 4 * k];
                if (kt == T_INT ? ((key.tag == T_INT || key.tag == T_BOOL) && key.v == kv) : (key.tag == kt && key.v == kv))
                    found = k;
            }
            if (found < 0) {
                res->status = VM_MISSING_KEY;
                res->result = key;
                { res->pc = at; return res->status; }
            }
            PUSH(code[pc + 4 + 4 * found], code[pc + 5 + 4 * found]);
            pc += 2 + 4 * VM_MAP_MAX;
            break;
        }
        case OP_FEWEST: {
            vm_value x, l;
            int items[VM_LIST_MAX], size[VM_LIST_MAX], n_ = 0, k, i, j;
            NEED(1);
            x = st[--sp];
            if (x.tag != T_LIST && x.tag != T_NONE)
                goto domain;
            for (k = 0; x.tag == T_LIST && k < vm_list_len(x); k++) {
                int s = vm_list_item(x, k), sum = 0;
                if (s == 15 || s == 0)
                    continue;
                if (!vm_seat_ok(c, s))
                    goto domain;
                for (j = 0; j < c->n_kinds; j++)
                    sum += c->hands[s][j];
                items[n_] = s;
                size[n_++] = sum;
            }
            for (k = 1; k < n_; k++)  /* insertion sort: stable, at most 14 items */
                for (i = k; i > 0 && size[i - 1] > size[i]; i--) {
                    int t1 = items[i], t2 = size[i];
                    items[i] = items[i - 1];
                    size[i] = size[i - 1];
                    items[i - 1] = t1;
                    size[i - 1] = t2;
                }
            l = vm_make_list(items, n_);
            if (l.tag != T_LIST)
                goto domain;
            st[sp++] = l;
            pc += 1;
            break;
        }
        case OP_SUMPLACES: {
            vm_value x;
            int m = code[pc + 1], k, e;
            int64_t total = 0;
            NEED(1);
            if (m < 0 || m > VM_MAP_MAX)
                goto bad;
            x = st[--sp];
            if (x.tag != T_LIST && x.tag != T_NONE)
                goto domain;
            for (k = 0; x.tag == T_LIST && k < vm_list_len(x); k++) {
                int s = vm_list_item(x, k), found = -1;
                if (s == 15 || !vm_seat_ok(c, s) || c->place[s] <= 0)
                    continue;  /* (none, a number that is no seat, an unplaced seat: no place) */
                for (e = 0; e < m && found < 0; e++)
                    if (code[pc + 2 + 2 * e] == c->place[s])
                        found = e;
                if (found < 0) {
                    res->status = VM_MISSING_PLACE;
                    res->result.tag = T_INT;
                    res->result.v = c->place[s];
                    { res->pc = at; return res->status; }
                }
                total += code[pc + 3 + 2 * found];
            }
            PUSH(T_INT, total);
            pc += 2 + 2 * VM_MAP_MAX;
            break;
        }
        case OP_RANDSEAT: {
            uint64_t v;
            if (c->rng == NULL)
                goto domain;
            if (mt_randbelow(c->rng, (uint64_t)c->n_seats, &v) < 0)
                goto bad;
            PUSH(T_INT, (int64_t)v + 1);
            pc += 1;
            break;
        }
        case OP_SHOWN: {
            vm_value k, r;
            int s, best = 0;
            int64_t best_n = 0, best_t = 0;
            NEED(2);
            k = st[--sp];
            r = st[--sp];
            if (k.tag == T_NONE || r.tag == T_NONE) {
                PUSH(T_NONE, 0);
                pc += 1;
                break;
            }
            if ((k.tag != T_INT && k.tag != T_BOOL) || (r.tag != T_RANK && r.tag != T_TEXT))
                goto domain;
            for (s = 1; s <= c->n_seats; s++) {
                int64_t n_ = 0, t_ = 0;
                if (r.tag == T_RANK) {
                    if (r.v < 0 || r.v >= c->n_kinds)
                        goto bad;
                    n_ = c->shown_n[s][r.v];
                    t_ = c->shown_t[s][r.v];
                }
                if (n_ >= k.v && (best == 0 || n_ > best_n || (n_ == best_n && t_ < best_t))) {
                    best = s;
                    best_n = n_;
                    best_t = t_;
                }
            }
            if (best)
                PUSH(T_INT, best);
            else
                PUSH(T_NONE, 0);
            pc += 1;
            break;
        }
        case OP_RECEIVED: {
            vm_value r, s;
            NEED(2);
            r = st[--sp];
            s = st[--sp];
            if (s.tag == T_NONE || r.tag == T_NONE || r.tag == T_TEXT) {
                PUSH(T_INT, 0);  /* (a word that is no kind was never received) */
            } else {
                if (r.tag != T_RANK || r.v < 0 || r.v >= c->n_kinds || (s.tag != T_INT && s.tag != T_BOOL) || !vm_seat_ok(c, s.v))
                    goto domain;
                PUSH(T_INT, c->received[s.v][r.v]);
            }
            pc += 1;
            break;
        }
        case OP_PREVBURNS: {
            vm_value t, s;
            int which = code[pc + 1];
            NEED(2);
            if (which < 0 || which > 1)
                goto bad;
            t = st[--sp];
            s = st[--sp];
            if (s.tag == T_NONE || t.tag == T_NONE) {
                PUSH(T_INT, 0);
            } else {
                if ((s.tag != T_INT && s.tag != T_BOOL) || (t.tag != T_INT && t.tag != T_BOOL))
                    goto domain;
                /* (a number that is no seat burned nobody) */
                PUSH(T_INT, vm_seat_ok(c, s.v) && vm_seat_ok(c, t.v) ? c->prev_burns[which][s.v][t.v] : 0);
            }
            pc += 2;
            break;
        }
        case OP_FLAGGED: {
            vm_value x, l;
            int items[VM_LIST_MAX], n_ = 0, k, f = code[pc + 1];
            NEED(1);
            if (f < 0 || f >= VM_NFLAGS)
                goto bad;
            x = st[--sp];
            if (x.tag != T_LIST && x.tag != T_NONE)
                goto domain;
            for (k = 0; x.tag == T_LIST && k < vm_list_len(x); k++) {
                int s = vm_list_item(x, k);
                if (s != 15 && vm_seat_ok(c, s) && ((c->flag_bits[f] >> s) & 1U))
                    items[n_++] = s;
            }
            l = vm_make_list(items, n_);
            if (l.tag != T_LIST)
                goto domain;
            st[sp++] = l;
            pc += 2;
            break;
        }
        case OP_NEXTWITHOUT: {
            vm_value x;
            int64_t s, t;
            int f = code[pc + 1], k, found = 0;
            NEED(1);
            if (f < 0 || f >= VM_NFLAGS)
                goto bad;
            x = st[--sp];
            if (x.tag == T_NONE) {
                PUSH(T_NONE, 0);
                pc += 2;
                break;
            }
            if ((x.tag != T_INT && x.tag != T_BOOL) || !vm_seat_ok(c, x.v))
                goto domain;
            s = x.v;
            for (k = 1; k < c->n_seats && !found; k++) {
                t = (s - 1 + k) % c->n_seats + 1;
                if (vm_is_active(c, t) && !((c->flag_bits[f] >> t) & 1U)) {
                    PUSH(T_INT, t);
                    found = 1;
                }
            }
            if (!found)
                PUSH(T_NONE, 0);
            pc += 2;
            break;
        }
        case OP_MAXDEALT: {
            vm_value r, l;
            int64_t best = 0;
            int k, first = 1;
            NEED(2);
            r = st[--sp];
            l = st[--sp];
            if (l.tag != T_NONE && l.tag != T_LIST)
                goto domain;
            if (l.tag == T_LIST && r.tag != T_NONE) {
                if (r.tag != T_RANK && r.tag != T_TEXT)
                    goto domain;
                for (k = 0; k < vm_list_len(l); k++) {
                    int s = vm_list_item(l, k);
                    int64_t d;
                    if (s == 15 || !vm_seat_ok(c, s))
                        goto domain;  /* (the interpreter has no hand for it) */
                    d = r.tag == T_RANK && r.v >= 0 && r.v < c->n_kinds ? c->dealt[s][r.v] : 0;
                    if (first || d > best)
                        best = d;
                    first = 0;
                }
            }
            PUSH(T_INT, best);
            pc += 1;
            break;
        }
        case OP_ATLEAST: {
            vm_value r, s;
            int which = code[pc + 1], k;
            int64_t sum = 0;
            NEED(2);
            if (which < 0 || which > 1)
                goto bad;
            r = st[--sp];
            s = st[--sp];
            if (s.tag != T_NONE && r.tag != T_NONE) {
                if ((s.tag != T_INT && s.tag != T_BOOL) || !vm_seat_ok(c, s.v) || (r.tag != T_RANK && r.tag != T_TEXT))
                    goto domain;
                for (k = r.tag == T_RANK ? (int)r.v : c->n_kinds; k >= 0 && k < c->n_kinds; k++)
                    sum += which ? c->dealt[s.v][k] : c->hands[s.v][k];
            }
            PUSH(T_INT, sum);
            pc += 2;
            break;
        }
        case OP_MINATLEAST: {
            vm_value r;
            int64_t best = 0;
            int k, s;
            NEED(1);
            r = st[--sp];
            if (r.tag != T_NONE) {
                if (r.tag != T_RANK && r.tag != T_TEXT)
                    goto domain;
                for (s = 1; s <= c->n_seats; s++) {
                    int64_t sum = 0;
                    for (k = r.tag == T_RANK ? (int)r.v : c->n_kinds; k >= 0 && k < c->n_kinds; k++)
                        sum += c->dealt[s][k];
                    if (s == 1 || sum < best)
                        best = sum;
                }
            }
            PUSH(T_INT, best);
            pc += 1;
            break;
        }
        case OP_FIRSTHOLDING:
        case OP_WITHHELD: {
            vm_value x;
            int m = code[pc + 1], k, i, items[VM_LIST_MAX], n_ = 0, seats[VM_LIST_MAX], ns = 0;
            NEED(1);
            if (m < 0 || m > 10)
                goto bad;
            x = st[--sp];
            if (op == OP_FIRSTHOLDING) {
                if (x.tag == T_NONE) {
                    PUSH(T_NONE, 0);
                    pc += 4;
                    break;
                }
                if ((x.tag != T_INT && x.tag != T_BOOL) || !vm_seat_ok(c, x.v))
                    goto domain;
                seats[ns++] = (int)x.v;
            } else {
                if (x.tag != T_LIST && x.tag != T_NONE)
                    goto domain;
                for (i = 0; x.tag == T_LIST && i < vm_list_len(x); i++) {
                    int s = vm_list_item(x, i);
                    if (s == 15 || s == 0)
                        continue;  /* (a none or 0 item is skipped: `if s`) */
                    if (!vm_seat_ok(c, s))
                        goto domain;
                    seats[ns++] = s;
                }
            }
            for (i = 0; i < ns; i++) {
                int found = -1;
                for (k = 0; k < m && found < 0; k++) {
                    int kind = (int)(((uint32_t)code[pc + 2 + k / 5] >> (6 * (k % 5))) & 63U);
                    if (kind >= c->n_kinds)
                        goto bad;
                    if (op == OP_FIRSTHOLDING ? c->hands[seats[i]][kind] > 0
                                              : c->hands[seats[i]][kind] - c->received[seats[i]][kind] > 0)
                        found = kind;
                }
                if (op == OP_FIRSTHOLDING) {
                    if (found >= 0)
                        PUSH(T_RANK, found);
                    else
                        PUSH(T_NONE, 0);
                } else if (found >= 0)
                    items[n_++] = seats[i];
            }
            if (op == OP_WITHHELD) {
                vm_value l = vm_make_list(items, n_);
                if (l.tag != T_LIST)
                    goto domain;
                st[sp++] = l;
            }
            pc += 4;
            break;
        }
        case OP_LISTITEM: {
            vm_value key, l;
            int64_t len, i;
            NEED(2);
            key = st[--sp];
            l = st[--sp];
            if (l.tag == T_NONE || key.tag == T_NONE) {
                PUSH(T_NONE, 0);
                pc += 1;
                break;
            }
            if (l.tag != T_LIST)
                goto domain;
            if (key.tag != T_INT) {  /* (a bool is no list index: "a list is indexed by a number") */
                res->status = VM_BAD_INDEX;
                res->result = key;
                { res->pc = at; return res->status; }
            }
            len = vm_list_len(l);
            i = key.v < 0 ? key.v + len : key.v;
            if (key.v < -len || key.v >= len || i < 0 || i >= len) {
                res->status = VM_MISSING_ITEM;
                res->result = key;
                res->aux = l;
                { res->pc = at; return res->status; }
            }
            if (sp >= VM_STACK)
                goto bad;
            st[sp++] = vm_from_item(vm_list_item(l, (int)i));
            pc += 1;
            break;
        }
        case OP_CARDSOF: {
            vm_value r;
            int p = code[pc + 1];
            NEED(1);
            if (p < 0 || p >= VM_NPLAYS)
                goto bad;
            r = st[--sp];
            if (!c->play_present[p] || r.tag == T_NONE || r.tag == T_TEXT) {
                PUSH(T_INT, 0);
            } else {
                if (r.tag != T_RANK || r.v < 0 || r.v >= c->n_kinds)
                    goto domain;
                PUSH(T_INT, c->play_counts[p][r.v]);
            }
            pc += 2;
            break;
        }
        case OP_TEXTS: {
            int m = code[pc + 1], k;
            uint64_t w;
            if (m < 0 || m > VM_TLIST_MAX)
                goto bad;
            w = (uint64_t)m;
            for (k = 0; k < m; k++)
                w |= (uint64_t)(code[pc + 2 + k] & 255) << (4 + 8 * k);
            PUSH(T_TLIST, (int64_t)w);
            pc += 2 + VM_TLIST_MAX;
            break;
        }
        default:
            goto bad;
        }
    }
bad:
    res->status = VM_BAD;
    res->pc = at;
    res->result.tag = T_NONE;
    res->result.v = 0;
    return VM_BAD;
domain:
    res->status = VM_DOMAIN;
    res->pc = at;
    res->result.tag = T_NONE;
    res->result.v = 0;
    return VM_DOMAIN;
#undef PUSH
#undef NEED
}

/* vm_exec's result as a value (the whole vm_result filled). */
static inline vm_result vm_run(const int32_t *code, int n, const vm_ctx *c)
{
    vm_result res;
    res.pc = 0;
    res.result.tag = T_NONE;
    res.result.v = 0;
    (void)vm_exec(code, n, c, &res);
    return res;
}

/* ------------------------------------------------------------------------------ hooks */
/* A hook's rules as the rule graph asks them (gouji_dsl/ruleset/graph.py: permit, value). Each
 * rule: an optional guard (`when`) and its effect program. Permit: the default, then in order:
 * a rule whose guard holds grants (allow: a true value), forbids (deny: true; require: false) —
 * the first forbidding rule answers false at once. Value: the last rule (in order) whose guard
 * holds answers its value; none holds: the default. The programs must have passed vm_verify. */
enum { EFF_ALLOW = 0, EFF_DENY = 1, EFF_REQUIRE = 2, EFF_VALUE = 3 };

typedef struct {
    const int32_t *when;   /* NULL: no guard */
    int when_n;
    const int32_t *code;
    int code_n;
    int effect;            /* EFF_* */
} vm_rule;

typedef struct {
    vm_result r;  /* the answer (VM_OK), or the failure of the rule */
    int rule;     /* the rule that answered or failed (-1: none; the default) */
    int in_when;  /* the failure was in the rule's guard */
} vm_hook_result;

static inline vm_hook_result vm_permit(const vm_rule *rules, int n, int deflt, const vm_ctx *c)
{
    vm_hook_result out;
    vm_result v;  /* (one per hook: vm_exec writes its value, or its failure) */
    int i, granted = deflt != 0;
    out.rule = -1;
    out.in_when = 0;
    out.r.status = VM_OK;
    out.r.pc = 0;
    out.r.aux.tag = T_NONE;
    out.r.aux.v = 0;
    for (i = 0; i < n; i++) {
        int t;
        if (rules[i].when != NULL) {
            if (vm_exec(rules[i].when, rules[i].when_n, c, &v) != VM_OK) {
                out.r = v;
                out.rule = i;
                out.in_when = 1;
                return out;
            }
            if (!vm_truth(v.result))
                continue;
        }
        if (vm_exec(rules[i].code, rules[i].code_n, c, &v) != VM_OK) {
            out.r = v;
            out.rule = i;
            return out;
        }
        t = vm_truth(v.result);
        if (rules[i].effect == EFF_ALLOW) {
            if (t)
                granted = 1;
        } else if ((rules[i].effect == EFF_DENY && t) || (rules[i].effect == EFF_REQUIRE && !t)) {
            out.r.result.tag = T_BOOL;
            out.r.result.v = 0;
            out.rule = i;
            return out;
        } else if (rules[i].effect != EFF_DENY && rules[i].effect != EFF_REQUIRE && rules[i].effect != EFF_ALLOW) {
            out.r.status = VM_BAD;
            out.rule = i;
            return out;
        }
    }
    out.r.result.tag = T_BOOL;
    out.r.result.v = granted;
    return out;
}

static inline vm_hook_result vm_value_of(const vm_rule *rules, int n, vm_value deflt, const vm_ctx *c)
{
    vm_hook_result out;
    vm_result v;
    int i;
    out.rule = -1;
    out.in_when = 0;
    out.r.status = VM_OK;
    out.r.pc = 0;
    out.r.aux.tag = T_NONE;
    out.r.aux.v = 0;
    for (i = n - 1; i >= 0; i--) {
        if (rules[i].when != NULL) {
            if (vm_exec(rules[i].when, rules[i].when_n, c, &v) != VM_OK) {
                out.r = v;
                out.rule = i;
                out.in_when = 1;
                return out;
            }
            if (!vm_truth(v.result))
                continue;
        }
        out.r = vm_run(rules[i].code, rules[i].code_n, c);
        out.rule = i;
        return out;
    }
    out.r.result = deflt;
    return out;
}

#endif /* GOUJI_VM_H */
