/*
 * A bot for arena in C (libc only), speaking the seat protocol: one JSON object per line on
 * stdin, one reply per line on stdout (docs/protocol.md).
 *
 * It plays exactly like arena's built-in `threshold` (bank_at=300, min_dice=3 by default):
 * keep the most points (avoiding a keep that passes an exact target, where one does not),
 * and bank once the turn reaches BANK_AT points, or fewer than MIN_DICE dice are left to roll,
 * or banking reaches the target, whenever the rules allow it.
 *
 *     cc -O2 -o threshold_bot strategies/external/threshold_bot.c
 *     arena tournament -p 'cmd:./threshold_bot' -p greedy --games 200
 *
 * Usage: threshold_bot [BANK_AT [MIN_DICE [NAME]]].  NAME (default `threshold-bot`) is the name
 * it plays under; the dice of a game derive from the players' names, so
 * `threshold_bot 300 3 threshold:bank_at=300,min_dice=3` gives exactly the games of the
 * built-in `threshold` (tests/test_external_bots.py checks that).
 *
 * The JSON scanner below is made for the protocol's messages, not for JSON at large:
 * - it looks a key up among the members of one object (at any depth it is handed), skipping
 *   other values whole: strings (with any escapes), numbers, true/false/null, nested arrays
 *   and objects, so text in the ruleset's name or description can't be mistaken for a key;
 * - keys are compared byte for byte, without decoding escapes (the protocol's keys are plain);
 * - numbers are read as whole numbers (strtol): no fractions or exponents, which the
 *   messages it reads (turn, game_start) never hold where it looks;
 * - it checks only what it reads: a malformed message is answered with an error reply, and
 *   its tolerance of malformed JSON elsewhere in a line is not a feature.
 * Lines of any length are read with getline.  Anything written to stderr goes to the run's
 * seat-logs/ folder, never to the terminal.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DICE 6
#define MAX_KEEPS 64 /* a roll of six dice has far fewer legal keeps */
#define MAX_SEATS 64

static long bank_at = 300;
static long min_dice = 3;
static const char *name = "threshold-bot";
/* From game_start: the target and whether it must be hit exactly. */
static long target = 10000;
static int exact_target = 0;

/* ------------------------------------------------------------------ the JSON scanner */
static const char *skip_ws(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
    return p;
}

/* p at an opening quote: returns just past the closing one, or NULL. */
static const char *skip_string(const char *p) {
    for (p++; *p; p++) {
        if (*p == '\\') {
            if (!*++p) return NULL;
        } else if (*p == '"') {
            return p + 1;
        }
    }
    return NULL;
}

/* p at any value: returns just past it, or NULL if it is not one. */
static const char *skip_value(const char *p) {
    p = skip_ws(p);
    if (*p == '"') return skip_string(p);
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        p = skip_ws(p + 1);
        if (*p == close) return p + 1;
        for (;;) {
            if (close == '}') { /* a member: "key": value */
                if (*p != '"' || !(p = skip_string(p))) return NULL;
                p = skip_ws(p);
                if (*p++ != ':') return NULL;
            }
            if (!(p = skip_value(p))) return NULL;
            p = skip_ws(p);
            if (*p == close) return p + 1;
            if (*p++ != ',') return NULL;
            p = skip_ws(p);
        }
    }
    if (*p == '-' || (*p >= '0' && *p <= '9')) {
        p++;
        while ((*p >= '0' && *p <= '9') || *p == '.' || *p == 'e' || *p == 'E' || *p == '+' || *p == '-') p++;
        return p;
    }
    if (!strncmp(p, "true", 4)) return p + 4;
    if (!strncmp(p, "false", 5)) return p + 5;
    if (!strncmp(p, "null", 4)) return p + 4;
    return NULL;
}

/* obj at '{': the value of member `key` (whitespace skipped), or NULL if there is none. */
static const char *member(const char *obj, const char *key) {
    size_t len = strlen(key);
    const char *p = skip_ws(obj);
    if (*p != '{') return NULL;
    p = skip_ws(p + 1);
    while (*p == '"') {
        const char *end = skip_string(p);
        if (!end) return NULL;
        int match = (size_t)(end - p - 2) == len && !strncmp(p + 1, key, len);
        p = skip_ws(end);
        if (*p++ != ':') return NULL;
        p = skip_ws(p);
        if (match) return p;
        if (!(p = skip_value(p))) return NULL;
        p = skip_ws(p);
        if (*p != ',') return NULL;
        p = skip_ws(p + 1);
    }
    return NULL;
}

/* The whole number `key` of obj into *out; 0 if it is missing or not a number. */
static int int_member(const char *obj, const char *key, long *out) {
    const char *p = member(obj, key);
    char *end;
    if (!p) return 0;
    *out = strtol(p, &end, 10);
    return end != p;
}

/* The true/false `key` of obj into *out; 0 if it is missing or not a boolean. */
static int bool_member(const char *obj, const char *key, int *out) {
    const char *p = member(obj, key);
    if (p && !strncmp(p, "true", 4)) {
        *out = 1;
        return 1;
    }
    if (p && !strncmp(p, "false", 5)) {
        *out = 0;
        return 1;
    }
    return 0;
}

