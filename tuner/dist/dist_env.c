/* dist_env: whether this process was started by an MPI launcher, read from the environment
 * the launchers set (see dist.h). Shared by both builds. */
#include <stdlib.h>

#include "dist.h"

#ifdef CUTUNE_MPI
static int env_int(const char *const *names) {
  for (int i = 0; names[i]; i++) {
    const char *v = getenv(names[i]);
    if (v && *v) return atoi(v);
  }
  return -1;
}
#endif

int dist_launched(void) {
#ifdef CUTUNE_MPI
  static const char *const size[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE", "SLURM_NTASKS", NULL};
  static const char *const rank[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID", NULL};
  int n = env_int(size);
  /* SLURM_NTASKS alone (an sbatch script's environment) is not a launch: a rank is there too */
  return n > 1 && env_int(rank) >= 0 ? n : 1;
#else
  return 1;
#endif
}

int dist_launched_rank(void) {
#ifdef CUTUNE_MPI
  static const char *const rank[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID", NULL};
  int r = env_int(rank);
  return dist_launched() > 1 && r > 0 ? r : 0;
#else
  return 0;
#endif
}
