// External scanner for the Slang grammar.
//
// Preprocessor: every directive line becomes extras, `preproc_directive` (the
// `#name` part) and `preproc_arg` (the rest of the line, with `\` line
// continuations and comments, if not empty). Of each `#if` group only one
// branch is parsed, as the Rust parser does: the first branch whose condition
// holds, evaluated like the C preprocessor with the built-in defines and the
// file's own `#define`s (object-like macros with an integer body have that
// value, other defined names are 1, unknown names are 0). The other branches,
// from their directive to the next directive of the group (or through
// `#endif`), become one `preproc_disabled` extra.
//
// Errors the Rust preprocessor reports (`#endif`/`#else` without `#if`, an
// `#if` without `#endif`) produce a token the grammar never accepts, so the
// tree gets an ERROR node too.
//
// Also scanned here, because they need more than a regular expression:
// raw strings `R"delim(...)delim"`, and macros used as declarations: an
// all-caps word alone on its line (`BEGIN_NAMESPACE_FALCOR`), or before a
// declaration (`EXPORT_INLINE float f()`), which the Rust parser accepts too.

#include "tree_sitter/parser.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum TokenType {
  PREPROC_DIRECTIVE,
  PREPROC_ARG,
  PREPROC_DISABLED,
  PREPROC_ERROR,
  RAW_STRING_LITERAL,
  BARE_MACRO,
  MACRO_MODIFIER,
  EMPTY_MACRO,
  OBJECT_MACRO,
  FUNCTION_MACRO,
};

#define MAX_DEPTH 200
#define MAX_DEFINES 48
#define BLOOM_BYTES 32
#define COND_CAP 1024

typedef struct {
  uint32_t hash;
  int32_t value;
  // 1: defined with `value`; 0: `#undef`ined.
  uint8_t defined;
  // Defined as nothing (`#define EXPORT`).
  uint8_t empty;
  // Object-like (no parameter list).
  uint8_t object_like;
} Define;

typedef struct {
  // Pending `preproc_arg` after a `preproc_directive`.
  bool arg_pending;
  // Pending: after the directive line of a branch that is not taken, skip
  // its body (`preproc_disabled`).
  bool skip_pending;
  uint8_t depth;
  uint8_t define_count;
  // For each open `#if` group: whether a branch was taken already.
  bool taken[MAX_DEPTH];
  Define defines[MAX_DEFINES];
  uint8_t bloom[BLOOM_BYTES];
} Scanner;

static inline void advance(TSLexer *lexer) { lexer->advance(lexer, false); }
static inline void skip(TSLexer *lexer) { lexer->advance(lexer, true); }