/* Up to `most` whole numbers of the array at p into out; their count, or -1 if malformed. */
static int int_array(const char *p, long *out, int most) {
    int n = 0;
    if (!p || *p != '[') return -1;
    p = skip_ws(p + 1);
    if (*p == ']') return 0;
    for (;;) {
        char *end;
        if (n == most) return -1;
        out[n++] = strtol(p, &end, 10);
        if (end == p) return -1;
        p = skip_ws(end);
        if (*p == ']') return n;
        if (*p++ != ',') return -1;
        p = skip_ws(p);
    }
}

/* True if the string value at p is exactly `text`. */
static int string_is(const char *p, const char *text) {
    size_t len = strlen(text);
    return p && *p == '"' && !strncmp(p + 1, text, len) && p[len + 1] == '"';
}

/* ------------------------------------------------------------------ replies */
static void reply(const char *json) {
    fputs(json, stdout);
    fputc('\n', stdout);
    fflush(stdout); /* arena waits for each reply */
}


/* name as a JSON string: quotes, backslashes and control characters escaped. */
static void put_json_string(const char *s) {
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c < 0x20) printf("\\u%04x", c);
        else putchar(c);
    }
    putchar('"');
}

/* ------------------------------------------------------------------ the strategy */
struct keep {
    long dice[MAX_DICE];
    int n_dice;
    long points, dice_left;
    int bank_allowed, overshoots;
};

/* Answers a turn message with an action; returns NULL, or what is wrong with the message. */
static const char *decide(const char *turn) {
    struct keep keeps[MAX_KEEPS];
    long scores[MAX_SEATS];
    long seat, turn_points;
    int n = 0, n_scores;
    const char *p = member(turn, "legal_keeps");
    if (!p || *p != '[') return "turn: no legal_keeps";
    p = skip_ws(p + 1);
    while (*p == '{') { /* each legal keep, most points first */
        if (n == MAX_KEEPS) return "turn: too many legal keeps";
        struct keep *k = &keeps[n];
        k->n_dice = int_array(member(p, "dice"), k->dice, MAX_DICE);
        if (k->n_dice < 1 || !int_member(p, "points", &k->points) ||
            !int_member(p, "dice_left", &k->dice_left) || !bool_member(p, "bank_allowed", &k->bank_allowed) ||
            !bool_member(p, "overshoots", &k->overshoots))
            return "turn: a malformed legal keep";
        n++;
        if (!(p = skip_value(p))) return "turn: a malformed legal keep";
        p = skip_ws(p);
        if (*p == ',') p = skip_ws(p + 1);
    }
    n_scores = int_array(member(turn, "scores"), scores, MAX_SEATS);
    if (n == 0 || !int_member(turn, "seat", &seat) || !int_member(turn, "turn_points", &turn_points) ||
        seat < 0 || seat >= n_scores)
        return "turn: a malformed message";

    /* The keep with the most points that does not pass an exact target (the first, if all do). */
    struct keep *k = &keeps[0];
    for (int i = 0; i < n; i++)
        if (!keeps[i].overshoots) {
            k = &keeps[i];
            break;
        }
    long total = turn_points + k->points;
    long banked = scores[seat] + total;
    int hits_target = exact_target ? banked == target : banked >= target;
    int bank = (total >= bank_at || k->dice_left < min_dice || hits_target) && k->bank_allowed && !k->overshoots;

    printf("{\"type\":\"action\",\"keep\":[");
    for (int i = 0; i < k->n_dice; i++) printf(i ? ",%ld" : "%ld", k->dice[i]);
    printf("],\"bank\":%s}\n", bank ? "true" : "false");
    fflush(stdout);
    return NULL;
}

/* Answers one message; returns NULL, or why it could not (to be sent as an error reply). */
static const char *answer(const char *message) {
    const char *type = member(message, "type");
    if (string_is(type, "turn")) {
        return decide(message);
    } else if (string_is(type, "game_start")) {
        const char *rules = member(message, "rules");
        if (!rules || !int_member(rules, "target", &target) || !bool_member(rules, "exact_target", &exact_target))
            return "game_start: no rules with target and exact_target";
        reply("{\"type\":\"ready\"}");
    } else if (string_is(type, "game_end")) {
        reply("{\"type\":\"done\"}");
    } else if (string_is(type, "hello")) {
        /* arena's hello says protocol 1 (and lists every version it speaks in "protocols"):
           this bot speaks 1, so it gets no turn_end messages. */
        long protocol = 0;
        if (!int_member(message, "protocol", &protocol) || protocol != 1)
            return "this bot speaks protocol 1";
        fputs("{\"type\":\"hello\",\"protocol\":1,\"name\":", stdout);
        put_json_string(name);
        fputs("}\n", stdout);
        fflush(stdout);
    } else {
        return "unknown message type";
    }
    return NULL;
}

int main(int argc, char **argv) {
    char *line = NULL;
    size_t size = 0;
    if (argc > 1) bank_at = strtol(argv[1], NULL, 10);
    if (argc > 2) min_dice = strtol(argv[2], NULL, 10);
    if (argc > 3) name = argv[3];
    while (getline(&line, &size, stdin) != -1) {
        if (string_is(member(line, "type"), "bye")) break;
        const char *problem = answer(line);
        if (problem) { /* the reasons here need no JSON escapes */
            printf("{\"type\":\"error\",\"reason\":\"%s\"}\n", problem);
            fflush(stdout);
        }
    }
    free(line);
    return 0;
}
