/* run: the `cutune run` command — parses the options, loads the space and hands it to the
 * compile-only path (compile_only.h, no GPU) or the tuning loop (tune.h). */
#ifndef CUTUNE_RUN_H
#define CUTUNE_RUN_H

int run_main(int argc, char **argv);
#endif
