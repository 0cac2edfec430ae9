/* profile_one: the hidden `cutune __profile-one SPACE CONFIG PROBLEM` that `cutune explain`
 * runs under ncu and compute-sanitizer: one configuration, compiled (through the compile
 * cache) and measured by a GPU worker like `run` does, its record printed on stdout as one
 * line "cutune-profile-one: {json}". Nothing is written to the store. */
#ifndef CUTUNE_PROFILE_ONE_H
#define CUTUNE_PROFILE_ONE_H

#define PROFILE_ONE_TAG "cutune-profile-one: "

int profile_one_main(int argc, char **argv);

#endif
