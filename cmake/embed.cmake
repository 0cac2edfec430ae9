# Turns a text file into a C array: cmake -DIN=file -DOUT=file.c -P embed.cmake
file(READ ${IN} HEX HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," HEX "${HEX}")
file(WRITE ${OUT} "/* generated from lua/cutune.lua; do not edit */\n#include <stddef.h>\n"
  "const unsigned char cutune_prelude[] = {${HEX}0x00};\n"
  "const size_t cutune_prelude_len = sizeof cutune_prelude - 1;\n")
