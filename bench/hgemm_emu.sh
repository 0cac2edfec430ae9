#!/usr/bin/env bash
# hgemm_emu.sh: run bench/hgemm_emu.cpp (the CPU emulator of templates/hgemm.cu) for configurations
# read from stdin, one per line as -D flags ("-DWG=1 -DBM=128 ..."; anything after a '|' is
# ignored; default: bench/hgemm_configs.txt). Prints one line per configuration: correct/WRONG on
# its 7 sizes (aligned, ragged, 8-, 4- and 2-byte aligned operands, K < BK, split-K over 3).
# SEEDS="1 2" also runs each under those random schedules (MM_EMU_SEED: random thread order,
# cp.async landing early). F16=1 builds the FP16 variant (-DHG_F16=1). Exit status 1 if any is
# wrong. Needs g++ with AddressSanitizer. The driver is bench/emu_check.sh's.
cd "$(dirname "$0")/.."
if [ -t 0 ]; then exec < bench/hgemm_configs.txt; fi
grep -v '^#' | sed "s/|.*//; s/\$/ ${F16:+-DHG_F16=1}/" | EMU=bench/hgemm_emu.cpp bash bench/emu_check.sh
