/* fuzz_record: the record readers — one line through record_from_json_n (the fast reader and
 * jansson, which must agree), then the whole input as a results file through store_load
 * (line splitting, torn last lines, gzip). A record that reads must write and read back the
 * same. */
#include "fuzz_util.h"
#include "store/record_json.h"
#include "store/store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  record r;
  cterr e;
  if (record_from_json_n((const char *)data, size, &r, &e) == 0) {
    dbuf b;
    dbuf_init(&b);
    record_to_json(&r, &b);
    record r2;
    if (record_from_json_n(b.data, b.len, &r2, &e) != 0) abort(); /* what we write, we read */
    record_free(&r2);
    dbuf_free(&b);
  }
  record_free(&r);
  store *s = NULL;
  dbuf warn;
  dbuf_init(&warn);
  if (store_load(fuzz_file(data, size, ".jsonl"), &s, &warn, &e) == 0) {
    for (size_t i = 0; i < store_count(s); i++) {
      const record *x = store_get(s, i);
      store_find(s, x->config, x->problem, x->template_hash, x->options_hash, x->check_hash);
    }
    store_close(s);
  }
  dbuf_free(&warn);
  return 0;
}
