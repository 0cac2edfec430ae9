/* ship_space: see ship_space.h. */
#include "ship_space.h"

#include <string.h>

#include "store/store.h"

long ship_config_index(const space *s, const record *r, cterr *err) {
  const configset *cs = space_configs(s);
  int bad = 0;
  long cfg = configset_lookup_named(cs, r->nparams, r->pname, r->pvalue, &bad);
  if (cfg == -1)
    return cterr_set(err, "configuration %s: a value of %s is not one of the space's", r->config,
                     configset_param(cs, bad)->name);
  if (cfg < 0)
    return cterr_set(err, "configuration %s is not a valid configuration of the space (its constraints reject it)",
                     r->config);
  return cfg;
}

/* ship_opts.in_space: records of configurations the space no longer has are not shipped */
static int in_space(void *ctx, const record *r) {
  cterr e;
  return ship_config_index(ctx, r, &e) >= 0;
}

void ship_opts_for_space(ship_opts *so, const space *s, const char *template_hash, const char **pnames) {
  const configset *cs = space_configs(s);
  so->space_name = space_name(s);
  so->template_hash = template_hash;
  so->nparams = configset_nparams(cs);
  for (int p = 0; p < so->nparams; p++) pnames[p] = configset_param(cs, p)->name;
  so->params = pnames;
  so->in_space = in_space;
  so->in_space_ctx = (void *)s;
}

static const char *check_of(void *ctx, const record *r) {
  const ship_checks *c = ctx;
  int p = space_problem_index(c->s, r->problem);
  return p >= 0 ? c->hash[p] : NULL;
}

void ship_opts_check(ship_opts *so, ship_checks *c) {
  so->check_of = check_of;
  so->check_ctx = c;
}

size_t ship_keep_checked(const ship_checks *c, const record **recs, size_t n, size_t *other) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (store_same_check(check_of((void *)c, recs[i]), recs[i])) recs[k++] = recs[i];
  *other = n - k;
  return k;
}

int ship_block_of(void *ctx, const record *r, unsigned block[3], unsigned *shared, cterr *err) {
  space *s = ctx;
  long cfg = ship_config_index(s, r, err);
  if (cfg < 0) return -1;
  int prob = space_problem_index(s, r->problem);
  if (prob < 0) prob = 0;
  launch_geom g;
  if (space_geometry(s, (size_t)cfg, prob, &g, err) < 0) return -1;
  memcpy(block, g.block, sizeof g.block);
  *shared = g.dyn_smem;
  return 0;
}

int ship_grid_of(void *ctx, const record *r, int nv, const char *const *vars, const long long *dims, long long *blocks,
                 cterr *err) {
  space *s = ctx;
  long cfg = ship_config_index(s, r, err);
  if (cfg < 0) return -1;
  int64_t v[16];
  if (nv > 16) return cterr_set(err, "%d problem variables: the grid model takes 16 at most", nv);
  for (int j = 0; j < nv; j++) v[j] = dims[j];
  launch_geom g;
  if (space_geometry_at(s, (size_t)cfg, nv, vars, v, &g, err) < 0) return -1;
  *blocks = (long long)g.grid[0] * g.grid[1] * g.grid[2];
  return 0;
}
