/* header_text: data copied into the generated header's text, made inert (see header_int.h). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "header_int.h"

static void hex_byte(dbuf *b, unsigned char c) { dbuf_printf(b, "\\x%02x", c); }

void hdr_comment(dbuf *b, const char *s) {
  for (const char *p = s; *p; p++) {
    unsigned char c = (unsigned char)*p, prev = p > s ? (unsigned char)p[-1] : 0;
    if (c < 0x20 || c > 0x7e || c == '\\') hex_byte(b, c);                           /* no newline, no line splice */
    else if ((c == '/' && prev == '*') || (c == '*' && prev == '/')) hex_byte(b, c); /* no end, no nested start */
    else if (c == '?' && prev == '?') hex_byte(b, c); /* no trigraph (C99: ??/ is a backslash) */
    else dbuf_append(b, p, 1);
  }
}

void hdr_comment_pad(dbuf *b, const char *s, int width) {
  size_t start = b->len;
  hdr_comment(b, s);
  for (size_t w = b->len - start; w < (size_t)width; w++) dbuf_puts(b, " ");
}

void hdr_c_string(dbuf *b, const char *s) {
  dbuf_puts(b, "\"");
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    /* \? keeps "??/" and the other trigraphs from forming; three octal digits end an escape
     * whatever character follows */
    if (c == '"' || c == '\\' || c == '?') dbuf_printf(b, "\\%c", c);
    else if (c < 0x20 || c > 0x7e) dbuf_printf(b, "\\%03o", c);
    else dbuf_append(b, s, 1);
  }
  dbuf_puts(b, "\"");
}

int hdr_ident_ok(const char *s) {
  if (!s || !*s || !(isalpha((unsigned char)*s) || *s == '_')) return 0;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_') return 0;
  return 1;
}

int hdr_value_ok(const char *s) {
  if (!s || !*s) return 0;
  const char *d = s + (*s == '-');
  int digits = *d != 0;
  for (const char *c = d; *c && digits; c++) digits = isdigit((unsigned char)*c) != 0;
  return digits || hdr_ident_ok(s);
}
