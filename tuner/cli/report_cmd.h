/* report_cmd: `cutune report` — a results store (and its explain sidecar) as one
 * self-contained HTML page (tuner/report/report_html.c writes it). */
#ifndef CUTUNE_REPORT_CMD_H
#define CUTUNE_REPORT_CMD_H

int report_cmd_main(int argc, char **argv);

#endif
