#!/usr/bin/env bash
# matmul_emu.sh: run bench/matmul_emu.cpp (the CPU emulator of templates/matmul.cu) for
# configurations read from stdin, one per line as -D flags ("-DBM=128 -DBN=256 ..."; anything
# after a '|' is ignored). Prints one line per configuration: correct/WRONG on 7 sizes (8 with STREAMK; aligned,
# ragged in every dimension, N and K % 4 != 0, K < BK, K not a multiple of the split; with STREAMK
# each on four grids). Exit status 1 if any is wrong.
# SEEDS="1 2 3" also runs each configuration under those random schedules (MM_EMU_SEED: random
# thread order, copies landing early; bench/matmul_emu.cpp's header). Needs g++ with
# AddressSanitizer. The driver is bench/emu_check.sh's.
EMU=bench/matmul_emu.cpp exec bash "$(dirname "$0")/emu_check.sh"