static bool is_space(int32_t c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v'; }
static bool is_ident_start(int32_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static bool is_ident(int32_t c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }

static uint32_t hash_name(const char *s, int len) {
  uint32_t h = 2166136261u;
  for (int i = 0; i < len; i++) {
    h = (h ^ (uint8_t)s[i]) * 16777619u;
  }
  return h;
}

static void bloom_add(Scanner *s, uint32_t h) {
  unsigned a = h % (BLOOM_BYTES * 8), b = (h >> 16) % (BLOOM_BYTES * 8);
  s->bloom[a / 8] |= (uint8_t)(1u << (a % 8));
  s->bloom[b / 8] |= (uint8_t)(1u << (b % 8));
}

static bool bloom_has(const Scanner *s, uint32_t h) {
  unsigned a = h % (BLOOM_BYTES * 8), b = (h >> 16) % (BLOOM_BYTES * 8);
  return (s->bloom[a / 8] & (1u << (a % 8))) && (s->bloom[b / 8] & (1u << (b % 8)));
}

static Define *find_define(Scanner *s, uint32_t h) {
  for (int i = 0; i < s->define_count; i++) {
    if (s->defines[i].hash == h) {
      return &s->defines[i];
    }
  }
  return NULL;
}

static void set_define(Scanner *s, uint32_t h, bool defined, int32_t value, bool empty, bool object_like) {
  Define *d = find_define(s, h);
  if (!d && s->define_count < MAX_DEFINES) {
    d = &s->defines[s->define_count++];
    d->hash = h;
  }
  if (d) {
    d->defined = defined;
    d->value = value;
    d->empty = empty;
    d->object_like = object_like;
  }
  if (defined) {
    bloom_add(s, h);
  }
}

// Whether `name` is defined; its value in `*value`.
static bool lookup(Scanner *s, const char *name, int len, long *value) {
  static const struct {
    const char *name;
    long value;
  } builtins[] = {
    {"__SLANG__", 1}, {"__SLANG_COMPILER__", 1}, {"__HLSL_VERSION", 2018}, {"SLANG_VERSION_MAJOR", 2026},
  };
  for (unsigned i = 0; i < sizeof builtins / sizeof builtins[0]; i++) {
    if ((int)strlen(builtins[i].name) == len && memcmp(builtins[i].name, name, len) == 0) {
      *value = builtins[i].value;
      return true;
    }
  }
  uint32_t h = hash_name(name, len);
  Define *d = find_define(s, h);
  if (d) {
    *value = d->value;
    return d->defined;
  }
  if (bloom_has(s, h)) {
    *value = 1;
    return true;
  }
  *value = 0;
  return false;
}

// ---------------------------------------------------------------------------
// Directive lines

// Consume the rest of a directive line (not the newline). Returns whether
// anything but whitespace was consumed; copies the text without comments
// into `text` (if given).
static bool consume_line_str(TSLexer *lexer, char *text, int cap, bool mark, bool *unterminated) {
  bool any = false;
  bool in_string = false;
  int n = 0;
#define PUT(ch)                    \
  do {                             \
    if (text && n < cap - 1) {     \
      text[n++] = (char)(ch);      \
    }                              \
  } while (0)
  for (;;) {
    int32_t c = lexer->lookahead;
    if (lexer->eof(lexer) || c == '\n' || c == '\r') {
      break;
    }
    if (c == '\\') {
      advance(lexer);
      if (lexer->lookahead == '\r' || lexer->lookahead == '\n') {
        if (lexer->lookahead == '\r') {
          advance(lexer);
        }
        if (lexer->lookahead == '\n') {
          advance(lexer);
        }
        PUT(' ');
      } else if (in_string && !lexer->eof(lexer)) {
        // An escaped character in a string.
        PUT('\\');
        PUT(lexer->lookahead);
        advance(lexer);
        if (mark) {
          lexer->mark_end(lexer);
        }
      }
      continue;
    }
    if (c == '\'' && !in_string) {
      // A character literal (or an apostrophe in `#error` text).
      advance(lexer);
      while (!lexer->eof(lexer) && lexer->lookahead != '\'' && lexer->lookahead != '\n' && lexer->lookahead != '\r') {
        if (lexer->lookahead == '\\') {
          advance(lexer);
          if (lexer->lookahead == '\n' || lexer->lookahead == '\r') {
            continue;
          }
        }
        advance(lexer);
      }
      if (lexer->lookahead == '\'') {
        advance(lexer);
      }
      any = true;
      if (mark) {
        lexer->mark_end(lexer);
      }
      continue;
    }
    if (c == '"') {
      in_string = !in_string;
    }
    if (c == '/' && !in_string) {
      advance(lexer);
      if (lexer->lookahead == '/') {
        // A line comment ends the line (but a `\` continues it).
        while (!lexer->eof(lexer) && lexer->lookahead != '\n' && lexer->lookahead != '\r') {
          if (lexer->lookahead == '\\') {
            advance(lexer);
            if (lexer->lookahead == '\r') {
              advance(lexer);
            }
          }
          advance(lexer);
        }
        if (mark) {
          lexer->mark_end(lexer);
        }
        break;
      }
      if (lexer->lookahead == '*') {
        advance(lexer);
        bool star = false;
        while (!lexer->eof(lexer)) {
          int32_t d = lexer->lookahead;
          advance(lexer);
          if (star && d == '/') {
            break;
          }
          star = d == '*';
        }
        PUT(' ');
        if (mark) {
          lexer->mark_end(lexer);
        }
        continue;
      }
      any = true;
      PUT('/');
      if (mark) {
        lexer->mark_end(lexer);
      }
      continue;
    }
    any = any || !is_space(c);
    PUT(c);
    advance(lexer);
    if (!is_space(c) && mark) {
      lexer->mark_end(lexer);
    }
  }
  if (text) {
    text[n] = 0;
  }
  if (unterminated) {
    *unterminated = in_string;
  }
#undef PUT
  return any;
}

static bool consume_line(TSLexer *lexer, char *text, int cap, bool mark) {
  return consume_line_str(lexer, text, cap, mark, NULL);
}

// A tiny C preprocessor expression evaluator.
typedef struct {
  const char *p;
  Scanner *s;
} Eval;

static void ev_ws(Eval *e) {
  while (*e->p == ' ' || *e->p == '\t') {
    e->p++;
  }
}

static bool ev_eat(Eval *e, const char *op) {
  ev_ws(e);
  size_t n = strlen(op);
  if (strncmp(e->p, op, n) == 0) {
    // Do not take `<` from `<=` or `=` from `==` etc.
    if (n == 1 && (op[0] == '<' || op[0] == '>' || op[0] == '!') && e->p[1] == '=') {
      return false;
    }
    if (n == 1 && (op[0] == '&' || op[0] == '|') && e->p[1] == op[0]) {
      return false;
    }
    e->p += n;
    return true;
  }
  return false;
}

static long ev_expr(Eval *e, int level);

static long ev_primary(Eval *e) {
  ev_ws(e);
  if (ev_eat(e, "(")) {
    long v = ev_expr(e, 0);
    ev_eat(e, ")");
    return v;
  }
  if (ev_eat(e, "!")) {
    return !ev_primary(e);
  }
  if (ev_eat(e, "-")) {
    return -ev_primary(e);
  }
  if (ev_eat(e, "~")) {
    return ~ev_primary(e);
  }
  if (ev_eat(e, "+")) {
    return ev_primary(e);
  }
  if (*e->p >= '0' && *e->p <= '9') {
    char *end;
    long v = strtol(e->p, &end, 0);
    e->p = end;
    while (is_ident(*e->p)) {
      e->p++;  // suffixes
    }
    return v;
  }
  if (is_ident_start(*e->p)) {
    const char *start = e->p;
    while (is_ident(*e->p)) {
      e->p++;
    }
    int len = (int)(e->p - start);
    long value;
    if (len == 7 && memcmp(start, "defined", 7) == 0) {
      ev_ws(e);
      bool paren = ev_eat(e, "(");
      ev_ws(e);
      const char *n = e->p;
      while (is_ident(*e->p)) {
        e->p++;
      }
      bool d = lookup(e->s, n, (int)(e->p - n), &value);
      if (paren) {
        ev_eat(e, ")");
      }
      return d;
    }
    if (len == 4 && memcmp(start, "true", 4) == 0) {
      return 1;
    }
    lookup(e->s, start, len, &value);
    ev_ws(e);
    if (*e->p == '(') {
      // A function-like macro call: unknown, skip its arguments.
      int depth = 0;
      do {
        if (*e->p == '(') {
          depth++;
        } else if (*e->p == ')') {
          depth--;
        }
        e->p++;
      } while (*e->p && depth > 0);
      return 0;
    }
    return value;
  }
  if (*e->p) {
    e->p++;
  }
  return 0;
}

static long ev_expr(Eval *e, int level) {
  static const char *ops[][6] = {
    {"||", NULL}, {"&&", NULL}, {"|", NULL}, {"^", NULL}, {"&", NULL}, {"==", "!=", NULL},
    {"<=", ">=", "<", ">", NULL}, {"<<", ">>", NULL}, {"+", "-", NULL}, {"*", "/", "%", NULL},
  };
  const int levels = (int)(sizeof ops / sizeof ops[0]);
  if (level >= levels) {
    return ev_primary(e);
  }
  long lhs = ev_expr(e, level + 1);
  for (;;) {
    const char *op = NULL;
    for (int i = 0; ops[level][i]; i++) {
      if (ev_eat(e, ops[level][i])) {
        op = ops[level][i];
        break;
      }
    }
    if (!op) {
      break;
    }
    long rhs = ev_expr(e, level + 1);
    if (!strcmp(op, "||")) lhs = lhs || rhs;
    else if (!strcmp(op, "&&")) lhs = lhs && rhs;
    else if (!strcmp(op, "|")) lhs = lhs | rhs;
    else if (!strcmp(op, "^")) lhs = lhs ^ rhs;
    else if (!strcmp(op, "&")) lhs = lhs & rhs;
    else if (!strcmp(op, "==")) lhs = lhs == rhs;
    else if (!strcmp(op, "!=")) lhs = lhs != rhs;
    else if (!strcmp(op, "<=")) lhs = lhs <= rhs;
    else if (!strcmp(op, ">=")) lhs = lhs >= rhs;
    else if (!strcmp(op, "<")) lhs = lhs < rhs;
    else if (!strcmp(op, ">")) lhs = lhs > rhs;
    else if (!strcmp(op, "<<")) lhs = (rhs >= 0 && rhs < 63) ? lhs << rhs : 0;
    else if (!strcmp(op, ">>")) lhs = (rhs >= 0 && rhs < 63) ? lhs >> rhs : 0;
    else if (!strcmp(op, "+")) lhs = lhs + rhs;
    else if (!strcmp(op, "-")) lhs = lhs - rhs;
    else if (!strcmp(op, "*")) lhs = lhs * rhs;
    else if (!strcmp(op, "/")) lhs = rhs ? lhs / rhs : 0;
    else if (!strcmp(op, "%")) lhs = rhs ? lhs % rhs : 0;
  }
  return lhs;
}

static bool evaluate(Scanner *s, const char *kind, const char *cond) {
  const char *p = cond;
  while (*p == ' ' || *p == '\t') {
    p++;
  }
  if (!strcmp(kind, "ifdef") || !strcmp(kind, "ifndef")) {
    const char *n = p;
    while (is_ident(*p)) {
      p++;
    }
    long value;
    bool d = lookup(s, n, (int)(p - n), &value);
    return !strcmp(kind, "ifdef") ? d : !d;
  }
  Eval e = {p, s};
  return ev_expr(&e, 0) != 0;
}

// Record `#define NAME value` / `#undef NAME`.
static void record_define(Scanner *s, const char *kind, const char *text) {
  const char *p = text;
  while (*p == ' ' || *p == '\t') {
    p++;
  }
  const char *n = p;
  while (is_ident(*p)) {
    p++;
  }
  int len = (int)(p - n);
  if (len == 0) {
    return;
  }
  uint32_t h = hash_name(n, len);
  if (!strcmp(kind, "undef")) {
    set_define(s, h, false, 0, false, false);
    return;
  }
  long value = 1;
  bool empty = false;
  bool object_like = *p != '(';
  if (object_like) {
    while (*p == ' ' || *p == '\t') {
      p++;
    }
    empty = *p == 0;
    const char *v = p;
    if (*v == '(') {
      v++;
    }
    if (*v >= '0' && *v <= '9') {
      value = strtol(v, NULL, 0);
    }
  }
  set_define(s, h, true, (int32_t)value, empty, object_like);
}

// Read `#` and the directive name at the current position (the lexer is at
// `#`). Returns the name length (0 if none).
static int read_directive_name(TSLexer *lexer, char *name, int cap) {
  advance(lexer);  // '#'
  while (is_space(lexer->lookahead)) {
    advance(lexer);
  }
  int n = 0;
  while (is_ident(lexer->lookahead)) {
    if (n < cap - 1) {
      name[n++] = (char)lexer->lookahead;
    }
    advance(lexer);
  }
  name[n] = 0;
  return n;
}

static bool is_if(const char *name) {
  return strcmp(name, "if") == 0 || strcmp(name, "ifdef") == 0 || strcmp(name, "ifndef") == 0;
}

// Skip disabled code from the current position up to (not including) the
// next directive of the current group (`#elif`, `#else`, `#endif`), or
// through its `#endif` if `through_endif`. `nested`: `#if`s already open
// inside the disabled code. Writes the name of the directive it stopped at
// into `stop` (empty at end of file).
static void skip_disabled(TSLexer *lexer, bool through_endif, int nested, char *stop, int cap) {
  bool line_start = nested == 0;
  stop[0] = 0;
  lexer->mark_end(lexer);
  while (!lexer->eof(lexer)) {
    int32_t c = lexer->lookahead;
    if (c == '\n' || c == '\r') {
      advance(lexer);
      lexer->mark_end(lexer);
      line_start = true;
      continue;
    }
    if (is_space(c)) {
      advance(lexer);
      continue;
    }
    if (c == '#' && line_start) {
      char name[16];
      read_directive_name(lexer, name, sizeof name);
      if (is_if(name)) {
        nested++;
      } else if (strcmp(name, "endif") == 0) {
        if (nested == 0) {
          if (through_endif) {
            consume_line(lexer, NULL, 0, false);
            lexer->mark_end(lexer);
          }
          strcpy(stop, "endif");
          return;
        }
        nested--;
      } else if ((strcmp(name, "else") == 0 || strcmp(name, "elif") == 0) && nested == 0 && !through_endif) {
        strncpy(stop, name, cap - 1);
        stop[cap - 1] = 0;
        return;
      }
      consume_line(lexer, NULL, 0, false);
      lexer->mark_end(lexer);
      line_start = false;
      continue;
    }
    line_start = false;
    // Skip the rest of the line.
    while (!lexer->eof(lexer) && lexer->lookahead != '\n' && lexer->lookahead != '\r') {
      advance(lexer);
    }
    lexer->mark_end(lexer);
  }
}

// After `#name` (token end marked after the name): update the state and
// return the directive token.
static bool directive(Scanner *s, TSLexer *lexer, const char *name) {
  // Read the rest of the line (the token itself ends after the name). A
  // `preproc_arg` follows if there is more than a comment.
  char text[COND_CAP];
  bool has_rest = consume_line(lexer, text, sizeof text, false);

  if (is_if(name)) {
    bool take = evaluate(s, name, text);
    if (s->depth < MAX_DEPTH) {
      s->taken[s->depth] = take;
    }
    s->depth++;
    s->skip_pending = !take;
  } else if (strcmp(name, "else") == 0 || strcmp(name, "elif") == 0) {
    if (s->depth == 0) {
      lexer->result_symbol = PREPROC_ERROR;
      return true;
    }
    bool taken = s->depth <= MAX_DEPTH ? s->taken[s->depth - 1] : true;
    if (taken) {
      // Everything up to and including `#endif` is disabled.
      char stop[16];
      skip_disabled(lexer, true, 0, stop, sizeof stop);
      if (stop[0] == 0) {
        lexer->result_symbol = PREPROC_ERROR;
        return true;
      }
      s->depth--;
      lexer->result_symbol = PREPROC_DISABLED;
      return true;
    }
    bool take = true;
    if (strcmp(name, "elif") == 0) {
      take = evaluate(s, "if", text);
    }
    if (take && s->depth <= MAX_DEPTH) {
      s->taken[s->depth - 1] = true;
    }
    s->skip_pending = !take;
  } else if (strcmp(name, "endif") == 0) {
    if (s->depth == 0) {
      lexer->result_symbol = PREPROC_ERROR;
      return true;
    }
    s->depth--;
  } else if (strcmp(name, "define") == 0 || strcmp(name, "undef") == 0) {
    record_define(s, name, text);
  }

  lexer->result_symbol = PREPROC_DIRECTIVE;
  s->arg_pending = has_rest;
  return true;
}

// ---------------------------------------------------------------------------
// Raw strings and macros

static bool scan_raw_string(TSLexer *lexer) {
  // After `R`, at `"`.
  advance(lexer);
  char delim[17];
  int n = 0;
  while (lexer->lookahead != '(') {
    if (lexer->eof(lexer) || n == 16 || lexer->lookahead == '\n' || lexer->lookahead == ')' ||
        lexer->lookahead == '\\' || is_space(lexer->lookahead)) {
      return false;
    }
    delim[n++] = (char)lexer->lookahead;
    advance(lexer);
  }
  advance(lexer);
  for (;;) {
    if (lexer->eof(lexer)) {
      return false;
    }
    if (lexer->lookahead == ')') {
      advance(lexer);
      int i = 0;
      while (i < n && lexer->lookahead == delim[i]) {
        advance(lexer);
        i++;
      }
      if (i == n && lexer->lookahead == '"') {
        advance(lexer);
        lexer->result_symbol = RAW_STRING_LITERAL;
        lexer->mark_end(lexer);
        return true;
      }
      continue;
    }
    advance(lexer);
  }
}

static bool is_caps_word(const char *w, int n) {
  if (n < 2) {
    return false;
  }
  bool upper = false;
  for (int i = 0; i < n; i++) {
    char c = w[i];
    if (c >= 'A' && c <= 'Z') {
      upper = true;
    } else if (!((c >= '0' && c <= '9') || c == '_')) {
      return false;
    }
  }
  return upper;
}

static int read_word(TSLexer *lexer, char *w, int cap) {
  int n = 0;
  while (is_ident(lexer->lookahead)) {
    if (n < cap - 1) {
      w[n++] = (char)lexer->lookahead;
    } else {
      n = cap;  // too long: not interesting
    }
    advance(lexer);
  }
  if (n < cap) {
    w[n] = 0;
  }
  return n;
}

static bool is_statement_keyword(const char *w) {
  return !strcmp(w, "for") || !strcmp(w, "while") || !strcmp(w, "do") || !strcmp(w, "if") || !strcmp(w, "switch") ||
         !strcmp(w, "return");
}

static bool is_decl_keyword(const char *w) {
  static const char *kws[] = {
    "struct", "class", "enum", "interface", "typedef", "typealias", "cbuffer", "tbuffer", "static",
    "const", "inline", "extern", "export", "public", "private", "internal", "groupshared", "uniform", NULL,
  };
  for (int i = 0; kws[i]; i++) {
    if (!strcmp(w, kws[i])) {
      return true;
    }
  }
  return false;
}

// At an all-caps word where a declaration may start: `MACRO` alone on its
// line (BARE_MACRO), or `MACRO` before a declaration (MACRO_MODIFIER).
static bool scan_macro(TSLexer *lexer, const bool *valid_symbols, const char *w, int n, bool object_macro) {
  bool caps = is_caps_word(w, n);
  if (!caps && !object_macro) {
    return false;
  }
  lexer->mark_end(lexer);
  while (is_space(lexer->lookahead)) {
    advance(lexer);
  }
  int32_t c = lexer->lookahead;
  if (lexer->eof(lexer) || c == '\n' || c == '\r' || c == '/') {
    if (c == '/') {
      advance(lexer);
      if (lexer->lookahead != '/' && lexer->lookahead != '*') {
        return false;
      }
    }
    if (valid_symbols[BARE_MACRO] && caps) {
      lexer->result_symbol = BARE_MACRO;
      return true;
    }
    return false;
  }
  if (!is_ident_start(c)) {
    return false;
  }
  char w2[64];
  int n2 = read_word(lexer, w2, sizeof w2);
  if (n2 < (int)sizeof w2 && caps && valid_symbols[BARE_MACRO] && is_statement_keyword(w2)) {
    // A macro standing for an attribute: `UNROLL for (...)`.
    lexer->result_symbol = BARE_MACRO;
    return true;
  }
  if (!valid_symbols[MACRO_MODIFIER]) {
    return false;
  }
  if (n2 < (int)sizeof w2 && is_decl_keyword(w2)) {
    lexer->result_symbol = MACRO_MODIFIER;
    return true;
  }
  // `MACRO Type name (` / `;` / `=` …
  while (is_space(lexer->lookahead)) {
    advance(lexer);
  }
  if (lexer->lookahead == '<') {
    int depth = 0;
    do {
      if (lexer->lookahead == '<') {
        depth++;
      } else if (lexer->lookahead == '>') {
        depth--;
      } else if (lexer->lookahead == ';' || lexer->lookahead == '{' || lexer->lookahead == '\n' || lexer->eof(lexer)) {
        return false;
      }
      advance(lexer);
    } while (depth > 0);
    while (is_space(lexer->lookahead)) {
      advance(lexer);
    }
  }
  if (!is_ident_start(lexer->lookahead)) {
    return false;
  }
  char w3[64];
  int n3 = read_word(lexer, w3, sizeof w3);
  if (n3 < (int)sizeof w3 && is_caps_word(w3, n3)) {
    return false;
  }
  while (is_space(lexer->lookahead)) {
    advance(lexer);
  }
  c = lexer->lookahead;
  // `MACRO Type name` then what can follow a declared name (a macro of the
  // file needs nothing more: `r32f RWTexture1D<float> result`).
  if (object_macro || c == '(' || c == ';' || c == '=' || c == ',' || c == '[' || c == ':' || c == '<' || c == ')') {
    lexer->result_symbol = MACRO_MODIFIER;
    return true;
  }
  return false;
}

// ---------------------------------------------------------------------------

void *tree_sitter_slang_external_scanner_create(void) { return calloc(1, sizeof(Scanner)); }

void tree_sitter_slang_external_scanner_destroy(void *payload) { free(payload); }

unsigned tree_sitter_slang_external_scanner_serialize(void *payload, char *buffer) {
  Scanner *s = (Scanner *)payload;
  unsigned n = 0;
  buffer[n++] = (char)s->arg_pending;
  buffer[n++] = (char)s->skip_pending;
  buffer[n++] = (char)s->depth;
  buffer[n++] = (char)s->define_count;
  memcpy(buffer + n, s->bloom, BLOOM_BYTES);
  n += BLOOM_BYTES;
  memcpy(buffer + n, s->defines, s->define_count * sizeof(Define));
  n += s->define_count * sizeof(Define);
  unsigned depth = s->depth < MAX_DEPTH ? s->depth : MAX_DEPTH;
  memcpy(buffer + n, s->taken, depth);
  n += depth;
  return n;
}

void tree_sitter_slang_external_scanner_deserialize(void *payload, const char *buffer, unsigned length) {
  Scanner *s = (Scanner *)payload;
  memset(s, 0, sizeof(Scanner));
  if (length < 4 + BLOOM_BYTES) {
    return;
  }
  unsigned n = 0;
  s->arg_pending = buffer[n++];
  s->skip_pending = buffer[n++];
  s->depth = (uint8_t)buffer[n++];
  s->define_count = (uint8_t)buffer[n++];
  memcpy(s->bloom, buffer + n, BLOOM_BYTES);
  n += BLOOM_BYTES;
  memcpy(s->defines, buffer + n, s->define_count * sizeof(Define));
  n += s->define_count * sizeof(Define);
  unsigned depth = s->depth < MAX_DEPTH ? s->depth : MAX_DEPTH;
  if (n + depth <= length) {
    memcpy(s->taken, buffer + n, depth);
  }
}

bool tree_sitter_slang_external_scanner_scan(void *payload, TSLexer *lexer, const bool *valid_symbols) {
  Scanner *s = (Scanner *)payload;
  // Error recovery: every symbol is valid.
  bool recovering = valid_symbols[PREPROC_ERROR];

  if (s->arg_pending) {
    s->arg_pending = false;
    while (is_space(lexer->lookahead)) {
      skip(lexer);
    }
    bool unterminated = false;
    if (consume_line_str(lexer, NULL, 0, true, &unterminated)) {
      // An unterminated string is a lexical error, as in the Rust lexer.
      lexer->result_symbol = unterminated ? PREPROC_ERROR : PREPROC_ARG;
      return true;
    }
  }

  if (s->skip_pending) {
    s->skip_pending = false;
    // Skip the body of a branch that is not taken, up to the next
    // directive of the group (which is then scanned as a directive).
    while (is_space(lexer->lookahead) || lexer->lookahead == '\n' || lexer->lookahead == '\r') {
      skip(lexer);
    }
    if (lexer->lookahead == '#') {
      char name[16];
      read_directive_name(lexer, name, sizeof name);
      if (strcmp(name, "else") == 0 || strcmp(name, "elif") == 0 || strcmp(name, "endif") == 0) {
        // An empty branch: this is the group's next directive.
        lexer->mark_end(lexer);
        return directive(s, lexer, name);
      }
      // A directive inside the disabled branch.
      char stop[16];
      skip_disabled(lexer, false, is_if(name) ? 1 : 0, stop, sizeof stop);
      lexer->result_symbol = stop[0] == 0 ? PREPROC_ERROR : PREPROC_DISABLED;
      return true;
    }
    char stop[16];
    skip_disabled(lexer, false, 0, stop, sizeof stop);
    // At end of file inside an `#if`: an error.
    lexer->result_symbol = stop[0] == 0 ? PREPROC_ERROR : PREPROC_DISABLED;
    return true;
  }

  while (is_space(lexer->lookahead) || lexer->lookahead == '\n' || lexer->lookahead == '\r') {
    skip(lexer);
  }

  if (lexer->eof(lexer)) {
    if (s->depth > 0 && !recovering) {
      // Unterminated `#if`: report once.
      s->depth = 0;
      lexer->result_symbol = PREPROC_ERROR;
      return true;
    }
    return false;
  }

  int32_t c = lexer->lookahead;
  if (c == '#') {
    char name[16];
    int len = read_directive_name(lexer, name, sizeof name);
    if (len == 0) {
      return false;
    }
    lexer->mark_end(lexer);
    return directive(s, lexer, name);
  }

  if (recovering) {
    return false;
  }

  if (!is_ident_start(c)) {
    return false;
  }
  char w[64];
  int n = read_word(lexer, w, sizeof w);
  if (n >= (int)sizeof w) {
    return false;
  }
  if (n == 1 && w[0] == 'R' && lexer->lookahead == '"') {
    return valid_symbols[RAW_STRING_LITERAL] && scan_raw_string(lexer);
  }
  // A use of a macro defined as nothing: skipped like a comment.
  {
    uint32_t h = hash_name(w, n);
    Define *d = find_define(s, h);
    if (d && d->defined && d->empty) {
      lexer->mark_end(lexer);
      lexer->result_symbol = EMPTY_MACRO;
      return true;
    }
    // A function-like macro used as a statement (no `;` needed).
    if (d && d->defined && !d->object_like && valid_symbols[FUNCTION_MACRO]) {
      lexer->mark_end(lexer);
      lexer->result_symbol = FUNCTION_MACRO;
      return true;
    }
    // An object-like macro standing for a semantic: `float4 p INPUT_POSITION;`.
    if (d && d->defined && d->object_like && valid_symbols[OBJECT_MACRO]) {
      lexer->mark_end(lexer);
      lexer->result_symbol = OBJECT_MACRO;
      return true;
    }
  }
  if (valid_symbols[BARE_MACRO] || valid_symbols[MACRO_MODIFIER]) {
    uint32_t h = hash_name(w, n);
    Define *d = find_define(s, h);
    return scan_macro(lexer, valid_symbols, w, n, d && d->defined && d->object_like);
  }
  return false;
}
