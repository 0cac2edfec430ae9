/* space_cmd: `cutune space SPACE.lua [--list]`: count and list a space without compiling;
 * `--hashes`: the hashes a run keys its records by. */
#ifndef CUTUNE_SPACE_CMD_H
#define CUTUNE_SPACE_CMD_H

int space_cmd_main(int argc, char **argv);

#endif
