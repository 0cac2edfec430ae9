/* ship_cmds: the commands that ship what was tuned — `cutune best` (best.c: the Pareto front
 * per GPU) and `cutune header` (header.c: the C header of the winners per device,
 * architecture and problem). Each parses its own options and returns an exit status. */
#ifndef CUTUNE_SHIP_CMDS_H
#define CUTUNE_SHIP_CMDS_H

int best_main(int argc, char **argv);
int header_main(int argc, char **argv);

#endif
