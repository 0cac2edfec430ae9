/* launch: element types of kernel arguments (names, parsing, sizes). See launch.h. */
#include "launch.h"

#include <string.h>

static const struct {
  const char *name;
  int size;
  const char *alias[4];
} types[EL_COUNT] = {
    [EL_F32] = {"float", 4, {"float32", "f32", NULL}},     [EL_F64] = {"double", 8, {"float64", "f64", NULL}},
    [EL_I32] = {"int", 4, {"int32", "i32", NULL}},         [EL_I64] = {"int64", 8, {"i64", "long", NULL}},
    [EL_U32] = {"uint", 4, {"uint32", "u32", "unsigned"}}, [EL_U8] = {"uint8", 1, {"u8", "uchar", "byte"}},
    [EL_F16] = {"half", 2, {"float16", "f16", NULL}},      [EL_BF16] = {"bfloat16", 2, {"bf16", NULL}},
};

const char *elemtype_name(elemtype t) { return t >= 0 && t < EL_COUNT ? types[t].name : "?"; }

int elemtype_size(elemtype t) { return t >= 0 && t < EL_COUNT ? types[t].size : 0; }

int elemtype_is_float(elemtype t) { return t == EL_F32 || t == EL_F64 || t == EL_F16 || t == EL_BF16; }

int elemtype_parse(const char *s, elemtype *out) {
  if (!s) return -1;
  for (int t = 0; t < EL_COUNT; t++) {
    int hit = !strcmp(s, types[t].name);
    for (int a = 0; a < 4 && types[t].alias[a] && !hit; a++) hit = !strcmp(s, types[t].alias[a]);
    if (hit) {
      *out = (elemtype)t;
      return 0;
    }
  }
  return -1;
}
