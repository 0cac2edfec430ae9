#include "ship_cmds.h"
int header_main(int argc, char **argv) { (void)argc; (void)argv; return 2; }
